//! `energy events consume`.

use super::connection::{Connection, connect};
use super::shared::{CauseReport, block_on, failed, filters, parse_duration, parse_time};
use crate::exit::Exit;
use crate::stop::interrupted;
use clap::{Args, ValueEnum};
use energy_runtime::bus::serve::Endpoint;
use energy_runtime::bus::{
    ConsumerConfig, Contract, Handlers, Ordering, Settled, Start, Subjects, UnknownPolicy,
};
use serde::Serialize;
use std::io::{self, IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Arguments of `energy events consume`.
#[derive(Args)]
pub(crate) struct ConsumeArgs {
    #[command(flatten)]
    connection: Connection,
    /// The durable consumer (on Kafka, the consumer group): processes with the same name share the
    /// events.
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
    /// How long the broker waits for a settlement before delivering again (at least 1s); on Kafka, the
    /// group's session (6s to 30m): how long a silent member keeps its partitions.
    #[arg(long, value_name = "DURATION", default_value = "30s", value_parser = parse_duration)]
    ack_wait: Duration,
    /// Messages handled at once (1 to 4096).
    #[arg(long, value_name = "N", default_value_t = 64, value_parser = clap::value_parser!(u16).range(1..=4096))]
    concurrency: u16,
    /// Handle the messages of one subject (on Kafka, of one record key) one after the other, in order,
    /// a retry in place.
    #[arg(long)]
    ordered: bool,
    /// What to do with event types and versions the catalogue does not know.
    #[arg(long, value_enum, default_value_t = UnknownArg::Skip)]
    unknown: UnknownArg,
    /// A new durable consumer starts at this stream sequence (on Kafka, a new group at this offset of
    /// every partition).
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
    /// Check at start-up that this consumer handles at least what this contract (a YAML file of
    /// `schema/consumers/`) says it reads; exit 2 when it does not. The catalogue versions of the
    /// contract's types that it does not handle are said on standard error.
    #[arg(long, value_name = "FILE")]
    contract: Option<PathBuf>,
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
    error: Option<CauseReport<'a>>,
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
        error: settled.cause.as_ref().map(|f| CauseReport {
            kind: &f.kind,
            path: &f.path,
            message: &f.message,
        }),
    }
}

/// Runs `energy events consume`.
pub(crate) fn run(args: ConsumeArgs) -> ExitCode {
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
    let mut handlers = Handlers::new();
    // Decoding and validation are the consumer's: what reaches here is a valid event, handled by
    // being reported.
    handlers.fallback(|_, _| async { Ok(()) });
    handlers.unknown(match args.unknown {
        UnknownArg::Skip => UnknownPolicy::Skip,
        UnknownArg::DeadLetter => UnknownPolicy::DeadLetter,
    });
    if let Some(path) = &args.contract
        && let Err(code) = check_contract(path, &handlers, bus.subjects(), &filters)
    {
        return code;
    }
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

/// Checks that a consumer with these handlers and subject filters handles what the contract at `path`
/// reads: an error (exit 2) names each version it would not handle; the catalogue versions of the
/// contract's types that it does not handle are said as notes.
fn check_contract(
    path: &std::path::Path,
    handlers: &Handlers,
    subjects: &Subjects,
    filters: &[String],
) -> Result<(), ExitCode> {
    let shown = path.display();
    let text = std::fs::read_to_string(path).map_err(|e| {
        eprintln!("error: --contract: cannot read `{shown}`: {e}");
        ExitCode::from(Exit::Usage)
    })?;
    let contract: Contract = serde_saphyr::from_str(&text).map_err(|e| {
        eprintln!("error: --contract: `{shown}` is not a consumer contract: {e}");
        ExitCode::from(Exit::Usage)
    })?;
    let receives = |event_type: energy_api::EventType| {
        filters.is_empty()
            || event_type.versions().iter().any(|version| {
                let subject = subjects.event(event_type.as_str(), version);
                filters
                    .iter()
                    .any(|filter| subject_matches(filter, &subject))
            })
    };
    let check = handlers.check_contract(&contract, receives);
    for (event_type, version) in &check.catalogue_not_handled {
        eprintln!(
            "note: {event_type} {version} is in the catalogue and this consumer does not handle it"
        );
    }
    if check.holds() {
        return Ok(());
    }
    for (event_type, version) in &check.unknown {
        eprintln!(
            "error: the contract `{shown}` ({}) reads {event_type} {version}, which this consumer's catalogue does not know",
            contract.consumer
        );
    }
    for (event_type, version) in &check.not_handled {
        eprintln!(
            "error: the contract `{shown}` ({}) reads {event_type} {version}, which this consumer does not receive (its --filter and --section leave it out)",
            contract.consumer
        );
    }
    Err(Exit::Usage.into())
}

/// Whether a NATS subject filter (`*` one token, `>` the rest) selects `subject`.
fn subject_matches(filter: &str, subject: &str) -> bool {
    let mut subject_tokens = subject.split('.');
    for token in filter.split('.') {
        match (token, subject_tokens.next()) {
            (">", Some(_)) => return true,
            ("*", Some(_)) => {}
            (token, Some(given)) if token == given => {}
            _ => return false,
        }
    }
    subject_tokens.next().is_none()
}

#[cfg(test)]
mod tests {
    use super::subject_matches;

    #[test]
    fn filters_select_subjects_as_nats_does() {
        assert!(subject_matches("energy.>", "energy.billing.final_bill.v1"));
        assert!(subject_matches(
            "energy.billing.final_bill.*",
            "energy.billing.final_bill.v1"
        ));
        assert!(!subject_matches(
            "energy.billing.*",
            "energy.billing.final_bill.v1"
        ));
        assert!(!subject_matches(
            "energy.billing.final_bill.v1.>",
            "energy.billing.final_bill.v1"
        ));
        assert!(subject_matches(
            "energy.billing.final_bill.v1",
            "energy.billing.final_bill.v1"
        ));
    }
}
