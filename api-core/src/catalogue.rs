//! The catalogue as one table: a row per event type, and in it a row per payload version (its table
//! and the function that makes an event from what the table read).
//!
//! A generated crate writes its catalogue as one static array of [`EventRow`]s indexed by its
//! `EventType` (`event_type as usize`), so that the name, section and versions of an event type, the
//! table of a payload version and the making of an event from it are each a lookup, not a `match` of
//! a few hundred arms: an indexed load and an indirect call, where a `match` is an indirect jump, and
//! one generic function (`build_owned`, through [`PayloadRow::of`]) instantiated per payload where each
//! event type had its own. A borrowed view's row is a function item made by
//! [`view_row!`](crate::view_row): a view has the input's lifetime, which a generic function's type
//! parameters cannot leave open.

use crate::read::{Reader, Stop};
use crate::table::{Compiled, Fields, FromFields, StructTable};

/// An event type of a generated catalogue: what its `EventType` says of it, and its payload versions.
/// `E` is the generated crate's `Event`.
#[derive(Debug)]
pub struct EventRow<E: 'static> {
    /// The event type as it appears on the bus.
    pub name: &'static str,
    /// The names it had before it was renamed (`renamed_from:` in the schema), oldest first.
    pub former_names: &'static [&'static str],
    /// The catalogue section (and cargo feature) it belongs to.
    pub section: &'static str,
    /// Its payload versions, oldest first.
    pub versions: &'static [&'static str],
    /// A row per payload version, in the order of [`Self::versions`].
    pub payloads: &'static [PayloadRow<E>],
}

/// A payload version: the table every decoder of it reads, and the event made from what it read.
pub struct PayloadRow<E: 'static> {
    /// The table of the payload struct.
    pub table: &'static StructTable,
    /// The event made from the fields the table read; `Stop` only if the table and the struct
    /// disagree (see [`FromFields::build`]).
    pub build: fn(&mut Fields<'_>) -> Result<E, Stop>,
    /// The fast reader of a payload compiled per type ([`Compiled`]); `None` for one read by its table.
    pub read: Option<ReadCompiled<E>>,
}

/// The fast reader of a payload compiled per type: the event of `E` read by the payload's own code.
pub type ReadCompiled<E> = fn(&mut Reader<'_>) -> Result<E, Stop>;

impl<E> PayloadRow<E> {
    /// The row of payload struct `P`, a variant of version enum `T`, itself a variant of event `E`.
    pub const fn of<P, T>() -> Self
    where
        P: for<'a> FromFields<'a>,
        T: From<P>,
        E: From<T>,
    {
        PayloadRow {
            table: <P as FromFields<'static>>::TABLE,
            build: build_owned::<P, T, E>,
            read: None,
        }
    }

    /// The row of payload struct `P` compiled per type (its version is in the traffic profile): read
    /// by its own code ([`Compiled`]), its table kept for every other decoder.
    pub const fn compiled<P, T>() -> Self
    where
        P: for<'a> FromFields<'a> + Compiled,
        T: From<P>,
        E: From<T>,
    {
        PayloadRow {
            read: Some(read_compiled::<P, T, E>),
            ..Self::of::<P, T>()
        }
    }
}

/// The event of payload `P` made from the fields its table read, wrapped in its version enum's variant
/// and that in its event's, through their `From` impls; its lifetime is the call's own, so that it is a
/// `fn` for fields of any input.
///
/// The payload is wrapped where it is made, so the event is written once into the result instead of
/// being moved out of a temporary (an event is as large as the largest payload); the conversions are
/// called here rather than handed over as functions, which would add two functions (and their call
/// shims) per payload to a generated crate.
fn build_owned<P, T, E>(fields: &mut Fields<'_>) -> Result<E, Stop>
where
    P: for<'a> FromFields<'a>,
    T: From<P>,
    E: From<T>,
{
    let mut ok = true;
    let payload = P::build(fields, &mut ok);
    if ok {
        Ok(E::from(T::from(payload)))
    } else {
        Err(Stop)
    }
}

/// The event of payload `P` read by its own code, wrapped as [`build_owned`] wraps it.
fn read_compiled<P, T, E>(reader: &mut Reader<'_>) -> Result<E, Stop>
where
    P: Compiled,
    T: From<P>,
    E: From<T>,
{
    P::read(reader).map(|payload| E::from(T::from(payload)))
}

impl<E> std::fmt::Debug for PayloadRow<E> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PayloadRow")
            .field("table", &self.table.name)
            .finish_non_exhaustive()
    }
}

/// The row of a borrowed view in a catalogue: a function that makes the view from the fields its table
/// read and wraps it in its version enum's variant and that in its event's,
/// `view_row!(EventRef::AgreementUpdated, AgreementUpdated::V2)` (the event enum named as the first
/// path's head). A macro, not a generic function: the view has the input's lifetime, which a generic
/// function's type parameters cannot leave open, and a generic function handed the two variants would be
/// instantiated per view beside them, with a call shim for each variant. A function item rather than a
/// closure: a closure made a `fn` pointer needs a shim of its own.
#[doc(hidden)]
#[macro_export]
macro_rules! view_row {
    ($events:ident :: $event:ident, $variant:path) => {{
        fn row<'a>(
            fields: &mut $crate::table::Fields<'a>,
        ) -> ::std::result::Result<$events<'a>, $crate::read::Stop> {
            let mut ok = true;
            let payload = $crate::table::FromFields::build(fields, &mut ok);
            if ok {
                ::std::result::Result::Ok($events::$event($variant(payload)))
            } else {
                ::std::result::Result::Err($crate::read::Stop)
            }
        }
        row
    }};
}

