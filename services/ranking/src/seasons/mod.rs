//! Seasons (circuits) in the read model (issue 8). The admin writes a season's configuration and
//! its events to ranking; the follower computes each season's table and qualified players from
//! ranking's copies whenever something they depend on changes (a season's change, an event's new
//! views, a decline, a player's change or merge), and stores them ready to serve.
//!
//! - `input`: what a season needs of an event, stored with the event's views.
//! - `store`: the seasons' tables: configuration, events joined, places declined, stale marks.
//! - `views`: a season's table and qualified players, computed as served.
//! - `refresh`: a season's views computed again from what they depend on, stored, and its mark
//!   cleared.
//! - `read`: the stored views, read in one query.

pub mod input;
pub mod read;
pub mod refresh;
pub mod store;
pub mod views;

use crate::State;
use catan_api::CreateSeason;
use catan_domain::season::{
    JoinRefusal, SeasonQualification, SeasonScoring, season_days, validate_season,
};
use catan_kit::problem::{ErrorCode, FieldError};
use catan_kit::{ApiError, db};
use chrono::NaiveDate;
use uuid::Uuid;

/// A season as it is stored: its request, checked.
#[derive(Debug, Clone)]
pub struct NewSeason {
    pub name: String,
    pub region_id: Option<Uuid>,
    pub starts_on: NaiveDate,
    pub ends_on: NaiveDate,
    pub scoring: SeasonScoring,
    pub qualification: Option<SeasonQualification>,
}

/// The longest season name.
const NAME_MAX: usize = 200;

/// Checks a season to create: every broken rule, with its field and code, or the season to
/// store. `region_known` says whether registration knows the region asked for (none: no region
/// asked for).
pub fn checked(body: &CreateSeason, region_known: Option<bool>) -> Result<NewSeason, ApiError> {
    let mut errors: Vec<FieldError> = Vec::new();
    let mut broken = |field: &str, code: ErrorCode, message: String| {
        errors.push(FieldError {
            field: field.to_owned(),
            code,
            message,
        });
    };
    let name = match catan_domain::names::shown_name(body.name.trim()) {
        Ok(name)
            if !name.is_empty()
                && name.chars().count() <= NAME_MAX
                && !name.chars().any(char::is_control) =>
        {
            name
        }
        _ => {
            broken(
                "name",
                ErrorCode::InvalidName,
                format!(
                    "A season's name is 1 to {NAME_MAX} characters, without control characters \
                     nor characters that hide or reorder text."
                ),
            );
            String::new()
        }
    };
    if region_known == Some(false) {
        broken(
            "region_id",
            ErrorCode::UnknownRegion,
            "No such region; leave region_id out for a federation-wide season.".to_owned(),
        );
    }
    if season_days(&body.starts_on, &body.ends_on).is_err() {
        broken(
            "ends_on",
            ErrorCode::EndsBeforeStart,
            format!(
                "The season ends on {}, before it starts on {}.",
                body.ends_on, body.starts_on
            ),
        );
    }
    let rules = validate_season(&body.scoring, body.qualification.as_ref());
    if let Err(violations) = &rules {
        for v in violations {
            broken(&v.field, ErrorCode::from(v.rule), v.message.clone());
        }
    }
    match rules {
        Ok((_, qualification)) if errors.is_empty() => Ok(NewSeason {
            name,
            region_id: body.region_id,
            starts_on: body.starts_on,
            ends_on: body.ends_on,
            scoring: body.scoring.clone(),
            qualification,
        }),
        _ => Err(validation(errors)),
    }
}

/// The days and region of a season and of an event, for the messages of a refused join.
pub struct JoinContext {
    pub season_starts_on: NaiveDate,
    pub season_ends_on: NaiveDate,
    pub season_region: Option<Uuid>,
    pub event_starts_on: NaiveDate,
    pub event_ends_on: NaiveDate,
    pub event_region: Option<Uuid>,
}

/// A refused join as a 422 listing every reason, all on `event_id`; `Ok` when there is none.
pub fn join_refused(refusals: &[JoinRefusal], at: &JoinContext) -> Result<(), ApiError> {
    let region = |r: Option<Uuid>| r.map_or_else(|| "no region".to_owned(), |r| r.to_string());
    let errors: Vec<FieldError> = refusals
        .iter()
        .map(|refusal| {
            let (code, message) = match refusal {
                JoinRefusal::StartsBeforeSeason => (
                    ErrorCode::OutsideSeason,
                    format!(
                        "The event starts on {}, before the season's first day, {}.",
                        at.event_starts_on, at.season_starts_on
                    ),
                ),
                JoinRefusal::EndsAfterSeason => (
                    ErrorCode::OutsideSeason,
                    format!(
                        "The event ends on {}, after the season's last day, {}.",
                        at.event_ends_on, at.season_ends_on
                    ),
                ),
                JoinRefusal::OtherRegion => (
                    ErrorCode::OtherRegion,
                    format!(
                        "The season holds the events of region {}; this event is of {}.",
                        region(at.season_region),
                        region(at.event_region)
                    ),
                ),
            };
            FieldError {
                field: "event_id".to_owned(),
                code,
                message,
            }
        })
        .collect();
    if errors.is_empty() {
        Ok(())
    } else {
        Err(validation(errors))
    }
}

