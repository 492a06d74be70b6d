//! The console's sessions (issue 30) over plain HTTP: the cookie's attributes, CSRF tokens on
//! every form, a form sent twice writing once, roles, and sign-out.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "tests: a failed step fails the test"
)]

use catan_api::{CreateApiKey, CreateEvent, Role};
use catan_e2e::visitor::Visitor;
use catan_e2e::{TestSuite, spawn_suite};
use reqwest::StatusCode;
use uuid::Uuid;

async fn event_in_region(ts: &TestSuite, name: &str) -> (Uuid, Uuid) {
    let region = ts
        .admin
        .create_region(&format!("{name} region"))
        .await
        .unwrap();
    let event = ts
        .admin
        .create_event(&CreateEvent {
            region_id: Some(region.id),
            ..CreateEvent::classic(name)
        })
        .await
        .unwrap();
    (region.id, event.id)
}

/// Registers each of `names` and enters them in `event`: their entries, in that order.
async fn entered(ts: &TestSuite, event: Uuid, names: &[&str]) -> Vec<catan_api::Entry> {
    let mut entries = Vec::new();
    for name in names {
        let player = ts
            .admin
            .create_player(&catan_api::CreatePlayer {
                name: (*name).into(),
                region_id: None,
            })
            .await
            .unwrap();
        let entry = ts
            .admin
            .create_entry(event, &catan_api::CreateEntry::player(player.id))
            .await
            .unwrap();
        entries.push(entry);
    }
    entries
}

#[tokio::test]
async fn the_session_cookie_is_http_only_strict_and_holds_no_key_and_sign_out_ends_it() {
    let ts = spawn_suite().await;
    let mut visitor = Visitor::new(&ts);
    let anonymous = visitor.get("/console").await;
    assert_eq!(anonymous.status, StatusCode::SEE_OTHER);
    assert_eq!(
        anonymous.location.as_deref(),
        Some("/sign-in?next=%2Fconsole")
    );

    // A wrong key: refused on the form, which keeps nothing of it.
    let form = visitor.get("/sign-in").await;
    let csrf = form.hidden("csrf");
    let wrong = visitor
        .post(
            "/sign-in",
            &[("csrf", &csrf), ("api_key", "ck_wrong"), ("next", "")],
        )
        .await;
    assert_eq!(wrong.status, StatusCode::UNAUTHORIZED);
    assert!(
        !wrong.body.contains("ck_wrong"),
        "the key is not shown back"
    );

    let signed_in = visitor.sign_in(&ts.admin_key).await;
    assert_eq!(signed_in.location.as_deref(), Some("/console"));
    let cookie = signed_in.set_cookie.unwrap();
    for attribute in ["HttpOnly", "SameSite=Strict", "Path=/", "Max-Age="] {
        assert!(cookie.contains(attribute), "{attribute} in {cookie}");
    }
    assert!(!cookie.contains(&ts.admin_key), "the cookie is sealed");
    let console = visitor.get("/console").await;
    assert_eq!(console.status, StatusCode::OK);
    assert!(console.body.contains("administrator"), "who is signed in");
    assert!(
        !console.body.contains(&ts.admin_key),
        "the key is never on a page"
    );

    // A cookie altered by a single character opens nothing.
    let kept = visitor.cookie.clone().unwrap();
    let mut altered = kept.clone().into_bytes();
    let last = altered.len() - 1;
    altered[last] = if altered[last] == b'A' { b'B' } else { b'A' };
    visitor.cookie = Some(String::from_utf8(altered).unwrap());
    assert_eq!(visitor.get("/console").await.status, StatusCode::SEE_OTHER);
    visitor.cookie = Some(kept);

    // Sign-out needs the form's token too; then the session is gone.
    let refused = visitor.post("/sign-out", &[]).await;
    assert_eq!(refused.status, StatusCode::FORBIDDEN);
    let csrf = console.hidden("csrf");
    let out = visitor.post("/sign-out", &[("csrf", &csrf)]).await;
    assert_eq!(out.status, StatusCode::SEE_OTHER);
    assert!(out.set_cookie.unwrap().contains("Max-Age=0"));
    assert!(visitor.cookie.is_none());
    assert_eq!(visitor.get("/console").await.status, StatusCode::SEE_OTHER);
    ts.shutdown().await;
}

