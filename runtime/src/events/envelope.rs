//! What a decoded event is: a typed event or a raw one, with the envelope's other fields (metadata).

use energy_api::{Event, EventType};
use serde::ser::{Serialize, SerializeMap, Serializer};
use serde_json::value::RawValue;
use std::borrow::Cow;

/// The names of the three fields of a JSON envelope.
///
/// The default envelope is `{"event_type": "...", "version": "v1", "payload": {...}}`; a bus that names
/// them otherwise (`{"type": ..., "dataversion": ..., "data": ...}`, say) sets its own. Every other
/// top-level field is [`Metadata`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EnvelopeFields {
    /// The field holding the event type.
    pub event_type: Cow<'static, str>,
    /// The field holding the payload version.
    pub version: Cow<'static, str>,
    /// The field holding the payload; also the first segment of payload paths in errors.
    pub payload: Cow<'static, str>,
}

impl EnvelopeFields {
    /// The default envelope's names: `event_type`, `version`, `payload`.
    pub const DEFAULT: EnvelopeFields = EnvelopeFields {
        event_type: Cow::Borrowed("event_type"),
        version: Cow::Borrowed("version"),
        payload: Cow::Borrowed("payload"),
    };

    /// Envelope fields with these names.
    pub fn new(
        event_type: impl Into<Cow<'static, str>>,
        version: impl Into<Cow<'static, str>>,
        payload: impl Into<Cow<'static, str>>,
    ) -> Self {
        EnvelopeFields {
            event_type: event_type.into(),
            version: version.into(),
            payload: payload.into(),
        }
    }
}

impl Default for EnvelopeFields {
    fn default() -> Self {
        Self::DEFAULT
    }
}

/// The envelope's fields other than type, version and payload (an id, a timestamp, …), in the order they
/// came, each value kept as its exact JSON text.
///
/// A consumer whose bus carries metadata elsewhere (headers, attributes) fills it with [`Metadata::insert`]
/// or [`Metadata::insert_str`].
#[derive(Debug, Clone, Default)]
pub struct Metadata(Vec<(String, Box<RawValue>)>);

/// `value` as a JSON string literal.
fn json_string(value: &str) -> Option<Box<RawValue>> {
    // Serialised, not parsed: `to_raw_value` keeps the text it wrote (a string always serialises),
    // where `RawValue::from_string` would read it again.
    serde_json::value::to_raw_value(value).ok()
}

/// Equal when the same fields hold the same JSON text, in the same order.
impl PartialEq for Metadata {
    fn eq(&self, other: &Self) -> bool {
        self.len() == other.len()
            && self
                .iter()
                .zip(other.iter())
                .all(|((ka, a), (kb, b))| ka == kb && a.get() == b.get())
    }
}

impl Eq for Metadata {}

impl Metadata {
    /// No metadata.
    pub fn new() -> Self {
        Self::default()
    }

    /// The JSON value of `name`, if present.
    pub fn get(&self, name: &str) -> Option<&RawValue> {
        self.0
            .iter()
            .find(|(key, _)| key == name)
            .map(|(_, value)| &**value)
    }

    /// The value of `name` when it is a JSON string.
    pub fn get_str(&self, name: &str) -> Option<String> {
        serde_json::from_str(self.get(name)?.get()).ok()
    }

    /// Adds (or replaces) `name` with a JSON value.
    pub fn insert(&mut self, name: impl Into<String>, value: Box<RawValue>) {
        let name = name.into();
        match self.0.iter_mut().find(|(key, _)| *key == name) {
            Some((_, old)) => *old = value,
            None => self.0.push((name, value)),
        }
    }

    /// Adds (or replaces) `name` with a string value, such as a message header.
    pub fn insert_str(&mut self, name: impl Into<String>, value: &str) {
        if let Some(raw) = json_string(value) {
            self.insert(name, raw);
        }
    }

    /// No metadata, with room for `capacity` fields.
    pub fn with_capacity(capacity: usize) -> Self {
        Metadata(Vec::with_capacity(capacity))
    }

    /// Every field, in order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &RawValue)> {
        self.0.iter().map(|(key, value)| (key.as_str(), &**value))
    }

    /// The number of fields.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// No fields.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// The envelope's fields other than type, version and payload, as a line is read: each name and its JSON
/// text in the line. The usual two (an id and a time) are held in place: a vector on the heap was an
/// allocation and a free for every line. More (a CloudEvents envelope's `source`, `time`, …) go to the
/// heap; two keep it small enough to be moved without a call to `memcpy` (four were slower).
pub(crate) type MetadataTexts<'a> = smallvec::SmallVec<[(Cow<'a, str>, &'a str); 2]>;

impl Metadata {
    /// The fields read from an envelope, each as its JSON text (checked as it was read).
    pub(crate) fn of_texts<'a>(fields: impl IntoIterator<Item = (Cow<'a, str>, &'a str)>) -> Self {
        let fields = fields.into_iter();
        // Sized once: the texts are all valid JSON (checked as they were read).
        let mut owned = Vec::with_capacity(fields.size_hint().0);
        for (key, text) in fields {
            if let Some(value) = energy_api_core::read::raw_value(text) {
                owned.push((key.into_owned(), value.to_owned()));
            }
        }
        Metadata(owned)
    }
}

