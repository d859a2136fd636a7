//! `energy events …`: checking captured event streams (and, with the `bus` feature, publishing,
//! consuming, dead letters and capture: `bus.rs`).

use clap::{Args, Subcommand};
use energy_runtime::events::{
    Checked, DEFAULT_MAX_LINE_BYTES, Decoder, ErrorKind, EventError, Line, LineReader,
};
use serde::Serialize;
use std::fmt::Write as _;
use std::fs::File;
use std::io::{self, BufRead, BufReader, BufWriter, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use crate::Exit;

/// Subcommands of `energy events`.
#[derive(Subcommand)]
pub(crate) enum EventsCommand {
    /// Check newline-delimited event envelopes against the catalogue.
    ///
    /// Each line is an envelope `{"event_type": "...", "version": "v1", "payload": {...}}` (other top-level
    /// fields are allowed). Prints one JSON object per line on standard output, saying whether it is valid
    /// and, if not, the error's kind, JSON path and message; blank lines are skipped. A summary goes to
    /// standard error. Exit status: 0 when every line is valid, 1 when any is not (or, with
    /// --fail-if-empty, when there is no event at all), 2 for a usage or I/O error, 141 when standard
    /// output is closed before the end (`| head`).
    Validate(ValidateArgs),
    /// Publish newline-delimited event envelopes (the format `validate` reads) to the bus.
    ///
    /// Every line is checked as `validate` checks it; each valid one is published as a CloudEvent
    /// (binary mode) on `<prefix>.<event type>.<version>` and reported with its stream sequence once
    /// the broker has stored it; each invalid one is reported as `validate` reports it (line, kind,
    /// path) and not published. Exit status: 0 when every line was published, 1 when any line was
    /// invalid, 2 for a usage error or when the broker could not be reached (the report says which
    /// lines were published).
    #[cfg(feature = "bus")]
    Publish(Box<crate::bus::PublishArgs>),
    /// Consume events from the bus with a durable consumer, printing one JSON line per outcome.
    ///
    /// Each message is read as a CloudEvent, decoded and checked as `validate` checks it: a valid event
    /// is handled (reported, then acknowledged); one that cannot be decoded or is invalid is
    /// dead-lettered at once with its error kind and path; after --max-deliver deliveries without
    /// success a message is dead-lettered. Lines: {"id","event_type","version","outcome","subject",
    /// "sequence","attempt","error"?}; outcomes handled, retried, dead_lettered, unknown, skipped,
    /// handed_back. Processes using the same --durable share the events. Stops on Ctrl-C or SIGTERM
    /// (finishing and settling what it holds within --shutdown-timeout, handing back the rest), or
    /// with --idle-exit; then prints one summary line on standard error (counts per outcome, lag).
    /// With --metrics, serves Prometheus figures and a health check. Exit status 0; 2 for usage,
    /// connection and permission errors.
    #[cfg(feature = "bus")]
    Consume(Box<crate::bus::ConsumeArgs>),
    /// Dead letters: list them, show one, publish them again once they can be handled.
    #[cfg(feature = "bus")]
    #[command(subcommand)]
    Dlq(Box<crate::bus::DlqCommand>),
    /// Write the events stored on the bus as newline-delimited envelopes (the format `validate` and
    /// `publish` read), in stream order, until caught up (or, with --follow, until interrupted).
    ///
    /// Publishing the file again reproduces the events byte for byte: payloads, ids, times, sources and
    /// the other attributes and headers.
    #[cfg(feature = "bus")]
    Capture(Box<crate::bus::CaptureArgs>),
}

/// Arguments of `energy events validate`.
#[derive(Args)]
pub(crate) struct ValidateArgs {
    /// The stream to check; `-` or nothing reads standard input.
    #[arg(value_name = "FILE|-")]
    file: Option<PathBuf>,
    /// Also report payload fields the catalogue does not list (`unknown_field`).
    #[arg(long)]
    strict: bool,
    /// Accept event types and versions the catalogue does not know, instead of reporting them.
    #[arg(long)]
    allow_unknown: bool,
    /// Longest line decoded, in bytes; a longer line is reported as `bad_envelope` without being read whole.
    /// (1 to 1073741824.)
    #[arg(long, value_name = "BYTES", default_value_t = DEFAULT_MAX_LINE_BYTES as u64,
          value_parser = clap::value_parser!(u64).range(1..=MAX_LINE_LIMIT))]
    max_line_bytes: u64,
    /// Exit 1 when the input holds no event at all (empty, or blank lines only), so that an empty
    /// upstream does not pass as valid; without it, empty input exits 0.
    #[arg(long)]
    fail_if_empty: bool,
}

/// The largest `--max-line-bytes`: 1 GiB (a line is read into memory whole to be decoded).
const MAX_LINE_LIMIT: u64 = 1 << 30;

/// Runs a subcommand of `energy events`.
pub(crate) fn run(command: EventsCommand) -> ExitCode {
    match command {
        EventsCommand::Validate(args) => validate(&args),
        #[cfg(feature = "bus")]
        EventsCommand::Publish(args) => crate::bus::publish(*args),
        #[cfg(feature = "bus")]
        EventsCommand::Consume(args) => crate::bus::consume(*args),
        #[cfg(feature = "bus")]
        EventsCommand::Dlq(command) => crate::bus::dlq(*command),
        #[cfg(feature = "bus")]
        EventsCommand::Capture(args) => crate::bus::capture(*args),
    }
}

