//! What `venue serve` prints for the room: the address phones on the venue's network open, and
//! its QR code drawn in the terminal, so that players scan it rather than type it.

use qrcodegen::{QrCode, QrCodeEcc};
use std::net::{IpAddr, Ipv4Addr, SocketAddr, UdpSocket};

/// The base URL phones on the venue's network reach the suite at: the address it is bound to,
/// or, bound to every interface, this machine's address on the network it would route through;
/// none when no phone can reach it (bound to loopback, or no network at all).
pub fn network_url(bound: SocketAddr) -> Option<String> {
    let ip = if bound.ip().is_unspecified() {
        address_on_the_network()?
    } else {
        bound.ip()
    };
    reachable_by_phones(ip).then(|| url_of(ip, bound.port()))
}

/// The addresses a suite bound to `bound` listens on: that one, or, bound to every interface
/// (0.0.0.0, ::), each address of this machine's interfaces (of the same family; IPv6 ones too
/// for ::), loopback first.
pub fn listening(bound: SocketAddr) -> Vec<IpAddr> {
    if !bound.ip().is_unspecified() {
        return vec![bound.ip()];
    }
    let v6 = bound.is_ipv6();
    let mut ips: Vec<IpAddr> = nix::ifaddrs::getifaddrs()
        .map(|addresses| {
            addresses
                .filter_map(|interface| {
                    let address = interface.address?;
                    match (address.as_sockaddr_in(), address.as_sockaddr_in6()) {
                        (Some(v4), _) => Some(IpAddr::V4(v4.ip())),
                        (_, Some(ip6)) if v6 => Some(IpAddr::V6(ip6.ip())),
                        _ => None,
                    }
                })
                .collect()
        })
        .unwrap_or_default();
    if ips.is_empty() {
        ips.push(bound.ip());
    }
    ips.sort_by_key(|ip| (!ip.is_loopback(), *ip));
    ips.dedup();
    ips
}

/// `ip`:`port` as a base URL.
pub fn url_of(ip: IpAddr, port: u16) -> String {
    match ip {
        IpAddr::V4(ip) => format!("http://{ip}:{port}"),
        IpAddr::V6(ip) => format!("http://[{ip}]:{port}"),
    }
}

/// Whether phones on the venue's network may reach `ip`: an address that is not this machine's
/// loopback (nor IPv6 link-local, which a URL cannot name without its interface).
pub fn reachable_by_phones(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(ip) => !ip.is_loopback() && !ip.is_unspecified(),
        IpAddr::V6(ip) => !ip.is_loopback() && !ip.is_unspecified() && !ip.is_unicast_link_local(),
    }
}

/// This machine's address on the private network: the source address the system would use
/// towards it. Connecting a UDP socket only chooses the route; nothing is sent.
fn address_on_the_network() -> Option<IpAddr> {
    let socket = UdpSocket::bind((Ipv4Addr::UNSPECIFIED, 0)).ok()?;
    socket.connect((Ipv4Addr::new(10, 255, 255, 255), 9)).ok()?;
    let ip = socket.local_addr().ok()?.ip();
    (!ip.is_unspecified()).then_some(ip)
}

/// `text`'s QR code as terminal lines, two modules a character, light modules drawn and dark
/// ones blank, in explicit colours (white on black) so that it scans on light and dark
/// terminals alike; with a quiet zone of two modules.
pub fn qr_lines(text: &str) -> Option<String> {
    const QUIET: i32 = 2;
    const COLOURS: &str = "\x1b[97;40m";
    const RESET: &str = "\x1b[0m";
    let code = QrCode::encode_text(text, QrCodeEcc::Medium).ok()?;
    let light = |x: i32, y: i32| !code.get_module(x, y);
    let span = -QUIET..code.size() + QUIET;
    let mut lines = String::new();
    for y in span.clone().step_by(2) {
        lines.push_str(COLOURS);
        for x in span.clone() {
            lines.push(match (light(x, y), light(x, y + 1)) {
                (true, true) => '█',
                (true, false) => '▀',
                (false, true) => '▄',
                (false, false) => ' ',
            });
        }
        lines.push_str(RESET);
        lines.push('\n');
    }
    Some(lines)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Reads `lines` back as a camera would see the terminal: each character two pixels high.
    fn scanned(lines: &str) -> String {
        let rows: Vec<Vec<char>> = lines
            .lines()
            .map(|line| {
                line.replace("\x1b[97;40m", "")
                    .replace("\x1b[0m", "")
                    .chars()
                    .collect()
            })
            .collect();
        let (width, height) = (rows[0].len(), rows.len() * 2);
        // Four pixels a module, and a margin, so that the reader finds the code.
        let scale = 4;
        let margin = 8;
        let side = |n: usize| n * scale + 2 * margin;
        let mut image =
            rqrr::PreparedImage::prepare_from_greyscale(side(width), side(height), |x, y| {
                let (Some(x), Some(y)) = (x.checked_sub(margin), y.checked_sub(margin)) else {
                    return 255;
                };
                let (column, pixel_row) = (x / scale, y / scale);
                let Some(c) = rows.get(pixel_row / 2).and_then(|row| row.get(column)) else {
                    return 255;
                };
                let lit = matches!((c, pixel_row % 2), ('█', _) | ('▀', 0) | ('▄', 1));
                // The terminal draws light modules; dark ones are its black background.
                if lit { 255 } else { 0 }
            });
        let grids = image.detect_grids();
        assert_eq!(grids.len(), 1, "one QR code in the picture");
        grids[0].decode().expect("it decodes").1
    }

    #[test]
    fn the_terminal_qr_code_reads_back_as_the_players_address() {
        let url = "http://192.168.1.20:8080/events/7f1b9a52-2b43-4c8e-9a0e-5d9f5b0c1e11/sign-in";
        let lines = qr_lines(url).expect("a QR code");
        assert_eq!(scanned(&lines), url);
    }

    #[test]
    fn a_suite_bound_to_an_address_is_announced_at_it() {
        let bound: SocketAddr = "192.168.1.20:8080".parse().unwrap();
        assert_eq!(
            network_url(bound).as_deref(),
            Some("http://192.168.1.20:8080")
        );
        let everywhere: SocketAddr = "0.0.0.0:8080".parse().unwrap();
        if let Some(url) = network_url(everywhere) {
            assert!(!url.contains("0.0.0.0"), "{url}");
            assert!(url.ends_with(":8080"), "{url}");
        }
    }

    #[test]
    fn a_loopback_bind_is_no_address_for_phones() {
        for loopback in ["127.0.0.1:8080", "[::1]:8080"] {
            let bound: SocketAddr = loopback.parse().unwrap();
            assert_eq!(network_url(bound), None, "{loopback}");
            assert_eq!(listening(bound), vec![bound.ip()]);
        }
        let everywhere: SocketAddr = "0.0.0.0:8080".parse().unwrap();
        let all = listening(everywhere);
        assert!(all.iter().all(IpAddr::is_ipv4), "{all:?}");
        assert!(
            all.iter().any(IpAddr::is_loopback),
            "loopback is among them: {all:?}"
        );
        assert!(!reachable_by_phones("fe80::1".parse().unwrap()));
        assert!(reachable_by_phones("192.168.1.20".parse().unwrap()));
    }
}
