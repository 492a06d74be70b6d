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
use super::keep::{LastPublish, Tally, VenueFile};
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
    /// End the checkout once the publish went through: the federation takes writes to the event
    /// again. Without it the event stays checked out, for later corrections.
    #[arg(long, requires = "key")]
    pub release: bool,
    /// With --release: an API key of the federation that may release the checkout (its
    /// organiser's or the admin's). Used for this only, never kept.
    #[arg(long, env = "CATAN_FEDERATION_KEY", hide_env_values = true)]
    pub key: Option<String>,
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

impl Published {
    /// Whether any part added anything.
    pub fn adds(&self) -> bool {
        [&self.registration, &self.rounds, &self.results]
            .iter()
            .any(|part| part.adds())
    }
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
    let dir = venue.dir.clone();
    let bundle = export(event_id, venue, say).await?;
    let had = Tally::of(&bundle);
    let signed = bundle.signed(&file.signing_key()?)?;
    say(format!(
        "Signed with the key of the checkout to \"{}\"",
        file.venue
    ));
    let sent = send(&publishing_client(&file.federation), &signed, say).await;
    kept_with_outcome(file, had, &sent).write(&dir)?;
    sent
}

/// The venue's file with the publish that just ended as its last: what came of it, and, when it
/// went through, what the venue had then (what `venue status` counts from).
fn kept_with_outcome(file: VenueFile, had: Tally, sent: &anyhow::Result<Published>) -> VenueFile {
    let before = file.last_publish.as_ref().and_then(|last| last.had);
    let last_publish = match sent {
        Ok(published) => LastPublish {
            at: chrono::Utc::now(),
            outcome: if published.adds() {
                format!(
                    "published ({}; {}; {})",
                    published.registration.line(),
                    published.rounds.line(),
                    published.results.line()
                )
            } else {
                "nothing new: the federation had the whole event already".to_owned()
            },
            published: true,
            had: Some(had),
        },
        Err(e) => LastPublish {
            at: chrono::Utc::now(),
            outcome: format!("not published: {e}"),
            published: false,
            had: before,
        },
    };
    VenueFile {
        last_publish: Some(last_publish),
        ..file
    }
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
    say(if published.adds() {
        "\nPublished.".to_owned()
    } else {
        "\nThe federation had the whole event already: nothing changed.".to_owned()
    });
    match args.key.as_deref().filter(|_| args.release) {
        Some(key) => {
            release(&args.venue_dir, event_id, key).await?;
            say(
                "The checkout is released: the federation takes writes to the event again."
                    .to_owned(),
            );
        }
        None => say(
            "The event stays checked out to the venue: the federation refuses writes to it until \
             its checkout is released (`venue publish --release`, or its organiser or the \
             admin). Publish again after more corrections: only what is new is sent."
                .to_owned(),
        ),
    }
    Ok(())
}

/// Releases the checkout of `event_id` with the federation's API key `key` (after a publish),
/// and keeps in the venue's file that it was released.
pub async fn release(venue_dir: &Path, event_id: Uuid, key: &str) -> anyhow::Result<()> {
    let file = VenueFile::read(venue_dir, event_id)?
        .with_context(|| format!("event {event_id} was not pulled into this venue"))?;
    let federation = federation::reached(&file.federation, key).await?;
    match federation.release_checkout(event_id).await {
        // A 404: not checked out any more (released meanwhile), which is what was asked.
        Ok(()) => {}
        Err(ClientError::Problem { problem }) if problem.status == 404 => {}
        Err(ClientError::Problem { problem }) if problem.status == 403 => bail!(
            "published, but the federation refuses this key the release: only the admin's key \
             or a key of an organiser of the event's region may release the checkout"
        ),
        Err(e) => return Err(e).context("published, but the checkout could not be released"),
    }
    VenueFile {
        released_at: Some(chrono::Utc::now()),
        ..file
    }
    .write(venue_dir)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_publish_refused_keeps_what_the_last_one_that_went_through_had() {
        let file = VenueFile::new("http://federation.example", Uuid::new_v4(), "Casal");
        let had = Tally {
            rounds: 2,
            sheet_versions: 8,
            changes: 20,
        };
        let counted = |part| Counted {
            part,
            dry_run: false,
            kinds: vec![(("sheet version", "sheet versions"), 8, 0)],
        };
        let published = Published {
            registration: counted(Part::Registration),
            rounds: counted(Part::Rounds),
            results: counted(Part::Results),
            steps: Vec::new(),
        };
        let through = kept_with_outcome(file, had, &Ok(published));
        let last = through.last_publish.clone().unwrap();
        assert!(
            last.published && last.outcome.starts_with("published ("),
            "{last:?}"
        );
        assert_eq!(last.had, Some(had));
        let more = Tally {
            sheet_versions: 9,
            ..had
        };
        let refused = kept_with_outcome(through, more, &Err(anyhow::anyhow!("refused")));
        let last = refused.last_publish.unwrap();
        assert!(
            !last.published && last.outcome == "not published: refused",
            "{last:?}"
        );
        assert_eq!(
            last.had,
            Some(had),
            "counted from the publish that went through"
        );
    }

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
