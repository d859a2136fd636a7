//! `energy events drift --suggest`: the suggested schema edits, applied as they are written to a copy
//! of `schema/`, then judged by the check `cargo xtask compat` runs (`energy_codegen::compat::check`
//! against the copy's `published.lock`): an optional field is `field-added-optional`, a new version
//! `version-added`, both a minor release, no error.

use energy_codegen::compat::{self, Baseline, Readers};
use serde::Deserialize;
use std::path::{Path, PathBuf};
use std::process::Output;

#[derive(Deserialize)]
struct Suggestions {
    drift_suggestions: u32,
    suggestions: Vec<Suggestion>,
    edits: Vec<Edit>,
    not_suggested: Vec<NotSuggested>,
}

#[derive(Deserialize)]
struct Suggestion {
    event: String,
    version: String,
    change: String,
    suggested: String,
    at: Option<String>,
}

#[derive(Deserialize)]
struct Edit {
    file: String,
    line: usize,
    old: String,
    new: Vec<String>,
}

#[derive(Deserialize)]
struct NotSuggested {
    path: String,
    kind: String,
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("a folder");
    for entry in std::fs::read_dir(from).expect("the schema folder") {
        let entry = entry.expect("an entry");
        let target = to.join(entry.file_name());
        if entry.path().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).expect("a schema file is copied");
        }
    }
}

fn schema_copy(dir: &Path) -> PathBuf {
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("../schema");
    let copy = dir.join("schema");
    copy_dir(&source, &copy);
    copy
}

