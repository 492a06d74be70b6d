//! The follower: reads the producers' change feeds into ranking's copies, and computes the views
//! of every event a change touched, so that reads only read.
//!
//! Every replica runs one. Pages are applied under an optimistic check of the feed's cursor, so
//! replicas reading the same page at once apply it once; applying is idempotent besides.

use crate::State;
use crate::pending::{Pending, ReadThrough};
use crate::progress::Progress;
use crate::store::{self, EntriesCache, Feed, Inputs, StaleEvent, Views};
use crate::surge::Surge;
use catan_api::standings::EventRecord;
use catan_api::{EventFormat, RegistrationChanges, ResultChanges};
use catan_kit::conditional::etag_of;
use catan_kit::{ApiError, db};
use chrono::Utc;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};
use tokio::sync::Notify;
use uuid::Uuid;

const PAGE: u32 = 500;

/// Follows the feeds every `interval` until the server stops; wakes the season tables whenever
/// it stored new event views. It holds back its computations while writes pour in (`surge`).
pub(crate) async fn follow(
    state: actix_web::web::Data<State>,
    interval: Duration,
    seasons_due: Arc<Notify>,
    surge: Arc<Mutex<Surge>>,
    progress: actix_web::web::Data<Progress>,
) {
    let entries = Arc::new(EntriesCache::default());
    let rest = Rest::ProportionalOrNudged(2, progress.nudge.clone());
    repeat("the event views", interval, rest, || async {
        let round = progress.round_begins();
        let caught_up = catch_up(&state, &entries, &seasons_due, &surge, &progress).await;
        if matches!(caught_up, Ok(true)) {
            progress.round_completed(round);
        }
        progress.stepped(&state.pool).await;
        caught_up.map(|_| ())
    })
    .await;
}

/// Replays the ratings, from the first game a change asked for, until the server stops; not
/// while the follower holds back its computations in a surge of writes.
pub(crate) async fn replay_ratings(
    state: actix_web::web::Data<State>,
    interval: Duration,
    surge: Arc<Mutex<Surge>>,
    progress: actix_web::web::Data<Progress>,
) {
    repeat("the ratings", interval, Rest::Proportional(2), || async {
        if surge
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .holding()
        {
            return Ok(());
        }
        let replayed = db::run(&state.pool, crate::ratings::replay).await;
        progress.stepped(&state.pool).await;
        replayed
    })
    .await;
}

/// Computes the tables of the seasons whose events' views changed, as soon as the follower
/// stored new views and at least every `interval` (a season's own changes), until the server
/// stops.
pub(crate) async fn refresh_seasons(
    state: actix_web::web::Data<State>,
    interval: Duration,
    due: Arc<Notify>,
    progress: actix_web::web::Data<Progress>,
) {
    repeat(
        "the season tables",
        interval,
        Rest::UntilWoken(due),
        || async {
            let refreshed = crate::seasons::refresh(&state).await;
            progress.stepped(&state.pool).await;
            refreshed
        },
    )
    .await;
}

/// How long a task of the read model rests between two runs.
enum Rest {
    /// At least `interval`, and at least `n` times as long as its last run took: under a burst
    /// of writes (every table of a large round posting at once) a run grows with what it reads
    /// and computes again, and resting in proportion keeps it to at most 1/(n + 1) of a core,
    /// taking in more at each run, rather than racing the writes it follows for the CPU.
    Proportional(u32),
    /// As `Proportional`, but a nudge (a reader waits for the feeds to be read again) ends the
    /// rest once it has lasted its proportion of the last run.
    ProportionalOrNudged(u32, Arc<Notify>),
    /// `interval`, or until woken: what it serves is computed from the event views, and waits on
    /// them rather than on a clock.
    UntilWoken(Arc<Notify>),
}

