//! Who may send a venue's copy of an event (issue 34): the admin (a venue's own suite, when it
//! pulls), or the venue the event is checked out to, whose key signed the exact body
//! (`Catan-Venue-Signature`). The signature is the venue's credential: the federation's keys are
//! never copied to a venue, and its checkout key serves nothing else.

use crate::ApiError;
use crate::auth::Principal;
use crate::problem::{ErrorCode, FieldError};
use crate::venue_signature::{VENUE_SIGNATURE_HEADER, verify};
use actix_web::dev::Payload;
use actix_web::{FromRequest, HttpRequest, HttpResponse, web};
use catan_api::{POSITION_HEADER, Position, Producer};
use catan_domain::venue_copy::CopyDifference;
use diesel::PgConnection;
use diesel::prelude::*;
use serde::Deserialize;
use serde::de::DeserializeOwned;
use utoipa::IntoParams;

/// The largest part of a venue's copy taken at once: a 1,000-player event's five rounds of
/// results are a few MiB. The gateway lets bodies of this size through on the venue-copy paths.
pub const VENUE_COPY_LIMIT_BYTES: usize = 32 * 1024 * 1024;

/// The query of a venue copy's `PUT`.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ImportQuery {
    /// Check everything and answer what would be taken in, writing nothing.
    #[serde(default)]
    #[param(nullable = false)]
    pub dry_run: bool,
}

/// Reads the body of a venue's copy whole (its signature covers its exact bytes, up to
/// [`VENUE_COPY_LIMIT_BYTES`], 413 past them) and parses it once its sender may send it: see
/// [`authorised_import`].
pub async fn read_authorised_import<T, K>(
    req: &HttpRequest,
    payload: web::Payload,
    checkout_key: K,
) -> Result<T, ApiError>
where
    T: DeserializeOwned,
    K: Future<Output = Result<Option<String>, ApiError>>,
{
    let body = payload
        .to_bytes_limited(VENUE_COPY_LIMIT_BYTES)
        .await
        .map_err(|_| {
            ApiError::PayloadTooLarge(format!(
                "a part of a venue's copy is at most {VENUE_COPY_LIMIT_BYTES} bytes"
            ))
        })?
        .map_err(|e| ApiError::BadRequest(format!("the body could not be read: {e}")))?;
    authorised_import(req, &body, checkout_key).await
}

/// The body of a venue's copy, parsed once its sender may send it: a signature by the key of the
/// event's current checkout (`checkout_key`, `None` when the event is not checked out), or, with
/// no signature, the admin's token. A signature that does not verify is 403 even from an admin:
/// the body was changed on the way or signed by another venue.
pub async fn authorised_import<T, K>(
    req: &HttpRequest,
    body: &[u8],
    checkout_key: K,
) -> Result<T, ApiError>
where
    T: DeserializeOwned,
    K: Future<Output = Result<Option<String>, ApiError>>,
{
    let signature = req
        .headers()
        .get(VENUE_SIGNATURE_HEADER)
        .map(|value| value.to_str().unwrap_or_default().to_owned());
    match signature {
        Some(signature) => {
            let key = checkout_key.await?.ok_or_else(|| {
                ApiError::Forbidden(
                    "the event is not checked out to a venue: no venue's signature is taken for \
                     it (the admin may send its copy)"
                        .into(),
                )
            })?;
            verify(&key, body, &signature)?;
        }
        None => Principal::from_request(req, &mut Payload::None)
            .await?
            .require_admin()?,
    }
    serde_json::from_slice(body)
        .map_err(|e| ApiError::BadRequest(format!("the body is not a venue's copy: {e}")))
}

/// The id of the transaction on `conn`, which took a part of a copy in: its place in the feeds
/// ranking follows.
pub fn writing_transaction(conn: &mut PgConnection) -> Result<u64, ApiError> {
    let txid: i64 = diesel::select(diesel::dsl::sql::<diesel::sql_types::BigInt>(
        crate::feed::WRITING_TRANSACTION,
    ))
    .get_result(conn)?;
    u64::try_from(txid).map_err(ApiError::internal)
}

