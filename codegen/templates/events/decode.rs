//! Decoding payloads by (event type, version), and what can go wrong.
//!
//! This file is the same for every schema; the generator copies it from `codegen/templates/`, where it is
//! compiled and tested against a stand-in catalogue (`codegen/tests/templates.rs`). Its code names the
//! generated `Event` and `EventType`; everything that does not is in `energy_api_core`.

use super::{Event, EventType};
use energy_api_core::json::Fault;
pub use energy_api_core::json::{PayloadErrorKind, json_path_at};
use std::fmt;

impl fmt::Display for EventType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl serde::Serialize for EventType {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

/// A name that is not a known event type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownEventType(pub String);

impl fmt::Display for UnknownEventType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "unknown event type `{}`", self.0)
    }
}

impl std::error::Error for UnknownEventType {}

/// A known (event type, payload version) pair.
///
/// It is a [`DeserializeSeed`](serde::de::DeserializeSeed) of [`Event`], so a payload can be decoded
/// straight from any serde deserializer (from inside an envelope, say) without an intermediate value. It
/// reads as [`EventKind::decode`] does: a payload, and every struct in it, is an object (a map), never
/// an array; the payload types' own `Deserialize` impls also read a struct written as a sequence, as
/// serde's derive does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct EventKind {
    pub(crate) event_type: EventType,
    /// The index of the version in `event_type.versions()`.
    pub(crate) version: u8,
}

impl EventKind {
    /// The pair for `event_type` and `version`, or why there is none.
    pub fn new(event_type: &str, version: &str) -> Result<Self, DecodeError> {
        let parsed: EventType = event_type
            .parse()
            .map_err(|_| DecodeError::UnknownEventType {
                event_type: event_type.to_owned(),
            })?;
        parsed
            .kind(version)
            .ok_or_else(|| DecodeError::UnknownVersion {
                event_type: parsed,
                version: version.to_owned(),
            })
    }

    /// The event type.
    pub fn event_type(self) -> EventType {
        self.event_type
    }

    /// The payload version.
    pub fn version(self) -> &'static str {
        self.event_type.versions()[usize::from(self.version)]
    }

    /// Decodes a JSON payload of this type and version.
    pub fn decode(self, payload: &[u8]) -> Result<Event, DecodeError> {
        let text = self.utf8(payload).map_err(DecodeError::Payload)?;
        // The fast reader first; where it stops, serde decides (the value or the error). Its steps
        // written out here rather than through `Reader::whole` and `read`: the `Event` (hundreds of
        // bytes) is then copied once on its way out instead of three times (3.8 % of decoding).
        let mut reader = energy_api_core::read::Reader::new(text);
        if let Some(read) = self.payload_row().read {
            if let Ok(event) = read(&mut reader)
                && reader.end().is_ok()
            {
                return Ok(event);
            }
            return self.decode_through_serde(payload, text);
        }
        let mut fields = energy_api_core::table::Fields::of(self.table());
        if energy_api_core::table::read(
            &mut reader,
            self.table(),
            energy_api_core::table::Mode::Owned,
            &mut fields,
        )
        .is_ok()
            && reader.end().is_ok()
            && let Ok(event) = self.event_of(&mut fields)
        {
            return Ok(event);
        }
        self.decode_through_serde(payload, text)
    }

    /// Decodes a payload the fast reader stopped on: serde decides, the value or the error.
    fn decode_through_serde(self, payload: &[u8], text: &str) -> Result<Event, DecodeError> {
        // serde through `energy-api-core`'s JSON entry point, compiled there once (not here, for every
        // build of this crate).
        energy_api_core::table::deserialize_json_object(
            text,
            self.table(),
            energy_api_core::table::Mode::Owned,
        )
        .ok()
        .and_then(|mut fields| self.event_of(&mut fields).ok())
        .ok_or_else(|| DecodeError::Payload(self.locate_error(payload)))
    }

    /// Decodes the payload again to say where and how it is wrong.
    ///
    /// The JSON path is found from the error's position in the payload (see [`json_path_at`]), not by
    /// tracking the path while decoding: path tracking would instantiate a second deserializer for
    /// every payload type, doubling this crate's code, to serve only the failures.
    pub fn locate_error(self, payload: &[u8]) -> PayloadError {
        let text = match self.utf8(payload) {
            Ok(text) => text,
            Err(e) => return e,
        };
        let read = energy_api_core::table::deserialize_json_object(
            text,
            self.table(),
            energy_api_core::table::Mode::Owned,
        );
        let error = match read {
            Err(e) => e,
            Ok(mut fields) => match self.event_of(&mut fields) {
                Err(_) => serde::de::Error::custom(energy_api_core::table::MISMATCH),
                Ok(_) => serde::de::Error::custom("the payload decodes"),
            },
        };
        PayloadError::from_json(self, payload, &error)
    }

    /// A seed that checks a payload of this kind without building it (see [`PayloadValidator`]).
    pub fn validator(self) -> PayloadValidator {
        PayloadValidator(self)
    }

    /// Checks a JSON payload of this kind without building it: the verdict of [`EventKind::decode`],
    /// without allocating. A failure is explained by decoding, so the error is the same too.
    pub fn validate(self, payload: &[u8]) -> Result<(), DecodeError> {
        let text = self.utf8(payload).map_err(DecodeError::Payload)?;
        energy_api_core::shape::check_json_struct(self.table(), text)
            .map_err(|_| DecodeError::Payload(self.locate_error(payload)))
    }

    /// The payload as text, checked as UTF-8 once (serde_json then reads strings without checking them).
    pub(crate) fn utf8(self, payload: &[u8]) -> Result<&str, PayloadError> {
        energy_api_core::json::utf8(payload).map_err(|fault| PayloadError::of(self, fault))
    }
}

