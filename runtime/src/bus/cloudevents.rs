//! The wire format of an event on the bus: CloudEvents 1.0 in binary content mode, as the CloudEvents
//! NATS protocol binding writes it. The payload is the message body; the context attributes are headers
//! named `ce-<attribute>`, their values percent-encoded:
//!
//! | header | value |
//! |---|---|
//! | `ce-specversion` | `1.0` |
//! | `ce-id` | the event's id: the envelope's `id`, or a new unique one (a NUID); also the broker's deduplication id |
//! | `ce-source` | the envelope's `source`, or the publisher's (default `/energy-platform`) |
//! | `ce-type` | the event type (`agreement.updated`) |
//! | `ce-time` | the envelope's `time` (RFC 3339), or when it was published |
//! | `ce-datacontenttype` | `application/json` |
//! | `ce-dataschema` | the `$id` of the version's JSON Schema |
//! | `ce-dataversion` | the payload version (`v2`, `1.0.0`): an extension attribute, named so as CloudEvents names its `data` attributes |
//! | `ce-<name>` | every other envelope field whose name is a CloudEvents attribute name (lowercase letters and digits) and whose value is a string |
//! | `energy-metadata` | every other envelope field, as one JSON object (so that nothing is lost) |
//!
//! The mapping runs both ways, so that an envelope of the JSON-lines file format (`energy events
//! validate`) becomes a message and a message becomes that envelope again: the envelope's field
//! `headers`, an object of strings, holds the message's other headers.

use super::headers::{Headers, percent_decode, percent_encode};
use crate::events::{ErrorKind, EventError, Metadata};
use serde_json::value::RawValue;
use std::fmt::Write as _;

/// The CloudEvents version written and read.
pub const SPEC_VERSION: &str = "1.0";

/// The content type of every payload.
pub const CONTENT_TYPE: &str = "application/json";

/// The source of events whose envelope names none.
pub const DEFAULT_SOURCE: &str = "/energy-platform";

/// The extension attribute carrying the payload version.
pub const VERSION_ATTRIBUTE: &str = "dataversion";

/// The header carrying the envelope fields that cannot be CloudEvents attributes, as a JSON object.
pub const METADATA_HEADER: &str = "energy-metadata";

/// The envelope field holding a message's other headers (an object of strings, or arrays of strings for
/// a header that repeats).
pub const HEADERS_FIELD: &str = "headers";

/// The transport's deduplication header: set from `ce-id` by the publisher, so not kept as metadata.
pub const MESSAGE_ID_HEADER: &str = "Nats-Msg-Id";

/// The prefix of every attribute header.
const PREFIX: &str = "ce-";

/// Attributes that must be strings when an envelope gives them, and which it may not give at all.
const REQUIRED_STRINGS: [&str; 6] = [
    "id",
    "source",
    "time",
    "datacontenttype",
    "dataschema",
    "subject",
];
const FROM_THE_ENVELOPE: [&str; 3] = ["specversion", "type", VERSION_ATTRIBUTE];

/// The attributes every event carries or may carry, with their headers (static: no allocation per
/// message).
const KNOWN: [(&str, &str); 8] = [
    ("specversion", "ce-specversion"),
    ("id", "ce-id"),
    ("source", "ce-source"),
    ("type", "ce-type"),
    ("time", "ce-time"),
    ("datacontenttype", "ce-datacontenttype"),
    ("dataschema", "ce-dataschema"),
    (VERSION_ATTRIBUTE, "ce-dataversion"),
];

/// `name` as a static string when it is one of the headers the bus writes (no allocation per
/// message), else as given.
pub fn header_name(name: &str) -> std::borrow::Cow<'static, str> {
    let known = KNOWN
        .iter()
        .map(|(_, header)| *header)
        .chain([METADATA_HEADER, MESSAGE_ID_HEADER])
        .find(|header| *header == name);
    match known {
        Some(header) => std::borrow::Cow::Borrowed(header),
        None => std::borrow::Cow::Owned(name.to_owned()),
    }
}

/// The header of an attribute: `ce-<name>`.
pub fn header_of(attribute: &str) -> std::borrow::Cow<'static, str> {
    match KNOWN.iter().find(|(a, _)| *a == attribute) {
        Some((_, header)) => std::borrow::Cow::Borrowed(header),
        None => std::borrow::Cow::Owned(format!("{PREFIX}{attribute}")),
    }
}

