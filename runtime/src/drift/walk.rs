//! Walking a payload against its table: every value compared with what the schema says of its path,
//! what differs noted in a [`Journal`]. One pass of serde_json over the text, keeping nothing but the
//! notes (and the nodes of paths seen for the first time).

use super::JsonType;
use super::tree::{Expect, Journal, NodeId, Segment, Tree, What, strip_optional, struct_table};
use energy_api_core::table::{Shape, StructTable};
use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;
use std::fmt;

/// What a walk needs: the tree (nodes are made as paths are first seen), the journal, and the limits
/// of texts kept.
pub(crate) struct Walker<'t> {
    pub(crate) tree: &'t mut Tree,
    pub(crate) journal: &'t mut Journal,
    pub(crate) example_bytes: usize,
    pub(crate) value_bytes: usize,
    /// Set when the payload repeats a declared field: the line is then malformed (as `validate` says).
    pub(crate) duplicate: bool,
}

impl Walker<'_> {
    /// Walks a payload (whatever its JSON type) at root `node`.
    pub(crate) fn payload<'de, D: Deserializer<'de>>(
        &mut self,
        node: NodeId,
        deserializer: D,
    ) -> Result<(), D::Error> {
        Value { walker: self, node }.deserialize(deserializer)
    }
}

/// A value at a node.
struct Value<'w, 't> {
    walker: &'w mut Walker<'t>,
    node: NodeId,
}

impl<'de> DeserializeSeed<'de> for Value<'_, '_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl Value<'_, '_> {
    fn expect(&self) -> Expect {
        self.walker.tree.nodes[self.node as usize].expect
    }

    /// The shape of the value, past `Optional`s, and whether `null` is allowed.
    fn shape(&self) -> (Option<&'static Shape>, bool) {
        match self.expect() {
            Expect::Shape(shape) => (
                Some(strip_optional(shape)),
                matches!(shape, Shape::Optional(_)),
            ),
            Expect::Root(_) | Expect::Nothing => (None, false),
        }
    }

    /// Notes the value as sent: for a declared field (an optional one never sent is reported) and
    /// for a struct (its optional fields are reported only where it was sent). Items of arrays and
    /// values of maps that are not structs need no note.
    fn present(&mut self) {
        let node = &self.walker.tree.nodes[self.node as usize];
        if matches!(node.segment, Segment::Field(_)) || struct_table(node.expect).is_some() {
            self.walker.journal.note(self.node, What::Present);
        }
    }

    fn wrong(&mut self, seen: JsonType, example: &str) {
        let limit = self.walker.example_bytes;
        self.walker
            .journal
            .note_text(self.node, What::Wrong(seen), example, limit);
    }

    /// A scalar of JSON type `seen`: as the schema says, or of the wrong type.
    fn scalar(mut self, seen: JsonType, text: &dyn fmt::Display) {
        let (shape, _) = self.shape();
        let ok = matches!(
            (shape, seen),
            (Some(Shape::Num), JsonType::Integer | JsonType::Number)
                | (Some(Shape::Int), JsonType::Integer)
                | (Some(Shape::Bool), JsonType::Boolean)
        );
        if ok {
            self.present();
        } else {
            self.wrong(seen, &text.to_string());
        }
    }
}

