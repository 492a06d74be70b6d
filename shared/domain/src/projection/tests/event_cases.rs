//! The extremes of one game against every legal sheet, and worked cases of the event's
//! projection.

use serde_json::json;

use super::super::game::{Figures, Tables};
use super::super::*;
use super::{every_seat_outcome, outlooks, player, row, vp};
use crate::PlayerId;
use crate::playoffs::SmallFieldRule;
use crate::standings::{ClassicRow, VpShare, vp_share};

#[test]
fn every_legal_sheet_gives_shares_within_the_extremes() {
    for tables in [
        Tables {
            four: true,
            three: false,
        },
        Tables {
            four: false,
            three: true,
        },
        Tables {
            four: true,
            three: true,
        },
    ] {
        let outcomes = every_seat_outcome(tables);
        for credited in 2u8..=10 {
            let with: Vec<&Figures> = outcomes
                .iter()
                .filter(|o| o.vp == u32::from(credited))
                .collect();
            assert!(!with.is_empty(), "{credited} VP is credited at some table");
            // Each extreme is what some sheet gives, and no sheet goes beyond it.
            assert_eq!(**with.iter().max().unwrap(), tables.best_with(credited));
            assert_eq!(**with.iter().min().unwrap(), tables.worst_with(credited));
        }
        assert!(outcomes.iter().all(|o| (2..=10).contains(&o.vp)));
        assert!(outcomes.iter().all(|o| (o.wins == 1) == (o.vp == 10)));
        assert_eq!(*outcomes.last().unwrap(), tables.best_game());
        assert_eq!(*outcomes.first().unwrap(), tables.worst_game());
    }
    // A win's best share is at a table of 4 (10 of 16); 2 VP's worst is 2 of 30.
    let both = Tables::of_field(7);
    assert_eq!(both.best_game().share.percent(), "62.50");
    assert_eq!(both.worst_game().share.percent(), "6.67");
    // With 9 VP a table of 3 is worse (27 of 112) than a table of 4 (9 of 37).
    assert_eq!(both.worst_with(9).share.percent(), "24.11");
    assert_eq!(Tables::of_field(8).worst_with(9).share.percent(), "24.32");
}

/// A field of 8 (a final of the top 4), two rounds to play, every share so far 0.
fn field_of_eight(points: [u32; 8]) -> Vec<ClassicRow> {
    points
        .iter()
        .zip(1u128..)
        .map(|(&points, n)| row(player(n), vp(points)))
        .collect()
}

#[test]
fn a_player_needing_a_win_in_each_of_the_last_two_games_is_told_so() {
    // Players 1 to 3 are far ahead; player 4 has 10, players 5 and 6 have 9.
    let rows = field_of_eight([40, 35, 30, 10, 9, 9, 2, 2]);
    let field: Vec<PlayerId> = rows.iter().map(|r| r.player).collect();
    let projection = project_event(&rows, &field, 2, SmallFieldRule::FinalOfTop4).unwrap();
    assert_eq!((projection.cut, projection.remaining_rounds), (4, 2));
    use CutOutlook::*;
    assert_eq!(
        outlooks(&projection),
        [
            AlreadySure,
            AlreadySure,
            AlreadySure,
            CanStillMakeIt,
            CanStillMakeIt,
            CanStillMakeIt,
            CanStillMakeIt,
            CanStillMakeIt
        ]
    );
    // 19 VP would leave him on 29, where players 5 and 6 can be with two wins and better shares:
    // only two wins make player 4 sure.
    assert_eq!(
        projection.players[3].need,
        Some(CutNeed {
            total_vp: 20,
            vp_each_game: 10
        })
    );
    // Player 5 at 9 cannot pass 6 at 9 with their best shares alike, so 20 is not enough for
    // him: he also needs player 4 or 6 to fall short.
    assert_eq!(projection.players[4].need, None);
    assert_eq!(
        serde_json::to_value(&projection.players[3]).unwrap(),
        json!({
            "player_id": player(4),
            "outlook": "can_still_make_it",
            "need": {"total_vp": 20, "vp_each_game": 10},
        })
    );
}

#[test]
fn the_total_needed_holds_however_the_games_split_it() {
    // p has won a game with 10 of 16 VP and made 4 of 29: 76.29 % of share so far.
    let p_now = Figures {
        vp: 14,
        share: vp_share(10, &[10, 2, 2, 2]) + vp_share(4, &[4, 10, 9, 6]),
        wins: 1,
    };
    // q, at 12, can end on 32 VP with two wins of 62.5 % each: 125 %.
    let q_now = vp(12);
    let rows = vec![
        row(player(1), vp(60)),
        row(player(2), vp(60)),
        row(player(3), vp(60)),
        row(player(4), p_now),
        row(player(5), q_now),
        row(player(6), vp(0)),
        row(player(7), vp(0)),
        row(player(8), vp(0)),
    ];
    let field: Vec<PlayerId> = rows.iter().map(|r| r.player).collect();
    let projection = project_event(&rows, &field, 2, SmallFieldRule::FinalOfTop4).unwrap();
    // 18 more VP put p level with q's best: as 10 and 8 his shares (27.03 % + 22.22 %) would
    // pass q's, as 9 and 9 (24.32 % twice) they would not. So 18 is not enough however split,
    // 19 is; and 9 in each game is not enough, 10 is.
    let tables = Tables::of_field(8);
    let split = |a: u8, b: u8| p_now + tables.worst_with(a) + tables.worst_with(b);
    let q_best = q_now + tables.best_game().times(2);
    assert!(split(10, 8).share > q_best.share && split(9, 9).share < q_best.share);
    assert_eq!(
        projection.players[3].need,
        Some(CutNeed {
            total_vp: 19,
            vp_each_game: 10
        })
    );
}

