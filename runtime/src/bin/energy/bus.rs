//! The event bus from the command line: `energy bus init`, and `energy events publish`, `consume`, `dlq`
//! and `capture`.

use crate::Exit;
use crate::events::{Report, too_long, write_report};
use clap::{Args, Subcommand, ValueEnum};
use energy_runtime::bus::content::ContentMode;
use energy_runtime::bus::lines::{draft_from_line, line_of};
use energy_runtime::bus::serve::Endpoint;
use energy_runtime::bus::{
    Auth, Bus, BusError, CaptureRange, Change, ConnectSettings, ConsumerConfig, DeadLetter,
    Handlers, Ordering, PublishError, Retention, Secret, Settled, Start, Storage, StreamSettings,
    Subjects, UnknownPolicy,
};
use energy_runtime::events::{DEFAULT_MAX_LINE_BYTES, ErrorKind, EventError, Line, LineReader};
use futures_util::StreamExt;
use serde::Serialize;
use std::fs::File;
use std::io::{self, BufRead, BufReader, BufWriter, IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

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

/// `energy bus …`.
#[derive(Subcommand)]
pub(crate) enum BusCommand {
    /// Create or update the streams from the catalogue: the events stream (a subject filter per event
    /// type) and the dead-letter stream. Idempotent; subjects are only added; a change that would lose
    /// stored events (a shorter age limit, a retention that removes consumed events, another storage)
    /// is refused and nothing is changed. Exit status 0, 1 when refused, 2 when the server cannot be
    /// reached or refuses the request.
    Init(InitArgs),
}

/// Arguments of `energy bus init`.
#[derive(Args)]
pub(crate) struct InitArgs {
    #[command(flatten)]
    connection: Connection,
    /// Where events are kept.
    #[arg(long, value_enum, default_value_t = StorageArg::File)]
    storage: StorageArg,
    /// When stored events are removed: `limits` keeps them whoever consumed them (replays work),
    /// `interest` removes them once every consumer acknowledged them, `workqueue` once one did.
    #[arg(long, value_enum, default_value_t = RetentionArg::Limits)]
    retention: RetentionArg,
    /// Copies on different servers of a cluster (1 to 5).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u8).range(1..=5))]
    replicas: u8,
    /// Remove events older than this (`30d`, `720h`); kept for ever when not given.
    #[arg(long, value_name = "DURATION", value_parser = parse_duration)]
    max_age: Option<Duration>,
    /// How long event ids are remembered to drop a duplicate (`2m`).
    #[arg(long, value_name = "DURATION", default_value = "2m", value_parser = parse_duration)]
    duplicate_window: Duration,
}

#[derive(Clone, Copy, ValueEnum)]
enum ModeArg {
    Binary,
    Structured,
}

#[derive(Clone, Copy, ValueEnum)]
enum StorageArg {
    File,
    Memory,
}

#[derive(Clone, Copy, ValueEnum)]
enum RetentionArg {
    Limits,
    Interest,
    Workqueue,
}

/// Arguments of `energy events publish`.
#[derive(Args)]
pub(crate) struct PublishArgs {
    /// Newline-delimited event envelopes (the format `energy events validate` reads); `-` or nothing
    /// reads standard input.
    #[arg(value_name = "FILE|-")]
    file: Option<PathBuf>,
    #[command(flatten)]
    connection: Connection,
    /// The CloudEvents `source` of events whose envelope names none.
    #[arg(long, default_value = energy_runtime::bus::cloudevents::DEFAULT_SOURCE)]
    source: String,
    /// How each event is written: `binary` (attributes as `ce-` headers, the payload as the body) or
    /// `structured` (attributes and payload as one JSON body, content type
    /// `application/cloudevents+json`).
    #[arg(long, value_enum, default_value_t = ModeArg::Binary)]
    mode: ModeArg,
    /// Events awaiting the broker's acknowledgement at once.
    #[arg(long, default_value_t = 256, value_parser = clap::value_parser!(u16).range(1..=4096))]
    in_flight: u16,
    /// Longest line read, in bytes (1 to 1073741824).
    #[arg(long, value_name = "BYTES", default_value_t = DEFAULT_MAX_LINE_BYTES as u64,
          value_parser = clap::value_parser!(u64).range(1..=1 << 30))]
    max_line_bytes: u64,
}

