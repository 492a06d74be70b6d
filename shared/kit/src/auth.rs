//! Tokens: registration signs short-lived JWTs with an Ed25519 key (EdDSA); every service verifies
//! them against the public keys registration publishes at `/.well-known/jwks.json`. No service
//! shares a secret with another.

use crate::ApiError;
use actix_web::{FromRequest, HttpRequest, dev::Payload, web};
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use jsonwebtoken::jwk::{
    AlgorithmParameters, CommonParameters, EllipticCurve, Jwk, KeyAlgorithm,
    OctetKeyPairParameters, OctetKeyPairType, PublicKeyUse,
};
use jsonwebtoken::{Algorithm, DecodingKey, EncodingKey, Header, Validation};
use serde::{Deserialize, Serialize};
use std::collections::{HashMap, HashSet};
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError, RwLock};
use std::time::{Duration, Instant};
use uuid::Uuid;

pub const ISSUER: &str = "catan-registration";
pub const AUDIENCE: &str = "catan-api";

pub use catan_api::Role;

/// The claims of an access token.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct Claims {
    /// The API key's id.
    pub sub: Uuid,
    pub role: Role,
    /// The events a director or scorer key is limited to; absent for admins.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub events: Option<Vec<Uuid>>,
    /// The regions an organiser key runs; absent for the other keys.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub regions: Option<Vec<Uuid>>,
    pub iss: String,
    pub aud: String,
    pub iat: i64,
    pub nbf: i64,
    pub exp: i64,
}

/// A signing key: the private seed and the public half, named by `kid`.
#[derive(Clone)]
pub struct SigningKey {
    pub kid: String,
    seed: [u8; 32],
    public: [u8; 32],
}

impl std::fmt::Debug for SigningKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SigningKey")
            .field("kid", &self.kid)
            .finish_non_exhaustive()
    }
}

impl SigningKey {
    pub fn generate() -> Self {
        let seed: [u8; 32] = rand::random();
        Self::from_seed(seed)
    }

    pub fn from_seed(seed: [u8; 32]) -> Self {
        let public = ed25519_dalek::SigningKey::from_bytes(&seed)
            .verifying_key()
            .to_bytes();
        // The key id is derived from the public key, so the same key always has the same id.
        let kid = URL_SAFE_NO_PAD.encode(&sha2_digest(&public)[..12]);
        SigningKey { kid, seed, public }
    }

    pub fn seed(&self) -> [u8; 32] {
        self.seed
    }

    /// The key as PKCS#8 DER, which is what jsonwebtoken's EdDSA signer reads.
    fn pkcs8_der(&self) -> Result<Vec<u8>, ApiError> {
        use ed25519_dalek::pkcs8::EncodePrivateKey;
        ed25519_dalek::SigningKey::from_bytes(&self.seed)
            .to_pkcs8_der()
            .map(|der| der.as_bytes().to_vec())
            .map_err(ApiError::internal)
    }

    pub fn jwk(&self) -> Jwk {
        Jwk {
            common: CommonParameters {
                public_key_use: Some(PublicKeyUse::Signature),
                key_id: Some(self.kid.clone()),
                key_algorithm: Some(KeyAlgorithm::EdDSA),
                ..Default::default()
            },
            algorithm: AlgorithmParameters::OctetKeyPair(OctetKeyPairParameters {
                key_type: OctetKeyPairType::OctetKeyPair,
                curve: EllipticCurve::Ed25519,
                x: URL_SAFE_NO_PAD.encode(self.public),
            }),
        }
    }

    /// Signs `claims` into a compact JWT with this key's `kid`.
    pub fn sign(&self, claims: &Claims) -> Result<String, ApiError> {
        let mut header = Header::new(Algorithm::EdDSA);
        header.kid = Some(self.kid.clone());
        jsonwebtoken::encode(
            &header,
            claims,
            &EncodingKey::from_ed_der(&self.pkcs8_der()?),
        )
        .map_err(ApiError::internal)
    }
}

