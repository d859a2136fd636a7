//! `energy`: the command-line tool of the energy supply platform's interface.
#![forbid(unsafe_code)]

use std::process::ExitCode;

use clap::{Parser, Subcommand};

#[cfg(feature = "blocking")]
mod rest;

/// The energy supply platform's interface from the command line.
#[derive(Parser)]
#[command(name = "energy", version)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    #[cfg(feature = "blocking")]
    #[command(flatten)]
    Rest(rest::Command),
}

fn main() -> ExitCode {
    match Cli::parse().command {
        #[cfg(feature = "blocking")]
        Command::Rest(command) => rest::run(command),
    }
}
