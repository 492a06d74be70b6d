//! Events: classic or partner, with their settings.

use crate::State;
use crate::store;
use crate::store::events::NewEvent;
use crate::validate::{refuse_foreign, setting, valid_name};
use actix_web::http::StatusCode;
use actix_web::{HttpResponse, get, post, web};
use catan_api::{CreateEvent, Event, EventFormat, PartnerSettings, Problem};
use catan_domain::partner::ByeRule;
use catan_kit::db::enum_to_text;
use catan_kit::idempotency::Reply;
use catan_kit::problem::ErrorCode;
use catan_kit::{ApiError, IdempotentWrite, db};
use uuid::Uuid;

pub fn register(cfg: &mut utoipa_actix_web::service_config::ServiceConfig) {
    cfg.service(create_event).service(get_event);
}

const DEFAULT_QUALIFYING_ROUNDS: u32 = 3;
const MAX_ROUNDS: i64 = 15;

/// The partner rules the request asks for, checked as a playable event.
fn partner_rules(body: &CreateEvent) -> Result<PartnerSettings, ApiError> {
    let defaults = PartnerSettings::default();
    let rules = PartnerSettings {
        rounds: setting(
            "swiss_rounds",
            body.swiss_rounds,
            defaults.rounds,
            1..=MAX_ROUNDS,
        )?,
        target_vp: setting(
            "team_target_vp",
            body.team_target_vp,
            defaults.target_vp,
            5..=44,
        )?,
        minutes_per_game: setting(
            "minutes_per_game",
            body.minutes_per_game,
            defaults.minutes_per_game,
            1..=600,
        )?,
        thinking_seconds_per_turn: setting(
            "thinking_seconds_per_turn",
            body.thinking_seconds_per_turn,
            defaults.thinking_seconds_per_turn,
            0..=3600,
        )?,
        time_limit_rule: body.time_limit_rule.unwrap_or(defaults.time_limit_rule),
        bye_rule: ByeRule {
            points: setting(
                "bye_points",
                body.bye_points,
                defaults.bye_rule.points,
                0..=defaults.points.win.into(),
            )?,
            ..defaults.bye_rule
        },
        ..defaults
    };
    rules
        .check()
        .map_err(|e| ApiError::field("team_target_vp", ErrorCode::Unplayable, e.to_string()))?;
    Ok(rules)
}

/// The rounds and the partner rules of the event the request asks for: the settings of its
/// format, with those of the other format refused.
fn format_settings(body: &CreateEvent) -> Result<(u32, Option<PartnerSettings>), ApiError> {
    match body.format {
        EventFormat::Classic => {
            refuse_foreign(
                &[
                    ("swiss_rounds", body.swiss_rounds.is_some()),
                    ("team_target_vp", body.team_target_vp.is_some()),
                    ("minutes_per_game", body.minutes_per_game.is_some()),
                    (
                        "thinking_seconds_per_turn",
                        body.thinking_seconds_per_turn.is_some(),
                    ),
                    ("time_limit_rule", body.time_limit_rule.is_some()),
                    ("bye_points", body.bye_points.is_some()),
                ],
                "classic",
            )?;
            let rounds = setting(
                "qualifying_rounds",
                body.qualifying_rounds,
                DEFAULT_QUALIFYING_ROUNDS,
                1..=MAX_ROUNDS,
            )?;
            Ok((rounds, None))
        }
        EventFormat::Partner => {
            refuse_foreign(
                &[
                    ("qualifying_rounds", body.qualifying_rounds.is_some()),
                    ("small_field_playoff", body.small_field_playoff.is_some()),
                ],
                "partner",
            )?;
            let rules = partner_rules(body)?;
            Ok((rules.rounds, Some(rules)))
        }
    }
}

/// The event the request asks for, checked, as it is stored.
fn new_event(body: &CreateEvent) -> Result<NewEvent, ApiError> {
    let name = valid_name("name", &body.name)?;
    let (rounds, partner) = format_settings(body)?;
    Ok(NewEvent {
        name,
        region_id: body.region_id,
        format: enum_to_text(&body.format),
        qualifying_rounds: i32::try_from(rounds).map_err(ApiError::internal)?,
        small_field_playoff: enum_to_text(&body.small_field_playoff.unwrap_or_default()),
        board_mode: enum_to_text(&body.board_mode.unwrap_or_default()),
        standings_count: enum_to_text(&body.standings_count.unwrap_or_default()),
        partner_rules: partner
            .map(serde_json::to_value)
            .transpose()
            .map_err(ApiError::internal)?,
    })
}

