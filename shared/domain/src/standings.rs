//! Classic qualifying standings: credited VP, then the exact VP-share tie-break, then games won.

use std::cmp::Ordering;
use std::collections::HashMap;

use num_bigint::BigInt;
use num_integer::Integer;
use num_rational::BigRational;
use num_traits::{Signed, ToPrimitive};

use crate::PlayerId;
use crate::results::{TableResult, WINNING_VP};

/// One qualifying table's credited VP (3 or 4 players).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Game {
    pub credited: Vec<(PlayerId, u8)>,
}

impl Game {
    pub fn from_result(result: &TableResult) -> Game {
        Game {
            credited: result
                .scores
                .iter()
                .map(|score| (score.player, score.credited_vp))
                .collect(),
        }
    }

    fn table(&self) -> Vec<u8> {
        self.credited.iter().map(|&(_, vp)| vp).collect()
    }
}

/// Every table's share basis divides this: a 4-player table's total (at most 4 × 10 credited VP)
/// and four times a 3-player table's (at most 4 × 30). It is twice lcm(1..=40), for 4 × 16 = 2⁶.
const SHARE_UNITS: i128 = 10_685_862_914_126_400;

/// A VP share, or a sum of them, in percent and exact: a whole number of 1/`SHARE_UNITS` of a
/// percent. Adding and comparing are integer operations (an event's standings add up thousands;
/// unbounded rationals cost a division by their gcd at every step). A sum of a million games
/// stays far below `i128::MAX`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct VpShare(i128);

impl VpShare {
    pub const ZERO: VpShare = VpShare(0);

    /// The same value as an unbounded rational.
    pub fn to_rational(self) -> BigRational {
        BigRational::new(BigInt::from(self.0), BigInt::from(SHARE_UNITS))
    }

    /// Two decimals, halves rounded up, as [`format_percent`] writes them.
    pub fn percent(self) -> String {
        hundredths_text(self.0, SHARE_UNITS).unwrap_or_else(|| format_percent(&self.to_rational()))
    }

    /// In lowest terms, `numerator/denominator` ("8000/9", "0/1").
    pub fn exact(self) -> String {
        let divisor = self.0.gcd(&SHARE_UNITS);
        format!("{}/{}", self.0 / divisor, SHARE_UNITS / divisor)
    }
}

impl std::ops::Add for VpShare {
    type Output = VpShare;
    fn add(self, other: VpShare) -> VpShare {
        VpShare(self.0 + other.0)
    }
}

impl std::ops::AddAssign for VpShare {
    fn add_assign(&mut self, other: VpShare) {
        self.0 += other.0;
    }
}

impl std::iter::Sum for VpShare {
    fn sum<I: Iterator<Item = VpShare>>(shares: I) -> VpShare {
        shares.fold(VpShare::ZERO, |a, b| a + b)
    }
}

/// A player's share of the table, in percent, exact: credited / table total * 100, where a
/// 3-player table's total is raised by its average (total * 4/3) so that 3-player tables give no
/// advantage. `table` holds every player's credited VP, this player's included: 3 or 4 players of
/// at most 10 credited VP each, as every validated sheet has.
///
/// A table total of 0 cannot come from validated sheets (everyone has at least 2 VP); it gives a
/// share of 0 rather than a division by zero.
pub fn vp_share(credited: u8, table: &[u8]) -> VpShare {
    let total: i128 = table.iter().map(|&vp| i128::from(vp)).sum();
    if total == 0 {
        return VpShare::ZERO;
    }
    // 100 c / t, or on a 3-player table 100 c / (4t / 3) = 300 c / 4t.
    let (numerator, basis) = if table.len() == 3 {
        (300 * i128::from(credited), 4 * total)
    } else {
        (100 * i128::from(credited), total)
    };
    debug_assert_eq!(
        SHARE_UNITS % basis,
        0,
        "a table beyond the rules: {table:?}"
    );
    VpShare(numerator * (SHARE_UNITS / basis))
}

/// One line of the classic standings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClassicRow {
    /// 1 for the best; tied players share a rank and the next rank skips ("1, 2, 2, 4").
    pub rank: u32,
    pub player: PlayerId,
    /// Credited VP over all games.
    pub vp: u32,
    /// Sum of the player's [`vp_share`]s, in percent.
    pub vp_share: VpShare,
    pub games: u32,
    /// Games credited 10, i.e. won.
    pub wins: u32,
    pub three_player_games: u32,
}

