//! What a toolset may reach: the entries of `type: fetch`'s `allowed_domains` /
//! `blocked_domains` and of `type: filesystem`'s `allow_list` / `deny_list`.
//!
//! Domain patterns are parsed once, at load, into [`DomainPattern`]; hosts are compared in the
//! form `reqwest` sends them (lower-case, IDNA ASCII, IP literals parsed), so `Example.COM`,
//! `bücher.de` and `0x7f.1` in a pattern mean what they mean in a URL. Path entries stay as
//! written: `.`, `~` and relative entries depend on the working directory and home of the run,
//! so the filesystem tools expand them ([`expand_path_entry`]) when they are called.

use std::fmt;
use std::net::{IpAddr, Ipv6Addr};

/// One entry of `allowed_domains` or `blocked_domains`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DomainPattern {
    written: String,
    kind: PatternKind,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum PatternKind {
    /// `example.com`: the host and its subdomains; `.example.com` and `*.example.com`: only
    /// its subdomains.
    Domain {
        name: String,
        subdomains_only: bool,
    },
    Ip(IpAddr),
    /// `net/prefix`; an IPv4-mapped IPv6 network is kept as its IPv4 network.
    Cidr {
        net: IpAddr,
        prefix: u8,
    },
}

impl DomainPattern {
    /// Parses an entry as written; the error says what is wrong with it.
    pub fn parse(written: &str) -> Result<Self, String> {
        let text = written.trim();
        if text.is_empty() {
            return Err("must not be empty".to_owned());
        }
        if text.contains("://") {
            return Err("write the host only, without a scheme or path".to_owned());
        }
        let kind = if let Some((addr, prefix)) = text.split_once('/') {
            cidr(addr, prefix).ok_or_else(|| "not a valid CIDR".to_owned())?
        } else {
            let (rest, subdomains_only) = match text.strip_prefix("*.") {
                Some(rest) => (rest, true),
                None => text
                    .strip_prefix('.')
                    .map_or((text, false), |rest| (rest, true)),
            };
            if rest.contains('*') {
                return Err("`*` may only start a pattern, as `*.example.com`".to_owned());
            }
            let rest = rest.strip_suffix('.').unwrap_or(rest);
            if rest.is_empty() {
                return Err("names no host".to_owned());
            }
            match host_ip(rest) {
                Some(_) if subdomains_only => {
                    return Err("an IP address has no subdomains".to_owned());
                }
                Some(ip) => PatternKind::Ip(ip),
                None => {
                    if rest.contains(':') {
                        return Err("ports are not matched; write the host only".to_owned());
                    }
                    match url::Host::parse(rest).map_err(|e| e.to_string())? {
                        url::Host::Domain(name) => PatternKind::Domain {
                            name,
                            subdomains_only,
                        },
                        // Forms such as `0x7f.1` are IP addresses in a URL too.
                        url::Host::Ipv4(ip) if !subdomains_only => PatternKind::Ip(ip.into()),
                        url::Host::Ipv6(ip) if !subdomains_only => PatternKind::Ip(unmap(ip)),
                        url::Host::Ipv4(_) | url::Host::Ipv6(_) => {
                            return Err("an IP address has no subdomains".to_owned());
                        }
                    }
                }
            }
        };
        Ok(Self {
            written: text.to_owned(),
            kind,
        })
    }

    /// The entry as written (trimmed).
    pub fn as_written(&self) -> &str {
        &self.written
    }

    /// Whether a URL's host is covered by the pattern. A name never matches an IP address
    /// nor the reverse: `http://127.0.0.1/` is not `localhost`.
    pub fn matches(&self, host: &url::Host<&str>) -> bool {
        match (&self.kind, host) {
            (
                PatternKind::Domain {
                    name,
                    subdomains_only,
                },
                url::Host::Domain(host),
            ) => {
                let host = host.strip_suffix('.').unwrap_or(host).to_ascii_lowercase();
                let sub = host
                    .strip_suffix(name.as_str())
                    .is_some_and(|head| head.ends_with('.'));
                sub || (!subdomains_only && host == *name)
            }
            (PatternKind::Domain { .. }, _) | (_, url::Host::Domain(_)) => false,
            (PatternKind::Ip(ip), host) => host_addr(host) == Some(*ip),
            (PatternKind::Cidr { net, prefix }, host) => {
                host_addr(host).is_some_and(|ip| in_network(ip, *net, *prefix))
            }
        }
    }
}

impl fmt::Display for DomainPattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.written)
    }
}

/// An IPv4-mapped IPv6 address as the IPv4 address it is, so `::ffff:169.254.169.254`
/// cannot slip past a pattern for `169.254.0.0/16`.
fn unmap(ip: Ipv6Addr) -> IpAddr {
    ip.to_ipv4_mapped().map_or(IpAddr::V6(ip), IpAddr::V4)
}

