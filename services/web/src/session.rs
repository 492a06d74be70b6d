//! Sessions of the people who sign in: a cookie that holds the session sealed (encrypted and
//! authenticated with XChaCha20-Poly1305) under the web app's session key, so that any replica
//! that has the key reads it and nothing is kept on the server. The cookie is `HttpOnly`,
//! `SameSite=Strict`, `Secure` over https, and lives as long as the API token it holds.
//!
//! Every session carries a CSRF token, which every form repeats: a POST whose form does not is
//! refused. A visitor who has not signed in gets a session with the CSRF token alone when a page
//! draws a form for him (the sign-in form).

use crate::i18n::Lang;
use actix_web::HttpRequest;
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use catan_api::{Caller, Position, Region, Role};
use chacha20poly1305::aead::{Aead, KeyInit};
use chacha20poly1305::{Key, XChaCha20Poly1305, XNonce};
use rand::RngCore;
use secrecy::{ExposeSecret, SecretString};
use serde::{Deserialize, Serialize};
use uuid::Uuid;

/// The cookie's name.
pub const COOKIE: &str = "catan_session";

/// The form field every form repeats its session's CSRF token in.
pub const CSRF_FIELD: &str = "csrf";

/// The key sessions are sealed with.
#[derive(Clone)]
pub struct SessionKey(XChaCha20Poly1305);

impl SessionKey {
    /// The key made from `secret` (any text; replicas given the same text read each other's
    /// sessions), else a random one: sessions then last as long as this process.
    pub fn new(secret: Option<&SecretString>) -> SessionKey {
        let bytes: [u8; 32] = match secret {
            Some(secret) => {
                use sha2::Digest;
                sha2::Sha256::digest(secret.expose_secret().as_bytes()).into()
            }
            None => {
                let mut bytes = [0u8; 32];
                rand::rng().fill_bytes(&mut bytes);
                bytes
            }
        };
        SessionKey(XChaCha20Poly1305::new(Key::from_slice(&bytes)))
    }

    /// The key of `CATAN_WEB_SESSION_KEY`, else a random one.
    pub fn from_env() -> SessionKey {
        let secret = std::env::var("CATAN_WEB_SESSION_KEY")
            .ok()
            .filter(|s| !s.trim().is_empty())
            .map(SecretString::from);
        SessionKey::new(secret.as_ref())
    }

    fn seal(&self, plain: &[u8]) -> String {
        let mut nonce = [0u8; 24];
        rand::rng().fill_bytes(&mut nonce);
        // Encryption fails only for a message past 256 GiB.
        let sealed = self
            .0
            .encrypt(XNonce::from_slice(&nonce), plain)
            .unwrap_or_default();
        let mut out = nonce.to_vec();
        out.extend(sealed);
        URL_SAFE_NO_PAD.encode(out)
    }

    fn open(&self, sealed: &str) -> Option<Vec<u8>> {
        let bytes = URL_SAFE_NO_PAD.decode(sealed).ok()?;
        if bytes.len() < 24 {
            return None;
        }
        let (nonce, sealed) = bytes.split_at(24);
        self.0.decrypt(XNonce::from_slice(nonce), sealed).ok()
    }
}

/// A visitor's session.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Session {
    /// What every form of this session repeats.
    pub csrf: String,
    /// Who signed in, if anyone.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signed_in: Option<SignedIn>,
    /// The `Catan-Position` of the writes this session made: the next page waits for them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub position: Option<String>,
}

/// A signed-in person: the API token the web app acts with on his behalf, and what it allows.
#[derive(Clone, Serialize, Deserialize)]
pub struct SignedIn {
    pub token: String,
    pub role: Role,
    pub subject: Uuid,
    #[serde(default)]
    pub event_ids: Option<Vec<Uuid>>,
    #[serde(default)]
    pub region_ids: Option<Vec<Uuid>>,
    /// Seconds since the epoch.
    pub expires_at: i64,
}

impl std::fmt::Debug for SignedIn {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SignedIn")
            .field("role", &self.role)
            .field("subject", &self.subject)
            .finish_non_exhaustive()
    }
}

