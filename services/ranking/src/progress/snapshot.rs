//! What the read model included when it was read: how far each feed is copied, and what each
//! stale mark still waits for, read in one snapshot of the database.

use super::Need;
use crate::pending::Pending;
use crate::store::Feed;
use catan_api::Position;
use catan_kit::ApiError;
use diesel::prelude::*;
use std::collections::{HashMap, HashSet};
use std::time::Instant;
use uuid::Uuid;

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
    /// Whether it was read after `asked`.
    pub(super) fn taken_since(&self, asked: Instant) -> bool {
        self.taken.is_some_and(|taken| taken >= asked)
    }

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
    pub(super) fn read(conn: &mut PgConnection) -> Result<Snapshot, ApiError> {
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
