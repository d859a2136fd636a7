//! The serde side of decoding: one pass over an envelope that reads the type and version, then hands the
//! payload to [`EventKind`] as a `DeserializeSeed`, so a payload is parsed once, straight into its struct.
//!
//! A payload that comes before the type or version is kept as a borrowed `&RawValue` (its extent, no
//! copy) and decoded after the envelope. Other fields are kept as borrowed raw values (metadata).
//!
//! Decoding does not track paths (that costs time on every event); when it fails, the envelope is read
//! again with the payload raw, recording where it was (see `Trace`), and the generated crate finds the
//! path of a failing payload's bad field from the error's position (`EventKind::locate_error`).

use super::envelope::{EnvelopeFields, MetadataTexts};
use super::error::ErrorKind;
use energy_api::{Event, EventKind, EventType};
use energy_api_core::read::{Reader, Stop};
use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, Visitor};
use serde_json::value::RawValue;
use std::borrow::Cow;
use std::fmt;
use std::marker::PhantomData;

/// What the envelope reader saw, kept even when reading fails, to say where and about which event.
#[derive(Debug, Default)]
pub(crate) struct Trace<'de> {
    /// The event type, once read.
    pub event_type: Option<Cow<'de, str>>,
    /// The version, once read.
    pub version: Option<Cow<'de, str>>,
    /// The key whose value is being read.
    pub key: Option<Cow<'de, str>>,
    /// A fault found by the reader itself (a missing or repeated field), more precise than its error.
    pub problem: Option<Problem>,
}

/// A fault of the envelope found by the reader.
#[derive(Debug)]
pub(crate) struct Problem {
    pub kind: ErrorKind,
    pub path: String,
    pub message: String,
}

impl Trace<'_> {
    /// The known (type, version) pair read, if any.
    pub fn kind(&self) -> Option<EventKind> {
        kind_of(self.event_type.as_deref()?, self.version.as_deref()?)
    }

    fn fail<E: de::Error>(&mut self, kind: ErrorKind, path: &str, message: String) -> E {
        let error = E::custom(&message);
        self.problem = Some(Problem {
            kind,
            path: path.to_owned(),
            message,
        });
        error
    }
}

/// The pair for a type and version, when both are in the catalogue.
pub(crate) fn kind_of(event_type: &str, version: &str) -> Option<EventKind> {
    event_type.parse::<EventType>().ok()?.kind(version)
}

/// What is kept of a payload: the event, or only its kind (validation).
pub(crate) trait Keep {
    /// What is kept (it may borrow from the input, `'de`).
    type Kept<'de>;
    /// Reads a payload of `seed.kind` from `deserializer`, keeping what is needed.
    fn read<'de, D: Deserializer<'de>>(
        seed: PayloadSeed<'_>,
        deserializer: D,
    ) -> Result<Self::Kept<'de>, D::Error>;
    /// Whether [`Keep::read_fast`] reads anything (otherwise the fast reader is not tried).
    const FAST: bool = false;
    /// Reads a payload of `kind` with the fast reader (see `super::fast`), or stops.
    fn read_fast<'de>(kind: EventKind, reader: &mut Reader<'de>) -> Result<Self::Kept<'de>, Stop> {
        let _ = (kind, reader);
        Err(Stop)
    }
}

/// Keeps the event, boxed: an `Event` is large, and it moves through several layers on its way out.
pub(crate) struct KeepEvent;

impl Keep for KeepEvent {
    type Kept<'de> = Box<Event>;
    fn read<'de, D: Deserializer<'de>>(
        seed: PayloadSeed<'_>,
        deserializer: D,
    ) -> Result<Box<Event>, D::Error> {
        seed.deserialize(deserializer).map(Box::new)
    }
    const FAST: bool = true;
    fn read_fast<'de>(kind: EventKind, reader: &mut Reader<'de>) -> Result<Box<Event>, Stop> {
        boxed(|| kind.read(reader))
    }
}

/// The value `read` makes, boxed: the box is allocated first and the value written into it once. A
/// read that stops frees the box unused: the rare path, on which the serde reader decides anyway.
// Boxed after it was read (`map(Box::new)`), the value, hundreds of bytes, was copied twice: into the
// box, and before that aside, to be dropped should the allocation unwind (`BENCHMARKS.md`, section 22).
#[inline(always)]
fn boxed<T>(read: impl FnOnce() -> Result<T, Stop>) -> Result<Box<T>, Stop> {
    let place = Box::new_uninit();
    Ok(Box::write(place, read()?))
}

/// Keeps only the kind: the payload matched its shape.
pub(crate) struct KeepKind;

impl Keep for KeepKind {
    type Kept<'de> = EventKind;
    fn read<'de, D: Deserializer<'de>>(
        seed: PayloadSeed<'_>,
        deserializer: D,
    ) -> Result<EventKind, D::Error> {
        let kind = seed.kind;
        if seed.strict {
            // Unlisted fields are found by decoding under `serde_ignored`.
            seed.deserialize(deserializer).map(|_| kind)
        } else {
            // The generated checker: the verdict of decoding, without building or allocating anything.
            kind.validator().deserialize(deserializer).map(|()| kind)
        }
    }
}

