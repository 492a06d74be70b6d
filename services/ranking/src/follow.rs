//! The follower: reads the producers' change feeds into ranking's copies, and computes the views
//! of every event a change touched, so that reads only read.
//!
//! Every replica runs one. Pages are applied under an optimistic check of the feed's cursor, so
//! replicas reading the same page at once apply it once; applying is idempotent besides.

use crate::State;
use crate::store::{self, Feed, Inputs, Views};
use catan_api::standings::EventRecord;
use catan_api::{EventFormat, RegistrationChanges, ResultChanges};
use catan_kit::conditional::etag_of;
use catan_kit::{ApiError, db};
use chrono::Utc;
use std::time::Duration;
use uuid::Uuid;

const PAGE: u32 = 500;

/// Follows the feeds every `interval` until the server stops.
pub(crate) async fn follow(state: actix_web::web::Data<State>, interval: Duration) {
    loop {
        if let Err(e) = catch_up(&state).await {
            tracing::warn!(error = %e, "the read model could not catch up; trying again");
        }
        tokio::time::sleep(interval).await;
    }
}

/// Reads every feed to its end and brings the touched views up to date. A producer that cannot be
/// read is recorded as failing, and the views keep their last state.
pub(crate) async fn catch_up(state: &State) -> Result<(), ApiError> {
    let started = Utc::now();
    let mut outcomes = Vec::new();
    for feed in Feed::ALL {
        outcomes.push((feed, read_to_end(state, feed).await));
    }
    let views_current = refresh_views(state).await?;
    crate::seasons::refresh(state).await?;
    db::run(&state.pool, crate::ratings::replay).await?;
    db::run(&state.pool, move |conn| {
        for (feed, outcome) in outcomes {
            match outcome {
                // Caught up only when every view now includes what was read.
                Ok(true) if views_current => store::record_read(conn, feed, Ok(started))?,
                Ok(_) => {}
                Err(e) => store::record_read(conn, feed, Err(e.to_string()))?,
            }
        }
        Ok(())
    })
    .await
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

/// Reads `feed` to its end; whether it got there, rather than to changes held back behind a
/// transaction still in flight, which the next round reads.
async fn read_to_end(state: &State, feed: Feed) -> Result<bool, ApiError> {
    loop {
        let after = db::run(&state.pool, move |conn| store::next_of(conn, feed)).await?;
        let page = fetch(state, feed, &after).await?;
        if page.len() == 0 {
            return Ok(!page.held_back());
        }
        db::transaction(&state.pool, move |conn| {
            if store::advance(conn, feed, &after, page.next())? {
                match &page {
                    Page::Registration(p) => store::apply_registration(conn, &p.items)?,
                    Page::Results(p) => store::apply_results(conn, &p.items)?,
                }
            }
            Ok(())
        })
        .await?;
    }
}

/// Computes the views of every stale event; whether every one could be.
async fn refresh_views(state: &State) -> Result<bool, ApiError> {
    const BATCH: i64 = 100;
    let mut failed = false;
    loop {
        let stale = db::run(&state.pool, |conn| store::stale(conn, BATCH)).await?;
        let last_batch = i64::try_from(stale.len()).is_ok_and(|n| n < BATCH);
        let mut refreshed = 0;
        for (event_id, marked) in stale {
            let inputs = db::run(&state.pool, move |conn| store::inputs_of(conn, event_id)).await?;
            let Some(inputs) = inputs else {
                // Results of an event registration's feed has not brought yet: its arrival marks
                // the event again.
                db::run(&state.pool, move |conn| {
                    store::unmark(conn, event_id, marked)
                })
                .await?;
                continue;
            };
            match views_of(state, event_id, inputs).await {
                Ok(views) => {
                    db::transaction(&state.pool, move |conn| {
                        store::store_views(conn, event_id, marked, &views)
                    })
                    .await?;
                    refreshed += 1;
                }
                // The view keeps its last state and stays stale: the next round tries again.
                Err(e) => {
                    failed = true;
                    tracing::warn!(%event_id, error = %e, "an event's views could not be computed");
                }
            }
        }
        if last_batch || refreshed == 0 {
            return Ok(!failed);
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
    let as_of = inputs.as_of;
    let record = EventRecord::new(inputs.event, inputs.entries, inputs.results, byes, as_of);
    let standings = serde_json::to_string(&record.standings().map_err(ApiError::internal)?)
        .map_err(ApiError::internal)?;
    let placed = record.placements().map_err(ApiError::internal)?;
    let season_input =
        serde_json::to_value(crate::seasons::input::EventInput::of(&record, &placed))
            .map_err(ApiError::internal)?;
    let placements = serde_json::to_string(&placed).map_err(ApiError::internal)?;
    Ok(Views {
        standings_etag: etag_of(standings.as_bytes()),
        placements_etag: etag_of(placements.as_bytes()),
        standings,
        placements,
        season_input,
        as_of,
    })
}
