//! The board for one table, set up the tournament way and reproducible from a seed.
//!
//! Geometry: flat-topped hexes in axial coordinates `(q, r)` (cube `s = -q - r`), centre
//! `(0, 0)`. A column is a constant `q`; on screen `r` grows downwards. The 19 land hexes
//! are laid by the 5-4-3 method: the middle column of 5, then a column of 4 on the right and
//! one on the left, then a column of 3 on the right and one on the left, each column from
//! the bottom up. Number tokens follow a counter-clockwise spiral from a corner of the
//! outer ring, skipping the desert. Harbours sit in the standard frame positions (the
//! beginner's map of the base game, turned a quarter so that its rows become our columns).

mod svg;

pub use svg::render_svg;

use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

/// A land terrain; each but the desert produces one resource.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Terrain {
    Forest,
    Pasture,
    Fields,
    Hills,
    Mountains,
    Desert,
}

impl Terrain {
    /// What the terrain produces; the desert produces nothing.
    pub fn resource(self) -> Option<Resource> {
        match self {
            Terrain::Forest => Some(Resource::Lumber),
            Terrain::Pasture => Some(Resource::Wool),
            Terrain::Fields => Some(Resource::Grain),
            Terrain::Hills => Some(Resource::Brick),
            Terrain::Mountains => Some(Resource::Ore),
            Terrain::Desert => None,
        }
    }
}

/// A resource card kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Resource {
    Lumber,
    Wool,
    Grain,
    Brick,
    Ore,
}

/// The 19 land tiles of the base game.
pub const LAND_TILES: [(Terrain, usize); 6] = [
    (Terrain::Forest, 4),
    (Terrain::Pasture, 4),
    (Terrain::Fields, 4),
    (Terrain::Hills, 3),
    (Terrain::Mountains, 3),
    (Terrain::Desert, 1),
];

/// Token values in letter order A..R, as printed on the standard tokens.
pub const TOKEN_VALUES: [u8; 18] = [5, 2, 6, 3, 8, 10, 9, 12, 11, 4, 8, 10, 9, 4, 5, 6, 3, 11];

/// Axial coordinates of a flat-topped hex; `(0, 0)` is the centre of the board.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, Default,
)]
pub struct HexCoord {
    pub q: i32,
    pub r: i32,
}

/// The six neighbour offsets in counter-clockwise order as seen on the board (screen `y`
/// down), starting with up-right.
const DIRECTIONS: [HexCoord; 6] = [
    HexCoord { q: 1, r: -1 },
    HexCoord { q: 0, r: -1 },
    HexCoord { q: -1, r: 0 },
    HexCoord { q: -1, r: 1 },
    HexCoord { q: 0, r: 1 },
    HexCoord { q: 1, r: 0 },
];

impl HexCoord {
    pub const CENTRE: HexCoord = HexCoord { q: 0, r: 0 };

    pub const fn new(q: i32, r: i32) -> Self {
        HexCoord { q, r }
    }

    /// The third cube coordinate.
    pub const fn s(self) -> i32 {
        -self.q - self.r
    }

    /// Hex distance to the centre: 0 centre, 1 inner ring, 2 outer land ring, 3 sea frame.
    pub fn ring(self) -> u32 {
        self.q
            .unsigned_abs()
            .max(self.r.unsigned_abs())
            .max(self.s().unsigned_abs())
    }

    pub fn distance(self, other: HexCoord) -> u32 {
        HexCoord::new(self.q - other.q, self.r - other.r).ring()
    }

    pub fn is_adjacent(self, other: HexCoord) -> bool {
        self.distance(other) == 1
    }

    pub fn neighbours(self) -> [HexCoord; 6] {
        DIRECTIONS.map(|d| self + d)
    }

    /// Whether the hex is one of the 19 land hexes.
    pub fn is_land(self) -> bool {
        self.ring() <= 2
    }

    fn scaled(self, factor: i32) -> HexCoord {
        HexCoord::new(self.q * factor, self.r * factor)
    }
}

impl std::ops::Add for HexCoord {
    type Output = HexCoord;
    fn add(self, other: HexCoord) -> HexCoord {
        HexCoord::new(self.q + other.q, self.r + other.r)
    }
}

/// A vertex (intersection), named by the three hexes (land or sea) that meet there,
/// sorted so that each vertex has exactly one name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Vertex {
    pub hexes: [HexCoord; 3],
}

impl Vertex {
    pub fn new(a: HexCoord, b: HexCoord, c: HexCoord) -> Self {
        let mut hexes = [a, b, c];
        hexes.sort();
        Vertex { hexes }
    }
}

/// A number token: its letter (A..R, the order of placement) and its value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Token {
    pub letter: char,
    pub value: u8,
}

