//! The federation's side of a pull: the event checked out to the venue, and the venue's copy of
//! it read through the federation's public API.

use super::keep::VenueFile;
use anyhow::bail;
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

/// How the event came to be checked out to the venue.
pub enum CheckedOut {
    /// By this pull.
    Now(Checkout),
    /// By an earlier pull with the same venue key.
    Before(Checkout),
}

/// Checks the event out to the venue `file` names, with its public key. The write's
/// Idempotency-Key is made of the event and the key, so that a pull run again after a lost
/// answer gets the first answer; an event checked out to this key already is fine, to another
/// venue's key a refusal.
pub async fn check_out(federation: &ApiClient, file: &VenueFile) -> anyhow::Result<CheckedOut> {
    let keyed = federation
        .with_idempotency_key(&format!("venue-pull.{}.{}", file.event_id, file.public_key));
    let body = CheckOutEvent {
        venue: file.venue.clone(),
        public_key: file.public_key.clone(),
    };
    match keyed.check_out_event(file.event_id, &body).await {
        Ok(checkout) => Ok(CheckedOut::Now(checkout)),
        Err(ClientError::Problem { problem }) if problem.status == 409 => {
            let held = federation.event_checkout(file.event_id).await?;
            if held.public_key != file.public_key {
                bail!(
                    "the event is checked out to \"{}\" already, with another venue key: its \
                     organiser or the admin releases that checkout first",
                    held.venue
                );
            }
            Ok(CheckedOut::Before(held))
        }
        Err(e) => Err(e.into()),
    }
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
