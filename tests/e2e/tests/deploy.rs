//! The Kubernetes manifests (deploy/): both overlays render with `kubectl kustomize`, every
//! built-in object validates with kubernetes-validate for the Kubernetes version deploy/README.md
//! names, and the rendered objects keep the invariants an operator relies on: probes, limits and
//! non-root on every Deployment (the four services' and the web app's); every Service selects a
//! Deployment; the Ingress routes every public path of openapi/openapi.json to the service the
//! gateway routes it to, every other path to the web app as the gateway does, and never
//! /internal/; the web app reaches the API through a route the Ingress serves, and the network
//! policies let the ingress controller reach it and it reach the API only; every environment
//! variable a manifest sets is one the binary it runs reads.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test helpers: a failed step fails the test"
)]

use catan_suite::Owner;
use catan_suite::gateway::Routes;
use regex::Regex;
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The Kubernetes version the objects are validated for (deploy/README.md names it).
const KUBERNETES_VERSION: &str = "1.33.0";

const OVERLAYS: [&str; 2] = ["dev", "production"];

/// The Secrets production expects to be made out of band, with their keys (deploy/README.md).
const OUT_OF_BAND_SECRETS: [(&str, &[&str]); 3] = [
    (
        "catan-secrets",
        &[
            "database-url",
            "internal-key",
            "admin-key",
            "pin-key",
            "web-session-key",
        ],
    ),
    ("catan-db-owner", &["username", "password"]),
    ("catan-backup-s3", &["ACCESS_KEY_ID", "ACCESS_SECRET_KEY"]),
];

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn run(command: &mut Command, stdin: Option<&str>) -> String {
    use std::io::Write;
    let described = format!("{command:?}");
    let mut child = command
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("{described} could not start ({e}); kubectl is in Debian's packages (apt-get install kubectl)"));
    let mut input = child.stdin.take().unwrap();
    input
        .write_all(stdin.unwrap_or_default().as_bytes())
        .unwrap();
    drop(input);
    let output = child.wait_with_output().unwrap();
    assert!(
        output.status.success(),
        "{described} failed:\n{}\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).unwrap()
}

/// The python of deploy/check's virtualenv (made on the first run).
fn python() -> String {
    // Once per test binary: the tests run at once, and the first run installs.
    static PYTHON: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    PYTHON
        .get_or_init(|| {
            let out = run(
                Command::new("bash").arg(repo().join("deploy/check/venv.sh")),
                None,
            );
            out.lines()
                .last()
                .expect("venv.sh prints its python")
                .to_owned()
        })
        .clone()
}

/// An overlay rendered, as YAML and as its objects.
struct Rendered {
    yaml: String,
    objects: Vec<Value>,
}

fn render(python: &str, overlay: &'static str) -> Rendered {
    let yaml = run(
        Command::new("kubectl")
            .arg("kustomize")
            .arg(repo().join("deploy/overlays").join(overlay)),
        None,
    );
    let json = run(
        Command::new(python).arg(repo().join("deploy/check/to_json.py")),
        Some(&yaml),
    );
    let objects: Vec<Value> = serde_json::from_str(&json).unwrap();
    assert!(objects.len() > 20, "{overlay}: {} objects", objects.len());
    Rendered { yaml, objects }
}

impl Rendered {
    fn of_kind(&self, kind: &str) -> Vec<&Value> {
        self.objects.iter().filter(|o| o["kind"] == kind).collect()
    }

    fn named(&self, kind: &str, name: &str) -> Option<&Value> {
        self.of_kind(kind)
            .into_iter()
            .find(|o| o["metadata"]["name"] == name)
    }
}

/// Whether an object is one of Kubernetes' own (the validator has no schema for a CRD's).
fn built_in(object: &Value) -> bool {
    let api_version = object["apiVersion"].as_str().unwrap();
    match api_version.split_once('/') {
        None => true,
        Some((group, _)) => {
            group.ends_with(".k8s.io")
                || ["apps", "policy", "autoscaling", "batch"].contains(&group)
        }
    }
}

fn name_of(object: &Value) -> &str {
    object["metadata"]["name"].as_str().unwrap()
}

fn containers(deployment: &Value) -> &Vec<Value> {
    deployment["spec"]["template"]["spec"]["containers"]
        .as_array()
        .unwrap()
}

