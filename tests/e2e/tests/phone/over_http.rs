//! The player's pages over plain HTTP: another table's player can neither report nor confirm
//! (the API's 403, shown readably), a player's session cannot reach the console, a form sent
//! again writes once, wrong PINs are held to the visitor's own address, a partner player finds
//! his own name and his table's board, each PIN slip carries its sign-in's code, and the
//! console's event form sets the players' options.

use super::phone_event;
use catan_api::{PlayerReporting, Table};
use catan_e2e::phone::{pin_of, post_sign_in, slip_path};
use catan_e2e::visitor::{Page, Visitor, refused_until_told_to_wait};
use catan_e2e::{spawn_suite, spawn_suite_configured};
use catan_kit::client::{CLIENT_ADDR_HEADER, PROXY_SECRET_HEADER};
use catan_kit::settings::SecretString;
use reqwest::StatusCode;
use uuid::Uuid;

/// The report form's fields for `table` as a person fills them (the first seat wins), with the
/// CSRF token and the key of the page `form` they were drawn on.
fn sheet_fields(form: &Page, table: &Table) -> Vec<(String, String)> {
    let mut fields = vec![
        ("csrf".to_owned(), form.hidden("csrf")),
        ("form_key".to_owned(), form.hidden("form_key")),
        ("outcome".to_owned(), "won".to_owned()),
        ("winner".to_owned(), table.seats[0].player_id.to_string()),
    ];
    for (i, seat) in table.seats.iter().enumerate() {
        let (settlements, cities) = [(2, 4), (3, 1), (2, 1), (2, 0)][i];
        fields.push((format!("player{i}"), seat.player_id.to_string()));
        fields.push((format!("settlements{i}"), format!("{settlements}")));
        fields.push((format!("cities{i}"), format!("{cities}")));
    }
    fields
}

async fn post_fields(visitor: &mut Visitor, path: &str, fields: &[(String, String)]) -> Page {
    let pairs: Vec<(&str, &str)> = fields
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect();
    visitor.post(path, &pairs).await
}

const REFUSED: &str = "This was refused: you confirm, dispute and report only for the tables";

#[tokio::test]
async fn another_tables_player_neither_reports_nor_confirms_and_no_player_reaches_the_console() {
    let ts = spawn_suite().await;
    let fx = phone_event(&ts, "Phone rights", Some(PlayerReporting::Report), false).await;
    let id = fx.event.id;
    let round = fx.draw().await;
    let (here, there) = (&round.tables[0], &round.tables[1]);
    let (reporter, outsider) = (here.seats[0].player_id, there.seats[0].player_id);
    let mut stranger = Visitor::new(&ts);
    let signed = post_sign_in(&mut stranger, id, outsider, &pin_of(&fx.entries, outsider)).await;
    assert_eq!(signed.status, StatusCode::SEE_OTHER, "{}", signed.body);
    assert_eq!(signed.location, Some(format!("/events/{id}/me")));

    // A sheet for the table he does not sit at: the API refuses it, the page says so.
    let report = format!("/events/{id}/me/rounds/1/tables/{}/report", here.number);
    let form = stranger.get(&report).await;
    let refused = post_fields(&mut stranger, &report, &sheet_fields(&form, here)).await;
    assert_eq!(refused.status, StatusCode::FORBIDDEN);
    assert!(refused.body.contains(REFUSED), "{}", refused.body);
    let none = ts.admin.result(id, 1, here.number).await.unwrap_err();
    assert_eq!(none.status(), Some(404), "nothing recorded");

    // The seated player's sheet, sent twice with one form (a phone sending it again once the
    // network is back): accepted both times, written once, confirmed once.
    let mut seated_visitor = Visitor::new(&ts);
    post_sign_in(
        &mut seated_visitor,
        id,
        reporter,
        &pin_of(&fx.entries, reporter),
    )
    .await;
    let form = seated_visitor.get(&report).await;
    let fields = sheet_fields(&form, here);
    for _ in 0..2 {
        let sent = post_fields(&mut seated_visitor, &report, &fields).await;
        assert_eq!(sent.status, StatusCode::SEE_OTHER, "{}", sent.body);
    }
    let history = ts.admin.result_history(id, 1, here.number).await.unwrap();
    assert_eq!(history.items.len(), 1, "one version");
    assert_eq!(history.items[0].confirmed_by, vec![reporter]);

    // Nor does he confirm or dispute that table's result.
    let me = stranger.get(&format!("/events/{id}/me")).await;
    let csrf = me.hidden("csrf");
    for (action, reason) in [("confirm", ""), ("dispute", "not my table")] {
        let path = format!("/events/{id}/me/rounds/1/tables/{}/{action}", here.number);
        let key = Uuid::new_v4().to_string();
        let answer = stranger
            .post(
                &path,
                &[("csrf", &csrf), ("form_key", &key), ("reason", reason)],
            )
            .await;
        assert_eq!(answer.status, StatusCode::FORBIDDEN, "{action}");
        assert!(answer.body.contains(REFUSED), "{action}: {}", answer.body);
    }
    let held = ts.admin.result(id, 1, here.number).await.unwrap();
    assert_eq!(held.confirmed_by, vec![reporter]);
    assert!(held.disputes.is_empty());

    // A player's session gets a readable 403 on every console page.
    for path in [
        "/console".to_owned(),
        format!("/console/events/{id}"),
        "/console/keys".to_owned(),
    ] {
        let page = stranger.get(&path).await;
        assert_eq!(page.status, StatusCode::FORBIDDEN, "{path}");
        assert!(
            page.body.contains("The console is for the event's staff"),
            "{path}: {}",
            page.body
        );
        assert!(
            page.body.contains(&format!("href=\"/events/{id}/me\"")),
            "{path}: the way back to his own page"
        );
    }
    ts.shutdown().await;
}

