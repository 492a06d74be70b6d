//! Pagination of every list: `limit` (default 100, clamped to 1..=1000) and `offset`. A full page
//! carries a `Link: <...>; rel="next"` header to the next one.

use actix_web::{HttpRequest, HttpResponse};
use serde::{Deserialize, Serialize};
use utoipa::IntoParams;

pub const DEFAULT_LIMIT: i64 = 100;
pub const MAX_LIMIT: i64 = 1000;

#[derive(Debug, Clone, Copy, Default, Deserialize, IntoParams)]
pub struct PageQuery {
    /// Items a page: default 100; values outside 1 to 1000 are clamped into it.
    pub limit: Option<i64>,
    /// Items to skip (default 0; below 0 counts as 0).
    pub offset: Option<i64>,
}

impl PageQuery {
    pub fn limit(&self) -> i64 {
        self.limit.unwrap_or(DEFAULT_LIMIT).clamp(1, MAX_LIMIT)
    }

    pub fn offset(&self) -> i64 {
        self.offset.unwrap_or(0).max(0)
    }

    /// This page of an in-memory list.
    pub fn slice<T>(&self, items: Vec<T>) -> Vec<T> {
        items
            .into_iter()
            .skip(usize::try_from(self.offset()).unwrap_or(usize::MAX))
            .take(usize::try_from(self.limit()).unwrap_or(usize::MAX))
            .collect()
    }
}

/// The page as a JSON array, linking to the next page when this one is full.
pub fn page_response<T: Serialize>(
    request: &HttpRequest,
    page: &PageQuery,
    items: &[T],
) -> HttpResponse {
    paged(request, page, items.len()).json(items)
}

/// A 200 response for a page of `count` items, with a `Link` to the next page when it is full.
pub fn paged(
    request: &HttpRequest,
    page: &PageQuery,
    count: usize,
) -> actix_web::HttpResponseBuilder {
    let mut response = HttpResponse::Ok();
    if count as i64 == page.limit() {
        let next = format!(
            "<{}?limit={}&offset={}>; rel=\"next\"",
            request.path(),
            page.limit(),
            page.offset() + page.limit()
        );
        response.insert_header(("Link", next));
    }
    response
}