#[test]
fn both_overlays_render_and_validate() {
    let python = python();
    let readme = std::fs::read_to_string(repo().join("deploy/README.md")).unwrap();
    let minor = KUBERNETES_VERSION.trim_end_matches(".0");
    assert!(
        readme.contains(&format!("Kubernetes {minor}")),
        "deploy/README.md names Kubernetes {minor}"
    );
    let validator = Path::new(&python).with_file_name("kubernetes-validate");
    for overlay in OVERLAYS {
        let rendered = render(&python, overlay);
        assert!(rendered.yaml.contains("kind: Deployment"));
        let built_ins: Vec<String> = rendered
            .objects
            .iter()
            .filter(|o| built_in(o))
            .map(|o| serde_json::to_string(o).unwrap())
            .collect();
        // The custom resources are CloudNativePG's and the Prometheus Operator's only.
        let custom: BTreeSet<&str> = rendered
            .objects
            .iter()
            .filter(|o| !built_in(o))
            .map(|o| o["apiVersion"].as_str().unwrap())
            .collect();
        assert_eq!(
            custom,
            BTreeSet::from(["monitoring.coreos.com/v1", "postgresql.cnpg.io/v1"]),
            "{overlay}"
        );
        let file = std::env::temp_dir().join(format!(
            "catan-deploy-{overlay}-{}.yaml",
            std::process::id()
        ));
        // JSON is YAML: one document each.
        std::fs::write(&file, built_ins.join("\n---\n")).unwrap();
        run(
            Command::new(&validator)
                .args([
                    "--kubernetes-version",
                    KUBERNETES_VERSION,
                    "--strict",
                    "--quiet",
                ])
                .arg(&file),
            None,
        );
        let _ = std::fs::remove_file(&file);
    }
}

#[test]
fn every_deployment_has_probes_limits_and_runs_as_non_root_read_only() {
    let python = python();
    for overlay in OVERLAYS {
        let rendered = render(&python, overlay);
        let deployments = rendered.of_kind("Deployment");
        assert_eq!(
            deployments.len(),
            5,
            "{overlay}: four services and the web app"
        );
        for deployment in deployments {
            let name = name_of(deployment);
            let pod = &deployment["spec"]["template"]["spec"];
            assert_eq!(pod["securityContext"]["runAsNonRoot"], true, "{name}");
            assert!(
                pod["securityContext"]["runAsUser"]
                    .as_u64()
                    .is_some_and(|uid| uid > 0),
                "{name}"
            );
            for container in containers(deployment) {
                let what = format!("{overlay}: {name}/{}", container["name"]);
                for probe in ["readinessProbe", "livenessProbe"] {
                    assert!(
                        container[probe]["httpGet"]["path"] == "/health",
                        "{what}: {probe}"
                    );
                }
                for bound in ["requests", "limits"] {
                    for resource in ["cpu", "memory"] {
                        assert!(
                            container["resources"][bound][resource].is_string(),
                            "{what}: {bound}.{resource}"
                        );
                    }
                }
                let security = &container["securityContext"];
                assert_eq!(security["readOnlyRootFilesystem"], true, "{what}");
                assert_eq!(security["allowPrivilegeEscalation"], false, "{what}");
                assert_eq!(security["capabilities"]["drop"][0], "ALL", "{what}");
            }
            // Each has a disruption budget over its pods.
            let selector = &deployment["spec"]["selector"]["matchLabels"];
            assert!(
                rendered
                    .of_kind("PodDisruptionBudget")
                    .iter()
                    .any(|pdb| &pdb["spec"]["selector"]["matchLabels"] == selector),
                "{overlay}: {name} has a PodDisruptionBudget"
            );
        }
        // Results and ranking scale on load.
        let scaled: BTreeSet<&str> = rendered
            .of_kind("HorizontalPodAutoscaler")
            .iter()
            .map(|hpa| hpa["spec"]["scaleTargetRef"]["name"].as_str().unwrap())
            .collect();
        assert_eq!(
            scaled,
            BTreeSet::from(["catan-ranking", "catan-results"]),
            "{overlay}"
        );
    }
}