/// Whether `name` can be a CloudEvents attribute name: lowercase ASCII letters and digits, at most 20.
pub fn is_attribute_name(name: &str) -> bool {
    (1..=20).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
}

/// What the publisher adds where an envelope is silent.
#[derive(Debug, Clone)]
pub struct Defaults<'a> {
    /// `ce-source` when the envelope has no `source`.
    pub source: &'a str,
    /// `ce-dataschema` when the envelope has no `dataschema`: the version's JSON Schema, when known.
    pub data_schema: Option<String>,
}

/// The headers of an event from its type, version and envelope fields; the event's id is the first
/// return value (new when the envelope had none).
///
/// An envelope field that cannot travel is an error ([`ErrorKind::BadEnvelope`] at that field): a
/// CloudEvents attribute that is not a string, `time` that is not an RFC 3339 time, `specversion`
/// other than `1.0`, `type` or `dataversion` (which the envelope's own fields set), a `headers` field that
/// is not an object of strings or names a header this mapping writes.
pub fn to_headers(
    event_type: &str,
    version: &str,
    metadata: &Metadata,
    defaults: Defaults<'_>,
) -> Result<(String, Headers), EventError> {
    let mut attributes: Vec<(&str, String)> = Vec::new();
    let mut rest: Vec<(&str, &RawValue)> = Vec::new();
    let mut extra = Headers::new();
    for (name, value) in metadata.iter() {
        if name == HEADERS_FIELD {
            extra = extra_headers(value)?;
            continue;
        }
        if !is_attribute_name(name) {
            rest.push((name, value));
            continue;
        }
        let text: Option<String> = serde_json::from_str(value.get()).ok();
        let must_be_string = REQUIRED_STRINGS.contains(&name) || FROM_THE_ENVELOPE.contains(&name);
        let Some(text) = text else {
            if must_be_string {
                return Err(bad(name, format!("`{name}` must be a string")));
            }
            rest.push((name, value));
            continue;
        };
        match name {
            "specversion" if text == SPEC_VERSION => {}
            "specversion" => {
                return Err(bad(
                    name,
                    format!(
                        "`specversion` is `{text}`: only CloudEvents {SPEC_VERSION} is written"
                    ),
                ));
            }
            "type" | VERSION_ATTRIBUTE => {
                return Err(bad(
                    name,
                    format!(
                        "`{name}` would be a second event type or version: the envelope's event type and version set `ce-type` and `ce-{VERSION_ATTRIBUTE}`"
                    ),
                ));
            }
            "time" if text.parse::<jiff::Timestamp>().is_err() => {
                return Err(bad(
                    name,
                    format!(
                        "`time` is `{text}`, not an RFC 3339 time such as 2024-03-01T09:30:00Z"
                    ),
                ));
            }
            "id" | "source" if text.is_empty() => {
                return Err(bad(name, format!("`{name}` is empty")));
            }
            _ => attributes.push((name, text)),
        }
    }
    let take = |attributes: &mut Vec<(&str, String)>, name: &str| {
        attributes
            .iter()
            .position(|(n, _)| *n == name)
            .map(|i| attributes.remove(i).1)
    };
    let id = take(&mut attributes, "id").unwrap_or_else(|| nuid::next().to_string());
    let source = take(&mut attributes, "source").unwrap_or_else(|| defaults.source.to_owned());
    let time = take(&mut attributes, "time").unwrap_or_else(|| jiff::Timestamp::now().to_string());
    let content_type =
        take(&mut attributes, "datacontenttype").unwrap_or_else(|| CONTENT_TYPE.to_owned());
    let schema = take(&mut attributes, "dataschema").or(defaults.data_schema);
    attributes.sort();

    let mut headers = Headers::with_capacity(10 + attributes.len() + extra.len());
    let mut put = |name: &str, value: &str| {
        headers.append(header_of(name), percent_encode(value).into_owned())
    };
    put("specversion", SPEC_VERSION);
    put("id", &id);
    put("source", &source);
    put("type", event_type);
    put("time", &time);
    put("datacontenttype", &content_type);
    if let Some(schema) = &schema {
        put("dataschema", schema);
    }
    put(VERSION_ATTRIBUTE, version);
    for (name, value) in &attributes {
        put(name, value);
    }
    if !rest.is_empty() {
        let mut object = String::from("{");
        for (i, (name, value)) in rest.iter().enumerate() {
            if i > 0 {
                object.push(',');
            }
            // A string always serialises.
            let _ = write!(object, "{}:{}", serde_json::Value::from(*name), value.get());
        }
        object.push('}');
        headers.append(METADATA_HEADER, percent_encode(&object).into_owned());
    }
    // By name (a repeated header keeps its values' order): the same envelope, the same headers.
    let mut extra: Vec<(&str, &str)> = extra.iter().collect();
    extra.sort_by_key(|(name, _)| *name);
    for (name, value) in extra {
        headers.append(name.to_owned(), value);
    }
    Ok((id, headers))
}