impl Token {
    /// 6 and 8, the most frequent rolls, printed in red.
    pub fn is_red(self) -> bool {
        self.value == 6 || self.value == 8
    }

    /// Number of ways two dice roll the value (the dots printed under the number).
    pub fn pips(self) -> u8 {
        6 - self.value.abs_diff(7)
    }
}

/// One land hex as laid on the table.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Hex {
    pub coord: HexCoord,
    /// 0..5 from left to right (columns of 3, 4, 5, 4, 3 hexes).
    pub column: u8,
    /// 0 is the top hex of its column.
    pub row: u8,
    /// 0..19: when the tile was laid by the 5-4-3 method.
    pub lay_order: u8,
    pub terrain: Terrain,
    pub token: Option<Token>,
}

/// What a harbour trades.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum HarbourKind {
    /// 3 identical cards for 1 of any kind.
    Generic,
    /// 2 cards of this resource for 1 of any kind.
    Special(Resource),
}

impl HarbourKind {
    /// How many cards are given for one.
    pub fn ratio(self) -> u8 {
        match self {
            HarbourKind::Generic => 3,
            HarbourKind::Special(_) => 2,
        }
    }
}

/// A harbour on the sea frame, serving the two coastal vertices of the edge it faces.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Harbour {
    pub kind: HarbourKind,
    /// The frame (sea) hex the harbour is printed on.
    pub sea: HexCoord,
    /// The land hex across the served edge.
    pub land: HexCoord,
    pub vertices: [Vertex; 2],
}

/// A table's board.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Board {
    /// The seed it was generated from, so the board can be re-created.
    pub seed: u64,
    /// The 19 land hexes in the order they were laid.
    pub hexes: Vec<Hex>,
    pub harbours: Vec<Harbour>,
    pub robber: HexCoord,
    /// The outer-ring corner hex where the token spiral starts (token A, unless it is the
    /// desert, in which case A goes on the next hex).
    pub spiral_start_corner: HexCoord,
}

impl Board {
    pub fn hex(&self, coord: HexCoord) -> Option<&Hex> {
        self.hexes.iter().find(|hex| hex.coord == coord)
    }

    #[expect(
        clippy::expect_used,
        reason = "generate_board lays every tile of LAND_TILES, which hold one desert"
    )]
    pub fn desert(&self) -> &Hex {
        self.hexes
            .iter()
            .find(|hex| hex.terrain == Terrain::Desert)
            .expect("a generated board has a desert")
    }

    /// Hexes carrying a token, in letter order (A first).
    pub fn hexes_in_token_order(&self) -> Vec<&Hex> {
        let mut with_token: Vec<&Hex> = self.hexes.iter().filter(|h| h.token.is_some()).collect();
        with_token.sort_by_key(|h| h.token.map(|t| t.letter));
        with_token
    }
}

/// Land hexes in the order the 5-4-3 method lays them: columns `q = 0, 1, -1, 2, -2`
/// (middle, right, left, right, left), each from the bottom (largest `r`) up.
pub fn lay_order() -> Vec<HexCoord> {
    [0, 1, -1, 2, -2]
        .into_iter()
        .flat_map(|q| column_rows(q).rev().map(move |r| HexCoord::new(q, r)))
        .collect()
}

/// The `r` values of land column `q`, top to bottom.
fn column_rows(q: i32) -> std::ops::RangeInclusive<i32> {
    (-2).max(-2 - q)..=2.min(2 - q)
}

/// A land hex's column (`q + 2`) or row in its column (`r` minus the column's top `r`), as
/// [`Hex`] stores them.
#[expect(
    clippy::cast_possible_truncation,
    reason = "the land columns are q = -2..=2 and a column has at most 5 rows: offsets are 0..=4"
)]
fn board_offset(offset: i32) -> u8 {
    offset as u8
}

/// Where the desert was laid.
#[expect(
    clippy::expect_used,
    reason = "every tile of LAND_TILES is laid, and they hold one desert"
)]
fn desert_of(placed: &[(HexCoord, Terrain)]) -> HexCoord {
    placed
        .iter()
        .find(|(_, t)| *t == Terrain::Desert)
        .map(|(c, _)| *c)
        .expect("one desert tile")
}

/// The six corner hexes of the outer land ring.
pub fn outer_corners() -> [HexCoord; 6] {
    DIRECTIONS.map(|d| d.scaled(2))
}

/// The ring of the given radius walked counter-clockwise from `radius * DIRECTIONS[start]`.
fn ring_counter_clockwise(radius: i32, start: usize) -> Vec<HexCoord> {
    let mut hex = DIRECTIONS[start].scaled(radius);
    let mut ring = Vec::with_capacity(6 * radius as usize);
    for side in 0..6 {
        // Two directions on from the start direction runs along the ring's side.
        let step = DIRECTIONS[(start + 2 + side) % 6];
        for _ in 0..radius {
            ring.push(hex);
            hex = hex + step;
        }
    }
    ring
}

