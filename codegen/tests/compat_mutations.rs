//! Schema evolution, case by case: each case edits a copy of a published schema
//! (`tests/fixtures/compat/base/`) the way an author would and asserts exactly what `cargo xtask compat`
//! finds: the rule, the subject, the path, the severity and the direction that breaks. The human message
//! of every case is snapshotted (`tests/snapshots/compat/`).

use energy_codegen::compat::{self, Baseline, Format, Readers, Report};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

mod support;

use compat_cases::{BILLING, CASES, Case, TODAY};
use support::compat_cases;

/// The folder cases write into, under the target folder: paths in messages stay the same on every run.
fn scratch() -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("compat")
}

/// The published baseline of the base schema, written once.
fn baseline() -> &'static Path {
    static LOCK: OnceLock<PathBuf> = OnceLock::new();
    LOCK.get_or_init(|| {
        let dir = scratch().join("published");
        let _ = std::fs::remove_dir_all(&dir);
        energy_testkit::copy_tree(
            &energy_testkit::generator_fixture("compat/base"),
            &dir.join("schema"),
        );
        let lock = dir.join("published.lock");
        let (report, published) =
            compat::publish(&dir.join("schema"), &lock, &dir.join("golden"), TODAY)
                .map_err(|f| f.render(false))
                .expect("the base schema publishes");
        assert_eq!(report.errors(), 0);
        assert_eq!(
            published.added.len(),
            7,
            "every version of the base is published"
        );
        lock
    })
}

/// The base schema with a case's edits, in a folder of its own (`run`: tests run in parallel).
fn edited(case: &Case, run: &str) -> PathBuf {
    let dir = scratch().join(run).join(case.name);
    compat_cases::write_edited_with_lock(case, &dir, Some(baseline()));
    dir
}

fn findings(report: &Report) -> Vec<(String, String, String, String, String)> {
    let mut out: Vec<_> = report
        .findings
        .iter()
        .map(|f| {
            let subject = match &f.subject {
                compat::Subject::Event {
                    event,
                    version: Some(v),
                } => format!("{event} {v}"),
                compat::Subject::Event { event, .. } => event.clone(),
                compat::Subject::SharedType(t) => format!("type {t}"),
                compat::Subject::Resource(r) => format!("resource {r}"),
                compat::Subject::Endpoint(e) => format!("endpoint {e}"),
                compat::Subject::ErrorResponse => "error response".to_owned(),
            };
            (
                f.rule.id().to_owned(),
                subject,
                f.path.clone(),
                f.severity.as_str().to_owned(),
                f.direction().to_owned(),
            )
        })
        .collect();
    out.sort();
    out
}

fn expected(case: &Case) -> Vec<(String, String, String, String, String)> {
    let mut out: Vec<_> = case
        .expect
        .iter()
        .map(|(a, b, c, d, e)| {
            (
                (*a).to_owned(),
                (*b).to_owned(),
                (*c).to_owned(),
                (*d).to_owned(),
                (*e).to_owned(),
            )
        })
        .collect();
    out.sort();
    out
}

