//! What [`EventType`] and [`EventKind`] read from the catalogue: an event type's name, versions and
//! section, its lookup by name, and the table and the making of each payload.
//!
//! This file is the same for every schema; the generator copies it from `codegen/templates/`, where it is
//! compiled and tested against a stand-in catalogue (`codegen/tests/templates.rs`). Its code names the
//! generated `CATALOGUE` (a row per event type, at `event_type as usize`), `EVENT_TYPE_NAMES` and
//! `event_type_index` (the names' hash table), `Event` and `EventType`.

use super::{
    CATALOGUE, EVENT_TYPE_NAMES, Event, EventKind, EventType, UnknownEventType, event_type_index,
};
use energy_api_core::catalogue::{EventRow, PayloadRow};
use energy_api_core::read::{Reader, Stop};
use energy_api_core::table::{Fields, Mode, StructTable};

impl EventType {
    /// The event type as it appears on the bus.
    pub const fn as_str(self) -> &'static str {
        self.row().name
    }

    /// Its payload versions, oldest first.
    pub const fn versions(self) -> &'static [&'static str] {
        self.row().versions
    }

    /// The catalogue section (and cargo feature) it belongs to.
    pub const fn section(self) -> &'static str {
        self.row().section
    }

    /// Its row of the catalogue.
    // Inline: a load at a constant offset wherever an event type's name or versions are read.
    #[inline]
    const fn row(self) -> &'static EventRow<Event> {
        &CATALOGUE[self as usize]
    }

    /// This event type in payload version `version`, if that version exists.
    pub fn kind(self, version: &str) -> Option<EventKind> {
        let index = self.versions().iter().position(|v| *v == version)?;
        Some(EventKind {
            event_type: self,
            version: u8::try_from(index).ok()?,
        })
    }
}

/// The event type of each name of `EVENT_TYPE_NAMES`, if its section is compiled in: filled at
/// compile time from the catalogue's names and former names.
// An array rather than a `match`: a load, where a `match` is an indirect jump mispredicted on a mixed
// stream.
static EVENT_TYPES_BY_INDEX: [Option<EventType>; EVENT_TYPE_NAMES.len()] = {
    use energy_api_core::catalogue::index_of;
    let mut by_index = [None; EVENT_TYPE_NAMES.len()];
    // Both lists are in the catalogue's order (the names, then the former names): each name is
    // looked for from where the one before it was found.
    let (mut name_at, mut former_at) = (0, 0);
    let mut t = 0;
    while t < CATALOGUE.len() {
        let row = &CATALOGUE[t];
        let event_type = Some(EventType::ALL[t]);
        name_at = index_of(&EVENT_TYPE_NAMES, row.name, name_at);
        by_index[name_at] = event_type;
        let mut f = 0;
        while f < row.former_names.len() {
            former_at = index_of(&EVENT_TYPE_NAMES, row.former_names[f], former_at);
            by_index[former_at] = event_type;
            f += 1;
        }
        t += 1;
    }
    by_index
};

impl std::str::FromStr for EventType {
    type Err = UnknownEventType;

    /// The event type of a name on the bus, or of a former name of a renamed one.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        event_type_index(s)
            .and_then(|index| EVENT_TYPES_BY_INDEX[index])
            .ok_or_else(|| UnknownEventType(s.to_owned()))
    }
}

impl EventKind {
    /// The row of this kind's payload in the catalogue.
    #[inline]
    pub(crate) fn payload_row(self) -> &'static PayloadRow<Event> {
        &self.event_type.row().payloads[usize::from(self.version)]
    }

    /// The table of this kind's payload: what every decoder of it reads (each field's JSON name and
    /// shape; `energy events drift` compares what producers send with it). Its type belongs to
    /// `energy-api-core`'s engine, which changes with the generator: for tools, not applications.
    #[inline]
    pub fn table(self) -> &'static StructTable {
        self.payload_row().table
    }

    /// The event of this kind from the fields its table read; `Stop` only if the table and the struct
    /// disagree (see `energy_api_core::table::FromFields::build`).
    #[inline]
    pub(crate) fn event_of(self, fields: &mut Fields<'_>) -> Result<Event, Stop> {
        (self.payload_row().build)(fields)
    }

    /// Reads a payload of this kind with the fast reader of `energy-api-core`'s engine (what a decoder
    /// of whole envelopes calls first): it stops where it is not sure, and [`EventKind::decode`] then
    /// decodes the same text with serde. Applications call [`EventKind::decode`].
    pub fn read(self, reader: &mut Reader<'_>) -> Result<Event, Stop> {
        // A payload compiled per type (the traffic profile's) has a reader of its own.
        if let Some(read) = self.payload_row().read {
            return read(reader);
        }
        let mut fields = Fields::of(self.table());
        energy_api_core::table::read(reader, self.table(), Mode::Owned, &mut fields)?;
        self.event_of(&mut fields)
    }
}

impl<'de> serde::de::DeserializeSeed<'de> for EventKind {
    type Value = Event;

    /// Reads a payload of this kind from any deserializer, as an object (a map).
    fn deserialize<D: serde::Deserializer<'de>>(self, deserializer: D) -> Result<Event, D::Error> {
        let mut fields =
            energy_api_core::table::deserialize_object(deserializer, self.table(), Mode::Owned)?;
        self.event_of(&mut fields)
            .map_err(|_| <D::Error as serde::de::Error>::custom(energy_api_core::table::MISMATCH))
    }
}
