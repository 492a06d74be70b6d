//! Who the client is: its address as the edge of the deployment saw it, and the limits that follow
//! it (requests without a token, standings streams, sign-in attempts).
//!
//! Clients reach the services through an edge proxy (the suite's gateway, or an ingress), so the
//! connection's peer is the proxy. The edge sends the client's address in
//! [`CLIENT_ADDR_HEADER`], always overwriting whatever the client sent there, together with the
//! proxy secret `CATAN_PROXY_SECRET` in [`PROXY_SECRET_HEADER`]. A service believes the address
//! only with the right secret (compared in constant time); without it the connection's own peer is
//! the client. The suite makes a secret up for its gateway and services when none is configured.
//!
//! A request that comes without the secret while one is configured came from inside (a service
//! calling another, a job): it is not held to the limits of anonymous clients, which only an edge
//! lets in. Without a configured secret a service faces its clients itself, and every request is.

use crate::ApiError;
use crate::auth::Verifier;
use crate::ratelimit::{FailureDelay, RateLimiter};
use crate::settings::{ClientSettings, ExposeSecret};
use actix_web::body::{EitherBody, MessageBody};
use actix_web::dev::{Payload, ServiceRequest, ServiceResponse};
use actix_web::middleware::Next;
use actix_web::{FromRequest, HttpRequest, ResponseError, web};
use secrecy::SecretString;
use std::future::{Ready, ready};
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};
use std::sync::Arc;
use std::time::Duration;
use subtle::ConstantTimeEq;
use uuid::Uuid;

mod streams;
use streams::StreamCount;
pub use streams::StreamSlot;

/// The client's address, set by the edge proxy.
pub const CLIENT_ADDR_HEADER: &str = "x-catan-client-addr";
/// The proxy secret, with which the edge vouches for [`CLIENT_ADDR_HEADER`].
pub const PROXY_SECRET_HEADER: &str = "x-catan-proxy-secret";

/// A request's client.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Client {
    /// The address the limits count by: an IPv6 address by its /64, which one host usually holds
    /// whole.
    pub addr: IpAddr,
    /// Whether the limits of anonymous clients apply: the request came through the edge, or the
    /// service faces its clients itself (no proxy secret configured).
    pub outside: bool,
}

/// How a service tells its clients apart: the proxy secret it trusts [`CLIENT_ADDR_HEADER`] with.
#[derive(Clone, Default)]
pub struct ProxyTrust {
    secret: Option<SecretString>,
}

impl ProxyTrust {
    pub fn new(secret: Option<SecretString>) -> Self {
        ProxyTrust { secret }
    }

    /// The client of `req`: the edge's word for it with the right secret, else the peer.
    pub fn client_of(&self, req: &HttpRequest) -> Client {
        let peer = req
            .peer_addr()
            .map_or(IpAddr::V4(Ipv4Addr::UNSPECIFIED), |a| a.ip());
        if self.secret.is_none() {
            return Client {
                addr: counted(peer),
                outside: true,
            };
        }
        let header = |name: &str| req.headers().get(name).and_then(|v| v.to_str().ok());
        let vouched = self.vouches_for(req);
        match header(CLIENT_ADDR_HEADER).and_then(|a| a.trim().parse::<IpAddr>().ok()) {
            Some(addr) if vouched => Client {
                addr: counted(addr),
                outside: true,
            },
            _ => Client {
                addr: counted(peer),
                outside: false,
            },
        }
    }

    /// Whether `req` came through the edge, which carries the right secret: its word (the
    /// client's address, the address the client reached it at) is believed. Never without a
    /// configured secret.
    pub fn vouches_for(&self, req: &HttpRequest) -> bool {
        let Some(secret) = &self.secret else {
            return false;
        };
        req.headers()
            .get(PROXY_SECRET_HEADER)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|given| {
                bool::from(
                    given
                        .trim()
                        .as_bytes()
                        .ct_eq(secret.expose_secret().as_bytes()),
                )
            })
    }

    /// The headers an edge proxy in front of a service sends for `client` (none without a
    /// secret): the proxy drops any the client sent and adds these.
    pub fn edge_headers(&self, client: IpAddr) -> Vec<(&'static str, String)> {
        self.secret.as_ref().map_or_else(Vec::new, |secret| {
            vec![
                (CLIENT_ADDR_HEADER, client.to_string()),
                (PROXY_SECRET_HEADER, secret.expose_secret().to_owned()),
            ]
        })
    }

    /// The address the edge itself sees `req` from: the connection's peer, or the word of an edge
    /// in front of it that has the secret.
    pub fn peer_of(&self, req: &HttpRequest) -> IpAddr {
        let client = self.client_of(req);
        if client.outside && self.secret.is_some() {
            // A vouched address: take it unmasked, as it came.
            req.headers()
                .get(CLIENT_ADDR_HEADER)
                .and_then(|v| v.to_str().ok())
                .and_then(|a| a.trim().parse().ok())
                .unwrap_or(client.addr)
        } else {
            req.peer_addr()
                .map_or(IpAddr::V4(Ipv4Addr::UNSPECIFIED), |a| a.ip())
        }
    }
}

