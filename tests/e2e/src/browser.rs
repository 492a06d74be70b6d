//! Headless Chromium driven over WebDriver by chromedriver (Debian's `chromium` and
//! `chromium-driver`; `.ci/run` installs them), for the tests that use the web app as a person
//! would; and poppler's readers of the PDFs it prints.

use crate::eventually;
use base64::Engine;
use reqwest::Method;
use serde_json::{Value, json};
use std::process::{Child, Command, Stdio};
use uuid::Uuid;

/// A chromedriver of its own, ended with the test.
pub struct Driver {
    child: Child,
    url: String,
    http: reqwest::Client,
}

impl Drop for Driver {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// One browser window.
pub struct Browser {
    session: String,
    driver: Driver,
}

const ELEMENT: &str = "element-6066-11e4-a52e-4f735466cecf";

impl Driver {
    pub async fn start() -> Driver {
        let port = {
            let probe = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
            probe.local_addr().unwrap().port()
        };
        let child = Command::new("chromedriver")
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect(
                "chromedriver runs (Debian: apt-get install chromium chromium-driver; .ci/run does)",
            );
        let driver = Driver {
            child,
            url: format!("http://127.0.0.1:{port}"),
            http: reqwest::Client::new(),
        };
        eventually(20, "chromedriver to answer", async || {
            let status = driver
                .http
                .get(format!("{}/status", driver.url))
                .send()
                .await;
            let body: Value = status.ok()?.json().await.ok()?;
            body["value"]["ready"].as_bool().filter(|r| *r)
        })
        .await;
        driver
    }
}

impl Browser {
    pub async fn open() -> Browser {
        let driver = Driver::start().await;
        let capabilities = json!({"capabilities": {"alwaysMatch": {
            "browserName": "chrome",
            "pageLoadStrategy": "normal",
            "goog:chromeOptions": {
                "binary": chromium(),
                "args": ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage",
                         "--disable-gpu", "--window-size=1280,900", "--hide-scrollbars",
                         "--lang=en-US"],
            }
        }}});
        let answer: Value = driver
            .http
            .post(format!("{}/session", driver.url))
            .json(&capabilities)
            .send()
            .await
            .expect("new session")
            .json()
            .await
            .expect("session answer");
        let session = answer["value"]["sessionId"]
            .as_str()
            .unwrap_or_else(|| panic!("a session: {answer}"))
            .to_string();
        let browser = Browser { session, driver };
        // Before any page's own script, on every page: the page's content security policy
        // cannot stop a script the browser itself adds, so each violation it reports is kept.
        browser
            .cdp(
                "Page.addScriptToEvaluateOnNewDocument",
                json!({"source": "window.__catan_csp_violations = [];
                    document.addEventListener('securitypolicyviolation', e =>
                      window.__catan_csp_violations.push(
                        e.violatedDirective + ' blocked ' + (e.blockedURI || 'inline')));"}),
            )
            .await;
        browser
    }

    /// What the page's content security policy refused since it loaded, one line each.
    pub async fn csp_violations(&self) -> Vec<String> {
        let found = self.js("return window.__catan_csp_violations || [];").await;
        serde_json::from_value(found).unwrap_or_default()
    }

    pub async fn call(&self, method: Method, path: &str, body: Option<Value>) -> Value {
        let url = format!("{}/session/{}{path}", self.driver.url, self.session);
        let mut request = self.driver.http.request(method, url);
        if let Some(body) = body {
            request = request.json(&body);
        }
        let answer: Value = request
            .send()
            .await
            .expect("webdriver")
            .json()
            .await
            .expect("webdriver answer");
        assert!(
            answer["value"].get("error").is_none(),
            "webdriver {path}: {answer}"
        );
        answer["value"].clone()
    }

    pub async fn go(&self, url: &str) {
        self.call(Method::POST, "/url", Some(json!({"url": url})))
            .await;
    }

    /// Runs `script` (a function body) in the page and answers what it returns.
    pub async fn js(&self, script: &str) -> Value {
        self.call(
            Method::POST,
            "/execute/sync",
            Some(json!({"script": script, "args": []})),
        )
        .await
    }

    /// Runs `script` (a function body whose last argument is the callback it answers through)
    /// and answers what it hands the callback.
    pub async fn js_async(&self, script: &str) -> Value {
        self.call(
            Method::POST,
            "/execute/async",
            Some(json!({"script": script, "args": []})),
        )
        .await
    }

    /// Sends the DevTools protocol command `cmd` (chromedriver's `goog/cdp/execute`).
    pub async fn cdp(&self, cmd: &str, params: Value) -> Value {
        self.call(
            Method::POST,
            "/goog/cdp/execute",
            Some(json!({"cmd": cmd, "params": params})),
        )
        .await
    }

    /// Cuts the page's network (`true`) or gives it back, as DevTools' "Offline" does: requests
    /// fail and open connections drop.
    pub async fn offline(&self, offline: bool) {
        self.cdp("Network.enable", json!({})).await;
        self.cdp(
            "Network.emulateNetworkConditions",
            json!({"offline": offline, "latency": 0,
                   "downloadThroughput": -1, "uploadThroughput": -1}),
        )
        .await;
    }

    pub async fn element(&self, css: &str) -> String {
        let found = self
            .call(
                Method::POST,
                "/element",
                Some(json!({"using": "css selector", "value": css})),
            )
            .await;
        match found[ELEMENT].as_str() {
            Some(id) => id.to_string(),
            None => {
                let page = self.js("return document.documentElement.outerHTML;").await;
                panic!("no element {css}: {found} in {page}")
            }
        }
    }

    pub async fn type_into(&self, css: &str, text: &str) {
        let element = self.element(css).await;
        self.call(
            Method::POST,
            &format!("/element/{element}/value"),
            Some(json!({"text": text})),
        )
        .await;
    }

    pub async fn click(&self, css: &str) {
        let element = self.element(css).await;
        self.call(
            Method::POST,
            &format!("/element/{element}/click"),
            Some(json!({})),
        )
        .await;
    }

    /// Clicks `css` (a form's button, a link) and waits until the page it leads to has loaded:
    /// a click answers as soon as the browser took it, which may be before the next page is in.
    pub async fn click_to_next_page(&self, css: &str) {
        self.js("window.__catan_previous_page = true;").await;
        self.click(css).await;
        eventually(20, "the next page to load", async || {
            let loaded = self
                .js("return window.__catan_previous_page === undefined \
                     && document.readyState === 'complete';")
                .await;
            loaded.as_bool().filter(|l| *l)
        })
        .await;
    }

    /// The texts of every element `css` selects.
    pub async fn texts(&self, css: &str) -> Vec<String> {
        let script = format!(
            "return Array.from(document.querySelectorAll({})).map(e => e.textContent.trim());",
            serde_json::to_string(css).unwrap()
        );
        serde_json::from_value(self.js(&script).await).unwrap()
    }

    pub async fn resize(&self, width: u32, height: u32) {
        self.call(
            Method::POST,
            "/window/rect",
            Some(json!({"width": width, "height": height})),
        )
        .await;
    }

    pub async fn screenshot(&self) -> Vec<u8> {
        let png = self.call(Method::GET, "/screenshot", None).await;
        base64::engine::general_purpose::STANDARD
            .decode(png.as_str().unwrap())
            .unwrap()
    }

    /// The page printed to PDF on A4.
    pub async fn print_a4(&self) -> Vec<u8> {
        let pdf = self
            .call(
                Method::POST,
                "/print",
                Some(json!({"page": {"width": 21.0, "height": 29.7}, "background": true})),
            )
            .await;
        base64::engine::general_purpose::STANDARD
            .decode(pdf.as_str().unwrap())
            .unwrap()
    }

    pub async fn close(self) {
        let _ = self
            .driver
            .http
            .delete(format!("{}/session/{}", self.driver.url, self.session))
            .send()
            .await;
    }
}

pub fn chromium() -> &'static str {
    ["/usr/bin/chromium", "/usr/bin/chromium-browser"]
        .into_iter()
        .find(|p| std::path::Path::new(p).exists())
        .unwrap_or("/usr/bin/chromium")
}

/// The pages of a PDF, as poppler's `pdfinfo` counts them.
pub fn pdf_pages(pdf: &[u8]) -> usize {
    let path = std::env::temp_dir().join(format!("catan-sheets-{}.pdf", Uuid::new_v4()));
    std::fs::write(&path, pdf).unwrap();
    let out = Command::new("pdfinfo")
        .arg(&path)
        .output()
        .expect("pdfinfo runs (Debian: apt-get install poppler-utils; .ci/run does)");
    let _ = std::fs::remove_file(&path);
    let info = String::from_utf8_lossy(&out.stdout);
    info.lines()
        .find_map(|l| l.strip_prefix("Pages:"))
        .and_then(|n| n.trim().parse().ok())
        .unwrap_or_else(|| panic!("pdfinfo says no page count: {info}"))
}

/// Each page's text of a PDF, as poppler's `pdftotext` reads it.
pub fn pdf_page_texts(pdf: &[u8]) -> Vec<String> {
    let path = std::env::temp_dir().join(format!("catan-sheets-{}.pdf", Uuid::new_v4()));
    std::fs::write(&path, pdf).unwrap();
    let out = Command::new("pdftotext")
        .arg(&path)
        .arg("-")
        .output()
        .expect("pdftotext runs (Debian: apt-get install poppler-utils; .ci/run does)");
    let _ = std::fs::remove_file(&path);
    let text = String::from_utf8_lossy(&out.stdout);
    // Pages end with a form feed.
    let mut pages: Vec<String> = text.split('\u{c}').map(str::to_owned).collect();
    if pages.last().is_some_and(|p| p.trim().is_empty()) {
        pages.pop();
    }
    pages
}
