//! What every service's HTTP server shares: its listener, body limits, problem+json for the
//! framework's own errors, request spans, a health probe, and a handle to stop it.

use crate::local_app::LocalApp;
use crate::settings::Settings;
use actix_web::dev::ServerHandle;
use actix_web::{HttpResponse, web};
use std::net::{SocketAddr, TcpListener};

/// The largest JSON body a service accepts.
pub const BODY_LIMIT_BYTES: usize = 64 * 1024;

/// Binds `addr` ("127.0.0.1:0" for any free port). Address reuse lets a restarted service take its
/// port back at once.
pub fn bind(addr: &str) -> std::io::Result<TcpListener> {
    let addr: SocketAddr = addr.parse().map_err(|e| {
        std::io::Error::new(std::io::ErrorKind::InvalidInput, format!("{addr}: {e}"))
    })?;
    let socket = socket2::Socket::new(
        socket2::Domain::for_address(addr),
        socket2::Type::STREAM,
        None,
    )?;
    socket.set_reuse_address(true)?;
    socket.bind(&addr.into())?;
    socket.listen(1024)?;
    let listener: TcpListener = socket.into();
    listener.set_nonblocking(true)?;
    Ok(listener)
}

/// Extractor settings that turn bad JSON, paths and queries into problems.
pub fn common(cfg: &mut web::ServiceConfig) {
    cfg.app_data(crate::problem::json_config(BODY_LIMIT_BYTES))
        .app_data(crate::problem::path_config())
        .app_data(crate::problem::query_config())
        .app_data(web::PayloadConfig::new(BODY_LIMIT_BYTES))
        .route("/health", web::get().to(health))
        .route("/metrics", web::get().to(crate::metrics::scrape));
}

async fn health() -> HttpResponse {
    HttpResponse::Ok().json(serde_json::json!({"status": "ok"}))
}

/// A running HTTP server.
pub struct RunningServer {
    pub addr: SocketAddr,
    handle: ServerHandle,
    task: tokio::task::JoinHandle<std::io::Result<()>>,
    /// The service's background tasks (the webhook outbox relay): they stop with it.
    background: Vec<tokio::task::JoinHandle<()>>,
    /// What `/metrics` serves (a server made by [`serve`] has them).
    metrics: Option<crate::metrics::Metrics>,
    /// The same app, to call within this process (a server made by [`serve`] has it).
    local_app: Option<LocalApp>,
}

impl RunningServer {
    /// Starts `server` on the current runtime.
    pub fn spawn(server: actix_web::dev::Server, addr: SocketAddr) -> Self {
        let handle = server.handle();
        let task = tokio::spawn(server);
        RunningServer {
            addr,
            handle,
            task,
            background: Vec::new(),
            metrics: None,
            local_app: None,
        }
    }

    /// The service's metrics, for its background tasks to record into.
    pub fn metrics(&self) -> Option<&crate::metrics::Metrics> {
        self.metrics.as_ref()
    }

    /// The server's app, to call within this process without HTTP.
    pub fn local_app(&self) -> Option<&LocalApp> {
        self.local_app.as_ref()
    }

    /// Ties a background task to the server: stopping the server aborts it.
    pub fn with_background(mut self, task: tokio::task::JoinHandle<()>) -> Self {
        self.background.push(task);
        self
    }

    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Stops accepting, finishes requests in flight, and waits for the server to end.
    pub async fn stop(self) {
        for task in &self.background {
            task.abort();
        }
        self.handle.stop(true).await;
        let _ = self.task.await;
    }

    /// Waits until the server ends by itself (a signal).
    pub async fn wait(self) -> std::io::Result<()> {
        self.task.await.map_err(std::io::Error::other)?
    }
}

