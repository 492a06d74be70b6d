//! Results at the end of a round: writes of one event do not wait for each other, yet neither
//! change feed ever passes a change that commits late; and a round's sheets go in one batch.

#![allow(
    clippy::expect_used,
    reason = "test helpers: a failed step fails the test"
)]

use catan_api::{ResultChanges, Role, SubmitResult, SubmitResults, TableSheet};
use catan_e2e::http::{Method, StatusCode};
use catan_e2e::{
    EventFixture, TestSuite, new_key, seated, spawn_suite_configured, spawn_suite_with_event,
    won_by_first,
};
use diesel::{Connection, PgConnection, RunQueryDsl};
use std::time::{Duration, Instant};

/// Reads a change feed (`/v1/feeds/results` or an event's `/v1/events/{id}/results`) from
/// `after`: the page's tables as (round, table), its `next` and whether it holds a change back.
async fn feed_page(ts: &TestSuite, path: &str, after: &str) -> (Vec<(u32, u32)>, String, bool) {
    let page: ResultChanges = ts
        .http(Method::GET, &format!("{path}?after={after}"))
        .send()
        .await
        .json();
    let tables = page.items.iter().map(|r| (r.round, r.table)).collect();
    (tables, page.next, page.held_back)
}

/// Waits until a session of the test database waits on a lock: the write under test is held.
fn wait_for_a_blocked_write(database_url: &str) {
    #[derive(diesel::QueryableByName)]
    struct Waiting {
        #[diesel(sql_type = diesel::sql_types::BigInt)]
        n: i64,
    }
    let mut conn = PgConnection::establish(database_url).expect("test database");
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let waiting: Waiting = diesel::sql_query(
            "SELECT count(*) AS n FROM pg_stat_activity \
             WHERE datname = current_database() AND wait_event_type = 'Lock'",
        )
        .get_result(&mut conn)
        .expect("pg_stat_activity");
        if waiting.n > 0 {
            return;
        }
        assert!(Instant::now() < deadline, "the write was never held");
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// The sheet the first seated player of `table` of `round` won.
fn sheet_for(round: &catan_api::Round, table: usize) -> SubmitResult {
    won_by_first(&seated(&round.tables[table]), &[10, 7, 5, 4])
}

/// A session of the test database, in a transaction that holds the first version of each of
/// `tables` of round 1 of `event`: a write of one of those tables waits until it ends.
fn hold_tables(database_url: &str, event: uuid::Uuid, tables: &[u32]) -> PgConnection {
    let mut holder = PgConnection::establish(database_url).expect("test database");
    diesel::sql_query("BEGIN")
        .execute(&mut holder)
        .expect("begin");
    for table in tables {
        diesel::sql_query(format!(
            "INSERT INTO results.result_versions (event_id, round, table_number, version, stage, \
             round_tables, seq, sheet, recorded_at, recorded_by) \
             VALUES ('{event}', 1, {table}, 1, 'qualifying', 3, 0, '{{}}', now(), '{event}')"
        ))
        .execute(&mut holder)
        .expect("hold a table");
    }
    holder
}

/// Every table of `round` posted at once by the fixture's scorer, each post a task: its table
/// and its answer.
type Post = tokio::task::JoinHandle<catan_api::ClientResult<catan_api::TableResult>>;
fn post_every_table(fx: &EventFixture, round: &catan_api::Round) -> Vec<(u32, Post)> {
    let event = fx.event.id;
    round
        .tables
        .iter()
        .enumerate()
        .map(|(t, table)| {
            let (scorer, sheet, number) = (fx.scorer.clone(), sheet_for(round, t), table.number);
            let post =
                tokio::spawn(async move { scorer.submit_result(event, 1, number, &sheet).await });
            (number, post)
        })
        .collect()
}

/// Each table of `round` has one version, and one audit record of the PUT that recorded it.
fn assert_each_table_recorded_once(ts: &TestSuite, event: uuid::Uuid, round: &catan_api::Round) {
    let tables = i64::try_from(round.tables.len()).expect("tables");
    assert_eq!(
        ts.count(&format!(
            "SELECT count(*) AS n FROM results.result_versions WHERE event_id = '{event}'"
        )),
        tables
    );
    assert_eq!(
        ts.count(&format!(
            "SELECT count(*) AS n FROM results.audit_log WHERE '{event}' = ANY(event_ids) \
             AND method = 'PUT' AND status = 201"
        )),
        tables,
        "one audit record for each sheet recorded"
    );
}

/// A token of a new scorer key for `event`.
async fn scorer_token(ts: &TestSuite, event: uuid::Uuid) -> String {
    let key = ts
        .admin
        .create_api_key(&new_key("table app", Role::Scorer, Some(vec![event])))
        .await
        .expect("scorer key")
        .api_key;
    ts.token(&key).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_write_held_in_flight_holds_no_other_table_back_and_no_feed_passes_it() {
    let (ts, fx) = spawn_suite_with_event(12, Some(1)).await;
    let round = fx.draw().await;
    let event = fx.event.id;
    let event_feed = format!("/v1/events/{event}/results");

    // Another session holds table 1's first version: its write waits, mid-statement, holding
    // a transaction id older than any write that follows.
    let mut holder = hold_tables(&ts.database_url, event, &[1]);
    let first = {
        let scorer = fx.scorer.clone();
        let sheet = sheet_for(&round, 0);
        tokio::spawn(async move { scorer.submit_result(event, 1, 1, &sheet).await })
    };
    let url = ts.database_url.clone();
    tokio::task::spawn_blocking(move || wait_for_a_blocked_write(&url))
        .await
        .expect("waited");

    // Table 2 of the same event is recorded meanwhile, without waiting for table 1.
    let started = Instant::now();
    let second = fx.submit(1, 2, &sheet_for(&round, 1)).await;
    assert_eq!(second.version, 1);
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "table 2 waited for table 1"
    );

    // Neither feed passes table 1's write: table 2 has committed, but is held back behind it.
    for path in [event_feed.as_str(), "/v1/feeds/results"] {
        let (tables, next, held_back) = feed_page(&ts, path, "").await;
        assert!(
            tables.is_empty(),
            "{path} passed a write in flight: {tables:?}"
        );
        assert!(held_back, "{path} does not say a change is held back");
        assert_eq!(next, "", "{path} moved its cursor past a write in flight");
    }

    // Once the holder lets go, table 1's write commits, and both feeds give both tables.
    diesel::sql_query("ROLLBACK")
        .execute(&mut holder)
        .expect("rollback");
    let first = first.await.expect("task").expect("table 1 recorded");
    assert_eq!((first.table, first.version), (1, 1));
    for path in [event_feed.as_str(), "/v1/feeds/results"] {
        let deadline = Instant::now() + Duration::from_secs(10);
        let (mut all, mut after) = (Vec::new(), String::new());
        loop {
            let (tables, next, held_back) = feed_page(&ts, path, &after).await;
            all.extend(tables);
            after = next;
            if all.len() >= 2 && !held_back {
                break;
            }
            assert!(Instant::now() < deadline, "{path} never gave both: {all:?}");
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        all.sort_unstable();
        assert_eq!(all, vec![(1, 1), (1, 2)], "{path}");
    }
    assert_eq!(
        ts.count(&format!(
            "SELECT count(*) AS n FROM results.result_versions WHERE event_id = '{event}'"
        )),
        2
    );
    ts.shutdown().await;
}

/// Posts `sheets` as one batch with `token` and `key`.
async fn post_batch(
    ts: &TestSuite,
    fx: &EventFixture,
    token: &str,
    key: &str,
    sheets: &[TableSheet],
) -> catan_e2e::Answer {
    ts.http(
        Method::POST,
        &format!("/v1/events/{}/rounds/1/results", fx.event.id),
    )
    .token(token)
    .header("Idempotency-Key", key)
    .json(&SubmitResults {
        sheets: sheets.to_vec(),
    })
    .send()
    .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_batch_records_each_sheet_on_its_own_and_answers_each_status() {
    let (ts, fx) = spawn_suite_with_event(24, Some(1)).await;
    let round = fx.draw().await;
    let event = fx.event.id;
    let scorer = scorer_token(&ts, event).await;
    let versions = || {
        ts.count(&format!(
            "SELECT count(*) AS n FROM results.result_versions WHERE event_id = '{event}'"
        ))
    };

    // Table 1 has a result already.
    fx.submit(1, 1, &sheet_for(&round, 0)).await;
    let mut below_ten = sheet_for(&round, 3);
    below_ten.scores[0].vp = 9;
    let item = |table: u32, sheet: SubmitResult| TableSheet { table, sheet };
    let mut other_for_table_1 = sheet_for(&round, 0);
    other_for_table_1.scores[1].vp = 8;
    let sheets = vec![
        item(2, sheet_for(&round, 1)),
        item(3, sheet_for(&round, 2)),
        item(4, below_ten),
        item(1, sheet_for(&round, 0)),
        item(1, other_for_table_1),
        item(99, sheet_for(&round, 4)),
        item(5, sheet_for(&round, 4)),
    ];
    let answer = post_batch(&ts, &fx, &scorer, "batch-1", &sheets).await;
    assert_eq!(answer.status, StatusCode::OK, "{:?}", answer.body());
    let outcome: catan_api::BatchOutcome = answer.json();
    let statuses: Vec<(u32, u16)> = outcome
        .results
        .iter()
        .map(|r| (r.table, r.status))
        .collect();
    assert_eq!(
        statuses,
        vec![
            (2, 201),
            (3, 201),
            (4, 422),
            (1, 200),
            (1, 409),
            (99, 404),
            (5, 201)
        ]
    );
    // A refused sheet names its broken rule, and stores nothing; the others are recorded.
    let refused = outcome.results[2].problem.as_ref().expect("a problem");
    assert!(
        refused
            .errors
            .iter()
            .any(|e| e.code.as_str() == "winner_below_ten"),
        "{refused:?}"
    );
    assert!(outcome.results[2].result.is_none());
    assert_eq!(
        outcome.results[0].result.as_ref().map(|r| r.version),
        Some(1)
    );
    assert_eq!(versions(), 4, "tables 1, 2, 3 and 5");
    let table_3 = ts
        .anonymous
        .result(event, 1, 3)
        .await
        .expect("table 3 recorded");
    assert_eq!(Some(&table_3), outcome.results[1].result.as_ref());

    // The same batch again with its key: the first answer, and nothing written again.
    let again = post_batch(&ts, &fx, &scorer, "batch-1", &sheets).await;
    assert_eq!(again.status, StatusCode::OK);
    assert_eq!(again.header("idempotency-replayed"), Some("true"));
    assert_eq!(again.body(), answer.body());
    assert_eq!(versions(), 4);

    // A batch that breaks the contract is refused whole: table 6's good sheet is not recorded.
    let mut too_many_vp = sheet_for(&round, 5);
    too_many_vp.scores[2].vp = 23;
    let broken = post_batch(
        &ts,
        &fx,
        &scorer,
        "batch-2",
        &[item(6, sheet_for(&round, 5)), item(0, too_many_vp)],
    )
    .await;
    broken.assert_problem(StatusCode::UNPROCESSABLE_ENTITY);
    let problem: catan_api::Problem = broken.json();
    assert!(
        catan_e2e::names(&problem, Some("sheets[1].table"), "out_of_range"),
        "{problem:?}"
    );
    assert!(
        catan_e2e::names(
            &problem,
            Some("sheets[1].sheet.scores[2].vp"),
            "out_of_range"
        ),
        "{problem:?}"
    );
    assert_eq!(versions(), 4);
    let empty = post_batch(&ts, &fx, &scorer, "batch-3", &[]).await;
    empty.assert_problem(StatusCode::UNPROCESSABLE_ENTITY);
    let oversized: Vec<TableSheet> = (0..501).map(|_| item(6, sheet_for(&round, 5))).collect();
    let oversized = post_batch(&ts, &fx, &scorer, "batch-4", &oversized).await;
    oversized.assert_problem(StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(versions(), 4);

    // Only the event's scorers and director post its sheets.
    let other = ts.classic_event(4, Some(1)).await;
    let theirs = ts
        .admin
        .create_api_key(&new_key(
            "other app",
            Role::Scorer,
            Some(vec![other.event.id]),
        ))
        .await
        .expect("key")
        .api_key;
    let theirs = ts.token(&theirs).await;
    let forbidden = post_batch(
        &ts,
        &fx,
        &theirs,
        "batch-5",
        &[item(6, sheet_for(&round, 5))],
    )
    .await;
    forbidden.assert_problem(StatusCode::FORBIDDEN);
    let anonymous = ts
        .http(
            Method::POST,
            &format!("/v1/events/{event}/rounds/1/results"),
        )
        .json(&SubmitResults {
            sheets: vec![item(6, sheet_for(&round, 5))],
        })
        .send()
        .await;
    anonymous.assert_problem(StatusCode::UNAUTHORIZED);
    assert_eq!(versions(), 4);

    // What the batch recorded counts in the standings like any other result.
    ts.settled().await;
    let standings = ts.standings(event).await;
    let winners: Vec<uuid::Uuid> = [0, 1, 2, 4]
        .into_iter()
        .map(|t| seated(&round.tables[t])[0])
        .collect();
    for winner in winners {
        let row = standings
            .rows
            .iter()
            .find(|r| r.player_id == winner)
            .expect("a row");
        assert_eq!(row.wins, 1, "{row:?}");
    }
    ts.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 8)]
async fn racing_retries_of_a_sheet_with_one_key_write_once_and_all_get_the_first_answer() {
    let (ts, fx) = spawn_suite_with_event(8, Some(1)).await;
    let round = fx.draw().await;
    let scorer = scorer_token(&ts, fx.event.id).await;
    let path = format!("/v1/events/{}/rounds/1/tables/1/result", fx.event.id);
    let post = |sheet: SubmitResult| {
        ts.http(Method::PUT, &path)
            .token(&scorer)
            .header("Idempotency-Key", "table-1")
            .json(&sheet)
            .send()
    };
    let answers = futures_util::future::join_all((0..20).map(|_| post(sheet_for(&round, 0)))).await;
    let first = answers[0].body();
    for answer in &answers {
        assert_eq!(answer.status, StatusCode::CREATED, "{:?}", answer.body());
        assert_eq!(answer.body(), first, "every answer is the first one's");
    }
    assert_eq!(
        ts.count(&format!(
            "SELECT count(*) AS n FROM results.result_versions WHERE event_id = '{}'",
            fx.event.id
        )),
        1
    );
    // The key with another sheet is refused as a reused key, and changes nothing.
    let mut other = sheet_for(&round, 0);
    other.scores[1].vp = 8;
    let reused = post(other).await;
    reused.assert_problem(StatusCode::UNPROCESSABLE_ENTITY);
    let problem: catan_api::Problem = reused.json();
    assert!(
        catan_e2e::names(&problem, Some("Idempotency-Key"), "key_reused"),
        "{problem:?}"
    );
    ts.shutdown().await;
}

/// When a round ends every table app posts at once, and the results service commits the first
/// sheets that arrive together in one transaction. Tables that another transaction is writing
/// (held here by a session of the test) make the write that meets them wait: none of the sheets
/// posted with them waits too, and the held ones are recorded once let go.
#[tokio::test(flavor = "multi_thread", worker_threads = 8)]
async fn sheets_posted_together_are_not_held_back_by_tables_that_must_wait() {
    let (ts, fx) = spawn_suite_with_event(40, Some(1)).await;
    let round = fx.draw().await;
    let event = fx.event.id;
    let held = [1, 2, 3];
    let mut holder = hold_tables(&ts.database_url, event, &held);

    let started = Instant::now();
    let mut posts = post_every_table(&fx, &round);
    let held_posts: Vec<_> = posts.extract_if(.., |(n, _)| held.contains(n)).collect();
    for (number, post) in posts {
        let result = post.await.expect("task").expect("recorded");
        assert_eq!((result.table, result.version), (number, 1));
    }
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "the sheets posted with the held tables waited for them: {:?}",
        started.elapsed()
    );
    assert!(
        held_posts.iter().all(|(_, post)| !post.is_finished()),
        "a held table was answered while held"
    );

    diesel::sql_query("ROLLBACK")
        .execute(&mut holder)
        .expect("rollback");
    for (number, post) in held_posts {
        let result = post.await.expect("task").expect("held table recorded");
        assert_eq!((result.table, result.version), (number, 1));
    }
    assert_eq!(
        ts.count(&format!(
            "SELECT count(*) AS n FROM results.result_versions WHERE event_id = '{event}'"
        )),
        i64::try_from(round.tables.len()).expect("tables")
    );
    ts.shutdown().await;
}

/// Every table of a round posted at once, each twice with one key (a table app retrying): each
/// table is recorded once, both posts of a table get the same answer, and each recorded sheet has
/// one audit record; another app's sheet for a recorded table is then refused.
#[tokio::test(flavor = "multi_thread", worker_threads = 8)]
async fn sheets_posted_all_at_once_with_retries_are_each_recorded_once_and_answered_alike() {
    let (ts, fx) = spawn_suite_with_event(40, Some(1)).await;
    let round = fx.draw().await;
    let event = fx.event.id;
    let scorer = scorer_token(&ts, event).await;
    let post = |number: u32, key: String, sheet: SubmitResult| {
        let path = format!("/v1/events/{event}/rounds/1/tables/{number}/result");
        ts.http(Method::PUT, &path)
            .token(&scorer)
            .header("Idempotency-Key", &key)
            .json(&sheet)
            .send()
    };
    let mut other = sheet_for(&round, 0);
    other.scores[1].vp = 8;
    let first_table = round.tables[0].number;
    let posts = round.tables.iter().enumerate().flat_map(|(t, table)| {
        let key = format!("table-{}", table.number);
        [
            post(table.number, key.clone(), sheet_for(&round, t)),
            post(table.number, key, sheet_for(&round, t)),
        ]
    });
    let answers = futures_util::future::join_all(posts).await;
    for (pair, table) in answers.chunks(2).zip(&round.tables) {
        for answer in pair {
            assert_eq!(answer.status, StatusCode::CREATED, "{:?}", answer.body());
        }
        assert_eq!(pair[0].body(), pair[1].body(), "table {}", table.number);
        let result: catan_api::TableResult = pair[0].json();
        assert_eq!((result.table, result.version), (table.number, 1));
    }
    post(first_table, "another-app".into(), other)
        .await
        .assert_problem(StatusCode::CONFLICT);
    assert_each_table_recorded_once(&ts, event, &round);
    ts.shutdown().await;
}

/// With a pool of 2 connections per service (`DATABASE_POOL_SIZE=2`), the first sheets' writer
/// keeps no connection between groups: a round posted all at once, while another session holds one
/// of its tables, is recorded whole, the held table once let go.
#[tokio::test(flavor = "multi_thread", worker_threads = 8)]
async fn with_a_pool_of_two_sheets_posted_at_once_are_all_recorded() {
    let ts = spawn_suite_configured(|settings| settings.database.pool_size = 2).await;
    let fx = ts.classic_event(40, Some(1)).await;
    let round = fx.draw().await;
    let event = fx.event.id;
    let mut holder = hold_tables(&ts.database_url, event, &[1]);
    let mut posts = post_every_table(&fx, &round);
    let held: Vec<_> = posts.extract_if(.., |(n, _)| *n == 1).collect();
    for (number, post) in posts {
        let result = post.await.expect("task").expect("recorded");
        assert_eq!((result.table, result.version), (number, 1));
    }
    diesel::sql_query("ROLLBACK")
        .execute(&mut holder)
        .expect("rollback");
    for (number, post) in held {
        let result = post.await.expect("task").expect("held table recorded");
        assert_eq!((result.table, result.version), (number, 1));
    }
    ts.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 8)]
async fn two_apps_posting_every_table_at_once_get_one_result_each_and_the_other_a_conflict() {
    let (ts, fx) = spawn_suite_with_event(40, Some(1)).await;
    let round = fx.draw().await;
    let event = fx.event.id;
    let apps = [
        scorer_token(&ts, event).await,
        scorer_token(&ts, event).await,
    ];
    // The two apps disagree on every table: the second one's sheet gives the runner-up 8 VP.
    let sheets = |t: usize| {
        let mine = sheet_for(&round, t);
        let mut theirs = mine.clone();
        theirs.scores[1].vp = 8;
        [mine, theirs]
    };
    let mut posts = Vec::new();
    for (t, table) in round.tables.iter().enumerate() {
        let path = format!("/v1/events/{event}/rounds/1/tables/{}/result", table.number);
        for (app, (token, sheet)) in apps.iter().zip(sheets(t)).enumerate() {
            posts.push(
                ts.http(Method::PUT, &path)
                    .token(token)
                    .header("Idempotency-Key", &format!("app-{app}-table-{t}"))
                    .json(&sheet)
                    .send(),
            );
        }
    }
    let answers = futures_util::future::join_all(posts).await;
    for ((pair, table), t) in answers.chunks(2).zip(&round.tables).zip(0..) {
        let created: Vec<usize> = (0..2)
            .filter(|&app| pair[app].status == StatusCode::CREATED)
            .collect();
        let [winner] = created[..] else {
            panic!("table {}: not one 201 but {created:?}", table.number);
        };
        pair[1 - winner].assert_problem(StatusCode::CONFLICT);
        let result: catan_api::TableResult = pair[winner].json();
        let stored = ts
            .anonymous
            .result(event, 1, table.number)
            .await
            .expect("the table's result");
        assert_eq!(stored.version, 1);
        assert_eq!(
            i64::from(stored.scores[1].vp),
            sheets(t)[winner].scores[1].vp,
            "table {}: the sheet answered 201 is the one kept",
            table.number
        );
        assert_eq!(result.scores, stored.scores);
    }
    assert_each_table_recorded_once(&ts, event, &round);
    ts.shutdown().await;
}
