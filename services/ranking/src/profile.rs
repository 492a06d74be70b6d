//! A player's page, read from the read model: the events he played (their season inputs), his
//! rating and its trend (the ratings), his seasons and places (the stored season views). A
//! merged identity's page is his survivor's.

use crate::ratings::survivors;
use crate::schema::ranking::{players, rating_history, ratings};
use crate::seasons::input::EventInput;
use catan_api::{
    Event, Player, PlayerProfile, ProfileEvent, ProfileQualification, ProfileRating, ProfileSeason,
    ProfileSeasonPoints, QualifiedPlayer, SeasonStandingRow,
};
use catan_domain::ratings::Model;
use catan_domain::standings::format_percent;
use catan_kit::ApiError;
use chrono::{DateTime, Utc};
use diesel::prelude::*;
use num_bigint::BigInt;
use num_rational::BigRational;
use num_traits::Zero;
use std::collections::{HashMap, HashSet};
use uuid::Uuid;

/// The rated games the trend looks back over.
pub const TREND_GAMES: i64 = 5;

/// What one event gave the player: his place, his games, his VP and his average VP share.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EventLine {
    pub place: Option<u32>,
    pub games: u32,
    pub vp: u32,
    /// In percent, exact.
    pub vp_share: BigRational,
}

/// The player's line of an event, from its season input: `ids` are the player's identities.
pub fn event_line(input: &EventInput, ids: &HashSet<Uuid>) -> EventLine {
    let place = input
        .placements
        .iter()
        .filter(|(player, _)| ids.contains(player))
        .map(|(_, place)| *place)
        .min();
    let (mut games, mut vp, mut shares) = (0u32, 0u32, BigRational::zero());
    for game in &input.games {
        let capped = |vp: u32| u64::from(vp.min(game.target_vp));
        let total: u64 = game.seats.iter().map(|s| capped(s.vp)).sum();
        for seat in game.seats.iter().filter(|s| ids.contains(&s.player)) {
            games += 1;
            vp = vp.saturating_add(seat.vp);
            if total > 0 {
                shares +=
                    BigRational::new(BigInt::from(capped(seat.vp) * 100), BigInt::from(total));
            }
        }
    }
    let vp_share = if games == 0 {
        BigRational::zero()
    } else {
        shares / BigRational::from_integer(BigInt::from(games))
    };
    EventLine {
        place,
        games,
        vp,
        vp_share,
    }
}

/// The rating's move over the last games: (now minus before the oldest of them, how many). `last`
/// holds the last games' (μ before, σ before), latest first.
pub fn trend(now: f64, last: &[(f64, f64)]) -> (f64, u32) {
    match last.last() {
        Some((mu, sigma)) => (
            now - (mu - 3.0 * sigma),
            u32::try_from(last.len()).unwrap_or(u32::MAX),
        ),
        None => (0.0, 0),
    }
}

#[derive(QueryableByName)]
struct Played {
    #[diesel(sql_type = diesel::sql_types::Jsonb)]
    event: serde_json::Value,
    #[diesel(sql_type = diesel::sql_types::Nullable<diesel::sql_types::Text>)]
    input: Option<String>,
    /// The last change the event's input includes, or the event's own.
    #[diesel(sql_type = diesel::sql_types::Timestamptz)]
    as_of: DateTime<Utc>,
}

#[derive(QueryableByName)]
struct Listed {
    #[diesel(sql_type = diesel::sql_types::Uuid)]
    season_id: Uuid,
    #[diesel(sql_type = diesel::sql_types::Text)]
    name: String,
    #[diesel(sql_type = diesel::sql_types::Text)]
    body: String,
    #[diesel(sql_type = diesel::sql_types::Text)]
    qualified: String,
    #[diesel(sql_type = diesel::sql_types::Timestamptz)]
    as_of: DateTime<Utc>,
}

fn parse<T: serde::de::DeserializeOwned>(value: serde_json::Value) -> Result<T, ApiError> {
    serde_json::from_value(value).map_err(ApiError::internal)
}

