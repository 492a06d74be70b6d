//! Drawn rounds as pairing serves them, kept once fetched. The director may redraw a round, or
//! swap two of its players, only while none of its tables has a result; once one has, the round
//! never changes again, so each sheet is checked against the kept copy instead of fetching the
//! whole round again (165 KB for a round of 1,000 players) on every post. Until then every post
//! asks pairing again (the database says whether the round has a result, for every replica
//! alike). The sheets of a round come all at once when it ends: a post joins a fetch under way
//! rather than making its own.

use catan_api::{ApiClient, Round};
use catan_kit::ApiError;
use catan_kit::db::{self, PgPool};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};
use tokio::sync::OnceCell;
use uuid::Uuid;

/// At most this many rounds are kept; past it the cache starts again empty, which costs each
/// round being played one fetch.
const KEPT_ROUNDS: usize = 512;

type Kept = OnceCell<Arc<Round>>;

#[derive(Default)]
pub struct DrawnRounds {
    kept: Mutex<HashMap<(Uuid, u32), Arc<Kept>>>,
}

impl DrawnRounds {
    /// The event's round `number`, from pairing the first time. A round not drawn yet is not
    /// kept: pairing answers 404 until it is drawn, and the next post asks again.
    pub async fn get(
        &self,
        pairing: &ApiClient,
        pool: &PgPool,
        event_id: Uuid,
        number: u32,
    ) -> Result<Arc<Round>, ApiError> {
        let settled = db::run(pool, move |conn| {
            crate::store::round_has_result(conn, event_id, number)
        })
        .await?;
        let cell = {
            let mut kept = self.kept.lock().unwrap_or_else(PoisonError::into_inner);
            if kept.len() >= KEPT_ROUNDS && !kept.contains_key(&(event_id, number)) {
                kept.clear();
            }
            let cell = kept.entry((event_id, number)).or_default();
            // A round that may still change is read again, unless a read is under way.
            if !settled && cell.initialized() {
                *cell = Arc::default();
            }
            Arc::clone(cell)
        };
        cell.get_or_try_init(|| async {
            Ok::<_, ApiError>(Arc::new(pairing.round(event_id, number).await?))
        })
        .await
        .cloned()
    }
}
