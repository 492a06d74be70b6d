//! The league dashboard: HTML pages rendered on the server from the public v1 API, read through
//! `catan_api::ApiClient` exactly as a third-party dashboard would. Every page works without
//! JavaScript; `/static/live.js` only adds live standings over the API's standings stream.
//! The suite serves it at `/` on the API's base URL (`/v1/...` stays the API's).

pub mod chart;
mod console;
pub mod i18n;
mod kept;
mod layout;
mod offline;
mod pages;
mod player;
pub mod session;
mod signed;
mod understood;

use actix_web::{HttpRequest, HttpResponse, web};
use catan_api::{ApiClient, ClientError, ClientResult, RetryPolicy};
use catan_kit::client::ProxyTrust;
use catan_kit::server::RunningServer;
use catan_kit::settings::PublicUrl;
pub use i18n::Lang;
pub use session::SessionKey;
use std::collections::HashMap;
use std::net::TcpListener;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use std::time::Instant;

/// What every page handler reads from.
pub struct State {
    api: ApiClient,
    /// The proxy secret the gateway vouches for each visitor's address with, which the web app
    /// passes on: each visitor is held to his own budget of requests without a token, not to one
    /// shared by every visitor of the dashboard.
    trust: ProxyTrust,
    /// Reads that change seldom (a season's settings, its qualified players, the regions), kept
    /// for [`CACHE_TTL`] so that a page makes one call per visit for what it is about.
    cache: Mutex<HashMap<String, Cached>>,
    /// Pages kept as rendered while the API's answer they show is unchanged.
    pages: kept::KeptPages,
    /// What the signed-in visitors' sessions are sealed with.
    sessions: SessionKey,
    /// `CATAN_PUBLIC_URL`: the address the links the pages write start with (PIN slips, QR
    /// codes); unset, the one the visitor reached the suite at.
    public_url: Option<PublicUrl>,
}

/// A cached read and when it was made.
type Cached = (Instant, kept::Shared);

/// How long a cached read is served: a page may be this much behind on what it caches.
pub const CACHE_TTL: Duration = Duration::from_secs(2);

/// Entries kept at most; past it the cache starts again empty.
const CACHE_ENTRIES: usize = 4096;

impl State {
    pub fn new(
        api: ApiClient,
        trust: ProxyTrust,
        sessions: SessionKey,
        public_url: Option<PublicUrl>,
    ) -> Self {
        State {
            api,
            trust,
            cache: Mutex::new(HashMap::new()),
            pages: kept::KeptPages::default(),
            sessions,
            public_url,
        }
    }

    /// The address the links written for `req` start with: the public address when set, else
    /// the one the visitor reached the suite at (the gateway's word), never the web app's port.
    pub fn public_url(&self, req: &HttpRequest) -> PublicUrl {
        PublicUrl::for_request(self.public_url.as_ref(), &self.trust, req)
    }

    /// The API as read for the visitor of `req`: with a proxy secret, the calls carry the
    /// visitor's address (as the gateway vouched for it, else the connection's peer), so the
    /// API counts them against that visitor; without one they are the web app's own.
    pub fn api_for(&self, req: &HttpRequest) -> ApiClient {
        self.api
            .with_headers(self.trust.edge_headers(self.trust.peer_of(req)))
    }

    /// The API as the person signed in to `session`, reading the session's own writes.
    pub fn api_as(
        &self,
        req: &HttpRequest,
        session: &session::Session,
        person: &session::SignedIn,
    ) -> ApiClient {
        self.api_for(req)
            .with_token(person.token.clone())
            .with_position(session.position())
    }

    /// `fetch`'s answer, or the one kept under `key` if younger than [`CACHE_TTL`] (the same
    /// `Arc` on every call until it is made again).
    pub async fn cached<T: Send + Sync + 'static>(
        &self,
        key: String,
        fetch: impl Future<Output = ClientResult<T>>,
    ) -> ClientResult<Arc<T>> {
        {
            let cache = self.cache.lock().unwrap_or_else(|e| e.into_inner());
            if let Some((at, value)) = cache.get(&key)
                && at.elapsed() < CACHE_TTL
                && let Ok(value) = value.clone().downcast::<T>()
            {
                return Ok(value);
            }
        }
        let value = Arc::new(fetch.await?);
        let mut cache = self.cache.lock().unwrap_or_else(|e| e.into_inner());
        if cache.len() >= CACHE_ENTRIES {
            cache.clear();
        }
        cache.insert(key, (Instant::now(), value.clone()));
        Ok(value)
    }
}

