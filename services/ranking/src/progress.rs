//! Read your own writes: a read that carries a `Catan-Position` answers once the read model
//! includes those writes, or 503 past `CATAN_CONSISTENCY_WAIT_MS`; a read or a write that names
//! an event or player ranking has not seen waits for the follower to read the feeds once more
//! before it answers 404.
//!
//! What the model includes is read from its tables ([`Snapshot`]: how far each feed is copied,
//! and what each stale mark still waits for, see `crate::pending`), once for every reader that
//! waits: the read model's tasks say when they stored something ([`Progress::stepped`]), and the
//! snapshot is read again only while someone waits. A snapshot never claims more than it read:
//! the copies and the marks are read in one transaction.

use crate::pending::Pending;
use crate::store::Feed;
use catan_api::Position;
use catan_kit::db::PgPool;
use catan_kit::{ApiError, db};
use diesel::prelude::*;
use std::collections::{HashMap, HashSet};
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

/// What the read model included when it was read.
#[derive(Debug, Clone, Default)]
pub struct Snapshot {
    /// When it was read (before its reads began).
    taken: Option<Instant>,
    /// For each producer ranking follows, the last transaction whose changes are all copied.
    registration_through: u64,
    results_through: u64,
    /// Ranking's own transactions the snapshot sees: those below `own_xmin`, and those below
    /// `own_xmax` but for `own_in_flight`.
    own_xmin: u64,
    own_xmax: u64,
    own_in_flight: HashSet<u64>,
    /// The stale marks of events, seasons and (all together) the ratings.
    events: HashMap<Uuid, Pending>,
    seasons: HashMap<Uuid, Pending>,
    ratings: Pending,
}

impl Snapshot {
    /// Whether the writes of `position` are all copied, and ranking's own ones committed, as
    /// the snapshot saw them.
    fn copied(&self, position: &Position) -> bool {
        let own = position.ranking;
        let own_seen = own == 0
            || own < self.own_xmin
            || (own < self.own_xmax && !self.own_in_flight.contains(&own));
        self.registration_through >= position.registration
            && self.results_through >= position.results
            && own_seen
    }

    fn event_includes(&self, event: Uuid, position: &Position) -> bool {
        !self
            .events
            .get(&event)
            .is_some_and(|mark| mark.holds_back(position))
    }

    /// Whether what `need` serves included the writes of `position` when this was read.
    pub fn includes(&self, need: &Need, position: &Position) -> bool {
        if !self.copied(position) {
            return false;
        }
        match need {
            Need::Copies => true,
            Need::Event(event) => self.event_includes(*event, position),
            Need::Season { season, events } => {
                events.iter().all(|e| self.event_includes(*e, position))
                    && !self
                        .seasons
                        .get(season)
                        .is_some_and(|mark| mark.holds_back(position))
            }
            Need::Ratings => !self.ratings.holds_back(position),
            Need::Everything => {
                !self.ratings.holds_back(position)
                    && !self.events.values().any(|m| m.holds_back(position))
                    && !self.seasons.values().any(|m| m.holds_back(position))
            }
        }
    }

    /// Reads what the read model includes now, in one snapshot of the database.
    fn read(conn: &mut PgConnection) -> Result<Snapshot, ApiError> {
        use crate::schema::ranking::{feeds, seasons_stale, stale_views};
        let taken = Some(Instant::now());
        conn.build_transaction()
            .repeatable_read()
            .read_only()
            .run(|conn| {
                let through: Vec<(String, i64)> = feeds::table
                    .select((feeds::name, feeds::read_through))
                    .load(conn)?;
                let through_of = |feed: Feed| {
                    through
                        .iter()
                        .find(|(name, _)| name == feed.name())
                        .map_or(0, |(_, t)| u64::try_from(*t).unwrap_or(0))
                };
                let events = stale_views::table
                    .select((
                        stale_views::event_id,
                        stale_views::pending_registration,
                        stale_views::pending_results,
                    ))
                    .load::<(Uuid, Option<i64>, Option<i64>)>(conn)?
                    .into_iter()
                    .map(|(event, registration, results)| {
                        let pending = Pending {
                            registration,
                            results,
                            ranking: None,
                        };
                        (event, pending)
                    })
                    .collect();
                let seasons = seasons_stale::table
                    .select((
                        seasons_stale::season_id,
                        seasons_stale::pending_registration,
                        seasons_stale::pending_results,
                        seasons_stale::pending_ranking,
                    ))
                    .load::<(Uuid, Option<i64>, Option<i64>, Option<i64>)>(conn)?
                    .into_iter()
                    .map(|(season, registration, results, ranking)| {
                        let pending = Pending {
                            registration,
                            results,
                            ranking,
                        };
                        (season, pending)
                    })
                    .collect();
                let ratings = ratings_marks(conn)?;
                let own: String = diesel::select(diesel::dsl::sql::<diesel::sql_types::Text>(
                    "pg_current_snapshot()::text",
                ))
                .get_result(conn)?;
                let (own_xmin, own_xmax, own_in_flight) = parse_snapshot(&own)
                    .ok_or_else(|| ApiError::internal(format!("a snapshot reads {own:?}")))?;
                Ok(Snapshot {
                    taken,
                    registration_through: through_of(Feed::Registration),
                    results_through: through_of(Feed::Results),
                    own_xmin,
                    own_xmax,
                    own_in_flight,
                    events,
                    seasons,
                    ratings,
                })
            })
    }
}

