//! What the run plays: classic events over one pool of players, each with a scorer key for its
//! table apps, and the webhook subscription to the harness's receiver. Made through the API before
//! any fault, with the typed client.

use anyhow::Context;
use catan_api::{
    ApiClient, CreateApiKey, CreateEntry, CreateEvent, CreatePlayer, CreateWebhook, Event, Role,
    WebhookEventType,
};
use futures_util::{StreamExt, TryStreamExt, stream};
use uuid::Uuid;

/// Requests in flight while setting up.
const SETTING_UP: usize = 8;

/// One event of the run.
pub struct PlannedEvent {
    pub event: Event,
    /// The token of the event's scorer key: the table apps post with it.
    pub scorer_token: String,
    /// Its entrants, in the order they were entered.
    pub players: Vec<Uuid>,
    /// How many tables of each round are posted, round 1 first: every table but in the last
    /// round of the last event, which posts only what the run's count needs.
    pub tables_per_round: Vec<usize>,
}

/// Everything the run set up.
pub struct World {
    pub gateway: String,
    pub admin_token: String,
    /// Sends no token.
    pub public: ApiClient,
    pub events: Vec<PlannedEvent>,
    /// The subscription's signing secret.
    pub webhook_secret: String,
}

/// The tables each event posts, round by round, for `results` results in events whose rounds
/// have `tables` tables, `rounds` rounds each at most.
pub fn plan(results: usize, tables: usize, rounds: usize) -> Vec<Vec<usize>> {
    let tables = tables.max(1);
    let per_event = tables * rounds.max(1);
    let mut events = Vec::new();
    let mut left = results;
    while left > 0 {
        let this = left.min(per_event);
        let mut round_tables = vec![tables; this / tables];
        if !this.is_multiple_of(tables) {
            round_tables.push(this % tables);
        }
        events.push(round_tables);
        left -= this;
    }
    events
}

/// Sets up the run's events through the gateway at `gateway`, as the admin of `admin_key`, and
/// subscribes `hook_url` to every `result.posted`.
pub async fn set_up(
    gateway: &str,
    admin_key: &str,
    hook_url: &str,
    plan: Vec<Vec<usize>>,
    tables: usize,
) -> anyhow::Result<World> {
    let public = ApiClient::new(gateway);
    let admin_token = public.token(admin_key).await?.access_token;
    let admin = public.with_token(admin_token.clone());
    let hook = admin
        .create_webhook(&CreateWebhook {
            url: hook_url.to_owned(),
            event_types: vec![WebhookEventType::ResultPosted],
            event_ids: None,
        })
        .await
        .context("the webhook subscription")?;
    let admin = &admin;
    let players: Vec<Uuid> = stream::iter(0..tables * 4)
        .map(|i| async move {
            let body = CreatePlayer {
                name: format!("Chaos player {i:05}"),
                region_id: None,
            };
            admin.create_player(&body).await.map(|p| p.id)
        })
        .buffered(SETTING_UP)
        .try_collect()
        .await
        .context("the players")?;
    let mut events = Vec::new();
    for (i, tables_per_round) in plan.into_iter().enumerate() {
        let event = admin
            .create_event(&CreateEvent {
                qualifying_rounds: Some(i64::try_from(tables_per_round.len())?),
                // Its draws take the harness's seeds.
                practice: Some(true),
                ..CreateEvent::classic(&format!("Chaos open {}", i + 1))
            })
            .await
            .context("an event")?;
        let key = admin
            .create_api_key(&CreateApiKey {
                name: format!("Chaos table apps {}", i + 1),
                role: Role::Scorer,
                event_ids: Some(vec![event.id]),
                region_ids: None,
            })
            .await
            .context("a scorer key")?;
        let scorer_token = public.token(&key.api_key).await?.access_token;
        let event_id = event.id;
        stream::iter(&players)
            .map(|&player| async move {
                admin
                    .create_entry(event_id, &CreateEntry::player(player))
                    .await
            })
            .buffered(SETTING_UP)
            .try_for_each(|_| async { Ok(()) })
            .await
            .context("the entries")?;
        events.push(PlannedEvent {
            event,
            scorer_token,
            players: players.clone(),
            tables_per_round,
        });
    }
    Ok(World {
        gateway: gateway.to_owned(),
        admin_token,
        public,
        events,
        webhook_secret: hook.secret,
    })
}

#[cfg(test)]
mod tests {
    use super::plan;

    #[test]
    fn the_plan_posts_exactly_the_results_asked_for_in_full_rounds_but_the_last() {
        assert_eq!(plan(1000, 25, 8), vec![vec![25; 8]; 5]);
        assert_eq!(
            plan(230, 25, 4),
            vec![vec![25; 4], vec![25; 4], vec![25, 5]],
            "the last event stops after the tables still needed"
        );
        assert!(plan(0, 25, 8).is_empty());
        for (results, tables, rounds) in [(10_000, 25, 8), (1, 50, 10), (999, 7, 3)] {
            let planned = plan(results, tables, rounds);
            assert_eq!(planned.iter().flatten().sum::<usize>(), results);
            assert!(planned.iter().all(|e| e.len() <= rounds));
        }
    }
}