/// Arguments of `energy events consume`.
#[derive(Args)]
pub(crate) struct ConsumeArgs {
    #[command(flatten)]
    connection: Connection,
    /// The durable consumer: processes with the same name share the events.
    #[arg(long, value_name = "NAME")]
    durable: String,
    /// Only events on this subject (`energy.billing.final_bill.*`); repeat for several.
    #[arg(long, value_name = "SUBJECT")]
    filter: Vec<String>,
    /// Only events of this catalogue section (`billing`); repeat for several.
    #[arg(long, value_name = "NAME")]
    section: Vec<String>,
    /// Where dead letters go (default `<prefix>_dead_letters.<durable>`; a stream must store it).
    #[arg(long, value_name = "SUBJECT")]
    dead_letter: Option<String>,
    /// Deliveries of a message before it is dead-lettered (1 to 1000).
    #[arg(long, value_name = "N", default_value_t = 5, value_parser = clap::value_parser!(u64).range(1..=1000))]
    max_deliver: u64,
    /// Wait before a redelivery (`500ms`, `5s`); repeat for the next ones (the last repeats).
    #[arg(long, value_name = "DURATION", value_parser = parse_duration)]
    retry_delay: Vec<Duration>,
    /// How long the broker waits for a settlement before delivering again (at least 1s).
    #[arg(long, value_name = "DURATION", default_value = "30s", value_parser = parse_duration)]
    ack_wait: Duration,
    /// Messages handled at once (1 to 4096).
    #[arg(long, value_name = "N", default_value_t = 64, value_parser = clap::value_parser!(u16).range(1..=4096))]
    concurrency: u16,
    /// Handle the messages of one subject one after the other, in order.
    #[arg(long)]
    ordered: bool,
    /// What to do with event types and versions the catalogue does not know.
    #[arg(long, value_enum, default_value_t = UnknownArg::Skip)]
    unknown: UnknownArg,
    /// A new durable consumer starts at this stream sequence.
    #[arg(long, value_name = "N", conflicts_with = "since")]
    from_sequence: Option<u64>,
    /// A new durable consumer starts at this time (RFC 3339), or this long ago (`1h`).
    #[arg(long, value_name = "TIME", value_parser = parse_time)]
    since: Option<jiff::Timestamp>,
    /// Exit 0 once nothing has arrived, and nothing is being handled, for this many seconds, and the
    /// durable has nothing pending and nothing awaiting acknowledgement on the server (messages a
    /// crashed consumer held come back after --ack-wait, and are handled first).
    #[arg(long, value_name = "SECONDS", value_parser = clap::value_parser!(u32).range(1..=86_400))]
    idle_exit: Option<u32>,
    /// On a stop (Ctrl-C, SIGTERM, --idle-exit), how long the messages held may take to be settled;
    /// those still held then are handed back to the server and counted as `handed_back`.
    #[arg(long, value_name = "DURATION", default_value = "30s", value_parser = parse_duration)]
    shutdown_timeout: Duration,
    /// Serve the consumer's figures at http://ADDR/metrics (Prometheus) and its health at
    /// http://ADDR/healthz (`127.0.0.1:9464`; port 0 picks a free one, printed on standard error).
    #[arg(long, value_name = "ADDR")]
    metrics: Option<std::net::SocketAddr>,
}

#[derive(Clone, Copy, ValueEnum)]
enum UnknownArg {
    /// Acknowledge them (outcome `unknown`).
    Skip,
    /// Dead-letter them.
    DeadLetter,
}

/// `energy events dlq …`.
#[derive(Subcommand)]
pub(crate) enum DlqCommand {
    /// List the dead letters, one JSON object per line: sequence, where from, why (kind, path, message).
    List(DlqListArgs),
    /// Show one dead letter with its original message (as a line of the file format).
    Show(DlqShowArgs),
    /// Publish dead letters again to their original subjects, once they pass the publisher's checks,
    /// and remove them; one still invalid stays. Exit 1 if any could not be published.
    Republish(DlqRepublishArgs),
}

/// Arguments of `energy events dlq list`.
#[derive(Args)]
pub(crate) struct DlqListArgs {
    #[command(flatten)]
    connection: Connection,
    /// Only dead letters on this subject (`energy_dead_letters.billing-service`).
    #[arg(long, value_name = "SUBJECT")]
    subject: Option<String>,
}

/// Arguments of `energy events dlq show`.
#[derive(Args)]
pub(crate) struct DlqShowArgs {
    #[command(flatten)]
    connection: Connection,
    /// The dead letter's sequence (as `list` shows it).
    sequence: u64,
}

/// Arguments of `energy events dlq republish`.
#[derive(Args)]
pub(crate) struct DlqRepublishArgs {
    #[command(flatten)]
    connection: Connection,
    /// The dead letters' sequences.
    #[arg(required_unless_present = "all")]
    sequences: Vec<u64>,
    /// Every dead letter (of `--subject`, when given).
    #[arg(long, conflicts_with = "sequences")]
    all: bool,
    /// With `--all`: only dead letters on this subject.
    #[arg(long, value_name = "SUBJECT", requires = "all")]
    subject: Option<String>,
}