/// Keeps the borrowed view of the event, boxed like an `Event`.
#[cfg(feature = "borrowed")]
pub(crate) struct KeepView;

#[cfg(feature = "borrowed")]
impl Keep for KeepView {
    type Kept<'de> = Box<energy_api::EventRef<'de>>;
    fn read<'de, D: Deserializer<'de>>(
        seed: PayloadSeed<'_>,
        deserializer: D,
    ) -> Result<Box<energy_api::EventRef<'de>>, D::Error> {
        let view = seed.kind.borrowed();
        seed.read_with(view, deserializer).map(Box::new)
    }
    const FAST: bool = true;
    fn read_fast<'de>(
        kind: EventKind,
        reader: &mut Reader<'de>,
    ) -> Result<Box<energy_api::EventRef<'de>>, Stop> {
        boxed(|| kind.read_borrowed(reader))
    }
}

/// The payload as read in the envelope.
pub(crate) enum Payload<'de, T> {
    /// Decoded in the same pass (the type and version came first, and are known).
    Decoded(T),
    /// Kept raw: the type or version came after it, is unknown, or the reader was asked to.
    Raw(&'de RawValue),
}

/// An envelope read in one pass.
pub(crate) struct Body<'de, T> {
    pub event_type: Cow<'de, str>,
    pub version: Cow<'de, str>,
    pub payload: Payload<'de, T>,
    /// The other top-level fields, in order.
    pub metadata: MetadataTexts<'de>,
    /// Paths (inside the payload) of the fields the schema does not list, in strict mode.
    pub ignored: Vec<String>,
}

/// Reads one JSON envelope from `input`, recording into `trace` as it goes.
///
/// With `typed_payload`, a payload whose known type and version came first is decoded in the same pass
/// (and `K` says what is kept of it); otherwise every payload is kept raw (the second reading, after a
/// failure).
pub(crate) fn read_envelope<'de, K: Keep>(
    input: &'de str,
    fields: &EnvelopeFields,
    strict: bool,
    typed_payload: bool,
    trace: &mut Trace<'de>,
) -> Result<Body<'de, K::Kept<'de>>, serde_json::Error> {
    let mut de = serde_json::Deserializer::from_str(input);
    let body = de.deserialize_map(EnvelopeVisitor::<K> {
        fields,
        strict,
        typed_payload,
        trace,
        keep: PhantomData,
    })?;
    de.end()?;
    Ok(body)
}

/// Decodes a payload on its own: `Ok` with the paths of unlisted fields (when `strict`), or the JSON error.
pub(crate) fn decode_payload<K: Keep>(
    kind: EventKind,
    payload: &str,
    strict: bool,
) -> Result<(K::Kept<'_>, Vec<String>), serde_json::Error> {
    // From text, like the envelope and the generated decoders: one instantiation of every payload
    // deserializer serves all of them.
    let mut de = serde_json::Deserializer::from_str(payload);

    let mut ignored = Vec::new();
    let kept = K::read(
        PayloadSeed {
            kind,
            strict,
            ignored: &mut ignored,
        },
        &mut de,
    )?;
    de.end()?;
    Ok((kept, ignored))
}

struct EnvelopeVisitor<'a, 't, 'de, K> {
    fields: &'a EnvelopeFields,
    strict: bool,
    typed_payload: bool,
    trace: &'t mut Trace<'de>,
    keep: PhantomData<K>,
}

impl<'de, K: Keep> Visitor<'de> for EnvelopeVisitor<'_, '_, 'de, K> {
    type Value = Body<'de, K::Kept<'de>>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "an event envelope (a JSON object with `{}`, `{}` and `{}`)",
            self.fields.event_type, self.fields.version, self.fields.payload
        )
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let fields = self.fields;
        let mut payload = None;
        let mut metadata = MetadataTexts::new();
        let mut ignored = Vec::new();
        while let Some(Text(key)) = map.next_key()? {
            self.trace.key = Some(key.clone());
            let repeated = if key == fields.event_type {
                self.trace.event_type.is_some()
            } else if key == fields.version {
                self.trace.version.is_some()
            } else if key == fields.payload {
                payload.is_some()
            } else {
                false
            };
            if repeated {
                return Err(self.trace.fail(
                    ErrorKind::MalformedJson,
                    &key,
                    format!("duplicate field `{key}`"),
                ));
            }
            if key == fields.event_type {
                self.trace.event_type = Some(map.next_value::<Text>()?.0);
            } else if key == fields.version {
                self.trace.version = Some(map.next_value::<Text>()?.0);
            } else if key == fields.payload {
                let kind = self.trace.kind().filter(|_| self.typed_payload);
                payload = Some(match kind {
                    Some(kind) => Payload::Decoded(map.next_value_seed(KeptSeed::<K> {
                        seed: PayloadSeed {
                            kind,
                            strict: self.strict,
                            ignored: &mut ignored,
                        },
                        keep: PhantomData,
                    })?),
                    None => Payload::Raw(map.next_value()?),
                });
            } else {
                let value: &'de RawValue = map.next_value()?;
                metadata.push((key, value.get()));
            }
            self.trace.key = None;
        }
        // Borrowed from the input, these clones copy no text (only an escaped string is owned).
        let (Some(event_type), Some(version), Some(payload)) = (
            self.trace.event_type.clone(),
            self.trace.version.clone(),
            payload,
        ) else {
            let name = if self.trace.event_type.is_none() {
                &fields.event_type
            } else if self.trace.version.is_none() {
                &fields.version
            } else {
                &fields.payload
            };
            return Err(self.trace.fail(
                ErrorKind::BadEnvelope,
                name,
                format!("missing field `{name}`"),
            ));
        };
        if let Some(key) = repeated_key(&metadata) {
            return Err(self.trace.fail(
                ErrorKind::MalformedJson,
                &key,
                format!("duplicate field `{key}`"),
            ));
        }
        Ok(Body {
            event_type,
            version,
            payload,
            metadata,
            ignored,
        })
    }
}