/// The lowest bounds of every ratings mark.
fn ratings_marks(conn: &mut PgConnection) -> Result<Pending, ApiError> {
    #[derive(QueryableByName)]
    struct Least {
        #[diesel(sql_type = diesel::sql_types::Nullable<diesel::sql_types::BigInt>)]
        registration: Option<i64>,
        #[diesel(sql_type = diesel::sql_types::Nullable<diesel::sql_types::BigInt>)]
        results: Option<i64>,
    }
    let least: Least = diesel::sql_query(
        "SELECT min(pending_registration) AS registration, min(pending_results) AS results \
         FROM (SELECT pending_registration, pending_results FROM ratings_stale \
               UNION ALL SELECT pending_registration, pending_results FROM ratings_stale_games) marks",
    )
    .get_result(conn)?;
    Ok(Pending {
        registration: least.registration,
        results: least.results,
        ranking: None,
    })
}

/// PostgreSQL's `pg_snapshot` as text, `xmin:xmax:xip,...`.
fn parse_snapshot(text: &str) -> Option<(u64, u64, HashSet<u64>)> {
    let mut parts = text.split(':');
    let xmin = parts.next()?.parse().ok()?;
    let xmax = parts.next()?.parse().ok()?;
    let in_flight = match parts.next()? {
        "" => HashSet::new(),
        list => list
            .split(',')
            .map(str::parse)
            .collect::<Result<_, _>>()
            .ok()?,
    };
    parts.next().is_none().then_some((xmin, xmax, in_flight))
}

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

    /// The snapshot read again, unless one was begun after `asked` meanwhile.
    async fn read_again(&self, pool: &PgPool, asked: Instant) -> Result<(), ApiError> {
        let _one_at_a_time = self.reading.lock().await;
        if self
            .latest
            .borrow()
            .taken
            .is_some_and(|taken| taken >= asked)
        {
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
        if position.is_empty() || self.latest.borrow().includes(need, position) {
            return Ok(());
        }
        let mut changes = self.latest.subscribe();
        self.waiting.fetch_add(1, Ordering::SeqCst);
        let _waiting = Waiting(&self.waiting);
        self.read_again(pool, Instant::now()).await?;
        let included = tokio::time::timeout(self.wait, async {
            loop {
                if changes.borrow_and_update().includes(need, position) {
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
        if self.latest.borrow().includes(need, position) {
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
    /// call. 503 with `Retry-After` past the wait.
    pub async fn until_read_again(&self) -> Result<(), ApiError> {
        let after = self.rounds.begun.load(Ordering::SeqCst);
        let mut completed = self.rounds.completed.subscribe();
        self.nudge.notify_one();
        tokio::time::timeout(self.wait, completed.wait_for(|done| *done > after))
            .await
            .map_err(|_| not_yet(self.wait))?
            .map_err(ApiError::internal)?;
        Ok(())
    }
}

/// What a request of ranking waits for before it answers: the writes it asks to read (its
/// `Catan-Position` headers and `position` query parameter, merged; 422 `invalid_position` for
/// one no write answered), and the read model's progress.
pub struct Waits {
    progress: actix_web::web::Data<Progress>,
    pool: PgPool,
    pub wanted: Position,
}

impl actix_web::FromRequest for Waits {
    type Error = ApiError;
    type Future = std::future::Ready<Result<Self, ApiError>>;

    fn from_request(req: &actix_web::HttpRequest, _: &mut actix_web::dev::Payload) -> Self::Future {
        std::future::ready(waits_of(req))
    }
}

fn waits_of(req: &actix_web::HttpRequest) -> Result<Waits, ApiError> {
    let progress = req
        .app_data::<actix_web::web::Data<Progress>>()
        .cloned()
        .ok_or_else(|| ApiError::internal("no read model progress"))?;
    let pool = req
        .app_data::<actix_web::web::Data<crate::State>>()
        .map(|state| state.pool.clone())
        .ok_or_else(|| ApiError::internal("no state"))?;
    Ok(Waits {
        progress,
        pool,
        wanted: wanted_of(req)?,
    })
}

impl Waits {
    /// Waits until what `need` serves includes the writes the request asks to read.
    pub async fn until(&self, need: &Need) -> Result<(), ApiError> {
        self.progress.until(&self.pool, need, &self.wanted).await
    }

    /// What `find` finds once `need` includes the request's writes; when it finds nothing, what
    /// it finds once the follower has read the feeds again, so that what was made a moment ago
    /// is found rather than answered 404.
    pub async fn found<T, F, Fut>(&self, need: &Need, mut find: F) -> Result<Option<T>, ApiError>
    where
        F: FnMut() -> Fut,
        Fut: std::future::Future<Output = Result<Option<T>, ApiError>>,
    {
        self.until(need).await?;
        if let Some(found) = find().await? {
            return Ok(Some(found));
        }
        self.progress.until_read_again().await?;
        find().await
    }
}

fn wanted_of(req: &actix_web::HttpRequest) -> Result<Position, ApiError> {
    use catan_kit::problem::ErrorCode;
    let refused = |field: &str| {
        ApiError::field(
            field,
            ErrorCode::InvalidPosition,
            format!(
                "{field} must be a Catan-Position a write answered, or several separated by commas"
            ),
        )
    };
    let mut wanted = Position::default();
    for value in req.headers().get_all(catan_api::POSITION_HEADER) {
        let text = value
            .to_str()
            .map_err(|_| refused(catan_api::POSITION_HEADER))?;
        let position = Position::parse(text).map_err(|_| refused(catan_api::POSITION_HEADER))?;
        wanted = wanted.merge(position);
    }
    #[derive(serde::Deserialize)]
    struct Query {
        position: Option<String>,
    }
    if let Ok(query) = actix_web::web::Query::<Query>::from_query(req.query_string())
        && let Some(text) = &query.position
    {
        let position = Position::parse(text).map_err(|_| refused(catan_api::POSITION_QUERY))?;
        wanted = wanted.merge(position);
    }
    Ok(wanted)
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

#[cfg(test)]
mod tests {
    use super::*;

    fn position(registration: u64, results: u64, ranking: u64) -> Position {
        Position {
            registration,
            results,
            ranking,
        }
    }

    fn snapshot() -> Snapshot {
        Snapshot {
            registration_through: 500,
            results_through: 900,
            own_xmin: 70,
            own_xmax: 80,
            own_in_flight: HashSet::from([72]),
            ..Snapshot::default()
        }
    }

    #[test]
    fn a_write_not_yet_copied_is_not_included() {
        let seen = snapshot();
        assert!(seen.includes(&Need::Copies, &position(500, 900, 0)));
        assert!(!seen.includes(&Need::Copies, &position(501, 0, 0)));
        assert!(!seen.includes(&Need::Copies, &position(0, 901, 0)));
    }

    #[test]
    fn ranking_own_write_counts_once_the_snapshot_sees_it_committed() {
        let seen = snapshot();
        assert!(seen.includes(&Need::Copies, &position(0, 0, 69)));
        assert!(seen.includes(&Need::Copies, &position(0, 0, 71)));
        // In flight when read, or begun after: a season's mark it made may not be in the
        // snapshot.
        assert!(!seen.includes(&Need::Copies, &position(0, 0, 72)));
        assert!(!seen.includes(&Need::Copies, &position(0, 0, 80)));
    }

    #[test]
    fn an_event_waits_only_for_its_own_marks() {
        let (busy, quiet) = (Uuid::from_u128(1), Uuid::from_u128(2));
        let mut seen = snapshot();
        seen.events
            .insert(busy, Pending::from(catan_api::Producer::Results, 850));
        let wanted = position(0, 860, 0);
        assert!(!seen.includes(&Need::Event(busy), &wanted));
        assert!(seen.includes(&Need::Event(quiet), &wanted));
        // A write before the first change the mark waits for is in the busy event's views.
        assert!(seen.includes(&Need::Event(busy), &position(0, 849, 0)));
        assert!(!seen.includes(&Need::Everything, &wanted));
        assert!(
            !seen.includes(
                &Need::Season {
                    season: Uuid::from_u128(9),
                    events: vec![quiet, busy]
                },
                &wanted
            ),
            "a season waits for its events' views"
        );
    }

    #[test]
    fn a_season_waits_for_its_own_mark() {
        let season = Uuid::from_u128(9);
        let mut seen = snapshot();
        seen.seasons
            .insert(season, Pending::from(catan_api::Producer::Ranking, 65));
        let need = Need::Season {
            season,
            events: vec![],
        };
        assert!(!seen.includes(&need, &position(0, 0, 66)));
        assert!(seen.includes(&need, &position(0, 0, 64)));
        assert!(seen.includes(&need, &position(400, 0, 0)));
    }

    #[test]
    fn the_snapshot_text_reads_back() {
        assert_eq!(
            parse_snapshot("70:80:72,75"),
            Some((70, 80, HashSet::from([72, 75])))
        );
        assert_eq!(parse_snapshot("70:70:"), Some((70, 70, HashSet::new())));
        assert_eq!(parse_snapshot("70:80"), None);
        assert_eq!(parse_snapshot("a:80:"), None);
    }
}