/// Arguments of `energy events capture`.
#[derive(Args)]
pub(crate) struct CaptureArgs {
    #[command(flatten)]
    connection: Connection,
    /// Only events on this subject; repeat for several.
    #[arg(long, value_name = "SUBJECT")]
    filter: Vec<String>,
    /// Only events of this catalogue section; repeat for several.
    #[arg(long, value_name = "NAME")]
    section: Vec<String>,
    /// Start at this stream sequence.
    #[arg(long, value_name = "N", conflicts_with = "since")]
    from_sequence: Option<u64>,
    /// Start at this time (RFC 3339), or this long ago (`1h`).
    #[arg(long, value_name = "TIME", value_parser = parse_time)]
    since: Option<jiff::Timestamp>,
    /// Keep writing new events once caught up (until interrupted, or idle for `--idle-exit`).
    #[arg(long)]
    follow: bool,
    /// With `--follow`: stop once nothing has arrived for this many seconds.
    #[arg(long, value_name = "SECONDS", requires = "follow",
          value_parser = clap::value_parser!(u32).range(1..=86_400))]
    idle_exit: Option<u32>,
    /// Write to this file instead of standard output.
    #[arg(long, short, value_name = "FILE")]
    output: Option<PathBuf>,
}

/// A duration: whole seconds (`30`), or with units (`500ms`, `2m`, `1h 30m`, `30d`).
fn parse_duration(text: &str) -> Result<Duration, String> {
    let text = text.trim();
    if let Ok(seconds) = text.parse::<u64>() {
        return Ok(Duration::from_secs(seconds));
    }
    let signed = text
        .parse::<jiff::SignedDuration>()
        .or_else(|_| {
            text.parse::<jiff::Span>()
                .and_then(|span| span.to_duration(jiff::SpanRelativeTo::days_are_24_hours()))
        })
        .map_err(|_| format!("`{text}` is not a duration (such as 30, 500ms, 2m, 1h30m, 30d)"))?;
    Duration::try_from(signed).map_err(|_| format!("`{text}` is negative"))
}

/// A time: RFC 3339 (`2024-03-01T09:30:00Z`), or a duration before now (`1h`).
fn parse_time(text: &str) -> Result<jiff::Timestamp, String> {
    if let Ok(time) = text.parse::<jiff::Timestamp>() {
        return Ok(time);
    }
    let ago = parse_duration(text).map_err(|_| {
        format!(
            "`{text}` is neither an RFC 3339 time (2024-03-01T09:30:00Z) nor a duration ago (1h)"
        )
    })?;
    let ago = jiff::SignedDuration::try_from(ago).map_err(|e| e.to_string())?;
    jiff::Timestamp::now()
        .checked_sub(ago)
        .map_err(|_| format!("`{text}` ago is before the earliest time"))
}

/// Runs `work` on a runtime of its own (the rest of `energy` is synchronous).
fn block_on<F: std::future::Future<Output = ExitCode>>(work: F) -> ExitCode {
    match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime.block_on(work),
        Err(e) => {
            eprintln!("error: cannot start the async runtime: {e}");
            Exit::Usage.into()
        }
    }
}

async fn connect(connection: &Connection, command: &str) -> Result<Bus, ExitCode> {
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

/// A bus error as the exit status says: a refusal or an invalid request 1, an unreachable or failing
/// broker 2.
fn failed(error: &BusError) -> ExitCode {
    eprintln!("error: {error}");
    match error {
        BusError::Refused { .. } => Exit::Failure.into(),
        _ => Exit::Usage.into(),
    }
}

/// Resolves when the process is asked to stop (Ctrl-C, SIGTERM).
async fn interrupted() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        if let Ok(mut term) = signal(SignalKind::terminate()) {
            tokio::select! {
                _ = tokio::signal::ctrl_c() => {}
                _ = term.recv() => {}
            }
            return;
        }
    }
    let _ = tokio::signal::ctrl_c().await;
}

/// Runs `energy bus …`.
pub(crate) fn run(command: BusCommand) -> ExitCode {
    match command {
        BusCommand::Init(args) => block_on(init(args)),
    }
}

async fn init(args: InitArgs) -> ExitCode {
    let bus = match connect(&args.connection, "bus init").await {
        Ok(bus) => bus,
        Err(code) => return code,
    };
    let settings = StreamSettings {
        storage: match args.storage {
            StorageArg::File => Storage::File,
            StorageArg::Memory => Storage::Memory,
        },
        retention: match args.retention {
            RetentionArg::Limits => Retention::Limits,
            RetentionArg::Interest => Retention::Interest,
            RetentionArg::Workqueue => Retention::WorkQueue,
        },
        replicas: usize::from(args.replicas),
        duplicate_window: args.duplicate_window,
        max_age: args.max_age,
    };
    match bus.init(&settings).await {
        Ok(reports) => {
            for report in reports {
                let what = match report.change {
                    Change::Created => "created".to_owned(),
                    Change::Updated(changes) => format!("updated ({})", changes.join("; ")),
                    Change::Unchanged => "unchanged".to_owned(),
                };
                println!(
                    "stream {}: {what}; {} subject filter{}",
                    report.stream,
                    report.subjects,
                    if report.subjects == 1 { "" } else { "s" }
                );
            }
            Exit::Success.into()
        }
        Err(e) => failed(&e),
    }
}

/// One line of input, read on a thread of its own and prepared to send.
enum Prepared {
    Send {
        line: u64,
        event_type: String,
        version: String,
        id: String,
        message: energy_runtime::bus::transport::Outgoing,
    },
    Invalid {
        line: u64,
        error: EventError,
    },
}

