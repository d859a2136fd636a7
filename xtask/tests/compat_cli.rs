//! `cargo xtask compat` as a schema author runs it, on a scratch copy of the real schema: clean, then a
//! published version broken, against the baseline and against a git revision; every output format; the
//! exit codes (0, 1 when something is an error, 2 when the check cannot run).

use energy_testkit::{copy_tree, workspace};
use std::path::Path;
use std::process::{Command, Output};

fn xtask(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_xtask"))
        .current_dir(dir)
        // `cargo xtask` sets it; the binary locates the workspace from it.
        .env("CARGO_MANIFEST_DIR", workspace().join("xtask"))
        .args(args)
        .output()
        .expect("xtask runs")
}

/// A scratch copy of the real schema with its published baseline.
fn scratch_schema() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    copy_tree(&workspace().join("schema"), &dir.path().join("schema"));
    dir
}

const AGREEMENTS: &str = "schema/events/agreements-and-approvals.yaml";
/// `agreement.updated` v2 as published: the v1 fields plus a required account number.
const V2_FIELDS: &str = "        description: The v1 fields plus the account number (required).\n        extends: v1\n        fields: {account_number: str}\n";

fn break_agreement_updated_v2(root: &Path) {
    let path = root.join(AGREEMENTS);
    let text = std::fs::read_to_string(&path).unwrap();
    assert_eq!(text.matches(V2_FIELDS).count(), 1);
    let broken = text.replace(
        V2_FIELDS,
        &V2_FIELDS.replace("{account_number: str}", "{account_id: str}"),
    );
    std::fs::write(path, broken).unwrap();
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

#[test]
fn a_published_version_broken_fails_against_the_baseline() {
    let dir = scratch_schema();
    let clean = xtask(dir.path(), &["compat", "--schema", "schema"]);
    assert_eq!(clean.status.code(), Some(0), "{}", stdout(&clean));
    assert!(
        stdout(&clean).contains("compat: 0 errors"),
        "{}",
        stdout(&clean)
    );

    break_agreement_updated_v2(dir.path());
    let run = xtask(dir.path(), &["compat", "--schema", "schema"]);
    assert_eq!(run.status.code(), Some(1));
    let text = stdout(&run);
    assert!(
        text.contains("error[field-removed-required]: required field `account_number` removed from `agreement.updated` v2"),
        "{text}"
    );
    assert!(text.contains("error[field-added-required]: required field `account_id` added to `agreement.updated` v2"), "{text}");
    // The added field where it is written now, the removed one where the baseline has it.
    assert!(
        text.contains("--> schema/events/agreements-and-approvals.yaml:38:18"),
        "{text}"
    );
    assert!(text.contains("--> schema/published.lock:531:13"), "{text}");
    assert!(text.contains("counterexample (forward)"), "{text}");
    assert!(text.contains("energy-api needs a major release"), "{text}");
}

#[test]
fn a_published_version_broken_fails_against_a_revision() {
    let dir = scratch_schema();
    let git = |args: &[&str]| {
        let status = Command::new("git")
            .current_dir(dir.path())
            .args(args)
            .env("GIT_AUTHOR_NAME", "t")
            .env("GIT_AUTHOR_EMAIL", "t@example.com")
            .env("GIT_COMMITTER_NAME", "t")
            .env("GIT_COMMITTER_EMAIL", "t@example.com")
            .status()
            .expect("git runs");
        assert!(status.success(), "git {args:?}");
    };
    git(&["init", "-q"]);
    git(&["add", "schema"]);
    git(&["commit", "-q", "-m", "published"]);
    break_agreement_updated_v2(dir.path());
    let run = xtask(
        dir.path(),
        &["compat", "--schema", "schema", "--against", "HEAD"],
    );
    assert_eq!(
        run.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let text = stdout(&run);
    assert!(text.contains("error[field-removed-required]"), "{text}");
    // The old place is in the revision's file.
    assert!(
        text.contains("--> HEAD:schema/events/agreements-and-approvals.yaml:38:18"),
        "{text}"
    );

    let bad = xtask(
        dir.path(),
        &["compat", "--schema", "schema", "--against", "no-such-rev"],
    );
    assert_eq!(bad.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&bad.stderr)
            .contains("`no-such-rev` is not a revision of this repository"),
        "{}",
        String::from_utf8_lossy(&bad.stderr)
    );
}

#[test]
fn findings_as_json_lines_and_as_a_changelog() {
    let dir = scratch_schema();
    break_agreement_updated_v2(dir.path());
    let json = xtask(
        dir.path(),
        &["compat", "--schema", "schema", "--format", "json"],
    );
    assert_eq!(json.status.code(), Some(1));
    let lines: Vec<serde_json::Value> = stdout(&json)
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON object per line"))
        .collect();
    let removed = lines
        .iter()
        .find(|f| f["rule"] == "field-removed-required")
        .expect("the removed field");
    for key in [
        "rule",
        "severity",
        "direction",
        "event",
        "version",
        "path",
        "message",
        "old",
        "new",
        "fingerprint",
        "semver",
        "counterexample",
    ] {
        assert!(removed.get(key).is_some(), "{key} in {removed}");
    }
    assert_eq!(removed["severity"], "error");
    assert_eq!(removed["direction"], "forward");
    assert_eq!(removed["event"], "agreement.updated");
    assert_eq!(removed["version"], "v2");
    assert_eq!(removed["path"], "account_number");
    assert_eq!(removed["old"]["file"], "schema/published.lock");
    assert_eq!(removed["old"]["value"], "required string");
    assert_eq!(removed["fingerprint"].as_str().map(str::len), Some(16));
    // The fingerprint is stable: the same finding, the same run or not.
    let again = xtask(
        dir.path(),
        &["compat", "--schema", "schema", "--format", "json"],
    );
    assert_eq!(stdout(&again), stdout(&json));

    let markdown = xtask(
        dir.path(),
        &["compat", "--schema", "schema", "--format", "markdown"],
    );
    let text = stdout(&markdown);
    assert!(text.starts_with("# Interface changes\n"), "{text}");
    assert!(text.contains("\n## Agreements and approvals\n"), "{text}");
    assert!(text.contains("- **error** `field-removed-required`: required field `account_number` removed from `agreement.updated` v2: it breaks a consumer (`crm-timeline`, which reads it) (breaks forward compatibility; semver major; read by `crm-timeline`)."), "{text}");
}

/// The example contracts of `schema/consumers/`: `--format json` names them on each finding,
/// `--consumers` tells who reads what, and `--consumers-only` lets a break nobody reads pass.
#[test]
fn consumer_contracts_on_the_command_line() {
    let dir = scratch_schema();
    break_agreement_updated_v2(dir.path());
    let json = xtask(
        dir.path(),
        &["compat", "--schema", "schema", "--format", "json"],
    );
    let lines: Vec<serde_json::Value> = stdout(&json)
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON object per line"))
        .collect();
    let consumers = |rule: &str| {
        lines
            .iter()
            .find(|f| f["rule"] == rule)
            .map(|f| f["consumers"].clone())
    };
    // `crm-timeline` reads `/account_number`, not the new field.
    assert_eq!(
        consumers("field-removed-required"),
        Some(serde_json::json!(["crm-timeline"]))
    );
    assert_eq!(
        consumers("field-added-required"),
        Some(serde_json::json!([]))
    );
    // The added required field breaks no registered consumer; the removed one still breaks one.
    let only = xtask(
        dir.path(),
        &["compat", "--schema", "schema", "--consumers-only"],
    );
    assert_eq!(only.status.code(), Some(1), "{}", stdout(&only));
    assert!(
        stdout(&only).contains("compat: 1 error, 0 warnings, 1 note"),
        "{}",
        stdout(&only)
    );

    // A required field removed from an event type no contract reads passes with --consumers-only.
    let dir = scratch_schema();
    let path = dir.path().join(AGREEMENTS);
    let text = std::fs::read_to_string(&path).unwrap();
    let from = "fields: {approval_id: str, process_type: str, process_data: obj, approved_at: str}";
    assert_eq!(text.matches(from).count(), 1);
    std::fs::write(
        &path,
        text.replace(
            from,
            "fields: {approval_id: str, process_data: obj, approved_at: str}",
        ),
    )
    .unwrap();
    let strict = xtask(dir.path(), &["compat", "--schema", "schema"]);
    assert_eq!(strict.status.code(), Some(1), "{}", stdout(&strict));
    assert!(
        stdout(&strict).contains("breaks no registered consumer"),
        "{}",
        stdout(&strict)
    );
    let only = xtask(
        dir.path(),
        &["compat", "--schema", "schema", "--consumers-only"],
    );
    assert_eq!(only.status.code(), Some(0), "{}", stdout(&only));

    let table = xtask(dir.path(), &["compat", "--schema", "schema", "--consumers"]);
    assert_eq!(table.status.code(), Some(0));
    let text = stdout(&table);
    let row = text
        .lines()
        .find(|l| l.starts_with("agreement.created "))
        .unwrap_or_else(|| panic!("a row of agreement.created:\n{text}"));
    assert!(row.ends_with("crm-timeline"), "{row}");
    assert!(
        text.contains("versions read by a registered consumer;"),
        "{text}"
    );
    let json = xtask(
        dir.path(),
        &[
            "compat",
            "--schema",
            "schema",
            "--consumers",
            "--format",
            "json",
        ],
    );
    let first: serde_json::Value =
        serde_json::from_str(stdout(&json).lines().next().expect("a line")).unwrap();
    assert!(first.get("consumers").is_some(), "{first}");
}

#[test]
fn a_missing_baseline_cannot_run() {
    let dir = scratch_schema();
    std::fs::remove_file(dir.path().join("schema/published.lock")).unwrap();
    let run = xtask(dir.path(), &["compat", "--schema", "schema"]);
    assert_eq!(run.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(
        stderr.contains("cannot read the published baseline"),
        "{stderr}"
    );
    assert!(stderr.contains("cargo xtask compat --publish"), "{stderr}");
}

#[test]
fn publishing_adds_new_versions_and_freezes_their_golden_payloads() {
    let dir = scratch_schema();
    let path = dir.path().join(AGREEMENTS);
    let text = std::fs::read_to_string(&path).unwrap();
    let with_v3 = text.replace(
        V2_FIELDS,
        &format!(
            "{V2_FIELDS}      v3:\n        extends: v2\n        fields: {{changed_by: str}}\n"
        ),
    );
    std::fs::write(&path, with_v3).unwrap();
    let golden = dir.path().join("golden");
    let check = xtask(dir.path(), &["compat", "--schema", "schema"]);
    assert_eq!(check.status.code(), Some(0));
    assert!(
        stdout(&check).contains("info[version-added]: new version `v3` of `agreement.updated`"),
        "{}",
        stdout(&check)
    );
    let publish = xtask(
        dir.path(),
        &[
            "compat",
            "--schema",
            "schema",
            "--publish",
            "--golden",
            golden.to_str().unwrap(),
        ],
    );
    assert_eq!(
        publish.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&publish.stderr)
    );
    assert!(String::from_utf8_lossy(&publish.stderr).contains("published: 1 version(s) added"));
    let frozen = golden.join("agreement.updated.v3.json");
    let first = std::fs::read_to_string(&frozen).expect("golden payloads of v3");
    assert!(first.contains("\"changed_by\""), "{first}");
    // Published now: v3 is frozen like the others, and its golden file is never rewritten.
    let again = xtask(
        dir.path(),
        &[
            "compat",
            "--schema",
            "schema",
            "--publish",
            "--golden",
            golden.to_str().unwrap(),
        ],
    );
    assert!(String::from_utf8_lossy(&again.stderr).contains("published: 0 version(s) added"));
    assert_eq!(std::fs::read_to_string(&frozen).unwrap(), first);
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::write(
        &path,
        text.replace("fields: {changed_by: str}", "fields: {changed_by: int}"),
    )
    .unwrap();
    let broken = xtask(dir.path(), &["compat", "--schema", "schema"]);
    assert_eq!(broken.status.code(), Some(1));
    assert!(
        stdout(&broken).contains("error[field-type-changed]"),
        "{}",
        stdout(&broken)
    );
}
