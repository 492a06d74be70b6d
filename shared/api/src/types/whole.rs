//! Whole numbers as JSON Schema's `integer` has them: `12` and `12.0` are the same integer, and
//! `12.5` is none. serde alone refuses `12.0` for an integer field; these read it as 12. Each
//! reader is named after its field, and a refusal names the field, so that the 422 does too.

use serde::de::{self, Deserializer, Visitor};
use std::fmt;

/// Reads a whole number (integer or integral float) as a 128-bit integer.
struct WholeNumber;

/// The largest float below which every integral float is exactly an `i128` we can convert.
const FLOAT_LIMIT: f64 = 9.223_372_036_854_776e18;

impl Visitor<'_> for WholeNumber {
    type Value = i128;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a whole number")
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<i128, E> {
        Ok(i128::from(v))
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<i128, E> {
        Ok(i128::from(v))
    }

    #[allow(
        clippy::cast_possible_truncation,
        reason = "the float is integral and within i64's range, checked first"
    )]
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<i128, E> {
        if v.is_finite() && v.fract() == 0.0 && v.abs() < FLOAT_LIMIT {
            Ok(v as i128)
        } else {
            Err(E::invalid_type(de::Unexpected::Float(v), &self))
        }
    }
}

fn whole<'de, D, T>(deserializer: D, field: &str) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: TryFrom<i128>,
{
    let named = |e: D::Error| de::Error::custom(format!("field `{field}`: {e}"));
    let value = deserializer.deserialize_any(WholeNumber).map_err(named)?;
    T::try_from(value)
        .map_err(|_| de::Error::custom(format!("field `{field}`: {value} is out of range")))
}

fn optional_whole<'de, D, T>(deserializer: D, field: &str) -> Result<Option<T>, D::Error>
where
    D: Deserializer<'de>,
    T: TryFrom<i128>,
{
    struct Present<'a, T>(&'a str, std::marker::PhantomData<T>);
    impl<'de, T: TryFrom<i128>> Visitor<'de> for Present<'_, T> {
        type Value = Option<T>;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("a whole number or null")
        }
        fn visit_none<E: de::Error>(self) -> Result<Option<T>, E> {
            Ok(None)
        }
        fn visit_unit<E: de::Error>(self) -> Result<Option<T>, E> {
            Ok(None)
        }
        fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Option<T>, D::Error> {
            whole(d, self.0).map(Some)
        }
    }
    deserializer.deserialize_option(Present(field, std::marker::PhantomData))
}

macro_rules! whole_fields {
    ($($field:ident: $ty:ty),* $(,)?) => {$(
        pub(crate) fn $field<'de, D: Deserializer<'de>>(d: D) -> Result<$ty, D::Error> {
            whole(d, stringify!($field))
        }
    )*};
}

macro_rules! optional_whole_fields {
    ($($field:ident: $ty:ty),* $(,)?) => {$(
        pub(crate) fn $field<'de, D: Deserializer<'de>>(d: D) -> Result<Option<$ty>, D::Error> {
            optional_whole(d, stringify!($field))
        }
    )*};
}

whole_fields!(vp: i64, settlements: i64, cities: i64, vp_cards: i64, table: u32);

/// Optional fields (absent or `null` for none).
pub(crate) mod optional {
    use super::optional_whole;
    use serde::Deserializer;

    optional_whole_fields!(
        seed: u64,
        qualifying_rounds: i64,
        swiss_rounds: i64,
        team_target_vp: i64,
        minutes_per_game: i64,
        thinking_seconds_per_turn: i64,
        bye_points: i64,
    );
}

#[cfg(test)]
mod tests {
    #[derive(Debug, serde::Deserialize)]
    struct Sheet {
        #[serde(deserialize_with = "super::vp")]
        vp: i64,
        #[serde(default, deserialize_with = "super::optional::seed")]
        seed: Option<u64>,
    }

    fn read(json: &str) -> Result<Sheet, String> {
        serde_json::from_str(json).map_err(|e| e.to_string())
    }

    #[test]
    fn an_integral_float_is_the_integer_it_is() {
        let sheet = read(r#"{"vp": 10.0, "seed": 42.0}"#).unwrap();
        assert_eq!((sheet.vp, sheet.seed), (10, Some(42)));
        let sheet = read(r#"{"vp": -3}"#).unwrap();
        assert_eq!((sheet.vp, sheet.seed), (-3, None));
        assert_eq!(read(r#"{"vp": 1, "seed": null}"#).unwrap().seed, None);
    }

    #[test]
    fn a_fraction_or_another_type_is_refused_naming_the_field() {
        for json in [r#"{"vp": 12.5}"#, r#"{"vp": "12"}"#, r#"{"vp": 1e300}"#] {
            let e = read(json).unwrap_err();
            assert!(e.starts_with("field `vp`: invalid type"), "{json}: {e}");
        }
        let e = read(r#"{"vp": 1, "seed": -1}"#).unwrap_err();
        assert!(e.starts_with("field `seed`: -1 is out of range"), "{e}");
    }
}
