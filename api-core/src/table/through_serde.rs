//! The table read through any serde deserializer, in any format: the engine behind every generated
//! `Deserialize`.

use super::*;
use crate::borrowed::StringVisitor;

/// Which forms of a struct a reading accepts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Forms {
    /// What serde's derive accepts, in any format: a map of fields, or a sequence of them in declared
    /// order (an optional field, `#[serde(default)]`, may be left off its end); a struct that keeps
    /// unlisted members (`#[serde(flatten)]`) only as a map, asked for with `deserialize_map`.
    Derived,
    /// A JSON object only: what the decoders of a generated crate accept (`Event::decode`,
    /// `validate`), so that a payload written as an array is not an event.
    Objects,
}

/// Reads a struct of `shape` from any serde deserializer, as serde's derive reads the same struct (with
/// `#[serde(default)]` on optional fields and `#[serde(flatten)]` on kept unlisted members): a map of its
/// fields, or a sequence of them in declared order, in any format; the values, and the errors, are
/// those of the derive.
pub fn deserialize<'de, D: Deserializer<'de>>(
    deserializer: D,
    shape: &'static StructTable,
    mode: Mode,
) -> Result<Box<Fields<'de>>, D::Error> {
    read_struct(deserializer, shape, mode, Forms::Derived)
}

/// Reads a struct of `shape` as [`deserialize`] does, but only from a map (a JSON object), at every
/// depth: how the decoders of a generated crate read payloads (`EventKind` as a `DeserializeSeed`), so
/// that `Event::decode` and `validate` refuse a payload written as an array, as the shape checker
/// ([`crate::shape`]) does.
pub fn deserialize_object<'de, D: Deserializer<'de>>(
    deserializer: D,
    shape: &'static StructTable,
    mode: Mode,
) -> Result<Box<Fields<'de>>, D::Error> {
    read_struct(deserializer, shape, mode, Forms::Objects)
}

/// Reads a whole JSON text as a struct of `shape`, as [`deserialize_object`] does, then checks that only
/// whitespace follows it: the slow path of a generated crate's decoders. Not generic, so serde_json's
/// deserializer over the table reader (about 300 functions) is compiled once, here, not in every build
/// of every generated crate.
pub fn deserialize_json_object<'de>(
    text: &'de str,
    shape: &'static StructTable,
    mode: Mode,
) -> Result<Box<Fields<'de>>, serde_json::Error> {
    let mut deserializer = serde_json::Deserializer::from_str(text);
    let fields = deserialize_object(&mut deserializer, shape, mode)?;
    deserializer.end()?;
    Ok(fields)
}

fn read_struct<'de, D: Deserializer<'de>>(
    deserializer: D,
    shape: &'static StructTable,
    mode: Mode,
    forms: Forms,
) -> Result<Box<Fields<'de>>, D::Error> {
    let mut fields = Box::new(Fields::of(shape));
    read_struct_into(deserializer, shape, mode, forms, &mut fields)?;
    Ok(fields)
}

/// Reads a struct of `shape` into `fields` (made by [`Fields::of`] for it), in place: a struct read
/// through serde is read and built without a heap allocation of its own, as the fast reader's is.
fn read_struct_into<'de, D: Deserializer<'de>>(
    deserializer: D,
    shape: &'static StructTable,
    mode: Mode,
    forms: Forms,
    fields: &mut Fields<'de>,
) -> Result<(), D::Error> {
    let visitor = StructVisitor {
        shape,
        mode,
        forms,
        fields,
    };
    if shape.keep_unlisted && forms == Forms::Derived {
        // As the derive asks for a struct with a flattened field.
        deserializer.deserialize_map(visitor)
    } else {
        deserializer.deserialize_struct(shape.rust_name(), shape.fields, visitor)
    }
}

/// Reads a struct with [`deserialize`] by its table, then makes it ([`FromFields`]): a generated
/// struct's `Deserialize` impl.
pub fn deserialize_into<'de, D: Deserializer<'de>, T: FromFields<'de>>(
    deserializer: D,
) -> Result<T, D::Error> {
    let mut fields = Fields::of(T::TABLE);
    read_struct_into(deserializer, T::TABLE, T::MODE, Forms::Derived, &mut fields)?;
    T::from_fields(&mut fields).ok_or_else(|| de::Error::custom(MISMATCH))
}

/// Reads a struct's members into the fields it was given.
struct StructVisitor<'f, 'de> {
    shape: &'static StructTable,
    mode: Mode,
    forms: Forms,
    fields: &'f mut Fields<'de>,
}

impl StructVisitor<'_, '_> {
    fn seed(&self, i: usize) -> ValueSeed {
        ValueSeed {
            shape: &self.shape.shapes[i],
            mode: self.mode,
            forms: self.forms,
        }
    }
}