/// One line of the report.
#[derive(Serialize)]
pub(crate) struct Report<'a> {
    line: u64,
    ok: bool,
    event_type: Option<&'a str>,
    version: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<ErrorReport<'a>>,
}

#[derive(Serialize)]
struct ErrorReport<'a> {
    kind: &'static str,
    path: &'a str,
    message: &'a str,
    /// 1-based byte column of the fault in the line, when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    column: Option<usize>,
}

impl<'a> Report<'a> {
    fn valid(line: u64, checked: &'a Checked<'_>) -> Self {
        Report {
            line,
            ok: true,
            event_type: Some(checked.event_type()),
            version: Some(checked.version()),
            error: None,
        }
    }

    pub(crate) fn invalid(line: u64, error: &'a EventError) -> Self {
        Report {
            line,
            ok: false,
            event_type: error.event_type.as_deref(),
            version: error.version.as_deref(),
            error: Some(ErrorReport {
                kind: error.kind.as_str(),
                path: &error.path,
                message: &error.message,
                column: error.offset.map(|offset| offset + 1),
            }),
        }
    }
}

/// Counts for the summary line.
#[derive(Default)]
struct Summary {
    valid: u64,
    unknown_accepted: u64,
    blank: u64,
    failed: [u64; ErrorKind::ALL.len()],
}

impl Summary {
    fn failed_total(&self) -> u64 {
        self.failed.iter().sum()
    }

    fn count_failure(&mut self, kind: ErrorKind) {
        if let Some(i) = ErrorKind::ALL.iter().position(|k| *k == kind) {
            self.failed[i] += 1;
        }
    }

    fn line(&self) -> String {
        let failed = self.failed_total();
        let checked = self.valid + failed;
        let mut text = format!(
            "energy events validate: {checked} {} checked: {} valid",
            if checked == 1 { "event" } else { "events" },
            self.valid
        );
        if self.unknown_accepted > 0 {
            let _ = write!(
                text,
                " ({} of unknown type or version)",
                self.unknown_accepted
            );
        }
        let _ = write!(text, ", {failed} invalid");
        let kinds: Vec<String> = ErrorKind::ALL
            .iter()
            .zip(self.failed)
            .filter(|(_, n)| *n > 0)
            .map(|(kind, n)| format!("{kind} {n}"))
            .collect();
        if !kinds.is_empty() {
            let _ = write!(text, " ({})", kinds.join(", "));
        }
        match self.blank {
            0 => {}
            1 => text.push_str("; 1 blank line skipped"),
            n => {
                let _ = write!(text, "; {n} blank lines skipped");
            }
        }
        text
    }
}

fn validate(args: &ValidateArgs) -> ExitCode {
    let (name, input): (String, Box<dyn BufRead>) = match &args.file {
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
        _ => ("standard input".to_owned(), Box::new(io::stdin().lock())),
    };
    let decoder = Decoder::new()
        .strict(args.strict)
        .reject_unknown(!args.allow_unknown);
    // At most MAX_LINE_LIMIT, so it fits in a usize on every platform this builds for.
    let max_line_bytes = usize::try_from(args.max_line_bytes).unwrap_or(usize::MAX);
    let mut lines = LineReader::new(input, max_line_bytes);
    let mut out = BufWriter::new(io::stdout().lock());
    let mut summary = Summary::default();
    loop {
        let (number, line) = match lines.next_line() {
            Ok(Some(next)) => next,
            Ok(None) => break,
            Err(e) => {
                let _ = out.flush();
                eprintln!("error: cannot read {name}: {e}");
                return Exit::Usage.into();
            }
        };
        let written = match line {
            Line::Complete(bytes) if bytes.iter().all(u8::is_ascii_whitespace) => {
                summary.blank += 1;
                continue;
            }
            Line::Complete(bytes) => match decoder.validate(bytes) {
                Ok(checked) => {
                    summary.valid += 1;
                    if matches!(checked, Checked::Unknown { .. }) {
                        summary.unknown_accepted += 1;
                    }
                    write_report(&mut out, &Report::valid(number, &checked))
                }
                Err(error) => {
                    summary.count_failure(error.kind);
                    write_report(&mut out, &Report::invalid(number, &error))
                }
            },
            Line::TooLong { length } => {
                let error = too_long(length, max_line_bytes);
                summary.count_failure(error.kind);
                write_report(&mut out, &Report::invalid(number, &error))
            }
        };
        if let Err(e) = written {
            return crate::output_failed(&e);
        }
    }
    if let Err(e) = out.flush() {
        return crate::output_failed(&e);
    }
    eprintln!("{}", summary.line());
    let empty = summary.valid + summary.failed_total() == 0;
    if empty && args.fail_if_empty {
        eprintln!("error: no event in {name} (--fail-if-empty)");
        return Exit::Failure.into();
    }
    if summary.failed_total() == 0 {
        Exit::Success.into()
    } else {
        Exit::Failure.into()
    }
}

/// The error reported for a line over the limit.
pub(crate) fn too_long(length: u64, limit: usize) -> EventError {
    EventError::new(
        ErrorKind::BadEnvelope,
        "",
        format!(
            "line of {length} bytes is longer than the limit of {limit} bytes (--max-line-bytes); not decoded"
        ),
    )
}

pub(crate) fn write_report(out: &mut impl Write, report: &Report<'_>) -> io::Result<()> {
    serde_json::to_writer(&mut *out, report).map_err(io::Error::from)?;
    out.write_all(b"\n")
}