/// 200 `approvals.approval.rejected` v1 as a producer sends them: `extra(i)` adds to (or replaces
/// members of) the i-th payload.
fn stream(extra: impl Fn(usize) -> (&'static str, String)) -> String {
    (0..200)
        .map(|i| {
            let (data, more) = extra(i);
            format!(
                r#"{{"event_type":"approvals.approval.rejected","version":"v1","id":"evt-{i}","payload":{{"approval_id":"APR-{i:05}","process_type":"TARIFF_CHANGE","process_data":{data},"rejected_at":"2024-03-01T09:{:02}:00Z"{more}}}}}"#,
                i % 60
            ) + "\n"
        })
        .collect()
}

fn drift(dir: &Path, schema: &Path, stream: &str, threshold: &str) -> (Output, Suggestions) {
    let input = dir.join("stream.ndjson");
    std::fs::write(&input, stream).expect("the stream is written");
    let out = dir.join("suggestions.yaml");
    let output = energy_testkit::process::energy_command()
        .args([
            "events",
            "drift",
            "--format",
            "json",
            "--threshold",
            threshold,
            "--suggest",
        ])
        .arg(&out)
        .arg("--schema")
        .arg(schema)
        .arg(&input)
        .output()
        .expect("the energy binary runs");
    let text = std::fs::read_to_string(&out).expect("the suggestions are written");
    let suggestions = serde_saphyr::from_str(&text).unwrap_or_else(|e| panic!("{e}:\n{text}"));
    (output, suggestions)
}

/// Applies the edits as a person would: each `old` line, checked, replaced by its `new` lines.
fn apply(suggestions: &Suggestions) {
    let mut files: Vec<&str> = suggestions.edits.iter().map(|e| e.file.as_str()).collect();
    files.sort();
    files.dedup();
    for file in files {
        let text = std::fs::read_to_string(file).expect("the edited file");
        let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
        let mut edits: Vec<&Edit> = suggestions
            .edits
            .iter()
            .filter(|e| e.file == file)
            .collect();
        edits.sort_by_key(|e| std::cmp::Reverse(e.line));
        for edit in edits {
            assert_eq!(lines[edit.line - 1], edit.old, "{file}:{}", edit.line);
            lines.splice(edit.line - 1..edit.line, edit.new.iter().cloned());
        }
        std::fs::write(file, lines.join("\n") + "\n").expect("the edit is applied");
    }
}

/// The findings of the compat check as (rule, event, version), and its bump and errors.
fn compat(schema: &Path) -> (Vec<(String, String)>, &'static str, usize) {
    let lock = schema.join(compat::LOCK_FILE);
    let report = compat::check(schema, Baseline::Lock(&lock), "2026-11-28", Readers::Anyone)
        .unwrap_or_else(|f| panic!("the edited schema is valid:\n{}", f.render(false)));
    let found = report
        .findings
        .iter()
        .map(|f| (f.rule.id().to_owned(), f.message.clone()))
        .collect();
    (found, report.bump().as_str(), report.errors())
}

#[test]
fn an_undeclared_member_becomes_an_optional_field_that_compat_calls_minor() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let schema = schema_copy(dir.path());
    // `rejection_note` in 30 % of the events; `channel` in one (0.5 %, under the 1 % threshold).
    let events = stream(|i| {
        let mut more = String::new();
        if i % 10 < 3 {
            more.push_str(&format!(
                r#","rejection_note":"Rejected after review #{i}""#
            ));
        }
        if i == 7 {
            more.push_str(r#","channel":"web""#);
        }
        (r#"{"tariff":"FIX-12M"}"#, more)
    });
    let (output, suggestions) = drift(dir.path(), &schema, &events, "0.01");
    assert_eq!(output.status.code(), Some(1), "drift");
    assert_eq!(suggestions.drift_suggestions, 1);
    let [suggestion] = suggestions.suggestions.as_slice() else {
        panic!("one suggestion: {}", suggestions.suggestions.len());
    };
    assert_eq!(
        (
            suggestion.event.as_str(),
            suggestion.version.as_str(),
            suggestion.change.as_str(),
            suggestion.suggested.as_str()
        ),
        (
            "approvals.approval.rejected",
            "v1",
            "optional-field",
            "rejection_note?: str"
        )
    );
    let at = suggestion.at.as_deref().unwrap_or("");
    assert!(
        at.ends_with("events/agreements-and-approvals.yaml:60"),
        "{at}"
    );
    let skipped: Vec<(&str, &str)> = suggestions
        .not_suggested
        .iter()
        .map(|s| (s.path.as_str(), s.kind.as_str()))
        .collect();
    assert_eq!(skipped, [("payload.channel", "unknown_member")]);
    assert_eq!(suggestions.edits.len(), 1);

    apply(&suggestions);
    let (found, bump, errors) = compat(&schema);
    assert_eq!(
        found,
        [(
            "field-added-optional".to_owned(),
            "optional field `rejection_note` added to `approvals.approval.rejected` v1".to_owned()
        )]
    );
    assert_eq!((bump, errors), ("minor", 0));
}

#[test]
fn a_required_field_absent_or_null_becomes_a_new_version_that_compat_calls_minor() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let schema = schema_copy(dir.path());
    // `process_data` null in 12 events (6 %); `rejected_at` absent in 20 (10 %).
    let events = stream(|i| {
        let data = if (100..112).contains(&i) {
            "null"
        } else {
            r#"{"tariff":"FIX-12M"}"#
        };
        (data, String::new())
    })
    .lines()
    .enumerate()
    .map(|(i, line)| {
        if i < 20 {
            line.replace(
                r#","rejected_at":"2024-03-01T09:"#,
                r#","rejected_on":"2024-03-01T09:"#,
            )
        } else {
            line.to_owned()
        }
    })
    .collect::<Vec<_>>()
    .join("\n");
    let (_, suggestions) = drift(dir.path(), &schema, &events, "0.05");
    let changes: Vec<(&str, &str)> = suggestions
        .suggestions
        .iter()
        .map(|s| (s.change.as_str(), s.suggested.as_str()))
        .collect();
    assert_eq!(
        changes,
        [
            ("optional-field", "rejected_on?: str"),
            (
                "new-version",
                "v2: {fields: {approval_id: str, process_type: str, process_data?: obj, rejected_at?: str, rejected_on?: str}}"
            )
        ]
    );
    apply(&suggestions);
    let (found, bump, errors) = compat(&schema);
    let rules: Vec<&str> = found.iter().map(|(rule, _)| rule.as_str()).collect();
    assert_eq!(
        rules,
        ["field-added-optional", "version-added"],
        "{found:#?}"
    );
    assert_eq!((bump, errors), ("minor", 0));
}

#[test]
fn members_of_shared_types_and_of_entries_naming_several_types_are_placed_where_they_are_declared()
{
    let dir = tempfile::tempdir().expect("a temporary folder");
    let schema = schema_copy(dir.path());
    // `lifecycle.join-supplier.cancelled` v1 (declared with three other types in one `names:` entry,
    // on the base JB): a `channel` on every payload, a `meter_serial` on every supply point (the shared
    // type JoinSupplyPoint, in types.yaml).
    let events: String = (0..50)
        .map(|i| {
            format!(
                "{{\"event_type\":\"lifecycle.join-supplier.cancelled\",\"version\":\"v1\",\"payload\":{{\"join_supplier_process_number\":\"JSP-{i}\",\"account_number\":\"A-1B2C3D4E\",\"subtype\":\"CHANGE_OF_SUPPLIER\",\"channel\":\"web\",\"supply_points\":[{{\"external_identifier\":\"2000012345678\",\"market_name\":\"ELECTRICITY\",\"requested_supply_start_date\":\"2024-05-01\",\"meter_serial\":\"E{i}\"}}]}}}}\n"
            )
        })
        .collect();
    let (_, suggestions) = drift(dir.path(), &schema, &events, "0.01");
    let placed: Vec<(&str, &str)> = suggestions
        .suggestions
        .iter()
        .map(|s| (s.suggested.as_str(), s.at.as_deref().unwrap_or("")))
        .collect();
    assert_eq!(placed.len(), 2, "{placed:?}");
    assert!(
        placed[0].0 == "channel?: str" && placed[0].1.ends_with("events/lifecycle-join.yaml:20"),
        "{placed:?}"
    );
    assert!(
        placed[1].0 == "meter_serial?: str" && placed[1].1.ends_with("types.yaml:165"),
        "{placed:?}"
    );
    let edited: Vec<(&str, &str)> = suggestions
        .edits
        .iter()
        .map(|e| (e.old.trim(), e.new[0].trim()))
        .collect();
    assert!(edited.contains(&(
        "fields: {external_identifier: str, market_name: str, requested_supply_start_date: str}",
        "fields: {external_identifier: str, market_name: str, requested_supply_start_date: str, meter_serial?: str}"
    )), "{edited:?}");
    apply(&suggestions);
    let (found, bump, errors) = compat(&schema);
    assert!(
        found.iter().all(|(rule, _)| rule == "field-added-optional"),
        "{found:#?}"
    );
    for event in [
        "lifecycle.join-supplier.cancellation-requested",
        "lifecycle.join-supplier.cancelled",
        "lifecycle.join-supplier.reversal-requested",
        "lifecycle.join-supplier.reversed",
    ] {
        assert!(
            found
                .iter()
                .any(|(_, m)| m.contains("`channel`") && m.contains(event)),
            "{event}: {found:#?}"
        );
    }
    assert!(
        found.iter().any(|(_, m)| m.contains("`meter_serial`")),
        "{found:#?}"
    );
    assert_eq!((bump, errors), ("minor", 0));
}

/// `approvals.approval.rejected` as the catalogue writes it, and the same entry written with comments,
/// anchors, aliases, a merge and a flow mapping over two lines around the edited field, and decoys
/// (a block scalar and comments holding `- name:`, `v1:` and `fields: {…}`) that a reader of lines would
/// take for it.
const REJECTED: &str = "  - name: approvals.approval.rejected
    versions:
      v1:
        fields: {approval_id: str, process_type: str, process_data: obj, rejected_at: str}
";

const REJECTED_DRESSED: &str = "  - name: approvals.approval.rejected  # fields: {decoy: str}
    description: &rejected |
      An approval rejected. It was once written:
      - name: approvals.approval.rejected
        versions:
          v1: {fields: {approval_id: str}}
    versions: # v1: {fields: {}}
      # v1:
      #   fields: {commented_out: str}
      v1:
        <<: &plain {description: *rejected}
        description: *rejected
        fields: {approval_id: str, process_type: str,  # the process, {a: b}
          process_data: obj, \"rejected_at\": str}  # fields: {after: int}
      # a new version goes above this line
";

#[test]
fn edits_are_placed_by_the_generators_reader_among_comments_flow_mappings_and_anchors() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let schema = schema_copy(dir.path());
    let file = schema.join("events/agreements-and-approvals.yaml");
    let original = std::fs::read_to_string(&file).expect("the section");
    assert!(original.contains(REJECTED), "the catalogue's entry moved");
    let dressed = original.replace(REJECTED, REJECTED_DRESSED);
    std::fs::write(&file, &dressed).expect("the dressed section");
    // `rejection_note` in 30 % of the events; `process_data` null in 12 (6 %).
    let events = stream(|i| {
        let data = if (100..112).contains(&i) {
            "null"
        } else {
            r#"{"tariff":"FIX-12M"}"#
        };
        let more = if i % 10 < 3 {
            format!(r#","rejection_note":"Rejected after review #{i}""#)
        } else {
            String::new()
        };
        (data, more)
    });
    let (_, suggestions) = drift(dir.path(), &schema, &events, "0.05");
    let placed: Vec<(&str, &str)> = suggestions
        .suggestions
        .iter()
        .map(|s| (s.change.as_str(), s.at.as_deref().unwrap_or("")))
        .collect();
    let entry_line = dressed
        .lines()
        .position(|l| l.starts_with("  - name: approvals.approval.rejected"))
        .expect("the entry")
        + 1;
    let version_line = entry_line + 9;
    assert_eq!(placed.len(), 2, "{placed:?}");
    assert!(
        placed[0].0 == "optional-field"
            && placed[0].1.ends_with(&format!(
                "events/agreements-and-approvals.yaml:{version_line}"
            )),
        "{placed:?}"
    );
    assert!(
        placed[1].0 == "new-version"
            && placed[1].1.ends_with(&format!(
                "events/agreements-and-approvals.yaml:{entry_line}"
            )),
        "{placed:?}"
    );
    apply(&suggestions);
    let edited = std::fs::read_to_string(&file).expect("the edited section");
    let expected = dressed.replace(
        "          process_data: obj, \"rejected_at\": str}  # fields: {after: int}\n",
        "          process_data: obj, \"rejected_at\": str, rejection_note?: str}  # fields: {after: int}
      v2:
        description: \"What producers send instead of v1: `process_data` null in 6.0 % of the events (suggested by energy events drift; review).\"
        fields: {approval_id: str, process_type: str, process_data?: obj, rejected_at: str, rejection_note?: str}
",
    );
    assert_eq!(edited, expected);
    energy_codegen::build_model(&schema)
        .unwrap_or_else(|f| panic!("the edited schema loads:\n{}", f.render(false)));
    let (found, bump, errors) = compat(&schema);
    let rules: Vec<&str> = found.iter().map(|(rule, _)| rule.as_str()).collect();
    assert_eq!(
        rules,
        ["field-added-optional", "version-added"],
        "{found:#?}"
    );
    assert_eq!((bump, errors), ("minor", 0));
}