#[tokio::test]
async fn wrong_pins_are_held_to_the_visitors_own_address() {
    let secret = "cps_phone_test_secret";
    let ts = spawn_suite_configured(|settings| {
        settings.clients.proxy_secret = Some(SecretString::from(secret));
    })
    .await;
    let fx = phone_event(&ts, "Phone PINs", None, false).await;
    let id = fx.event.id;
    let player = fx.entries[0].player_ids[0];
    // Two visitors at the venue, each at his own address as the edge in front vouches for it.
    let from = |address: &str| {
        Visitor::new(&ts)
            .with_header(CLIENT_ADDR_HEADER, address)
            .with_header(PROXY_SECRET_HEADER, secret)
    };
    let mut guesser = from("203.0.113.7");
    refused_until_told_to_wait(
        12,
        "This PIN does not match this name",
        "Wrong PIN too many times: try again in ",
        async || post_sign_in(&mut guesser, id, player, "WRONG234").await,
    )
    .await;
    // The wait said is the API's, to the second (never "a minute").
    let mut waits = post_sign_in(&mut guesser, id, player, "WRONG234").await;
    if waits.status == StatusCode::UNAUTHORIZED {
        // The first second's wait ran out meanwhile: this wrong PIN makes it two.
        waits = post_sign_in(&mut guesser, id, player, "WRONG234").await;
    }
    assert_eq!(
        waits.status,
        StatusCode::TOO_MANY_REQUESTS,
        "{}",
        waits.body
    );
    assert!(
        (1..=8).any(|s| {
            let unit = if s == 1 { "second" } else { "seconds" };
            waits.body.contains(&format!("try again in {s} {unit}."))
        }),
        "{}",
        waits.body
    );
    assert!(!waits.body.contains("minute"), "{}", waits.body);

    // Another player at the guesser's address signs in at once: the waits are per player.
    let neighbour = fx.entries[1].player_ids[0];
    let mut beside = from("203.0.113.7");
    let signed = post_sign_in(&mut beside, id, neighbour, &pin_of(&fx.entries, neighbour)).await;
    assert_eq!(signed.status, StatusCode::SEE_OTHER, "{}", signed.body);
    // The player himself, at another address, signs in at once.
    let mut owner = from("198.51.100.20");
    let signed = post_sign_in(&mut owner, id, player, &pin_of(&fx.entries, player)).await;
    assert_eq!(signed.status, StatusCode::SEE_OTHER, "{}", signed.body);
    ts.shutdown().await;
}

/// Issue 41, item 4: the player's sign-in button says sign in, and the staff's page says whose
/// sign-in it is, in each language.
#[tokio::test]
async fn the_players_sign_in_says_sign_in_and_the_staffs_says_it_is_for_staff() {
    let ts = spawn_suite().await;
    let fx = phone_event(&ts, "Phone sign-in words", None, false).await;
    let player = fx.entries[0].player_ids[0];
    for (tag, button, staff) in [
        ("en", "Sign in", "Staff sign-in"),
        ("es", "Entrar", "Acceso del personal"),
        ("zh", "登录", "工作人员登录"),
    ] {
        let mut visitor = Visitor::new(&ts).with_header("accept-language", tag);
        let form = visitor.get(&slip_path(fx.event.id, player)).await;
        assert_eq!(form.status, StatusCode::OK);
        assert!(
            form.body
                .contains(&format!("<button type=\"submit\">{button}</button>")),
            "{tag}: {}",
            form.body
        );
        assert!(
            !form.body.contains(&format!(">{staff}</button>")),
            "{tag}: not the staff's"
        );
        let console = visitor.get("/sign-in").await;
        assert!(
            console.body.contains(&format!("<h1>{staff}</h1>")),
            "{tag}: {}",
            console.body
        );
        assert!(
            console
                .body
                .contains(&format!("<button type=\"submit\">{button}</button>")),
            "{tag}: {}",
            console.body
        );
    }
    ts.shutdown().await;
}