#[derive(Serialize)]
struct Published<'a> {
    line: u64,
    ok: bool,
    event_type: &'a str,
    version: &'a str,
    id: &'a str,
    sequence: u64,
    duplicate: bool,
}

/// Runs `energy events publish`.
pub(crate) fn publish(args: PublishArgs) -> ExitCode {
    let (name, input): (String, Box<dyn BufRead + Send>) = match &args.file {
        Some(path) if path.as_os_str() != "-" => match File::open(path) {
            Ok(file) => (
                path.display().to_string(),
                Box::new(BufReader::with_capacity(64 * 1024, file)),
            ),
            Err(e) => {
                eprintln!("error: cannot read `{}`: {e}", path.display());
                return Exit::Usage.into();
            }
        },
        _ => (
            "standard input".to_owned(),
            Box::new(BufReader::new(io::stdin())),
        ),
    };
    block_on(publish_lines(args, name, input))
}

async fn publish_lines(
    args: PublishArgs,
    name: String,
    input: Box<dyn BufRead + Send>,
) -> ExitCode {
    let bus = match connect(&args.connection, "events publish").await {
        Ok(bus) => bus,
        Err(code) => return code,
    };
    // Without the stream every publish would be retried for a minute before failing: say so now.
    if let Err(e) = bus.check_streams().await {
        return failed(&e);
    }
    let publisher = bus
        .publisher()
        .with_source(&args.source)
        .with_mode(match args.mode {
            ModeArg::Binary => ContentMode::Binary,
            ModeArg::Structured => ContentMode::Structured,
        });
    let max_line = usize::try_from(args.max_line_bytes).unwrap_or(usize::MAX);
    // Lines are read and checked on a thread, so that reading never stalls the acknowledgements.
    let (prepared_tx, mut prepared_rx) = tokio::sync::mpsc::channel::<Prepared>(1024);
    let reader_publisher = publisher.clone();
    // One span for the run: every event published carries its trace context (with the `otlp` feature
    // and a collector named, the consumers' handling joins this trace).
    let publishing = tracing::info_span!(
        "energy events publish",
        otel.kind = "producer",
        messaging.system = "nats",
        messaging.operation.type = "send",
    );
    let reader = std::thread::spawn(move || -> Result<u64, String> {
        let _publishing = publishing.enter();
        let mut lines = LineReader::new(input, max_line);
        let mut blank = 0;
        loop {
            let (number, line) = match lines.next_line() {
                Ok(Some(next)) => next,
                Ok(None) => return Ok(blank),
                Err(e) => return Err(format!("cannot read {name}: {e}")),
            };
            let prepared = match line {
                Line::Complete(bytes) if bytes.iter().all(u8::is_ascii_whitespace) => {
                    blank += 1;
                    continue;
                }
                Line::Complete(bytes) => match draft_from_line(bytes)
                    .and_then(|draft| Ok((reader_publisher.prepare(&draft)?, draft)))
                {
                    Ok((message, draft)) => Prepared::Send {
                        line: number,
                        event_type: draft.event_type,
                        version: draft.version,
                        id: message.id.clone(),
                        message,
                    },
                    Err(error) => Prepared::Invalid {
                        line: number,
                        error: error.at_line(number),
                    },
                },
                Line::TooLong { length } => Prepared::Invalid {
                    line: number,
                    error: too_long(length, max_line),
                },
            };
            if prepared_tx.blocking_send(prepared).is_err() {
                return Ok(blank);
            }
        }
    });
    let state = std::rc::Rc::new(std::cell::RefCell::new(PublishState {
        out: BufWriter::new(io::stdout().lock()),
        progress: io::stderr().is_terminal(),
        last_progress: Instant::now(),
        published: 0,
        duplicates: 0,
        invalid: Vec::new(),
        held: std::collections::VecDeque::new(),
        failure: None,
        write_error: None,
    }));
    // Invalid lines wait here until the results of the lines before them are reported: the report
    // follows the input's order.
    let holding = state.clone();
    let messages = futures_util::stream::poll_fn(move |cx| prepared_rx.poll_recv(cx)).filter_map(
        move |prepared| {
            let item = match prepared {
                Prepared::Send {
                    line,
                    event_type,
                    version,
                    id,
                    message,
                } => Some(((line, event_type, version, id), message)),
                Prepared::Invalid { line, error } => {
                    holding.borrow_mut().held.push_back((line, error));
                    None
                }
            };
            std::future::ready(item)
        },
    );
    let reporting = state.clone();
    publisher
        .send_ordered(
            messages,
            usize::from(args.in_flight),
            |(line, event_type, version, id), result| {
                reporting
                    .borrow_mut()
                    .result(line, &event_type, &version, &id, result)
            },
        )
        .await;
    drop(reporting);
    let mut state = match std::rc::Rc::try_unwrap(state) {
        Ok(state) => state.into_inner(),
        Err(_) => {
            eprintln!("error: the report is still in use");
            return Exit::Usage.into();
        }
    };
    if state.failure.is_none() {
        state.release_held(u64::MAX);
    }
    if let Some(e) = state.write_error.take() {
        return crate::output_failed(&e);
    }
    if let Err(e) = state.out.flush() {
        return crate::output_failed(&e);
    }
    if state.progress {
        eprint!("\r\x1b[K");
    }
    let PublishState {
        published,
        duplicates,
        invalid,
        failure,
        ..
    } = state;
    let blank = if failure.is_some() {
        0
    } else {
        match reader.join() {
            Ok(Ok(blank)) => blank,
            Ok(Err(e)) => {
                eprintln!("error: {e}");
                return Exit::Usage.into();
            }
            Err(_) => {
                eprintln!("error: the reading thread failed");
                return Exit::Usage.into();
            }
        }
    };
    eprintln!(
        "{}",
        publish_summary(published, duplicates, &invalid, blank)
    );
    if let Some((line, error)) = failure {
        eprintln!(
            "error: line {line} was not published ({error}); it and the lines after it that are not reported `ok` were not published"
        );
        return Exit::Usage.into();
    }
    if invalid.is_empty() {
        Exit::Success.into()
    } else {
        Exit::Failure.into()
    }
}