#[tokio::test]
async fn a_post_without_the_sessions_csrf_token_is_refused_and_changes_nothing() {
    let ts = spawn_suite().await;
    let (region, event) = event_in_region(&ts, "Token Cup").await;
    let mut visitor = Visitor::new(&ts);
    visitor.sign_in(&ts.admin_key).await;
    let page = visitor.get(&format!("/console/events/{event}")).await;
    let form_key = page.hidden("form_key");
    let names = [("names", "Ada Lovelace"), ("form_key", form_key.as_str())];
    let path = format!("/console/events/{event}/players");

    let without = visitor.post(&path, &names).await;
    assert_eq!(without.status, StatusCode::FORBIDDEN);
    // Another session's token is no better.
    let mut other = Visitor::new(&ts);
    let foreign = other.get("/sign-in").await.hidden("csrf");
    let with_foreign = visitor
        .post(&path, &[names[0], names[1], ("csrf", &foreign)])
        .await;
    assert_eq!(with_foreign.status, StatusCode::FORBIDDEN);
    let new_event = visitor
        .post(
            "/console/events",
            &[("name", "Forged"), ("region_id", &region.to_string())],
        )
        .await;
    assert_eq!(new_event.status, StatusCode::FORBIDDEN);
    assert!(
        ts.admin.entries(event).await.unwrap().is_empty(),
        "no entry made"
    );
    assert!(
        ts.admin
            .search_players("Ada Lovelace", None)
            .await
            .unwrap()
            .is_empty()
    );

    // With the token it writes; sent again (a double click) it writes once.
    let csrf = page.hidden("csrf");
    let with = [names[0], names[1], ("csrf", csrf.as_str())];
    let first = visitor.post(&path, &with).await;
    assert_eq!(first.status, StatusCode::OK, "{}", first.body);
    assert!(
        first.body.contains("class=\"pin\""),
        "the PIN is shown once"
    );
    let again = visitor.post(&path, &with).await;
    assert_eq!(again.status, StatusCode::OK);
    assert_eq!(ts.admin.entries(event).await.unwrap().len(), 1, "one entry");
    let players = ts.admin.search_players("Ada Lovelace", None).await.unwrap();
    assert_eq!(players.len(), 1, "one player: {players:?}");
    ts.shutdown().await;
}

#[tokio::test]
async fn a_scorer_enters_results_but_reaches_no_directors_action() {
    let ts = spawn_suite().await;
    let (_, event) = event_in_region(&ts, "Scorer Cup").await;
    let other_event = event_in_region(&ts, "Other Cup").await.1;
    entered(&ts, event, &["Ada", "Grace", "Alan", "Edsger"]).await;
    let scorer = ts
        .admin
        .create_api_key(&CreateApiKey {
            name: "Hall B".into(),
            role: Role::Scorer,
            event_ids: Some(vec![event]),
            region_ids: None,
        })
        .await
        .unwrap();
    let mut visitor = Visitor::new(&ts);
    visitor.sign_in(&scorer.api_key).await;
    let console = visitor.get("/console").await;
    assert!(console.body.contains("Scorer Cup") && !console.body.contains("Other Cup"));
    assert!(
        !console.body.contains("action=\"/console/events\""),
        "no new event"
    );
    let page = visitor.get(&format!("/console/events/{event}")).await;
    assert!(
        !page.body.contains("/rounds\""),
        "no draw control: {}",
        page.body
    );
    let csrf = page.hidden("csrf");

    // The director's actions answer a readable 403 and change nothing.
    let draw = visitor
        .post(
            &format!("/console/events/{event}/rounds"),
            &[("csrf", &csrf)],
        )
        .await;
    assert_eq!(draw.status, StatusCode::FORBIDDEN);
    assert!(draw.body.contains("<h1>"), "a page, not an error code");
    assert!(ts.admin.rounds(event).await.unwrap().is_empty());
    let elsewhere = visitor.get(&format!("/console/events/{other_event}")).await;
    assert_eq!(
        elsewhere.status,
        StatusCode::FORBIDDEN,
        "{}",
        elsewhere.body
    );

    // Result entry is his: a round drawn by the director, a sheet sent through the form.
    let round = ts
        .admin
        .draw_round(event, &catan_api::DrawRound::default())
        .await
        .unwrap();
    let table = &round.tables[0];
    let form = visitor
        .get(&format!("/console/events/{event}/rounds/1/tables/1"))
        .await;
    assert_eq!(form.status, StatusCode::OK);
    let mut fields: Vec<(String, String)> = vec![
        ("csrf".into(), form.hidden("csrf")),
        ("form_key".into(), form.hidden("form_key")),
        ("outcome".into(), "won".into()),
        ("winner".into(), table.seats[0].player_id.to_string()),
    ];
    for (i, seat) in table.seats.iter().enumerate() {
        let (settlements, cities) = if i == 0 { ("2", "4") } else { ("2", "1") };
        fields.push((format!("player{i}"), seat.player_id.to_string()));
        fields.push((format!("settlements{i}"), settlements.into()));
        fields.push((format!("cities{i}"), cities.into()));
    }
    let fields: Vec<(&str, &str)> = fields
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect();
    let sent = visitor
        .post(
            &format!("/console/events/{event}/rounds/1/tables/1"),
            &fields,
        )
        .await;
    assert_eq!(sent.status, StatusCode::SEE_OTHER, "{}", sent.body);
    let result = ts.admin.result(event, 1, 1).await.unwrap();
    assert_eq!(result.winner_player_id, Some(table.seats[0].player_id));
    assert_eq!(result.scores[0].vp, 10, "the VP added up by the server");
    ts.shutdown().await;
}

