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

#[path = "deploy/render.rs"]
#[allow(
    dead_code,
    reason = "each deploy test file uses its part of the shared reading"
)]
mod render;

use regex::Regex;
use render::*;
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::Command;

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

#[test]
fn the_public_address_every_link_starts_with_is_the_ingress_host() {
    let python = python();
    for overlay in OVERLAYS {
        let rendered = render(&python, overlay);
        let config = rendered.named("ConfigMap", "catan-config").unwrap();
        let public = config["data"]["CATAN_PUBLIC_URL"].as_str().unwrap();
        for ingress in rendered.of_kind("Ingress") {
            let host = ingress["spec"]["rules"][0]["host"].as_str().unwrap();
            let tls = ingress["spec"]["tls"]
                .as_array()
                .into_iter()
                .flatten()
                .any(|tls| tls["hosts"].as_array().unwrap().iter().any(|h| h == host));
            let scheme = if tls { "https" } else { "http" };
            assert_eq!(
                public,
                format!("{scheme}://{host}"),
                "{overlay}: {}",
                name_of(ingress)
            );
        }
        // The services read it from the ConfigMap; the web app, which does not, is given it.
        for deployment in rendered.of_kind("Deployment") {
            for container in containers(deployment) {
                let from_config = container["envFrom"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .any(|from| from["configMapRef"]["name"] == "catan-config");
                let named = container["env"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .any(|env| {
                        env["name"] == "CATAN_PUBLIC_URL"
                            && env["valueFrom"]["configMapKeyRef"]["name"] == "catan-config"
                    });
                assert!(
                    from_config || named,
                    "{overlay}: {} is given CATAN_PUBLIC_URL",
                    name_of(deployment)
                );
            }
        }
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
