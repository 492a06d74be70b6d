//! The proxy: each request goes, unchanged, to a replica of the service that owns its path (at
//! the gateway) or of the entrance's service (at an entrance).

use super::replicas::{ReplicaSet, Resend};
use super::routes::Routes;
use super::{Balancer, Owner, local};
use actix_web::http::StatusCode;
use actix_web::http::header::{HeaderName, HeaderValue};
use actix_web::{HttpRequest, HttpResponse, web};
use catan_api::request_id;
use catan_kit::ApiError;
use catan_kit::auth::REVOKED_KEYS_PATH;
use catan_kit::batch::BATCH_BODY_LIMIT_BYTES;
use catan_kit::client::{CLIENT_ADDR_HEADER, PROXY_SECRET_HEADER, ProxyTrust};
use catan_kit::local_app::LocalService;
use catan_kit::settings::{FORWARDED_HOST, FORWARDED_PROTO, public_url};
use catan_kit::venue_signed::VENUE_COPY_LIMIT_BYTES;
use futures_util::StreamExt;
use std::time::Duration;

/// The header that makes a write safe to send to another replica: a second run replays the first.
const IDEMPOTENCY_KEY: &str = "idempotency-key";

/// Headers that belong to one connection and are not forwarded.
const HOP_BY_HOP: [&str; 8] = [
    "connection",
    "keep-alive",
    "proxy-authenticate",
    "proxy-authorization",
    "te",
    "trailer",
    "transfer-encoding",
    "upgrade",
];

/// The headers with which the gateway tells a service who the client is: never passed on from
/// the client.
const EDGE_HEADERS: [&str; 2] = [CLIENT_ADDR_HEADER, PROXY_SECRET_HEADER];

/// The headers that say where the client reached the suite, which the links the services write
/// start with: the gateway's word only (an edge's in front of it, with the proxy secret), never a
/// client's. `Forwarded` is dropped from everyone: nothing reads it.
const ADDRESS_HEADERS: [&str; 3] = [FORWARDED_HOST, FORWARDED_PROTO, "forwarded"];

/// Forwards the request to the service that owns its path, and its answer back: a stream as it
/// comes, anything else whole.
pub(super) async fn forward(
    req: HttpRequest,
    payload: web::Payload,
    routes: web::Data<Routes>,
    balancer: web::Data<Balancer>,
    http: web::Data<reqwest::Client>,
    trust: web::Data<ProxyTrust>,
) -> Result<HttpResponse, ApiError> {
    let (replicas, streams) = match routes.route_of(req.path()) {
        Some(route) => {
            if let Some(app) = local_app(&req, &balancer, route.owner).await? {
                let headers = forwarded_headers(&req, Some(&trust));
                let request = local::request(&req, headers, payload.into_inner());
                return Ok(app(request).await);
            }
            (balancer.replicas(route.owner), route.streams)
        }
        None => match balancer.web_for(req.path()) {
            Some(web) => (web, false),
            None => return Ok(catan_kit::problem::not_found(req).await),
        },
    };
    let to = Recipients::InTurn(replicas);
    relay(&req, payload, to, streams, &http, Some(&trust)).await
}

/// `owner`'s app, when this process serves it (see [`local`]).
async fn local_app(
    req: &HttpRequest,
    balancer: &Balancer,
    owner: Owner,
) -> Result<Option<LocalService>, ApiError> {
    let Some(built) = req.app_data::<local::Built>() else {
        return Ok(None);
    };
    built
        .app(&balancer.local, owner)
        .await
        .map_err(|e| ApiError::unavailable("a service this call needs did not start", e))
}

/// Forwards any request to the entrance's service (a peer's call), headers as they came.
pub(super) async fn forward_to_peer(
    req: HttpRequest,
    payload: web::Payload,
    owner: web::Data<Owner>,
    routes: web::Data<Routes>,
    balancer: web::Data<Balancer>,
    http: web::Data<reqwest::Client>,
) -> Result<HttpResponse, ApiError> {
    let streams = routes.route_of(req.path()).is_some_and(|r| r.streams);
    let replicas = balancer.replicas(**owner);
    // A revoked key is every replica's to refuse at once, not only the one a turn would pick.
    let to = if req.path().starts_with(REVOKED_KEYS_PATH) {
        Recipients::All(replicas)
    } else {
        Recipients::InTurn(replicas)
    };
    relay(&req, payload, to, streams, &http, None).await
}

