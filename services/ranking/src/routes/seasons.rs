//! Seasons: their configuration and events (the admin writes them), their tables and qualified
//! players (the follower computes them; reads serve them as stored), and declined places.

use crate::State;
use crate::progress::{Need, Waits};
use crate::seasons::read::{self, Format};
use crate::seasons::{self, store};
use crate::served_cache::{Served, ServedCache, Slot};
use actix_web::http::StatusCode;
use actix_web::web::Bytes;
use actix_web::{HttpRequest, HttpResponse, delete, get, post, put, web};
use catan_api::{
    CreateSeason, Problem, QualifiedPlayer, Role, Season, SeasonDecline, SeasonSearch,
    SeasonStandings,
};
use catan_domain::season::{Decliner, may_decline};
use catan_kit::auth::Principal;
use catan_kit::conditional::Encoded;
use catan_kit::idempotency::Reply;
use catan_kit::pagination::{Page, PageQuery};
use catan_kit::{ApiError, IdempotentWrite, conditional, db};
use uuid::Uuid;

pub fn register(cfg: &mut utoipa_actix_web::service_config::ServiceConfig) {
    cfg.service(create_season)
        .service(list_seasons)
        .service(get_season)
        .service(join_event)
        .service(leave_event)
        .service(season_standings)
        .service(season_qualified)
        .service(decline_place);
}

/// Creates a season (the admin; an organiser a season of one of its regions): its days, its
/// region (none: federation-wide, the admin's alone), its scoring and its
/// qualification. Refused with 422 listing every broken rule, and nothing stored: a blank name,
/// an unknown region, `ends_on` before `starts_on`, and every rule of the scoring and the
/// qualification (`rising_table`, `below_one`, `unknown_tie_break`, `no_slots`, ...).
#[utoipa::path(
    tag = "ranking",
    request_body = CreateSeason,
    security(("bearer" = [])),
    responses(
        (status = 201, body = Season),
        (status = 401, description = "No valid token", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "Neither the admin nor an organiser of the season's region", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "Every broken rule", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/v1/seasons")]
async fn create_season(
    state: web::Data<State>,
    write: IdempotentWrite<web::Json<CreateSeason>>,
) -> Result<HttpResponse, ApiError> {
    write.principal().require_region(write.body().region_id)?;
    let region_known = match write.body().region_id {
        Some(region) => Some(region_exists(&state, region).await?),
        None => None,
    };
    let season = seasons::checked(write.body(), region_known)?;
    write
        .write(move |conn| Reply::new(StatusCode::CREATED, &store::insert(conn, &season)?))
        .await
}

/// Whether registration knows the region.
async fn region_exists(state: &State, region: Uuid) -> Result<bool, ApiError> {
    match state.peers.registration.region(region).await {
        Ok(_) => Ok(true),
        Err(e) if e.status() == Some(404) => Ok(false),
        Err(e) => Err(ApiError::unavailable(
            "registration cannot be asked about the region just now; try again",
            e.to_string(),
        )),
    }
}

/// The seasons, by first day, then name; of one region if asked (federation-wide seasons have
/// none). Paginated; carries an `ETag`. Needs no token.
#[utoipa::path(
    tag = "ranking",
    params(SeasonSearch, PageQuery),
    responses(
        (status = 200, body = Vec<Season>),
        (status = 304, description = "Unchanged since the `If-None-Match` version"),
    )
)]
#[get("/v1/seasons")]
async fn list_seasons(
    state: web::Data<State>,
    request: HttpRequest,
    query: web::Query<SeasonSearch>,
    page: Page,
) -> Result<HttpResponse, ApiError> {
    let region = query.into_inner().region_id;
    let bounds = (page.query().limit(), page.query().offset());
    let list = db::run(&state.pool, move |conn| store::list(conn, region, bounds)).await?;
    conditional::respond_json(&request, page.response(list.len()), &list)
}