/// The address limits count: IPv4 as is, IPv6 by its /64.
fn counted(addr: IpAddr) -> IpAddr {
    match addr {
        IpAddr::V4(_) => addr,
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => IpAddr::V4(v4),
            None => {
                let s = v6.segments();
                IpAddr::V6(Ipv6Addr::new(s[0], s[1], s[2], s[3], 0, 0, 0, 0))
            }
        },
    }
}

impl FromRequest for Client {
    type Error = ApiError;
    type Future = Ready<Result<Client, ApiError>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        ready(Ok(match req.app_data::<web::Data<ClientLimits>>() {
            Some(limits) => limits.trust.client_of(req),
            None => ProxyTrust::default().client_of(req),
        }))
    }
}

/// The limits that follow a client, one set per service replica (app data of every service).
pub struct ClientLimits {
    pub trust: ProxyTrust,
    /// Requests without a valid token, per client; `None` when turned off.
    anonymous: Option<RateLimiter<IpAddr>>,
    /// Token requests (`POST /v1/auth/token`, `/v1/auth/player-token`) per client.
    sign_ins: RateLimiter<IpAddr>,
    /// Wrong PINs for one player from one client: a growing delay.
    wrong_pins: FailureDelay<(Uuid, Uuid, IpAddr)>,
    /// Wrong PINs from one client for any player: a delay only past a venue's typos.
    wrong_pins_from: FailureDelay<IpAddr>,
    /// PIN tries of every client together.
    pin_ceiling: RateLimiter<()>,
    streams: Arc<StreamCount>,
}

/// Wrong PINs for one player from one address before that player waits there, and the longest
/// wait; one is forgiven each minute.
const FREE_WRONG_PINS: u32 = 5;
const LONGEST_PIN_WAIT: Duration = Duration::from_secs(15 * 60);
const PIN_FORGIVEN_EVERY: Duration = Duration::from_secs(60);
/// Wrong PINs from one address, for any players, before the address waits; one is forgiven every
/// 6 s (100 in 10 minutes): a venue whose phones share one address never reaches it by typos.
pub const FREE_WRONG_PINS_PER_ADDRESS: u32 = 100;
const ADDRESS_PIN_FORGIVEN_EVERY: Duration = Duration::from_secs(6);

impl ClientLimits {
    pub fn new(settings: &ClientSettings) -> Self {
        ClientLimits {
            trust: ProxyTrust::new(settings.proxy_secret.clone()),
            anonymous: (settings.anonymous_per_second > 0.0).then(|| {
                RateLimiter::per(
                    "this address (without a token)",
                    settings.anonymous_per_second,
                    settings.anonymous_burst,
                )
            }),
            sign_ins: RateLimiter::per(
                "this address (asking for tokens)",
                settings.sign_in_per_second,
                settings.sign_in_burst,
            ),
            wrong_pins: FailureDelay::new(FREE_WRONG_PINS, LONGEST_PIN_WAIT, PIN_FORGIVEN_EVERY),
            wrong_pins_from: FailureDelay::new(
                FREE_WRONG_PINS_PER_ADDRESS,
                LONGEST_PIN_WAIT,
                ADDRESS_PIN_FORGIVEN_EVERY,
            ),
            pin_ceiling: RateLimiter::per(
                "every client together (PIN sign-ins)",
                settings.pin_ceiling_per_second,
                settings.pin_ceiling_burst,
            ),
            streams: StreamCount::new(settings.streams_per_client, settings.streams_total),
        }
    }

