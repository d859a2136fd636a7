//! The JSON-lines file format on the bus: an envelope line (what `energy events validate` reads) becomes
//! a [`Draft`] to publish, and a message read from a stream becomes an envelope line again, so that a
//! captured subject can be checked, kept, and published again byte for byte.
//!
//! A captured line is `{"event_type": …, "version": …, <the envelope fields of [`super::cloudevents`]:
//! id, source, time, datacontenttype, dataschema, other attributes by name, energy-metadata's fields,
//! headers>, "payload": <the body>}`. A body that is not JSON (or a message that is not an event of this
//! format) is written as its headers and `data_base64`, as CloudEvents writes binary data: nothing is
//! lost, and such a line is reported invalid by `validate` and refused by `publish`.

use super::cloudevents;
use super::content;
use super::headers::Headers;
use super::publisher::Draft;
use crate::events::{Decoder, EventError, Metadata};
use base64::Engine as _;
use serde::de::{Deserializer as _, MapAccess, Visitor};
use serde_json::value::RawValue;
use std::fmt::Write as _;

/// A line of the file format as a draft to publish: checked as `energy events validate --` (without
/// `--allow-unknown`) checks it, with the same errors; the payload is kept byte for byte.
pub fn draft_from_line(line: &[u8]) -> Result<Draft, EventError> {
    Decoder::new().reject_unknown(true).validate(line)?;
    let mut de = serde_json::Deserializer::from_slice(line);
    let parts = de
        .deserialize_map(EnvelopeParts)
        .map_err(|e| EventError::new(crate::events::ErrorKind::BadEnvelope, "", e.to_string()))?;
    Ok(Draft {
        event_type: parts.event_type,
        version: parts.version,
        payload: bytes::Bytes::copy_from_slice(parts.payload.get().as_bytes()),
        metadata: parts.metadata,
    })
}

struct Parts<'a> {
    event_type: String,
    version: String,
    payload: &'a RawValue,
    metadata: Metadata,
}

struct EnvelopeParts;

impl<'de> Visitor<'de> for EnvelopeParts {
    type Value = Parts<'de>;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("an event envelope")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        use serde::de::Error;
        let (mut event_type, mut version, mut payload) = (None, None, None);
        let mut metadata = Metadata::new();
        while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
            match &*key {
                "event_type" => event_type = Some(map.next_value::<String>()?),
                "version" => version = Some(map.next_value::<String>()?),
                "payload" => payload = Some(map.next_value::<&'de RawValue>()?),
                _ => metadata.insert(key.into_owned(), map.next_value::<Box<RawValue>>()?),
            }
        }
        Ok(Parts {
            event_type: event_type.ok_or_else(|| A::Error::missing_field("event_type"))?,
            version: version.ok_or_else(|| A::Error::missing_field("version"))?,
            payload: payload.ok_or_else(|| A::Error::missing_field("payload"))?,
            metadata,
        })
    }
}

/// A message as a line of the file format (without the line break). When the message is not an event of
/// this format, the line keeps what there is (headers, `data_base64`) and the error says why.
pub fn line_of(headers: &Headers, payload: &[u8]) -> (String, Option<EventError>) {
    let (incoming, payload) = match content::read_message(headers, payload) {
        Ok((incoming, data)) => (Ok(incoming), &payload[data]),
        Err(error) => (Err(error), payload),
    };
    let json = serde_json::from_slice::<&RawValue>(payload);
    match (incoming, json) {
        (Ok(incoming), Ok(body)) => {
            let mut line = String::with_capacity(payload.len() + 256);
            line.push('{');
            member(&mut line, "event_type", &json_string(&incoming.event_type));
            member(&mut line, "version", &json_string(&incoming.version));
            for (name, value) in incoming.metadata.iter() {
                member(&mut line, name, value.get());
            }
            member(&mut line, "payload", &one_line(body.get()));
            line.push('}');
            (line, None)
        }
        (incoming, json) => {
            let error = match (incoming, json) {
                (Err(error), _) => error,
                (_, Err(e)) => EventError::new(
                    crate::events::ErrorKind::MalformedJson,
                    "payload",
                    format!("the body is not JSON: {e}"),
                ),
                (Ok(_), Ok(_)) => EventError::new(crate::events::ErrorKind::BadEnvelope, "", ""),
            };
            let decoded = |name: &str| {
                headers.get(name).map(|v| {
                    super::headers::percent_decode(v)
                        .map_or_else(|_| v.to_owned(), |d| d.into_owned())
                })
            };
            let mut line = String::from("{");
            if let Some(event_type) = decoded("ce-type") {
                member(&mut line, "event_type", &json_string(&event_type));
            }
            if let Some(version) = decoded("ce-dataversion") {
                member(&mut line, "version", &json_string(&version));
            }
            let mut all = serde_json::Map::new();
            for (name, value) in headers.iter() {
                all.insert(name.to_owned(), serde_json::Value::from(value));
            }
            let all = serde_json::Value::Object(all).to_string();
            member(&mut line, cloudevents::HEADERS_FIELD, &all);
            let data = base64::engine::general_purpose::STANDARD.encode(payload);
            member(&mut line, "data_base64", &json_string(&data));
            line.push('}');
            (line, Some(error))
        }
    }
}

