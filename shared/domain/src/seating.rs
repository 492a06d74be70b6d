//! Seats at a Catan table and how a field splits into tables of 4 and 3.

use serde::{Deserialize, Serialize};

/// A seat at a table. Play order is N, E, S, W: the seat list of a table is its play order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub enum SeatPosition {
    N,
    E,
    S,
    W,
}

/// The seats in play order.
pub const SEAT_ORDER: [SeatPosition; 4] = [
    SeatPosition::N,
    SeatPosition::E,
    SeatPosition::S,
    SeatPosition::W,
];

impl SeatPosition {
    /// The seat of the player who moves at `index` (0 = first) in play order.
    pub fn from_play_index(index: usize) -> Option<SeatPosition> {
        SEAT_ORDER.get(index).copied()
    }

    /// 0 for the first player to move, 3 for the last at a table of 4.
    pub fn play_index(self) -> usize {
        self as usize
    }
}

/// How many tables of each size a field sits at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TableSizes {
    pub fours: usize,
    pub threes: usize,
}

impl TableSizes {
    pub fn tables(self) -> usize {
        self.fours + self.threes
    }

    pub fn players(self) -> usize {
        4 * self.fours + 3 * self.threes
    }

    /// Table sizes in the order tables are laid out: tables of 4 first, then tables of 3.
    pub fn in_order(self) -> impl Iterator<Item = usize> {
        std::iter::repeat_n(4, self.fours).chain(std::iter::repeat_n(3, self.threes))
    }

    /// `players` seated in turn at tables of these sizes, laid out as [`TableSizes::in_order`].
    pub(crate) fn seat_in_turn<T: Clone>(self, players: &[T]) -> Vec<Vec<T>> {
        let mut rest = players;
        self.in_order()
            .map(|size| {
                let (table, tail) = rest.split_at(size);
                rest = tail;
                table.to_vec()
            })
            .collect()
    }
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SeatingError {
    #[error("a field of {players} players is too small: a table needs at least 3")]
    TooFewPlayers { players: usize },
    #[error("a field of 5 players cannot be seated at tables of 3 and 4")]
    FieldOfFive,
    #[error("player {player} is listed more than once among the players to seat")]
    DuplicatePlayer { player: u32 },
}

/// Tables of 4, and as many of 3 as the head count forces: (4 - n mod 4) mod 4.
/// Fewer than 3 players, or exactly 5, cannot be seated.
pub fn table_sizes(players: usize) -> Result<TableSizes, SeatingError> {
    if players < 3 {
        return Err(SeatingError::TooFewPlayers { players });
    }
    if players == 5 {
        return Err(SeatingError::FieldOfFive);
    }
    let threes = (4 - players % 4) % 4;
    Ok(TableSizes {
        fours: (players - 3 * threes) / 4,
        threes,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_sizes_seat_everyone_with_the_fewest_tables_of_three() {
        for players in (3..=2_000).filter(|&n| n != 5) {
            let sizes = table_sizes(players).unwrap();
            assert_eq!(sizes.players(), players);
            assert_eq!(sizes.threes, (4 - players % 4) % 4);
            assert_eq!(sizes.in_order().sum::<usize>(), players);
            assert_eq!(sizes.in_order().count(), sizes.tables());
        }
    }

    #[test]
    fn fields_that_cannot_be_seated_are_refused_with_a_reason() {
        assert_eq!(table_sizes(5), Err(SeatingError::FieldOfFive));
        assert_eq!(
            table_sizes(2),
            Err(SeatingError::TooFewPlayers { players: 2 })
        );
        assert_eq!(
            table_sizes(5).unwrap_err().to_string(),
            "a field of 5 players cannot be seated at tables of 3 and 4"
        );
    }

    #[test]
    fn seat_order_is_play_order() {
        for (index, seat) in SEAT_ORDER.iter().enumerate() {
            assert_eq!(seat.play_index(), index);
            assert_eq!(SeatPosition::from_play_index(index), Some(*seat));
        }
        assert_eq!(SeatPosition::from_play_index(4), None);
    }
}
