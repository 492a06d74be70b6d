//! A player's own token (`POST /v1/auth/player-token`): its subject is the player's id, and it
//! names the one event the player signed in for.

use crate::ApiError;
use crate::auth::Principal;
use catan_api::Role;
use uuid::Uuid;

/// The player `principal` signs in, when it is a player's token for `event_id`; `None` for any
/// other key, or a player's token for another event.
pub fn signed_in_player(principal: &Principal, event_id: Uuid) -> Option<Uuid> {
    (principal.role() == Role::Player && principal.events().contains(&event_id))
        .then_some(principal.key_id())
}

/// [`signed_in_player`], or a 403 saying that `what` needs the player's own token for the event.
pub fn require_player(principal: &Principal, event_id: Uuid, what: &str) -> Result<Uuid, ApiError> {
    signed_in_player(principal, event_id).ok_or_else(|| {
        ApiError::Forbidden(format!(
            "{what} needs the player's own token for this event (POST /v1/auth/player-token)"
        ))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::auth::claims_for;
    use std::time::Duration;

    fn token(role: Role, events: Vec<Uuid>) -> Principal {
        Principal(claims_for(
            Uuid::new_v4(),
            role,
            Some(events),
            Duration::from_secs(60),
        ))
    }

    #[test]
    fn only_a_players_token_for_the_event_names_its_player() {
        let (event, other) = (Uuid::new_v4(), Uuid::new_v4());
        let player = token(Role::Player, vec![event]);
        assert_eq!(signed_in_player(&player, event), Some(player.key_id()));
        assert_eq!(signed_in_player(&player, other), None);
        let director = token(Role::Director, vec![event]);
        assert_eq!(signed_in_player(&director, event), None);
        assert!(require_player(&director, event, "confirming").is_err());
        assert_eq!(
            require_player(&player, event, "confirming").ok(),
            Some(player.key_id())
        );
    }
}
