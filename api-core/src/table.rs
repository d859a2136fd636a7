//! The one description of how a payload struct is read: a static table per struct ([`StructShape`]:
//! its JSON field names, former names, the [`Shape`] of each field, which are required, whether it
//! keeps unlisted members), and the one reader of it.
//!
//! The generator writes a table per struct (the generated crate's `shapes` module) and, per struct, only
//! the small [`FromFields`] conversion that moves read values into the struct's fields
//! ([`table_struct!`](crate::table_struct)). Everything that reads is here, once, for every struct:
//!
//! - [`deserialize`]: a serde `Deserialize` of any struct from its table, through any deserializer, in
//!   any format: what serde's derive reads (a map, or a sequence in field order; a struct that keeps
//!   unlisted members, a map only), and the values and the errors (kinds, messages, positions) are the
//!   derive's, because every value is read by the same `Deserialize` impls of `String`, `i64`, `f64`,
//!   `bool`, `serde_json::Map`, [`CowStr`] and [`RawObject`]; [`deserialize_object`] reads JSON objects
//!   only, as the decoders of a generated crate do;
//! - [`read`]: the fast reader ([`crate::read::Reader`]) walking the same table over JSON text, which
//!   stops where it is not sure (and the caller then decodes with [`deserialize_object`]);
//! - the shape check of [`crate::shape`] walks the same tables without keeping anything.
//!
//! Each reads into [`Fields`] (a slot per field), which the struct's [`FromFields`] takes apart. An owned
//! struct and its borrowed view share one table; [`Mode`] says whether strings and free-form objects are
//! copied out of the input or point into it.
//!
//! And one writer, [`Writer`]: the calls serde's derive makes, a field at a time.

use crate::borrowed::{CowStr, RawObject};
use crate::raw::{RawJson, Unlisted};
use crate::read::{Member, Reader, Stop};
use serde::de::{
    self, Deserialize, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor,
};
use serde_json::{Map, Value};
use std::borrow::Cow;
use std::fmt;

/// The shape of a value.
#[derive(Debug)]
pub enum Shape {
    /// A string.
    Str,
    /// An integer that fits `i64`.
    Int,
    /// A number (integers too).
    Num,
    /// A boolean.
    Bool,
    /// A free-form JSON object (what `serde_json::Map` accepts).
    Obj,
    /// An array of values of one shape.
    Array(&'static Shape),
    /// An object whose member names are data, each value of one shape (`BTreeMap<String, T>`; `null`
    /// is not one, and a repeated name keeps its last value, as serde's map impls do).
    Map(&'static Shape),
    /// A struct.
    Struct(&'static StructShape),
    /// `null`, or a value of the shape.
    Optional(&'static Shape),
}

/// The shape of a struct: the table it is read by.
#[derive(Debug)]
pub struct StructShape {
    /// As serde names it in messages: `struct Ledger`.
    pub name: &'static str,
    /// JSON field names, in declared order.
    pub fields: &'static [&'static str],
    /// Former names of fields, each with its field's index: read as the field.
    pub aliases: &'static [(&'static str, usize)],
    /// The fields in the byte order of their names, as a chain: the first (at 0), then, at `i + 1`, the
    /// field whose name follows field `i`'s (the count of fields after the last). The key expected
    /// when members come sorted, as `serde_json::Value` writes them, where the schema's order fails.
    pub by_name: &'static [usize],
    /// The shape of each field.
    pub shapes: &'static [Shape],
    /// Whether each field is required.
    pub required: &'static [bool],
    /// Whether each field, when `None`, is left out when written (an optional field) rather than
    /// written as `null` (a required, nullable one).
    pub omit_none: &'static [bool],
    /// Whether members the struct does not list are kept (as JSON text) rather than skipped.
    pub keep_unlisted: bool,
}

impl StructShape {
    /// The struct's Rust name, as serde's derive names it to serializers.
    pub fn rust_name(&self) -> &'static str {
        let name: &'static str = self.name;
        name.strip_prefix("struct ").unwrap_or(name)
    }
}

/// A map key, read as a field of the struct being decoded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FieldKey {
    /// The field at this index of the struct's field names.
    Known(usize),
    /// A name the struct does not list: kept (`Some`) when the struct keeps unlisted fields, else only
    /// noted (`None`, nothing allocated).
    Unknown(Option<String>),
}

