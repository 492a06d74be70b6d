//! A posted sheet, checked against the table it is for and the rules of the event's format.

use crate::store::Sheet;
use catan_api::Role;
use catan_api::{
    EventFormat, MAX_BATCH_SHEETS, Round, ScoreRecorded, SeatPosition, Stage, SubmitResult, Table,
    TableSheet, TeamScore,
};
use catan_domain::partner::{RawPartnerSheet, TableTeams, validate_partner_sheet};
use catan_domain::results::{
    MAX_CHECKED_REASON_CHARS, RawBreakdown, RawScore, RawSheet, RuleCode, Violation,
    checked_reason, out_of_range, unchecked_non_winners, validate_sheet,
};
use catan_kit::ApiError;
use catan_kit::auth::Principal;
use catan_kit::problem::ErrorCode;
use uuid::Uuid;

/// The sheet `body` posts for table `table_number` of `round`, checked: 404 for a table the round
/// does not have, 422 listing every rule the sheet breaks (a non-winner at 10 VP or more unless
/// the director `checked_by_director` it).
pub fn checked(
    body: &SubmitResult,
    round: &Round,
    table_number: u32,
    checked_by_director: bool,
) -> Result<Sheet, ApiError> {
    let table = round
        .tables
        .iter()
        .find(|t| t.number == table_number)
        .ok_or_else(|| {
            ApiError::NotFound(format!(
                "round {} has no table {table_number}",
                round.number
            ))
        })?;
    match round.format {
        EventFormat::Classic => classic_sheet(body, table, round.stage, checked_by_director),
        EventFormat::Partner => partner_sheet(body, table, round),
    }
}

/// A batch as the contract states it: 1 to 500 sheets, each for a table numbered from 1, with
/// numbers in the game's ranges. A batch that breaks any of these is refused whole, as any body
/// that does not fit its schema; every other rule is each sheet's own.
pub fn batch_fits_contract(sheets: &[TableSheet]) -> Result<(), ApiError> {
    if sheets.is_empty() {
        return Err(ApiError::field(
            "sheets",
            ErrorCode::Empty,
            "a batch needs at least one sheet",
        ));
    }
    if sheets.len() > MAX_BATCH_SHEETS {
        return Err(ApiError::field(
            "sheets",
            ErrorCode::TooMany,
            format!("a batch has at most {MAX_BATCH_SHEETS} sheets"),
        ));
    }
    let mut broken = Vec::new();
    for (index, item) in sheets.iter().enumerate() {
        if item.table == 0 {
            broken.push(Violation {
                field: format!("sheets[{index}].table"),
                code: RuleCode::OutOfRange,
                message: "tables are numbered from 1".into(),
            });
        }
        broken.extend(
            out_of_range(&raw_sheet(&item.sheet))
                .into_iter()
                .map(|v| Violation {
                    field: format!("sheets[{index}].sheet.{}", v.field),
                    ..v
                }),
        );
    }
    if broken.is_empty() {
        Ok(())
    } else {
        Err(ApiError::violations(broken))
    }
}

fn raw_sheet(body: &SubmitResult) -> RawSheet {
    RawSheet {
        outcome: body.outcome,
        winner: body.winner_player_id,
        scores: body
            .scores
            .iter()
            .map(|s| RawScore {
                player: s.player_id,
                vp: s.vp,
                breakdown: s.breakdown.as_ref().map(|b| RawBreakdown {
                    settlements: b.settlements,
                    cities: b.cities,
                    vp_cards: b.vp_cards,
                    longest_road: b.longest_road,
                    largest_army: b.largest_army,
                }),
            })
            .collect(),
    }
}

/// The director's reason for marking `body` as checked, when he does: 403 from anyone else (a
/// player, a table app), 422 `invalid_reason` on `checked.reason` for a reason that is blank, too
/// long or holds control characters.
pub fn director_check(
    principal: &Principal,
    body: &SubmitResult,
) -> Result<Option<String>, ApiError> {
    let Some(checked) = &body.checked else {
        return Ok(None);
    };
    if !matches!(principal.role(), Role::Director | Role::Admin) {
        return Err(ApiError::Forbidden(format!(
            "only the tournament director may mark a sheet as checked; this key is a {}",
            principal.role().as_str()
        )));
    }
    checked_reason(&checked.reason).map(Some).ok_or_else(|| {
        ApiError::field(
            "checked.reason",
            ErrorCode::InvalidReason,
            format!(
                "a reason is 1 to {MAX_CHECKED_REASON_CHARS} characters without control characters"
            ),
        )
    })
}