/// A season: its configuration and its events in play order (first day, then id). Carries an
/// `ETag`. Needs no token.
#[utoipa::path(
    tag = "ranking",
    params(("season_id" = Uuid, Path)),
    responses(
        (status = 200, body = Season),
        (status = 304, description = "Unchanged since the `If-None-Match` version"),
        (status = 404, description = "No such season", body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/v1/seasons/{season_id}")]
async fn get_season(
    state: web::Data<State>,
    request: HttpRequest,
    waits: Waits,
    path: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    let id = path.into_inner();
    waits.until(&Need::Copies).await?;
    let season = db::run(&state.pool, move |conn| store::find(conn, id))
        .await?
        .ok_or_else(|| ApiError::NotFound(format!("no season {id}")))?;
    conditional::respond_json(&request, HttpResponse::Ok(), &season)
}

/// Joins an event to a season (the admin, or the organiser of a regional season's region and
/// the event's); joining it again changes nothing. The event must be one
/// ranking knows (404 otherwise), every day of it within the season's days, and, for a regional
/// season, of the season's region (422 listing each: `outside_season`, `other_region`). One
/// event may count in a regional season and in a federation-wide one.
#[utoipa::path(
    tag = "ranking",
    params(("season_id" = Uuid, Path), ("event_id" = Uuid, Path)),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The season with the event", body = Season),
        (status = 403, description = "Neither the admin nor the organiser of the season's and the event's region", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such season, or an event ranking does not know", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "The event's days or region do not fit the season", body = Problem, content_type = "application/problem+json"),
    )
)]
#[put("/v1/seasons/{season_id}/events/{event_id}")]
async fn join_event(
    state: web::Data<State>,
    waits: Waits,
    write: IdempotentWrite<()>,
    path: web::Path<(Uuid, Uuid)>,
) -> Result<HttpResponse, ApiError> {
    let (season, event) = path.into_inner();
    // An event made a moment ago is joined, not refused as unknown.
    waits
        .found(&Need::Copies, || {
            db::run(&state.pool, move |conn| store::event_region(conn, event))
        })
        .await?;
    may_change_season(&state, write.principal(), season, event).await?;
    write
        .write(move |conn| Reply::new(StatusCode::OK, &store::join(conn, season, event)?))
        .await
}

/// Takes an event out of a season (the admin, or the organiser of a regional season's region and
/// the event's); one that is not in it changes nothing.
#[utoipa::path(
    tag = "ranking",
    params(("season_id" = Uuid, Path), ("event_id" = Uuid, Path)),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The season without the event", body = Season),
        (status = 403, description = "Neither the admin nor the organiser of the season's and the event's region", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such season", body = Problem, content_type = "application/problem+json"),
    )
)]
#[delete("/v1/seasons/{season_id}/events/{event_id}")]
async fn leave_event(
    state: web::Data<State>,
    waits: Waits,
    write: IdempotentWrite<()>,
    path: web::Path<(Uuid, Uuid)>,
) -> Result<HttpResponse, ApiError> {
    let (season, event) = path.into_inner();
    waits.until(&Need::Copies).await?;
    may_change_season(&state, write.principal(), season, event).await?;
    write
        .write(move |conn| Reply::new(StatusCode::OK, &store::leave(conn, season, event)?))
        .await
}

/// The admin changes every season's events; an organiser those of a season of its regions, with
/// events of its regions. A season's region and an event's never change, so the check needs no
/// transaction; 404 for a season or an event ranking does not know.
async fn may_change_season(
    state: &State,
    principal: &Principal,
    season: Uuid,
    event: Uuid,
) -> Result<(), ApiError> {
    if principal.role() != Role::Organiser {
        return principal.require_admin();
    }
    let principal = principal.clone();
    db::run(&state.pool, move |conn| {
        let found = store::find(conn, season)?
            .ok_or_else(|| ApiError::NotFound(format!("no season {season}")))?;
        principal.require_region(found.region_id)?;
        let region = store::event_region(conn, event)?
            .ok_or_else(|| ApiError::NotFound(format!("no event {event} is known to ranking")))?;
        principal.require_region(region)
    })
    .await
}

