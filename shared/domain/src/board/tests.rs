use super::*;
use proptest::prelude::*;
use std::collections::{HashMap, HashSet};

/// Centre of a hex on a plane with `y` pointing up, so that a positive cross product is a
/// counter-clockwise turn as seen on the printed board.
fn plane_position(coord: HexCoord) -> (f64, f64) {
    let x = 1.5 * f64::from(coord.q);
    let y_down = 3f64.sqrt() * (f64::from(coord.r) + f64::from(coord.q) / 2.0);
    (x, -y_down)
}

fn turns_counter_clockwise(from: HexCoord, to: HexCoord) -> bool {
    let (ax, ay) = plane_position(from);
    let (bx, by) = plane_position(to);
    ax * by - ay * bx > 0.0
}

fn terrain_counts(board: &Board) -> HashMap<Terrain, usize> {
    let mut counts = HashMap::new();
    for hex in &board.hexes {
        *counts.entry(hex.terrain).or_insert(0) += 1;
    }
    counts
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn terrain_counts_match_the_base_game(seed in any::<u64>()) {
        let board = generate_board(seed);
        prop_assert_eq!(board.hexes.len(), 19);
        let counts = terrain_counts(&board);
        for (terrain, expected) in LAND_TILES {
            prop_assert_eq!(counts.get(&terrain).copied().unwrap_or(0), expected, "{:?}", terrain);
        }
        let coords: HashSet<HexCoord> = board.hexes.iter().map(|h| h.coord).collect();
        prop_assert_eq!(coords.len(), 19);
        prop_assert!(coords.iter().all(|c| c.is_land()));
    }

    #[test]
    fn token_values_are_the_standard_set(seed in any::<u64>()) {
        let board = generate_board(seed);
        let mut values: Vec<u8> = board.hexes.iter().filter_map(|h| h.token).map(|t| t.value).collect();
        values.sort_unstable();
        let mut standard = TOKEN_VALUES.to_vec();
        standard.sort_unstable();
        prop_assert_eq!(values, standard);
        // Each letter once, carrying the value printed on that letter's token.
        let tokens: Vec<Token> = board.hexes_in_token_order().iter().filter_map(|h| h.token).collect();
        let letters: String = tokens.iter().map(|t| t.letter).collect();
        prop_assert_eq!(letters, "ABCDEFGHIJKLMNOPQR");
        for (token, expected) in tokens.iter().zip(TOKEN_VALUES) {
            prop_assert_eq!(token.value, expected, "token {}", token.letter);
        }
    }

    #[test]
    fn tokens_follow_a_counter_clockwise_spiral_from_the_start_corner(seed in any::<u64>()) {
        let board = generate_board(seed);
        let corner = board.spiral_start_corner;
        prop_assert!(outer_corners().contains(&corner));
        let desert = board.desert().coord;
        let path: Vec<HexCoord> = board.hexes_in_token_order().iter().map(|h| h.coord).collect();

        // A on the corner, or on the next hex counter-clockwise when the desert is there.
        if desert == corner {
            prop_assert!(path[0].is_adjacent(corner));
            prop_assert_eq!(path[0].ring(), 2);
            prop_assert!(turns_counter_clockwise(corner, path[0]));
        } else {
            prop_assert_eq!(path[0], corner);
        }
        let outer_tokens = path.iter().filter(|c| c.ring() == 2).count();
        prop_assert_eq!(outer_tokens, if desert.ring() == 2 { 11 } else { 12 });

        for pair in path.windows(2) {
            let (from, to) = (pair[0], pair[1]);
            // Outer ring, then inner ring, then centre.
            prop_assert!(to.ring() <= from.ring(), "{:?} -> {:?}", from, to);
            // Next door, unless the desert was skipped between them.
            let skipped_desert = desert.is_adjacent(from) && desert.is_adjacent(to);
            prop_assert!(from.is_adjacent(to) || skipped_desert, "{:?} -> {:?}", from, to);
            if from.ring() == to.ring() {
                prop_assert!(turns_counter_clockwise(from, to), "{:?} -> {:?}", from, to);
            }
        }
    }

    #[test]
    fn the_desert_has_no_token_and_holds_the_robber(seed in any::<u64>()) {
        let board = generate_board(seed);
        let desert = board.desert();
        prop_assert_eq!(desert.token, None);
        prop_assert_eq!(board.robber, desert.coord);
        prop_assert!(board.hexes.iter().filter(|h| h.terrain != Terrain::Desert).all(|h| h.token.is_some()));
    }

    #[test]
    fn the_same_seed_gives_the_same_board(seed in any::<u64>()) {
        prop_assert_eq!(generate_board(seed), generate_board(seed));
    }
}

