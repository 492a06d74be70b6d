//! The season table: every player's points from the events that count, his best events chosen
//! under `best_n` and the tier caps, and the ranking by the season's tie-breaks.

use std::cmp::Ordering;
use std::collections::HashMap;

use num_bigint::BigInt;
use num_rational::BigRational;
use num_traits::Zero;

use super::config::TieBreak;
use super::points::whole;
use super::validate::{EventPoints, Scoring};
use crate::PlayerId;
use crate::ratings::finishing_key;

/// An event's identity.
pub type EventId = uuid::Uuid;

/// One event of a season, as the standings need it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SeasonEvent {
    pub event: EventId,
    /// The field the points and `min_players` are measured by (the caller's choice for partner
    /// events, players or teams, as long as it is the same for every event of the season and
    /// places do not exceed it).
    pub field_size: u32,
    pub rounds_played: u32,
    /// Whether `placements` are final.
    pub placements_complete: bool,
    /// Each player's final place (1 is first); a partner event's two teammates share their
    /// team's place. Read only when complete.
    pub placements: Vec<(PlayerId, u32)>,
    /// The event's games, in the order they were played.
    pub games: Vec<SeasonGame>,
}

/// One game: its seats and its target.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SeasonGame {
    pub seats: Vec<SeasonSeat>,
    /// The VP that wins the game: 10 in a classic game, the team target (e.g. 20) in a partner
    /// game. A seat's VP counts at most this much in `vp` and `vp_share`.
    pub target_vp: u32,
}

/// One player at a game.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SeasonSeat {
    pub player: PlayerId,
    pub won: bool,
    pub vp: u32,
    /// The player's team in a partner game (the two teammates share the value); none in a
    /// classic game.
    pub team: Option<u8>,
}

/// One line of the season table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SeasonRow {
    /// 1 for the best; players equal on every tie-break share a rank and the next rank skips
    /// ("1, 2, 2, 4").
    pub rank: u32,
    pub player: PlayerId,
    /// The sum of the counted events' points.
    pub points: BigRational,
    /// Counting events the player played.
    pub events_played: u32,
    /// Events whose points are in `points`.
    pub events_counted: u32,
    /// Counted events the player won (place 1).
    pub wins: u32,
    /// The best place over the counted events; none if none of them has a place.
    pub best_place: Option<u32>,
    /// VP over the counted events' games, each game's capped at its target.
    pub vp: u64,
    /// The average, over the counted events' games, of the player's capped VP divided by the
    /// table's capped total; 0 without games.
    pub vp_share: BigRational,
    /// Over the counted events' games, how many the player finished 1st, 2nd and 3rd (players
    /// level at a table share the best place they span).
    pub table_places: [u32; 3],
    /// Every counting event the player played, in play order.
    pub results: Vec<EventResult>,
}

/// What one event gave a player.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EventResult {
    pub event: EventId,
    /// The player's final place; none while the placements are not complete (mode
    /// `table_points`) or when they do not list him.
    pub place: Option<u32>,
    pub field_size: u32,
    /// What the event scores for the player, counted or not.
    pub points: BigRational,
    /// Whether the points are in the player's total.
    pub counted: bool,
}

impl Scoring {
    /// Whether an event counts for the season: a field of at least `min_players`, at least
    /// `min_rounds` played and, in mode `placement`, complete placements. In mode `table_points`
    /// an event scores game by game as it is played, but only once it meets `min_players` and
    /// `min_rounds` (until then it scores nothing, for anyone).
    pub fn counts(&self, event: &SeasonEvent) -> bool {
        event.field_size >= self.min_players
            && event.rounds_played >= self.min_rounds
            && match self.points {
                EventPoints::Placement(_) => event.placements_complete,
                EventPoints::TablePoints(_) => true,
            }
    }
}

/// One player's figures from one event.
struct Played {
    event: usize,
    place: Option<u32>,
    points: BigRational,
    vp: u64,
    share: BigRational,
    games: u64,
    table_places: [u32; 3],
}

