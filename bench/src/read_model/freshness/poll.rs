//! The polling side of the freshness run: a read polled with `If-None-Match` until it includes
//! what was posted.

use super::*;

/// Polls `url` every `every` until the target it is given is reached or given up on.
pub(super) async fn poll(
    client: reqwest::Client,
    url: String,
    every: Duration,
    target: watch::Receiver<Target>,
) -> anyhow::Result<Polls> {
    let mut etag: Option<String> = None;
    let mut polls = Polls {
        seen: Vec::new(),
        polls: 0,
        errors: 0,
    };
    loop {
        let mut request = client.get(&url);
        if let Some(etag) = &etag {
            request = request.header(IF_NONE_MATCH, etag);
        }
        polls.polls += 1;
        match request.send().await {
            Ok(response) if response.status() == StatusCode::OK => {
                etag = response
                    .headers()
                    .get(ETAG)
                    .and_then(|v| v.to_str().ok())
                    .map(str::to_owned);
                let body = response.bytes().await?;
                let at = Instant::now();
                let head: Head = serde_json::from_slice(&body)?;
                polls.seen.push(Seen {
                    at,
                    as_of: head.as_of,
                    results_counted: head.results_counted,
                });
            }
            Ok(response) if response.status() == StatusCode::NOT_MODIFIED => {}
            _ => polls.errors += 1,
        }
        if let Some((last, give_up)) = *target.borrow() {
            let reached = polls.seen.last().is_some_and(|s| s.as_of >= last);
            if reached || Instant::now() > give_up {
                return Ok(polls);
            }
        }
        tokio::time::sleep(every).await;
    }
}
