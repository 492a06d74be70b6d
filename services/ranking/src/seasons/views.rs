//! A season's views: its table and its qualified players, computed by the domain's rules from
//! the season's events (ranking's copies, in play order) and stored as they are served, each row
//! of the table as JSON and as a CSV line.

use super::input::EventInput;
use catan_api::{
    Event, QualifiedPlayer, QualifiedVia, SeasonEventResult, SeasonQualification,
    SeasonStandingRow, Separation,
};
use catan_domain::explain::explain_season_standings;
use catan_domain::projection::{QualificationOutlook, RemainingEvent, project_season};
use catan_domain::season::{
    self as rules, Scoring, SeasonEvent, SeasonRow, qualify, season_standings,
};
use catan_domain::standings::format_percent;
use catan_kit::ApiError;
use chrono::{DateTime, Utc};
use num_bigint::BigInt;
use num_rational::BigRational;
use std::collections::{HashMap, HashSet};
use uuid::Uuid;

/// The columns of the CSV table, one line a player.
pub const CSV_HEADER: &str = "rank,player_id,name,region_id,points,points_exact,events_played,events_counted,wins,best_place,vp,vp_share,qualified";

/// One event of a season: the event and, once its views were computed, its season input.
pub struct Member {
    pub event: Event,
    pub input: Option<EventInput>,
    pub as_of: Option<DateTime<Utc>>,
}

/// A season's table row as served.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServedRow {
    pub player: Uuid,
    /// The rank that leads `body`, `summary` and `csv`.
    pub rank: u32,
    pub region: Option<Uuid>,
    pub body: String,
    /// The row without its per-event results.
    pub summary: String,
    pub csv: String,
}

/// A season's views as served.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Computed {
    pub rows: Vec<ServedRow>,
    pub qualified: String,
}

/// `n/d`, as the event standings write exact figures.
pub fn exact(value: &BigRational) -> String {
    format!("{}/{}", value.numer(), value.denom())
}

/// A season's table and qualified players, as served: `members` in play order, merged players
/// as their survivors, `declined` the survivors who declined a place, `people` every listed
/// player's current identity.
pub fn compute(
    scoring: &Scoring,
    qualification: Option<&SeasonQualification>,
    members: &[Member],
    survivor: &HashMap<Uuid, Uuid>,
    declined: &HashSet<Uuid>,
    people: &HashMap<Uuid, Person>,
) -> Result<Computed, ApiError> {
    let (played, events): (Vec<&Event>, Vec<SeasonEvent>) = members
        .iter()
        .filter_map(|m| {
            Some((
                &m.event,
                m.input.as_ref()?.to_season_event(m.event.id, survivor),
            ))
        })
        .unzip();
    let table = season_standings(scoring, &events);
    let qualified = qualification.map_or_else(Vec::new, |rules| {
        qualify(rules, scoring, &events, &table, declined)
    });
    let outlooks = outlooks(scoring, qualification, members, survivor, declined);
    let behind = explain_season_standings(&scoring.ranking, &table);
    let holders: HashSet<Uuid> = qualified.iter().map(|q| q.player).collect();
    let by_id: HashMap<Uuid, &Event> = played.iter().map(|e| (e.id, *e)).collect();
    let name_of = |player: Uuid| {
        people
            .get(&player)
            .map_or_else(|| player.to_string(), |p| p.name.clone())
    };
    let rows = table
        .iter()
        .zip(behind)
        .map(|(row, behind)| {
            let region = people.get(&row.player).and_then(|p| p.region_id);
            let mut served = served_row(row, name_of(row.player), region, &holders, &by_id);
            served.qualification = outlooks.get(&row.player).copied();
            served.behind = behind.map(Separation::from);
            let body = serde_json::to_string(&served).map_err(ApiError::internal)?;
            served.results = Vec::new();
            Ok(ServedRow {
                player: row.player,
                rank: row.rank,
                region,
                body,
                summary: serde_json::to_string(&served).map_err(ApiError::internal)?,
                csv: csv_line(&served),
            })
        })
        .collect::<Result<Vec<_>, ApiError>>()?;
    let qualified: Vec<QualifiedPlayer> = qualified
        .iter()
        .map(|q| QualifiedPlayer {
            player_id: q.player,
            name: name_of(q.player),
            via: match q.via {
                rules::QualifiedVia::Event { event, place } => QualifiedVia::Event {
                    event_id: event,
                    place,
                },
                rules::QualifiedVia::Season { rank } => QualifiedVia::Season { season_rank: rank },
            },
            passed_down_from: q.passed_down_from,
        })
        .collect();
    Ok(Computed {
        rows,
        qualified: serde_json::to_string(&qualified).map_err(ApiError::internal)?,
    })
}

