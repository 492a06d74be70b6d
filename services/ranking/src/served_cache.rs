//! The bodies of event views lately served, kept with the `ETag` the store holds for them. A read
//! asks the store for the `ETag` only and fetches the body (a large text that PostgreSQL keeps
//! compressed out of line) only when the store's `ETag` is not the one cached, so the store stays
//! the one truth and a replica's cache can never serve a view the store has replaced.

use crate::store::View;
use actix_web::web::Bytes;
use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};
use uuid::Uuid;

/// At most this many bytes of bodies are kept; past it the cache starts again empty, which
/// costs each event one fetch of its body.
const CAPACITY_BYTES: usize = 128 * 1024 * 1024;

#[derive(Default)]
pub struct ViewCache {
    inner: Mutex<Entries>,
}

#[derive(Default)]
struct Entries {
    bodies: HashMap<(Uuid, View), (String, Bytes)>,
    bytes: usize,
}

impl ViewCache {
    /// The cached body of `event`'s `view` when it is the one whose `ETag` is `etag`.
    pub fn get(&self, event: Uuid, view: View, etag: &str) -> Option<Bytes> {
        let entries = self.inner.lock().unwrap_or_else(PoisonError::into_inner);
        entries
            .bodies
            .get(&(event, view))
            .filter(|(cached, _)| cached == etag)
            .map(|(_, body)| body.clone())
    }

    /// Keeps `body`, whose `ETag` is `etag`, as `event`'s `view`.
    pub fn put(&self, event: Uuid, view: View, etag: String, body: Bytes) {
        let mut entries = self.inner.lock().unwrap_or_else(PoisonError::into_inner);
        if entries.bytes + body.len() > CAPACITY_BYTES {
            entries.bodies.clear();
            entries.bytes = 0;
        }
        entries.bytes += body.len();
        if let Some((_, replaced)) = entries.bodies.insert((event, view), (etag, body)) {
            entries.bytes -= replaced.len();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_body_is_served_only_for_the_etag_it_was_kept_with() {
        let cache = ViewCache::default();
        let event = Uuid::new_v4();
        assert_eq!(cache.get(event, View::Standings, "\"a\""), None);
        cache.put(event, View::Standings, "\"a\"".into(), Bytes::from("old"));
        assert_eq!(
            cache.get(event, View::Standings, "\"a\""),
            Some(Bytes::from("old"))
        );
        assert_eq!(cache.get(event, View::Standings, "\"b\""), None, "replaced");
        assert_eq!(cache.get(event, View::Placements, "\"a\""), None);
        cache.put(event, View::Standings, "\"b\"".into(), Bytes::from("new"));
        assert_eq!(
            cache.get(event, View::Standings, "\"b\""),
            Some(Bytes::from("new"))
        );
        assert_eq!(
            cache.inner.lock().unwrap().bytes,
            3,
            "the replaced body is not counted"
        );
    }
}
