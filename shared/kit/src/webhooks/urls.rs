//! Where deliveries may go: public http(s) addresses only, unless private ones are allowed.
//!
//! A name is resolved once per check and every address it gives is vetted; a delivery then
//! connects to those vetted addresses (see [`vet_url`]), so a name that resolves elsewhere the
//! second time (DNS rebinding) cannot lead it into our own network.

use crate::problem::ErrorCode;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::time::Duration;

/// IPv4 blocks of the IANA special-purpose registry that are not globally reachable, with
/// multicast and broadcast: `(network, prefix length)`.
const SPECIAL_V4: [(Ipv4Addr, u8); 17] = [
    (Ipv4Addr::new(0, 0, 0, 0), 8),       // "this network"
    (Ipv4Addr::new(10, 0, 0, 0), 8),      // private
    (Ipv4Addr::new(100, 64, 0, 0), 10),   // shared address space (carrier-grade NAT)
    (Ipv4Addr::new(127, 0, 0, 0), 8),     // loopback
    (Ipv4Addr::new(169, 254, 0, 0), 16),  // link-local (cloud metadata)
    (Ipv4Addr::new(172, 16, 0, 0), 12),   // private
    (Ipv4Addr::new(192, 0, 0, 0), 24),    // IETF protocol assignments
    (Ipv4Addr::new(192, 0, 2, 0), 24),    // documentation
    (Ipv4Addr::new(192, 31, 196, 0), 24), // AS112
    (Ipv4Addr::new(192, 52, 193, 0), 24), // AMT
    (Ipv4Addr::new(192, 88, 99, 0), 24),  // 6to4 relay anycast
    (Ipv4Addr::new(192, 168, 0, 0), 16),  // private
    (Ipv4Addr::new(198, 18, 0, 0), 15),   // benchmarking
    (Ipv4Addr::new(198, 51, 100, 0), 24), // documentation
    (Ipv4Addr::new(203, 0, 113, 0), 24),  // documentation
    (Ipv4Addr::new(224, 0, 0, 0), 4),     // multicast
    (Ipv4Addr::new(240, 0, 0, 0), 4),     // reserved, and the broadcast address
];

/// IPv6 blocks of the IANA special-purpose registry that are not globally reachable or that embed
/// an IPv4 address (which could be a private one), with multicast: `(network, prefix length)`.
const SPECIAL_V6: [(Ipv6Addr, u8); 13] = [
    (Ipv6Addr::new(0, 0, 0, 0, 0, 0, 0, 0), 96), // unspecified, loopback, IPv4-compatible
    (Ipv6Addr::new(0, 0, 0, 0, 0, 0xffff, 0, 0), 96), // IPv4-mapped
    (Ipv6Addr::new(0x64, 0xff9b, 0, 0, 0, 0, 0, 0), 96), // NAT64
    (Ipv6Addr::new(0x64, 0xff9b, 1, 0, 0, 0, 0, 0), 48), // local-use NAT64
    (Ipv6Addr::new(0x100, 0, 0, 0, 0, 0, 0, 0), 64), // discard-only
    (Ipv6Addr::new(0x2001, 0, 0, 0, 0, 0, 0, 0), 23), // IETF protocol assignments (Teredo, ...)
    (Ipv6Addr::new(0x2001, 0xdb8, 0, 0, 0, 0, 0, 0), 32), // documentation
    (Ipv6Addr::new(0x2002, 0, 0, 0, 0, 0, 0, 0), 16), // 6to4
    (Ipv6Addr::new(0x3fff, 0, 0, 0, 0, 0, 0, 0), 20), // documentation
    (Ipv6Addr::new(0xfc00, 0, 0, 0, 0, 0, 0, 0), 7), // unique local
    (Ipv6Addr::new(0xfe80, 0, 0, 0, 0, 0, 0, 0), 10), // link-local
    (Ipv6Addr::new(0xfec0, 0, 0, 0, 0, 0, 0, 0), 10), // site-local (deprecated)
    (Ipv6Addr::new(0xff00, 0, 0, 0, 0, 0, 0, 0), 8), // multicast
];

fn in_v4(ip: Ipv4Addr, (network, prefix): (Ipv4Addr, u8)) -> bool {
    let mask = u32::MAX.checked_shl(32 - u32::from(prefix)).unwrap_or(0);
    u32::from(ip) & mask == u32::from(network) & mask
}

