//! How to reach a Kafka cluster: its bootstrap servers and the client's properties, security among them,
//! as Kafka users write them (librdkafka's names: `security.protocol`, `ssl.ca.location`,
//! `sasl.mechanism`, `sasl.username`, …), from a `client.properties`-style file, `-X key=value` pairs
//! (as `kcat` takes them) or the shorthands of [`KafkaSettings::tls`] and [`KafkaSettings::sasl`]. A
//! secret (a password, a key's pass phrase) is kept, used, and never shown: [`KafkaSettings::shown`]
//! and errors print `***` in its place.

use crate::bus::error::BusError;
use std::path::{Path, PathBuf};

/// The scheme that selects Kafka in a server address (`kafka://host:9092`).
pub const SCHEME: &str = "kafka://";

/// Where a Kafka cluster is and how to talk to it.
#[derive(Clone, PartialEq, Eq)]
pub struct KafkaSettings {
    /// The bootstrap servers, `host:port` separated by commas.
    servers: String,
    /// The client's properties, in the order given; a later one replaces an earlier one of the same
    /// name.
    properties: Vec<(String, String)>,
}

impl std::fmt::Debug for KafkaSettings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("KafkaSettings")
            .field("servers", &self.servers)
            .field("properties", &self.shown())
            .finish()
    }
}

/// What a property's name holds when its value is a secret.
const SECRET_WORDS: [&str; 5] = [
    "password",
    "secret",
    "sasl.jaas.config",
    "token",
    "ssl.key.pem",
];

/// Whether a property holds a secret, never to be shown.
fn is_secret(name: &str) -> bool {
    let name = name.to_ascii_lowercase();
    SECRET_WORDS.iter().any(|word| name.contains(word))
}

/// Whether `servers` names Kafka: its first address has the `kafka://` scheme.
pub fn is_kafka(servers: &str) -> bool {
    servers
        .trim_start()
        .to_ascii_lowercase()
        .starts_with(SCHEME)
}

impl KafkaSettings {
    /// The cluster at `servers`: `kafka://host:port`, several separated by commas (each may repeat
    /// the scheme: `kafka://a:9092,kafka://b:9092`), no property set.
    pub fn new(servers: &str) -> Result<Self, BusError> {
        let mut addresses = Vec::new();
        for address in servers.split(',') {
            let address = address.trim();
            let bare = match address.get(..SCHEME.len()) {
                Some(scheme) if scheme.eq_ignore_ascii_case(SCHEME) => &address[SCHEME.len()..],
                _ => address,
            };
            let bare = bare.trim_end_matches('/');
            let port_ok = bare
                .rsplit_once(':')
                .is_some_and(|(host, port)| !host.is_empty() && port.parse::<u16>().is_ok());
            if bare.contains('@') {
                return Err(BusError::Invalid(format!(
                    "`{}`: a Kafka address carries no credentials; give them as sasl.username and sasl.password (-X or a properties file)",
                    crate::bus::secret::redact_url(address)
                )));
            }
            if !port_ok || bare.contains(['/', ' ']) {
                return Err(BusError::Invalid(format!(
                    "`{address}` is not a Kafka server address (kafka://HOST:PORT)"
                )));
            }
            addresses.push(bare.to_owned());
        }
        Ok(KafkaSettings {
            servers: addresses.join(","),
            properties: Vec::new(),
        })
    }

    /// The bootstrap servers, `host:port,…`.
    pub fn servers(&self) -> &str {
        &self.servers
    }

    /// Sets a client property (librdkafka's name), replacing an earlier value.
    pub fn set(&mut self, name: &str, value: &str) -> &mut Self {
        self.properties.retain(|(n, _)| n != name);
        self.properties.push((name.to_owned(), value.to_owned()));
        self
    }

    /// The value of a property, if set.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.properties
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// Sets a `name=value` pair, as `-X name=value` gives it.
    pub fn set_pair(&mut self, pair: &str) -> Result<&mut Self, BusError> {
        let Some((name, value)) = pair.split_once('=') else {
            return Err(BusError::Invalid(format!(
                "`{}` is not a property (NAME=VALUE)",
                if is_secret(pair) { "***" } else { pair }
            )));
        };
        let name = name.trim();
        if name.is_empty() || name.contains(char::is_whitespace) {
            return Err(BusError::Invalid(format!(
                "`{name}` cannot be a property name"
            )));
        }
        Ok(self.set(name, value.trim()))
    }

    /// Reads a `client.properties`-style file: `name=value` lines (`name: value` too), `#` and `!`
    /// comments, blank lines. An error names the file and the line.
    pub fn read_properties(&mut self, path: &Path) -> Result<&mut Self, BusError> {
        let text = std::fs::read_to_string(path).map_err(|e| {
            BusError::Invalid(format!("cannot read properties {}: {e}", path.display()))
        })?;
        for (number, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with(['#', '!']) {
                continue;
            }
            let pair = match line.split_once('=') {
                Some(_) => line.to_owned(),
                None => line.replacen(':', "=", 1),
            };
            self.set_pair(&pair).map_err(|e| {
                BusError::Invalid(format!("{}:{}: {e}", path.display(), number + 1))
            })?;
        }
        Ok(self)
    }