/// The `headers` field as headers: an object whose values are strings (or arrays of strings).
fn extra_headers(value: &RawValue) -> Result<Headers, EventError> {
    let object: serde_json::Map<String, serde_json::Value> = serde_json::from_str(value.get())
        .map_err(|_| {
            bad(
                HEADERS_FIELD,
                "`headers` must be an object of strings".to_owned(),
            )
        })?;
    let mut headers = Headers::new();
    for (name, value) in object {
        let path = format!("{HEADERS_FIELD}.{name}");
        let lower = name.to_ascii_lowercase();
        if lower.starts_with(PREFIX)
            || lower == METADATA_HEADER
            || lower == MESSAGE_ID_HEADER.to_ascii_lowercase()
        {
            return Err(bad(
                &path,
                format!("the header `{name}` is written from the envelope's other fields"),
            ));
        }
        if name.is_empty()
            || !name
                .bytes()
                .all(|b| (0x21..=0x7e).contains(&b) && b != b':')
        {
            return Err(bad(
                &path,
                format!("`{name}` cannot be a header name (printable ASCII without `:`)"),
            ));
        }
        let values = match value {
            serde_json::Value::String(one) => vec![one],
            serde_json::Value::Array(many) => many
                .into_iter()
                .map(|v| match v {
                    serde_json::Value::String(s) => Ok(s),
                    _ => Err(()),
                })
                .collect::<Result<_, ()>>()
                .map_err(|()| bad(&path, "a header's values must be strings".to_owned()))?,
            _ => return Err(bad(&path, "a header's value must be a string".to_owned())),
        };
        for value in values {
            if value.contains(['\r', '\n']) {
                return Err(bad(
                    &path,
                    "a header's value cannot hold a line break".to_owned(),
                ));
            }
            headers.append(name.clone(), value);
        }
    }
    Ok(headers)
}

/// An event's type, version and envelope fields, read from its headers.
#[derive(Debug, Clone, PartialEq)]
pub struct Incoming {
    /// `ce-type`.
    pub event_type: String,
    /// `ce-dataversion`.
    pub version: String,
    /// `ce-id`.
    pub id: String,
    /// The other attributes (`id`, `source`, `time`, … then the others by name), the fields of
    /// `energy-metadata`, then the other headers as one `headers` field: what an envelope holds beside
    /// type, version and payload.
    pub metadata: Metadata,
}

/// Reads an event's attributes from its headers, in one pass. A missing or malformed attribute is
/// [`ErrorKind::BadEnvelope`] with the header's name as the path (`ce-type`).
pub fn from_headers(headers: &Headers) -> Result<Incoming, EventError> {
    read_headers(headers, true)
}

/// [`from_headers`]; with `fields` false, without building the envelope fields (checked all the same).
pub(crate) fn read_headers(headers: &Headers, fields: bool) -> Result<Incoming, EventError> {
    let mut read = Attributes::default();
    for (name, raw) in headers.iter() {
        let attribute = name
            .get(..PREFIX.len())
            .filter(|p| p.eq_ignore_ascii_case(PREFIX))
            .map(|_| &name[PREFIX.len()..]);
        if let Some(attribute) = attribute {
            // As the bus writes them (lowercase) first: a comparison of lengths rejects most.
            let known = KNOWN.iter().position(|(a, _)| *a == attribute).or_else(|| {
                KNOWN
                    .iter()
                    .position(|(a, _)| a.eq_ignore_ascii_case(attribute))
            });
            match known {
                Some(i) if read.known[i].is_none() => {
                    read.known[i] = Some(decode(KNOWN[i].1, raw)?)
                }
                Some(_) => {}
                None => {
                    // Checked either way; made a JSON value only for a caller that keeps the fields.
                    let value = decode(name, raw)?;
                    if fields {
                        read.others
                            .push((attribute.to_ascii_lowercase(), string_value(&value)));
                    }
                }
            }
        } else if name.eq_ignore_ascii_case(METADATA_HEADER) {
            read.fields = Some(decode(METADATA_HEADER, raw)?);
        } else if !name.eq_ignore_ascii_case(MESSAGE_ID_HEADER) {
            read.extra.push((name, raw));
        }
    }
    read.assemble(
        |index| {
            let header = KNOWN[index].1;
            bad(
                header,
                format!(
                    "missing header `{header}`: not a CloudEvents {SPEC_VERSION} event in binary mode"
                ),
            )
        },
        fields,
    )
}

