//! Why an event could not be decoded: which event, which field (as a JSON path), and what was wrong.

use energy_api::{PayloadError, PayloadErrorKind};
use energy_api_core::json::byte_offset;
use std::fmt;

/// What was wrong with an event.
///
/// Mapping of the cases that are not obvious (see `docs/events-runtime.md`):
/// - a key repeated in one object (envelope, metadata or payload) is `MalformedJson`: the platform's JSON
///   is I-JSON (RFC 7493), where names must be unique, and a reader cannot know which value was meant;
/// - nesting deeper than 128 levels, a number beyond `f64`, invalid UTF-8 and input cut short are
///   `MalformedJson`;
/// - an integer beyond `i64` (or a fraction) where an integer belongs is `InvalidType`: the value is not
///   of the field's type;
/// - a line longer than the reader's limit is `BadEnvelope`: it is not decoded at all.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    /// Not JSON, cut short, invalid UTF-8, a repeated key, or nested too deep.
    MalformedJson,
    /// JSON, but not an envelope: not an object, or the type, version or payload is missing or not a string.
    BadEnvelope,
    /// The event type is not in the catalogue.
    UnknownEventType,
    /// The event type is known, its version is not.
    UnknownVersion,
    /// A required payload field is absent.
    MissingField,
    /// A payload value has the wrong type (or is out of its type's range).
    InvalidType,
    /// A payload field the schema does not list (strict mode only).
    UnknownField,
}

impl ErrorKind {
    /// Every kind, in the order of the list above.
    pub const ALL: [ErrorKind; 7] = [
        ErrorKind::MalformedJson,
        ErrorKind::BadEnvelope,
        ErrorKind::UnknownEventType,
        ErrorKind::UnknownVersion,
        ErrorKind::MissingField,
        ErrorKind::InvalidType,
        ErrorKind::UnknownField,
    ];

    /// The kind's name in reports: `malformed_json`, `bad_envelope`, ….
    pub const fn as_str(self) -> &'static str {
        match self {
            ErrorKind::MalformedJson => "malformed_json",
            ErrorKind::BadEnvelope => "bad_envelope",
            ErrorKind::UnknownEventType => "unknown_event_type",
            ErrorKind::UnknownVersion => "unknown_version",
            ErrorKind::MissingField => "missing_field",
            ErrorKind::InvalidType => "invalid_type",
            ErrorKind::UnknownField => "unknown_field",
        }
    }
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// An event that could not be decoded: [`EventErrorDetails`] behind a box, so that results stay small
/// on the path where nothing is wrong. Its fields read through it (`error.kind`, `error.path`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EventError(Box<EventErrorDetails>);

/// What an [`EventError`] says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EventErrorDetails {
    /// What was wrong.
    pub kind: ErrorKind,
    /// The event type, when it could be read.
    pub event_type: Option<String>,
    /// The payload version, when it could be read.
    pub version: Option<String>,
    /// JSON path of the field at fault, from the envelope: `payload.ledger.account.number`,
    /// `payload.supply_points[0].market_name`, `event_type`; empty for the envelope as a whole.
    pub path: String,
    /// What was wrong, in words.
    pub message: String,
    /// Byte offset (0-based) in the decoded input (the envelope, or the payload when decoding from parts)
    /// where the fault was found, when known.
    pub offset: Option<usize>,
    /// Line of the input stream (1-based), when the event came from one.
    pub line: Option<u64>,
}

impl std::ops::Deref for EventError {
    type Target = EventErrorDetails;
    fn deref(&self) -> &EventErrorDetails {
        &self.0
    }
}

impl From<EventErrorDetails> for EventError {
    fn from(details: EventErrorDetails) -> Self {
        EventError(Box::new(details))
    }
}

impl EventError {
    /// An error about the event as a whole, or about the field at `path`.
    pub fn new(kind: ErrorKind, path: impl Into<String>, message: impl Into<String>) -> Self {
        EventErrorDetails {
            kind,
            event_type: None,
            version: None,
            path: path.into(),
            message: message.into(),
            offset: None,
            line: None,
        }
        .into()
    }

    /// What the error says.
    pub fn into_details(self) -> EventErrorDetails {
        *self.0
    }

    /// The same error, located on `line` of a stream.
    pub fn at_line(mut self, line: u64) -> Self {
        self.0.line = Some(line);
        self
    }

    /// The same error, found at byte `offset` of the input.
    pub(crate) fn at_offset(mut self, offset: Option<usize>) -> Self {
        self.0.offset = offset;
        self
    }

    /// The same error, about this event type and version.
    pub(crate) fn of(mut self, event_type: Option<&str>, version: Option<&str>) -> Self {
        self.0.event_type = event_type.map(str::to_owned);
        self.0.version = version.map(str::to_owned);
        self
    }

    /// An error of a payload, as located by the generated crate, with `payload_field` as the path's root
    /// and `base_offset` as the payload's offset in the input.
    pub(crate) fn from_payload(
        error: PayloadError,
        payload_field: &str,
        payload: &str,
        base_offset: usize,
    ) -> Self {
        let kind = match error.kind {
            PayloadErrorKind::Syntax | PayloadErrorKind::DuplicateField => ErrorKind::MalformedJson,
            PayloadErrorKind::MissingField => ErrorKind::MissingField,
            PayloadErrorKind::UnknownField => ErrorKind::UnknownField,
            // Out of range (an integer beyond i64), and whatever a later generator adds: the value does
            // not fit the field's type.
            _ => ErrorKind::InvalidType,
        };
        // The generated crate's path names the bad field itself (a missing or repeated one too).
        let path = if error.path.is_empty() {
            payload_field.to_owned()
        } else {
            format!("{payload_field}.{}", error.path)
        };

        EventErrorDetails {
            kind,
            event_type: Some(error.event_type.as_str().to_owned()),
            version: Some(error.version.to_owned()),
            path,
            message: error.message,
            offset: byte_offset(payload.as_bytes(), error.line, error.column)
                .map(|o| base_offset + o),
            line: None,
        }
        .into()
    }
}

impl fmt::Display for EventError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(line) = self.line {
            write!(f, "line {line}: ")?;
        }
        match (&self.event_type, &self.version) {
            (Some(t), Some(v)) => write!(f, "event `{t}` {v}")?,
            (Some(t), None) => write!(f, "event `{t}`")?,
            _ => f.write_str("event")?,
        }
        if !self.path.is_empty() {
            write!(f, ", at `{}`", self.path)?;
        }
        write!(f, ": {}", self.message)?;
        if let Some(offset) = self.offset {
            write!(f, " (byte {offset})")?;
        }
        Ok(())
    }
}

impl std::error::Error for EventError {}
