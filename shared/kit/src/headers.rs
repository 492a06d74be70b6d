//! The headers every answer carries, as defence in depth behind the escaping and the checks each
//! handler does: browsers neither guess a body's type nor leak a page's address to other sites,
//! and pages get a content security policy that runs only the suite's own served scripts and
//! cannot be framed (so the console's buttons cannot be clicked through from another site).

use actix_web::http::header::{self, HeaderName, HeaderValue};
use actix_web::middleware::DefaultHeaders;

/// The pages' policy: scripts only from the suite's own files (no inline script, no inline
/// handler, no `eval`), forms posted only to the suite, never framed, no `<base>` or plug-ins.
/// Styles may be inline (`style` attributes carry a chart's widths), images may be `data:` URLs.
pub const PAGE_POLICY: &str = "default-src 'self'; script-src 'self'; \
     style-src 'self' 'unsafe-inline'; img-src 'self' data:; frame-ancestors 'none'; \
     form-action 'self'; base-uri 'none'; object-src 'none'";

/// A year, as browsers keep a site's https-only promise.
const HSTS: &str = "max-age=31536000";

/// What every answer of the API carries.
pub fn api() -> DefaultHeaders {
    DefaultHeaders::new()
        .add((
            header::X_CONTENT_TYPE_OPTIONS,
            HeaderValue::from_static("nosniff"),
        ))
        .add((
            header::REFERRER_POLICY,
            HeaderValue::from_static("strict-origin-when-cross-origin"),
        ))
}

/// What every answer of the web app carries: the API's headers, the pages' policy and its
/// older twin against framing, and, when the suite is reached over https, the promise to be
/// reached only so.
pub fn pages(https: bool) -> DefaultHeaders {
    let headers = api()
        .add((
            header::CONTENT_SECURITY_POLICY,
            HeaderValue::from_static(PAGE_POLICY),
        ))
        .add((header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY")));
    if https {
        headers.add((
            HeaderName::from_static("strict-transport-security"),
            HeaderValue::from_static(HSTS),
        ))
    } else {
        headers
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use actix_web::{App, HttpResponse, test, web};

    #[actix_web::test]
    async fn a_page_gets_the_policy_and_hsts_only_over_https() {
        for https in [false, true] {
            let app = test::init_service(
                App::new()
                    .wrap(pages(https))
                    .route("/", web::get().to(HttpResponse::Ok)),
            )
            .await;
            let answer = test::call_service(&app, test::TestRequest::get().to_request()).await;
            let headers = answer.headers();
            let policy = headers
                .get(header::CONTENT_SECURITY_POLICY)
                .unwrap()
                .to_str()
                .unwrap();
            for directive in [
                "script-src 'self'",
                "frame-ancestors 'none'",
                "form-action 'self'",
                "base-uri 'none'",
                "object-src 'none'",
            ] {
                assert!(policy.contains(directive), "{directive} in {policy}");
            }
            let scripts = policy.split("; ").find(|d| d.starts_with("script-src"));
            assert_eq!(
                scripts,
                Some("script-src 'self'"),
                "no inline script of any kind"
            );
            assert_eq!(
                headers.get(header::X_CONTENT_TYPE_OPTIONS).unwrap(),
                "nosniff"
            );
            assert_eq!(headers.get(header::X_FRAME_OPTIONS).unwrap(), "DENY");
            assert_eq!(
                headers.contains_key("strict-transport-security"),
                https,
                "HSTS only when served over https"
            );
        }
    }
}
