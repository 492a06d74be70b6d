//! The Kubernetes manifests' routes (deploy/): the Ingress routes every public path of
//! openapi/openapi.json to the service the gateway routes it to, every other path to the web app
//! as the gateway does, and never /internal/; the web app reaches the API through a route the
//! Ingress serves, and the network policies let the ingress controller reach it and it reach the
//! API only.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test helpers: a failed step fails the test"
)]

#[path = "deploy/render.rs"]
#[allow(
    dead_code,
    reason = "each deploy test file uses its part of the shared reading"
)]
mod render;

use catan_suite::Owner;
use catan_suite::gateway::Routes;
use regex::Regex;
use render::*;
use serde_json::Value;
use std::collections::BTreeSet;

/// Every path the Ingress objects route: its pattern, the Service it goes to.
fn ingress_paths(rendered: &Rendered) -> Vec<(String, String)> {
    let mut paths = Vec::new();
    for ingress in rendered.of_kind("Ingress") {
        assert_eq!(
            ingress["metadata"]["annotations"]["nginx.ingress.kubernetes.io/use-regex"],
            "true",
            "{}",
            name_of(ingress)
        );
        for rule in ingress["spec"]["rules"].as_array().unwrap() {
            for path in rule["http"]["paths"].as_array().unwrap() {
                paths.push((
                    path["path"].as_str().unwrap().to_owned(),
                    path["backend"]["service"]["name"]
                        .as_str()
                        .unwrap()
                        .to_owned(),
                ));
            }
        }
    }
    paths
}

/// Where ingress-nginx sends `path`: of the patterns that match it from its start (PCRE,
/// case-insensitive), the longest.
fn ingress_route(paths: &[(String, String)], path: &str) -> Option<String> {
    paths
        .iter()
        .filter(|(pattern, _)| {
            fancy_regex::Regex::new(&format!("(?i)^{pattern}"))
                .unwrap()
                .is_match(path)
                .unwrap()
        })
        .max_by_key(|(pattern, _)| pattern.len())
        .map(|(_, service)| service.clone())
}

fn service_of(owner: Owner) -> &'static str {
    match owner {
        Owner::Registration => "catan-registration",
        Owner::Pairing => "catan-pairing",
        Owner::Results => "catan-results",
        Owner::Ranking => "catan-ranking",
    }
}

#[test]
fn the_ingress_routes_every_public_path_as_the_gateway_does_and_never_internal() {
    let python = python();
    let spec: Value = serde_json::from_str(
        &std::fs::read_to_string(repo().join("openapi/openapi.json")).unwrap(),
    )
    .unwrap();
    let templates: Vec<&String> = spec["paths"].as_object().unwrap().keys().collect();
    assert!(templates.len() > 40);
    let gateway = Routes::of_services();
    let parameter = Regex::new(r"\{[^}]+\}").unwrap();
    for overlay in OVERLAYS {
        let rendered = render(&python, overlay);
        let paths = ingress_paths(&rendered);
        let services: BTreeSet<&str> = rendered
            .of_kind("Service")
            .into_iter()
            .map(name_of)
            .collect();
        for (pattern, service) in &paths {
            assert!(
                services.contains(service.as_str()),
                "{pattern} -> {service}"
            );
            // A pattern names /internal/ only in a lookahead that keeps it out.
            assert!(
                !pattern.contains("internal") || pattern.starts_with("/(?!"),
                "{pattern}"
            );
        }
        for template in &templates {
            // Each parameter as a client would fill it: an id, a number.
            for filled in ["3f1c6a0e-0000-4000-8000-000000000000", "2"] {
                let path = parameter.replace_all(template, filled).into_owned();
                let owner = gateway
                    .owner_of(&path)
                    .unwrap_or_else(|| panic!("the gateway routes {path}"));
                assert_eq!(
                    ingress_route(&paths, &path).as_deref(),
                    Some(service_of(owner)),
                    "{overlay}: {template} as {path}"
                );
            }
        }
        // The stream is held open and unbuffered.
        let stream = "/v1/events/x/standings/stream";
        assert_eq!(
            ingress_route(&paths, stream).as_deref(),
            Some("catan-ranking")
        );
        let streams = rendered.named("Ingress", "catan-streams").unwrap();
        assert_eq!(
            streams["metadata"]["annotations"]["nginx.ingress.kubernetes.io/proxy-buffering"],
            "off"
        );
        // What the gateway routes to no service, the Ingress does not either: the internal
        // inbox, the metrics and the probes' path reach nothing, and /v1/ stays the API's.
        for unrouted in [
            "/internal/webhook-events",
            "/internal/dead-letters",
            "/INTERNAL/webhook-events",
            "/internal",
            "/metrics",
            "/health",
            "/v1/nothing",
            "/.well-known/other",
        ] {
            assert_eq!(gateway.owner_of(unrouted), None, "{unrouted}");
            assert_eq!(
                ingress_route(&paths, unrouted),
                None,
                "{overlay}: {unrouted}"
            );
        }
        // Every other path is the web app's, as in the suite.
        for page in [
            "/",
            "/events/3f1c6a0e-0000-4000-8000-000000000000/rounds/1/sheets",
            "/seasons/3f1c6a0e-0000-4000-8000-000000000000?region=x&page=2",
            "/players/3f1c6a0e-0000-4000-8000-000000000000",
            "/ratings",
            "/lang?to=es&back=/",
            "/static/live.js",
            "/favicon.ico",
            "/v2/events",
            "/v1events",
            "/internals",
            "/metrics.html",
        ] {
            assert_eq!(gateway.owner_of(page), None, "{page}");
            assert_eq!(
                ingress_route(&paths, page).as_deref(),
                Some("catan-web"),
                "{overlay}: {page}"
            );
        }
    }
}

