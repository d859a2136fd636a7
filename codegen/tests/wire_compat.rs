//! Our compatibility verdicts beside the ecosystems' own checkers (issue 45): each event case of schema
//! evolution (`support::compat_cases`: a published schema edited as an author would) is judged by
//! `cargo xtask compat` (forward and backward), by the Apache `avro` package's reader/writer
//! compatibility on the `.avsc` of every version the two sides share (both ways), and by `buf breaking`
//! on the `.proto` files (the edited side against the published one, and the reverse), with
//! `buf.yaml`'s rules (`WIRE_JSON`). The forward direction is an old reader on new data (Avro: the old
//! schema reading what the new one wrote), the backward one the reverse.
//!
//! The table this makes is the one in `docs/evolution.md` (between its `wire-compat` markers), and
//! must stay so: where the checkers agree, the table holds it; where they differ, [`WHY`] says why, a
//! disagreement without a reason fails, and so does a reason for an agreement.

mod support;

use energy_codegen::compat::{self, Baseline, Readers};
use energy_codegen::emit::{avro, protobuf};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use support::compat_cases::{CASES, Case, REST, TODAY};

/// Why a case's verdicts differ, by case: each disagreement of the table has one, and only those.
const WHY: &[(&str, &str)] = &[
    (
        "field-removed-required",
        "buf: proto3 has no required fields; the field's number and name are reserved, and either side leaves unset what it lacks (Avro and ours: old readers need the field)",
    ),
    (
        "field-added-required",
        "buf: proto3 has no required fields, so a new field breaks nothing on its wire (Avro and ours: new readers need the field in old data)",
    ),
    (
        "field-optional-to-required",
        "buf: every singular field has explicit presence (`optional`) already, so the wire and JSON forms do not change (Avro, `[\"null\", T]` to `T`, and ours: new readers need the field)",
    ),
    (
        "field-required-to-optional",
        "buf: explicit presence already, the wire and JSON forms do not change (Avro and ours: old readers need the field)",
    ),
    (
        "named-type-to-obj-widens",
        "Avro: a free-form object is a string of JSON text, a record is not, so neither reads the other; ours: a reader of `obj` takes any object (backward reads)",
    ),
    (
        "obj-to-named-type-narrows",
        "Avro: a string of JSON text becomes a record, neither reads the other; ours: an object a new reader reads is still an object to an old one (forward reads)",
    ),
    (
        "obj-to-map-narrows",
        "Avro: a string of JSON text becomes a `map`, neither reads the other; ours: a map is still an object to an old reader (forward reads)",
    ),
    (
        "shared-type-field-optional-propagates",
        "buf: explicit presence already, no change on the wire (Avro and ours: old readers need the field)",
    ),
    (
        "shared-type-no-event-uses",
        "ours and Avro: no event payload holds the type (ours reports it against the type, not an event; no `.avsc` has it); buf: `types.proto` has every shared type, and its field changed type",
    ),
    (
        "event-type-removed",
        "a version is a subject of its own (an `.avsc`, a message): Avro has nothing to compare once it is gone, and WIRE_JSON does not forbid deleting a message; ours: retained and replayed payloads of it no longer decode (backward)",
    ),
    (
        "version-removed",
        "as event-type-removed: the version's subject is gone, Avro and buf compare nothing",
    ),
    ("version-removed-before-its-sunset", "as version-removed"),
    (
        "version-removed-after-its-sunset",
        "as version-removed (ours: an info after the sunset, the backward break still shown)",
    ),
    (
        "event-type-renamed",
        "the payload's schemas do not change, only their subjects' names: Avro and buf see a subject added and one removed; ours: old consumers do not know the new name (forward)",
    ),
    (
        "event-type-renamed-with-a-waiver",
        "as event-type-renamed; the waiver makes ours an info",
    ),
    (
        "waiver-on-a-shared-type",
        "buf: explicit presence already, no change on the wire; Avro and ours: old readers need the field (ours: waived, an info, and `avro-field-type-changed` an error)",
    ),
    (
        "protobuf-field-renumbered",
        "Avro pairs fields by name and its `.avsc` does not change; ours and buf: a number is the field on the Protobuf wire",
    ),
];

