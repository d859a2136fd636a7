//! `energy events validate`, run as the real binary: its report on a fixture stream that mixes valid events
//! of several domains, every error kind, blank lines and a very long line (snapshots), its exit status,
//! standard input, and streams no line of which can make it fail.

use std::io::Write;
use std::path::PathBuf;
use std::process::{Output, Stdio};

fn fixture(name: &str) -> PathBuf {
    energy_testkit::fixture_path(&format!("events/{name}"))
}

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
        // The binary may stop reading early (a usage error); a closed pipe is fine.
        let _ = pipe.write_all(input);
    }
    child
        .wait_with_output()
        .expect("the energy binary finishes")
}

/// Exit status, standard output and standard error, as one text to snapshot.
fn transcript(output: &Output) -> String {
    format!(
        "exit status: {:?}\n--- stdout\n{}--- stderr\n{}",
        output.status.code(),
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

fn reports(output: &Output) -> Vec<serde_json::Value> {
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(|line| serde_json::from_str(line).unwrap_or_else(|e| panic!("{line}: {e}")))
        .collect()
}

#[test]
fn report_on_a_mixed_stream() {
    let file = fixture("mixed.ndjson");
    let output = energy(
        &[
            "events",
            "validate",
            file.to_str().unwrap(),
            "--max-line-bytes",
            "4096",
        ],
        None,
    );
    insta::assert_snapshot!(transcript(&output));
}

#[test]
fn report_on_a_mixed_stream_strict_and_allowing_unknown_events() {
    let file = fixture("mixed.ndjson");
    let output = energy(
        &[
            "events",
            "validate",
            file.to_str().unwrap(),
            "--strict",
            "--allow-unknown",
            "--max-line-bytes",
            "4096",
        ],
        None,
    );
    insta::assert_snapshot!(transcript(&output));
}

#[test]
fn standard_input_gives_the_same_report_as_the_file() {
    let file = fixture("mixed.ndjson");
    let bytes = std::fs::read(&file).unwrap();
    let from_file = energy(&["events", "validate", file.to_str().unwrap()], None);
    let from_dash = energy(&["events", "validate", "-"], Some(&bytes));
    let from_nothing = energy(&["events", "validate"], Some(&bytes));
    assert_eq!(from_file.stdout, from_dash.stdout);
    assert_eq!(from_file.stdout, from_nothing.stdout);
    assert_eq!(from_file.status.code(), Some(1));
    // With the default limit (1 MiB), the 5 KB line is an event like any other.
    let long_line = reports(&from_file)
        .into_iter()
        .find(|r| r["line"] == 20)
        .unwrap();
    assert_eq!(long_line["ok"], true, "{long_line}");
}

#[test]
fn exit_status_is_0_when_every_line_is_valid() {
    let valid: Vec<&str> = include_str!("../../tests/fixtures/events/mixed.ndjson")
        .lines()
        .take(8)
        .collect();
    let output = energy(
        &["events", "validate", "--strict"],
        Some(valid.join("\n").as_bytes()),
    );
    assert_eq!(output.status.code(), Some(0), "{}", transcript(&output));
    assert_eq!(reports(&output).len(), 7);
    assert_eq!(
        String::from_utf8_lossy(&output.stderr),
        "energy events validate: 7 events checked: 7 valid, 0 invalid; 1 blank line skipped\n"
    );

    let empty = energy(&["events", "validate", "-"], Some(b""));
    assert_eq!(empty.status.code(), Some(0));
    assert!(empty.stdout.is_empty());
}

#[test]
fn usage_and_io_errors_exit_with_2() {
    let missing = energy(&["events", "validate", "/no/such/stream.ndjson"], None);
    assert_eq!(missing.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&missing.stderr)
            .starts_with("error: cannot read `/no/such/stream.ndjson`: "),
        "{}",
        transcript(&missing)
    );
    let folder = energy(&["events", "validate", env!("CARGO_MANIFEST_DIR")], None);
    assert_eq!(folder.status.code(), Some(2), "{}", transcript(&folder));
    for args in [
        &["events", "validate", "--strcit"][..],
        &["events", "validate", "--max-line-bytes", "0"],
        &["events", "validate", "--max-line-bytes", "lots"],
        &["events", "check"],
        &["events"],
        &[],
    ] {
        let output = energy(args, Some(b""));
        assert_eq!(
            output.status.code(),
            Some(2),
            "{args:?}: {}",
            transcript(&output)
        );
        assert!(output.stdout.is_empty());
    }
    let help = energy(&["events", "validate", "--help"], None);
    assert_eq!(help.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&help.stdout).contains("--allow-unknown"));
}

