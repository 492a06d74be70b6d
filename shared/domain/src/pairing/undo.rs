//! The director's corrections to a drawn round before it is played (issue 41): the round drawn
//! again (after a no-show is dropped) or two players swapped between its tables. Either only
//! while none of the round's tables has a result, and only to the event's latest round: an
//! earlier round's tables are the history the later draws were made from.

/// Why a round cannot be redrawn or changed by hand.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ChangeRefusal {
    #[error(
        "round {round} is not the event's latest round (round {latest} is drawn): only the latest round can be redrawn or changed"
    )]
    NotLatest { round: u32, latest: u32 },
    #[error(
        "round {round} has a result for table {}: a round is redrawn or changed by hand only while none of its tables has a result; void the result first",
        list(.tables)
    )]
    HasResults { round: u32, tables: Vec<u32> },
}

fn list(tables: &[u32]) -> String {
    tables
        .iter()
        .map(u32::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

/// Whether round `round` may be redrawn or changed by hand, the event's latest round being
/// `latest` and `tables_with_result` its tables with a result.
pub fn may_change_round(
    round: u32,
    latest: u32,
    tables_with_result: &[u32],
) -> Result<(), ChangeRefusal> {
    if round != latest {
        return Err(ChangeRefusal::NotLatest { round, latest });
    }
    if !tables_with_result.is_empty() {
        let mut tables = tables_with_result.to_vec();
        tables.sort_unstable();
        tables.dedup();
        return Err(ChangeRefusal::HasResults { round, tables });
    }
    Ok(())
}

/// Why two players cannot be swapped; `which` is 0 or 1, the player named first or second.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum SwapRefusal {
    #[error("this player is not seated in the round")]
    NotSeated { which: usize },
    #[error("the two players sit at the same table: a swap moves players between tables")]
    SameTable,
}

/// Swaps players `a` and `b` of `tables` (each table its seats in play order): each takes the
/// other's table and seat, so every table keeps its size and every seat its position. Answers
/// the indices of their tables (`a`'s first).
pub fn swap_players<P: PartialEq + Copy>(
    tables: &mut [Vec<P>],
    a: P,
    b: P,
) -> Result<(usize, usize), SwapRefusal> {
    let find = |p: P| {
        tables
            .iter()
            .enumerate()
            .find_map(|(t, seats)| seats.iter().position(|s| *s == p).map(|seat| (t, seat)))
    };
    let (ta, sa) = find(a).ok_or(SwapRefusal::NotSeated { which: 0 })?;
    let (tb, sb) = find(b).ok_or(SwapRefusal::NotSeated { which: 1 })?;
    if ta == tb {
        return Err(SwapRefusal::SameTable);
    }
    tables[ta][sa] = b;
    tables[tb][sb] = a;
    Ok((ta, tb))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_latest_round_without_a_result_may_change() {
        assert_eq!(may_change_round(2, 2, &[]), Ok(()));
        assert_eq!(
            may_change_round(1, 2, &[]),
            Err(ChangeRefusal::NotLatest {
                round: 1,
                latest: 2
            })
        );
        let refused = may_change_round(2, 2, &[5, 3, 5]).unwrap_err();
        assert_eq!(
            refused,
            ChangeRefusal::HasResults {
                round: 2,
                tables: vec![3, 5]
            }
        );
        assert!(
            refused.to_string().contains("table 3, 5"),
            "said in words: {refused}"
        );
    }

    #[test]
    fn a_swap_trades_tables_and_seats_and_keeps_every_table_size() {
        let mut tables = vec![vec![1, 2, 3, 4], vec![5, 6, 7]];
        assert_eq!(swap_players(&mut tables, 2, 7), Ok((0, 1)));
        assert_eq!(tables, vec![vec![1, 7, 3, 4], vec![5, 6, 2]]);
        // Swapped back, the round is as drawn.
        assert_eq!(swap_players(&mut tables, 2, 7), Ok((1, 0)));
        assert_eq!(tables, vec![vec![1, 2, 3, 4], vec![5, 6, 7]]);
    }

    #[test]
    fn a_swap_needs_two_seated_players_at_different_tables() {
        let mut tables = vec![vec![1, 2, 3], vec![4, 5, 6]];
        assert_eq!(swap_players(&mut tables, 1, 2), Err(SwapRefusal::SameTable));
        assert_eq!(
            swap_players(&mut tables, 9, 2),
            Err(SwapRefusal::NotSeated { which: 0 })
        );
        assert_eq!(
            swap_players(&mut tables, 1, 9),
            Err(SwapRefusal::NotSeated { which: 1 })
        );
        assert_eq!(tables, vec![vec![1, 2, 3], vec![4, 5, 6]], "unchanged");
    }
}