fn sha2_digest(bytes: &[u8]) -> [u8; 32] {
    use sha2::Digest;
    sha2::Sha256::digest(bytes).into()
}

/// Loads the public keys in process (blocking).
pub type KeyLoader = Arc<dyn Fn() -> Result<Vec<Jwk>, String> + Send + Sync>;

/// Where a verifier gets its public keys from.
enum KeySource {
    /// Registration itself: its own key ring, read in process.
    Local(KeyLoader),
    /// Any other service: registration's JWKS over HTTP.
    Remote {
        jwks_url: String,
        http: reqwest::Client,
    },
}

/// Verifies access tokens: EdDSA only, with `iss`, `aud`, `exp` and `nbf` checked.
pub struct Verifier {
    source: KeySource,
    keys: RwLock<HashMap<String, DecodingKey>>,
    /// When the keys were last fetched (or a fetch was last started): fetches are at most one an
    /// interval, and a token whose key is unknown in between is refused at once, never queued.
    last_refresh: Mutex<Option<Instant>>,
    /// Tokens verified already, with their claims: a table app sends the same token with every
    /// sheet, and checking its signature again each time costs more than the sheet's write.
    /// Cleared whenever a refresh finds a key retired, so no kept token outlives its key.
    verified: RwLock<HashMap<String, Claims>>,
    /// API keys revoked: their tokens are refused at once, however long they would still be
    /// valid. Told by registration when a key is revoked, and read again with every key fetch.
    revoked: RwLock<HashSet<Uuid>>,
    /// Registration's own verifier reads the revoked keys in process (blocking).
    revoked_loader: Option<RevokedLoader>,
}

/// Loads the ids of the revoked API keys in process (blocking).
pub type RevokedLoader = Arc<dyn Fn() -> Result<Vec<Uuid>, String> + Send + Sync>;

/// What registration publishes at `/.well-known/jwks.json`: the JWK Set, with the revoked API
/// keys as an extra member (RFC 7517, section 5: members a reader does not know are ignored).
#[derive(Deserialize)]
struct Published {
    keys: Vec<Jwk>,
    #[serde(default)]
    revoked_api_keys: Option<Vec<Uuid>>,
}

/// How many verified tokens are kept; past it the list starts again empty.
const KEPT_TOKENS: usize = 10_000;
/// Seconds a token's `exp` and `nbf` may be off, as clocks differ.
const LEEWAY_SECONDS: u64 = 5;

/// How often unknown `kid`s may trigger a JWKS fetch.
const MIN_REFRESH_INTERVAL: Duration = Duration::from_secs(1);
/// How old the keys may grow before the next token fetches them again, so a retired key is
/// dropped even when no new key shows up (the JWKS's own `max-age`).
const KEYS_MAX_AGE: Duration = Duration::from_secs(60);

impl Verifier {
    /// A verifier that reads keys in process with `load` (registration's own key ring), now and
    /// whenever a token names a key it does not know yet (another replica rotated).
    pub fn local(load: impl Fn() -> Result<Vec<Jwk>, String> + Send + Sync + 'static) -> Self {
        let initial = load();
        let v = Verifier {
            source: KeySource::Local(Arc::new(load)),
            keys: RwLock::new(HashMap::new()),
            last_refresh: Mutex::new(None),
            verified: RwLock::new(HashMap::new()),
            revoked: RwLock::new(HashSet::new()),
            revoked_loader: None,
        };
        match initial {
            Ok(keys) => {
                v.install(&keys);
                v.claim_refresh(Duration::ZERO);
            }
            Err(e) => tracing::warn!(error = %e, "could not load the token keys yet"),
        }
        v
    }

