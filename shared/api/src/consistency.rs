//! Read your own writes: the consistency token (`Catan-Position`).
//!
//! Ranking's read model follows the producers' change feeds, so a read right after a write may
//! not include it yet. Every write that ranking follows (registration's, results', and ranking's
//! own season changes) answers a `Catan-Position` header; a ranking read that carries it (the
//! header, or the `position` query parameter for links) answers only once its model includes
//! that write, or 503 with `Retry-After` past a bounded wait, never a body that looks current
//! without it.
//!
//! A token is opaque to clients: send back the last one received, or several separated by
//! commas (the read then waits for all of them). Inside, it is the id of the writing transaction
//! of each producer (0: none), which the feeds are ordered by: a write is in the read model once
//! ranking has read its producer's feed past every transaction below it.

use std::fmt;

/// The response header that carries a write's position, and the request header a read sends
/// it back in.
pub const POSITION_HEADER: &str = "Catan-Position";
/// The query parameter a read takes a position in, for links.
pub const POSITION_QUERY: &str = "position";
/// The tokens of one format version start with it.
const VERSION: &str = "v1";
/// The longest token list a read accepts: a client sends back a few tokens, not a history.
const MOST_TOKENS: usize = 16;

/// A service whose writes ranking's read model takes in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Producer {
    Registration,
    Results,
    /// Ranking's own writes (seasons, joins, declines), which its season tables take in.
    Ranking,
}

impl Producer {
    /// The producer a service is, by its name; `None` for a service ranking does not follow.
    pub fn of_service(name: &str) -> Option<Producer> {
        match name {
            "registration" => Some(Producer::Registration),
            "results" => Some(Producer::Results),
            "ranking" => Some(Producer::Ranking),
            _ => None,
        }
    }
}

/// How far the read model must have come: for each producer, the id of a writing transaction
/// the read must include (0: none).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Position {
    pub registration: u64,
    pub results: u64,
    pub ranking: u64,
}

/// A `Catan-Position` that is not one a write answered.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("not a Catan-Position a write answered: {0:?}")]
pub struct NotAPosition(pub String);

impl Position {
    /// The position of a write of `producer` in transaction `txid`.
    pub fn of(producer: Producer, txid: u64) -> Position {
        let mut position = Position::default();
        match producer {
            Producer::Registration => position.registration = txid,
            Producer::Results => position.results = txid,
            Producer::Ranking => position.ranking = txid,
        }
        position
    }

    /// What a read must include to include both `self` and `other`.
    #[must_use]
    pub fn merge(self, other: Position) -> Position {
        Position {
            registration: self.registration.max(other.registration),
            results: self.results.max(other.results),
            ranking: self.ranking.max(other.ranking),
        }
    }

    /// Whether it asks for nothing.
    pub fn is_empty(&self) -> bool {
        *self == Position::default()
    }

    /// One token or several separated by commas, merged; an empty text is the empty position.
    pub fn parse(text: &str) -> Result<Position, NotAPosition> {
        let refused = || NotAPosition(text.chars().take(100).collect());
        if text.trim().is_empty() {
            return Ok(Position::default());
        }
        let tokens: Vec<&str> = text.split(',').map(str::trim).collect();
        if tokens.len() > MOST_TOKENS {
            return Err(refused());
        }
        tokens
            .into_iter()
            .try_fold(Position::default(), |merged, token| {
                Position::parse_one(token)
                    .map(|p| merged.merge(p))
                    .ok_or_else(refused)
            })
    }

    fn parse_one(token: &str) -> Option<Position> {
        let mut parts = token.split('.');
        if parts.next()? != VERSION {
            return None;
        }
        let mut number = || -> Option<u64> {
            let part = parts.next()?;
            (!part.is_empty() && part.len() <= 20 && part.bytes().all(|b| b.is_ascii_digit()))
                .then(|| part.parse().ok())
                .flatten()
        };
        let position = Position {
            registration: number()?,
            results: number()?,
            ranking: number()?,
        };
        parts.next().is_none().then_some(position)
    }
}

impl fmt::Display for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{VERSION}.{}.{}.{}",
            self.registration, self.results, self.ranking
        )
    }
}

/// The pattern of the header and the query parameter, for the OpenAPI document.
pub const POSITION_PATTERN: &str = r"^\s*(v1\.[0-9]{1,20}\.[0-9]{1,20}\.[0-9]{1,20}\s*(,\s*v1\.[0-9]{1,20}\.[0-9]{1,20}\.[0-9]{1,20}\s*)*)?$";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_token_reads_back_what_it_writes() {
        let position = Position {
            registration: 812,
            results: 0,
            ranking: 9_004,
        };
        assert_eq!(position.to_string(), "v1.812.0.9004");
        assert_eq!(Position::parse(&position.to_string()), Ok(position));
        assert_eq!(Position::parse(""), Ok(Position::default()));
    }

    #[test]
    fn several_tokens_ask_for_each_of_their_writes() {
        let merged = Position::parse("v1.812.0.0, v1.0.77.0,v1.5.3.1").unwrap();
        assert_eq!(
            merged,
            Position {
                registration: 812,
                results: 77,
                ranking: 1
            }
        );
        let a = Position::of(Producer::Results, 10);
        let b = Position::of(Producer::Registration, 4);
        assert_eq!(a.merge(b), b.merge(a));
        assert_eq!(a.merge(a), a);
    }

    #[test]
    fn anything_else_is_refused() {
        for bad in [
            "812",
            "v2.1.2.3",
            "v1.1.2",
            "v1.1.2.3.4",
            "v1.-1.2.3",
            "v1.a.2.3",
            "v1..2.3",
            "v1.1.2.3;v1.1.2.3",
            "v1.1.2.3,",
            ",v1.1.2.3",
            "v1.99999999999999999999.0.0",
        ] {
            assert!(Position::parse(bad).is_err(), "{bad}");
        }
        let many = vec!["v1.1.1.1"; MOST_TOKENS + 1].join(",");
        assert!(Position::parse(&many).is_err());
    }
}
