//! `catan-suite venue publish`: sends an event the venue ran back to the federation that checked
//! it out, in three parts signed with the checkout's key: its registration (new players, entries),
//! its rounds, its results with their whole history. Every part is first sent as a dry run
//! where the federation can judge it before the earlier parts are in; if any is refused, every
//! fault is said and nothing is applied. Then the parts are applied in order, each one
//! transaction that adds only what the federation lacks, so that a publish cut off half-way
//! completes exactly once when it is run again.

use super::bundle::{
    Bundle, Counted, Part, SignedBundle, Verdict, awaits_earlier_parts, faults, verdict,
};
use super::federation;
use super::keep::VenueFile;
use super::pull::VenueSuite;
use crate::Suite;
use anyhow::{Context, bail};
use catan_api::{ApiClient, ClientError, ClientResult, Problem, RetryPolicy, VenueCopy};
use catan_kit::Settings;
use catan_kit::venue_signature::VENUE_SIGNATURE_HEADER;
use clap::Args;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};
use uuid::Uuid;

#[derive(Args)]
pub struct PublishArgs {
    /// The event's id (the only event the venue pulled when absent).
    #[arg(long)]
    pub event: Option<Uuid>,
    /// Where the venue keeps its files (see `venue pull`).
    #[arg(long, env = "CATAN_VENUE_DIR", default_value = ".catan-venue")]
    pub venue_dir: PathBuf,
}

/// What each part did at the federation, and each request the publish sent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Published {
    pub registration: Counted,
    pub rounds: Counted,
    pub results: Counted,
    /// In the order they were sent: the three dry runs, then the three applies.
    pub steps: Vec<Step>,
}

/// One part sent to the federation: how long its answer took and what it said.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Step {
    pub part: Part,
    pub dry_run: bool,
    pub took: Duration,
    pub said: String,
}

const PARTS: [Part; 3] = [Part::Registration, Part::Rounds, Part::Results];

/// Publishes `event_id`, pulled into `venue` before, to the federation its venue file names,
/// saying each step.
pub async fn publish(
    event_id: Uuid,
    venue: VenueSuite,
    say: &dyn Fn(String),
) -> anyhow::Result<Published> {
    let file = VenueFile::read(&venue.dir, event_id)?.with_context(|| {
        format!(
            "{} is missing: the event was not pulled into this venue",
            VenueFile::path(&venue.dir, event_id).display()
        )
    })?;
    let bundle = export(event_id, venue, say).await?;
    let signed = bundle.signed(&file.signing_key()?)?;
    say(format!(
        "Signed with the key of the checkout to \"{}\"",
        file.venue
    ));
    send(&publishing_client(&file.federation), &signed, say).await
}

/// A client for a publish's large parts: a part is one transaction of the whole event, which
/// takes seconds for a large one (8.5 s for a 2,000-player event of 15 rounds' results), and a
/// try given up on while the federation still commits it would be answered "unchanged" on the
/// retry, hiding what was added. So it waits up to five minutes before it tries again.
pub fn publishing_client(url: &str) -> ApiClient {
    ApiClient::with_policy(
        url,
        RetryPolicy {
            timeout: std::time::Duration::from_secs(300),
            ..RetryPolicy::default()
        },
    )
}

/// Starts the venue's suite, reads the event's three parts from it with its admin rights, and
/// stops it.
pub async fn export(
    event_id: Uuid,
    venue: VenueSuite,
    say: &dyn Fn(String),
) -> anyhow::Result<Bundle> {
    let suite = Suite::start(venue.settings, "127.0.0.1:0")
        .await
        .context("starting the venue's suite")?;
    say(format!("The venue's suite started on {}", suite.url()));
    let local = publishing_client(&suite.url());
    let read = async {
        let token = local.token(&venue.admin_key).await?.access_token;
        read_bundle(&local.with_token(token), event_id).await
    }
    .await;
    suite.stop().await;
    let bundle = read.context("reading the event from the venue's suite")?;
    say(format!(
        "Read from the venue's suite: {} entries, {} players, {} rounds, {} tables with results; the suite stopped",
        bundle.registration.entries.len(),
        bundle.registration.players.len(),
        bundle.rounds.rounds.len(),
        bundle.results.tables.len()
    ));
    Ok(bundle)
}

/// The event's three parts as the suite `local` (a client with the admin's or the event
/// director's token) has them: the registration read as a pull reads it from the federation,
/// with the venue's audit records of the event.
pub async fn read_bundle(local: &ApiClient, event_id: Uuid) -> ClientResult<Bundle> {
    let registration = VenueCopy {
        audit: federation::audit_of(local, event_id).await?,
        ..federation::read_copy(local, event_id, false).await?
    };
    Ok(Bundle {
        registration,
        rounds: local.venue_rounds(event_id).await?,
        results: local.venue_results(event_id).await?,
    })
}

