//! The JSON line reporting one event line's verdict, as `energy events validate` writes it and `energy
//! events publish` writes it for an invalid line: `{"line", "ok", "event_type", "version", "error": {
//! "kind", "path", "message"}}`.

use energy_runtime::events::{Checked, ErrorKind, EventError};
use serde::Serialize;
use std::io::{self, Write};

#[derive(Serialize)]
pub(crate) struct Report<'a> {
    line: u64,
    ok: bool,
    event_type: Option<&'a str>,
    version: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<ErrorReport<'a>>,
}

#[derive(Serialize)]
struct ErrorReport<'a> {
    kind: &'static str,
    path: &'a str,
    message: &'a str,
    /// 1-based byte column of the fault in the line, when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    column: Option<usize>,
}

impl<'a> Report<'a> {
    pub(crate) fn valid(line: u64, checked: &'a Checked<'_>) -> Self {
        Report {
            line,
            ok: true,
            event_type: Some(checked.event_type()),
            version: Some(checked.version()),
            error: None,
        }
    }

    pub(crate) fn invalid(line: u64, error: &'a EventError) -> Self {
        Report {
            line,
            ok: false,
            event_type: error.event_type.as_deref(),
            version: error.version.as_deref(),
            error: Some(ErrorReport {
                kind: error.kind.as_str(),
                path: &error.path,
                message: &error.message,
                column: error.offset.map(|offset| offset + 1),
            }),
        }
    }
}

/// The error reported for a line over the limit.
pub(crate) fn too_long(length: u64, limit: usize) -> EventError {
    EventError::new(
        ErrorKind::BadEnvelope,
        "",
        format!(
            "line of {length} bytes is longer than the limit of {limit} bytes (--max-line-bytes); not decoded"
        ),
    )
}

pub(crate) fn write_report(out: &mut impl Write, report: &Report<'_>) -> io::Result<()> {
    serde_json::to_writer(&mut *out, report).map_err(io::Error::from)?;
    out.write_all(b"\n")
}
