//! Where deliveries may go: public http(s) addresses only, unless private ones are allowed.

use crate::problem::ErrorCode;
use std::net::IpAddr;
use std::time::Duration;

/// Loopback, private, link-local and unspecified addresses: a webhook there would reach into our
/// own network.
pub fn is_private(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => {
            v4.is_loopback()
                || v4.is_private()
                || v4.is_link_local()
                || v4.is_unspecified()
                || v4.is_broadcast()
        }
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => is_private(IpAddr::V4(v4)),
            None => {
                let first = v6.segments()[0];
                v6.is_loopback()
                    || v6.is_unspecified()
                    || (first & 0xfe00) == 0xfc00
                    || (first & 0xffc0) == 0xfe80
            }
        },
    }
}

/// Why a URL may not receive webhooks: `(code, message)`.
pub type UrlRefusal = (ErrorCode, String);

/// Checks a webhook URL: http or https, with a host that is not (and does not resolve to) a
/// private address unless `allow_private`.
pub async fn check_url(url: &str, allow_private: bool) -> Result<reqwest::Url, UrlRefusal> {
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
    if allow_private {
        return Ok(parsed);
    }
    if let Ok(ip) = host.parse::<IpAddr>() {
        return match is_private(ip) {
            true => Err((
                ErrorCode::PrivateAddress,
                format!(
                    "{ip} is a loopback or private address; webhooks go to public addresses only"
                ),
            )),
            false => Ok(parsed),
        };
    }
    let port = parsed.port_or_known_default().unwrap_or(80);
    let resolved = tokio::time::timeout(
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
    })?;
    for address in resolved {
        if is_private(address.ip()) {
            return Err((
                ErrorCode::PrivateAddress,
                format!(
                    "{host} resolves to {}, a loopback or private address",
                    address.ip()
                ),
            ));
        }
    }
    Ok(parsed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn private_addresses_are_recognised() {
        for private in [
            "127.0.0.1",
            "10.1.2.3",
            "172.16.0.1",
            "172.31.255.255",
            "192.168.1.1",
            "169.254.169.254",
            "0.0.0.0",
            "::1",
            "fc00::1",
            "fd12::1",
            "fe80::1",
            "::ffff:127.0.0.1",
        ] {
            assert!(is_private(private.parse().unwrap()), "{private}");
        }
        for public in ["8.8.8.8", "172.32.0.1", "2606:4700::1111", "192.169.0.1"] {
            assert!(!is_private(public.parse().unwrap()), "{public}");
        }
    }

    #[tokio::test]
    async fn urls_are_checked() {
        for (url, refusal) in [
            ("ftp://example.org/x", ErrorCode::UnsupportedScheme),
            ("http://127.0.0.1:9/x", ErrorCode::PrivateAddress),
            ("http://[::1]/x", ErrorCode::PrivateAddress),
            ("http://localhost:9/x", ErrorCode::PrivateAddress),
            ("http://u:p@8.8.8.8/", ErrorCode::CredentialsInUrl),
        ] {
            assert_eq!(check_url(url, false).await.unwrap_err().0, refusal, "{url}");
        }
        assert!(check_url("http://127.0.0.1:9/x", true).await.is_ok());
        assert!(check_url("https://8.8.8.8/hook", false).await.is_ok());
    }
}
