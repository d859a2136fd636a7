//! A value read, before it is moved into its struct: [`Slot`], a struct's [`Fields`] (a slot per field),
//! and the conversions out of them ([`FromFields`] for a struct, [`FromSlot`] for a field).

use super::*;

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
    /// An instant.
    #[cfg(feature = "jiff")]
    Timestamp(jiff::Timestamp),
    /// A free-form object, read as a map ([`Mode::Owned`]).
    Map(Map<String, Value>),
    /// A free-form object, kept as its text ([`Mode::Borrowed`]).
    Raw(RawObject<'a>),
    /// An array.
    Array(Vec<Slot<'a>>),
    /// An object whose member names are data, in the order read.
    Entries(Vec<(Cow<'a, str>, Slot<'a>)>),
    /// A struct (boxed: [`Fields`] holds its first slots in place).
    Struct(Box<Fields<'a>>),
}

// Every value read passes through a slot: kept to four words.
const _: () = assert!(std::mem::size_of::<Slot<'static>>() <= 32);

/// How many of a struct's slots [`Fields`] holds in place; a struct of more fields has the rest on the
/// heap. Most payloads and nested structs have fewer (four on average over the catalogue's samples).
const IN_PLACE: usize = 8;

/// The fields of one struct as read: a slot per declared field (`None` when absent), and the members
/// it keeps without listing them. A struct's [`FromFields`] takes them out in declared order
/// ([`Fields::take`]).
// The first `IN_PLACE` slots are held in place, and a payload's fields are read into and built from
// a `Fields` its caller holds ([`Fields::of`], handed over by `&mut`): a payload is read, built and
// dropped without an allocation of its own and without copying its slots (`BENCHMARKS.md`, section
// 18). A nested struct's fields are boxed in their slot ([`Slot::Struct`]), which stays four words.
#[derive(Debug)]
pub struct Fields<'a> {
    /// Slots `0..IN_PLACE`; those past `len` stay `None`. Dropped by [`Fields`]' own `Drop`: the
    /// array's drop glue called a drop function for each of the eight, a cost as large as the
    /// allocation saved.
    head: ManuallyDrop<[Option<Slot<'a>>; IN_PLACE]>,
    /// Slots `IN_PLACE..len`: empty, and not allocated, for a struct of at most `IN_PLACE` fields.
    tail: Vec<Option<Slot<'a>>>,
    /// The struct's number of fields.
    len: usize,
    unlisted: Option<Box<Unlisted>>,
    /// The field [`Fields::take`] takes next.
    next: usize,
    /// Cleared when a slot did not hold what its field takes.
    ok: bool,
}

impl<'a> Fields<'a> {
    /// No fields read yet, for a struct of `table`.
    #[inline]
    pub fn of(table: &StructTable) -> Self {
        Fields::new(table.fields.len())
    }

    #[inline]
    pub(super) fn new(len: usize) -> Self {
        Fields {
            head: ManuallyDrop::new([const { None }; IN_PLACE]),
            tail: std::iter::repeat_with(|| None)
                .take(len.saturating_sub(IN_PLACE))
                .collect(),
            len,
            unlisted: None,
            next: 0,
            ok: true,
        }
    }

    /// The slot of field `i`, if the struct has it.
    #[inline]
    pub(super) fn slot(&mut self, i: usize) -> Option<&mut Option<Slot<'a>>> {
        if i >= self.len {
            None
        } else if let Some(slot) = self.head.get_mut(i) {
            Some(slot)
        } else {
            self.tail.get_mut(i - IN_PLACE)
        }
    }

    /// The slots in declared order.
    pub(super) fn slots(&self) -> impl Iterator<Item = &Option<Slot<'a>>> {
        self.head.iter().take(self.len).chain(self.tail.iter())
    }

    pub(super) fn keep(&mut self, name: String, value: RawJson) {
        self.unlisted.get_or_insert_default().insert(name, value);
    }

    /// The next field's value. Where the slot does not hold a `T` (never, for generated code) a
    /// stand-in value is returned and [`Fields::finish`] then clears its flag.
    // Infallible on purpose: a `?` per field (an early return, a branch and the drops of the fields
    // made so far, per field of every struct) was most of a generated crate's code.
    //
    // Not inlined: one function for each type of field, shared by every struct, so that a struct's
    // conversion is a call per field. Inlined, each payload's conversion was its own kilobytes of
    // code, run once per event of its type: decoding a stream of many types missed the instruction
    // cache on half its conversions (`BENCHMARKS.md`, section 17).
    #[inline(never)]
    pub fn take<T: FromSlot<'a>>(&mut self) -> T {
        let i = self.next;
        self.next += 1;
        let slot = match self.head.get_mut(i) {
            Some(slot) => Some(slot),
            None => self.tail.get_mut(i - IN_PLACE),
        };
        match slot {
            Some(slot) => T::take_slot(slot, &mut self.ok),
            None => T::from_slot(None, &mut self.ok),
        }
    }

    /// The members kept without listing them, for the struct's field that keeps them.
    #[inline]
    pub fn take_unlisted(&mut self) -> Unlisted {
        self.unlisted.take().map(|kept| *kept).unwrap_or_default()
    }

    /// Clears `ok` unless every slot taken held what its field takes.
    ///
    /// Not generic: one function for every struct, where a generic one (taking and returning the
    /// struct) was a function per struct in a generated crate.
    #[inline]
    pub fn finish(&self, ok: &mut bool) {
        *ok &= self.ok;
    }
}

