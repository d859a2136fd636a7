//! Where the bus is and how to connect to it: the options every bus command shares, made
//! [`ConnectSettings`] (NATS) or [`KafkaSettings`] (a `kafka://` server), and the choice of the broker
//! from the server's address: each command is written once against [`Broker`].

use crate::exit::Exit;
use clap::Args;
use energy_runtime::bus::kafka::{KafkaBus, KafkaSettings, is_kafka};
use energy_runtime::bus::memory::is_memory;
use energy_runtime::bus::{
    Auth, Broker, Bus, BusError, ConnectSettings, MemoryBus, Secret, Subjects,
};
use std::path::PathBuf;
use std::process::ExitCode;

/// Where the bus is and how to connect to it: the server(s), one authentication method, TLS, and the
/// subject prefix. A `kafka://` server selects Kafka; anything else is NATS, whose options and
/// environment variables are the `nats` CLI's (`--context` reads one of its context files, and the
/// options given override what it says). Kafka takes its client properties as `kcat` does (`-X`, a
/// properties file), and `--tls-*`, `--user` and `--password` as shorthands.
#[derive(Args, Clone)]
pub(crate) struct Connection {
    /// The bus: a NATS server URL (`nats://host:4222`), or Kafka bootstrap servers
    /// (`kafka://host:9092`); several separated by commas [default: $NATS_URL, the NATS context's,
    /// else nats://127.0.0.1:4222].
    // A URL may carry a password: the variable's value is never shown in --help.
    #[arg(
        long,
        value_name = "URL",
        env = "ENERGY_BUS_SERVER",
        hide_env_values = true
    )]
    server: Option<String>,
    /// Kafka: a client property (librdkafka's name), as `kcat -X` takes it (`security.protocol=SSL`);
    /// repeat for several. Given after --properties, it overrides the file.
    #[arg(
        short = 'X',
        long = "property",
        value_name = "NAME=VALUE",
        help_heading = "Kafka"
    )]
    property: Vec<String>,
    /// Kafka: a `client.properties`-style file of client properties (`name=value` lines).
    #[arg(
        long,
        value_name = "FILE",
        env = "ENERGY_KAFKA_PROPERTIES",
        help_heading = "Kafka"
    )]
    properties: Option<PathBuf>,
    /// Kafka: the SASL mechanism of --user and --password (PLAIN, SCRAM-SHA-256, SCRAM-SHA-512).
    #[arg(
        long,
        value_name = "MECHANISM",
        default_value = "PLAIN",
        help_heading = "Kafka"
    )]
    sasl_mechanism: String,
    /// A NATS CLI context (`nats context save`): a name under ~/.config/nats/context/, or a context
    /// file's path.
    #[arg(long, value_name = "NAME", env = "NATS_CONTEXT")]
    context: Option<String>,
    /// A credentials file: a user JWT and its NKey seed (as `nsc` and Synadia Cloud give them).
    #[arg(
        long,
        value_name = "FILE",
        env = "NATS_CREDS",
        group = "auth",
        help_heading = "Connection"
    )]
    creds: Option<PathBuf>,
    /// A file holding an NKey seed (as `nk -gen user` writes it).
    #[arg(
        long,
        value_name = "FILE",
        env = "NATS_NKEY",
        group = "auth",
        help_heading = "Connection"
    )]
    nkey: Option<PathBuf>,
    /// A user name (with --password).
    #[arg(
        long,
        value_name = "USER",
        env = "NATS_USER",
        group = "auth",
        help_heading = "Connection"
    )]
    user: Option<String>,
    /// The user's password (better given as NATS_PASSWORD: a command line is visible to every user
    /// of the machine).
    #[arg(
        long,
        value_name = "PASSWORD",
        env = "NATS_PASSWORD",
        hide_env_values = true,
        requires = "user",
        help_heading = "Connection"
    )]
    password: Option<String>,
    /// A token (better given as NATS_TOKEN).
    #[arg(
        long,
        value_name = "TOKEN",
        env = "NATS_TOKEN",
        hide_env_values = true,
        group = "auth",
        help_heading = "Connection"
    )]
    token: Option<String>,
    /// The certificate authority (PEM) that signed the servers' certificates; TLS is then required.
    #[arg(
        long,
        value_name = "FILE",
        env = "NATS_CA",
        help_heading = "Connection"
    )]
    tls_ca: Option<PathBuf>,
    /// A client certificate (PEM), for servers that verify their clients (mutual TLS).
    #[arg(
        long,
        value_name = "FILE",
        env = "NATS_CERT",
        requires = "tls_key",
        help_heading = "Connection"
    )]
    tls_cert: Option<PathBuf>,
    /// The client certificate's private key (PEM).
    #[arg(
        long,
        value_name = "FILE",
        env = "NATS_KEY",
        requires = "tls_cert",
        help_heading = "Connection"
    )]
    tls_key: Option<PathBuf>,
    /// Start TLS before the server's first word (servers configured with `handshake_first`).
    #[arg(long, help_heading = "Connection")]
    tls_first: bool,
    /// The prefix of this client's reply subjects (`_INBOX` by default): deployments that let each user
    /// subscribe only to its own inbox give each its own.
    #[arg(
        long,
        value_name = "PREFIX",
        env = "NATS_INBOX_PREFIX",
        help_heading = "Connection"
    )]
    inbox_prefix: Option<String>,
    /// The first token(s) of every event subject (`<prefix>.<event type>.<version>`).
    #[arg(
        long,
        value_name = "PREFIX",
        env = "ENERGY_SUBJECT_PREFIX",
        default_value = "energy"
    )]
    prefix: String,
}

