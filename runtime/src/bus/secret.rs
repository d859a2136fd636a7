//! Secrets that reach a broker and never a screen: a [`Secret`] prints as `<redacted>` in `{:?}`, and
//! a password or token inside a server URL is replaced by `***` wherever the servers are named
//! ([`redact_url`]). Every broker's settings name their servers through it.

use std::fmt;

/// A password, token or seed: kept, used, never printed.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    /// Wraps a secret value.
    pub fn new(value: impl Into<String>) -> Self {
        Secret(value.into())
    }

    /// The value, for the one place that sends it.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("<redacted>")
    }
}

/// A URL with its password (or token) replaced by `***`.
pub fn redact_url(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return redact_userinfo(url);
    };
    format!("{scheme}://{}", redact_userinfo(rest))
}

fn redact_userinfo(rest: &str) -> String {
    let host_start = rest.find('/').unwrap_or(rest.len());
    let Some(at) = rest[..host_start].rfind('@') else {
        return rest.to_owned();
    };
    let (userinfo, host) = (&rest[..at], &rest[at..]);
    match userinfo.split_once(':') {
        Some((user, _)) => format!("{user}:***{host}"),
        // A lone token in the userinfo is the secret itself.
        None => format!("***{host}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passwords_and_tokens_in_urls_are_never_shown() {
        assert_eq!(
            redact_url("nats://alice:s3cret@host:4222"),
            "nats://alice:***@host:4222"
        );
        assert_eq!(redact_url("kafka://t0ken@host"), "kafka://***@host");
        assert_eq!(redact_url("tls://host:4222"), "tls://host:4222");
        assert_eq!(format!("{:?}", Secret::new("hunter2")), "<redacted>");
    }
}
