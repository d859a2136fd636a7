//! Decoding borrowed views: the same checks and the same errors as owned decoding, without copying
//! strings out of the payload.
//!
//! This file is the same for every schema; the generator copies it from `codegen/templates/`, where it is
//! compiled and tested against a stand-in catalogue (`codegen/tests/templates.rs`). Its code names the
//! generated `EventRef` and `VIEWS` (for each event type compiled in, in the order of `EventType`, a
//! function per payload version making its view).

use super::{EventRef, VIEWS};
use crate::{DecodeError, EventKind};
use energy_api_core::read::{Reader, Stop};
use energy_api_core::table::{Fields, Mode};

/// A borrowed view made from the fields its table read; `Stop` only if the table and the struct
/// disagree.
pub(super) type ViewOf = for<'a> fn(&mut Fields<'a>) -> Result<EventRef<'a>, Stop>;

/// Decodes a payload of one kind into its borrowed view: a
/// [`DeserializeSeed`](serde::de::DeserializeSeed) whose value is an [`EventRef`] borrowing from the
/// deserializer's input, so that a payload inside an envelope is decoded in the same pass.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BorrowedPayload(pub(crate) EventKind);

impl BorrowedPayload {
    /// The kind of payload it decodes.
    pub fn kind(self) -> EventKind {
        self.0
    }
}

impl<'de> serde::de::DeserializeSeed<'de> for BorrowedPayload {
    type Value = EventRef<'de>;

    /// Reads the view of a payload of this kind from any deserializer, as an object (a map).
    fn deserialize<D: serde::Deserializer<'de>>(
        self,
        deserializer: D,
    ) -> Result<EventRef<'de>, D::Error> {
        let kind = self.0;
        let mut fields =
            energy_api_core::table::deserialize_object(deserializer, kind.table(), Mode::Borrowed)?;
        kind.view_of(&mut fields)
            .map_err(|_| <D::Error as serde::de::Error>::custom(energy_api_core::table::MISMATCH))
    }
}

impl EventKind {
    /// The view of an event of this kind from the fields its table read; `Stop` only if the table
    /// and the struct disagree.
    #[inline]
    fn view_of<'a>(self, fields: &mut Fields<'a>) -> Result<EventRef<'a>, Stop> {
        VIEWS[self.event_type as usize][usize::from(self.version)](fields)
    }

    /// Reads the view of a payload of this kind with the fast reader of `energy-api-core`'s engine
    /// (what a decoder of whole envelopes calls first): it stops where it is not sure, and
    /// [`EventKind::decode_borrowed`] then decodes the same text with serde. Applications call
    /// [`EventKind::decode_borrowed`].
    pub fn read_borrowed<'a>(self, reader: &mut Reader<'a>) -> Result<EventRef<'a>, Stop> {
        let mut fields = Fields::of(self.table());
        energy_api_core::table::read(reader, self.table(), Mode::Borrowed, &mut fields)?;
        self.view_of(&mut fields)
    }

    /// A seed that decodes a payload of this kind into its borrowed view (see [`BorrowedPayload`]).
    pub fn borrowed(self) -> BorrowedPayload {
        BorrowedPayload(self)
    }

    /// Decodes a JSON payload of this kind into its borrowed view, whose strings point into `payload`.
    ///
    /// It accepts exactly what [`EventKind::decode`] accepts; a failure is explained by decoding again,
    /// so the error is the same too.
    pub fn decode_borrowed(self, payload: &[u8]) -> Result<EventRef<'_>, DecodeError> {
        let text = self.utf8(payload).map_err(DecodeError::Payload)?;
        // The fast reader first; where it stops, serde decides (the value or the error). Its steps
        // written out (as in `EventKind::decode`): the view is copied once on its way out, not three times.
        let mut reader = energy_api_core::read::Reader::new(text);
        let mut fields = energy_api_core::table::Fields::of(self.table());
        if energy_api_core::table::read(
            &mut reader,
            self.table(),
            energy_api_core::table::Mode::Borrowed,
            &mut fields,
        )
        .is_ok()
            && reader.end().is_ok()
            && let Ok(event) = self.view_of(&mut fields)
        {
            return Ok(event);
        }
        energy_api_core::table::deserialize_json_object(
            text,
            self.table(),
            energy_api_core::table::Mode::Borrowed,
        )
        .ok()
        .and_then(|mut fields| self.view_of(&mut fields).ok())
        .ok_or_else(|| DecodeError::Payload(self.locate_error(payload)))
    }
}

impl<'a> EventRef<'a> {
    /// Decodes a JSON payload of `event_type` in `version` into its borrowed view.
    ///
    /// Strings written without escapes, and free-form objects, point into `payload`; nothing else is
    /// different from [`Event::decode`](crate::Event::decode): the same payloads decode, with
    /// the same errors.
    pub fn decode(event_type: &str, version: &str, payload: &'a [u8]) -> Result<Self, DecodeError> {
        EventKind::new(event_type, version)?.decode_borrowed(payload)
    }

    /// The (event type, version) pair of this event.
    pub fn kind(&self) -> EventKind {
        let event_type = self.event_type();
        let index = event_type
            .versions()
            .iter()
            .position(|v| *v == self.version())
            .unwrap_or(0);
        EventKind {
            event_type,
            version: u8::try_from(index).unwrap_or(0),
        }
    }
}