    #[expect(
        clippy::expect_used,
        reason = "a client fails to build only when the system's TLS cannot start: a start-up failure"
    )]
    pub fn remote(registration_url: &str) -> Self {
        let http = reqwest::Client::builder()
            .timeout(Duration::from_secs(3))
            .build()
            .expect("http client");
        Verifier {
            source: KeySource::Remote {
                jwks_url: format!(
                    "{}/.well-known/jwks.json",
                    registration_url.trim_end_matches('/')
                ),
                http,
            },
            keys: RwLock::new(HashMap::new()),
            last_refresh: Mutex::new(None),
            verified: RwLock::new(HashMap::new()),
            revoked: RwLock::new(HashSet::new()),
            revoked_loader: None,
        }
    }

    /// The same verifier, reading the revoked API keys with `load` (now, and with every key
    /// fetch): registration's own.
    pub fn with_revoked(
        mut self,
        load: impl Fn() -> Result<Vec<Uuid>, String> + Send + Sync + 'static,
    ) -> Self {
        match load() {
            Ok(ids) => self.set_revoked(ids),
            Err(e) => tracing::warn!(error = %e, "could not load the revoked API keys yet"),
        }
        self.revoked_loader = Some(Arc::new(load));
        self
    }

    /// Refuses the tokens of `key_id` from now on: it was revoked.
    pub fn revoke(&self, key_id: Uuid) {
        self.revoked
            .write()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(key_id);
    }

    fn set_revoked(&self, ids: Vec<Uuid>) {
        *self.revoked.write().unwrap_or_else(PoisonError::into_inner) = ids.into_iter().collect();
    }

    fn is_revoked(&self, key_id: Uuid) -> bool {
        self.revoked
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .contains(&key_id)
    }

    /// Installs the published keys, replacing those held: a key no longer published was retired
    /// (or its tokens have all expired), so the tokens kept as verified are forgotten with it.
    pub fn install(&self, keys: &[Jwk]) {
        let fresh: HashMap<String, DecodingKey> = keys
            .iter()
            .filter_map(|jwk| {
                let kid = jwk.common.key_id.clone()?;
                DecodingKey::from_jwk(jwk).ok().map(|key| (kid, key))
            })
            .collect();
        let mut map = self.keys.write().unwrap_or_else(PoisonError::into_inner);
        let removed = map.keys().any(|kid| !fresh.contains_key(kid));
        *map = fresh;
        if removed {
            self.verified
                .write()
                .unwrap_or_else(PoisonError::into_inner)
                .clear();
        }
    }

    fn key(&self, kid: &str) -> Option<DecodingKey> {
        self.keys
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .get(kid)
            .cloned()
    }

    /// Takes the right to fetch the keys now: true at most once a [`MIN_REFRESH_INTERVAL`], and
    /// only once the keys are `older_than` that age.
    fn claim_refresh(&self, older_than: Duration) -> bool {
        let mut last = self
            .last_refresh
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        let due = last.is_none_or(|t| t.elapsed() >= older_than.max(MIN_REFRESH_INTERVAL));
        if due {
            *last = Some(Instant::now());
        }
        due
    }

    /// Fetches registration's keys and installs them; a failure says why and keeps the keys held.
    async fn refresh(&self) -> Result<(), String> {
        let (keys, revoked) = match &self.source {
            KeySource::Local(load) => {
                let load = load.clone();
                let load_revoked = self.revoked_loader.clone();
                tokio::task::spawn_blocking(move || {
                    let revoked = load_revoked.map(|load| load()).transpose()?;
                    Ok::<_, String>((load()?, revoked))
                })
                .await
                .map_err(|e| e.to_string())??
            }
            KeySource::Remote { jwks_url, http } => {
                let published = async {
                    http.get(jwks_url)
                        .send()
                        .await?
                        .error_for_status()?
                        .json::<Published>()
                        .await
                }
                .await
                .map_err(|e| e.to_string())?;
                (published.keys, published.revoked_api_keys)
            }
        };
        self.install(&keys);
        if let Some(revoked) = revoked {
            self.set_revoked(revoked);
        }
        Ok(())
    }

    /// Fetches the keys again when they are older than [`KEYS_MAX_AGE`] (one caller an interval
    /// does it); a failed fetch keeps the keys held.
    async fn refresh_if_old(&self) {
        if self.claim_refresh(KEYS_MAX_AGE)
            && let Err(e) = self.refresh().await
        {
            tracing::warn!(error = %e, "could not refresh the token keys; keeping those held");
        }
    }

    /// A verifier of registration's tokens with its keys already loaded, as app data.
    pub async fn of_registration(registration_url: &str) -> actix_web::web::Data<Verifier> {
        let verifier = actix_web::web::Data::new(Verifier::remote(registration_url));
        verifier.prefetch().await;
        verifier
    }

    /// Fetches the keys now, whenever the last fetch was: for the service that has just retired a
    /// key, so it refuses that key's tokens at once.
    pub async fn reload(&self) -> Result<(), String> {
        self.claim_refresh(Duration::ZERO);
        self.refresh().await
    }

    /// Loads the keys ahead of the first request; a registration that is not up yet is not an error.
    pub async fn prefetch(&self) {
        if let Err(e) = self.reload().await {
            tracing::warn!(error = %e, "could not load the token keys yet; will retry on the first request");
        }
    }

    /// Checks a compact JWT and returns its claims.
    pub async fn verify(&self, token: &str) -> Result<Claims, ApiError> {
        self.refresh_if_old().await;
        let revoked = || ApiError::Unauthorized("invalid token: its API key is revoked".into());
        if let Some(claims) = self.verified_before(token) {
            return if self.is_revoked(claims.sub) {
                Err(revoked())
            } else {
                Ok(claims)
            };
        }
        let claims = self.verify_signed(token).await?;
        if self.is_revoked(claims.sub) {
            return Err(revoked());
        }
        let mut verified = self
            .verified
            .write()
            .unwrap_or_else(PoisonError::into_inner);
        if verified.len() >= KEPT_TOKENS {
            verified.clear();
        }
        verified.insert(token.to_string(), claims.clone());
        Ok(claims)
    }

    /// The claims of `token` if it was verified before and has not expired since.
    fn verified_before(&self, token: &str) -> Option<Claims> {
        let now = jsonwebtoken::get_current_timestamp();
        self.verified
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .get(token)
            .filter(|claims| u64::try_from(claims.exp).is_ok_and(|exp| now <= exp + LEEWAY_SECONDS))
            .cloned()
    }

    async fn verify_signed(&self, token: &str) -> Result<Claims, ApiError> {
        let invalid = |why: &str| ApiError::Unauthorized(format!("invalid token: {why}"));
        let header = jsonwebtoken::decode_header(token).map_err(|_| invalid("malformed"))?;
        if header.alg != Algorithm::EdDSA {
            return Err(invalid("only EdDSA tokens are accepted"));
        }
        let kid = header.kid.ok_or_else(|| invalid("no key id"))?;
        let key = match self.key(&kid) {
            Some(key) => key,
            // Between two fetches an unknown key is refused at once: forged kids neither queue
            // nor reach registration, and a key rotated a moment ago verifies once the
            // interval has passed (its first token fetches it).
            None if !self.claim_refresh(MIN_REFRESH_INTERVAL) => {
                return Err(invalid("unknown key id"));
            }
            None => {
                self.refresh().await.map_err(|e| {
                    ApiError::unavailable(
                        "cannot verify the token: the signing keys are unreachable; retry later",
                        e,
                    )
                })?;
                self.key(&kid).ok_or_else(|| invalid("unknown key id"))?
            }
        };
        let mut validation = Validation::new(Algorithm::EdDSA);
        validation.set_issuer(&[ISSUER]);
        validation.set_audience(&[AUDIENCE]);
        validation.set_required_spec_claims(&["exp", "nbf", "iss", "aud", "sub"]);
        validation.validate_nbf = true;
        validation.leeway = LEEWAY_SECONDS;
        jsonwebtoken::decode::<Claims>(token, &key, &validation)
            .map(|data| data.claims)
            .map_err(|e| invalid(&e.to_string()))
    }
}