fn in_v6(ip: Ipv6Addr, (network, prefix): (Ipv6Addr, u8)) -> bool {
    let mask = u128::MAX.checked_shl(128 - u32::from(prefix)).unwrap_or(0);
    u128::from(ip) & mask == u128::from(network) & mask
}

/// An address a webhook must not reach: one of the special-purpose blocks above (loopback,
/// private, link-local, shared, reserved, documentation, multicast, or IPv6 that embeds IPv4).
pub fn is_private(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => SPECIAL_V4.iter().any(|&block| in_v4(v4, block)),
        IpAddr::V6(v6) => {
            // 2001::/23 holds a few globally reachable blocks; Teredo (2001::/32) and the rest of
            // it are refused all the same: webhooks go to ordinary unicast addresses.
            SPECIAL_V6.iter().any(|&block| in_v6(v6, block))
        }
    }
}

/// Why a URL may not receive webhooks: `(code, message)`.
pub type UrlRefusal = (ErrorCode, String);

/// A webhook URL that passed the checks, and where to connect to send to it.
#[derive(Debug, Clone)]
pub struct VettedUrl {
    pub url: reqwest::Url,
    /// The URL's host name and the addresses it resolved to, each vetted: connect to these, not
    /// to what the name resolves to later. `None` when the host is an address itself.
    pub resolved: Option<(String, Vec<SocketAddr>)>,
}

/// Checks a webhook URL: http or https, with a host that is not (and does not resolve to) a
/// private address unless `allow_private` (and then a name is not looked up).
pub async fn check_url(url: &str, allow_private: bool) -> Result<reqwest::Url, UrlRefusal> {
    let (parsed, host) = parse(url)?;
    if allow_private {
        return Ok(parsed);
    }
    vet_host(parsed, host, false).await.map(|vetted| vetted.url)
}

/// Checks a webhook URL as [`check_url`] does, and resolves its host name once (even when private
/// addresses are allowed), so a delivery connects to the addresses vetted here.
pub async fn vet_url(url: &str, allow_private: bool) -> Result<VettedUrl, UrlRefusal> {
    let (parsed, host) = parse(url)?;
    vet_host(parsed, host, allow_private).await
}

fn parse(url: &str) -> Result<(reqwest::Url, String), UrlRefusal> {
    let parsed =
        reqwest::Url::parse(url).map_err(|e| (ErrorCode::InvalidUrl, format!("not a URL: {e}")))?;
    if !matches!(parsed.scheme(), "http" | "https") {
        return Err((
            ErrorCode::UnsupportedScheme,
            "only http and https URLs receive webhooks".into(),
        ));
    }
    if !parsed.username().is_empty() || parsed.password().is_some() {
        return Err((
            ErrorCode::CredentialsInUrl,
            "the URL must not carry credentials".into(),
        ));
    }
    let host = parsed
        .host_str()
        .ok_or((ErrorCode::InvalidUrl, "the URL has no host".to_string()))?
        .trim_start_matches('[')
        .trim_end_matches(']')
        .to_string();
    Ok((parsed, host))
}

