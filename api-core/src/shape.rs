//! Checking payloads against their tables without building them: no allocation, the same verdict.
//!
//! An adapter over [`crate::table`]: it walks the same tables the reader reads by, through the same
//! serde calls, keeping nothing. It accepts exactly what the tables' reader accepts, so that a check
//! and a decode of the same bytes always agree (the differential test `tests/shape_agrees.rs` holds it
//! to that); a failure is then explained by decoding.

use crate::table::{FieldKey, Key};
use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use std::fmt;

pub use crate::table::{Shape, StructTable};

/// Checks a struct of `shape` read from `deserializer`, keeping nothing.
pub fn check_struct<'de, D: Deserializer<'de>>(
    shape: &'static StructTable,
    deserializer: D,
) -> Result<(), D::Error> {
    deserializer.deserialize_struct(shape.name, shape.fields, StructCheck(shape))
}

/// Checks a whole JSON text as a struct of `shape`, as [`check_struct`] does, then that only whitespace
/// follows it. Not generic, so serde_json's deserializer over the checker is compiled once, here, not in
/// every build of every generated crate.
pub fn check_json_struct(shape: &'static StructTable, text: &str) -> Result<(), serde_json::Error> {
    let mut deserializer = serde_json::Deserializer::from_str(text);
    check_struct(shape, &mut deserializer)?;
    deserializer.end()
}

/// Checks a value of `shape` read from `deserializer`, keeping nothing.
pub fn check_value<'de, D: Deserializer<'de>>(
    shape: &'static Shape,
    deserializer: D,
) -> Result<(), D::Error> {
    Check(shape).deserialize(deserializer)
}

/// Checks a value of a shape, keeping nothing.
#[derive(Clone, Copy)]
struct Check(&'static Shape);

impl<'de> DeserializeSeed<'de> for Check {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        match self.0 {
            Shape::Str => deserializer.deserialize_str(Scalar::Str),
            Shape::Int => deserializer.deserialize_i64(Scalar::Int),
            Shape::Num => deserializer.deserialize_f64(Scalar::Num),
            Shape::Bool => deserializer.deserialize_bool(Scalar::Bool),
            #[cfg(feature = "jiff")]
            Shape::Timestamp => {
                <jiff::Timestamp as serde::Deserialize>::deserialize(deserializer).map(drop)
            }
            Shape::Obj => crate::borrowed::check_free_form(deserializer),
            Shape::Array(item) => deserializer.deserialize_seq(Array(item)),
            Shape::Map(value) => deserializer.deserialize_map(ValueMap(value)),
            Shape::Struct(shape) => check_struct(shape, deserializer),
            Shape::Optional(inner) => deserializer.deserialize_option(Optional(inner)),
        }
    }
}

/// A scalar of one kind; its errors are those of the Rust type it stands for.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Scalar {
    Str,
    Int,
    Num,
    Bool,
}

impl Scalar {
    fn accept<E: de::Error>(self, ok: bool, unexpected: de::Unexpected<'_>) -> Result<(), E> {
        if ok {
            Ok(())
        } else {
            Err(E::invalid_type(unexpected, &self))
        }
    }
}

impl<'de> Visitor<'de> for Scalar {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // As serde names the Rust types: `String`, `i64`, `f64`, `bool`.
        f.write_str(match self {
            Self::Str => "a string",
            Self::Int => "i64",
            Self::Num => "f64",
            Self::Bool => "a boolean",
        })
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<(), E> {
        self.accept(self == Self::Str, de::Unexpected::Str(v))
    }
    fn visit_bool<E: de::Error>(self, v: bool) -> Result<(), E> {
        self.accept(self == Self::Bool, de::Unexpected::Bool(v))
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<(), E> {
        self.accept(
            matches!(self, Self::Int | Self::Num),
            de::Unexpected::Signed(v),
        )
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<(), E> {
        match self {
            Self::Num => Ok(()),
            Self::Int if i64::try_from(v).is_ok() => Ok(()),
            // Beyond `i64`: the value, not its type, is wrong (as serde says for `i64`).
            Self::Int => Err(E::invalid_value(de::Unexpected::Unsigned(v), &self)),
            _ => Err(E::invalid_type(de::Unexpected::Unsigned(v), &self)),
        }
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<(), E> {
        self.accept(self == Self::Num, de::Unexpected::Float(v))
    }
}

/// `null` or a value of the inner shape, as `Option<T>` reads.
struct Optional(&'static Shape);

impl<'de> Visitor<'de> for Optional {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("option")
    }
    fn visit_none<E: de::Error>(self) -> Result<(), E> {
        Ok(())
    }
    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        Ok(())
    }
    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        Check(self.0).deserialize(deserializer)
    }
}

/// An array whose items have one shape.
struct Array(&'static Shape);

impl<'de> Visitor<'de> for Array {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a sequence")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while seq.next_element_seed(Check(self.0))?.is_some() {}
        Ok(())
    }
}

/// An object of values of one shape, checked as `BTreeMap<String, T>` reads it.
struct ValueMap(&'static Shape);

impl<'de> Visitor<'de> for ValueMap {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a map")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        while map.next_key_seed(Check(&Shape::Str))?.is_some() {
            map.next_value_seed(Check(self.0))?;
        }
        Ok(())
    }
}

/// A struct: known fields checked by shape, each at most once, the required ones present.
struct StructCheck(&'static StructTable);

impl<'de> Visitor<'de> for StructCheck {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.0.name)
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let shape = self.0;
        let mut seen = Seen::new(shape.fields.len());
        let mut next = 0;
        while let Some(field) = map.next_key_seed(Key {
            fields: shape.fields,
            aliases: shape.aliases,
            by_name: shape.by_name,
            next: &mut next,
            keep_unknown: false,
        })? {
            match field {
                FieldKey::Known(i) => {
                    if !seen.insert(i) {
                        return Err(<A::Error as de::Error>::duplicate_field(shape.fields[i]));
                    }
                    map.next_value_seed(Check(&shape.shapes[i]))?;
                }
                // Skipped, or kept as its text (`RawJson`): either way any JSON value is accepted.
                FieldKey::Unknown(_) => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        for i in 0..shape.fields.len() {
            if shape.is_required(i) && !seen.contains(i) {
                return Err(<A::Error as de::Error>::missing_field(shape.fields[i]));
            }
        }
        Ok(())
    }
}

/// Which fields were seen: bits for up to 128 fields, without allocating.
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

    /// Marks field `i`; false when it was seen already.
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
