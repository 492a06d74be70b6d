//! The bodies lately served, each kept in the slot it answers (an event's view, a page of a
//! season's table) with the `ETag` the store holds for it. A read asks the store for the `ETag`
//! only and fetches the body (a large text that PostgreSQL keeps compressed out of line, or a
//! page joined from many rows) only when the store's `ETag` is not the one cached, so the store
//! stays the one truth and a replica's cache can never serve what the store has replaced.

use crate::seasons::read::Format;
use crate::store::View;
use actix_web::HttpRequest;
use actix_web::web::Bytes;
use catan_kit::ApiError;
use catan_kit::conditional::{self, Encoded};
use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};
use uuid::Uuid;

/// At most this many bytes of bodies are kept; past it the cache starts again empty, which
/// costs each slot one fetch of its body.
const CAPACITY_BYTES: usize = 128 * 1024 * 1024;

/// What a cached body answers.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Slot {
    Event(Uuid, View),
    SeasonPage {
        season: Uuid,
        region: Option<Uuid>,
        bounds: (i64, i64),
        format: Format,
    },
}

/// A body as served, with what its answer says besides: how many rows a page holds.
#[derive(Debug, Clone)]
pub struct Served {
    pub body: Encoded,
    pub rows: usize,
}

#[derive(Default)]
pub struct ServedCache {
    inner: Mutex<Entries>,
}

#[derive(Default)]
struct Entries {
    bodies: HashMap<Slot, (String, Served)>,
    bytes: usize,
}

/// A version as answered: its `ETag`, its body (empty to a client that holds it already), and
/// whether a producer cannot be read just now.
pub type Answer = (String, Served, bool);

impl ServedCache {
    /// What to answer for `slot`, whose version in the store is `etag`: no body to a client that
    /// holds that version, the body kept for it, or else the body `fetch` reads from the store
    /// (which may by then hold a newer version), kept for the next read.
    pub async fn answer<Fetch, Fetched>(
        &self,
        request: &HttpRequest,
        slot: Slot,
        (etag, behind): (String, bool),
        fetch: Fetch,
    ) -> Result<Answer, ApiError>
    where
        Fetch: FnOnce() -> Fetched,
        Fetched: std::future::Future<Output = Result<Answer, ApiError>>,
    {
        if conditional::not_modified(request, &etag) {
            let nothing = Served {
                body: Encoded::new(Bytes::new()),
                rows: 0,
            };
            return Ok((etag, nothing, behind));
        }
        if let Some(served) = self.get(&slot, &etag) {
            return Ok((etag, served, behind));
        }
        let (etag, served, behind) = fetch().await?;
        self.put(slot, etag.clone(), served.clone());
        Ok((etag, served, behind))
    }

    /// The cached body of `slot` when it is the one whose `ETag` is `etag`.
    pub fn get(&self, slot: &Slot, etag: &str) -> Option<Served> {
        let entries = self.inner.lock().unwrap_or_else(PoisonError::into_inner);
        entries
            .bodies
            .get(slot)
            .filter(|(cached, _)| cached == etag)
            .map(|(_, served)| served.clone())
    }

    /// Keeps `served`, whose `ETag` is `etag`, in `slot`.
    pub fn put(&self, slot: Slot, etag: String, served: Served) {
        let mut entries = self.inner.lock().unwrap_or_else(PoisonError::into_inner);
        let size = served.body.kept_bytes();
        if entries.bytes + size > CAPACITY_BYTES {
            entries.bodies.clear();
            entries.bytes = 0;
        }
        entries.bytes += size;
        if let Some((_, replaced)) = entries.bodies.insert(slot, (etag, served)) {
            entries.bytes -= replaced.body.kept_bytes();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn served(body: &'static str) -> Served {
        Served {
            body: Encoded::new(Bytes::from_static(body.as_bytes())),
            rows: 0,
        }
    }

    #[test]
    fn a_body_is_served_only_for_the_etag_it_was_kept_with() {
        let cache = ServedCache::default();
        let standings = Slot::Event(Uuid::new_v4(), View::Standings);
        let body = |s: Option<Served>| s.map(|s| s.body.identity().clone());
        assert!(cache.get(&standings, "\"a\"").is_none());
        cache.put(standings.clone(), "\"a\"".into(), served("old"));
        assert_eq!(
            body(cache.get(&standings, "\"a\"")),
            Some(Bytes::from("old"))
        );
        assert!(cache.get(&standings, "\"b\"").is_none(), "replaced");
        let Slot::Event(event, _) = standings else {
            unreachable!()
        };
        assert!(
            cache
                .get(&Slot::Event(event, View::Placements), "\"a\"")
                .is_none()
        );
        cache.put(standings.clone(), "\"b\"".into(), served("new"));
        assert_eq!(
            body(cache.get(&standings, "\"b\"")),
            Some(Bytes::from("new"))
        );
        assert_eq!(
            cache.inner.lock().unwrap().bytes,
            3,
            "the replaced body is not counted"
        );
    }
}