/// `text` as an IP address: dotted IPv4, or IPv6 with or without brackets.
fn host_ip(text: &str) -> Option<IpAddr> {
    let bare = text
        .strip_prefix('[')
        .and_then(|t| t.strip_suffix(']'))
        .unwrap_or(text);
    match bare.parse::<IpAddr>().ok()? {
        IpAddr::V6(v6) => Some(unmap(v6)),
        v4 @ IpAddr::V4(_) => Some(v4),
    }
}

fn host_addr(host: &url::Host<&str>) -> Option<IpAddr> {
    match host {
        url::Host::Ipv4(ip) => Some(IpAddr::V4(*ip)),
        url::Host::Ipv6(ip) => Some(unmap(*ip)),
        url::Host::Domain(_) => None,
    }
}

fn cidr(addr: &str, prefix: &str) -> Option<PatternKind> {
    let bare = addr
        .strip_prefix('[')
        .and_then(|t| t.strip_suffix(']'))
        .unwrap_or(addr);
    let net: IpAddr = bare.parse().ok()?;
    let prefix: u8 = prefix.parse().ok()?;
    match net {
        IpAddr::V4(_) if prefix <= 32 => Some(PatternKind::Cidr { net, prefix }),
        IpAddr::V6(v6) if prefix <= 128 => match v6.to_ipv4_mapped() {
            Some(v4) if prefix >= 96 => Some(PatternKind::Cidr {
                net: IpAddr::V4(v4),
                prefix: prefix - 96,
            }),
            _ => Some(PatternKind::Cidr { net, prefix }),
        },
        _ => None,
    }
}

fn in_network(ip: IpAddr, net: IpAddr, prefix: u8) -> bool {
    let mask = |bits: u32, width: u32| -> u128 {
        if bits == 0 {
            0
        } else {
            (u128::MAX << (width - bits)) & (u128::MAX >> (128 - width))
        }
    };
    match (ip, net) {
        (IpAddr::V4(ip), IpAddr::V4(net)) => {
            let m = mask(u32::from(prefix), 32);
            u128::from(u32::from(ip)) & m == u128::from(u32::from(net)) & m
        }
        (IpAddr::V6(ip), IpAddr::V6(net)) => {
            let m = mask(u32::from(prefix), 128);
            u128::from(ip) & m == u128::from(net) & m
        }
        _ => false,
    }
}

/// Expands the variables of an `allow_list` / `deny_list` entry: `${env.NAME}`, `${NAME}` and
/// `$NAME` (docker-agent expands them too). A variable `lookup` does not know, or one that is
/// empty, is an error: an entry that silently became `""` would mean the working directory.
/// A `$` not followed by a name or `{` is literal.
pub fn expand_path_entry(
    entry: &str,
    lookup: impl Fn(&str) -> Option<String>,
) -> Result<String, String> {
    let mut out = String::with_capacity(entry.len());
    let mut rest = entry;
    while let Some(at) = rest.find('$') {
        out.push_str(&rest[..at]);
        let after = &rest[at + 1..];
        let (name, tail) = if let Some(braced) = after.strip_prefix('{') {
            let end = braced
                .find('}')
                .ok_or_else(|| format!("unterminated `${{` in `{entry}`"))?;
            let inner = &braced[..end];
            let name = inner.strip_prefix("env.").unwrap_or(inner);
            if !is_name(name) {
                return Err(format!("invalid variable name `{name}` in `{entry}`"));
            }
            (name, &braced[end + 1..])
        } else {
            let len = after
                .char_indices()
                .find(|(i, c)| {
                    !(c.is_ascii_alphanumeric() || *c == '_') || (*i == 0 && c.is_ascii_digit())
                })
                .map_or(after.len(), |(i, _)| i);
            if len == 0 {
                out.push('$');
                rest = after;
                continue;
            }
            (&after[..len], &after[len..])
        };
        match lookup(name).filter(|v| !v.is_empty()) {
            Some(value) => out.push_str(&value),
            None => return Err(format!("environment variable `{name}` is not set")),
        }
        rest = tail;
    }
    out.push_str(rest);
    Ok(out)
}

