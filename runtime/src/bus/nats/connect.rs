//! How a client reaches a NATS deployment and proves who it is: the servers, one authentication method,
//! TLS, and the inbox prefix. [`ConnectSettings`] is what `energy`'s connection options, the environment
//! variables of the `nats` CLI and a NATS CLI context all become, and what [`super::Bus::connect_with`]
//! takes.
//!
//! No secret is ever shown: a [`Secret`] prints as `<redacted>` in `{:?}`, a password inside a server URL
//! is replaced by `***` wherever the servers are named ([`ConnectSettings::servers_shown`]), and error
//! messages name the method tried ([`ConnectSettings::method`]) and the files it read, never their
//! contents.

use crate::bus::error::BusError;
use crate::bus::secret::{Secret, redact_url};
use async_nats::ConnectOptions;
use base64::Engine as _;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// How long one attempt to reach a server may take before it is given up.
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);

/// How the client proves who it is: one method at a time.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum Auth {
    /// Nothing (or what the server URLs carry: `nats://user:password@host`).
    #[default]
    None,
    /// A user name and password (`--user`, `--password`).
    UserPassword {
        /// The user.
        user: String,
        /// The password.
        password: Secret,
    },
    /// A token (`--token`).
    Token(Secret),
    /// A file holding an NKey seed (`--nkey`), as `nk -gen user` writes it.
    NKey(PathBuf),
    /// A credentials file (`--creds`): a user JWT and its NKey seed, as `nsc` and Synadia Cloud write it.
    Creds(PathBuf),
}

/// TLS towards the servers. Giving a CA or a client certificate requires TLS (as the `nats` CLI does);
/// a `tls://` URL does too. With none of them, TLS is used when the server requires it, trusting the
/// system's certificate authorities.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Tls {
    /// The certificate authority (PEM) that signed the servers' certificates (`--tls-ca`).
    pub ca: Option<PathBuf>,
    /// The client's certificate (PEM), for mutual TLS (`--tls-cert`).
    pub cert: Option<PathBuf>,
    /// The client certificate's private key (PEM) (`--tls-key`).
    pub key: Option<PathBuf>,
    /// Start TLS before the server's first word (`--tls-first`; a server with `handshake_first`).
    pub first: bool,
}

impl Tls {
    fn required(&self) -> bool {
        self.ca.is_some() || self.cert.is_some() || self.first
    }
}

/// Where the bus is and how to connect to it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConnectSettings {
    /// Server URLs, separated by commas (`nats://a:4222,nats://b:4222`).
    pub servers: String,
    /// How the client proves who it is.
    pub auth: Auth,
    /// TLS towards the servers.
    pub tls: Tls,
    /// The prefix of the client's reply subjects (`_INBOX` when not given): a deployment that lets
    /// each user subscribe only to its own inbox gives each its own prefix.
    pub inbox_prefix: Option<String>,
    /// The name the connection shows in the server's monitoring.
    pub client_name: Option<String>,
}

/// The server a client uses when told nothing.
pub const DEFAULT_SERVER: &str = "nats://127.0.0.1:4222";

impl Default for ConnectSettings {
    fn default() -> Self {
        ConnectSettings::new(DEFAULT_SERVER)
    }
}

impl ConnectSettings {
    /// `servers` with no credentials and no TLS of its own.
    pub fn new(servers: &str) -> Self {
        ConnectSettings {
            servers: servers.to_owned(),
            auth: Auth::None,
            tls: Tls::default(),
            inbox_prefix: None,
            client_name: None,
        }
    }

    /// The settings of a NATS CLI context: `name` is a context name, read from
    /// `$XDG_CONFIG_HOME/nats/context/<name>.json` (`~/.config/…` without it), or the path of a context
    /// file. The fields `url`, `user`, `password`, `token`, `creds`, `nkey`, `ca`, `cert`, `key`,
    /// `tls_first` and `inbox_prefix` are read; a context that relies on what this client cannot do
    /// (`nsc` lookups, a user JWT beside a seed, JetStream domains or API prefixes, a SOCKS proxy, the
    /// Windows certificate store) is refused rather than half-used.
    pub fn from_context(name: &str) -> Result<Self, BusError> {
        let path = context_path(name)?;
        let text = std::fs::read_to_string(&path).map_err(|e| {
            BusError::Invalid(format!(
                "NATS context `{name}`: cannot read `{}`: {e}",
                path.display()
            ))
        })?;
        context_settings(name, &path, &text)
    }

