//! `ingest --floor`: the most any service over HTTP on this stack can take in, measured in the
//! same run. The same sheets, PUT by the same clients to the same paths, reach the thinnest
//! server the suite's stack makes: actix-web (two workers, as each service has) parsing each
//! sheet, and one writer thread that commits the sheets waiting in one statement, as the results
//! service's first-sheet writer does, into pgbench's own two tables (see [`super::pgbench`]). It
//! checks no token, keeps no `Idempotency-Key`, validates nothing against the round, and writes
//! no version, audit record, outbox event or read model: what it reaches is a ceiling for the
//! suite, whatever the suite's own work costs.

use super::pgbench::with_results_tables;
use actix_web::{App, HttpResponse, HttpServer, web};
use anyhow::Context;
use catan_api::SubmitResult;
use diesel::sql_types::{Array, Integer, Jsonb, Uuid as SqlUuid};
use diesel::{Connection, PgConnection, RunQueryDsl};
use std::sync::mpsc;
use tokio::sync::oneshot;
use uuid::Uuid;

/// The most sheets one statement writes, as the results service's writer.
const MOST_TOGETHER: usize = 64;

/// One statement for a group: the results' rows and their players' scores.
const WRITE_GROUP: &str = "
    WITH results_written AS (
        INSERT INTO results (event_id, round, table_number, sheet)
        SELECT $1, 1, t, s FROM unnest($2::integer[], $3::jsonb[]) AS u(t, s)
    )
    INSERT INTO scores (event_id, round, table_number, player_id, vp)
    SELECT $1, 1, t, p, v FROM unnest($4::integer[], $5::uuid[], $6::integer[]) AS u(t, p, v)";

/// A parsed sheet waiting for the writer, and where to say it is committed.
struct Waiting {
    table: i32,
    sheet: SubmitResult,
    committed: oneshot::Sender<bool>,
}

/// The floor server, listening; stopped (and its writer with it) when dropped.
pub struct Floor {
    url: String,
    server: actix_web::dev::ServerHandle,
    database: String,
}

impl Floor {
    /// Starts the floor over a scratch database of its own on `server_url`.
    pub async fn start(server_url: &str) -> anyhow::Result<Floor> {
        let database = format!("catan_bench_floor_{}", Uuid::new_v4().simple());
        let url = with_results_tables(server_url, &database).await?;
        match serve(&url) {
            Ok((url, server)) => Ok(Floor {
                url,
                server,
                database,
            }),
            Err(e) => {
                crate::harness::drop_database(server_url, &database).await;
                Err(e)
            }
        }
    }

    pub fn url(&self) -> &str {
        &self.url
    }

    /// Stops the server (its writer ends with the last queue) and drops its database.
    pub async fn stop(self, server_url: &str) {
        self.server.stop(true).await;
        crate::harness::drop_database(server_url, &self.database).await;
    }
}

/// The writer on a connection to `database_url`, and the server listening: its URL and handle.
fn serve(database_url: &str) -> anyhow::Result<(String, actix_web::dev::ServerHandle)> {
    let (queue, waiting) = mpsc::channel::<Waiting>();
    let mut conn = PgConnection::establish(database_url).context("the floor's writer")?;
    std::thread::Builder::new()
        .name("floor-writer".to_owned())
        .spawn(move || {
            while let Some(group) = next_group(&waiting) {
                let written = write(&mut conn, &group).is_ok();
                for waiting in group {
                    let _ = waiting.committed.send(written);
                }
            }
        })?;
    let http = HttpServer::new(move || {
        let queue = web::Data::new(queue.clone());
        App::new()
            .app_data(queue)
            .route("/health", web::get().to(HttpResponse::Ok))
            .route(
                "/v1/events/{event}/rounds/{round}/tables/{table}/result",
                web::put().to(put_result),
            )
    })
    .workers(2)
    .disable_signals()
    .bind(("127.0.0.1", 0))?;
    let address = *http.addrs().first().context("the floor's address")?;
    let running = http.run();
    let server = running.handle();
    tokio::spawn(running);
    Ok((format!("http://{address}"), server))
}

/// The sheet parsed and committed, answered 201 with it, as the results service answers a first
/// sheet with its result.
async fn put_result(
    path: web::Path<(Uuid, u32, i32)>,
    body: web::Bytes,
    queue: web::Data<mpsc::Sender<Waiting>>,
) -> HttpResponse {
    let Ok(sheet) = serde_json::from_slice::<SubmitResult>(&body) else {
        return HttpResponse::UnprocessableEntity().finish();
    };
    let (committed, answer) = oneshot::channel();
    let table = path.into_inner().2;
    let waiting = Waiting {
        table,
        sheet,
        committed,
    };
    if queue.send(waiting).is_err() {
        return HttpResponse::ServiceUnavailable().finish();
    }
    match answer.await {
        Ok(true) => HttpResponse::Created()
            .content_type("application/json")
            .body(body),
        _ => HttpResponse::InternalServerError().finish(),
    }
}

/// The next sheet, and every other one waiting (at most [`MOST_TOGETHER`]); `None` once the
/// server is gone.
fn next_group(queue: &mpsc::Receiver<Waiting>) -> Option<Vec<Waiting>> {
    let mut group = vec![queue.recv().ok()?];
    while group.len() < MOST_TOGETHER {
        match queue.try_recv() {
            Ok(next) => group.push(next),
            Err(_) => break,
        }
    }
    Some(group)
}

/// The group in one statement (one commit).
fn write(conn: &mut PgConnection, group: &[Waiting]) -> anyhow::Result<()> {
    let (mut tables, mut sheets) = (Vec::new(), Vec::new());
    let (mut score_tables, mut players, mut vps) = (Vec::new(), Vec::new(), Vec::new());
    for waiting in group {
        tables.push(waiting.table);
        sheets.push(serde_json::to_value(&waiting.sheet)?);
        for score in &waiting.sheet.scores {
            score_tables.push(waiting.table);
            players.push(score.player_id);
            vps.push(i32::try_from(score.vp)?);
        }
    }
    diesel::sql_query(WRITE_GROUP)
        .bind::<SqlUuid, _>(Uuid::nil())
        .bind::<Array<Integer>, _>(tables)
        .bind::<Array<Jsonb>, _>(sheets)
        .bind::<Array<Integer>, _>(score_tables)
        .bind::<Array<SqlUuid>, _>(players)
        .bind::<Array<Integer>, _>(vps)
        .execute(conn)?;
    Ok(())
}
