//! The table written: the calls serde's derive makes, a field at a time.

use super::*;

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