fn member(line: &mut String, name: &str, value_json: &str) {
    if !line.ends_with('{') {
        line.push(',');
    }
    let _ = write!(line, "{}:{value_json}", json_string(name));
}

fn json_string(text: &str) -> String {
    serde_json::Value::from(text).to_string()
}

/// JSON text on one line: whitespace between tokens removed when the text holds a line break (a
/// payload published pretty-printed); the value is the same.
fn one_line(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.contains(['\n', '\r']) {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let (mut in_string, mut escaped) = (false, false);
    for c in text.chars() {
        if in_string {
            out.push(c);
            match c {
                _ if escaped => escaped = false,
                '\\' => escaped = true,
                '"' => in_string = false,
                _ => {}
            }
        } else if c == '"' {
            in_string = true;
            out.push(c);
        } else if !matches!(c, ' ' | '\t' | '\n' | '\r') {
            out.push(c);
        }
    }
    std::borrow::Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::events::ErrorKind;

    #[test]
    fn a_line_is_a_draft_with_its_payload_byte_for_byte() {
        let line = br#"{"event_type":"agreement.revoked","version":"v2","id":"evt-9","occurred_at":"2024-03-01T09:30:00Z","payload":{"agreement_id": 7,  "account_number":"A-1"}}"#;
        let draft = draft_from_line(line).unwrap();
        assert_eq!(
            (draft.event_type.as_str(), draft.version.as_str()),
            ("agreement.revoked", "v2")
        );
        assert_eq!(
            &draft.payload[..],
            br#"{"agreement_id": 7,  "account_number":"A-1"}"#
        );
        let names: Vec<&str> = draft.metadata.iter().map(|(n, _)| n).collect();
        assert_eq!(names, ["id", "occurred_at"]);
    }

    #[test]
    fn an_invalid_line_gives_the_error_validate_gives() {
        let line = br#"{"event_type":"agreement.revoked","version":"v2","payload":{"agreement_id":"7","account_number":"A-1"}}"#;
        let error = draft_from_line(line).unwrap_err();
        assert_eq!(
            (error.kind, error.path.as_str()),
            (ErrorKind::InvalidType, "payload.agreement_id")
        );
        let unknown = br#"{"event_type":"meter.exploded","version":"v1","payload":{}}"#;
        assert_eq!(
            draft_from_line(unknown).unwrap_err().kind,
            ErrorKind::UnknownEventType
        );
    }

    #[test]
    fn a_message_is_a_line_and_back() {
        let line = br#"{"event_type":"agreement.revoked","version":"v2","id":"evt-9","source":"/billing","time":"2024-03-01T09:30:00Z","occurred_at":"2024-03-01T09:30:00Z","payload":{"agreement_id":7,"account_number":"A-1"}}"#;
        let draft = draft_from_line(line).unwrap();
        let (_, headers) = cloudevents::to_headers(
            &draft.event_type,
            &draft.version,
            &draft.metadata,
            cloudevents::Defaults {
                source: "/x",
                data_schema: None,
            },
        )
        .unwrap();
        let (written, error) = line_of(&headers, &draft.payload);
        assert_eq!(error, None);
        assert_eq!(
            written,
            r#"{"event_type":"agreement.revoked","version":"v2","id":"evt-9","source":"/billing","time":"2024-03-01T09:30:00Z","datacontenttype":"application/json","occurred_at":"2024-03-01T09:30:00Z","payload":{"agreement_id":7,"account_number":"A-1"}}"#
        );
        // Once written so, a line goes round unchanged.
        let again = draft_from_line(written.as_bytes()).unwrap();
        let (_, headers) = cloudevents::to_headers(
            &again.event_type,
            &again.version,
            &again.metadata,
            cloudevents::Defaults {
                source: "/x",
                data_schema: None,
            },
        )
        .unwrap();
        assert_eq!(line_of(&headers, &again.payload).0, written);
    }

    #[test]
    fn what_is_not_an_event_is_kept_as_headers_and_bytes() {
        let mut headers = Headers::new();
        headers.append("ce-type", "agreement.revoked");
        headers.append("X-Other", "1");
        let (line, error) = line_of(&headers, b"\xff not json");
        assert_eq!(error.unwrap().path, "ce-specversion");
        assert_eq!(
            line,
            r#"{"event_type":"agreement.revoked","headers":{"X-Other":"1","ce-type":"agreement.revoked"},"data_base64":"/yBub3QganNvbg=="}"#
        );
    }

    #[test]
    fn a_pretty_printed_payload_is_written_on_one_line() {
        assert_eq!(
            one_line("{\n  \"a\": \"x \\\" y\",\n  \"b\": [1, 2]\n}"),
            r#"{"a":"x \" y","b":[1,2]}"#
        );
        assert_eq!(one_line(r#"{"a": 1}"#), r#"{"a": 1}"#);
    }
}
