//! The bus as a source of `energy events drift`: a durable consumer's dead letters (`--dlq`), or the
//! events stream read without consuming it (`--from-bus`, `--since`), each message turned into a line
//! of the file format as `energy events capture` writes it, then counted like a file's.

use super::Inputs;
use crate::bus::{Connection, block_on, connect, failed, filters, parse_time};
use crate::exit::Exit;
use clap::Args;
use energy_runtime::bus::lines::line_of;
use energy_runtime::bus::{CaptureRange, Start};
use energy_runtime::drift::Drift;
use std::process::ExitCode;

/// Where on the bus `energy events drift` reads.
#[derive(Args)]
pub(crate) struct BusSource {
    /// Read the dead letters of this durable consumer (`energy_dead_letters.<DURABLE>`) instead of
    /// files: what it could not handle, and why producers sent it.
    #[arg(long, value_name = "DURABLE", conflicts_with = "from_bus")]
    dlq: Option<String>,
    /// Read the events stream on the bus instead of files, without consuming it (as `capture`
    /// does), until caught up.
    #[arg(long)]
    from_bus: bool,
    /// With --from-bus: start at this time (RFC 3339), or this long ago (`1h`); else from the start.
    #[arg(long, value_name = "TIME", value_parser = parse_time, requires = "from_bus")]
    since: Option<jiff::Timestamp>,
    /// With --from-bus: only events on this subject; repeat for several.
    #[arg(long, value_name = "SUBJECT", requires = "from_bus")]
    filter: Vec<String>,
    /// With --from-bus: only events of this catalogue section; repeat for several.
    #[arg(long, value_name = "NAME", requires = "from_bus")]
    section: Vec<String>,
    #[command(flatten)]
    connection: Connection,
}

impl BusSource {
    /// Whether a bus source was asked for.
    pub(crate) fn is_used(&self) -> bool {
        self.dlq.is_some() || self.from_bus
    }
}

/// Reads the bus source into `drift`; each message's number is its sequence in its stream.
pub(crate) fn read(
    source: &BusSource,
    drift: &mut Drift,
    inputs: &mut Inputs,
) -> Result<(), ExitCode> {
    let code = block_on(async {
        let bus = match connect(&source.connection, "events drift").await {
            Ok(bus) => bus,
            Err(code) => return code,
        };
        if let Some(durable) = &source.dlq {
            if let Some(problem) = energy_runtime::bus::durable_name_error(durable) {
                eprintln!("error: --dlq: {problem}");
                return Exit::Usage.into();
            }
            let subject = bus.subjects().dead_letters_of(durable);
            let read = bus
                .each_dead_letter(Some(&subject), &mut |letter| {
                    let (line, _) = line_of(&letter.headers, &letter.payload);
                    drift.observe_line(letter.sequence, line.as_bytes());
                })
                .await;
            if let Err(e) = read {
                return failed(&e);
            }
            inputs.unit = Some("dead letter".to_owned());
            return Exit::Success.into();
        }
        let filters = match filters(bus.subjects(), &source.filter, &source.section) {
            Ok(filters) => filters,
            Err(e) => {
                eprintln!("error: {e}");
                return Exit::Usage.into();
            }
        };
        let range = CaptureRange {
            filters,
            start: source.since.map_or(Start::All, Start::Time),
            follow: false,
            idle_exit: None,
        };
        let read = bus
            .capture(
                &range,
                &mut |message| {
                    let (line, _) = line_of(&message.headers, &message.payload);
                    drift.observe_line(message.sequence, line.as_bytes());
                    Ok(())
                },
                Box::pin(std::future::pending()),
            )
            .await;
        inputs.unit = Some("sequence".to_owned());
        match read {
            Ok(_) => Exit::Success.into(),
            Err(e) => failed(&e),
        }
    });
    if code == ExitCode::from(Exit::Success) {
        Ok(())
    } else {
        Err(code)
    }
}