impl SignedIn {
    pub fn new(token: String, caller: Caller) -> SignedIn {
        SignedIn {
            token,
            role: caller.role,
            subject: caller.subject,
            event_ids: caller.event_ids,
            region_ids: caller.region_ids,
            expires_at: caller.expires_at.timestamp(),
        }
    }

    /// Whether this person may act on `event_id` of `region_id` in one of `roles`, as the API
    /// will decide it too: the admin always; an organiser, named among `roles`, on the events of
    /// his regions; a director or scorer on the events his key names.
    pub fn may_run(&self, event_id: Uuid, region_id: Option<Uuid>, roles: &[Role]) -> bool {
        match self.role {
            Role::Admin => true,
            Role::Organiser => {
                roles.contains(&Role::Organiser)
                    && region_id.is_some_and(|region| {
                        self.region_ids
                            .as_ref()
                            .is_some_and(|regions| regions.contains(&region))
                    })
            }
            role => {
                roles.contains(&role)
                    && self
                        .event_ids
                        .as_ref()
                        .is_some_and(|events| events.contains(&event_id))
            }
        }
    }

    pub fn is_staff(&self) -> bool {
        self.role != Role::Player
    }

    /// The regions among `regions` this person's key names (all of them when it names none).
    pub fn own_regions<'a>(&self, regions: &'a [Region]) -> Vec<&'a Region> {
        regions
            .iter()
            .filter(|r| {
                self.region_ids
                    .as_ref()
                    .is_none_or(|ids| ids.contains(&r.id))
            })
            .collect()
    }

    /// A player's event (a player token is for one event only).
    pub fn player_event(&self) -> Option<Uuid> {
        if self.role != Role::Player {
            return None;
        }
        self.event_ids.as_ref()?.first().copied()
    }

    /// Whether this is a player of `event_id`.
    pub fn plays_in(&self, event_id: Uuid) -> bool {
        self.player_event() == Some(event_id)
    }
}

impl Session {
    /// A new session with a fresh CSRF token and nobody signed in.
    pub fn fresh() -> Session {
        let mut bytes = [0u8; 24];
        rand::rng().fill_bytes(&mut bytes);
        Session {
            csrf: URL_SAFE_NO_PAD.encode(bytes),
            signed_in: None,
            position: None,
        }
    }

    /// The session of `req`'s cookie, if it has one that opens and has not expired.
    pub fn of(req: &HttpRequest, key: &SessionKey) -> Option<Session> {
        let sealed = req
            .headers()
            .get_all("cookie")
            .filter_map(|v| v.to_str().ok())
            .flat_map(|v| v.split(';'))
            .find_map(|pair| pair.trim().strip_prefix(&format!("{COOKIE}=")))?;
        let mut session: Session = serde_json::from_slice(&key.open(sealed)?).ok()?;
        if session
            .signed_in
            .as_ref()
            .is_some_and(|s| s.expires_at <= chrono::Utc::now().timestamp())
        {
            session.signed_in = None;
            session.position = None;
        }
        Some(session)
    }

    /// Whether `sent` is this session's CSRF token (compared in constant time).
    pub fn csrf_matches(&self, sent: &str) -> bool {
        use subtle::ConstantTimeEq;
        bool::from(self.csrf.as_bytes().ct_eq(sent.as_bytes()))
    }

    /// The position of the writes this session made.
    pub fn position(&self) -> Position {
        self.position
            .as_deref()
            .and_then(|text| Position::parse(text).ok())
            .unwrap_or_default()
    }

    /// The `Set-Cookie` value that keeps this session in the browser.
    pub fn cookie(&self, key: &SessionKey, req: &HttpRequest) -> String {
        let plain = serde_json::to_vec(self).unwrap_or_default();
        let lifetime = match &self.signed_in {
            Some(signed_in) => format!(
                "; Max-Age={}",
                (signed_in.expires_at - chrono::Utc::now().timestamp()).max(0)
            ),
            // Until the browser closes.
            None => String::new(),
        };
        format!(
            "{COOKIE}={}; Path=/; HttpOnly; SameSite=Strict{lifetime}{}",
            key.seal(&plain),
            secure(req)
        )
    }