/// What the standings read asks for.
#[derive(Debug, serde::Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
struct StandingsQuery {
    /// Only the players of this region; each keeps his rank in the whole season's table.
    #[param(nullable = false)]
    region_id: Option<Uuid>,
    /// `true`: each JSON row with its per-event `results` (a page many times larger: about
    /// 5.7 KB a row in a season of 20 events a player); default `false`. The CSV never has them.
    #[param(nullable = false)]
    results: Option<bool>,
}

/// The season's table, best first: every player of its counting events, his points from his
/// counted events (best `best_n` under the tier caps), ranked by the season's tie-breaks; players
/// equal on all of them share the rank. With `region_id`, only that region's players, each with
/// his rank in the whole season's table; with `results=true`, each row with its per-event
/// results. Paginated. JSON, or CSV with `Accept: text/csv`: a
/// header line, then one line a player with the columns `rank, player_id, name, region_id,
/// points, points_exact, events_played, events_counted, wins, best_place, vp, vp_share,
/// qualified` (the name always quoted; a name beginning with `=`, `+`, `-` or `@` is written
/// after a `'`). `as_of` is the last change the table includes; it carries an `ETag`, and
/// `If-None-Match` answers `304` while it is unchanged. Needs no token.
#[utoipa::path(
    tag = "ranking",
    params(("season_id" = Uuid, Path), StandingsQuery, PageQuery),
    responses(
        (status = 200, description = "A page of the season's table, as JSON or as CSV",
            content((SeasonStandings = "application/json"), (String = "text/csv")),
            headers(("ETag" = String, description = "The page's version"))),
        (status = 304, description = "Unchanged since the `If-None-Match` version"),
        (status = 404, description = "No such season", body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/v1/seasons/{season_id}/standings")]
async fn season_standings(
    state: web::Data<State>,
    cache: web::Data<ServedCache>,
    request: HttpRequest,
    waits: Waits,
    path: web::Path<Uuid>,
    query: web::Query<StandingsQuery>,
    page: Page,
) -> Result<HttpResponse, ApiError> {
    let season = path.into_inner();
    season_includes(&state, &waits, season).await?;
    let StandingsQuery { region_id, results } = query.into_inner();
    let bounds = (page.query().limit(), page.query().offset());
    let format = if accepts_csv(&request) {
        Format::Csv
    } else if results == Some(true) {
        Format::Json
    } else {
        Format::Summary
    };
    let unknown = || ApiError::NotFound(format!("no season {season}"));
    let stored = db::run(&state.pool, move |conn| {
        read::page_etag(conn, season, region_id, bounds, format)
    })
    .await?
    .ok_or_else(unknown)?;
    let slot = Slot::SeasonPage {
        season,
        region: region_id,
        bounds,
        format,
    };
    let fetch = || async move {
        let page = db::run(&state.pool, move |conn| {
            read::standings(conn, season, region_id, bounds, format)
        })
        .await?
        .ok_or_else(unknown)?;
        let body = Encoded::new(Bytes::from(page.body));
        let served = Served {
            body,
            rows: page.rows,
        };
        Ok((page.etag, served, page.behind))
    };
    let (etag, served, behind) = cache.answer(&request, slot, stored, fetch).await?;
    let mut response = super::with_freshness(HttpResponse::Ok(), behind);
    // The page's `Link` to the next, as every list gives it.
    let next = page.response(served.rows).finish();
    if let Some(link) = next.headers().get("Link") {
        response.insert_header(("Link", link.clone()));
    }
    let content_type = match format {
        Format::Csv => "text/csv; charset=utf-8",
        Format::Json | Format::Summary => "application/json",
    };
    Ok(conditional::respond_encoded(
        &request,
        response,
        &etag,
        content_type,
        &served.body,
    ))
}

/// Waits until the season's table and qualified players include the request's writes: its
/// events' views and its own table.
async fn season_includes(state: &State, waits: &Waits, season: Uuid) -> Result<(), ApiError> {
    if waits.wanted.is_empty() {
        return Ok(());
    }
    waits.until(&Need::Copies).await?;
    let events = db::run(&state.pool, move |conn| store::find(conn, season))
        .await?
        .map(|found| found.event_ids)
        .unwrap_or_default();
    waits.until(&Need::Season { season, events }).await
}

/// Whether the request asks for CSV.
fn accepts_csv(request: &HttpRequest) -> bool {
    request
        .headers()
        .get(actix_web::http::header::ACCEPT)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|accept| accept.contains("text/csv"))
}

/// The season's qualified players: first each counting event's top `event_slots` in play order
/// (a slot whose player already holds a place or declined passes down the event's placements
/// with `pass_down`, naming whose it was), then the season table's best `season_slots` not
/// otherwise qualified. The list is a bare array, so the last change it includes is the `As-Of`
/// header. Carries an `ETag`. Needs no token.
#[utoipa::path(
    tag = "ranking",
    params(("season_id" = Uuid, Path)),
    responses(
        (status = 200, body = Vec<QualifiedPlayer>, headers(
            ("ETag" = String, description = "The list's version"),
            ("As-Of" = String, description = "The last change the list includes (RFC 3339)"))),
        (status = 304, description = "Unchanged since the `If-None-Match` version"),
        (status = 404, description = "No such season", body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/v1/seasons/{season_id}/qualified")]
async fn season_qualified(
    state: web::Data<State>,
    request: HttpRequest,
    waits: Waits,
    path: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    let id = path.into_inner();
    season_includes(&state, &waits, id).await?;
    let (served, as_of) = db::run(&state.pool, move |conn| read::qualified(conn, id))
        .await?
        .ok_or_else(|| ApiError::NotFound(format!("no season {id}")))?;
    let mut response = super::with_freshness(HttpResponse::Ok(), served.behind);
    response.insert_header((
        "As-Of",
        as_of.to_rfc3339_opts(chrono::SecondsFormat::Micros, true),
    ));
    Ok(conditional::respond(
        &request,
        response,
        &served.etag,
        "application/json",
        served.body,
    ))
}

/// Who asks to decline.
fn decliner(principal: &Principal) -> Decliner {
    match principal.role() {
        Role::Admin => Decliner::Admin,
        Role::Player => Decliner::Player(principal.key_id()),
        Role::Director | Role::Scorer | Role::Organiser => Decliner::Other,
    }
}

/// Declines a player's place in the season, so that it passes down (and he is passed over by
/// every later slot): the admin, or the player himself with his own token (`POST
/// /v1/auth/player-token`, for any event). A decline stands for the season, also made before the
/// player qualifies; declining again changes nothing. A merged identity declines as his
/// survivor.
#[utoipa::path(
    tag = "ranking",
    params(("season_id" = Uuid, Path), ("player_id" = Uuid, Path)),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The decline", body = SeasonDecline),
        (status = 403, description = "Neither the admin nor the player himself", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such season, or a player ranking does not know", body = Problem, content_type = "application/problem+json"),
    )
)]
#[delete("/v1/seasons/{season_id}/qualified/{player_id}")]
async fn decline_place(
    state: web::Data<State>,
    waits: Waits,
    write: IdempotentWrite<()>,
    path: web::Path<(Uuid, Uuid)>,
) -> Result<HttpResponse, ApiError> {
    let (season, player) = path.into_inner();
    if !may_decline(decliner(write.principal()), player) {
        return Err(ApiError::Forbidden(
            "only the admin or the player himself (with his player token) declines a place".into(),
        ));
    }
    // A player registered a moment ago declines, rather than being refused as unknown.
    waits
        .found(&Need::Copies, || {
            db::run(&state.pool, move |conn| store::knows_player(conn, player))
        })
        .await?;
    write
        .write(move |conn| Reply::new(StatusCode::OK, &store::decline(conn, season, player)?))
        .await
}