#[tokio::test]
async fn a_correction_made_meanwhile_by_someone_else_is_shown_never_overwritten() {
    let ts = spawn_suite().await;
    let (_, event) = event_in_region(&ts, "Conflict Cup").await;
    entered(&ts, event, &["Ada", "Grace", "Alan", "Edsger"]).await;
    let round = ts
        .admin
        .draw_round(event, &catan_api::DrawRound::default())
        .await
        .unwrap();
    let seated: Vec<Uuid> = round.tables[0].seats.iter().map(|s| s.player_id).collect();
    let sheet = |winner_cities: i64| catan_api::SubmitResult {
        outcome: catan_api::OutcomeKind::Won,
        winner_player_id: Some(seated[0]),
        winner_entry_id: None,
        scores: seated
            .iter()
            .enumerate()
            .map(|(i, p)| catan_api::ScoreInput {
                player_id: *p,
                vp: if i == 0 { 2 + 2 * winner_cities } else { 4 },
                breakdown: None,
            })
            .collect(),
        early_reason: None,
        checked: None,
    };
    ts.admin
        .submit_result(event, 1, 1, &sheet(4))
        .await
        .unwrap();

    let mut visitor = Visitor::new(&ts);
    visitor.sign_in(&ts.admin_key).await;
    let form = visitor
        .get(&format!("/console/events/{event}/rounds/1/tables/1"))
        .await;
    assert_eq!(form.hidden("if_match"), "\"v1\"");
    // Someone else corrects the result meanwhile.
    let (_, etag) = ts.admin.result_with_etag(event, 1, 1).await.unwrap();
    ts.admin
        .correct_result(event, 1, 1, &sheet(5), &etag)
        .await
        .unwrap();

    let mut fields: Vec<(String, String)> = vec![
        ("csrf".into(), form.hidden("csrf")),
        ("form_key".into(), form.hidden("form_key")),
        ("if_match".into(), form.hidden("if_match")),
        ("outcome".into(), "won".into()),
        ("winner".into(), seated[0].to_string()),
    ];
    for (i, player) in seated.iter().enumerate() {
        fields.push((format!("player{i}"), player.to_string()));
        fields.push((format!("settlements{i}"), "2".into()));
        fields.push((format!("cities{i}"), if i == 0 { "4" } else { "1" }.into()));
    }
    let fields: Vec<(&str, &str)> = fields
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect();
    let sent = visitor
        .post(
            &format!("/console/events/{event}/rounds/1/tables/1"),
            &fields,
        )
        .await;
    assert_eq!(sent.status, StatusCode::PRECONDITION_FAILED);
    assert!(sent.body.contains("id=\"conflict\""), "{}", sent.body);
    assert!(
        sent.body.contains("12 VP"),
        "the other version is shown: {}",
        sent.body
    );
    let current = ts.admin.result(event, 1, 1).await.unwrap();
    assert_eq!(
        (current.version, current.scores[0].vp),
        (2, 12),
        "not overwritten"
    );
    ts.shutdown().await;
}

