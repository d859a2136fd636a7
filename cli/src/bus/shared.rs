//! What the bus commands share: their runtime, the stop signal, their errors' exit statuses, the
//! parsers of their durations and times, the subject filters of `--filter` and `--section`, and JSON
//! lines.

use crate::exit::Exit;
use energy_runtime::bus::{BusError, Subjects};
use serde::Serialize;
use std::io::{self, Write};
use std::process::ExitCode;
use std::time::Duration;

/// A duration: whole seconds (`30`), or with units (`500ms`, `2m`, `1h 30m`, `30d`).
pub(super) fn parse_duration(text: &str) -> Result<Duration, String> {
    let text = text.trim();
    if let Ok(seconds) = text.parse::<u64>() {
        return Ok(Duration::from_secs(seconds));
    }
    let signed = text
        .parse::<jiff::SignedDuration>()
        .or_else(|_| {
            text.parse::<jiff::Span>()
                .and_then(|span| span.to_duration(jiff::SpanRelativeTo::days_are_24_hours()))
        })
        .map_err(|_| format!("`{text}` is not a duration (such as 30, 500ms, 2m, 1h30m, 30d)"))?;
    Duration::try_from(signed).map_err(|_| format!("`{text}` is negative"))
}

/// A time: RFC 3339 (`2024-03-01T09:30:00Z`), or a duration before now (`1h`).
pub(crate) fn parse_time(text: &str) -> Result<jiff::Timestamp, String> {
    if let Ok(time) = text.parse::<jiff::Timestamp>() {
        return Ok(time);
    }
    let ago = parse_duration(text).map_err(|_| {
        format!(
            "`{text}` is neither an RFC 3339 time (2024-03-01T09:30:00Z) nor a duration ago (1h)"
        )
    })?;
    let ago = jiff::SignedDuration::try_from(ago).map_err(|e| e.to_string())?;
    jiff::Timestamp::now()
        .checked_sub(ago)
        .map_err(|_| format!("`{text}` ago is before the earliest time"))
}

/// Runs `work` on a runtime of its own (the rest of `energy` is synchronous).
pub(crate) fn block_on<F: std::future::Future<Output = ExitCode>>(work: F) -> ExitCode {
    match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => {
            let code = runtime.block_on(work);
            // A blocking call still waiting on a broker that is gone (a Kafka client's close) must
            // not hold the process: dropping a runtime waits for such calls without end.
            runtime.shutdown_timeout(std::time::Duration::from_secs(5));
            code
        }
        Err(e) => {
            eprintln!("error: cannot start the async runtime: {e}");
            Exit::Usage.into()
        }
    }
}

/// A bus error as the exit status says: a refusal or an invalid request 1, an unreachable or failing
/// broker 2.
pub(crate) fn failed(error: &BusError) -> ExitCode {
    eprintln!("error: {error}");
    match error {
        BusError::Refused { .. } => Exit::Failure.into(),
        _ => Exit::Usage.into(),
    }
}

/// The subject filters of `--filter` and `--section`.
pub(crate) fn filters(
    subjects: &Subjects,
    filter: &[String],
    sections: &[String],
) -> Result<Vec<String>, String> {
    let mut all = filter.to_vec();
    for name in sections {
        let Some(section) = subjects.section(name) else {
            let known: Vec<&str> = Subjects::section_names().collect();
            return Err(format!(
                "--section: `{name}` is not a catalogue section (sections: {})",
                known.join(", ")
            ));
        };
        all.extend(section);
    }
    Ok(all)
}

pub(super) fn write_json(out: &mut impl Write, value: &impl Serialize) -> io::Result<()> {
    serde_json::to_writer(&mut *out, value).map_err(io::Error::from)?;
    out.write_all(b"\n")
}

#[derive(Serialize)]
/// Why a message was not handled, in a JSON line.
pub(super) struct CauseReport<'a> {
    pub kind: &'a str,
    pub path: &'a str,
    pub message: &'a str,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_take_seconds_and_units() {
        assert_eq!(parse_duration("30"), Ok(Duration::from_secs(30)));
        assert_eq!(parse_duration("500ms"), Ok(Duration::from_millis(500)));
        assert_eq!(parse_duration("2m"), Ok(Duration::from_secs(120)));
        assert_eq!(parse_duration("1h30m"), Ok(Duration::from_secs(5400)));
        assert_eq!(parse_duration("30d"), Ok(Duration::from_secs(30 * 86_400)));
        assert!(parse_duration("soon").is_err());
        assert!(parse_duration("-5s").is_err());
    }

    #[test]
    fn times_take_rfc_3339_or_a_duration_ago() {
        assert_eq!(
            parse_time("2024-03-01T09:30:00Z").unwrap().to_string(),
            "2024-03-01T09:30:00Z"
        );
        let hour_ago = parse_time("1h").unwrap();
        let expected = jiff::Timestamp::now() - jiff::SignedDuration::from_hours(1);
        assert!((hour_ago - expected).get_seconds().abs() < 5);
        assert!(parse_time("yesterday").is_err());
    }
}