/// One case's verdicts.
struct Row {
    case: &'static str,
    /// Ours: old readers read new payloads, new readers read old payloads; the errors reported.
    ours: (bool, bool, usize),
    /// Avro over the versions both sides have: (backward, forward), or none to compare.
    avro: Option<(bool, bool)>,
    /// `buf breaking` new against old, old against new: passes.
    buf: (bool, bool),
    /// The subjects (versions) only one side has.
    subjects: String,
}

fn scratch() -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("wire-compat")
}

fn tool(relative: &str) -> PathBuf {
    let path = energy_testkit::workspace()
        .join("tools/validators")
        .join(relative);
    assert!(
        path.is_file(),
        "{} is missing: run `cargo xtask test` (which installs the pinned tools into tools/validators/)",
        path.display()
    );
    path
}

/// A schema folder's Avro and Protobuf files, written under `out`; its model built with the baseline
/// beside it (the Protobuf field numbers).
fn write_formats(schema: &Path, out: &Path) {
    let model = energy_codegen::build_model(schema)
        .map_err(|f| f.render(false))
        .expect("the schema builds");
    let _ = std::fs::remove_dir_all(out);
    for files in [avro::emit(&model), protobuf::emit(&model)] {
        for (path, text) in files.expect("emitted") {
            let path = out.join(path);
            std::fs::create_dir_all(path.parent().expect("a folder")).expect("folder");
            std::fs::write(path, text).expect("written");
        }
    }
}

/// `buf breaking` of the Protobuf folder `new` against `old`: passes, or the rules it names.
fn buf_breaking(new: &Path, old: &Path) -> (bool, String) {
    let output = Command::new(tool("node_modules/.bin/buf"))
        .arg("breaking")
        .arg(new)
        .arg("--against")
        .arg(old)
        .env("BUF_CACHE_DIR", scratch().join("buf-cache"))
        .output()
        .expect("buf runs");
    let text = String::from_utf8_lossy(&output.stdout).into_owned()
        + &String::from_utf8_lossy(&output.stderr);
    (output.status.success(), text)
}

/// The Apache `avro` package's verdicts on the Avro folders.
fn avro_compat(old: &Path, new: &Path) -> Vec<serde_json::Value> {
    let output = Command::new(tool(".venv/bin/python"))
        .arg(tool("wire_formats.py"))
        .arg("avro-compat")
        .arg(old)
        .arg(new)
        .output()
        .expect("python runs");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect()
}

fn judge(case: &'static Case, base: &Path, lock: &Path) -> Row {
    let dir = scratch().join("cases").join(case.name);
    let schema = dir.join("schema");
    support::compat_cases::write_edited_with_lock(case, &schema, Some(lock));
    let report = compat::check(&schema, Baseline::Lock(lock), TODAY, Readers::Anyone)
        .map_err(|f| f.render(false))
        .expect("the case is checked");
    let event_findings: Vec<_> = report
        .findings
        .iter()
        .filter(|f| matches!(f.subject, compat::Subject::Event { .. }))
        .collect();
    let ours = (
        event_findings.iter().all(|f| f.forward.reads()),
        event_findings.iter().all(|f| f.backward.reads()),
        report.errors(),
    );
    write_formats(&schema, &dir.join("formats"));
    let old = base.join("formats");
    let new = dir.join("formats");
    let mut shared = Vec::new();
    let mut only = Vec::new();
    for line in avro_compat(&old.join(avro::DIR), &new.join(avro::DIR)) {
        match line["only"].as_str() {
            Some(side) => only.push(format!(
                "{} only {side}",
                line["subject"].as_str().unwrap_or_default()
            )),
            None => shared.push((
                line["backward"].as_bool().unwrap_or(false),
                line["forward"].as_bool().unwrap_or(false),
            )),
        }
    }
    let avro =
        (!shared.is_empty()).then(|| (shared.iter().all(|v| v.0), shared.iter().all(|v| v.1)));
    let buf = (
        buf_breaking(&new.join(protobuf::DIR), &old.join(protobuf::DIR)).0,
        buf_breaking(&old.join(protobuf::DIR), &new.join(protobuf::DIR)).0,
    );
    Row {
        case: case.name,
        ours,
        avro,
        buf,
        subjects: only.join(", "),
    }
}