/// Whether a policy's pod selector selects the pods labelled `labels`.
fn selects(selector: &Value, labels: &Value) -> bool {
    assert!(selector["matchExpressions"].is_null(), "{selector}");
    selector["matchLabels"]
        .as_object()
        .into_iter()
        .flatten()
        .all(|(k, v)| &labels[k] == v)
}

/// The namespace a policy peer names, if it names one.
fn peer_namespace(peer: &Value) -> Option<&str> {
    peer["namespaceSelector"]["matchLabels"]["kubernetes.io/metadata.name"].as_str()
}

#[test]
fn the_web_app_reads_the_api_through_the_ingress_and_only_the_ingress_reaches_it() {
    let python = python();
    for overlay in OVERLAYS {
        let rendered = render(&python, overlay);
        let web = rendered.named("Deployment", "catan-web").unwrap();
        let container = &containers(web)[0];
        let api_url = container["env"]
            .as_array()
            .unwrap()
            .iter()
            .find(|e| e["name"] == "API_URL")
            .and_then(|e| e["value"].as_str())
            .unwrap();
        // The API_URL is the ingress controller's in-cluster Service, a host the Ingress serves
        // every API route on, as on the public host, and without TLS (no redirect to https).
        let host = api_url
            .strip_prefix("http://")
            .unwrap_or_else(|| panic!("{overlay}: {api_url} is plain HTTP inside the cluster"));
        assert!(
            host.ends_with(".ingress-nginx.svc.cluster.local"),
            "{overlay}: {host}"
        );
        let ingress = rendered.named("Ingress", "catan").unwrap();
        let rules = ingress["spec"]["rules"].as_array().unwrap();
        let in_cluster = rules
            .iter()
            .find(|rule| rule["host"] == host)
            .unwrap_or_else(|| panic!("{overlay}: the Ingress serves the API on {host}"));
        assert_eq!(in_cluster["http"], rules[0]["http"], "{overlay}: {host}");
        for tls in ingress["spec"]["tls"].as_array().into_iter().flatten() {
            assert!(
                !tls["hosts"].as_array().unwrap().iter().any(|h| h == host),
                "{overlay}: {host} has no TLS"
            );
        }
        // The network policies over the web app's pods.
        let labels = &web["spec"]["template"]["metadata"]["labels"];
        let policies: Vec<&Value> = rendered
            .of_kind("NetworkPolicy")
            .into_iter()
            .filter(|p| selects(&p["spec"]["podSelector"], labels))
            .collect();
        let rules_of = |direction: &'static str| {
            policies
                .iter()
                .flat_map(move |p| p["spec"][direction].as_array().into_iter().flatten())
        };
        // Into it: the ingress controller only, on its port.
        let port = &container["ports"][0]["containerPort"];
        assert!(rules_of("ingress").count() > 0, "{overlay}");
        for rule in rules_of("ingress") {
            for from in rule["from"].as_array().unwrap() {
                assert_eq!(
                    peer_namespace(from),
                    Some("ingress-nginx"),
                    "{overlay}: only the ingress controller reaches the web app: {from}"
                );
            }
            assert_eq!(&rule["ports"][0]["port"], port, "{overlay}");
        }
        // Out of it: DNS and the ingress controller on the API_URL's port (80), never a service
        // or the database.
        for rule in rules_of("egress") {
            for to in rule["to"].as_array().unwrap() {
                assert!(
                    matches!(peer_namespace(to), Some("ingress-nginx" | "kube-system")),
                    "{overlay}: the web app reaches only the API and DNS: {to}"
                );
            }
        }
        assert!(
            rules_of("egress").any(|rule| {
                rule["to"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .any(|to| peer_namespace(to) == Some("ingress-nginx"))
                    && rule["ports"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .any(|p| p["port"] == 80)
            }),
            "{overlay}: the web app reaches the ingress controller on 80"
        );
    }
}
