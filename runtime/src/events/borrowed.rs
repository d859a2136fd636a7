//! Events decoded as borrowed views (cargo feature `borrowed`): the payload's strings, the envelope's
//! metadata and an unknown event's payload all point into the line they were read from.

use super::envelope::{Metadata, MetadataTexts};
use energy_api::EventRef;
use serde_json::value::RawValue;
use std::borrow::Cow;

/// The envelope's fields other than type, version and payload, in the order they came, each as its
/// JSON text in the line.
///
/// Each is held as its text, checked as the line was read; its `RawValue` is made when it is asked for.
#[derive(Debug, Clone, Default)]
pub struct MetadataRef<'a>(pub(crate) MetadataTexts<'a>);

impl<'a> MetadataRef<'a> {
    /// The JSON value of `name`, if present.
    pub fn get(&self, name: &str) -> Option<&'a RawValue> {
        self.0
            .iter()
            .find(|(key, _)| key == name)
            .and_then(|(_, text)| energy_api_core::read::raw_value(text))
    }

    /// The value of `name` when it is a JSON string.
    pub fn get_str(&self, name: &str) -> Option<Cow<'a, str>> {
        serde_json::from_str(self.get(name)?.get()).ok()
    }

    /// Every field, in order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &'a RawValue)> {
        self.0.iter().filter_map(|(key, text)| {
            energy_api_core::read::raw_value(text).map(|value| (&**key, value))
        })
    }

    /// The number of fields.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// No fields.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The fields as owned [`Metadata`].
    pub fn to_metadata(&self) -> Metadata {
        Metadata::of_texts(self.0.iter().cloned())
    }
}

/// An event of a known type and version, decoded as its borrowed view (not `Clone`, as the view is not:
/// to keep an event, decode it owned with [`Decoder::decode`](super::Decoder::decode)).
#[derive(Debug)]
pub struct KnownEventRef<'a> {
    /// The event (boxed, like [`KnownEvent::event`](super::KnownEvent::event)).
    pub event: Box<EventRef<'a>>,
    /// The envelope's other fields.
    pub metadata: MetadataRef<'a>,
}

/// An event of a type or version this crate does not know, as it came.
#[derive(Debug, Clone)]
pub struct RawEventRef<'a> {
    /// The event type as given.
    pub event_type: Cow<'a, str>,
    /// The version as given.
    pub version: Cow<'a, str>,
    /// The payload, as its JSON text in the line.
    pub payload: &'a RawValue,
    /// The envelope's other fields.
    pub metadata: MetadataRef<'a>,
}

/// What [`Decoder::decode_borrowed`](super::Decoder::decode_borrowed) read.
#[derive(Debug)]
pub enum DecodedRef<'a> {
    /// A known type and version.
    Known(KnownEventRef<'a>),
    /// An unknown type or version (when the decoder accepts them).
    Unknown(RawEventRef<'a>),
}

impl DecodedRef<'_> {
    /// The event type.
    pub fn event_type(&self) -> &str {
        match self {
            DecodedRef::Known(known) => known.event.event_type().as_str(),
            DecodedRef::Unknown(raw) => &raw.event_type,
        }
    }

    /// The payload version.
    pub fn version(&self) -> &str {
        match self {
            DecodedRef::Known(known) => known.event.version(),
            DecodedRef::Unknown(raw) => &raw.version,
        }
    }
}
