//! One base URL for the whole v1 API: each request is forwarded to the service that owns its
//! path. The gateway also serves the merged OpenAPI document and its browsable UI.

use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, web};
use catan_kit::ApiError;
use catan_kit::server::{BODY_LIMIT_BYTES, RunningServer};
use futures_util::StreamExt;
use std::net::TcpListener;
use std::time::Duration;
use utoipa::openapi::OpenApi;
use utoipa_swagger_ui::SwaggerUi;

/// Which service owns a path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Owner {
    Registration,
    Pairing,
    Results,
    Ranking,
}

/// Routes by the path's segments, as the v1 contract lays them out.
pub fn owner_of(path: &str) -> Option<Owner> {
    let segments: Vec<&str> = path.trim_start_matches('/').split('/').collect();
    match segments.as_slice() {
        [".well-known", ..] => Some(Owner::Registration),
        ["v1", "webhooks", ..] => Some(Owner::Registration),
        [
            "v1",
            "auth" | "admin" | "api-keys" | "regions" | "players",
            ..,
        ] => Some(Owner::Registration),
        ["v1", "events", _, "rounds", _, "tables", _, "result", ..] => Some(Owner::Results),
        ["v1", "events", _, "rounds", _, "results"] => Some(Owner::Results),
        ["v1", "events", _, "results"] => Some(Owner::Results),
        ["v1", "events", _, "rounds" | "keep-apart", ..] => Some(Owner::Pairing),
        ["v1", "events", _, "standings" | "placements"] => Some(Owner::Ranking),
        ["v1", "events", _, "standings", "stream"] => Some(Owner::Ranking),
        ["v1", "events", ..] => Some(Owner::Registration),
        _ => None,
    }
}

#[derive(Clone)]
pub struct Upstreams {
    pub registration: String,
    pub pairing: String,
    pub results: String,
    pub ranking: String,
}

impl Upstreams {
    fn url(&self, owner: Owner) -> &str {
        match owner {
            Owner::Registration => &self.registration,
            Owner::Pairing => &self.pairing,
            Owner::Results => &self.results,
            Owner::Ranking => &self.ranking,
        }
    }
}

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

