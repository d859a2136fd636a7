//! The links a server writes (`next`, `previous`): absolute URLs from the configured public base URL,
//! never from what a client put in `Host`. Behind a proxy the server trusts (by its address), the
//! proxy's `X-Forwarded-Proto`, `X-Forwarded-Host` and `X-Forwarded-Prefix` say where clients reach it.

use std::net::IpAddr;

/// The URL clients reach the API at: `scheme://host[:port][/prefix]`, without a trailing `/`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PublicUrl(String);

impl PublicUrl {
    /// Checks `url`: `http` or `https`, a host, no query, fragment or user information.
    pub fn parse(url: &str) -> Result<Self, String> {
        let trimmed = url.trim().trim_end_matches('/');
        let rest = trimmed
            .strip_prefix("https://")
            .or_else(|| trimmed.strip_prefix("http://"))
            .ok_or_else(|| format!("`{url}` is not an http:// or https:// URL"))?;
        let host = rest.split('/').next().unwrap_or_default();
        if host.is_empty() || !host.chars().all(host_char) {
            return Err(format!("`{url}` has no valid host"));
        }
        if rest.contains(['?', '#', '@']) {
            return Err(format!(
                "`{url}` may not have a query, a fragment or user information"
            ));
        }
        Ok(Self(trimmed.to_owned()))
    }

    /// The URL as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

fn host_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | ':' | '[' | ']' | '_')
}

/// Addresses of proxies whose forwarding headers are believed: single addresses or CIDR blocks.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TrustedProxies(Vec<(IpAddr, u8)>);

impl TrustedProxies {
    /// Reads `10.0.0.0/8`, `127.0.0.1`, `::1/128`.
    pub fn parse(blocks: &[String]) -> Result<Self, String> {
        let mut out = Vec::new();
        for block in blocks {
            let (address, bits) = match block.split_once('/') {
                Some((a, b)) => (a, Some(b)),
                None => (block.as_str(), None),
            };
            let address: IpAddr = address
                .parse()
                .map_err(|_| format!("`{block}` is not an IP address or CIDR block"))?;
            let width = if address.is_ipv4() { 32 } else { 128 };
            let bits = match bits {
                Some(b) => b
                    .parse::<u8>()
                    .ok()
                    .filter(|b| *b <= width)
                    .ok_or_else(|| format!("`{block}`: the prefix length is 0 to {width}"))?,
                None => width,
            };
            out.push((address, bits));
        }
        Ok(Self(out))
    }

    /// Whether none is trusted.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Whether `peer` is a trusted proxy.
    pub fn trusts(&self, peer: IpAddr) -> bool {
        let peer = match peer {
            IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(peer, IpAddr::V4),
            v4 => v4,
        };
        self.0.iter().any(|(block, bits)| match (block, peer) {
            (IpAddr::V4(b), IpAddr::V4(p)) => prefix_eq(&b.octets(), &p.octets(), *bits),
            (IpAddr::V6(b), IpAddr::V6(p)) => prefix_eq(&b.octets(), &p.octets(), *bits),
            _ => false,
        })
    }
}

fn prefix_eq(a: &[u8], b: &[u8], bits: u8) -> bool {
    let bits = usize::from(bits);
    let (whole, rest) = (bits / 8, bits % 8);
    if a[..whole] != b[..whole] {
        return false;
    }
    rest == 0 || (a[whole] ^ b[whole]) >> (8 - rest) == 0
}

/// The base of links for one request: the public URL, or, from a trusted proxy, what its forwarding
/// headers say (each checked; one that is not plausible is ignored).
pub(crate) fn base_for(
    public: &PublicUrl,
    trusted: &TrustedProxies,
    peer: Option<IpAddr>,
    header: impl Fn(&str) -> Option<String>,
) -> String {
    if !peer.is_some_and(|p| trusted.trusts(p)) {
        return public.0.clone();
    }
    let first =
        |name: &str| header(name).and_then(|v| v.split(',').next().map(|s| s.trim().to_owned()));
    let scheme = first("x-forwarded-proto").filter(|s| s == "http" || s == "https");
    let host = first("x-forwarded-host").filter(|h| !h.is_empty() && h.chars().all(host_char));
    let prefix = first("x-forwarded-prefix")
        .filter(|p| {
            p.starts_with('/')
                && p.chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '/' | '-' | '_' | '.' | '~'))
        })
        .map(|p| p.trim_end_matches('/').to_owned())
        .unwrap_or_default();
    match (scheme, host) {
        (Some(scheme), Some(host)) => format!("{scheme}://{host}{prefix}"),
        _ => public.0.clone(),
    }
}