    /// Takes one request from an anonymous client's budget (nothing from a client inside).
    pub fn anonymous_request(&self, client: Client) -> Result<(), ApiError> {
        match &self.anonymous {
            Some(limiter) if client.outside => limiter.check(client.addr),
            _ => Ok(()),
        }
    }

    /// Takes one token request from the client's budget.
    pub fn sign_in(&self, client: Client) -> Result<(), ApiError> {
        self.sign_ins.check(client.addr)
    }

    /// Starts a try of `client` at the PIN of `player` in `event`: refused while that player's
    /// wrong PINs from this client are waited out (5 free, then 1 s, 2 s, 4 s ... up to 15
    /// minutes), while the client's wrong PINs for any players are (100 free), or when every
    /// client together tries more than the ceiling. Call [`ClientLimits::pin_was_right`] when
    /// the PIN was right.
    pub fn pin_attempt(&self, client: Client, event: Uuid, player: Uuid) -> Result<(), ApiError> {
        let own = (event, player, client.addr);
        self.wrong_pins
            .attempt(own)
            .map_err(|seconds| wrong_pins(seconds, "for this player from this address"))?;
        if let Err(seconds) = self.wrong_pins_from.attempt(client.addr) {
            // Refused before it was tried: not the player's failure.
            self.wrong_pins.succeeded(&own);
            return Err(wrong_pins(seconds, "from this address, for any players"));
        }
        self.pin_ceiling.check(()).inspect_err(|_| {
            self.wrong_pins.succeeded(&own);
            self.wrong_pins_from.succeeded(&client.addr);
        })
    }

    /// The PIN `client` tried for `player` in `event` was right: the try is no failure.
    pub fn pin_was_right(&self, client: Client, event: Uuid, player: Uuid) {
        self.wrong_pins.succeeded(&(event, player, client.addr));
        self.wrong_pins_from.succeeded(&client.addr);
    }

    /// A place for one more standings stream of `client`, held until the slot is dropped; 429
    /// past the cap per client or in total.
    pub fn open_stream(&self, client: Client) -> Result<StreamSlot, ApiError> {
        self.streams.open(client.addr)
    }
}

/// The 429 of a wait for wrong PINs (`whom` says whose), saying the real wait.
fn wrong_pins(seconds: u64, whom: &str) -> ApiError {
    ApiError::TooManyRequests {
        detail: format!(
            "wrong PIN too many times {whom}: try again in {} (the wait doubles with each \
             further wrong PIN)",
            crate::ratelimit::seconds_in_words(seconds)
        ),
        retry_after_seconds: seconds,
        wrong_pins: true,
    }
}

/// Holds every request without a valid token to its client's budget: a middleware of every
/// service ([`crate::server::serve`]). A request with a token is held to its key's budget where
/// it is authenticated ([`crate::auth::Principal`]); a bad token counts as none.
pub async fn limit_anonymous(
    req: ServiceRequest,
    next: Next<impl MessageBody>,
) -> Result<ServiceResponse<EitherBody<impl MessageBody>>, actix_web::Error> {
    let exempt = matches!(req.path(), "/health" | "/metrics");
    if let Some(limits) = req.app_data::<web::Data<ClientLimits>>().cloned()
        && !exempt
    {
        let client = limits.trust.client_of(req.request());
        if client.outside
            && limits.anonymous.is_some()
            && !has_valid_token(&req).await
            && let Err(refused) = limits.anonymous_request(client)
        {
            return Ok(req
                .into_response(refused.error_response())
                .map_into_right_body());
        }
    }
    Ok(next.call(req).await?.map_into_left_body())
}