    /// The servers as they may be shown: a password or token inside a URL is replaced by `***`.
    pub fn servers_shown(&self) -> String {
        self.servers
            .split(',')
            .map(|url| redact_url(url.trim()))
            .collect::<Vec<_>>()
            .join(",")
    }

    /// The method tried, in words, for error messages: `user `billing` and a password, TLS (CA `ca.pem`)`.
    pub fn method(&self) -> String {
        let mut text = match &self.auth {
            Auth::None if self.servers.contains('@') => "the credentials in the URL".to_owned(),
            Auth::None => "no credentials".to_owned(),
            Auth::UserPassword { user, .. } => format!("user `{user}` and a password"),
            Auth::Token(_) => "a token".to_owned(),
            Auth::NKey(path) => format!("the NKey seed in `{}`", path.display()),
            Auth::Creds(path) => format!("the credentials file `{}`", path.display()),
        };
        let mut tls = Vec::new();
        if let Some(ca) = &self.tls.ca {
            tls.push(format!("CA `{}`", ca.display()));
        }
        if let Some(cert) = &self.tls.cert {
            tls.push(format!("client certificate `{}`", cert.display()));
        }
        if self.tls.first {
            tls.push("TLS first".to_owned());
        }
        if !tls.is_empty() {
            text.push_str(&format!(", TLS ({})", tls.join(", ")));
        }
        text
    }

    /// The connection error of these settings: one line naming the servers, the method and why.
    pub(crate) fn error(&self, message: impl Into<String>) -> BusError {
        BusError::Connect {
            servers: self.servers_shown(),
            method: self.method(),
            message: message.into(),
        }
    }

