//! CloudEvents in structured content mode: the whole event, attributes and data, as one JSON object in
//! the message body (the JSON event format), marked by the header `content-type:
//! application/cloudevents+json`. Some CloudEvents SDKs write it by default; the consumer reads it as it
//! reads binary mode (the same event, the same decoding, the same errors for its data), and `energy
//! events publish --mode structured` writes it.
//!
//! The body's members are the attributes (`specversion`, `id`, `source`, `type`, `time`,
//! `datacontenttype`, `dataschema`, the extension `dataversion`, others by name) and `data`, the payload.
//! A fault of the envelope is [`ErrorKind::BadEnvelope`] at the member's name (`type`, `data`); a body
//! that is not JSON is [`ErrorKind::MalformedJson`]. Headers other than the content type (the envelope
//! fields that cannot be attributes, in `energy-metadata`, and the producer's own) stay headers.

use super::cloudevents::{
    self, Attributes, Incoming, MESSAGE_ID_HEADER, METADATA_HEADER, SPEC_VERSION, bad,
    known_attributes,
};
#[cfg(test)]
use super::headers::percent_encode;
use super::headers::{Headers, percent_decode};
use crate::events::{ErrorKind, EventError};
use serde::de::{Deserializer as _, MapAccess, Visitor};
use serde_json::value::RawValue;
use std::borrow::Cow;
use std::ops::Range;

/// The content type that marks a structured-mode message.
pub const CONTENT_TYPE: &str = "application/cloudevents+json";

/// The header carrying it.
pub const CONTENT_TYPE_HEADER: &str = "content-type";

/// Whether a message is in structured mode: its content type is a CloudEvents format.
pub fn is_structured(headers: &Headers) -> bool {
    headers
        .iter()
        .find(|(name, _)| name.eq_ignore_ascii_case(CONTENT_TYPE_HEADER))
        .is_some_and(|(_, value)| {
            value
                .trim_start()
                .to_ascii_lowercase()
                .starts_with("application/cloudevents")
        })
}

/// Reads a structured-mode message: its event, and where its data lies in `body`.
pub fn read(headers: &Headers, body: &[u8]) -> Result<(Incoming, Range<usize>), EventError> {
    read_fields(headers, body, true)
}

/// [`read`]; with `fields` false, without building the envelope fields (checked all the same).
pub(crate) fn read_fields(
    headers: &Headers,
    body: &[u8],
    fields: bool,
) -> Result<(Incoming, Range<usize>), EventError> {
    let mut de = serde_json::Deserializer::from_slice(body);
    let members = de.deserialize_map(Members).map_err(|e| {
        EventError::new(
            ErrorKind::MalformedJson,
            "",
            format!("a structured-mode CloudEvent must be a JSON object: {e}"),
        )
    })?;
    de.end().map_err(|e| {
        EventError::new(
            ErrorKind::MalformedJson,
            "",
            format!("after the event's JSON object: {e}"),
        )
    })?;
    let known: Vec<&str> = known_attributes().collect();
    let mut read = Attributes::default();
    let mut data: Option<&RawValue> = None;
    for (name, value) in members {
        match &*name {
            "data" => data = Some(value),
            "data_base64" => {
                return Err(bad(
                    "data_base64",
                    "the data is binary (`data_base64`): events carry JSON data (`data`)"
                        .to_owned(),
                ));
            }
            _ => match known.iter().position(|k| *k == name) {
                Some(i) => {
                    let text: String = serde_json::from_str(value.get())
                        .map_err(|_| bad(&name, format!("`{name}` must be a string")))?;
                    read.known[i] = Some(Cow::Owned(text));
                }
                None => read.others.push((name.into_owned(), value.to_owned())),
            },
        }
    }
    for (name, raw) in headers.iter() {
        if name.eq_ignore_ascii_case(METADATA_HEADER) {
            read.fields =
                Some(percent_decode(raw).map_err(|e| {
                    bad(METADATA_HEADER, format!("header `{METADATA_HEADER}`: {e}"))
                })?);
        } else if !name.eq_ignore_ascii_case(CONTENT_TYPE_HEADER)
            && !name.eq_ignore_ascii_case(MESSAGE_ID_HEADER)
        {
            read.extra.push((name, raw));
        }
    }
    let incoming = read.assemble(
        |index| {
        let member = known[index];
        bad(
            member,
            format!(
                "missing member `{member}`: not a CloudEvents {SPEC_VERSION} event in structured mode"
            ),
        )
        },
        fields,
    )?;
    let data = data.ok_or_else(|| {
        bad(
            "data",
            "missing member `data`: the event carries no payload".to_owned(),
        )
    })?;
    // `data` was read from `body` itself: its text lies inside it.
    let start = (data.get().as_ptr() as usize).wrapping_sub(body.as_ptr() as usize);
    let range = start..start + data.get().len();
    if body.get(range.clone()).map(<[u8]>::as_ptr) != Some(data.get().as_ptr()) {
        return Err(bad("data", "the data could not be located".to_owned()));
    }
    Ok((incoming, range))
}