/// The enums over a generated catalogue's event types, from a row per event type:
/// `#[cfg(feature = "billing")] AgreementUpdated(billing::AgreementUpdated) = "agreement.updated",`
/// (the cfg of its section, its variant, the type of its payload in every version, its name on the bus).
///
/// `owned;` then the rows writes `EventType` (and `EventType::ALL`) and `Event`, with `event_type`,
/// `version` and `Serialize` (as the payload); `borrowed<'a>, uninhabited_unless any(…);` then the rows
/// (each the path of its borrowed view) writes `EventRef<'a>` with the same impls, over the `EventType`
/// in scope: `uninhabited_unless` names the features of every section, for the variant that keeps the
/// lifetime used in a build without any. The generated crate writes its rows; everything else of the
/// three enums is written once, here.
#[doc(hidden)]
#[macro_export]
macro_rules! event_enum {
    (
        owned;
        $( #[$cfg:meta] $variant:ident($payload:ty) = $name:literal, )*
    ) => {
        // A variant's doc is its name as it is: made with `concat!` (" `name`."), the three enums'
        // docs were a macro expansion per variant, 0.2 % of the crate's build (`BENCHMARKS.md`, section 26).
        /// An event type of the catalogue, without a payload.
        ///
        /// Its variants are in name order; their numeric values (an `as` cast) are not part of the API:
        /// they change when event types are added, and with the crate's features.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
        #[non_exhaustive]
        pub enum EventType {
            $( #[$cfg] #[doc = $name] $variant, )*
        }

        impl EventType {
            /// Every event type compiled in (see the crate's features), by name.
            pub const ALL: &'static [EventType] = &[$( #[$cfg] EventType::$variant, )*];
        }

        /// An event: its type, payload version and payload.
        ///
        /// Serializes as the payload alone, exactly as the platform sends it.
        #[derive(Debug, Clone, PartialEq)]
        #[non_exhaustive]
        pub enum Event {
            $( #[$cfg] #[doc = $name] $variant($payload), )*
        }

        $crate::event_enum!(@impls Event, []; $( #[$cfg] $variant, )*);
    };
    (
        borrowed<$a:lifetime>, uninhabited_unless $any:meta;
        $( #[$cfg:meta] $variant:ident($view:ty) = $name:literal, )*
    ) => {
        /// An event as its borrowed view: its strings and free-form objects point into the payload it
        /// was decoded from (see [`EventRef::decode`]).
        #[derive(Debug)]
        #[non_exhaustive]
        pub enum EventRef<$a> {
            $( #[$cfg] #[doc = $name] $variant($view), )*
            #[cfg(not($any))]
            #[doc(hidden)]
            Uninhabited(::std::convert::Infallible, ::std::marker::PhantomData<&$a ()>),
        }

        $crate::event_enum!(
            @impls EventRef<'_>,
            [#[cfg(not($any))] Self::Uninhabited(ref never, _) => match *never {},];
            $( #[$cfg] $variant, )*
        );
    };
    // `event_type()`, `version()` and `Serialize` of an enum with a variant per event type holding its
    // version enum; `$($none)*` is the arm of a variant that no build can make.
    (@impls $ty:ty, [$($none:tt)*]; $( #[$cfg:meta] $variant:ident, )*) => {
        impl $ty {
            /// The event's type.
            pub fn event_type(&self) -> EventType {
                match *self {
                    $( #[$cfg] Self::$variant(_) => EventType::$variant, )*
                    $($none)*
                }
            }

            /// The payload version.
            pub fn version(&self) -> &'static str {
                match *self {
                    $( #[$cfg] Self::$variant(ref e) => e.version(), )*
                    $($none)*
                }
            }
        }

        /// Serializes as the payload alone, exactly as the platform sends it.
        impl $crate::__private::serde::Serialize for $ty {
            fn serialize<S: $crate::__private::serde::Serializer>(
                &self,
                serializer: S,
            ) -> ::std::result::Result<S::Ok, S::Error> {
                match *self {
                    $( #[$cfg] Self::$variant(ref e) => $crate::__private::serde::Serialize::serialize(e, serializer), )*
                    $($none)*
                }
            }
        }
    };
}

/// The index of `name` in `names` (`names.len()` when it is not there), looking from index `from` on,
/// for a generated crate to fill its tables at compile time: names looked up in the order they are
/// listed each start where the one before was found, so that the whole table costs the compiler's
/// evaluator one pass over `names`, not one per name.
pub const fn index_of(names: &[&str], name: &str, from: usize) -> usize {
    let mut index = from;
    while index < names.len() {
        if same_bytes(names[index].as_bytes(), name.as_bytes()) {
            return index;
        }
        index += 1;
    }
    names.len()
}

/// `a == b`, in a `const fn`.
const fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

#[cfg(test)]
mod tests {
    use super::index_of;

    #[test]
    fn a_name_is_found_at_its_index_and_a_missing_one_past_the_end() {
        let names = ["account.created", "account.updated", "account.create"];
        assert_eq!(index_of(&names, "account.updated", 0), 1);
        assert_eq!(index_of(&names, "account.create", 0), 2);
        assert_eq!(index_of(&names, "account.deleted", 0), 3);
        assert_eq!(
            index_of(&names, "account.created", 1),
            3,
            "not looked for before `from`"
        );
        const AT_COMPILE_TIME: usize = index_of(&["a", "bb"], "bb", 1);
        assert_eq!(AT_COMPILE_TIME, 1);
    }
}
