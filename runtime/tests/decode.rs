//! Decoding envelopes and parts: typed events, raw unknown events, metadata, located errors of every kind,
//! strict mode, other envelope layouts, and hostile input that must give the right error, never a panic.

use energy_api::Event;
use energy_api::events::{AgreementRevoked, AgreementRevokedV2, BillingLedgerEntryPosted};
use energy_runtime::events::{
    Checked, Decoded, Decoder, EnvelopeFields, ErrorKind, EventError, Metadata, Unknown,
};

const REVOKED_V2: &str = r#"{"event_type": "agreement.revoked", "version": "v2", "id": "evt-91", "occurred_at": "2024-03-01T09:30:00Z", "payload": {"agreement_id": 88213, "account_number": "A-1B2C3D4E"}}"#;

fn error(decoder: &Decoder, input: &[u8]) -> EventError {
    match decoder.decode(input) {
        Err(e) => {
            // The borrowed view fails the same way.
            #[cfg(feature = "borrowed")]
            assert_eq!(decoder.decode_borrowed(input).err(), Some(e.clone()));
            e
        }
        Ok(decoded) => panic!(
            "expected an error, decoded {} {}",
            decoded.event_type(),
            decoded.version()
        ),
    }
}

/// Decodes `input` both ways and checks that the borrowed view is the same event: the same type,
/// version, payload (as JSON) and metadata, or the same error.
#[cfg(feature = "borrowed")]
fn agree(decoder: &Decoder, input: &[u8]) {
    use energy_runtime::events::DecodedRef;
    let owned = decoder.decode(input);
    let view = decoder.decode_borrowed(input);
    let text = String::from_utf8_lossy(input);
    match (owned, view) {
        (Ok(Decoded::Known(owned)), Ok(DecodedRef::Known(view))) => {
            assert_eq!(view.event.kind(), owned.event.kind(), "{text}");
            assert_eq!(
                serde_json::to_value(&view.event).unwrap(),
                serde_json::to_value(&owned.event).unwrap(),
                "{text}"
            );
            assert_eq!(view.metadata.to_metadata(), owned.metadata, "{text}");
        }
        (Ok(Decoded::Unknown(owned)), Ok(DecodedRef::Unknown(view))) => {
            assert_eq!(
                (&*view.event_type, &*view.version, view.payload.get()),
                (&*owned.event_type, &*owned.version, owned.payload.get()),
                "{text}"
            );
            assert_eq!(view.metadata.to_metadata(), owned.metadata, "{text}");
        }
        (Err(owned), Err(view)) => assert_eq!(view, owned, "{text}"),
        (owned, view) => panic!("{text}: owned {owned:?}, borrowed {view:?}"),
    }
}

/// The borrowed views decode what owned decoding does, with the same errors: every line of these tests,
/// in every mode.
#[cfg(feature = "borrowed")]
#[test]
fn borrowed_views_decode_what_owned_decoding_does() {
    let lines: Vec<&[u8]> = vec![
        REVOKED_V2.as_bytes(),
        br#"{"payload": {"agreement_id": 1, "changes": {"email": ["a", "b\u00e9"]}}, "event_type": "agreement.updated", "version": "v1", "id": "e-1"}"#,
        br#"{"event_type": "agreement.updated", "version": "v1", "payload": {"agreement_id": 1, "changes": null}}"#,
        br#"{"event_type": "billing.ledger.entry_posted", "version": "v2", "payload": {"ledger": {"account": {"number": "A-1", "branch": "north"}, "number": "L-1"}, "entry": {"id": 5, "is_charge": true, "is_credit": false, "is_payment": false, "is_repayment": false, "is_reversal": false, "is_reversed": false}, "posted_by": "batch"}}"#,
        br#"{"event_type": "meterpoint.gas.disputed_closing_reading.queried.by_us", "version": "v1", "payload": {"mprn": "7512345606", "supplier": "XYZ", "reference_number": 12}}"#,
        br#"{"event_type": "agreement.exploded", "version": "v1", "trace": [1, 2], "payload": {"x": 1}}"#,
        br#"{"event_type": "agreement.revoked", "version": "v9", "payload": {}}"#,
        br#"{"event_type": "agreement.revoked", "version": "v2", "payload": {"agreement_id": 1}}"#,
        br#"{"event_type": "agreement.updated", "version": "v1", "payload": {"agreement_id": 1, "changes": [1]}}"#,
        br#"{"event_type": "agreement.updated", "version": "v1", "payload": {"agreement_id": 1, "changes": {"a": 1e400}}}"#,
        br#"{"payload": {"agreement_id": 1, "changes": {}, "oops": 1}, "event_type": "agreement.updated", "version": "v1"}"#,
        br#"{"event_type": "agreement.revoked", "version": "v2", "payload": {"agreement_id": 1, "account_number": "\ud800"}}"#,
        b"{\"event_type\": \"agreement.revoked\", \"version\": \"v2\", \"payload\": {\"agreement_id\": 1, \"account_number\": \"\xff\"}}",
        b"",
        br#"{"event_type": "agreement.revoked""#,
    ];
    for decoder in [
        Decoder::new(),
        Decoder::new().strict(true),
        Decoder::new().reject_unknown(true),
    ] {
        for line in &lines {
            agree(&decoder, line);
        }
    }
}

