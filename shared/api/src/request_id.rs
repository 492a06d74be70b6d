//! The request id that follows one request across the services: a service serving a request sets
//! it for the request's task, and every [`crate::ApiClient`] call made meanwhile sends it on in
//! the `x-request-id` header, so the four services' logs of one request share one id.

use std::future::Future;

/// The header that carries the id.
pub const HEADER: &str = "x-request-id";

tokio::task_local! {
    static CURRENT: String;
}

/// Runs `work` with `id` as the current request id.
pub async fn scope<F: Future>(id: String, work: F) -> F::Output {
    CURRENT.scope(id, work).await
}

/// The id of the request being served by this task, if any.
pub fn current() -> Option<String> {
    CURRENT.try_with(Clone::clone).ok()
}

/// Whether an incoming id may be taken over: 1 to 128 visible ASCII characters, so that a caller
/// cannot forge log lines with it.
pub fn is_valid(id: &str) -> bool {
    (1..=128).contains(&id.len()) && id.bytes().all(|b| b.is_ascii_graphic())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn the_id_is_current_inside_its_scope_only() {
        assert_eq!(current(), None);
        let inside = scope("req-1".into(), async { current() }).await;
        assert_eq!(inside.as_deref(), Some("req-1"));
        assert_eq!(current(), None);
    }

    #[test]
    fn ids_with_spaces_or_control_characters_are_not_taken_over() {
        assert!(is_valid("0b6f6f7e-3c5a-4a52-9a0e-1f2d3c4b5a69"));
        assert!(!is_valid(""));
        assert!(!is_valid("a b"));
        assert!(!is_valid("line\nbreak"));
        assert!(!is_valid(&"x".repeat(129)));
    }
}
