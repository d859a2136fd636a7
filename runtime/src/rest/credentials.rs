//! Credentials: an API key (HTTP Basic) or a token (`Authorization` header), never shown.

use std::fmt;

use base64::Engine as _;

use super::Error;

/// A secret string: its `Debug` shows `<redacted>`, and it has no `Display`.
#[derive(Clone, PartialEq, Eq)]
pub(crate) struct Secret(String);

impl Secret {
    /// The secret itself, for the one place it goes: a request header.
    pub(crate) fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("<redacted>")
    }
}

/// How a client authenticates, for the endpoints that need it (the account endpoint).
///
/// Neither form ever appears in `Debug` output, logs or error messages. Credentials are only sent on
/// requests to the configured base URL's origin, which is `https://` (or a loopback host).
#[derive(Clone, PartialEq, Eq)]
pub struct Credentials {
    kind: Kind,
}

#[derive(Clone, PartialEq, Eq)]
enum Kind {
    ApiKey(Secret),
    Token(Secret),
}

impl Credentials {
    /// An API key, sent as HTTP Basic authentication: the key is the user name, the password is empty.
    pub fn api_key(key: impl Into<String>) -> Result<Self, Error> {
        let key = key.into();
        check_header_safe(&key, What::ApiKey)?;
        if key.contains(':') {
            // RFC 7617: the user name of Basic authentication cannot contain a colon.
            return Err(Error::InvalidCredentials(
                "the API key contains `:`, which HTTP Basic authentication cannot carry",
            ));
        }
        Ok(Self {
            kind: Kind::ApiKey(Secret(key)),
        })
    }

    /// A token (from the platform's GraphQL token operation), sent as given as the value of the
    /// `Authorization` header. The spec does not show the header's format, so no scheme is added.
    pub fn token(token: impl Into<String>) -> Result<Self, Error> {
        let token = token.into();
        check_header_safe(&token, What::Token)?;
        Ok(Self {
            kind: Kind::Token(Secret(token)),
        })
    }

    /// The value of the `Authorization` header.
    pub(crate) fn authorization(&self) -> Secret {
        match &self.kind {
            Kind::ApiKey(key) => Secret(format!(
                "Basic {}",
                base64::engine::general_purpose::STANDARD.encode(format!("{}:", key.expose()))
            )),
            Kind::Token(token) => token.clone(),
        }
    }
}

impl fmt::Debug for Credentials {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.kind {
            Kind::ApiKey(key) => f.debug_tuple("ApiKey").field(key).finish(),
            Kind::Token(token) => f.debug_tuple("Token").field(token).finish(),
        }
    }
}

/// Which secret a message is about.
#[derive(Clone, Copy)]
enum What {
    ApiKey,
    Token,
}

/// A header value must be non-empty visible ASCII (spaces allowed inside): no line breaks that could
/// inject headers, no characters a transport would reject later with the value in its message.
fn check_header_safe(value: &str, what: What) -> Result<(), Error> {
    let problem = if value.trim().is_empty() {
        match what {
            What::ApiKey => "the API key is empty",
            What::Token => "the token is empty",
        }
    } else if !value.bytes().all(|b| b == b' ' || b.is_ascii_graphic()) {
        match what {
            What::ApiKey => "the API key contains a character that cannot go in an HTTP header",
            What::Token => "the token contains a character that cannot go in an HTTP header",
        }
    } else {
        return Ok(());
    };
    Err(Error::InvalidCredentials(problem))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn api_key_is_basic_with_empty_password() {
        let credentials = Credentials::api_key("sk_live_abc123").expect("key");
        // base64("sk_live_abc123:")
        assert_eq!(
            credentials.authorization().expose(),
            "Basic c2tfbGl2ZV9hYmMxMjM6"
        );
    }

    #[test]
    fn token_is_sent_as_given() {
        let credentials = Credentials::token("JWT eyJhbGciOi.payload.sig").expect("token");
        assert_eq!(
            credentials.authorization().expose(),
            "JWT eyJhbGciOi.payload.sig"
        );
    }

    #[test]
    fn debug_never_shows_the_secret() {
        let key = Credentials::api_key("sk_live_abc123").expect("key");
        let token = Credentials::token("tok-987").expect("token");
        assert_eq!(format!("{key:?}"), "ApiKey(<redacted>)");
        assert_eq!(format!("{token:?}"), "Token(<redacted>)");
        assert_eq!(format!("{:?}", key.authorization()), "<redacted>");
    }

    #[test]
    fn unusable_values_are_refused_without_echoing_them() {
        for error in [
            Credentials::api_key("").expect_err("empty"),
            Credentials::api_key("a:b").expect_err("colon"),
            Credentials::token("abc\r\nX-Injected: 1").expect_err("newline"),
            Credentials::token("   ").expect_err("blank"),
        ] {
            let message = error.to_string();
            assert!(
                !message.contains("a:b") && !message.contains("Injected"),
                "{message}"
            );
        }
    }
}
