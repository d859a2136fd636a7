//! Writes a newline-delimited stream of event envelopes to standard output, cycling through every event
//! version of the schema with realistic sample payloads (optional fields present, then absent), for
//! measuring `energy events validate` on large inputs.
//!
//! `cargo run --release -p energy-tests --example event_stream -- LINES [--payload-first] [EVENT_TYPE…]`
//!
//! Envelopes put `event_type` and `version` first, as a producer usually does; `--payload-first` puts the
//! payload first (the decoder then buffers it).
#![forbid(unsafe_code)]

use energy_codegen::samples::{Optionals, event_payload};
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
                let head = format!(
                    r#""event_type":{},"version":{},"id":"evt-{:06}","occurred_at":"2024-03-01T09:30:00Z""#,
                    json!(event.name),
                    json!(version.label),
                    envelopes.len() + 1
                );
                let payload = format!(r#""payload":{}"#, event_payload(&model, version, optionals));
                envelopes.push(if payload_first {
                    format!("{{{payload},{head}}}")
                } else {
                    format!("{{{head},{payload}}}")
                });
            }
        }
    }
    if envelopes.is_empty() {
        eprintln!("no such event type");
        return ExitCode::from(2);
    }
    let mut out = BufWriter::new(std::io::stdout().lock());
    for line in envelopes
        .iter()
        .cycle()
        .take(lines.try_into().unwrap_or(usize::MAX))
    {
        if writeln!(out, "{line}").is_err() {
            return ExitCode::FAILURE;
        }
    }
    if out.flush().is_err() {
        return ExitCode::FAILURE;
    }
    ExitCode::SUCCESS
}