impl ClassicRow {
    /// Better rows first by VP, then share, then wins; `Equal` means the players share a rank.
    fn compare_merit(&self, other: &Self) -> Ordering {
        other
            .vp
            .cmp(&self.vp)
            .then_with(|| other.vp_share.cmp(&self.vp_share))
            .then_with(|| other.wins.cmp(&self.wins))
    }
}

/// Standings of `entrants` (everybody listed appears, with zeros if no game) over `games`. Sorted
/// best first.
///
/// Order: more credited VP; equal VP, the higher sum of VP shares (exact rationals, never
/// rounded); still equal, more games won. Players equal on all three share the rank and are
/// listed by player id ascending: the id is a random UUID given at registration, so the order
/// among them is a lot drawn in advance that anyone can audit, not a merit.
///
/// Only entrants are listed; everyone seated at a game still counts in that table's total.
pub fn classic_standings(entrants: &[PlayerId], games: &[Game]) -> Vec<ClassicRow> {
    let mut rows: HashMap<PlayerId, ClassicRow> = entrants
        .iter()
        .map(|&player| {
            let row = ClassicRow {
                rank: 0,
                player,
                vp: 0,
                vp_share: VpShare::ZERO,
                games: 0,
                wins: 0,
                three_player_games: 0,
            };
            (player, row)
        })
        .collect();

    for game in games {
        let table = game.table();
        for &(player, credited) in &game.credited {
            let Some(row) = rows.get_mut(&player) else {
                continue;
            };
            row.vp += u32::from(credited);
            row.vp_share += vp_share(credited, &table);
            row.games += 1;
            row.wins += u32::from(credited == WINNING_VP);
            row.three_player_games += u32::from(table.len() == 3);
        }
    }

    let mut standings: Vec<ClassicRow> = rows.into_values().collect();
    standings.sort_by(|a, b| a.compare_merit(b).then_with(|| a.player.cmp(&b.player)));
    let mut previous: Option<(usize, u32)> = None;
    for (index, place) in (0..standings.len()).zip(1u32..) {
        let rank = match previous {
            Some((before, rank)) if standings[before].compare_merit(&standings[index]).is_eq() => {
                rank
            }
            _ => place,
        };
        standings[index].rank = rank;
        previous = Some((index, rank));
    }
    standings
}

/// Two decimals, halves rounded up (away from zero): 85.694.. -> "85.69", 28.125 -> "28.13",
/// 15.625 -> "15.63".
pub fn format_percent(value: &BigRational) -> String {
    // Season points and shares fit in 128 bits unless a season is absurdly long.
    if let (Some(numerator), Some(denominator)) = (value.numer().to_i128(), value.denom().to_i128())
        && let Some(text) = hundredths_text(numerator, denominator)
    {
        return text;
    }
    // `Ratio::round` rounds halves away from zero.
    let hundredths = (value * BigRational::from_integer(BigInt::from(100)))
        .round()
        .to_integer();
    let sign = if hundredths.is_negative() { "-" } else { "" };
    let (units, cents) = hundredths.abs().div_rem(&BigInt::from(100));
    format!("{sign}{units}.{cents:02}")
}

/// `numerator / denominator` (a positive denominator) with two decimals, halves rounded away from
/// zero; none when 100 × `numerator` is beyond 128 bits.
fn hundredths_text(numerator: i128, denominator: i128) -> Option<String> {
    let scaled = numerator.unsigned_abs().checked_mul(100)?;
    let denominator = denominator.unsigned_abs();
    let (quotient, remainder) = (scaled / denominator, scaled % denominator);
    let hundredths = quotient + u128::from(remainder >= denominator - remainder);
    let sign = if numerator < 0 && hundredths > 0 {
        "-"
    } else {
        ""
    };
    Some(format!(
        "{sign}{}.{:02}",
        hundredths / 100,
        hundredths % 100
    ))
}

#[cfg(test)]
mod tests {
    use proptest::collection::vec;
    use proptest::prelude::*;

    use super::*;
    use crate::results::Stage;
    use crate::results::strategies::{distinct_players, validated_result};

    fn player(n: u128) -> PlayerId {
        PlayerId::from_u128(n)
    }