async fn vet_host(
    parsed: reqwest::Url,
    host: String,
    allow_private: bool,
) -> Result<VettedUrl, UrlRefusal> {
    if let Ok(ip) = host.parse::<IpAddr>() {
        return match !allow_private && is_private(ip) {
            // The caller wrote this address: naming it tells them nothing new.
            true => Err((
                ErrorCode::PrivateAddress,
                format!(
                    "{ip} is a loopback or private address; webhooks go to public addresses only"
                ),
            )),
            false => Ok(VettedUrl {
                url: parsed,
                resolved: None,
            }),
        };
    }
    let port = parsed.port_or_known_default().unwrap_or(80);
    let addresses: Vec<SocketAddr> = tokio::time::timeout(
        Duration::from_secs(5),
        tokio::net::lookup_host((host.as_str(), port)),
    )
    .await
    .map_err(|_| {
        (
            ErrorCode::UnresolvableHost,
            format!("{host} did not resolve in time"),
        )
    })?
    .map_err(|e| {
        (
            ErrorCode::UnresolvableHost,
            format!("{host} does not resolve: {e}"),
        )
    })?
    .collect();
    if addresses.is_empty() {
        return Err((
            ErrorCode::UnresolvableHost,
            format!("{host} resolves to no address"),
        ));
    }
    // Never the address itself: it would tell a caller what our internal names point at.
    if !allow_private && addresses.iter().any(|a| is_private(a.ip())) {
        return Err((
            ErrorCode::PrivateAddress,
            format!(
                "{host} resolves to a loopback or private address; webhooks go to public addresses only"
            ),
        ));
    }
    Ok(VettedUrl {
        url: parsed,
        resolved: Some((host, addresses)),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn special_purpose_addresses_are_private() {
        for private in [
            "0.1.2.3",
            "127.0.0.1",
            "10.1.2.3",
            "100.64.0.1",
            "100.127.255.255",
            "172.16.0.1",
            "172.31.255.255",
            "192.0.0.8",
            "192.0.2.1",
            "192.88.99.1",
            "192.168.1.1",
            "198.18.0.1",
            "198.19.255.255",
            "198.51.100.7",
            "203.0.113.9",
            "169.254.169.254",
            "224.0.0.1",
            "239.255.255.250",
            "240.0.0.1",
            "255.255.255.255",
            "0.0.0.0",
            "::",
            "::1",
            "::127.0.0.1",
            "::8.8.8.8",
            "::ffff:127.0.0.1",
            "::ffff:8.8.8.8",
            "64:ff9b::7f00:1",
            "64:ff9b::808:808",
            "64:ff9b:1::1",
            "100::1",
            "2001::1",
            "2001:db8::1",
            "2002:7f00:1::1",
            "2002:808:808::1",
            "3fff::1",
            "fc00::1",
            "fd12::1",
            "fe80::1",
            "fec0::1",
            "ff02::1",
            "ff0e::1",
        ] {
            assert!(is_private(private.parse().unwrap()), "{private}");
        }
        for public in [
            "8.8.8.8",
            "1.1.1.1",
            "100.63.255.255",
            "100.128.0.0",
            "172.32.0.1",
            "192.0.1.1",
            "192.169.0.1",
            "198.17.255.255",
            "198.20.0.0",
            "223.255.255.255",
            "2606:4700::1111",
            "2a00:1450:4001::200e",
            "2003::1",
        ] {
            assert!(!is_private(public.parse().unwrap()), "{public}");
        }
    }

    #[tokio::test]
    async fn urls_are_checked() {
        for (url, refusal) in [
            ("ftp://example.org/x", ErrorCode::UnsupportedScheme),
            ("http://127.0.0.1:9/x", ErrorCode::PrivateAddress),
            ("http://100.64.0.1/x", ErrorCode::PrivateAddress),
            ("http://[::1]/x", ErrorCode::PrivateAddress),
            ("http://[::ffff:10.0.0.1]/x", ErrorCode::PrivateAddress),
            ("http://[2002:a00:1::]/x", ErrorCode::PrivateAddress),
            ("http://localhost:9/x", ErrorCode::PrivateAddress),
            ("http://u:p@8.8.8.8/", ErrorCode::CredentialsInUrl),
        ] {
            assert_eq!(check_url(url, false).await.unwrap_err().0, refusal, "{url}");
        }
        assert!(check_url("http://127.0.0.1:9/x", true).await.is_ok());
        assert!(check_url("https://8.8.8.8/hook", false).await.is_ok());
    }

    #[tokio::test]
    async fn a_name_that_resolves_privately_is_refused_without_its_address() {
        let (code, message) = check_url("http://localhost:9/x", false).await.unwrap_err();
        assert_eq!(code, ErrorCode::PrivateAddress);
        assert!(message.contains("localhost"), "{message}");
        assert!(
            !message.contains("127.0.0.1") && !message.contains("::1"),
            "{message}"
        );
    }

    #[tokio::test]
    async fn a_vetted_name_carries_the_addresses_to_connect_to() {
        let vetted = vet_url("http://localhost:9/x", true).await.unwrap();
        let (host, addresses) = vetted.resolved.unwrap();
        assert_eq!(host, "localhost");
        assert!(!addresses.is_empty());
        assert!(
            addresses.iter().all(|a| a.ip().is_loopback()),
            "{addresses:?}"
        );
        assert!(
            vet_url("http://127.0.0.1:9/x", true)
                .await
                .unwrap()
                .resolved
                .is_none()
        );
        assert!(vet_url("http://localhost:9/x", false).await.is_err());
    }
}