    /// TLS: the certificate authority that signed the brokers' certificates, and a client certificate
    /// and key for brokers that verify their clients. Sets `security.protocol` to `SSL`
    /// (`SASL_SSL` with [`KafkaSettings::sasl`]).
    pub fn tls(&mut self, ca: Option<&Path>, client: Option<(&Path, &Path)>) -> &mut Self {
        if let Some(ca) = ca {
            self.set("ssl.ca.location", &path_text(ca));
        }
        if let Some((cert, key)) = client {
            self.set("ssl.certificate.location", &path_text(cert));
            self.set("ssl.key.location", &path_text(key));
        }
        let protocol = match self.get("security.protocol") {
            Some(p) if p.to_ascii_uppercase().starts_with("SASL") => "SASL_SSL",
            _ => "SSL",
        };
        self.set("security.protocol", protocol)
    }

    /// SASL with `mechanism` (`PLAIN`, `SCRAM-SHA-256`, `SCRAM-SHA-512`), a user and a password. Sets
    /// `security.protocol` to `SASL_PLAINTEXT` (`SASL_SSL` with TLS).
    pub fn sasl(&mut self, mechanism: &str, user: &str, password: &str) -> &mut Self {
        self.set("sasl.mechanism", mechanism);
        self.set("sasl.username", user);
        self.set("sasl.password", password);
        let protocol = match self.get("security.protocol") {
            Some(p) if p.to_ascii_uppercase().contains("SSL") => "SASL_SSL",
            _ => "SASL_PLAINTEXT",
        };
        self.set("security.protocol", protocol)
    }

    /// Every property, a secret's value shown as `***`.
    pub fn shown(&self) -> Vec<(String, String)> {
        self.properties
            .iter()
            .map(|(n, v)| {
                let value = if is_secret(n) {
                    "***".to_owned()
                } else {
                    v.clone()
                };
                (n.clone(), value)
            })
            .collect()
    }

    /// How the client connects, in words, for errors: the protocol, the SASL mechanism and user, the
    /// CA and client certificate; never a secret.
    pub fn method(&self) -> String {
        let protocol = self
            .get("security.protocol")
            .unwrap_or("PLAINTEXT")
            .to_ascii_uppercase();
        let mut parts = vec![protocol];
        if let Some(mechanism) = self.get("sasl.mechanism") {
            let user = self.get("sasl.username").unwrap_or("?");
            parts.push(format!("SASL {mechanism} as `{user}`"));
        }
        if let Some(ca) = self.get("ssl.ca.location") {
            parts.push(format!("CA {ca}"));
        }
        if let Some(cert) = self.get("ssl.certificate.location") {
            parts.push(format!("client certificate {cert}"));
        }
        parts.join(", ")
    }

    /// The servers, shown as `kafka://host:port,…`.
    pub fn servers_shown(&self) -> String {
        self.servers
            .split(',')
            .map(|s| format!("{SCHEME}{s}"))
            .collect::<Vec<_>>()
            .join(",")
    }

    /// The librdkafka configuration: the servers, then the properties given.
    pub(crate) fn client_config(&self) -> rdkafka::ClientConfig {
        let mut config = rdkafka::ClientConfig::new();
        config.set("bootstrap.servers", &self.servers);
        // librdkafka's own log lines reach `log` as warnings at most: they name brokers, never secrets.
        config.set_log_level(rdkafka::config::RDKafkaLogLevel::Warning);
        for (name, value) in &self.properties {
            config.set(name, value);
        }
        config
    }
}

fn path_text(path: &Path) -> String {
    PathBuf::from(path).display().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_are_read_with_or_without_the_scheme() {
        let settings = KafkaSettings::new("kafka://a:9092, kafka://b:9093,c:9094").unwrap();
        assert_eq!(settings.servers(), "a:9092,b:9093,c:9094");
        assert_eq!(
            settings.servers_shown(),
            "kafka://a:9092,kafka://b:9093,kafka://c:9094"
        );
        for bad in [
            "kafka://a",
            "kafka://:9092",
            "kafka://a:x",
            "kafka://u:p@a:9092",
        ] {
            let error = KafkaSettings::new(bad).unwrap_err().to_string();
            assert!(!error.contains(":p@"), "{error}");
        }
        assert!(is_kafka("KAFKA://a:1") && !is_kafka("nats://a:1"));
    }

    #[test]
    fn secrets_are_never_shown() {
        let mut settings = KafkaSettings::new("kafka://a:9092").unwrap();
        settings
            .tls(Some(Path::new("/ca.pem")), None)
            .sasl("SCRAM-SHA-512", "alice", "s3cret");
        settings.set_pair("ssl.key.password=hunter2").unwrap();
        assert_eq!(settings.get("security.protocol"), Some("SASL_SSL"));
        let shown = format!("{settings:?} {}", settings.method());
        assert!(
            !shown.contains("s3cret") && !shown.contains("hunter2"),
            "{shown}"
        );
        assert!(shown.contains("SCRAM-SHA-512 as `alice`"), "{shown}");
        let error = settings.set_pair("sasl.password").unwrap_err().to_string();
        assert!(!error.contains("sasl.password"), "{error}");
    }

    #[test]
    fn properties_files_are_read_and_located() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("client.properties");
        std::fs::write(
            &path,
            "# a comment\nsecurity.protocol=SASL_PLAINTEXT\nsasl.mechanism: PLAIN\n\nnot a pair\n",
        )
        .unwrap();
        let mut settings = KafkaSettings::new("kafka://a:9092").unwrap();
        let error = settings.read_properties(&path).unwrap_err().to_string();
        assert!(
            error.ends_with("client.properties:5: `not a pair` is not a property (NAME=VALUE)"),
            "{error}"
        );
        assert_eq!(settings.get("sasl.mechanism"), Some("PLAIN"));
    }
}