/// Who gets a request: the next replica in turn (another when it fails), or every replica.
enum Recipients<'a> {
    InTurn(&'a ReplicaSet),
    All(&'a ReplicaSet),
}

/// Sends the request `to` its replicas (see [`ReplicaSet::send`]) and the answer back. At the edge
/// (`edge` is the gateway's trust), the client's address is told in the gateway's word and the
/// request is logged under the gateway's id; else every header goes as it came.
async fn relay(
    req: &HttpRequest,
    payload: web::Payload,
    to: Recipients<'_>,
    streams: bool,
    http: &reqwest::Client,
    edge: Option<&ProxyTrust>,
) -> Result<HttpResponse, ApiError> {
    let body = read_body(payload, body_limit(req.path())).await?;
    let path_and_query = req
        .uri()
        .path_and_query()
        .map(|p| p.as_str())
        .unwrap_or("/");
    let method = reqwest::Method::from_bytes(req.method().as_str().as_bytes())
        .map_err(ApiError::internal)?;
    let headers = forwarded_headers(req, edge);
    let resend = Resend::of(req.method(), req.headers().contains_key(IDEMPOTENCY_KEY));
    let build = |base: &str| {
        let mut upstream = http
            .request(method.clone(), format!("{base}{path_and_query}"))
            .body(body.clone());
        if streams {
            // A server-sent event stream stays open as long as its reader: no overall timeout.
            upstream = upstream.timeout(STREAM_TIMEOUT);
        }
        for (name, value) in &headers {
            upstream = upstream.header(name.as_str(), value.as_bytes());
        }
        upstream
    };
    let sent = match to {
        Recipients::InTurn(replicas) => replicas.send(resend, build).await,
        Recipients::All(replicas) => replicas.send_to_all(build).await,
    };
    let answer = sent.map_err(|e| {
        ApiError::unavailable("a service this call needs is unavailable; retry later", e)
    })?;
    let mut response = HttpResponse::build(
        StatusCode::from_u16(answer.status().as_u16()).map_err(ApiError::internal)?,
    );
    for (name, value) in answer.headers() {
        if !HOP_BY_HOP.contains(&name.as_str()) && name.as_str() != "content-length" {
            response.append_header((name.as_str(), value.as_bytes()));
        }
    }
    if is_event_stream(&answer) {
        // Passed on chunk by chunk as it comes, never buffered.
        let chunks = futures_util::stream::unfold(Some(answer), |answer| async move {
            let mut answer = answer?;
            match answer.chunk().await {
                Ok(Some(chunk)) => Some((Ok(chunk), Some(answer))),
                Ok(None) => None,
                Err(e) => Some((Err(actix_web::error::ErrorBadGateway(e)), None)),
            }
        });
        return Ok(response.streaming(chunks));
    }
    let bytes = answer.bytes().await.map_err(|e| {
        ApiError::unavailable("a service this call needs did not finish its answer", e)
    })?;
    Ok(response.body(bytes))
}

/// The headers a service gets with `req`. At the edge (`edge` is the gateway's trust), the
/// client's address is told in the gateway's word and the request is logged under the gateway's
/// id; else every header goes as it came.
fn forwarded_headers(
    req: &HttpRequest,
    edge: Option<&ProxyTrust>,
) -> Vec<(HeaderName, HeaderValue)> {
    let mut headers = Vec::new();
    // An edge in front of the gateway that has the secret says where the client reached it.
    let told = edge
        .is_some_and(|trust| trust.vouches_for(req) && req.headers().contains_key(FORWARDED_HOST));
    for (name, value) in req.headers() {
        let name_is = |names: &[&str]| names.contains(&name.as_str());
        let edges_address = told && name != "forwarded";
        let from_edge = edge.is_some()
            && (name.as_str() == request_id::HEADER
                || name_is(&EDGE_HEADERS)
                || (name_is(&ADDRESS_HEADERS) && !edges_address));
        if name != actix_web::http::header::HOST
            && !HOP_BY_HOP.contains(&name.as_str())
            && !from_edge
        {
            headers.push((name.clone(), value.clone()));
        }
    }
    if let Some(trust) = edge {
        // Where the client reached the suite: this gateway, at the host it was asked for.
        if !told && let Some(host) = received_host(req) {
            headers.push((HeaderName::from_static(FORWARDED_HOST), host));
            headers.push((
                HeaderName::from_static(FORWARDED_PROTO),
                HeaderValue::from_static("http"),
            ));
        }
        // The client's address, in the gateway's word only: whatever the client sent there is
        // dropped.
        for (name, value) in trust.edge_headers(trust.peer_of(req)) {
            if let Ok(value) = HeaderValue::try_from(value) {
                headers.push((HeaderName::from_static(name), value));
            }
        }
        // The service logs the request under the gateway's id.
        if let Some(value) = request_id::current().and_then(|id| HeaderValue::try_from(id).ok()) {
            headers.push((HeaderName::from_static(request_id::HEADER), value));
        }
    }
    headers
}

/// The host the request was sent to, as the gateway received it (its `Host`), when it is one.
fn received_host(req: &HttpRequest) -> Option<HeaderValue> {
    let host = req
        .headers()
        .get(actix_web::http::header::HOST)
        .and_then(|v| v.to_str().ok())
        .or_else(|| req.uri().authority().map(|a| a.as_str()))?;
    HeaderValue::try_from(public_url::authority(host)?).ok()
}

/// The largest body a service takes on `path`: a venue's copy of an event, or else a batch
/// route's. Each service holds each route to its own limit.
fn body_limit(path: &str) -> usize {
    let venue_copy = path
        .strip_prefix("/v1/events/")
        .and_then(|rest| rest.split_once('/'))
        .is_some_and(|(_, rest)| rest == "venue-copy" || rest.starts_with("venue-copy/"));
    if venue_copy {
        VENUE_COPY_LIMIT_BYTES
    } else {
        BATCH_BODY_LIMIT_BYTES
    }
}

/// The request's body, up to `limit` bytes.
async fn read_body(mut payload: web::Payload, limit: usize) -> Result<web::Bytes, ApiError> {
    let mut body = web::BytesMut::new();
    while let Some(chunk) = payload.next().await {
        let chunk = chunk.map_err(|e| ApiError::BadRequest(format!("unreadable body: {e}")))?;
        if body.len() + chunk.len() > limit {
            return Err(ApiError::PayloadTooLarge(format!(
                "the body is larger than {limit} bytes"
            )));
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body.freeze())
}

/// How long the gateway keeps a stream open at most.
const STREAM_TIMEOUT: Duration = Duration::from_secs(24 * 3600);

fn is_event_stream(answer: &reqwest::Response) -> bool {
    answer
        .headers()
        .get(reqwest::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("text/event-stream"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use actix_web::test::TestRequest;

    fn address_headers(req: &HttpRequest, trust: &ProxyTrust) -> Vec<(String, String)> {
        forwarded_headers(req, Some(trust))
            .into_iter()
            .filter(|(name, _)| ADDRESS_HEADERS.contains(&name.as_str()))
            .map(|(name, value)| (name.to_string(), value.to_str().unwrap().to_owned()))
            .collect()
    }

    #[test]
    fn the_services_learn_the_host_the_gateway_was_asked_for_never_one_a_client_claims() {
        let trust = ProxyTrust::new(Some("cps_edge".into()));
        let forged = TestRequest::default()
            .insert_header(("host", "192.168.1.20:8080"))
            .insert_header((FORWARDED_HOST, "evil.example"))
            .insert_header((FORWARDED_PROTO, "https"))
            .insert_header(("forwarded", "host=evil.example"))
            .to_http_request();
        let told = |host: &str, proto: &str| {
            vec![
                (FORWARDED_HOST.to_owned(), host.to_owned()),
                (FORWARDED_PROTO.to_owned(), proto.to_owned()),
            ]
        };
        assert_eq!(
            address_headers(&forged, &trust),
            told("192.168.1.20:8080", "http")
        );
        // An edge in front of the gateway, with the secret, says where its client came.
        let from_edge = TestRequest::default()
            .insert_header(("host", "127.0.0.1:8080"))
            .insert_header((FORWARDED_HOST, "catan.example.org"))
            .insert_header((FORWARDED_PROTO, "https"))
            .insert_header(("forwarded", "host=evil.example"))
            .insert_header((PROXY_SECRET_HEADER, "cps_edge"))
            .to_http_request();
        assert_eq!(
            address_headers(&from_edge, &trust),
            told("catan.example.org", "https")
        );
    }

    #[test]
    fn only_a_venues_copy_of_an_event_may_be_larger_than_a_batch() {
        for path in [
            "/v1/events/7f1b9a52/venue-copy",
            "/v1/events/7f1b9a52/venue-copy/rounds",
            "/v1/events/7f1b9a52/venue-copy/results",
        ] {
            assert_eq!(body_limit(path), VENUE_COPY_LIMIT_BYTES, "{path}");
        }
        for path in [
            "/v1/events/7f1b9a52/rounds/1/results",
            "/v1/events/venue-copy",
            "/v1/players/7f1b9a52/venue-copy",
        ] {
            assert_eq!(body_limit(path), BATCH_BODY_LIMIT_BYTES, "{path}");
        }
    }
}
