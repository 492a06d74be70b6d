//! What one qualifying game can give a player: his credited VP, his VP share and whether he won,
//! at the most and at the least the results sheet allows.
//!
//! A legal sheet (`crate::results`) credits its winner 10 and everyone else 2 to 9 (every player
//! keeps his two first settlements; a non-winner is credited at most 9); a game stopped at the
//! time limit has no winner. So at a table, for the player's credited VP `c`:
//! - his share is highest when everyone else has the fewest VP, 2 each (a game stopped at the
//!   time limit, or won by him);
//! - it is lowest when everyone else has the most: 9 each when he won (c = 10), else one winner's
//!   10 and 9 for the others.
//!
//! A field's tables are of 4 and, when its size is not a multiple of 4, of 3 too; a player may sit
//! at either, so both count. The test `every_legal_sheet_gives_shares_within_the_extremes` checks
//! these extremes against every sheet the validator accepts.

use std::ops::Add;

use crate::results::{MAX_CREDIT_WITHOUT_WIN, WINNING_VP};
use crate::seating::table_sizes;
use crate::standings::{VpShare, vp_share};

/// The fewest VP a player is credited in a game: his two first settlements.
pub(super) const LEAST_CREDIT: u8 = 2;

/// A player's figures in the order the standings compare them: credited VP, then the sum of VP
/// shares, then games won. A total, or what some games add to one.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) struct Figures {
    pub vp: u32,
    pub share: VpShare,
    pub wins: u32,
}

impl Add for Figures {
    type Output = Figures;
    fn add(self, other: Figures) -> Figures {
        Figures {
            vp: self.vp + other.vp,
            share: self.share + other.share,
            wins: self.wins + other.wins,
        }
    }
}

impl Figures {
    /// The same figures `games` times over.
    pub(crate) fn times(self, games: u32) -> Figures {
        (0..games).fold(Figures::default(), |sum, _| sum + self)
    }
}

/// The table sizes at which a field's players may sit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Tables {
    pub four: bool,
    pub three: bool,
}

impl Tables {
    /// A field of `players` sits at tables of 4 and as many of 3 as its size forces; a field
    /// the seating refuses (fewer than 3, or 5) is taken to sit at either.
    pub(crate) fn of_field(players: usize) -> Tables {
        match table_sizes(players) {
            Ok(sizes) => Tables {
                four: sizes.fours > 0,
                three: sizes.threes > 0,
            },
            Err(_) => Tables {
                four: true,
                three: true,
            },
        }
    }

    fn sizes(self) -> impl Iterator<Item = usize> {
        [(4, self.four), (3, self.three)]
            .into_iter()
            .filter(|&(_, seated)| seated)
            .map(|(size, _)| size)
    }

    /// A player's figures from one game credited `credited`, with the highest share a table
    /// allows him.
    pub(crate) fn best_with(self, credited: u8) -> Figures {
        let shares = self
            .sizes()
            .map(|size| share_among(credited, LEAST_CREDIT, size));
        figures(credited, shares.max().unwrap_or_default())
    }

    /// A player's figures from one game credited `credited`, with the lowest share a table
    /// allows him.
    pub(crate) fn worst_with(self, credited: u8) -> Figures {
        let shares = self.sizes().map(|size| {
            let mut table = vec![MAX_CREDIT_WITHOUT_WIN; size - 1];
            if credited != WINNING_VP {
                // Someone else won.
                table[0] = WINNING_VP;
            }
            table.push(credited);
            vp_share(credited, &table)
        });
        figures(credited, shares.min().unwrap_or_default())
    }

    /// The most a game gives: a win, with the highest share.
    pub(crate) fn best_game(self) -> Figures {
        self.best_with(WINNING_VP)
    }

    /// The least a game gives: 2 VP, with the lowest share.
    pub(crate) fn worst_game(self) -> Figures {
        self.worst_with(LEAST_CREDIT)
    }
}

/// The share of `credited` at a table of `size` where everyone else is credited `others`.
fn share_among(credited: u8, others: u8, size: usize) -> VpShare {
    let mut table = vec![others; size - 1];
    table.push(credited);
    vp_share(credited, &table)
}

fn figures(credited: u8, share: VpShare) -> Figures {
    Figures {
        vp: credited.into(),
        share,
        wins: u32::from(credited == WINNING_VP),
    }
}
