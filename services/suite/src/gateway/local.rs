//! The services that run in the gateway's own process (the one-process suite), called without
//! HTTP: each gateway worker builds each service's app once, with every middleware its server has,
//! and hands it the request as the service would have received it from the gateway over loopback
//! (the same headers, the client's address in the gateway's word). A service that is not served
//! here (stopped, or run elsewhere) is reached over HTTP as before.

use super::Owner;
use actix_web::HttpRequest;
use actix_web::http::Version;
use actix_web::http::header::{HeaderMap, HeaderName, HeaderValue};
use catan_kit::local_app::{LocalApp, LocalService};
use std::cell::RefCell;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, PoisonError};

/// A service's app as it is now served here: a new one each time the service starts.
#[derive(Clone)]
struct Served {
    start: u64,
    app: LocalApp,
}

/// The services this process serves, as the suite starts and stops them.
#[derive(Default)]
pub struct LocalApps {
    served: [Mutex<Option<Served>>; 4],
    starts: AtomicU64,
}

impl LocalApps {
    /// From now on, `owner`'s requests go to `app`.
    pub fn serve(&self, owner: Owner, app: LocalApp) {
        let start = self.starts.fetch_add(1, Ordering::Relaxed);
        *self.slot(owner) = Some(Served { start, app });
    }

    /// `owner` is no longer served here: its requests go over HTTP (where nothing answers while it
    /// is stopped).
    pub fn withdraw(&self, owner: Owner) {
        *self.slot(owner) = None;
    }

    fn slot(&self, owner: Owner) -> std::sync::MutexGuard<'_, Option<Served>> {
        self.served[owner.index()]
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }
}

/// One gateway worker's apps, built on its thread.
#[derive(Default)]
pub(super) struct Built {
    apps: RefCell<[Option<(u64, LocalService)>; 4]>,
}

impl Built {
    /// `owner`'s app on this thread, if this process serves `owner`: built the first time, and
    /// again after the service started anew.
    pub(super) async fn app(
        &self,
        apps: &LocalApps,
        owner: Owner,
    ) -> std::io::Result<Option<LocalService>> {
        let served = apps.slot(owner).clone();
        let slot = owner.index();
        let Some(served) = served else {
            // The app of a stopped service lets go of its state (its pool).
            self.apps.borrow_mut()[slot] = None;
            return Ok(None);
        };
        if let Some((start, app)) = &self.apps.borrow()[slot]
            && *start == served.start
        {
            return Ok(Some(app.clone()));
        }
        let app = served.app.build().await?;
        self.apps.borrow_mut()[slot] = Some((served.start, app.clone()));
        Ok(Some(app))
    }
}

/// `req` as the service receives it from the gateway: `headers` (those the gateway forwards), its
/// body streamed as it comes, from the gateway's own address.
pub(super) fn request(
    req: &HttpRequest,
    headers: Vec<(HeaderName, HeaderValue)>,
    payload: actix_web::dev::Payload,
) -> actix_http::Request {
    let mut request = actix_http::Request::with_payload(payload);
    let head = request.head_mut();
    head.method = req.method().clone();
    head.uri = req.uri().clone();
    head.version = Version::HTTP_11;
    head.peer_addr = Some(req.app_config().local_addr());
    let mut map = HeaderMap::with_capacity(headers.len());
    for (name, value) in headers {
        map.append(name, value);
    }
    head.headers = map;
    request
}
