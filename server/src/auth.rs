//! Credentials as the spec gives them: a token in the `Authorization` header, or HTTP Basic with the API
//! key as the user name and an empty password. The serving team supplies the check ([`Authenticate`]);
//! a secret is never logged, echoed or put in an error (no `Debug` shows it, no message names it).

use base64::Engine as _;
use std::future::Future;

/// The challenge of a 401: HTTP Basic (browsers and command-line clients prompt for it; a token client
/// sends its token instead).
pub const CHALLENGE: &str = "Basic realm=\"energy\", charset=\"UTF-8\"";

/// A secret: compared in constant time, never shown.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    /// Wraps a secret.
    pub fn new(value: impl Into<String>) -> Self {
        Self(value.into())
    }

    /// The secret itself, for a check that needs it.
    pub fn expose(&self) -> &str {
        &self.0
    }

    /// Whether `other` is this secret, in time that does not depend on where they differ.
    pub fn matches(&self, other: &str) -> bool {
        let (a, b) = (self.0.as_bytes(), other.as_bytes());
        let mut difference = a.len() ^ b.len();
        for (i, byte) in a.iter().enumerate() {
            difference |= usize::from(byte ^ b.get(i).copied().unwrap_or(!byte));
        }
        difference == 0
    }
}

impl std::fmt::Debug for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Secret(***)")
    }
}

/// What a request authenticates with.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Credentials {
    /// HTTP Basic: the API key as the user name, an empty password.
    ApiKey(Secret),
    /// The `Authorization` header's value, as given (the spec does not show its format).
    Token(Secret),
}

/// Why credentials are refused. Its text is sent to the client: say why in words, never the secret.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal(pub String);

impl Refusal {
    /// The usual refusal: the credentials are not known.
    pub fn unknown() -> Self {
        Self("the credentials are not valid".to_owned())
    }
}

/// The serving team's check: credentials to a principal, or a refusal.
pub trait Authenticate: Send + Sync + 'static {
    /// Who the credentials belong to, as the operations that require authentication receive it.
    type Principal: Send + Sync + 'static;
    /// The principal of `credentials`, or why they are refused.
    fn authenticate(
        &self,
        credentials: &Credentials,
    ) -> impl Future<Output = Result<Self::Principal, Refusal>> + Send;
}

/// Reads the `Authorization` header: `Basic <base64 of key:>` as an API key, anything else as a token.
/// `Err` says why in words that hold nothing of the value.
pub(crate) fn credentials(header: Option<&[u8]>) -> Result<Credentials, &'static str> {
    let Some(raw) = header else {
        return Err("this operation requires authentication: an API key (HTTP Basic) or a token");
    };
    let text = std::str::from_utf8(raw)
        .map_err(|_| "the Authorization header is not text")?
        .trim();
    if text.is_empty() {
        return Err("the Authorization header is empty");
    }
    let scheme_end = text.find(' ').unwrap_or(text.len());
    if !text[..scheme_end].eq_ignore_ascii_case("basic") {
        return Ok(Credentials::Token(Secret::new(text)));
    }
    let encoded = text[scheme_end..].trim();
    let decoded = base64::engine::general_purpose::STANDARD
        .decode(encoded)
        .map_err(|_| "the Basic credentials are not valid base64")?;
    let pair = String::from_utf8(decoded).map_err(|_| "the Basic credentials are not UTF-8")?;
    let Some((key, password)) = pair.split_once(':') else {
        return Err("the Basic credentials have no `:` between the API key and the password");
    };
    if key.is_empty() {
        return Err("the Basic credentials have no API key (the user name)");
    }
    if !password.is_empty() {
        return Err("the Basic password must be empty: the API key goes in the user name");
    }
    Ok(Credentials::ApiKey(Secret::new(key)))
}

/// Who holds configured credentials: which key or token it was (by its place in the list, never the
/// secret itself).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyHolder {
    /// The n-th API key (from 0).
    ApiKey(usize),
    /// The n-th token (from 0).
    Token(usize),
}

