//! Who may act on which events, as registration knows their regions, and who may manage which
//! webhook subscriptions: what the subscription routes and their deliveries' route both check.

use crate::State;
use crate::store;
use catan_api::{Role, Webhook};
use catan_kit::auth::Principal;
use catan_kit::{ApiError, db};
use uuid::Uuid;

/// The caller may act on each of `events` in one of `roles` (admins on every event), or as the
/// organiser of each one's region. An event that does not exist is of no region: only an admin
/// or a key naming it passes (and the write then finds it missing).
pub fn require_events(
    conn: &mut diesel::PgConnection,
    principal: &Principal,
    events: &[Uuid],
    roles: &[Role],
) -> Result<(), ApiError> {
    if principal.role() != Role::Organiser {
        return events
            .iter()
            .try_for_each(|event| principal.require_event(*event, roles));
    }
    let regions: std::collections::HashMap<Uuid, Option<Uuid>> =
        store::events::regions_of(conn, events)?
            .into_iter()
            .collect();
    events.iter().try_for_each(|event| {
        let region = regions.get(event).copied().flatten();
        principal.require_event_in_region(*event, region, roles)
    })
}

/// [`require_events`] for one event, before its write: an event's region never changes, so the
/// check needs no transaction, and it reads the region for an organiser only.
pub async fn require_event(
    state: &State,
    principal: &Principal,
    event_id: Uuid,
    roles: &[Role],
) -> Result<(), ApiError> {
    if principal.role() != Role::Organiser {
        return principal.require_event(event_id, roles);
    }
    let (principal, roles) = (principal.clone(), roles.to_vec());
    db::run(&state.pool, move |conn| {
        require_events(conn, &principal, &[event_id], &roles)
    })
    .await
}

/// Admins may manage every subscription; a director those limited to events of its key.
pub fn may_manage(principal: &Principal, event_ids: Option<&[Uuid]>) -> Result<(), ApiError> {
    if principal.role() == Role::Admin {
        return Ok(());
    }
    principal.require_any(&[Role::Director])?;
    match event_ids {
        None => Err(ApiError::Forbidden(
            "only an admin key may subscribe to every event; name the events in event_ids".into(),
        )),
        Some(ids) => ids
            .iter()
            .try_for_each(|id| principal.require_event(*id, &[Role::Director])),
    }
}

/// The subscriptions the caller may see, oldest first: an admin every one, a director those its
/// own key created, an organiser those limited to events of its regions; 403 for other roles.
pub async fn visible_webhooks(
    state: &State,
    principal: &Principal,
) -> Result<Vec<Webhook>, ApiError> {
    if !matches!(principal.role(), Role::Admin | Role::Organiser) {
        principal.require_any(&[Role::Director])?;
    }
    let principal = principal.clone();
    db::run(&state.pool, move |conn| {
        let created_by = (principal.role() == Role::Director).then(|| principal.key_id());
        let live = store::webhooks::live(conn, created_by)?;
        if principal.role() != Role::Organiser {
            return Ok(live.into_iter().map(|(webhook, _)| webhook).collect());
        }
        let mut visible = Vec::new();
        for (webhook, _) in live {
            let events = webhook.event_ids.clone().unwrap_or_default();
            if !events.is_empty() && require_events(conn, &principal, &events, &[]).is_ok() {
                visible.push(webhook);
            }
        }
        Ok(visible)
    })
    .await
}

/// The subscription, if the caller may see it: an admin every one, a director those its own key
/// created (404 for the others, as for deleted ones), an organiser those limited to events of its
/// regions (403 for the others).
pub async fn visible_webhook(
    state: &State,
    principal: &Principal,
    id: Uuid,
) -> Result<Webhook, ApiError> {
    if principal.role() == Role::Organiser {
        let principal = principal.clone();
        return db::run(&state.pool, move |conn| {
            let (webhook, _) = store::webhooks::find(conn, id)?
                .ok_or_else(|| ApiError::NotFound(format!("there is no webhook {id}")))?;
            match webhook.event_ids.as_deref() {
                Some(events) if !events.is_empty() => {
                    require_events(conn, &principal, events, &[])?;
                    Ok(webhook)
                }
                _ => Err(ApiError::Forbidden(
                    "this webhook is subscribed to every event: only an admin key reads it".into(),
                )),
            }
        })
        .await;
    }
    if principal.role() != Role::Admin {
        principal.require_any(&[Role::Director])?;
    }
    let (webhook, _) = db::run(&state.pool, move |conn| {
        Ok(store::webhooks::find(conn, id)?)
    })
    .await?
    .filter(|(_, created_by)| principal.role() == Role::Admin || *created_by == principal.key_id())
    .ok_or_else(|| ApiError::NotFound(format!("there is no webhook {id}")))?;
    may_manage(principal, webhook.event_ids.as_deref())?;
    Ok(webhook)
}

#[cfg(test)]
mod tests {
    use super::*;
    use catan_kit::auth::claims_for;
    use std::time::Duration;

    fn principal(role: Role, events: Option<Vec<Uuid>>) -> Principal {
        Principal(claims_for(
            Uuid::new_v4(),
            role,
            events,
            Duration::from_secs(60),
        ))
    }

    #[test]
    fn admins_manage_every_subscription() {
        let admin = principal(Role::Admin, None);
        assert!(may_manage(&admin, None).is_ok());
        assert!(may_manage(&admin, Some(&[Uuid::new_v4()])).is_ok());
    }

    #[test]
    fn directors_manage_subscriptions_to_their_events_only() {
        let (mine, other) = (Uuid::new_v4(), Uuid::new_v4());
        let director = principal(Role::Director, Some(vec![mine]));
        assert!(may_manage(&director, Some(&[mine])).is_ok());
        assert!(matches!(
            may_manage(&director, Some(&[mine, other])),
            Err(ApiError::Forbidden(_))
        ));
        assert!(matches!(
            may_manage(&director, None),
            Err(ApiError::Forbidden(_))
        ));
    }

    #[test]
    fn scorers_manage_none() {
        let event = Uuid::new_v4();
        let scorer = principal(Role::Scorer, Some(vec![event]));
        assert!(matches!(
            may_manage(&scorer, Some(&[event])),
            Err(ApiError::Forbidden(_))
        ));
    }
}