/// The report of `energy events publish`, line by line in the input's order.
struct PublishState<W: Write> {
    out: W,
    progress: bool,
    last_progress: Instant,
    published: u64,
    duplicates: u64,
    invalid: Vec<ErrorKind>,
    held: std::collections::VecDeque<(u64, EventError)>,
    failure: Option<(u64, PublishError)>,
    write_error: Option<io::Error>,
}

impl<W: Write> PublishState<W> {
    /// Reports the invalid lines before `line`.
    fn release_held(&mut self, line: u64) {
        while self.held.front().is_some_and(|(held, _)| *held < line) {
            let Some((held, error)) = self.held.pop_front() else {
                break;
            };
            self.invalid.push(error.kind);
            let written = write_report(&mut self.out, &Report::invalid(held, &error));
            self.keep(written);
        }
    }

    fn keep(&mut self, written: io::Result<()>) {
        if let Err(e) = written
            && self.write_error.is_none()
        {
            self.write_error = Some(e);
        }
    }

    /// Reports the result of one line; `false` stops the publishing (the broker is gone for good, or
    /// the output is).
    fn result(
        &mut self,
        line: u64,
        event_type: &str,
        version: &str,
        id: &str,
        result: Result<energy_runtime::bus::Receipt, PublishError>,
    ) -> bool {
        self.release_held(line);
        let written = match result {
            Ok(receipt) => {
                self.published += 1;
                self.duplicates += u64::from(receipt.duplicate);
                write_json(
                    &mut self.out,
                    &Published {
                        line,
                        ok: true,
                        event_type,
                        version,
                        id,
                        sequence: receipt.sequence,
                        duplicate: receipt.duplicate,
                    },
                )
            }
            Err(PublishError::Invalid(error)) => {
                self.invalid.push(error.kind);
                write_report(&mut self.out, &Report::invalid(line, &error.at_line(line)))
            }
            Err(error) => {
                let text = error.to_string();
                let written = writeln!(
                    self.out,
                    "{}",
                    serde_json::json!({"line": line, "ok": false, "event_type": event_type,
                        "version": version, "error": {"kind": "not_published", "message": text}})
                );
                if self.failure.is_none() {
                    self.failure = Some((line, error));
                }
                written
            }
        };
        self.keep(written);
        if self.progress && self.last_progress.elapsed() > Duration::from_millis(250) {
            eprint!(
                "\rpublished {}, invalid {}",
                self.published,
                self.invalid.len()
            );
            self.last_progress = Instant::now();
        }
        self.failure.is_none() && self.write_error.is_none()
    }
}

fn publish_summary(published: u64, duplicates: u64, invalid: &[ErrorKind], blank: u64) -> String {
    let mut text = format!("energy events publish: {published} published");
    if duplicates > 0 {
        text.push_str(&format!(
            " ({duplicates} already stored: dropped as duplicates by id)"
        ));
    }
    text.push_str(&format!(", {} invalid", invalid.len()));
    let kinds: Vec<String> = ErrorKind::ALL
        .iter()
        .filter_map(|kind| {
            let n = invalid.iter().filter(|k| *k == kind).count();
            (n > 0).then(|| format!("{kind} {n}"))
        })
        .collect();
    if !kinds.is_empty() {
        text.push_str(&format!(" ({}; not published)", kinds.join(", ")));
    }
    if blank > 0 {
        text.push_str(&format!(
            "; {blank} blank line{} skipped",
            if blank == 1 { "" } else { "s" }
        ));
    }
    text
}

fn write_json(out: &mut impl Write, value: &impl Serialize) -> io::Result<()> {
    serde_json::to_writer(&mut *out, value).map_err(io::Error::from)?;
    out.write_all(b"\n")
}

