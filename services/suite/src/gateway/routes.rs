//! Which service owns which path, read from the services' own route tables (the OpenAPI document
//! each builds from its handlers), so the gateway keeps no list of its own. A path no service
//! documents (such as registration's internal inbox) is not routed.

use super::Owner;
use utoipa::openapi::OpenApi;

/// Where a path goes, and whether it answers a stream of server-sent events.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Route {
    pub owner: Owner,
    pub streams: bool,
}

/// The path templates of every service.
pub struct Routes {
    templates: Vec<(Vec<String>, Route)>,
}

impl Routes {
    /// The routes of the four services.
    pub fn of_services() -> Routes {
        Routes::of([
            (Owner::Registration, catan_registration::SERVICE.openapi()),
            (Owner::Pairing, catan_pairing::SERVICE.openapi()),
            (Owner::Results, catan_results::SERVICE.openapi()),
            (Owner::Ranking, catan_ranking::SERVICE.openapi()),
        ])
    }

    fn of(documents: impl IntoIterator<Item = (Owner, OpenApi)>) -> Routes {
        let mut templates = Vec::new();
        for (owner, doc) in documents {
            for (path, item) in doc.paths.paths {
                let streams = [&item.get, &item.post, &item.put, &item.delete]
                    .into_iter()
                    .flatten()
                    .flat_map(|operation| operation.responses.responses.values())
                    .any(|response| match response {
                        utoipa::openapi::RefOr::T(response) => {
                            response.content.contains_key("text/event-stream")
                        }
                        utoipa::openapi::RefOr::Ref(_) => false,
                    });
                templates.push((segments(&path), Route { owner, streams }));
            }
        }
        Routes { templates }
    }

    /// The route of `path`: of the templates it fits, the one with the most fixed segments.
    pub fn route_of(&self, path: &str) -> Option<Route> {
        let path = segments(path);
        self.templates
            .iter()
            .filter(|(template, _)| fits(template, &path))
            .max_by_key(|(template, _)| template.iter().filter(|s| !is_parameter(s)).count())
            .map(|(_, route)| *route)
    }

    /// The service that owns `path`.
    pub fn owner_of(&self, path: &str) -> Option<Owner> {
        self.route_of(path).map(|route| route.owner)
    }
}

/// Whether `path` (as sent, before any decoding) holds a `.` or `..` segment, plain or with its
/// dots percent-encoded. The URL parser that builds the upstream request resolves such segments
/// (and takes a backslash for `/`), so `/v1/events/%2e%2e/%2e%2e/internal/...` would reach a route the
/// gateway never routes.
pub fn has_dot_segment(path: &str) -> bool {
    path.split(['/', '\\']).any(|segment| {
        let decoded = segment.to_ascii_lowercase().replace("%2e", ".");
        decoded == "." || decoded == ".."
    })
}

fn segments(path: &str) -> Vec<String> {
    path.trim_matches('/')
        .split('/')
        .map(str::to_owned)
        .collect()
}

fn is_parameter(segment: &str) -> bool {
    segment.starts_with('{') && segment.ends_with('}')
}

fn fits(template: &[String], path: &[String]) -> bool {
    template.len() == path.len()
        && template
            .iter()
            .zip(path)
            .all(|(t, p)| is_parameter(t) || t == p)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_go_to_the_service_that_owns_them() {
        let routes = Routes::of_services();
        let owner_of = |path: &str| routes.owner_of(path);
        let e = "3f1c6a0e-0000-4000-8000-000000000000";
        assert_eq!(owner_of("/v1/auth/token"), Some(Owner::Registration));
        assert_eq!(
            owner_of("/.well-known/jwks.json"),
            Some(Owner::Registration)
        );
        assert_eq!(
            owner_of(&format!("/v1/events/{e}")),
            Some(Owner::Registration)
        );
        assert_eq!(
            owner_of(&format!("/v1/events/{e}/entries/x/drop")),
            Some(Owner::Registration)
        );
        assert_eq!(
            owner_of(&format!("/v1/events/{e}/rounds")),
            Some(Owner::Pairing)
        );
        assert_eq!(
            owner_of(&format!("/v1/events/{e}/rounds/2")),
            Some(Owner::Pairing)
        );
        assert_eq!(
            owner_of(&format!("/v1/events/{e}/rounds/2/tables/3/result")),
            Some(Owner::Results)
        );
        assert_eq!(
            owner_of(&format!("/v1/events/{e}/rounds/2/tables/3/result/history")),
            Some(Owner::Results)
        );
        assert_eq!(
            owner_of(&format!("/v1/events/{e}/rounds/2/results")),
            Some(Owner::Results)
        );
        assert_eq!(
            owner_of(&format!("/v1/events/{e}/standings")),
            Some(Owner::Ranking)
        );
        assert_eq!(
            owner_of(&format!("/v1/events/{e}/placements")),
            Some(Owner::Ranking)
        );
        assert_eq!(
            owner_of(&format!("/v1/events/{e}/standings/stream")),
            Some(Owner::Ranking)
        );
        assert_eq!(
            owner_of(&format!("/v1/events/{e}/rounds/2/clock/stream")),
            Some(Owner::Pairing)
        );
        assert_eq!(
            owner_of(&format!("/v1/webhooks/{e}/deliveries")),
            Some(Owner::Registration)
        );
        assert_eq!(owner_of("/internal/webhook-events"), None);
        // Only the cluster's Prometheus reads a service's metrics.
        assert_eq!(owner_of("/metrics"), None);
        assert_eq!(owner_of("/nothing"), None);
    }

    #[test]
    fn dot_segments_are_found_plain_and_percent_encoded() {
        for path in [
            "/v1/events/../internal/webhook-events",
            "/v1/./players",
            "/v1/events/%2e%2e/%2e%2e/internal/webhook-events",
            "/v1/events/%2E%2E/internal",
            "/v1/events/.%2E/internal",
            "/v1/events/%2e./internal",
            "/v1/%2e/players",
            "/v1/events/x/..\\..\\internal",
            "/..",
        ] {
            assert!(has_dot_segment(path), "{path}");
        }
        for path in [
            "/v1/players",
            "/.well-known/jwks.json",
            "/v1/events/...",
            "/v1/events/a.b",
            "/v1/events/%2e%2e%2e",
            "/v1/events/%252e%252e",
        ] {
            assert!(!has_dot_segment(path), "{path}");
        }
    }

    #[test]
    fn only_the_standings_and_clock_streams_are_streams() {
        let routes = Routes::of_services();
        let e = "3f1c6a0e-0000-4000-8000-000000000000";
        let streams = |path: &str| routes.route_of(path).map(|r| r.streams);
        assert_eq!(
            streams(&format!("/v1/events/{e}/standings/stream")),
            Some(true)
        );
        assert_eq!(streams(&format!("/v1/events/{e}/standings")), Some(false));
        assert_eq!(
            streams(&format!("/v1/events/{e}/rounds/2/clock/stream")),
            Some(true)
        );
        assert_eq!(
            streams(&format!("/v1/events/{e}/rounds/2/clock")),
            Some(false)
        );
    }
}
