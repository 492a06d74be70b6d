//! The posting side of the freshness run: results posted at a steady rate, and what each post's
//! followers saw (the ratings of a sampled one, a read that carried its position).

use super::*;
use catan_api::Position;

/// Posts `jobs` at `options.rate` a second (open loop: a slow answer does not delay the next
/// post); the results recorded, how many posts failed by status, when the first was sent and the
/// last answered (or failed).
pub(super) async fn post(
    bench: &Bench,
    options: &Options,
    events: &[Event],
    jobs: Vec<Job>,
) -> anyhow::Result<(
    Vec<Posted>,
    BTreeMap<String, usize>,
    Instant,
    Instant,
    Vec<RatingWait>,
    Vec<TokenRead>,
)> {
    let slots = Arc::new(Semaphore::new(IN_FLIGHT));
    let mut ticker = tokio::time::interval(Duration::from_secs_f64(1.0 / f64::from(options.rate)));
    ticker.set_missed_tick_behavior(MissedTickBehavior::Burst);
    let mut tasks = tokio::task::JoinSet::new();
    let first_sent = Instant::now();
    for (n, job) in jobs.into_iter().enumerate() {
        ticker.tick().await;
        let slot = slots.clone().acquire_owned().await?;
        // A position of its own: what this post's write answered, not the others' too.
        let client = bench.admin.with_position(Position::default());
        let every = options.token_reads_every;
        let read_with_position = every > 0 && n % every == 0;
        let event_id = events.get(job.event).context("the job's event")?.id;
        let sampled = (n % RATINGS_SAMPLE_EVERY == RATINGS_SAMPLE_EVERY / 2)
            .then(|| job.sheet.scores.first().map(|s| s.player_id))
            .flatten();
        let public = bench.public.clone();
        tasks.spawn(async move {
            let sent = Instant::now();
            let answer = client
                .submit_result(event_id, job.round, job.table, &job.sheet)
                .await;
            let answered = Instant::now();
            drop(slot);
            let rating_wait = match (&answer, sampled) {
                (Ok(_), Some(player)) => Some(tokio::spawn(rated(
                    public.clone(),
                    player,
                    (event_id, job.round, job.table),
                    answered,
                ))),
                _ => None,
            };
            let token_read = match &answer {
                Ok(result) if read_with_position => Some(tokio::spawn(read_with(
                    public.with_position(client.position()),
                    event_id,
                    result.recorded_at.trunc_subsecs(6),
                    answered,
                ))),
                _ => None,
            };
            let posted = answer.map(|result| Posted {
                event: job.event,
                answered,
                // As stored: PostgreSQL keeps microseconds.
                recorded_at: result.recorded_at.trunc_subsecs(6),
                post_micros: u64::try_from(answered.duration_since(sent).as_micros())
                    .unwrap_or(u64::MAX),
            });
            (answered, posted, rating_wait, token_read)
        });
    }
    let mut posted = Vec::new();
    let mut rating_waits = Vec::new();
    let mut token_reads = Vec::new();
    let mut errors = BTreeMap::new();
    let mut last_answered = first_sent;
    while let Some(done) = tasks.join_next().await {
        let (answered, outcome, rating_wait, token_read) = done?;
        last_answered = last_answered.max(answered);
        rating_waits.extend(rating_wait);
        token_reads.extend(token_read);
        match outcome {
            Ok(p) => posted.push(p),
            Err(e) => {
                let kind = e
                    .status()
                    .map_or_else(|| "unreachable".to_owned(), |s| s.to_string());
                if !errors.contains_key(&kind) {
                    eprintln!("read-model: freshness: a post failed: {e}");
                }
                *errors.entry(kind).or_insert(0) += 1;
            }
        }
    }
    Ok((
        posted,
        errors,
        first_sent,
        last_answered,
        rating_waits,
        token_reads,
    ))
}

/// What a read that carried a post's position found: microseconds from the POST's answer to the
/// read's, and whether the standings included the result; an error's status otherwise.
pub(super) type TokenRead = tokio::task::JoinHandle<Result<(u64, bool), String>>;

async fn read_with(
    reader: catan_api::ApiClient,
    event_id: Uuid,
    recorded_at: DateTime<Utc>,
    answered: Instant,
) -> Result<(u64, bool), String> {
    let standings = reader.standings(event_id).await.map_err(|e| {
        e.status()
            .map_or_else(|| "unreachable".to_owned(), |s| s.to_string())
    })?;
    let waited = u64::try_from(answered.elapsed().as_micros()).unwrap_or(u64::MAX);
    Ok((waited, standings.as_of >= recorded_at))
}

/// A sampled result's wait for the ratings: microseconds from the POST's answer until its first
/// player's rating history listed the game; none when it did not within [`GIVE_UP`].
pub(super) type RatingWait = tokio::task::JoinHandle<Option<u64>>;

async fn rated(
    public: catan_api::ApiClient,
    player: Uuid,
    (event_id, round, table): (Uuid, u32, u32),
    answered: Instant,
) -> Option<u64> {
    let give_up = answered + GIVE_UP;
    while Instant::now() < give_up {
        if let Ok(history) = public.player_ratings(player).await
            && history
                .games
                .iter()
                .any(|g| (g.event_id, g.round, g.table) == (event_id, round, table))
        {
            return u64::try_from(answered.elapsed().as_micros()).ok();
        }
        tokio::time::sleep(RATINGS_POLL).await;
    }
    None
}