#[test]
fn different_seeds_give_different_boards() {
    let boards: Vec<Board> = (0..40).map(generate_board).collect();
    for (i, a) in boards.iter().enumerate() {
        for b in &boards[i + 1..] {
            assert_ne!(a.hexes, b.hexes, "seeds {} and {}", a.seed, b.seed);
        }
    }
}

#[test]
fn the_desert_lands_anywhere_and_the_spiral_starts_at_any_corner() {
    let boards: Vec<Board> = (0..400).map(generate_board).collect();
    let desert_places: HashSet<HexCoord> = boards.iter().map(|b| b.desert().coord).collect();
    assert_eq!(
        desert_places.len(),
        19,
        "the desert is drawn like any other tile"
    );
    let corners: HashSet<HexCoord> = boards.iter().map(|b| b.spiral_start_corner).collect();
    assert_eq!(corners.len(), 6);
}

#[test]
fn the_layout_is_columns_of_3_4_5_4_3_laid_middle_right_left_right_left() {
    let board = generate_board(7);
    let mut by_order = board.hexes.clone();
    by_order.sort_by_key(|h| h.lay_order);
    let orders: Vec<u8> = by_order.iter().map(|h| h.lay_order).collect();
    assert_eq!(orders, (0..19).collect::<Vec<u8>>());

    let laid_columns: Vec<u8> = by_order.iter().map(|h| h.column).collect();
    let expected_columns: Vec<u8> = [(2, 5), (3, 4), (1, 4), (4, 3), (0, 3)]
        .into_iter()
        .flat_map(|(column, size)| std::iter::repeat_n(column, size))
        .collect();
    assert_eq!(laid_columns, expected_columns);

    for column in 0..5u8 {
        let mut hexes: Vec<&Hex> = by_order.iter().filter(|h| h.column == column).collect();
        // Laid bottom up: each tile goes just above the previous one.
        for pair in hexes.windows(2) {
            assert_eq!(pair[1].row + 1, pair[0].row);
            assert_eq!(pair[1].coord.q, pair[0].coord.q);
            assert!(pair[1].coord.is_adjacent(pair[0].coord));
            assert!(plane_position(pair[1].coord).1 > plane_position(pair[0].coord).1);
        }
        hexes.sort_by_key(|h| h.row);
        assert_eq!(hexes[0].row, 0);
    }
    // Columns run left to right on the board.
    for pair in by_order.windows(2) {
        let (a, b) = (&pair[0], &pair[1]);
        let (ax, bx) = (plane_position(a.coord).0, plane_position(b.coord).0);
        assert_eq!(a.column.cmp(&b.column), ax.partial_cmp(&bx).unwrap());
    }
}

