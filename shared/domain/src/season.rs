//! Season scoring (issue 8), the parts settled so far: the `placement` mode, where an event
//! scores by its final places, and the `table_points` mode, where every game scores by finishing
//! position, as the German ranking list does.

use num_rational::Ratio;

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
    /// The points of `place` (1 is first) in an event of `field` players; exact.
    pub fn of(&self, place: u32, field: u32) -> Ratio<u64> {
        if place == 0 || place > field {
            return Ratio::from_integer(0);
        }
        match self {
            PlacementPoints::Table(points) => usize::try_from(place - 1)
                .ok()
                .and_then(|k| points.get(k))
                .map_or(Ratio::from_integer(0), |&p| {
                    Ratio::from_integer(u64::from(p))
                }),
            PlacementPoints::Scaled { top, full_field } => {
                let counted = u64::from(field.min(*full_field));
                let first = Ratio::new(u64::from(*top) * counted, u64::from((*full_field).max(1)));
                first * Ratio::new(u64::from(field - place + 1), u64::from(field))
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
    /// [`crate::ratings::finishing_key`], the winner first, then more VP). Players tied on a key share the points of
    /// the places they span, exactly (two tied for second at a table of 4 get (3 + 2) / 2 each).
    /// `None` for a table size the scale does not cover.
    pub fn of_game(&self, keys: &[i64]) -> Option<Vec<Ratio<u32>>> {
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
                    let spanned: u32 = scale[ahead..ahead + tied].iter().sum();
                    Ratio::new(spanned, u32::try_from(tied).unwrap_or(u32::MAX))
                })
                .collect(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn however_players_tie_a_game_hands_out_the_scales_points(
            keys in prop::collection::vec(0i64..4, 3..=4)
        ) {
            let scale = TablePoints::default();
            let handed: Ratio<u32> = scale.of_game(&keys).unwrap_or_default().into_iter().sum();
            let whole: u32 = if keys.len() == 4 { scale.four.iter().sum() } else { scale.three.iter().sum() };
            prop_assert_eq!(handed, Ratio::from_integer(whole));
        }
    }

    fn points(whole: &[(u32, u32)]) -> Vec<Ratio<u32>> {
        whole.iter().map(|&(n, d)| Ratio::new(n, d)).collect()
    }

    #[test]
    fn a_points_table_gives_each_place_its_points_and_nothing_past_it() {
        let table = PlacementPoints::Table(vec![25, 18, 15]);
        assert_eq!(table.of(1, 30), Ratio::from_integer(25));
        assert_eq!(table.of(3, 30), Ratio::from_integer(15));
        assert_eq!(table.of(4, 30), Ratio::from_integer(0));
        assert_eq!(table.of(31, 30), Ratio::from_integer(0));
    }

    #[test]
    fn scaled_points_fall_linearly_to_the_last_and_shrink_with_the_field() {
        let scaled = PlacementPoints::Scaled {
            top: 100,
            full_field: 50,
        };
        // A field of 50 or more: first scores 100, last 100 / field.
        assert_eq!(scaled.of(1, 50), Ratio::from_integer(100));
        assert_eq!(scaled.of(50, 50), Ratio::from_integer(2));
        assert_eq!(scaled.of(1, 80), Ratio::from_integer(100));
        assert_eq!(scaled.of(41, 80), Ratio::new(100 * 40, 80));
        // A field of 25: first scores half of 100, and so on down.
        assert_eq!(scaled.of(1, 25), Ratio::from_integer(50));
        assert_eq!(scaled.of(25, 25), Ratio::from_integer(2));
        assert!(scaled.of(2, 25) > scaled.of(3, 25));
    }

    #[test]
    fn a_table_of_four_scores_five_three_two_one() {
        let scored = TablePoints::default().of_game(&[i64::MIN, -9, -7, -4]);
        assert_eq!(scored, Some(points(&[(5, 1), (3, 1), (2, 1), (1, 1)])));
    }

    #[test]
    fn a_table_of_three_scores_five_three_one() {
        let scored = TablePoints::default().of_game(&[-8, i64::MIN, -6]);
        assert_eq!(scored, Some(points(&[(3, 1), (5, 1), (1, 1)])));
    }

    #[test]
    fn players_tied_on_vp_share_the_points_of_the_places_they_span() {
        // Two tied for second at a table of 4: (3 + 2) / 2 each.
        let scored = TablePoints::default().of_game(&[i64::MIN, -8, -8, -5]);
        assert_eq!(scored, Some(points(&[(5, 1), (5, 2), (5, 2), (1, 1)])));
        // A game stopped at the time limit with all three level: (5 + 3 + 1) / 3 each.
        let level = TablePoints::default().of_game(&[-7, -7, -7]);
        assert_eq!(level, Some(points(&[(3, 1), (3, 1), (3, 1)])));
        // The points handed out are the scale's, however players tie.
        let total: Ratio<u32> = scored.unwrap_or_default().into_iter().sum();
        assert_eq!(total, Ratio::from_integer(11));
    }

    #[test]
    fn a_table_size_the_scale_does_not_cover_scores_nothing() {
        assert_eq!(TablePoints::default().of_game(&[-1, -2]), None);
        let short = TablePoints {
            four: vec![5, 3, 2],
            three: vec![5, 3, 1],
        };
        assert_eq!(short.of_game(&[-1, -2, -3, -4]), None);
    }
}
