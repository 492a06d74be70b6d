//! Drawing a partner event's Swiss round: teams paired by the engine's optimal matching, seated
//! with partners opposite.

use crate::State;
use catan_api::{EntryStatus, Event, EventFormat, Round, RoundFigures, Seat, Stage, Table};
use catan_domain::partner::{PartnerRow, pair_partner_round, seat_partner_table};
use catan_kit::ApiError;
use std::collections::HashMap;
use uuid::Uuid;

/// The two teams at a drawn partner table.
fn teams_at(table: &Table) -> Option<(Uuid, Uuid)> {
    let first = table.seats.first()?.entry_id;
    let second = table
        .seats
        .iter()
        .map(|s| s.entry_id)
        .find(|e| *e != first)?;
    Some((first, second))
}

/// Each table's seats are drawn from the round's seed and its number.
fn table_seed(round_seed: u64, table: usize) -> u64 {
    round_seed ^ (table as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15)
}

pub async fn draw_swiss_round(
    state: &State,
    event: &Event,
    existing: &[Round],
    seed: u64,
) -> Result<Round, ApiError> {
    let rules = event
        .partner_rules
        .ok_or_else(|| ApiError::internal(format!("partner event {} has no rules", event.id)))?;
    if existing.len() >= rules.rounds as usize {
        return Err(ApiError::Conflict(format!(
            "the event is complete: all {} Swiss rounds have been drawn",
            rules.rounds
        )));
    }
    let entries = state.peers.registration.entries(event.id).await?;
    let standings = crate::record::event_record(state, event, &entries, existing)
        .await?
        .partner_standings()
        .map_err(ApiError::internal)?;
    let rows: Vec<PartnerRow> = standings
        .rows
        .iter()
        .map(|r| PartnerRow {
            rank: r.rank,
            team: r.entry_id,
            points: r.points,
            vp: r.vp,
            vp_against: r.vp_against,
            games: r.games,
            byes: r.byes,
            dropped: r.status != EntryStatus::Active,
            prize: r.prize,
        })
        .collect();
    if rows.iter().filter(|r| !r.dropped).count() < 2 {
        return Err(ApiError::Conflict(
            "a Swiss round needs at least two teams in the event".into(),
        ));
    }
    let played: Vec<(Uuid, Uuid)> = existing
        .iter()
        .flat_map(|r| r.tables.iter().filter_map(teams_at))
        .collect();
    let pairing = pair_partner_round(&rows, &played, seed);
    let team_of: HashMap<Uuid, (&str, [Uuid; 2], u32)> = entries
        .iter()
        .filter_map(|e| {
            let players: [Uuid; 2] = e.player_ids.clone().try_into().ok()?;
            let points = rows.iter().find(|r| r.team == e.id).map_or(0, |r| r.points);
            Some((e.id, (e.name.as_str(), players, points)))
        })
        .collect();
    let mut tables = Vec::with_capacity(pairing.tables.len());
    for ((i, (a, b)), number) in pairing.tables.iter().enumerate().zip(1..) {
        let (&(a_name, a_players, a_points), &(b_name, b_players, b_points)) = (
            team_of
                .get(a)
                .ok_or_else(|| ApiError::internal(format!("team {a} has no players")))?,
            team_of
                .get(b)
                .ok_or_else(|| ApiError::internal(format!("team {b} has no players")))?,
        );
        let rematch = played
            .iter()
            .any(|&(x, y)| (x, y) == (*a, *b) || (y, x) == (*a, *b));
        let mut notes = vec![format!(
            "Swiss: {a_name} ({a_points} points) against {b_name} ({b_points} points); partners sit opposite"
        )];
        if rematch {
            notes.push("these teams have met before: no pairing of the field avoids it".into());
        }
        tables.push(Table {
            number,
            seats: seat_partner_table((*a, a_players), (*b, b_players), table_seed(seed, i))
                .into_iter()
                .map(|(position, player_id, entry_id)| Seat {
                    position,
                    entry_id,
                    player_id,
                })
                .collect(),
            explanation: serde_json::json!({ "notes": notes, "points": [a_points, b_points], "rematch": rematch }),
        });
    }
    Ok(Round {
        event_id: event.id,
        number: u32::try_from(existing.len() + 1).map_err(ApiError::internal)?,
        format: EventFormat::Partner,
        stage: Stage::Swiss,
        seed,
        seed_chosen: false,
        changed_by_hand: false,
        drawn_at: chrono::SubsecRound::trunc_subsecs(chrono::Utc::now(), 6),
        figures: RoundFigures {
            repeat_meetings: pairing.rematches,
            cost: pairing.cost,
            ..RoundFigures::default()
        },
        tables,
        byes: pairing.bye.into_iter().collect(),
        board_mode: event.board_mode,
        partner_rules: Some(rules),
        player_reporting: event.player_reporting,
    })
}
