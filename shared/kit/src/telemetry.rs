//! Logs through `tracing`: `RUST_LOG` filters (default `info`), `LOG_FORMAT=json` for machines.
//!
//! Every request runs in a span (tracing-actix-web) with its own `request_id` and a
//! `correlation_id`: the caller's `x-request-id` when it sends a valid one, else the request's own
//! id. The correlation id is answered in the response's `x-request-id` and sent on with every call
//! to another service, so one request can be followed across the four services' logs.

use actix_web::body::MessageBody;
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::header::{HeaderName, HeaderValue};
use actix_web::middleware::Next;
use actix_web::{Error, HttpMessage};
use catan_api::request_id;
use tracing::Span;
use tracing_actix_web::{DefaultRootSpanBuilder, RequestId, RootSpanBuilder};
use tracing_subscriber::EnvFilter;

/// Installs the global subscriber once; later calls (tests start many services) do nothing.
pub fn init() {
    init_with_default("info");
}

/// [`init`], logging what `default` lets through when `RUST_LOG` is not set.
pub fn init_with_default(default: &str) {
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new(default));
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_target(false);
    let _ = if std::env::var("LOG_FORMAT").is_ok_and(|f| f == "json") {
        builder.json().try_init()
    } else {
        builder.try_init()
    };
}

/// The correlation id of the request: the caller's `x-request-id` if valid, else the id
/// tracing-actix-web made for this request.
fn request_id_of(req: &ServiceRequest) -> String {
    req.headers()
        .get(request_id::HEADER)
        .and_then(|v| v.to_str().ok())
        .filter(|id| request_id::is_valid(id))
        .map(str::to_owned)
        .or_else(|| req.extensions().get::<RequestId>().map(ToString::to_string))
        .unwrap_or_default()
}

/// The root span of every request: tracing-actix-web's fields, with the propagated request id.
pub struct RequestSpan;

impl RootSpanBuilder for RequestSpan {
    fn on_request_start(request: &ServiceRequest) -> Span {
        let id = request_id_of(request);
        tracing_actix_web::root_span!(request, correlation_id = %id)
    }

    fn on_request_end<B: MessageBody>(span: Span, outcome: &Result<ServiceResponse<B>, Error>) {
        let status = match outcome {
            Ok(response) => response.response().status().as_u16(),
            Err(error) => error.as_response_error().status_code().as_u16(),
        };
        // One line per request, inside its span (method, route, ids).
        tracing::info!(parent: &span, status, "request");
        DefaultRootSpanBuilder::on_request_end(span, outcome);
    }
}

/// Makes the request id current for the handler (so [`catan_api::ApiClient`] sends it on) and
/// answers it in `x-request-id`.
pub async fn propagate_request_id(
    req: ServiceRequest,
    next: Next<impl MessageBody>,
) -> Result<ServiceResponse<impl MessageBody>, Error> {
    let id = request_id_of(&req);
    let mut response = request_id::scope(id.clone(), next.call(req)).await?;
    if let Ok(value) = HeaderValue::from_str(&id) {
        response
            .headers_mut()
            .insert(HeaderName::from_static(request_id::HEADER), value);
    }
    Ok(response)
}