impl<'de> Visitor<'de> for Value<'_, '_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        let (shape, nullable) = self.shape();
        if !nullable {
            let node = self.node;
            match shape {
                Some(_) => self.walker.journal.note(node, What::Null),
                // `null` as the whole payload: a payload of the wrong type.
                None => self
                    .walker
                    .journal
                    .note_text(node, What::Wrong(JsonType::Null), "null", 8),
            }
        }
        Ok(())
    }

    fn visit_none<E: de::Error>(self) -> Result<(), E> {
        self.visit_unit()
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<(), E> {
        self.scalar(JsonType::Boolean, &v);
        Ok(())
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<(), E> {
        self.scalar(JsonType::Integer, &v);
        Ok(())
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<(), E> {
        if matches!(self.shape().0, Some(Shape::Int)) && i64::try_from(v).is_err() {
            self.walker.journal.note(self.node, What::OutOfRange);
            return Ok(());
        }
        self.scalar(JsonType::Integer, &v);
        Ok(())
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<(), E> {
        // An integer beyond `u64` is read as a float: beyond the range of `int`, not of another type.
        if matches!(self.shape().0, Some(Shape::Int))
            && v.fract() == 0.0
            && v.abs() >= 2f64.powi(63)
        {
            self.walker.journal.note(self.node, What::OutOfRange);
            return Ok(());
        }
        self.scalar(JsonType::Number, &v);
        Ok(())
    }

    fn visit_str<E: de::Error>(mut self, v: &str) -> Result<(), E> {
        match self.shape().0 {
            Some(Shape::Str | Shape::Timestamp) => {
                self.present();
                if self.walker.tree.nodes[self.node as usize].tracks_values() {
                    let limit = self.walker.value_bytes;
                    if v.len() > limit {
                        self.walker.journal.note(self.node, What::TooLong);
                    } else {
                        self.walker
                            .journal
                            .note_text(self.node, What::Value, v, limit);
                    }
                }
            }
            _ => {
                let quoted = serde_json::to_string(v).unwrap_or_default();
                self.wrong(JsonType::String, &quoted);
            }
        }
        Ok(())
    }

    fn visit_seq<A: SeqAccess<'de>>(mut self, mut seq: A) -> Result<(), A::Error> {
        let item = match self.shape().0 {
            Some(Shape::Array(item)) => *item,
            _ => {
                self.wrong(JsonType::Array, "[…]");
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                return Ok(());
            }
        };
        self.present();
        let child = self.walker.tree.item(self.node, item, Segment::Item);
        match child {
            Some(child) => {
                while seq
                    .next_element_seed(Value {
                        walker: self.walker,
                        node: child,
                    })?
                    .is_some()
                {}
            }
            None => while seq.next_element::<IgnoredAny>()?.is_some() {},
        }
        Ok(())
    }

    fn visit_map<A: MapAccess<'de>>(mut self, mut map: A) -> Result<(), A::Error> {
        let expect = self.expect();
        if let Some(table) = struct_table(expect) {
            self.present();
            return walk_struct(self.walker, self.node, table, map);
        }
        match self.shape().0 {
            Some(Shape::Map(value)) => {
                self.present();
                let child = self.walker.tree.item(self.node, value, Segment::Value);
                while map.next_key::<IgnoredAny>()?.is_some() {
                    match child {
                        Some(child) => map.next_value_seed(Value {
                            walker: self.walker,
                            node: child,
                        })?,
                        None => {
                            map.next_value::<IgnoredAny>()?;
                        }
                    }
                }
            }
            Some(Shape::Obj) => {
                self.present();
                while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
            }
            _ => {
                self.wrong(JsonType::Object, "{…}");
                while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
            }
        }
        Ok(())
    }
}

/// A struct's members: declared ones walked at their nodes, each at most once; undeclared ones noted
/// with their JSON type and an example; required ones absent noted.
fn walk_struct<'de, A: MapAccess<'de>>(
    walker: &mut Walker<'_>,
    node: NodeId,
    table: &'static StructTable,
    mut map: A,
) -> Result<(), A::Error> {
    let mut seen = Seen::new(table.fields.len());
    let mut next = 0;
    let mut name = String::new();
    while let Some(key) = map.next_key_seed(KeySeed {
        table,
        next: &mut next,
        name: &mut name,
    })? {
        match key {
            Some(index) => {
                if !seen.insert(index) {
                    walker.duplicate = true;
                    return Err(de::Error::duplicate_field(table.fields[index]));
                }
                match walker.tree.field(node, index) {
                    Some(child) => map.next_value_seed(Value {
                        walker: &mut *walker,
                        node: child,
                    })?,
                    None => {
                        map.next_value::<IgnoredAny>()?;
                    }
                }
            }
            None => {
                let raw: &RawValue = map.next_value()?;
                if let Some(child) = walker.tree.unknown(node, &name) {
                    let text = raw.get();
                    let seen = JsonType::of_text(text);
                    let first_item = (seen == JsonType::Array)
                        .then(|| {
                            let inner = text.get(1..).unwrap_or("").trim_start();
                            (!inner.starts_with(']')).then(|| JsonType::of_text(inner))
                        })
                        .flatten();
                    let limit = walker.example_bytes;
                    walker
                        .journal
                        .note_text(child, What::Member { seen, first_item }, text, limit);
                }
            }
        }
    }
    for index in 0..table.fields.len() {
        if table.is_required(index)
            && !seen.contains(index)
            && let Some(child) = walker.tree.field(node, index)
        {
            walker.journal.note(child, What::Missing);
        }
    }
    Ok(())
}

/// A member name: `Some(index)` of a declared field (or a former name of one), `None` for another,
/// whose name is left in `name`.
struct KeySeed<'k> {
    table: &'static StructTable,
    next: &'k mut usize,
    name: &'k mut String,
}

impl<'de> DeserializeSeed<'de> for KeySeed<'_> {
    type Value = Option<usize>;
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Option<usize>, D::Error> {
        deserializer.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for KeySeed<'_> {
    type Value = Option<usize>;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a member name")
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Option<usize>, E> {
        let found = energy_api_core::read::find_field(
            self.table.fields,
            self.table.aliases,
            self.table.by_name,
            self.next,
            v.as_bytes(),
        );
        if found.is_none() {
            self.name.clear();
            self.name.push_str(v);
        }
        Ok(found)
    }
}

/// Which declared fields were seen: bits for up to 128 fields, without allocating.
enum Seen {
    Bits(u128),
    Many(Vec<bool>),
}

impl Seen {
    fn new(fields: usize) -> Self {
        if fields <= 128 {
            Seen::Bits(0)
        } else {
            Seen::Many(vec![false; fields])
        }
    }

    fn insert(&mut self, i: usize) -> bool {
        match self {
            Seen::Bits(bits) => {
                let bit = 1u128 << i;
                let fresh = *bits & bit == 0;
                *bits |= bit;
                fresh
            }
            Seen::Many(seen) => !std::mem::replace(&mut seen[i], true),
        }
    }

    fn contains(&self, i: usize) -> bool {
        match self {
            Seen::Bits(bits) => *bits & (1u128 << i) != 0,
            Seen::Many(seen) => seen[i],
        }
    }
}

impl JsonType {
    /// The JSON type of a value's text (valid JSON, leading whitespace skipped).
    pub(crate) fn of_text(text: &str) -> JsonType {
        let text = text.trim_start();
        match text.as_bytes().first() {
            Some(b'n') => JsonType::Null,
            Some(b't' | b'f') => JsonType::Boolean,
            Some(b'"') => JsonType::String,
            Some(b'[') => JsonType::Array,
            Some(b'{') => JsonType::Object,
            _ => {
                let number = text
                    .bytes()
                    .take_while(|b| !matches!(b, b',' | b']' | b'}') && !b.is_ascii_whitespace());
                if number.into_iter().any(|b| matches!(b, b'.' | b'e' | b'E')) {
                    JsonType::Number
                } else {
                    JsonType::Integer
                }
            }
        }
    }
}
