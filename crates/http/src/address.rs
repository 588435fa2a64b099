//! The address rule of clients whose URLs a model can steer (the `fetch`, `api` and `openapi`
//! tools, the `http_post` hook builtin): only public addresses are reached, so a model cannot
//! touch the machine's own services, the local network or a cloud metadata endpoint.
//!
//! One table for every such client, so none is weaker than another. Names are judged after
//! resolution ([`PublicOnly`]); IP literals skip the resolver, so callers check them with
//! [`literal_ip`] and [`is_public`] on the URL and on every redirect. The wording of a refusal
//! belongs to the caller, which knows what setting lifts the rule.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::sync::Arc;

/// Whether `ip` is on the public internet.
pub fn is_public(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => public_v4(v4),
        IpAddr::V6(v6) => public_v6(v6),
    }
}

/// Every IPv4 address but the special-purpose ranges (RFC 6890 and its updates).
fn public_v4(v4: Ipv4Addr) -> bool {
    let [a, b, c, _] = v4.octets();
    !(a == 0 // "this network"
        || a == 10
        || a == 127
        || (a == 100 && (64..128).contains(&b)) // shared address space (carrier-grade NAT)
        || (a == 169 && b == 254)
        || (a == 172 && (16..32).contains(&b))
        || (a == 192 && b == 0 && (c == 0 || c == 2)) // protocol assignments, documentation
        || (a == 192 && b == 88 && c == 99) // 6to4 relay anycast
        || (a == 192 && b == 168)
        || (a == 198 && (b == 18 || b == 19)) // benchmarking
        || (a == 198 && b == 51 && c == 100)
        || (a == 203 && b == 0 && c == 113)
        || a >= 224) // multicast, reserved, broadcast
}

/// Global unicast (`2000::/3`) but its special-purpose ranges; an address that carries an
/// IPv4 address the packets go on to (IPv4-mapped, NAT64 `64:ff9b::/96`, 6to4 `2002::/16`)
/// is as public as that address. Everything outside `2000::/3` is not public: `::/8`
/// (loopback, unspecified, IPv4-compatible `::a.b.c.d`), local-use NAT64 `64:ff9b:1::/48`,
/// discard `100::/64`, unique-local `fc00::/7`, link-local `fe80::/10`, site-local
/// `fec0::/10`, multicast `ff00::/8`.
fn public_v6(v6: Ipv6Addr) -> bool {
    let s = v6.segments();
    let embedded = |hi: u16, lo: u16| Ipv4Addr::from((u32::from(hi) << 16) | u32::from(lo));
    if let Some(v4) = v6.to_ipv4_mapped() {
        return public_v4(v4);
    }
    if s[..6] == [0x64, 0xff9b, 0, 0, 0, 0] {
        return public_v4(embedded(s[6], s[7]));
    }
    if s[0] == 0x2002 {
        return public_v4(embedded(s[1], s[2]));
    }
    (s[0] & 0xe000) == 0x2000
        // 2001::/23: protocol assignments, Teredo `2001::/32` (it tunnels to an IPv4 host
        // behind a NAT) and benchmarking among them.
        && !(s[0] == 0x2001 && s[1] < 0x0200)
        && !(s[0] == 0x2001 && s[1] == 0x0db8) // documentation
        && !(s[0] == 0x3fff && s[1] < 0x1000) // documentation `3fff::/20`
}

/// The IP of an IP-literal URL (`[::1]` unbracketed); `None` for a name.
pub fn literal_ip(url: &reqwest::Url) -> Option<IpAddr> {
    let host = url.host_str()?;
    let host = host
        .strip_prefix('[')
        .and_then(|h| h.strip_suffix(']'))
        .unwrap_or(host);
    host.parse().ok()
}

/// A resolver that drops non-public addresses, so a name pointing at 127.0.0.1 fails too.
#[derive(Debug, Clone, Copy)]
pub struct PublicOnly {
    refusal: fn(&str) -> String,
}

impl PublicOnly {
    /// `refusal` words the error for a host that resolves to no public address.
    pub fn new(refusal: fn(&str) -> String) -> Self {
        Self { refusal }
    }
}

impl reqwest::dns::Resolve for PublicOnly {
    fn resolve(&self, name: reqwest::dns::Name) -> reqwest::dns::Resolving {
        let refusal = self.refusal;
        Box::pin(async move {
            let host = name.as_str().to_owned();
            let addrs: Vec<SocketAddr> = tokio::net::lookup_host((host.as_str(), 0))
                .await?
                .filter(|a| is_public(a.ip()))
                .collect();
            if addrs.is_empty() {
                return Err(refusal(&host).into());
            }
            Ok(Box::new(addrs.into_iter()) as reqwest::dns::Addrs)
        })
    }
}

