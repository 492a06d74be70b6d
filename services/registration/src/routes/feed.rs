//! Registration's change feed: every event, entry and player as it changes, for the services and
//! third parties that keep a copy of them (ranking's read model).

use crate::State;
use crate::store;
use crate::store::changes::{Position as FeedPosition, TxId};
use actix_web::{get, web};
use catan_api::{Position, Problem, Producer, RegistrationChanges};
use catan_kit::problem::ErrorCode;
use catan_kit::{ApiError, db};
use serde::Deserialize;
use utoipa::IntoParams;

pub fn register(cfg: &mut utoipa_actix_web::service_config::ServiceConfig) {
    cfg.service(registration_changes);
}

const DEFAULT_LIMIT: i64 = 500;
const MAX_LIMIT: i64 = 1000;

/// Where to read the feed from.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
struct FeedQuery {
    /// The `next` of the page read last; absent or empty to read from the beginning.
    #[param(nullable, pattern = r"^([0-9]+\.[0-9]+)?$")]
    after: Option<String>,
    /// Changes read at most: default 500; values outside 1 to 1000 are clamped into it.
    #[param(nullable)]
    limit: Option<i64>,
}

/// Registration's changes after the cursor `after`, oldest first: each event, entry and player
/// changed (created, updated, merged, dropped) appears once a page, where it last changed, as it
/// is now (an entry without its PINs). A change is read only once every transaction that began
/// before it has ended, so a reader that follows `next` never passes one that commits late; a
/// change may come after one made later that refers to it. Needs no token.
#[utoipa::path(
    tag = "registration",
    params(FeedQuery),
    responses(
        (status = 200, description = "The changes after the cursor and the cursor to read on from", body = RegistrationChanges),
        (status = 422, description = "A cursor that is not one", body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/v1/feeds/registration")]
async fn registration_changes(
    state: web::Data<State>,
    query: web::Query<FeedQuery>,
) -> Result<web::Json<RegistrationChanges>, ApiError> {
    let after = parse_cursor(query.after.as_deref())?;
    let limit = query.limit.unwrap_or(DEFAULT_LIMIT).clamp(1, MAX_LIMIT);
    let page = db::run(&state.pool, move |conn| {
        store::changes::page(conn, after, limit)
    })
    .await?;
    Ok(web::Json(RegistrationChanges {
        items: page.items,
        next: page.next.map(cursor).unwrap_or_default(),
        held_back: page.held_back,
        position: Position::of(Producer::Registration, page.read_through).to_string(),
    }))
}

/// The cursor of a position: `<txid>.<seq>`.
fn cursor(position: FeedPosition) -> String {
    format!("{}.{}", position.txid.0, position.seq)
}

/// The position a cursor names; none (the beginning) when absent or empty; 422 on `after` when
/// it is not a cursor.
fn parse_cursor(after: Option<&str>) -> Result<Option<FeedPosition>, ApiError> {
    let after = after.unwrap_or_default();
    if after.is_empty() {
        return Ok(None);
    }
    let digits = |part: &str| !part.is_empty() && part.bytes().all(|b| b.is_ascii_digit());
    after
        .split_once('.')
        .filter(|(txid, seq)| digits(txid) && digits(seq))
        .and_then(|(txid, seq)| Some((txid.parse().ok()?, seq.parse().ok()?)))
        .map(|(txid, seq)| {
            Some(FeedPosition {
                txid: TxId(txid),
                seq,
            })
        })
        .ok_or_else(|| {
            ApiError::field(
                "after",
                ErrorCode::InvalidQuery,
                "after must be the `next` of a page of this feed, or empty",
            )
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::validate::tests::field_and_code;

    #[test]
    fn a_cursor_names_its_position_and_reads_back() {
        let position = FeedPosition {
            txid: TxId(7_000_000_001),
            seq: 42,
        };
        assert_eq!(cursor(position), "7000000001.42");
        assert_eq!(parse_cursor(Some("7000000001.42")).unwrap(), Some(position));
        assert_eq!(parse_cursor(None).unwrap(), None);
        assert_eq!(parse_cursor(Some("")).unwrap(), None);
    }

    #[test]
    fn anything_else_is_refused_on_after() {
        for bad in [
            "7",
            "7.",
            ".7",
            "7.-1",
            "-7.1",
            "+7.1",
            "7.1.1",
            "a.b",
            " 7.1",
            "7.1 ",
            // Beyond the numbers' range.
            "18446744073709551616.1",
            "1.9223372036854775808",
        ] {
            let (field, code) = field_and_code(parse_cursor(Some(bad)).unwrap_err());
            assert_eq!(
                (field.as_str(), code),
                ("after", ErrorCode::InvalidQuery),
                "{bad}"
            );
        }
    }
}