#[derive(Serialize)]
struct SettledReport<'a> {
    id: Option<&'a str>,
    event_type: Option<&'a str>,
    version: Option<&'a str>,
    outcome: &'static str,
    subject: &'a str,
    sequence: u64,
    attempt: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<FaultReport<'a>>,
}

#[derive(Serialize)]
struct FaultReport<'a> {
    kind: &'a str,
    path: &'a str,
    message: &'a str,
}

fn settled_report(settled: &Settled) -> SettledReport<'_> {
    SettledReport {
        id: settled.id.as_deref(),
        event_type: settled.event_type.as_deref(),
        version: settled.version.as_deref(),
        outcome: settled.outcome.as_str(),
        subject: &settled.subject,
        sequence: settled.sequence,
        attempt: settled.attempt,
        error: settled.fault.as_ref().map(|f| FaultReport {
            kind: &f.kind,
            path: &f.path,
            message: &f.message,
        }),
    }
}

/// The subject filters of `--filter` and `--section`.
fn filters(
    subjects: &Subjects,
    filter: &[String],
    sections: &[String],
) -> Result<Vec<String>, String> {
    let mut all = filter.to_vec();
    for name in sections {
        let Some(section) = subjects.section(name) else {
            let known: Vec<&str> = Subjects::section_names().collect();
            return Err(format!(
                "--section: `{name}` is not a catalogue section (sections: {})",
                known.join(", ")
            ));
        };
        all.extend(section);
    }
    Ok(all)
}

/// Runs `energy events consume`.
pub(crate) fn consume(args: ConsumeArgs) -> ExitCode {
    block_on(consume_events(args))
}

async fn consume_events(args: ConsumeArgs) -> ExitCode {
    let bus = match connect(&args.connection, "events consume").await {
        Ok(bus) => bus,
        Err(code) => return code,
    };
    let filters = match filters(bus.subjects(), &args.filter, &args.section) {
        Ok(filters) => filters,
        Err(e) => {
            eprintln!("error: {e}");
            return Exit::Usage.into();
        }
    };
    let start = match (args.from_sequence, args.since) {
        (Some(sequence), _) => Start::Sequence(sequence),
        (None, Some(time)) => Start::Time(time),
        (None, None) => Start::All,
    };
    let mut config = ConsumerConfig::durable(&args.durable)
        .filters(filters)
        .max_deliver(args.max_deliver)
        .ack_wait(args.ack_wait)
        .concurrency(usize::from(args.concurrency))
        .start(start)
        .ordering(if args.ordered {
            Ordering::PerSubject
        } else {
            Ordering::Concurrent
        });
    if !args.retry_delay.is_empty() {
        config = config.retry_delays(args.retry_delay.clone());
    }
    if let Some(subject) = &args.dead_letter {
        config = config.dead_letter_subject(subject.clone());
    }
    if let Some(seconds) = args.idle_exit {
        config = config.idle_exit(Duration::from_secs(u64::from(seconds)));
    }
    config = config.shutdown_timeout(args.shutdown_timeout);
    let mut consumer = match bus.consumer(config).await {
        Ok(consumer) => consumer,
        Err(e) => return failed(&e),
    };
    // The endpoint stops with the consumer (the sender dropped when this function returns).
    let (_endpoint_stop, endpoint_stopped) = tokio::sync::oneshot::channel::<()>();
    if let Some(address) = args.metrics {
        let listener = match tokio::net::TcpListener::bind(address).await {
            Ok(listener) => listener,
            Err(e) => {
                eprintln!("error: --metrics {address}: cannot listen: {e}");
                return Exit::Usage.into();
            }
        };
        let mut registry = prometheus_client::registry::Registry::default();
        consumer = consumer.with_metrics(&mut registry);
        let endpoint = Endpoint::new(Arc::new(registry), consumer.health());
        match listener.local_addr() {
            Ok(bound) => eprintln!(
                "energy events consume: metrics at http://{bound}/metrics, health at http://{bound}/healthz"
            ),
            Err(e) => eprintln!("energy events consume: metrics served ({e})"),
        }
        tokio::spawn(endpoint.serve(listener, async move {
            let _ = endpoint_stopped.await;
        }));
    }
    // One line per outcome, written through at once: a report is never held back in a buffer when
    // the process is stopped.
    let out = Arc::new(Mutex::new(io::stdout()));
    let closed = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let (out_writer, closed_writer) = (out.clone(), closed.clone());
    let consumer = consumer.observe(move |settled| {
        let Ok(line) = serde_json::to_string(&settled_report(settled)) else {
            return;
        };
        if let Ok(mut out) = out_writer.lock()
            && writeln!(out, "{line}").is_err()
        {
            closed_writer.store(true, std::sync::atomic::Ordering::Relaxed);
        }
    });
    let counters = consumer.counters();
    let probe = consumer.lag_probe();
    let live = io::stderr().is_terminal().then(|| {
        tokio::spawn(async move {
            let mut lag = String::new();
            let mut ticks = 0u32;
            loop {
                if ticks.is_multiple_of(4)
                    && let Ok(l) = probe.lag().await
                {
                    lag = format!(", lag {} (+{} unsettled)", l.pending, l.ack_pending);
                }
                ticks += 1;
                eprint!("\r\x1b[K{}{lag}", counts(&counters.snapshot()));
                tokio::time::sleep(Duration::from_millis(500)).await;
            }
        })
    });
    let mut handlers = Handlers::new();
    // Decoding and validation are the consumer's: what reaches here is a valid event, handled by
    // being reported.
    handlers.fallback(|_, _| async { Ok(()) });
    handlers.unknown(match args.unknown {
        UnknownArg::Skip => UnknownPolicy::Skip,
        UnknownArg::DeadLetter => UnknownPolicy::DeadLetter,
    });
    let summary_probe = consumer.lag_probe();
    let closed_stop = closed.clone();
    let stop = async move {
        tokio::select! {
            () = interrupted() => {}
            () = async {
                while !closed_stop.load(std::sync::atomic::Ordering::Relaxed) {
                    tokio::time::sleep(Duration::from_millis(100)).await;
                }
            } => {}
        }
    };
    let result = consumer.run(handlers, stop).await;
    if let Some(live) = live {
        live.abort();
        eprint!("\r\x1b[K");
    }
    match result {
        Ok(stats) => {
            let lag = match summary_probe.lag().await {
                Ok(lag) => format!(
                    "lag {} pending, {} awaiting acknowledgement",
                    lag.pending, lag.ack_pending
                ),
                Err(e) => format!("lag unknown ({e})"),
            };
            eprintln!("energy events consume: {}; {lag}", counts(&stats));
            if closed.load(std::sync::atomic::Ordering::Relaxed) {
                return Exit::ClosedOutput.into();
            }
            Exit::Success.into()
        }
        Err(e) => failed(&e),
    }
}