/// `builder` made to connect to public addresses only: names resolve through [`PublicOnly`],
/// and no proxy is used (a proxy would be handed the name unresolved and reach whatever it
/// resolves to, `localhost` included). IP literals are the caller's to check.
pub fn public_only(
    builder: reqwest::ClientBuilder,
    refusal: fn(&str) -> String,
) -> reqwest::ClientBuilder {
    builder
        .dns_resolver(Arc::new(PublicOnly::new(refusal)))
        .no_proxy()
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn only_public_addresses_are_public() {
        for (ip, public) in [
            // IPv4
            ("1.1.1.1", true),
            ("8.8.8.8", true),
            ("100.63.255.255", true),
            ("100.128.0.1", true),
            ("172.32.0.1", true),
            ("192.0.1.1", true),
            ("198.20.0.1", true),
            ("223.255.255.254", true),
            ("0.0.0.0", false),
            ("0.1.2.3", false),
            ("10.1.2.3", false),
            ("100.64.0.1", false),
            ("127.0.0.1", false),
            ("127.255.0.9", false),
            ("169.254.169.254", false),
            ("172.16.5.5", false),
            ("172.31.255.255", false),
            ("192.0.0.8", false),
            ("192.0.2.1", false),
            ("192.88.99.1", false),
            ("192.168.0.1", false),
            ("198.18.0.1", false),
            ("198.19.255.255", false),
            ("198.51.100.7", false),
            ("203.0.113.7", false),
            ("224.0.0.1", false),
            ("240.0.0.1", false),
            ("255.255.255.255", false),
            // IPv6 global unicast
            ("2606:4700:4700::1111", true),
            ("2001:4860:4860::8888", true),
            ("2a00:1450::1", true),
            ("3ffe::1", true),
            // IPv4-mapped, NAT64 and 6to4: as public as the IPv4 address they carry
            ("::ffff:8.8.8.8", true),
            ("::ffff:127.0.0.1", false),
            ("::ffff:10.0.0.1", false),
            ("64:ff9b::808:808", true),
            ("64:ff9b::7f00:1", false),
            ("64:ff9b::a9fe:a9fe", false),
            ("2002:808:808::1", true),
            ("2002:7f00:1::1", false),
            ("2002:c0a8:1::1", false),
            ("2002:a00:1::", false),
            // IPv6 outside global unicast or in its special ranges
            ("::", false),
            ("::1", false),
            ("::127.0.0.1", false),
            ("::8.8.8.8", false),
            ("::ffff:0:7f00:1", false),
            ("64:ff9b:1::808:808", false),
            ("100::1", false),
            ("2001::1", false),
            ("2001:0:4136:e378:8000:63bf:3fff:fdd2", false),
            ("2001:2::1", false),
            ("2001:1ff::1", false),
            ("2001:db8::1", false),
            ("3fff::1", false),
            ("3fff:fff::1", false),
            ("fc00::1", false),
            ("fd00::1", false),
            ("fe80::1", false),
            ("febf::1", false),
            ("fec0::1", false),
            ("feff::1", false),
            ("ff02::1", false),
            ("ff0e::1", false),
        ] {
            assert_eq!(is_public(ip.parse().unwrap()), public, "{ip}");
        }
    }

    #[test]
    fn literals_are_read_in_every_form_the_url_parser_accepts() {
        let got: Vec<Option<IpAddr>> = [
            "http://127.0.0.1/",
            "http://2130706433/",
            "http://0x7f.1/",
            "http://[::1]:8080/",
            "http://[::127.0.0.1]/",
            "http://[2002:7f00:1::]/",
            "http://localhost/",
        ]
        .iter()
        .map(|u| literal_ip(&reqwest::Url::parse(u).unwrap()))
        .collect();
        let want: Vec<Option<IpAddr>> = [
            Some("127.0.0.1"),
            Some("127.0.0.1"),
            Some("127.0.0.1"),
            Some("::1"),
            Some("::127.0.0.1"),
            Some("2002:7f00:1::"),
            None,
        ]
        .iter()
        .map(|ip| ip.map(|ip| ip.parse().unwrap()))
        .collect();
        assert_eq!(got, want);
    }

    #[tokio::test]
    async fn a_name_with_no_public_address_is_refused_in_the_callers_words() {
        use reqwest::dns::Resolve;
        let resolver = PublicOnly::new(|host| format!("no public address for `{host}`"));
        let name: reqwest::dns::Name = "localhost".parse().unwrap();
        let err = resolver.resolve(name).await.err().unwrap();
        assert_eq!(err.to_string(), "no public address for `localhost`");
    }
}
