//! Unit tests of the drift collector on streams with known, injected drift; the command's own are in
//! `cli/tests/drift_cli.rs`.

use super::*;

fn collect(lines: &[String]) -> Report {
    let mut drift = Drift::default();
    for (i, line) in lines.iter().enumerate() {
        drift.observe_line(i as u64 + 1, line.as_bytes());
    }
    drift.report()
}

fn find<'r>(report: &'r Report, event: &str, path: &str, kind: FindingKind) -> &'r Finding {
    report
        .findings
        .iter()
        .find(|f| f.event.as_deref() == Some(event) && f.path == path && f.kind == kind)
        .unwrap_or_else(|| panic!("no {kind:?} at {event} {path}: {report:#?}"))
}

fn updated(i: usize, payload_extra: &str) -> String {
    format!(
        r#"{{"event_type":"agreement.updated","version":"v2","id":"evt-{i}","payload":{{"agreement_id":{},"changes":{{"valid_to":["2024-12-31","2025-03-31"]}},"account_number":"A-1B2C3D4E"{payload_extra}}}}}"#,
        88000 + i
    )
}

#[test]
fn injected_drift_is_counted_exactly_per_path() {
    let mut lines = Vec::new();
    // 100 agreement.updated v2: 30 with an undeclared `channel`, 3 of them twice-typed (an integer).
    for i in 0..100 {
        let extra = match i {
            0..27 => r#","channel":"web""#.to_owned(),
            27..30 => r#","channel":7"#.to_owned(),
            _ => String::new(),
        };
        lines.push(updated(i, &extra));
    }
    // 5 without the required `account_number`, 2 with it null, 4 with `agreement_id` a string, 1 beyond i64.
    for i in 0..5 {
        lines.push(format!(
            r#"{{"event_type":"agreement.updated","version":"v2","payload":{{"agreement_id":{i},"changes":{{}}}}}}"#
        ));
    }
    for _ in 0..2 {
        lines.push(r#"{"event_type":"agreement.updated","version":"v2","payload":{"agreement_id":1,"changes":{},"account_number":null}}"#.to_owned());
    }
    for _ in 0..4 {
        lines.push(r#"{"payload":{"agreement_id":"88213","changes":{},"account_number":"A-1"},"event_type":"agreement.updated","version":"v2"}"#.to_owned());
    }
    lines.push(r#"{"event_type":"agreement.updated","version":"v2","payload":{"agreement_id":9223372036854775808,"changes":{},"account_number":"A-1"}}"#.to_owned());
    // Arrays: 10 join-supplier cancellations of two supply points each, one market_name an integer in 3 of them.
    for i in 0..10 {
        let market = if i < 3 { "7" } else { r#""ELECTRICITY""# };
        lines.push(format!(
            r#"{{"event_type":"lifecycle.join-supplier.cancelled","version":"v1","payload":{{"join_supplier_process_number":"JSP-{i}","account_number":"A-1B2C3D4E","subtype":"CHANGE_OF_SUPPLIER","supply_points":[{{"external_identifier":"2000012345678","market_name":{market},"requested_supply_start_date":"2024-05-01"}},{{"external_identifier":"2000012345679","market_name":{market},"requested_supply_start_date":"2024-05-01","meter_serial":"E1"}}]}}}}"#
        ));
    }
    // Unknown kinds and bad lines.
    lines.push(r#"{"event_type":"agreement.exploded","version":"v1","payload":{}}"#.to_owned());
    lines.push(r#"{"event_type":"agreement.revoked","version":"v9","payload":{}}"#.to_owned());
    lines.push(
        r#"{"event_type":"agreement.updated","version":"v2","payload":{"agreement_id":1,"chan"#
            .to_owned(),
    );
    lines.push(r#"["agreement.terminated","v1",{"agreement_id":88213}]"#.to_owned());
    lines.push("   ".to_owned());
    let report = collect(&lines);
    assert_eq!(report.lines, 127);
    assert_eq!(report.blank_lines, 1);
    assert_eq!(report.events, 124);

    let updated = "agreement.updated";
    let channel = find(
        &report,
        updated,
        "payload.channel",
        FindingKind::UnknownMember,
    );
    assert_eq!((channel.count, channel.events), (30, 30));
    assert_eq!(channel.seen.get("string"), Some(&27));
    assert_eq!(channel.seen.get("integer"), Some(&3));
    assert_eq!(channel.examples, ["\"web\""]);
    assert!((channel.share - 30.0 / 112.0).abs() < 1e-9);
    let missing = find(
        &report,
        updated,
        "payload.account_number",
        FindingKind::MissingField,
    );
    assert_eq!(missing.count, 5);
    let null = find(
        &report,
        updated,
        "payload.account_number",
        FindingKind::NullNotNullable,
    );
    assert_eq!(null.count, 2);
    let wrong = find(
        &report,
        updated,
        "payload.agreement_id",
        FindingKind::WrongType,
    );
    assert_eq!((wrong.count, wrong.expected.as_deref()), (4, Some("int")));
    assert_eq!(wrong.seen.get("string"), Some(&4));
    assert_eq!(wrong.examples, ["\"88213\""]);
    let range = find(
        &report,
        updated,
        "payload.agreement_id",
        FindingKind::OutOfRange,
    );
    assert_eq!(range.count, 1);
    let never = find(
        &report,
        updated,
        "payload.is_override",
        FindingKind::OptionalNeverSent,
    );
    assert!(!never.drift);

    let cancelled = "lifecycle.join-supplier.cancelled";
    let market = find(
        &report,
        cancelled,
        "payload.supply_points[].market_name",
        FindingKind::WrongType,
    );
    assert_eq!(
        (market.count, market.events),
        (6, 3),
        "two a line, in three lines"
    );
    let serial = find(
        &report,
        cancelled,
        "payload.supply_points[].meter_serial",
        FindingKind::UnknownMember,
    );
    assert_eq!((serial.count, serial.events), (10, 10));

    let exploded = find(
        &report,
        "agreement.exploded",
        "event_type",
        FindingKind::UnknownEventType,
    );
    assert_eq!((exploded.count, exploded.lines.as_slice()), (1, &[123][..]));
    let v9 = find(
        &report,
        "agreement.revoked",
        "version",
        FindingKind::UnknownVersion,
    );
    assert_eq!(v9.version.as_deref(), Some("v9"));
    let malformed: Vec<_> = report
        .findings
        .iter()
        .filter(|f| {
            matches!(
                f.kind,
                FindingKind::MalformedJson | FindingKind::BadEnvelope
            )
        })
        .map(|f| (f.kind, f.count, f.lines.clone()))
        .collect();
    assert_eq!(
        malformed,
        [
            (FindingKind::MalformedJson, 1, vec![125]),
            (FindingKind::BadEnvelope, 1, vec![126])
        ]
    );
    let kinds: Vec<_> = report
        .kinds
        .iter()
        .map(|k| (k.event.as_str(), k.events))
        .collect();
    assert_eq!(kinds, [(updated, 112), (cancelled, 10)]);
    assert!(report.has_drift());
    // Most events touched first, drift before observations.
    assert_eq!(report.findings[0].path, "payload.channel");
    let first_observation = report.findings.iter().position(|f| !f.drift).unwrap_or(0);
    assert!(
        report.findings[first_observation..]
            .iter()
            .all(|f| !f.drift)
    );
}

#[test]
fn a_line_cut_short_changes_no_count_but_its_own() {
    let whole = updated(1, r#","channel":"web""#);
    let cut = &whole[..whole.len() - 3];
    let report = collect(&[whole.clone(), cut.to_owned()]);
    let channel = find(
        &report,
        "agreement.updated",
        "payload.channel",
        FindingKind::UnknownMember,
    );
    assert_eq!(channel.count, 1, "the cut line's member is not counted");
    assert_eq!(report.kinds[0].events, 1);
    let malformed = report
        .findings
        .iter()
        .find(|f| f.kind == FindingKind::MalformedJson);
    assert_eq!(malformed.map(|f| f.lines.clone()), Some(vec![2]));
}

#[test]
fn a_clean_stream_has_no_drift_and_enumerations_are_found() {
    let lines: Vec<String> = (0..40)
        .map(|i| {
            let fuel = if i % 4 == 0 { "GAS" } else { "ELECTRICITY" };
            format!(
                r#"{{"event_type":"affiliates.affiliate-account-contract-created","version":"v1","payload":{{"affiliate_account_contract_id":{i},"affiliate_contract_id":7,"account_number":"A-{i:08}","fuel":"{fuel}"}}}}"#
            )
        })
        .collect();
    let report = collect(&lines);
    assert!(!report.has_drift(), "{report:#?}");
    let fuel = find(
        &report,
        "affiliates.affiliate-account-contract-created",
        "payload.fuel",
        FindingKind::EnumCandidate,
    );
    let values: Vec<_> = fuel
        .values
        .iter()
        .map(|v| (v.value.as_str(), v.count))
        .collect();
    assert_eq!(values, [("ELECTRICITY", 30), ("GAS", 10)]);
    assert!(
        !report
            .findings
            .iter()
            .any(|f| f.path == "payload.account_number"),
        "40 distinct account numbers are no enumeration"
    );
}

#[test]
fn tables_stay_bounded_and_say_what_they_dropped() {
    let limits = Limits {
        members_per_object: 4,
        unknown_kinds: 2,
        ..Limits::default()
    };
    let mut drift = Drift::new(limits);
    for i in 0..50u64 {
        let line = updated(i as usize, &format!(r#","extra_{i}":{i}"#));
        drift.observe_line(i + 1, line.as_bytes());
        let unknown = format!(r#"{{"event_type":"made.up.{i}","version":"v1","payload":{{}}}}"#);
        drift.observe_line(i + 1, unknown.as_bytes());
    }
    let report = drift.report();
    let members = report
        .findings
        .iter()
        .filter(|f| f.kind == FindingKind::UnknownMember)
        .count();
    assert_eq!(members, 4);
    assert_eq!(report.dropped.members, 46);
    assert_eq!(report.dropped.unknown_kinds, 48);
}

#[test]
fn an_enumeration_in_an_array_counts_the_events_of_its_field() {
    let lines: Vec<String> = (0..30)
        .map(|i| {
            format!(
                r#"{{"event_type":"account.created","version":"v1","payload":{{"account_number":"A-{i:08}","account_user_emails":["jane.doe@example.com","billing@example.com"],"is_imported":false}}}}"#
            )
        })
        .collect();
    let report = collect(&lines);
    let emails = find(
        &report,
        "account.created",
        "payload.account_user_emails[]",
        FindingKind::EnumCandidate,
    );
    assert_eq!((emails.count, emails.events, emails.share), (60, 30, 1.0));
}