impl Drop for Fields<'_> {
    /// Drops what the slots in place still hold (after a struct is built from them, nothing): each is
    /// taken out of the `ManuallyDrop`, so nothing is left undropped. All eight looked at, not `len`:
    /// a loop of a fixed count is unrolled, and has no exit for the branch predictor to miss.
    fn drop(&mut self) {
        for slot in self.head.iter_mut() {
            if slot.is_some() {
                drop(slot.take());
            }
        }
    }
}

/// A struct read by a table: the table, and the conversion from the fields it read.
// Hidden from docs: the engine's, not the user's (every generated struct implements it).
#[doc(hidden)]
pub trait FromFields<'a>: Sized {
    /// The table the struct is read by.
    const TABLE: &'static StructTable;
    /// Whether its strings and free-form objects are copied out of the input or point into it.
    const MODE: Mode;
    /// Moves the read values into a struct, clearing `ok` where a slot does not hold what its field
    /// takes (the table and the struct disagree, which the generator never writes: each comes from
    /// the same model); the struct is then made of stand-in values.
    fn build(fields: &mut Fields<'a>, ok: &mut bool) -> Self;

    /// Moves the read values into a struct; `None` only if the table and the struct disagree.
    fn from_fields(fields: &mut Fields<'a>) -> Option<Self> {
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

/// The shape a row of a struct's table states for a field of this Rust type: what the crate's own
/// tests check each row against ([`shape_of`], see [`table_struct!`](crate::table_struct)). A trait of
/// its own, implemented for a generated struct only under `cfg(test)`, so that no other build of a
/// generated crate type-checks a constant per struct.
#[doc(hidden)]
pub trait Shaped {
    /// The shape.
    const SHAPE: Shape;
}

// The wrappers' shapes wrap their item's (the scalars' are made with their `FromSlot`, below). An
// inline constant: a reference to a generic constant is not made `'static` otherwise.
impl<T: Shaped> Shaped for Option<T> {
    const SHAPE: Shape = Shape::Optional(&const { T::SHAPE });
}

impl<T: Shaped> Shaped for Vec<T> {
    const SHAPE: Shape = Shape::Array(&const { T::SHAPE });
}

impl<K, T: Shaped> Shaped for std::collections::BTreeMap<K, T> {
    const SHAPE: Shape = Shape::Map(&const { T::SHAPE });
}

impl<T: Shaped> Shaped for Box<T> {
    const SHAPE: Shape = T::SHAPE;
}

/// A field's value made from its slot (`None`: the field was absent).
// Hidden from docs: the engine's, not the user's (every generated struct implements it).
#[doc(hidden)]
pub trait FromSlot<'a>: Sized {
    /// The value; where the slot does not hold one of this type, `ok` is cleared and a stand-in
    /// value returned (see [`Fields::take`]).
    fn from_slot(slot: Option<Slot<'a>>, ok: &mut bool) -> Self;

    /// The value taken out of its slot where it lies, the slot left `None`, as [`FromSlot::from_slot`]
    /// makes it. A scalar's is read in place.
    // Taken out whole first, a scalar's slot was copied to the stack in two halves and read back in
    // other pieces, which the processor could not forward from the stores just made, a stall on every
    // field (`BENCHMARKS.md`, section 22).
    #[inline]
    fn take_slot(slot: &mut Option<Slot<'a>>, ok: &mut bool) -> Self {
        Self::from_slot(slot.take(), ok)
    }
}

/// A scalar field's conversion: the value its slot variant holds, or the stand-in; taken in place, the
/// variant's value is replaced by `$left` (which owns nothing) and the slot cleared.
macro_rules! scalar_from_slot {
    ($($ty:ty => $variant:ident($value:ident) $made:expr, $stand_in:expr, left $left:expr, shape $shape:ident;)*) => {
        $(impl<'a> Shaped for $ty {
            const SHAPE: Shape = Shape::$shape;
        }

        impl<'a> FromSlot<'a> for $ty {
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

            #[inline]
            fn take_slot(slot: &mut Option<Slot<'a>>, ok: &mut bool) -> Self {
                match slot {
                    Some(Slot::$variant(held)) => {
                        #[allow(
                            clippy::mem_replace_with_default,
                            reason = "one form for every scalar, `RawObject` has no default"
                        )]
                        let $value = std::mem::replace(held, $left);
                        // What is left owns nothing: cleared without its drop (a call, not elided).
                        std::mem::forget(slot.take());
                        $made
                    }
                    _ => Self::from_slot(slot.take(), ok),
                }
            }
        })*
    };
}

