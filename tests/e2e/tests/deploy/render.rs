//! What the deploy tests share: the manifests rendered by `kubectl kustomize` for each overlay,
//! and ways to read the rendered objects.

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The Kubernetes version the objects are validated for (deploy/README.md names it).
pub(crate) const KUBERNETES_VERSION: &str = "1.33.0";

pub(crate) const OVERLAYS: [&str; 2] = ["dev", "production"];

/// The Secrets production expects to be made out of band, with their keys (deploy/README.md).
pub(crate) const OUT_OF_BAND_SECRETS: [(&str, &[&str]); 3] = [
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

pub(crate) fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

pub(crate) fn run(command: &mut Command, stdin: Option<&str>) -> String {
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
pub(crate) fn python() -> String {
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
pub(crate) struct Rendered {
    pub(crate) yaml: String,
    pub(crate) objects: Vec<Value>,
}

pub(crate) fn render(python: &str, overlay: &'static str) -> Rendered {
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
    pub(crate) fn of_kind(&self, kind: &str) -> Vec<&Value> {
        self.objects.iter().filter(|o| o["kind"] == kind).collect()
    }

    pub(crate) fn named(&self, kind: &str, name: &str) -> Option<&Value> {
        self.of_kind(kind)
            .into_iter()
            .find(|o| o["metadata"]["name"] == name)
    }
}

/// Whether an object is one of Kubernetes' own (the validator has no schema for a CRD's).
pub(crate) fn built_in(object: &Value) -> bool {
    let api_version = object["apiVersion"].as_str().unwrap();
    match api_version.split_once('/') {
        None => true,
        Some((group, _)) => {
            group.ends_with(".k8s.io")
                || ["apps", "policy", "autoscaling", "batch"].contains(&group)
        }
    }
}

pub(crate) fn name_of(object: &Value) -> &str {
    object["metadata"]["name"].as_str().unwrap()
}

pub(crate) fn containers(deployment: &Value) -> &Vec<Value> {
    deployment["spec"]["template"]["spec"]["containers"]
        .as_array()
        .unwrap()
}
