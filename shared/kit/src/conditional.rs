//! Conditional reads: every read of the read model carries an `ETag` of its body, and a client
//! that sends it back in `If-None-Match` gets `304 Not Modified` without the body.

use actix_web::http::header::{self, HeaderValue};
use actix_web::{HttpRequest, HttpResponse, HttpResponseBuilder};
use sha2::Digest;

/// A strong validator of `body`: the first 16 bytes of its SHA-256, quoted as `ETag` wants.
pub fn etag_of(body: &[u8]) -> String {
    let digest = sha2::Sha256::digest(body);
    let hex: String = digest.iter().take(16).map(|b| format!("{b:02x}")).collect();
    format!("\"{hex}\"")
}

/// Whether the request's `If-None-Match` names `etag` (or is `*`).
pub fn not_modified(request: &HttpRequest, etag: &str) -> bool {
    request
        .headers()
        .get_all(header::IF_NONE_MATCH)
        .filter_map(|value| value.to_str().ok())
        .flat_map(|value| value.split(','))
        .map(|tag| tag.trim().trim_start_matches("W/"))
        .any(|tag| tag == etag || tag == "*")
}

/// `200` with `body` and its `etag`, or `304` when the client has it already. `response` carries
/// whatever headers the read adds (such as a warning that it may be behind).
pub fn respond(
    request: &HttpRequest,
    mut response: HttpResponseBuilder,
    etag: &str,
    content_type: &'static str,
    body: impl actix_web::body::MessageBody + 'static,
) -> HttpResponse {
    if let Ok(value) = HeaderValue::from_str(etag) {
        response.insert_header((header::ETAG, value));
    }
    // Caches must ask again: the model changes with every result.
    response.insert_header((header::CACHE_CONTROL, "no-cache"));
    if not_modified(request, etag) {
        return response
            .status(actix_web::http::StatusCode::NOT_MODIFIED)
            .finish();
    }
    response.content_type(content_type).body(body)
}

/// [`respond`] with `value` as JSON.
pub fn respond_json(
    request: &HttpRequest,
    response: HttpResponseBuilder,
    value: &impl serde::Serialize,
) -> Result<HttpResponse, crate::ApiError> {
    let body = serde_json::to_vec(value).map_err(crate::ApiError::internal)?;
    let etag = etag_of(&body);
    Ok(respond(request, response, &etag, "application/json", body))
}

#[cfg(test)]
mod tests {
    use super::*;
    use actix_web::test::TestRequest;

    #[test]
    fn a_client_holding_the_body_gets_not_modified_and_others_the_body() {
        let etag = etag_of(b"{\"rows\":[]}");
        assert_eq!(etag, etag_of(b"{\"rows\":[]}"));
        assert_ne!(etag, etag_of(b"{\"rows\":[1]}"));
        let holding = TestRequest::get()
            .insert_header((header::IF_NONE_MATCH, format!("\"other\", {etag}")))
            .to_http_request();
        let answer = respond(
            &holding,
            HttpResponse::Ok(),
            &etag,
            "application/json",
            "{}",
        );
        assert_eq!(answer.status(), 304);
        assert_eq!(
            answer.headers().get(header::ETAG).map(|v| v.as_bytes()),
            Some(etag.as_bytes())
        );
        let fresh = TestRequest::get().to_http_request();
        assert_eq!(
            respond(&fresh, HttpResponse::Ok(), &etag, "application/json", "{}").status(),
            200
        );
    }
}
