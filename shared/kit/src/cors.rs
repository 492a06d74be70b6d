//! Cross-origin requests: a league dashboard or a club's site on another origin reads the public
//! API straight from its visitors' browsers (any origin may read), while writing from a browser
//! is kept to the sites an operator lists (`CATAN_CORS_WRITE_ORIGINS`). Tokens travel in the
//! `Authorization` header, never in cookies, so no credentials are allowed across origins.

use actix_cors::Cors;
use actix_web::dev::RequestHead;
use actix_web::http::{Method, header};
use std::collections::HashSet;

/// The request headers a client of the API may send, as the spec declares them.
const REQUEST_HEADERS: [&str; 8] = [
    "authorization",
    "content-type",
    "accept",
    "accept-language",
    "if-match",
    "if-none-match",
    "idempotency-key",
    "catan-position",
];

/// The answer's headers a client's script may read besides the simple ones.
const EXPOSED_HEADERS: [&str; 7] = [
    "etag",
    "location",
    "retry-after",
    "warning",
    "catan-position",
    "x-request-id",
    "content-encoding",
];

/// The policy: reads from anywhere, writes from `write_origins` only; preflights answered.
pub fn policy(write_origins: &[String]) -> Cors {
    let writers: HashSet<String> = write_origins.iter().cloned().collect();
    Cors::default()
        .allowed_origin_fn(move |origin, head| {
            reads(head) || origin.to_str().is_ok_and(|o| writers.contains(o))
        })
        .allow_any_method()
        .allowed_headers(REQUEST_HEADERS)
        .expose_headers(EXPOSED_HEADERS)
        .max_age(3600)
}

/// Whether `head` reads: a GET or HEAD, or a preflight asking for one.
fn reads(head: &RequestHead) -> bool {
    let method = if head.method == Method::OPTIONS {
        head.headers()
            .get(header::ACCESS_CONTROL_REQUEST_METHOD)
            .and_then(|m| Method::from_bytes(m.as_bytes()).ok())
    } else {
        Some(head.method.clone())
    };
    matches!(method, Some(Method::GET | Method::HEAD))
}

#[cfg(test)]
mod tests {
    use super::*;
    use actix_web::{App, HttpResponse, test, web};

    /// The origin an answer lets read it, if any.
    fn allowed<B>(answer: &actix_web::dev::ServiceResponse<B>) -> Option<String> {
        answer
            .headers()
            .get(header::ACCESS_CONTROL_ALLOW_ORIGIN)
            .map(|o| o.to_str().unwrap().to_owned())
    }

    #[actix_web::test]
    async fn any_site_reads_and_only_a_listed_site_writes() {
        let app = test::init_service(
            App::new()
                .wrap(policy(&["https://club.example".to_owned()]))
                .route("/v1/events", web::get().to(HttpResponse::Ok))
                .route("/v1/events", web::post().to(HttpResponse::Created)),
        )
        .await;
        let preflight = |origin: &str, method: &str| {
            test::TestRequest::default()
                .method(Method::OPTIONS)
                .uri("/v1/events")
                .insert_header((header::ORIGIN, origin))
                .insert_header((header::ACCESS_CONTROL_REQUEST_METHOD, method))
                .insert_header((
                    header::ACCESS_CONTROL_REQUEST_HEADERS,
                    "authorization, idempotency-key",
                ))
                .to_request()
        };
        let read = test::call_service(&app, preflight("https://league.example", "GET")).await;
        assert!(read.status().is_success());
        assert_eq!(allowed(&read).as_deref(), Some("https://league.example"));
        let write = test::call_service(&app, preflight("https://league.example", "POST")).await;
        assert!(
            write.status().is_client_error(),
            "an unlisted site may not write"
        );
        assert_eq!(allowed(&write), None);
        let listed = test::call_service(&app, preflight("https://club.example", "POST")).await;
        assert!(listed.status().is_success());
        assert_eq!(allowed(&listed).as_deref(), Some("https://club.example"));
        let get = test::TestRequest::get()
            .uri("/v1/events")
            .insert_header((header::ORIGIN, "https://league.example"))
            .to_request();
        let answer = test::call_service(&app, get).await;
        assert_eq!(allowed(&answer).as_deref(), Some("https://league.example"));
        let plain = test::call_service(
            &app,
            test::TestRequest::get().uri("/v1/events").to_request(),
        )
        .await;
        assert!(
            plain.status().is_success(),
            "a request without an origin is not a browser's"
        );
    }
}