    /// The server addresses and the client options of these settings, their files read and checked.
    pub(crate) fn options(
        &self,
    ) -> Result<(Vec<async_nats::ServerAddr>, ConnectOptions), BusError> {
        let addresses: Vec<&str> = self
            .servers
            .split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .collect();
        if addresses.is_empty() {
            return Err(self.error("no server given"));
        }
        let mut require_tls = self.tls.required();
        let addresses = addresses
            .iter()
            .map(|a| {
                if a.starts_with("tls://") {
                    require_tls = true;
                }
                a.parse::<async_nats::ServerAddr>().map_err(|e| {
                    self.error(format!("`{}` is not a server address: {e}", redact_url(a)))
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        let mut options = ConnectOptions::new()
            .connection_timeout(CONNECT_TIMEOUT)
            .require_tls(require_tls);
        options = match &self.auth {
            Auth::None => options,
            Auth::UserPassword { user, password } => {
                options.user_and_password(user.clone(), password.expose().to_owned())
            }
            Auth::Token(token) => options.token(token.expose().to_owned()),
            Auth::NKey(path) => {
                let seed = read_secret_file(path, "NKey seed").map_err(|e| self.error(e))?;
                let seed = seed.trim();
                nkeys::KeyPair::from_seed(seed).map_err(|_| {
                    self.error(format!(
                        "`{}` does not hold an NKey seed (a line starting with `SU`, as `nk -gen user` writes it)",
                        path.display()
                    ))
                })?;
                options.nkey(seed.to_owned())
            }
            Auth::Creds(path) => {
                let mut text = read_secret_file(path, "credentials").map_err(|e| self.error(e))?;
                // The NATS tools end the file with a newline; one written without is read alike.
                if !text.ends_with('\n') {
                    text.push('\n');
                }
                if let Some(expired) = jwt_expiry(&text).filter(|t| *t <= jiff::Timestamp::now()) {
                    return Err(self.error(format!(
                        "the user JWT in `{}` expired at {expired}: ask its account's operator for a new one",
                        path.display()
                    )));
                }
                options.credentials(&text).map_err(|_| {
                    self.error(format!(
                        "`{}` is not a NATS credentials file (a user JWT and an NKey seed, each between `-----BEGIN …-----` and `------END …------` lines)",
                        path.display()
                    ))
                })?
            }
        };
        if let Some(ca) = &self.tls.ca {
            check_readable(ca, "CA certificate").map_err(|e| self.error(e))?;
            options = options.add_root_certificates(ca.clone());
        }
        match (&self.tls.cert, &self.tls.key) {
            (Some(cert), Some(key)) => {
                check_readable(cert, "client certificate").map_err(|e| self.error(e))?;
                check_readable(key, "client key").map_err(|e| self.error(e))?;
                options = options.add_client_certificate(cert.clone(), key.clone());
            }
            (Some(_), None) => {
                return Err(self.error("a client certificate needs its key (--tls-key)"));
            }
            (None, Some(_)) => {
                return Err(self.error("a client key needs its certificate (--tls-cert)"));
            }
            (None, None) => {}
        }
        if self.tls.first {
            options = options.tls_first();
        }
        if let Some(prefix) = &self.inbox_prefix {
            options = options.custom_inbox_prefix(prefix);
        }
        if let Some(name) = &self.client_name {
            options = options.name(name);
        }
        Ok((addresses, options))
    }

    /// Why the client could not connect, in words a user can act on.
    pub(crate) fn connect_failure(&self, error: &async_nats::ConnectError) -> BusError {
        use async_nats::ConnectErrorKind as K;
        let source = std::error::Error::source(error)
            .map(ToString::to_string)
            .unwrap_or_default();
        let message = match error.kind() {
            K::AuthorizationViolation => match &self.auth {
                Auth::None => "the server requires credentials (authorization violation): give --creds, --nkey, --user and --password, or --token".to_owned(),
                Auth::UserPassword { .. } => "the server refused the user and password (authorization violation)".to_owned(),
                Auth::Token(_) => "the server refused the token (authorization violation)".to_owned(),
                Auth::NKey(_) => "the server does not accept this NKey (authorization violation)".to_owned(),
                Auth::Creds(_) => "the server refused the user JWT: unknown to its account, expired or revoked (authorization violation)".to_owned(),
            },
            K::Authentication => {
                "the key could not sign the server's challenge (authentication failed)".to_owned()
            }
            // The TLS library's failures come as I/O errors too.
            K::Tls | K::Io if is_tls(&source) => tls_failure(&source, &self.tls),
            K::TimedOut => format!(
                "no answer within {} s{}",
                CONNECT_TIMEOUT.as_secs(),
                if self.tls.first {
                    ""
                } else {
                    " (a server that expects TLS first needs --tls-first)"
                }
            ),
            K::Io if is_closed_in_handshake(&source) => {
                let mut maybe = Vec::new();
                if self.tls.cert.is_none() {
                    maybe.push("a client certificate (--tls-cert and --tls-key)");
                } else {
                    maybe.push("another client certificate");
                }
                if !self.tls.first {
                    maybe.push("TLS first (--tls-first)");
                }
                format!(
                    "the server closed the connection during the handshake ({source}): it may require {}",
                    maybe.join(", or ")
                )
            }
            _ if source.is_empty() => error.kind().to_string(),
            _ => format!("{}: {source}", error.kind()),
        };
        self.error(message)
    }
}

/// Why TLS failed, from the TLS library's words.
fn tls_failure(source: &str, tls: &Tls) -> String {
    let lower = source.to_ascii_lowercase();
    if lower.contains("unknownissuer") || lower.contains("unknown issuer") {
        if tls.ca.is_none() {
            format!(
                "the server's TLS certificate is not signed by a certificate authority this machine trusts ({source}): give the CA that signed it with --tls-ca"
            )
        } else {
            format!(
                "the server's TLS certificate is not signed by the given CA ({source}): is it the CA that signed the server's certificate?"
            )
        }
    } else if lower.contains("notvalidforname") || lower.contains("not valid for name") {
        format!(
            "the server's TLS certificate does not match the host name in the URL ({source}): connect by a name the certificate holds"
        )
    } else if lower.contains("expired") {
        format!("the server's TLS certificate has expired ({source})")
    } else if lower.contains("certificaterequired") || lower.contains("certificate required") {
        format!(
            "the server requires a client certificate ({source}): give --tls-cert and --tls-key"
        )
    } else if lower.contains("not supported by server") || lower.contains("tls not") {
        format!("TLS was asked for, and the server does not offer it ({source})")
    } else {
        format!("TLS failed: {source}")
    }
}

fn is_tls(source: &str) -> bool {
    let lower = source.to_ascii_lowercase();
    ["certificate", "fatal alert", "tls", "handshake"]
        .iter()
        .any(|w| lower.contains(w))
}

fn is_closed_in_handshake(source: &str) -> bool {
    let lower = source.to_ascii_lowercase();
    [
        "broken pipe",
        "connection reset",
        "eof",
        "closed",
        "expected info",
    ]
    .iter()
    .any(|w| lower.contains(w))
}

fn read_secret_file(path: &Path, what: &str) -> Result<String, String> {
    std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read the {what} file `{}`: {e}", path.display()))
}

fn check_readable(path: &Path, what: &str) -> Result<(), String> {
    std::fs::File::open(path)
        .map(|_| ())
        .map_err(|e| format!("cannot read the {what} `{}`: {e}", path.display()))
}

/// When the user JWT of a credentials file expires, if it says.
fn jwt_expiry(creds: &str) -> Option<jiff::Timestamp> {
    let jwt = creds
        .lines()
        .skip_while(|l| !l.contains("BEGIN NATS USER JWT"))
        .nth(1)?
        .trim();
    let claims = jwt.split('.').nth(1)?;
    let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(claims.trim_end_matches('='))
        .ok()?;
    let claims: serde_json::Value = serde_json::from_slice(&bytes).ok()?;
    let seconds = claims.get("exp")?.as_i64()?;
    (seconds > 0)
        .then(|| jiff::Timestamp::from_second(seconds).ok())
        .flatten()
}

/// Where the NATS CLI keeps the context `name`: a path given as such, else
/// `<config>/nats/context/<name>.json`.
pub fn context_path(name: &str) -> Result<PathBuf, BusError> {
    let given = Path::new(name);
    if given.extension().is_some_and(|e| e == "json") || given.components().count() > 1 {
        return Ok(given.to_path_buf());
    }
    if name.is_empty() || name.starts_with('.') {
        return Err(BusError::Invalid(format!(
            "`{name}` is not a NATS context name"
        )));
    }
    let config = std::env::var_os("XDG_CONFIG_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|home| PathBuf::from(home).join(".config")))
        .ok_or_else(|| {
            BusError::Invalid(format!(
                "NATS context `{name}`: neither XDG_CONFIG_HOME nor HOME is set, so the contexts cannot be found; give the context file's path"
            ))
        })?;
    Ok(config
        .join("nats")
        .join("context")
        .join(format!("{name}.json")))
}

/// The fields of a NATS CLI context file this client reads or refuses.
#[derive(serde::Deserialize, Default)]
#[serde(default)]
struct ContextFile {
    url: String,
    user: String,
    password: String,
    token: String,
    creds: String,
    nkey: String,
    cert: String,
    key: String,
    ca: String,
    tls_first: bool,
    inbox_prefix: String,
    nsc: String,
    user_jwt: String,
    jetstream_domain: String,
    jetstream_api_prefix: String,
    socks_proxy: String,
    windows_cert_store: String,
}

fn context_settings(name: &str, path: &Path, text: &str) -> Result<ConnectSettings, BusError> {
    let invalid = |why: String| {
        BusError::Invalid(format!(
            "NATS context `{name}` (`{}`): {why}",
            path.display()
        ))
    };
    let file: ContextFile = serde_json::from_str(text).map_err(|e| {
        // Only where: serde_json's words may quote a value, and a value may be a password.
        invalid(format!(
            "not a context file (a JSON object of strings): the JSON is wrong at line {}, column {}",
            e.line(),
            e.column()
        ))
    })?;
    let unsupported = [
        ("nsc", &file.nsc),
        ("user_jwt", &file.user_jwt),
        ("jetstream_domain", &file.jetstream_domain),
        ("jetstream_api_prefix", &file.jetstream_api_prefix),
        ("socks_proxy", &file.socks_proxy),
        ("windows_cert_store", &file.windows_cert_store),
    ];
    if let Some((field, _)) = unsupported.iter().find(|(_, v)| !v.is_empty()) {
        return Err(invalid(format!(
            "`{field}` is set, which `energy` does not support: give the connection with --server, --creds, --tls-… instead"
        )));
    }
    let expand = |p: &str| -> Option<PathBuf> {
        if p.is_empty() {
            return None;
        }
        match p.strip_prefix("~/") {
            Some(rest) => std::env::var_os("HOME").map(|home| PathBuf::from(home).join(rest)),
            None => Some(PathBuf::from(p)),
        }
    };
    let methods = [
        !file.creds.is_empty(),
        !file.nkey.is_empty(),
        !file.user.is_empty(),
        !file.token.is_empty(),
    ];
    if methods.iter().filter(|m| **m).count() > 1 {
        return Err(invalid(
            "more than one of `creds`, `nkey`, `user` and `token` is set: keep one".to_owned(),
        ));
    }
    let auth = if let Some(creds) = expand(&file.creds) {
        Auth::Creds(creds)
    } else if let Some(nkey) = expand(&file.nkey) {
        Auth::NKey(nkey)
    } else if !file.user.is_empty() {
        Auth::UserPassword {
            user: file.user,
            password: Secret::new(file.password),
        }
    } else if !file.token.is_empty() {
        Auth::Token(Secret::new(file.token))
    } else {
        Auth::None
    };
    Ok(ConnectSettings {
        servers: if file.url.is_empty() {
            DEFAULT_SERVER.to_owned()
        } else {
            file.url
        },
        auth,
        tls: Tls {
            ca: expand(&file.ca),
            cert: expand(&file.cert),
            key: expand(&file.key),
            first: file.tls_first,
        },
        inbox_prefix: (!file.inbox_prefix.is_empty()).then_some(file.inbox_prefix),
        client_name: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passwords_in_server_urls_are_never_shown() {
        let settings = ConnectSettings::new("nats://a:pw@one:4222, nats://two:4222");
        assert_eq!(
            settings.servers_shown(),
            "nats://a:***@one:4222,nats://two:4222"
        );
        assert_eq!(settings.method(), "the credentials in the URL");
    }

    #[test]
    fn secrets_do_not_show_in_debug_output() {
        let settings = ConnectSettings {
            auth: Auth::UserPassword {
                user: "billing".to_owned(),
                password: Secret::new("hunter2"),
            },
            ..ConnectSettings::default()
        };
        let shown = format!("{settings:?}");
        assert!(!shown.contains("hunter2"), "{shown}");
        assert!(shown.contains("<redacted>"));
        let token = format!("{:?}", Auth::Token(Secret::new("t0k3n")));
        assert!(!token.contains("t0k3n"));
    }

    #[test]
    fn a_context_file_gives_its_url_credentials_and_tls() {
        let text = r#"{"description":"prod","url":"tls://nats.example:4222","creds":"/keys/billing.creds",
            "ca":"/keys/ca.pem","tls_first":true,"inbox_prefix":"_INBOX_billing","color_scheme":""}"#;
        let settings = context_settings("prod", Path::new("prod.json"), text).unwrap();
        assert_eq!(settings.servers, "tls://nats.example:4222");
        assert_eq!(
            settings.auth,
            Auth::Creds(PathBuf::from("/keys/billing.creds"))
        );
        assert_eq!(settings.tls.ca, Some(PathBuf::from("/keys/ca.pem")));
        assert!(settings.tls.first);
        assert_eq!(settings.inbox_prefix.as_deref(), Some("_INBOX_billing"));
        assert_eq!(
            settings.method(),
            "the credentials file `/keys/billing.creds`, TLS (CA `/keys/ca.pem`, TLS first)"
        );
    }

    #[test]
    fn a_context_this_client_cannot_honour_is_refused_without_its_secrets() {
        let nsc = r#"{"url":"nats://x","nsc":"nsc://operator/account/user"}"#;
        let error = context_settings("c", Path::new("c.json"), nsc)
            .unwrap_err()
            .to_string();
        assert!(error.contains("`nsc` is set"), "{error}");
        let two = r#"{"user":"u","password":"hunter2","token":"t0k3n"}"#;
        let error = context_settings("c", Path::new("c.json"), two)
            .unwrap_err()
            .to_string();
        assert!(error.contains("more than one"), "{error}");
        assert!(!error.contains("hunter2") && !error.contains("t0k3n"));
        let broken = r#"{"user":"u","password":"hunter2""#;
        let error = context_settings("c", Path::new("c.json"), broken)
            .unwrap_err()
            .to_string();
        assert!(!error.contains("hunter2"), "{error}");
    }

    #[test]
    fn context_names_and_paths_are_told_apart() {
        assert_eq!(
            context_path("/etc/nats/prod.json").unwrap(),
            PathBuf::from("/etc/nats/prod.json")
        );
        assert!(
            context_path("prod")
                .unwrap()
                .ends_with("nats/context/prod.json")
        );
        assert!(context_path("").is_err());
    }

    #[test]
    fn the_expiry_of_a_creds_files_jwt_is_read() {
        let claims = base64::engine::general_purpose::URL_SAFE_NO_PAD
            .encode(br#"{"exp":1700000000,"sub":"UABC"}"#);
        let creds = format!(
            "-----BEGIN NATS USER JWT-----\neyJhbGciOiJlZDI1NTE5LW5rZXkifQ.{claims}.c2ln\n------END NATS USER JWT------\n"
        );
        assert_eq!(
            jwt_expiry(&creds),
            Some(jiff::Timestamp::from_second(1_700_000_000).unwrap())
        );
        assert_eq!(jwt_expiry("no jwt here"), None);
    }
}
