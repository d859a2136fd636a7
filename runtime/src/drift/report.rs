//! The findings of a [`Drift`](super::Drift): what differs, where, how often, with examples; in the
//! documented, versioned JSON shape of `energy events drift --format json` (see `docs/drift.md`).

use super::tree::{Expect, Node, NodeId, Segment, Values, strip_optional, struct_table};
use super::{BadLines, Drift, JsonType};
use energy_api::events::EventKind;
use energy_api_core::table::{Shape, StructTable};
use serde::Serialize;
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// The version of the JSON shape of a [`Report`] (its `drift_format`): raised when a member changes
/// meaning or goes; members may be added within a version.
pub const FORMAT_VERSION: u32 = 1;

/// A string field is reported as an enumeration candidate when seen at least this often…
const ENUM_MIN_COUNT: u64 = 20;
/// …and at least this many times per distinct value.
const ENUM_MIN_PER_VALUE: u64 = 5;

/// What a finding is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FindingKind {
    /// A member the schema does not have (drift).
    UnknownMember,
    /// A required field absent (drift).
    MissingField,
    /// `null` where the schema does not allow it (drift).
    NullNotNullable,
    /// A value of another JSON type than the schema's (drift).
    WrongType,
    /// An integer beyond the declared range, `i64` (drift).
    OutOfRange,
    /// An event type the catalogue does not have (drift).
    UnknownEventType,
    /// A version of a known event type the catalogue does not have (drift).
    UnknownVersion,
    /// Lines that are not JSON (drift).
    MalformedJson,
    /// Lines that are JSON but not an envelope (drift).
    BadEnvelope,
    /// An optional field never sent (an observation, not drift).
    OptionalNeverSent,
    /// A string field with few distinct values (an observation, not drift).
    EnumCandidate,
}

impl FindingKind {
    /// Whether it is drift (the command then exits 1); the others are observations.
    pub fn is_drift(self) -> bool {
        !matches!(
            self,
            FindingKind::OptionalNeverSent | FindingKind::EnumCandidate
        )
    }

    /// Its name in the JSON shape.
    pub fn as_str(self) -> &'static str {
        match self {
            FindingKind::UnknownMember => "unknown_member",
            FindingKind::MissingField => "missing_field",
            FindingKind::NullNotNullable => "null_not_nullable",
            FindingKind::WrongType => "wrong_type",
            FindingKind::OutOfRange => "out_of_range",
            FindingKind::UnknownEventType => "unknown_event_type",
            FindingKind::UnknownVersion => "unknown_version",
            FindingKind::MalformedJson => "malformed_json",
            FindingKind::BadEnvelope => "bad_envelope",
            FindingKind::OptionalNeverSent => "optional_never_sent",
            FindingKind::EnumCandidate => "enum_candidate",
        }
    }
}

/// A distinct value of a string field and how often it was seen.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ValueCount {
    /// The value.
    pub value: String,
    /// How often.
    pub count: u64,
}

/// One finding: at one path of one event type and version, one kind of difference.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Finding {
    /// The event type (`null` for lines that are not events).
    pub event: Option<String>,
    /// The payload version (`null` for lines that are not events, and unknown event types' own).
    pub version: Option<String>,
    /// The JSON path from the envelope (`payload.supply_points[].market_name`; arrays as `[]`, map
    /// values as `{}`), `event_type` or `version` for unknown ones, empty for whole lines.
    pub path: String,
    /// What it is.
    pub kind: FindingKind,
    /// Whether it is drift (exit status 1) rather than an observation.
    pub drift: bool,
    /// Occurrences (a path inside an array may occur several times in one event).
    pub count: u64,
    /// Events it touches (lines, for lines that are not events).
    pub events: u64,
    /// `events` over the events of its type and version (over all events for unknown types and
    /// versions, over all lines read for bad lines), 0 to 1.
    pub share: f64,
    /// What the schema says of the path, in the schema's notation (`int`, `[SupplyPoint]`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expected: Option<String>,
    /// JSON types seen, with counts (undeclared members, wrong types).
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub seen: BTreeMap<&'static str, u64>,
    /// For an undeclared member holding arrays: the JSON types of their first items.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub items_seen: BTreeMap<&'static str, u64>,
    /// Example values as JSON text, truncated.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub examples: Vec<String>,
    /// For an enumeration candidate: its values, most frequent first.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub values: Vec<ValueCount>,
    /// For bad lines and unknown kinds: the first line numbers.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub lines: Vec<u64>,
}

