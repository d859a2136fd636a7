//! The event runtime on every event version of the real schema, with payloads generated from the model:
//! each decodes from an envelope (payload last or first) and from parts, validates, passes strict mode,
//! and each of its top-level fields, removed or given a value of the wrong type, is reported with its kind
//! and path. A new version in the YAML is tested without writing a test.

use energy_codegen::{EventType, EventVersion, Model, Type};
use energy_codegen::{Optionals, event_payload};
use energy_runtime::events::{Checked, Decoded, Decoder, ErrorKind, Metadata};
use serde_json::{Map, Value, json};

fn model() -> Model {
    energy_codegen::build_model(&energy_tests::schema_dir()).expect("the real schema is valid")
}

fn envelope(
    event: &EventType,
    version: &EventVersion,
    payload: &Value,
    payload_first: bool,
) -> String {
    let head = format!(
        r#""event_type":{},"version":{},"id":"evt-1","occurred_at":"2024-03-01T09:30:00Z""#,
        json!(event.name),
        json!(version.label)
    );
    if payload_first {
        format!(r#"{{"payload":{payload},{head}}}"#)
    } else {
        format!(r#"{{{head},"payload":{payload}}}"#)
    }
}

/// Runs `check` on every (event, version, optionals) of the schema; collects failures and counts cases.
fn for_every_version(
    mut check: impl FnMut(&Model, &EventType, &EventVersion, Optionals, &mut Vec<String>),
) {
    let model = model();
    let mut failures = Vec::new();
    let mut cases = 0;
    for (_, event) in model.events() {
        for version in &event.versions {
            for optionals in [Optionals::All, Optionals::None] {
                check(&model, event, version, optionals, &mut failures);
                cases += 1;
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} failures in {cases} cases:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert_eq!(
        cases,
        2 * 288,
        "every version, with and without optional fields"
    );
}

#[test]
fn every_version_decodes_from_an_envelope_and_from_parts() {
    let strict = Decoder::new().strict(true).reject_unknown(true);
    for_every_version(|model, event, version, optionals, failures| {
        let payload = event_payload(model, version, optionals);
        let case = format!("{} ({optionals:?})", version.id);
        for payload_first in [false, true] {
            let line = envelope(event, version, &payload, payload_first);
            match strict.decode(line.as_bytes()) {
                Ok(Decoded::Known(known)) => {
                    let back = serde_json::to_value(&known.event).unwrap_or_default();
                    if back != payload {
                        failures.push(format!("{case}: decoded {back}, sent {payload}"));
                    }
                    if known.event.event_type().as_str() != event.name
                        || known.event.version() != version.label
                        || known.metadata.get_str("id").as_deref() != Some("evt-1")
                    {
                        failures.push(format!("{case}: wrong type, version or metadata"));
                    }
                }
                Ok(Decoded::Unknown(_)) => failures.push(format!("{case}: not known")),
                Err(e) => failures.push(format!("{case}: {e}")),
            }
            match strict.validate(line.as_bytes()) {
                Ok(Checked::Known(kind))
                    if kind.event_type().as_str() == event.name
                        && kind.version() == version.label => {}
                other => failures.push(format!("{case}: validated as {other:?}")),
            }
        }
        let bytes = serde_json::to_vec(&payload).unwrap_or_default();
        match strict.decode_parts(&event.name, &version.label, &bytes, Metadata::new()) {
            Ok(Decoded::Known(known))
                if serde_json::to_value(&known.event).ok() == Some(payload) => {}
            other => failures.push(format!("{case}: from parts: {other:?}")),
        }
    });
}

#[test]
fn unlisted_fields_are_reported_in_strict_mode_unless_the_payload_is_incomplete() {
    let strict = Decoder::new().strict(true);
    for_every_version(|model, event, version, optionals, failures| {
        let mut payload = event_payload(model, version, optionals);
        if let Value::Object(map) = &mut payload {
            map.insert("added_later".to_owned(), json!({"by": "a newer producer"}));
        }
        let line = envelope(event, version, &payload, false);
        let case = format!("{} ({optionals:?})", version.id);
        if Decoder::new().decode(line.as_bytes()).is_err() {
            failures.push(format!(
                "{case}: an unlisted field is an error outside strict mode"
            ));
        }
        match (strict.decode(line.as_bytes()), version.payload.incomplete) {
            (Ok(_), true) => {}
            (Err(e), false)
                if e.kind == ErrorKind::UnknownField && e.path == "payload.added_later" => {}
            (other, _) => failures.push(format!("{case}: {other:?}")),
        }
    });
}

#[test]
fn every_missing_or_mistyped_field_is_reported_with_its_path() {
    let decoder = Decoder::new();
    for_every_version(|model, event, version, optionals, failures| {
        let Value::Object(sample) = event_payload(model, version, optionals) else {
            failures.push(format!("{}: the sample is not an object", version.id));
            return;
        };
        let mut expect = |payload: Map<String, Value>, kind: ErrorKind, field: &str, what: &str| {
            let line = envelope(event, version, &Value::Object(payload), false);
            match decoder.decode(line.as_bytes()) {
                Err(e)
                    if e.kind == kind
                        && e.path == format!("payload.{field}")
                        && e.event_type.as_deref() == Some(&event.name)
                        && e.version.as_deref() == Some(&version.label) => {}
                other => failures.push(format!("{} {what} `{field}`: {other:?}", version.id)),
            }
        };
        for field in &version.payload.fields {
            if !sample.contains_key(&field.name) {
                continue;
            }
            if !field.is_option() {
                let mut payload = sample.clone();
                payload.remove(&field.name);
                expect(payload, ErrorKind::MissingField, &field.name, "without");
            }
            let wrong = if field.ty == Type::Bool {
                json!("yes")
            } else {
                json!(true)
            };
            let mut payload = sample.clone();
            payload.insert(field.name.clone(), wrong);
            expect(payload, ErrorKind::InvalidType, &field.name, "mistyped");
        }
    });
}