#[test]
fn harbours_are_the_standard_nine_on_every_other_frame_hex() {
    let board = generate_board(3);
    assert_eq!(
        board.harbours,
        generate_board(4).harbours,
        "harbours do not move"
    );
    assert_eq!(board.harbours.len(), 9);

    let generic = board
        .harbours
        .iter()
        .filter(|h| h.kind == HarbourKind::Generic)
        .count();
    assert_eq!(generic, 4);
    let special: HashSet<Resource> = board
        .harbours
        .iter()
        .filter_map(|h| match h.kind {
            HarbourKind::Special(resource) => Some(resource),
            HarbourKind::Generic => None,
        })
        .collect();
    assert_eq!(special.len(), 5, "one 2:1 harbour per resource");

    let mut vertices = HashSet::new();
    for harbour in &board.harbours {
        assert_eq!(harbour.sea.ring(), 3);
        assert_eq!(harbour.land.ring(), 2);
        assert!(harbour.sea.is_adjacent(harbour.land));
        for vertex in harbour.vertices {
            assert!(vertex.hexes.contains(&harbour.sea) && vertex.hexes.contains(&harbour.land));
            let [a, b, c] = vertex.hexes;
            assert!(a.is_adjacent(b) && b.is_adjacent(c) && a.is_adjacent(c));
            assert!(vertices.insert(vertex), "two harbours share {vertex:?}");
        }
    }

    // Walking the 18 frame hexes round, harbours alternate with plain sea.
    let frame = ring_counter_clockwise(3, 0);
    assert_eq!(frame.len(), 18);
    let with_harbour: Vec<bool> = frame
        .iter()
        .map(|sea| board.harbours.iter().any(|h| h.sea == *sea))
        .collect();
    for pair in with_harbour.windows(2) {
        assert_ne!(pair[0], pair[1]);
    }
}

/// No "6 and 8 apart" check or re-deal exists: the standard letter order laid on the spiral
/// keeps them apart by itself, wherever the desert and the start corner fall.
#[test]
fn the_spiral_alone_keeps_6_and_8_apart_for_every_corner_and_desert_place() {
    for corner in 0..6 {
        for desert in spiral_from_corner(corner) {
            let producing = spiral_from_corner(corner)
                .into_iter()
                .filter(|c| *c != desert);
            let reds: Vec<HexCoord> = producing
                .zip(TOKEN_VALUES)
                .filter(|(_, value)| *value == 6 || *value == 8)
                .map(|(coord, _)| coord)
                .collect();
            assert_eq!(reds.len(), 4);
            for a in &reds {
                assert!(
                    reds.iter().all(|b| !a.is_adjacent(*b)),
                    "corner {corner}, desert {desert:?}"
                );
            }
        }
    }
}

#[test]
fn token_pips_count_the_ways_to_roll_the_value() {
    for value in [2u8, 3, 4, 5, 6, 8, 9, 10, 11, 12] {
        let ways = (1..=6u8)
            .flat_map(|a| (1..=6u8).map(move |b| a + b))
            .filter(|sum| *sum == value)
            .count();
        assert_eq!(usize::from(Token { letter: 'A', value }.pips()), ways);
    }
}

#[test]
fn a_board_round_trips_through_json() {
    let board = generate_board(11);
    let json = serde_json::to_string(&board).unwrap();
    assert!(json.contains("\"terrain\":\"desert\""));
    let back: Board = serde_json::from_str(&json).unwrap();
    assert_eq!(back, board);
}

#[test]
fn duplicate_play_gives_every_table_of_a_round_the_same_board_and_otherwise_each_its_own() {
    let round_seed = 8_675_309;
    let same: Vec<u64> = (1..=6)
        .map(|t| table_board_seed(round_seed, t, BoardMode::SameForRound))
        .collect();
    assert!(same.iter().all(|&s| s == same[0]));
    let each: std::collections::HashSet<u64> = (1..=6)
        .map(|t| table_board_seed(round_seed, t, BoardMode::EachTable))
        .collect();
    assert_eq!(each.len(), 6);
    assert_ne!(
        generate_board(table_board_seed(round_seed, 1, BoardMode::EachTable)),
        generate_board(table_board_seed(round_seed, 2, BoardMode::EachTable))
    );
    // The board does not reuse the pairing's seed as it is.
    assert_ne!(
        table_board_seed(round_seed, 0, BoardMode::SameForRound),
        round_seed
    );
}
