//! `energy events …`: checking captured event streams (`validate`) and, with the `bus` feature,
//! publishing, consuming, dead letters and capture (`bus/`).

use clap::Subcommand;
use std::process::ExitCode;

/// Subcommands of `energy events`.
#[derive(Subcommand)]
pub(crate) enum EventsCommand {
    /// Check newline-delimited event envelopes against the catalogue.
    ///
    /// Each line is an envelope `{"event_type": "...", "version": "v1", "payload": {...}}` (other top-level
    /// fields are allowed). Prints one JSON object per line on standard output, saying whether it is valid
    /// and, if not, the error's kind, JSON path and message; blank lines are skipped. A summary goes to
    /// standard error. Exit status: 0 when every line is valid, 1 when any is not (or, with
    /// --fail-if-empty, when there is no event at all), 2 for a usage or I/O error, 141 when standard
    /// output is closed before the end (`| head`).
    Validate(crate::validate::ValidateArgs),
    /// Compare what producers really send with the catalogue, over whole streams.
    ///
    /// Reads streams of event envelopes (the format `validate` reads; `-` for standard input; `.gz`
    /// through gzip), or the bus (a consumer's dead letters with --dlq, the events stream with
    /// --from-bus), and reports per event type, version and JSON path: members the schema does not
    /// have, required fields absent, null where not allowed, wrong types, integers beyond range,
    /// unknown event types and versions, lines that are not events; and, as observations, optional
    /// fields never sent and string fields with few distinct values. --suggest writes schema edits to
    /// review. Exit status: 0 when nothing drifts, 1 when something does, 2 for usage or input errors.
    Drift(Box<crate::drift::DriftArgs>),
    /// Publish newline-delimited event envelopes (the format `validate` reads) to the bus.
    ///
    /// Every line is checked as `validate` checks it; each valid one is published as a CloudEvent
    /// (binary mode) on `<prefix>.<event type>.<version>` and reported with its stream sequence once
    /// the broker has stored it; each invalid one is reported as `validate` reports it (line, kind,
    /// path) and not published. Exit status: 0 when every line was published, 1 when any line was
    /// invalid, 2 for a usage error or when the broker could not be reached (the report says which
    /// lines were published).
    #[cfg(feature = "bus")]
    Publish(Box<crate::bus::PublishArgs>),
    /// Consume events from the bus with a durable consumer, printing one JSON line per outcome.
    ///
    /// Each message is read as a CloudEvent, decoded and checked as `validate` checks it: a valid event
    /// is handled (reported, then acknowledged); one that cannot be decoded or is invalid is
    /// dead-lettered at once with its error kind and path; after --max-deliver deliveries without
    /// success a message is dead-lettered. Lines: {"id","event_type","version","outcome","subject",
    /// "sequence","attempt","error"?}; outcomes handled, retried, dead_lettered, unknown, skipped,
    /// handed_back. Processes using the same --durable share the events. Stops on Ctrl-C or SIGTERM
    /// (finishing and settling what it holds within --shutdown-timeout, handing back the rest), or
    /// with --idle-exit; then prints one summary line on standard error (counts per outcome, lag).
    /// With --metrics, serves Prometheus figures and a health check. Exit status 0; 2 for usage,
    /// connection and permission errors.
    #[cfg(feature = "bus")]
    Consume(Box<crate::bus::ConsumeArgs>),
    /// Dead letters: list them, show one, publish them again once they can be handled.
    #[cfg(feature = "bus")]
    #[command(subcommand)]
    Dlq(Box<crate::bus::DlqCommand>),
    /// Write the events stored on the bus as newline-delimited envelopes (the format `validate` and
    /// `publish` read), in stream order, until caught up (or, with --follow, until interrupted).
    ///
    /// Publishing the file again reproduces the events byte for byte: payloads, ids, times, sources and
    /// the other attributes and headers.
    #[cfg(feature = "bus")]
    Capture(Box<crate::bus::CaptureArgs>),
}

/// Runs `energy events …`.
pub(crate) fn run(command: EventsCommand) -> ExitCode {
    match command {
        EventsCommand::Validate(args) => crate::validate::run(&args),
        EventsCommand::Drift(args) => crate::drift::run(&args),
        #[cfg(feature = "bus")]
        EventsCommand::Publish(args) => crate::bus::publish(*args),
        #[cfg(feature = "bus")]
        EventsCommand::Consume(args) => crate::bus::consume(*args),
        #[cfg(feature = "bus")]
        EventsCommand::Dlq(command) => crate::bus::dlq(*command),
        #[cfg(feature = "bus")]
        EventsCommand::Capture(args) => crate::bus::capture(*args),
    }
}
