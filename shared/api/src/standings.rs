//! An event's standings and placements from its entries and results, by the domain's rules:
//! computed by ranking's read model for everyone to read, and by pairing when it draws, from the
//! results service itself, so that a draw never waits on the read model.

use crate::types::{
    AnyStandings, Entry, EntryStatus, Event, EventFormat, PartnerStandingRow, PartnerStandings,
    PlacementRow, Placements, ResultStatus, StandingRow, Standings, StandingsCount, TableResult,
};
use crate::types::{PlayoffCut, Separation};
use catan_domain::explain::explain_event_standings;
use catan_domain::partner::{PartnerGame, partner_standings_with_drops};
use catan_domain::playoffs::{PlayoffPlan, placements, playoff_plan};
use catan_domain::projection::{CutProjection, EventProjection, project_event};
use catan_domain::results::Stage;
use catan_domain::standings::{ClassicRow, Game, classic_standings};
use chrono::{DateTime, Utc};
use std::collections::{BTreeMap, HashMap};
use uuid::Uuid;

/// What an event's standings are computed from.
pub struct EventRecord {
    pub event: Event,
    pub entries: Vec<Entry>,
    /// The results the standings count (see [`EventRecord::new`]).
    pub results: Vec<TableResult>,
    /// Partner events: every drawn round's byes.
    pub byes: Vec<Uuid>,
    /// The last change the record includes.
    pub as_of: DateTime<Utc>,
}

/// A result that should be there but cannot be read as the rules need it.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct Inconsistent(String);

/// A place: (place, entry, the stage it reached).
type Placed = (u32, Uuid, Stage);

impl EventRecord {
    /// The record of an event, keeping the results its standings count: every posted result not
    /// voided, or, when the event says so, only those every player confirmed or the director
    /// resolved.
    pub fn new(
        event: Event,
        entries: Vec<Entry>,
        mut results: Vec<TableResult>,
        byes: Vec<Uuid>,
        as_of: DateTime<Utc>,
    ) -> EventRecord {
        results.retain(|r| !r.voided);
        if event.standings_count == StandingsCount::Confirmed {
            results
                .retain(|r| matches!(r.status, ResultStatus::Confirmed | ResultStatus::Resolved));
        }
        results.sort_by_key(|r| (r.round, r.table));
        EventRecord {
            event,
            entries,
            results,
            byes,
            as_of,
        }
    }

    pub fn standings(&self) -> Result<AnyStandings, Inconsistent> {
        Ok(match self.event.format {
            EventFormat::Classic => AnyStandings::Classic(self.classic_standings()),
            EventFormat::Partner => AnyStandings::Partner(self.partner_standings()?),
        })
    }

    pub fn classic_rows(&self) -> Vec<ClassicRow> {
        self.classic_rows_through(u32::MAX)
    }

    /// The qualifying standings of rounds 1 to `last_round`.
    fn classic_rows_through(&self, last_round: u32) -> Vec<ClassicRow> {
        let games: Vec<Game> = self
            .results
            .iter()
            .filter(|r| r.stage == Stage::Qualifying && r.round <= last_round)
            .map(|r| Game::from_result(&r.to_domain()))
            .collect();
        let players: Vec<Uuid> = self.entries.iter().filter_map(|e| e.player_id).collect();
        classic_standings(&players, &games)
    }

    /// Where every player stands against the playoff cut, as of the last complete qualifying
    /// round (a round in play would count a game twice for those who played it): none without a
    /// playoff.
    fn playoff_projection(&self, after_round: u32) -> Option<(PlayoffCut, EventProjection)> {
        let remaining_rounds = self.event.qualifying_rounds.saturating_sub(after_round);
        let still_in: Vec<Uuid> = self
            .entries
            .iter()
            .filter(|e| e.status == EntryStatus::Active)
            .filter_map(|e| e.player_id)
            .collect();
        let projection = project_event(
            &self.classic_rows_through(after_round),
            &still_in,
            remaining_rounds,
            self.event.small_field_playoff,
        )?;
        let cut = PlayoffCut {
            cut: projection.cut,
            after_round,
            remaining_rounds,
        };
        Some((cut, projection))
    }