#[test]
fn a_line_over_the_limit_is_reported_without_stopping_the_stream() {
    let valid =
        r#"{"event_type": "agreement.revoked", "version": "v1", "payload": {"agreement_id": 1}}"#;
    let huge = format!(
        r#"{{"event_type": "agreement.revoked", "version": "v1", "payload": {{"agreement_id": 1, "note": "{}"}}}}"#,
        "x".repeat(3 << 20)
    );
    let input = format!("{valid}\n{huge}\n{valid}");
    let output = energy(&["events", "validate"], Some(input.as_bytes()));
    let reports = reports(&output);
    assert_eq!(reports.len(), 3);
    assert_eq!(reports[0]["ok"], true);
    assert_eq!(reports[1]["ok"], false);
    assert_eq!(reports[1]["error"]["kind"], "bad_envelope");
    assert_eq!(
        reports[1]["error"]["message"],
        format!(
            "line of {} bytes is longer than the limit of 1048576 bytes (--max-line-bytes); not decoded",
            huge.len()
        )
    );
    assert_eq!(reports[2]["ok"], true, "the line after it is read as usual");
    assert_eq!(output.status.code(), Some(1));
}

/// Bytes no stream should contain: each line gets its report, the run its summary, and no panic.
#[test]
fn hostile_lines_are_reported_one_by_one() {
    let mut input: Vec<u8> = Vec::new();
    let lines: Vec<Vec<u8>> = vec![
        b"\xff\xfe\x00\x01".to_vec(),
        b"{\"event_type\": \"agreement.revoked\", \"version\": \"v1\", \"payload\": {\"agreement_id\": \"\xc3\x28\"}}".to_vec(),
        format!("{}{}", "[".repeat(100_000), "]".repeat(100_000)).into_bytes(),
        format!(r#"{{"event_type": "agreement.updated", "version": "v1", "payload": {{"agreement_id": 1, "changes": {}1{}}}}}"#, r#"{"a":"#.repeat(10_000), "}".repeat(10_000)).into_bytes(),
        br#"{"event_type": "agreement.revoked", "version": "v1", "payload": {"agreement_id": 99999999999999999999999}}"#.to_vec(),
        br#"{"event_type": "agreement.revoked", "version": "v1", "payload": {"agreement_id": 1, "agreement_id": 2}}"#.to_vec(),
        br#"{"event_type": "agreement.revoked", "version": "v1", "payload": {"agreement_id": 1"#.to_vec(),
        b"\r".to_vec(),
        b"\x00".to_vec(),
        br#"{"event_type": "", "version": "", "payload": {}}"#.to_vec(),
    ];
    for line in &lines {
        input.extend_from_slice(line);
        input.push(b'\n');
    }
    let output = energy(&["events", "validate", "--strict"], Some(&input));
    assert_eq!(output.status.code(), Some(1), "{}", transcript(&output));
    let kinds: Vec<(u64, String)> = reports(&output)
        .iter()
        .map(|r| {
            (
                r["line"].as_u64().unwrap_or(0),
                r["error"]["kind"].as_str().unwrap_or("ok").to_owned(),
            )
        })
        .collect();
    let expected: Vec<(u64, String)> = [
        (1, "malformed_json"),
        (2, "malformed_json"),
        // Not an object: that is seen at the first byte, before any depth.
        (3, "bad_envelope"),
        (4, "malformed_json"),
        (5, "invalid_type"),
        (6, "malformed_json"),
        (7, "malformed_json"),
        (9, "malformed_json"),
        (10, "unknown_event_type"),
    ]
    .iter()
    .map(|(n, k)| (*n, (*k).to_owned()))
    .collect();
    assert_eq!(kinds, expected);
    assert!(String::from_utf8_lossy(&output.stderr).ends_with("; 1 blank line skipped\n"));
}