impl Finding {
    fn new(
        kind: FindingKind,
        at: Option<(&str, &str)>,
        path: String,
        count: u64,
        events: u64,
        of: u64,
    ) -> Self {
        Finding {
            event: at.map(|(t, _)| t.to_owned()),
            version: at.map(|(_, v)| v.to_owned()),
            path,
            kind,
            drift: kind.is_drift(),
            count,
            events,
            share: if of == 0 {
                0.0
            } else {
                events as f64 / of as f64
            },
            expected: None,
            seen: BTreeMap::new(),
            items_seen: BTreeMap::new(),
            examples: Vec::new(),
            values: Vec::new(),
            lines: Vec::new(),
        }
    }
}

/// Events read of one type and version.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct KindCount {
    /// The event type.
    pub event: String,
    /// The version.
    pub version: String,
    /// Events read.
    pub events: u64,
}

/// What the bounded tables could not keep: counted, so that a report says what it left out.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Dropped {
    /// Values not tracked because the table of paths was full or the path too deep.
    pub paths: u64,
    /// Undeclared members not tracked because their object path already had the most tracked.
    pub members: u64,
    /// String fields whose distinct values stopped being tracked (too long).
    pub values: u64,
    /// Events of unknown types or versions not tracked by name (the table was full).
    pub unknown_kinds: u64,
}

impl Dropped {
    /// Whether nothing was dropped.
    pub fn is_empty(&self) -> bool {
        *self == Dropped::default()
    }
}

/// The drift of a stream.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Report {
    /// The version of this shape ([`FORMAT_VERSION`]).
    pub drift_format: u32,
    /// Lines read (blank ones included).
    pub lines: u64,
    /// Blank lines skipped.
    pub blank_lines: u64,
    /// Events read (envelopes of known and unknown types).
    pub events: u64,
    /// Events read per known type and version, by type and version.
    pub kinds: Vec<KindCount>,
    /// The findings, most events touched first.
    pub findings: Vec<Finding>,
    /// What the bounded tables left out.
    pub dropped: Dropped,
}

impl Report {
    /// Whether any finding is drift.
    pub fn has_drift(&self) -> bool {
        self.findings.iter().any(|f| f.drift)
    }
}

/// The schema notation of a shape (`str`, `[Meter]`, `map<num>`); `Optional` is the field's `?`, not
/// written here.
pub fn shape_text(shape: &Shape) -> String {
    match shape {
        Shape::Str => "str".to_owned(),
        Shape::Int => "int".to_owned(),
        Shape::Num => "num".to_owned(),
        Shape::Bool => "bool".to_owned(),
        Shape::Timestamp => "date-time".to_owned(),
        Shape::Obj => "obj".to_owned(),
        Shape::Array(item) => format!("[{}]", shape_text(item)),
        Shape::Map(value) => format!("map<{}>", shape_text(value)),
        Shape::Struct(table) => table.rust_name().to_owned(),
        Shape::Optional(inner) => shape_text(inner),
    }
}

/// The path of a node, from the envelope.
fn path_of(nodes: &[Node], mut id: NodeId) -> String {
    let mut segments = Vec::new();
    while let Some(node) = nodes.get(id as usize) {
        segments.push(&node.segment);
        id = node.parent;
    }
    let mut path = String::new();
    for segment in segments.into_iter().rev() {
        match segment {
            Segment::Payload => path.push_str("payload"),
            Segment::Field(name) => push_name(&mut path, name),
            Segment::Unknown(name) => push_name(&mut path, name),
            Segment::Item => path.push_str("[]"),
            Segment::Value => path.push_str("{}"),
        }
    }
    path
}

