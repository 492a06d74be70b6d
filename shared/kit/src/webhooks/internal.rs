//! What only the services call each other with: the check of `CATAN_INTERNAL_KEY`, and the
//! internal routes every service with an outbox serves for registration, which lists and replays
//! their dead letters for the admin. Not in the public contract, and the gateway does not route
//! them.

use crate::ApiError;
use crate::db::{self, PgPool};
use crate::pagination::PageQuery;
use crate::schema::outbox;
use crate::settings::ExposeSecret;
use actix_web::{HttpRequest, web};
use catan_api::{DeadLetter, DeadLetterKind, INTERNAL_DEAD_LETTERS_PATH, WebhookEventType};
use chrono::{DateTime, Utc};
use diesel::dsl::now;
use diesel::prelude::*;
use secrecy::SecretString;
use subtle::ConstantTimeEq;
use utoipa_actix_web::service_config::ServiceConfig;
use uuid::Uuid;

/// Ok when the request's `Authorization` is `Bearer <the internal key>` (compared in constant
/// time); 401 otherwise, 503 when no key is configured.
pub fn require_internal_key(
    request: &HttpRequest,
    expected: Option<&SecretString>,
) -> Result<(), ApiError> {
    let Some(expected) = expected else {
        return Err(ApiError::unavailable(
            "the internal key is not configured",
            "CATAN_INTERNAL_KEY is not set: the services cannot call each other's internal routes",
        ));
    };
    let authorization = request
        .headers()
        .get(actix_web::http::header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok());
    if from_a_service(authorization, expected.expose_secret()) {
        Ok(())
    } else {
        Err(ApiError::Unauthorized(
            "this endpoint is for the services".into(),
        ))
    }
}

/// Whether `authorization` is `Bearer <expected>`.
fn from_a_service(authorization: Option<&str>, expected: &str) -> bool {
    let given = authorization
        .and_then(|v| v.strip_prefix("Bearer "))
        .unwrap_or_default();
    bool::from(given.trim().as_bytes().ct_eq(expected.as_bytes()))
}

/// The service whose outbox the internal routes serve.
struct Outbox {
    service: &'static str,
    internal_key: Option<SecretString>,
}

/// Registers the internal routes of a service with an outbox (`service`, its name): its dead
/// relay events, and their replay. They read the service's pool (`web::Data<PgPool>`).
pub fn internal_routes(
    cfg: &mut ServiceConfig,
    service: &'static str,
    internal_key: Option<SecretString>,
) {
    cfg.app_data(web::Data::new(Outbox {
        service,
        internal_key,
    }))
    .route(INTERNAL_DEAD_LETTERS_PATH, web::get().to(list_dead_letters))
    .route(
        &format!("{INTERNAL_DEAD_LETTERS_PATH}/{{id}}/replay"),
        web::post().to(replay_dead_letter),
    );
}

/// The dead relay events, the latest to die first.
async fn list_dead_letters(
    outbox: web::Data<Outbox>,
    pool: web::Data<PgPool>,
    request: HttpRequest,
    page: web::Query<PageQuery>,
) -> Result<web::Json<Vec<DeadLetter>>, ApiError> {
    require_internal_key(&request, outbox.internal_key.as_ref())?;
    let (limit, offset) = (page.limit(), page.offset());
    let rows = db::run(&pool, move |conn| Ok(dead_events(conn, limit, offset)?)).await?;
    let service = outbox.service;
    Ok(web::Json(
        rows.into_iter()
            .filter_map(|row| row.into_dead_letter(service))
            .collect(),
    ))
}

/// Makes a dead relay event due again with its tries counted from 0 (one still live stays as it
/// is): its state now; 404 when the outbox does not hold it (never did, or relayed since).
async fn replay_dead_letter(
    outbox: web::Data<Outbox>,
    pool: web::Data<PgPool>,
    request: HttpRequest,
    path: web::Path<Uuid>,
) -> Result<web::Json<DeadLetter>, ApiError> {
    require_internal_key(&request, outbox.internal_key.as_ref())?;
    let id = path.into_inner();
    let row = db::transaction(&pool, move |conn| Ok(replay(conn, id)?)).await?;
    row.and_then(|row| row.into_dead_letter(outbox.service))
        .map(web::Json)
        .ok_or_else(|| ApiError::NotFound(format!("the outbox holds no event {id}")))
}

#[derive(Queryable, Selectable)]
#[diesel(table_name = outbox)]
struct OutboxState {
    id: Uuid,
    event_type: String,
    event_id: Uuid,
    attempts: i32,
    next_attempt_at: DateTime<Utc>,
    last_error: Option<String>,
    dead_at: Option<DateTime<Utc>>,
}

impl OutboxState {
    fn into_dead_letter(self, service: &str) -> Option<DeadLetter> {
        Some(DeadLetter {
            id: self.id,
            kind: DeadLetterKind::Relay,
            service: Some(service.to_string()),
            webhook_id: None,
            event_type: WebhookEventType::parse(&self.event_type)?,
            // Registration stores the event under its outbox id: its webhook messages' id.
            message_id: self.id,
            event_id: self.event_id,
            attempts: u32::try_from(self.attempts).unwrap_or_default(),
            last_error: self.last_error,
            next_attempt_at: self.dead_at.is_none().then_some(self.next_attempt_at),
            dead_at: self.dead_at,
        })
    }
}

fn dead_events(conn: &mut PgConnection, limit: i64, offset: i64) -> QueryResult<Vec<OutboxState>> {
    outbox::table
        .filter(outbox::dead_at.is_not_null())
        .order((outbox::dead_at.desc(), outbox::id))
        .limit(limit)
        .offset(offset)
        .select(OutboxState::as_select())
        .load(conn)
}

fn replay(conn: &mut PgConnection, id: Uuid) -> QueryResult<Option<OutboxState>> {
    diesel::update(
        outbox::table
            .filter(outbox::id.eq(id))
            .filter(outbox::dead_at.is_not_null()),
    )
    .set((
        outbox::dead_at.eq(None::<DateTime<Utc>>),
        outbox::attempts.eq(0),
        outbox::next_attempt_at.eq(now),
    ))
    .execute(conn)?;
    outbox::table
        .find(id)
        .select(OutboxState::as_select())
        .first(conn)
        .optional()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_internal_key_as_a_bearer_token_is_a_service() {
        assert!(from_a_service(Some("Bearer cik_secret"), "cik_secret"));
        assert!(from_a_service(Some("Bearer  cik_secret "), "cik_secret"));
        assert!(!from_a_service(Some("Bearer cik_other"), "cik_secret"));
        assert!(!from_a_service(Some("Bearer cik_secre"), "cik_secret"));
        assert!(!from_a_service(Some("cik_secret"), "cik_secret"));
        assert!(!from_a_service(None, "cik_secret"));
    }
}
