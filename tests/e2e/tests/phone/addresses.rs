//! The one address the suite is reached at (issue 41): a PIN slip's code, scanned, opens the
//! player's sign-in at the gateway's address (never the web app's own port), a new key's code
//! holds the API there, and a host a client forges in `X-Forwarded-Host` or `Forwarded` is never
//! written into either.

use super::phone_event;
use catan_e2e::spawn_suite;
use catan_e2e::visitor::Visitor;
use reqwest::StatusCode;
use uuid::Uuid;

/// Headers with which any client could claim another host.
const FORGED: [(&str, &str); 3] = [
    ("x-forwarded-host", "evil.example"),
    ("x-forwarded-proto", "https"),
    ("forwarded", "host=evil.example;proto=https"),
];

/// What a camera reads in each QR code of `html` (the pages draw them as inline SVG).
fn scanned(html: &str) -> Vec<String> {
    html.split("<svg")
        .skip(1)
        .filter_map(|rest| rest.split_once("</svg>").map(|(svg, _)| svg))
        .filter(|svg| svg.contains("crispEdges"))
        .map(|svg| scan(&format!("<svg{svg}</svg>")))
        .collect()
}

/// The text of the one QR code `svg` draws, drawn four times its size as a camera would see it.
fn scan(svg: &str) -> String {
    let tree = resvg::usvg::Tree::from_str(svg, &resvg::usvg::Options::default()).expect("an SVG");
    let size = tree.size().to_int_size();
    let scale = 4;
    let (width, height) = (size.width() * scale, size.height() * scale);
    let mut pixmap = resvg::tiny_skia::Pixmap::new(width, height).expect("a picture");
    let zoom = resvg::tiny_skia::Transform::from_scale(4.0, 4.0);
    resvg::render(&tree, zoom, &mut pixmap.as_mut());
    let side = |n: u32| usize::try_from(n).unwrap();
    let mut image =
        rqrr::PreparedImage::prepare_from_greyscale(side(width), side(height), |x, y| {
            let at = |n: usize| u32::try_from(n).unwrap();
            pixmap.pixel(at(x), at(y)).map_or(255, |p| p.red())
        });
    let grids = image.detect_grids();
    assert_eq!(grids.len(), 1, "one QR code in the picture");
    grids[0].decode().expect("the code reads").1
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_slips_code_opens_the_sign_in_at_the_suites_address_whatever_host_a_client_claims() {
    let ts = spawn_suite().await;
    let fx = phone_event(&ts, "Phone addresses", None, false).await;
    let id = fx.event.id;
    let gateway = ts.suite.url();
    let mut director = FORGED.iter().fold(Visitor::new(&ts), |v, (name, value)| {
        v.with_header(name, value)
    });
    director.sign_in(&fx.director_key).await;
    let console = director.get(&format!("/console/events/{id}")).await;
    let slips = director
        .post(
            &format!("/console/events/{id}/players"),
            &[
                ("csrf", &console.hidden("csrf")),
                ("form_key", &Uuid::new_v4().to_string()),
                ("names", "Ada Byron\nAlan Kay"),
            ],
        )
        .await;
    assert_eq!(slips.status, StatusCode::OK, "{}", slips.body);
    assert!(!slips.body.contains("evil.example"), "{}", slips.body);
    let sign_in = format!("{gateway}/events/{id}/sign-in");
    assert!(
        slips.body.contains(&sign_in),
        "the slip says where to sign in: {sign_in}"
    );
    let codes = scanned(&slips.body);
    assert_eq!(codes.len(), 2, "a code on each slip");
    let phone = reqwest::Client::new();
    for code in codes {
        let player = code
            .strip_prefix(&format!("{sign_in}?player="))
            .unwrap_or_else(|| panic!("{code} is the sign-in at the gateway's address"));
        // The phone opens it: the sign-in, with the player picked.
        let page = phone.get(&code).send().await.unwrap();
        assert_eq!(page.status(), StatusCode::OK, "{code}");
        let body = page.text().await.unwrap();
        assert!(
            body.contains(&format!("<option value=\"{player}\" selected")),
            "{code} picks its player"
        );
        assert!(body.contains("name=\"pin\""), "{code} asks for the PIN");
    }

    // A new key's code holds the API at the same address, which answers there.
    let mut admin = FORGED.iter().fold(Visitor::new(&ts), |v, (name, value)| {
        v.with_header(name, value)
    });
    admin.sign_in(&ts.admin_key).await;
    let keys = admin.get("/console/keys").await;
    let made = admin
        .post(
            "/console/keys",
            &[
                ("csrf", &keys.hidden("csrf")),
                ("form_key", &Uuid::new_v4().to_string()),
                ("name", "Table app"),
                ("role", "scorer"),
                ("event_id", &id.to_string()),
                ("region_id", ""),
            ],
        )
        .await;
    assert!(made.status.is_success(), "{}: {}", made.status, made.body);
    assert!(!made.body.contains("evil.example"), "{}", made.body);
    let codes = scanned(&made.body);
    assert_eq!(codes.len(), 1, "the key's code");
    let held: serde_json::Value = serde_json::from_str(&codes[0]).unwrap();
    let api = held["api"].as_str().unwrap();
    assert_eq!(api, format!("{gateway}/v1"));
    let event = phone
        .get(format!("{api}/events/{id}"))
        .send()
        .await
        .unwrap();
    assert_eq!(event.status(), StatusCode::OK, "the API answers at {api}");
    ts.shutdown().await;
}
