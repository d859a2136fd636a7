//! `energy`: the command-line tool of the energy supply platform's interface.
//!
//! Exit status ([`Exit`]): 0 when everything asked for worked and everything checked is fine; 1 when
//! something checked is not, or the API failed; 2 for a usage or I/O error; 141 when standard output
//! was closed before the command was done (`energy … | head`), the status a shell gives a process
//! that SIGPIPE ends.
#![forbid(unsafe_code)]

#[cfg(feature = "bus")]
mod bus;
mod events;
#[cfg(feature = "blocking")]
mod rest;
#[cfg(feature = "otlp")]
mod telemetry;

use clap::{Parser, Subcommand};
use std::io;
use std::process::ExitCode;

/// The energy supply platform's interface from the command line: check event streams, publish and
/// consume events on the bus, read products, unit rates and accounts.
#[derive(Parser)]
#[command(name = "energy", version)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Platform events: check captured streams of event envelopes; publish, consume, dead-letter and
    /// capture them on the bus.
    #[command(subcommand)]
    Events(events::EventsCommand),
    /// The event bus (NATS JetStream): set up its streams from the catalogue.
    #[cfg(feature = "bus")]
    #[command(subcommand)]
    Bus(bus::BusCommand),
    #[cfg(feature = "blocking")]
    #[command(flatten)]
    Rest(rest::Command),
}

fn main() -> ExitCode {
    // Usage errors exit with status 2 (clap's default), `--help` and `--version` with 0.
    let cli = Cli::parse();
    // Exports the traces when OTEL_EXPORTER_OTLP_ENDPOINT is set; flushed when the command ends.
    #[cfg(feature = "otlp")]
    let _telemetry = telemetry::init();
    match cli.command {
        Command::Events(command) => events::run(command),
        #[cfg(feature = "bus")]
        Command::Bus(command) => bus::run(command),
        #[cfg(feature = "blocking")]
        Command::Rest(command) => rest::run(command),
    }
}

/// How a command ended: its exit status. The same for every subcommand.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Exit {
    /// 0: everything asked for worked, everything checked is fine.
    Success,
    /// 1: something checked is not fine, or the API failed.
    Failure,
    /// 2: a usage error, or an I/O error (a file that cannot be read, an output that cannot be
    /// written).
    Usage,
    /// 141: standard output was closed before the command was done; nothing more is printed.
    ClosedOutput,
}

impl From<Exit> for ExitCode {
    fn from(exit: Exit) -> Self {
        ExitCode::from(match exit {
            Exit::Success => 0,
            Exit::Failure => 1,
            Exit::Usage => 2,
            Exit::ClosedOutput => 141,
        })
    }
}

/// The end of a command whose output could not be written: quietly 141 when the reader went away
/// (`| head`), else 2 with the error.
pub(crate) fn output_failed(error: &io::Error) -> ExitCode {
    if error.kind() == io::ErrorKind::BrokenPipe {
        return Exit::ClosedOutput.into();
    }
    eprintln!("error: cannot write the output: {error}");
    Exit::Usage.into()
}