/// Sends the signed bundle to `federation`: every part it can judge first as a dry run, then,
/// if none is refused, each part applied in order.
pub async fn send(
    federation: &ApiClient,
    bundle: &SignedBundle,
    say: &dyn Fn(String),
) -> anyhow::Result<Published> {
    say(format!(
        "Checking the bundle with the federation at {}",
        federation.base_url()
    ));
    let mut verdicts: Vec<Verdict> = Vec::new();
    let mut steps = Vec::new();
    for part in PARTS {
        let sent = Instant::now();
        let answer = send_part(federation, bundle, part, true).await?;
        let judged = verdict(answer, awaits_earlier_parts(&verdicts));
        let said = match &judged {
            Verdict::Fits(counted) => counted.line(),
            Verdict::Later(_) => format!(
                "{}: judged when it is sent, after the parts before it (it builds on what they add)",
                part.name()
            ),
            Verdict::Refused(problem) => format!("{}: refused ({})", part.name(), problem.title),
        };
        if !matches!(judged, Verdict::Refused(_)) {
            say(format!("  {said}"));
        }
        steps.push(Step {
            part,
            dry_run: true,
            took: sent.elapsed(),
            said,
        });
        verdicts.push(judged);
    }
    let refused: Vec<String> = PARTS
        .iter()
        .zip(&verdicts)
        .filter_map(|(part, verdict)| match verdict {
            Verdict::Refused(problem) => Some(faults(*part, problem)),
            _ => None,
        })
        .flatten()
        .collect();
    if !refused.is_empty() {
        for line in &refused {
            say(line.clone());
        }
        bail!("the federation refused the bundle: nothing was published");
    }
    let mut applied = Vec::new();
    for part in PARTS {
        let sent = Instant::now();
        let counted = apply(federation, bundle, part, say).await?;
        steps.push(Step {
            part,
            dry_run: false,
            took: sent.elapsed(),
            said: counted.line(),
        });
        applied.push(counted);
    }
    let [registration, rounds, results] =
        <[Counted; 3]>::try_from(applied).map_err(|_| anyhow::anyhow!("three parts applied"))?;
    Ok(Published {
        registration,
        rounds,
        results,
        steps,
    })
}

/// Applies one part, saying what it added; a refusal says every fault and stops the publish
/// (the parts applied before stay: the next publish finds them unchanged).
async fn apply(
    federation: &ApiClient,
    bundle: &SignedBundle,
    part: Part,
    say: &dyn Fn(String),
) -> anyhow::Result<Counted> {
    match send_part(federation, bundle, part, false).await? {
        Ok(counted) => {
            say(format!("Published {}", counted.line()));
            Ok(counted)
        }
        Err(problem) => {
            for line in faults(part, &problem) {
                say(line);
            }
            bail!(
                "the federation refused the {} part; the parts before it are published, and \
                 publishing again sends only what is missing",
                part.name()
            )
        }
    }
}

/// Sends one part of the bundle, signed (with `dry_run`, to be checked only): what it added or
/// would add, or the federation's refusal; an error when the federation did not answer.
pub async fn send_part(
    federation: &ApiClient,
    bundle: &SignedBundle,
    part: Part,
    dry_run: bool,
) -> anyhow::Result<Result<Counted, Problem>> {
    let signed = |signature: &str| {
        federation.with_headers(vec![(VENUE_SIGNATURE_HEADER, signature.to_owned())])
    };
    let answer = match part {
        Part::Registration => {
            let copy = &bundle.registration;
            signed(&copy.signature)
                .take_in_venue_copy(&copy.part, dry_run)
                .await
                .map(|taken| Counted::from(&taken))
        }
        Part::Rounds => {
            let rounds = &bundle.rounds;
            signed(&rounds.signature)
                .take_in_venue_rounds(&rounds.part, dry_run)
                .await
                .map(|taken| Counted::from(&taken))
        }
        Part::Results => {
            let results = &bundle.results;
            signed(&results.signature)
                .take_in_venue_results(&results.part, dry_run)
                .await
                .map(|taken| Counted::from(&taken))
        }
    };
    match answer {
        Ok(counted) => Ok(Ok(counted)),
        Err(ClientError::Problem { problem }) => Ok(Err(problem)),
        Err(e) => Err(e).with_context(|| format!("sending the {} part", part.name())),
    }
}

/// The event to publish: the one asked for, else the only one the venue pulled.
pub fn chosen_event(asked: Option<Uuid>, pulled: &[Uuid]) -> anyhow::Result<Uuid> {
    match (asked, pulled) {
        (Some(event_id), _) => Ok(event_id),
        (None, [only]) => Ok(*only),
        (None, []) => bail!("the venue pulled no event: run `catan-suite venue pull` first"),
        (None, _) => bail!(
            "the venue pulled {} events: say which with --event ({})",
            pulled.len(),
            pulled
                .iter()
                .map(Uuid::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

/// `venue publish` over the database and PIN key command 1 uses, with the admin key it is
/// configured with (`CATAN_ADMIN_KEY`), else the venue's own kept in the venue's folder.
pub(crate) async fn run_publish(
    args: PublishArgs,
    settings: Settings,
    database_url: &str,
    pin_key_file: &Path,
) -> anyhow::Result<()> {
    let say = |line: String| println!("{line}");
    let pulled: Vec<Uuid> = VenueFile::all(&args.venue_dir)?
        .iter()
        .map(|file| file.event_id)
        .collect();
    let event_id = chosen_event(args.event, &pulled)?;
    let venue = super::venue_suite(settings, database_url, pin_key_file, &args.venue_dir, &say)?;
    let published = publish(event_id, venue, &say).await?;
    let parts = [
        &published.registration,
        &published.rounds,
        &published.results,
    ];
    say(if parts.iter().all(|part| !part.adds()) {
        "\nThe federation had the whole event already: nothing changed.".to_owned()
    } else {
        "\nPublished. The event stays checked out to the venue: publish again after more \
         corrections (only what is new is sent); its organiser or the admin releases it."
            .to_owned()
    });
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_event_is_the_one_asked_for_else_the_only_one_pulled() {
        let (a, b) = (Uuid::new_v4(), Uuid::new_v4());
        assert_eq!(chosen_event(Some(b), &[a]).unwrap(), b);
        assert_eq!(chosen_event(None, &[a]).unwrap(), a);
        assert!(chosen_event(None, &[]).is_err());
        let two = chosen_event(None, &[a, b]).unwrap_err().to_string();
        assert!(
            two.contains("--event") && two.contains(&a.to_string()),
            "{two}"
        );
    }
}
