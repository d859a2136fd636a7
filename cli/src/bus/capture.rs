//! `energy events capture`.

use super::connection::{Connection, connect};
use super::shared::{block_on, failed, filters, parse_time};
use crate::exit::Exit;
use crate::stop::interrupted;
use clap::Args;
use energy_runtime::bus::lines::line_of;
use energy_runtime::bus::{CaptureRange, Start};
use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

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

/// Runs `energy events capture`.
pub(crate) fn run(args: CaptureArgs) -> ExitCode {
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
    let mut out: Box<dyn Write + Send> = match &args.output {
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
            &mut |message| {
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
            Box::pin(interrupted()),
        )
        .await;
    if let Some(e) = write_error {
        return crate::exit::output_failed(&e);
    }
    if let Err(e) = out.flush() {
        return crate::exit::output_failed(&e);
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