/// Runs `work` over and over until the server stops. The follower, the season tables and the
/// ratings each run in a task of their own, so that a long run of one (a replay of every game of
/// the day after the one changed; a season table of thousands of players) never delays the event
/// views.
async fn repeat<F, Run>(what: &str, interval: Duration, rest: Rest, mut work: F)
where
    F: FnMut() -> Run,
    Run: std::future::Future<Output = Result<(), ApiError>>,
{
    loop {
        let started = std::time::Instant::now();
        if let Err(e) = work().await {
            tracing::warn!(error = %e, "{what} could not be brought up to date; trying again");
        }
        match &rest {
            Rest::Proportional(n) => {
                tokio::time::sleep(interval.max(started.elapsed() * *n)).await;
            }
            Rest::ProportionalOrNudged(n, nudge) => {
                let proportion = started.elapsed() * *n;
                tokio::time::sleep(proportion).await;
                let _ = tokio::time::timeout(interval.saturating_sub(proportion), nudge.notified())
                    .await;
            }
            Rest::UntilWoken(wake) => {
                // A wake-up while it ran is kept, so that none is lost.
                let _ = tokio::time::timeout(interval, wake.notified()).await;
            }
        }
    }
}

/// Reads what every feed holds now and brings the touched events' views up to date: whether
/// every feed was read and every view computed. A producer that cannot be read is recorded as
/// failing, and the views keep their last state.
async fn catch_up(
    state: &State,
    entries: &Arc<EntriesCache>,
    seasons_due: &Notify,
    surge: &Mutex<Surge>,
    progress: &Progress,
) -> Result<bool, ApiError> {
    let started = Utc::now();
    let clock = Instant::now();
    let mut outcomes = Vec::new();
    let mut taken = 0;
    for feed in Feed::ALL {
        let outcome = read_available(state, feed).await;
        taken += outcome.as_ref().map_or(0, |(_, changes)| *changes);
        outcomes.push((feed, outcome.map(|(reached_end, _)| reached_end)));
    }
    let read = clock.elapsed();
    let compute = surge
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .compute_now(taken, clock);
    // Held back in a surge of writes, the views are not current: no feed is caught up.
    let (views_current, others_current) = if compute {
        let (views_current, stored) = refresh_views(state, entries, progress).await?;
        if stored {
            seasons_due.notify_one();
        }
        // The season tables and the ratings are brought up to date on their own (`repeat`); the
        // read model has caught up only once they include what was read too.
        let others_current = !db::run(&state.pool, |conn| {
            Ok(crate::ratings::pending(conn)? || crate::seasons::store::pending(conn)?)
        })
        .await?;
        (views_current, others_current)
    } else {
        tracing::debug!(taken, "writes pour in: the views wait");
        (false, false)
    };
    tracing::debug!(
        read_ms = read.as_millis(),
        views_ms = (clock.elapsed() - read).as_millis(),
        "a round of the follower"
    );
    // Every change committed before the round began is now in the copies and in the views.
    let read_everything = views_current
        && outcomes
            .iter()
            .all(|(_, outcome)| matches!(outcome, Ok(true)));
    db::run(&state.pool, move |conn| {
        for (feed, outcome) in outcomes {
            match outcome {
                // Caught up only when every view now includes what was read.
                Ok(true) if views_current && others_current => {
                    store::record_read(conn, feed, Ok(started))?
                }
                Ok(_) => {}
                Err(e) => store::record_read(conn, feed, Err(e.to_string()))?,
            }
        }
        Ok(())
    })
    .await?;
    Ok(read_everything)
}

/// A page of a feed, as its producer sent it.
enum Page {
    Registration(RegistrationChanges),
    Results(ResultChanges),
}

impl Page {
    fn len(&self) -> usize {
        match self {
            Page::Registration(page) => page.items.len(),
            Page::Results(page) => page.items.len(),
        }
    }

    fn held_back(&self) -> bool {
        match self {
            Page::Registration(page) => page.held_back,
            Page::Results(page) => page.held_back,
        }
    }

    fn next(&self) -> &str {
        match self {
            Page::Registration(page) => &page.next,
            Page::Results(page) => &page.next,
        }
    }

