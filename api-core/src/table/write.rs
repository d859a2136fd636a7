//! The table written: the calls serde's derive makes, a field at a time.

use super::*;

/// Writes a struct by its table, making the calls serde's derive makes for it (with
/// `skip_serializing_if = "Option::is_none"` on optional fields and `flatten` on kept unlisted members):
/// what a generated struct's `Serialize` impl does, a field at a time ([`Writer::field`],
/// [`Writer::optional`]), each value written by its own `Serialize` impl, so that nothing on the way is
/// dispatched at run time.
// A struct's `Serialize` is a call per field, as the derive's is; the writer's methods are not
// inlined into it: [`Writer::start`] and [`Writer::end`] are one function for each serializer,
// [`Writer::field`] one for each serializer and type of field, shared by every struct. Code inlined
// a field at a time (a field's name known when it is compiled, its escaping and copying made then)
// took fewer instructions, but made each struct's `Serialize` ten times the derive's, and writing
// missed the instruction cache until it was no faster than the derive's (`BENCHMARKS.md`, section
// 17). The first error is kept by the writer and returned by [`Writer::end`]: no `?` per field.
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
    #[inline(never)]
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

    /// Writes the next field (fields are written in declared order) under its JSON name, which is
    /// plain JSON (see [`crate::table_struct!`]) and is written between quotes as it is. The first
    /// error is kept by the writer.
    // A name costs a copy: escaped as a string, it was 8 % of writing (`BENCHMARKS.md`, section 22);
    // its member text `"name":` made by `concat!` when the crate compiled cost 0.6 % of the generated
    // crate's build (section 27). Not inlined (see `Writer`), and no error returned: a call is all a
    // field costs its struct.
    #[inline(never)]
    pub fn field<T: serde::Serialize + ?Sized>(&mut self, name: &'static str, value: &T) {
        use serde::ser::{Error, SerializeMap, SerializeStruct};
        if self.failed.is_some() {
            return;
        }
        // Which states `S` can be in is known when the code is compiled (`compact_json` is a
        // constant for each `S`), so each instance has only its own states' code.
        let written = match (&mut self.state, crate::text::compact_json::<S>()) {
            (WriterState::Json { text, first, .. }, true) => {
                text.plain_member(name, std::mem::take(first));
                value.serialize(&mut *text).map_err(S::Error::custom)
            }
            (WriterState::Struct(state), false) => state.serialize_field(name, value),
            (WriterState::Map(state), false) => state.serialize_entry(name, value),
            _ => Err(S::Error::custom(MISMATCH)),
        };
        if let Err(error) = written {
            self.failed = Some(error);
        }
    }

    /// Writes the next field, an optional one (given as [`Writer::field`]'s is): left out when `None`.
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
    #[inline(never)]
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
                let written = match text.as_str().and_then(crate::raw::borrowed_raw_value) {
                    Some(raw) => serde::Serialize::serialize(raw, serializer),
                    None => Err(S::Error::custom(MISMATCH)),
                };
                text.recycle();
                written
            }
        }
    }
}
