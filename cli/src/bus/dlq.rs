//! `energy events dlq list|show|republish`.

use super::connection::{Connection, connect};
use super::shared::{CauseReport, block_on, failed, write_json};
use crate::exit::Exit;
use clap::{Args, Subcommand};
use energy_runtime::bus::DeadLetter;
use energy_runtime::bus::lines::line_of;
use serde::Serialize;
use std::io::{self, BufWriter, Write};
use std::process::ExitCode;

/// `energy events dlq …`.
#[derive(Subcommand)]
pub(crate) enum DlqCommand {
    /// List the dead letters, one JSON object per line: sequence, where from, why (kind, path, message).
    List(DlqListArgs),
    /// Show one dead letter with its original message (as a line of the file format).
    Show(DlqShowArgs),
    /// Publish dead letters again to their original subjects, once they pass the publisher's checks,
    /// and remove them; one still invalid stays. Exit 1 if any could not be published.
    Republish(DlqRepublishArgs),
}

/// Arguments of `energy events dlq list`.
#[derive(Args)]
pub(crate) struct DlqListArgs {
    #[command(flatten)]
    connection: Connection,
    /// Only dead letters on this subject (`energy_dead_letters.billing-service`).
    #[arg(long, value_name = "SUBJECT")]
    subject: Option<String>,
}

/// Arguments of `energy events dlq show`.
#[derive(Args)]
pub(crate) struct DlqShowArgs {
    #[command(flatten)]
    connection: Connection,
    /// The dead letter's sequence (as `list` shows it).
    sequence: u64,
}

/// Arguments of `energy events dlq republish`.
#[derive(Args)]
pub(crate) struct DlqRepublishArgs {
    #[command(flatten)]
    connection: Connection,
    /// The dead letters' sequences.
    #[arg(required_unless_present = "all")]
    sequences: Vec<u64>,
    /// Every dead letter (of `--subject`, when given).
    #[arg(long, conflicts_with = "sequences")]
    all: bool,
    /// With `--all`: only dead letters on this subject.
    #[arg(long, value_name = "SUBJECT", requires = "all")]
    subject: Option<String>,
}

#[derive(Serialize)]
struct DeadLetterReport<'a> {
    sequence: u64,
    dead_letter_subject: &'a str,
    consumer: &'a str,
    deliveries: u64,
    time: &'a str,
    subject: &'a str,
    stream_sequence: u64,
    id: Option<String>,
    event_type: Option<String>,
    version: Option<String>,
    error: CauseReport<'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    message: Option<Box<serde_json::value::RawValue>>,
}

fn dead_letter_report(letter: &DeadLetter, with_message: bool) -> DeadLetterReport<'_> {
    let (event_type, version, id) = letter.event();
    let message = with_message.then(|| {
        let (line, _) = line_of(&letter.headers, &letter.payload);
        serde_json::value::RawValue::from_string(line).ok()
    });
    DeadLetterReport {
        sequence: letter.sequence,
        dead_letter_subject: &letter.dead_letter_subject,
        consumer: &letter.consumer,
        deliveries: letter.deliveries,
        time: &letter.time,
        subject: &letter.subject,
        stream_sequence: letter.stream_sequence,
        id,
        event_type,
        version,
        error: CauseReport {
            kind: &letter.cause.kind,
            path: &letter.cause.path,
            message: &letter.cause.message,
        },
        message: message.flatten(),
    }
}

/// Runs `energy events dlq …`.
pub(crate) fn run(command: DlqCommand) -> ExitCode {
    block_on(async move {
        match command {
            DlqCommand::List(args) => {
                let bus = match connect(&args.connection, "events dlq").await {
                    Ok(bus) => bus,
                    Err(code) => return code,
                };
                let letters = match bus.dead_letters(args.subject.as_deref()).await {
                    Ok(letters) => letters,
                    Err(e) => return failed(&e),
                };
                let mut out = BufWriter::new(io::stdout().lock());
                for letter in &letters {
                    if let Err(e) = write_json(&mut out, &dead_letter_report(letter, false)) {
                        return crate::exit::output_failed(&e);
                    }
                }
                if let Err(e) = out.flush() {
                    return crate::exit::output_failed(&e);
                }
                eprintln!(
                    "energy events dlq list: {} dead letter{}",
                    letters.len(),
                    if letters.len() == 1 { "" } else { "s" }
                );
                Exit::Success.into()
            }
            DlqCommand::Show(args) => {
                let bus = match connect(&args.connection, "events dlq").await {
                    Ok(bus) => bus,
                    Err(code) => return code,
                };
                match bus.dead_letter(args.sequence).await {
                    Ok(letter) => {
                        let mut out = io::stdout().lock();
                        match write_json(&mut out, &dead_letter_report(&letter, true)) {
                            Ok(()) => Exit::Success.into(),
                            Err(e) => crate::exit::output_failed(&e),
                        }
                    }
                    Err(e) => failed(&e),
                }
            }
            DlqCommand::Republish(args) => republish(args).await,
        }
    })
}

async fn republish(args: DlqRepublishArgs) -> ExitCode {
    let bus = match connect(&args.connection, "events dlq").await {
        Ok(bus) => bus,
        Err(code) => return code,
    };
    let sequences = if args.all {
        match bus.dead_letters(args.subject.as_deref()).await {
            Ok(letters) => letters.iter().map(|l| l.sequence).collect(),
            Err(e) => return failed(&e),
        }
    } else {
        args.sequences.clone()
    };
    let mut out = io::stdout().lock();
    let mut failures = 0;
    for sequence in sequences {
        let line = match bus.republish_dead_letter(sequence).await {
            Ok(receipt) => serde_json::json!({"sequence": sequence, "ok": true,
                "stream_sequence": receipt.sequence, "duplicate": receipt.duplicate}),
            Err(e) => {
                failures += 1;
                serde_json::json!({"sequence": sequence, "ok": false, "error": e.to_string()})
            }
        };
        if let Err(e) = writeln!(out, "{line}") {
            return crate::exit::output_failed(&e);
        }
    }
    if failures > 0 {
        eprintln!("energy events dlq republish: {failures} not published (they stay dead letters)");
        return Exit::Failure.into();
    }
    Exit::Success.into()
}