/// The structured-mode message of a binary-mode one (its headers as [`cloudevents::to_headers`] wrote
/// them, its payload): the `ce-` headers become members beside `data`, the content type is set, the
/// other headers stay.
pub fn to_structured(headers: &Headers, payload: &[u8]) -> Result<(Headers, Vec<u8>), EventError> {
    let data: &RawValue = serde_json::from_slice(payload).map_err(|e| {
        EventError::new(
            ErrorKind::MalformedJson,
            "payload",
            format!("the payload is not JSON: {e}"),
        )
    })?;
    let mut body = String::with_capacity(payload.len() + 512);
    body.push('{');
    let mut kept = Headers::with_capacity(headers.len() + 1);
    kept.append(CONTENT_TYPE_HEADER, CONTENT_TYPE);
    for (name, raw) in headers.iter() {
        match name.get(..3).filter(|p| p.eq_ignore_ascii_case("ce-")) {
            Some(_) => {
                let value =
                    percent_decode(raw).map_err(|e| bad(name, format!("header `{name}`: {e}")))?;
                body.push_str(&serde_json::Value::from(name[3..].to_ascii_lowercase()).to_string());
                body.push(':');
                body.push_str(cloudevents::string_value(&value).get());
                body.push(',');
            }
            None => kept.append(name.to_owned(), raw),
        }
    }
    body.push_str("\"data\":");
    body.push_str(data.get());
    body.push('}');
    Ok((kept, body.into_bytes()))
}

/// The members of a JSON object in order, each value as its text in the body.
struct Members;

impl<'de> Visitor<'de> for Members {
    type Value = Vec<(Cow<'de, str>, &'de RawValue)>;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a JSON object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut members = Vec::new();
        while let Some(key) = map.next_key::<Cow<'de, str>>()? {
            let value = map.next_value::<&'de RawValue>()?;
            members.push((key, value));
        }
        Ok(members)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn structured() -> Headers {
        let mut headers = Headers::new();
        headers.append(
            "Content-Type",
            "application/cloudevents+json; charset=utf-8",
        );
        headers.append(
            "traceparent",
            "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
        );
        headers
    }

    #[test]
    fn a_structured_event_reads_as_its_binary_twin() {
        let body = br#"{"specversion":"1.0","type":"billing.final_bill","source":"/billing","id":"evt-1",
            "time":"2024-03-01T09:30:00Z","datacontenttype":"application/json","dataversion":"v1",
            "tenant":"uk","data":{"account_number":"A-1","account_user_emails":[],"statement_id":7}}"#;
        let (incoming, range) = read(&structured(), body).unwrap();
        assert_eq!(incoming.event_type, "billing.final_bill");
        assert_eq!(incoming.version, "v1");
        assert_eq!(incoming.id, "evt-1");
        assert_eq!(
            &body[range],
            br#"{"account_number":"A-1","account_user_emails":[],"statement_id":7}"#
        );
        let fields: Vec<&str> = incoming.metadata.iter().map(|(name, _)| name).collect();
        assert_eq!(
            fields,
            [
                "id",
                "source",
                "time",
                "datacontenttype",
                "tenant",
                "headers"
            ]
        );
    }

    #[test]
    fn faults_of_the_envelope_are_bad_envelopes_at_their_member() {
        let error = |body: &str| read(&structured(), body.as_bytes()).unwrap_err();
        let missing =
            error(r#"{"specversion":"1.0","source":"/s","id":"1","dataversion":"v1","data":{}}"#);
        assert_eq!(
            (missing.kind, missing.path.as_str()),
            (ErrorKind::BadEnvelope, "type")
        );
        let number = error(
            r#"{"specversion":"1.0","type":7,"source":"/s","id":"1","dataversion":"v1","data":{}}"#,
        );
        assert_eq!(
            (number.kind, number.path.as_str()),
            (ErrorKind::BadEnvelope, "type")
        );
        let binary = error(
            r#"{"specversion":"1.0","type":"t","source":"/s","id":"1","dataversion":"v1","data_base64":"AA=="}"#,
        );
        assert_eq!(binary.path, "data_base64");
        let no_data =
            error(r#"{"specversion":"1.0","type":"t","source":"/s","id":"1","dataversion":"v1"}"#);
        assert_eq!(no_data.path, "data");
        let old = error(
            r#"{"specversion":"0.3","type":"t","source":"/s","id":"1","dataversion":"v1","data":{}}"#,
        );
        assert_eq!(old.path, "specversion");
        assert_eq!(error("[1,2]").kind, ErrorKind::MalformedJson);
        assert_eq!(error("{\"data\":{}} x").kind, ErrorKind::MalformedJson);
    }

    #[test]
    fn only_a_cloudevents_content_type_marks_structured_mode() {
        assert!(is_structured(&structured()));
        let mut json = Headers::new();
        json.append("content-type", "application/json");
        assert!(!is_structured(&json));
        assert!(!is_structured(&Headers::new()));
    }

    #[test]
    fn written_structured_and_read_back_the_event_is_the_same() {
        let mut headers = Headers::new();
        for (name, value) in [
            ("ce-specversion", "1.0"),
            ("ce-id", "evt%20one"),
            ("ce-source", "/energy-platform"),
            ("ce-type", "business.created"),
            ("ce-time", "2024-03-01T09:30:00Z"),
            ("ce-datacontenttype", "application/json"),
            ("ce-dataversion", "v1"),
        ] {
            headers.append(name, value);
        }
        let fields = percent_encode("{\"occurred_at\":\"2024-03-01\"}").into_owned();
        headers.append("energy-metadata", fields.clone());
        let binary = cloudevents::from_headers(&headers).unwrap();
        let (kept, body) = to_structured(&headers, br#"{"id":7}"#).unwrap();
        assert!(is_structured(&kept));
        assert_eq!(kept.get("energy-metadata"), Some(fields.as_str()));
        let (incoming, range) = read(&kept, &body).unwrap();
        assert_eq!(incoming, binary);
        assert_eq!(&body[range], br#"{"id":7}"#);
    }
}