    /// The `Set-Cookie` value that ends a session.
    pub fn cleared(req: &HttpRequest) -> String {
        format!(
            "{COOKIE}=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0{}",
            secure(req)
        )
    }
}

/// `; Secure` when the visitor came over https (as the gateway or ingress in front says), or the
/// suite's public address is an https one.
fn secure(req: &HttpRequest) -> &'static str {
    let public_https = req
        .app_data::<actix_web::web::Data<crate::State>>()
        .is_some_and(|state| state.public_url(req).is_https());
    if public_https || req.connection_info().scheme() == "https" {
        "; Secure"
    } else {
        ""
    }
}

/// The words for a role, in `lang`.
pub fn role_word(lang: Lang, role: Role) -> &'static str {
    let w = lang.words();
    match role {
        Role::Admin => w.role_admin,
        Role::Organiser => w.role_organiser,
        Role::Director => w.role_director,
        Role::Scorer => w.role_scorer,
        Role::Player => w.player,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(text: &str) -> SessionKey {
        SessionKey::new(Some(&SecretString::from(text.to_owned())))
    }

    #[test]
    fn a_sealed_session_opens_only_with_its_key_and_unchanged() {
        let sealed = key("one").seal(b"{\"csrf\":\"x\"}");
        assert_eq!(key("one").open(&sealed).unwrap(), b"{\"csrf\":\"x\"}");
        assert!(key("two").open(&sealed).is_none());
        let mut tampered = sealed.into_bytes();
        let last = tampered.len() - 2;
        tampered[last] = if tampered[last] == b'A' { b'B' } else { b'A' };
        assert!(
            key("one")
                .open(&String::from_utf8(tampered).unwrap())
                .is_none()
        );
        assert!(key("one").open("short").is_none());
    }

    #[test]
    fn the_csrf_token_is_fresh_each_session_and_compared_exactly() {
        let (a, b) = (Session::fresh(), Session::fresh());
        assert_ne!(a.csrf, b.csrf);
        assert!(a.csrf_matches(&a.csrf.clone()));
        assert!(!a.csrf_matches(&b.csrf));
        assert!(!a.csrf_matches(""));
    }

    #[test]
    fn an_organiser_sets_up_the_events_of_his_regions_and_a_director_runs_his_events() {
        let (region, event) = (Uuid::new_v4(), Uuid::new_v4());
        let person = |role, events: Option<Vec<Uuid>>, regions: Option<Vec<Uuid>>| SignedIn {
            token: String::new(),
            role,
            subject: Uuid::new_v4(),
            event_ids: events,
            region_ids: regions,
            expires_at: 0,
        };
        let organiser = person(Role::Organiser, None, Some(vec![region]));
        let setting_up = [Role::Director, Role::Organiser];
        assert!(organiser.may_run(event, Some(region), &setting_up));
        assert!(!organiser.may_run(event, Some(Uuid::new_v4()), &setting_up));
        assert!(
            !organiser.may_run(event, Some(region), &[Role::Director]),
            "an organiser draws no rounds"
        );
        let director = person(Role::Director, Some(vec![event]), None);
        assert!(director.may_run(event, None, &[Role::Director]));
        assert!(!director.may_run(Uuid::new_v4(), None, &[Role::Director]));
        let scorer = person(Role::Scorer, Some(vec![event]), None);
        assert!(!scorer.may_run(event, None, &[Role::Director]));
        assert!(scorer.may_run(event, None, &[Role::Director, Role::Scorer]));

        // The regions offered in his forms: the organiser's own; the admin's key names none.
        let regions = [region, Uuid::new_v4()].map(|id| Region {
            id,
            name: id.to_string(),
        });
        let offered =
            |p: &SignedIn| -> Vec<Uuid> { p.own_regions(&regions).iter().map(|r| r.id).collect() };
        assert_eq!(offered(&organiser), vec![region]);
        let admin = person(Role::Admin, None, None);
        assert_eq!(offered(&admin), vec![regions[0].id, regions[1].id]);
    }
}