    /// The last transaction of its producer the page completes.
    fn read_through(&self, feed: Feed) -> Result<i64, ApiError> {
        let position = match self {
            Page::Registration(page) => &page.position,
            Page::Results(page) => &page.position,
        };
        let position = catan_api::Position::parse(position).map_err(ApiError::internal)?;
        let through = match feed.producer() {
            catan_api::Producer::Registration => position.registration,
            catan_api::Producer::Results => position.results,
            catan_api::Producer::Ranking => 0,
        };
        i64::try_from(through).map_err(ApiError::internal)
    }
}

async fn fetch(state: &State, feed: Feed, after: &str) -> Result<Page, ApiError> {
    Ok(match feed {
        Feed::Registration => Page::Registration(
            state
                .peers
                .registration
                .registration_changes(after, PAGE)
                .await?,
        ),
        Feed::Results => Page::Results(state.peers.results.results_feed(after, PAGE).await?),
    })
}

/// Reads what `feed` holds now, up to its first page that is not full; whether that reached its
/// end, rather than changes held back behind a transaction still in flight, which the next round
/// reads, and how many changes it took in. It does not read on while new changes keep arriving:
/// under steady writes the feed always has a newer page, and the views of what was read must be
/// computed first. A page another replica copied first is read again from where it left the
/// cursor, so that the feed is read through at least as far as this read began.
async fn read_available(state: &State, feed: Feed) -> Result<(bool, usize), ApiError> {
    let mut taken = 0;
    loop {
        let place = db::run(&state.pool, move |conn| store::place_in(conn, feed)).await?;
        let after = place.next;
        let page = fetch(state, feed, &after).await?;
        let read_through = page.read_through(feed)?;
        // Every change this page brings came after what was read through before it.
        let pending = Pending::from(feed.producer(), place.read_through + 1);
        let (len, held_back) = (page.len(), page.held_back());
        taken += len;
        if tracing::enabled!(tracing::Level::DEBUG)
            && let Page::Results(p) = &page
            && let Some(oldest) = p.items.iter().map(|r| r.recorded_at).min()
        {
            tracing::debug!(
                len,
                held_back,
                oldest_ms = (Utc::now() - oldest).num_milliseconds(),
                "a page of results"
            );
        }
        let copied = db::transaction(&state.pool, move |conn| {
            db::commit_without_flush(conn)?;
            if len == 0 {
                return store::read_nothing_new(conn, feed, &after, read_through);
            }
            let moved = store::advance(conn, feed, &after, page.next(), read_through)?;
            if moved {
                match &page {
                    Page::Registration(p) => store::apply_registration(conn, &p.items, pending)?,
                    Page::Results(p) => store::apply_results(conn, &p.items, pending)?,
                }
            }
            Ok(moved)
        })
        .await?;
        if copied && len < PAGE as usize {
            return Ok((!held_back, taken));
        }
    }
}

/// How many events' views are computed at once: the work is mostly the database's and the
/// serializing of large bodies, which two cores overlap.
const VIEWS_AT_ONCE: usize = 2;

/// What became of a stale event's views.
enum Refresh {
    Stored,
    /// Registration's feed has not brought the event yet: its arrival marks the event again.
    NotKnown,
    /// The views keep their last state and stay stale: the next round tries again.
    Failed,
}

/// Computes the views of every stale event; whether every one could be, and whether any was
/// stored.
async fn refresh_views(
    state: &State,
    entries: &Arc<EntriesCache>,
    progress: &Progress,
) -> Result<(bool, bool), ApiError> {
    use futures_util::{StreamExt, TryStreamExt, stream};
    const BATCH: i64 = 100;
    let mut failed = false;
    let mut stored = false;
    loop {
        let stale = db::run(&state.pool, |conn| store::stale(conn, BATCH)).await?;
        let last_batch = i64::try_from(stale.len()).is_ok_and(|n| n < BATCH);
        let outcomes: Vec<Refresh> = stream::iter(stale)
            .map(|stale| refresh_event(state, entries, progress, stale))
            .buffer_unordered(VIEWS_AT_ONCE)
            .try_collect()
            .await?;
        failed |= outcomes.iter().any(|o| matches!(o, Refresh::Failed));
        let refreshed = outcomes
            .iter()
            .filter(|o| matches!(o, Refresh::Stored))
            .count();
        stored |= refreshed > 0;
        if last_batch || refreshed == 0 {
            return Ok((!failed, stored));
        }
    }
}