    fn ratio(numerator: i64, denominator: i64) -> BigRational {
        BigRational::new(BigInt::from(numerator), BigInt::from(denominator))
    }

    /// A qualifying game played through a validated results sheet: `table` as (player, actual VP).
    fn played(table: &[(PlayerId, i64)], winner: Option<PlayerId>) -> Game {
        Game::from_result(&validated_result(table, winner, Stage::Qualifying))
    }

    fn row_of(standings: &[ClassicRow], who: PlayerId) -> &ClassicRow {
        standings.iter().find(|row| row.player == who).unwrap()
    }

    #[test]
    fn worked_example_b_ranks_above_a_on_vp_share() {
        let (a, b) = (player(0xA), player(0xB));
        let o = |i: u128| player(100 + i);
        let games = vec![
            // A: 10 of 32, 8 of 30 (credited), 10 of 36.
            played(&[(a, 10), (o(0), 9), (o(1), 8), (o(2), 5)], Some(a)),
            played(&[(a, 8), (o(3), 11), (o(4), 7), (o(5), 5)], Some(o(3))),
            played(&[(a, 12), (o(6), 9), (o(7), 9), (o(8), 8)], Some(a)),
            // B: 10 of 30, 10 of 33, 8 of 36 (credited; one opponent reached 11, credited 9).
            played(&[(b, 10), (o(9), 9), (o(10), 6), (o(11), 5)], Some(b)),
            played(&[(b, 10), (o(12), 11), (o(13), 8), (o(14), 6)], Some(b)),
            played(&[(b, 8), (o(15), 10), (o(16), 9), (o(17), 9)], Some(o(15))),
        ];
        let standings = classic_standings(&[a, b], &games);

        let row_a = row_of(&standings, a);
        let row_b = row_of(&standings, b);
        assert_eq!((row_a.vp, row_b.vp), (28, 28));
        assert_eq!((row_a.wins, row_b.wins), (2, 2));
        let shares = |g: &[usize], who| -> Vec<String> {
            g.iter()
                .map(|&i| {
                    let table = games[i].table();
                    let credited = games[i]
                        .credited
                        .iter()
                        .find(|&&(p, _)| p == who)
                        .unwrap()
                        .1;
                    vp_share(credited, &table).percent()
                })
                .collect()
        };
        assert_eq!(shares(&[0, 1, 2], a), ["31.25", "26.67", "27.78"]);
        assert_eq!(shares(&[3, 4, 5], b), ["33.33", "30.30", "22.22"]);
        assert_eq!(row_a.vp_share.percent(), "85.69");
        assert_eq!(row_b.vp_share.percent(), "85.86");
        assert_eq!(
            row_a.vp_share.to_rational(),
            ratio(1000, 32) + ratio(800, 30) + ratio(1000, 36)
        );
        assert_eq!(row_a.vp_share.exact(), "3085/36");
        let order: Vec<(u32, PlayerId)> = standings.iter().map(|r| (r.rank, r.player)).collect();
        assert_eq!(order, [(1, b), (2, a)]);
    }

    #[test]
    fn three_player_table_total_is_raised_by_its_average() {
        let (a, b, c) = (player(1), player(2), player(3));
        let game = played(&[(a, 10), (b, 9), (c, 5)], Some(a));
        let table = game.table();
        assert_eq!(vp_share(10, &table).to_rational(), ratio(1000, 32));
        let formatted: Vec<String> = [10, 9, 5]
            .iter()
            .map(|&vp| vp_share(vp, &table).percent())
            .collect();
        assert_eq!(formatted, ["31.25", "28.13", "15.63"]);

        let standings = classic_standings(&[a, b, c], &[game]);
        assert!(standings.iter().all(|row| row.three_player_games == 1));
        // The raised total keeps the table's shares summing to 75%, as a fourth player would.
        let table_share: VpShare = standings.iter().map(|row| row.vp_share).sum();
        assert_eq!(table_share.to_rational(), ratio(75, 1));
        assert_eq!(table_share.exact(), "75/1");
    }

    #[test]
    fn four_player_share_is_credited_vp_over_the_table_total() {
        assert_eq!(vp_share(8, &[10, 8, 7, 5]).to_rational(), ratio(800, 30));
        assert_eq!(vp_share(8, &[10, 8, 7, 5]).exact(), "80/3");
        assert_eq!(vp_share(0, &[0, 0, 0]), VpShare::ZERO);
        assert_eq!(VpShare::ZERO.exact(), "0/1");
    }

