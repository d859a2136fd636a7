//! What was seen, per JSON path of each payload version: a bounded table of nodes, one per path, each
//! with its counters, and the journal of one event's observations applied to it once the event's line
//! proved whole.

use super::{JsonType, Limits};
use energy_api_core::table::{Shape, StructTable};

/// The index of a node in [`Tree::nodes`].
pub(crate) type NodeId = u32;

/// No node (a child not made yet).
const NONE: NodeId = u32::MAX;

/// What a node stands for in its parent.
#[derive(Debug)]
pub(crate) enum Segment {
    /// The payload of a kind (the root).
    Payload,
    /// A field the schema declares.
    Field(&'static str),
    /// A member the schema does not declare.
    Unknown(Box<str>),
    /// Every item of an array (`[]`).
    Item,
    /// Every value of a map (`{}`).
    Value,
}

/// What the schema says a node holds.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Expect {
    /// The payload itself: an object read by this table.
    Root(&'static StructTable),
    /// A value of this shape.
    Shape(&'static Shape),
    /// Nothing: a member the schema does not have.
    Nothing,
}

/// A count of occurrences and of the events they were in.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct Counter {
    pub(crate) count: u64,
    pub(crate) events: u64,
    last_event: u64,
}

impl Counter {
    #[inline]
    fn add(&mut self, event: u64) {
        self.count += 1;
        if self.last_event != event {
            self.last_event = event;
            self.events += 1;
        }
    }
}

/// The distinct values of a string field, while they are few.
#[derive(Debug)]
pub(crate) enum Values {
    /// Each distinct value with its count, at most [`Limits::enum_values`].
    Few(Vec<(Box<str>, u64)>),
    /// Too many, or too long, to be an enumeration: no longer tracked.
    Many,
}

/// One JSON path of a payload version, and what was seen there.
#[derive(Debug)]
pub(crate) struct Node {
    pub(crate) parent: NodeId,
    pub(crate) segment: Segment,
    pub(crate) expect: Expect,
    depth: u16,
    /// The children of declared fields, by field index (made when first seen).
    fields: Box<[NodeId]>,
    /// The child of array items or map values.
    item: NodeId,
    /// Members the schema does not declare, by name.
    unknown: Vec<NodeId>,
    /// Present and not `null`.
    pub(crate) present: Counter,
    /// `null` where the schema does not allow it.
    pub(crate) null: Counter,
    /// A required field absent.
    pub(crate) missing: Counter,
    /// A value of another JSON type than the schema's, by the type seen.
    pub(crate) wrong: [Counter; JsonType::ALL.len()],
    /// An integer beyond the declared range (`i64`).
    pub(crate) out_of_range: Counter,
    /// For an undeclared member: the JSON types seen, by type.
    pub(crate) seen: [u64; JsonType::ALL.len()],
    /// For an undeclared member holding arrays: the JSON types of their first items.
    pub(crate) items_seen: [u64; JsonType::ALL.len()],
    /// One value seen (undeclared members, wrong types), as JSON text, truncated.
    pub(crate) example: Option<Box<str>>,
    /// Distinct values of a string field.
    pub(crate) values: Values,
}

impl Node {
    fn new(parent: NodeId, segment: Segment, expect: Expect, depth: u16) -> Self {
        let fields = match struct_table(expect) {
            Some(table) => vec![NONE; table.fields.len()].into_boxed_slice(),
            None => Box::default(),
        };
        let values = match expect {
            Expect::Shape(shape) if matches!(strip_optional(shape), Shape::Str) => {
                Values::Few(Vec::new())
            }
            _ => Values::Many,
        };
        Node {
            parent,
            segment,
            expect,
            depth,
            fields,
            item: NONE,
            unknown: Vec::new(),
            present: Counter::default(),
            null: Counter::default(),
            missing: Counter::default(),
            wrong: [Counter::default(); JsonType::ALL.len()],
            out_of_range: Counter::default(),
            seen: [0; JsonType::ALL.len()],
            items_seen: [0; JsonType::ALL.len()],
            example: None,
            values,
        }
    }

    /// Whether the distinct values of this (string) node are still tracked.
    #[inline]
    pub(crate) fn tracks_values(&self) -> bool {
        matches!(self.values, Values::Few(_))
    }

    /// The declared fields' children made so far, with their field index.
    pub(crate) fn field_children(&self) -> impl Iterator<Item = (usize, NodeId)> + '_ {
        self.fields
            .iter()
            .enumerate()
            .filter(|(_, id)| **id != NONE)
            .map(|(i, id)| (i, *id))
    }