/// A fixed set of API keys and tokens, each allowed everything: the check of `energy serve`.
#[derive(Debug, Clone, Default)]
pub struct Keys {
    api_keys: Vec<Secret>,
    tokens: Vec<Secret>,
}

impl Keys {
    /// No credentials: every one is refused.
    pub fn new() -> Self {
        Self::default()
    }

    /// With an API key.
    pub fn api_key(mut self, key: impl Into<String>) -> Self {
        self.api_keys.push(Secret::new(key));
        self
    }

    /// With a token (the `Authorization` header's whole value; `Bearer <token>` is taken too).
    pub fn token(mut self, token: impl Into<String>) -> Self {
        self.tokens.push(Secret::new(token));
        self
    }

    /// Whether no credential is configured.
    pub fn is_empty(&self) -> bool {
        self.api_keys.is_empty() && self.tokens.is_empty()
    }
}

impl Authenticate for Keys {
    type Principal = KeyHolder;

    async fn authenticate(&self, credentials: &Credentials) -> Result<KeyHolder, Refusal> {
        let found = match credentials {
            Credentials::ApiKey(key) => self
                .api_keys
                .iter()
                .position(|k| k.matches(key.expose()))
                .map(KeyHolder::ApiKey),
            Credentials::Token(token) => {
                let given = token.expose();
                let bare = given
                    .get(..7)
                    .filter(|p| p.eq_ignore_ascii_case("bearer "))
                    .map(|_| given[7..].trim());
                self.tokens
                    .iter()
                    .position(|t| t.matches(given) || bare.is_some_and(|b| t.matches(b)))
                    .map(KeyHolder::Token)
            }
        };
        found.ok_or_else(Refusal::unknown)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn basic(pair: &str) -> Vec<u8> {
        format!(
            "Basic {}",
            base64::engine::general_purpose::STANDARD.encode(pair)
        )
        .into_bytes()
    }

    #[test]
    fn basic_takes_the_key_as_user_name_with_an_empty_password() {
        assert_eq!(
            credentials(Some(&basic("sk_live_1:"))),
            Ok(Credentials::ApiKey(Secret::new("sk_live_1")))
        );
        assert!(credentials(Some(&basic("sk_live_1:pw"))).is_err());
        assert!(credentials(Some(&basic(":"))).is_err());
        assert!(credentials(Some(&basic("nocolon"))).is_err());
        assert!(credentials(Some(b"Basic !!!not-base64")).is_err());
        assert_eq!(
            credentials(Some(b"JWT abc.def")),
            Ok(Credentials::Token(Secret::new("JWT abc.def")))
        );
        assert!(credentials(None).is_err());
        assert!(credentials(Some(b"  ")).is_err());
    }

    #[test]
    fn no_message_and_no_debug_holds_the_secret() {
        let key = "sk_live_very_secret";
        for header in [basic(&format!("{key}:pw")), basic(&format!("{key}x"))] {
            let why = credentials(Some(&header)).expect_err("refused");
            assert!(!why.contains(key), "{why}");
        }
        let shown = format!("{:?}", Credentials::ApiKey(Secret::new(key)));
        assert!(!shown.contains(key), "{shown}");
    }

    #[test]
    fn keys_match_whole_values_only() {
        let keys = Keys::new().api_key("k1").token("t-1");
        let check = |c: Credentials| {
            tokio::runtime::Builder::new_current_thread()
                .build()
                .expect("a runtime")
                .block_on(keys.authenticate(&c))
        };
        assert_eq!(
            check(Credentials::ApiKey(Secret::new("k1"))),
            Ok(KeyHolder::ApiKey(0))
        );
        assert!(check(Credentials::ApiKey(Secret::new("k"))).is_err());
        assert!(check(Credentials::ApiKey(Secret::new("k12"))).is_err());
        assert_eq!(
            check(Credentials::Token(Secret::new("t-1"))),
            Ok(KeyHolder::Token(0))
        );
        assert_eq!(
            check(Credentials::Token(Secret::new("Bearer t-1"))),
            Ok(KeyHolder::Token(0))
        );
        assert!(check(Credentials::Token(Secret::new("k1"))).is_err());
    }
}