    #[test]
    fn more_credited_vp_beats_a_better_share() {
        let (a, b) = (player(1), player(2));
        let o = |i: u128| player(10 + i);
        let games = vec![
            // a: 9 of a 38-VP table (share 23.7%)
            played(&[(a, 9), (o(0), 10), (o(1), 9), (o(2), 9)], Some(o(0))),
            // b: 8 of a 23-VP table (share 34.8%)
            played(&[(b, 8), (o(3), 10), (o(4), 3), (o(5), 2)], Some(o(3))),
        ];
        let standings = classic_standings(&[b, a], &games);
        assert!(row_of(&standings, b).vp_share > row_of(&standings, a).vp_share);
        let order: Vec<PlayerId> = standings.iter().map(|r| r.player).collect();
        assert_eq!(order, [a, b]);
    }

    #[test]
    fn equal_vp_and_share_fall_back_to_games_won() {
        let (a, b) = (player(1), player(2));
        let o = |i: u128| player(10 + i);
        // Every table totals 30: a wins with 10 then makes 4, b makes 7 twice.
        let games = vec![
            played(&[(a, 10), (o(0), 9), (o(1), 6), (o(2), 5)], Some(a)),
            played(&[(a, 4), (o(3), 10), (o(4), 9), (o(5), 7)], Some(o(3))),
            played(&[(b, 7), (o(6), 10), (o(7), 8), (o(8), 5)], Some(o(6))),
            played(&[(b, 7), (o(9), 10), (o(10), 8), (o(11), 5)], Some(o(9))),
        ];
        let standings = classic_standings(&[b, a], &games);
        let (row_a, row_b) = (row_of(&standings, a), row_of(&standings, b));
        assert_eq!((row_a.vp, &row_a.vp_share), (row_b.vp, &row_b.vp_share));
        assert_eq!((row_a.wins, row_b.wins), (1, 0));
        let ranked: Vec<(u32, PlayerId)> = standings.iter().map(|r| (r.rank, r.player)).collect();
        assert_eq!(ranked, [(1, a), (2, b)]);
    }

    #[test]
    fn full_ties_share_the_rank_and_are_listed_by_player_id() {
        let (top, low, high, last) = (player(50), player(7), player(9), player(1));
        let games = vec![
            Game {
                credited: vec![(top, 10), (high, 8), (low, 8), (last, 4)],
            },
            Game {
                credited: vec![(top, 10), (low, 8), (high, 8), (last, 4)],
            },
        ];
        let standings = classic_standings(&[last, high, top, low], &games);
        let ranked: Vec<(u32, PlayerId)> = standings.iter().map(|r| (r.rank, r.player)).collect();
        assert_eq!(ranked, [(1, top), (2, low), (2, high), (4, last)]);
    }

    #[test]
    fn entrants_without_games_appear_with_zeros() {
        let (a, idle) = (player(1), player(2));
        let games = vec![Game {
            credited: vec![(a, 10), (player(3), 6), (player(4), 6)],
        }];
        let standings = classic_standings(&[idle, a], &games);
        assert_eq!(
            standings[1],
            ClassicRow {
                rank: 2,
                player: idle,
                vp: 0,
                vp_share: VpShare::ZERO,
                games: 0,
                wins: 0,
                three_player_games: 0
            }
        );
        assert_eq!(
            (standings[0].games, standings[0].three_player_games),
            (1, 1)
        );
    }

    #[test]
    fn players_not_entered_are_left_out_but_count_in_table_totals() {
        let (a, gone) = (player(1), player(2));
        let games = vec![Game {
            credited: vec![(a, 10), (gone, 9), (player(3), 6), (player(4), 5)],
        }];
        let standings = classic_standings(&[a], &games);
        assert_eq!(standings.len(), 1);
        assert_eq!(standings[0].vp_share.to_rational(), ratio(1000, 30));
    }

