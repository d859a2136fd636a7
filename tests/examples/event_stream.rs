//! Writes a newline-delimited stream of event envelopes to standard output, cycling through every event
//! version of the schema with realistic sample payloads (optional fields present, then absent), for
//! measuring `energy events validate` on large inputs.
//!
//! `cargo run --release -p energy-tests --example event_stream -- LINES [--payload-first] [EVENT_TYPE…]`
//!
//! Envelopes put `event_type` and `version` first, as a producer usually does; `--payload-first` puts the
//! payload first (the decoder then buffers it). Every line has an `id` of its own (`evt-000001`, …, by
//! line number): the bus drops an event published again with an id it has seen.
#![forbid(unsafe_code)]

use energy_codegen::{Optionals, event_payload};
use serde_json::json;
use std::io::{BufWriter, Write};
use std::process::ExitCode;

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let Some(Ok(lines)) = args.next().map(|n| n.parse::<u64>()) else {
        eprintln!("usage: event_stream LINES [EVENT_TYPE…]");
        return ExitCode::from(2);
    };
    let (flags, only): (Vec<String>, Vec<String>) = args.partition(|a| a.starts_with("--"));
    let payload_first = flags.iter().any(|f| f == "--payload-first");
    let model = match energy_codegen::build_model(&energy_tests::schema_dir()) {
        Ok(model) => model,
        Err(failure) => {
            eprintln!("{}", failure.render(false));
            return ExitCode::FAILURE;
        }
    };
    let mut envelopes = Vec::new();
    for (_, event) in model.events() {
        if !only.is_empty() && !only.contains(&event.name) {
            continue;
        }
        for version in &event.versions {
            for optionals in [Optionals::All, Optionals::None] {
                // The line is written around its id: (text before the id, text after it).
                let head = format!(
                    r#""event_type":{},"version":{},"id":"evt-"#,
                    json!(event.name),
                    json!(version.label),
                );
                let tail = r#"","occurred_at":"2024-03-01T09:30:00Z""#;
                let payload = format!(r#""payload":{}"#, event_payload(&model, version, optionals));
                envelopes.push(if payload_first {
                    (format!("{{{payload},{head}"), format!("{tail}}}"))
                } else {
                    (format!("{{{head}"), format!("{tail},{payload}}}"))
                });
            }
        }
    }
    if envelopes.is_empty() {
        eprintln!("no such event type");
        return ExitCode::from(2);
    }
    let mut out = BufWriter::new(std::io::stdout().lock());
    let lines = envelopes
        .iter()
        .cycle()
        .take(lines.try_into().unwrap_or(usize::MAX));
    for (number, (before, after)) in (1u64..).zip(lines) {
        if writeln!(out, "{before}{number:06}{after}").is_err() {
            return ExitCode::FAILURE;
        }
    }
    if out.flush().is_err() {
        return ExitCode::FAILURE;
    }
    ExitCode::SUCCESS
}