impl Played {
    fn new(event: usize, place: Option<u32>) -> Played {
        Played {
            event,
            place,
            points: BigRational::zero(),
            vp: 0,
            share: BigRational::zero(),
            games: 0,
            table_places: [0; 3],
        }
    }
}

/// The season table over `events` (in the order they were played): the counting events only
/// ([`Scoring::counts`]), every player who played one of them, best first.
///
/// - Mode `placement`: a player's points from an event are the placement points of his place.
///   Mode `table_points`: the sum of his games' table points; a game of a size the scale does not
///   cover (not 3 or 4 seats) scores nothing.
/// - A player's counted events are chosen by [`choose_counted`]: his best `best_n`, no more than
///   a tier's `max_counted` from that tier.
/// - Ranking: by `scoring.ranking`; players equal on all of it share the rank and are listed by
///   player id (a random UUID: an order drawn in advance that anyone can audit, as the event
///   standings do).
pub fn season_standings(scoring: &Scoring, events: &[SeasonEvent]) -> Vec<SeasonRow> {
    let mut played: HashMap<PlayerId, Vec<Played>> = HashMap::new();
    for (index, event) in events.iter().enumerate() {
        if !scoring.counts(event) {
            continue;
        }
        for (player, figures) in score_event(scoring, index, event) {
            let counted_before = played.entry(player).or_default();
            // A player's events the eligibility leaves out count as events that do not count.
            if scoring.eligibility.admits_another(counted_before.len()) {
                counted_before.push(figures);
            }
        }
    }
    let caps: Vec<u32> = scoring.tiers.iter().map(|tier| tier.max_counted).collect();
    let mut rows: Vec<SeasonRow> = played
        .into_iter()
        .map(|(player, played)| row(scoring, events, &caps, player, played))
        .collect();
    rows.sort_by(|a, b| compare(&scoring.ranking, a, b).then_with(|| a.player.cmp(&b.player)));
    let mut previous: Option<(usize, u32)> = None;
    for (index, place) in (0..rows.len()).zip(1u32..) {
        let rank = match previous {
            Some((before, rank))
                if compare(&scoring.ranking, &rows[before], &rows[index]).is_eq() =>
            {
                rank
            }
            _ => place,
        };
        rows[index].rank = rank;
        previous = Some((index, rank));
    }
    rows
}

/// Every player's figures from one counting event, in the order they first appear (placements,
/// then seats).
fn score_event(scoring: &Scoring, index: usize, event: &SeasonEvent) -> Vec<(PlayerId, Played)> {
    let mut order: Vec<PlayerId> = Vec::new();
    let mut figures: HashMap<PlayerId, Played> = HashMap::new();
    if event.placements_complete {
        for &(player, place) in &event.placements {
            if figures.contains_key(&player) {
                continue;
            }
            let mut first = Played::new(index, Some(place));
            if let EventPoints::Placement(points) = &scoring.points {
                first.points = points.of(place, event.field_size);
            }
            order.push(player);
            figures.insert(player, first);
        }
    }
    for game in &event.games {
        let keys = seat_keys(game);
        let table_points = match &scoring.points {
            EventPoints::TablePoints(scale) => scale.of_game(&keys),
            EventPoints::Placement(_) => None,
        };
        let capped: Vec<u64> = game
            .seats
            .iter()
            .map(|seat| u64::from(seat.vp.min(game.target_vp)))
            .collect();
        let total: u64 = capped.iter().sum();
        for (k, seat) in game.seats.iter().enumerate() {
            let mine = capped.get(k).copied().unwrap_or(0);
            let player = figures.entry(seat.player).or_insert_with(|| {
                order.push(seat.player);
                Played::new(index, None)
            });
            if let Some(points) = table_points.as_ref().and_then(|points| points.get(k)) {
                player.points += points;
            }
            player.vp = player.vp.saturating_add(mine);
            if total > 0 {
                player.share += BigRational::new(BigInt::from(mine), BigInt::from(total));
            }
            player.games += 1;
            let ahead = keys
                .get(k)
                .map(|key| keys.iter().filter(|other| *other < key).count());
            if let Some(count) = ahead.and_then(|ahead| player.table_places.get_mut(ahead)) {
                *count += 1;
            }
        }
    }
    order
        .into_iter()
        .filter_map(|player| figures.remove(&player).map(|f| (player, f)))
        .collect()
}

