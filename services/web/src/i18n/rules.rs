//! The rules a form can break, in the page's language: what the console shows beside a field
//! from the API's problem document, said as the federation's rule documents say it (the API's
//! own message names players by id, which a form beside their names needs not). A code without
//! words here shows the API's message.

use super::Lang;
use catan_api::{ErrorCode, FieldError};

/// The message of `error` in `lang`.
pub fn rule_message(lang: Lang, error: &FieldError) -> String {
    let translated = match lang {
        Lang::En => english(error.code),
        Lang::Es => spanish(error.code),
        Lang::Zh => chinese(error.code),
    };
    if let Some(text) = translated {
        return text.to_owned();
    }
    if !error.message.is_empty() {
        return error.message.clone();
    }
    // A field the web app found unreadable itself, before asking the API.
    match error.code {
        ErrorCode::InvalidJson => lang.words().not_a_number.to_owned(),
        _ => error.code.to_string(),
    }
}

fn english(code: ErrorCode) -> Option<&'static str> {
    Some(match code {
        ErrorCode::InvalidJson => "This is not a whole number.",
        ErrorCode::UnknownPlayer => "This player is not seated at this table.",
        ErrorCode::DuplicatePlayer => "A player is on the sheet twice.",
        ErrorCode::MissingPlayer => "Every player seated at the table needs a line.",
        ErrorCode::OutOfRange => "Outside what the rules allow.",
        ErrorCode::WinnerMissing => "Say who won.",
        ErrorCode::WinnerNotSeated => "The winner must sit at this table.",
        ErrorCode::WinnerBelowTen => "The winner needs at least 10 VP.",
        ErrorCode::WinnerAtTimeLimit => {
            "At the time limit only a player who reached 10 VP wins; if nobody did, there is no winner."
        }
        ErrorCode::FinalAtTimeLimit => "The final is played until someone wins: no time limit.",
        ErrorCode::TooFewBuildings => "Every player keeps at least their starting buildings.",
        ErrorCode::BreakdownSumMismatch => "The VP do not add up to the counts.",
        ErrorCode::TooManyVpCards => "The game has 5 victory point cards.",
        ErrorCode::MultipleLongestRoadHolders => "Only one player holds the longest road.",
        ErrorCode::MultipleLargestArmyHolders => "Only one player holds the largest army.",
        ErrorCode::WinnerBelowTarget => "The winning team did not reach the target.",
        ErrorCode::NonWinnerAtTen => {
            "Did not win but has 10 VP or more, which happens only on another player's turn: correct the VP, or the director checks the sheet."
        }
        ErrorCode::TimeNotUp => {
            "This table's time is not up: a time-limit sheet before the end needs the director's reason."
        }
        ErrorCode::AlreadyMerged => "One of these players has been merged already.",
        ErrorCode::SharedEvent => "Both players have an entry in one event: they are two people.",
        _ => return None,
    })
}

fn spanish(code: ErrorCode) -> Option<&'static str> {
    Some(match code {
        ErrorCode::InvalidJson => "Esto no es un número entero.",
        ErrorCode::UnknownPlayer => "Este jugador no está sentado en esta mesa.",
        ErrorCode::DuplicatePlayer => "Un jugador aparece dos veces en la hoja.",
        ErrorCode::MissingPlayer => "Cada jugador sentado en la mesa necesita su línea.",
        ErrorCode::OutOfRange => "Fuera de lo que permite el reglamento.",
        ErrorCode::WinnerMissing => "Indique el ganador.",
        ErrorCode::WinnerNotSeated => "El ganador debe estar sentado en esta mesa.",
        ErrorCode::WinnerBelowTen => "El ganador necesita al menos 10 PV.",
        ErrorCode::WinnerAtTimeLimit => {
            "Al límite de tiempo solo gana quien alcanzó 10 PV; si nadie los alcanzó, no hay ganador."
        }
        ErrorCode::FinalAtTimeLimit => {
            "La final se juega hasta que alguien gane: sin límite de tiempo."
        }
        ErrorCode::TooFewBuildings => "Cada jugador tiene al menos sus construcciones iniciales.",
        ErrorCode::BreakdownSumMismatch => "Los PV no coinciden con el desglose.",
        ErrorCode::TooManyVpCards => "Hay 5 cartas de puntos de victoria en el juego.",
        ErrorCode::MultipleLongestRoadHolders => "Solo un jugador tiene el camino más largo.",
        ErrorCode::MultipleLargestArmyHolders => "Solo un jugador tiene el ejército más grande.",
        ErrorCode::WinnerBelowTarget => "El equipo ganador no alcanzó los puntos del objetivo.",
        ErrorCode::NonWinnerAtTen => {
            "No ganó pero tiene 10 PV o más, lo que solo ocurre en el turno de otro jugador: corrige los PV, o el director comprueba la hoja."
        }
        ErrorCode::TimeNotUp => {
            "El tiempo de esta mesa aún no ha terminado: una hoja con límite de tiempo necesita el motivo del director."
        }
        ErrorCode::Required => "Este dato es obligatorio.",
        ErrorCode::InvalidName => "Escriba un nombre.",
        ErrorCode::EndsBeforeStart => "El último día no puede ser anterior al primero.",
        ErrorCode::TooLong => "Es demasiado largo.",
        ErrorCode::UnknownRegion => "Esta región no existe.",
        ErrorCode::NotForFormat => "No corresponde a este formato de evento.",
        ErrorCode::AlreadyMerged => "Uno de estos jugadores ya se ha fusionado.",
        ErrorCode::SharedEvent => {
            "Los dos jugadores están inscritos en un mismo evento: son dos personas."
        }
        _ => return None,
    })
}