/// Computes and stores one stale event's views.
async fn refresh_event(
    state: &State,
    entries: &Arc<EntriesCache>,
    progress: &Progress,
    stale: StaleEvent,
) -> Result<Refresh, ApiError> {
    let event_id = stale.event_id;
    let entries = Arc::clone(entries);
    let started = std::time::Instant::now();
    // How far the copies reach, read before the inputs: the views include at least that.
    let (read, inputs): (ReadThrough, Option<Inputs>) = db::run(&state.pool, move |conn| {
        Ok((
            store::read_through(conn)?,
            store::inputs_of(conn, event_id, &entries)?,
        ))
    })
    .await?;
    let Some(inputs) = inputs else {
        db::run(&state.pool, move |conn| store::unmark(conn, &stale, read)).await?;
        return Ok(Refresh::NotKnown);
    };
    let loaded = started.elapsed();
    match views_of(state, event_id, inputs).await {
        Ok(views) => {
            let computed = started.elapsed();
            db::transaction(&state.pool, move |conn| {
                db::commit_without_flush(conn)?;
                store::store_views(conn, &stale, read, &views)
            })
            .await?;
            progress.views_stored(event_id, read);
            tracing::debug!(%event_id, ?loaded, ?computed, stored = ?started.elapsed(), "an event's views");
            Ok(Refresh::Stored)
        }
        Err(e) => {
            tracing::warn!(%event_id, error = %e, "an event's views could not be computed");
            Ok(Refresh::Failed)
        }
    }
}

/// An event's standings and placements, as served. A partner event's byes are pairing's: they are
/// asked for here, off the read path.
async fn views_of(state: &State, event_id: Uuid, inputs: Inputs) -> Result<Views, ApiError> {
    let byes = match inputs.event.format {
        EventFormat::Classic => Vec::new(),
        EventFormat::Partner => state
            .peers
            .pairing
            .rounds(event_id)
            .await?
            .iter()
            .flat_map(|r| r.byes.iter().copied())
            .collect(),
    };
    // Computing and serializing a large event's views is long work: off the async workers, which
    // answer reads meanwhile.
    tokio::task::spawn_blocking(move || computed_views(inputs, byes))
        .await
        .map_err(ApiError::internal)?
}

fn computed_views(inputs: Inputs, byes: Vec<Uuid>) -> Result<Views, ApiError> {
    let as_of = inputs.as_of;
    let record = EventRecord::new(inputs.event, inputs.entries, inputs.results, byes, as_of);
    let standings = serde_json::to_string(&record.standings().map_err(ApiError::internal)?)
        .map_err(ApiError::internal)?;
    let placed = record.placements().map_err(ApiError::internal)?;
    let season_input =
        serde_json::to_string(&crate::seasons::input::EventInput::of(&record, &placed))
            .map_err(ApiError::internal)?;
    let placements = serde_json::to_string(&placed).map_err(ApiError::internal)?;
    Ok(Views {
        finished: placed.complete,
        standings_etag: etag_of(standings.as_bytes()),
        placements_etag: etag_of(placements.as_bytes()),
        standings,
        placements,
        season_input,
        as_of,
    })
}

/// `catan_feed_lag_seconds{feed}`: how long ago the read model last caught up with each feed,
/// read from the feeds' table at each scrape (every replica shows the same, the shared state).
pub(crate) fn watch_lag(
    metrics: &catan_kit::metrics::Metrics,
    pool: db::PgPool,
) -> anyhow::Result<()> {
    let lag = metrics.feed_lag()?;
    metrics.on_scrape(Arc::new(move || {
        let mut conn = pool
            .get_timeout(Duration::from_secs(2))
            .map_err(|e| e.to_string())?;
        let now = Utc::now();
        for feed in store::feed_states(&mut conn).map_err(|e| e.to_string())? {
            let behind = feed
                .caught_up_at
                .map(|at| (now - at).to_std().unwrap_or_default());
            lag.set(&feed.name, behind, feed.failing_since.is_some());
        }
        Ok(())
    }));
    Ok(())
}