fn is_name(name: &str) -> bool {
    name.chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn host(text: &str) -> url::Host<String> {
        url::Url::parse(&format!("http://{text}/"))
            .unwrap()
            .host()
            .unwrap()
            .to_owned()
    }

    fn matches(pattern: &str, h: &str) -> bool {
        let host = host(h);
        let host = match &host {
            url::Host::Domain(d) => url::Host::Domain(d.as_str()),
            url::Host::Ipv4(ip) => url::Host::Ipv4(*ip),
            url::Host::Ipv6(ip) => url::Host::Ipv6(*ip),
        };
        DomainPattern::parse(pattern).unwrap().matches(&host)
    }

    #[test]
    fn a_bare_host_matches_its_apex_and_subdomains_only() {
        let cases = [
            ("example.com", "example.com", true),
            ("example.com", "docs.example.com", true),
            ("example.com", "a.b.example.com", true),
            ("example.com", "badexample.com", false),
            ("example.com", "example.com.evil.net", false),
            ("example.com", "example.org", false),
            ("Example.COM", "EXAMPLE.com", true),
            ("example.com", "example.com.", true),
            ("example.com.", "docs.example.com", true),
            ("localhost", "localhost", true),
        ];
        for (pattern, h, want) in cases {
            assert_eq!(matches(pattern, h), want, "{pattern} vs {h}");
        }
    }

    #[test]
    fn a_leading_dot_or_star_matches_strict_subdomains() {
        let cases = [
            (".example.com", "docs.example.com", true),
            (".example.com", "example.com", false),
            ("*.example.com", "a.b.example.com", true),
            ("*.example.com", "example.com", false),
            ("*.example.com", "xexample.com", false),
            ("*.EXAMPLE.com", "Docs.Example.Com", true),
        ];
        for (pattern, h, want) in cases {
            assert_eq!(matches(pattern, h), want, "{pattern} vs {h}");
        }
    }

    #[test]
    fn ip_patterns_and_cidr_ranges_match_ip_hosts_only() {
        let cases = [
            ("127.0.0.1", "127.0.0.1", true),
            ("127.0.0.1", "127.0.0.2", false),
            ("127.0.0.0/8", "127.1.2.3", true),
            ("127.0.0.0/8", "128.0.0.1", false),
            ("127.0.0.0/8", "localhost", false),
            ("169.254.0.0/16", "[::ffff:169.254.169.254]", true),
            ("169.254.169.254", "[::ffff:a9fe:a9fe]", true),
            ("::1/128", "[::1]", true),
            ("::1", "[::1]", true),
            ("[::1]", "[::1]", true),
            ("fc00::/7", "[fd12::1]", true),
            ("fc00::/7", "[fe80::1]", false),
            ("0.0.0.0/0", "8.8.8.8", true),
            ("0.0.0.0/0", "[2001:db8::1]", false),
            ("::/0", "[2001:db8::1]", true),
            ("::ffff:10.0.0.0/104", "10.9.9.9", true),
            // The URL parser reads these forms as 127.0.0.1, and so does the pattern.
            ("127.0.0.1", "2130706433", true),
            ("0x7f.1", "127.0.0.1", true),
            ("localhost", "127.0.0.1", false),
        ];
        for (pattern, h, want) in cases {
            assert_eq!(matches(pattern, h), want, "{pattern} vs {h}");
        }
    }

    #[test]
    fn international_names_match_in_either_form() {
        assert!(matches("bücher.de", "xn--bcher-kva.de"));
        assert!(matches("xn--bcher-kva.de", "shop.bücher.de"));
    }

    #[test]
    fn bad_patterns_say_what_is_wrong() {
        let cases = [
            ("", "must not be empty"),
            ("  ", "must not be empty"),
            ("foo.*", "`*` may only start a pattern, as `*.example.com`"),
            ("*", "`*` may only start a pattern, as `*.example.com`"),
            ("*.", "names no host"),
            (".", "names no host"),
            ("10.0.0.0/33", "not a valid CIDR"),
            ("10.0.0/8", "not a valid CIDR"),
            ("example.com/8", "not a valid CIDR"),
            ("::1/129", "not a valid CIDR"),
            (
                "https://example.com",
                "write the host only, without a scheme or path",
            ),
            (
                "example.com:8080",
                "ports are not matched; write the host only",
            ),
            (".10.0.0.1", "an IP address has no subdomains"),
            ("exa mple.com", "invalid international domain name"),
        ];
        for (pattern, want) in cases {
            assert_eq!(
                DomainPattern::parse(pattern).unwrap_err(),
                want,
                "{pattern:?}"
            );
        }
    }

    #[test]
    fn path_entries_expand_variables_and_refuse_unset_ones() {
        let lookup = |name: &str| match name {
            "DIR" => Some("/srv/data".to_owned()),
            "EMPTY" => Some(String::new()),
            _ => None,
        };
        let ok = [
            ("~/projects", "~/projects"),
            ("$DIR", "/srv/data"),
            ("${DIR}/x", "/srv/data/x"),
            ("${env.DIR}", "/srv/data"),
            ("~/${env.DIR}", "~//srv/data"),
            ("$DIR.bak", "/srv/data.bak"),
            ("cost$", "cost$"),
            ("a$-b", "a$-b"),
            ("$1", "$1"),
        ];
        for (entry, want) in ok {
            assert_eq!(expand_path_entry(entry, lookup).unwrap(), want, "{entry}");
        }
        let bad = [
            ("$NOPE", "environment variable `NOPE` is not set"),
            ("${EMPTY}", "environment variable `EMPTY` is not set"),
            ("${DIR", "unterminated `${` in `${DIR`"),
            ("${a-b}", "invalid variable name `a-b` in `${a-b}`"),
        ];
        for (entry, want) in bad {
            assert_eq!(
                expand_path_entry(entry, lookup).unwrap_err(),
                want,
                "{entry}"
            );
        }
    }
}
