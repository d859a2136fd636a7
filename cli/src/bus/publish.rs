//! `energy events publish`.

use super::connection::{Connection, connect};
use super::shared::{block_on, failed, write_json};
use crate::exit::Exit;
use crate::report::{Report, too_long, write_report};
use clap::{Args, ValueEnum};
use energy_runtime::bus::content::ContentMode;
use energy_runtime::bus::lines::draft_from_line;
use energy_runtime::bus::transport::Sink;
use energy_runtime::bus::{PublishError, Publisher};
use energy_runtime::events::{DEFAULT_MAX_LINE_BYTES, ErrorKind, EventError, Line, LineReader};
use futures_util::StreamExt;
use serde::Serialize;
use std::fs::File;
use std::io::{self, BufRead, BufReader, BufWriter, IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

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

#[derive(Clone, Copy, ValueEnum)]
enum ModeArg {
    Binary,
    Structured,
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
pub(crate) fn run(args: PublishArgs) -> ExitCode {
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
    if let Err(e) = bus.check_ready().await {
        return failed(&e);
    }
    publish_with(bus.publisher(), bus.system(), args, name, input).await
}

async fn publish_with<S: Sink>(
    publisher: Publisher<S>,
    system: &'static str,
    args: PublishArgs,
    name: String,
    input: Box<dyn BufRead + Send>,
) -> ExitCode {
    let publisher = publisher
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
        messaging.system = system,
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
        return crate::exit::output_failed(&e);
    }
    if let Err(e) = state.out.flush() {
        return crate::exit::output_failed(&e);
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
