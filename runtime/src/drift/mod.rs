//! Drift: what producers really send, compared with the catalogue, over a whole stream.
//!
//! [`Drift`] reads lines of the stream format `energy events validate` reads (an envelope
//! `{"event_type", "version", "payload"}` a line) and, per event type and version, per JSON path of
//! the payload (arrays as `[]`, map values as `{}`), counts what differs from the payload's table, the
//! one the generated decoders read ([`energy_api::events::EventKind::table`]): members the schema does
//! not have, required fields absent, `null` where the schema does not allow it, values of the wrong
//! JSON type, integers beyond `int`'s range (`i64`), and, as observations rather than drift, optional
//! fields never sent and string fields with few distinct values. Event types and versions the
//! catalogue does not have, and lines that are not JSON or not an envelope, are counted too.
//! [`Drift::report`] gives the findings ([`Report`]), sorted by how many events each touches.
//!
//! ```
//! use energy_runtime::drift::{Drift, FindingKind};
//!
//! let mut drift = Drift::default();
//! let lines = [
//!     r#"{"event_type": "agreement.updated", "version": "v2", "payload": {"agreement_id": 12, "changes": {}, "account_number": "A-1", "channel": "web"}}"#,
//!     r#"{"event_type": "agreement.updated", "version": "v2", "payload": {"agreement_id": "12", "changes": {}, "account_number": "A-1"}}"#,
//! ];
//! for (i, line) in lines.iter().enumerate() {
//!     drift.observe_line(i as u64 + 1, line.as_bytes());
//! }
//! let report = drift.report();
//! let found: Vec<(&str, FindingKind, u64)> = report
//!     .findings
//!     .iter()
//!     .filter(|f| f.drift)
//!     .map(|f| (f.path.as_str(), f.kind, f.count))
//!     .collect();
//! assert_eq!(
//!     found,
//!     [("payload.agreement_id", FindingKind::WrongType, 1), ("payload.channel", FindingKind::UnknownMember, 1)]
//! );
//! ```
//!
//! Bounded whatever the stream: paths, undeclared members, distinct values, examples and unknown
//! event types are kept in tables of fixed sizes ([`Limits`]); what did not fit is counted and said
//! ([`Dropped`]). One event's observations are kept apart until its line proved whole JSON, so a line
//! cut short changes no count but its own (`malformed_json`).

mod envelope;
mod report;
mod tree;
mod walk;

pub use report::{
    Dropped, FORMAT_VERSION, Finding, FindingKind, KindCount, Report, ValueCount, shape_text,
};

/// The tables drift is judged against (a payload version's is `EventKind::table`), for callers that
/// turn findings into schema edits.
pub use energy_api_core::table::{Shape, StructTable};

use energy_api::events::EventKind;
use envelope::{LineFault, Outcome, Reading};
use std::collections::{BTreeMap, HashMap};
use tree::{Journal, NodeId, Tree};

/// The JSON type of a value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum JsonType {
    /// `null`.
    Null,
    /// `true` or `false`.
    Boolean,
    /// A number without a fraction or exponent.
    Integer,
    /// A number with a fraction or exponent.
    Number,
    /// A string.
    String,
    /// An array.
    Array,
    /// An object.
    Object,
}

impl JsonType {
    /// Every JSON type, in the order of their discriminants.
    pub const ALL: [JsonType; 7] = [
        JsonType::Null,
        JsonType::Boolean,
        JsonType::Integer,
        JsonType::Number,
        JsonType::String,
        JsonType::Array,
        JsonType::Object,
    ];

    /// Its name, as JSON Schema names it.
    pub fn as_str(self) -> &'static str {
        match self {
            JsonType::Null => "null",
            JsonType::Boolean => "boolean",
            JsonType::Integer => "integer",
            JsonType::Number => "number",
            JsonType::String => "string",
            JsonType::Array => "array",
            JsonType::Object => "object",
        }
    }
}

/// The sizes of the tables a [`Drift`] keeps: its memory is bounded by them, whatever the stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// JSON paths tracked, over every payload version (a path is a few hundred bytes).
    pub nodes: usize,
    /// Deepest path tracked (values deeper are skipped and counted).
    pub depth: usize,
    /// Undeclared members tracked per object path.
    pub members_per_object: usize,
    /// Event types and versions the catalogue does not have, tracked by name.
    pub unknown_kinds: usize,
    /// Distinct values of a string field kept; a field with more is no enumeration.
    pub enum_values: usize,
    /// Longest string counted as an enumeration's value, in bytes.
    pub enum_value_bytes: usize,
    /// Longest example kept, in bytes (longer ones are cut, with `…`).
    pub example_bytes: usize,
    /// Line numbers kept per kind of bad line.
    pub line_numbers: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            nodes: 50_000,
            depth: 32,
            members_per_object: 64,
            unknown_kinds: 1_000,
            enum_values: 12,
            enum_value_bytes: 64,
            example_bytes: 80,
            line_numbers: 10,
        }
    }
}

