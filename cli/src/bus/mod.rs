//! The event bus from the command line: `energy bus init`, and `energy events publish`, `consume`, `dlq`
//! and `capture`, one file each; the connection options and what the commands share beside them.

mod capture;
mod connection;
mod consume;
mod dlq;
mod init;
mod publish;
mod shared;

use clap::Subcommand;
use init::InitArgs;
use std::process::ExitCode;

pub(crate) use capture::{CaptureArgs, run as capture};
pub(crate) use connection::{Connection, connect};
pub(crate) use consume::{ConsumeArgs, run as consume};
pub(crate) use dlq::{DlqCommand, run as dlq};
pub(crate) use publish::{PublishArgs, run as publish};
pub(crate) use shared::{block_on, failed, filters, parse_time};

/// `energy bus …`.
#[derive(Subcommand)]
pub(crate) enum BusCommand {
    /// Create or update the streams from the catalogue: the events stream (a subject filter per event
    /// type) and the dead-letter stream. Idempotent; subjects are only added; a change that would lose
    /// stored events (a shorter age limit, a retention that removes consumed events, another storage)
    /// is refused and nothing is changed. Exit status 0, 1 when refused, 2 when the server cannot be
    /// reached or refuses the request.
    Init(InitArgs),
}

/// Runs `energy bus …`.
pub(crate) fn run(command: BusCommand) -> ExitCode {
    match command {
        BusCommand::Init(args) => init::run(args),
    }
}
