//! The console's round control page (issue 30) against the API read it is built from: a round of
//! `--tables` tables (four players each) is drawn and every table's result posted, a staff
//! session signs in through the web app's form, then `--connections` clients read, in turn,
//! `GET /v1/events/{id}/rounds/1` (the reference: the round's tables and seats, the largest read
//! the page makes) and the page `GET /console/events/{id}/rounds/1` with the session's cookie,
//! `--seconds` each, `--repeats` times. The ratio is the page's reads a second over the API's.

use crate::harness::{self, Bench, round3};
use crate::read_model::load::{self, Target};
use anyhow::{Context, bail};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use reqwest::header::{COOKIE, HeaderValue};
use serde_json::{Value, json};

#[derive(Debug, clap::Args)]
pub struct Options {
    /// Tables of the round (four players each).
    #[arg(long, default_value_t = 250)]
    pub tables: usize,
    #[arg(long, default_value_t = 8)]
    pub connections: usize,
    /// Seconds each measurement lasts.
    #[arg(long, default_value_t = 5)]
    pub seconds: u64,
    /// Measurements of each, in turn.
    #[arg(long, default_value_t = 3)]
    pub repeats: usize,
    #[command(flatten)]
    pub server: harness::DatabaseServer,
}

/// The target: the page is served at least this fraction as fast as the API read.
const TARGET: f64 = 0.3;

pub fn main(options: &Options) -> anyhow::Result<Value> {
    harness::block_on(harness::measured(
        &options.server.database_url,
        async |bench| measure(bench, options).await,
    ))
}

async fn measure(bench: &Bench, options: &Options) -> anyhow::Result<Value> {
    let mut rng = ChaCha8Rng::seed_from_u64(30);
    let mut players = Vec::new();
    bench
        .top_up_players(&mut players, options.tables * 4)
        .await?;
    let event = bench.classic_event("Console round", &players).await?;
    let round = bench.draw(&event, &mut rng).await?;
    if round.tables.len() != options.tables {
        bail!(
            "{} tables drawn, not {}",
            round.tables.len(),
            options.tables
        );
    }
    bench.post_round(&event, &round, &mut rng).await?;
    bench.settled().await?;
    let base = bench.suite.url();
    let cookie = signed_in(&base, &bench.admin_key).await?;
    let api = Target::get(format!("{base}/v1/events/{}/rounds/1", event.id));
    let mut page = Target::get(format!("{base}/console/events/{}/rounds/1", event.id));
    page.headers.insert(
        COOKIE,
        HeaderValue::from_str(&cookie).context("the cookie")?,
    );
    let mut runs = Vec::new();
    let mut ratios = Vec::new();
    for repeat in 0..options.repeats {
        let reference = load::run(&api, options.connections, options.seconds).await?;
        let served = load::run(&page, options.connections, options.seconds).await?;
        let ratio = served.per_second() / reference.per_second();
        eprintln!(
            "console-page: {repeat}: API {:.1}/s, page {:.1}/s, ratio {ratio:.3}",
            reference.per_second(),
            served.per_second()
        );
        ratios.push(ratio);
        runs.push(json!({"api_round": reference.json(), "console_page": served.json(), "ratio": round3(ratio)}));
    }
    let median = harness::median(&mut ratios);
    Ok(json!({
        "benchmark": "console-page",
        "tables": options.tables,
        "connections": options.connections,
        "seconds": options.seconds,
        "runs": runs,
        "median_ratio": round3(median),
        "target_ratio": TARGET,
        "met": median >= TARGET,
        "load_average": harness::load_average(),
    }))
}

/// Signs in through the web app's form, as a browser does; the session cookie (`name=value`).
async fn signed_in(base: &str, api_key: &str) -> anyhow::Result<String> {
    let http = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()?;
    let form = http.get(format!("{base}/sign-in")).send().await?;
    let cookie = session_cookie(&form).context("the sign-in page's session")?;
    let html = form.text().await?;
    let csrf = html
        .split("name=\"csrf\" value=\"")
        .nth(1)
        .and_then(|rest| rest.split('"').next())
        .context("the sign-in form's CSRF token")?
        .to_owned();
    let body = format!("csrf={csrf}&api_key={}&next=", api_key.replace('+', "%2B"));
    let signed = http
        .post(format!("{base}/sign-in"))
        .header(COOKIE, cookie)
        .header("content-type", "application/x-www-form-urlencoded")
        .body(body)
        .send()
        .await?;
    if signed.status() != reqwest::StatusCode::SEE_OTHER {
        bail!("signing in answered {}", signed.status());
    }
    session_cookie(&signed).context("the signed-in session")
}

fn session_cookie(response: &reqwest::Response) -> Option<String> {
    let set = response.headers().get("set-cookie")?.to_str().ok()?;
    Some(set.split(';').next()?.to_owned())
}
