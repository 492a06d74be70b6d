//! Numbers in paths: a round's or a table's number, as the contract states it (a 32-bit integer,
//! not negative). A path with a larger one names nothing: 404, like any path that does not parse.

use serde::{Deserialize, Deserializer};

/// A round's or a table's number in a path: 0 to 2³¹ − 1, what the stores keep.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ordinal(pub u32);

impl<'de> Deserialize<'de> for Ordinal {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let number = u32::deserialize(deserializer)?;
        if i32::try_from(number).is_err() {
            return Err(serde::de::Error::custom(format!(
                "{number} is larger than any round or table number"
            )));
        }
        Ok(Ordinal(number))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_past_a_32_bit_integer_name_no_round_or_table() {
        let parse = |text: &str| serde_json::from_str::<Ordinal>(text).ok();
        assert_eq!(parse("0"), Some(Ordinal(0)));
        assert_eq!(parse("2147483647"), Some(Ordinal(2_147_483_647)));
        assert_eq!(parse("2147483648"), None);
        assert_eq!(parse("-1"), None);
    }
}
