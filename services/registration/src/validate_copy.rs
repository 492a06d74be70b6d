//! The checks of a venue's copy of an event (issue 34) before it is compared with what the suite
//! has: names as any name, the event's settings of its format, and every id it names among the
//! records it carries. Each broken rule is listed, on its field.

use crate::validate::{broken_rules, valid_optional_name};
use catan_api::{EventFormat, VenueCopy};
use catan_kit::ApiError;
use catan_kit::problem::{ErrorCode, FieldError};
use std::collections::HashSet;
use uuid::Uuid;

const MAX_ROUNDS: u32 = 15;

/// Every rule the copy breaks, each on its field (none: it may be compared).
pub fn broken(copy: &VenueCopy) -> Vec<FieldError> {
    let mut errors = Vec::new();
    let mut name = |field: String, value: Option<&str>| {
        if let Err(ApiError::Validation { errors: found, .. }) = valid_optional_name(&field, value)
        {
            errors.extend(found);
        }
    };
    name("event.name".into(), Some(&copy.event.name));
    name("event.venue".into(), copy.event.venue.as_deref());
    for (i, region) in copy.regions.iter().enumerate() {
        name(format!("regions[{i}].name"), Some(&region.name));
    }
    for (i, player) in copy.players.iter().enumerate() {
        name(format!("players[{i}].name"), Some(&player.name));
    }
    for (i, entry) in copy.entries.iter().enumerate() {
        name(
            format!("entries[{i}].team_name"),
            entry.team_name.as_deref(),
        );
        name(
            format!("entries[{i}].status_reason"),
            entry.status_reason.as_deref(),
        );
    }
    errors.extend(broken_settings(copy));
    errors.extend(broken_references(copy));
    errors.extend(broken_audit(copy));
    errors
}

/// Every audit record the copy carries concerns its event.
fn broken_audit(copy: &VenueCopy) -> Vec<FieldError> {
    copy.audit
        .iter()
        .enumerate()
        .filter(|(_, record)| !record.event_ids.contains(&copy.event.id))
        .map(|(i, record)| {
            field_error(
                format!("audit[{i}].event_ids"),
                ErrorCode::UnknownEvent,
                format!(
                    "audit record {} does not concern the copy's event",
                    record.id
                ),
            )
        })
        .collect()
}

/// The copy, or the 422 listing every rule it breaks.
pub fn check(copy: &VenueCopy) -> Result<(), ApiError> {
    let errors = broken(copy);
    if errors.is_empty() {
        Ok(())
    } else {
        Err(broken_rules(errors))
    }
}

fn field_error(field: String, code: ErrorCode, message: String) -> FieldError {
    FieldError {
        field,
        code,
        message,
    }
}

/// The event's days and the settings of its format (those of the other format refused).
fn broken_settings(copy: &VenueCopy) -> Vec<FieldError> {
    let event = &copy.event;
    let mut errors = Vec::new();
    if event.ends_on < event.starts_on {
        errors.push(field_error(
            "event.ends_on".into(),
            ErrorCode::EndsBeforeStart,
            "ends_on must not be before starts_on".into(),
        ));
    }
    if !(1..=MAX_ROUNDS).contains(&event.qualifying_rounds) {
        errors.push(field_error(
            "event.qualifying_rounds".into(),
            ErrorCode::OutOfRange,
            format!("qualifying_rounds must be 1 to {MAX_ROUNDS}"),
        ));
    }
    match (event.format, &event.partner_rules) {
        (EventFormat::Partner, None) => errors.push(field_error(
            "event.partner_rules".into(),
            ErrorCode::Required,
            "a partner event has its rules".into(),
        )),
        (EventFormat::Partner, Some(rules)) => {
            if let Err(e) = rules.check() {
                errors.push(field_error(
                    "event.partner_rules".into(),
                    ErrorCode::Unplayable,
                    e.to_string(),
                ));
            }
        }
        (EventFormat::Classic, Some(_)) => errors.push(field_error(
            "event.partner_rules".into(),
            ErrorCode::NotForFormat,
            "partner_rules does not apply to classic events".into(),
        )),
        (EventFormat::Classic, None) => {}
    }
    errors
}

