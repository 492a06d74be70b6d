//! axe-core, from the npm registry (`tests/e2e/axe/package-lock.json`, installed by `npm ci` the
//! first time a test asks for it), injected into the page under test from this checkout: no CDN.

use crate::browser::Browser;
use std::path::PathBuf;
use std::process::Command;
use std::sync::OnceLock;

fn folder() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("axe")
}

/// axe-core's script, installed first if it is not yet.
pub fn source() -> &'static str {
    static SOURCE: OnceLock<String> = OnceLock::new();
    SOURCE.get_or_init(|| {
        let script = folder().join("node_modules/axe-core/axe.min.js");
        if !script.exists() {
            let installed = Command::new("npm")
                .args(["ci", "--no-audit", "--no-fund", "--silent"])
                .current_dir(folder())
                .status()
                .expect("npm runs (Debian: apt-get install npm)");
            assert!(installed.success(), "npm ci in tests/e2e/axe: {installed}");
        }
        std::fs::read_to_string(&script).expect("axe-core's axe.min.js")
    })
}

impl Browser {
    /// The serious and critical violations axe-core finds in the page as it is now, one line
    /// each (the rule and the elements).
    pub async fn accessibility_violations(&self) -> Vec<String> {
        let loaded = self
            .js("return typeof window.axe !== 'undefined';")
            .await
            .as_bool()
            .unwrap_or(false);
        if !loaded {
            self.js(&format!("{}\nreturn true;", source())).await;
        }
        let found = self
            .js_async(
                "const done = arguments[arguments.length - 1];
                 axe.run(document, {resultTypes: ['violations']}).then(r => done(
                   r.violations.filter(v => v.impact === 'serious' || v.impact === 'critical')
                     .map(v => v.id + ' (' + v.impact + '): ' +
                          v.nodes.map(n => n.target.join(' ')).join(', '))));",
            )
            .await;
        serde_json::from_value(found).unwrap_or_default()
    }
}