/// Each seat's finishing key: its team's in a partner game (the team won if a teammate did; its
/// VP are the teammates' together), its own in a classic game. Teammates share a key, so they
/// share the points of the two places their team spans.
fn seat_keys(game: &SeasonGame) -> Vec<i64> {
    game.seats
        .iter()
        .map(|seat| match seat.team {
            None => finishing_key(seat.won, seat.vp),
            Some(team) => {
                let mates = game.seats.iter().filter(|s| s.team == Some(team));
                let (won, vp) = mates.fold((false, 0u32), |(won, vp), s| {
                    (won || s.won, vp.saturating_add(s.vp))
                });
                finishing_key(won, vp)
            }
        })
        .collect()
}

/// A player's row, his counted events chosen; `rank` is set by the caller.
fn row(
    scoring: &Scoring,
    events: &[SeasonEvent],
    caps: &[u32],
    player: PlayerId,
    played: Vec<Played>,
) -> SeasonRow {
    let tiers: Vec<Option<usize>> = played
        .iter()
        .map(|p| {
            events
                .get(p.event)
                .and_then(|event| scoring.tier_of(event.field_size))
        })
        .collect();
    let weights: Vec<&BigRational> = played.iter().map(|p| &p.points).collect();
    let counted = choose_counted(&weights, &tiers, scoring.best_n, caps);
    let mut points = BigRational::zero();
    let (mut wins, mut best_place, mut vp, mut games) = (0u32, None::<u32>, 0u64, 0u64);
    let mut shares = BigRational::zero();
    let mut table_places = [0u32; 3];
    for (p, _) in played.iter().zip(&counted).filter(|(_, counted)| **counted) {
        points += &p.points;
        wins += u32::from(p.place == Some(1));
        if let Some(place) = p.place {
            best_place = Some(best_place.map_or(place, |best| best.min(place)));
        }
        vp = vp.saturating_add(p.vp);
        shares += &p.share;
        games += p.games;
        for (total, count) in table_places.iter_mut().zip(p.table_places) {
            *total += count;
        }
    }
    let vp_share = if games == 0 {
        BigRational::zero()
    } else {
        shares / whole(games)
    };
    let results = played
        .iter()
        .zip(&counted)
        .filter_map(|(p, &counted)| {
            let event = events.get(p.event)?;
            Some(EventResult {
                event: event.event,
                place: p.place,
                field_size: event.field_size,
                points: p.points.clone(),
                counted,
            })
        })
        .collect();
    SeasonRow {
        rank: 0,
        player,
        points,
        events_played: count(played.len()),
        events_counted: count(counted.iter().filter(|c| **c).count()),
        wins,
        best_place,
        vp,
        vp_share,
        table_places,
        results,
    }
}

