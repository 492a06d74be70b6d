//! Exhaustive search for the fewest repeated meetings a small classic event allows (tests only).
//!
//! Round 1 is fixed (every split of the field into the forced table sizes is the same up to
//! renaming the players); rounds 2 and 3 run over every split that keeps 3-player games even.

use crate::seating::table_sizes;

struct Split {
    /// Bit per pair (i < j) sharing a table.
    pairs: u64,
    /// Bit per player at a table of 3.
    at_three: u16,
}

fn pair_bit(players: usize, a: usize, b: usize) -> u64 {
    let (a, b) = (a.min(b), a.max(b));
    1 << (a * players + b - (a + 1) * (a + 2) / 2)
}

fn splits(players: usize) -> Vec<Split> {
    let sizes = table_sizes(players).expect("a seatable field");
    let mut remaining_sizes: Vec<usize> = sizes.in_order().collect();
    let mut found = Vec::new();
    let mut tables = Vec::new();
    extend(
        players,
        (1 << players) - 1,
        &mut remaining_sizes,
        &mut tables,
        &mut found,
    );
    found
}

fn extend(
    players: usize,
    unseated: u16,
    sizes: &mut Vec<usize>,
    tables: &mut Vec<u16>,
    found: &mut Vec<Split>,
) {
    if unseated == 0 {
        let mut split = Split {
            pairs: 0,
            at_three: 0,
        };
        for &table in tables.iter() {
            if table.count_ones() == 3 {
                split.at_three |= table;
            }
            for a in 0..players {
                for b in a + 1..players {
                    if table & (1 << a) != 0 && table & (1 << b) != 0 {
                        split.pairs |= pair_bit(players, a, b);
                    }
                }
            }
        }
        found.push(split);
        return;
    }
    // The lowest unseated player opens the next table, so each split is listed once.
    let first = unseated.trailing_zeros();
    let others = unseated & !(1 << first);
    let mut tried = Vec::new();
    for index in 0..sizes.len() {
        let size = sizes[index];
        if tried.contains(&size) {
            continue;
        }
        tried.push(size);
        sizes.remove(index);
        let mut companions = others;
        // Every subset of `others` with size - 1 members.
        loop {
            if companions.count_ones() as usize == size - 1 {
                tables.push(companions | (1 << first));
                extend(players, others & !companions, sizes, tables, found);
                tables.pop();
            }
            if companions == 0 {
                break;
            }
            companions = (companions - 1) & others;
        }
        sizes.insert(index, size);
    }
}

fn keeps_threes_even(split: &Split, games: &[u32]) -> bool {
    let mut most_at_three = 0;
    let mut fewest_at_four = u32::MAX;
    for (player, &count) in games.iter().enumerate() {
        if split.at_three & (1 << player) != 0 {
            most_at_three = most_at_three.max(count);
        } else {
            fewest_at_four = fewest_at_four.min(count);
        }
    }
    most_at_three <= fewest_at_four
}

fn after(split: &Split, games: &[u32]) -> Vec<u32> {
    games
        .iter()
        .enumerate()
        .map(|(player, &count)| count + u32::from(split.at_three & (1 << player) != 0))
        .collect()
}

/// The least (repeated meetings, sum of squared repeats) over every 3-round schedule of
/// `players` that keeps 3-player games even.
pub(crate) fn fewest_repeats_in_three_rounds(players: usize) -> (u32, u32) {
    assert!(players <= 10, "the pair bits must fit in 64");
    let all = splits(players);
    let first = &all[0];
    let games_after_first = after(first, &vec![0; players]);
    let mut best = (u32::MAX, u32::MAX);
    for second in all
        .iter()
        .filter(|s| keeps_threes_even(s, &games_after_first))
    {
        let games_after_second = after(second, &games_after_first);
        for third in all
            .iter()
            .filter(|s| keeps_threes_even(s, &games_after_second))
        {
            let (a, b, c) = (first.pairs, second.pairs, third.pairs);
            let repeats =
                a.count_ones() + b.count_ones() + c.count_ones() - (a | b | c).count_ones();
            let twice_or_more = (a & b) | (a & c) | (b & c);
            let thrice = a & b & c;
            let squares = twice_or_more.count_ones() + 3 * thrice.count_ones();
            best = best.min((repeats, squares));
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_are_listed_once_each() {
        // 10 players at tables of 4, 3, 3: 10! / (4! 3! 3! 2!) splits.
        assert_eq!(splits(10).len(), 2100);
        assert_eq!(splits(8).len(), 35);
        assert_eq!(splits(9).len(), 280);
    }

    #[test]
    fn the_issue_figures_for_nine_and_ten_players_are_the_true_minimum() {
        assert_eq!(fewest_repeats_in_three_rounds(9).0, 0);
        assert_eq!(fewest_repeats_in_three_rounds(10).0, 8);
    }
}