/// What a message says of its event, gathered from its headers (binary mode) or its body (structured
/// mode), before it is checked and made an [`Incoming`].
#[derive(Default)]
pub(crate) struct Attributes<'a> {
    /// The known attributes, in the order of `KNOWN` (the first value of a repeated one counts).
    pub known: [Option<std::borrow::Cow<'a, str>>; 8],
    /// The other attributes: name and JSON value.
    pub others: Vec<(String, Box<RawValue>)>,
    /// The `energy-metadata` header's JSON object.
    pub fields: Option<std::borrow::Cow<'a, str>>,
    /// The other headers.
    pub extra: Vec<(&'a str, &'a str)>,
}

/// The names of the known attributes, in the order of [`Attributes::known`].
pub(crate) fn known_attributes() -> impl Iterator<Item = &'static str> {
    KNOWN.iter().map(|(attribute, _)| *attribute)
}

/// A string as a JSON value.
pub(crate) fn string_value(text: &str) -> Box<RawValue> {
    // A string always serialises.
    serde_json::value::to_raw_value(text).unwrap_or_else(|_| empty_object())
}

impl Attributes<'_> {
    /// The event these attributes describe; `missing(i)` is the error of the absence of the `i`-th
    /// known attribute.
    /// (With `fields` false, the envelope fields are checked as they are read, and not kept: the
    /// event's type, version and id alone, for a consumer that builds the fields only when asked.)
    pub(crate) fn assemble(
        mut self,
        missing: impl Fn(usize) -> EventError,
        fields: bool,
    ) -> Result<Incoming, EventError> {
        let [
            spec,
            id,
            source,
            event_type,
            time,
            content_type,
            schema,
            version,
        ] = self.known;
        let spec = spec.ok_or_else(|| missing(0))?;
        if spec != SPEC_VERSION {
            let path = missing(0).path.clone();
            return Err(bad(
                &path,
                format!("`{path}` is `{spec}`: only CloudEvents {SPEC_VERSION} is read"),
            ));
        }
        let event_type = event_type.ok_or_else(|| missing(3))?.into_owned();
        let version = version.ok_or_else(|| missing(7))?.into_owned();
        let id = id.ok_or_else(|| missing(1))?.into_owned();
        let source = source.ok_or_else(|| missing(2))?;

        if !fields {
            // Checked as the fields would be built, so that what fails here fails alike.
            if let Some(text) = &self.fields {
                object_members(text).map_err(|e| bad(METADATA_HEADER, e))?;
            }
            return Ok(Incoming {
                event_type,
                version,
                id,
                metadata: Metadata::new(),
            });
        }
        let mut metadata = Metadata::with_capacity(6 + self.others.len());
        metadata.insert_str("id", &id);
        metadata.insert_str("source", &source);
        for (name, value) in [
            ("time", time),
            ("datacontenttype", content_type),
            ("dataschema", schema),
        ] {
            if let Some(value) = value {
                metadata.insert_str(name, &value);
            }
        }
        self.others.sort_by(|a, b| a.0.cmp(&b.0));
        for (name, value) in self.others {
            metadata.insert(name, value);
        }
        if let Some(fields) = self.fields {
            for (name, value) in object_members(&fields).map_err(|e| bad(METADATA_HEADER, e))? {
                metadata.insert(name, value);
            }
        }
        if !self.extra.is_empty() {
            metadata.insert(HEADERS_FIELD, headers_object(&mut self.extra));
        }
        Ok(Incoming {
            event_type,
            version,
            id,
            metadata,
        })
    }
}

/// A header's value, decoded; an error names the header.
fn decode<'a>(header: &str, raw: &'a str) -> Result<std::borrow::Cow<'a, str>, EventError> {
    percent_decode(raw).map_err(|e| bad(header, format!("header `{header}`: {e}")))
}