    fn entry_of_player(&self) -> HashMap<Uuid, &Entry> {
        self.entries
            .iter()
            .filter_map(|e| Some((e.player_id?, e)))
            .collect()
    }

    fn counted(&self, stage: Stage) -> u32 {
        let counted = self.results.iter().filter(|r| r.stage == stage).count();
        u32::try_from(counted).unwrap_or(u32::MAX)
    }

    pub fn classic_standings(&self) -> Standings {
        let entry_of = self.entry_of_player();
        let after_round = complete_rounds(&self.results, Stage::Qualifying);
        let playoff = self.playoff_projection(after_round);
        let outlook_of: HashMap<Uuid, &CutProjection> = playoff
            .iter()
            .flat_map(|(_, projection)| projection.players.iter().map(|p| (p.player, p)))
            .collect();
        let rows = self.classic_rows();
        let behind = explain_event_standings(&rows);
        let rows = rows
            .iter()
            .zip(behind)
            .filter_map(|(row, behind)| {
                let entry = entry_of.get(&row.player)?;
                let outlook = outlook_of.get(&row.player);
                Some(StandingRow {
                    rank: row.rank,
                    entry_id: entry.id,
                    player_id: row.player,
                    name: entry.name.clone(),
                    status: entry.status,
                    vp: row.vp,
                    vp_share: row.vp_share.percent(),
                    vp_share_exact: row.vp_share.exact(),
                    games: row.games,
                    wins: row.wins,
                    three_player_games: row.three_player_games,
                    playoff: outlook.map(|o| o.outlook),
                    needs: outlook.and_then(|o| o.need),
                    behind: behind.map(Separation::from),
                })
            })
            .collect();
        Standings {
            format: EventFormat::Classic,
            event_id: self.event.id,
            after_round,
            results_counted: self.counted(Stage::Qualifying),
            as_of: self.as_of,
            playoff: playoff.map(|(cut, _)| cut),
            rows,
        }
    }

    pub fn partner_standings(&self) -> Result<PartnerStandings, Inconsistent> {
        let event = &self.event;
        let rules = event
            .partner_rules
            .ok_or_else(|| Inconsistent(format!("partner event {} has no rules", event.id)))?;
        let games: Vec<PartnerGame> = self
            .results
            .iter()
            .filter(|r| r.stage == Stage::Swiss)
            .map(|r| {
                r.to_partner_game().ok_or_else(|| {
                    Inconsistent(format!("partner result of table {} has no teams", r.table))
                })
            })
            .collect::<Result<_, _>>()?;
        let teams: Vec<Uuid> = self.entries.iter().map(|e| e.id).collect();
        let dropped: Vec<Uuid> = self
            .entries
            .iter()
            .filter(|e| e.status != EntryStatus::Active)
            .map(|e| e.id)
            .collect();
        let entry: HashMap<Uuid, &Entry> = self.entries.iter().map(|e| (e.id, e)).collect();
        let rows = partner_standings_with_drops(&teams, &games, &self.byes, &dropped, &rules)
            .into_iter()
            .filter_map(|row| {
                let team = entry.get(&row.team)?;
                Some(PartnerStandingRow {
                    rank: row.rank,
                    entry_id: row.team,
                    team_name: team.name.clone(),
                    player_ids: team.player_ids.clone(),
                    status: team.status,
                    points: row.points,
                    vp: row.vp,
                    vp_against: row.vp_against,
                    games: row.games,
                    byes: row.byes,
                    prize: row.prize,
                })
            })
            .collect();
        Ok(PartnerStandings {
            format: EventFormat::Partner,
            event_id: event.id,
            after_round: complete_rounds(&self.results, Stage::Swiss),
            results_counted: self.counted(Stage::Swiss),
            as_of: self.as_of,
            rows,
        })
    }