/// The authenticated caller of a request.
#[derive(Debug, Clone)]
pub struct Principal(pub Claims);

impl Principal {
    pub fn key_id(&self) -> Uuid {
        self.0.sub
    }

    pub fn role(&self) -> Role {
        self.0.role
    }

    pub fn require_admin(&self) -> Result<(), ApiError> {
        match self.0.role {
            Role::Admin => Ok(()),
            other => Err(ApiError::Forbidden(format!(
                "this needs an admin key; this key is a {}",
                other.as_str()
            ))),
        }
    }

    /// Admins may act on every event; directors and scorers on the events their key names, in the
    /// roles listed.
    pub fn require_event(&self, event_id: Uuid, roles: &[Role]) -> Result<(), ApiError> {
        if self.0.role == Role::Admin {
            return Ok(());
        }
        if !roles.contains(&self.0.role) {
            let wanted: Vec<&str> = roles.iter().map(|r| r.as_str()).collect();
            return Err(ApiError::Forbidden(format!(
                "this needs a {} key; this key is a {}",
                wanted.join(" or "),
                self.0.role.as_str()
            )));
        }
        match &self.0.events {
            Some(events) if events.contains(&event_id) => Ok(()),
            _ => Err(ApiError::Forbidden(format!(
                "this key is not for event {event_id}"
            ))),
        }
    }