/// A player's page; `None` for a player ranking does not know.
pub fn profile(conn: &mut PgConnection, player: Uuid) -> Result<Option<PlayerProfile>, ApiError> {
    use diesel::sql_types::{Array, Text, Uuid as SqlUuid};
    let known: Option<Uuid> = players::table
        .find(player)
        .select(players::id)
        .first(conn)
        .optional()?;
    if known.is_none() {
        return Ok(None);
    }
    let survivor = survivors(conn)?;
    let me = survivor.get(&player).copied().unwrap_or(player);
    let ids: HashSet<Uuid> = survivor
        .iter()
        .filter(|(_, s)| **s == me)
        .map(|(merged, _)| *merged)
        .chain([me])
        .collect();
    let (person, changed_at): (serde_json::Value, DateTime<Utc>) = players::table
        .find(me)
        .select((players::body, players::changed_at))
        .first(conn)?;
    let person: Player = parse(person)?;
    let mut as_of = changed_at.max(crate::ratings::as_of(conn)?);

    let rated: Option<(f64, f64, f64, i32)> = ratings::table
        .find(me)
        .select((ratings::rating, ratings::mu, ratings::sigma, ratings::games))
        .first(conn)
        .optional()?;
    let last: Vec<(f64, f64)> = rating_history::table
        .filter(rating_history::player_id.eq(me))
        .order((
            rating_history::played_on.desc(),
            rating_history::event_id.desc(),
            rating_history::round.desc(),
            rating_history::table_number.desc(),
        ))
        .limit(TREND_GAMES)
        .select((rating_history::mu_before, rating_history::sigma_before))
        .load(conn)?;
    let fresh = Model::default().new_rating();
    let (rating, mu, sigma, games) = rated.unwrap_or((fresh.ordinal(), fresh.mu, fresh.sigma, 0));
    let (moved, trend_games) = trend(rating, &last);

    let texts: Vec<String> = ids.iter().map(Uuid::to_string).collect();
    let played: Vec<Played> = diesel::sql_query(
        "SELECT e.body AS event, i.body AS input, coalesce(i.as_of, e.changed_at) AS as_of FROM events e \
         LEFT JOIN season_inputs i ON i.event_id = e.id \
         WHERE e.id IN (SELECT event_id FROM entries WHERE body -> 'player_ids' ?| $1) \
         ORDER BY e.starts_on DESC, e.id DESC",
    )
    .bind::<Array<Text>, _>(&texts)
    .load(conn)?;

    let body = crate::seasons::read::with_rank(
        "v.ranks[array_position(v.players, r.player_id)]",
        "r.body",
        false,
    );
    let listed: Vec<Listed> = diesel::sql_query(format!(
        "SELECT r.season_id, s.name, {body} AS body, v.qualified, v.as_of FROM season_rows r \
         JOIN seasons s ON s.id = r.season_id JOIN season_views v ON v.season_id = r.season_id \
         WHERE r.player_id = $1 ORDER BY s.starts_on DESC, s.id DESC"
    ))
    .bind::<SqlUuid, _>(me)
    .load(conn)?;
    let mut seasons = Vec::new();
    let mut qualifications = Vec::new();
    let mut season_points: HashMap<Uuid, Vec<ProfileSeasonPoints>> = HashMap::new();
    for season in listed {
        as_of = as_of.max(season.as_of);
        let row: SeasonStandingRow =
            serde_json::from_str(&season.body).map_err(ApiError::internal)?;
        for result in &row.results {
            season_points
                .entry(result.event_id)
                .or_default()
                .push(ProfileSeasonPoints {
                    season_id: season.season_id,
                    season_name: season.name.clone(),
                    points: result.points.clone(),
                    points_exact: result.points_exact.clone(),
                    counted: result.counted,
                });
        }
        if row.qualified {
            let qualified: Vec<QualifiedPlayer> =
                serde_json::from_str(&season.qualified).map_err(ApiError::internal)?;
            qualifications.extend(
                qualified
                    .into_iter()
                    .filter(|q| q.player_id == me)
                    .map(|q| ProfileQualification {
                        season_id: season.season_id,
                        season_name: season.name.clone(),
                        via: q.via,
                        passed_down_from: q.passed_down_from,
                    }),
            );
        }
        seasons.push(ProfileSeason {
            season_id: season.season_id,
            name: season.name,
            rank: row.rank,
            points: row.points,
            points_exact: row.points_exact,
            events_counted: row.events_counted,
            qualified: row.qualified,
        });
    }

    let events = played
        .into_iter()
        .map(|p| {
            as_of = as_of.max(p.as_of);
            let event: Event = parse(p.event)?;
            let input: Option<EventInput> = p
                .input
                .map(|text| serde_json::from_str(&text).map_err(ApiError::internal))
                .transpose()?;
            let line = input.as_ref().map(|i| event_line(i, &ids));
            Ok(ProfileEvent {
                event_id: event.id,
                event_name: event.name,
                starts_on: event.starts_on,
                place: line.as_ref().and_then(|l| l.place),
                field_size: input.as_ref().map_or(0, |i| i.field_size),
                games: line.as_ref().map_or(0, |l| l.games),
                vp: line.as_ref().map_or(0, |l| l.vp),
                vp_share: line
                    .as_ref()
                    .map_or_else(|| "0.00".to_owned(), |l| format_percent(&l.vp_share)),
                season_points: season_points.remove(&event.id).unwrap_or_default(),
            })
        })
        .collect::<Result<Vec<_>, ApiError>>()?;
    Ok(Some(PlayerProfile {
        player_id: me,
        name: person.name,
        region_id: person.region_id,
        rating: ProfileRating {
            rating,
            mu,
            sigma,
            games: u32::try_from(games).unwrap_or(0),
            trend: moved,
            trend_games,
        },
        events,
        seasons,
        qualifications,
        as_of,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::seasons::input::{GameInput, SeatInput};

    fn id(n: u128) -> Uuid {
        Uuid::from_u128(n)
    }

    fn seat(player: Uuid, won: bool, vp: u32) -> SeatInput {
        SeatInput {
            player,
            won,
            vp,
            team: None,
        }
    }

    #[test]
    fn an_events_line_counts_every_identity_of_the_player_with_vp_capped_in_the_share() {
        let [me, old_me, b, c, d] = [1, 2, 3, 4, 5].map(id);
        let input = EventInput {
            field_size: 8,
            rounds_played: 2,
            placements_complete: true,
            placements: vec![(b, 1), (old_me, 3), (c, 2)],
            games: vec![
                GameInput {
                    target_vp: 10,
                    seats: vec![seat(old_me, true, 12), seat(b, false, 5), seat(c, false, 3)],
                },
                GameInput {
                    target_vp: 10,
                    seats: vec![
                        seat(me, false, 4),
                        seat(b, true, 10),
                        seat(c, false, 2),
                        seat(d, false, 4),
                    ],
                },
            ],
        };
        let line = event_line(&input, &HashSet::from([me, old_me]));
        assert_eq!((line.place, line.games, line.vp), (Some(3), 2, 16));
        // (10/18 + 4/20) / 2, in percent: the 12 VP count as the target's 10.
        let expected = (BigRational::new(BigInt::from(1000), BigInt::from(18))
            + BigRational::new(BigInt::from(400), BigInt::from(20)))
            / BigRational::from_integer(BigInt::from(2));
        assert_eq!(line.vp_share, expected);
        assert_eq!(format_percent(&line.vp_share), "37.78");
        let none = event_line(&input, &HashSet::from([id(9)]));
        assert_eq!(
            (none.place, none.games, none.vp_share),
            (None, 0, BigRational::zero())
        );
    }

    #[test]
    fn the_trend_is_the_rating_now_less_the_rating_before_the_last_games() {
        assert_eq!(trend(3.0, &[]), (0.0, 0));
        // Latest first: the oldest of the last games started at 25 − 3 × 8 = 1.
        let (moved, games) = trend(3.0, &[(24.0, 7.0), (25.0, 8.0)]);
        assert!((moved - 2.0).abs() < 1e-12);
        assert_eq!(games, 2);
    }
}
