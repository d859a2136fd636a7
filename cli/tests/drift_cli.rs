//! `energy events drift`, run as the real binary on streams with known, injected drift: the counts
//! exact in the JSON report, the same from a file, a gzip file and standard input; the text and
//! Markdown reports; exit statuses 0, 1 and 2.

use serde_json::Value;
use std::io::Write;
use std::path::Path;
use std::process::{Output, Stdio};

fn energy(args: &[&str], stdin: Option<&[u8]>) -> Output {
    let mut child = energy_testkit::process::energy_command()
        .args(args)
        .stdin(if stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the energy binary runs");
    if let (Some(input), Some(mut pipe)) = (stdin, child.stdin.take()) {
        let _ = pipe.write_all(input);
    }
    child
        .wait_with_output()
        .expect("the energy binary finishes")
}

/// A day of approvals and ledger postings as a producer in another language sends them: 200
/// `approvals.approval.rejected` v1, 60 of which carry an undeclared `rejection_note` (a string) and 4
/// an `assigned_to_id` sent as a string where the schema has none (an undeclared member); 12 have
/// `process_data` `null`; 100 `billing.ledger.entry_posted` v2, 7 of them without `ledger.number`
/// and 3 with `entry.id` as a string; an event type the catalogue lacks (2 lines), a line cut short
/// and a line that is an array.
pub(crate) fn injected_stream() -> String {
    let mut lines = Vec::new();
    for i in 0..200 {
        let note = if i % 10 < 3 {
            format!(r#","rejection_note":"Rejected after review #{i}""#)
        } else {
            String::new()
        };
        let assigned = if i < 4 {
            r#","assigned_to_id":"u-17""#
        } else {
            ""
        };
        let data = if (100..112).contains(&i) {
            "null".to_owned()
        } else {
            format!(r#"{{"tariff":"FIX-12M","step":{}}}"#, i % 3)
        };
        lines.push(format!(
            r#"{{"event_type":"approvals.approval.rejected","version":"v1","id":"evt-r{i}","occurred_at":"2024-03-01T09:30:00Z","payload":{{"approval_id":"APR-{i:05}","process_type":"TARIFF_CHANGE","process_data":{data},"rejected_at":"2024-03-01T09:{:02}:00Z"{note}{assigned}}}}}"#,
            i % 60
        ));
    }
    for i in 0..100 {
        let number = if i < 7 {
            String::new()
        } else {
            format!(r#","number":"L-{:06}""#, 100_000 + i)
        };
        let entry_id = if (50..53).contains(&i) {
            format!(r#""{}""#, 51_000 + i)
        } else {
            (51_000 + i).to_string()
        };
        lines.push(format!(
            r#"{{"event_type":"billing.ledger.entry_posted","version":"v2","id":"evt-l{i}","payload":{{"ledger":{{"account":{{"number":"A-1B2C3D4E"}}{number}}},"entry":{{"id":{entry_id},"is_charge":true,"is_credit":false,"is_payment":false,"is_repayment":false,"is_reversal":false,"is_reversed":false,"source_type":"STATEMENT"}}}}}}"#
        ));
    }
    lines.push(r#"{"event_type":"approvals.approval.escalated","version":"v1","payload":{"approval_id":"APR-1"}}"#.to_owned());
    lines.push(r#"{"event_type":"approvals.approval.escalated","version":"v1","payload":{"approval_id":"APR-2"}}"#.to_owned());
    lines.push(
        r#"{"event_type":"billing.ledger.entry_posted","version":"v2","payload":{"ledger":{"acc"#
            .to_owned(),
    );
    lines.push(r#"["approvals.approval.rejected","v1",{}]"#.to_owned());
    lines.join("\n") + "\n"
}

fn json(output: &Output) -> Value {
    serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
        panic!(
            "{e}: {}\n{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        )
    })
}

fn finding<'r>(report: &'r Value, event: Option<&str>, path: &str, kind: &str) -> &'r Value {
    report["findings"]
        .as_array()
        .and_then(|all| {
            all.iter()
                .find(|f| f["event"].as_str() == event && f["path"] == path && f["kind"] == kind)
        })
        .unwrap_or_else(|| panic!("no {kind} at {event:?} {path} in {report:#}"))
}

fn write(dir: &Path, name: &str, bytes: &[u8]) -> String {
    let path = dir.join(name);
    std::fs::write(&path, bytes).expect("the stream is written");
    path.display().to_string()
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    encoder.write_all(bytes).expect("gzip");
    encoder.finish().expect("gzip")
}

#[test]
fn injected_drift_is_reported_with_exact_counts() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let stream = injected_stream();
    let file = write(dir.path(), "day.ndjson", stream.as_bytes());
    let output = energy(&["events", "drift", "--format", "json", &file], None);
    assert_eq!(output.status.code(), Some(1), "drift exits 1");
    let report = json(&output);
    assert_eq!(report["drift_format"], 1);
    assert_eq!(
        (report["lines"].as_u64(), report["events"].as_u64()),
        (Some(304), Some(302))
    );
    let rejected = Some("approvals.approval.rejected");
    let note = finding(
        &report,
        rejected,
        "payload.rejection_note",
        "unknown_member",
    );
    assert_eq!(
        (note["count"].as_u64(), note["events"].as_u64()),
        (Some(60), Some(60))
    );
    assert_eq!(note["share"].as_f64(), Some(0.3));
    assert_eq!(note["seen"], serde_json::json!({"string": 60}));
    assert_eq!(note["examples"][0], "\"Rejected after review #0\"");
    assert_eq!(note["version"], "v1");
    assert_eq!(note["drift"], true);
    let assigned = finding(
        &report,
        rejected,
        "payload.assigned_to_id",
        "unknown_member",
    );
    assert_eq!(assigned["count"].as_u64(), Some(4));
    let null = finding(
        &report,
        rejected,
        "payload.process_data",
        "null_not_nullable",
    );
    assert_eq!(
        (null["count"].as_u64(), null["expected"].as_str()),
        (Some(12), Some("obj"))
    );
    let posted = Some("billing.ledger.entry_posted");
    let missing = finding(&report, posted, "payload.ledger.number", "missing_field");
    assert_eq!(missing["count"].as_u64(), Some(7));
    assert_eq!(missing["share"].as_f64(), Some(0.07));
    let wrong = finding(&report, posted, "payload.entry.id", "wrong_type");
    assert_eq!(wrong["count"].as_u64(), Some(3));
    assert_eq!(wrong["seen"], serde_json::json!({"string": 3}));
    assert_eq!(wrong["expected"], "int");
    let escalated = finding(
        &report,
        Some("approvals.approval.escalated"),
        "event_type",
        "unknown_event_type",
    );
    assert_eq!(escalated["lines"], serde_json::json!([301, 302]));
    let cut = finding(&report, None, "", "malformed_json");
    assert_eq!(cut["lines"], serde_json::json!([303]));
    let array = finding(&report, None, "", "bad_envelope");
    assert_eq!(array["lines"], serde_json::json!([304]));
    let enumeration = finding(&report, rejected, "payload.process_type", "enum_candidate");
    assert_eq!(
        enumeration["values"],
        serde_json::json!([{"value": "TARIFF_CHANGE", "count": 200}])
    );
    assert_eq!(enumeration["drift"], false);
    let summary = String::from_utf8_lossy(&output.stderr);
    assert!(summary.contains("304 lines read, 302 events"), "{summary}");

    // The same report from gzip and from standard input.
    let gz = write(dir.path(), "day.ndjson.gz", &gzip(stream.as_bytes()));
    let from_gzip = json(&energy(&["events", "drift", "--format", "json", &gz], None));
    assert_eq!(from_gzip, report);
    let from_stdin = energy(
        &["events", "drift", "--format", "json", "-"],
        Some(stream.as_bytes()),
    );
    assert_eq!(json(&from_stdin), report);
}

#[test]
fn the_text_and_markdown_reports_put_the_most_events_first() {
    let stream = injected_stream();
    let text = energy(&["events", "drift", "--top", "3"], Some(stream.as_bytes()));
    assert_eq!(text.status.code(), Some(1));
    let stdout = String::from_utf8_lossy(&text.stdout);
    let lines: Vec<&str> = stdout.lines().collect();
    assert!(
        lines[0].starts_with("energy events drift: 304 lines read, 302 events"),
        "{stdout}"
    );
    assert!(
        lines[3].contains("60 events") && lines[3].contains("payload.rejection_note"),
        "{stdout}"
    );
    assert!(lines[3].contains("30.0 %") && lines[3].contains(r#"e.g. "Rejected after review #0""#));
    assert!(
        stdout.contains("more findings (--top 0 shows all"),
        "{stdout}"
    );

    let markdown = energy(
        &["events", "drift", "--format", "markdown", "--top", "0"],
        Some(stream.as_bytes()),
    );
    let md = String::from_utf8_lossy(&markdown.stdout);
    assert!(md.starts_with("# Drift report\n"), "{md}");
    assert!(
        md.contains("| 12 | 6.0 % | approvals.approval.rejected | v1 | `payload.process_data` | null_not_nullable: null where obj is required |"),
        "{md}"
    );
    assert!(md.contains("## Observations"), "{md}");
}

#[test]
fn a_stream_without_drift_exits_0() {
    let lines: String = (0..30)
        .map(|i| {
            format!(
                "{{\"event_type\":\"agreement.updated\",\"version\":\"v2\",\"payload\":{{\"agreement_id\":{i},\"changes\":{{}},\"is_override\":false,\"account_number\":\"A-{i:08}\"}}}}\n"
            )
        })
        .collect();
    let output = energy(&["events", "drift"], Some(lines.as_bytes()));
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stdout)
    );
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(stdout.contains("0 drift findings"), "{stdout}");
}

#[test]
fn bad_input_and_usage_exit_2_saying_what_and_where() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let missing = dir.path().join("nowhere.ndjson");
    let output = energy(&["events", "drift", missing.to_str().unwrap_or("")], None);
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("cannot read") && stderr.contains("nowhere.ndjson"),
        "{stderr}"
    );

    let mut broken = gzip(injected_stream().as_bytes());
    broken.truncate(broken.len() / 2);
    let gz = write(dir.path(), "cut.ndjson.gz", &broken);
    let output = energy(&["events", "drift", &gz], None);
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("cut.ndjson.gz` (gzip) after line"),
        "{stderr}"
    );

    let output = energy(&["events", "drift", "--threshold", "1.5", "-"], Some(b""));
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("not a share between 0 and 1"));
}