    /// The regions an organiser key runs (none for the other keys).
    pub fn regions(&self) -> &[Uuid] {
        self.0.regions.as_deref().unwrap_or_default()
    }

    /// The events a director or scorer key (or a player's token) names (none for the others).
    pub fn events(&self) -> &[Uuid] {
        self.0.events.as_deref().unwrap_or_default()
    }

    /// Admins act in every region; an organiser in the regions its key names. `None` is no
    /// region: the federation's, the admin's alone.
    pub fn require_region(&self, region_id: Option<Uuid>) -> Result<(), ApiError> {
        if self.0.role == Role::Admin {
            return Ok(());
        }
        if self.0.role != Role::Organiser {
            return Err(ApiError::Forbidden(format!(
                "this needs an admin or organiser key; this key is a {}",
                self.0.role.as_str()
            )));
        }
        match region_id {
            Some(region) if self.regions().contains(&region) => Ok(()),
            Some(region) => Err(ApiError::Forbidden(format!(
                "this organiser key is not for region {region}"
            ))),
            None => Err(ApiError::Forbidden(
                "only an admin key acts outside the regions (federation-wide)".into(),
            )),
        }
    }

    /// [`Principal::require_event`], or an organiser of the event's region (`region_id`, as the
    /// caller found it: `None` for an event of no region, or one it does not know).
    pub fn require_event_in_region(
        &self,
        event_id: Uuid,
        region_id: Option<Uuid>,
        roles: &[Role],
    ) -> Result<(), ApiError> {
        if self.0.role == Role::Organiser {
            return self
                .require_region(region_id)
                .map_err(|_| ApiError::Forbidden(format!("this key is not for event {event_id}")));
        }
        self.require_event(event_id, roles)
    }

    pub fn require_any(&self, roles: &[Role]) -> Result<(), ApiError> {
        if self.0.role == Role::Admin || roles.contains(&self.0.role) {
            Ok(())
        } else {
            Err(ApiError::Forbidden(format!(
                "a {} key cannot do this",
                self.0.role.as_str()
            )))
        }
    }
}

impl FromRequest for Principal {
    type Error = ApiError;
    type Future = Pin<Box<dyn Future<Output = Result<Self, Self::Error>>>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        let verifier = req.app_data::<web::Data<Verifier>>().cloned();
        let limiter = req
            .app_data::<web::Data<crate::ratelimit::RateLimiter>>()
            .cloned();
        let header = req
            .headers()
            .get(actix_web::http::header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned);
        Box::pin(async move {
            let verifier =
                verifier.ok_or_else(|| ApiError::internal("no token verifier configured"))?;
            let header = header.ok_or_else(|| {
                ApiError::Unauthorized("an Authorization: Bearer token is required".into())
            })?;
            let token = header.strip_prefix("Bearer ").ok_or_else(|| {
                ApiError::Unauthorized("the Authorization header must be 'Bearer <token>'".into())
            })?;
            let claims = verifier.verify(token.trim()).await?;
            if let Some(limiter) = limiter {
                limiter.check(claims.sub)?;
            }
            Ok(Principal(claims))
        })
    }
}