/// `.name`, or `["name"]` for a name that is not a plain identifier.
fn push_name(path: &mut String, name: &str) {
    let plain = !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
    if plain {
        path.push('.');
        path.push_str(name);
    } else {
        let _ = write!(
            path,
            "[{}]",
            serde_json::to_string(name).unwrap_or_default()
        );
    }
}

fn types(counts: &[u64; JsonType::ALL.len()]) -> BTreeMap<&'static str, u64> {
    JsonType::ALL
        .iter()
        .zip(counts)
        .filter(|(_, n)| **n > 0)
        .map(|(t, n)| (t.as_str(), *n))
        .collect()
}

fn expected_of(node: &Node) -> Option<String> {
    match node.expect {
        Expect::Root(table) => Some(table.rust_name().to_owned()),
        Expect::Shape(shape) => Some(shape_text(shape)),
        Expect::Nothing => None,
    }
}

/// The findings of one payload version's tree.
fn kind_findings(
    drift: &Drift,
    kind: EventKind,
    root: NodeId,
    events: u64,
    out: &mut Vec<Finding>,
) {
    let at = (kind.event_type().as_str(), kind.version());
    let nodes = &drift.tree.nodes;
    let mut stack = vec![root];
    while let Some(id) = stack.pop() {
        let node = &nodes[id as usize];
        stack.extend(node.children());
        let finding = |kind: FindingKind, count: u64, touched: u64| {
            let mut f = Finding::new(kind, Some(at), path_of(nodes, id), count, touched, events);
            f.expected = expected_of(node);
            f
        };
        if let Segment::Unknown(_) = node.segment {
            let mut f = finding(
                FindingKind::UnknownMember,
                node.present.count,
                node.present.events,
            );
            f.seen = types(&node.seen);
            f.items_seen = types(&node.items_seen);
            f.examples
                .extend(node.example.as_deref().map(str::to_owned));
            if f.count > 0 {
                out.push(f);
            }
            continue;
        }
        for (counter, kind) in [
            (node.missing, FindingKind::MissingField),
            (node.null, FindingKind::NullNotNullable),
            (node.out_of_range, FindingKind::OutOfRange),
        ] {
            if counter.count > 0 {
                out.push(finding(kind, counter.count, counter.events));
            }
        }
        let wrong: u64 = node.wrong.iter().map(|c| c.count).sum();
        if wrong > 0 {
            // Events touched: at least the most of any one type (an event may hold several).
            let touched = node.wrong.iter().map(|c| c.events).max().unwrap_or(0);
            let mut f = finding(FindingKind::WrongType, wrong, touched);
            let counts: Vec<u64> = node.wrong.iter().map(|c| c.count).collect();
            f.seen = JsonType::ALL
                .iter()
                .zip(counts)
                .filter(|(_, n)| *n > 0)
                .map(|(t, n)| (t.as_str(), n))
                .collect();
            f.examples
                .extend(node.example.as_deref().map(str::to_owned));
            out.push(f);
        }
        if let Values::Few(values) = &node.values {
            let total: u64 = values.iter().map(|(_, n)| n).sum();
            let distinct = values.len() as u64;
            if distinct > 0 && total >= ENUM_MIN_COUNT && total >= ENUM_MIN_PER_VALUE * distinct {
                // Items of arrays and values of maps are not noted as sent: the events are those
                // of the field that holds them.
                let touched = sent_events(nodes, id, root, events);
                let mut f = finding(FindingKind::EnumCandidate, total, touched);
                let mut values: Vec<ValueCount> = values
                    .iter()
                    .map(|(v, n)| ValueCount {
                        value: v.to_string(),
                        count: *n,
                    })
                    .collect();
                values.sort_by(|a, b| b.count.cmp(&a.count).then(a.value.cmp(&b.value)));
                f.values = values;
                out.push(f);
            }
        }
        // Optional fields of a struct that was sent, never sent themselves.
        let sent = if id == root {
            events
        } else {
            node.present.events
        };
        if let Some(table) = struct_table(node.expect)
            && sent > 0
        {
            never_sent(nodes, id, table, at, events, out);
        }
    }
}

