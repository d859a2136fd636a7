//! `energy`: the command-line tool of the energy platform's interface.
//!
//! Exit status: 0 when everything checked is fine, 1 when something checked is not, 2 for a usage or I/O
//! error.
#![forbid(unsafe_code)]

mod events;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

/// Tools for the energy supply platform's interface.
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
}

fn main() -> ExitCode {
    // Usage errors exit with status 2 (clap's default), `--help` and `--version` with 0.
    let cli = Cli::parse();
    match cli.command {
        Command::Events(command) => events::run(command),
    }
}