/// Where registration tells the other services that an API key was revoked (with the internal
/// key; not routed by the gateway).
pub const REVOKED_KEYS_PATH: &str = "/internal/revoked-api-keys";

/// Registration's word to the other services that a key was revoked, so that they refuse its
/// tokens at once rather than at their next key fetch. App data of every service.
pub struct Revocations {
    peers: Vec<String>,
    internal_key: Option<secrecy::SecretString>,
    http: reqwest::Client,
}

impl Revocations {
    pub fn new(settings: &crate::Settings) -> Self {
        let peers = &settings.peers;
        Revocations {
            // Registration too: its other replicas, if any, hold verifiers of their own.
            peers: vec![
                peers.registration.clone(),
                peers.pairing.clone(),
                peers.results.clone(),
                peers.ranking.clone(),
            ],
            internal_key: settings.webhooks.internal_key.clone(),
            http: reqwest::Client::builder()
                .timeout(Duration::from_secs(3))
                .build()
                .unwrap_or_default(),
        }
    }

    /// Tells registration (its replicas) and pairing, results and ranking that `key_id` is
    /// revoked; one that does not answer learns it at its next key fetch (within a minute).
    pub async fn tell_peers(&self, key_id: Uuid) {
        use crate::settings::ExposeSecret;
        let Some(key) = &self.internal_key else {
            return;
        };
        let calls = self.peers.iter().map(|peer| {
            let url = format!("{}{REVOKED_KEYS_PATH}/{key_id}", peer.trim_end_matches('/'));
            let call = self.http.post(url).bearer_auth(key.expose_secret()).send();
            async move {
                match call.await.and_then(reqwest::Response::error_for_status) {
                    Ok(_) => {}
                    Err(e) => tracing::warn!(
                        %key_id, error = %e,
                        "a service was not told of a revoked key; it learns it at its next key fetch"
                    ),
                }
            }
        });
        futures_util::future::join_all(calls).await;
    }
}

/// `POST /internal/revoked-api-keys/{key_id}`: registration says the key is revoked.
pub async fn key_revoked(
    req: HttpRequest,
    path: web::Path<Uuid>,
    revocations: web::Data<Revocations>,
) -> Result<actix_web::HttpResponse, ApiError> {
    crate::webhooks::require_internal_key(&req, revocations.internal_key.as_ref())?;
    if let Some(verifier) = req.app_data::<web::Data<Verifier>>() {
        verifier.revoke(path.into_inner());
    }
    Ok(actix_web::HttpResponse::NoContent().finish())
}