    #[test]
    fn format_percent_rounds_halves_away_from_zero() {
        let cases = [
            (ratio(1000, 32) + ratio(800, 30) + ratio(1000, 36), "85.69"),
            (ratio(28125, 1000), "28.13"),
            (ratio(15625, 1000), "15.63"),
            (ratio(1, 200), "0.01"),
            (ratio(1, 201), "0.00"),
            (ratio(-1, 200), "-0.01"),
            (ratio(1, 20), "0.05"),
            (ratio(100, 1), "100.00"),
            (ratio(0, 1), "0.00"),
        ];
        for (value, expected) in cases {
            assert_eq!(format_percent(&value), expected, "{value}");
        }
    }

    /// Entrants and games among them: 3- or 4-player tables, at most one winner (credited 10).
    fn season() -> impl Strategy<Value = (Vec<PlayerId>, Vec<Game>)> {
        (4usize..=10)
            .prop_flat_map(distinct_players)
            .prop_flat_map(|entrants| {
                let game = (
                    Just(entrants.clone()).prop_shuffle(),
                    3usize..=4,
                    vec(2u8..=9, 4),
                    proptest::option::of(0usize..4),
                )
                    .prop_map(|(seats, size, mut vps, winner)| {
                        if let Some(winner) = winner.filter(|&w| w < size) {
                            vps[winner] = WINNING_VP;
                        }
                        Game {
                            credited: seats.into_iter().zip(vps).take(size).collect(),
                        }
                    });
                (Just(entrants), vec(game, 0..8))
            })
    }

    proptest! {
        #[test]
        fn standings_are_sorted_by_vp_share_wins_then_player_id((entrants, games) in season()) {
            let standings = classic_standings(&entrants, &games);
            let mut listed: Vec<PlayerId> = standings.iter().map(|r| r.player).collect();
            listed.sort();
            let mut expected = entrants.clone();
            expected.sort();
            prop_assert_eq!(listed, expected);

            for pair in standings.windows(2) {
                let key = |r: &ClassicRow| (r.vp, r.vp_share, r.wins);
                prop_assert!(key(&pair[0]) >= key(&pair[1]));
                if key(&pair[0]) == key(&pair[1]) {
                    prop_assert!(pair[0].player < pair[1].player);
                    prop_assert_eq!(pair[0].rank, pair[1].rank);
                }
            }
            for row in &standings {
                let better = standings.iter().filter(|other| other.compare_merit(row).is_lt()).count();
                prop_assert_eq!(row.rank as usize, better + 1);
            }
        }

        #[test]
        fn standings_add_up_every_game((entrants, games) in season()) {
            let standings = classic_standings(&entrants, &games);
            for row in &standings {
                let seats: Vec<(u8, Vec<u8>)> = games
                    .iter()
                    .filter_map(|g| g.credited.iter().find(|&&(p, _)| p == row.player).map(|&(_, vp)| (vp, g.table())))
                    .collect();
                prop_assert_eq!(row.games as usize, seats.len());
                prop_assert_eq!(row.vp, seats.iter().map(|(vp, _)| u32::from(*vp)).sum::<u32>());
                prop_assert_eq!(row.wins as usize, seats.iter().filter(|(vp, _)| *vp == WINNING_VP).count());
                prop_assert_eq!(row.three_player_games as usize, seats.iter().filter(|(_, t)| t.len() == 3).count());
                // Summed apart as unbounded rationals: the fixed denominator loses nothing.
                let share: BigRational = seats.iter().map(|(vp, t)| rational_share(*vp, t)).sum();
                prop_assert_eq!(row.vp_share.to_rational(), share.clone());
                prop_assert_eq!(row.vp_share.percent(), format_percent(&share));
                prop_assert_eq!(row.vp_share.exact(), format!("{}/{}", share.numer(), share.denom()));
            }
        }

        #[test]
        fn every_table_of_the_rules_has_an_exact_share(
            table in vec(0u8..=WINNING_VP, 3..=4),
            seat in 0usize..4,
        ) {
            let credited = table[seat % table.len()];
            prop_assert_eq!(vp_share(credited, &table).to_rational(), rational_share(credited, &table));
        }
    }

    /// The rule's share as an unbounded rational, computed without [`VpShare`].
    fn rational_share(credited: u8, table: &[u8]) -> BigRational {
        let total: i64 = table.iter().map(|&vp| i64::from(vp)).sum();
        if total == 0 {
            return ratio(0, 1);
        }
        let basis = if table.len() == 3 {
            ratio(total * 4, 3)
        } else {
            ratio(total, 1)
        };
        ratio(i64::from(credited) * 100, 1) / basis
    }
}
