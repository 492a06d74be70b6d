//! Conditional reads: every read of the read model carries an `ETag` of its body, and a client
//! that sends it back in `If-None-Match` gets `304 Not Modified` without the body. A large body
//! kept for many reads is also kept gzipped, for clients that accept it.

use actix_web::http::header::{self, HeaderValue};
use actix_web::web::Bytes;
use actix_web::{HttpRequest, HttpResponse, HttpResponseBuilder};
use sha2::Digest;
use std::io::Write;

/// A strong validator of `body`: the first 16 bytes of its SHA-256, quoted as `ETag` wants.
pub fn etag_of(body: &[u8]) -> String {
    let digest = sha2::Sha256::digest(body);
    let hex: String = digest.iter().take(16).map(|b| format!("{b:02x}")).collect();
    format!("\"{hex}\"")
}

/// Whether the request's `If-None-Match` names `etag` (or is `*`), compared weakly as RFC 9110
/// has it: `W/"x"` and `"x"` name the same version.
pub fn not_modified(request: &HttpRequest, etag: &str) -> bool {
    let etag = etag.trim_start_matches("W/");
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

/// Bodies shorter than this are sent as they are: gzip would save little and cost a header.
const GZIP_FROM_BYTES: usize = 1024;

/// A body as it is served, and its gzip encoding when it is long enough to be worth one. The
/// gzip is made on the first read that asks for it and kept with the body (clones share it), so
/// that a version no client asks gzipped costs no compression, and no version costs two.
#[derive(Debug, Clone)]
pub struct Encoded {
    identity: Bytes,
    gzip: std::sync::Arc<std::sync::OnceLock<Option<Bytes>>>,
}

impl Encoded {
    pub fn new(identity: Bytes) -> Self {
        Encoded {
            identity,
            gzip: std::sync::Arc::default(),
        }
    }

    /// The bytes kept for both encodings, counting the gzip as at most half the body before it
    /// is made (JSON compresses to about a quarter), so that a cache's budget holds either way.
    pub fn kept_bytes(&self) -> usize {
        let gzip = if self.identity.len() >= GZIP_FROM_BYTES {
            self.identity.len() / 2
        } else {
            0
        };
        self.identity.len() + gzip
    }

    pub fn identity(&self) -> &Bytes {
        &self.identity
    }

    /// The gzip encoding, made now if no read made it yet; none for a short body.
    fn gzip(&self) -> Option<&Bytes> {
        self.gzip
            .get_or_init(|| {
                if self.identity.len() < GZIP_FROM_BYTES {
                    return None;
                }
                let mut encoder = flate2::write::GzEncoder::new(
                    Vec::with_capacity(self.identity.len() / 4),
                    flate2::Compression::default(),
                );
                // Writing to a Vec cannot fail.
                encoder
                    .write_all(&self.identity)
                    .and_then(|()| encoder.finish())
                    .map(Bytes::from)
                    .ok()
            })
            .as_ref()
    }
}

/// Whether the request's `Accept-Encoding` accepts gzip (by name or `*`, with a weight above 0).
fn accepts_gzip(request: &HttpRequest) -> bool {
    request
        .headers()
        .get_all(header::ACCEPT_ENCODING)
        .filter_map(|value| value.to_str().ok())
        .flat_map(|value| value.split(','))
        .any(|coding| {
            let mut parts = coding.split(';').map(str::trim);
            let name = parts.next().unwrap_or_default();
            let refused = parts.any(|p| {
                p.strip_prefix("q=")
                    .and_then(|q| q.parse::<f32>().ok())
                    .is_some_and(|q| q <= 0.0)
            });
            (name.eq_ignore_ascii_case("gzip") || name == "*") && !refused
        })
}

/// [`respond`] with an [`Encoded`] body: gzipped to a client that accepts it. The gzipped
/// representation's validator is the weak form of `etag` (as nginx does), which `If-None-Match`,
/// comparing weakly, matches as well.
pub fn respond_encoded(
    request: &HttpRequest,
    mut response: HttpResponseBuilder,
    etag: &str,
    content_type: &'static str,
    body: &Encoded,
) -> HttpResponse {
    response.insert_header((header::VARY, "Accept-Encoding"));
    match accepts_gzip(request).then(|| body.gzip()).flatten() {
        Some(gzip) => {
            response.insert_header((header::CONTENT_ENCODING, "gzip"));
            respond(
                request,
                response,
                &format!("W/{etag}"),
                content_type,
                gzip.clone(),
            )
        }
        _ => respond(request, response, etag, content_type, body.identity.clone()),
    }
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

    #[actix_web::test]
    async fn a_long_body_goes_gzipped_to_a_client_that_accepts_it_and_plain_to_others() {
        use std::io::Read;
        let json = format!("{{\"rows\":[{}]}}", vec!["{\"rank\":1}"; 200].join(","));
        let body = Encoded::new(Bytes::from(json.clone()));
        let etag = etag_of(json.as_bytes());
        let ask = |accept: Option<&str>, holding: Option<&str>| {
            let mut request = TestRequest::get();
            if let Some(accept) = accept {
                request = request.insert_header((header::ACCEPT_ENCODING, accept));
            }
            if let Some(holding) = holding {
                request = request.insert_header((header::IF_NONE_MATCH, holding));
            }
            respond_encoded(
                &request.to_http_request(),
                HttpResponse::Ok(),
                &etag,
                "application/json",
                &body,
            )
        };
        let header_of = |answer: &HttpResponse, name| {
            answer
                .headers()
                .get(name)
                .map(|v: &HeaderValue| v.to_str().unwrap().to_owned())
        };
        async fn body_of(answer: HttpResponse) -> Bytes {
            actix_web::body::to_bytes(answer.into_body()).await.unwrap()
        }

        let zipped = ask(Some("br;q=1.0, gzip;q=0.8"), None);
        assert_eq!(
            header_of(&zipped, header::CONTENT_ENCODING).as_deref(),
            Some("gzip")
        );
        assert_eq!(header_of(&zipped, header::ETAG), Some(format!("W/{etag}")));
        assert_eq!(
            header_of(&zipped, header::VARY).as_deref(),
            Some("Accept-Encoding")
        );
        let compressed = body_of(zipped).await;
        assert!(
            compressed.len() * 4 < json.len(),
            "{} of {}",
            compressed.len(),
            json.len()
        );
        let mut unzipped = String::new();
        flate2::read::GzDecoder::new(&compressed[..])
            .read_to_string(&mut unzipped)
            .unwrap();
        assert_eq!(unzipped, json);

        for refusing in [None, Some("identity"), Some("gzip;q=0"), Some("br")] {
            let plain = ask(refusing, None);
            assert_eq!(
                header_of(&plain, header::CONTENT_ENCODING),
                None,
                "{refusing:?}"
            );
            assert_eq!(header_of(&plain, header::ETAG), Some(etag.clone()));
            assert_eq!(body_of(plain).await, json.as_bytes());
        }
        // Either representation's validator means the client holds this version.
        assert_eq!(ask(Some("gzip"), Some(&etag)).status(), 304);
        assert_eq!(ask(None, Some(&format!("W/{etag}"))).status(), 304);
        // A short body is never gzipped.
        let short = Encoded::new(Bytes::from_static(b"{}"));
        assert_eq!(short.kept_bytes(), 2);
        assert_eq!(short.gzip(), None);
    }
}
