//! What a season needs of one event, computed with the event's views and stored with them
//! (`season_inputs`), so that a season's table is computed from small stored rows and no
//! event's standings are computed again for it.

use catan_api::standings::{EventRecord, complete_rounds};
use catan_api::{EventFormat, Placements, Stage, TableResult};
use catan_domain::season::{SeasonEvent, SeasonGame, SeasonSeat};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use uuid::Uuid;

/// A classic game is won at 10 VP.
const CLASSIC_TARGET: u32 = 10;

/// One event as a season sees it; the players as the event's entries and results name them
/// (merged identities are mapped to their survivors when a season is computed).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EventInput {
    /// The event's entries (a partner event's teams).
    pub field_size: u32,
    /// Complete qualifying rounds (Swiss rounds for a partner event).
    pub rounds_played: u32,
    pub placements_complete: bool,
    /// Each player's final place; a partner team's two players share their team's.
    pub placements: Vec<(Uuid, u32)>,
    /// The results the event's standings count, in the order played (round, then table).
    pub games: Vec<GameInput>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GameInput {
    /// 10 in a classic game, the team target in a partner game.
    pub target_vp: u32,
    pub seats: Vec<SeatInput>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeatInput {
    pub player: Uuid,
    pub won: bool,
    /// The VP the sheet records for the player.
    pub vp: u32,
    /// A partner game's team (0 or 1); none in a classic game.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub team: Option<u8>,
}

impl EventInput {
    /// The season's view of an event: its record (the counted results) and its placements.
    pub fn of(record: &EventRecord, placements: &Placements) -> EventInput {
        let stage = match record.event.format {
            EventFormat::Classic => Stage::Qualifying,
            EventFormat::Partner => Stage::Swiss,
        };
        let target = record
            .event
            .partner_rules
            .map_or(CLASSIC_TARGET, |rules| u32::from(rules.target_vp));
        EventInput {
            field_size: u32::try_from(record.entries.len()).unwrap_or(u32::MAX),
            rounds_played: complete_rounds(&record.results, stage),
            placements_complete: placements.complete,
            placements: placements
                .rows
                .iter()
                .flat_map(|row| row.player_ids.iter().map(|&player| (player, row.place)))
                .collect(),
            games: record
                .results
                .iter()
                .map(|result| game_of(result, target))
                .collect(),
        }
    }

    /// The domain's season event, every player as his survivor.
    pub fn to_season_event(&self, event: Uuid, survivor: &HashMap<Uuid, Uuid>) -> SeasonEvent {
        let canonical = |p: Uuid| survivor.get(&p).copied().unwrap_or(p);
        SeasonEvent {
            event,
            field_size: self.field_size,
            rounds_played: self.rounds_played,
            placements_complete: self.placements_complete,
            placements: self
                .placements
                .iter()
                .map(|&(player, place)| (canonical(player), place))
                .collect(),
            games: self
                .games
                .iter()
                .map(|game| SeasonGame {
                    target_vp: game.target_vp,
                    seats: game
                        .seats
                        .iter()
                        .map(|seat| SeasonSeat {
                            player: canonical(seat.player),
                            won: seat.won,
                            vp: seat.vp,
                            team: seat.team,
                        })
                        .collect(),
                })
                .collect(),
        }
    }
}

/// A result's seats: a partner table's by team (the team won if the winning entry is its), a
/// classic table's each on its own.
fn game_of(result: &TableResult, target: u32) -> GameInput {
    let partner = !result.teams.is_empty();
    let seats = result
        .scores
        .iter()
        .map(|score| {
            let team = result
                .teams
                .iter()
                .position(|t| t.player_ids.contains(&score.player_id));
            let won = if partner {
                team.and_then(|t| result.teams.get(t))
                    .is_some_and(|t| result.winner_entry_id == Some(t.entry_id))
            } else {
                result.winner_player_id == Some(score.player_id)
            };
            SeatInput {
                player: score.player_id,
                won,
                vp: u32::from(score.vp),
                team: team.and_then(|t| u8::try_from(t).ok()),
            }
        })
        .collect();
    GameInput {
        target_vp: if partner { target } else { CLASSIC_TARGET },
        seats,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use catan_api::{
        Entry, EntryStatus, Event, OutcomeKind, PlacementRow, ResultStatus, ScoreRecorded,
        TeamScore,
    };
    use chrono::Utc;

    fn id(n: u128) -> Uuid {
        Uuid::from_u128(n)
    }

    fn event(format: &str) -> Event {
        let mut event: Event = serde_json::from_value(serde_json::json!({
            "id": id(0xE1), "name": "Open", "region_id": null, "format": "classic",
            "starts_on": "2027-04-18", "ends_on": "2027-04-18", "venue": null, "status": "finished",
            "qualifying_rounds": 1, "small_field_playoff": "no_playoff", "board_mode": "each_table",
            "standings_count": "posted", "partner_rules": null,
            "created_at": "2027-01-01T00:00:00Z"
        }))
        .unwrap();
        if format == "partner" {
            event.format = EventFormat::Partner;
            event.partner_rules = Some(catan_api::PartnerSettings::default());
        }
        event
    }

    fn entry(n: u128, players: &[Uuid]) -> Entry {
        Entry {
            id: id(0xF00 + n),
            event_id: id(0xE1),
            player_id: (players.len() == 1).then(|| players[0]),
            team_name: None,
            player_ids: players.to_vec(),
            name: format!("Entry {n}"),
            status: EntryStatus::Active,
            status_reason: None,
            created_at: Utc::now(),
            pins: None,
        }
    }

    fn score(player: Uuid, vp: u8) -> ScoreRecorded {
        ScoreRecorded {
            player_id: player,
            vp,
            credited_vp: vp.min(10),
            breakdown: None,
        }
    }

    fn result(
        stage: Stage,
        round: u32,
        winner: Option<Uuid>,
        scores: &[(Uuid, u8)],
    ) -> TableResult {
        TableResult {
            event_id: id(0xE1),
            round,
            table: 1,
            stage,
            version: 1,
            seq: 1,
            round_tables: 1,
            outcome: if winner.is_some() {
                OutcomeKind::Won
            } else {
                OutcomeKind::TimeLimit
            },
            winner_player_id: winner,
            winner_entry_id: None,
            scores: scores.iter().map(|&(p, vp)| score(p, vp)).collect(),
            teams: Vec::new(),
            status: ResultStatus::Posted,
            confirmed_by: Vec::new(),
            confirmed_by_director: Vec::new(),
            disputes: Vec::new(),
            recorded_at: Utc::now(),
            recorded_by: id(0xAA),
            voided: false,
        }
    }

    fn placements(rows: &[(u32, &[Uuid])], complete: bool) -> Placements {
        Placements {
            event_id: id(0xE1),
            complete,
            as_of: Utc::now(),
            rows: rows
                .iter()
                .map(|(place, players)| PlacementRow {
                    place: *place,
                    entry_id: id(0xF00),
                    player_id: None,
                    player_ids: players.to_vec(),
                    name: String::new(),
                    stage: Stage::Qualifying,
                })
                .collect(),
        }
    }

    #[test]
    fn a_classic_event_gives_its_field_rounds_places_and_games_at_a_target_of_ten() {
        let [a, b, c] = [1, 2, 3].map(id);
        let record = EventRecord::new(
            event("classic"),
            vec![entry(1, &[a]), entry(2, &[b]), entry(3, &[c])],
            vec![result(
                Stage::Qualifying,
                1,
                Some(b),
                &[(a, 7), (b, 11), (c, 4)],
            )],
            Vec::new(),
            Utc::now(),
        );
        let input = EventInput::of(
            &record,
            &placements(&[(1, &[b]), (2, &[a]), (3, &[c])], true),
        );
        assert_eq!(
            (
                input.field_size,
                input.rounds_played,
                input.placements_complete
            ),
            (3, 1, true)
        );
        assert_eq!(input.placements, [(b, 1), (a, 2), (c, 3)]);
        assert_eq!(
            input.games,
            [GameInput {
                target_vp: 10,
                seats: vec![
                    SeatInput {
                        player: a,
                        won: false,
                        vp: 7,
                        team: None
                    },
                    SeatInput {
                        player: b,
                        won: true,
                        vp: 11,
                        team: None
                    },
                    SeatInput {
                        player: c,
                        won: false,
                        vp: 4,
                        team: None
                    },
                ],
            }]
        );
        // Stored as JSON and read back the same.
        let stored = serde_json::to_string(&input).unwrap();
        assert_eq!(serde_json::from_str::<EventInput>(&stored).unwrap(), input);
    }

    #[test]
    fn a_partner_team_shares_its_place_and_its_win_at_the_team_target() {
        let [a, b, c, d] = [1, 2, 3, 4].map(id);
        let mut game = result(Stage::Swiss, 1, None, &[(a, 12), (b, 9), (c, 8), (d, 6)]);
        game.teams = vec![
            TeamScore {
                entry_id: id(0xF01),
                player_ids: vec![a, b],
                vp: 21,
                result: catan_api::GameResult::Win,
                points: 3,
            },
            TeamScore {
                entry_id: id(0xF02),
                player_ids: vec![c, d],
                vp: 14,
                result: catan_api::GameResult::Loss,
                points: 0,
            },
        ];
        game.winner_entry_id = Some(id(0xF01));
        let record = EventRecord::new(
            event("partner"),
            vec![entry(1, &[a, b]), entry(2, &[c, d])],
            vec![game],
            Vec::new(),
            Utc::now(),
        );
        let input = EventInput::of(&record, &placements(&[(1, &[a, b]), (2, &[c, d])], false));
        assert_eq!(input.field_size, 2, "a partner event's field is its teams");
        assert!(!input.placements_complete);
        assert_eq!(input.placements, [(a, 1), (b, 1), (c, 2), (d, 2)]);
        let seats = &input.games[0].seats;
        assert_eq!(input.games[0].target_vp, 20);
        assert_eq!(
            seats.iter().map(|s| (s.won, s.team)).collect::<Vec<_>>(),
            [
                (true, Some(0)),
                (true, Some(0)),
                (false, Some(1)),
                (false, Some(1))
            ]
        );
    }

    #[test]
    fn merged_players_count_as_their_survivors() {
        let [a, b, dup] = [1, 2, 9].map(id);
        let input = EventInput {
            field_size: 2,
            rounds_played: 1,
            placements_complete: true,
            placements: vec![(dup, 1), (b, 2)],
            games: vec![GameInput {
                target_vp: 10,
                seats: vec![
                    SeatInput {
                        player: dup,
                        won: true,
                        vp: 10,
                        team: None,
                    },
                    SeatInput {
                        player: b,
                        won: false,
                        vp: 5,
                        team: None,
                    },
                ],
            }],
        };
        let survivors = HashMap::from([(dup, a)]);
        let event = input.to_season_event(id(0xE1), &survivors);
        assert_eq!(event.placements, [(a, 1), (b, 2)]);
        assert_eq!(event.games[0].seats[0].player, a);
    }
}