scalar_from_slot! {
    String => Str(s) s.into_owned(), String::new(), left Cow::Borrowed(""), shape Str;
    CowStr<'a> => Str(s) CowStr(s), CowStr(Cow::Borrowed("")), left Cow::Borrowed(""), shape Str;
    i64 => Int(v) v, 0, left 0, shape Int;
    f64 => Num(v) v, 0.0, left 0.0, shape Num;
    bool => Bool(v) v, false, left false, shape Bool;
    Map<String, Value> => Map(map) map, Map::new(), left Map::new(), shape Obj;
    RawObject<'a> => Raw(raw) raw, RawObject::from_text("null"), left RawObject::from_text("null"), shape Obj;
}

#[cfg(feature = "jiff")]
scalar_from_slot! {
    jiff::Timestamp => Timestamp(t) t, jiff::Timestamp::UNIX_EPOCH, left jiff::Timestamp::UNIX_EPOCH, shape Timestamp;
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

    #[inline]
    fn take_slot(slot: &mut Option<Slot<'a>>, ok: &mut bool) -> Self {
        match slot {
            None => None,
            Some(Slot::Null) => {
                std::mem::forget(slot.take());
                None
            }
            Some(_) => Some(T::take_slot(slot, ok)),
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
        Some(Slot::Struct(mut fields)) => T::build(&mut fields, ok),
        _ => {
            *ok = false;
            T::build(&mut Fields::new(0), ok)
        }
    }
}

#[cfg(test)]
mod take_tests {
    use super::*;

    /// Each field's value taken out of its slot (in place or on the heap past `IN_PLACE`), absent and
    /// `null` as `None`; a slot that does not hold the field's type gives the stand-in and clears `ok`;
    /// every slot is left empty.
    #[test]
    fn fields_are_taken_in_place_and_a_mismatch_is_refused() {
        let mut fields = Fields::new(11);
        let slots = [
            Some(Slot::Str(Cow::Owned("A-1B2C3D4E".to_owned()))),
            Some(Slot::Int(88213)),
            Some(Slot::Null),
            None,
            Some(Slot::Bool(true)),
            Some(Slot::Num(27.5)),
            Some(Slot::Str(Cow::Borrowed("evt-1"))),
            None,
            Some(Slot::Str(Cow::Owned("past the slots in place".to_owned()))),
            Some(Slot::Null),
            Some(Slot::Int(7)),
        ];
        for (i, value) in slots.into_iter().enumerate() {
            *fields.slot(i).expect("a slot for each field") = value;
        }
        assert_eq!(fields.take::<String>(), "A-1B2C3D4E");
        assert_eq!(fields.take::<i64>(), 88213);
        assert_eq!(fields.take::<Option<String>>(), None);
        assert_eq!(fields.take::<Option<i64>>(), None);
        assert!(fields.take::<bool>());
        assert_eq!(fields.take::<f64>(), 27.5);
        let borrowed = fields.take::<CowStr<'_>>();
        assert!(borrowed.is_borrowed() && *borrowed == *"evt-1");
        assert_eq!(fields.take::<Option<CowStr<'_>>>(), None);
        assert_eq!(
            fields.take::<Option<String>>().as_deref(),
            Some("past the slots in place")
        );
        assert_eq!(fields.take::<Option<bool>>(), None);
        let mut ok = true;
        fields.finish(&mut ok);
        assert!(ok, "every slot held its field's type");
        // An integer taken as a string: the stand-in, and the flag cleared.
        assert_eq!(fields.take::<String>(), "");
        fields.finish(&mut ok);
        assert!(!ok, "a mismatch clears the flag");
        assert!(
            fields.slots().all(Option::is_none),
            "every slot is left empty"
        );
    }
}
