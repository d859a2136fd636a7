//! Every event version of the real schema decodes from a realistic sample payload and re-serialises to
//! the same JSON, with its optional fields present and absent. The cases come from the model, so a new
//! version in the YAML is tested without writing a test.

use energy_api::{DecodeError, Event, EventRef, EventType};
use energy_api_core::read::Reader;
use energy_codegen::{Optionals, event_payload};

#[test]
fn every_event_version_round_trips() {
    let model =
        energy_codegen::build_model(&energy_tests::schema_dir()).expect("the real schema is valid");
    let mut checked = 0;
    let mut failures = Vec::new();
    for (_, event) in model.events() {
        for version in &event.versions {
            for optionals in [Optionals::All, Optionals::None] {
                let sample = event_payload(&model, version, optionals);
                let bytes = serde_json::to_vec(&sample).expect("samples serialise");
                let kind = energy_api::EventKind::new(&event.name, &version.label).expect("known");
                if let Err(e) = kind.validate(&bytes) {
                    failures.push(format!(
                        "{} ({optionals:?}) does not validate: {e}",
                        version.id
                    ));
                }
                match Event::decode(&event.name, &version.label, &bytes) {
                    Ok(decoded) => {
                        assert_eq!(decoded.event_type().as_str(), event.name);
                        assert_eq!(decoded.version(), version.label);
                        let back: serde_json::Value =
                            serde_json::from_slice(&decoded.to_payload_json())
                                .expect("payload JSON parses");
                        if back != sample {
                            failures.push(format!(
                                "{} ({optionals:?}): {back} != {sample}",
                                version.id
                            ));
                        }
                    }
                    Err(e) => failures.push(format!("{} ({optionals:?}): {e}", version.id)),
                }
                // The fast reader reads every sample (otherwise decoding silently takes the slower serde
                // path), both ways, to the value serde gives.
                let text = std::str::from_utf8(&bytes).expect("samples are UTF-8");
                let serde_owned = serde::de::DeserializeSeed::deserialize(
                    kind,
                    &mut serde_json::Deserializer::from_str(text),
                );
                match (Reader::whole(text, |r| kind.read(r)), serde_owned) {
                    (Ok(fast), Ok(serde)) if fast == serde => {}
                    (fast, serde) => failures.push(format!(
                        "{} ({optionals:?}) fast reader {fast:?}, serde {serde:?}",
                        version.id
                    )),
                }
                let serde_view = serde::de::DeserializeSeed::deserialize(
                    kind.borrowed(),
                    &mut serde_json::Deserializer::from_str(text),
                );
                // Views are not `PartialEq`: compared by their `Debug` text, which shows every field.
                match (Reader::whole(text, |r| kind.read_borrowed(r)), serde_view) {
                    (Ok(fast), Ok(serde)) if format!("{fast:?}") == format!("{serde:?}") => {}
                    (fast, serde) => failures.push(format!(
                        "{} ({optionals:?}) fast reader (borrowed) {fast:?}, serde {serde:?}",
                        version.id
                    )),
                }
                // The borrowed view decodes the same payload to the same JSON, its plain strings
                // pointing into the payload.
                match EventRef::decode(&event.name, &version.label, &bytes) {
                    Ok(view) => {
                        assert_eq!(view.kind(), kind);
                        let back = serde_json::to_value(&view).expect("views serialise");
                        if back != sample {
                            failures.push(format!(
                                "{} ({optionals:?}) borrowed: {back} != {sample}",
                                version.id
                            ));
                        }
                    }
                    Err(e) => {
                        failures.push(format!("{} ({optionals:?}) borrowed: {e}", version.id))
                    }
                }
                checked += 1;
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {checked} failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert_eq!(
        checked,
        2 * 288,
        "every one of the 288 versions, with and without optional fields"
    );
}

#[test]
fn the_catalogue_is_complete() {
    assert_eq!(EventType::ALL.len(), 274);
    let versions: usize = EventType::ALL.iter().map(|t| t.versions().len()).sum();
    assert_eq!(versions, 288);
    for t in EventType::ALL {
        assert_eq!(t.as_str().parse::<EventType>(), Ok(*t));
    }
}

#[test]
fn names_that_are_not_event_types_are_not_found() {
    // Near misses of real names: the lookup hashes only parts of a name, so it must compare it whole.
    let near_misses = [
        "",
        "a",
        "account",
        "account.created ",
        " account.created",
        "account.createe",
        "Account.created",
        "account.created.v1",
        "agreement.revoked\0",
        "meterpoint.gas.disputed_closing_reading.queried.by_u",
    ];
    for name in near_misses {
        assert_eq!(
            name.parse::<EventType>().map_err(|e| e.0),
            Err(name.to_owned()),
            "{name:?} is not an event type"
        );
    }
}

#[test]
fn unknown_types_and_versions_are_typed_errors() {
    let payload = br#"{"agreement_id": 1}"#;
    assert_eq!(
        Event::decode("agreement.exploded", "v1", payload),
        Err(DecodeError::UnknownEventType {
            event_type: "agreement.exploded".to_owned()
        })
    );
    assert_eq!(
        Event::decode("agreement.revoked", "v9", payload),
        Err(DecodeError::UnknownVersion {
            event_type: EventType::AgreementRevoked,
            version: "v9".to_owned()
        })
    );
}

#[test]
fn payload_errors_name_the_json_path() {
    let missing = br#"{"ledger": {"account": {}, "number": "L-1"}}"#;
    let Err(DecodeError::Payload(e)) = Event::decode("billing.ledger.entry_posted", "v1", missing)
    else {
        panic!("a missing nested field must fail")
    };
    assert_eq!(e.path, "ledger.account.number");
    assert_eq!(e.kind, energy_api::PayloadErrorKind::MissingField);
    assert_eq!(
        e.to_string(),
        "`billing.ledger.entry_posted` v1 payload, at `ledger.account.number`: missing field `number` (line 1, column 25)"
    );

    let wrong = br#"{"join_supplier_process_number": "J-1", "account_number": "A-1", "subtype": "X",
        "supply_points": [{"external_identifier": "E", "market_name": 7, "requested_supply_start_date": "2024-01-01"}]}"#;
    let Err(DecodeError::Payload(e)) =
        Event::decode("lifecycle.join-supplier.cancelled", "v1", wrong)
    else {
        panic!("a wrong type must fail")
    };
    assert_eq!(e.path, "supply_points[0].market_name");
    assert_eq!(e.kind, energy_api::PayloadErrorKind::InvalidType);
}

#[test]
fn unknown_fields_are_ignored_and_incomplete_payloads_keep_theirs() {
    let with_extra = br#"{"agreement_id": 7, "account_number": "A-1", "added_in_v3": true}"#;
    let event =
        Event::decode("agreement.revoked", "v2", with_extra).expect("unknown fields are ignored");
    assert_eq!(
        serde_json::to_value(&event).unwrap(),
        serde_json::json!({"agreement_id": 7, "account_number": "A-1"})
    );

    let queried = br#"{"mprn": "7512345606", "supplier": "XYZ", "reference_number": 12}"#;
    let event = Event::decode(
        "meterpoint.gas.disputed_closing_reading.queried.by_us",
        "v1",
        queried,
    )
    .unwrap();
    let back: serde_json::Value = serde_json::from_slice(&event.to_payload_json()).unwrap();
    assert_eq!(
        back,
        serde_json::from_slice::<serde_json::Value>(queried).unwrap(),
        "nothing is lost"
    );
}

/// Every place a payload can be wrong, from the model: at every depth, a field of the wrong JSON type
/// and a required field removed are reported with that field's exact JSON path.
#[test]
fn every_field_error_is_located() {
    use energy_api::PayloadErrorKind;
    use energy_codegen::{Model, Struct, Type};
    use serde_json::Value;

    /// Each mutation: the path it breaks, the expected kind, and the broken payload.
    fn mutations(
        model: &Model,
        s: &Struct,
        value: &Value,
        path: &str,
        out: &mut Vec<(String, PayloadErrorKind, Value)>,
        root: &Value,
        at: &[PathStep],
    ) {
        let Value::Object(map) = value else { return };
        for f in &s.fields {
            let Some(field_value) = map.get(&f.name) else {
                continue;
            };
            let field_path = if path.is_empty() {
                f.name.clone()
            } else {
                format!("{path}.{}", f.name)
            };
            let mut steps = at.to_vec();
            steps.push(PathStep::Key(f.name.clone()));
            let wrong = match field_value {
                Value::String(_) => Value::from(12345),
                Value::Null => continue,
                _ => Value::from("wrong type"),
            };
            out.push((
                field_path.clone(),
                PayloadErrorKind::InvalidType,
                set(root, &steps, Some(wrong)),
            ));
            if !f.is_option() {
                out.push((
                    field_path.clone(),
                    PayloadErrorKind::MissingField,
                    set(root, &steps, None),
                ));
            }
            descend(model, &f.ty, field_value, &field_path, out, root, &steps);
        }
    }

    fn descend(
        model: &Model,
        ty: &Type,
        value: &Value,
        path: &str,
        out: &mut Vec<(String, PayloadErrorKind, Value)>,
        root: &Value,
        at: &[PathStep],
    ) {
        match (ty, value) {
            (Type::Named(r), _) => {
                if let Some(s) = model.shared_type(&r.name) {
                    mutations(model, s, value, path, out, root, at);
                }
            }
            (Type::Array(inner), Value::Array(items)) => {
                for (i, item) in items.iter().enumerate() {
                    let mut steps = at.to_vec();
                    steps.push(PathStep::Index(i));
                    let item_path = format!("{path}[{i}]");
                    let wrong = if item.is_string() {
                        Value::from(1)
                    } else {
                        Value::from("wrong type")
                    };
                    out.push((
                        item_path.clone(),
                        PayloadErrorKind::InvalidType,
                        set(root, &steps, Some(wrong)),
                    ));
                    descend(model, inner, item, &item_path, out, root, &steps);
                }
            }
            _ => {}
        }
    }

    #[derive(Clone)]
    enum PathStep {
        Key(String),
        Index(usize),
    }

    /// `root` with the value at `steps` replaced (or removed, with `None`).
    fn set(root: &Value, steps: &[PathStep], with: Option<Value>) -> Value {
        let mut copy = root.clone();
        let mut here = &mut copy;
        for step in &steps[..steps.len() - 1] {
            here = match step {
                PathStep::Key(k) => &mut here[k.as_str()],
                PathStep::Index(i) => &mut here[*i],
            };
        }
        match (&steps[steps.len() - 1], with) {
            (PathStep::Key(k), Some(v)) => here[k.as_str()] = v,
            (PathStep::Key(k), None) => {
                here.as_object_mut().expect("object").remove(k);
            }
            (PathStep::Index(i), Some(v)) => here[*i] = v,
            (PathStep::Index(_), None) => unreachable!("array items are never removed"),
        }
        copy
    }

    let model = energy_codegen::build_model(&energy_tests::schema_dir()).expect("valid");
    let mut checked = 0;
    let mut failures = Vec::new();
    for (_, event) in model.events() {
        for version in &event.versions {
            let sample = event_payload(&model, version, Optionals::All);
            let mut cases = Vec::new();
            mutations(
                &model,
                &version.payload,
                &sample,
                "",
                &mut cases,
                &sample,
                &[],
            );
            for (path, kind, broken) in cases {
                let bytes = serde_json::to_vec_pretty(&broken).unwrap();
                let decoded = Event::decode(&event.name, &version.label, &bytes);
                match &decoded {
                    Err(DecodeError::Payload(e)) if e.path == path && e.kind == kind => {}
                    other => failures.push(format!("{} {path} ({kind:?}): {other:?}", version.id)),
                }
                // The allocation-free check gives the same verdict and the same error.
                let validated = energy_api::EventKind::new(&event.name, &version.label)
                    .unwrap()
                    .validate(&bytes);
                if validated.as_ref().err() != decoded.as_ref().err() {
                    failures.push(format!(
                        "{} {path}: validate and decode disagree",
                        version.id
                    ));
                }
                // The borrowed view rejects it too, with the same error.
                let borrowed = EventRef::decode(&event.name, &version.label, &bytes);
                if borrowed.as_ref().err() != decoded.as_ref().err() {
                    failures.push(format!(
                        "{} {path}: the borrowed view and decode disagree",
                        version.id
                    ));
                }

                checked += 1;
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {checked} misplaced:\n{}",
        failures.len(),
        failures[..failures.len().min(20)].join("\n")
    );
    assert!(checked > 3_000, "{checked} mutations");
}

#[test]
fn json_paths_survive_escapes_nesting_and_broken_input() {
    use energy_api::events::json_path_at;
    let json = br#"{"a\"b": [{"c": 1}, {"d\u00e9": [true, 7]}]}"#;
    let at = |needle: &str| {
        json.windows(needle.len())
            .position(|w| w == needle.as_bytes())
            .unwrap()
    };
    assert_eq!(json_path_at(json, at("1}")), "a\"b[0].c");
    assert_eq!(json_path_at(json, at("7]")), "a\"b[1].d\u{e9}[1]");
    assert_eq!(
        json_path_at(json, at("]}]")),
        "a\"b[1].d\u{e9}",
        "at a closing bracket: the container"
    );
    assert_eq!(
        json_path_at(b"{\"a\": [1, {\"b", 13),
        "a[1]",
        "truncated inside a key: the key's object"
    );
    assert_eq!(json_path_at(b"", 10), "");
    assert_eq!(json_path_at(b"\"\\", 5), "", "a lone escape at the end");
}