    /// Every child made so far.
    pub(crate) fn children(&self) -> impl Iterator<Item = NodeId> + '_ {
        self.fields
            .iter()
            .copied()
            .chain(std::iter::once(self.item))
            .chain(self.unknown.iter().copied())
            .filter(|id| *id != NONE)
    }
}

/// The table a node's value is read by, when it is a struct (through optionals, not arrays or maps).
pub(crate) fn struct_table(expect: Expect) -> Option<&'static StructTable> {
    match expect {
        Expect::Root(table) => Some(table),
        Expect::Shape(shape) => match strip_optional(shape) {
            Shape::Struct(table) => Some(table),
            _ => None,
        },
        Expect::Nothing => None,
    }
}

/// The shape inside any `Optional`s.
pub(crate) fn strip_optional(mut shape: &'static Shape) -> &'static Shape {
    while let Shape::Optional(inner) = shape {
        shape = inner;
    }
    shape
}

/// Every node of every payload version, bounded by [`Limits::nodes`].
#[derive(Debug)]
pub(crate) struct Tree {
    pub(crate) nodes: Vec<Node>,
    limits: Limits,
    /// Nodes not made because the table was full, or a value nested too deep: their values were
    /// skipped.
    pub(crate) dropped_paths: u64,
    /// Undeclared members not tracked because their object already had the most tracked.
    pub(crate) dropped_members: u64,
    /// Distinct example and value texts not kept (beyond the limits): counted, not kept.
    pub(crate) dropped_values: u64,
}

impl Tree {
    pub(crate) fn new(limits: Limits) -> Self {
        Tree {
            nodes: Vec::new(),
            limits,
            dropped_paths: 0,
            dropped_members: 0,
            dropped_values: 0,
        }
    }

    /// A new root, for a payload version read by `table`.
    pub(crate) fn root(&mut self, table: &'static StructTable) -> NodeId {
        self.push(Node::new(NONE, Segment::Payload, Expect::Root(table), 0))
    }

    fn push(&mut self, node: Node) -> NodeId {
        let id = NodeId::try_from(self.nodes.len()).unwrap_or(NONE);
        self.nodes.push(node);
        id
    }

    fn room_under(&mut self, parent: NodeId) -> Option<u16> {
        let depth = self.nodes[parent as usize].depth + 1;
        if self.nodes.len() >= self.limits.nodes || usize::from(depth) > self.limits.depth {
            self.dropped_paths += 1;
            return None;
        }
        Some(depth)
    }

    /// The node of declared field `index` of `parent` (a struct), made when first seen; `None` when
    /// the table is full (the value is then skipped and counted).
    pub(crate) fn field(&mut self, parent: NodeId, index: usize) -> Option<NodeId> {
        let existing = *self.nodes[parent as usize].fields.get(index)?;
        if existing != NONE {
            return Some(existing);
        }
        let table = struct_table(self.nodes[parent as usize].expect)?;
        let depth = self.room_under(parent)?;
        let expect = Expect::Shape(&table.shapes[index]);
        let id = self.push(Node::new(
            parent,
            Segment::Field(table.fields[index]),
            expect,
            depth,
        ));
        self.nodes[parent as usize].fields[index] = id;
        Some(id)
    }

    /// The node of the items (or map values) of `parent`, of `shape`.
    pub(crate) fn item(
        &mut self,
        parent: NodeId,
        shape: &'static Shape,
        segment: Segment,
    ) -> Option<NodeId> {
        let existing = self.nodes[parent as usize].item;
        if existing != NONE {
            return Some(existing);
        }
        let depth = self.room_under(parent)?;
        let expect = Expect::Shape(shape);
        let id = self.push(Node::new(parent, segment, expect, depth));
        self.nodes[parent as usize].item = id;
        Some(id)
    }

    /// The node of undeclared member `name` of `parent`.
    pub(crate) fn unknown(&mut self, parent: NodeId, name: &str) -> Option<NodeId> {
        let node = &self.nodes[parent as usize];
        for &child in &node.unknown {
            if matches!(&self.nodes[child as usize].segment, Segment::Unknown(n) if &**n == name) {
                return Some(child);
            }
        }
        if node.unknown.len() >= self.limits.members_per_object {
            self.dropped_members += 1;
            return None;
        }
        let depth = self.room_under(parent)?;
        let id = self.push(Node::new(
            parent,
            Segment::Unknown(name.into()),
            Expect::Nothing,
            depth,
        ));
        self.nodes[parent as usize].unknown.push(id);
        Some(id)
    }

    /// Applies one event's observations.
    pub(crate) fn apply(&mut self, journal: &Journal, event: u64) {
        for observation in &journal.observations {
            let node = &mut self.nodes[observation.node as usize];
            match observation.what {
                What::Present => node.present.add(event),
                What::Null => node.null.add(event),
                What::Missing => node.missing.add(event),
                What::Wrong(seen) => {
                    node.wrong[seen as usize].add(event);
                    if node.example.is_none() {
                        node.example = observation.text.map(|text| journal.text(text).into());
                    }
                }
                What::OutOfRange => node.out_of_range.add(event),
                What::Member { seen, first_item } => {
                    node.present.add(event);
                    node.seen[seen as usize] += 1;
                    if let Some(item) = first_item {
                        node.items_seen[item as usize] += 1;
                    }
                    if node.example.is_none() {
                        node.example = observation.text.map(|text| journal.text(text).into());
                    }
                }
                What::Value => {
                    let text = observation.text.map_or("", |text| journal.text(text));
                    let limit = self.limits.enum_values;
                    let longest = self.limits.enum_value_bytes;
                    if let Values::Few(values) = &mut node.values {
                        if let Some(entry) = values.iter_mut().find(|(v, _)| &**v == text) {
                            entry.1 += 1;
                        } else if values.len() < limit && text.len() <= longest {
                            values.push((text.into(), 1));
                        } else {
                            node.values = Values::Many;
                        }
                    }
                }
                What::TooLong => {
                    if matches!(node.values, Values::Few(_)) {
                        node.values = Values::Many;
                        self.dropped_values += 1;
                    }
                }
            }
        }
    }
}

/// What was observed at a node.
#[derive(Debug, Clone, Copy)]
pub(crate) enum What {
    Present,
    Null,
    Missing,
    Wrong(JsonType),
    OutOfRange,
    /// An undeclared member, of this JSON type (and, for an array, its first item's).
    Member {
        seen: JsonType,
        first_item: Option<JsonType>,
    },
    /// A string value of a tracked string field (its text).
    Value,
    /// A string value too long to be an enumeration's.
    TooLong,
}

/// A piece of [`Journal::scratch`].
#[derive(Debug, Clone, Copy)]
pub(crate) struct Text {
    start: u32,
    end: u32,
}

/// One observation.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Observation {
    pub(crate) node: NodeId,
    pub(crate) what: What,
    pub(crate) text: Option<Text>,
}