impl<'a> FromIterator<(Cow<'a, str>, &'a RawValue)> for Metadata {
    fn from_iter<I: IntoIterator<Item = (Cow<'a, str>, &'a RawValue)>>(iter: I) -> Self {
        Metadata(
            iter.into_iter()
                .map(|(key, value)| (key.into_owned(), value.to_owned()))
                .collect(),
        )
    }
}

/// An event of a known type and version, decoded into its generated struct.
#[derive(Debug, Clone, PartialEq)]
pub struct KnownEvent {
    /// The typed event (boxed: the largest payloads make an `Event` several hundred bytes, and a
    /// [`Decoded`] moves through a consumer's code).
    pub event: Box<Event>,
    /// The envelope's other fields.
    pub metadata: Metadata,
}

/// An event whose type or version the catalogue does not know, kept exactly as it came so that it can be
/// forwarded or re-serialised unchanged.
#[derive(Debug, Clone)]
pub struct RawEvent {
    /// The event type as given.
    pub event_type: String,
    /// The payload version as given.
    pub version: String,
    /// The payload's exact JSON text.
    pub payload: Box<RawValue>,
    /// The envelope's other fields.
    pub metadata: Metadata,
}

/// Equal when type, version and metadata are, and the payloads are the same JSON text.
impl PartialEq for RawEvent {
    fn eq(&self, other: &Self) -> bool {
        self.event_type == other.event_type
            && self.version == other.version
            && self.payload.get() == other.payload.get()
            && self.metadata == other.metadata
    }
}

impl Eq for RawEvent {}

impl RawEvent {
    /// Whether the type is unknown, or the type is known and the version is not.
    pub fn reason(&self) -> Unknown {
        match self.event_type.parse::<EventType>() {
            Ok(event_type) => Unknown::Version(event_type),
            Err(_) => Unknown::EventType,
        }
    }

    /// The payload's exact bytes.
    pub fn payload_bytes(&self) -> &[u8] {
        self.payload.get().as_bytes()
    }
}

/// What is unknown about a [`RawEvent`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unknown {
    /// The event type is not in the catalogue.
    EventType,
    /// The event type is known (here), its version is not.
    Version(EventType),
}

/// A decoded event: typed when its type and version are known, raw otherwise.
#[derive(Debug, Clone, PartialEq)]
pub enum Decoded {
    /// A known type and version.
    Known(KnownEvent),
    /// An unknown type or version, kept raw.
    Unknown(RawEvent),
}

impl Decoded {
    /// The event type as it appears on the bus.
    pub fn event_type(&self) -> &str {
        match self {
            Decoded::Known(known) => known.event.event_type().as_str(),
            Decoded::Unknown(raw) => &raw.event_type,
        }
    }

    /// The payload version.
    pub fn version(&self) -> &str {
        match self {
            Decoded::Known(known) => known.event.version(),
            Decoded::Unknown(raw) => &raw.version,
        }
    }

    /// The envelope's other fields.
    pub fn metadata(&self) -> &Metadata {
        match self {
            Decoded::Known(known) => &known.metadata,
            Decoded::Unknown(raw) => &raw.metadata,
        }
    }

    /// The event as a JSON envelope with these field names: type, version, payload, then the metadata in
    /// its original order. A raw event's payload and metadata are written byte for byte as they came.
    pub fn to_envelope_json(&self, fields: &EnvelopeFields) -> String {
        let envelope = EnvelopeOut {
            fields,
            decoded: self,
        };
        // Every key is a string and every value serialisable: this cannot fail.
        serde_json::to_string(&envelope).unwrap_or_default()
    }
}

impl From<KnownEvent> for Decoded {
    fn from(known: KnownEvent) -> Self {
        Decoded::Known(known)
    }
}

impl From<RawEvent> for Decoded {
    fn from(raw: RawEvent) -> Self {
        Decoded::Unknown(raw)
    }
}

struct EnvelopeOut<'a> {
    fields: &'a EnvelopeFields,
    decoded: &'a Decoded,
}

impl Serialize for EnvelopeOut<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let metadata = self.decoded.metadata();
        let mut map = serializer.serialize_map(Some(3 + metadata.len()))?;
        map.serialize_entry(&*self.fields.event_type, self.decoded.event_type())?;
        map.serialize_entry(&*self.fields.version, self.decoded.version())?;
        match self.decoded {
            Decoded::Known(known) => map.serialize_entry(&*self.fields.payload, &known.event)?,
            Decoded::Unknown(raw) => map.serialize_entry(&*self.fields.payload, &raw.payload)?,
        }
        for (key, value) in metadata.iter() {
            map.serialize_entry(key, value)?;
        }
        map.end()
    }
}