/// Reads a map key as a [`FieldKey`] of `fields`.
///
/// Keys usually arrive in the order the schema lists them, so the field after the last one found is tried
/// first: a whole object is then read with one comparison per key.
pub struct Key<'h> {
    /// The struct's JSON field names, in declared order.
    pub fields: &'static [&'static str],
    /// Former names of fields (`renamed_from:` in the schema), each with its field's index: read as
    /// the field.
    pub aliases: &'static [(&'static str, usize)],
    /// The fields in name order (see [`StructShape::by_name`]; may be empty).
    pub by_name: &'static [usize],
    /// Where to look first: one past the last field found (start at 0).
    pub next: &'h mut usize,
    /// Whether an unlisted name is kept (for a struct with `additional_fields`).
    pub keep_unknown: bool,
}

impl Key<'_> {
    #[inline]
    fn find(self, name: &[u8]) -> Option<usize> {
        crate::read::find_field(self.fields, self.aliases, self.by_name, self.next, name)
    }

    fn key(self, name: &str) -> FieldKey {
        let keep = self.keep_unknown;
        match self.find(name.as_bytes()) {
            Some(i) => FieldKey::Known(i),
            None => FieldKey::Unknown(keep.then(|| name.to_owned())),
        }
    }
}

impl<'de> DeserializeSeed<'de> for Key<'_> {
    type Value = FieldKey;
    fn deserialize<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<FieldKey, D::Error> {
        deserializer.deserialize_identifier(self)
    }
}

impl<'de> Visitor<'de> for Key<'_> {
    type Value = FieldKey;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a field name")
    }
    fn visit_str<E: de::Error>(self, name: &str) -> Result<FieldKey, E> {
        Ok(self.key(name))
    }
    fn visit_bytes<E: de::Error>(self, name: &[u8]) -> Result<FieldKey, E> {
        match std::str::from_utf8(name) {
            Ok(name) => Ok(self.key(name)),
            Err(_) => Ok(FieldKey::Unknown(None)),
        }
    }
    /// A field by its index, as serde's derive reads one from formats that write fields by number;
    /// an index past the fields is an unknown field.
    fn visit_u64<E: de::Error>(self, index: u64) -> Result<FieldKey, E> {
        match usize::try_from(index) {
            Ok(i) if i < self.fields.len() => {
                *self.next = i + 1;
                Ok(FieldKey::Known(i))
            }
            _ => Ok(FieldKey::Unknown(None)),
        }
    }
}

/// Whether strings and free-form objects are copied out of the input (for the owned structs) or point
/// into it (for the borrowed views: [`CowStr`], [`RawObject`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// `String` and `serde_json::Map`.
    Owned,
    /// [`CowStr`] and [`RawObject`].
    Borrowed,
}