/// The counts of a consumer's outcomes, in words.
fn counts(stats: &energy_runtime::bus::Stats) -> String {
    format!(
        "{} handled, {} retried, {} dead-lettered, {} unknown, {} skipped, {} handed back",
        stats.handled,
        stats.retried,
        stats.dead_lettered,
        stats.unknown,
        stats.skipped,
        stats.handed_back
    )
}

#[derive(Serialize)]
struct DeadLetterReport<'a> {
    sequence: u64,
    dead_letter_subject: &'a str,
    consumer: &'a str,
    deliveries: u64,
    time: &'a str,
    subject: &'a str,
    stream_sequence: u64,
    id: Option<String>,
    event_type: Option<String>,
    version: Option<String>,
    error: FaultReport<'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    message: Option<Box<serde_json::value::RawValue>>,
}

fn dead_letter_report(letter: &DeadLetter, with_message: bool) -> DeadLetterReport<'_> {
    let (event_type, version, id) = letter.event();
    let message = with_message.then(|| {
        let (line, _) = line_of(&letter.headers, &letter.payload);
        serde_json::value::RawValue::from_string(line).ok()
    });
    DeadLetterReport {
        sequence: letter.sequence,
        dead_letter_subject: &letter.dead_letter_subject,
        consumer: &letter.consumer,
        deliveries: letter.deliveries,
        time: &letter.time,
        subject: &letter.subject,
        stream_sequence: letter.stream_sequence,
        id,
        event_type,
        version,
        error: FaultReport {
            kind: &letter.fault.kind,
            path: &letter.fault.path,
            message: &letter.fault.message,
        },
        message: message.flatten(),
    }
}

/// Runs `energy events dlq …`.
pub(crate) fn dlq(command: DlqCommand) -> ExitCode {
    block_on(async move {
        match command {
            DlqCommand::List(args) => {
                let bus = match connect(&args.connection, "events dlq").await {
                    Ok(bus) => bus,
                    Err(code) => return code,
                };
                let letters = match bus.dead_letters(args.subject.as_deref()).await {
                    Ok(letters) => letters,
                    Err(e) => return failed(&e),
                };
                let mut out = BufWriter::new(io::stdout().lock());
                for letter in &letters {
                    if let Err(e) = write_json(&mut out, &dead_letter_report(letter, false)) {
                        return crate::output_failed(&e);
                    }
                }
                if let Err(e) = out.flush() {
                    return crate::output_failed(&e);
                }
                eprintln!(
                    "energy events dlq list: {} dead letter{}",
                    letters.len(),
                    if letters.len() == 1 { "" } else { "s" }
                );
                Exit::Success.into()
            }
            DlqCommand::Show(args) => {
                let bus = match connect(&args.connection, "events dlq").await {
                    Ok(bus) => bus,
                    Err(code) => return code,
                };
                match bus.dead_letter(args.sequence).await {
                    Ok(letter) => {
                        let mut out = io::stdout().lock();
                        match write_json(&mut out, &dead_letter_report(&letter, true)) {
                            Ok(()) => Exit::Success.into(),
                            Err(e) => crate::output_failed(&e),
                        }
                    }
                    Err(e) => failed(&e),
                }
            }
            DlqCommand::Republish(args) => republish(args).await,
        }
    })
}

