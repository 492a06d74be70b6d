//! The live standings of an event as server-sent events, for dashboards.
//!
//! One poller per event and replica computes the standings every `CATAN_STANDINGS_POLL_MS`
//! (default 1000) while anyone watches, and every watcher gets each new version: a thousand
//! dashboards cost what one does. Polling (rather than a notification from results) also catches
//! what changes the standings elsewhere, such as a drop in registration.

use crate::State;
use crate::routes::current_standings;
use actix_web::web::Bytes;
use actix_web::{HttpResponse, get, web};
use catan_api::Problem;
use catan_kit::ApiError;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::watch;
use uuid::Uuid;

pub fn register(cfg: &mut utoipa_actix_web::service_config::ServiceConfig) {
    cfg.service(standings_stream);
}

/// A comment line every so often keeps proxies from closing a quiet stream.
const KEEP_ALIVE: Duration = Duration::from_secs(15);

type Latest = Option<Arc<String>>;

/// The events being watched, each with its poller's latest standings (as JSON).
pub(crate) struct StandingsHub {
    feeds: Mutex<HashMap<Uuid, Arc<watch::Sender<Latest>>>>,
    poll_interval: Duration,
    /// Ends every stream when the server stops (its sender goes away), so that a graceful stop
    /// does not wait for dashboards; they reconnect to another replica.
    closing: watch::Receiver<()>,
}

impl StandingsHub {
    /// The hub, and the task whose end (when the server stops) closes its streams.
    pub(crate) fn from_env() -> Result<(Self, tokio::task::JoinHandle<()>), String> {
        let (closer, closing) = watch::channel(());
        let open_while_running = tokio::spawn(async move {
            let _closer = closer;
            std::future::pending::<()>().await
        });
        let hub = StandingsHub {
            feeds: Mutex::new(HashMap::new()),
            poll_interval: Duration::from_millis(catan_kit::config::env_parse(
                "CATAN_STANDINGS_POLL_MS",
                1000u64,
            )?),
            closing,
        };
        Ok((hub, open_while_running))
    }

    /// A watcher of `event_id`'s standings, starting its poller if nobody watched yet.
    fn watch(self: &Arc<Self>, state: web::Data<State>, event_id: Uuid) -> watch::Receiver<Latest> {
        let mut feeds = self.feeds.lock().expect("hub lock");
        if let Some(sender) = feeds.get(&event_id) {
            return sender.subscribe();
        }
        let (sender, receiver) = watch::channel(None);
        let sender = Arc::new(sender);
        feeds.insert(event_id, sender.clone());
        tokio::spawn(self.clone().poll(state, event_id, sender));
        receiver
    }

    async fn poll(
        self: Arc<Self>,
        state: web::Data<State>,
        event_id: Uuid,
        sender: Arc<watch::Sender<Latest>>,
    ) {
        loop {
            match current_standings(&state, event_id)
                .await
                .and_then(|(s, _)| to_json(&s))
            {
                Ok(json) => {
                    sender.send_if_modified(|latest| {
                        let changed = latest.as_deref() != Some(&json);
                        if changed {
                            *latest = Some(Arc::new(json));
                        }
                        changed
                    });
                }
                // The watchers keep what they have; the next poll tries again.
                Err(e) => {
                    tracing::warn!(%event_id, error = %e, "standings stream could not refresh")
                }
            }
            tokio::time::sleep(self.poll_interval).await;
            let mut feeds = self.feeds.lock().expect("hub lock");
            if sender.receiver_count() == 0 {
                feeds.remove(&event_id);
                return;
            }
        }
    }
}

fn to_json(standings: &impl serde::Serialize) -> Result<String, ApiError> {
    serde_json::to_string(standings).map_err(ApiError::internal)
}

fn standings_event(json: &str) -> Bytes {
    Bytes::from(format!("event: standings\ndata: {json}\n\n"))
}

/// Browsers reconnect this long after a stream ends.
const RECONNECT: &str = "retry: 2000\n";

/// A watcher's connection: the standings it was sent last, and the first event not yet sent.
struct Watcher {
    receiver: watch::Receiver<Latest>,
    closing: watch::Receiver<()>,
    last_sent: String,
    first: Option<Bytes>,
}

impl Watcher {
    async fn next_event(mut self) -> Option<(Result<Bytes, actix_web::Error>, Watcher)> {
        if let Some(first) = self.first.take() {
            return Some((Ok(first), self));
        }
        loop {
            let changed = tokio::select! {
                changed = tokio::time::timeout(KEEP_ALIVE, self.receiver.changed()) => changed,
                _ = self.closing.changed() => return None,
            };
            match changed {
                Err(_) => return Some((Ok(Bytes::from_static(b": keep-alive\n\n")), self)),
                Ok(Err(_)) => return None,
                Ok(Ok(())) => {
                    let latest = self.receiver.borrow_and_update().clone();
                    if let Some(json) = latest.filter(|json| **json != self.last_sent) {
                        self.last_sent = json.to_string();
                        return Some((Ok(standings_event(&json)), self));
                    }
                }
            }
        }
    }
}

/// The standings as they change, as server-sent events: first a `standings` event with the
/// current standings (the JSON of `GET .../standings`), then another each time they change;
/// comment lines keep a quiet stream open. Needs no token.
#[utoipa::path(
    tag = "ranking",
    params(("event_id" = Uuid, Path)),
    responses(
        (status = 200, description = "`event: standings` events, each with `data:` the standings as JSON", body = catan_api::types::StandingsEvent, content_type = "text/event-stream"),
        (status = 404, description = "No such event", body = Problem, content_type = "application/problem+json"),
        (status = 503, body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/v1/events/{event_id}/standings/stream")]
async fn standings_stream(
    state: web::Data<State>,
    hub: web::Data<StandingsHub>,
    path: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    let event_id = path.into_inner();
    // Errors (no such event, a peer down) are answered as problems before the stream starts.
    let (standings, _) = current_standings(&state, event_id).await?;
    let json = to_json(&standings)?;
    let mut first = RECONNECT.as_bytes().to_vec();
    first.extend_from_slice(&standings_event(&json));
    let watcher = Watcher {
        closing: hub.closing.clone(),
        receiver: hub.into_inner().watch(state, event_id),
        first: Some(Bytes::from(first)),
        last_sent: json,
    };
    Ok(HttpResponse::Ok()
        .content_type("text/event-stream")
        .insert_header(("Cache-Control", "no-cache"))
        // Proxies such as nginx would otherwise buffer the stream.
        .insert_header(("X-Accel-Buffering", "no"))
        .streaming(futures_util::stream::unfold(watcher, Watcher::next_event)))
}
