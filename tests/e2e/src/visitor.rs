//! A browser without a browser, for the console's tests over plain HTTP: it keeps the session
//! cookie, follows no redirect, and reads a form's hidden fields.

use crate::TestSuite;
use reqwest::StatusCode;
use reqwest::redirect::Policy;

/// A browser without a browser: keeps the session cookie, follows no redirect.
pub struct Visitor {
    http: reqwest::Client,
    base: String,
    /// The session cookie (`name=value`), once the web app set one.
    pub cookie: Option<String>,
    /// Sent with every request too (see [`Visitor::with_header`]).
    headers: Vec<(String, String)>,
}

/// What the web app answered.
pub struct Page {
    pub status: StatusCode,
    pub location: Option<String>,
    pub set_cookie: Option<String>,
    pub body: String,
}

impl Page {
    /// The value of the hidden field `name` of the page's first form that has one.
    pub fn hidden(&self, name: &str) -> String {
        let pattern = format!("name=\"{name}\" value=\"");
        let start = self
            .body
            .find(&pattern)
            .unwrap_or_else(|| panic!("no {name} in {}", self.body))
            + pattern.len();
        let value = self.body[start..].split('"').next().unwrap();
        value.replace("&quot;", "\"").replace("&amp;", "&")
    }
}

impl Visitor {
    pub fn new(ts: &TestSuite) -> Visitor {
        Visitor {
            http: reqwest::Client::builder()
                .redirect(Policy::none())
                .build()
                .unwrap(),
            base: ts.suite.url(),
            cookie: None,
            headers: Vec::new(),
        }
    }

    /// The same visitor, sending the header `name: value` with every request (a proxy's word
    /// for the visitor's address, say).
    pub fn with_header(mut self, name: &str, value: &str) -> Visitor {
        self.headers.push((name.to_owned(), value.to_owned()));
        self
    }

    async fn answer(&mut self, mut request: reqwest::RequestBuilder) -> Page {
        for (name, value) in &self.headers {
            request = request.header(name, value);
        }
        let request = match &self.cookie {
            Some(cookie) => request.header("cookie", cookie),
            None => request,
        };
        let response = request.send().await.unwrap();
        let header = |name: &str| {
            response
                .headers()
                .get(name)
                .map(|v| v.to_str().unwrap().to_owned())
        };
        let (location, set_cookie) = (header("location"), header("set-cookie"));
        if let Some(set) = &set_cookie {
            let pair = set.split(';').next().unwrap();
            self.cookie = (!pair.ends_with('=')).then(|| pair.to_owned());
        }
        Page {
            status: response.status(),
            location,
            set_cookie,
            body: response.text().await.unwrap(),
        }
    }

    pub async fn get(&mut self, path: &str) -> Page {
        let request = self.http.get(format!("{}{path}", self.base));
        self.answer(request).await
    }

    pub async fn post(&mut self, path: &str, fields: &[(&str, &str)]) -> Page {
        let request = self
            .http
            .post(format!("{}{path}", self.base))
            .header("content-type", "application/x-www-form-urlencoded")
            .body(serde_urlencoded::to_string(fields).unwrap());
        self.answer(request).await
    }

    /// Signs in with `key` through the form; answers the console's first page.
    pub async fn sign_in(&mut self, key: &str) -> Page {
        let form = self.get("/sign-in").await;
        let csrf = form.hidden("csrf");
        let signed_in = self
            .post(
                "/sign-in",
                &[("csrf", &csrf), ("api_key", key), ("next", "")],
            )
            .await;
        assert_eq!(
            signed_in.status,
            StatusCode::SEE_OTHER,
            "{}",
            signed_in.body
        );
        signed_in
    }
}

/// Sends `attempt` until the web app answers 429, at most `most` times: the first answer is a
/// refusal (401) said as `refused`, the last a wait (429) said as `wait`, and neither ever in the
/// other's words.
pub async fn refused_until_told_to_wait(
    most: usize,
    refused: &str,
    wait: &str,
    mut attempt: impl AsyncFnMut() -> Page,
) {
    let mut answers = Vec::new();
    while answers.len() < most && answers.last() != Some(&StatusCode::TOO_MANY_REQUESTS) {
        let answer = attempt().await;
        let (said, not_said) = if answer.status == StatusCode::TOO_MANY_REQUESTS {
            (wait, refused)
        } else {
            (refused, wait)
        };
        assert!(
            answer.body.contains(said) && !answer.body.contains(not_said),
            "{}: {}",
            answer.status,
            answer.body
        );
        answers.push(answer.status);
    }
    assert_eq!(answers[0], StatusCode::UNAUTHORIZED);
    assert_eq!(
        answers.last(),
        Some(&StatusCode::TOO_MANY_REQUESTS),
        "{answers:?}"
    );
}
