//! Where webhooks may be delivered: public addresses only, unless the
//! server is told otherwise (`serve --allow-private-webhooks`, for
//! development and tests). A webhook URL is the account's, but the request
//! is the server's: without this, any account could make the server reach
//! its own loopback, the private network behind it, or a cloud's metadata
//! address, and read the answers' status codes as a port scanner.
//!
//! The URL is checked when registered and again when delivered, where the
//! host's name is resolved and only public addresses are connected to (so
//! a name that later points inward is refused too). Redirects are never
//! followed.
//!
//! Push endpoints that browsers give (`domain::push`) are held to the same
//! rules: the push service is the browser's choice, the request the server's.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};

/// Why a webhook target is refused, as the account is told.
pub const REFUSED: &str = "refused: not a public address";

/// Whether `ip` is an address on the public internet: not loopback,
/// private, shared, link-local, unique-local, multicast, unspecified,
/// documentation, benchmarking or reserved, in IPv4 or IPv6 (IPv4 inside
/// IPv6 judged as IPv4).
pub fn is_public(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => is_public_v4(v4),
        IpAddr::V6(v6) => is_public_v6(v6),
    }
}

fn is_public_v4(ip: Ipv4Addr) -> bool {
    let [a, b, c, _] = ip.octets();
    let reserved = a == 0                               // "this network"
        || a == 10                                      // private
        || (a == 100 && (64..128).contains(&b))         // shared (carrier NAT)
        || a == 127                                     // loopback
        || (a == 169 && b == 254)                       // link-local
        || (a == 172 && (16..32).contains(&b))          // private
        || (a == 192 && b == 0 && c == 0)               // IETF protocol assignments
        || (a == 192 && b == 0 && c == 2)               // documentation
        || (a == 192 && b == 88 && c == 99)             // 6to4 relay
        || (a == 192 && b == 168)                       // private
        || (a == 198 && (18..20).contains(&b))          // benchmarking
        || (a == 198 && b == 51 && c == 100)            // documentation
        || (a == 203 && b == 0 && c == 113)             // documentation
        || a >= 224; // multicast, reserved, broadcast
    !reserved
}

fn is_public_v6(ip: Ipv6Addr) -> bool {
    if let Some(v4) = ip.to_ipv4_mapped() {
        return is_public_v4(v4);
    }
    let segments = ip.segments();
    let last_32_bits = || {
        let [a, b] = segments[6].to_be_bytes();
        let [c, d] = segments[7].to_be_bytes();
        Ipv4Addr::new(a, b, c, d)
    };
    // NAT64 (64:ff9b::/96, RFC 6052), IPv4-translated (::ffff:0:0:0/96,
    // RFC 2765) and 6to4 (2002::/16) carry an IPv4 address, judged as such.
    if segments[..6] == [0x64, 0xff9b, 0, 0, 0, 0] || segments[..6] == [0, 0, 0, 0, 0xffff, 0] {
        return is_public_v4(last_32_bits());
    }
    if segments[0] == 0x2002 {
        let [a, b] = segments[1].to_be_bytes();
        let [c, d] = segments[2].to_be_bytes();
        return is_public_v4(Ipv4Addr::new(a, b, c, d));
    }
    let first = segments[0];
    let reserved = ip.is_unspecified()
        || ip.is_loopback()
        || segments[..5] == [0, 0, 0, 0, 0]               // IPv4-compatible and the like
        || first & 0xfe00 == 0xfc00                       // unique local
        || first & 0xffc0 == 0xfe80                       // link-local
        || first & 0xffc0 == 0xfec0                       // site-local (deprecated)
        || first & 0xff00 == 0xff00                       // multicast
        || (first == 0x2001 && segments[1] == 0x0db8)     // documentation
        || (first == 0x2001 && segments[1] < 0x0200)      // IETF protocol assignments
        || (first == 0x64 && segments[1..3] == [0xff9b, 1]) // local-use NAT64 (RFC 8215)
        || (first == 0x0100 && segments[1..4] == [0, 0, 0]); // discard
    !reserved
}

/// The HTTP client for URLs that clients gave (webhooks, push endpoints):
/// public addresses only unless `allow_private`, no redirect followed, and
/// no proxy from the environment, which would resolve the target's name
/// itself, past the check that keeps requests off inward addresses.
pub fn outward_client(allow_private: bool, timeout: std::time::Duration) -> reqwest::Client {
    let mut builder = reqwest::Client::builder()
        .no_proxy()
        .timeout(timeout)
        .connect_timeout(timeout / 2)
        .redirect(reqwest::redirect::Policy::none())
        .user_agent(concat!("kingpost/", env!("CARGO_PKG_VERSION")));
    if !allow_private {
        builder = builder.dns_resolver(PublicResolver);
    }
    builder.build().expect("an HTTP client")
}

