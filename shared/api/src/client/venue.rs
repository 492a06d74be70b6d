//! Venue mode's calls (issue 34): checking an event out to a venue and releasing it, and
//! registration's notices of both to pairing and results.

use super::{ApiClient, ClientResult, decode_text};
use crate::types::*;
use reqwest::Method;
use uuid::Uuid;

impl ApiClient {
    /// Checks an event out to a venue (the admin, or an organiser or director who may edit it).
    pub async fn check_out_event(
        &self,
        event_id: Uuid,
        body: &CheckOutEvent,
    ) -> ClientResult<Checkout> {
        self.post(&format!("/v1/events/{event_id}/checkout"), body)
            .await
    }

    /// The event's checkout; 404 when it is not checked out.
    pub async fn event_checkout(&self, event_id: Uuid) -> ClientResult<Checkout> {
        self.get(&format!("/v1/events/{event_id}/checkout")).await
    }

    /// The public key of the event's current checkout, which a venue's copy of it must be signed
    /// with; `None` when it is not checked out.
    pub async fn checkout_key(&self, event_id: Uuid) -> ClientResult<Option<String>> {
        match self.event_checkout(event_id).await {
            Ok(checkout) => Ok(Some(checkout.public_key)),
            Err(e) if e.status() == Some(404) => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// Releases the event's checkout (the admin or its organiser).
    pub async fn release_checkout(&self, event_id: Uuid) -> ClientResult<()> {
        let path = format!("/v1/events/{event_id}/checkout");
        self.call_reading::<(), _, _, _>(Method::DELETE, &path, None, &[], decode_text)
            .await
            .map(|_| ())
    }

    /// Tells this service (pairing or results, with the internal key) that the event is checked
    /// out to `venue`.
    pub async fn tell_checked_out(&self, event_id: Uuid, venue: &str) -> ClientResult<()> {
        let body = CheckedOutVenue {
            venue: venue.to_owned(),
        };
        self.put::<CheckedOutVenue>(&internal_checkout_path(event_id), &body)
            .await
            .map(|_| ())
    }

    /// Tells this service (pairing or results, with the internal key) that the event's checkout
    /// is released.
    pub async fn tell_released(&self, event_id: Uuid) -> ClientResult<()> {
        self.call::<(), ()>(Method::DELETE, &internal_checkout_path(event_id), None)
            .await
    }
}

fn internal_checkout_path(event_id: Uuid) -> String {
    INTERNAL_CHECKOUT_PATH.replace("{event_id}", &event_id.to_string())
}