/// One value read by its shape, before it is moved into its struct's field.
#[derive(Debug)]
pub enum Slot<'a> {
    /// `null` (read where the shape is optional).
    Null,
    /// A string: borrowed from the input when it allowed, owned otherwise.
    Str(Cow<'a, str>),
    /// An integer.
    Int(i64),
    /// A number.
    Num(f64),
    /// A boolean.
    Bool(bool),
    /// A free-form object, read as a map ([`Mode::Owned`]).
    Map(Map<String, Value>),
    /// A free-form object, kept as its text ([`Mode::Borrowed`]).
    Raw(RawObject<'a>),
    /// An array.
    Array(Vec<Slot<'a>>),
    /// An object whose member names are data, in the order read.
    Entries(Vec<(Cow<'a, str>, Slot<'a>)>),
    /// A struct.
    Struct(Fields<'a>),
}

// Every value read passes through a slot: kept to four words.
const _: () = assert!(std::mem::size_of::<Slot<'static>>() <= 32);

/// The fields of one struct as read: a slot per declared field (`None` when absent), and the members
/// it keeps without listing them.
///
/// Kept small (a slot holds a struct's fields, and every slot is as large as the largest, so a smaller
/// one is less to write and read for every field): the slots as a boxed slice, the kept members boxed,
/// and only when there are some.
#[derive(Debug)]
pub struct Fields<'a> {
    slots: Box<[Option<Slot<'a>>]>,
    unlisted: Option<Box<Unlisted>>,
}

impl<'a> Fields<'a> {
    #[inline]
    fn new(count: usize) -> Self {
        Fields {
            slots: std::iter::repeat_with(|| None).take(count).collect(),
            unlisted: None,
        }
    }

    fn keep(&mut self, name: String, value: RawJson) {
        self.unlisted.get_or_insert_default().insert(name, value);
    }

    /// The slots in declared order, and the unlisted members: what a struct's [`FromFields`] moves into
    /// its fields.
    pub fn into_parts(self) -> (Slots<'a>, Kept) {
        let slots = Slots {
            slots: self.slots.into_vec().into_iter(),
            ok: true,
        };
        (slots, Kept(self.unlisted))
    }
}

/// The members a struct read kept without listing them (see [`Fields::into_parts`]).
#[derive(Debug)]
pub struct Kept(Option<Box<Unlisted>>);

impl Kept {
    /// The members, for the struct's field that keeps them.
    #[inline]
    pub fn into_unlisted(self) -> Unlisted {
        self.0.map(|kept| *kept).unwrap_or_default()
    }
}

/// The slots of a struct's fields, taken in declared order by its [`FromFields`].
#[derive(Debug)]
pub struct Slots<'a> {
    slots: std::vec::IntoIter<Option<Slot<'a>>>,
    /// Cleared when a slot did not hold what its field takes.
    ok: bool,
}

impl<'a> Slots<'a> {
    /// The next field's value. Where the slot does not hold a `T` (never, for generated code) a
    /// stand-in value is returned and [`Slots::finish`] then gives `None`.
    ///
    /// Infallible on purpose: a `?` per field (an early return, a branch and the drops of the fields
    /// made so far, per field of every struct) was most of a generated crate's code.
    #[inline]
    pub fn take<T: FromSlot<'a>>(&mut self) -> T {
        let slot = self.slots.next().flatten();
        T::from_slot(slot, &mut self.ok)
    }

    /// Clears `ok` unless every slot held what its field takes; returns `value`.
    #[inline]
    pub fn finish<T>(self, ok: &mut bool, value: T) -> T {
        *ok &= self.ok;
        value
    }
}

/// A struct read by a table: the table, and the conversion from the fields it read.
pub trait FromFields<'a>: Sized {
    /// The table the struct is read by.
    const SHAPE: &'static StructShape;
    /// Whether its strings and free-form objects are copied out of the input or point into it.
    const MODE: Mode;
    /// Moves the read values into a struct, clearing `ok` where a slot does not hold what its field
    /// takes (the table and the struct disagree, which the generator never writes: each comes from
    /// the same model); the struct is then made of stand-in values.
    fn build(fields: Fields<'a>, ok: &mut bool) -> Self;

    /// Moves the read values into a struct; `None` only if the table and the struct disagree.
    fn from_fields(fields: Fields<'a>) -> Option<Self> {
        let mut ok = true;
        let value = Self::build(fields, &mut ok);
        if ok { Some(value) } else { None }
    }
}

/// Every struct read by a table is read by the fast reader through it: one impl for all of them, so
/// that a generated crate carries none of its own.
impl<'a, T: FromFields<'a>> crate::read::ReadJson<'a> for T {
    #[inline]
    fn read(reader: &mut Reader<'a>) -> Result<Self, Stop> {
        read_into(reader)
    }
}

/// A field's value made from its slot (`None`: the field was absent).
pub trait FromSlot<'a>: Sized {
    /// The value; where the slot does not hold one of this type, `ok` is cleared and a stand-in
    /// value returned (see [`Slots::take`]).
    fn from_slot(slot: Option<Slot<'a>>, ok: &mut bool) -> Self;
}

/// A scalar field's conversion: the value its slot variant holds, or the stand-in.
macro_rules! scalar_from_slot {
    ($($ty:ty => $variant:ident($value:ident) $made:expr, $stand_in:expr;)*) => {
        $(impl<'a> FromSlot<'a> for $ty {
            #[inline]
            fn from_slot(slot: Option<Slot<'a>>, ok: &mut bool) -> Self {
                match slot {
                    Some(Slot::$variant($value)) => $made,
                    _ => {
                        *ok = false;
                        $stand_in
                    }
                }
            }
        })*
    };
}

scalar_from_slot! {
    String => Str(s) s.into_owned(), String::new();
    CowStr<'a> => Str(s) CowStr(s), CowStr(Cow::Borrowed(""));
    i64 => Int(v) v, 0;
    f64 => Num(v) v, 0.0;
    bool => Bool(v) v, false;
    Map<String, Value> => Map(map) map, Map::new();
    RawObject<'a> => Raw(raw) raw, RawObject::from_text("null");
}

/// Absent and `null` are both `None`.
impl<'a, T: FromSlot<'a>> FromSlot<'a> for Option<T> {
    #[inline]
    fn from_slot(slot: Option<Slot<'a>>, ok: &mut bool) -> Self {
        match slot {
            None | Some(Slot::Null) => None,
            some => Some(T::from_slot(some, ok)),
        }
    }
}