#[test]
fn hostile_lines_are_counted_never_a_crash() {
    let deep_unknown = format!(
        r#"{{"event_type":"agreement.updated","version":"v2","payload":{{"agreement_id":1,"changes":{{}},"account_number":"A-1","x":{}1{}}}}}"#,
        "[".repeat(500),
        "]".repeat(500)
    );
    let deep_free_form = format!(
        r#"{{"event_type":"agreement.updated","version":"v2","payload":{{"agreement_id":1,"changes":{},"account_number":"A-1"}}}}"#,
        "{\"a\":".repeat(300) + "1" + &"}".repeat(300)
    );
    let many_members: String = (0..50_000).map(|i| format!(r#","m{i}":{i}"#)).collect();
    let wide = format!(
        r#"{{"event_type":"agreement.updated","version":"v2","payload":{{"agreement_id":1,"changes":{{}},"account_number":"A-1"{many_members}}}}}"#
    );
    let long_string = format!(
        r#"{{"event_type":"agreement.updated","version":"v2","payload":{{"agreement_id":1,"changes":{{}},"account_number":"{}"}}}}"#,
        "A".repeat(3 << 20)
    );
    let mut stream = Vec::new();
    for line in [
        deep_unknown.as_str(),
        deep_free_form.as_str(),
        wide.as_str(),
        long_string.as_str(),
    ] {
        stream.extend_from_slice(line.as_bytes());
        stream.push(b'\n');
    }
    stream.extend_from_slice(b"{\"event_type\":\"agreement.updated\",\"version\":\"v2\",\"payload\":{\"agreement_id\":1,\"changes\":{},\"account_number\":\"A-\xff\"}}\n");
    stream.extend_from_slice(b"\0\0\0\n{\"event_type\":\"agreement.updated\",\"version\":\"v2\",\"payload\":{\"agreement_id\":1,\"agreement_id\":2}}\n");
    let output = energy(&["events", "drift", "--format", "json", "-"], Some(&stream));
    assert_eq!(
        output.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let report = json(&output);
    // Nesting beyond serde_json's 128 levels: not JSON, as `validate` says.
    let malformed = finding(&report, None, "", "malformed_json");
    assert_eq!(malformed["lines"], serde_json::json!([1, 2, 5, 6, 7]));
    let too_long = finding(&report, None, "", "bad_envelope");
    assert_eq!(too_long["lines"], serde_json::json!([4]));
    // 50,000 undeclared members: 64 tracked for the payload's path (one of them the `x` of line 1,
    // which was not counted: its line is not JSON), the rest counted as dropped.
    let tracked = report["findings"]
        .as_array()
        .map(|all| all.iter().filter(|f| f["kind"] == "unknown_member").count());
    assert_eq!(tracked, Some(63));
    assert_eq!(report["dropped"]["members"], 50_000 - 63);
    assert_eq!(report["events"], 1);
}

/// `--profile` writes the traffic profile of what was read: the fewest versions carrying the share
/// asked for, most events first, in a file the generator then reads (and compiles those versions per
/// type); `--profile-versions` caps the count, and a count of 0 is a usage error.
#[test]
fn the_profile_names_the_versions_that_carry_the_traffic_and_the_generator_reads_it() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let stream = write(dir.path(), "day.ndjson", injected_stream().as_bytes());
    let schema = dir.path().join("schema");
    energy_testkit::copy_tree(&energy_testkit::workspace().join("schema"), &schema);
    let profile = schema.join("traffic.profile");
    let _ = std::fs::remove_file(&profile);
    let path = profile.to_str().expect("a UTF-8 path");

    // `energy events drift STREAM --profile PATH` with `extra` arguments, and the profile written.
    let drift_profile = |extra: &[&str]| {
        let mut args = vec!["events", "drift", stream.as_str(), "--profile", path];
        args.extend_from_slice(extra);
        let output = energy(&args, None);
        let text = std::fs::read_to_string(&profile).expect("the profile is written");
        (output, text)
    };

    // 200 rejections and 100 postings: two thirds of the events are one version.
    let (output, text) = drift_profile(&["--profile-share", "0.6"]);
    assert_eq!(
        output.status.code(),
        Some(1),
        "the stream has drift: the report's status stands"
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("profile: 1 versions carry 200 of"),
        "{stderr}"
    );
    assert!(
        text.starts_with(&format!(
            "# @generated by `energy events drift --profile {path} --profile-share 0.6`."
        )),
        "{text}"
    );
    assert!(
        text.contains("  - { event: approvals.approval.rejected, version: v1, events: 200 }\n"),
        "{text}"
    );
    assert!(!text.contains("billing.ledger.entry_posted"), "{text}");
    let model =
        energy_codegen::build_model(&schema).unwrap_or_else(|f| panic!("{}", f.render(false)));
    assert!(
        model
            .compiled
            .versions
            .contains("approvals.approval.rejected.v1")
    );
    assert_eq!(model.compiled.versions.len(), 1);

    // The default share, 90 %: both versions; capped at one, the most events first.
    let (_, text) = drift_profile(&[]);
    let rejected = text
        .find("approvals.approval.rejected")
        .expect("rejections profiled");
    let posted = text
        .find("billing.ledger.entry_posted")
        .expect("postings profiled");
    assert!(rejected < posted, "most events first: {text}");
    let (_, text) = drift_profile(&["--profile-versions", "1"]);
    assert!(text.contains("approvals.approval.rejected"), "{text}");
    assert!(!text.contains("billing.ledger.entry_posted"), "{text}");

    let (output, _) = drift_profile(&["--profile-versions", "0"]);
    assert_eq!(output.status.code(), Some(2));
    let (output, _) = drift_profile(&["--profile-share", "2"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("not a share between 0 and 1"));
}
