//! The live clocks of watched rounds, for the clock stream.
//!
//! Replicas keep no state, so a change made on another replica must reach this one's streams: one
//! poller per watched round and replica reads the round's log every `POLL` (a few rows) while
//! anyone watches, and every watcher gets each new reading. A reading is new when the log grew or
//! the clock's state changed as time passed (the round's time up, every table's time up).

use super::ClockedRound;
use super::store as clock_store;
use crate::State;
use actix_web::web;
use actix_web::web::Bytes;
use catan_api::RoundState;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;
use tokio::sync::watch;
use uuid::Uuid;

/// How often a watched round's log is read: a change reaches the screens at most this late.
const POLL: Duration = Duration::from_millis(250);

/// A comment line every so often keeps proxies from closing a quiet stream, and finds out a
/// stream whose reader left.
const KEEP_ALIVE: Duration = Duration::from_secs(3);

/// Browsers reconnect this long after a stream ends.
pub(crate) const RECONNECT: &str = "retry: 2000\n";

/// What tells one reading from the next: the log's length and the state.
type Signature = (usize, RoundState);

/// The latest reading of a round (its signature, and the SSE event that carries it).
type Latest = Option<(Signature, Bytes)>;

type RoundKey = (Uuid, u32);

pub(crate) struct ClockHub {
    feeds: Mutex<HashMap<RoundKey, Arc<watch::Sender<Latest>>>>,
    /// Ends every stream when the server stops, so that a graceful stop does not wait for
    /// screens; they reconnect to another replica.
    pub(crate) closing: watch::Receiver<()>,
}

impl ClockHub {
    /// The hub, and the task whose end (when the server stops) closes its streams.
    pub(crate) fn new() -> (Self, tokio::task::JoinHandle<()>) {
        let (closer, closing) = watch::channel(());
        let open_while_running = tokio::spawn(async move {
            let _closer = closer;
            std::future::pending::<()>().await
        });
        let hub = ClockHub {
            feeds: Mutex::new(HashMap::new()),
            closing,
        };
        (hub, open_while_running)
    }

    /// A watcher of `round`'s clock, starting its poller if nobody watched yet.
    pub(crate) fn watch(
        self: &Arc<Self>,
        state: web::Data<State>,
        round: ClockedRound,
    ) -> watch::Receiver<Latest> {
        let key = (round.event_id, round.number);
        let mut feeds = self.feeds.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(sender) = feeds.get(&key) {
            return sender.subscribe();
        }
        let (sender, receiver) = watch::channel(None);
        let sender = Arc::new(sender);
        feeds.insert(key, sender.clone());
        tokio::spawn(self.clone().poll(state, round, sender));
        receiver
    }

    async fn poll(
        self: Arc<Self>,
        state: web::Data<State>,
        round: ClockedRound,
        sender: Arc<watch::Sender<Latest>>,
    ) {
        let key = (round.event_id, round.number);
        let round = Arc::new(round);
        loop {
            let read = {
                let round = round.clone();
                catan_kit::db::run(&state.pool, move |conn| reading_event(conn, &round)).await
            };
            match read {
                Ok((signature, event)) => {
                    sender.send_if_modified(|latest| {
                        let changed = latest.as_ref().is_none_or(|(known, _)| *known != signature);
                        if changed {
                            *latest = Some((signature, event));
                        }
                        changed
                    });
                }
                Err(e) => {
                    tracing::warn!(event_id = %key.0, round = key.1, error = %e, "clock stream could not refresh")
                }
            }
            tokio::time::sleep(POLL).await;
            let mut feeds = self.feeds.lock().unwrap_or_else(PoisonError::into_inner);
            if sender.receiver_count() == 0 {
                feeds.remove(&key);
                return;
            }
        }
    }
}

/// The round's clock now as an SSE event, and its signature.
pub(crate) fn reading_event(
    conn: &mut diesel::PgConnection,
    round: &ClockedRound,
) -> Result<(Signature, Bytes), catan_kit::ApiError> {
    let clock = clock_store::clock_of(conn, round.event_id, round.number)?;
    let reading = super::reading(round, &clock, chrono::Utc::now().timestamp_millis())?;
    let json = serde_json::to_string(&reading).map_err(catan_kit::ApiError::internal)?;
    let event = Bytes::from(format!("event: clock\ndata: {json}\n\n"));
    Ok(((reading.actions.len(), reading.state), event))
}

/// A watcher's connection: the signature it was sent last, and the first event not yet sent.
pub(crate) struct Watcher {
    pub receiver: watch::Receiver<Latest>,
    pub closing: watch::Receiver<()>,
    pub last_sent: Signature,
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
                    if let Some((signature, event)) = latest.filter(|(s, _)| *s != self.last_sent) {
                        self.last_sent = signature;
                        return Some((Ok(event), self));
                    }
                }
            }
        }
    }
}
