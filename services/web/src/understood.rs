//! Standings people understand (issue 35), in the page's language: what separates a row from the
//! row above ("level on 18 VP; ahead on VP share, 61.89 % against 60.12 %"), where a player
//! stands against the playoff cut and what makes him sure, and where he stands against the
//! season's qualification.

use crate::i18n::{Lang, Words};
use catan_api::{
    CutNeed, CutOutlook, EventCriterion, QualificationOutlook, SeasonStandingRow, Separation,
    StandingRow, TieBreak,
};

/// A row of a ranking: the criteria its order compares, named and with this row's figure on each
/// written with its unit.
pub trait Ranked {
    type Criterion: Copy;
    fn name(criterion: Self::Criterion, w: &Words) -> &'static str;
    fn figure(&self, criterion: Self::Criterion, lang: Lang) -> String;
}

impl Ranked for StandingRow {
    type Criterion = EventCriterion;

    fn name(criterion: EventCriterion, w: &Words) -> &'static str {
        match criterion {
            EventCriterion::Vp => w.vp,
            EventCriterion::VpShare => w.vp_share,
            EventCriterion::Wins => w.wins,
        }
    }

    fn figure(&self, criterion: EventCriterion, lang: Lang) -> String {
        let w = lang.words();
        match criterion {
            EventCriterion::Vp => with_unit(w.n_vp, lang.int(u64::from(self.vp))),
            EventCriterion::VpShare => with_unit(w.n_vp_share, lang.decimal(&self.vp_share)),
            EventCriterion::Wins => with_unit(w.n_wins, lang.int(u64::from(self.wins))),
        }
    }
}

impl Ranked for SeasonStandingRow {
    type Criterion = TieBreak;

    fn name(criterion: TieBreak, w: &Words) -> &'static str {
        match criterion {
            TieBreak::Points => w.points,
            TieBreak::Wins => w.wins,
            TieBreak::Vp => w.vp,
            TieBreak::VpShare => w.vp_share,
            TieBreak::BestPlace => w.best_place,
            TieBreak::FewerEvents => w.events_played,
            TieBreak::VpCappedAtWinningTotal => w.vp_capped,
            TieBreak::TablePlaces => w.table_places,
        }
    }

    fn figure(&self, criterion: TieBreak, lang: Lang) -> String {
        let w = lang.words();
        match criterion {
            TieBreak::Points => with_unit(w.n_points, lang.decimal(&self.points)),
            TieBreak::Wins => with_unit(w.n_wins, lang.int(u64::from(self.wins))),
            TieBreak::Vp | TieBreak::VpCappedAtWinningTotal => with_unit(w.n_vp, lang.int(self.vp)),
            TieBreak::VpShare => with_unit(w.n_vp_share, lang.decimal(&self.vp_share)),
            TieBreak::BestPlace => match self.best_place {
                Some(place) => with_unit(w.n_place, lang.int(u64::from(place))),
                None => w.no_place.to_owned(),
            },
            TieBreak::FewerEvents => with_unit(w.n_events, lang.int(u64::from(self.events_played))),
            TieBreak::TablePlaces => {
                let [first, second, third] = self.table_places.map(|n| lang.int(u64::from(n)));
                w.n_places
                    .replace("{first}", &first)
                    .replace("{second}", &second)
                    .replace("{third}", &third)
            }
        }
    }
}

fn with_unit(pattern: &str, n: String) -> String {
    pattern.replace("{n}", &n)
}

/// What separates `below` from `above`, the row before it, in `lang`: "level on 18 VP; ahead on
/// VP share, 61.89 % against 60.12 %", or that they are level on everything.
pub fn separation<R: Ranked>(
    lang: Lang,
    above: &R,
    below: &R,
    said: &Separation<R::Criterion>,
) -> String {
    let w = lang.words();
    let Some(ahead) = said.ahead_on else {
        return w.level_on_everything.to_owned();
    };
    let ahead_on = w
        .ahead_on
        .replace("{criterion}", R::name(ahead, w))
        .replace("{above}", &above.figure(ahead, lang))
        .replace("{below}", &below.figure(ahead, lang));
    if said.level_on.is_empty() {
        return ahead_on;
    }
    let level: Vec<String> = said
        .level_on
        .iter()
        .map(|&criterion| below.figure(criterion, lang))
        .collect();
    let separator = if lang == Lang::Zh { "，" } else { ", " };
    let level_on = w.level_on.replace("{level}", &level.join(separator));
    let joiner = if lang == Lang::Zh { "；" } else { "; " };
    format!("{level_on}{joiner}{ahead_on}")
}

