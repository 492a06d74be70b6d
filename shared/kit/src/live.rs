//! Live streams (server-sent events) of something a replica reads from the database: the
//! standings of an event, the clock of a round.
//!
//! Replicas keep no state, so a change made anywhere must reach every replica's streams: one
//! poller per watched thing and replica reads it every so often while anyone watches, and every
//! watcher gets each new version; a thousand screens cost what one does. The poller stops when
//! the last watcher leaves.

use crate::ApiError;
use crate::client::StreamSlot;
use actix_web::HttpResponse;
use actix_web::web::Bytes;
use std::collections::HashMap;
use std::future::Future;
use std::hash::Hash;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;
use tokio::sync::watch;

/// A comment line every so often keeps proxies from closing a quiet stream; writing it is also how
/// a stream whose reader left is found out (and its place under the client's cap freed), so it
/// is short.
const KEEP_ALIVE: Duration = Duration::from_secs(3);

/// Browsers reconnect this long after a stream ends.
const RECONNECT: &str = "retry: 2000\n";

/// A version of what a stream sends: what tells it from the next, and its event.
pub trait Live: Clone + Send + Sync + 'static {
    type Key: PartialEq + Send + Sync + 'static;
    /// Two versions with the same key are the same to a watcher: only a new key is sent.
    fn key(&self) -> Self::Key;
    /// The server-sent event that carries it.
    fn event(&self) -> Bytes;
}

type Latest<T> = Option<T>;

/// The things being watched, each with its poller's latest version.
pub struct Hub<K, T> {
    feeds: Mutex<HashMap<K, Arc<watch::Sender<Latest<T>>>>>,
    poll_interval: Duration,
    /// Ends every stream when the server stops (its sender goes away), so that a graceful stop
    /// does not wait for the watchers; they reconnect to another replica.
    closing: watch::Receiver<()>,
}

impl<K, T> Hub<K, T>
where
    K: Eq + Hash + Clone + std::fmt::Debug + Send + Sync + 'static,
    T: Live,
{
    /// The hub, polling each watched thing every `poll_interval`, and the task whose end (when
    /// the server stops) closes its streams.
    pub fn new(poll_interval: Duration) -> (Self, tokio::task::JoinHandle<()>) {
        let (closer, closing) = watch::channel(());
        let open_while_running = tokio::spawn(async move {
            let _closer = closer;
            std::future::pending::<()>().await
        });
        let hub = Hub {
            feeds: Mutex::new(HashMap::new()),
            poll_interval,
            closing,
        };
        (hub, open_while_running)
    }

    /// The stream of `key`: `first` at once (with the browser's reconnect delay), then each new
    /// version `read` finds, starting the poller if nobody watched yet. `read` answering none
    /// leaves the watchers what they have. `slot` is held while the stream is open.
    pub fn stream<R, Fut>(
        self: Arc<Self>,
        key: K,
        first: T,
        slot: StreamSlot,
        read: R,
    ) -> HttpResponse
    where
        R: Fn() -> Fut + Send + 'static,
        Fut: Future<Output = Result<Option<T>, ApiError>> + Send + 'static,
    {
        let mut opening = RECONNECT.as_bytes().to_vec();
        opening.extend_from_slice(&first.event());
        let watcher = Watcher {
            closing: self.closing.clone(),
            receiver: self.watch(key, read),
            first: Some(Bytes::from(opening)),
            last_sent: first.key(),
            _slot: slot,
        };
        HttpResponse::Ok()
            .content_type("text/event-stream")
            .insert_header(("Cache-Control", "no-cache"))
            // Proxies such as nginx would otherwise buffer the stream.
            .insert_header(("X-Accel-Buffering", "no"))
            .streaming(futures_util::stream::unfold(watcher, Watcher::next_event))
    }

    fn watch<R, Fut>(self: Arc<Self>, key: K, read: R) -> watch::Receiver<Latest<T>>
    where
        R: Fn() -> Fut + Send + 'static,
        Fut: Future<Output = Result<Option<T>, ApiError>> + Send + 'static,
    {
        let mut feeds = self.feeds.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(sender) = feeds.get(&key) {
            return sender.subscribe();
        }
        let (sender, receiver) = watch::channel(None);
        let sender = Arc::new(sender);
        feeds.insert(key.clone(), sender.clone());
        drop(feeds);
        tokio::spawn(self.poll(key, sender, read));
        receiver
    }

    async fn poll<R, Fut>(self: Arc<Self>, key: K, sender: Arc<watch::Sender<Latest<T>>>, read: R)
    where
        R: Fn() -> Fut + Send + 'static,
        Fut: Future<Output = Result<Option<T>, ApiError>> + Send + 'static,
    {
        loop {
            match read().await {
                Ok(Some(version)) => {
                    sender.send_if_modified(|latest| {
                        let new_key = version.key();
                        let changed = latest.as_ref().is_none_or(|known| known.key() != new_key);
                        if changed {
                            *latest = Some(version);
                        }
                        changed
                    });
                }
                // The watchers keep what they have; the next poll tries again.
                Ok(None) => {}
                Err(e) => tracing::warn!(?key, error = %e, "a live stream could not refresh"),
            }
            tokio::time::sleep(self.poll_interval).await;
            let mut feeds = self.feeds.lock().unwrap_or_else(PoisonError::into_inner);
            if sender.receiver_count() == 0 {
                feeds.remove(&key);
                return;
            }
        }
    }
}

/// A watcher's connection: the version it was sent last, and the first event not yet sent.
struct Watcher<T: Live> {
    receiver: watch::Receiver<Latest<T>>,
    closing: watch::Receiver<()>,
    last_sent: T::Key,
    first: Option<Bytes>,
    /// The stream's place under the client's cap.
    _slot: StreamSlot,
}

impl<T: Live> Watcher<T> {
    async fn next_event(mut self) -> Option<(Result<Bytes, actix_web::Error>, Self)> {
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
                    if let Some(version) = latest.filter(|v| v.key() != self.last_sent) {
                        self.last_sent = version.key();
                        return Some((Ok(version.event()), self));
                    }
                }
            }
        }
    }
}