#[test]
fn every_service_selects_a_deployment_and_names_its_port() {
    let python = python();
    for overlay in OVERLAYS {
        let rendered = render(&python, overlay);
        let pods: Vec<&Value> = rendered
            .of_kind("Deployment")
            .into_iter()
            .map(|d| &d["spec"]["template"]["metadata"]["labels"])
            .collect();
        let services = rendered.of_kind("Service");
        assert_eq!(services.len(), 5, "{overlay}");
        for service in services {
            let name = name_of(service);
            let selector = service["spec"]["selector"].as_object().unwrap();
            assert!(!selector.is_empty(), "{name}");
            assert!(
                pods.iter()
                    .any(|labels| selector.iter().all(|(k, v)| &labels[k] == v)),
                "{overlay}: {name} selects no Deployment's pods"
            );
            assert_eq!(service["spec"]["ports"][0]["name"], "http", "{name}");
        }
        // The ServiceMonitor scrapes them all.
        let monitor = rendered.named("ServiceMonitor", "catan").unwrap();
        let wanted = monitor["spec"]["selector"]["matchLabels"]
            .as_object()
            .unwrap();
        let scraped = rendered
            .of_kind("Service")
            .iter()
            .filter(|s| wanted.iter().all(|(k, v)| &s["metadata"]["labels"][k] == v))
            .count();
        assert_eq!(
            scraped, 4,
            "{overlay}: the services (the web app serves no /metrics)"
        );
        assert_eq!(monitor["spec"]["endpoints"][0]["path"], "/metrics");
    }
}

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

/// Every environment variable the binary of `crate_dir` (`services/web`) reads: the names the
/// kit's settings read in shared/kit/src/settings/mod.rs (`vars.parse("NAME", ...)`,
/// `self.text("NAME")`, ...) when the crate's binary starts through them, those read with
/// `std::env::var` in the crate and the kit, and `RUST_LOG` (tracing's filter, read from the
/// environment by the kit's telemetry).
fn variables_read(crate_dir: &str) -> BTreeSet<String> {
    let read = Regex::new(r#"(?:vars|self)\s*\.\s*[a-z_]+\(\s*"([A-Z][A-Z0-9_]*)""#).unwrap();
    let env_var = Regex::new(r#"env::var\(\s*"([A-Z][A-Z0-9_]*)""#).unwrap();
    let mut names = BTreeSet::new();
    let main = std::fs::read_to_string(repo().join(crate_dir).join("src/main.rs")).unwrap();
    // The services read the kit's settings (`run_alone`); the web app reads its own few.
    if main.contains("run_alone(") {
        let settings =
            std::fs::read_to_string(repo().join("shared/kit/src/settings/mod.rs")).unwrap();
        names.extend(read.captures_iter(&settings).map(|c| c[1].to_owned()));
    }
    let mut sources = vec![
        repo().join("shared/kit/src"),
        repo().join(crate_dir).join("src"),
    ];
    while let Some(dir) = sources.pop() {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                sources.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let text = std::fs::read_to_string(&path).unwrap();
                names.extend(env_var.captures_iter(&text).map(|c| c[1].to_owned()));
                if text.contains("EnvFilter::try_from_default_env")
                    || text.contains("EnvFilter::from_default_env")
                {
                    names.insert("RUST_LOG".to_owned());
                }
            }
        }
    }
    names
}

/// The crate whose binary a container runs (`/usr/local/bin/catan-web` runs `services/web`).
fn crate_of(container: &Value) -> String {
    let binary = container["command"][0].as_str().unwrap();
    let name = binary
        .strip_prefix("/usr/local/bin/catan-")
        .unwrap_or_else(|| panic!("{binary} is one of the image's binaries"));
    format!("services/{name}")
}