fn served_row(
    row: &SeasonRow,
    name: String,
    region_id: Option<Uuid>,
    holders: &HashSet<Uuid>,
    events: &HashMap<Uuid, &Event>,
) -> SeasonStandingRow {
    let percent = &row.vp_share * BigRational::from_integer(BigInt::from(100));
    SeasonStandingRow {
        rank: row.rank,
        player_id: row.player,
        name,
        region_id,
        points: format_percent(&row.points),
        points_exact: exact(&row.points),
        events_played: row.events_played,
        events_counted: row.events_counted,
        wins: row.wins,
        best_place: row.best_place,
        vp: row.vp,
        vp_share: format_percent(&percent),
        vp_share_exact: exact(&percent),
        table_places: row.table_places,
        qualified: holders.contains(&row.player),
        qualification: None,
        behind: None,
        results: row
            .results
            .iter()
            .map(|r| {
                let event = events.get(&r.event);
                SeasonEventResult {
                    event_id: r.event,
                    event_name: event.map(|e| e.name.clone()).unwrap_or_default(),
                    starts_on: event.map(|e| e.starts_on).unwrap_or_default(),
                    place: r.place,
                    field_size: r.field_size,
                    points: format_percent(&r.points),
                    points_exact: exact(&r.points),
                    counted: r.counted,
                }
            })
            .collect(),
    }
}

/// Each player's qualification outlook, counting the season's events still to play: those whose
/// placements are not complete, a running one counted whole (its games so far left out, as a
/// remaining event may give anything). None without qualification rules; a player with no
/// complete event yet has none either.
fn outlooks(
    scoring: &Scoring,
    qualification: Option<&SeasonQualification>,
    members: &[Member],
    survivor: &HashMap<Uuid, Uuid>,
    declined: &HashSet<Uuid>,
) -> HashMap<Uuid, QualificationOutlook> {
    let Some(rules) = qualification else {
        return HashMap::new();
    };
    let (complete, to_play): (Vec<&Member>, Vec<&Member>) = members
        .iter()
        .partition(|m| m.input.as_ref().is_some_and(|i| i.placements_complete));
    let played: Vec<SeasonEvent> = complete
        .iter()
        .filter_map(|m| Some(m.input.as_ref()?.to_season_event(m.event.id, survivor)))
        .collect();
    let remaining: Vec<RemainingEvent> = to_play
        .iter()
        .filter_map(|m| {
            let field = m.input.as_ref().map(|i| i.field_size);
            RemainingEvent::under(scoring, field, games_of(&m.event))
        })
        .collect();
    let table = season_standings(scoring, &played);
    let qualified = qualify(rules, scoring, &played, &table, declined);
    project_season(scoring, rules, &table, &qualified, declined, &remaining)
        .players
        .into_iter()
        .map(|p| (p.player, p.outlook))
        .collect()
}

/// The most games a player plays in an event: its qualifying or Swiss rounds, and a classic
/// event's semi-final and final.
fn games_of(event: &Event) -> u32 {
    match &event.partner_rules {
        Some(rules) => rules.rounds,
        None => event.qualifying_rounds + 2,
    }
}

/// A text field of a CSV line: always quoted, quotes doubled, and a leading `=`, `+`, `-` or
/// `@` escaped with `'` so that a spreadsheet does not take a name for a formula.
fn csv_text(text: &str) -> String {
    let guarded = if text.starts_with(['=', '+', '-', '@']) {
        format!("'{text}")
    } else {
        text.to_owned()
    };
    format!("\"{}\"", guarded.replace('"', "\"\""))
}

/// A row as a line of [`CSV_HEADER`]'s columns (no line break).
pub fn csv_line(row: &SeasonStandingRow) -> String {
    let opt = |v: Option<String>| v.unwrap_or_default();
    [
        row.rank.to_string(),
        row.player_id.to_string(),
        csv_text(&row.name),
        opt(row.region_id.map(|r| r.to_string())),
        row.points.clone(),
        row.points_exact.clone(),
        row.events_played.to_string(),
        row.events_counted.to_string(),
        row.wins.to_string(),
        opt(row.best_place.map(|p| p.to_string())),
        row.vp.to_string(),
        row.vp_share.clone(),
        row.qualified.to_string(),
    ]
    .join(",")
}