/// Every region and player the copy names is one it carries, and each entry is what its
/// event's format enters: one player, or a named team of two.
fn broken_references(copy: &VenueCopy) -> Vec<FieldError> {
    let regions: HashSet<Uuid> = copy.regions.iter().map(|r| r.id).collect();
    let players: HashSet<Uuid> = copy.players.iter().map(|p| p.id).collect();
    let mut errors = Vec::new();
    let mut region_named = |field: String, region_id: Option<Uuid>| {
        if let Some(id) = region_id.filter(|id| !regions.contains(id)) {
            errors.push(field_error(
                field,
                ErrorCode::UnknownRegion,
                format!("the copy carries no region {id}"),
            ));
        }
    };
    region_named("event.region_id".into(), copy.event.region_id);
    for (i, player) in copy.players.iter().enumerate() {
        region_named(format!("players[{i}].region_id"), player.region_id);
    }
    let mut names_seen: HashSet<&str> = HashSet::new();
    for (i, region) in copy.regions.iter().enumerate() {
        if !names_seen.insert(region.name.as_str()) {
            errors.push(field_error(
                format!("regions[{i}].name"),
                ErrorCode::InvalidName,
                format!("another region of the copy is named {:?}", region.name),
            ));
        }
    }
    let partner = copy.event.format == EventFormat::Partner;
    let mut entered: HashSet<Uuid> = HashSet::new();
    for (i, entry) in copy.entries.iter().enumerate() {
        let field = format!("entries[{i}].player_ids");
        // A player has one entry in an event (the same entry named twice alike is one).
        let again = copy.entries[..i].iter().any(|e| e.id == entry.id);
        for id in entry
            .player_ids
            .iter()
            .filter(|id| !again && !entered.insert(**id))
        {
            errors.push(field_error(
                field.clone(),
                ErrorCode::DuplicatePlayer,
                format!("player {id} is in another entry of the copy"),
            ));
        }
        for id in entry.player_ids.iter().filter(|id| !players.contains(id)) {
            errors.push(field_error(
                field.clone(),
                ErrorCode::UnknownPlayer,
                format!("the copy carries no player {id}"),
            ));
        }
        let distinct: HashSet<&Uuid> = entry.player_ids.iter().collect();
        let (wanted, shape) = if partner {
            (2, "a team of two")
        } else {
            (1, "one player")
        };
        if distinct.len() != wanted || entry.player_ids.len() != wanted {
            errors.push(field_error(
                field,
                ErrorCode::TeamOfTwo,
                format!("an entry of this event is {shape}"),
            ));
        }
        if entry.team_name.is_some() != partner {
            errors.push(field_error(
                format!("entries[{i}].team_name"),
                if partner {
                    ErrorCode::Required
                } else {
                    ErrorCode::NotForFormat
                },
                format!("an entry of this event has {shape}'s name"),
            ));
        }
    }
    errors
}

#[cfg(test)]
mod tests {
    use super::*;
    use catan_api::{EntryCopy, EntryStatus, Event, EventCopy, PlayerCopy, Region};
    use chrono::{NaiveDate, Utc};

