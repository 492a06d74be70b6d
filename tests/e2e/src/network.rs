//! The network cut as DevTools' "Offline" cuts it, for a page and for the service workers behind
//! it. Chromium applies `Network.emulateNetworkConditions` sent to a page to the page's own
//! requests only: a service worker's `fetch` still reaches the server. So the cut is also sent to
//! every running service worker, through a session attached to it from the page's DevTools
//! session (chromedriver's `goog/cdp/execute` speaks to the page alone). Such a session belongs
//! to the tab it was attached from: closing the tab ends it, and with it that tab's cut of the
//! workers.

use crate::browser::Browser;
use serde_json::{Value, json};

/// The network of a tab and of the service workers, cut until [`Offline::restore`].
#[must_use = "the network stays cut until restored"]
pub struct Offline {
    /// The sessions attached to the service workers, which hold their cut.
    workers: Vec<String>,
}

fn conditions(offline: bool) -> Value {
    json!({"offline": offline, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1})
}

impl Offline {
    /// Cuts the network of the browser's current tab and of every running service worker, which
    /// there must be (else a page it serves would still reach the network).
    pub async fn cut(browser: &Browser) -> Offline {
        browser.offline(true).await;
        let targets = browser.cdp("Target.getTargets", json!({})).await;
        let workers: Vec<&str> = targets["targetInfos"]
            .as_array()
            .expect("targets")
            .iter()
            .filter(|t| t["type"] == "service_worker")
            .filter_map(|t| t["targetId"].as_str())
            .collect();
        assert!(!workers.is_empty(), "no service worker runs: {targets}");
        let mut sessions = Vec::new();
        for target in workers {
            let attached = browser
                .cdp(
                    "Target.attachToTarget",
                    json!({"targetId": target, "flatten": false}),
                )
                .await;
            let session = attached["sessionId"]
                .as_str()
                .expect("a session")
                .to_owned();
            send_to_worker(browser, &session, "Network.enable", json!({})).await;
            send_to_worker(
                browser,
                &session,
                "Network.emulateNetworkConditions",
                conditions(true),
            )
            .await;
            sessions.push(session);
        }
        Offline { workers: sessions }
    }

    /// Gives the network back to the tab (the current one, which cut it) and to the workers.
    pub async fn restore(self, browser: &Browser) {
        for session in &self.workers {
            send_to_worker(
                browser,
                session,
                "Network.emulateNetworkConditions",
                conditions(false),
            )
            .await;
            browser
                .cdp("Target.detachFromTarget", json!({"sessionId": session}))
                .await;
        }
        browser.offline(false).await;
    }

    /// The cut of a tab that was closed: its sessions, and the workers' cut they held, ended
    /// with it.
    pub fn closed_with_its_tab(self) {}
}

/// Sends a DevTools command to a worker's session. Its answer comes back as an event
/// chromedriver does not pass on: a refused command shows in what the test then sees.
async fn send_to_worker(browser: &Browser, session: &str, method: &str, params: Value) {
    let message = json!({"id": 1, "method": method, "params": params}).to_string();
    browser
        .cdp(
            "Target.sendMessageToTarget",
            json!({"sessionId": session, "message": message}),
        )
        .await;
}