    /// The event's placements, once they are known.
    pub fn placements(&self) -> Result<Placements, Inconsistent> {
        let placed = match self.event.format {
            EventFormat::Classic => self.classic_placements()?,
            EventFormat::Partner => self.partner_placements()?,
        };
        let entry: HashMap<Uuid, &Entry> = self.entries.iter().map(|e| (e.id, e)).collect();
        let rows: Vec<PlacementRow> = placed
            .unwrap_or_default()
            .into_iter()
            .filter_map(|(place, entry_id, stage)| {
                let entry = entry.get(&entry_id)?;
                Some(PlacementRow {
                    place,
                    entry_id,
                    player_id: entry.player_id,
                    player_ids: entry.player_ids.clone(),
                    name: entry.name.clone(),
                    stage,
                })
            })
            .collect();
        Ok(Placements {
            event_id: self.event.id,
            complete: !rows.is_empty(),
            as_of: self.as_of,
            rows,
        })
    }

    /// A classic event's places, once they are known: by the playoff, or without one by the
    /// qualifying standings once every qualifying round is complete.
    fn classic_placements(&self) -> Result<Option<Vec<Placed>>, Inconsistent> {
        let event = &self.event;
        let rows = self.classic_rows();
        let entry_of = self.entry_of_player();
        let placed: Vec<(u32, Uuid, Stage)> =
            match self.results.iter().find(|r| r.stage == Stage::Final) {
                Some(final_result) => {
                    let semis: Vec<_> = self
                        .results
                        .iter()
                        .filter(|r| r.stage == Stage::Semifinal)
                        .map(|r| r.to_domain())
                        .collect();
                    placements(&rows, &semis, &final_result.to_domain())
                        .map_err(|e| Inconsistent(e.to_string()))?
                        .into_iter()
                        .map(|p| (p.place, p.player, p.stage))
                        .collect()
                }
                None => {
                    let no_playoff =
                        playoff_plan(rows.len(), event.small_field_playoff) == PlayoffPlan::None;
                    if !(no_playoff
                        && complete_rounds(&self.results, Stage::Qualifying)
                            >= event.qualifying_rounds)
                    {
                        return Ok(None);
                    }
                    // Without a playoff the qualifying standings are the placements.
                    rows.iter()
                        .zip(1..)
                        .map(|(r, place)| (place, r.player, Stage::Qualifying))
                        .collect()
                }
            };
        Ok(Some(
            placed
                .into_iter()
                .filter_map(|(place, player, stage)| {
                    Some((place, entry_of.get(&player)?.id, stage))
                })
                .collect(),
        ))
    }

    /// A partner event is placed by its final standings, once every Swiss round has its results.
    fn partner_placements(&self) -> Result<Option<Vec<Placed>>, Inconsistent> {
        let table = self.partner_standings()?;
        let rounds = self.event.partner_rules.map_or(0, |rules| rules.rounds);
        if table.after_round < rounds {
            return Ok(None);
        }
        Ok(Some(
            table
                .rows
                .iter()
                .zip(1..)
                .map(|(row, place)| (place, row.entry_id, Stage::Swiss))
                .collect(),
        ))
    }
}

/// The last round of `stage` whose every table has a result, counting from the first.
pub fn complete_rounds(results: &[TableResult], stage: Stage) -> u32 {
    let mut per_round: BTreeMap<u32, (u32, u32)> = BTreeMap::new();
    for r in results.iter().filter(|r| r.stage == stage) {
        per_round.entry(r.round).or_insert((0, r.round_tables)).0 += 1;
    }
    let mut complete = 0;
    for (round, (reported, tables)) in per_round {
        if round != complete + 1 || reported < tables {
            break;
        }
        complete = round;
    }
    complete
}