async fn has_valid_token(req: &ServiceRequest) -> bool {
    let Some(verifier) = req.app_data::<web::Data<Verifier>>() else {
        return false;
    };
    let token = req
        .headers()
        .get(actix_web::http::header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "));
    match token {
        Some(token) => verifier.verify(token.trim()).await.is_ok(),
        None => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use actix_web::test::TestRequest;

    fn trust() -> ProxyTrust {
        ProxyTrust::new(Some(SecretString::from("cps_secret")))
    }

    #[test]
    fn the_edges_word_is_taken_only_with_the_secret() {
        let peer = "10.0.0.9:4000".parse().unwrap();
        let vouched = TestRequest::default()
            .peer_addr(peer)
            .insert_header((CLIENT_ADDR_HEADER, "203.0.113.7"))
            .insert_header((PROXY_SECRET_HEADER, "cps_secret"))
            .to_http_request();
        assert_eq!(
            trust().client_of(&vouched),
            Client {
                addr: "203.0.113.7".parse().unwrap(),
                outside: true
            }
        );
        let forged = TestRequest::default()
            .peer_addr(peer)
            .insert_header((CLIENT_ADDR_HEADER, "203.0.113.7"))
            .insert_header((PROXY_SECRET_HEADER, "guess"))
            .to_http_request();
        assert_eq!(
            trust().client_of(&forged),
            Client {
                addr: "10.0.0.9".parse().unwrap(),
                outside: false
            },
            "a wrong secret: the peer, as a caller from inside"
        );
        // No secret configured: the peer, held to the limits, whatever the headers say.
        assert_eq!(
            ProxyTrust::default().client_of(&vouched),
            Client {
                addr: "10.0.0.9".parse().unwrap(),
                outside: true
            }
        );
    }

    #[test]
    fn an_ipv6_client_is_counted_by_its_64() {
        let a: IpAddr = "2001:db8:1:2:aaaa::1".parse().unwrap();
        let b: IpAddr = "2001:db8:1:2:bbbb::2".parse().unwrap();
        assert_eq!(counted(a), counted(b));
        assert_ne!(counted(a), counted("2001:db8:1:3::1".parse().unwrap()));
        assert_eq!(
            counted("::ffff:192.0.2.1".parse().unwrap()),
            "192.0.2.1".parse::<IpAddr>().unwrap()
        );
    }

    #[test]
    fn wrong_pins_make_that_player_wait_at_that_address_and_an_address_only_past_a_hundred() {
        let limits = ClientLimits::new(&ClientSettings::default());
        let venue = Client {
            addr: IpAddr::V4(Ipv4Addr::new(198, 51, 100, 1)),
            outside: true,
        };
        let event = Uuid::new_v4();
        let players: Vec<Uuid> = (0..30).map(|_| Uuid::new_v4()).collect();
        // Two typos each for five players: nobody waits.
        for player in &players[..5] {
            for _ in 0..2 {
                assert!(limits.pin_attempt(venue, event, *player).is_ok());
            }
        }
        // A player who keeps mistyping waits, and is told how long.
        let (typist, others) = (players[5], &players[6..]);
        for _ in 0..FREE_WRONG_PINS {
            assert!(limits.pin_attempt(venue, event, typist).is_ok());
        }
        match limits.pin_attempt(venue, event, typist) {
            Err(ApiError::TooManyRequests {
                retry_after_seconds,
                wrong_pins,
                detail,
            }) => {
                assert_eq!(retry_after_seconds, 1);
                assert!(wrong_pins);
                assert!(detail.contains("try again in 1 second "), "{detail}");
            }
            other => panic!("expected a wait, got {other:?}"),
        }
        // Everyone else at the venue signs in at once.
        for player in others {
            assert!(limits.pin_attempt(venue, event, *player).is_ok());
            limits.pin_was_right(venue, event, *player);
        }
        // One address guessing at many players waits past its hundred.
        let guesser = Client {
            addr: IpAddr::V4(Ipv4Addr::new(203, 0, 113, 9)),
            outside: true,
        };
        for _ in 0..FREE_WRONG_PINS_PER_ADDRESS {
            assert!(limits.pin_attempt(guesser, event, Uuid::new_v4()).is_ok());
        }
        assert!(limits.pin_attempt(guesser, event, Uuid::new_v4()).is_err());
        assert!(
            limits.pin_attempt(venue, event, others[0]).is_ok(),
            "another address is not held"
        );
    }

    #[test]
    fn streams_are_capped_per_client_and_in_total_until_they_close() {
        let limits = ClientLimits::new(&ClientSettings {
            streams_per_client: 2,
            streams_total: 3,
            ..ClientSettings::default()
        });
        let client = |last: u8| Client {
            addr: IpAddr::V4(Ipv4Addr::new(192, 0, 2, last)),
            outside: true,
        };
        let first = limits.open_stream(client(1)).unwrap();
        let _second = limits.open_stream(client(1)).unwrap();
        assert!(limits.open_stream(client(1)).is_err(), "2 per client");
        let _other = limits.open_stream(client(2)).unwrap();
        assert!(limits.open_stream(client(3)).is_err(), "3 in total");
        drop(first);
        assert!(
            limits.open_stream(client(1)).is_ok(),
            "a closed one frees its place"
        );
    }
}