fn validation(errors: Vec<FieldError>) -> ApiError {
    let detail = match errors.as_slice() {
        [one] => one.message.clone(),
        many => format!("{} rules broken; see errors", many.len()),
    };
    ApiError::Validation { detail, errors }
}

/// How many seasons' views are computed at once: loading, computing and storing a large table
/// are each a part of the work that two cores overlap.
const SEASONS_AT_ONCE: usize = 2;

/// Computes the views of every stale season.
pub(crate) async fn refresh(state: &State) -> Result<(), ApiError> {
    use futures_util::{StreamExt, stream};
    const BATCH: i64 = 50;
    loop {
        let stale = db::run(&state.pool, |conn| store::stale(conn, BATCH)).await?;
        let last_batch = i64::try_from(stale.len()).is_ok_and(|n| n < BATCH);
        let refreshed = stream::iter(stale)
            .map(|(season_id, marked)| async move {
                let done = db::transaction(&state.pool, move |conn| {
                    refresh::refresh(conn, season_id, marked)
                })
                .await;
                match done {
                    Ok(()) => true,
                    // The season keeps its last views and stays stale: the next round tries
                    // again.
                    Err(e) => {
                        tracing::warn!(%season_id, error = %e, "a season's views could not be computed");
                        false
                    }
                }
            })
            .buffer_unordered(SEASONS_AT_ONCE)
            .filter(|done| std::future::ready(*done))
            .count()
            .await;
        if last_batch || refreshed == 0 {
            return Ok(());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn request(value: serde_json::Value) -> CreateSeason {
        serde_json::from_value(value).unwrap()
    }

    fn codes(error: ApiError) -> Vec<(String, String)> {
        match error {
            ApiError::Validation { errors, .. } => errors
                .into_iter()
                .map(|e| (e.field, e.code.as_str().to_owned()))
                .collect(),
            other => panic!("not a validation error: {other}"),
        }
    }

    #[test]
    fn a_valid_season_is_stored_as_asked_with_its_name_trimmed() {
        let season = checked(
            &request(
                json!({"name": "  Circuit  ", "starts_on": "2027-01-01", "ends_on": "2027-01-01",
                            "scoring": {"mode": "table_points"}}),
            ),
            None,
        )
        .unwrap();
        assert_eq!(season.name, "Circuit");
        assert_eq!(season.qualification, None);
    }

    #[test]
    fn a_name_that_hides_text_is_refused_and_one_in_decomposed_form_is_composed() {
        let season = |name: &str| {
            checked(
                &request(
                    json!({"name": name, "starts_on": "2027-01-01", "ends_on": "2027-01-01",
                                "scoring": {"mode": "table_points"}}),
                ),
                None,
            )
        };
        let refused = season("Circuit\u{202E}tiucriC").unwrap_err();
        assert_eq!(
            codes(refused),
            [("name".to_owned(), "invalid_name".to_owned())]
        );
        assert_eq!(season("Jose\u{301}").unwrap().name, "Jos\u{e9}");
    }

    #[test]
    fn every_broken_rule_is_listed_on_its_field() {
        let refused = checked(
            &request(json!({
                "name": " ",
                "region_id": "00000000-0000-4000-8000-0000000000a9",
                "starts_on": "2027-06-01",
                "ends_on": "2027-05-31",
                "scoring": {"mode": "placement", "points": [10, 12], "best_n": 0,
                            "tie_breaks": ["points", "luck"]},
                "qualification": {"event_slots": 0, "season_slots": 0}
            })),
            Some(false),
        )
        .unwrap_err();
        assert_eq!(
            codes(refused),
            [
                ("name", "invalid_name"),
                ("region_id", "unknown_region"),
                ("ends_on", "ends_before_start"),
                ("scoring.points[1]", "rising_table"),
                ("scoring.best_n", "below_one"),
                ("scoring.tie_breaks[1]", "unknown_tie_break"),
                ("qualification", "no_slots"),
            ]
            .map(|(f, c)| (f.to_owned(), c.to_owned()))
        );
    }

    #[test]
    fn a_refused_join_lists_each_reason_on_the_event() {
        let day = |d: u32| NaiveDate::from_ymd_opt(2027, 1, d).unwrap();
        let at = JoinContext {
            season_starts_on: day(10),
            season_ends_on: day(20),
            season_region: Some(Uuid::from_u128(1)),
            event_starts_on: day(9),
            event_ends_on: day(21),
            event_region: None,
        };
        assert!(join_refused(&[], &at).is_ok());
        let refused = join_refused(
            &[
                JoinRefusal::StartsBeforeSeason,
                JoinRefusal::EndsAfterSeason,
                JoinRefusal::OtherRegion,
            ],
            &at,
        )
        .unwrap_err();
        assert_eq!(
            codes(refused),
            [
                ("event_id", "outside_season"),
                ("event_id", "outside_season"),
                ("event_id", "other_region"),
            ]
            .map(|(f, c)| (f.to_owned(), c.to_owned()))
        );
    }
}
