//! `energy`: the command-line tool of the energy supply platform's interface.
//!
//! Exit status: 0 when everything asked for worked and everything checked is fine; 1 when something
//! checked is not, or the API failed; 2 for a usage or I/O error.
#![forbid(unsafe_code)]

mod events;
#[cfg(feature = "blocking")]
mod rest;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

/// The energy supply platform's interface from the command line: check event streams, read products,
/// unit rates and accounts.
#[derive(Parser)]
#[command(name = "energy", version)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Platform events: check captured streams of event envelopes.
    #[command(subcommand)]
    Events(events::EventsCommand),
    #[cfg(feature = "blocking")]
    #[command(flatten)]
    Rest(rest::Command),
}

fn main() -> ExitCode {
    // Usage errors exit with status 2 (clap's default), `--help` and `--version` with 0.
    match Cli::parse().command {
        Command::Events(command) => events::run(command),
        #[cfg(feature = "blocking")]
        Command::Rest(command) => rest::run(command),
    }
}
