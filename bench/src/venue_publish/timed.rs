//! The timed publish: `catan_suite::venue::publish::publish`'s three steps (export from the
//! venue's suite, signing, sending) each timed, with the time of each part's dry run and apply as
//! `send` reports them; each part's dry run again once the federation has it all; and a second,
//! whole publish, which must add nothing.

use super::setup::{VenueSide, say};
use crate::harness::round1;
use anyhow::{Context, bail};
use catan_api::Position;
use catan_suite::venue::bundle::{Part, SignedBundle};
use catan_suite::venue::keep::VenueFile;
use catan_suite::venue::publish::{Step, export, publish, send, send_part};
use serde_json::{Value, json};
use std::time::Instant;
use uuid::Uuid;

const PARTS: [Part; 3] = [Part::Registration, Part::Rounds, Part::Results];

/// What the first publish did, and when it ended.
pub struct FirstPublish {
    pub report: Value,
    /// The position of the applies' writes at the federation (the results part's
    /// `Catan-Position` merged with the others').
    pub position: Position,
    pub ended: Instant,
    /// The bundle as it was sent.
    pub signed: SignedBundle,
}

fn ms(since: Instant) -> f64 {
    round1(since.elapsed().as_secs_f64() * 1000.0)
}

/// What the export spends besides reading: the venue's suite started and stopped again, alone,
/// over its database (milliseconds to start, to stop).
pub async fn suite_start_and_stop(venue: &VenueSide) -> anyhow::Result<Value> {
    let starting = Instant::now();
    let suite = catan_suite::Suite::start(venue.suite().settings, "127.0.0.1:0").await?;
    let start_ms = ms(starting);
    let stopping = Instant::now();
    suite.stop().await;
    Ok(json!({ "start_ms": start_ms, "stop_ms": ms(stopping) }))
}

/// Publishes the event from the venue's database to the federation its venue file names, as
/// `publish` does, each of its steps timed.
pub async fn publish_in_steps(event_id: Uuid, venue: &VenueSide) -> anyhow::Result<FirstPublish> {
    let file = VenueFile::read(&venue.dir, event_id)?.context("the venue file of the pull")?;
    let started = Instant::now();
    let bundle = export(event_id, venue.suite(), &say).await?;
    let export_ms = ms(started);
    let bytes = [
        serde_json::to_vec(&bundle.registration)?.len(),
        serde_json::to_vec(&bundle.rounds)?.len(),
        serde_json::to_vec(&bundle.results)?.len(),
    ];
    let signing = Instant::now();
    let signed = bundle.signed(&file.signing_key()?)?;
    let sign_ms = ms(signing);
    let federation = catan_suite::venue::publish::publishing_client(&file.federation);
    let published = send(&federation, &signed, &say).await?;
    let ended = Instant::now();
    // The federation had none of the rounds and results: an answer that adds nothing is a
    // retry's, after a first try that timed out on the client and was written all the same.
    for counted in [&published.rounds, &published.results] {
        if !counted.adds() {
            bail!(
                "the first publish's {} part answered that it added nothing: a retry's answer \
                 after the client's timeout?",
                counted.part.name()
            );
        }
    }
    let (dry_runs, applies): (Vec<&Step>, Vec<&Step>) =
        published.steps.iter().partition(|step| step.dry_run);
    let figures = |steps: &[&Step]| -> Vec<Value> {
        steps
            .iter()
            .zip(bytes)
            .map(|(step, bytes)| {
                json!({
                    "part": step.part.name(),
                    "ms": round1(step.took.as_secs_f64() * 1000.0),
                    "body_bytes": bytes,
                    "said": step.said,
                })
            })
            .collect()
    };
    let total_ms =
        |steps: &[&Step]| round1(steps.iter().map(|s| s.took.as_secs_f64()).sum::<f64>() * 1000.0);
    let report = json!({
        "export_ms": export_ms,
        "sign_ms": sign_ms,
        "dry_runs_ms": total_ms(&dry_runs),
        "dry_runs": figures(&dry_runs),
        "applies_ms": total_ms(&applies),
        "applies": figures(&applies),
        "body_bytes": bytes.iter().sum::<usize>(),
        "publish_ms": round1((ended - started).as_secs_f64() * 1000.0),
    });
    Ok(FirstPublish {
        report,
        position: federation.position(),
        ended,
        signed,
    })
}

/// Each part's dry run once the federation has the whole event: what checking a part costs
/// (reading it, the rules, comparing with what is there) without writing, in milliseconds.
pub async fn dry_runs_after(federation_url: &str, signed: &SignedBundle) -> anyhow::Result<Value> {
    let federation = catan_suite::venue::publish::publishing_client(federation_url);
    let mut figures = serde_json::Map::new();
    for part in PARTS {
        let sent = Instant::now();
        match send_part(&federation, signed, part, true).await? {
            Ok(counted) if !counted.adds() => {}
            Ok(counted) => bail!("after the publish, a dry run would add: {}", counted.line()),
            Err(problem) => bail!("after the publish, a dry run was refused: {problem:?}"),
        }
        figures.insert(format!("{}_ms", part.name()), json!(ms(sent)));
    }
    Ok(Value::Object(figures))
}

/// The whole publish run again (`publish` itself): it must add nothing.
pub async fn publish_again(event_id: Uuid, venue: &VenueSide) -> anyhow::Result<Value> {
    let started = Instant::now();
    let published = publish(event_id, venue.suite(), &say).await?;
    let took = ms(started);
    let parts = [
        &published.registration,
        &published.rounds,
        &published.results,
    ];
    if let Some(adds) = parts.iter().find(|part| part.adds()) {
        bail!("publishing again added: {}", adds.line());
    }
    Ok(json!({
        "publish_ms": took,
        "added": 0,
        "unchanged": parts.iter().map(|part| part.totals().1).sum::<u32>(),
    }))
}
