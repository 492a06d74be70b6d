//! Read your own writes: a read that carries a `Catan-Position` answers once the read model
//! includes those writes, or 503 past `CATAN_CONSISTENCY_WAIT_MS`; a read or a write that names
//! an event or player ranking has not seen waits (as long at the most) for the follower to read
//! the feeds once more before it answers 404.
//!
//! What the model includes is read from its tables ([`Snapshot`]: how far each feed is copied,
//! and what each stale mark still waits for, see `crate::pending`), once for every reader that
//! waits: the read model's tasks say when they stored something ([`Progress::stepped`]), and the
//! snapshot is read again only while someone waits. A snapshot never claims more than it read:
//! the copies and the marks are read in one transaction. An event's views stored by this process
//! answer its readers at once, from what the follower knows it read ([`StoredViews`]).

use catan_api::Position;
use catan_kit::db::PgPool;
use catan_kit::{ApiError, db};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};
use tokio::sync::watch;
use uuid::Uuid;

/// What a read serves, and so which marks it waits for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Need {
    /// One event's standings or placements.
    Event(Uuid),
    /// A season's table or qualified players: its events' views and its own table.
    Season { season: Uuid, events: Vec<Uuid> },
    /// The ratings (the leaderboard, a player's history, predictions).
    Ratings,
    /// Everything: a player's page shows his events, seasons and rating.
    Everything,
    /// Only the copies (a season join that names an event, a decline that names a player).
    Copies,
}

mod snapshot;
mod stored;
mod waits;

pub use snapshot::Snapshot;
use stored::StoredViews;
pub use waits::Waits;

/// The follower's rounds: the last begun, and the last that brought every feed and every view
/// up to date (by the number it began with).
#[derive(Debug, Default)]
struct Rounds {
    begun: AtomicU64,
    completed: watch::Sender<u64>,
}

/// What the read model includes, for the reads that wait for it.
pub struct Progress {
    wait: Duration,
    latest: watch::Sender<Arc<Snapshot>>,
    /// The event views this process stored: what an event's reads wait for, known here first.
    stored: StoredViews,
    /// Readers waiting: the snapshot is read again after each step only while there are some.
    waiting: AtomicUsize,
    /// One read of the snapshot at a time: a reader who asked while another read was running
    /// takes the next one.
    reading: tokio::sync::Mutex<()>,
    rounds: Rounds,
    /// Wakes the follower from its rest: a reader waits for it to read the feeds again.
    pub nudge: Arc<tokio::sync::Notify>,
}

/// A reader counted as waiting while it lives.
struct Waiting<'a>(&'a AtomicUsize);

impl Drop for Waiting<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

impl Progress {
    pub fn new(wait: Duration) -> Progress {
        Progress {
            wait,
            latest: watch::Sender::new(Arc::new(Snapshot::default())),
            stored: StoredViews::default(),
            waiting: AtomicUsize::new(0),
            reading: tokio::sync::Mutex::new(()),
            rounds: Rounds::default(),
            nudge: Arc::new(tokio::sync::Notify::new()),
        }
    }

    /// A task of the read model stored something: waiting readers look again.
    pub async fn stepped(&self, pool: &PgPool) {
        if self.waiting.load(Ordering::SeqCst) > 0
            && let Err(e) = self.read_again(pool, Instant::now()).await
        {
            tracing::warn!(error = %e, "the read model's progress could not be read");
        }
    }

    /// This process stored the views of `event`, computed from every copied change up to `read`:
    /// the readers waiting look again at once.
    pub fn views_stored(&self, event: Uuid, read: crate::pending::ReadThrough) {
        self.stored.record(event, read);
        if self.waiting.load(Ordering::SeqCst) > 0 {
            self.latest.send_modify(|_| ());
        }
    }

    /// Whether what `need` serves includes the writes of `position`, as last known here.
    fn includes(&self, need: &Need, position: &Position) -> bool {
        self.stored.include(need, position) || self.latest.borrow().includes(need, position)
    }

    /// The snapshot read again, unless one was begun after `asked` meanwhile.
    async fn read_again(&self, pool: &PgPool, asked: Instant) -> Result<(), ApiError> {
        let _one_at_a_time = self.reading.lock().await;
        if self.latest.borrow().taken_since(asked) {
            return Ok(());
        }
        let snapshot = db::run(pool, Snapshot::read).await?;
        self.latest.send_replace(Arc::new(snapshot));
        Ok(())
    }

    /// Waits until what `need` serves includes the writes of `position`: at once when it does,
    /// else until a snapshot read after a step of the read model says so; 503 with `Retry-After`
    /// past the wait.
    pub async fn until(
        &self,
        pool: &PgPool,
        need: &Need,
        position: &Position,
    ) -> Result<(), ApiError> {
        if position.is_empty() || self.includes(need, position) {
            return Ok(());
        }
        let mut changes = self.latest.subscribe();
        self.waiting.fetch_add(1, Ordering::SeqCst);
        let _waiting = Waiting(&self.waiting);
        self.read_again(pool, Instant::now()).await?;
        let included = tokio::time::timeout(self.wait, async {
            loop {
                changes.borrow_and_update();
                if self.includes(need, position) {
                    return;
                }
                if changes.changed().await.is_err() {
                    return std::future::pending().await;
                }
            }
        })
        .await;
        if included.is_ok() {
            return Ok(());
        }
        // One last look, at a snapshot read now.
        self.read_again(pool, Instant::now()).await?;
        if self.includes(need, position) {
            return Ok(());
        }
        Err(not_yet(self.wait))
    }

    /// A round of the follower begins: its number.
    pub fn round_begins(&self) -> u64 {
        self.rounds.begun.fetch_add(1, Ordering::SeqCst) + 1
    }

    /// The round `number` brought every feed and every view up to date.
    pub fn round_completed(&self, number: u64) {
        self.rounds.completed.send_if_modified(|completed| {
            let later = number > *completed;
            if later {
                *completed = number;
            }
            later
        });
    }

    /// Waits until a round of the follower begun after this call has brought every feed and
    /// every view up to date: then the read model includes every write committed before the
    /// call. False past the wait.
    pub async fn until_read_again(&self) -> bool {
        let after = self.rounds.begun.load(Ordering::SeqCst);
        let mut completed = self.rounds.completed.subscribe();
        self.nudge.notify_one();
        matches!(
            tokio::time::timeout(self.wait, completed.wait_for(|done| *done > after)).await,
            Ok(Ok(_))
        )
    }
}

fn not_yet(wait: Duration) -> ApiError {
    ApiError::Unavailable {
        detail: format!(
            "the read model has not taken in the writes this read asks for (its Catan-Position) \
             within {} ms; retry after Retry-After",
            wait.as_millis()
        ),
        source: None,
    }
}