async fn republish(args: DlqRepublishArgs) -> ExitCode {
    let bus = match connect(&args.connection, "events dlq").await {
        Ok(bus) => bus,
        Err(code) => return code,
    };
    let sequences = if args.all {
        match bus.dead_letters(args.subject.as_deref()).await {
            Ok(letters) => letters.iter().map(|l| l.sequence).collect(),
            Err(e) => return failed(&e),
        }
    } else {
        args.sequences.clone()
    };
    let mut out = io::stdout().lock();
    let mut failures = 0;
    for sequence in sequences {
        let line = match bus.republish_dead_letter(sequence).await {
            Ok(receipt) => serde_json::json!({"sequence": sequence, "ok": true,
                "stream_sequence": receipt.sequence, "duplicate": receipt.duplicate}),
            Err(e) => {
                failures += 1;
                serde_json::json!({"sequence": sequence, "ok": false, "error": e.to_string()})
            }
        };
        if let Err(e) = writeln!(out, "{line}") {
            return crate::output_failed(&e);
        }
    }
    if failures > 0 {
        eprintln!("energy events dlq republish: {failures} not published (they stay dead letters)");
        return Exit::Failure.into();
    }
    Exit::Success.into()
}

/// Runs `energy events capture`.
pub(crate) fn capture(args: CaptureArgs) -> ExitCode {
    block_on(capture_events(args))
}

async fn capture_events(args: CaptureArgs) -> ExitCode {
    let bus = match connect(&args.connection, "events capture").await {
        Ok(bus) => bus,
        Err(code) => return code,
    };
    let filters = match filters(bus.subjects(), &args.filter, &args.section) {
        Ok(filters) => filters,
        Err(e) => {
            eprintln!("error: {e}");
            return Exit::Usage.into();
        }
    };
    let mut out: Box<dyn Write> = match &args.output {
        Some(path) => match File::create(path) {
            Ok(file) => Box::new(BufWriter::new(file)),
            Err(e) => {
                eprintln!("error: cannot write `{}`: {e}", path.display());
                return Exit::Usage.into();
            }
        },
        None => Box::new(BufWriter::new(io::stdout())),
    };
    let range = CaptureRange {
        filters,
        start: match (args.from_sequence, args.since) {
            (Some(sequence), _) => Start::Sequence(sequence),
            (None, Some(time)) => Start::Time(time),
            (None, None) => Start::All,
        },
        follow: args.follow,
        idle_exit: args.idle_exit.map(|s| Duration::from_secs(u64::from(s))),
    };
    let mut not_events = 0u64;
    let mut write_error: Option<io::Error> = None;
    let follow = args.follow;
    let result = bus
        .capture(
            &range,
            |message| {
                let (line, error) = line_of(&message.headers, &message.payload);
                if let Some(error) = error {
                    not_events += 1;
                    eprintln!(
                        "sequence {}: not an event of this format ({}{}: {}): written with its headers and data_base64",
                        message.sequence,
                        error.kind,
                        if error.path.is_empty() { String::new() } else { format!(" at `{}`", error.path) },
                        error.message
                    );
                }
                let written = out
                    .write_all(line.as_bytes())
                    .and_then(|()| out.write_all(b"\n"))
                    .and_then(|()| if follow { out.flush() } else { Ok(()) });
                written.map_err(|e| {
                    let text = e.to_string();
                    write_error = Some(e);
                    text
                })
            },
            interrupted(),
        )
        .await;
    if let Some(e) = write_error {
        return crate::output_failed(&e);
    }
    if let Err(e) = out.flush() {
        return crate::output_failed(&e);
    }
    match result {
        Ok(count) => {
            eprintln!(
                "energy events capture: {count} message{}{}",
                if count == 1 { "" } else { "s" },
                if not_events > 0 {
                    format!(" ({not_events} not events: kept with data_base64)")
                } else {
                    String::new()
                }
            );
            Exit::Success.into()
        }
        Err(e) => failed(&e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_take_seconds_and_units() {
        assert_eq!(parse_duration("30"), Ok(Duration::from_secs(30)));
        assert_eq!(parse_duration("500ms"), Ok(Duration::from_millis(500)));
        assert_eq!(parse_duration("2m"), Ok(Duration::from_secs(120)));
        assert_eq!(parse_duration("1h30m"), Ok(Duration::from_secs(5400)));
        assert_eq!(parse_duration("30d"), Ok(Duration::from_secs(30 * 86_400)));
        assert!(parse_duration("soon").is_err());
        assert!(parse_duration("-5s").is_err());
    }

    #[test]
    fn times_take_rfc_3339_or_a_duration_ago() {
        assert_eq!(
            parse_time("2024-03-01T09:30:00Z").unwrap().to_string(),
            "2024-03-01T09:30:00Z"
        );
        let hour_ago = parse_time("1h").unwrap();
        let expected = jiff::Timestamp::now() - jiff::SignedDuration::from_hours(1);
        assert!((hour_ago - expected).get_seconds().abs() < 5);
        assert!(parse_time("yesterday").is_err());
    }
}
