//! Where the bus is and how to connect to it: the options every bus command shares, made
//! [`ConnectSettings`], and the connection.

use crate::exit::Exit;
use clap::Args;
use energy_runtime::bus::{Auth, Bus, BusError, ConnectSettings, Secret, Subjects};
use std::path::PathBuf;
use std::process::ExitCode;

/// Where the bus is and how to connect to it: the server(s), one authentication method, TLS, and the
/// subject prefix. The options and environment variables are the `nats` CLI's; `--context` reads one of
/// its context files, and the options given override what it says.
#[derive(Args, Clone)]
pub(crate) struct Connection {
    /// NATS server URL; several, separated by commas, for a cluster [default: the context's, else
    /// nats://127.0.0.1:4222].
    // A URL may carry a password: the variable's value is never shown in --help.
    #[arg(long, value_name = "URL", env = "NATS_URL", hide_env_values = true)]
    server: Option<String>,
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
    /// The settings these options give: the context's, overridden by what was given here.
    fn settings(&self, command: &str) -> Result<ConnectSettings, BusError> {
        let mut settings = match &self.context {
            Some(name) => ConnectSettings::from_context(name)?,
            None => ConnectSettings::default(),
        };
        if let Some(server) = &self.server {
            settings.servers = server.clone();
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

pub(crate) async fn connect(connection: &Connection, command: &str) -> Result<Bus, ExitCode> {
    let subjects = Subjects::new(&connection.prefix).map_err(|e| {
        eprintln!("error: --prefix: {e}");
        ExitCode::from(Exit::Usage)
    })?;
    let settings = match connection.settings(command) {
        Ok(settings) => settings,
        Err(e) => {
            eprintln!("error: {e}");
            return Err(Exit::Usage.into());
        }
    };
    match Bus::connect_with(&settings).await {
        Ok(bus) => Ok(bus.with_subjects(subjects)),
        Err(e) => {
            eprintln!("error: {e}");
            Err(Exit::Usage.into())
        }
    }
}