fn count(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// Which of a player's events count, in the order given (play order): `weights[i]` is event i's
/// points, `tiers[i]` its tier (an index into `caps`, a tier's `max_counted`), none for no tier.
///
/// Greedy: the events by points, the highest first and the earlier first on equal points; each is
/// counted unless `best_n` events already are or its tier's cap is full.
///
/// This is optimal (no other choice allowed by `best_n` and the caps has more points): the sets
/// of events with at most `caps[t]` from each tier t form a partition matroid (events in no tier
/// form a block without a cap), and keeping at most `best_n` of them is its truncation, again a
/// matroid. On a matroid, taking the elements by non-increasing weight whenever the set stays
/// independent gives a basis of greatest weight (Rado–Edmonds), and with weights of at least 0 no
/// independent set weighs more than the heaviest basis. The property test
/// `greedy_choice_matches_the_best_of_every_allowed_choice` checks it against brute force.
pub fn choose_counted<W: Ord>(
    weights: &[W],
    tiers: &[Option<usize>],
    best_n: Option<u32>,
    caps: &[u32],
) -> Vec<bool> {
    let mut order: Vec<usize> = (0..weights.len()).collect();
    order.sort_by(|&a, &b| weights[b].cmp(&weights[a]).then(a.cmp(&b)));
    let mut counted = vec![false; weights.len()];
    let mut taken: u32 = 0;
    let mut per_tier = vec![0u32; caps.len()];
    for i in order {
        if best_n.is_some_and(|n| taken >= n) {
            break;
        }
        let tier = tiers.get(i).copied().flatten();
        if let Some(t) = tier {
            match (per_tier.get_mut(t), caps.get(t)) {
                (Some(used), Some(&cap)) if *used >= cap => continue,
                (Some(used), Some(_)) => *used += 1,
                _ => {}
            }
        }
        counted[i] = true;
        taken += 1;
    }
    counted
}

/// Better rows first by the ranking's tie-breaks in order; `Equal` means the players share a rank.
fn compare(ranking: &[TieBreak], a: &SeasonRow, b: &SeasonRow) -> Ordering {
    ranking
        .iter()
        .map(|&tie_break| compare_on(tie_break, a, b))
        .find(|order| order.is_ne())
        .unwrap_or(Ordering::Equal)
}

/// The better row first (`Less`) on one tie-break.
pub(crate) fn compare_on(tie_break: TieBreak, a: &SeasonRow, b: &SeasonRow) -> Ordering {
    match tie_break {
        TieBreak::Points => b.points.cmp(&a.points),
        TieBreak::Wins => b.wins.cmp(&a.wins),
        TieBreak::Vp | TieBreak::VpCappedAtWinningTotal => b.vp.cmp(&a.vp),
        TieBreak::VpShare => b.vp_share.cmp(&a.vp_share),
        TieBreak::BestPlace => match (a.best_place, b.best_place) {
            (Some(x), Some(y)) => x.cmp(&y),
            (Some(_), None) => Ordering::Less,
            (None, Some(_)) => Ordering::Greater,
            (None, None) => Ordering::Equal,
        },
        TieBreak::FewerEvents => a.events_played.cmp(&b.events_played),
        // More 1st places first, then more 2nd, then more 3rd: the arrays in lexical order.
        TieBreak::TablePlaces => b.table_places.cmp(&a.table_places),
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;
    use serde_json::json;

    use super::*;
    use crate::season::fixtures::{
        classic, event_id, finished, int, partner, player, ratio, scoring,
    };

    fn row_of(rows: &[SeasonRow], who: PlayerId) -> &SeasonRow {
        rows.iter().find(|row| row.player == who).unwrap()
    }

    fn points_of(rows: &[SeasonRow]) -> Vec<(PlayerId, BigRational)> {
        rows.iter()
            .map(|row| (row.player, row.points.clone()))
            .collect()
    }

    /// An event with the given places (not every place need be listed), 3 rounds, no games.
    fn placed(id: u128, field: u32, places: &[(PlayerId, u32)]) -> SeasonEvent {
        SeasonEvent {
            placements: places.to_vec(),
            ..finished(id, field, &[])
        }
    }

    /// An event still being played: no placements yet, its games so far.
    fn playing(id: u128, field: u32, rounds: u32, games: Vec<SeasonGame>) -> SeasonEvent {
        SeasonEvent {
            rounds_played: rounds,
            placements_complete: false,
            games,
            ..finished(id, field, &[])
        }
    }

    #[test]
    fn placement_mode_scores_each_event_by_place_and_field() {
        let [a, b, c] = [1, 2, 3].map(player);
        let scaled =
            scoring(json!({"mode": "placement", "scaled": {"top": 100, "full_field": 50}}));
        let events = [
            placed(1, 50, &[(a, 1), (b, 2)]),
            placed(2, 25, &[(b, 1), (a, 25)]),
        ];
        let rows = season_standings(&scaled, &events);
        // a: 100 (first of 50) + 2 (last of 25); b: 98 (second of 50) + 50 (first of 25).
        assert_eq!(points_of(&rows), [(b, int(148)), (a, int(102))]);
        assert_eq!(
            row_of(&rows, a).results,
            [
                EventResult {
                    event: event_id(1),
                    place: Some(1),
                    field_size: 50,
                    points: int(100),
                    counted: true
                },
                EventResult {
                    event: event_id(2),
                    place: Some(25),
                    field_size: 25,
                    points: int(2),
                    counted: true
                },
            ]
        );
        let table = scoring(json!({"mode": "placement", "points": [25, 18, 15]}));
        let rows = season_standings(&table, &[finished(1, 4, &[b, a, player(9), c])]);
        assert_eq!(row_of(&rows, a).points, int(18));
        assert_eq!(
            row_of(&rows, c).points,
            int(0),
            "places past the table score 0"
        );
        assert_eq!(row_of(&rows, c).events_played, 1);
    }

    #[test]
    fn an_event_counts_only_with_enough_players_rounds_and_complete_placements() {
        let [a, b, c] = [1, 2, 3].map(player);
        let rules = scoring(
            json!({"mode": "placement", "points": [10, 5], "min_players": 10, "min_rounds": 3}),
        );
        let too_small = finished(1, 9, &[a, c]);
        let too_short = SeasonEvent {
            rounds_played: 2,
            ..finished(2, 10, &[a])
        };
        let unfinished = SeasonEvent {
            placements_complete: false,
            ..finished(3, 10, &[a])
        };
        let counting = finished(4, 10, &[b, a]);
        assert!(!rules.counts(&too_small) && !rules.counts(&too_short));
        assert!(!rules.counts(&unfinished) && rules.counts(&counting));
        let rows = season_standings(&rules, &[too_small, too_short, unfinished, counting]);
        assert_eq!(points_of(&rows), [(b, int(10)), (a, int(5))]);
        let row_a = row_of(&rows, a);
        assert_eq!((row_a.events_played, row_a.events_counted), (1, 1));
        assert_eq!(row_a.results.len(), 1);
        assert!(
            rows.iter().all(|row| row.player != c),
            "c played no counting event"
        );
    }

    #[test]
    fn table_points_mode_scores_every_game_as_it_is_played() {
        let [a, b, c, d, e, f, g] = [1, 2, 3, 4, 5, 6, 7].map(player);
        let games = vec![
            // Round 1: b and c tie for second, (3 + 2) / 2 each.
            classic(&[(a, 10), (b, 8), (c, 8), (d, 5)], Some(a)),
            classic(&[(e, 10), (f, 9), (g, 7)], Some(e)),
            // Round 2: a game stopped at the time limit, d, f and g level behind b.
            classic(&[(e, 10), (a, 9), (c, 6)], Some(e)),
            classic(&[(b, 9), (d, 8), (f, 8), (g, 8)], None),
        ];
        let rules = scoring(json!({"mode": "table_points"}));
        let rows = season_standings(&rules, &[playing(1, 7, 2, games.clone())]);
        assert_eq!(
            points_of(&rows),
            [
                (e, int(10)),
                (a, int(8)),
                (b, ratio(15, 2)),
                (f, int(5)),
                (c, ratio(7, 2)),
                // Equal points and wins: g's VP share (7/26 + 8/33) beats d's (5/31 + 8/33).
                (g, int(3)),
                (d, int(3)),
            ]
        );
        assert!(
            rows.iter()
                .all(|row| row.results[0].place.is_none() && row.wins == 0)
        );
        // Until the event has played `min_rounds`, it scores nothing for anyone.
        let strict = scoring(json!({"mode": "table_points", "min_rounds": 3}));
        assert_eq!(season_standings(&strict, &[playing(1, 7, 2, games)]), []);
    }

    #[test]
    fn a_partner_game_gives_each_team_the_places_it_spans() {
        let [a, b, c, d, e, f, g, h] = [1, 2, 3, 4, 5, 6, 7, 8].map(player);
        let games = vec![
            // a and c win: (5 + 3) / 2 each; b and d (2 + 1) / 2 each.
            partner([(a, 12), (c, 9)], [(b, 8), (d, 7)], Some(0)),
            // Level at the time limit: all four share (5 + 3 + 2 + 1) / 4.
            partner([(e, 8), (g, 7)], [(f, 9), (h, 6)], None),
        ];
        let rules = scoring(json!({"mode": "table_points"}));
        let rows = season_standings(&rules, &[playing(1, 8, 1, games)]);
        for (who, points) in [
            (a, int(4)),
            (c, int(4)),
            (b, ratio(3, 2)),
            (d, ratio(3, 2)),
            (e, ratio(11, 4)),
            (f, ratio(11, 4)),
        ] {
            assert_eq!(row_of(&rows, who).points, points);
        }
        assert_eq!(row_of(&rows, a).vp_share, ratio(12, 36));
    }

    #[test]
    fn best_n_counts_the_highest_scoring_events_earlier_first_on_equal_points() {
        let [a, x, y] = [1, 2, 3].map(player);
        let rules = scoring(json!({"mode": "placement", "points": [15, 10, 5], "best_n": 2}));
        let events = [
            finished(1, 4, &[x, a, y]),
            finished(2, 4, &[a, x, y]),
            finished(3, 4, &[x, a, y]),
            finished(4, 4, &[x, y, a]),
        ];
        let rows = season_standings(&rules, &events);
        let row_a = row_of(&rows, a);
        let counted: Vec<bool> = row_a.results.iter().map(|r| r.counted).collect();
        assert_eq!(counted, [true, true, false, false]);
        assert_eq!(row_a.points, int(25));
        assert_eq!((row_a.events_played, row_a.events_counted), (4, 2));
        assert_eq!((row_a.wins, row_a.best_place), (1, Some(1)));
        // Every result shows its points, counted or not.
        assert_eq!(row_a.results[2].points, int(10));
    }

    #[test]
    fn tier_caps_limit_the_counted_events_of_each_tier() {
        let a = player(1);
        let major =
            json!({"name": "major", "min_players": 50, "max_players": null, "max_counted": 1});
        let points = json!([100, 90, 20, 10, 5]);
        let events = [
            placed(1, 60, &[(a, 2)]),
            placed(2, 12, &[(a, 5)]),
            placed(3, 80, &[(a, 1)]),
            placed(4, 12, &[(a, 3)]),
            placed(5, 16, &[(a, 4)]),
        ];
        let capped =
            scoring(json!({"mode": "placement", "points": points, "best_n": 3, "tiers": [major]}));
        let rows = season_standings(&capped, &events);
        let counted: Vec<bool> = rows[0].results.iter().map(|r| r.counted).collect();
        // One major (the 100), then the best small ones (20, 10) rather than the second major.
        assert_eq!(counted, [false, false, true, true, true]);
        assert_eq!(rows[0].points, int(130));
        // Without best_n, the cap alone applies.
        let uncapped_n = scoring(json!({"mode": "placement", "points": points, "tiers": [major]}));
        assert_eq!(season_standings(&uncapped_n, &events)[0].points, int(135));
    }

    #[test]
    fn vp_is_capped_at_the_target_and_vp_share_averages_over_counted_games() {
        let [a, b, c, d] = [1, 2, 3, 4].map(player);
        let counted = SeasonEvent {
            games: vec![
                // a's 12 count 10: 10 of 28.
                classic(&[(a, 12), (b, 8), (c, 6), (d, 4)], Some(a)),
                // 5 of 24.
                classic(&[(a, 5), (b, 10), (c, 9)], Some(b)),
            ],
            ..finished(1, 4, &[a, b, c, d])
        };
        let dropped = SeasonEvent {
            games: vec![classic(&[(a, 3), (b, 10), (c, 9), (d, 8)], Some(b))],
            ..finished(2, 4, &[b, c, d, a])
        };
        let rules = scoring(json!({"mode": "table_points", "best_n": 1}));
        let rows = season_standings(&rules, &[counted, dropped]);
        let row_a = row_of(&rows, a);
        assert_eq!(row_a.points, int(6));
        assert_eq!(row_a.vp, 15);
        // (10/28 + 5/24) / 2; the game of the event not counted is left out.
        assert_eq!(row_a.vp_share, ratio(95, 336));
        assert_eq!((row_a.wins, row_a.best_place), (1, Some(1)));
    }

    fn stats(
        who: u128,
        points: i64,
        wins: u32,
        vp: u64,
        best_place: Option<u32>,
        events: u32,
    ) -> SeasonRow {
        SeasonRow {
            rank: 0,
            player: player(who),
            points: int(points),
            events_played: events,
            events_counted: events,
            wins,
            best_place,
            vp,
            vp_share: ratio(vp.try_into().unwrap(), 100),
            table_places: [0; 3],
            results: Vec::new(),
        }
    }

    #[test]
    fn tie_breaks_rank_in_the_listed_order() {
        use TieBreak::*;
        // x: more wins; y: more VP (and so a higher share).
        let x = stats(1, 20, 2, 30, Some(1), 3);
        let y = stats(2, 20, 1, 40, Some(1), 3);
        assert_eq!(compare(&[Points, Wins, Vp], &x, &y), Ordering::Less);
        assert_eq!(compare(&[Points, Vp, Wins], &x, &y), Ordering::Greater);
        assert_eq!(compare(&[Points, VpShare], &x, &y), Ordering::Greater);
        assert_eq!(compare(&[Points, BestPlace], &x, &y), Ordering::Equal);
        // Points first: more points win whatever follows.
        let z = stats(3, 21, 0, 0, None, 9);
        assert_eq!(compare(&[Points, Wins], &z, &x), Ordering::Less);
        // Unless the list puts something before them.
        assert_eq!(compare(&[Wins, Points], &z, &x), Ordering::Greater);
    }

    #[test]
    fn a_better_best_place_ranks_higher_and_no_place_ranks_below_any() {
        use TieBreak::*;
        let second = stats(1, 20, 0, 0, Some(2), 3);
        let fifth = stats(2, 20, 0, 0, Some(5), 3);
        let none = stats(3, 20, 0, 0, None, 3);
        assert_eq!(
            compare(&[Points, BestPlace], &second, &fifth),
            Ordering::Less
        );
        assert_eq!(compare(&[Points, BestPlace], &fifth, &none), Ordering::Less);
        assert_eq!(compare(&[Points, BestPlace], &none, &none), Ordering::Equal);
    }

    #[test]
    fn fewer_events_ranks_the_same_points_from_fewer_events_higher() {
        use TieBreak::*;
        let two = stats(1, 20, 0, 0, None, 2);
        let five = stats(2, 20, 0, 0, None, 5);
        assert_eq!(compare(&[Points, FewerEvents], &two, &five), Ordering::Less);
    }

    #[test]
    fn players_still_equal_share_the_rank_and_are_listed_by_player_id() {
        // c's id sorts before b's.
        let [a, b, c, d] = [1, 3, 2, 4].map(player);
        let game = classic(&[(a, 10), (b, 8), (c, 8), (d, 5)], Some(a));
        let rules = scoring(json!({"mode": "table_points"}));
        let rows = season_standings(&rules, &[playing(1, 4, 1, vec![game])]);
        let ranked: Vec<(u32, PlayerId)> = rows.iter().map(|r| (r.rank, r.player)).collect();
        assert_eq!(ranked, [(1, a), (2, c), (2, b), (4, d)]);
    }

    /// The greatest total of any choice that `best_n` and the caps allow, by trying them all.
    fn best_by_brute_force(
        weights: &[u32],
        tiers: &[Option<usize>],
        best_n: Option<u32>,
        caps: &[u32],
    ) -> u32 {
        let n = weights.len();
        (0u32..1 << n)
            .filter(|set| best_n.is_none_or(|best| set.count_ones() <= best))
            .filter(|set| {
                caps.iter().enumerate().all(|(t, &cap)| {
                    let in_tier = (0..n).filter(|&i| set & (1 << i) != 0 && tiers[i] == Some(t));
                    u32::try_from(in_tier.count()).unwrap() <= cap
                })
            })
            .map(|set| {
                (0..n)
                    .filter(|&i| set & (1 << i) != 0)
                    .map(|i| weights[i])
                    .sum()
            })
            .max()
            .unwrap_or(0)
    }

    proptest! {
        #[test]
        fn greedy_choice_matches_the_best_of_every_allowed_choice(
            events in prop::collection::vec((0u32..12, prop::option::of(0usize..3)), 0..=9),
            caps in prop::collection::vec(1u32..=3, 3),
            best_n in prop::option::of(1u32..=6),
        ) {
            let weights: Vec<u32> = events.iter().map(|e| e.0).collect();
            let tiers: Vec<Option<usize>> = events.iter().map(|e| e.1).collect();
            let counted = choose_counted(&weights, &tiers, best_n, &caps);
            let total: u32 = weights.iter().zip(&counted).filter(|(_, c)| **c).map(|(w, _)| w).sum();
            // The choice is allowed...
            let chosen = u32::try_from(counted.iter().filter(|c| **c).count()).unwrap();
            prop_assert!(best_n.is_none_or(|n| chosen <= n));
            for (t, &cap) in caps.iter().enumerate() {
                let in_tier = counted.iter().zip(&tiers).filter(|(c, tier)| **c && **tier == Some(t)).count();
                prop_assert!(u32::try_from(in_tier).unwrap() <= cap);
            }
            // ...and none that is allowed scores more.
            prop_assert_eq!(total, best_by_brute_force(&weights, &tiers, best_n, &caps));
        }

        #[test]
        fn a_table_adds_up_each_players_counted_results_in_rank_order(
            fields in prop::collection::vec(
                Just((1u128..=8).collect::<Vec<u128>>()).prop_shuffle().prop_flat_map(|ids| {
                    (2usize..=8).prop_map(move |n| ids[..n].to_vec())
                }),
                1..6,
            ),
            best_n in prop::option::of(1u32..=4),
            tie_breaks in Just(TieBreak::ALL.to_vec()).prop_shuffle(),
        ) {
            let events: Vec<SeasonEvent> = fields
                .iter()
                .zip(1u128..)
                .map(|(ids, id)| {
                    let players: Vec<PlayerId> = ids.iter().map(|&n| player(n)).collect();
                    finished(id, u32::try_from(players.len()).unwrap(), &players)
                })
                .collect();
            let names: Vec<&str> = tie_breaks.iter().map(|t| t.name()).collect();
            let rules = scoring(json!({
                "mode": "placement", "points": [10, 6, 3, 1], "best_n": best_n,
                "tiers": [{"name": "small", "min_players": 0, "max_players": 4, "max_counted": 1}],
                "tie_breaks": names,
            }));
            let rows = season_standings(&rules, &events);
            let everyone: std::collections::HashSet<u128> = fields.iter().flatten().copied().collect();
            prop_assert_eq!(rows.len(), everyone.len());
            for row in &rows {
                let counted: Vec<&EventResult> = row.results.iter().filter(|r| r.counted).collect();
                let sum: BigRational = counted.iter().map(|r| r.points.clone()).sum();
                prop_assert_eq!(&row.points, &sum);
                prop_assert_eq!(row.events_counted, u32::try_from(counted.len()).unwrap());
                prop_assert!(best_n.is_none_or(|n| row.events_counted <= n));
                let small = counted.iter().filter(|r| r.field_size <= 4).count();
                prop_assert!(small <= 1);
            }
            for (i, pair) in rows.windows(2).enumerate() {
                let order = compare(&rules.ranking, &pair[0], &pair[1]);
                prop_assert!(order.is_le());
                let expected = if order.is_eq() { pair[0].rank } else { u32::try_from(i + 2).unwrap() };
                prop_assert_eq!(pair[1].rank, expected);
            }
            prop_assert!(rows.first().is_none_or(|row| row.rank == 1));
        }
    }
}
