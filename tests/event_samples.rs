//! Every event version of the real schema decodes from a realistic sample payload and re-serialises to
//! the same JSON, with its optional fields present and absent. The cases come from the model, so a new
//! version in the YAML is tested without writing a test.

use energy_api::{DecodeError, Event, EventType};
use energy_codegen::samples::{Optionals, event_payload};

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