/// The answer to a part of a venue's copy: 200 with what was taken in, and, when it wrote
/// something ranking follows (`written`: its producer and transaction), that write's
/// `Catan-Position`, so that a publisher reads the federation's standings with its writes in.
pub fn taken_in(taken: &impl serde::Serialize, written: Option<(Producer, u64)>) -> HttpResponse {
    let mut answer = HttpResponse::Ok();
    if let Some((producer, txid)) = written {
        answer.insert_header((POSITION_HEADER, Position::of(producer, txid).to_string()));
    }
    answer.json(taken)
}

/// The 409 refusing a part of a venue's copy (`part`, e.g. "the venue's rounds"), listing every
/// difference on `<record>.<field>`, code `differs`, saying ours and the venue's.
pub fn contradicts(part: &str, differences: Vec<CopyDifference>) -> ApiError {
    let shown = |value: Option<String>| value.unwrap_or_else(|| "nothing".to_owned());
    let errors: Vec<FieldError> = differences
        .into_iter()
        .map(|d| FieldError {
            field: format!("{}.{}", d.record, d.field),
            code: ErrorCode::Differs,
            message: format!(
                "{} {}: ours is {}, the venue's is {}",
                d.record,
                d.field,
                shown(d.ours),
                shown(d.theirs)
            ),
        })
        .collect();
    ApiError::Contradicts {
        detail: format!(
            "{} difference{} between {part} and this suite's records; see errors",
            errors.len(),
            if errors.len() == 1 { "" } else { "s" }
        ),
        errors,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::venue_signature::{new_venue_key, sign};
    use actix_web::test::TestRequest;

    #[derive(serde::Deserialize, Debug, PartialEq)]
    struct Copy {
        rounds: u32,
    }

    fn signed(signature: &str) -> HttpRequest {
        TestRequest::default()
            .insert_header((VENUE_SIGNATURE_HEADER, signature))
            .to_http_request()
    }

    async fn key_of(public: &str) -> Result<Option<String>, ApiError> {
        Ok(Some(public.to_owned()))
    }

    #[actix_web::test]
    async fn the_checkout_key_signature_lets_the_copy_in_and_any_change_refuses_it() {
        let (key, public) = new_venue_key();
        let body = br#"{"rounds":5}"#;
        let req = signed(&sign(&key, body));
        let copy: Copy = authorised_import(&req, body, key_of(&public))
            .await
            .unwrap();
        assert_eq!(copy, Copy { rounds: 5 });

        let tampered = br#"{"rounds":6}"#;
        let refused = authorised_import::<Copy, _>(&req, tampered, key_of(&public)).await;
        assert!(
            matches!(refused, Err(ApiError::Forbidden(_))),
            "{refused:?}"
        );

        let (other, _) = new_venue_key();
        let req = signed(&sign(&other, body));
        let refused = authorised_import::<Copy, _>(&req, body, key_of(&public)).await;
        assert!(
            matches!(refused, Err(ApiError::Forbidden(_))),
            "{refused:?}"
        );
    }

    #[actix_web::test]
    async fn a_signature_for_an_event_not_checked_out_or_no_credential_is_refused() {
        let (key, _) = new_venue_key();
        let body = br#"{"rounds":5}"#;
        let req = signed(&sign(&key, body));
        let refused = authorised_import::<Copy, _>(&req, body, async { Ok(None) }).await;
        assert!(
            matches!(refused, Err(ApiError::Forbidden(_))),
            "{refused:?}"
        );

        // Neither a signature nor a token: who sends it is unknown.
        let req = TestRequest::default().to_http_request();
        let refused = authorised_import::<Copy, _>(&req, body, key_of("unused")).await;
        assert!(refused.is_err(), "{refused:?}");
    }
}