// Loops rather than iterator adapters: `collect` instantiates much of std's iterator machinery for
// every element type.
impl<'a, T: FromSlot<'a>> FromSlot<'a> for Vec<T> {
    fn from_slot(slot: Option<Slot<'a>>, ok: &mut bool) -> Self {
        let Some(Slot::Array(items)) = slot else {
            *ok = false;
            return Vec::new();
        };
        let mut values = Vec::with_capacity(items.len());
        for item in items {
            values.push(T::from_slot(Some(item), ok));
        }
        values
    }
}

/// A later member of the same name replaces an earlier one, as serde's map impls do.
impl<'a, K: From<Cow<'a, str>> + Ord, T: FromSlot<'a>> FromSlot<'a>
    for std::collections::BTreeMap<K, T>
{
    fn from_slot(slot: Option<Slot<'a>>, ok: &mut bool) -> Self {
        let mut map = std::collections::BTreeMap::new();
        let Some(Slot::Entries(entries)) = slot else {
            *ok = false;
            return map;
        };
        for (name, value) in entries {
            map.insert(K::from(name), T::from_slot(Some(value), ok));
        }
        map
    }
}

impl<'a, T: FromSlot<'a>> FromSlot<'a> for Box<T> {
    fn from_slot(slot: Option<Slot<'a>>, ok: &mut bool) -> Self {
        Box::new(T::from_slot(slot, ok))
    }
}

impl<'a> From<Cow<'a, str>> for CowStr<'a> {
    fn from(s: Cow<'a, str>) -> Self {
        CowStr(s)
    }
}

/// The struct of a slot: every generated struct a field holds is made through its [`FromFields`]
/// (from no fields at all, a stand-in, when the slot holds no struct: the checker refuses a type that
/// holds itself through required fields only, so this ends).
#[inline]
pub fn struct_from_slot<'a, T: FromFields<'a>>(slot: Option<Slot<'a>>, ok: &mut bool) -> T {
    match slot {
        Some(Slot::Struct(fields)) => T::build(fields, ok),
        _ => {
            *ok = false;
            T::build(Fields::new(0), ok)
        }
    }
}

/// The message of the error a table that disagrees with its struct would give (never, for generated
/// code): a bug of the generator, not of the input.
pub const MISMATCH: &str = "internal error: a generated table does not match its struct";

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
    shape: &'static StructShape,
    mode: Mode,
) -> Result<Fields<'de>, D::Error> {
    read_struct(deserializer, shape, mode, Forms::Derived)
}

/// Reads a struct of `shape` as [`deserialize`] does, but only from a map (a JSON object), at every
/// depth: how the decoders of a generated crate read payloads (`EventKind` as a `DeserializeSeed`), so
/// that `Event::decode` and `validate` refuse a payload written as an array, as the shape checker
/// ([`crate::shape`]) does.
pub fn deserialize_object<'de, D: Deserializer<'de>>(
    deserializer: D,
    shape: &'static StructShape,
    mode: Mode,
) -> Result<Fields<'de>, D::Error> {
    read_struct(deserializer, shape, mode, Forms::Objects)
}

fn read_struct<'de, D: Deserializer<'de>>(
    deserializer: D,
    shape: &'static StructShape,
    mode: Mode,
    forms: Forms,
) -> Result<Fields<'de>, D::Error> {
    let visitor = StructVisitor { shape, mode, forms };
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
    let fields = deserialize(deserializer, T::SHAPE, T::MODE)?;
    T::from_fields(fields).ok_or_else(|| de::Error::custom(MISMATCH))
}

struct StructVisitor {
    shape: &'static StructShape,
    mode: Mode,
    forms: Forms,
}

impl StructVisitor {
    fn seed(&self, i: usize) -> ValueSeed {
        ValueSeed {
            shape: &self.shape.shapes[i],
            mode: self.mode,
            forms: self.forms,
        }
    }
}