async fn forward(
    req: HttpRequest,
    mut payload: web::Payload,
    upstreams: web::Data<Upstreams>,
    http: web::Data<reqwest::Client>,
) -> Result<HttpResponse, ApiError> {
    let Some(owner) = owner_of(req.path()) else {
        return Ok(catan_kit::problem::not_found(req).await);
    };
    let mut body = web::BytesMut::new();
    while let Some(chunk) = payload.next().await {
        let chunk = chunk.map_err(|e| ApiError::BadRequest(format!("unreadable body: {e}")))?;
        if body.len() + chunk.len() > BODY_LIMIT_BYTES {
            return Err(ApiError::PayloadTooLarge(format!(
                "the body is larger than {BODY_LIMIT_BYTES} bytes"
            )));
        }
        body.extend_from_slice(&chunk);
    }
    let path_and_query = req
        .uri()
        .path_and_query()
        .map(|p| p.as_str())
        .unwrap_or("/");
    let url = format!("{}{}", upstreams.url(owner), path_and_query);
    let method = reqwest::Method::from_bytes(req.method().as_str().as_bytes())
        .map_err(ApiError::internal)?;
    let mut upstream = http.request(method, url).body(body.freeze());
    if is_stream(req.path()) {
        // A server-sent event stream stays open as long as its reader: no overall timeout.
        upstream = upstream.timeout(STREAM_TIMEOUT);
    }
    for (name, value) in req.headers() {
        if name != actix_web::http::header::HOST && !HOP_BY_HOP.contains(&name.as_str()) {
            upstream = upstream.header(name.as_str(), value.as_bytes());
        }
    }
    let answer = upstream.send().await.map_err(|e| {
        ApiError::Unavailable(format!("the {owner:?} service did not answer: {e}").to_lowercase())
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
    let bytes = answer
        .bytes()
        .await
        .map_err(|e| ApiError::Unavailable(e.to_string()))?;
    Ok(response.body(bytes))
}

/// How long the gateway keeps a stream open at most.
const STREAM_TIMEOUT: Duration = Duration::from_secs(24 * 3600);

/// Paths that answer server-sent events.
fn is_stream(path: &str) -> bool {
    let segments: Vec<&str> = path.trim_start_matches('/').split('/').collect();
    matches!(
        segments.as_slice(),
        ["v1", "events", _, "standings", "stream"]
    )
}

fn is_event_stream(answer: &reqwest::Response) -> bool {
    answer
        .headers()
        .get(reqwest::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("text/event-stream"))
}

/// The v1 API of all four services as one OpenAPI document.
pub fn merged_openapi() -> OpenApi {
    use utoipa::openapi::security::{Http, HttpAuthScheme, SecurityScheme};
    let mut doc = catan_registration::openapi();
    doc.merge(catan_pairing::openapi());
    doc.merge(catan_results::openapi());
    doc.merge(catan_ranking::openapi());
    doc.info = utoipa::openapi::InfoBuilder::new()
        .title("Catan tournaments API")
        .version("1.0.0")
        .description(Some(
            "Registration, pairing, results and ranking of Settlers of Catan tournaments. Errors are RFC 9457 problem+json.",
        ))
        .build();
    let components = doc.components.get_or_insert_with(Default::default);
    let mut bearer = Http::new(HttpAuthScheme::Bearer);
    bearer.bearer_format = Some("JWT".into());
    components.add_security_scheme("bearer", SecurityScheme::Http(bearer));
    for item in doc.paths.paths.values_mut() {
        for operation in [
            &mut item.get,
            &mut item.put,
            &mut item.post,
            &mut item.delete,
        ]
        .into_iter()
        .flatten()
        {
            document_errors(operation);
        }
    }
    constrain_text(&mut doc);
    link_operations(&mut doc);
    doc
}

/// Rust's whitespace (`char::is_whitespace`), which `str::trim` removes.
const SPACE: &str =
    r"[\u0009-\u000D\u0020\u0085\u00A0\u1680\u2000-\u200A\u2028\u2029\u202F\u205F\u3000]";
/// Neither whitespace nor a control character (`char::is_control`).
const VISIBLE: &str =
    r"[^\u0000-\u0020\u007F-\u00A0\u1680\u2000-\u200A\u2028\u2029\u202F\u205F\u3000]";
/// Not a control character.
const NOT_CONTROL: &str = r"[^\u0000-\u001F\u007F-\u009F]";

/// What the services accept as a name or reason of at most `max` characters (`valid_name` in
/// registration, the dispute's reason in results): once trimmed of whitespace, 1 to `max`
/// characters without control characters. The whitespace around is not counted, so the bound is
/// in the pattern rather than a `maxLength`.
pub fn text_pattern(max: usize) -> String {
    let inner = max.saturating_sub(2);
    format!("^{SPACE}*{VISIBLE}(?:{NOT_CONTROL}{{0,{inner}}}{VISIBLE})?{SPACE}*$")
}

/// Every bounded text field of a request (`minLength` 1 and a `maxLength`: names, team names,
/// reasons) is checked by the rule of `text_pattern`, the same for all of them: the pattern
/// replaces the `maxLength`.
fn constrain_text(doc: &mut OpenApi) {
    use utoipa::openapi::{RefOr, Schema};
    let Some(components) = doc.components.as_mut() else {
        return;
    };
    for schema in components.schemas.values_mut() {
        let RefOr::T(Schema::Object(object)) = schema else {
            continue;
        };
        for property in object.properties.values_mut() {
            if let RefOr::T(Schema::Object(text)) = property
                && let (Some(1), Some(max), None) =
                    (text.min_length, text.max_length, &text.pattern)
            {
                text.pattern = Some(text_pattern(max));
                text.max_length = None;
                let rule = format!(
                    "1 to {max} characters once trimmed of whitespace, without control characters."
                );
                text.description = Some(match text.description.take() {
                    Some(d) if !d.is_empty() => format!("{d} {rule}"),
                    _ => rule,
                });
            }
        }
    }
}

/// OpenAPI links from each operation that creates something to those that read or use it, so
/// that clients (and stateful testers) can follow the API's own flow: an event leads to its
/// entries, rounds, results and standings; a round to its tables' results and boards.
fn link_operations(doc: &mut OpenApi) {
    use serde_json::{Value, json};
    use utoipa::openapi::RefOr;
    use utoipa::openapi::link::LinkBuilder;
    const EVENT: &str = "$response.body#/event_id";
    let event = json!({"event_id": "$response.body#/id"});
    let round = json!({"event_id": EVENT, "number": "$response.body#/number"});
    let round_as_round = json!({"event_id": EVENT, "round": "$response.body#/number"});
    let first_table = json!({"event_id": EVENT, "round": "$response.body#/number", "table": "$response.body#/tables/0/number"});
    let first_board = json!({"event_id": EVENT, "number": "$response.body#/number", "table": "$response.body#/tables/0/number"});
    let result = json!({"event_id": EVENT, "round": "$response.body#/round", "table": "$response.body#/table"});
    let result_round = json!({"event_id": EVENT, "round": "$response.body#/round"});
    let by_event = json!({"event_id": EVENT});
    let links: Vec<(&str, &str, &str, Value)> = vec![
        ("create_event", "201", "get_event", event.clone()),
        ("create_event", "201", "create_entry", event.clone()),
        ("create_event", "201", "list_entries", event.clone()),
        ("create_event", "201", "draw_round", event.clone()),
        ("create_event", "201", "list_rounds", event.clone()),
        ("create_event", "201", "result_changes", event.clone()),
        ("create_event", "201", "standings", event.clone()),
        ("create_event", "201", "standings_stream", event.clone()),
        ("create_event", "201", "event_placements", event.clone()),
        (
            "create_entry",
            "201",
            "drop_entry",
            json!({"event_id": EVENT, "entry_id": "$response.body#/id"}),
        ),
        ("create_entry", "201", "list_entries", by_event.clone()),
        ("create_entry", "201", "draw_round", by_event.clone()),
        (
            "create_player",
            "201",
            "get_player",
            json!({"player_id": "$response.body#/id"}),
        ),
        ("draw_round", "201", "get_round", round.clone()),
        ("draw_round", "201", "round_results", round_as_round.clone()),
        ("draw_round", "201", "table_board", first_board.clone()),
        ("draw_round", "201", "submit_result", first_table.clone()),
        ("draw_round", "201", "get_result", first_table.clone()),
        ("draw_round", "201", "result_history", first_table.clone()),
        ("submit_result", "201", "get_result", result.clone()),
        ("submit_result", "201", "result_history", result.clone()),
        (
            "submit_result",
            "201",
            "round_results",
            result_round.clone(),
        ),
        ("submit_result", "201", "standings", by_event.clone()),
        ("submit_result", "201", "draw_round", by_event.clone()),
        (
            "create_webhook",
            "201",
            "get_webhook",
            json!({"webhook_id": "$response.body#/id"}),
        ),
        (
            "create_webhook",
            "201",
            "list_deliveries",
            json!({"webhook_id": "$response.body#/id"}),
        ),
        (
            "create_webhook",
            "201",
            "delete_webhook",
            json!({"webhook_id": "$response.body#/id"}),
        ),
    ];
    let mut operations: std::collections::HashMap<String, &mut utoipa::openapi::path::Operation> =
        std::collections::HashMap::new();
    for item in doc.paths.paths.values_mut() {
        for operation in [
            &mut item.get,
            &mut item.put,
            &mut item.post,
            &mut item.delete,
        ]
        .into_iter()
        .flatten()
        {
            if let Some(id) = operation.operation_id.clone() {
                operations.insert(id, operation);
            }
        }
    }
    let known: std::collections::HashSet<String> = operations.keys().cloned().collect();
    for (from, status, to, parameters) in links {
        assert!(known.contains(to), "a link to the unknown operation {to}");
        let operation = operations
            .get_mut(from)
            .unwrap_or_else(|| panic!("a link from the unknown operation {from}"));
        let Some(RefOr::T(response)) = operation.responses.responses.get_mut(status) else {
            panic!("a link from {from}'s missing {status} response");
        };
        let mut link = LinkBuilder::new().operation_id(to);
        for (name, value) in parameters.as_object().into_iter().flatten() {
            link = link.parameter(name, value.clone());
        }
        response
            .links
            .insert(to.to_string(), RefOr::T(link.build()));
    }
}

/// Every error an operation can answer, documented where the handler's annotation leaves it
/// out: the framework's own (malformed JSON, oversized body, a path or query that does not
/// parse) and the service's (a database or peer that does not answer), all problem+json; and a
/// description on every response, as OpenAPI requires.
fn document_errors(operation: &mut utoipa::openapi::path::Operation) {
    use utoipa::openapi::path::ParameterIn;
    use utoipa::openapi::{ContentBuilder, RefOr, ResponseBuilder};
    let parameters: Vec<ParameterIn> = operation
        .parameters
        .iter()
        .flatten()
        .filter_map(|p| match p {
            RefOr::T(p) => Some(p.parameter_in.clone()),
            RefOr::Ref(_) => None,
        })
        .collect();
    let mut standard: Vec<(&str, &str)> = vec![
        (
            "500",
            "An unexpected error; its detail is logged, not shown",
        ),
        (
            "503",
            "A database or service this call needs did not answer; nothing was written",
        ),
    ];
    if operation.request_body.is_some() {
        standard.push(("400", "The body is not JSON"));
        standard.push(("413", "The body is larger than 64 KiB"));
        standard.push((
            "422",
            "The body does not fit the schema or breaks a rule; `errors` names each field",
        ));
    }
    if parameters.iter().any(|p| matches!(p, ParameterIn::Path)) {
        standard.push((
            "404",
            "No such resource (or a path parameter that does not parse)",
        ));
    }
    if parameters.iter().any(|p| matches!(p, ParameterIn::Query)) {
        standard.push(("422", "A query parameter that does not parse"));
    }
    if operation.security.is_some() {
        standard.push((
            "401",
            "No token, or one that is expired, not yet valid, tampered with or foreign",
        ));
        standard.push(("403", "The token's role or events do not allow this"));
        standard.push((
            "429",
            "This API key is over its rate limit; retry after `Retry-After` seconds",
        ));
    }
    let problem = ContentBuilder::new()
        .schema(Some(RefOr::Ref(utoipa::openapi::Ref::from_schema_name(
            "Problem",
        ))))
        .build();
    for (status, description) in standard {
        operation
            .responses
            .responses
            .entry(status.to_string())
            .or_insert_with(|| {
                RefOr::T(
                    ResponseBuilder::new()
                        .description(description)
                        .content(catan_kit::problem::PROBLEM_JSON, problem.clone())
                        .build(),
                )
            });
    }
    for (status, response) in operation.responses.responses.iter_mut() {
        if let RefOr::T(response) = response
            && response.description.is_empty()
        {
            response.description = describe(status).to_string();
        }
    }
}

fn describe(status: &str) -> &'static str {
    match status {
        "200" => "OK",
        "201" => "Created",
        "400" => "The body is not JSON",
        "401" => "No token, or one that is expired, not yet valid, tampered with or foreign",
        "403" => "The token's role or events do not allow this",
        "404" => "No such resource",
        "409" => "The request conflicts with the current state",
        "412" => "The resource changed since the ETag given in If-Match",
        "413" => "The body is larger than 64 KiB",
        "422" => "The request breaks a rule; `errors` names each field",
        "428" => "The request must carry If-Match",
        "429" => "This API key is over its rate limit; retry after `Retry-After` seconds",
        "503" => "A database or service this call needs did not answer; nothing was written",
        _ => "See the problem document",
    }
}

/// The merged document as the committed `openapi/openapi.json` holds it.
pub fn openapi_json() -> String {
    merged_openapi()
        .to_pretty_json()
        .expect("the OpenAPI document serialises")
}

pub fn start(listener: TcpListener, upstreams: Upstreams) -> std::io::Result<RunningServer> {
    let addr = listener.local_addr()?;
    let http = reqwest::Client::builder()
        .timeout(Duration::from_secs(30))
        .build()
        .map_err(std::io::Error::other)?;
    let upstreams = web::Data::new(upstreams);
    let http = web::Data::new(http);
    let openapi = merged_openapi();
    let server = actix_web::HttpServer::new(move || {
        actix_web::App::new()
            .app_data(upstreams.clone())
            .app_data(http.clone())
            .service(SwaggerUi::new("/docs/{_:.*}").url("/openapi.json", openapi.clone()))
            .route(
                "/health",
                web::get()
                    .to(|| async { HttpResponse::Ok().json(serde_json::json!({"status": "ok"})) }),
            )
            .default_service(web::to(forward))
            .wrap(actix_web::middleware::from_fn(
                catan_kit::server::log_request,
            ))
    })
    .workers(2)
    .listen(listener)?
    .run();
    tracing::info!(%addr, "gateway listening");
    Ok(RunningServer::spawn(server, addr))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_committed_openapi_document_is_the_code_s() {
        let committed = include_str!("../../../openapi/openapi.json");
        assert!(
            committed.trim_end() == openapi_json().trim_end(),
            "openapi/openapi.json differs from the code's spec; regenerate it with:\n    cargo run -q -p catan-suite -- openapi > openapi/openapi.json"
        );
    }

    #[test]
    fn every_operation_of_the_contract_is_documented() {
        let doc = merged_openapi();
        for (path, method) in [
            ("/v1/auth/token", "post"),
            ("/.well-known/jwks.json", "get"),
            ("/v1/api-keys", "post"),
            ("/v1/regions", "post"),
            ("/v1/players", "post"),
            ("/v1/events", "post"),
            ("/v1/events/{event_id}", "get"),
            ("/v1/events/{event_id}/entries", "post"),
            ("/v1/events/{event_id}/entries", "get"),
            ("/v1/events/{event_id}/entries/{entry_id}/drop", "post"),
            ("/v1/events/{event_id}/rounds", "post"),
            ("/v1/events/{event_id}/rounds/{number}", "get"),
            (
                "/v1/events/{event_id}/rounds/{round}/tables/{table}/result",
                "put",
            ),
            (
                "/v1/events/{event_id}/rounds/{round}/tables/{table}/result",
                "get",
            ),
            ("/v1/events/{event_id}/standings", "get"),
            ("/v1/events/{event_id}/placements", "get"),
        ] {
            let item = doc
                .paths
                .paths
                .get(path)
                .unwrap_or_else(|| panic!("{path} is documented"));
            let json = serde_json::to_value(item).expect("path item");
            assert!(json.get(method).is_some(), "{method} {path} is documented");
        }
    }

    #[test]
    fn paths_go_to_the_service_that_owns_them() {
        let e = "3f1c6a0e-0000-4000-8000-000000000000";
        assert_eq!(owner_of("/v1/auth/token"), Some(Owner::Registration));
        assert_eq!(
            owner_of("/.well-known/jwks.json"),
            Some(Owner::Registration)
        );
        assert_eq!(
            owner_of(&format!("/v1/events/{e}")),
            Some(Owner::Registration)
        );
        assert_eq!(
            owner_of(&format!("/v1/events/{e}/entries/x/drop")),
            Some(Owner::Registration)
        );
        assert_eq!(
            owner_of(&format!("/v1/events/{e}/rounds")),
            Some(Owner::Pairing)
        );
        assert_eq!(
            owner_of(&format!("/v1/events/{e}/rounds/2")),
            Some(Owner::Pairing)
        );
        assert_eq!(
            owner_of(&format!("/v1/events/{e}/rounds/2/tables/3/result")),
            Some(Owner::Results)
        );
        assert_eq!(
            owner_of(&format!("/v1/events/{e}/rounds/2/tables/3/result/history")),
            Some(Owner::Results)
        );
        assert_eq!(
            owner_of(&format!("/v1/events/{e}/rounds/2/results")),
            Some(Owner::Results)
        );
        assert_eq!(
            owner_of(&format!("/v1/events/{e}/standings")),
            Some(Owner::Ranking)
        );
        assert_eq!(
            owner_of(&format!("/v1/events/{e}/placements")),
            Some(Owner::Ranking)
        );
        assert_eq!(
            owner_of(&format!("/v1/events/{e}/standings/stream")),
            Some(Owner::Ranking)
        );
        assert_eq!(
            owner_of(&format!("/v1/webhooks/{e}/deliveries")),
            Some(Owner::Registration)
        );
        assert_eq!(owner_of("/internal/webhook-events"), None);
        assert_eq!(owner_of("/nothing"), None);
    }
}