/// Serves the web app on `listener`, reading the v1 API at `api_url` (the suite's gateway) on
/// behalf of each visitor as `trust` says (see [`State::api_for`]), sealing the signed-in
/// visitors' sessions with `sessions`, writing links that start with `public_url` (when set).
pub fn start(
    listener: TcpListener,
    api_url: &str,
    trust: ProxyTrust,
    sessions: SessionKey,
    public_url: Option<PublicUrl>,
) -> std::io::Result<RunningServer> {
    let addr = listener.local_addr()?;
    let retry = RetryPolicy {
        attempts: 2,
        first_backoff: Duration::from_millis(50),
        timeout: Duration::from_secs(10),
    };
    // Reached over https, browsers are told to come back only so.
    let https = public_url.as_ref().is_some_and(PublicUrl::is_https);
    let state = web::Data::new(State::new(
        ApiClient::with_policy(api_url, retry),
        trust,
        sessions,
        public_url,
    ));
    let server = actix_web::HttpServer::new(move || {
        actix_web::App::new()
            .app_data(state.clone())
            .configure(pages::routes)
            .configure(console::routes)
            .configure(player::routes)
            .configure(offline::routes)
            .default_service(web::to(not_found))
            .wrap(actix_web::middleware::from_fn(
                catan_kit::telemetry::propagate_request_id,
            ))
            .wrap(actix_web::middleware::Compress::default())
            .wrap(catan_kit::headers::pages(https))
    })
    .workers(2)
    .listen(listener)?
    .run();
    tracing::info!(%addr, "web app listening");
    Ok(RunningServer::spawn(server, addr))
}

/// The visitor's language: the switcher's cookie, else `Accept-Language`, else English.
pub fn lang_of(req: &HttpRequest) -> Lang {
    let remembered = req
        .headers()
        .get_all("cookie")
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .find_map(|pair| pair.trim().strip_prefix("lang="))
        .and_then(Lang::of_tag);
    if let Some(lang) = remembered {
        return lang;
    }
    req.headers()
        .get("accept-language")
        .and_then(|v| v.to_str().ok())
        .and_then(Lang::negotiate)
        .unwrap_or(Lang::En)
}

/// Why a page could not be rendered.
#[derive(Debug)]
pub enum PageError {
    NotFound,
    Unavailable(String),
}

impl From<ClientError> for PageError {
    fn from(e: ClientError) -> Self {
        match e.status() {
            Some(404) | Some(422) | Some(400) => PageError::NotFound,
            _ => PageError::Unavailable(e.to_string()),
        }
    }
}

pub type PageResult = Result<HttpResponse, PageError>;

/// The page for an error, in the visitor's language.
pub fn error_page(req: &HttpRequest, error: &PageError) -> HttpResponse {
    let lang = lang_of(req);
    let w = lang.words();
    let (status, message) = match error {
        PageError::NotFound => (actix_web::http::StatusCode::NOT_FOUND, w.not_found),
        PageError::Unavailable(cause) => {
            tracing::warn!(%cause, "a page could not read the API");
            (
                actix_web::http::StatusCode::SERVICE_UNAVAILABLE,
                w.unavailable,
            )
        }
    };
    let body = layout::page(
        lang,
        req,
        message,
        maud::html! {
            h1 { (message) }
            p { a href="/" { (w.back_home) } }
        },
    );
    HttpResponse::build(status)
        .content_type("text/html; charset=utf-8")
        .body(body.into_string())
}

async fn not_found(req: HttpRequest) -> HttpResponse {
    error_page(&req, &PageError::NotFound)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicU32, Ordering};

    #[tokio::test]
    async fn a_cached_read_is_made_once_within_its_time_to_live() {
        let state = State::new(
            ApiClient::new("http://127.0.0.1:9"),
            ProxyTrust::default(),
            SessionKey::new(None),
            None,
        );
        let calls = AtomicU32::new(0);
        let read = || async { Ok::<u32, ClientError>(calls.fetch_add(1, Ordering::SeqCst) + 1) };
        assert_eq!(*state.cached("a".into(), read()).await.unwrap(), 1);
        assert_eq!(*state.cached("a".into(), read()).await.unwrap(), 1, "kept");
        assert_eq!(
            *state.cached("b".into(), read()).await.unwrap(),
            2,
            "another key"
        );
        let failing = async { Err::<u32, _>(ClientError::Transport("down".into())) };
        assert!(
            state.cached("c".into(), failing).await.is_err(),
            "a failure is not kept"
        );
        assert_eq!(*state.cached("c".into(), read()).await.unwrap(), 3);
    }
}