/// Checks a payload of one kind without building it: a [`DeserializeSeed`](serde::de::DeserializeSeed)
/// whose value is `()`.
///
/// It accepts exactly what decoding accepts, but allocates nothing: strings are checked in place,
/// nothing is kept. For validating streams, where only the verdict matters.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PayloadValidator(EventKind);

impl<'de> serde::de::DeserializeSeed<'de> for PayloadValidator {
    type Value = ();
    fn deserialize<D: serde::Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        energy_api_core::shape::check_struct(self.0.table(), deserializer)
    }
}

/// Why a payload could not be decoded.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum DecodeError {
    /// The event type is not in the catalogue (or its feature is off).
    UnknownEventType {
        /// The event type as given.
        event_type: String,
    },
    /// The event type is known, the version is not.
    UnknownVersion {
        /// The event type.
        event_type: EventType,
        /// The version as given.
        version: String,
    },
    /// The payload does not match its version's shape.
    Payload(PayloadError),
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::UnknownEventType { event_type } => {
                write!(f, "unknown event type `{event_type}`")
            }
            Self::UnknownVersion {
                event_type,
                version,
            } => write!(
                f,
                "unknown version `{version}` of event type `{event_type}` (known: {})",
                event_type.versions().join(", ")
            ),
            Self::Payload(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for DecodeError {}

/// A payload that does not match its version's shape: where, what, and the JSON position.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PayloadError {
    /// The event type.
    pub event_type: EventType,
    /// The payload version.
    pub version: &'static str,
    /// What is wrong.
    pub kind: PayloadErrorKind,
    /// JSON path of the bad field inside the payload, such as `ledger.account.number` or
    /// `supply_points[0].market_name`; empty for the payload itself.
    pub path: String,
    /// A description of the problem.
    pub message: String,
    /// Line in the payload (1-based; 0 when unknown).
    pub line: usize,
    /// Column in the payload (1-based; 0 when unknown).
    pub column: usize,
}

impl PayloadError {
    /// Builds the error from a JSON error of decoding `payload`.
    pub fn from_json(kind: EventKind, payload: &[u8], error: &serde_json::Error) -> Self {
        Self::of(kind, Fault::from_json(payload, error))
    }

    fn of(kind: EventKind, fault: Fault) -> Self {
        PayloadError {
            event_type: kind.event_type(),
            version: kind.version(),
            kind: fault.kind,
            path: fault.path,
            message: fault.message,
            line: fault.line,
            column: fault.column,
        }
    }
}

impl fmt::Display for PayloadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "`{}` {} payload", self.event_type, self.version)?;
        if !self.path.is_empty() {
            write!(f, ", at `{}`", self.path)?;
        }
        write!(f, ": {}", self.message)?;
        if self.line > 0 {
            write!(f, " (line {}, column {})", self.line, self.column)?;
        }
        Ok(())
    }
}

impl std::error::Error for PayloadError {}

impl Event {
    /// Decodes a JSON payload of `event_type` in `version`.
    ///
    /// Unknown fields are ignored. The error says whether the type or version is unknown, or where the
    /// payload does not match its shape.
    pub fn decode(event_type: &str, version: &str, payload: &[u8]) -> Result<Self, DecodeError> {
        EventKind::new(event_type, version)?.decode(payload)
    }

    /// The payload as JSON bytes.
    // Inline, so that the JSON serializer of every payload type (a thousand functions) is compiled
    // only in the crates that call this, not in every build of this crate.
    #[inline]
    pub fn to_payload_json(&self) -> Vec<u8> {
        // Serializing these types cannot fail: every map key is a string.
        serde_json::to_vec(self).unwrap_or_default()
    }

    /// The (event type, version) pair of this event.
    pub fn kind(&self) -> EventKind {
        let event_type = self.event_type();
        let version = self.version();
        let index = event_type
            .versions()
            .iter()
            .position(|v| *v == version)
            .unwrap_or(0);
        EventKind {
            event_type,
            version: u8::try_from(index).unwrap_or(0),
        }
    }
}
