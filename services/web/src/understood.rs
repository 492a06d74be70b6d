//! Standings people understand (issue 35), in the page's language: what separates a row from the
//! row above ("level on 18 VP; ahead on VP share, 61.89 % against 60.12 %"), where a player
//! stands against the playoff cut and what makes him sure, and where he stands against the
//! season's qualification.

use crate::i18n::{Lang, Words};
use catan_api::{
    CutNeed, CutOutlook, EventCriterion, Figure, QualificationOutlook, Separation, TieBreak,
};

/// A criterion of a ranking order: its name, and its figures as written with their unit.
pub trait Criterion: Copy {
    fn name(self, w: &Words) -> &'static str;
    fn figure(self, lang: Lang, figure: &Figure) -> String;
}

impl Criterion for EventCriterion {
    fn name(self, w: &Words) -> &'static str {
        match self {
            EventCriterion::Vp => w.vp,
            EventCriterion::VpShare => w.vp_share,
            EventCriterion::Wins => w.wins,
        }
    }

    fn figure(self, lang: Lang, figure: &Figure) -> String {
        let w = lang.words();
        match self {
            EventCriterion::Vp => with_unit(w.n_vp, whole(lang, figure)),
            EventCriterion::VpShare => with_unit(w.n_vp_share, decimal(lang, figure)),
            EventCriterion::Wins => with_unit(w.n_wins, whole(lang, figure)),
        }
    }
}

impl Criterion for TieBreak {
    fn name(self, w: &Words) -> &'static str {
        match self {
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

    fn figure(self, lang: Lang, figure: &Figure) -> String {
        let w = lang.words();
        match self {
            TieBreak::Points => with_unit(w.n_points, decimal(lang, figure)),
            TieBreak::Wins => with_unit(w.n_wins, whole(lang, figure)),
            TieBreak::Vp | TieBreak::VpCappedAtWinningTotal => {
                with_unit(w.n_vp, whole(lang, figure))
            }
            TieBreak::VpShare => with_unit(w.n_vp_share, decimal(lang, figure)),
            TieBreak::BestPlace => match &figure.shown {
                Some(_) => with_unit(w.n_place, whole(lang, figure)),
                None => w.no_place.to_owned(),
            },
            TieBreak::FewerEvents => with_unit(w.n_events, whole(lang, figure)),
            TieBreak::TablePlaces => places(w, figure),
        }
    }
}

fn with_unit(pattern: &str, n: String) -> String {
    pattern.replace("{n}", &n)
}

fn whole(lang: Lang, figure: &Figure) -> String {
    let shown = figure.shown.as_deref().unwrap_or_default();
    shown
        .parse::<u64>()
        .map_or_else(|_| shown.to_owned(), |n| lang.int(n))
}

fn decimal(lang: Lang, figure: &Figure) -> String {
    lang.decimal(figure.shown.as_deref().unwrap_or_default())
}

/// Games finished 1st, 2nd and 3rd, as the API writes them (`a/b/c`).
fn places(w: &Words, figure: &Figure) -> String {
    let shown = figure.shown.as_deref().unwrap_or_default();
    let mut counts = shown.split('/');
    let mut next = || counts.next().unwrap_or_default().to_owned();
    let (first, second, third) = (next(), next(), next());
    w.n_places
        .replace("{first}", &first)
        .replace("{second}", &second)
        .replace("{third}", &third)
}

/// What separates a row from the row above, in `lang`: "level on 18 VP; ahead on VP share,
/// 61.89 % against 60.12 %", or that they are level on everything.
pub fn separation<C: Criterion>(lang: Lang, separation: &Separation<C>) -> String {
    let w = lang.words();
    let Some(ahead) = &separation.ahead_on else {
        return w.level_on_everything.to_owned();
    };
    let ahead_on = w
        .ahead_on
        .replace("{criterion}", ahead.criterion.name(w))
        .replace("{above}", &ahead.criterion.figure(lang, &ahead.above))
        .replace("{below}", &ahead.criterion.figure(lang, &ahead.below));
    if separation.level_on.is_empty() {
        return ahead_on;
    }
    let level: Vec<String> = separation
        .level_on
        .iter()
        .map(|l| l.criterion.figure(lang, &l.figure))
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
    use catan_api::{AheadOn, LevelOn};

    fn shown(text: &str) -> Figure {
        Figure {
            shown: Some(text.to_owned()),
            exact: None,
        }
    }

    fn level_on_vp_ahead_on_share() -> Separation<EventCriterion> {
        Separation {
            level_on: vec![LevelOn {
                criterion: EventCriterion::Vp,
                figure: shown("18"),
            }],
            ahead_on: Some(AheadOn {
                criterion: EventCriterion::VpShare,
                above: shown("61.89"),
                below: shown("60.12"),
            }),
        }
    }

    #[test]
    fn a_separation_is_said_in_each_language() {
        let said = level_on_vp_ahead_on_share();
        assert_eq!(
            separation(Lang::En, &said),
            "level on 18 VP; ahead on VP share, 61.89 % against 60.12 %"
        );
        assert_eq!(
            separation(Lang::Es, &said),
            "empatado a 18 PV; por delante en % de PV: 61,89 % frente a 60,12 %"
        );
        assert_eq!(
            separation(Lang::Zh, &said),
            "18胜利点相同；胜利点占比领先：61.89%对60.12%"
        );
        let level = Separation::<EventCriterion> {
            level_on: vec![],
            ahead_on: None,
        };
        assert_eq!(
            separation(Lang::En, &level),
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

    #[test]
    fn a_season_tie_break_writes_its_figures_with_their_unit() {
        let said = Separation {
            level_on: vec![LevelOn {
                criterion: TieBreak::Points,
                figure: shown("43.00"),
            }],
            ahead_on: Some(AheadOn {
                criterion: TieBreak::TablePlaces,
                above: shown("3/1/0"),
                below: shown("2/4/1"),
            }),
        };
        assert_eq!(
            separation(Lang::En, &said),
            "level on 43.00 points; ahead on 1st, 2nd and 3rd places, 3 1st, 1 2nd, 0 3rd places \
             against 2 1st, 4 2nd, 1 3rd places"
        );
    }
}
