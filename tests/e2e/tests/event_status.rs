//! An event's status follows its play: `running` from its first round drawn, `finished` once its
//! placements are complete, whatever its days say; the API list and the home page show it so. The
//! news reaches registration by pairing's `round.drawn` and ranking's `event.finished`, which it
//! records in the transaction that fans them out: a subscriber that has a message knows that the
//! status it announces is recorded, so the test waits for deliveries, never sleeps.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test helpers: a failed step fails the test"
)]

use catan_api::{CreateEvent, EventSearch, EventStatus, Placements, WebhookEventType};
use catan_e2e::http::{Method, StatusCode};
use catan_e2e::webhooks::{Receiver, verified};
use catan_e2e::{fast_webhooks, seated, spawn_suite_with, won_by_first};

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn an_event_runs_from_its_first_draw_and_is_finished_once_placed_in_the_api_and_home_page() {
    let ts = spawn_suite_with(fast_webhooks()).await;
    let in_a_month = chrono::Utc::now().date_naive() + chrono::Days::new(30);
    let body = CreateEvent {
        starts_on: Some(in_a_month),
        qualifying_rounds: Some(1),
        ..CreateEvent::classic("Played ahead of its day")
    };
    let fx = ts.classic_event_as(&body, 4).await;
    let receiver = Receiver::start(0).await;
    let types = [
        WebhookEventType::RoundDrawn,
        WebhookEventType::EventFinished,
    ];
    let hook = ts.subscribe(&fx, &receiver.url, &types).await;
    let status = async || ts.admin.event(fx.event.id).await.expect("event").status;
    assert_eq!(
        status().await,
        EventStatus::Planned,
        "a month ahead, unplayed"
    );

    let round = fx.draw().await;
    receiver.first(1).await;
    assert_eq!(
        status().await,
        EventStatus::Running,
        "its first round is drawn"
    );
    let running = EventSearch {
        status: Some(EventStatus::Running),
        ..EventSearch::default()
    };
    let listed = ts
        .admin
        .events(&running, 50, 0)
        .await
        .expect("running events");
    assert!(listed.iter().any(|e| e.id == fx.event.id));
    assert!(
        home_section(&ts, "running-h")
            .await
            .contains("Played ahead of its day")
    );

    let players = seated(&round.tables[0]);
    fx.submit(1, 1, &won_by_first(&players, &[10, 7, 5, 4]))
        .await;
    assert_eq!(
        status().await,
        EventStatus::Running,
        "the qualifying round is not the end"
    );
    let final_round = fx.draw().await;
    let finalists = seated(&final_round.tables[0]);
    fx.submit(2, 1, &won_by_first(&finalists, &[11, 8, 6, 3]))
        .await;

    // The final's `round.drawn` and `event.finished` come from two services: in either order.
    let messages = receiver.first(3).await;
    let finished = messages
        .iter()
        .map(|message| verified(&hook.secret, message))
        .find(|message| message.event_type == WebhookEventType::EventFinished)
        .expect("event.finished");
    let placements: Placements = serde_json::from_value(finished.data).expect("placements");
    assert!(placements.complete);
    assert_eq!(placements.rows[0].player_id, Some(finalists[0]));
    assert_eq!(
        status().await,
        EventStatus::Finished,
        "its placements are complete"
    );
    let finished_list = EventSearch {
        status: Some(EventStatus::Finished),
        ..EventSearch::default()
    };
    let listed = ts
        .admin
        .events(&finished_list, 50, 0)
        .await
        .expect("finished");
    assert!(listed.iter().any(|e| e.id == fx.event.id));
    assert!(
        home_section(&ts, "finished-h")
            .await
            .contains("Played ahead of its day")
    );
    assert!(
        !home_section(&ts, "running-h")
            .await
            .contains("Played ahead of its day")
    );
    ts.shutdown().await;
}

/// The home page's section headed by `heading`, as HTML.
async fn home_section(ts: &catan_e2e::TestSuite, heading: &str) -> String {
    let page = ts.http(Method::GET, "/").send().await;
    assert_eq!(page.status, StatusCode::OK);
    let start = page
        .text
        .find(&format!("aria-labelledby=\"{heading}\""))
        .unwrap_or_else(|| panic!("no section {heading}"));
    let end = page.text[start..]
        .find("</section>")
        .map_or(page.text.len(), |end| start + end);
    page.text[start..end].to_string()
}
