//! Pages kept as rendered. A page drawn from one API answer (a season's table) is kept with that
//! answer's `ETag`; the next visit asks the API with `If-None-Match`, and while the API answers
//! `304` and the other reads the page shows are the ones it was drawn with, the visit is served
//! the kept page: no body crosses the network, nothing is decoded and nothing is drawn.

use actix_web::web::Bytes;
use std::any::Any;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// A cached read as [`crate::State::cached`] answers it.
pub type Shared = Arc<dyn Any + Send + Sync>;

/// A page as rendered, and what it was drawn from.
pub struct KeptPage<T> {
    /// The `ETag` of the API's answer the page was drawn from.
    pub source_etag: String,
    /// That answer, to draw the page again when only the other reads changed.
    pub source: Arc<T>,
    /// The other reads it was drawn with, as the cache answered them: a read the cache has
    /// made again since is another `Arc`, and the page is drawn again.
    pub others: Vec<Shared>,
    /// The whole HTML document.
    pub html: Bytes,
    /// The page's own `ETag`, for the visitor's conditional GET.
    pub etag: String,
}

impl<T> KeptPage<T> {
    /// Whether the page was drawn with exactly these other reads.
    pub fn drawn_with(&self, others: &[Shared]) -> bool {
        self.others.len() == others.len()
            && self
                .others
                .iter()
                .zip(others)
                .all(|(a, b)| Arc::ptr_eq(a, b))
    }
}

/// Pages kept at most; past it the store starts again empty.
const PAGES: usize = 1024;

/// The kept pages, each under its language and its path and query.
#[derive(Default)]
pub struct KeptPages {
    pages: Mutex<HashMap<String, Shared>>,
}

impl KeptPages {
    /// The page kept under `key`, if it is a page drawn from a `T`.
    pub fn get<T: Send + Sync + 'static>(&self, key: &str) -> Option<Arc<KeptPage<T>>> {
        let pages = self.pages.lock().unwrap_or_else(|e| e.into_inner());
        pages.get(key).cloned()?.downcast::<KeptPage<T>>().ok()
    }

    pub fn keep<T: Send + Sync + 'static>(&self, key: String, page: KeptPage<T>) {
        let mut pages = self.pages.lock().unwrap_or_else(|e| e.into_inner());
        if pages.len() >= PAGES {
            pages.clear();
        }
        pages.insert(key, Arc::new(page));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn page(others: Vec<Shared>) -> KeptPage<u32> {
        KeptPage {
            source_etag: "\"t1\"".into(),
            source: Arc::new(7),
            others,
            html: Bytes::from_static(b"<p>7</p>"),
            etag: "\"p1\"".into(),
        }
    }

    #[test]
    fn a_page_is_found_under_its_key_as_the_type_it_was_drawn_from() {
        let pages = KeptPages::default();
        pages.keep("en /seasons/1".into(), page(vec![]));
        let kept = pages.get::<u32>("en /seasons/1").expect("kept");
        assert_eq!(*kept.source, 7);
        assert!(pages.get::<u32>("es /seasons/1").is_none(), "another key");
        assert!(
            pages.get::<String>("en /seasons/1").is_none(),
            "another type"
        );
    }

    #[test]
    fn a_page_is_stale_once_a_read_it_shows_was_made_again() {
        let season: Shared = Arc::new("season".to_string());
        let regions: Shared = Arc::new(vec![1, 2]);
        let kept = page(vec![season.clone(), regions.clone()]);
        assert!(kept.drawn_with(&[season.clone(), regions]));
        let regions_again: Shared = Arc::new(vec![1, 2]);
        assert!(!kept.drawn_with(&[season.clone(), regions_again]));
        assert!(!kept.drawn_with(&[season]));
    }
}