#[test]
fn every_variable_a_manifest_sets_is_one_the_binaries_read() {
    // The collection finds what the READMEs document, so a rename cannot empty it unseen.
    let service = variables_read("services/ranking");
    for known in [
        "DATABASE_URL",
        "PORT",
        "REGISTRATION_URL",
        "CATAN_INTERNAL_KEY",
        "CATAN_PIN_KEY",
        "CATAN_WEBHOOKS_RELAY_MAX_ATTEMPTS",
        "CATAN_FOLLOW_MS",
        "LOG_FORMAT",
        "RUST_LOG",
    ] {
        assert!(service.contains(known), "{known} in {service:?}");
    }
    let web = variables_read("services/web");
    for known in ["HOST", "PORT", "API_URL", "LOG_FORMAT", "RUST_LOG"] {
        assert!(web.contains(known), "{known} in {web:?}");
    }
    assert!(
        !web.contains("DATABASE_URL"),
        "the web app reads no database"
    );
    let python = python();
    for overlay in OVERLAYS {
        let rendered = render(&python, overlay);
        let config_maps: BTreeMap<&str, &Value> = rendered
            .of_kind("ConfigMap")
            .into_iter()
            .map(|c| (name_of(c), c))
            .collect();
        let secrets: BTreeMap<&str, &Value> = rendered
            .of_kind("Secret")
            .into_iter()
            .map(|s| (name_of(s), s))
            .collect();
        let mut referenced_secrets = BTreeSet::new();
        for deployment in rendered.of_kind("Deployment") {
            for container in containers(deployment) {
                let what = format!("{overlay}: {}", name_of(deployment));
                let binary = crate_of(container);
                let read = variables_read(&binary);
                let mut set = Vec::new();
                for env in container["env"].as_array().into_iter().flatten() {
                    set.push(env["name"].as_str().unwrap().to_owned());
                    let secret = &env["valueFrom"]["secretKeyRef"];
                    if secret.is_object() {
                        referenced_secrets.insert((
                            secret["name"].as_str().unwrap().to_owned(),
                            secret["key"].as_str().unwrap().to_owned(),
                        ));
                    }
                }
                for from in container["envFrom"].as_array().into_iter().flatten() {
                    let name = from["configMapRef"]["name"].as_str().unwrap();
                    let config = config_maps
                        .get(name)
                        .unwrap_or_else(|| panic!("{what}: no ConfigMap {name}"));
                    set.extend(config["data"].as_object().unwrap().keys().cloned());
                }
                for name in &set {
                    assert!(
                        read.contains(name),
                        "{what} sets {name}, which {binary} does not read"
                    );
                }
                // The services have a database; the web app only the API.
                let wanted = if binary == "services/web" {
                    "API_URL"
                } else {
                    "DATABASE_URL"
                };
                assert!(set.contains(&wanted.to_owned()), "{what} sets {wanted}");
            }
        }
        // Dev renders every Secret it refers to; production none, and names each in its README.
        let readme = std::fs::read_to_string(repo().join("deploy/README.md")).unwrap();
        for (name, key) in &referenced_secrets {
            match overlay {
                "dev" => {
                    let secret = secrets
                        .get(name.as_str())
                        .unwrap_or_else(|| panic!("dev renders the Secret {name}"));
                    assert!(
                        secret["data"][key].is_string() || secret["stringData"][key].is_string(),
                        "dev: {name} has {key}"
                    );
                }
                _ => {
                    assert!(secrets.is_empty(), "production renders no Secret");
                    let listed = OUT_OF_BAND_SECRETS
                        .iter()
                        .any(|(secret, keys)| secret == name && keys.contains(&key.as_str()));
                    assert!(listed, "production: {name}/{key} is made out of band");
                }
            }
        }
        for (secret, keys) in OUT_OF_BAND_SECRETS {
            assert!(readme.contains(secret), "deploy/README.md names {secret}");
            for key in keys {
                assert!(
                    readme.contains(key),
                    "deploy/README.md names {secret}'s {key}"
                );
            }
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

#[test]
fn the_database_is_a_cloudnativepg_cluster_with_a_synchronous_replica_and_backups() {
    let python = python();
    let production = render(&python, "production");
    let cluster = production.named("Cluster", "catan-db").unwrap();
    assert_eq!(cluster["spec"]["instances"], 3);
    assert_eq!(cluster["spec"]["postgresql"]["synchronous"]["number"], 1);
    assert!(
        cluster["spec"]["backup"]["barmanObjectStore"]["destinationPath"]
            .as_str()
            .is_some_and(|path| path.starts_with("s3://"))
    );
    assert!(
        production
            .named("ScheduledBackup", "catan-db-daily")
            .is_some()
    );
    let pooler = production.named("Pooler", "catan-db-pooler-rw").unwrap();
    assert_eq!(pooler["spec"]["cluster"]["name"], "catan-db");
    assert_eq!(pooler["spec"]["pgbouncer"]["poolMode"], "session");
    // Deny by default: a policy over every pod that allows nothing.
    for overlay in OVERLAYS {
        let rendered = render(&python, overlay);
        let deny = rendered.named("NetworkPolicy", "default-deny").unwrap();
        assert_eq!(deny["spec"]["podSelector"], serde_json::json!({}));
        assert_eq!(
            deny["spec"]["policyTypes"],
            serde_json::json!(["Ingress", "Egress"])
        );
        assert!(deny["spec"]["ingress"].is_null() && deny["spec"]["egress"].is_null());
    }
}