/// One event's observations, applied to the tree only once its line proved whole JSON (a line cut
/// short counts as malformed and changes no count). Reused from event to event.
#[derive(Debug, Default)]
pub(crate) struct Journal {
    pub(crate) observations: Vec<Observation>,
    scratch: String,
}

impl Journal {
    /// Empties the journal for the next event; what a very large line made it grow to is given back.
    pub(crate) fn clear(&mut self) {
        const KEPT: usize = 1 << 14;
        self.observations.clear();
        self.scratch.clear();
        if self.observations.capacity() > KEPT {
            self.observations.shrink_to(KEPT);
        }
        if self.scratch.capacity() > KEPT * 16 {
            self.scratch.shrink_to(KEPT * 16);
        }
    }

    #[inline]
    pub(crate) fn note(&mut self, node: NodeId, what: What) {
        self.observations.push(Observation {
            node,
            what,
            text: None,
        });
    }

    /// Notes an observation with a text (copied, at most `limit` bytes, cut at a character boundary
    /// with `…` when longer).
    pub(crate) fn note_text(&mut self, node: NodeId, what: What, text: &str, limit: usize) {
        let start = self.scratch.len();
        if text.len() <= limit {
            self.scratch.push_str(text);
        } else {
            let mut end = limit;
            while !text.is_char_boundary(end) {
                end -= 1;
            }
            self.scratch.push_str(&text[..end]);
            self.scratch.push('…');
        }
        let (Ok(start), Ok(end)) = (u32::try_from(start), u32::try_from(self.scratch.len())) else {
            return self.note(node, what);
        };
        self.observations.push(Observation {
            node,
            what,
            text: Some(Text { start, end }),
        });
    }

    fn text(&self, text: Text) -> &str {
        self.scratch
            .get(text.start as usize..text.end as usize)
            .unwrap_or("")
    }
}