/// Issues a token for `claims`-to-be, valid for `ttl`.
pub fn claims_for(key_id: Uuid, role: Role, events: Option<Vec<Uuid>>, ttl: Duration) -> Claims {
    let now = chrono::Utc::now().timestamp();
    Claims {
        sub: key_id,
        role,
        events,
        regions: None,
        iss: ISSUER.to_string(),
        aud: AUDIENCE.to_string(),
        iat: now,
        nbf: now,
        exp: now + ttl.as_secs() as i64,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_signed_token_verifies_and_a_tampered_one_does_not() {
        let key = SigningKey::generate();
        let jwk = key.jwk();
        let verifier = Verifier::local(move || Ok(vec![jwk.clone()]));
        let claims = claims_for(
            Uuid::new_v4(),
            Role::Scorer,
            Some(vec![Uuid::new_v4()]),
            Duration::from_secs(60),
        );
        let token = key.sign(&claims).unwrap();
        assert_eq!(verifier.verify(&token).await.unwrap(), claims);

        let mut parts: Vec<String> = token.split('.').map(str::to_owned).collect();
        let mut payload: serde_json::Value =
            serde_json::from_slice(&URL_SAFE_NO_PAD.decode(&parts[1]).unwrap()).unwrap();
        payload["role"] = "admin".into();
        parts[1] = URL_SAFE_NO_PAD.encode(serde_json::to_vec(&payload).unwrap());
        assert!(verifier.verify(&parts.join(".")).await.is_err());
    }

    #[tokio::test]
    async fn a_revoked_keys_tokens_are_refused_at_once_even_when_verified_before() {
        let key = SigningKey::generate();
        let jwk = key.jwk();
        let (kept, revoked) = (Uuid::new_v4(), Uuid::new_v4());
        let verifier =
            Verifier::local(move || Ok(vec![jwk.clone()])).with_revoked(move || Ok(vec![revoked]));
        let token_of = |id| {
            key.sign(&claims_for(id, Role::Admin, None, Duration::from_secs(60)))
                .unwrap()
        };
        let (kept_token, revoked_token) = (token_of(kept), token_of(revoked));
        assert!(
            verifier.verify(&revoked_token).await.is_err(),
            "loaded as revoked"
        );
        assert!(verifier.verify(&kept_token).await.is_ok());
        verifier.revoke(kept);
        let refused = verifier.verify(&kept_token).await.unwrap_err();
        assert!(refused.to_string().contains("revoked"), "{refused}");
    }

    #[tokio::test]
    async fn expired_tokens_and_unknown_keys_are_refused() {
        let key = SigningKey::generate();
        let jwk = key.jwk();
        let verifier = Verifier::local(move || Ok(vec![jwk.clone()]));
        let mut claims = claims_for(Uuid::new_v4(), Role::Admin, None, Duration::from_secs(60));
        claims.exp -= 3600;
        assert!(verifier.verify(&key.sign(&claims).unwrap()).await.is_err());
        let other = SigningKey::generate();
        let fresh = claims_for(Uuid::new_v4(), Role::Admin, None, Duration::from_secs(60));
        assert!(verifier.verify(&other.sign(&fresh).unwrap()).await.is_err());
    }

    #[tokio::test]
    async fn a_token_verified_before_is_refused_once_it_expires() {
        let key = SigningKey::generate();
        let jwk = key.jwk();
        let verifier = Verifier::local(move || Ok(vec![jwk.clone()]));
        let claims = claims_for(Uuid::new_v4(), Role::Scorer, None, Duration::from_secs(60));
        let token = key.sign(&claims).unwrap();
        assert_eq!(verifier.verify(&token).await.unwrap(), claims);
        assert_eq!(verifier.verify(&token).await.unwrap(), claims, "kept");
        // A token kept when it was verified, and expired since.
        let mut expired = claims.clone();
        expired.exp -= 3600;
        let signed_expired = key.sign(&expired).unwrap();
        verifier
            .verified
            .write()
            .unwrap()
            .insert(signed_expired.clone(), expired);
        assert!(verifier.verify(&signed_expired).await.is_err());
    }

    /// A verifier whose loader answers `published` slowly, as a remote JWKS may, and counts its
    /// fetches.
    fn counting_verifier(
        published: Arc<Mutex<Vec<Jwk>>>,
    ) -> (Verifier, Arc<std::sync::atomic::AtomicUsize>) {
        let fetches = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let counted = fetches.clone();
        let verifier = Verifier::local(move || {
            counted.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            std::thread::sleep(Duration::from_millis(100));
            Ok(published.lock().unwrap().clone())
        });
        (verifier, fetches)
    }

    #[tokio::test]
    async fn unknown_key_ids_are_refused_at_once_and_fetch_at_most_once_an_interval() {
        let key = SigningKey::generate();
        let (verifier, fetches) = counting_verifier(Arc::new(Mutex::new(vec![key.jwk()])));
        let verifier = Arc::new(verifier);
        // The wait past the first load, so the first forged kid may fetch.
        tokio::time::sleep(MIN_REFRESH_INTERVAL).await;
        let started = Instant::now();
        let forged: Vec<_> = (0..20)
            .map(|_| {
                let claims = claims_for(Uuid::new_v4(), Role::Admin, None, Duration::from_secs(60));
                let token = SigningKey::generate().sign(&claims).unwrap();
                let verifier = verifier.clone();
                tokio::spawn(async move { verifier.verify(&token).await })
            })
            .collect();
        for refused in forged {
            assert!(matches!(
                refused.await.unwrap(),
                Err(ApiError::Unauthorized(_))
            ));
        }
        assert!(
            started.elapsed() < Duration::from_millis(800),
            "20 forged tokens took {:?}",
            started.elapsed()
        );
        // One load at start, at most one fetch for all the forged kids.
        assert!(fetches.load(std::sync::atomic::Ordering::SeqCst) <= 2);
        let claims = claims_for(Uuid::new_v4(), Role::Admin, None, Duration::from_secs(60));
        assert!(verifier.verify(&key.sign(&claims).unwrap()).await.is_ok());
    }

    #[tokio::test]
    async fn a_rotated_key_verifies_after_the_interval_and_a_retired_one_stops_verifying() {
        let old = SigningKey::generate();
        let published = Arc::new(Mutex::new(vec![old.jwk()]));
        let (verifier, _) = counting_verifier(published.clone());
        let claims = claims_for(Uuid::new_v4(), Role::Admin, None, Duration::from_secs(60));
        let old_token = old.sign(&claims).unwrap();
        assert!(
            verifier.verify(&old_token).await.is_ok(),
            "kept as verified"
        );

        // Rotation, then retirement of the old key.
        let new = SigningKey::generate();
        *published.lock().unwrap() = vec![new.jwk()];
        tokio::time::sleep(MIN_REFRESH_INTERVAL).await;
        let new_token = new.sign(&claims).unwrap();
        assert_eq!(verifier.verify(&new_token).await.unwrap(), claims);
        assert!(
            verifier.verify(&old_token).await.is_err(),
            "the retired key's kept token is forgotten"
        );
    }

    #[test]
    fn organiser_keys_stay_in_their_regions() {
        let (mine, other, event) = (Uuid::new_v4(), Uuid::new_v4(), Uuid::new_v4());
        let mut claims = claims_for(
            Uuid::new_v4(),
            Role::Organiser,
            None,
            Duration::from_secs(60),
        );
        claims.regions = Some(vec![mine]);
        let organiser = Principal(claims);
        assert!(organiser.require_region(Some(mine)).is_ok());
        assert!(organiser.require_region(Some(other)).is_err());
        assert!(organiser.require_region(None).is_err(), "federation-wide");
        assert!(organiser.require_admin().is_err());
        let roles = [Role::Director];
        assert!(
            organiser
                .require_event_in_region(event, Some(mine), &roles)
                .is_ok()
        );
        assert!(
            organiser
                .require_event_in_region(event, Some(other), &roles)
                .is_err()
        );
        assert!(
            organiser.require_event(event, &roles).is_err(),
            "services that know no regions refuse organisers"
        );
        let director = Principal(claims_for(
            Uuid::new_v4(),
            Role::Director,
            Some(vec![event]),
            Duration::from_secs(60),
        ));
        assert!(director.require_region(Some(mine)).is_err());
        assert!(
            director
                .require_event_in_region(event, Some(other), &roles)
                .is_ok()
        );
    }

    #[test]
    fn event_scoped_keys_stay_in_their_events() {
        let mine = Uuid::new_v4();
        let p = Principal(claims_for(
            Uuid::new_v4(),
            Role::Scorer,
            Some(vec![mine]),
            Duration::from_secs(60),
        ));
        assert!(
            p.require_event(mine, &[Role::Scorer, Role::Director])
                .is_ok()
        );
        assert!(
            p.require_event(Uuid::new_v4(), &[Role::Scorer, Role::Director])
                .is_err()
        );
        assert!(p.require_event(mine, &[Role::Director]).is_err());
    }
}
