//! An event whose players sign in with their PINs, its first round drawn: where the players' own
//! writes (issue 31) are tried, by `player_reporting.rs` and the players' matrix.

use catan_api::{CreateEvent, EventFormat, Round, SubmitResult, Table};
use catan_e2e::TestSuite;
use catan_e2e::fixtures::EventFixture;
use catan_e2e::http::{Answer, Method};
use catan_e2e::phone::pin_of;
use catan_e2e::{seated, won_by_first};
use serde_json::Value;
use uuid::Uuid;

/// The event, its first round, and its players' PINs (in its entries).
pub(crate) struct SignedIn {
    pub(crate) fx: EventFixture,
    pub(crate) round: Round,
}

/// A one-round classic event with the fields of `CreateEvent` that `options` (a JSON object)
/// gives, every other setting at its default.
pub(crate) fn classic_with(options: Value) -> CreateEvent {
    let name = format!("Players' open {}", Uuid::new_v4().simple());
    with_options(
        CreateEvent {
            qualifying_rounds: Some(1),
            ..CreateEvent::classic(&name)
        },
        options,
    )
}

/// `body` with the fields `options` (a JSON object) gives.
pub(crate) fn with_options(body: CreateEvent, options: Value) -> CreateEvent {
    let mut fields = serde_json::to_value(body).unwrap();
    let options = options.as_object().cloned().unwrap_or_default();
    fields.as_object_mut().unwrap().extend(options);
    serde_json::from_value(fields).unwrap()
}

/// The event `body` describes with two tables' worth of entries (8 players, or 4 teams of two),
/// round 1 drawn by its director.
pub(crate) async fn signed_in(ts: &TestSuite, body: &CreateEvent) -> SignedIn {
    let fx = match body.format {
        EventFormat::Classic => ts.classic_event_as(body, 8).await,
        EventFormat::Partner => {
            let mut fx = ts.event(body).await;
            ts.enter_teams(&mut fx, 4).await;
            fx
        }
    };
    let round = fx.draw().await;
    SignedIn { fx, round }
}

impl SignedIn {
    pub(crate) fn event(&self) -> Uuid {
        self.fx.event.id
    }

    /// `player`'s token for the event, signed in with the PIN of their entry.
    pub(crate) async fn token(&self, ts: &TestSuite, player: Uuid) -> String {
        ts.anonymous
            .player_token(self.event(), player, &pin_of(&self.fx.entries, player))
            .await
            .expect("the player signs in with their PIN")
            .access_token
    }

    /// The client of `player`, signed in with their PIN.
    pub(crate) async fn client(&self, ts: &TestSuite, player: Uuid) -> catan_api::ApiClient {
        ts.anonymous.with_token(self.token(ts, player).await)
    }

    /// Table `index` of round 1 (in the round's order).
    pub(crate) fn table(&self, index: usize) -> &Table {
        &self.round.tables[index]
    }

    /// The entry `player` is in.
    pub(crate) fn entry_of(&self, player: Uuid) -> Uuid {
        self.fx
            .entries
            .iter()
            .find(|entry| entry.player_ids.contains(&player))
            .expect("an entry")
            .id
    }

    /// A sheet for table `index` of round 1 its first seated player won.
    pub(crate) fn sheet(&self, index: usize) -> SubmitResult {
        won_by_first(&seated(self.table(index)), &[10, 7, 5, 3])
    }

    /// `sheet` for table `index` of round 1, sent with `token`.
    pub(crate) async fn put_sheet(
        &self,
        ts: &TestSuite,
        token: &str,
        index: usize,
        sheet: &SubmitResult,
    ) -> Answer {
        let path = format!(
            "/v1/events/{}/rounds/1/tables/{}/result",
            self.event(),
            self.table(index).number
        );
        ts.http(Method::PUT, &path)
            .token(token)
            .json(sheet)
            .send()
            .await
    }
}