/// Checks a webhook URL as it is registered: http or https, no user name
/// or password, no control characters; a host that is an address (in any
/// spelling the URL standard reads, `127.1` and `2130706433` included)
/// must be public, and `localhost` names are refused outright. Names are
/// resolved at delivery.
pub fn check_url(text: &str, allow_private: bool) -> Result<reqwest::Url, &'static str> {
    if text.len() > 2048 || text.chars().any(char::is_control) {
        return Err("the URL must be at most 2048 characters, with no control characters");
    }
    let url =
        reqwest::Url::parse(text).map_err(|_| "the URL must be an http:// or https:// URL")?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err("the URL must be an http:// or https:// URL");
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err("the URL may not carry a user name or password");
    }
    if allow_private {
        return Ok(url);
    }
    let public = match url.host() {
        Some(url::Host::Ipv4(ip)) => is_public_v4(ip),
        Some(url::Host::Ipv6(ip)) => is_public_v6(ip),
        Some(url::Host::Domain(name)) => {
            let name = name.trim_end_matches('.').to_ascii_lowercase();
            name != "localhost" && !name.ends_with(".localhost")
        }
        None => false,
    };
    if public {
        Ok(url)
    } else {
        Err(
            "the URL must name a public address: loopback, private, link-local and reserved \
             addresses are refused",
        )
    }
}

/// Resolves names for deliveries, keeping public addresses only.
#[derive(Debug)]
pub struct PublicResolver;

impl reqwest::dns::Resolve for PublicResolver {
    fn resolve(&self, name: reqwest::dns::Name) -> reqwest::dns::Resolving {
        let host = name.as_str().to_owned();
        Box::pin(async move {
            let found: Vec<SocketAddr> = tokio::net::lookup_host((host.as_str(), 0))
                .await?
                .filter(|address| is_public(address.ip()))
                .collect();
            if found.is_empty() {
                return Err(REFUSED.into());
            }
            Ok(Box::new(found.into_iter()) as reqwest::dns::Addrs)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Every spelling of an inward address the issue found reaching loopback.
    #[test]
    fn inward_addresses_are_refused_in_every_spelling() {
        for url in [
            "http://127.0.0.1:8080/hook",
            "http://localhost/hook",
            "http://LOCALHOST./hook",
            "http://api.localhost/hook",
            "http://2130706433/hook",
            "http://0x7f000001/hook",
            "http://127.1/hook",
            "http://0.0.0.0/hook",
            "http://[::1]/hook",
            "http://[::ffff:127.0.0.1]/hook",
            "http://[fe80::1]/hook",
            "http://[fd00::1]/hook",
            "http://10.0.0.1/hook",
            "http://172.16.5.4/hook",
            "http://192.168.1.1/hook",
            "http://169.254.169.254/latest/meta-data",
            "http://100.64.0.1/hook",
            "http://224.0.0.1/hook",
            "http://[64:ff9b::7f00:1]/hook",
            "http://[2002:7f00:1::]/hook",
            "http://[::ffff:0:7f00:1]/hook",
            "http://[::ffff:0:a00:1]/hook",
            "http://[64:ff9b:1::7f00:1]/hook",
            "http://[64:ff9b:1:7f00:1::]/hook",
            "http://[64:ff9b:1:808:8:800::]/hook",
        ] {
            assert!(check_url(url, false).is_err(), "{url}");
            assert!(
                check_url(url, true).is_ok(),
                "{url} with private targets allowed"
            );
        }
    }

    #[test]
    fn credentials_control_characters_and_other_schemes_are_refused() {
        for url in [
            "http://user:pass@example.com/hook",
            "http://user@example.com/hook",
            "http://example.com/ho\r\nok",
            "ftp://example.com/hook",
            "file:///etc/passwd",
        ] {
            assert!(check_url(url, true).is_err(), "{url}");
        }
    }

    // At delivery a name is resolved and only public addresses kept: one
    // that resolves inward (here localhost, from the hosts file) is refused.
    #[test]
    fn names_resolving_inward_are_refused() {
        use reqwest::dns::Resolve;
        let resolved = actix_web::rt::System::new()
            .block_on(PublicResolver.resolve("localhost".parse().unwrap()));
        assert_eq!(
            resolved.err().map(|e| e.to_string()).as_deref(),
            Some(REFUSED)
        );
    }

    #[test]
    fn public_targets_pass() {
        for url in [
            "https://example.com/hook",
            "http://93.184.215.14:8080/hook",
            "https://[2606:2800:21f:cb07:6820:80da:af6b:8b2c]/hook",
        ] {
            assert!(check_url(url, false).is_ok(), "{url}");
        }
        assert!(is_public("8.8.8.8".parse().unwrap()));
        // The same public address inside the IPv6 ranges that carry one.
        for embedded in ["::ffff:8.8.8.8", "::ffff:0:808:808", "64:ff9b::808:808"] {
            assert!(is_public(embedded.parse().unwrap()), "{embedded}");
        }
        assert!(!is_public("198.18.0.1".parse().unwrap()));
    }
}
