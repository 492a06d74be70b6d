//! The federation's side of a pull: the event checked out to the venue, and the venue's copy of
//! it read through the federation's public API.

use super::keep::VenueFile;
use anyhow::{Context, anyhow, bail};
use catan_api::{
    ApiClient, AuditQuery, AuditRecord, CheckOutEvent, Checkout, ClientError, EntryCopy, EventCopy,
    Player, PlayerCopy, VenueCopy,
};
use futures_util::{StreamExt, TryStreamExt};
use std::collections::BTreeSet;
use uuid::Uuid;

/// A client of the federation at `url` with the token its API key `key` exchanges for.
pub async fn signed_in(url: &str, key: &str) -> Result<ApiClient, ClientError> {
    let public = ApiClient::new(url);
    let token = public.token(key).await?.access_token;
    Ok(public.with_token(token))
}

/// [`signed_in`], its failure said as a director reads it: the federation does not answer, or
/// it refuses the key.
pub async fn reached(url: &str, key: &str) -> anyhow::Result<ApiClient> {
    signed_in(url, key).await.map_err(|e| match e {
        ClientError::Problem { problem } if matches!(problem.status, 400 | 401 | 403) => {
            anyhow!(
                "the federation at {url} answers, but refuses the key (is it one of the \
                 federation's API keys, and not revoked?): {}",
                problem.detail
            )
        }
        ClientError::Problem { problem } => anyhow!(
            "the federation at {url} answers, but could not sign the key in ({} {}): try \
             again in a minute",
            problem.status,
            problem.title
        ),
        ClientError::Transport(why) => anyhow!(
            "the federation at {url} does not answer (is the address right, and is this \
             machine online?): {why}"
        ),
        ClientError::Decode(why) => anyhow!(
            "{url} answers, but not as a Catan federation does (is the address right?): {why}"
        ),
    })
}

/// How the event came to be checked out to the venue.
pub enum CheckedOut {
    /// By this pull: the venue file of its new key, not yet kept.
    Now(Checkout, VenueFile),
    /// By an earlier pull with the venue key `kept` holds.
    Before(Checkout, VenueFile),
}

/// Checks `event_id` out to `venue`, or finds it checked out already with the key the venue
/// `kept` from an earlier pull. Every checkout made here is its own: it has a key pair made for
/// it, and its write's Idempotency-Key is made of that key, so that a retry within this pull gets
/// this pull's answer and a pull after a release checks out again for real. The checkout is
/// asked for even when the venue holds it, so that the federation judges the key each time. An
/// event the federation does not have, a key that may not check it out, and an event checked
/// out to another venue's key are refusals, said in words, before the venue keeps anything.
pub async fn check_out(
    federation: &ApiClient,
    url: &str,
    event_id: Uuid,
    venue: &str,
    kept: Option<VenueFile>,
) -> anyhow::Result<CheckedOut> {
    match federation.event(event_id).await {
        Ok(_) => {}
        Err(ClientError::Problem { problem }) if problem.status == 404 => bail!(
            "the federation at {url} has no event {event_id}: check the event's id (its \
             address at the federation ends with it)"
        ),
        Err(e) => return Err(e).context("reading the event at the federation"),
    }
    let file = VenueFile::new(url, event_id, venue);
    let keyed =
        federation.with_idempotency_key(&format!("venue-pull.{event_id}.{}", file.public_key));
    let body = CheckOutEvent {
        venue: file.venue.clone(),
        public_key: file.public_key.clone(),
    };
    match keyed.check_out_event(event_id, &body).await {
        Ok(checkout) => Ok(CheckedOut::Now(checkout, file)),
        Err(ClientError::Problem { problem }) if problem.status == 403 => bail!(
            "the federation refuses this key the checkout of event {event_id}: only the \
             admin's key, a key of an organiser of the event's region or of the event's \
             director may check it out"
        ),
        // The key may check it out, and it is checked out already: by this venue's earlier pull,
        // or by another venue.
        Err(ClientError::Problem { problem }) if problem.status == 409 => {
            let held = federation.event_checkout(event_id).await?;
            match kept {
                Some(file) if file.public_key == held.public_key => {
                    Ok(CheckedOut::Before(held, file))
                }
                _ => Err(held_elsewhere(&held)),
            }
        }
        Err(ClientError::Problem { problem }) => {
            bail!("the federation refused the checkout: {}", problem.detail)
        }
        Err(e) => Err(e).context("checking the event out at the federation"),
    }
}

/// The refusal of a pull of an event checked out to another venue's key.
fn held_elsewhere(held: &Checkout) -> anyhow::Error {
    anyhow!(
        "the event is checked out already, to \"{}\" since {}, with another venue's key: its \
         organiser or the admin releases that checkout first",
        held.venue,
        held.checked_out_at.format("%Y-%m-%d %H:%M UTC")
    )
}

/// How many players a copy reads at once.
const PLAYERS_READ_AT_ONCE: usize = 8;

/// The event as the federation has it, with its entries, the players they name (and with
/// `region_players` every player of the event's region) and every region those name.
pub async fn read_copy(
    federation: &ApiClient,
    event_id: Uuid,
    region_players: bool,
) -> Result<VenueCopy, ClientError> {
    let event = federation.event(event_id).await?;
    let entries = federation.entries(event_id).await?;
    let mut players: Vec<Player> = match (region_players, event.region_id) {
        (true, Some(region_id)) => federation.region_players(region_id).await?,
        _ => Vec::new(),
    };
    let have: BTreeSet<Uuid> = players.iter().map(|p| p.id).collect();
    let entered: BTreeSet<Uuid> = entries
        .iter()
        .flat_map(|e| e.player_ids.iter().copied())
        .filter(|id| !have.contains(id))
        .collect();
    // A few at once: one by one, a 1,000-player event's reads took 2.3–2.6 s of a pull.
    let entered_players: Vec<Player> = futures_util::stream::iter(entered)
        .map(|player_id| federation.player(player_id))
        .buffered(PLAYERS_READ_AT_ONCE)
        .try_collect()
        .await?;
    players.extend(entered_players);
    let region_ids: BTreeSet<Uuid> = event
        .region_id
        .into_iter()
        .chain(players.iter().filter_map(|p| p.region_id))
        .collect();
    let mut regions = Vec::with_capacity(region_ids.len());
    for region_id in region_ids {
        regions.push(federation.region(region_id).await?);
    }
    Ok(VenueCopy {
        regions,
        event: EventCopy::from(&event),
        players: players.iter().map(PlayerCopy::from).collect(),
        entries: entries.iter().map(EntryCopy::from).collect(),
        // A venue's audit records travel only with a publish: see [`audit_of`].
        audit: Vec::new(),
    })
}

/// Every audit record of the event that `suite` shows its caller (all its services', every
/// page), the oldest first: what a publish sends of the venue's trail.
pub async fn audit_of(suite: &ApiClient, event_id: Uuid) -> Result<Vec<AuditRecord>, ClientError> {
    const PAGE: u32 = 1000;
    let query = AuditQuery {
        event_id: Some(event_id),
        ..AuditQuery::default()
    };
    let mut records = Vec::new();
    loop {
        let offset = u32::try_from(records.len()).unwrap_or(u32::MAX);
        let page = suite.audit(&query, PAGE, offset).await?;
        let last = page.len() < PAGE as usize;
        records.extend(page);
        if last {
            return Ok(records);
        }
    }
}