/// A key that appears twice among the metadata, if any.
pub(crate) fn repeated_key<V>(metadata: &[(Cow<'_, str>, V)]) -> Option<String> {
    // A few keys (the usual id and timestamp) are compared pairwise, without allocating; many are sorted,
    // so that a line of thousands of keys stays fast.
    if metadata.len() <= 8 {
        return metadata.iter().enumerate().find_map(|(i, (key, _))| {
            metadata[i + 1..]
                .iter()
                .any(|(other, _)| other == key)
                .then(|| key.clone().into_owned())
        });
    }
    let mut keys: Vec<&str> = metadata.iter().map(|(key, _)| &**key).collect();
    keys.sort_unstable();
    keys.windows(2)
        .find(|pair| pair[0] == pair[1])
        .map(|pair| pair[0].to_owned())
}

/// A payload read by its kind as `K` keeps it.
struct KeptSeed<'i, K> {
    seed: PayloadSeed<'i>,
    keep: PhantomData<K>,
}

impl<'de, K: Keep> DeserializeSeed<'de> for KeptSeed<'_, K> {
    type Value = K::Kept<'de>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<K::Kept<'de>, D::Error> {
        K::read(self.seed, deserializer)
    }
}

/// A payload decoded by its kind, in strict mode through `serde_ignored` to collect unlisted fields.
///
/// Incomplete payloads keep unlisted fields in their `additional_fields` map (a flattened map): nothing is
/// ignored there, so nothing is reported.
pub(crate) struct PayloadSeed<'i> {
    kind: EventKind,
    strict: bool,
    ignored: &'i mut Vec<String>,
}

impl PayloadSeed<'_> {
    /// Reads the payload with `inner` (the event, or its view), in strict mode through `serde_ignored`.
    fn read_with<'de, S: DeserializeSeed<'de>, D: Deserializer<'de>>(
        self,
        inner: S,
        deserializer: D,
    ) -> Result<S::Value, D::Error> {
        if !self.strict {
            return inner.deserialize(deserializer);
        }
        let ignored = self.ignored;
        let mut record = |path: serde_ignored::Path<'_>| {
            let mut text = String::new();
            write_path(&path, &mut text);
            ignored.push(text);
        };
        inner.deserialize(serde_ignored::Deserializer::new(deserializer, &mut record))
    }
}

impl<'de> DeserializeSeed<'de> for PayloadSeed<'_> {
    type Value = Event;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Event, D::Error> {
        let kind = self.kind;
        self.read_with(kind, deserializer)
    }
}

/// A path as `ledger.entries[0].id`, the style of the generated crate's payload errors.
fn write_path(path: &serde_ignored::Path<'_>, out: &mut String) {
    use serde_ignored::Path;
    match path {
        Path::Root => {}
        Path::Seq { parent, index } => {
            write_path(parent, out);
            out.push_str(&format!("[{index}]"));
        }
        Path::Map { parent, key } => {
            write_path(parent, out);
            if !out.is_empty() {
                out.push('.');
            }
            out.push_str(key);
        }
        Path::Some { parent }
        | Path::NewtypeStruct { parent }
        | Path::NewtypeVariant { parent } => write_path(parent, out),
    }
}

/// A string, borrowed from the input when it has no escapes.
struct Text<'de>(Cow<'de, str>);

impl<'de> de::Deserialize<'de> for Text<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct TextVisitor;
        impl<'de> Visitor<'de> for TextVisitor {
            type Value = Text<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a string")
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Text<'de>, E> {
                Ok(Text(Cow::Borrowed(v)))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Text<'de>, E> {
                Ok(Text(Cow::Owned(v.to_owned())))
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<Text<'de>, E> {
                Ok(Text(Cow::Owned(v)))
            }
        }
        deserializer.deserialize_str(TextVisitor)
    }
}
