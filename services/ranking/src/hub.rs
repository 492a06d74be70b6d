//! The live standings of watched events, for the standings stream.
//!
//! One poller per event and replica reads the stored standings every `CATAN_STANDINGS_POLL_MS`
//! (default 1000) while anyone watches, and every watcher gets each new version: a thousand
//! dashboards cost what one does. The follower keeps what is stored up to date, whatever changed
//! the standings (a result, a correction, a drop in registration).

use crate::State;
use crate::store::{self, View};
use actix_web::web;
use actix_web::web::Bytes;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;
use tokio::sync::watch;
use uuid::Uuid;

/// A comment line every so often keeps proxies from closing a quiet stream; writing it is also how
/// a stream whose reader left is found out (and its place under the client's cap freed), so it
/// is short.
const KEEP_ALIVE: Duration = Duration::from_secs(3);

type Latest = Option<Arc<String>>;

/// The events being watched, each with its poller's latest standings (as JSON).
pub(crate) struct StandingsHub {
    feeds: Mutex<HashMap<Uuid, Arc<watch::Sender<Latest>>>>,
    poll_interval: Duration,
    /// Ends every stream when the server stops (its sender goes away), so that a graceful stop
    /// does not wait for dashboards; they reconnect to another replica.
    pub(crate) closing: watch::Receiver<()>,
}

impl StandingsHub {
    /// The hub, and the task whose end (when the server stops) closes its streams.
    pub(crate) fn new(poll_interval: Duration) -> (Self, tokio::task::JoinHandle<()>) {
        let (closer, closing) = watch::channel(());
        let open_while_running = tokio::spawn(async move {
            let _closer = closer;
            std::future::pending::<()>().await
        });
        let hub = StandingsHub {
            feeds: Mutex::new(HashMap::new()),
            poll_interval,
            closing,
        };
        (hub, open_while_running)
    }

    /// A watcher of `event_id`'s standings, starting its poller if nobody watched yet.
    pub(crate) fn watch(
        self: &Arc<Self>,
        state: web::Data<State>,
        event_id: Uuid,
    ) -> watch::Receiver<Latest> {
        let mut feeds = self.feeds.lock().unwrap_or_else(PoisonError::into_inner);
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
            let read = catan_kit::db::run(&state.pool, move |conn| {
                store::stored(conn, event_id, View::Standings)
            })
            .await;
            match read {
                Ok(Some(stored)) => {
                    let json = stored.body;
                    sender.send_if_modified(|latest| {
                        let changed = latest.as_deref() != Some(&json);
                        if changed {
                            *latest = Some(Arc::new(json));
                        }
                        changed
                    });
                }
                // The watchers keep what they have; the next poll tries again.
                Ok(None) => {}
                Err(e) => {
                    tracing::warn!(%event_id, error = %e, "standings stream could not refresh")
                }
            }
            tokio::time::sleep(self.poll_interval).await;
            let mut feeds = self.feeds.lock().unwrap_or_else(PoisonError::into_inner);
            if sender.receiver_count() == 0 {
                feeds.remove(&event_id);
                return;
            }
        }
    }
}

pub(crate) fn standings_event(json: &str) -> Bytes {
    Bytes::from(format!("event: standings\ndata: {json}\n\n"))
}

/// Browsers reconnect this long after a stream ends.
pub(crate) const RECONNECT: &str = "retry: 2000\n";

/// A watcher's connection: the standings it was sent last, and the first event not yet sent.
pub(crate) struct Watcher {
    pub receiver: watch::Receiver<Latest>,
    pub closing: watch::Receiver<()>,
    pub last_sent: String,
    pub first: Option<Bytes>,
    /// The stream's place under the client's cap.
    pub _slot: catan_kit::client::StreamSlot,
}

impl Watcher {
    pub(crate) async fn next_event(mut self) -> Option<(Result<Bytes, actix_web::Error>, Watcher)> {
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
