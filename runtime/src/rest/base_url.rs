//! The base URL of the API (`{base_url}` in the spec) and the HTTPS-only rule.

use std::fmt;

use url::{Host, Url};

use super::Error;

/// The root of the API: endpoint paths (`/v1/products/`, ...) are appended to it.
///
/// Only `https://` URLs are accepted, except for loopback hosts (`127.0.0.0/8`, `::1`, `localhost`),
/// which may use plain `http://` for tests and local development: a request to them never leaves the
/// machine. A base URL carries no user information (credentials go in headers, never in URLs, so that
/// no URL shown in an error can leak one), no query and no fragment.
#[derive(Clone, PartialEq, Eq)]
pub struct BaseUrl {
    url: Url,
}

impl BaseUrl {
    /// Parses and checks a base URL such as `https://api.example.com` (without the `/v1/` part).
    pub fn parse(input: &str) -> Result<Self, Error> {
        let invalid = |reason: String| Error::InvalidBaseUrl {
            url: shown_url(input),
            reason,
        };
        let url = Url::parse(input.trim()).map_err(|e| invalid(e.to_string()))?;
        if !url.username().is_empty() || url.password().is_some() {
            return Err(invalid(
                "a base URL must not carry user information; pass an API key or a token instead"
                    .to_owned(),
            ));
        }
        let host = url
            .host()
            .ok_or_else(|| invalid("the URL has no host".to_owned()))?;
        match url.scheme() {
            "https" => {}
            "http" if is_loopback(&host) => {}
            "http" => {
                return Err(invalid(
                    "plain HTTP is refused (credentials and data would travel unencrypted); use \
                     https://, or a loopback host (127.0.0.0/8, ::1, localhost) for local testing"
                        .to_owned(),
                ));
            }
            other => {
                return Err(invalid(format!(
                    "unsupported scheme `{other}`; use https://"
                )));
            }
        }
        if url.query().is_some() || url.fragment().is_some() {
            return Err(invalid(
                "a base URL must not have a query or a fragment".to_owned(),
            ));
        }
        let mut url = url;
        let path = url.path().trim_end_matches('/').to_owned();
        if path.ends_with(&format!("/{}", energy_api::rest::API_VERSION)) {
            return Err(invalid(format!(
                "give the base URL without the `/{}` part: endpoint paths start with it",
                energy_api::rest::API_VERSION
            )));
        }
        url.set_path(&path);
        Ok(Self { url })
    }

    /// The base URL as a string, without a trailing slash.
    pub fn as_str(&self) -> &str {
        self.url.as_str().trim_end_matches('/')
    }

    /// The absolute URL of an endpoint path such as `/v1/products/`.
    pub(crate) fn join(&self, path: &str) -> String {
        format!("{}{}", self.as_str(), path)
    }

    /// Whether `url` has this base URL's origin (scheme, host and port): the only place credentials go.
    pub(crate) fn same_origin(&self, url: &Url) -> bool {
        self.url.origin() == url.origin()
    }

    /// Whether the host is a loopback host: requests to it go straight there, never through a proxy.
    pub(crate) fn is_loopback(&self) -> bool {
        self.url.host().is_some_and(|host| is_loopback(&host))
    }

    /// This base URL's origin, as `scheme://host[:port]`.
    pub(crate) fn origin(&self) -> String {
        self.url.origin().ascii_serialization()
    }
}

impl fmt::Display for BaseUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl fmt::Debug for BaseUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "BaseUrl({:?})", self.as_str())
    }
}

impl std::str::FromStr for BaseUrl {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self, Error> {
        Self::parse(s)
    }
}

/// Whether a host is a loopback host: `localhost`, `127.0.0.0/8` or `::1`.
fn is_loopback(host: &Host<&str>) -> bool {
    match host {
        Host::Domain(name) => name.eq_ignore_ascii_case("localhost"),
        Host::Ipv4(ip) => ip.is_loopback(),
        Host::Ipv6(ip) => ip.is_loopback(),
    }
}

/// The input as an error may show it: hidden when it may hold user information (`user:secret@`).
pub(crate) fn shown_url(input: &str) -> String {
    if input.contains('@') {
        "<hidden: it contains user information>".to_owned()
    } else {
        input.to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn https_and_loopback_http_are_accepted() {
        for (input, expected) in [
            ("https://api.example.com", "https://api.example.com"),
            ("https://api.example.com/", "https://api.example.com"),
            (
                "https://api.example.com/energy/",
                "https://api.example.com/energy",
            ),
            ("http://127.0.0.1:8080", "http://127.0.0.1:8080"),
            ("http://127.42.0.9", "http://127.42.0.9"),
            ("http://[::1]:9000/", "http://[::1]:9000"),
            ("http://LOCALHOST:3000", "http://localhost:3000"),
        ] {
            let base = BaseUrl::parse(input).unwrap_or_else(|e| panic!("{input}: {e}"));
            assert_eq!(base.as_str(), expected);
            assert_eq!(
                base.join("/v1/products/"),
                format!("{expected}/v1/products/")
            );
        }
    }

    #[test]
    fn plain_http_to_other_hosts_and_other_schemes_are_refused() {
        for input in [
            "http://api.example.com",
            "http://128.0.0.1",
            "http://[::2]",
            "http://localhost.example.com",
            "http://10.0.0.1:8000",
            "ftp://api.example.com",
        ] {
            let error = BaseUrl::parse(input).expect_err(input).to_string();
            assert!(
                error.contains("plain HTTP is refused") || error.contains("unsupported scheme"),
                "{input}: {error}"
            );
        }
    }

    #[test]
    fn user_information_is_refused_without_being_shown() {
        let error = BaseUrl::parse("https://sk_live_abc:@api.example.com")
            .expect_err("user info")
            .to_string();
        assert!(error.contains("user information"), "{error}");
        assert!(!error.contains("sk_live_abc"), "{error}");
    }

    #[test]
    fn query_fragment_and_version_suffix_are_refused() {
        for input in [
            "https://api.example.com/?x=1",
            "https://api.example.com/#top",
            "https://api.example.com/v1/",
            "not a url",
        ] {
            assert!(BaseUrl::parse(input).is_err(), "{input}");
        }
    }

    #[test]
    fn origins_compare_scheme_host_and_port() {
        let base = BaseUrl::parse("https://api.example.com").expect("base");
        let same = Url::parse("https://api.example.com:443/v1/products/?page=2").expect("url");
        assert!(base.same_origin(&same));
        for other in [
            "http://api.example.com/v1/products/?page=2",
            "https://api.example.com:8443/v1/products/",
            "https://evil.example.com/v1/products/",
        ] {
            assert!(
                !base.same_origin(&Url::parse(other).expect("url")),
                "{other}"
            );
        }
        assert_eq!(base.origin(), "https://api.example.com");
    }
}