/// What a season's table shows of a player: his name and region now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Person {
    pub name: String,
    pub region_id: Option<Uuid>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::seasons::input::{GameInput, SeatInput};
    use catan_api::{SeasonScoring, SeasonStandings};
    use catan_domain::season::validate_scoring;

    fn id(n: u128) -> Uuid {
        Uuid::from_u128(n)
    }

    fn event(n: u128, day: u32) -> Event {
        serde_json::from_value(serde_json::json!({
            "id": id(0xE00 + n), "name": format!("Open {n}"), "region_id": null, "format": "classic",
            "starts_on": format!("2027-04-{day:02}"), "ends_on": format!("2027-04-{day:02}"),
            "venue": null, "status": "finished", "qualifying_rounds": 1,
            "small_field_playoff": "no_playoff", "board_mode": "each_table",
            "standings_count": "posted", "partner_rules": null,
            "created_at": "2027-01-01T00:00:00Z"
        }))
        .unwrap()
    }

    /// A finished event placed in the order of `players`, with one game they all played (the
    /// first won it).
    fn member(n: u128, day: u32, players: &[Uuid]) -> Member {
        let seats = players
            .iter()
            .zip(0u32..)
            .map(|(&player, k)| SeatInput {
                player,
                won: k == 0,
                vp: 10 - 2 * k,
                team: None,
            })
            .collect();
        Member {
            event: event(n, day),
            input: Some(EventInput {
                field_size: u32::try_from(players.len()).unwrap(),
                rounds_played: 1,
                placements_complete: true,
                placements: players.iter().copied().zip(1..).collect(),
                games: vec![GameInput {
                    target_vp: 10,
                    seats,
                }],
            }),
            as_of: None,
        }
    }

    fn person(n: u128, name: &str, region: Option<u128>) -> (Uuid, Person) {
        let person = Person {
            name: name.to_owned(),
            region_id: region.map(id),
        };
        (id(n), person)
    }

    fn scoring() -> Scoring {
        let read: SeasonScoring = serde_json::from_value(
            serde_json::json!({"mode": "placement", "points": [10, 6, 3, 1], "best_n": 1}),
        )
        .unwrap();
        validate_scoring(&read).unwrap()
    }

    #[test]
    fn a_season_is_served_as_json_rows_csv_lines_and_its_qualified_players() {
        let [a, b, c, d, dup] = [1, 2, 3, 4, 9].map(id);
        // The duplicate identity of a won the second event.
        let members = [member(1, 10, &[a, b, c]), member(2, 20, &[dup, c, d])];
        let survivor = HashMap::from([(dup, a)]);
        let people = HashMap::from([
            person(1, "Ada", Some(7)),
            person(2, "=Bob \"B\"", None),
            person(3, "Cy", Some(7)),
            person(4, "Di", None),
        ]);
        let rules = SeasonQualification {
            event_slots: 1,
            pass_down: true,
            season_slots: 1,
        };
        let computed = compute(
            &scoring(),
            Some(&rules),
            &members,
            &survivor,
            &HashSet::from([b]),
            &people,
        )
        .unwrap();
        let rows: Vec<SeasonStandingRow> = computed
            .rows
            .iter()
            .map(|r| serde_json::from_str(&r.body).unwrap())
            .collect();
        // best_n 1: a counts one of his two wins; c his 6 of 3 and 6, level with b on every
        // tie-break (both share 2nd, listed by id); d 3.
        let table: Vec<(Uuid, u32, &str, u32, u32)> = rows
            .iter()
            .map(|r| {
                (
                    r.player_id,
                    r.rank,
                    r.points.as_str(),
                    r.events_played,
                    r.events_counted,
                )
            })
            .collect();
        assert_eq!(table[0], (a, 1, "10.00", 2, 1));
        assert_eq!(table[1..3], [(b, 2, "6.00", 1, 1), (c, 2, "6.00", 2, 1)]);
        assert_eq!(table[3], (d, 4, "3.00", 1, 1));
        assert_eq!(rows[0].results.len(), 2);
        assert_eq!(rows[0].results[1].event_name, "Open 2");
        assert_eq!(computed.rows[0].region, Some(id(7)));
        // a takes event 1's slot and passes event 2's down to c; b declined, so the season slot
        // goes to d.
        let qualified: Vec<QualifiedPlayer> = serde_json::from_str(&computed.qualified).unwrap();
        assert_eq!(
            qualified
                .iter()
                .map(|q| (q.player_id, q.via, q.passed_down_from))
                .collect::<Vec<_>>(),
            [
                (
                    a,
                    QualifiedVia::Event {
                        event_id: id(0xE01),
                        place: 1
                    },
                    None
                ),
                (
                    c,
                    QualifiedVia::Event {
                        event_id: id(0xE02),
                        place: 2
                    },
                    Some(a)
                ),
                (d, QualifiedVia::Season { season_rank: 4 }, None),
            ]
        );
        assert!(rows.iter().all(|r| r.qualified == (r.player_id != b)));
        // The CSV line of the row with a name a spreadsheet could take for a formula.
        let bob = computed.rows.iter().find(|r| r.player == b).unwrap();
        assert_eq!(
            bob.csv,
            format!("2,{b},\"'=Bob \"\"B\"\"\",,6.00,6/1,1,1,0,2,8,33.33,false")
        );
        assert_eq!(CSV_HEADER.split(',').count(), bob.csv.split(',').count());
        // The rows joined with commas make the served JSON.
        let joined: Vec<&str> = computed.rows.iter().map(|r| r.body.as_str()).collect();
        let served = format!(
            "{{\"season_id\":\"{a}\",\"as_of\":\"2027-01-01T00:00:00Z\",\"rows\":[{}]}}",
            joined.join(",")
        );
        let read: SeasonStandings = serde_json::from_str(&served).unwrap();
        assert_eq!(read.rows, rows);
        // The summary is the row without its results.
        let summary: SeasonStandingRow = serde_json::from_str(&bob.summary).unwrap();
        let full = rows.iter().find(|r| r.player_id == b).unwrap();
        assert_eq!(summary.results, []);
        assert_eq!(
            summary,
            SeasonStandingRow {
                results: Vec::new(),
                ..full.clone()
            }
        );
        assert!(!bob.summary.contains("\"results\""));
    }
}
