//! Tables' first sheets, committed together. When a round ends, every table app posts at once;
//! each sheet alone is one statement and one commit (a WAL flush), and the commits, the
//! connections they wait for and the pages their rows share are what the posts queue on. Here one
//! writer takes the sheets waiting when it is free and records them in one statement: one round
//! trip and one commit for all, and each post answered only once that commit is done. A post
//! waits for no one when nothing else is queued. While the writer's commit waits for the disk,
//! the sheets that come meanwhile gather for its next statement: one writer makes fewer and larger
//! groups than two, whose statements cost more than their overlap saves (BENCHMARKS.md).
//!
//! The writer is a thread of its own, blocked on the queue and on its connection: a sheet
//! reaches the database after one thread wakes, not a task and then a thread of the blocking
//! pool, and back likewise. On a machine whose cores the burst keeps busy, each wake-up is a wait
//! for a core.
//!
//! A sheet the statement does not record (its table has a result, its key was used) is answered
//! `None`, exactly as when alone, and goes the slow way; so does one whose table or key another
//! sheet of its group has, as if it had come a moment later. The writer waits on no lock for long
//! (a table another transaction is writing): should its statement fail, for that or any other
//! reason, each of its sheets is written again by its own request on a connection of its own, so
//! that one sheet's wait or failure is never another's.

use crate::store::{self, FirstRecorded};
use crate::submission::{Submission, first_reply};
use crate::webhook_events;
use catan_kit::ApiError;
use catan_kit::audit::AuditEntry;
use catan_kit::db::{PgConn, PgPool};
use catan_kit::idempotency::Claim;
use diesel::{PgConnection, RunQueryDsl};
use std::collections::HashSet;
use std::panic::AssertUnwindSafe;
use std::sync::{Arc, mpsc};
use tokio::sync::oneshot;

/// The most sheets one statement records: a round's sheets arrive at most as many at once as
/// there are table apps posting, and a bounded statement keeps each post's wait short.
const MOST_TOGETHER: usize = 64;

/// From this pool size on, the writer keeps its connection between groups; a smaller pool lends
/// it for each group, so that the posts written by their own requests always find one.
const KEEP_CONNECTION_FROM: u32 = 4;

/// The longest the writer waits for a lock (a table another transaction is writing) before the
/// sheets it holds are written each by its own request.
const LOCK_TIMEOUT: &str = "SET lock_timeout = '100ms'";
/// What the connection is set back to before the pool has it again.
const NO_LOCK_TIMEOUT: &str = "RESET lock_timeout";

/// What became of a sheet left for the writer.
enum Written {
    /// Committed by the writer: its result, or `None` when its statement wrote nothing.
    Written(Option<Box<FirstRecorded>>),
    /// Its request writes it: the writer's statement failed or waited too long for a lock.
    Alone,
}

/// A sheet waiting for the writer, with where to send what became of it.
struct Waiting {
    submission: Arc<Submission>,
    claim: Option<Claim>,
    audit: AuditEntry,
    answer: oneshot::Sender<Written>,
}

/// Where the handlers leave the sheets (the handlers' side).
#[derive(Clone)]
pub struct FirstSheets {
    queue: mpsc::Sender<Waiting>,
}

/// The writer's side, until it is started with the service's pool.
pub struct Writer {
    queue: mpsc::Receiver<Waiting>,
}

impl FirstSheets {
    pub fn new() -> (FirstSheets, Writer) {
        let (queue, waiting) = mpsc::channel();
        (FirstSheets { queue }, Writer { queue: waiting })
    }

    /// Records `submission` as its table's first result with the request's key and audit record
    /// (see [`Submission::record_first`]), once committed: the result, or `None` when its
    /// statement wrote nothing.
    pub async fn record(
        &self,
        pool: &PgPool,
        submission: Arc<Submission>,
        claim: Option<Claim>,
        audit: AuditEntry,
    ) -> Result<Option<FirstRecorded>, ApiError> {
        let (answer, answered) = oneshot::channel();
        let waiting = Waiting {
            submission: Arc::clone(&submission),
            claim: claim.clone(),
            audit: audit.clone(),
            answer,
        };
        // The writer stopped (the server is stopping), or never started: as a statement that
        // failed.
        let written = match self.queue.send(waiting) {
            Ok(()) => answered.await.unwrap_or(Written::Alone),
            Err(_) => Written::Alone,
        };
        match written {
            Written::Written(result) => Ok(result.map(|result| *result)),
            Written::Alone => {
                catan_kit::db::run(pool, move |conn| {
                    submission.record_first(conn, claim.as_ref(), Some(&audit))
                })
                .await
            }
        }
    }
}