/// Lines that are not events: how many, and the first line numbers.
#[derive(Debug, Default, Clone)]
pub(crate) struct BadLines {
    pub(crate) count: u64,
    pub(crate) first: Vec<u64>,
}

/// An event type or version the catalogue does not have.
#[derive(Debug, Default, Clone)]
pub(crate) struct UnknownKind {
    pub(crate) type_known: bool,
    pub(crate) count: u64,
    pub(crate) first: Vec<u64>,
}

/// The drift of a stream, gathered line by line.
#[derive(Debug)]
pub struct Drift {
    limits: Limits,
    tree: Tree,
    journal: Journal,
    roots: HashMap<EventKind, NodeId>,
    /// Events read per known kind.
    events: HashMap<EventKind, u64>,
    unknown: BTreeMap<(String, String), UnknownKind>,
    unknown_dropped: u64,
    /// Events read in all (known and unknown kinds).
    total_events: u64,
    lines: u64,
    blank: u64,
    malformed: BadLines,
    bad_envelope: BadLines,
}

impl Default for Drift {
    fn default() -> Self {
        Drift::new(Limits::default())
    }
}

impl Drift {
    /// Nothing seen yet; tables of the sizes `limits` says.
    pub fn new(limits: Limits) -> Self {
        Drift {
            limits,
            tree: Tree::new(limits),
            journal: Journal::default(),
            roots: HashMap::new(),
            events: HashMap::new(),
            unknown: BTreeMap::new(),
            unknown_dropped: 0,
            total_events: 0,
            lines: 0,
            blank: 0,
            malformed: BadLines::default(),
            bad_envelope: BadLines::default(),
        }
    }

    /// Reads line `number` of the stream (its bytes, without the line end). Blank lines (only spaces,
    /// tabs and `\r`) are counted and skipped.
    pub fn observe_line(&mut self, number: u64, line: &[u8]) {
        self.lines += 1;
        if line.iter().all(u8::is_ascii_whitespace) {
            self.blank += 1;
            return;
        }
        let Ok(text) = std::str::from_utf8(line) else {
            return self.bad(number, LineFault::Malformed);
        };
        let mut reading = Reading {
            tree: &mut self.tree,
            journal: &mut self.journal,
            roots: &mut self.roots,
            example_bytes: self.limits.example_bytes,
            value_bytes: self.limits.enum_value_bytes,
        };
        match reading.line(text) {
            Ok(Outcome::Known(kind)) => {
                self.total_events += 1;
                *self.events.entry(kind).or_insert(0) += 1;
                self.tree.apply(&self.journal, self.total_events);
            }
            Ok(Outcome::Unknown {
                event_type,
                version,
                type_known,
            }) => {
                self.total_events += 1;
                let full = self.unknown.len() >= self.limits.unknown_kinds;
                match self.unknown.get_mut(&(event_type.clone(), version.clone())) {
                    Some(seen) => {
                        seen.count += 1;
                        if seen.first.len() < self.limits.line_numbers {
                            seen.first.push(number);
                        }
                    }
                    None if full => self.unknown_dropped += 1,
                    None => {
                        self.unknown.insert(
                            (event_type, version),
                            UnknownKind {
                                type_known,
                                count: 1,
                                first: vec![number],
                            },
                        );
                    }
                }
            }
            Err(fault) => self.bad(number, fault),
        }
    }

    /// Counts line `number` as too long to be read (a `bad_envelope`, as `energy events validate`
    /// says of it).
    pub fn observe_too_long(&mut self, number: u64) {
        self.lines += 1;
        self.bad(number, LineFault::BadEnvelope);
    }

    fn bad(&mut self, number: u64, fault: LineFault) {
        let lines = match fault {
            LineFault::Malformed => &mut self.malformed,
            LineFault::BadEnvelope => &mut self.bad_envelope,
        };
        lines.count += 1;
        if lines.first.len() < self.limits.line_numbers {
            lines.first.push(number);
        }
    }

    /// Events read (of known and unknown kinds).
    pub fn events(&self) -> u64 {
        self.total_events
    }

    /// The findings so far, sorted by the events each touches (most first).
    pub fn report(&self) -> Report {
        report::build(self)
    }
}

#[cfg(test)]
mod tests;
