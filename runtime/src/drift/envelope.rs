//! One line of a stream: the envelope read in one pass, the payload walked against its version's table
//! as it comes (or, when it comes before the type and version, kept as its text and walked after).

use super::tree::{Journal, NodeId, Tree};
use super::walk::Walker;
use energy_api::events::{DecodeError, EventKind};
use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, Visitor};
use serde_json::value::RawValue;
use std::borrow::Cow;
use std::collections::HashMap;
use std::fmt;

/// Why a line is not an event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum LineFault {
    /// Not JSON (cut short, not UTF-8, a repeated key…).
    Malformed,
    /// JSON, but not an envelope.
    BadEnvelope,
}

/// What an envelope was about.
#[derive(Debug)]
pub(crate) enum Outcome {
    /// A version of the catalogue, walked.
    Known(EventKind),
    /// A type (or a version of a known type) the catalogue does not have.
    Unknown {
        event_type: String,
        version: String,
        type_known: bool,
    },
}

/// The state a line is read into.
pub(crate) struct Reading<'s> {
    pub(crate) tree: &'s mut Tree,
    pub(crate) journal: &'s mut Journal,
    pub(crate) roots: &'s mut HashMap<EventKind, NodeId>,
    pub(crate) example_bytes: usize,
    pub(crate) value_bytes: usize,
}

impl Reading<'_> {
    /// Reads one line (UTF-8 already checked): what it was, or why it is not an event.
    pub(crate) fn line(&mut self, text: &str) -> Result<Outcome, LineFault> {
        self.journal.clear();
        let mut fault = None;
        let mut deserializer = serde_json::Deserializer::from_str(text);
        let read = EnvelopeSeed {
            reading: self,
            fault: &mut fault,
        }
        .deserialize(&mut deserializer)
        .and_then(|outcome| deserializer.end().map(|()| outcome));
        // serde_json skips what is not walked (undeclared members, free-form values, unknown
        // payloads) without its depth limit: the line is then held to it as `validate` holds it.
        if read.is_ok() && crate::events::nests_too_deep(text.as_bytes()) {
            return Err(LineFault::Malformed);
        }
        read.map_err(|error| {
            fault.unwrap_or(if error.is_data() {
                LineFault::BadEnvelope
            } else {
                LineFault::Malformed
            })
        })
    }

    fn root(&mut self, kind: EventKind) -> NodeId {
        let tree = &mut *self.tree;
        *self
            .roots
            .entry(kind)
            .or_insert_with(|| tree.root(kind.table()))
    }

    fn walker(&mut self) -> Walker<'_> {
        Walker {
            tree: self.tree,
            journal: self.journal,
            example_bytes: self.example_bytes,
            value_bytes: self.value_bytes,
            duplicate: false,
        }
    }
}

struct EnvelopeSeed<'r, 's> {
    reading: &'r mut Reading<'s>,
    fault: &'r mut Option<LineFault>,
}

impl<'de> DeserializeSeed<'de> for EnvelopeSeed<'_, '_> {
    type Value = Outcome;
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Outcome, D::Error> {
        deserializer.deserialize_map(self)
    }
}

/// The envelope's members.
enum Member {
    EventType,
    Version,
    Payload,
    Other,
}

impl<'de> serde::Deserialize<'de> for Member {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Name;
        impl Visitor<'_> for Name {
            type Value = Member;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a member name")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Member, E> {
                Ok(match v {
                    "event_type" => Member::EventType,
                    "version" => Member::Version,
                    "payload" => Member::Payload,
                    _ => Member::Other,
                })
            }
        }
        deserializer.deserialize_str(Name)
    }
}

/// A string, borrowed from the line when it has no escapes.
struct Text;

impl<'de> DeserializeSeed<'de> for Text {
    type Value = Cow<'de, str>;
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for Text {
    type Value = Cow<'de, str>;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a string")
    }
    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
        Ok(Cow::Borrowed(v))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        Ok(Cow::Owned(v.to_owned()))
    }
}

/// The payload walked at a root.
struct Payload<'w, 't> {
    walker: &'w mut Walker<'t>,
    root: NodeId,
}

impl<'de> DeserializeSeed<'de> for Payload<'_, '_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        self.walker.payload(self.root, deserializer)
    }
}

impl<'de> Visitor<'de> for EnvelopeSeed<'_, '_> {
    type Value = Outcome;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an envelope: an object with `event_type`, `version` and `payload`")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Outcome, A::Error> {
        let mut event_type: Option<Cow<'de, str>> = None;
        let mut version: Option<Cow<'de, str>> = None;
        let mut payload_seen = false;
        let mut early: Option<&'de RawValue> = None;
        let mut resolved: Option<Result<EventKind, DecodeError>> = None;
        while let Some(member) = map.next_key::<Member>()? {
            let repeated = match member {
                Member::EventType => event_type.replace(map.next_value_seed(Text)?).is_some(),
                Member::Version => version.replace(map.next_value_seed(Text)?).is_some(),
                Member::Payload => {
                    let repeated = std::mem::replace(&mut payload_seen, true);
                    if let (Some(t), Some(v), false) = (&event_type, &version, repeated) {
                        let kind = EventKind::new(t, v);
                        if let Ok(kind) = kind {
                            let root = self.reading.root(kind);
                            let mut walker = self.reading.walker();
                            let walked = map.next_value_seed(Payload {
                                walker: &mut walker,
                                root,
                            });
                            if walked.is_err() && walker.duplicate {
                                *self.fault = Some(LineFault::Malformed);
                            }
                            walked?;
                        } else {
                            map.next_value::<IgnoredAny>()?;
                        }
                        resolved = Some(kind);
                    } else {
                        early = Some(map.next_value()?);
                    }
                    repeated
                }
                Member::Other => {
                    map.next_value::<IgnoredAny>()?;
                    false
                }
            };
            if repeated {
                *self.fault = Some(LineFault::Malformed);
                return Err(de::Error::custom("a member of the envelope is repeated"));
            }
        }
        let (Some(event_type), Some(version), true) = (event_type, version, payload_seen) else {
            *self.fault = Some(LineFault::BadEnvelope);
            return Err(de::Error::custom(
                "missing `event_type`, `version` or `payload`",
            ));
        };
        let kind = match resolved {
            Some(kind) => kind,
            None => {
                let kind = EventKind::new(&event_type, &version);
                if let (Ok(kind), Some(raw)) = (&kind, early) {
                    let root = self.reading.root(*kind);
                    let mut walker = self.reading.walker();
                    let mut deserializer = serde_json::Deserializer::from_str(raw.get());
                    if walker.payload(root, &mut deserializer).is_err() {
                        *self.fault = Some(LineFault::Malformed);
                        return Err(de::Error::custom("a member of the payload is repeated"));
                    }
                }
                kind
            }
        };
        Ok(match kind {
            Ok(kind) => Outcome::Known(kind),
            Err(error) => Outcome::Unknown {
                type_known: matches!(error, DecodeError::UnknownVersion { .. }),
                event_type: event_type.into_owned(),
                version: version.into_owned(),
            },
        })
    }
}
