//! One base URL for the whole v1 API: each request is forwarded to the service that owns its
//! path, to its replicas in turn (skipping one that is down). The gateway also serves the merged
//! OpenAPI document and its browsable UI. With replicas, each service also has an entrance of its
//! own ([`start_entrance`]) where its peers reach it, as a Kubernetes Service would.

mod local;
mod proxy;
mod replicas;
mod routes;

pub use local::LocalApps;
use replicas::HEALTH_INTERVAL;
pub use replicas::{ReplicaSet, Resend};
pub use routes::{Route, Routes, has_dot_segment};

use actix_web::body::{EitherBody, MessageBody};
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::middleware::Next;
use actix_web::{HttpResponse, ResponseError, web};
use catan_kit::ApiError;
use catan_kit::client::ProxyTrust;
use catan_kit::server::RunningServer;
use std::net::TcpListener;
use std::sync::Arc;
use std::time::Duration;
use utoipa_swagger_ui::SwaggerUi;

/// Which service owns a path.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Owner {
    Registration,
    Pairing,
    Results,
    Ranking,
}

impl Owner {
    /// The four services, registration first: the others fetch its token keys when they start.
    pub const ALL: [Owner; 4] = [
        Owner::Registration,
        Owner::Pairing,
        Owner::Results,
        Owner::Ranking,
    ];

    /// Where the owner stands in [`Owner::ALL`].
    pub const fn index(self) -> usize {
        match self {
            Owner::Registration => 0,
            Owner::Pairing => 1,
            Owner::Results => 2,
            Owner::Ranking => 3,
        }
    }
}

/// Where each service answers: the base URL of each of its replicas.
#[derive(Clone)]
pub struct Upstreams {
    pub registration: Vec<String>,
    pub pairing: Vec<String>,
    pub results: Vec<String>,
    pub ranking: Vec<String>,
    /// The web app (`services/web`), served at every path no service owns outside `/v1/`.
    pub web: Option<String>,
}

/// The replicas of every service and of the web app, with what is known of their health: shared
/// by the gateway and the services' entrances.
pub struct Balancer {
    registration: ReplicaSet,
    pairing: ReplicaSet,
    results: ReplicaSet,
    ranking: ReplicaSet,
    web: Option<ReplicaSet>,
    /// The services this process also serves, which the gateway calls without HTTP.
    local: Arc<LocalApps>,
}

impl Balancer {
    pub fn new(upstreams: Upstreams) -> Arc<Balancer> {
        Balancer::with_local(upstreams, Arc::default())
    }

    /// The balancer of `upstreams`, which calls the services `local` holds within this process.
    pub fn with_local(upstreams: Upstreams, local: Arc<LocalApps>) -> Arc<Balancer> {
        Arc::new(Balancer {
            registration: ReplicaSet::new(upstreams.registration),
            pairing: ReplicaSet::new(upstreams.pairing),
            results: ReplicaSet::new(upstreams.results),
            ranking: ReplicaSet::new(upstreams.ranking),
            web: upstreams.web.map(|url| ReplicaSet::new([url])),
            local,
        })
    }

    /// The replicas of `owner`.
    pub fn replicas(&self, owner: Owner) -> &ReplicaSet {
        match owner {
            Owner::Registration => &self.registration,
            Owner::Pairing => &self.pairing,
            Owner::Results => &self.results,
            Owner::Ranking => &self.ranking,
        }
    }

    /// The web app, for a path that is none of the API's: `/v1/`, `/internal/`, `/.well-known/`
    /// and `/metrics` stay the services' (a 404 problem there when none owns it).
    fn web_for(&self, path: &str) -> Option<&ReplicaSet> {
        let api = ["/v1", "/internal", "/.well-known", "/metrics"]
            .iter()
            .any(|prefix| path == *prefix || path.starts_with(&format!("{prefix}/")));
        self.web.as_ref().filter(|_| !api)
    }

    /// Probes the replicas of every service that has more than one, every [`HEALTH_INTERVAL`],
    /// until the task is aborted; nothing to do (None) when no service has replicas.
    fn spawn_probes(
        self: &Arc<Self>,
        http: reqwest::Client,
    ) -> Option<tokio::task::JoinHandle<()>> {
        let sets = Owner::ALL;
        if !sets
            .iter()
            .any(|owner| self.replicas(*owner).is_replicated())
        {
            return None;
        }
        let balancer = self.clone();
        Some(tokio::spawn(async move {
            let mut every = tokio::time::interval(HEALTH_INTERVAL);
            every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            loop {
                every.tick().await;
                let probes = sets
                    .iter()
                    .map(|owner| balancer.replicas(*owner))
                    .filter(|set| set.is_replicated())
                    .map(|set| set.probe(&http));
                futures_util::future::join_all(probes).await;
            }
        }))
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
    start_balanced(listener, Balancer::new(upstreams), trust)
}

/// The client the gateway and the entrances forward with.
fn forwarding_client() -> std::io::Result<reqwest::Client> {
    reqwest::Client::builder()
        .timeout(Duration::from_secs(30))
        // Answers pass through as the service encoded them (gzipped read-model bodies stay
        // gzipped), even if a dependency turns on reqwest's own decompression.
        .no_gzip()
        // A redirect is the client's to follow (the web app's language switcher answers one).
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .map_err(std::io::Error::other)
}

/// Serves the gateway as [`start_trusted`] does, over the replicas of `balancer`, which it probes
/// while it runs.
pub fn start_balanced(
    listener: TcpListener,
    balancer: Arc<Balancer>,
    trust: ProxyTrust,
) -> std::io::Result<RunningServer> {
    let trust = web::Data::new(trust);
    let addr = listener.local_addr()?;
    let http = forwarding_client()?;
    let probes = balancer.spawn_probes(http.clone());
    let balancer = web::Data::from(balancer);
    let routes = web::Data::new(Routes::of_services());
    let http = web::Data::new(http);
    let openapi = crate::openapi::merged_openapi();
    let server = actix_web::HttpServer::new(move || {
        actix_web::App::new()
            .app_data(balancer.clone())
            .app_data(routes.clone())
            .app_data(http.clone())
            .app_data(trust.clone())
            .app_data(local::Built::default())
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
            // The docs and the gateway's own answers too (a service's carry them already).
            .wrap(catan_kit::headers::api())
    })
    .workers(2)
    .listen(listener)?
    .run();
    tracing::info!(%addr, "gateway listening");
    let running = RunningServer::spawn(server, addr);
    Ok(match probes {
        Some(probes) => running.with_background(probes),
        None => running,
    })
}

/// Serves on `listener` the entrance where the other services reach `owner`: every path
/// (`/internal/` included) goes to its replicas in turn, with the request's headers as they came.
/// Only the services use it, so it listens on loopback and vouches for no client.
pub fn start_entrance(
    listener: TcpListener,
    owner: Owner,
    balancer: Arc<Balancer>,
) -> std::io::Result<RunningServer> {
    let addr = listener.local_addr()?;
    let balancer = web::Data::from(balancer);
    let routes = web::Data::new(Routes::of_services());
    let http = web::Data::new(forwarding_client()?);
    let owned = web::Data::new(owner);
    let server = actix_web::HttpServer::new(move || {
        actix_web::App::new()
            .app_data(balancer.clone())
            .app_data(routes.clone())
            .app_data(http.clone())
            .app_data(owned.clone())
            .default_service(web::to(proxy::forward_to_peer))
            .wrap(actix_web::middleware::from_fn(refuse_dot_segments))
    })
    .workers(1)
    .listen(listener)?
    .run();
    tracing::info!(%addr, ?owner, "entrance listening");
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