impl<'de> Visitor<'de> for StructVisitor {
    type Value = Fields<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.shape.name)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Fields<'de>, A::Error> {
        let shape = self.shape;
        let mut fields = Fields::new(shape.fields.len());
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
                    if fields.slots[i].is_some() {
                        return Err(de::Error::duplicate_field(shape.fields[i]));
                    }
                    fields.slots[i] = Some(map.next_value_seed(self.seed(i))?);
                }
                FieldKey::Unknown(Some(name)) => {
                    let text = map.next_value::<RawJson>()?;
                    fields.keep(name, text);
                }
                FieldKey::Unknown(None) => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        for (i, slot) in fields.slots.iter().enumerate() {
            if slot.is_none() && shape.required[i] {
                return Err(de::Error::missing_field(shape.fields[i]));
            }
        }
        Ok(fields)
    }

    /// The fields in declared order, as the derive reads a struct written as a sequence.
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Fields<'de>, A::Error> {
        let shape = self.shape;
        if self.forms == Forms::Objects || shape.keep_unlisted {
            return Err(de::Error::invalid_type(de::Unexpected::Seq, &self));
        }
        let mut fields = Fields::new(shape.fields.len());
        for i in 0..shape.fields.len() {
            match seq.next_element_seed(self.seed(i))? {
                Some(value) => fields.slots[i] = Some(value),
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
        Ok(fields)
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
            (Shape::Str, Mode::Owned) => {
                String::deserialize(deserializer).map(|s| Slot::Str(Cow::Owned(s)))
            }
            (Shape::Str, Mode::Borrowed) => {
                CowStr::deserialize(deserializer).map(|s| Slot::Str(s.0))
            }
            (Shape::Int, _) => i64::deserialize(deserializer).map(Slot::Int),
            (Shape::Num, _) => f64::deserialize(deserializer).map(Slot::Num),
            (Shape::Bool, _) => bool::deserialize(deserializer).map(Slot::Bool),
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

/// Reads a struct of `shape` with the fast reader: [`Stop`] wherever it is not sure (then decode with
/// [`deserialize`], which gives the value or the error).
pub fn read<'a>(
    reader: &mut Reader<'a>,
    shape: &'static StructShape,
    mode: Mode,
) -> Result<Fields<'a>, Stop> {
    let mut fields = Fields::new(shape.fields.len());
    let mut next = 0;
    let mut members = reader.object()?;
    while let Some(member) = members.next_field(
        reader,
        shape.fields,
        shape.aliases,
        shape.by_name,
        &mut next,
    )? {
        match member {
            Member::Field(i) => {
                let slot = fields.slots.get_mut(i).ok_or(Stop)?;
                if slot.is_some() {
                    return Err(Stop);
                }
                read_field(reader, &shape.shapes[i], mode, slot)?;
            }
            Member::Other(name) if shape.keep_unlisted => {
                let text = reader.skip()?;
                let raw = RawJson::from_json(text).map_err(|_| Stop)?;
                fields.keep(name.into_owned(), raw);
            }
            Member::Other(_) => {
                reader.skip()?;
            }
        }
    }
    for (slot, required) in fields.slots.iter().zip(shape.required) {
        if slot.is_none() && *required {
            return Err(Stop);
        }
    }
    Ok(fields)
}

/// Reads a struct with [`read`] by its table, then makes it ([`FromFields`]).
#[inline]
pub fn read_into<'a, T: FromFields<'a>>(reader: &mut Reader<'a>) -> Result<T, Stop> {
    T::from_fields(read(reader, T::SHAPE, T::MODE)?).ok_or(Stop)
}

/// Reads a field's value into its slot. Always inlined into the loop over a struct's members, with the
/// common shapes (strings, integers, booleans, each perhaps `null`) read in place and the rest out of
/// line: a call per field, and a slot returned and moved, were a tenth of the reader's time each.
#[inline(always)]
fn read_field<'a>(
    reader: &mut Reader<'a>,
    shape: &'static Shape,
    mode: Mode,
    slot: &mut Option<Slot<'a>>,
) -> Result<(), Stop> {
    let shape = match shape {
        Shape::Optional(_) if reader.null() => {
            *slot = Some(Slot::Null);
            return Ok(());
        }
        Shape::Optional(inner) => inner,
        other => other,
    };
    match shape {
        Shape::Str => *slot = Some(Slot::Str(reader.string()?)),
        Shape::Int => *slot = Some(Slot::Int(reader.integer()?)),
        Shape::Bool => *slot = Some(Slot::Bool(reader.boolean()?)),
        _ => *slot = Some(read_value(reader, shape, mode)?),
    }
    Ok(())
}