fn chinese(code: ErrorCode) -> Option<&'static str> {
    Some(match code {
        ErrorCode::InvalidJson => "这不是整数。",
        ErrorCode::UnknownPlayer => "该玩家不在这张桌上。",
        ErrorCode::DuplicatePlayer => "同一玩家在成绩单上出现了两次。",
        ErrorCode::MissingPlayer => "桌上每位玩家都需要一行成绩。",
        ErrorCode::OutOfRange => "超出规则允许的范围。",
        ErrorCode::WinnerMissing => "请填写获胜者。",
        ErrorCode::WinnerNotSeated => "获胜者必须坐在这张桌上。",
        ErrorCode::WinnerBelowTen => "获胜者至少需要 10 个胜利点。",
        ErrorCode::WinnerAtTimeLimit => {
            "到时限时只有达到 10 个胜利点的玩家才算获胜；无人达到则没有获胜者。"
        }
        ErrorCode::FinalAtTimeLimit => "决赛打到有人获胜为止：没有时限。",
        ErrorCode::TooFewBuildings => "每位玩家至少保有开局的村落和城市。",
        ErrorCode::BreakdownSumMismatch => "胜利点与明细不符。",
        ErrorCode::TooManyVpCards => "游戏中共有 5 张胜利点卡。",
        ErrorCode::MultipleLongestRoadHolders => "路王卡只能由一位玩家持有。",
        ErrorCode::MultipleLargestArmyHolders => "兵王卡只能由一位玩家持有。",
        ErrorCode::WinnerBelowTarget => "获胜队伍没有达到目标胜利点。",
        ErrorCode::NonWinnerAtTen => {
            "未获胜却有 10 个或更多胜利点，这只会在其他玩家的回合发生：请更正胜利点，或由裁判长核对成绩单。"
        }
        ErrorCode::TimeNotUp => "这张桌的时间还没到：提前提交时限成绩单需要裁判长说明原因。",
        ErrorCode::Required => "此项必填。",
        ErrorCode::InvalidName => "请填写名称。",
        ErrorCode::EndsBeforeStart => "最后一天不能早于第一天。",
        ErrorCode::TooLong => "内容过长。",
        ErrorCode::UnknownRegion => "该地区不存在。",
        ErrorCode::NotForFormat => "不适用于此赛制。",
        ErrorCode::AlreadyMerged => "其中一名玩家已被合并。",
        ErrorCode::SharedEvent => "两名玩家都报名了同一赛事：他们是两个人。",
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn error(code: ErrorCode, message: &str) -> FieldError {
        FieldError {
            field: "scores[0].vp".into(),
            code,
            message: message.into(),
        }
    }

    #[test]
    fn a_broken_rule_is_said_in_the_pages_language() {
        let below = error(
            ErrorCode::WinnerBelowTen,
            "The winner needs at least 10 VP.",
        );
        assert_eq!(
            rule_message(Lang::En, &below),
            "The winner needs at least 10 VP."
        );
        assert_eq!(
            rule_message(Lang::Es, &below),
            "El ganador necesita al menos 10 PV."
        );
        assert_eq!(
            rule_message(Lang::Zh, &below),
            "获胜者至少需要 10 个胜利点。"
        );
    }

    #[test]
    fn every_sheet_rule_is_translated() {
        let all: Vec<ErrorCode> = catan_domain_rule_codes();
        for code in all {
            assert!(english(code).is_some(), "{code} in English");
            assert!(spanish(code).is_some(), "{code} in Spanish");
            assert!(chinese(code).is_some(), "{code} in Chinese");
        }
    }

    /// The results sheet's rules, as the API's codes.
    fn catan_domain_rule_codes() -> Vec<ErrorCode> {
        serde_json::from_value(serde_json::json!([
            "unknown_player",
            "duplicate_player",
            "missing_player",
            "out_of_range",
            "winner_missing",
            "winner_not_seated",
            "winner_below_ten",
            "winner_at_time_limit",
            "final_at_time_limit",
            "too_few_buildings",
            "breakdown_sum_mismatch",
            "too_many_vp_cards",
            "multiple_longest_road_holders",
            "multiple_largest_army_holders",
            "winner_below_target",
            "time_not_up"
        ]))
        .unwrap()
    }
}
