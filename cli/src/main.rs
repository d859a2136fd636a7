//! `energy`: the command-line tool of the energy supply platform's interface.
//!
//! Exit status (`exit::Exit`): 0 when everything asked for worked and everything checked is fine; 1 when
//! something checked is not, or the API failed; 2 for a usage or I/O error; 141 when standard output
//! was closed before the command was done (`energy … | head`), the status a shell gives a process
//! that SIGPIPE ends.
#![forbid(unsafe_code)]

#[cfg(feature = "bus")]
mod bus;
mod drift;
mod events;
mod exit;
mod logging;
mod report;
mod rest;
#[cfg(feature = "serve")]
mod serve;
#[cfg(any(feature = "bus", feature = "serve"))]
mod stop;
#[cfg(feature = "otlp")]
mod telemetry;
mod validate;

use clap::{Parser, Subcommand};
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
    #[command(flatten)]
    Rest(rest::Command),
    /// Serve the REST API from a data set (JSON files as the API returns them) or from the
    /// documents' examples, by every rule of the spec: for client teams to test against.
    #[cfg(feature = "serve")]
    Serve(serve::ServeArgs),
}

fn main() -> ExitCode {
    // Usage errors exit with status 2 (clap's default), `--help` and `--version` with 0.
    let cli = Cli::parse();
    logging::init();
    // Exports the traces when OTEL_EXPORTER_OTLP_ENDPOINT is set; flushed when the command ends.
    #[cfg(feature = "otlp")]
    let _telemetry = telemetry::init();
    match cli.command {
        Command::Events(command) => events::run(command),
        #[cfg(feature = "bus")]
        Command::Bus(command) => bus::run(command),
        Command::Rest(command) => rest::run(command),
        #[cfg(feature = "serve")]
        Command::Serve(args) => serve::run(args),
    }
}
