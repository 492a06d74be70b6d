//! A season's table read against the same one-row reference: `--season-events` classic events of
//! `--season-players` each (fields drawn from a pool of `--season-pool` players), every one of
//! `--rounds` rounds posted, all joined to one federation-wide season scored by table points.

use super::{Bench, Options, compare, load};
use anyhow::{Context, bail};
use catan_api::{CreateEvent, CreateSeason, Event};
use chrono::{Days, NaiveDate};
use futures_util::{StreamExt, TryStreamExt, stream};
use rand::SeedableRng;
use rand::seq::IndexedRandom;
use rand_chacha::ChaCha8Rng;
use serde_json::{Value, json};
use std::collections::HashSet;
use std::time::Instant;
use uuid::Uuid;

/// Events seeded at once.
const EVENTS_AT_ONCE: usize = 4;

pub(super) async fn run(
    bench: &Bench,
    options: &Options,
    players: &mut Vec<Uuid>,
) -> anyhow::Result<Value> {
    let seeding = Instant::now();
    if options.season_players > options.season_pool {
        bail!("--season-players must not exceed --season-pool");
    }
    bench
        .top_up_players(players, options.season_pool.max(players.len()))
        .await?;
    let pool = &players[..options.season_pool];
    let first_day = NaiveDate::from_ymd_opt(2026, 1, 1).context("a date")?;
    let last_day = first_day
        .checked_add_days(Days::new(364))
        .context("a date")?;
    let body: CreateSeason = serde_json::from_value(json!({
        "name": format!("Bench season ({} events)", options.season_events),
        "starts_on": first_day,
        "ends_on": last_day,
        "scoring": { "mode": "table_points" },
    }))?;
    let season = bench.admin.create_season(&body).await?;
    let mut seeded = stream::iter(0..options.season_events)
        .map(|i| {
            let season_id = season.id;
            async move {
                let mut rng = ChaCha8Rng::seed_from_u64(options.seed ^ (i as u64 + 1) << 20);
                let field: Vec<Uuid> = pool
                    .choose_multiple(&mut rng, options.season_players)
                    .copied()
                    .collect();
                let day = first_day
                    .checked_add_days(Days::new(i as u64 % 365))
                    .context("a date")?;
                let event = bench
                    .admin
                    .create_event(&CreateEvent {
                        qualifying_rounds: Some(i64::from(options.rounds)),
                        starts_on: Some(day),
                        // Its draws take the bench's seeds.
                        practice: Some(true),
                        ..CreateEvent::classic(&format!("Bench season event {i:03}"))
                    })
                    .await?;
                bench.enter(&event, &field).await?;
                join(bench, season_id, event.id).await?;
                let mut posted = 0;
                for _ in 0..options.rounds {
                    let round = bench.draw(&event, &mut rng).await?;
                    posted += bench.post_round(&event, &round, &mut rng).await?;
                }
                anyhow::Ok((event, field, posted))
            }
        })
        .buffer_unordered(EVENTS_AT_ONCE);
    let mut events: Vec<Event> = Vec::with_capacity(options.season_events);
    let mut entered = HashSet::new();
    let mut results = 0;
    while let Some((event, field, posted)) = seeded.try_next().await? {
        events.push(event);
        entered.extend(field);
        results += posted;
        if events.len().is_multiple_of(25) {
            eprintln!(
                "read-model: season: {} of {} events played ({:.0} s)",
                events.len(),
                options.season_events,
                seeding.elapsed().as_secs_f64()
            );
        }
    }
    drop(seeded);
    bench.settled().await?;
    let table = bench
        .public
        .season_standings(season.id, None, 1000, 0)
        .await?;
    let expected = entered.len().min(1000);
    if table.rows.len() != expected {
        bail!(
            "the season's table has {} rows, not {expected}",
            table.rows.len()
        );
    }
    eprintln!(
        "read-model: season: {} events of {} players ({} players in all, {results} results) seeded in {:.1} s",
        events.len(),
        options.season_players,
        entered.len(),
        seeding.elapsed().as_secs_f64()
    );
    let base = bench.suite.url();
    let reference = events.first().context("a season event")?;
    let mut targets = vec![(
        "season_standings",
        "GET /v1/seasons/{id}/standings",
        load::Target::get(format!("{base}/v1/seasons/{}/standings", season.id)),
    )];
    // The web app's season page (services/web), rendered from that same first page of the table.
    targets.push((
        "season_web_page",
        "GET /seasons/{id} (web page)  ",
        load::Target::get(format!("{base}/seasons/{}", season.id)),
    ));
    if options.diagnose {
        // Where the page's time goes: the read the web app makes for it (the same page of the
        // table, asked with the ETag it holds: 304 while unchanged), and a visitor's own
        // conditional GET of the page.
        let read = format!(
            "{base}/v1/seasons/{}/standings?limit=100&offset=0",
            season.id
        );
        let table_etag = etag_of(&read).await?;
        targets.push((
            "season_standings_304",
            "  … ?limit=100 If-None-Match (304), the web app's read",
            load::Target::not_modified(read, &table_etag)?,
        ));
        let page = format!("{base}/seasons/{}", season.id);
        let page_etag = etag_of(&page).await?;
        targets.push((
            "season_web_page_304",
            "  … the web page, If-None-Match (304)",
            load::Target::not_modified(page, &page_etag)?,
        ));
        targets.push((
            "season_standings_gzip",
            "  … Accept-Encoding: gzip   ",
            load::Target::get_gzip(format!("{base}/v1/seasons/{}/standings", season.id)),
        ));
        targets.push((
            "season_standings_whole",
            "  … ?limit=1000 (whole table)",
            load::Target::get(format!(
                "{base}/v1/seasons/{}/standings?limit=1000&results=true",
                season.id
            )),
        ));
        targets.push((
            "season_standings_with_results",
            "  … ?results=true           ",
            load::Target::get(format!(
                "{base}/v1/seasons/{}/standings?results=true",
                season.id
            )),
        ));
    }
    let mut report = compare(
        options,
        &format!("{base}/v1/events/{}", reference.id),
        &targets,
    )
    .await?;
    // The web page against the JSON it renders from, run by run (issue 11: at least 0.5).
    let mut page_vs_json: Vec<f64> = report["runs"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|run| {
            let page = run["season_web_page"]["reads_per_second"].as_f64()?;
            let json = run["season_standings"]["reads_per_second"].as_f64()?;
            Some(page / json)
        })
        .collect();
    page_vs_json.sort_by(f64::total_cmp);
    if let Some(median) = page_vs_json.get(page_vs_json.len() / 2) {
        eprintln!("read-model: season web page / its JSON = {median:.3} (target ≥ 0.5)");
        report["web_page_vs_json"] = json!(crate::harness::round3(*median));
    }
    report["season_id"] = json!(season.id);
    report["events"] = json!(events.len());
    report["players_per_event"] = json!(options.season_players);
    report["players"] = json!(entered.len());
    report["results"] = json!(results);
    Ok(report)
}

/// The `ETag` `url` answers with.
async fn etag_of(url: &str) -> anyhow::Result<String> {
    let response = reqwest::get(url).await?;
    response
        .headers()
        .get(reqwest::header::ETAG)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned)
        .with_context(|| format!("{url} answers with an ETag"))
}

/// Joins the event to the season once ranking knows it: until registration's feed has brought a
/// new event, ranking answers 404.
pub(super) async fn join(bench: &Bench, season_id: Uuid, event_id: Uuid) -> anyhow::Result<()> {
    let deadline = Instant::now() + std::time::Duration::from_secs(60);
    loop {
        match bench.admin.join_season(season_id, event_id).await {
            Ok(_) => return Ok(()),
            Err(e) if e.status() == Some(404) && Instant::now() < deadline => {
                tokio::time::sleep(std::time::Duration::from_millis(100)).await;
            }
            Err(e) => return Err(e.into()),
        }
    }
}