    fn classic_copy() -> VenueCopy {
        let region = Region {
            id: Uuid::new_v4(),
            name: "Catalonia".into(),
        };
        let day = NaiveDate::from_ymd_opt(2027, 3, 6).unwrap();
        let event: Event = serde_json::from_value(serde_json::json!({
            "id": Uuid::new_v4(), "name": "Open", "region_id": region.id, "format": "classic",
            "starts_on": day, "ends_on": day, "venue": null, "status": "planned",
            "qualifying_rounds": 3, "small_field_playoff": "final_of_top4",
            "board_mode": "each_table", "standings_count": "posted", "partner_rules": null,
            "created_at": Utc::now()
        }))
        .unwrap();
        let player = PlayerCopy {
            id: Uuid::new_v4(),
            name: "Ada".into(),
            region_id: Some(region.id),
            created_at: Utc::now(),
        };
        VenueCopy {
            regions: vec![region],
            event: EventCopy::from(&event),
            entries: vec![EntryCopy {
                id: Uuid::new_v4(),
                team_name: None,
                player_ids: vec![player.id],
                status: EntryStatus::Active,
                status_reason: None,
                created_at: Utc::now(),
            }],
            players: vec![player],
            audit: Vec::new(),
        }
    }

    fn fields(copy: &VenueCopy) -> Vec<(String, ErrorCode)> {
        broken(copy)
            .into_iter()
            .map(|e| (e.field, e.code))
            .collect()
    }

    #[test]
    fn an_audit_record_of_another_event_is_refused() {
        let mut copy = classic_copy();
        let record = |event_ids: Vec<Uuid>| catan_api::AuditRecord {
            id: Uuid::new_v4(),
            at: Utc::now(),
            service: "results".into(),
            key_id: Uuid::new_v4(),
            role: catan_api::Role::Director,
            method: "PUT".into(),
            route: "/v1/events/{event_id}/rounds/{round}/tables/{table}/result".into(),
            targets: Default::default(),
            event_ids,
            region_ids: Vec::new(),
            status: 200,
            venue: None,
        };
        copy.audit = vec![record(vec![copy.event.id]), record(vec![Uuid::new_v4()])];
        assert_eq!(
            fields(&copy),
            vec![("audit[1].event_ids".to_string(), ErrorCode::UnknownEvent)]
        );
    }

    #[test]
    fn a_whole_copy_breaks_nothing() {
        assert_eq!(fields(&classic_copy()), vec![]);
    }

    #[test]
    fn every_id_the_copy_names_and_does_not_carry_is_listed() {
        let mut copy = classic_copy();
        copy.regions.clear();
        copy.entries[0].player_ids.push(Uuid::new_v4());
        copy.event.name = " ".into();
        assert_eq!(
            fields(&copy),
            vec![
                ("event.name".to_string(), ErrorCode::InvalidName),
                ("event.region_id".to_string(), ErrorCode::UnknownRegion),
                ("players[0].region_id".to_string(), ErrorCode::UnknownRegion),
                (
                    "entries[0].player_ids".to_string(),
                    ErrorCode::UnknownPlayer
                ),
                ("entries[0].player_ids".to_string(), ErrorCode::TeamOfTwo),
            ]
        );
    }

    #[test]
    fn a_player_is_entered_once_and_a_region_name_is_one_regions() {
        let mut copy = classic_copy();
        let mut second = copy.entries[0].clone();
        second.id = Uuid::new_v4();
        copy.entries.push(second);
        let mut twin = copy.regions[0].clone();
        twin.id = Uuid::new_v4();
        copy.regions.push(twin);
        assert_eq!(
            fields(&copy),
            vec![
                ("regions[1].name".to_string(), ErrorCode::InvalidName),
                (
                    "entries[1].player_ids".to_string(),
                    ErrorCode::DuplicatePlayer
                ),
            ]
        );
    }

    #[test]
    fn a_classic_event_takes_no_partner_rules_nor_teams() {
        let mut copy = classic_copy();
        copy.event.partner_rules = Some(Default::default());
        copy.event.ends_on = copy.event.starts_on.pred_opt().unwrap();
        copy.entries[0].team_name = Some("Team".into());
        assert_eq!(
            fields(&copy),
            vec![
                ("event.ends_on".to_string(), ErrorCode::EndsBeforeStart),
                ("event.partner_rules".to_string(), ErrorCode::NotForFormat),
                ("entries[0].team_name".to_string(), ErrorCode::NotForFormat),
            ]
        );
    }
}