#[tokio::test]
async fn a_director_drops_and_excludes_players_with_their_reasons_and_enters_one_late() {
    let ts = spawn_suite().await;
    let (_, event) = event_in_region(&ts, "Drop Cup").await;
    let entries: Vec<Uuid> = entered(&ts, event, &["Ada", "Grace", "Alan", "Edsger", "Barbara"])
        .await
        .iter()
        .map(|entry| entry.id)
        .collect();
    let director = ts
        .admin
        .create_api_key(&CreateApiKey {
            name: "Director".into(),
            role: Role::Director,
            event_ids: Some(vec![event]),
            region_ids: None,
        })
        .await
        .unwrap();
    let mut visitor = Visitor::new(&ts);
    visitor.sign_in(&director.api_key).await;
    let page = visitor.get(&format!("/console/events/{event}")).await;
    let csrf = page.hidden("csrf");
    let drop = |entry: Uuid| format!("/console/events/{event}/entries/{entry}/drop");
    let dropped = visitor
        .post(
            &drop(entries[0]),
            &[("csrf", &csrf), ("reason", "left early"), ("exclude", "")],
        )
        .await;
    assert_eq!(dropped.status, StatusCode::SEE_OTHER, "{}", dropped.body);
    let excluded = visitor
        .post(
            &drop(entries[1]),
            &[("csrf", &csrf), ("reason", "conduct"), ("exclude", "on")],
        )
        .await;
    assert_eq!(excluded.status, StatusCode::SEE_OTHER, "{}", excluded.body);
    // A drop without its reason is refused beside the form, and changes nothing.
    let blank = visitor
        .post(&drop(entries[2]), &[("csrf", &csrf), ("reason", " ")])
        .await;
    assert_eq!(blank.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(blank.body.contains("role=\"alert\""), "{}", blank.body);

    let listed = ts.admin.entries(event).await.unwrap();
    let status = |id: Uuid| {
        let entry = listed.iter().find(|e| e.id == id).unwrap();
        (entry.status, entry.status_reason.clone())
    };
    use catan_api::EntryStatus;
    assert_eq!(
        status(entries[0]),
        (EntryStatus::Dropped, Some("left early".into()))
    );
    assert_eq!(
        status(entries[1]),
        (EntryStatus::Excluded, Some("conduct".into()))
    );
    assert_eq!(status(entries[2]), (EntryStatus::Active, None));
    let shown = visitor.get(&format!("/console/events/{event}")).await;
    assert!(
        shown.body.contains("dropped · left early"),
        "{}",
        shown.body
    );

    // A late entry, once the first round is drawn: registered, entered, its PIN shown once.
    ts.admin
        .draw_round(event, &catan_api::DrawRound::default())
        .await
        .unwrap();
    let late = visitor
        .post(
            &format!("/console/events/{event}/players"),
            &[
                ("csrf", &csrf),
                ("form_key", &Uuid::new_v4().to_string()),
                ("names", "Late Comer"),
            ],
        )
        .await;
    assert_eq!(late.status, StatusCode::OK, "{}", late.body);
    assert!(
        late.body.contains("class=\"pin\""),
        "its PIN: {}",
        late.body
    );
    let entries = ts.admin.entries(event).await.unwrap();
    let entry = entries.iter().find(|e| e.name == "Late Comer").unwrap();
    assert_eq!(entry.status, EntryStatus::Active);
    ts.shutdown().await;
}

#[tokio::test]
async fn a_wrong_key_is_said_as_one_and_too_many_tries_as_a_wait() {
    let ts = catan_e2e::spawn_suite_configured(|settings| {
        settings.clients.sign_in_burst = 3.0;
        settings.clients.sign_in_per_second = 0.01;
    })
    .await;
    let mut visitor = Visitor::new(&ts);
    let form = visitor.get("/sign-in").await;
    let csrf = form.hidden("csrf");
    catan_e2e::visitor::refused_until_told_to_wait(
        6,
        "was not accepted",
        // One sign-in is given back every 100 s: the page says that wait, not a made-up one.
        "Too many tries from this connection: try again in 1 minute ",
        async || {
            visitor
                .post(
                    "/sign-in",
                    &[("csrf", &csrf), ("api_key", "cat_not_a_key"), ("next", "")],
                )
                .await
        },
    )
    .await;
    ts.shutdown().await;
}