fn read_value<'a>(
    reader: &mut Reader<'a>,
    shape: &'static Shape,
    mode: Mode,
) -> Result<Slot<'a>, Stop> {
    Ok(match (shape, mode) {
        (Shape::Str, _) => Slot::Str(reader.string()?),
        (Shape::Int, _) => Slot::Int(reader.integer()?),
        (Shape::Num, _) => Slot::Num(reader.float()?),
        (Shape::Bool, _) => Slot::Bool(reader.boolean()?),
        (Shape::Obj, Mode::Owned) => Slot::Map(crate::read::ReadJson::read(reader)?),
        (Shape::Obj, Mode::Borrowed) => Slot::Raw(crate::read::ReadJson::read(reader)?),
        (Shape::Array(item), _) => {
            let mut elements = reader.array()?;
            let mut items = Vec::new();
            while elements.next(reader)? {
                items.push(read_value(reader, item, mode)?);
            }
            Slot::Array(items)
        }
        (Shape::Map(value), _) => {
            let mut members = reader.object()?;
            let mut entries = Vec::new();
            while let Some(key) = members.next_key(reader)? {
                entries.push((key, read_value(reader, value, mode)?));
            }
            Slot::Entries(entries)
        }
        (Shape::Struct(shape), _) => Slot::Struct(read(reader, shape, mode)?),
        (Shape::Optional(inner), _) => {
            if reader.null() {
                Slot::Null
            } else {
                read_value(reader, inner, mode)?
            }
        }
    })
}

/// Writes a struct by its table, making the calls serde's derive makes for it (with
/// `skip_serializing_if = "Option::is_none"` on optional fields and `flatten` on kept unlisted members):
/// what a generated struct's `Serialize` impl does, a field at a time ([`Writer::field`],
/// [`Writer::optional`]), each value written by its own `Serialize` impl, so that nothing on the way is
/// dispatched at run time.
///
/// The writer's methods are always inlined into the struct's `Serialize`, which passes each field's
/// name as a literal and says which fields are optional (as the derive's code does): the number of
/// fields written is then known, and what a serializer does with a name it knows (escape it, compare it
/// with its own special names) is done when it is compiled. The first error is kept and returned by
/// [`Writer::end`]: no `?` per field (a branch, a return and a conversion for every field of every
/// struct were most of the code the generated crate made of this impl).
pub struct Writer<S: serde::Serializer> {
    state: WriterState<S>,
    /// Apart from the state, which the serializer is handed, so that it stays in a register.
    failed: Option<S::Error>,
}

enum WriterState<S: serde::Serializer> {
    Struct(S::SerializeStruct),
    /// A struct that keeps unlisted members: a map, as the derive writes one with a flattened field.
    Map(S::SerializeMap),
    /// `serde_json`'s compact serializer: the text is written here, faster, and handed to it whole
    /// (see [`crate::text`]).
    Json {
        serializer: S,
        text: crate::text::JsonText,
        first: bool,
    },
}

impl<S: serde::Serializer> Writer<S> {
    /// Starts writing the struct `name`, of which `written` fields are written; a map of unknown
    /// length when it keeps unlisted members (`keeps`).
    #[inline(always)]
    pub fn start(
        serializer: S,
        name: &'static str,
        keeps: bool,
        written: usize,
    ) -> Result<Self, S::Error> {
        let state = if crate::text::compact_json::<S>() {
            let mut text = crate::text::JsonText::reusing();
            text.raw("{");
            WriterState::Json {
                serializer,
                text,
                first: true,
            }
        } else if keeps {
            WriterState::Map(serializer.serialize_map(None)?)
        } else {
            WriterState::Struct(serializer.serialize_struct(name, written)?)
        };
        Ok(Writer {
            state,
            failed: None,
        })
    }

    /// Writes the next field, named `name` (fields are written in declared order).
    #[inline(always)]
    pub fn field<T: serde::Serialize + ?Sized>(&mut self, name: &'static str, value: &T) {
        use serde::ser::{Error, SerializeMap, SerializeStruct};
        if self.failed.is_some() {
            return;
        }
        let written = match &mut self.state {
            WriterState::Struct(state) => state.serialize_field(name, value),
            WriterState::Map(state) => state.serialize_entry(name, value),
            WriterState::Json { text, first, .. } => {
                text.member(name, std::mem::take(first));
                value.serialize(&mut *text).map_err(S::Error::custom)
            }
        };
        if let Err(error) = written {
            self.failed = Some(error);
        }
    }

    /// Writes the next field, an optional one: left out when `None`.
    #[inline(always)]
    pub fn optional<T: serde::Serialize>(&mut self, name: &'static str, value: &Option<T>) {
        use serde::ser::SerializeStruct;
        if value.is_some() {
            return self.field(name, value);
        }
        if let (None, WriterState::Struct(state)) = (&self.failed, &mut self.state)
            && let Err(error) = state.skip_field(name)
        {
            self.failed = Some(error);
        }
    }