fn classic_sheet(
    body: &SubmitResult,
    table: &Table,
    stage: Stage,
    checked_by_director: bool,
) -> Result<Sheet, ApiError> {
    if body.winner_entry_id.is_some() {
        return Err(ApiError::field(
            "winner_entry_id",
            ErrorCode::NotForFormat,
            "a classic game names its winner by winner_player_id",
        ));
    }
    let seated: Vec<Uuid> = table.seats.iter().map(|s| s.player_id).collect();
    let raw = raw_sheet(body);
    let doubtful = unchecked_non_winners(&raw, checked_by_director);
    let validated = match validate_sheet(&raw, &seated, stage) {
        Ok(_) if !doubtful.is_empty() => Err(doubtful),
        Ok(validated) => Ok(validated),
        Err(mut violations) => {
            violations.extend(doubtful);
            Err(violations)
        }
    }
    .map_err(ApiError::violations)?;
    Ok(Sheet {
        outcome: body.outcome,
        winner_player_id: validated.winner,
        winner_entry_id: None,
        scores: validated
            .scores
            .iter()
            .zip(&body.scores)
            .map(|(score, input)| ScoreRecorded {
                player_id: score.player,
                vp: score.vp,
                credited_vp: score.credited_vp,
                breakdown: input.breakdown.clone(),
            })
            .collect(),
        teams: Vec::new(),
    })
}

/// The two teams at a partner table: the team at N (with S) and the team at E (with W).
fn table_teams(table: &Table) -> Result<TableTeams, ApiError> {
    let team = |positions: [SeatPosition; 2]| -> Result<(Uuid, [Uuid; 2]), ApiError> {
        let seat = |p: SeatPosition| {
            table.seats.iter().find(|s| s.position == p).ok_or_else(|| {
                ApiError::internal(format!("partner table {} has no seat {p:?}", table.number))
            })
        };
        let (first, second) = (seat(positions[0])?, seat(positions[1])?);
        Ok((first.entry_id, [first.player_id, second.player_id]))
    };
    Ok(TableTeams {
        home: team([SeatPosition::N, SeatPosition::S])?,
        away: team([SeatPosition::E, SeatPosition::W])?,
    })
}

fn partner_sheet(body: &SubmitResult, table: &Table, round: &Round) -> Result<Sheet, ApiError> {
    if body.winner_player_id.is_some() {
        return Err(ApiError::field(
            "winner_player_id",
            ErrorCode::NotForFormat,
            "a partner game names its winning team by winner_entry_id",
        ));
    }
    let rules = round.partner_rules.ok_or_else(|| {
        ApiError::internal(format!("partner round {} has no rules", round.number))
    })?;
    let raw = raw_sheet(body);
    let game = validate_partner_sheet(
        &RawPartnerSheet {
            outcome: body.outcome,
            winner_team: body.winner_entry_id,
            scores: raw.scores,
        },
        &table_teams(table)?,
        &rules,
    )
    .map_err(ApiError::violations)?;
    Ok(Sheet {
        outcome: body.outcome,
        winner_player_id: None,
        winner_entry_id: game.winner,
        scores: body
            .scores
            .iter()
            .map(|input| {
                // The rules checked the range already.
                let vp = u8::try_from(input.vp).map_err(ApiError::internal)?;
                Ok(ScoreRecorded {
                    player_id: input.player_id,
                    vp,
                    // Partner games credit what was scored: there is no 10/9 cap.
                    credited_vp: vp,
                    breakdown: input.breakdown.clone(),
                })
            })
            .collect::<Result<_, ApiError>>()?,
        teams: game
            .teams()
            .into_iter()
            .map(|team| TeamScore {
                entry_id: team.team,
                player_ids: team.players.iter().map(|p| p.player).collect(),
                vp: team.vp,
                result: team.result,
                points: team.points,
            })
            .collect(),
    })
}