/// Where a player stands against the playoff cut, and what makes him sure when he can still
/// make it.
pub fn cut(lang: Lang, outlook: CutOutlook, needs: Option<CutNeed>) -> String {
    let w = lang.words();
    let said = match outlook {
        CutOutlook::AlreadySure => w.cut_sure,
        CutOutlook::CanStillMakeIt => w.cut_can,
        CutOutlook::CannotMakeIt => w.cut_cannot,
    };
    match needs {
        Some(need) if outlook == CutOutlook::CanStillMakeIt => {
            let needs = w
                .cut_needs
                .replace("{each}", &lang.int(u64::from(need.vp_each_game)))
                .replace("{total}", &lang.int(u64::from(need.total_vp)));
            let joiner = if lang == Lang::Zh { "：" } else { ": " };
            format!("{said}{joiner}{needs}")
        }
        _ => said.to_owned(),
    }
}

/// Where a player stands against the season's qualification.
pub fn qualification(lang: Lang, outlook: QualificationOutlook) -> &'static str {
    let w = lang.words();
    match outlook {
        QualificationOutlook::AlreadyQualified => w.qualification_sure,
        QualificationOutlook::CanStillQualify => w.qualification_can,
        QualificationOutlook::CannotQualify => w.qualification_cannot,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(vp: u32, vp_share: &str, wins: u32) -> StandingRow {
        serde_json::from_value(serde_json::json!({
            "rank": 1, "entry_id": uuid::Uuid::nil(), "player_id": uuid::Uuid::nil(),
            "name": "Ada", "status": "active", "vp": vp, "vp_share": vp_share,
            "vp_share_exact": "0/1", "games": 2, "wins": wins, "three_player_games": 0
        }))
        .unwrap()
    }

    #[test]
    fn a_separation_is_said_in_each_language_with_the_rows_figures() {
        let (above, below) = (row(18, "61.89", 1), row(18, "60.12", 1));
        let said = Separation {
            level_on: vec![EventCriterion::Vp],
            ahead_on: Some(EventCriterion::VpShare),
        };
        assert_eq!(
            separation(Lang::En, &above, &below, &said),
            "level on 18 VP; ahead on VP share, 61.89 % against 60.12 %"
        );
        assert_eq!(
            separation(Lang::Es, &above, &below, &said),
            "empatado a 18 PV; por delante en % de PV: 61,89 % frente a 60,12 %"
        );
        assert_eq!(
            separation(Lang::Zh, &above, &below, &said),
            "18胜利点相同；胜利点占比领先：61.89%对60.12%"
        );
        let level = Separation::<EventCriterion> {
            level_on: vec![
                EventCriterion::Vp,
                EventCriterion::VpShare,
                EventCriterion::Wins,
            ],
            ahead_on: None,
        };
        assert_eq!(
            separation(Lang::En, &above, &above, &level),
            "level on everything with the row above"
        );
    }

    #[test]
    fn a_player_who_can_still_make_it_is_told_what_makes_him_sure() {
        let need = CutNeed {
            total_vp: 20,
            vp_each_game: 10,
        };
        assert_eq!(
            cut(Lang::En, CutOutlook::CanStillMakeIt, Some(need)),
            "Can still make it: sure with 10 VP in each game left (20 in all)"
        );
        assert_eq!(
            cut(Lang::En, CutOutlook::AlreadySure, None),
            "In the playoff"
        );
        assert_eq!(
            qualification(Lang::Es, QualificationOutlook::CannotQualify),
            "No puede clasificarse"
        );
    }
}
