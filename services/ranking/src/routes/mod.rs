//! The ranking service's HTTP surface, one module per resource, readable by anyone: each read
//! serves the read model as stored, with an `ETag`.

mod feeds;
mod placements;
mod players;
mod profile;
mod ratings;
mod seasons;
mod standings;

use crate::progress::{Need, Waits};
use crate::served_cache::{Served, ServedCache, Slot};
use crate::store::{Stored, View};
use actix_web::web::Bytes;
use actix_web::{HttpRequest, HttpResponse};
use catan_kit::conditional::{self, Encoded};
use catan_kit::{ApiError, db};
use uuid::Uuid;

pub fn register(cfg: &mut utoipa_actix_web::service_config::ServiceConfig) {
    standings::register(cfg);
    placements::register(cfg);
    feeds::register(cfg);
    ratings::register(cfg);
    players::register(cfg);
    seasons::register(cfg);
    profile::register(cfg);
}

/// Says in a `Warning` header of `response` when a producer cannot be read just now, so that the
/// read, which still answers with the last state, may be behind.
fn with_freshness(
    mut response: actix_web::HttpResponseBuilder,
    behind: bool,
) -> actix_web::HttpResponseBuilder {
    if behind {
        response.insert_header((
            "Warning",
            "110 - \"a producer of the read model is unreachable; this may be out of date\"",
        ));
    }
    response
}

/// What `read` finds in the read model once `need` includes the request's writes (`waits`), with
/// an `ETag`, saying when a producer cannot be read just now; a 404 saying `missing` when it
/// finds nothing, even once the follower read the feeds again.
async fn serve_read<T, F>(
    state: &crate::State,
    request: &HttpRequest,
    waits: &Waits,
    need: Need,
    read: F,
    missing: String,
) -> Result<HttpResponse, ApiError>
where
    F: Fn(&mut diesel::PgConnection) -> Result<Option<T>, ApiError> + Send + Clone + 'static,
    T: serde::Serialize + Send + 'static,
{
    let (found, behind) = waits
        .found(&need, || {
            let read = read.clone();
            async move {
                let (found, behind) = db::run(&state.pool, move |conn| {
                    Ok((read(conn)?, crate::store::behind(conn)?))
                })
                .await?;
                Ok(found.map(|found| (found, behind)))
            }
        })
        .await?
        .ok_or(ApiError::NotFound(missing))?;
    conditional::respond_json(request, with_freshness(HttpResponse::Ok(), behind), &found)
}

/// One event's stored view, answered as it is stored (or `304` to a client that has it) once it
/// includes the request's writes. The store is asked for the view's `ETag` first; the body is
/// fetched only when neither the client nor this replica's cache holds the body of that `ETag`.
async fn serve_view(
    state: &crate::State,
    cache: &ServedCache,
    request: &HttpRequest,
    waits: &Waits,
    event_id: Uuid,
    view: View,
) -> Result<HttpResponse, ApiError> {
    let unknown = || ApiError::NotFound(format!("no event {event_id} is known to ranking"));
    let stored = waits
        .found(&Need::Event(event_id), || {
            db::run(&state.pool, move |conn| {
                crate::store::stored_etag(conn, event_id, view)
            })
        })
        .await?
        .ok_or_else(unknown)?;
    let fetch = || async move {
        let Stored { body, etag, behind } = db::run(&state.pool, move |conn| {
            crate::store::stored(conn, event_id, view)
        })
        .await?
        .ok_or_else(unknown)?;
        let body = Encoded::new(Bytes::from(body));
        Ok((etag, Served { body, rows: 0 }, behind))
    };
    let (etag, served, behind) = cache
        .answer(request, Slot::Event(event_id, view), stored, fetch)
        .await?;
    Ok(conditional::respond_encoded(
        request,
        with_freshness(HttpResponse::Ok(), behind),
        &etag,
        "application/json",
        &served.body,
    ))
}