fn yes(b: bool) -> &'static str {
    if b { "reads" } else { "breaks" }
}

/// The registry compatibility mode a change passes, from its two verdicts.
fn mode(forward: bool, backward: bool) -> &'static str {
    match (forward, backward) {
        (true, true) => "FULL",
        (false, true) => "BACKWARD",
        (true, false) => "FORWARD",
        (false, false) => "NONE",
    }
}

/// Whether the three agree: Avro's two directions are ours, and `buf breaking` of the edit (new against
/// old) passes exactly when ours reads both ways. (`buf breaking` old against new judges the edit undone:
/// shown, not compared: undoing an addition deletes a field without reserving its number, which buf
/// refuses and no reader minds.)
fn agrees(row: &Row) -> bool {
    let (forward, backward, _) = row.ours;
    let avro = row.avro.is_none_or(|(b, f)| (b, f) == (backward, forward));
    avro && row.buf.0 == (forward && backward)
}

fn table(rows: &[Row]) -> String {
    let why: BTreeMap<&str, &str> = WHY.iter().copied().collect();
    let mut out = String::from(
        "| edit (case) | ours: forward / backward (registry mode) | Avro: forward / backward | `buf breaking`: edit / edit undone | agree (why not) |\n|---|---|---|---|---|\n",
    );
    for row in rows {
        let (forward, backward, _) = row.ours;
        let avro = match row.avro {
            Some((b, f)) => format!("{} / {}", yes(f), yes(b)),
            None => "—".to_owned(),
        };
        let avro = if row.subjects.is_empty() {
            avro
        } else {
            format!("{avro} ({})", row.subjects)
        };
        let pass = |p: bool| if p { "passes" } else { "fails" };
        out.push_str(&format!(
            "| `{}` | {} / {} ({}) | {avro} | {} / {} | {} |\n",
            row.case,
            yes(forward),
            yes(backward),
            mode(forward, backward),
            pass(row.buf.0),
            pass(row.buf.1),
            match why.get(row.case) {
                Some(reason) if !agrees(row) => format!("no: {reason}"),
                _ => "yes".to_owned(),
            },
        ));
    }
    out
}

#[test]
fn our_verdicts_beside_avro_and_buf_breaking() {
    let base = scratch().join("base");
    let schema = base.join("schema");
    let _ = std::fs::remove_dir_all(&base);
    energy_testkit::copy_tree(&energy_testkit::generator_fixture("compat/base"), &schema);
    let lock = schema.join(compat::LOCK_FILE);
    let (report, _) = compat::publish(&schema, &lock, &base.join("golden"), TODAY)
        .map_err(|f| f.render(false))
        .expect("the base publishes");
    assert_eq!(report.errors(), 0);
    write_formats(&schema, &base.join("formats"));

    let cases: Vec<&'static Case> = CASES
        .iter()
        .filter(|c| c.edits.iter().all(|(file, _, _)| *file != REST))
        .filter(|c| !c.name.starts_with("refactor-") || c.name == "refactor-extends-written-out")
        .collect();
    let rows: Vec<Row> = cases.iter().map(|c| judge(c, &base, &lock)).collect();
    let why: BTreeMap<&str, &str> = WHY.iter().copied().collect();
    let mut problems = Vec::new();
    for row in &rows {
        match (agrees(row), why.get(row.case)) {
            (false, None) => problems.push(format!(
                "{}: the checkers disagree and WHY does not say why",
                row.case
            )),
            (true, Some(_)) => problems.push(format!(
                "{}: the checkers agree, but WHY gives a reason",
                row.case
            )),
            _ => {}
        }
    }
    let rendered = table(&rows);
    let doc = std::fs::read_to_string(energy_testkit::workspace().join("docs/evolution.md"))
        .expect("docs/evolution.md");
    if !doc.contains(&rendered) {
        problems.push(format!(
            "docs/evolution.md does not hold the table as it is now:\n{rendered}"
        ));
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
