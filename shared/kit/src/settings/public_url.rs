//! The one address people reach the suite at, which every link the suite writes starts with (PIN
//! slips, QR codes, sign-in links, calendar feeds): `CATAN_PUBLIC_URL` when set, else the address
//! the request came to the edge at (the suite's gateway, an ingress), never a service's or the web
//! app's own port.
//!
//! The edge tells it in `X-Forwarded-Host` and `X-Forwarded-Proto`, overwriting whatever a client
//! sent there, and a service believes them only from the edge, with the proxy secret (as it
//! believes the client's address, [`crate::client`]); else the request's own `Host` is the
//! address. `Forwarded` is never read: any client can write it.

use crate::client::ProxyTrust;
use actix_web::HttpRequest;
use actix_web::http::header::HOST;
use actix_web::http::uri::Authority;

/// The header in which the edge tells the host the client reached it at.
pub const FORWARDED_HOST: &str = "x-forwarded-host";
/// The header in which the edge tells the scheme the client reached it with.
pub const FORWARDED_PROTO: &str = "x-forwarded-proto";

/// An address the suite is reached at: a scheme and a host (with its port when not the scheme's
/// own), without a path, e.g. `https://catan.example.org`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PublicUrl(String);

impl std::str::FromStr for PublicUrl {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let url = reqwest::Url::parse(text.trim())
            .map_err(|e| format!("not an address such as https://catan.example.org ({e})"))?;
        if !matches!(url.scheme(), "http" | "https") {
            return Err(format!(
                "the address starts with {}://; it needs http:// or https://",
                url.scheme()
            ));
        }
        if url.host_str().is_none_or(str::is_empty) {
            return Err("the address has no host".into());
        }
        if !url.username().is_empty() || url.password().is_some() {
            return Err("the address carries a user name or password".into());
        }
        if url.path() != "/" || url.query().is_some() || url.fragment().is_some() {
            return Err(
                "the suite is served at the root of its host: give the address without a path"
                    .into(),
            );
        }
        Ok(PublicUrl(url.origin().ascii_serialization()))
    }
}

impl std::fmt::Display for PublicUrl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl PublicUrl {
    /// The address, without a trailing slash: links are this followed by their path.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Whether people reach the suite over TLS.
    pub fn is_https(&self) -> bool {
        self.0.starts_with("https://")
    }

    /// The address the links written for `req` start with: `configured` when there is one, else
    /// the address the request came to the edge at (see the module's notes).
    pub fn for_request(
        configured: Option<&PublicUrl>,
        trust: &ProxyTrust,
        req: &HttpRequest,
    ) -> PublicUrl {
        if let Some(configured) = configured {
            return configured.clone();
        }
        let header = |name| req.headers().get(name).and_then(|v| v.to_str().ok());
        let vouched = trust.vouches_for(req);
        let forwarded = vouched
            .then(|| header(FORWARDED_HOST))
            .flatten()
            .and_then(authority);
        let (scheme, host) = match forwarded {
            Some(host) => {
                let scheme = match header(FORWARDED_PROTO).map(str::trim) {
                    Some("https") => "https",
                    _ => "http",
                };
                (scheme, host)
            }
            // No edge in front: the service faces its clients itself, over plain HTTP.
            None => {
                let own = header(HOST.as_str())
                    .and_then(authority)
                    .or_else(|| req.uri().authority().map(|a| a.as_str().to_owned()))
                    .unwrap_or_else(|| req.app_config().local_addr().to_string());
                ("http", own)
            }
        };
        PublicUrl(format!("{scheme}://{host}"))
    }
}

/// `value` when it is a host with an optional port (no user, path or anything else).
pub fn authority(value: &str) -> Option<String> {
    let value = value.trim();
    let parsed: Authority = value.parse().ok()?;
    (!value.contains('@') && !parsed.host().is_empty()).then(|| parsed.as_str().to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;
    use actix_web::test::TestRequest;
    use secrecy::SecretString;

    fn trust() -> ProxyTrust {
        ProxyTrust::new(Some(SecretString::from("edge-secret")))
    }

    #[test]
    fn a_public_address_is_a_scheme_and_a_host_only() {
        let url: PublicUrl = "https://Catan.Example.org/".parse().unwrap();
        assert_eq!(url.as_str(), "https://catan.example.org");
        assert!(url.is_https());
        let port: PublicUrl = "http://192.168.1.20:8080".parse().unwrap();
        assert_eq!(port.as_str(), "http://192.168.1.20:8080");
        assert!(!port.is_https());
        for refused in [
            "catan.example.org",
            "ftp://catan.example.org",
            "https://catan.example.org/v1",
            "https://u:p@catan.example.org",
            "https://catan.example.org/?a=1",
        ] {
            assert!(refused.parse::<PublicUrl>().is_err(), "{refused}");
        }
    }

    #[test]
    fn the_configured_address_wins_over_every_header() {
        let configured: PublicUrl = "https://catan.example.org".parse().unwrap();
        let req = TestRequest::default()
            .insert_header(("host", "127.0.0.1:44945"))
            .insert_header((FORWARDED_HOST, "evil.example"))
            .to_http_request();
        let url = PublicUrl::for_request(Some(&configured), &trust(), &req);
        assert_eq!(url, configured);
    }

    #[test]
    fn the_edges_word_is_taken_with_the_secret_only() {
        let from_edge = TestRequest::default()
            .insert_header(("host", "127.0.0.1:44945"))
            .insert_header((FORWARDED_HOST, "192.168.1.20:8080"))
            .insert_header((FORWARDED_PROTO, "https"))
            .insert_header((crate::client::PROXY_SECRET_HEADER, "edge-secret"))
            .to_http_request();
        let url = PublicUrl::for_request(None, &trust(), &from_edge);
        assert_eq!(url.as_str(), "https://192.168.1.20:8080");
        // A client's own headers are not the edge's word: its Host is the address.
        let forged = TestRequest::default()
            .insert_header(("host", "catan.local:8080"))
            .insert_header((FORWARDED_HOST, "evil.example"))
            .insert_header(("forwarded", "host=evil.example"))
            .to_http_request();
        for trust in [trust(), ProxyTrust::default()] {
            let url = PublicUrl::for_request(None, &trust, &forged);
            assert_eq!(url.as_str(), "http://catan.local:8080");
        }
    }

    #[test]
    fn a_host_that_is_not_a_host_is_not_written_into_links() {
        assert_eq!(
            authority(" catan.local:8080 ").as_deref(),
            Some("catan.local:8080")
        );
        assert_eq!(authority("[::1]:8080").as_deref(), Some("[::1]:8080"));
        for bad in ["evil.example/path", "u@evil.example", "a b", "", "<x>"] {
            assert_eq!(authority(bad), None, "{bad}");
        }
    }
}