#[test]
fn every_case_finds_exactly_what_it_should() {
    let lock = baseline();
    let mut failures = Vec::new();
    for case in CASES {
        let schema = edited(case, "cases");
        let report = compat::check(&schema, Baseline::Lock(lock), TODAY, Readers::Anyone)
            .map_err(|f| f.render(false))
            .unwrap_or_else(|e| panic!("{}: {e}", case.name));
        let found = findings(&report);
        if found != expected(case) {
            failures.push(format!(
                "{}:\n  expected {:#?}\n  found    {:#?}",
                case.name,
                expected(case),
                found
            ));
        }
        assert_eq!(report.bump().as_str(), case.bump, "{}: the bump", case.name);
        // The exit status follows the errors.
        let errors = case.expect.iter().filter(|e| e.3 == "error").count();
        assert_eq!(report.errors(), errors, "{}", case.name);
        let text = report.render(Format::Human, "the published baseline", false);
        let scratch = scratch().display().to_string();
        insta::with_settings!({
            snapshot_path => "snapshots/compat",
            prepend_module_to_snapshot => false,
            filters => vec![(scratch.as_str(), "[scratch]")],
        }, {
            insta::assert_snapshot!(case.name, text);
        });
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    assert!(CASES.len() >= 40, "{} cases", CASES.len());
}

/// Every rule is exercised by some case.
#[test]
fn every_rule_has_a_case() {
    let exercised: std::collections::BTreeSet<&str> = CASES
        .iter()
        .flat_map(|c| c.expect.iter().map(|e| e.0))
        .collect();
    let missing: Vec<&str> = compat::Rule::ALL
        .iter()
        .map(|r| r.id())
        .filter(|id| {
            !exercised.contains(id) && !AGAINST_ONLY.contains(id) && !CONTRACTS_ONLY.contains(id)
        })
        .collect();
    assert!(missing.is_empty(), "rules without a case: {missing:?}");
}

/// Rules only a comparison with a git revision finds: the baseline records no descriptions (a test of
/// its own below).
const AGAINST_ONLY: &[&str] = &["description-changed"];

/// Rules only a consumer contract makes (their cases are in `consumer_contracts.rs`).
const CONTRACTS_ONLY: &[&str] = &["consumer-reads-deprecated"];

/// The same break found against a revision of the schema (the files of the base), with the places in
/// that revision.
#[test]
fn a_revision_is_compared_with_the_same_rules() {
    let lock = baseline();
    let base = energy_testkit::generator_fixture("compat/base");
    let files = ["types.yaml", "rest.yaml", "events/billing.yaml"]
        .iter()
        .map(|f| ((*f).to_owned(), std::fs::read(base.join(f)).unwrap()))
        .collect::<Vec<_>>();
    let case = &CASES[0];
    let schema = edited(case, "against");

    let report = compat::check(
        &schema,
        Baseline::Revision {
            name: "BASE",
            files,
            lock,
        },
        TODAY,
        Readers::Anyone,
    )
    .map_err(|f| f.render(false))
    .unwrap();
    assert_eq!(findings(&report), expected(case));
    let old = report.findings[0].old.as_ref().expect("an old place");
    assert_eq!(
        (old.file.as_str(), old.line),
        ("BASE:schema/events/billing.yaml", 21)
    );
}

/// A description is not part of the baseline's wire shapes; against a revision, a changed one is a
/// note, and changes nothing else.
#[test]
fn a_description_change_is_a_note_against_a_revision() {
    let lock = baseline();
    let base = energy_testkit::generator_fixture("compat/base");
    let files: Vec<(String, Vec<u8>)> = ["types.yaml", "rest.yaml", "events/billing.yaml"]
        .iter()
        .map(|f| ((*f).to_owned(), std::fs::read(base.join(f)).unwrap()))
        .collect();
    let case = Case {
        name: "description-changed",
        bump: "patch",
        edits: &[(
            BILLING,
            "    description: An invoice was issued.\n",
            "    description: An invoice was issued to a customer.\n",
        )],
        expect: &[
            (
                "description-changed",
                "invoice.issued v1",
                "",
                "info",
                "none",
            ),
            (
                "description-changed",
                "invoice.issued v2",
                "",
                "info",
                "none",
            ),
        ],
    };
    let schema = edited(&case, "against");
    let against = compat::check(
        &schema,
        Baseline::Revision {
            name: "BASE",
            files,
            lock,
        },
        TODAY,
        Readers::Anyone,
    )
    .map_err(|f| f.render(false))
    .unwrap();
    assert_eq!(findings(&against), expected(&case));
    assert_eq!(against.bump(), compat::Bump::Patch);
    let baseline = compat::check(&schema, Baseline::Lock(lock), TODAY, Readers::Anyone)
        .map_err(|f| f.render(false))
        .unwrap();
    assert!(
        baseline.findings.is_empty(),
        "the baseline has no descriptions"
    );
}