    /// Ends the struct, after its kept unlisted members (for a struct that keeps them); the first error
    /// met, if any.
    #[inline(always)]
    pub fn end(self, unlisted: Option<&Unlisted>) -> Result<S::Ok, S::Error> {
        use serde::ser::{Error, SerializeMap, SerializeStruct};
        if let Some(error) = self.failed {
            return Err(error);
        }
        match self.state {
            WriterState::Struct(state) => state.end(),
            WriterState::Map(mut state) => {
                for (name, value) in unlisted.into_iter().flatten() {
                    state.serialize_entry(name, value)?;
                }
                state.end()
            }
            WriterState::Json {
                serializer,
                mut text,
                mut first,
            } => {
                for (name, value) in unlisted.into_iter().flatten() {
                    text.member(name, std::mem::take(&mut first));
                    text.raw(value.get());
                }
                text.raw("}");
                let written = match crate::raw::borrowed_raw_value(text.as_str()) {
                    Some(raw) => serde::Serialize::serialize(raw, serializer),
                    None => Err(S::Error::custom(MISMATCH)),
                };
                text.recycle();
                written
            }
        }
    }
}

/// A generated struct read and written by its table: its [`FromFields`] (the one piece of code per
/// struct that reads), `Deserialize` through [`deserialize_into`] (and the fast reader's `ReadJson`, for
/// every [`FromFields`]), and `Serialize` through a [`Writer`].
///
/// ```
/// use energy_api_core::table::{Mode, Shape, StructShape};
/// # use energy_api_core::table_struct;
///
/// static LEDGER: StructShape = StructShape {
///     name: "struct Ledger",
///     fields: &["number", "id"],
///     aliases: &[],
///     by_name: &[1, 2, 0],
///     shapes: &[Shape::Str, Shape::Optional(&Shape::Str)],
///     required: &[true, false],
///     omit_none: &[false, true],
///     keep_unlisted: false,
/// };
/// #[derive(Debug)]
/// pub struct Ledger { number: String, id: Option<String> }
/// table_struct!(Ledger, LEDGER, Owned, [number, id: optional]);
///
/// let ledger: Ledger = serde_json::from_str(r#"{"number": "L-1", "other": 1}"#).unwrap();
/// assert_eq!((ledger.number.as_str(), ledger.id.as_deref()), ("L-1", None));
/// let wrong = serde_json::from_str::<Ledger>(r#"{"number": 7}"#).unwrap_err();
/// assert_eq!(wrong.to_string(), "invalid type: integer `7`, expected a string at line 1 column 12");
/// assert_eq!(serde_json::to_string(&ledger).unwrap(), r#"{"number":"L-1"}"#);
/// ```
///
/// Fields are listed in the table's order, each as `field`, or `field = "json name"` where the
/// identifier is not the JSON name (`r#type = "type"`), followed by `: optional` for a field that may be
/// absent (left out when `None`, as the table's `omit_none` says); a struct may keep its unlisted members
/// in a field (`keep_unlisted_in additional_fields`); a struct that other structs hold as a field is
/// written `nested Name` (it is then read from a slot); a borrowed view is written `Name<'a>` with mode
/// `Borrowed`.
#[macro_export]
macro_rules! table_struct {
    (nested $name:ident <$lt:lifetime>, $($rest:tt)*) => {
        $crate::table_struct!($name<$lt>, $($rest)*);
        $crate::table_struct!(@nested $name<$lt>);
    };
    (nested $name:ident, $($rest:tt)*) => {
        $crate::table_struct!($name, $($rest)*);
        $crate::table_struct!(@nested $name);
    };
    ($name:ident <$lt:lifetime>, $shape:path, $mode:ident, [$($field:ident $(= $json:literal)? $(: $kind:ident)?),* $(,)?] $(, keep_unlisted_in $additional:ident)? $(,)?) => {
        impl<$lt> $crate::table::FromFields<$lt> for $name<$lt> {
            const SHAPE: &'static $crate::table::StructShape = &$shape;
            const MODE: $crate::table::Mode = $crate::table::Mode::$mode;
            fn build(fields: $crate::table::Fields<$lt>, ok: &mut bool) -> Self {
                $crate::table_struct!(@body $name, fields, ok, [$($field),*] $(, $additional)?)
            }
        }
        impl<'de: $lt, $lt> $crate::__private::serde::Deserialize<'de> for $name<$lt> {
            fn deserialize<D: $crate::__private::serde::Deserializer<'de>>(
                deserializer: D,
            ) -> ::std::result::Result<Self, D::Error> {
                $crate::table::deserialize_into(deserializer)
            }
        }
        impl $crate::__private::serde::Serialize for $name<'_> {
            fn serialize<S: $crate::__private::serde::Serializer>(
                &self,
                serializer: S,
            ) -> ::std::result::Result<S::Ok, S::Error> {
                $crate::table_struct!(@serialize self, serializer, $name, [$($field $(= $json)? $(: $kind)?),*] $(, $additional)?)
            }
        }
    };
    ($name:ident, $shape:path, $mode:ident, [$($field:ident $(= $json:literal)? $(: $kind:ident)?),* $(,)?] $(, keep_unlisted_in $additional:ident)? $(,)?) => {
        impl<'a> $crate::table::FromFields<'a> for $name {
            const SHAPE: &'static $crate::table::StructShape = &$shape;
            const MODE: $crate::table::Mode = $crate::table::Mode::$mode;
            fn build(fields: $crate::table::Fields<'a>, ok: &mut bool) -> Self {
                $crate::table_struct!(@body $name, fields, ok, [$($field),*] $(, $additional)?)
            }
        }
        impl<'de> $crate::__private::serde::Deserialize<'de> for $name {
            fn deserialize<D: $crate::__private::serde::Deserializer<'de>>(
                deserializer: D,
            ) -> ::std::result::Result<Self, D::Error> {
                $crate::table::deserialize_into(deserializer)
            }
        }
        impl $crate::__private::serde::Serialize for $name {
            fn serialize<S: $crate::__private::serde::Serializer>(
                &self,
                serializer: S,
            ) -> ::std::result::Result<S::Ok, S::Error> {
                $crate::table_struct!(@serialize self, serializer, $name, [$($field $(= $json)? $(: $kind)?),*] $(, $additional)?)
            }
        }
    };
    // A struct other structs hold: read from a slot, written as a field.
    (@nested $name:ident <$lt:lifetime>) => {
        impl<$lt> $crate::table::FromSlot<$lt> for $name<$lt> {
            #[inline]
            fn from_slot(
                slot: ::std::option::Option<$crate::table::Slot<$lt>>,
                ok: &mut bool,
            ) -> Self {
                $crate::table::struct_from_slot(slot, ok)
            }
        }
    };
    (@nested $name:ident) => {
        impl<'a> $crate::table::FromSlot<'a> for $name {
            #[inline]
            fn from_slot(
                slot: ::std::option::Option<$crate::table::Slot<'a>>,
                ok: &mut bool,
            ) -> Self {
                $crate::table::struct_from_slot(slot, ok)
            }
        }
    };
    // A field at a time, each by its own `Serialize` impl and under its JSON name (see `Writer`).
    (@serialize $self:ident, $serializer:ident, $name:ident, [$($field:ident $(= $json:literal)? $(: $kind:ident)?),*] $(, $additional:ident)?) => {{
        let mut writer = $crate::table::Writer::start(
            $serializer,
            ::std::stringify!($name),
            $crate::table_struct!(@keeps $($additional)?),
            0 $(+ $crate::table_struct!(@written $self, $field $(, $kind)?))*,
        )?;
        $($crate::table_struct!(
            @write writer, $self, $field, $crate::table_struct!(@json $field $(= $json)?) $(, $kind)?
        );)*
        writer.end($crate::table_struct!(@unlisted $self $(, $additional)?))
    }};
    (@written $self:ident, $field:ident) => { 1 };
    (@written $self:ident, $field:ident, optional) => {
        usize::from(::std::option::Option::is_some(&$self.$field))
    };
    (@write $writer:ident, $self:ident, $field:ident, $name:expr) => {
        $writer.field($name, &$self.$field)
    };
    (@write $writer:ident, $self:ident, $field:ident, $name:expr, optional) => {
        $writer.optional($name, &$self.$field)
    };
    (@json $field:ident) => { ::std::stringify!($field) };
    (@json $field:ident = $json:literal) => { $json };
    (@keeps) => { false };
    (@keeps $additional:ident) => { true };
    (@unlisted $self:ident) => { ::std::option::Option::None };
    (@unlisted $self:ident, $additional:ident) => { ::std::option::Option::Some(&$self.$additional) };
    (@body $name:ident, $fields:ident, $ok:ident, [$($field:ident),*] $(, $additional:ident)?) => {{
        #[allow(unused_mut, unused_variables)]
        let (mut slots, kept) = $fields.into_parts();
        let value = $name {
            $($field: slots.take(),)*
            $($additional: kept.into_unlisted(),)?
        };
        slots.finish($ok, value)
    }};
}