impl Connection {
    /// The server given: `--server`, `$ENERGY_BUS_SERVER`, else `$NATS_URL` (the `nats` CLI's).
    fn server(&self) -> Option<String> {
        self.server
            .clone()
            .or_else(|| std::env::var("NATS_URL").ok().filter(|s| !s.is_empty()))
    }

    /// The Kafka settings these options give; NATS-only options are an error.
    fn kafka_settings(&self, server: &str) -> Result<KafkaSettings, BusError> {
        let nats_only = [
            ("--context", self.context.is_some()),
            ("--creds", self.creds.is_some()),
            ("--nkey", self.nkey.is_some()),
            ("--token", self.token.is_some()),
            ("--tls-first", self.tls_first),
            ("--inbox-prefix", self.inbox_prefix.is_some()),
        ];
        if let Some((option, _)) = nats_only.iter().find(|(_, given)| *given) {
            return Err(BusError::Invalid(format!(
                "{option} is a NATS option; Kafka takes its security as client properties (-X, --properties) or --tls-ca, --tls-cert, --tls-key, --user, --password"
            )));
        }
        let mut settings = KafkaSettings::new(server)?;
        if let Some(path) = &self.properties {
            settings.read_properties(path)?;
        }
        if self.tls_ca.is_some() || self.tls_cert.is_some() {
            let client = self.tls_cert.as_deref().zip(self.tls_key.as_deref());
            settings.tls(self.tls_ca.as_deref(), client);
        }
        if let Some(user) = &self.user {
            let password = self.password.clone().unwrap_or_default();
            settings.sasl(&self.sasl_mechanism, user, &password);
        }
        for pair in &self.property {
            settings.set_pair(pair)?;
        }
        Ok(settings)
    }

    /// The settings these options give: the context's, overridden by what was given here.
    fn settings(&self, command: &str) -> Result<ConnectSettings, BusError> {
        if !self.property.is_empty() || self.properties.is_some() {
            return Err(BusError::Invalid(
                "-X and --properties are Kafka client properties: give a kafka:// --server"
                    .to_owned(),
            ));
        }
        let mut settings = match &self.context {
            Some(name) => ConnectSettings::from_context(name)?,
            None => ConnectSettings::default(),
        };
        if let Some(server) = self.server() {
            settings.servers = server;
        }
        if let Some(creds) = &self.creds {
            settings.auth = Auth::Creds(creds.clone());
        } else if let Some(nkey) = &self.nkey {
            settings.auth = Auth::NKey(nkey.clone());
        } else if let Some(user) = &self.user {
            settings.auth = Auth::UserPassword {
                user: user.clone(),
                password: Secret::new(self.password.clone().unwrap_or_default()),
            };
        } else if let Some(token) = &self.token {
            settings.auth = Auth::Token(Secret::new(token.clone()));
        }
        if let Some(ca) = &self.tls_ca {
            settings.tls.ca = Some(ca.clone());
        }
        if let (Some(cert), Some(key)) = (&self.tls_cert, &self.tls_key) {
            settings.tls.cert = Some(cert.clone());
            settings.tls.key = Some(key.clone());
        }
        settings.tls.first |= self.tls_first;
        if let Some(prefix) = &self.inbox_prefix {
            settings.inbox_prefix = Some(prefix.clone());
        }
        settings.client_name = Some(format!("energy {command}"));
        Ok(settings)
    }
}

/// Connects to the broker the server's address names: `kafka://` Kafka, `memory://` a broker in this
/// process (gone when the command ends: a dry run), anything else NATS.
pub(crate) async fn connect(
    connection: &Connection,
    command: &str,
) -> Result<Box<dyn Broker>, ExitCode> {
    let subjects = Subjects::new(&connection.prefix).map_err(|e| {
        eprintln!("error: --prefix: {e}");
        ExitCode::from(Exit::Usage)
    })?;
    let server = connection.server();
    let connected = match server.as_deref() {
        Some(server) if is_kafka(server) => match connection.kafka_settings(server) {
            Ok(settings) => KafkaBus::connect_with(&settings)
                .await
                .map(|bus| Box::new(bus.with_subjects(subjects)) as Box<dyn Broker>),
            Err(e) => Err(e),
        },
        Some(server) if is_memory(server) => {
            Ok(Box::new(MemoryBus::new().with_subjects(subjects)) as Box<dyn Broker>)
        }
        _ => match connection.settings(command) {
            Ok(settings) => Bus::connect_with(&settings)
                .await
                .map(|bus| Box::new(bus.with_subjects(subjects)) as Box<dyn Broker>),
            Err(e) => Err(e),
        },
    };
    connected.map_err(|e| {
        eprintln!("error: {e}");
        ExitCode::from(Exit::Usage)
    })
}
