//! Finding things (issue 8): players by name whatever the case and the accents, and by region;
//! a region by its id.

use catan_api::CreatePlayer;
use catan_e2e::{assert_refused, names, new_player, problem_of, spawn_suite};
use reqwest::{Method, StatusCode};
use uuid::Uuid;

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn players_are_found_by_name_whatever_the_case_and_accents_and_by_region() {
    let ts = spawn_suite().await;
    let north = ts.admin.create_region("Norte").await.expect("region");
    let south = ts.admin.create_region("Sur").await.expect("region");
    let register = async |name: &str, region_id| {
        let body = CreatePlayer {
            region_id,
            ..new_player(name)
        };
        ts.admin.create_player(&body).await.expect("player").id
    };
    let jose = register("José Ñúñez", Some(north.id)).await;
    let joseph = register("JOSEPH Smith", Some(south.id)).await;
    let ana = register("Ana Pérez", Some(north.id)).await;

    let search = async |name: &str, region_id| -> Vec<Uuid> {
        let players = ts.anonymous.search_players(name, region_id).await;
        players.expect("search").into_iter().map(|p| p.id).collect()
    };
    // Case and accents aside, by name: "jose" is in "José Ñúñez" and "JOSEPH Smith".
    assert_eq!(search("jose", None).await, [jose, joseph]);
    assert_eq!(search("NUÑ", None).await, [jose]);
    assert_eq!(search("perez", None).await, [ana]);
    // By region, with or without a name.
    assert_eq!(search("jose", Some(north.id)).await, [jose]);
    assert_eq!(search("", Some(north.id)).await, [ana, jose]);
    assert!(search("zz", None).await.is_empty());

    // A page of the search links to the next one.
    let first = ts.http(Method::GET, "/v1/players?q=o&limit=1").send().await;
    assert_eq!(first.status, StatusCode::OK);
    assert!(first.header("link").is_some_and(|l| l.contains("offset=1")));

    // Control characters are no part of a name: refused, naming the parameter.
    let refused = ts.anonymous.search_players("jo\u{7}se", None).await;
    let problem = problem_of(assert_refused(refused, 422, "a control character"));
    assert!(names(&problem, Some("q"), "invalid_query"), "{problem:?}");
    ts.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_region_is_read_by_its_id() {
    let ts = spawn_suite().await;
    let north = ts.admin.create_region("Norte").await.expect("region");
    let read = ts.anonymous.region(north.id).await.expect("the region");
    assert_eq!((read.id, read.name.as_str()), (north.id, "Norte"));
    assert_refused(
        ts.anonymous.region(Uuid::new_v4()).await,
        404,
        "an unknown region",
    );
    ts.shutdown().await;
}