/// The events in which node `id` was sent: its own count for a field or a struct, else that of the
/// nearest field holding it (the root's: every event of the version).
fn sent_events(nodes: &[Node], mut id: NodeId, root: NodeId, events: u64) -> u64 {
    loop {
        if id == root {
            return events;
        }
        let Some(node) = nodes.get(id as usize) else {
            return events;
        };
        if node.present.events > 0 || matches!(node.segment, Segment::Field(_)) {
            return node.present.events;
        }
        id = node.parent;
    }
}

fn never_sent(
    nodes: &[Node],
    id: NodeId,
    table: &'static StructTable,
    at: (&str, &str),
    events: u64,
    out: &mut Vec<Finding>,
) {
    let node = &nodes[id as usize];
    let children: BTreeMap<usize, NodeId> = node.field_children().collect();
    for (index, shape) in table.shapes.iter().enumerate() {
        if !matches!(shape, Shape::Optional(_)) || !table.omit_none[index] {
            continue;
        }
        let sent = children
            .get(&index)
            .is_some_and(|child| nodes[*child as usize].present.count > 0);
        if !sent {
            let mut path = path_of(nodes, id);
            push_name(&mut path, table.fields[index]);
            let mut f = Finding::new(FindingKind::OptionalNeverSent, Some(at), path, 0, 0, events);
            f.expected = Some(shape_text(strip_optional(shape)));
            out.push(f);
        }
    }
}

fn bad_lines(kind: FindingKind, lines: &BadLines, of: u64, out: &mut Vec<Finding>) {
    if lines.count > 0 {
        let mut f = Finding::new(kind, None, String::new(), lines.count, lines.count, of);
        f.lines = lines.first.clone();
        out.push(f);
    }
}

pub(super) fn build(drift: &Drift) -> Report {
    let mut findings = Vec::new();
    let mut kinds: Vec<(EventKind, NodeId)> = drift
        .roots
        .iter()
        .map(|(kind, root)| (*kind, *root))
        .collect();
    kinds.sort_by_key(|(kind, _)| (kind.event_type().as_str(), kind.version()));
    let mut counts = Vec::new();
    for (kind, root) in kinds {
        let events = drift.events.get(&kind).copied().unwrap_or(0);
        if events == 0 {
            continue;
        }
        counts.push(KindCount {
            event: kind.event_type().as_str().to_owned(),
            version: kind.version().to_owned(),
            events,
        });
        kind_findings(drift, kind, root, events, &mut findings);
    }
    for ((event_type, version), unknown) in &drift.unknown {
        let (kind, path) = if unknown.type_known {
            (FindingKind::UnknownVersion, "version")
        } else {
            (FindingKind::UnknownEventType, "event_type")
        };
        let mut f = Finding::new(
            kind,
            Some((event_type, version)),
            path.to_owned(),
            unknown.count,
            unknown.count,
            drift.total_events,
        );
        f.lines = unknown.first.clone();
        findings.push(f);
    }
    let read = drift.lines - drift.blank;
    bad_lines(
        FindingKind::MalformedJson,
        &drift.malformed,
        read,
        &mut findings,
    );
    bad_lines(
        FindingKind::BadEnvelope,
        &drift.bad_envelope,
        read,
        &mut findings,
    );
    findings.sort_by(|a, b| {
        b.drift
            .cmp(&a.drift)
            .then(b.events.cmp(&a.events))
            .then(b.count.cmp(&a.count))
            .then_with(|| a.event.cmp(&b.event))
            .then_with(|| a.version.cmp(&b.version))
            .then_with(|| a.path.cmp(&b.path))
            .then(a.kind.cmp(&b.kind))
    });
    Report {
        drift_format: FORMAT_VERSION,
        lines: drift.lines,
        blank_lines: drift.blank,
        events: drift.total_events,
        kinds: counts,
        findings,
        dropped: Dropped {
            paths: drift.tree.dropped_paths,
            members: drift.tree.dropped_members,
            values: drift.tree.dropped_values,
            unknown_kinds: drift.unknown_dropped,
        },
    }
}
