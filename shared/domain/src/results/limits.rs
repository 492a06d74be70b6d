//! What the base game makes possible: the VP range, a player's supply and the shared cards.

/// Fewest VP anyone can have: the two settlements every player places at the start.
pub const MIN_VP: i64 = 2;
/// Most VP the base game allows: 5 settlements, 4 cities, 5 VP cards and both 2-VP cards.
pub const MAX_VP: i64 = 22;
/// VP needed to win, and the VP credited to a winner.
pub const WINNING_VP: u8 = 10;
/// Most VP credited to anyone who did not win the game.
pub const MAX_CREDIT_WITHOUT_WIN: u8 = 9;
/// Settlements in a player's supply.
pub const MAX_SETTLEMENTS: i64 = 5;
/// Cities in a player's supply.
pub const MAX_CITIES: i64 = 4;
/// Victory-point cards in the development deck, shared by the whole table.
pub const VP_CARDS_IN_DECK: i64 = 5;
/// Buildings on the board that no player can lose: the two settlements of the set-up.
pub const MIN_BUILDINGS: i64 = 2;
/// What the longest road and the largest army are each worth.
pub const SPECIAL_CARD_VP: i64 = 2;