/// All 19 land hexes in spiral order: the outer ring counter-clockwise from the corner
/// `2 * DIRECTIONS[corner]`, then the inner ring from the hex just inside it, then the centre.
/// Consecutive hexes are adjacent.
pub fn spiral_from_corner(corner: usize) -> Vec<HexCoord> {
    let mut spiral = ring_counter_clockwise(2, corner);
    spiral.extend(ring_counter_clockwise(1, corner));
    spiral.push(HexCoord::CENTRE);
    spiral
}

/// The standard harbours: kind, frame hex, and direction index towards the land it faces.
const STANDARD_HARBOURS: [(HarbourKind, HexCoord, usize); 9] = [
    (HarbourKind::Generic, HexCoord::new(0, -3), 4),
    (
        HarbourKind::Special(Resource::Brick),
        HexCoord::new(2, -3),
        3,
    ),
    (
        HarbourKind::Special(Resource::Lumber),
        HexCoord::new(3, -2),
        3,
    ),
    (HarbourKind::Generic, HexCoord::new(3, 0), 2),
    (
        HarbourKind::Special(Resource::Grain),
        HexCoord::new(1, 2),
        1,
    ),
    (HarbourKind::Special(Resource::Ore), HexCoord::new(-1, 3), 1),
    (HarbourKind::Generic, HexCoord::new(-3, 3), 0),
    (
        HarbourKind::Special(Resource::Wool),
        HexCoord::new(-3, 1),
        5,
    ),
    (HarbourKind::Generic, HexCoord::new(-2, -1), 5),
];

/// The nine harbours in their standard places on the frame.
pub fn standard_harbours() -> Vec<Harbour> {
    STANDARD_HARBOURS
        .iter()
        .map(|&(kind, sea, towards_land)| {
            let land = sea + DIRECTIONS[towards_land];
            // The served edge's two ends are where sea and land meet their two common
            // neighbours, one direction either side of the one towards the land.
            let side_a = sea + DIRECTIONS[(towards_land + 5) % 6];
            let side_b = sea + DIRECTIONS[(towards_land + 1) % 6];
            Harbour {
                kind,
                sea,
                land,
                vertices: [
                    Vertex::new(sea, land, side_a),
                    Vertex::new(sea, land, side_b),
                ],
            }
        })
        .collect()
}

/// Which board the tables of a round play.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub enum BoardMode {
    /// Every table its own board.
    #[default]
    EachTable,
    /// Every table of a round the same board (duplicate play: VP shares compare fairly).
    SameForRound,
}

/// The seed of a table's board, derived from the round's seed so that it can be reproduced, and
/// salted so that it differs from the seed the pairing used.
pub fn table_board_seed(round_seed: u64, table: u32, mode: BoardMode) -> u64 {
    let table = match mode {
        BoardMode::EachTable => u64::from(table),
        BoardMode::SameForRound => 0,
    };
    // splitmix64's finaliser: nearby inputs give unrelated seeds.
    let mut z = round_seed ^ 0xB0A2_D5EE_D5A1_7000 ^ table.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Generates a table's board from a seed: the same seed always gives the same board.
pub fn generate_board(seed: u64) -> Board {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);

    let mut tiles: Vec<Terrain> = LAND_TILES
        .iter()
        .flat_map(|&(terrain, count)| std::iter::repeat_n(terrain, count))
        .collect();
    tiles.shuffle(&mut rng);
    let corner = rng.random_range(0..6);

    let placed: Vec<(HexCoord, Terrain)> = lay_order().into_iter().zip(tiles).collect();
    let desert = desert_of(&placed);

    // The spiral covers the 19 land hexes: the 18 besides the desert take the 18 tokens.
    let tokens: Vec<(HexCoord, Token)> = spiral_from_corner(corner)
        .into_iter()
        .filter(|&coord| coord != desert)
        .zip(TOKEN_VALUES.iter().zip('A'..='R'))
        .map(|(coord, (&value, letter))| (coord, Token { letter, value }))
        .collect();

    let hexes: Vec<Hex> = placed
        .iter()
        .zip(0u8..)
        .map(|(&(coord, terrain), order)| {
            let top = *column_rows(coord.q).start();
            Hex {
                coord,
                column: board_offset(coord.q + 2),
                row: board_offset(coord.r - top),
                lay_order: order,
                terrain,
                token: tokens.iter().find(|(c, _)| *c == coord).map(|(_, t)| *t),
            }
        })
        .collect();

    Board {
        seed,
        hexes,
        harbours: standard_harbours(),
        robber: desert,
        spiral_start_corner: outer_corners()[corner],
    }
}

#[cfg(test)]
mod tests;
