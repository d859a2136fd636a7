//! `energy bus init`.

use super::connection::{Connection, connect};
use super::shared::{block_on, failed, parse_duration};
use crate::exit::Exit;
use clap::{Args, ValueEnum};
use energy_runtime::bus::{Retention, SetUp, Storage};
use std::process::ExitCode;
use std::time::Duration;

/// Arguments of `energy bus init`.
#[derive(Args)]
pub(crate) struct InitArgs {
    #[command(flatten)]
    connection: Connection,
    /// Kafka: partitions of each section's topic (partitions are only ever added).
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u16).range(1..=1000))]
    partitions: u16,
    /// NATS: where events are kept.
    #[arg(long, value_enum, default_value_t = StorageArg::File)]
    storage: StorageArg,
    /// NATS: when stored events are removed: `limits` keeps them whoever consumed them (replays work),
    /// `interest` removes them once every consumer acknowledged them, `workqueue` once one did.
    #[arg(long, value_enum, default_value_t = RetentionArg::Limits)]
    retention: RetentionArg,
    /// Copies on different servers of a cluster (1 to 5): the stream's replicas, each topic's
    /// replication factor.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u8).range(1..=5))]
    replicas: u8,
    /// Remove events older than this (`30d`, `720h`); kept for ever when not given.
    #[arg(long, value_name = "DURATION", value_parser = parse_duration)]
    max_age: Option<Duration>,
    /// NATS: how long event ids are remembered to drop a duplicate (`2m`).
    #[arg(long, value_name = "DURATION", default_value = "2m", value_parser = parse_duration)]
    duplicate_window: Duration,
}

#[derive(Clone, Copy, ValueEnum)]
enum StorageArg {
    File,
    Memory,
}

#[derive(Clone, Copy, ValueEnum)]
enum RetentionArg {
    Limits,
    Interest,
    Workqueue,
}

/// Runs `energy bus init`.
pub(crate) fn run(args: InitArgs) -> ExitCode {
    block_on(init(args))
}

async fn init(args: InitArgs) -> ExitCode {
    let bus = match connect(&args.connection, "bus init").await {
        Ok(bus) => bus,
        Err(code) => return code,
    };
    let settings = SetUp {
        storage: match args.storage {
            StorageArg::File => Storage::File,
            StorageArg::Memory => Storage::Memory,
        },
        retention: match args.retention {
            RetentionArg::Limits => Retention::Limits,
            RetentionArg::Interest => Retention::Interest,
            RetentionArg::Workqueue => Retention::WorkQueue,
        },
        replicas: usize::from(args.replicas),
        duplicate_window: args.duplicate_window,
        max_age: args.max_age,
        partitions: i32::from(args.partitions),
    };
    match bus.init(&settings).await {
        Ok(reports) => {
            for report in reports {
                println!("{report}");
            }
            Exit::Success.into()
        }
        Err(e) => failed(&e),
    }
}