impl Writer {
    /// Starts the writer on `pool`, on a thread of its own. It ends once every [`FirstSheets`] is
    /// dropped (the server stopped) and the sheets already left are written.
    pub fn start(self, pool: PgPool) {
        let keep = pool.max_size() >= KEEP_CONNECTION_FROM;
        let started = std::thread::Builder::new()
            .name("first-sheets".to_owned())
            .spawn(move || run_writer(&self.queue, &pool, keep));
        if let Err(e) = started {
            // Its queue is gone with it: each post writes its own sheet.
            tracing::error!(error = %e, "the first sheets' writer could not start");
        }
    }
}

/// The writer: takes the sheets waiting and writes them, until the handlers are gone.
fn run_writer(queue: &mpsc::Receiver<Waiting>, pool: &PgPool, keep: bool) {
    // Its connection, kept between groups when the pool is large enough.
    let mut held = None;
    while let Some(group) = next_group(queue) {
        let conn = held.take();
        // A panic answers the group's posts as a failed statement would (their senders dropped:
        // each writes its own sheet), and the writer goes on with a connection of the pool's.
        let written = std::panic::catch_unwind(AssertUnwindSafe(|| write(pool, conn, group)));
        held = match written {
            Ok(Some(conn)) if !keep => {
                give_back(conn);
                None
            }
            Ok(conn) => conn,
            Err(_) => {
                tracing::error!("the first sheets' writer failed");
                None
            }
        };
    }
    if let Some(conn) = held {
        give_back(conn);
    }
}

/// The next sheet to come, and every other one waiting already (at most [`MOST_TOGETHER`]);
/// `None` once the handlers are gone.
fn next_group(queue: &mpsc::Receiver<Waiting>) -> Option<Vec<Waiting>> {
    let first = queue.recv().ok()?;
    let mut group = vec![first];
    while group.len() < MOST_TOGETHER {
        match queue.try_recv() {
            Ok(next) => group.push(next),
            Err(_) => break,
        }
    }
    Some(group)
}

/// Records `group` on `held` (or a connection from `pool`), and answers each of its sheets; the
/// connection, while it serves.
fn write(pool: &PgPool, held: Option<PgConn>, group: Vec<Waiting>) -> Option<PgConn> {
    let mut conn = held.or_else(|| pool.get().ok().and_then(waiting_briefly));
    let outcomes: Vec<Written> = match conn.as_mut().map(|conn| record(conn, &group)) {
        Some(Ok(outcomes)) => outcomes,
        failed => {
            let error = failed.and_then(Result::err).map(|e| e.to_string());
            tracing::warn!(
                error = error.as_deref().unwrap_or("no connection"),
                sheets = group.len(),
                "the writer could not write its sheets; each is written by its request"
            );
            conn = conn.and_then(waiting_briefly);
            group.iter().map(|_| Written::Alone).collect()
        }
    };
    for (waiting, outcome) in group.into_iter().zip(outcomes) {
        // A post that gave up meanwhile has no one to tell; its retry finds its key.
        let _ = waiting.answer.send(outcome);
    }
    conn
}

/// `conn` set to wait at most [`LOCK_TIMEOUT`] for a lock; `None` when it does not answer (a
/// connection that died with its group is dropped, and the pool's check finds it dead).
fn waiting_briefly(mut conn: PgConn) -> Option<PgConn> {
    diesel::sql_query(LOCK_TIMEOUT).execute(&mut conn).ok()?;
    Some(conn)
}

/// Sets the writer's connection back as the pool hands connections out, and lets it go back to
/// the pool.
fn give_back(mut conn: PgConn) {
    let _ = diesel::sql_query(NO_LOCK_TIMEOUT).execute(&mut conn);
}

/// The group's sheets in one statement. A sheet whose table or key another sheet of the group
/// already has is left to its request, which then finds the first one's (as it would had it come
/// a moment later); so is nothing else.
fn record(conn: &mut PgConnection, group: &[Waiting]) -> Result<Vec<Written>, ApiError> {
    let mut tables = HashSet::new();
    let mut keys = HashSet::new();
    let mut firsts = Vec::with_capacity(group.len());
    // Each sheet's outcome when known without the statement; `None`: the statement's, in turn.
    let mut known = Vec::with_capacity(group.len());
    for waiting in group {
        let submission = &waiting.submission;
        let claim = waiting.claim.as_ref();
        let again = !tables.insert(submission.table_key())
            || claim.is_some_and(|c| !keys.insert((c.api_key_id(), c.key().to_owned())));
        known.push(match submission.first(claim, Some(&waiting.audit)) {
            _ if again => Some(Written::Alone),
            Some(first) => {
                firsts.push(first);
                None
            }
            None => Some(Written::Written(None)),
        });
    }
    let mut recorded = if firsts.is_empty() {
        Vec::new()
    } else {
        store::record_firsts(conn, &firsts, webhook_events::of_posted, first_reply)?
    }
    .into_iter();
    Ok(known
        .into_iter()
        .map(|known| {
            known.unwrap_or_else(|| Written::Written(recorded.next().flatten().map(Box::new)))
        })
        .collect())
}
