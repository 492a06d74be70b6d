//! Pagination of every list: `limit` (default 100, clamped to 1..=1000) and `offset`. A full page
//! carries a `Link: <...>; rel="next"` header to the next one.

use actix_web::dev::Payload;
use actix_web::{FromRequest, HttpRequest, HttpResponse, HttpResponseBuilder, web};
use futures_util::future::LocalBoxFuture;
use serde::{Deserialize, Serialize};
use utoipa::IntoParams;

pub const DEFAULT_LIMIT: i64 = 100;
pub const MAX_LIMIT: i64 = 1000;

#[derive(Debug, Clone, Copy, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct PageQuery {
    /// Items a page: default 100; values outside 1 to 1000 are clamped into it.
    #[param(nullable)]
    pub limit: Option<i64>,
    /// Items to skip (default 0; below 0 counts as 0).
    #[param(nullable)]
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

/// The page a list request asks for (its `limit` and `offset`), with the path its `Link` to the
/// next page points at.
pub struct Page {
    query: PageQuery,
    path: String,
}

impl FromRequest for Page {
    type Error = actix_web::Error;
    type Future = LocalBoxFuture<'static, Result<Self, Self::Error>>;

    fn from_request(req: &HttpRequest, payload: &mut Payload) -> Self::Future {
        let query = web::Query::<PageQuery>::from_request(req, payload);
        let path = req.path().to_owned();
        Box::pin(async move {
            Ok(Page {
                query: query.await?.into_inner(),
                path,
            })
        })
    }
}

impl Page {
    pub fn query(&self) -> PageQuery {
        self.query
    }

    /// This page of an in-memory list.
    pub fn slice<T>(&self, items: Vec<T>) -> Vec<T> {
        self.query.slice(items)
    }

    /// This page of `items` as a JSON array.
    pub fn respond<T: Serialize>(&self, items: &[T]) -> HttpResponse {
        self.response(items.len()).json(items)
    }

    /// A 200 response for a page of `count` items, with a `Link` to the next page when it is full.
    pub fn response(&self, count: usize) -> HttpResponseBuilder {
        let mut response = HttpResponse::Ok();
        let limit = self.query.limit();
        if i64::try_from(count) == Ok(limit) {
            let next = format!(
                "<{}?limit={limit}&offset={}>; rel=\"next\"",
                self.path,
                self.query.offset() + limit
            );
            response.insert_header(("Link", next));
        }
        response
    }
}
