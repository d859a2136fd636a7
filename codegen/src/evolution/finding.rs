//! What the comparison finds: each change, its verdict in both directions, how serious it is, and the
//! items it is about on each side (by name: the caller knows where they are written).

use super::rules::{Bump, Rule};

/// What a reader does with what a writer sends, in one direction.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// The reader accepts it.
    Reads,
    /// The reader rejects some payloads, for this reason (in the decoder's words, where it has them).
    Rejects(String),
}

impl Verdict {
    /// Whether the reader accepts everything.
    pub fn reads(&self) -> bool {
        matches!(self, Verdict::Reads)
    }
}

/// How serious a finding is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    /// Nothing breaks.
    Info,
    /// Nothing breaks, but a reader may lose or misread data.
    Warning,
    /// A reader rejects payloads (or a consumer's code stops compiling) and nothing allows it.
    Error,
}

impl Severity {
    /// `info`, `warning`, `error`.
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Info => "info",
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }
}

/// What a finding is about.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Subject {
    /// An event type, or one of its versions.
    Event {
        /// The event type (its new name, when renamed).
        event: String,
        /// The payload version, when the finding is about one.
        version: Option<String>,
    },
    /// A shared payload type no event version reaches (those reached are reported per version).
    SharedType(String),
    /// A REST resource no endpoint reaches (those reached are reported per endpoint).
    Resource(String),
    /// A REST endpoint.
    Endpoint(String),
    /// The body of REST error responses.
    ErrorResponse,
}

/// An item of one side that a finding points at, named as the schema names it; where it is written is the
/// caller's to know (the comparison sees models, not files).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Item {
    /// An event type, where its name is written.
    Event(String),
    /// A former name of an event type (`renamed_from:`), where it is written.
    FormerEventName(String),
    /// A version of an event type, by (event type, label).
    Version(String, String),
    /// A field of a struct, by (the struct's schema name, the field's JSON name); an endpoint's parameters
    /// are the fields of the endpoint.
    Field(String, String),
    /// A shared payload type.
    SharedType(String),
    /// A REST resource.
    Resource(String),
    /// A REST endpoint.
    Endpoint(String),
    /// The type of REST error responses.
    ErrorResponse,
    /// A waiver, by (its owner: `version <type> <label>`, `type <name>`, …, its rule id, its path).
    Waiver(String, String, String),
}

/// A place on one of the two sides: file, line and column.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Place {
    /// The file as shown (`schema/events/billing.yaml`, `schema/published.lock`, `HEAD~3:schema/rest.yaml`).
    pub file: String,
    /// 1-based line.
    pub line: usize,
    /// 1-based column.
    pub column: usize,
}

/// A payload that proves a break: written under one side, rejected by the other side's reader.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Counterexample {
    /// `forward` (the old reader rejects a new payload) or `backward`.
    pub direction: &'static str,
    /// The payload, compact JSON.
    pub payload: String,
    /// The reader's error, from running the decoder's shape checker.
    pub error: String,
}

/// One change between the two sides.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// The rule.
    pub rule: Rule,
    /// How serious it is, after waivers.
    pub severity: Severity,
    /// Whether the old side's consumers read the new side's payloads.
    pub forward: Verdict,
    /// Whether the new side's consumers read the old side's payloads.
    pub backward: Verdict,
    /// What a strict old reader (rejecting unknown members) does, where it differs from `forward`.
    pub strict_forward: Option<Verdict>,
    /// What it is about.
    pub subject: Subject,
    /// The JSON path of the field, relative to the subject (`ledger.account.number`,
    /// `supply_points[].market_name`, `response.results[].valid_to`; `.*` for any value of a map:
    /// `tariffs.*.code`); empty for the subject itself.
    pub path: String,
    /// One line.
    pub message: String,
    /// Where it is on the old side.
    pub old: Option<Place>,
    /// Where it is on the new side.
    pub new: Option<Place>,
    /// The old value (`required int`), when there is one.
    pub old_value: Option<String>,
    /// The new value.
    pub new_value: Option<String>,
    /// A payload that proves the break, when one was found.
    pub counterexample: Option<Counterexample>,
    /// The reason of the waiver that allows it, when one does.
    pub waived: Option<String>,
    /// Whether it changes something already published (else the item may still change freely).
    pub published: bool,
    /// The active consumer contracts (`schema/consumers/`) that read what it is about, in name order;
    /// empty when none does.
    pub consumers: Vec<String>,
    /// The shared type or resource holding the changed field, and the path in it, when the change is
    /// inside one (a waiver on that type matches it).
    pub(crate) via: Option<(String, String)>,
    /// The item it is about on each side, for the caller to locate (`old`, `new`).
    pub(crate) items: (Option<Item>, Option<Item>),
    /// About a request parameter, which clients write and servers read (the other way round).
    pub(crate) request: bool,
    /// The consumers the waiver allowing it says agreed to it.
    pub(crate) waived_for: Vec<String>,
}

impl Finding {
    /// `forward`, `backward`, `both` or `none`: which directions break under the default decoder.
    pub fn direction(&self) -> &'static str {
        match (self.forward.reads(), self.backward.reads()) {
            (true, true) => "none",
            (false, true) => "forward",
            (true, false) => "backward",
            (false, false) => "both",
        }
    }

    /// `full`, `backward`, `forward` or `none`: which compatibility the change keeps.
    pub fn compatibility(&self) -> &'static str {
        match (self.forward.reads(), self.backward.reads()) {
            (true, true) => "full",
            (false, true) => "backward",
            (true, false) => "forward",
            (false, false) => "none",
        }
    }

    /// A stable identifier of the finding (its rule, subject and path; not its message), for tools that
    /// track findings across runs.
    pub fn fingerprint(&self) -> String {
        let subject = match &self.subject {
            Subject::Event { event, version } => {
                format!("event:{event}:{}", version.as_deref().unwrap_or(""))
            }
            Subject::SharedType(t) => format!("type:{t}"),
            Subject::Resource(r) => format!("resource:{r}"),
            Subject::Endpoint(e) => format!("endpoint:{e}"),
            Subject::ErrorResponse => "error-response".to_owned(),
        };
        let key = format!("{}|{subject}|{}", self.rule.id(), self.path);
        // FNV-1a, 64 bits: the same on every platform and run.
        let hash = key.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
            (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
        });
        format!("{hash:016x}")
    }

    /// The semver bump of `energy-api` the change needs: none for what is not yet published.
    pub fn bump(&self) -> Bump {
        if !self.published
            && !matches!(
                self.rule,
                Rule::VersionAdded | Rule::EventTypeAdded | Rule::EndpointAdded
            )
        {
            return Bump::None;
        }
        self.rule.bump()
    }
}