/// Headers as a JSON object, sorted by name; a name that repeats holds an array of its values.
fn headers_object(extra: &mut [(&str, &str)]) -> Box<RawValue> {
    extra.sort();
    // A map of strings always serialises to a valid raw value.
    serde_json::value::to_raw_value(&HeadersObject(extra)).unwrap_or_else(|_| empty_object())
}

/// Sorted headers written as a JSON object (straight from the pairs: no map of values in between).
struct HeadersObject<'a>(&'a [(&'a str, &'a str)]);

impl serde::Serialize for HeadersObject<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap as _;
        let mut object = serializer.serialize_map(None)?;
        for repeated in self.0.chunk_by(|a, b| a.0 == b.0) {
            match repeated {
                [(name, value)] => object.serialize_entry(name, value)?,
                _ => {
                    let values: Vec<&str> = repeated.iter().map(|(_, value)| *value).collect();
                    object.serialize_entry(repeated[0].0, &values)?
                }
            }
        }
        object.end()
    }
}

fn empty_object() -> Box<RawValue> {
    RawValue::from_string("{}".to_owned()).unwrap_or_default()
}

/// The members of a JSON object, in order, each value as its exact text.
fn object_members(text: &str) -> Result<Vec<(String, Box<RawValue>)>, String> {
    struct Members;
    impl<'de> serde::de::Visitor<'de> for Members {
        type Value = Vec<(String, Box<RawValue>)>;
        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("a JSON object")
        }
        fn visit_map<A: serde::de::MapAccess<'de>>(
            self,
            mut map: A,
        ) -> Result<Self::Value, A::Error> {
            let mut members = Vec::new();
            while let Some(entry) = map.next_entry::<String, Box<RawValue>>()? {
                members.push(entry);
            }
            Ok(members)
        }
    }
    use serde::Deserializer as _;
    let mut de = serde_json::Deserializer::from_str(text);
    let members = de
        .deserialize_map(Members)
        .map_err(|e| format!("`{METADATA_HEADER}` is not a JSON object: {e}"))?;
    de.end().map_err(|e| format!("`{METADATA_HEADER}`: {e}"))?;
    Ok(members)
}