/// Percent-encodes a query value or name (everything but the unreserved characters).
fn encode(text: &str, out: &mut String) {
    for b in text.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~') {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
}

/// The `next` and `previous` links of page `page` of `size` records in a list of `count`: the request's
/// own query (its filters; a parameter at its default left out) with `page` changed (absent for the
/// first page).
pub(crate) fn page_links(
    base: &str,
    path: &str,
    query: &[(&'static str, String)],
    defaults: &[(&'static str, i64)],
    page: i64,
    size: i64,
    count: i64,
) -> (Option<String>, Option<String>) {
    let link = |to: i64| {
        let mut url = format!("{base}{path}");
        let mut separator = '?';
        for (name, value) in query {
            let is_default = defaults
                .iter()
                .any(|(n, d)| n == name && value.parse::<i64>().ok() == Some(*d));
            if *name == "page" || is_default {
                continue;
            }
            url.push(separator);
            separator = '&';
            encode(name, &mut url);
            url.push('=');
            encode(value, &mut url);
        }
        if to > 1 {
            url.push(separator);
            url.push_str(&format!("page={to}"));
        }
        url
    };
    let more = page.checked_mul(size).is_some_and(|seen| seen < count);
    let next = more.then(|| link(page + 1));
    let previous = (page > 1).then(|| link(page - 1));
    (next, previous)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links_keep_the_filters_and_move_the_page() {
        let query = [
            ("brand", "OCTOPUS ENERGY".to_owned()),
            ("is_green", "true".to_owned()),
            ("page_size", "100".to_owned()),
            ("page", "2".to_owned()),
        ];
        let defaults = [("page_size", 100), ("page", 1)];
        let (next, previous) = page_links(
            "https://api.example.com",
            "/v1/products/",
            &query,
            &defaults,
            2,
            100,
            250,
        );
        assert_eq!(
            next.as_deref(),
            Some(
                "https://api.example.com/v1/products/?brand=OCTOPUS%20ENERGY&is_green=true&page=3"
            )
        );
        assert_eq!(
            previous.as_deref(),
            Some("https://api.example.com/v1/products/?brand=OCTOPUS%20ENERGY&is_green=true")
        );
        let (next, previous) =
            page_links("https://a", "/v1/products/", &[], &defaults, 3, 100, 250);
        assert_eq!(next, None);
        assert_eq!(previous.as_deref(), Some("https://a/v1/products/?page=2"));
    }

    #[test]
    fn forwarding_headers_count_only_from_a_trusted_proxy() {
        let public = PublicUrl::parse("https://api.example.com/").expect("a URL");
        let trusted = TrustedProxies::parse(&["10.0.0.0/8".to_owned()]).expect("a block");
        let headers = |name: &str| match name {
            "x-forwarded-proto" => Some("https".to_owned()),
            "x-forwarded-host" => Some("energy.example.org, inner".to_owned()),
            "x-forwarded-prefix" => Some("/api/".to_owned()),
            _ => None,
        };
        assert_eq!(
            base_for(&public, &trusted, "10.1.2.3".parse().ok(), headers),
            "https://energy.example.org/api"
        );
        assert_eq!(
            base_for(&public, &trusted, "192.0.2.1".parse().ok(), headers),
            "https://api.example.com"
        );
        let hostile = |name: &str| match name {
            "x-forwarded-proto" => Some("javascript".to_owned()),
            "x-forwarded-host" => Some("evil.example/<script>".to_owned()),
            _ => None,
        };
        assert_eq!(
            base_for(&public, &trusted, "10.1.2.3".parse().ok(), hostile),
            "https://api.example.com"
        );
        assert!(trusted.trusts("::ffff:10.9.9.9".parse().expect("an address")));
        assert!(TrustedProxies::parse(&["10.0.0.0/33".to_owned()]).is_err());
        assert!(PublicUrl::parse("ftp://x").is_err());
        assert!(PublicUrl::parse("https://user@x").is_err());
    }
}
