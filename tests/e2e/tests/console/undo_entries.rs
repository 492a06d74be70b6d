//! The director undoes what was done to entries in the console (issue 41, items 3 and 5), by
//! clicks and typing: a misspelt name corrected (the public standings then show it), a drop undone
//! before the next draw and refused after it, a key revoked (the API then refuses it); and a list
//! of names that asks before it registers anyone: a name twice, a name a player of the region has,
//! a line too long (the list kept, the line named), a quoted CSV name with a comma.

use catan_api::{CreateEntry, CreatePlayer, EntryStatus, Role};
use catan_e2e::browser::Browser;
use catan_e2e::console::{assert_accessible, path_of, register, said, sign_in};
use catan_e2e::fixtures::regional_event;
use catan_e2e::phone::{PHONE_WIDTH, assert_fits_phone};
use catan_e2e::{eventually, new_key, spawn_suite};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use uuid::Uuid;

/// The text of the page's main content.
async fn page_text(browser: &Browser) -> String {
    let text = browser
        .js("return document.querySelector('main').innerText;")
        .await;
    text.as_str().unwrap_or_default().to_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_director_undoes_from_the_console_and_the_api_follows() {
    let ts = spawn_suite().await;
    let base = ts.suite.url();
    let fx = ts.classic_event(8, Some(3)).await;
    let event_id = fx.event.id;
    let event_path = format!("/console/events/{event_id}");
    let mut rng = ChaCha8Rng::seed_from_u64(41);
    let round1 = fx.draw().await;
    for table in &round1.tables {
        fx.submit_random(&round1, table, &mut rng).await;
    }
    let browser = Browser::open().await;
    sign_in(&browser, &base, &fx.director_key).await;

    // A misspelt name corrected from the entries: the page says so, and the public standings
    // show the new name.
    let misspelt = &fx.entries[2];
    let player = misspelt.player_id.unwrap();
    browser.go(&format!("{base}{event_path}")).await;
    browser.resize(PHONE_WIDTH, 800).await;
    let rename = format!("form[action$='/entries/{}/rename']", misspelt.id);
    browser
        .click(&format!("#entries details.rename:has({rename}) summary"))
        .await;
    assert_fits_phone(&browser, "the entries with a rename open").await;
    assert_accessible(&browser, "the entries with a rename open").await;
    let field = format!("#rename-{player}");
    browser
        .js(&format!("document.querySelector('{field}').value = '';"))
        .await;
    browser.type_into(&field, "Pere Pons").await;
    browser
        .click_to_next_page(&format!("{rename} button[type=submit]"))
        .await;
    assert_eq!(path_of(&browser).await, event_path);
    assert_eq!(said(&browser).await, ["Player renamed"]);
    let names = browser.texts("#entries tbody td.lead").await;
    assert!(names.contains(&"Pere Pons".to_owned()), "{names:?}");
    assert_eq!(
        ts.admin.player(player).await.unwrap().name,
        "Pere Pons",
        "the API has the new name"
    );
    ts.settled().await;
    browser.go(&format!("{base}/events/{event_id}")).await;
    let standings = page_text(&browser).await;
    assert!(
        standings.contains("Pere Pons") && !standings.contains(&misspelt.name),
        "the public standings show the new name, never the old: {standings}"
    );

    // A player dropped by mistake comes back before the next draw.
    let back = &fx.entries[0];
    browser.go(&format!("{base}{event_path}")).await;
    browser
        .type_into(&format!("#reason-{}", back.id), "did not show")
        .await;
    browser
        .click_to_next_page(&format!(
            "#entries form[action$='/entries/{}/drop'] button[name=exclude][value='']",
            back.id
        ))
        .await;
    let dropped = ts.admin.entries(event_id).await.unwrap();
    let status = |entries: &[catan_api::Entry], id: Uuid| {
        entries.iter().find(|e| e.id == id).unwrap().status
    };
    assert_eq!(status(&dropped, back.id), EntryStatus::Dropped);
    browser.go(&format!("{base}{event_path}")).await;
    let reinstate = |id: Uuid| format!("#entries form[action$='/entries/{id}/reinstate'] button");
    assert_fits_phone(&browser, "the entries with a drop to undo").await;
    assert_accessible(&browser, "the entries with a drop to undo").await;
    browser.click_to_next_page(&reinstate(back.id)).await;
    assert_eq!(said(&browser).await, ["Entry reinstated"]);
    let entries = ts.admin.entries(event_id).await.unwrap();
    assert_eq!(status(&entries, back.id), EntryStatus::Active);
    assert!(
        browser.texts(&reinstate(back.id)).await.is_empty(),
        "an active entry has nothing to undo"
    );

    // Once a round is drawn after the drop, it is refused in words and nothing changes.
    let gone = &fx.entries[1];
    let reason = catan_api::DropEntry {
        reason: "went home".into(),
        exclude: false,
    };
    fx.director
        .drop_entry(event_id, gone.id, &reason)
        .await
        .unwrap();
    let round2 = fx.draw().await;
    assert!(
        round2
            .tables
            .iter()
            .flat_map(|t| &t.seats)
            .any(|s| s.player_id == back.player_id.unwrap()),
        "the reinstated player is seated in round 2"
    );
    browser.go(&format!("{base}{event_path}")).await;
    browser.click_to_next_page(&reinstate(gone.id)).await;
    let refusal = browser.texts("[role=alert]").await.join(" ");
    assert!(
        refusal.contains("round 2 was drawn after the entry was dropped"),
        "{refusal}"
    );
    let entries = ts.admin.entries(event_id).await.unwrap();
    assert_eq!(status(&entries, gone.id), EntryStatus::Dropped);
    browser.close().await;

    // The admin revokes a director key from the keys page: the page says so and lists it
    // revoked, and the API refuses the key and the token it had.
    let doomed = ts
        .admin
        .create_api_key(&new_key(
            "Hall C tablet",
            Role::Director,
            Some(vec![event_id]),
        ))
        .await
        .unwrap();
    let token = ts.token(&doomed.api_key).await;
    let browser = Browser::open().await;
    sign_in(&browser, &base, &ts.admin_key).await;
    browser.resize(PHONE_WIDTH, 800).await;
    browser.go(&format!("{base}/console/keys")).await;
    assert_fits_phone(&browser, "the keys").await;
    assert_accessible(&browser, "the keys").await;
    browser
        .click_to_next_page(&format!(
            "form[action='/console/keys/{}/revoke'] button",
            doomed.id
        ))
        .await;
    assert_eq!(path_of(&browser).await, "/console/keys");
    assert_eq!(said(&browser).await, ["Key revoked: it signs in no more"]);
    let row = browser
        .texts(&format!(
            "#keys tbody tr:has(form[action='/console/keys/{}/revoke'])",
            doomed.id
        ))
        .await;
    assert!(row.is_empty(), "no Revoke button on a revoked key");
    let rows = browser.texts("#keys tbody tr").await;
    assert!(
        rows.iter()
            .any(|r| r.contains("Hall C tablet") && r.contains("revoked")),
        "{rows:?}"
    );
    assert_accessible(&browser, "the keys after a revocation").await;
    for lang in ["es", "zh-Hans"] {
        browser
            .go(&format!("{base}/lang?to={lang}&back=/console/keys"))
            .await;
        assert_fits_phone(&browser, &format!("the keys in {lang}")).await;
        assert_accessible(&browser, &format!("the keys in {lang}")).await;
    }
    let refused = ts.anonymous.token(&doomed.api_key).await;
    assert_eq!(
        refused.unwrap_err().status(),
        Some(401),
        "the key signs in no more"
    );
    let with_old_token = ts.anonymous.with_token(token);
    eventually(10, "the revoked key's token refused", async || {
        let answer = with_old_token.me().await;
        (answer.err()?.status() == Some(401)).then_some(())
    })
    .await;
    browser.close().await;
    ts.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn names_are_asked_about_never_merged_or_linked_on_the_name_alone() {
    let ts = spawn_suite().await;
    let base = ts.suite.url();
    // Ana García played the region's winter open.
    let region = ts.admin.create_region("Names North").await.unwrap().id;
    let winter = ts
        .admin
        .create_event(&regional_event("Winter open", region))
        .await
        .unwrap();
    let ana = ts
        .admin
        .create_player(&CreatePlayer {
            name: "Ana García".into(),
            region_id: Some(region),
        })
        .await
        .unwrap();
    ts.admin
        .create_entry(winter.id, &CreateEntry::player(ana.id))
        .await
        .unwrap();
    let spring = ts.event(&regional_event("Spring open", region)).await;
    let event_id = spring.event.id;
    ts.settled().await;
    let browser = Browser::open().await;
    sign_in(&browser, &base, &spring.director_key).await;
    browser.resize(PHONE_WIDTH, 800).await;
    browser
        .go(&format!("{base}/console/events/{event_id}"))
        .await;

    // A line of 250 characters: nothing registered, the list kept as typed, the line named.
    let long = "x".repeat(250);
    let typed = format!("Lin Wei\n{long}\nBo Chen");
    register(&browser, &typed).await;
    let kept = browser
        .js("return document.querySelector('#names').value;")
        .await;
    assert_eq!(kept.as_str(), Some(typed.as_str()), "the list is kept");
    let errors = browser.texts("#names-errors li").await;
    assert_eq!(
        errors,
        ["Line 2: this name has 250 characters; a name has at most 200"]
    );
    assert!(!page_text(&browser).await.contains("q must"));
    assert_fits_phone(&browser, "a list with a bad line").await;
    assert_accessible(&browser, "a list with a bad line").await;
    assert!(ts.admin.entries(event_id).await.unwrap().is_empty());
    // The same list in Spanish and Chinese: the line named in the page's language.
    for (lang, said) in [
        ("es", "Línea 2: este nombre tiene 250 caracteres"),
        ("zh-Hans", "第 2 行：这个名字有 250 个字符"),
    ] {
        let event_page = format!("/console/events/{event_id}");
        browser
            .go(&format!("{base}/lang?to={lang}&back={event_page}"))
            .await;
        register(&browser, &typed).await;
        let errors = browser.texts("#names-errors li").await;
        assert!(errors[0].starts_with(said), "{errors:?}");
        assert_fits_phone(&browser, &format!("a bad line in {lang}")).await;
        assert_accessible(&browser, &format!("a bad line in {lang}")).await;
    }
    browser
        .go(&format!(
            "{base}/lang?to=en&back=/console/events/{event_id}"
        ))
        .await;
    register(&browser, &typed).await;

    // A name twice and a name the region knows: asked before anyone is registered.
    browser
        .js("document.querySelector('#names').value = '';")
        .await;
    register(
        &browser,
        "Pere Pons\n\"Smith, Ana\"\npere pons\nAna Garcia\nLuis Gil\nLuis Gil",
    )
    .await;
    let questions = browser.texts(".names-questions legend").await;
    assert_eq!(questions.len(), 3, "{questions:?}");
    assert_eq!(
        questions[0],
        "The list has Pere Pons on lines 1, 3. Are they two people?"
    );
    assert!(
        questions[2].starts_with("Line 4: Ana Garcia"),
        "{questions:?}"
    );
    assert!(questions[2].contains("Is this the same person?"));
    let offered = browser.texts(".names-questions .known-events").await;
    assert_eq!(offered.len(), 1, "{offered:?}");
    assert!(
        offered[0].starts_with("Ana García") && offered[0].contains("Winter open"),
        "the player is offered with the events he played: {offered:?}"
    );
    assert_fits_phone(&browser, "the list's questions").await;
    assert_accessible(&browser, "the list's questions").await;
    assert!(
        ts.admin.entries(event_id).await.unwrap().is_empty(),
        "nobody registered before the answers"
    );
    browser.click("input[name='twice.1.0'][value=two]").await;
    browser.click("input[name='twice.5.0'][value=one]").await;
    browser
        .click(&format!("input[name='known.4.0'][value='{}']", ana.id))
        .await;
    browser
        .click_to_next_page(".names-questions button[type=submit]")
        .await;
    assert_eq!(
        path_of(&browser).await,
        format!("/console/events/{event_id}")
    );
    let slips = browser.texts(".slip-name").await;
    assert_eq!(slips.len(), 5, "five PINs shown: {slips:?}");

    let entries = ts.admin.entries(event_id).await.unwrap();
    let mut names: Vec<&str> = entries.iter().map(|e| e.name.as_str()).collect();
    names.sort_unstable();
    assert_eq!(
        names,
        [
            "Ana García",
            "Luis Gil",
            "Pere Pons",
            "Smith, Ana",
            "pere pons"
        ],
        "two Pere Pons (each as typed), one Luis Gil, and \"Smith, Ana\" one name"
    );
    let anas: Vec<_> = entries.iter().filter(|e| e.name == "Ana García").collect();
    assert_eq!(
        anas[0].player_id,
        Some(ana.id),
        "the same person, as chosen"
    );
    let peres: Vec<Uuid> = entries
        .iter()
        .filter(|e| e.name.eq_ignore_ascii_case("Pere Pons"))
        .filter_map(|e| e.player_id)
        .collect();
    assert_ne!(peres[0], peres[1], "two people of one name are two players");
    browser.close().await;
    ts.shutdown().await;
}