/// An error of the message's envelope (its headers) at `path`.
pub(crate) fn bad(path: &str, message: String) -> EventError {
    EventError::new(ErrorKind::BadEnvelope, path, message)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn metadata(pairs: &[(&str, &str)]) -> Metadata {
        let mut m = Metadata::new();
        for (name, json) in pairs {
            m.insert(*name, RawValue::from_string((*json).to_owned()).unwrap());
        }
        m
    }

    fn defaults() -> Defaults<'static> {
        Defaults {
            source: DEFAULT_SOURCE,
            data_schema: Some(
                "https://schemas.example/events/agreement.updated.v2.json".to_owned(),
            ),
        }
    }

    #[test]
    fn every_attribute_is_a_header_in_a_fixed_order() {
        let fields = metadata(&[
            ("occurred_at", r#""2024-03-01T09:30:00Z""#),
            (
                "traceparent",
                r#""00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01""#,
            ),
            ("id", r#""evt-1""#),
            ("time", r#""2024-03-01T09:30:00Z""#),
            ("attempt", "3"),
            ("headers", r#"{"X-Tenant": "north", "X-Route": ["a", "b"]}"#),
        ]);
        let (id, headers) = to_headers("agreement.updated", "v2", &fields, defaults()).unwrap();
        assert_eq!(id, "evt-1");
        let names: Vec<&str> = headers.iter().map(|(n, _)| n).collect();
        assert_eq!(
            names,
            [
                "ce-specversion",
                "ce-id",
                "ce-source",
                "ce-type",
                "ce-time",
                "ce-datacontenttype",
                "ce-dataschema",
                "ce-dataversion",
                "ce-traceparent",
                "energy-metadata",
                "X-Route",
                "X-Route",
                "X-Tenant"
            ]
        );
        assert_eq!(headers.get("ce-source"), Some(DEFAULT_SOURCE));
        assert_eq!(
            percent_decode(headers.get("energy-metadata").unwrap()).unwrap(),
            r#"{"occurred_at":"2024-03-01T09:30:00Z","attempt":3}"#
        );

        // And back: the same fields, in the canonical order.
        let incoming = from_headers(&headers).unwrap();
        assert_eq!(
            (incoming.event_type.as_str(), incoming.version.as_str()),
            ("agreement.updated", "v2")
        );
        let back: Vec<(&str, &str)> = incoming
            .metadata
            .iter()
            .map(|(n, v)| (n, v.get()))
            .collect();
        assert_eq!(
            back,
            [
                ("id", r#""evt-1""#),
                ("source", r#""/energy-platform""#),
                ("time", r#""2024-03-01T09:30:00Z""#),
                ("datacontenttype", r#""application/json""#),
                (
                    "dataschema",
                    r#""https://schemas.example/events/agreement.updated.v2.json""#
                ),
                (
                    "traceparent",
                    r#""00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01""#
                ),
                ("occurred_at", r#""2024-03-01T09:30:00Z""#),
                ("attempt", "3"),
                ("headers", r#"{"X-Route":["a","b"],"X-Tenant":"north"}"#),
            ]
        );
    }

    #[test]
    fn values_are_percent_encoded_on_the_wire() {
        let fields = metadata(&[("source", r#""/plants/Zürich 1""#)]);
        let (_, headers) = to_headers("account.created", "1.0.0", &fields, defaults()).unwrap();
        assert_eq!(headers.get("ce-source"), Some("/plants/Z%C3%BCrich%201"));
        assert_eq!(headers.get("ce-dataversion"), Some("1.0.0"));
        let incoming = from_headers(&headers).unwrap();
        assert_eq!(
            incoming.metadata.get_str("source").as_deref(),
            Some("/plants/Zürich 1")
        );
    }

    #[test]
    fn envelope_fields_that_cannot_travel_are_errors_at_their_path() {
        for (field, json, message) in [
            ("id", "7", "must be a string"),
            ("time", r#""yesterday""#, "RFC 3339"),
            ("specversion", r#""0.3""#, "only CloudEvents 1.0"),
            ("type", r#""billing.final_bill""#, "second event type"),
            ("dataversion", r#""v9""#, "second event type or version"),
            ("headers", r#"["x"]"#, "object of strings"),
            ("headers", r#"{"ce-id": "x"}"#, "written from the envelope"),
            (
                "headers",
                r#"{"Nats-Msg-Id": "x"}"#,
                "written from the envelope",
            ),
            ("headers", r#"{"a b": "x"}"#, "cannot be a header name"),
            ("headers", r#"{"X-A": 1}"#, "must be a string"),
        ] {
            let error = to_headers(
                "account.created",
                "v1",
                &metadata(&[(field, json)]),
                defaults(),
            )
            .unwrap_err();
            assert_eq!(error.kind, ErrorKind::BadEnvelope, "{field}");
            assert!(error.path.starts_with(field), "{field}: {}", error.path);
            assert!(
                error.message.contains(message),
                "{field}: {}",
                error.message
            );
        }
    }

    #[test]
    fn a_message_without_the_required_attributes_is_a_bad_envelope() {
        let (_, complete) =
            to_headers("account.created", "v1", &Metadata::new(), defaults()).unwrap();
        for missing in [
            "ce-specversion",
            "ce-type",
            "ce-dataversion",
            "ce-id",
            "ce-source",
        ] {
            let mut headers = complete.clone();
            headers.remove(missing);
            let error = from_headers(&headers).unwrap_err();
            assert_eq!(
                (error.kind, error.path.as_str()),
                (ErrorKind::BadEnvelope, missing)
            );
        }
        let mut headers = complete.clone();
        headers.insert("ce-type", "bad%zz");
        assert_eq!(from_headers(&headers).unwrap_err().path, "ce-type");
        let mut headers = complete;
        headers.insert("ce-specversion", "0.3");
        assert!(from_headers(&headers).unwrap_err().message.contains("0.3"));
    }

    #[test]
    fn new_events_get_a_unique_id_and_the_time_they_were_published() {
        let (a, headers) =
            to_headers("account.created", "v1", &Metadata::new(), defaults()).unwrap();
        let (b, _) = to_headers("account.created", "v1", &Metadata::new(), defaults()).unwrap();
        assert_ne!(a, b);
        assert_eq!(headers.get("ce-id"), Some(a.as_str()));
        assert!(
            headers
                .get("ce-time")
                .unwrap()
                .parse::<jiff::Timestamp>()
                .is_ok()
        );
    }
}