/// Creates an event (admin only): `classic` (qualifying rounds, semi-finals, final) or `partner`
/// (teams of two, Swiss rounds). Settings of the other format are refused.
#[utoipa::path(
    tag = "registration",
    request_body = CreateEvent,
    security(("bearer" = [])),
    responses(
        (status = 201, body = Event),
        (status = 422, body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/v1/events")]
async fn create_event(
    write: IdempotentWrite<web::Json<CreateEvent>>,
) -> Result<HttpResponse, ApiError> {
    write.require_admin()?;
    let event = new_event(write.body())?;
    write
        .write(move |conn| {
            store::people::region_must_exist(conn, event.region_id)?;
            let event = store::events::insert(conn, event)?;
            Reply::new(StatusCode::CREATED, &event)
        })
        .await
}

/// An event and its settings.
#[utoipa::path(
    tag = "registration",
    params(("event_id" = Uuid, Path)),
    responses((status = 200, body = Event), (status = 404, body = Problem, content_type = "application/problem+json"))
)]
#[get("/v1/events/{event_id}")]
async fn get_event(
    state: web::Data<State>,
    path: web::Path<Uuid>,
) -> Result<web::Json<Event>, ApiError> {
    let id = path.into_inner();
    Ok(web::Json(
        db::run(&state.pool, move |conn| store::events::load(conn, id)).await?,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::validate::tests::field_and_code;

    #[test]
    fn a_classic_event_defaults_to_three_qualifying_rounds() {
        let event = new_event(&CreateEvent::classic("  Spring open ")).unwrap();
        assert_eq!(event.name, "Spring open");
        assert_eq!(event.format, "classic");
        assert_eq!(event.qualifying_rounds, 3);
        assert_eq!(event.small_field_playoff, "final_of_top4");
        assert_eq!(event.board_mode, "each_table");
        assert_eq!(event.standings_count, "posted");
        assert!(event.partner_rules.is_none());
    }

    #[test]
    fn a_partner_event_stores_its_rules_and_rounds() {
        let body = CreateEvent {
            swiss_rounds: Some(6),
            bye_points: Some(0),
            ..CreateEvent::partner("Pairs")
        };
        let event = new_event(&body).unwrap();
        assert_eq!(event.qualifying_rounds, 6);
        let rules: PartnerSettings = serde_json::from_value(event.partner_rules.unwrap()).unwrap();
        assert_eq!(rules.rounds, 6);
        assert_eq!(rules.bye_rule.points, 0);
        assert_eq!(rules.target_vp, PartnerSettings::default().target_vp);
    }

    #[test]
    fn settings_of_the_other_format_and_numbers_out_of_range_are_refused() {
        let with = |mut body: CreateEvent, change: fn(&mut CreateEvent)| {
            change(&mut body);
            body
        };
        let classic = |change| with(CreateEvent::classic("x"), change);
        let partner = |change| with(CreateEvent::partner("x"), change);
        use ErrorCode::{InvalidName, NotForFormat, OutOfRange};
        for (body, field, code) in [
            (
                classic(|b| b.team_target_vp = Some(20)),
                "team_target_vp",
                NotForFormat,
            ),
            (
                partner(|b| b.qualifying_rounds = Some(3)),
                "qualifying_rounds",
                NotForFormat,
            ),
            (
                classic(|b| b.qualifying_rounds = Some(16)),
                "qualifying_rounds",
                OutOfRange,
            ),
            (
                partner(|b| b.bye_points = Some(4)),
                "bye_points",
                OutOfRange,
            ),
            // The name is checked before the settings.
            (
                classic(|b| (b.name, b.qualifying_rounds) = (" ".into(), Some(0))),
                "name",
                InvalidName,
            ),
        ] {
            assert_eq!(
                field_and_code(new_event(&body).unwrap_err()),
                (field.to_string(), code)
            );
        }
    }
}
