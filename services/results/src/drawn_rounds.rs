//! Drawn rounds as pairing serves them, kept once fetched. A drawn round never changes (pairing
//! cannot redraw one), so each sheet is checked against the kept copy instead of fetching the
//! whole round again (165 KB for a round of 1,000 players) on every post.

use catan_api::{ApiClient, Round};
use catan_kit::ApiError;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};
use uuid::Uuid;

/// At most this many rounds are kept; past it the cache starts again empty, which costs each
/// round being played one fetch.
const KEPT_ROUNDS: usize = 512;

#[derive(Default)]
pub struct DrawnRounds {
    kept: Mutex<HashMap<(Uuid, u32), Arc<Round>>>,
}

impl DrawnRounds {
    /// The event's round `number`, from pairing the first time. A round not drawn yet is not
    /// kept: pairing answers 404 until it is drawn.
    pub async fn get(
        &self,
        pairing: &ApiClient,
        event_id: Uuid,
        number: u32,
    ) -> Result<Arc<Round>, ApiError> {
        if let Some(round) = self.lock().get(&(event_id, number)) {
            return Ok(round.clone());
        }
        let round = Arc::new(pairing.round(event_id, number).await?);
        let mut kept = self.lock();
        if kept.len() >= KEPT_ROUNDS {
            kept.clear();
        }
        kept.insert((event_id, number), round.clone());
        Ok(round)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<(Uuid, u32), Arc<Round>>> {
        self.kept.lock().unwrap_or_else(PoisonError::into_inner)
    }
}
