//! Pairing and results as registration tells them of checkouts to venues (issue 34): through
//! their internal route, with the internal key, a timeout and retries.

use crate::State;
use catan_api::{ApiClient, RetryPolicy};
use catan_kit::ApiError;
use catan_kit::settings::{ExposeSecret, Settings};
use std::time::Duration;
use uuid::Uuid;

/// Pairing and results, told of checkouts through their internal route with the internal key
/// (`None` without one: no checkout can be made).
pub(crate) fn of(settings: &Settings) -> Option<Vec<ApiClient>> {
    let policy = RetryPolicy {
        attempts: 3,
        first_backoff: Duration::from_millis(100),
        timeout: Duration::from_secs(5),
    };
    let key = settings.webhooks.internal_key.as_ref()?;
    Some(
        [&settings.peers.pairing, &settings.peers.results]
            .into_iter()
            .map(|url| ApiClient::with_policy(url, policy).with_token(key.expose_secret()))
            .collect(),
    )
}

fn peers(state: &State) -> Result<&[ApiClient], ApiError> {
    state.checkout_peers.as_deref().ok_or_else(|| {
        ApiError::unavailable(
            "pairing and results cannot be told of a checkout",
            "CATAN_INTERNAL_KEY is not set",
        )
    })
}

/// Tells every peer that the event is checked out to `venue` (`None`: released). A checkout one
/// of them could not be told of is taken back from those told, so that none refuses writes to an
/// event that is not checked out.
pub(crate) async fn tell(
    state: &State,
    event_id: Uuid,
    venue: Option<&str>,
) -> Result<(), ApiError> {
    let peers = peers(state)?;
    for (told, peer) in peers.iter().enumerate() {
        let outcome = match venue {
            Some(venue) => peer.tell_checked_out(event_id, venue).await,
            None => peer.tell_released(event_id).await,
        };
        if let Err(e) = outcome {
            if venue.is_some() {
                for peer in &peers[..told] {
                    if let Err(e) = peer.tell_released(event_id).await {
                        tracing::warn!(%event_id, error = %e, "a checkout could not be taken back");
                    }
                }
            }
            return Err(ApiError::unavailable(
                "pairing or results could not be told of the checkout; retry later",
                e,
            ));
        }
    }
    Ok(())
}