fn summary(e: &EventError) -> (ErrorKind, &str, Option<&str>, Option<&str>) {
    (
        e.kind,
        e.path.as_str(),
        e.event_type.as_deref(),
        e.version.as_deref(),
    )
}

#[test]
fn a_known_event_is_typed_and_keeps_its_metadata() {
    let Decoded::Known(known) = Decoder::new().decode(REVOKED_V2.as_bytes()).unwrap() else {
        panic!("agreement.revoked v2 is in the catalogue")
    };
    assert_eq!(
        *known.event,
        Event::AgreementRevoked(AgreementRevoked::V2(AgreementRevokedV2::new(
            88213,
            "A-1B2C3D4E"
        )))
    );
    let metadata: Vec<(&str, &str)> = known.metadata.iter().map(|(k, v)| (k, v.get())).collect();
    assert_eq!(
        metadata,
        [
            ("id", r#""evt-91""#),
            ("occurred_at", r#""2024-03-01T09:30:00Z""#)
        ]
    );
    assert_eq!(known.metadata.get_str("id").as_deref(), Some("evt-91"));
}

/// A CloudEvents-style envelope carries more metadata than the two fields held in place while a line is
/// read: every one is kept, in order, by both decoders, and one repeated past the second is still an error.
#[test]
fn metadata_past_the_usual_few_is_kept_in_order() {
    let line = r#"{"event_type": "agreement.revoked", "version": "v2", "id": "evt-92", "source": "/agreements", "time": "2024-03-01T09:30:00Z", "datacontenttype": "application/json", "occurred_at": "2024-03-01T09:30:00Z", "trace": {"hops": [1, 2]}, "payload": {"agreement_id": 88213, "account_number": "A-1B2C3D4E"}}"#;
    let expected = [
        ("id", r#""evt-92""#),
        ("source", r#""/agreements""#),
        ("time", r#""2024-03-01T09:30:00Z""#),
        ("datacontenttype", r#""application/json""#),
        ("occurred_at", r#""2024-03-01T09:30:00Z""#),
        ("trace", r#"{"hops": [1, 2]}"#),
    ];
    let Decoded::Known(known) = Decoder::new().decode(line.as_bytes()).unwrap() else {
        panic!("agreement.revoked v2 is in the catalogue")
    };
    let metadata: Vec<(&str, &str)> = known.metadata.iter().map(|(k, v)| (k, v.get())).collect();
    assert_eq!(metadata, expected);
    #[cfg(feature = "borrowed")]
    {
        use energy_runtime::events::DecodedRef;
        let Ok(DecodedRef::Known(view)) = Decoder::new().decode_borrowed(line.as_bytes()) else {
            panic!("the borrowed view decodes {line}")
        };
        let metadata: Vec<(&str, &str)> = view.metadata.iter().map(|(k, v)| (k, v.get())).collect();
        assert_eq!(metadata, expected);
        assert_eq!(
            view.metadata.get_str("source").as_deref(),
            Some("/agreements")
        );
    }
    let repeated = line.replace(r#""trace""#, r#""id""#);
    let e = error(&Decoder::new(), repeated.as_bytes());
    assert_eq!(e.kind, ErrorKind::MalformedJson, "{e}");
    assert!(e.to_string().contains("`id`"), "{e}");
}

#[test]
fn the_payload_may_come_first() {
    let payload_first = r#"{"payload": {"agreement_id": 88213, "account_number": "A-1B2C3D4E"}, "id": "evt-91", "version": "v2", "event_type": "agreement.revoked"}"#;
    let a = Decoder::new().decode(payload_first.as_bytes()).unwrap();
    let b = Decoder::new().decode(REVOKED_V2.as_bytes()).unwrap();
    let (Decoded::Known(a), Decoded::Known(b)) = (a, b) else {
        panic!("both are known")
    };
    assert_eq!(a.event, b.event);

    // Its errors are located in the line all the same.
    let bad = r#"{"payload": {"agreement_id": "88213", "account_number": "A-1"}, "event_type": "agreement.revoked", "version": "v2"}"#;
    let e = error(&Decoder::new(), bad.as_bytes());
    assert_eq!(
        summary(&e),
        (
            ErrorKind::InvalidType,
            "payload.agreement_id",
            Some("agreement.revoked"),
            Some("v2")
        )
    );
    // The offset is the byte where the fault was found: the string's closing quote.
    assert_eq!(e.offset, bad.find(r#""88213""#).map(|i| i + 6));
}

#[test]
fn validation_reports_what_decoding_does() {
    let decoder = Decoder::new().reject_unknown(true);
    let checked = decoder.validate(REVOKED_V2.as_bytes()).unwrap();
    assert_eq!(
        (checked.event_type(), checked.version()),
        ("agreement.revoked", "v2")
    );
    assert!(matches!(checked, Checked::Known(_)));
    let bad =
        br#"{"event_type": "agreement.revoked", "version": "v2", "payload": {"agreement_id": 1}}"#;
    assert_eq!(decoder.validate(bad), Err(error(&decoder, bad)));

    let unknown = br#"{"event_type": "agreement.exploded", "version": "v1", "payload": {}}"#;
    let lenient = Decoder::new().validate(unknown).unwrap();
    assert_eq!(
        lenient,
        Checked::Unknown {
            event_type: "agreement.exploded".into(),
            version: "v1".into()
        }
    );
}

#[test]
fn errors_name_the_event_the_field_and_the_fault() {
    let decoder = Decoder::new();
    let missing = br#"{"event_type": "billing.ledger.entry_posted", "version": "v1", "payload": {"ledger": {"account": {}, "number": "L-1"}}}"#;
    let e = error(&decoder, missing);
    assert_eq!(
        summary(&e),
        (
            ErrorKind::MissingField,
            "payload.ledger.account.number",
            Some("billing.ledger.entry_posted"),
            Some("v1")
        )
    );
    assert_eq!(e.message, "missing field `number`");
    // Found missing at the end of the `account` object.
    let account_end = missing.windows(2).position(|w| w == b"{}").map(|i| i + 1);
    assert_eq!(e.offset, account_end);
    assert_eq!(
        e.at_line(12).to_string(),
        "line 12: event `billing.ledger.entry_posted` v1, at `payload.ledger.account.number`: missing field `number` (byte 98)"
    );

    let wrong = br#"{"event_type": "lifecycle.join-supplier.cancelled", "version": "v1", "payload": {"join_supplier_process_number": "J-1", "account_number": "A-1", "subtype": "X", "supply_points": [{"external_identifier": "E", "market_name": 7, "requested_supply_start_date": "2024-05-01"}]}}"#;
    let e = error(&decoder, wrong);
    assert_eq!(
        (e.kind, e.path.as_str(), e.message.as_str()),
        (
            ErrorKind::InvalidType,
            "payload.supply_points[0].market_name",
            "invalid type: integer `7`, expected a string"
        )
    );
}

#[test]
fn envelope_errors() {
    let decoder = Decoder::new();
    let cases: [(&str, ErrorKind, &str); 9] = [
        (
            r#"{"version": "v1", "payload": {}}"#,
            ErrorKind::BadEnvelope,
            "event_type",
        ),
        (
            r#"{"event_type": "agreement.revoked", "payload": {}}"#,
            ErrorKind::BadEnvelope,
            "version",
        ),
        (
            r#"{"event_type": "agreement.revoked", "version": "v1"}"#,
            ErrorKind::BadEnvelope,
            "payload",
        ),
        (
            r#"{"event_type": ["agreement.revoked"], "version": "v1", "payload": {}}"#,
            ErrorKind::BadEnvelope,
            "event_type",
        ),
        (
            r#"{"event_type": "agreement.revoked", "version": 1, "payload": {}}"#,
            ErrorKind::BadEnvelope,
            "version",
        ),
        (r#""agreement.revoked""#, ErrorKind::BadEnvelope, ""),
        (r#"null"#, ErrorKind::BadEnvelope, ""),
        (
            r#"{"event_type": "agreement.revoked", "version": "v1", "payload": {"agreement_id": 1}} {}"#,
            ErrorKind::MalformedJson,
            "",
        ),
        (
            r#"{"event_type": "agreement.revoked" "version": "v1"}"#,
            ErrorKind::MalformedJson,
            "",
        ),
    ];
    for (input, kind, path) in cases {
        let e = error(&decoder, input.as_bytes());
        assert_eq!((e.kind, e.path.as_str()), (kind, path), "{input}: {e}");
    }
    // A payload that is not an object is a payload of the wrong type.
    for payload in ["88213", "null", "[]", r#""x""#] {
        let line = format!(
            r#"{{"event_type": "agreement.revoked", "version": "v1", "payload": {payload}}}"#
        );
        let e = error(&decoder, line.as_bytes());
        assert_eq!(
            (e.kind, e.path.as_str()),
            (ErrorKind::InvalidType, "payload"),
            "{line}"
        );
    }
}

#[test]
fn unknown_types_and_versions_are_raw_events_or_errors() {
    let unknown_type =
        br#"{"event_type": "agreement.exploded", "version": "v1", "payload": {"agreement_id": 1}}"#;
    let unknown_version =
        br#"{"event_type": "agreement.revoked", "version": "v9", "payload": {"agreement_id": 1}}"#;
    let lenient = Decoder::new();
    let Decoded::Unknown(raw) = lenient.decode(unknown_type).unwrap() else {
        panic!("kept raw")
    };
    assert_eq!(raw.reason(), Unknown::EventType);
    let Decoded::Unknown(raw) = lenient.decode(unknown_version).unwrap() else {
        panic!("kept raw")
    };
    assert_eq!(
        raw.reason(),
        Unknown::Version(energy_api::EventType::AgreementRevoked)
    );

    let strict = Decoder::new().reject_unknown(true);
    let e = error(&strict, unknown_type);
    assert_eq!(
        summary(&e),
        (
            ErrorKind::UnknownEventType,
            "event_type",
            Some("agreement.exploded"),
            Some("v1")
        )
    );
    let e = error(&strict, unknown_version);
    assert_eq!(
        summary(&e),
        (
            ErrorKind::UnknownVersion,
            "version",
            Some("agreement.revoked"),
            Some("v9")
        )
    );
    assert_eq!(
        e.message,
        "unknown version `v9` of event type `agreement.revoked` (known: v1, v2)"
    );
}

#[test]
fn an_unknown_event_passes_through_unchanged() {
    // Odd spacing, escapes, a number beyond i64 and u64, a float in exponent form, nested metadata.
    let payload = r#"{ "tariff" : "E-1R-VAR-22-11-01-\u00e9",  "rates": [1.50e2, -0.0, 184467440737095516160], "nested": {"a": [ ]} }"#;
    let line = format!(
        r#"{{"id": "evt-7", "event_type": "tariff.repriced", "trace": {{"span": [1, 2]}}, "version": "v4", "payload": {payload}, "occurred_at": "2024-03-01T09:30:00Z"}}"#
    );
    let Decoded::Unknown(raw) = Decoder::new().decode(line.as_bytes()).unwrap() else {
        panic!("tariff.repriced is not in the catalogue")
    };
    assert_eq!(
        raw.payload.get(),
        payload,
        "the payload text, byte for byte"
    );
    assert_eq!(raw.payload_bytes(), payload.as_bytes());
    let metadata: Vec<(&str, &str)> = raw.metadata.iter().map(|(k, v)| (k, v.get())).collect();
    assert_eq!(
        metadata,
        [
            ("id", r#""evt-7""#),
            ("trace", r#"{"span": [1, 2]}"#),
            ("occurred_at", r#""2024-03-01T09:30:00Z""#)
        ]
    );

    let decoded = Decoded::Unknown(raw.clone());
    let forwarded = decoded.to_envelope_json(&EnvelopeFields::DEFAULT);
    assert!(
        forwarded.contains(payload),
        "{forwarded} carries the payload as it came"
    );
    let again = Decoder::new().decode(forwarded.as_bytes()).unwrap();
    assert_eq!(
        again, decoded,
        "decoding the forwarded envelope gives the same raw event"
    );
    // The same JSON content as the original line, whatever the key order.
    let original: serde_json::Value = serde_json::from_str(&line).unwrap();
    let written: serde_json::Value = serde_json::from_str(&forwarded).unwrap();
    assert_eq!(original, written);
}

#[test]
fn a_known_event_re_serialises_as_an_envelope() {
    let decoded = Decoder::new().decode(REVOKED_V2.as_bytes()).unwrap();
    let out = decoded.to_envelope_json(&EnvelopeFields::DEFAULT);
    assert_eq!(
        out,
        r#"{"event_type":"agreement.revoked","version":"v2","payload":{"agreement_id":88213,"account_number":"A-1B2C3D4E"},"id":"evt-91","occurred_at":"2024-03-01T09:30:00Z"}"#
    );
}

#[test]
fn strict_mode_reports_unlisted_fields_except_in_incomplete_payloads() {
    let extra = br#"{"event_type": "billing.ledger.entry_posted", "version": "v2", "payload": {"ledger": {"account": {"number": "A-1", "branch": "north"}, "number": "L-1"}, "entry": {"id": 5, "is_charge": true, "is_credit": false, "is_payment": false, "is_repayment": false, "is_reversal": false, "is_reversed": false}, "posted_by": "batch"}}"#;
    assert!(
        Decoder::new().decode(extra).is_ok(),
        "unlisted fields are ignored by default"
    );
    let strict = Decoder::new().strict(true);
    let e = error(&strict, extra);
    assert_eq!(
        summary(&e),
        (
            ErrorKind::UnknownField,
            "payload.ledger.account.branch",
            Some("billing.ledger.entry_posted"),
            Some("v2")
        )
    );
    assert_eq!(
        e.message,
        "unknown field `branch` (2 unknown fields: ledger.account.branch, posted_by)"
    );

    // The catalogue does not show every field of this event: they are kept, not reported.
    let incomplete = br#"{"event_type": "meterpoint.gas.disputed_closing_reading.queried.by_us", "version": "v1", "payload": {"mprn": "7512345606", "supplier": "XYZ", "reference_number": 12}}"#;
    let Decoded::Known(known) = strict.decode(incomplete).unwrap() else {
        panic!("known")
    };
    let back: serde_json::Value = serde_json::to_value(&known.event).unwrap();
    assert_eq!(
        back,
        serde_json::json!({"mprn": "7512345606", "supplier": "XYZ", "reference_number": 12})
    );

    // Free-form objects take any field; metadata is not the payload.
    let free = br#"{"event_type": "agreement.updated", "version": "v1", "tenant": "gb", "payload": {"agreement_id": 1, "changes": {"anything": 1}}}"#;
    assert!(strict.decode(free).is_ok());

    // Strict mode also holds for a payload that comes first, and for parts.
    let first = br#"{"payload": {"agreement_id": 1, "changes": {}, "oops": 1}, "event_type": "agreement.updated", "version": "v1"}"#;
    assert_eq!(error(&strict, first).path, "payload.oops");
    let e = strict
        .decode_parts(
            "agreement.updated",
            "v1",
            br#"{"agreement_id": 1, "changes": {}, "oops": 1}"#,
            Metadata::new(),
        )
        .unwrap_err();
    assert_eq!(
        (e.kind, e.path.as_str()),
        (ErrorKind::UnknownField, "payload.oops")
    );
}

#[test]
fn parts_from_headers() {
    let mut headers = Metadata::new();
    headers.insert_str("message-id", "m-1");
    let decoder = Decoder::new();
    let decoded = decoder
        .decode_parts(
            "billing.ledger.entry_posted",
            "v1",
            br#"{"ledger": {"account": {"number": "A-1"}, "number": "L-1"}}"#,
            headers.clone(),
        )
        .unwrap();
    let Decoded::Known(known) = decoded else {
        panic!("known")
    };
    assert!(matches!(
        *known.event,
        Event::BillingLedgerEntryPosted(BillingLedgerEntryPosted::V1(_))
    ));
    assert_eq!(known.metadata.get_str("message-id").as_deref(), Some("m-1"));

    let e = decoder
        .decode_parts(
            "billing.ledger.entry_posted",
            "v1",
            br#"{"ledger": {"account": {}, "number": "L-1"}}"#,
            Metadata::new(),
        )
        .unwrap_err();
    assert_eq!(
        (e.kind, e.path.as_str(), e.offset),
        (
            ErrorKind::MissingField,
            "payload.ledger.account.number",
            Some(24)
        )
    );

    let Decoded::Unknown(raw) = decoder
        .decode_parts("tariff.repriced", "v2", br#"{"a": 1}"#, headers)
        .unwrap()
    else {
        panic!("unknown")
    };
    assert_eq!(raw.payload.get(), r#"{"a": 1}"#);

    for payload in [&b"{\"a\": "[..], b"\xff", b""] {
        for event_type in ["tariff.repriced", "agreement.revoked"] {
            let e = decoder
                .decode_parts(event_type, "v1", payload, Metadata::new())
                .unwrap_err();
            assert_eq!(e.kind, ErrorKind::MalformedJson, "{event_type} {payload:?}");
            assert!(e.path.starts_with("payload"), "{e}");
        }
    }
    // A known payload's invalid UTF-8 is located at its first bad byte, counted from the payload.
    let e = decoder
        .decode_parts(
            "agreement.revoked",
            "v1",
            b"{\"agreement_id\": 1, \"note\": \"caf\xc3\"}",
            Metadata::new(),
        )
        .unwrap_err();
    assert_eq!((e.kind, e.offset), (ErrorKind::MalformedJson, Some(32)));
}

#[test]
fn envelopes_with_other_field_names() {
    let decoder =
        Decoder::new().envelope_fields(EnvelopeFields::new("type", "dataversion", "data"));
    let line = br#"{"specversion": "1.0", "type": "agreement.revoked", "dataversion": "v1", "data": {"agreement_id": 4}}"#;
    let decoded = decoder.decode(line).unwrap();
    assert_eq!(
        (decoded.event_type(), decoded.version()),
        ("agreement.revoked", "v1")
    );
    assert_eq!(
        decoded.metadata().get("specversion").map(|v| v.get()),
        Some(r#""1.0""#)
    );

    let bad =
        br#"{"type": "agreement.revoked", "dataversion": "v1", "data": {"agreement_id": true}}"#;
    assert_eq!(error(&decoder, bad).path, "data.agreement_id");
    let missing = br#"{"event_type": "agreement.revoked", "version": "v1", "payload": {}}"#;
    assert_eq!(error(&decoder, missing).path, "type");
}

/// Hostile input: each gives its error kind, and nothing panics (a panic fails the test).
#[test]
fn hostile_input_gives_the_right_error() {
    let decoder = Decoder::new().reject_unknown(true);
    let envelope = |payload: &str| {
        format!(r#"{{"event_type": "agreement.updated", "version": "v2", "payload": {payload}}}"#)
    };
    let deep_payload = envelope(&format!(
        r#"{{"agreement_id": 1, "account_number": "A", "changes": {}{}}}"#,
        r#"{"a": "#.repeat(200) + "1",
        "}".repeat(200)
    ));
    let deep_metadata = format!(
        r#"{{"trace": {}1{}, "event_type": "agreement.revoked", "version": "v1", "payload": {{"agreement_id": 1}}}}"#,
        "[".repeat(50_000),
        "]".repeat(50_000)
    );
    let deep_first = format!(
        r#"{{"payload": {{"agreement_id": 1, "changes": {}1{}}}, "event_type": "agreement.updated", "version": "v1"}}"#,
        r#"{"a": "#.repeat(50_000),
        "}".repeat(50_000)
    );
    let deep_unknown = format!(
        r#"{{"event_type": "tariff.repriced", "version": "v1", "payload": {}1{}}}"#,
        "[".repeat(50_000),
        "]".repeat(50_000)
    );
    let huge_string = envelope(&format!(
        r#"{{"agreement_id": 1, "account_number": "{}", "changes": {{}}}}"#,
        "x".repeat(4 << 20)
    ));
    let many_keys = format!(
        r#"{{"event_type": "agreement.revoked", "version": "v1", "payload": {{"agreement_id": 1}}, {}}}"#,
        (0..50_000)
            .map(|i| format!(r#""k{i}": {i}"#))
            .collect::<Vec<_>>()
            .join(", ")
    );
    let many_keys_repeated = many_keys.replace(r#""k49999""#, r#""k7""#);
    let mut invalid_utf8 =
        envelope(r#"{"agreement_id": 1, "account_number": "A-#", "changes": {}}"#).into_bytes();
    let at = invalid_utf8.iter().position(|b| *b == b'#').unwrap();
    invalid_utf8[at] = 0xff;
    let cases: Vec<(&str, Vec<u8>, ErrorKind, &str)> = vec![
        ("empty", b"".to_vec(), ErrorKind::MalformedJson, ""),
        ("truncated", envelope(r#"{"agreement_id": 1, "acc"#).into_bytes(), ErrorKind::MalformedJson, "payload"),
        ("truncated envelope", br#"{"event_type": "agreement.upd"#.to_vec(), ErrorKind::MalformedJson, "event_type"),
        ("invalid UTF-8", invalid_utf8, ErrorKind::MalformedJson, "payload.account_number"),
        ("invalid UTF-8 in a key", b"{\"event_\xff\": 1}".to_vec(), ErrorKind::MalformedJson, ""),
        ("lone surrogate", envelope(r#"{"agreement_id": 1, "account_number": "\ud800", "changes": {}}"#).into_bytes(), ErrorKind::MalformedJson, "payload.account_number"),
        ("deep payload", deep_payload.into_bytes(), ErrorKind::MalformedJson, ""),
        ("deep metadata", deep_metadata.into_bytes(), ErrorKind::MalformedJson, "trace"),
        ("deep payload first", deep_first.into_bytes(), ErrorKind::MalformedJson, ""),
        ("deep unknown payload", deep_unknown.clone().into_bytes(), ErrorKind::UnknownEventType, "event_type"),
        ("i64 overflow", envelope(r#"{"agreement_id": 9223372036854775808, "account_number": "A", "changes": {}}"#).into_bytes(), ErrorKind::InvalidType, "payload.agreement_id"),
        ("u64 overflow", envelope(r#"{"agreement_id": -18446744073709551616, "account_number": "A", "changes": {}}"#).into_bytes(), ErrorKind::InvalidType, "payload.agreement_id"),
        ("fraction for an integer", envelope(r#"{"agreement_id": 1.5, "account_number": "A", "changes": {}}"#).into_bytes(), ErrorKind::InvalidType, "payload.agreement_id"),
        ("number beyond f64", envelope(r#"{"agreement_id": 1e400, "account_number": "A", "changes": {}}"#).into_bytes(), ErrorKind::MalformedJson, "payload.agreement_id"),
        ("repeated payload field", envelope(r#"{"agreement_id": 1, "agreement_id": 2, "account_number": "A", "changes": {}}"#).into_bytes(), ErrorKind::MalformedJson, "payload.agreement_id"),
        ("repeated nested field", br#"{"event_type": "billing.ledger.entry_posted", "version": "v1", "payload": {"ledger": {"account": {"number": "A", "number": "B"}, "number": "L"}}}"#.to_vec(), ErrorKind::MalformedJson, "payload.ledger.account.number"),
        ("repeated type", br#"{"event_type": "agreement.revoked", "event_type": "agreement.updated", "version": "v1", "payload": {}}"#.to_vec(), ErrorKind::MalformedJson, "event_type"),
        ("repeated payload", br#"{"event_type": "agreement.revoked", "version": "v1", "payload": {"agreement_id": 1}, "payload": {}}"#.to_vec(), ErrorKind::MalformedJson, "payload"),
        ("repeated metadata", many_keys_repeated.into_bytes(), ErrorKind::MalformedJson, "k7"),
        ("NUL byte", b"{\"event_type\": \"agreement.revoked\0\"}".to_vec(), ErrorKind::MalformedJson, "event_type"),
        ("byte order mark", b"\xef\xbb\xbf{}".to_vec(), ErrorKind::MalformedJson, ""),
    ];
    for (name, input, kind, path) in cases {
        let e = error(&decoder, &input);
        assert_eq!(e.kind, kind, "{name}: {e}");
        if name == "invalid UTF-8" {
            // Located at the first bad byte, in both decoders.
            assert_eq!(e.offset, Some(at), "{name}: {e}");
        }
        if name.starts_with("deep payload") {
            // 128 levels deep, serde_json stops: the path goes down to where it did.
            assert!(e.path.starts_with("payload.changes.a.a.a"), "{name}: {e}");
        } else {
            assert_eq!(e.path, path, "{name}: {e}");
        }
    }
    // Kept raw, an unknown payload is held to the same depth.
    let e = error(&Decoder::new(), deep_unknown.as_bytes());
    assert_eq!(
        (e.kind, e.path.as_str()),
        (ErrorKind::MalformedJson, "payload")
    );
    // What is large but valid decodes.
    assert!(decoder.decode(huge_string.as_bytes()).is_ok());
    assert!(decoder.decode(many_keys.as_bytes()).is_ok());
}

/// A field the schema does not list is skipped, and serde_json skips without a depth limit: it is
/// held to the depth that listed fields and metadata are held to, whichever way the line is read.
#[test]
fn a_deep_unknown_payload_field_is_refused_like_deep_metadata() {
    let deep = format!("{}1{}", "[".repeat(100_000), "]".repeat(100_000));
    let type_first = format!(
        r#"{{"event_type": "agreement.revoked", "version": "v1", "payload": {{"agreement_id": 1, "x": {deep}}}}}"#
    );
    let payload_first = format!(
        r#"{{"payload": {{"agreement_id": 1, "x": {deep}}}, "event_type": "agreement.revoked", "version": "v1"}}"#
    );
    let metadata = format!(
        r#"{{"m": {deep}, "event_type": "agreement.revoked", "version": "v1", "payload": {{"agreement_id": 1}}}}"#
    );
    let decoder = Decoder::new();
    for line in [&type_first, &payload_first, &metadata] {
        let decoded = decoder.decode(line.as_bytes()).expect_err("too deep");
        let validated = decoder.validate(line.as_bytes()).expect_err("too deep");
        for e in [decoded, validated] {
            assert_eq!(e.kind, ErrorKind::MalformedJson, "{e}");
            assert_eq!(e.message, "recursion limit exceeded", "{e}");
        }
    }
    let parts = decoder
        .decode_parts(
            "agreement.revoked",
            "v1",
            format!(r#"{{"agreement_id": 1, "x": {deep}}}"#).as_bytes(),
            Metadata::default(),
        )
        .expect_err("too deep");
    assert_eq!(
        (parts.kind, parts.path.as_str()),
        (ErrorKind::MalformedJson, "payload")
    );
    // 128 levels of an unknown field are still accepted, as they are in a listed one.
    let ok = format!(
        r#"{{"event_type": "agreement.revoked", "version": "v1", "payload": {{"agreement_id": 1, "x": {}1{}}}}}"#,
        "[".repeat(120),
        "]".repeat(120)
    );
    assert!(decoder.decode(ok.as_bytes()).is_ok());
    assert!(decoder.validate(ok.as_bytes()).is_ok());
}
