//! The two ways an event scores for a season: the `placement` mode, where an event scores by its
//! final places, and the `table_points` mode, where every game scores by finishing position, as
//! the German ranking list does.
//!
//! Points are exact rationals of unbounded size ([`BigRational`]): a season adds up fractions
//! whose denominators are field sizes (scaled points) or shared places, and a fixed-width ratio
//! would overflow on their least common multiple long before a season is over.

use num_bigint::BigInt;
use num_rational::BigRational;
use num_traits::Zero;

/// Mode `placement`: an event's points by its final places.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PlacementPoints {
    /// `points[k]` for place k + 1; places past the table score nothing.
    Table(Vec<u32>),
    /// Scaled by field size: first place of a field of `full_field` players or more scores `top`,
    /// a smaller field's first place `top × field / full_field`; the places then fall linearly to
    /// the last, which scores `1 / field` of the first.
    Scaled { top: u32, full_field: u32 },
}

impl PlacementPoints {
    /// The points of `place` (1 is first) in an event of `field` players; exact. A place of 0 or
    /// past the field scores nothing.
    pub fn of(&self, place: u32, field: u32) -> BigRational {
        if place == 0 || place > field {
            return BigRational::zero();
        }
        match self {
            PlacementPoints::Table(points) => usize::try_from(place - 1)
                .ok()
                .and_then(|k| points.get(k))
                .map_or_else(BigRational::zero, |&p| whole(u64::from(p))),
            PlacementPoints::Scaled { top, full_field } => {
                let counted = field.min(*full_field);
                let first = BigRational::new(
                    BigInt::from(u64::from(*top) * u64::from(counted)),
                    BigInt::from((*full_field).max(1)),
                );
                first * BigRational::new(BigInt::from(field - place + 1), BigInt::from(field))
            }
        }
    }
}

/// Points by finishing position at a table: `four[k]` for place k + 1 at a table of 4, `three[k]`
/// at a table of 3.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TablePoints {
    pub four: Vec<u32>,
    pub three: Vec<u32>,
}

impl Default for TablePoints {
    /// 5-3-2-1 at a table of 4, 5-3-1 at a table of 3.
    fn default() -> Self {
        TablePoints {
            four: vec![5, 3, 2, 1],
            three: vec![5, 3, 1],
        }
    }
}

impl TablePoints {
    /// Each player's points from one game, in the order of `keys` (lower is better:
    /// [`crate::ratings::finishing_key`], the winner first, then more VP). Players tied on a key
    /// share the points of the places they span, exactly (two tied for second at a table of 4 get
    /// (3 + 2) / 2 each). `None` for a table size the scale does not cover.
    pub fn of_game(&self, keys: &[i64]) -> Option<Vec<BigRational>> {
        let scale = match keys.len() {
            4 => &self.four,
            3 => &self.three,
            _ => return None,
        };
        if scale.len() != keys.len() {
            return None;
        }
        Some(
            keys.iter()
                .map(|key| {
                    let ahead = keys.iter().filter(|other| *other < key).count();
                    let tied = keys.iter().filter(|other| *other == key).count();
                    let spanned: u64 = scale
                        .iter()
                        .skip(ahead)
                        .take(tied)
                        .map(|&p| u64::from(p))
                        .sum();
                    BigRational::new(BigInt::from(spanned), BigInt::from(tied.max(1)))
                })
                .collect(),
        )
    }
}

/// A whole number of points.
pub(super) fn whole(points: u64) -> BigRational {
    BigRational::from_integer(BigInt::from(points))
}
