//! The one description of how a payload struct is read: a static table per struct ([`StructTable`]:
//! its JSON field names, former names, the [`Shape`] of each field (an `Optional` one may be absent), whether it
//! keeps unlisted members), and the one reader of it. Two words, two things: a struct has a *table*; a
//! value (a field) has a *shape*.
//!
//! A generated struct states each field once, in a row of [`table_struct!`](crate::table_struct) beside
//! the struct: the macro makes the struct's table from the rows, and the small [`FromFields`] conversion
//! that moves read values into the struct's fields. Everything that reads is here, once, for every
//! struct:
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
use std::mem::ManuallyDrop;

mod fast;
mod slots;
mod through_serde;
mod write;

pub use fast::{read, read_into};
pub use slots::*;
pub use through_serde::{
    InOrder, deserialize, deserialize_into, deserialize_json_object, deserialize_object,
};
pub use write::Writer;

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
    /// An instant, written as an RFC 3339 string with an offset (`jiff::Timestamp`).
    #[cfg(feature = "jiff")]
    Timestamp,
    /// A free-form JSON object (what `serde_json::Map` accepts).
    Obj,
    /// An array of values of one shape.
    Array(&'static Shape),
    /// An object whose member names are data, each value of one shape (`BTreeMap<String, T>`; `null`
    /// is not one, and a repeated name keeps its last value, as serde's map impls do).
    Map(&'static Shape),
    /// A struct.
    Struct(&'static StructTable),
    /// `null`, or a value of the shape.
    Optional(&'static Shape),
}

/// The shape of a struct's field, from the field's Rust type: `shape_of(|ledger: &Ledger| &ledger.id)`
/// is `Optional(&Str)` where `id` is an `Option<String>`. The closure only names the field (it is
/// never called). What a row's shape is checked against (see [`table_struct!`](crate::table_struct)).
pub const fn shape_of<S, T: Shaped>(_field: fn(&S) -> &T) -> Shape {
    T::SHAPE
}

/// Whether two lists of shapes are the same, a struct's by its name (unique in a crate).
pub const fn shapes_match(stated: &[Shape], typed: &[Shape]) -> bool {
    if stated.len() != typed.len() {
        return false;
    }
    let mut i = 0;
    while i < stated.len() {
        if !same_shape(&stated[i], &typed[i]) {
            return false;
        }
        i += 1;
    }
    true
}

const fn same_shape(a: &Shape, b: &Shape) -> bool {
    match (a, b) {
        (Shape::Str, Shape::Str)
        | (Shape::Int, Shape::Int)
        | (Shape::Num, Shape::Num)
        | (Shape::Bool, Shape::Bool)
        | (Shape::Obj, Shape::Obj) => true,
        #[cfg(feature = "jiff")]
        (Shape::Timestamp, Shape::Timestamp) => true,
        (Shape::Array(a), Shape::Array(b))
        | (Shape::Map(a), Shape::Map(b))
        | (Shape::Optional(a), Shape::Optional(b)) => same_shape(a, b),
        (Shape::Struct(a), Shape::Struct(b)) => same_str(a.name, b.name),
        _ => false,
    }
}

/// The table of a struct: how it is read and written (made by [`table_struct!`](crate::table_struct)).
#[derive(Debug)]
pub struct StructTable {
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
    /// Whether each field whose shape is [`Shape::Optional`], when `None`, is left out when written
    /// (an optional field) rather than written as `null` (a nullable one). Whether a field is required
    /// is its shape's: every field but an `Optional` one (see [`StructTable::is_required`]).
    pub omit_none: &'static [bool],
    /// Whether members the struct does not list are kept (as JSON text) rather than skipped.
    pub keep_unlisted: bool,
}

impl StructTable {
    /// Whether field `index` must be present: every field whose shape is not [`Shape::Optional`] (an
    /// optional or nullable field may be absent, and is then `None`, as serde's derive reads an `Option`).
    #[inline]
    pub fn is_required(&self, index: usize) -> bool {
        !matches!(self.shapes[index], Shape::Optional(_))
    }

    /// The struct's Rust name, as serde's derive names it to serializers.
    pub fn rust_name(&self) -> &'static str {
        let name: &'static str = self.name;
        name.strip_prefix("struct ").unwrap_or(name)
    }
}

/// A struct compiled per type (its version is in the traffic profile; see
/// [`table_struct!`](crate::table_struct)'s `compiled` form): the fast reader's code of its own, which
/// reads each field into a local of its type where the table's reader reads every field into a slot.
/// It takes exactly what the table's reader takes, and stops where that stops.
#[doc(hidden)]
pub trait Compiled: Sized {
    /// Reads the struct's JSON object.
    fn read(reader: &mut Reader<'_>) -> Result<Self, Stop>;
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
    /// The fields in name order (see [`StructTable::by_name`]; may be empty).
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

/// The message of the error a table that disagrees with its struct would give (never, for generated
/// code): a bug of the generator, not of the input.
pub const MISMATCH: &str = "internal error: a generated table does not match its struct";

/// Whether a borrowed view names the fields of its table: the same JSON names in the same order, and
/// the same fields left out when `None` (checked when a crate using [`table_struct!`](crate::table_struct) compiles).
pub const fn view_matches(table: &StructTable, names: &[&str], omit_none: &[bool]) -> bool {
    if table.fields.len() != names.len() || table.omit_none.len() != omit_none.len() {
        return false;
    }
    let mut index = 0;
    while index < names.len() {
        if !same_str(table.fields[index], names[index])
            || table.omit_none[index] != omit_none[index]
        {
            return false;
        }
        index += 1;
    }
    true
}

/// The index of the field named `name` among `idents` (a struct's field identifiers): where a former
/// name of a field points, found by name when the crate compiles (an unknown name does not compile).
pub const fn field_index(idents: &[&str], name: &str) -> usize {
    let mut index = 0;
    while index < idents.len() {
        if same_str(idents[index], name) {
            return index;
        }
        index += 1;
    }
    panic!("a former name points to a field the struct does not have")
}

const fn same_str(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut index = 0;
    while index < a.len() {
        if a[index] != b[index] {
            return false;
        }
        index += 1;
    }
    true
}

/// A generated struct and its table, stated once: a row per field gives its identifier, its JSON name
/// where the identifier is not it (`r#type = "type"`), its [`Shape`], and `=> omit_none` for an
/// optional field, left out when `None` (a nullable field is written as `null`). From the rows the
/// macro makes the struct's table, a [`StructTable`] static named as the struct (a struct with named
/// fields has no name among values, so the two do not clash), and the struct's impls: its
/// [`FromFields`] (the one piece of code per struct that reads), `Deserialize` through
/// [`deserialize_into`] (and the fast reader's `ReadJson`, for every [`FromFields`]), and `Serialize`
/// through a [`Writer`]. A field and its entry in the table are one row, so they cannot disagree.
///
/// A JSON name is plain JSON (no `"`, `\` or control character; the generator's field names are ASCII
/// letters, digits and `_`): it is compared in place by the fast reader and written as it is, between
/// quotes, without escaping. The crate's own tests check it
/// (`cfg(test)`), as they check a view's rows.
///
/// ```
/// use energy_api_core::table_struct;
///
/// #[derive(Debug)]
/// pub struct Ledger { number: String, id: Option<String> }
/// table_struct!(Ledger, [number: Str, id: Optional(&Str) => omit_none], by_name: [1, 2, 0]);
///
/// let ledger: Ledger = serde_json::from_str(r#"{"number": "L-1", "other": 1}"#).unwrap();
/// assert_eq!((ledger.number.as_str(), ledger.id.as_deref()), ("L-1", None));
/// let wrong = serde_json::from_str::<Ledger>(r#"{"number": 7}"#).unwrap_err();
/// assert_eq!(wrong.to_string(), "invalid type: integer `7`, expected a string at line 1 column 12");
/// assert_eq!(serde_json::to_string(&ledger).unwrap(), r#"{"number":"L-1"}"#);
/// assert_eq!(Ledger.fields, ["number", "id"]);
/// ```
///
/// After the rows: `by_name`, the fields in the byte order of their names (see
/// [`StructTable::by_name`]); `aliases: ["former" => field, …]` for fields read under former names too;
/// `keep_unlisted_in additional_fields` for a struct that keeps the members it does not list. A struct
/// that other structs hold as a field is written `nested Name` (it is then read from a slot) and is
/// named in a row as `Struct(&path::to::Name)`.
///
/// A struct compiled per type (its event version is in the traffic profile, `schema/traffic.profile`)
/// is written `compiled Name` (or `nested compiled Name`): the macro makes its table, [`FromFields`]
/// and `Serialize` as for any other, and the fast reader's code of its own ([`Compiled`]); its
/// `Deserialize` is serde's derive on the struct, which the generator writes with the attributes that
/// make it read what the table reads.
///
/// A generic struct, `Name<T>` (the REST API's page), has its table as its [`FromFields::TABLE`] (a
/// static cannot name a type parameter), and a row names the parameter's table as `Struct(T)`:
/// `table_struct!(Page<T>, [count: Int, results: Array(&Struct(T))], by_name: [0, 1, 2])`. It reads
/// where `T` has a table of its own (`T: FromFields + FromSlot`, which every generated struct has).
///
/// A borrowed view shares its owned struct's table: `Name<'a>, view_of path::to::Owned, [rows]`, each
/// row its field with the JSON name and `=> omit_none` but no shape; the view's rows are checked
/// against the table, by name ([`view_matches`]), when the crate's own tests compile (`cfg(test)`): a
/// view that names a field its table does not have, in another place, or misses an optional field's
/// `=> omit_none`, does not compile there.
///
/// So is each row's shape against its field's Rust type ([`Shaped::SHAPE`], through [`shape_of`]): a
/// row whose shape is not its field's does not compile in the crate's own tests.
// Not in every build: the compiler evaluates such checks slowly (a crate of a thousand views paid 5 %
// of its build for them), and taking the shapes from the types in every build (a row per field with no
// shape, or with its type) cost 5.6 % or 1.4 % of the generated crate's build (`BENCHMARKS.md`,
// section 27). Each check is a macro call under `#[cfg(test)]`, so that no other build expands it.
#[macro_export]
#[doc(hidden)]
macro_rules! table_struct {
    (nested compiled $name:ident $($rest:tt)*) => {
        $crate::table_struct!(compiled $name $($rest)*);
        $crate::table_struct!(@nested $name $($rest)*);
        #[cfg(test)]
        $crate::table_struct!(@shaped $name $($rest)*);
    };
    (nested $name:ident $($rest:tt)*) => {
        $crate::table_struct!($name $($rest)*);
        $crate::table_struct!(@nested $name $($rest)*);
        #[cfg(test)]
        $crate::table_struct!(@shaped $name $($rest)*);
    };
    ($name:ident <$lt:lifetime>, view_of $table:path, [$($field:ident $(= $json:literal)? $(=> $omit:ident)?),* $(,)?] $(, keep_unlisted_in $additional:ident)? $(,)?) => {
        #[cfg(test)]
        $crate::table_struct!(@view_check $name, $table, [$($field $(= $json)? $(=> $omit)?),*]);
        impl<$lt> $crate::table::FromFields<$lt> for $name<$lt> {
            const TABLE: &'static $crate::table::StructTable = &$table;
            const MODE: $crate::table::Mode = $crate::table::Mode::Borrowed;
            fn build(fields: &mut $crate::table::Fields<$lt>, ok: &mut bool) -> Self {
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
                $crate::table_struct!(@serialize self, serializer, $name, [$($field $(= $json)? $(=> $omit)?),*] $(, $additional)?)
            }
        }
    };
    // A struct compiled per type (its version is in the traffic profile): its table and `FromFields`
    // as any other's, for the borrowed view and the table of a struct that holds it, its `Serialize`
    // by the table's writer, and the fast reader's code of its own; its `Deserialize` is serde's
    // derive on the struct, written by the generator.
    (compiled $name:ident, [$($field:ident $(= $json:literal)? : $shape:expr $(=> $omit:ident)?),* $(,)?], by_name: [$($by_name:literal),* $(,)?] $(, aliases: [$($former:literal => $target:ident),* $(,)?])? $(, keep_unlisted_in $additional:ident)? $(,)?) => {
        $crate::table_struct!(@owned $name, [$($field $(= $json)? : $shape $(=> $omit)?),*], by_name: [$($by_name),*] $(, aliases: [$($former => $target),*])? $(, keep_unlisted_in $additional)?);
        $crate::table_struct!(@serialize_impl $name, [$($field $(= $json)? $(=> $omit)?),*] $(, $additional)?);
        impl $crate::table::Compiled for $name {
            fn read(
                reader: &mut $crate::read::Reader<'_>,
            ) -> ::std::result::Result<Self, $crate::read::Stop> {
                $crate::table_struct!(@read_compiled $name, reader, [$($field),*])
            }
        }
    };
    // The fast reader of a struct compiled per type: each field read straight into a local of its own
    // type (no slot), by the same `ReadJson` steps the table's reader takes, so it takes what the table
    // takes and stops where it stops (a repeated field, a required one absent, anything unsure). A
    // field's index is matched against a constant counted per row, which the compiler folds into a
    // jump table.
    (@read_compiled $name:ident, $reader:ident, [$($field:ident),*]) => {{
        $(let mut $field = ::std::option::Option::None;)*
        let mut next = 0usize;
        let mut members = $reader.object()?;
        while let ::std::option::Option::Some(member) = members.next_field(
            $reader,
            $name.fields,
            $name.aliases,
            $name.by_name,
            &mut next,
        )? {
            match member {
                $crate::read::Member::Field(index) => {
                    let mut at = 0usize;
                    $(
                        if index == at {
                            if $field.is_some() {
                                return ::std::result::Result::Err($crate::read::Stop);
                            }
                            $field = ::std::option::Option::Some($crate::read::ReadJson::read($reader)?);
                            continue;
                        }
                        at += 1;
                    )*
                    let _ = at;
                    return ::std::result::Result::Err($crate::read::Stop);
                }
                $crate::read::Member::Other(_) => {
                    $reader.skip()?;
                }
            }
        }
        let mut ok = true;
        let value = $name {
            $($field: match $field {
                ::std::option::Option::Some(value) => value,
                ::std::option::Option::None => $crate::table::FromSlot::from_slot(::std::option::Option::None, &mut ok),
            },)*
        };
        if ok {
            ::std::result::Result::Ok(value)
        } else {
            ::std::result::Result::Err($crate::read::Stop)
        }
    }};
    ($name:ident, [$($field:ident $(= $json:literal)? : $shape:expr $(=> $omit:ident)?),* $(,)?], by_name: [$($by_name:literal),* $(,)?] $(, aliases: [$($former:literal => $target:ident),* $(,)?])? $(, keep_unlisted_in $additional:ident)? $(,)?) => {
        // `@owned`'s rows written out here rather than called (the compiled form calls it): a macro
        // call more per struct of every crate costs its build (BENCHMARKS.md, section 27).
        #[cfg(test)]
        $crate::table_struct!(@plain $name, [$($field $(= $json)?),*]);
        #[cfg(test)]
        $crate::table_struct!(@shape_check $name, [$($field),*]);
        #[allow(non_upper_case_globals, reason = "a struct's table is named as the struct")]
        pub(crate) static $name: $crate::table::StructTable =
            $crate::table_struct!(@table $name, [$($field $(= $json)? : $shape $(=> $omit)?),*], [$($by_name),*], [$($($former => $target),*)?], [$($additional)?]);
        impl<'a> $crate::table::FromFields<'a> for $name {
            const TABLE: &'static $crate::table::StructTable = &$name;
            const MODE: $crate::table::Mode = $crate::table::Mode::Owned;
            // Inline: made where it is used (a catalogue row, a `Deserialize` in the caller), not in
            // every crate that declares a struct (a REST resource's is made only by its users).
            #[inline]
            fn build(fields: &mut $crate::table::Fields<'a>, ok: &mut bool) -> Self {
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
                $crate::table_struct!(@serialize self, serializer, $name, [$($field $(= $json)? $(=> $omit)?),*] $(, $additional)?)
            }
        }
    };
    // A compiled struct's `Serialize`, by its table's writer (a compiled struct's too: serde's derived
    // `Serialize` took 9-20 % more instructions on the bench's skewed streams, BENCHMARKS.md section 31).
    (@serialize_impl $name:ident, [$($field:ident $(= $json:literal)? $(=> $omit:ident)?),*] $(, $additional:ident)?) => {
        impl $crate::__private::serde::Serialize for $name {
            fn serialize<S: $crate::__private::serde::Serializer>(
                &self,
                serializer: S,
            ) -> ::std::result::Result<S::Ok, S::Error> {
                $crate::table_struct!(@serialize self, serializer, $name, [$($field $(= $json)? $(=> $omit)?),*] $(, $additional)?)
            }
        }
    };
    // An owned struct's table and `FromFields` (and the checks of its rows in the crate's own tests).
    (@owned $name:ident, [$($field:ident $(= $json:literal)? : $shape:expr $(=> $omit:ident)?),* $(,)?], by_name: [$($by_name:literal),* $(,)?] $(, aliases: [$($former:literal => $target:ident),* $(,)?])? $(, keep_unlisted_in $additional:ident)? $(,)?) => {
        #[cfg(test)]
        $crate::table_struct!(@plain $name, [$($field $(= $json)?),*]);
        #[cfg(test)]
        $crate::table_struct!(@shape_check $name, [$($field),*]);
        #[allow(non_upper_case_globals, reason = "a struct's table is named as the struct")]
        pub(crate) static $name: $crate::table::StructTable =
            $crate::table_struct!(@table $name, [$($field $(= $json)? : $shape $(=> $omit)?),*], [$($by_name),*], [$($($former => $target),*)?], [$($additional)?]);
        impl<'a> $crate::table::FromFields<'a> for $name {
            const TABLE: &'static $crate::table::StructTable = &$name;
            const MODE: $crate::table::Mode = $crate::table::Mode::Owned;
            // Inline: made where it is used (a catalogue row, a `Deserialize` in the caller), not in
            // every crate that declares a struct (a REST resource's is made only by its users).
            #[inline]
            fn build(fields: &mut $crate::table::Fields<'a>, ok: &mut bool) -> Self {
                $crate::table_struct!(@body $name, fields, ok, [$($field),*] $(, $additional)?)
            }
        }
    };
    // A generic struct (the REST API's page, `Page<T>`): its table is an associated constant of its
    // `FromFields`, as a static cannot name a type parameter, and a row names the parameter's table as
    // `Struct(T)`. It is read where its parameter has a table.
    ($name:ident <$param:ident>, [$($field:ident $(= $json:literal)? : $shape:expr $(=> $omit:ident)?),* $(,)?], by_name: [$($by_name:literal),* $(,)?] $(, aliases: [$($former:literal => $target:ident),* $(,)?])? $(, keep_unlisted_in $additional:ident)? $(,)?) => {
        #[cfg(test)]
        $crate::table_struct!(@plain $name, [$($field $(= $json)?),*]);
        impl<'a, $param: $crate::table::FromFields<'a> + $crate::table::FromSlot<'a>>
            $crate::table::FromFields<'a> for $name<$param>
        {
            const TABLE: &'static $crate::table::StructTable = {
                #[allow(non_snake_case, reason = "the parameter's table, named as the parameter")]
                let $param = <$param as $crate::table::FromFields<'a>>::TABLE;
                &$crate::table_struct!(@table $name, [$($field $(= $json)? : $shape $(=> $omit)?),*], [$($by_name),*], [$($($former => $target),*)?], [$($additional)?])
            };
            const MODE: $crate::table::Mode = $crate::table::Mode::Owned;
            #[inline]
            fn build(fields: &mut $crate::table::Fields<'a>, ok: &mut bool) -> Self {
                $crate::table_struct!(@body $name, fields, ok, [$($field),*] $(, $additional)?)
            }
        }
        impl<'de, $param: $crate::table::FromFields<'de> + $crate::table::FromSlot<'de>>
            $crate::__private::serde::Deserialize<'de> for $name<$param>
        {
            fn deserialize<D: $crate::__private::serde::Deserializer<'de>>(
                deserializer: D,
            ) -> ::std::result::Result<Self, D::Error> {
                $crate::table::deserialize_into(deserializer)
            }
        }
        impl<$param: $crate::__private::serde::Serialize> $crate::__private::serde::Serialize for $name<$param> {
            fn serialize<S: $crate::__private::serde::Serializer>(
                &self,
                serializer: S,
            ) -> ::std::result::Result<S::Ok, S::Error> {
                $crate::table_struct!(@serialize self, serializer, $name, [$($field $(= $json)? $(=> $omit)?),*] $(, $additional)?)
            }
        }
    };
    // The table of a struct, from its rows.
    (@table $name:ident, [$($field:ident $(= $json:literal)? : $shape:expr $(=> $omit:ident)?),*], [$($by_name:literal),*], [$($former:literal => $target:ident),*], [$($additional:ident)?]) => {{
        #[allow(unused_imports, reason = "a struct of scalars names no composite shape")]
        use $crate::table::Shape::*;
        $crate::table::StructTable {
            name: ::std::concat!("struct ", ::std::stringify!($name)),
            fields: &[$($crate::table_struct!(@json $field $(= $json)?)),*],
            aliases: $crate::table_struct!(@aliases [$(::std::stringify!($field)),*] $($former => $target),*),
            by_name: &[$($by_name),*],
            shapes: &[$($shape),*],
            omit_none: &[$($crate::table_struct!(@omits $($omit)?)),*],
            keep_unlisted: $crate::table_struct!(@keeps $($additional)?),
        }
    }};
    // A struct other structs hold: read from a slot, written as a field.
    (@nested $name:ident <$lt:lifetime> $($rest:tt)*) => {
        $crate::table_struct!(@from_slot [$lt] $lt, $name<$lt>);
    };
    (@nested $name:ident <$param:ident> $($rest:tt)*) => {
        $crate::table_struct!(
            @from_slot ['a, $param: $crate::table::FromFields<'a> + $crate::table::FromSlot<'a>] 'a, $name<$param>
        );
    };
    (@nested $name:ident $($rest:tt)*) => {
        $crate::table_struct!(@from_slot ['a] 'a, $name);
    };
    (@from_slot [$($generics:tt)*] $lt:lifetime, $ty:ty) => {
        impl<$($generics)*> $crate::table::FromSlot<$lt> for $ty {
            #[inline]
            fn from_slot(
                slot: ::std::option::Option<$crate::table::Slot<$lt>>,
                ok: &mut bool,
            ) -> Self {
                $crate::table::struct_from_slot(slot, ok)
            }
        }
    };
    // The names written as they are (`Writer::field`) and compared in place by the fast reader are plain
    // JSON: checked when the crate's own tests compile, as a view's rows are.
    (@plain $name:ident, [$($field:ident $(= $json:literal)?),*]) => {
        const _: () = ::std::assert!(
            $crate::read::plain_names(&[$($crate::table_struct!(@json $field $(= $json)?)),*]),
            ::std::concat!("a JSON name of ", ::std::stringify!($name), " is not plain: it has a `\"`, a `\\` or a control character"),
        );
    };
    // Former names, each pointing to its field by the field's identifier.
    (@aliases $idents:tt) => { &[] };
    (@aliases $idents:tt $($former:literal => $target:ident),+) => {
        &[$(($former, $crate::table::field_index(&$idents, ::std::stringify!($target)))),+]
    };
    // A field at a time, each by its own `Serialize` impl and under its JSON name (see `Writer`).
    (@serialize $self:ident, $serializer:ident, $name:ident, [$($field:ident $(= $json:literal)? $(=> $omit:ident)?),*] $(, $additional:ident)?) => {{
        let mut writer = $crate::table::Writer::start(
            $serializer,
            ::std::stringify!($name),
            $crate::table_struct!(@keeps $($additional)?),
            0 $(+ $crate::table_struct!(@written $self, $field $(, $omit)?))*,
        )?;
        $($crate::table_struct!(
            @write writer, $self, $field, $crate::table_struct!(@json $field $(= $json)?) $(, $omit)?
        );)*
        writer.end($crate::table_struct!(@unlisted $self $(, $additional)?))
    }};
    (@written $self:ident, $field:ident) => { 1 };
    (@written $self:ident, $field:ident, omit_none) => {
        usize::from(::std::option::Option::is_some(&$self.$field))
    };
    (@write $writer:ident, $self:ident, $field:ident, $name:expr) => {
        $writer.field($name, &$self.$field)
    };
    (@write $writer:ident, $self:ident, $field:ident, $name:expr, omit_none) => {
        $writer.optional($name, &$self.$field)
    };
    (@json $field:ident) => { ::std::stringify!($field) };
    (@json $field:ident = $json:literal) => { $json };
    (@omits) => { false };
    (@omits omit_none) => { true };
    (@keeps) => { false };
    (@keeps $additional:ident) => { true };
    (@unlisted $self:ident) => { ::std::option::Option::None };
    (@unlisted $self:ident, $additional:ident) => { ::std::option::Option::Some(&$self.$additional) };
    (@body $name:ident, $fields:ident, $ok:ident, [$($field:ident),*] $(, $additional:ident)?) => {{
        let value = $name {
            $($field: $fields.take(),)*
            $($additional: $fields.take_unlisted(),)?
        };
        $fields.finish($ok);
        value
    }};
    // The checks made when the crate's own tests compile (each called under `#[cfg(test)]`, so that no
    // other build even expands it): a view names its table's fields, and each row states the shape of
    // its field's Rust type.
    (@view_check $name:ident, $table:path, [$($field:ident $(= $json:literal)? $(=> $omit:ident)?),*]) => {
        const _: () = ::std::assert!(
            $crate::table::view_matches(
                &$table,
                &[$($crate::table_struct!(@json $field $(= $json)?)),*],
                &[$($crate::table_struct!(@omits $($omit)?)),*],
            ),
            ::std::concat!("the borrowed view ", ::std::stringify!($name), " does not name its table's fields"),
        );
    };
    (@shape_check $name:ident, [$($field:ident),*]) => {
        const _: () = ::std::assert!(
            $crate::table::shapes_match(
                $name.shapes,
                &[$($crate::table::shape_of(|owner: &$name| &owner.$field)),*],
            ),
            ::std::concat!("a row of ", ::std::stringify!($name), " does not state its field's shape (the shape of its Rust type)"),
        );
    };
    // A struct's shape, as a field of another: its table (a view's is its owned struct's).
    (@shaped $name:ident <$lt:lifetime> $($rest:tt)*) => {
        impl<$lt> $crate::table::Shaped for $name<$lt> {
            const SHAPE: $crate::table::Shape =
                $crate::table::Shape::Struct(<Self as $crate::table::FromFields<$lt>>::TABLE);
        }
    };
    (@shaped $name:ident <$param:ident> $($rest:tt)*) => {
        impl<$param: $crate::table::FromFields<'static> + $crate::table::FromSlot<'static>> $crate::table::Shaped
            for $name<$param>
        {
            const SHAPE: $crate::table::Shape =
                $crate::table::Shape::Struct(<Self as $crate::table::FromFields<'static>>::TABLE);
        }
    };
    (@shaped $name:ident $($rest:tt)*) => {
        impl $crate::table::Shaped for $name {
            const SHAPE: $crate::table::Shape = $crate::table::Shape::Struct(&$name);
        }
    };
}

#[cfg(test)]
mod view_checks {
    use super::{Shape, StructTable, field_index, shape_of, shapes_match, view_matches};

    static LEDGER: StructTable = StructTable {
        name: "struct Ledger",
        fields: &["number", "type"],
        aliases: &[],
        by_name: &[0, 2, 1],
        shapes: &[Shape::Str, Shape::Optional(&Shape::Str)],
        omit_none: &[false, true],
        keep_unlisted: false,
    };

    #[test]
    fn a_view_matches_its_table_by_name_place_and_omission() {
        assert!(view_matches(&LEDGER, &["number", "type"], &[false, true]));
        assert!(!view_matches(&LEDGER, &["type", "number"], &[true, false]));
        assert!(!view_matches(&LEDGER, &["number", "kind"], &[false, true]));
        assert!(!view_matches(&LEDGER, &["number", "type"], &[false, false]));
        assert!(!view_matches(&LEDGER, &["number"], &[false]));
    }

    /// A row's shape matches its field's type's, to the last wrapper and the struct's name.
    #[test]
    fn stated_shapes_are_matched_with_their_fields_types() {
        #[allow(dead_code, reason = "only its fields' types are read")]
        struct Ledger {
            number: String,
            notes: Option<Vec<i64>>,
        }
        static OTHER: StructTable = StructTable {
            name: "struct Other",
            ..LEDGER
        };
        let typed = [
            shape_of(|ledger: &Ledger| &ledger.number),
            shape_of(|ledger: &Ledger| &ledger.notes),
        ];
        let notes = Shape::Optional(&Shape::Array(&Shape::Int));
        assert!(shapes_match(&[Shape::Str, notes], &typed));
        assert!(!shapes_match(
            &[Shape::Str, Shape::Optional(&Shape::Int)],
            &typed
        ));
        assert!(!shapes_match(
            &[Shape::Int, Shape::Optional(&Shape::Array(&Shape::Int))],
            &typed
        ));
        assert!(!shapes_match(&[Shape::Str], &typed));
        assert!(shapes_match(
            &[Shape::Struct(&LEDGER)],
            &[Shape::Struct(&LEDGER)]
        ));
        assert!(!shapes_match(
            &[Shape::Struct(&LEDGER)],
            &[Shape::Struct(&OTHER)]
        ));
    }

    #[test]
    fn a_former_name_points_to_its_field_by_identifier() {
        assert_eq!(field_index(&["number", "r#type"], "r#type"), 1);
        assert_eq!(field_index(&["number", "r#type"], "number"), 0);
    }
}