impl<'de> Visitor<'de> for StructVisitor<'_, 'de> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.shape.name)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let shape = self.shape;
        let mut next = 0;
        while let Some(key) = map.next_key_seed(Key {
            fields: shape.fields,
            aliases: shape.aliases,
            by_name: shape.by_name,
            next: &mut next,
            keep_unknown: shape.keep_unlisted,
        })? {
            match key {
                FieldKey::Known(i) => {
                    let seed = self.seed(i);
                    match self.fields.slot(i) {
                        Some(slot @ None) => *slot = Some(map.next_value_seed(seed)?),
                        Some(Some(_)) => {
                            return Err(de::Error::duplicate_field(shape.fields[i]));
                        }
                        None => return Err(de::Error::custom(MISMATCH)),
                    }
                }
                FieldKey::Unknown(Some(name)) => {
                    let text = map.next_value::<RawJson>()?;
                    self.fields.keep(name, text);
                }
                FieldKey::Unknown(None) => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        for (i, slot) in self.fields.slots().enumerate() {
            if slot.is_none() && shape.is_required(i) {
                return Err(de::Error::missing_field(shape.fields[i]));
            }
        }
        Ok(())
    }

    /// The fields in declared order, as the derive reads a struct written as a sequence.
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let shape = self.shape;
        if self.forms == Forms::Objects || shape.keep_unlisted {
            return Err(de::Error::invalid_type(de::Unexpected::Seq, &self));
        }
        for i in 0..shape.fields.len() {
            match seq.next_element_seed(self.seed(i))? {
                Some(value) => match self.fields.slot(i) {
                    Some(slot) => *slot = Some(value),
                    None => return Err(de::Error::custom(MISMATCH)),
                },
                // An optional field (`#[serde(default)]` to the derive) left off the end is `None`.
                None if shape.omit_none[i] => {}
                None => {
                    let expected = InOrder {
                        expecting: shape.name,
                        count: shape.fields.len(),
                    };
                    return Err(de::Error::invalid_length(i, &expected));
                }
            }
        }
        Ok(())
    }
}

/// What a struct written as a sequence is expected to be, in the words of serde's derive
/// (`struct Ledger with 3 elements`).
#[derive(Debug, Clone, Copy)]
pub struct InOrder {
    /// The struct as serde names it: `struct Ledger`.
    pub expecting: &'static str,
    /// How many fields it has.
    pub count: usize,
}

impl de::Expected for InOrder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.count {
            1 => write!(f, "{} with 1 element", self.expecting),
            n => write!(f, "{} with {n} elements", self.expecting),
        }
    }
}

/// A value of one shape, read by the `Deserialize` impl of the Rust type the shape stands for (so the
/// errors are that impl's).
#[derive(Clone, Copy)]
struct ValueSeed {
    shape: &'static Shape,
    mode: Mode,
    forms: Forms,
}

impl<'de> DeserializeSeed<'de> for ValueSeed {
    type Value = Slot<'de>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Slot<'de>, D::Error> {
        let (mode, forms) = (self.mode, self.forms);
        let inner = |shape| ValueSeed { shape, mode, forms };
        match (self.shape, mode) {
            // Asked for as `String` and `CowStr` ask, the slot made by the visitor: made from the
            // `String` returned, it was copied through memory in pieces that the processor could not
            // forward from the stores just made (6 % of reading through serde, `BENCHMARKS.md` section 22).
            (Shape::Str, Mode::Owned) => deserializer.deserialize_string(StringVisitor {
                borrow: false,
                make: Slot::Str,
            }),
            (Shape::Str, Mode::Borrowed) => deserializer.deserialize_str(StringVisitor {
                borrow: true,
                make: Slot::Str,
            }),
            (Shape::Int, _) => i64::deserialize(deserializer).map(Slot::Int),
            (Shape::Num, _) => f64::deserialize(deserializer).map(Slot::Num),
            (Shape::Bool, _) => bool::deserialize(deserializer).map(Slot::Bool),
            #[cfg(feature = "jiff")]
            (Shape::Timestamp, _) => {
                jiff::Timestamp::deserialize(deserializer).map(Slot::Timestamp)
            }
            (Shape::Obj, Mode::Owned) => Map::deserialize(deserializer).map(Slot::Map),
            (Shape::Obj, Mode::Borrowed) => RawObject::deserialize(deserializer).map(Slot::Raw),
            (Shape::Array(item), _) => deserializer.deserialize_seq(ArrayVisitor(inner(item))),
            (Shape::Map(value), _) => deserializer.deserialize_map(EntriesVisitor(inner(value))),
            (Shape::Struct(shape), _) => {
                read_struct(deserializer, shape, mode, forms).map(Slot::Struct)
            }
            (Shape::Optional(shape), _) => {
                deserializer.deserialize_option(OptionVisitor(inner(shape)))
            }
        }
    }
}

/// An array, read as `Vec<T>` reads it.
struct ArrayVisitor(ValueSeed);

impl<'de> Visitor<'de> for ArrayVisitor {
    type Value = Slot<'de>;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a sequence")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Slot<'de>, A::Error> {
        // As serde's `Vec<T>`: a cautious capacity, whatever the input says.
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(4096));
        while let Some(item) = seq.next_element_seed(self.0)? {
            items.push(item);
        }
        Ok(Slot::Array(items))
    }
}

/// An object of values of one shape, read as `BTreeMap<String, T>` reads it.
struct EntriesVisitor(ValueSeed);

impl<'de> Visitor<'de> for EntriesVisitor {
    type Value = Slot<'de>;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a map")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Slot<'de>, A::Error> {
        let mut entries = Vec::new();
        loop {
            // Keys as the map's key type reads them: `String` owned, `CowStr` borrowed.
            let key = match self.0.mode {
                Mode::Owned => map.next_key::<String>()?.map(Cow::Owned),
                Mode::Borrowed => map.next_key::<CowStr<'de>>()?.map(|k| k.0),
            };
            let Some(key) = key else {
                return Ok(Slot::Entries(entries));
            };
            let value = map.next_value_seed(self.0)?;
            entries.push((key, value));
        }
    }
}

/// `null` or a value, read as `Option<T>` reads it.
struct OptionVisitor(ValueSeed);

impl<'de> Visitor<'de> for OptionVisitor {
    type Value = Slot<'de>;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("option")
    }
    fn visit_none<E: de::Error>(self) -> Result<Slot<'de>, E> {
        Ok(Slot::Null)
    }
    fn visit_unit<E: de::Error>(self) -> Result<Slot<'de>, E> {
        Ok(Slot::Null)
    }
    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<Slot<'de>, D::Error> {
        self.0.deserialize(deserializer)
    }
}