#[tokio::test]
async fn a_partner_player_picks_his_own_name_and_sees_his_tables_players_and_board() {
    let ts = spawn_suite().await;
    let fx = ts.partner_event(4).await;
    let id = fx.event.id;
    let round = fx.draw().await;
    let table = &round.tables[0];
    let player = table.seats[0].player_id;
    let mut visitor = Visitor::new(&ts);
    let form = visitor.get(&slip_path(id, player)).await;
    let team = fx
        .entries
        .iter()
        .find(|e| e.player_ids.contains(&player))
        .unwrap();
    let own = ts.admin.player(player).await.unwrap().name;
    assert!(
        form.body.contains(&format!("{own} ({})", team.name)),
        "each member of a team by his own name"
    );
    post_sign_in(&mut visitor, id, player, &pin_of(&fx.entries, player)).await;
    let me = visitor.get(&format!("/events/{id}/me")).await;
    assert_eq!(me.status, StatusCode::OK);
    for seat in &table.seats {
        let name = ts.admin.player(seat.player_id).await.unwrap().name;
        assert!(me.body.contains(&name), "{name} at his table");
    }
    assert!(me.body.contains(&format!(
        "/events/{id}/rounds/1/tables/{}/board.svg",
        table.number
    )));
    ts.shutdown().await;
}

#[tokio::test]
async fn each_pin_slip_carries_a_code_of_its_players_sign_in() {
    let ts = spawn_suite().await;
    let fx = phone_event(&ts, "Phone slips", None, false).await;
    let id = fx.event.id;
    let mut director = Visitor::new(&ts);
    director.sign_in(&fx.director_key).await;
    let console = director.get(&format!("/console/events/{id}")).await;
    let csrf = console.hidden("csrf");
    let key = Uuid::new_v4().to_string();
    let slips = director
        .post(
            &format!("/console/events/{id}/players"),
            &[
                ("csrf", &csrf),
                ("form_key", &key),
                ("names", "Ada Byron\nAlan Kay"),
            ],
        )
        .await;
    assert_eq!(slips.status, StatusCode::OK, "{}", slips.body);
    assert_eq!(slips.body.matches("<li class=\"slip\">").count(), 2);
    assert_eq!(
        slips
            .body
            .matches("<figure class=\"qr slip-qr\"><svg")
            .count(),
        2,
        "a code on each slip"
    );
    assert!(slips.body.contains(&format!("/events/{id}/sign-in")));
    let pins: Vec<&str> = slips
        .body
        .split("<code class=\"pin\">")
        .skip(1)
        .filter_map(|rest| rest.split('<').next())
        .collect();
    assert_eq!(pins.len(), 2, "{}", slips.body);
    for pin in pins {
        assert_eq!(
            slips.body.matches(pin).count(),
            1,
            "{pin} is shown once, on its slip"
        );
    }
    ts.shutdown().await;
}

#[tokio::test]
async fn the_consoles_event_form_sets_the_players_options() {
    let ts = spawn_suite().await;
    let fx = phone_event(&ts, "Phone options", None, false).await;
    let id = fx.event.id;
    let mut admin = Visitor::new(&ts);
    admin.sign_in(&ts.admin_key).await;
    let page = admin.get(&format!("/console/events/{id}")).await;
    assert!(
        page.body.contains("<option value=\"confirm\" selected>"),
        "the default shown"
    );
    let (csrf, key) = (page.hidden("csrf"), Uuid::new_v4().to_string());
    let saved = admin
        .post(
            &format!("/console/events/{id}/edit"),
            &[
                ("csrf", &csrf),
                ("form_key", &key),
                ("name", "Phone options"),
                ("player_reporting", "report"),
                ("players_may_drop", "on"),
            ],
        )
        .await;
    assert_eq!(saved.status, StatusCode::SEE_OTHER, "{}", saved.body);
    let event = ts.admin.event(id).await.unwrap();
    assert_eq!(
        (event.player_reporting, event.players_may_drop),
        (PlayerReporting::Report, true)
    );
    ts.shutdown().await;
}