#[test]
fn a_player_no_result_can_lift_to_the_cut_cannot_make_it() {
    let rows = field_of_eight([40, 35, 30, 29, 9, 8, 2, 2]);
    let field: Vec<PlayerId> = rows.iter().map(|r| r.player).collect();
    let projection = project_event(&rows, &field, 1, SmallFieldRule::FinalOfTop4).unwrap();
    use CutOutlook::*;
    // One round left: 10 more VP take 9 to 19, short of the 4th's 29 + 2.
    assert_eq!(
        outlooks(&projection),
        [
            AlreadySure,
            AlreadySure,
            AlreadySure,
            AlreadySure,
            CannotMakeIt,
            CannotMakeIt,
            CannotMakeIt,
            CannotMakeIt
        ]
    );
    assert!(projection.players.iter().all(|p| p.need.is_none()));
}

#[test]
fn a_tie_at_the_cut_goes_as_the_standings_break_it_by_player_id() {
    let tables = Tables::of_field(8);
    // x's least after one game equals y's most: the same VP, share and wins. The standings then
    // list the lower player id first, so x is sure exactly when his id is the lower.
    let x_now = Figures {
        vp: 18,
        share: tables.best_game().share,
        wins: 1,
    };
    let y_now = Figures {
        vp: 10,
        share: tables.worst_game().share,
        wins: 0,
    };
    assert_eq!(
        x_now + tables.worst_game(),
        y_now + tables.best_game(),
        "level on everything"
    );
    for (x, y, x_sure) in [
        (player(20), player(21), true),
        (player(21), player(20), false),
    ] {
        let rows = vec![
            row(player(1), vp(60)),
            row(player(2), vp(60)),
            row(player(3), vp(60)),
            row(x, x_now),
            row(y, y_now),
            row(player(6), vp(0)),
            row(player(7), vp(0)),
            row(player(8), vp(0)),
        ];
        let field: Vec<PlayerId> = rows.iter().map(|r| r.player).collect();
        let projection = project_event(&rows, &field, 1, SmallFieldRule::FinalOfTop4).unwrap();
        let expected = if x_sure {
            CutOutlook::AlreadySure
        } else {
            CutOutlook::CanStillMakeIt
        };
        assert_eq!(projection.players[3].outlook, expected);
    }
    // With no round left the standings are final: of two players level on everything at the
    // cut, the lower id is in and the other out.
    let level = Figures {
        vp: 12,
        share: VpShare::ZERO,
        wins: 0,
    };
    let rows = vec![
        row(player(1), vp(30)),
        row(player(2), vp(30)),
        row(player(3), vp(30)),
        row(player(5), level),
        row(player(4), level),
    ];
    let field: Vec<PlayerId> = rows.iter().map(|r| r.player).collect();
    let projection = project_event(&rows, &field, 0, SmallFieldRule::FinalOfTop4).unwrap();
    assert_eq!(projection.players[3].outlook, CutOutlook::CannotMakeIt);
    assert_eq!(projection.players[4].outlook, CutOutlook::AlreadySure);
}

#[test]
fn players_who_left_cannot_make_it_and_take_no_place() {
    // Player 1 dropped: the final's four places go to the four players still in.
    let rows = vec![
        row(player(1), vp(50)),
        row(player(2), vp(20)),
        row(player(3), vp(19)),
        row(player(4), vp(18)),
        row(player(5), vp(17)),
    ];
    let still_in: Vec<PlayerId> = (2..=5).map(player).collect();
    let projection = project_event(&rows, &still_in, 3, SmallFieldRule::FinalOfTop4).unwrap();
    use CutOutlook::*;
    assert_eq!(
        outlooks(&projection),
        [
            CannotMakeIt,
            AlreadySure,
            AlreadySure,
            AlreadySure,
            AlreadySure
        ]
    );
}

#[test]
fn an_event_without_a_playoff_has_nothing_to_project() {
    let rows = field_of_eight([9, 8, 7, 6, 5, 4, 3, 2]);
    let field: Vec<PlayerId> = rows.iter().map(|r| r.player).collect();
    assert_eq!(
        project_event(&rows, &field, 1, SmallFieldRule::NoPlayoff),
        None
    );
    assert_eq!(
        project_event(&rows, &field[..2], 1, SmallFieldRule::FinalOfTop4),
        None
    );
    // Sixteen players still in play for the semi-finals' sixteen places: all of them are sure.
    let sixteen: Vec<ClassicRow> = (1..=16).map(|n| row(player(n), vp(0))).collect();
    let field: Vec<PlayerId> = sixteen.iter().map(|r| r.player).collect();
    let projection = project_event(&sixteen, &field, 2, SmallFieldRule::NoPlayoff).unwrap();
    assert_eq!(projection.cut, 16);
    assert!(
        projection
            .players
            .iter()
            .all(|p| p.outlook == CutOutlook::AlreadySure)
    );
}
