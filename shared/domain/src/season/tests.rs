use super::*;
use num_bigint::BigInt;
use num_rational::BigRational;
use proptest::prelude::*;

proptest! {
    #[test]
    fn however_players_tie_a_game_hands_out_the_scales_points(
        keys in prop::collection::vec(0i64..4, 3..=4)
    ) {
        let scale = TablePoints::default();
        let handed: BigRational = scale.of_game(&keys).unwrap_or_default().into_iter().sum();
        let whole: u32 = if keys.len() == 4 { scale.four.iter().sum() } else { scale.three.iter().sum() };
        prop_assert_eq!(handed, int(whole.into()));
    }
}

fn int(n: i64) -> BigRational {
    BigRational::from_integer(BigInt::from(n))
}

fn ratio(n: i64, d: i64) -> BigRational {
    BigRational::new(BigInt::from(n), BigInt::from(d))
}

fn points(whole: &[(i64, i64)]) -> Vec<BigRational> {
    whole.iter().map(|&(n, d)| ratio(n, d)).collect()
}

#[test]
fn a_points_table_gives_each_place_its_points_and_nothing_past_it() {
    let table = PlacementPoints::Table(vec![25, 18, 15]);
    assert_eq!(table.of(1, 30), int(25));
    assert_eq!(table.of(3, 30), int(15));
    assert_eq!(table.of(4, 30), int(0));
    assert_eq!(table.of(31, 30), int(0));
}

#[test]
fn scaled_points_fall_linearly_to_the_last_and_shrink_with_the_field() {
    let scaled = PlacementPoints::Scaled {
        top: 100,
        full_field: 50,
    };
    // A field of 50 or more: first scores 100, last 100 / field.
    assert_eq!(scaled.of(1, 50), int(100));
    assert_eq!(scaled.of(50, 50), int(2));
    assert_eq!(scaled.of(1, 80), int(100));
    assert_eq!(scaled.of(41, 80), ratio(100 * 40, 80));
    // A field of 25: first scores half of 100, and so on down.
    assert_eq!(scaled.of(1, 25), int(50));
    assert_eq!(scaled.of(25, 25), int(2));
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
    let total: BigRational = scored.unwrap_or_default().into_iter().sum();
    assert_eq!(total, int(11));
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

#[test]
fn points_stay_exact_whatever_their_size() {
    let big = PlacementPoints::Scaled {
        top: u32::MAX,
        full_field: u32::MAX - 1,
    };
    let top = i64::from(u32::MAX);
    assert_eq!(big.of(1, u32::MAX), int(top));
    assert_eq!(
        big.of(2, u32::MAX - 1),
        ratio(top, 1) * ratio(top - 2, top - 1)
    );
    let huge = TablePoints {
        four: vec![u32::MAX; 4],
        three: vec![u32::MAX; 3],
    };
    let level = huge.of_game(&[-5, -5, -5, -5]).unwrap_or_default();
    assert!(level.iter().all(|p| *p == int(top)));
}