/// Serves `api` (the service's handlers and their app data) on `listener`, with the shared
/// extractor settings, request spans and ids, rate limits, and problem+json for unknown routes.
pub fn serve<F>(
    listener: TcpListener,
    service: &'static str,
    settings: &Settings,
    api: F,
) -> std::io::Result<RunningServer>
where
    F: Fn(&mut utoipa_actix_web::service_config::ServiceConfig) + Send + Clone + 'static,
{
    use utoipa_actix_web::AppExt;
    let addr = listener.local_addr()?;
    let limiter = web::Data::new(crate::ratelimit::RateLimiter::new(
        settings.rate_limit.per_second,
        settings.rate_limit.burst,
    ));
    let clients = web::Data::new(crate::client::ClientLimits::new(&settings.clients));
    let revocations = web::Data::new(crate::auth::Revocations::new(settings));
    let internal_key = settings.webhooks.internal_key.clone();
    let cors_write_origins = settings.http.cors_write_origins.clone();
    let metrics = crate::metrics::Metrics::new(service).map_err(std::io::Error::other)?;
    let metrics_data = web::Data::new(metrics.clone());
    let routes = web::Data::new(RouteTable::of(
        &actix_web::App::new()
            .into_utoipa_app()
            .configure(api.clone())
            .split_for_parts()
            .1,
    ));
    let make_app = move || {
        actix_web::App::new()
            .into_utoipa_app()
            .configure(api.clone())
            .into_app()
            .configure(common)
            .app_data(routes.clone())
            .app_data(limiter.clone())
            .app_data(clients.clone())
            .app_data(revocations.clone())
            .configure(|cfg| crate::audit::internal_route(cfg, service, internal_key.clone()))
            .route(
                &format!("{}/{{key_id}}", crate::auth::REVOKED_KEYS_PATH),
                web::post().to(crate::auth::key_revoked),
            )
            .app_data(metrics_data.clone())
            .default_service(web::to(no_route))
            .wrap(actix_web::middleware::from_fn(
                crate::client::limit_anonymous,
            ))
            .wrap(actix_web::middleware::from_fn(crate::metrics::record))
            .wrap(actix_web::middleware::from_fn(
                crate::telemetry::propagate_request_id,
            ))
            .wrap(tracing_actix_web::TracingLogger::<
                crate::telemetry::RequestSpan,
            >::new())
            // A preflight is answered before it is counted against the client's budget.
            .wrap(crate::cors::policy(&cors_write_origins))
            // Outermost, so that the answers the layers inside make (429s, 404s) carry them too.
            .wrap(crate::headers::api())
    };
    let server = actix_web::HttpServer::new(make_app.clone())
        .workers(settings.http.workers)
        .listen(listener)?
        .run();
    tracing::info!(%addr, service, "listening");
    let mut running = RunningServer::spawn(server, addr);
    running.metrics = Some(metrics);
    running.local_app = Some(LocalApp::of(make_app));
    Ok(running)
}

/// The service's routes, from its OpenAPI document: which methods each path template takes.
pub struct RouteTable {
    routes: Vec<(Vec<String>, Vec<&'static str>)>,
}

impl RouteTable {
    pub fn of(doc: &utoipa::openapi::OpenApi) -> Self {
        let routes = doc
            .paths
            .paths
            .iter()
            .map(|(path, item)| {
                let methods = [
                    ("GET", item.get.is_some()),
                    ("PUT", item.put.is_some()),
                    ("POST", item.post.is_some()),
                    ("PATCH", item.patch.is_some()),
                    ("DELETE", item.delete.is_some()),
                ]
                .into_iter()
                .filter_map(|(method, present)| present.then_some(method))
                .collect();
                (
                    path.trim_matches('/')
                        .split('/')
                        .map(str::to_owned)
                        .collect(),
                    methods,
                )
            })
            .collect();
        RouteTable { routes }
    }

    /// The methods `path` takes, if a route matches it: the route that names most of its
    /// segments as they are (`/v1/players/merge-candidates` before `/v1/players/{player_id}`).
    pub fn methods_for(&self, path: &str) -> Option<Vec<&'static str>> {
        let segments: Vec<&str> = path.trim_matches('/').split('/').collect();
        let parameter = |t: &str| t.starts_with('{') && t.ends_with('}');
        self.routes
            .iter()
            .filter(|(template, _)| {
                template.len() == segments.len()
                    && template
                        .iter()
                        .zip(&segments)
                        .all(|(t, s)| parameter(t) || t == s)
            })
            .max_by_key(|(template, _)| template.iter().filter(|t| !parameter(t)).count())
            .map(|(_, methods)| methods.clone())
    }
}

/// No route took the request: 405 with `Allow` when the path exists for other methods, else 404.
async fn no_route(
    req: actix_web::HttpRequest,
    routes: web::Data<RouteTable>,
) -> actix_web::HttpResponse {
    use actix_web::ResponseError;
    match routes.not_allowed(&req) {
        Some(refusal) => refusal.error_response(),
        None => crate::problem::not_found(req).await,
    }
}

impl RouteTable {
    /// The 405 (with `Allow`) for a request whose path exists but not for its method.
    pub fn not_allowed(&self, req: &actix_web::HttpRequest) -> Option<crate::ApiError> {
        let methods = self.methods_for(req.path())?;
        if methods.is_empty() || methods.contains(&req.method().as_str()) {
            return None;
        }
        let allow = methods.join(", ");
        Some(crate::ApiError::MethodNotAllowed {
            detail: format!(
                "{} {} is not served; this path takes {allow}",
                req.method(),
                req.path()
            ),
            allow,
        })
    }
}
