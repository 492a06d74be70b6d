//! One base URL for the whole v1 API: each request is forwarded to the service that owns its
//! path. The gateway also serves the merged OpenAPI document and its browsable UI.

mod proxy;
mod routes;

pub use routes::{Route, Routes, has_dot_segment};

use actix_web::body::{EitherBody, MessageBody};
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::middleware::Next;
use actix_web::{HttpResponse, ResponseError, web};
use catan_kit::ApiError;
use catan_kit::client::ProxyTrust;
use catan_kit::server::RunningServer;
use std::net::TcpListener;
use std::time::Duration;
use utoipa_swagger_ui::SwaggerUi;

/// Which service owns a path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Owner {
    Registration,
    Pairing,
    Results,
    Ranking,
}

/// Where each service answers.
#[derive(Clone)]
pub struct Upstreams {
    pub registration: String,
    pub pairing: String,
    pub results: String,
    pub ranking: String,
    /// The web app (`services/web`), served at every path no service owns outside `/v1/`.
    pub web: Option<String>,
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

    /// The web app, for a path that is none of the API's: `/v1/`, `/internal/`, `/.well-known/`
    /// and `/metrics` stay the services' (a 404 problem there when none owns it).
    fn web_for(&self, path: &str) -> Option<&str> {
        let api = ["/v1", "/internal", "/.well-known", "/metrics"]
            .iter()
            .any(|prefix| path == *prefix || path.starts_with(&format!("{prefix}/")));
        self.web.as_deref().filter(|_| !api)
    }
}

/// Serves the gateway on `listener`, in front of `upstreams`, which trust no client address it
/// sends (see [`start_trusted`]).
pub fn start(listener: TcpListener, upstreams: Upstreams) -> std::io::Result<RunningServer> {
    start_trusted(listener, upstreams, ProxyTrust::default())
}

/// Serves the gateway as [`start`] does, telling the services each client's address with the
/// proxy secret of `trust` (which also says whether an edge in front of the gateway is believed).
pub fn start_trusted(
    listener: TcpListener,
    upstreams: Upstreams,
    trust: ProxyTrust,
) -> std::io::Result<RunningServer> {
    let trust = web::Data::new(trust);
    let addr = listener.local_addr()?;
    let http = reqwest::Client::builder()
        .timeout(Duration::from_secs(30))
        // Answers pass through as the service encoded them (gzipped read-model bodies stay
        // gzipped), even if a dependency turns on reqwest's own decompression.
        .no_gzip()
        // A redirect is the client's to follow (the web app's language switcher answers one).
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .map_err(std::io::Error::other)?;
    let upstreams = web::Data::new(upstreams);
    let routes = web::Data::new(Routes::of_services());
    let http = web::Data::new(http);
    let openapi = crate::openapi::merged_openapi();
    let server = actix_web::HttpServer::new(move || {
        actix_web::App::new()
            .app_data(upstreams.clone())
            .app_data(routes.clone())
            .app_data(http.clone())
            .app_data(trust.clone())
            .route(
                "/docs",
                web::get().to(|| async {
                    HttpResponse::PermanentRedirect()
                        .insert_header(("location", "/docs/"))
                        .finish()
                }),
            )
            .service(SwaggerUi::new("/docs/{_:.*}").url("/openapi.json", openapi.clone()))
            .route(
                "/health",
                web::get()
                    .to(|| async { HttpResponse::Ok().json(serde_json::json!({"status": "ok"})) }),
            )
            .default_service(web::to(proxy::forward))
            .wrap(actix_web::middleware::from_fn(refuse_dot_segments))
            .wrap(actix_web::middleware::from_fn(
                catan_kit::telemetry::propagate_request_id,
            ))
            .wrap(tracing_actix_web::TracingLogger::<
                catan_kit::telemetry::RequestSpan,
            >::new())
    })
    .workers(2)
    .listen(listener)?
    .run();
    tracing::info!(%addr, "gateway listening");
    Ok(RunningServer::spawn(server, addr))
}

/// Refuses, before any routing, a path with a dot segment: the upstream URL would resolve it
/// to another path than the one routed (`/internal/` included).
async fn refuse_dot_segments(
    req: ServiceRequest,
    next: Next<impl MessageBody>,
) -> Result<ServiceResponse<EitherBody<impl MessageBody>>, actix_web::Error> {
    if has_dot_segment(req.uri().path()) {
        let refused = ApiError::BadRequest(
            "the path holds a `.` or `..` segment (plain or percent-encoded)".into(),
        );
        return Ok(req
            .into_response(refused.error_response())
            .map_into_right_body());
    }
    Ok(next.call(req).await?.map_into_left_body())
}
