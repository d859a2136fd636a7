//! Consumer contracts in `cargo xtask compat`, case by case: each case edits a copy of a published
//! schema (`codegen/tests/fixtures/compat/base/`) that carries three contracts
//! (`codegen/tests/fixtures/compat/consumers/`: `billing-ledger` reads three fields of `invoice.issued` and all
//! of `ledger.posted`; `payments-crm` all of `payment.taken` and `/reason` of `invoice.voided` v2, a
//! deprecated version; `archive` is retired), and asserts each finding's rule, subject, path, severity
//! and the consumers it names.

use energy_codegen::compat::{self, Baseline, Format, Readers, Report};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// The date sunsets are judged on (the base's `invoice.voided` v2 sunsets on 2099-01-01).
const TODAY: &str = "2026-11-23";

const BILLING: &str = "events/billing.yaml";
const TYPES: &str = "types.yaml";

/// One finding as a case states it: (rule, subject, path, severity, consumers named, comma-separated).
type Expected = (
    &'static str,
    &'static str,
    &'static str,
    &'static str,
    &'static str,
);

/// `payments-crm` still reads `invoice.voided` v2, deprecated in the base: a warning on every check.
const STILL_READS_DEPRECATED: Expected = (
    "consumer-reads-deprecated",
    "invoice.voided v2",
    "",
    "warning",
    "payments-crm",
);

struct Case {
    name: &'static str,
    /// (file under the schema folder, text to replace, its replacement); each text occurs once.
    edits: &'static [(&'static str, &'static str, &'static str)],
    readers: Readers,
    expect: &'static [Expected],
}

const NOTE_WAIVED_FOR_BILLING: &str = "      v1:\n        waivers:\n          - {rule: field-removed-optional, path: note, reason: Nobody writes notes since 2026.06., consumers: [billing-ledger]}\n        fields:\n";
const NOTE_WAIVED_FOR_NOBODY: &str = "      v1:\n        waivers:\n          - {rule: field-removed-optional, path: note, reason: Nobody writes notes since 2026.06.}\n        fields:\n";

#[rustfmt::skip]
const CASES: &[Case] = &[
    Case { name: "no-change", edits: &[], readers: Readers::Anyone,
        expect: &[STILL_READS_DEPRECATED] },
    // ---- a field a contract reads: an error even where the rules call the change compatible
    Case { name: "optional-field-read-removed",
        edits: &[(BILLING, "          note?: str\n", "")], readers: Readers::Anyone,
        expect: &[("field-removed-optional", "invoice.issued v1", "note", "error", "billing-ledger"),
                  ("field-removed-optional", "invoice.issued v2", "note", "error", "billing-ledger"),
                  STILL_READS_DEPRECATED] },
    Case { name: "field-read-retyped-in-a-shared-type",
        edits: &[(TYPES, "fields: {number: str}", "fields: {number: int}")], readers: Readers::Anyone,
        // BillingAccount now holds a number only: its borrowed view loses its lifetime (Rust, not the wire).
        expect: &[("borrowed-view-changed", "type BillingAccount", "", "warning", ""),
                  ("field-type-changed", "invoice.issued v1", "ledger.account.number", "error", "billing-ledger"),
                  ("field-type-changed", "invoice.issued v2", "ledger.account.number", "error", "billing-ledger"),
                  ("field-type-changed", "ledger.posted v1", "ledger.account.number", "error", "billing-ledger"),
                  STILL_READS_DEPRECATED] },
    Case { name: "field-read-renamed",
        edits: &[(BILLING, "{payment_id: int, account_number: str}", "{payment_id: int, account: {type: str, renamed_from: account_number}}")],
        readers: Readers::Anyone,
        expect: &[("field-renamed", "payment.taken v1", "account", "error", "payments-crm"),
                  STILL_READS_DEPRECATED] },
    // ---- a field no active contract reads (the retired `archive` reads all of it): an error by the
    // rules, a note when only registered consumers count
    Case { name: "field-nobody-reads-removed",
        edits: &[(BILLING, "          reference: str\n", "")], readers: Readers::Anyone,
        expect: &[("field-removed-required", "invoice.issued v1", "reference", "error", ""),
                  ("field-removed-required", "invoice.issued v2", "reference", "error", ""),
                  STILL_READS_DEPRECATED] },
    Case { name: "field-nobody-reads-removed-consumers-only",
        edits: &[(BILLING, "          reference: str\n", "")], readers: Readers::Registered,
        expect: &[("field-removed-required", "invoice.issued v1", "reference", "info", ""),
                  ("field-removed-required", "invoice.issued v2", "reference", "info", ""),
                  STILL_READS_DEPRECATED] },
    Case { name: "field-read-removed-consumers-only",
        edits: &[(BILLING, "          amount: int\n", "")], readers: Readers::Registered,
        expect: &[("field-removed-required", "invoice.issued v1", "amount", "error", "billing-ledger"),
                  ("field-removed-required", "invoice.issued v2", "amount", "error", "billing-ledger"),
                  STILL_READS_DEPRECATED] },
    // ---- versions and event types a contract reads
    Case { name: "version-read-removed",
        edits: &[(BILLING, "      v2:\n        deprecated: {sunset: 2099-01-01, note: Use v3.}\n        fields: {invoice_id: int, reason: str}\n", "")],
        readers: Readers::Anyone,
        expect: &[("version-removed", "invoice.voided v2", "", "error", "payments-crm")] },
    Case { name: "retired-version-read-removed-after-its-sunset",
        edits: &[("consumers/payments-crm.yaml", "versions: [v2]", "versions: [v1, v2]"),
                 (BILLING, "      v1:\n        deprecated: {sunset: 2026-01-01, note: Use v3.}\n        fields: {invoice_id: int}\n", "")],
        readers: Readers::Anyone,
        expect: &[("version-removed", "invoice.voided v1", "", "error", "payments-crm"),
                  STILL_READS_DEPRECATED] },
    Case { name: "event-type-read-removed",
        edits: &[(BILLING, "  - name: payment.taken\n    versions:\n      v1:\n        fields: {payment_id: int, account_number: str}\n", "")],
        readers: Readers::Anyone,
        expect: &[("event-type-removed", "payment.taken", "", "error", "payments-crm"),
                  STILL_READS_DEPRECATED] },
    Case { name: "event-type-read-renamed",
        edits: &[(BILLING, "  - name: payment.taken\n", "  - name: payment.received\n    renamed_from: payment.taken\n")],
        readers: Readers::Anyone,
        expect: &[("event-type-renamed", "payment.received", "", "error", "payments-crm"),
                  STILL_READS_DEPRECATED] },
    // ---- deprecations
    Case { name: "deprecated-while-read",
        edits: &[(BILLING, "      v1:\n        fields: {ledger: Ledger, entry_id: int}\n", "      v1:\n        deprecated: {sunset: 2027-06-30, note: Use invoice.issued.}\n        fields: {ledger: Ledger, entry_id: int}\n")],
        readers: Readers::Anyone,
        expect: &[("consumer-reads-deprecated", "ledger.posted v1", "", "warning", "billing-ledger"),
                  ("version-deprecated", "ledger.posted v1", "", "info", "billing-ledger"),
                  STILL_READS_DEPRECATED] },
    // ---- waivers: the consumers a break reaches must have agreed to it
    Case { name: "waiver-names-the-consumer",
        edits: &[(BILLING, "      v1:\n        fields:\n", NOTE_WAIVED_FOR_BILLING),
                 (BILLING, "          note?: str\n", "")],
        readers: Readers::Anyone,
        expect: &[("field-removed-optional", "invoice.issued v1", "note", "warning", "billing-ledger"),
                  ("field-removed-optional", "invoice.issued v2", "note", "error", "billing-ledger"),
                  STILL_READS_DEPRECATED] },
    Case { name: "waiver-without-the-consumer",
        edits: &[(BILLING, "      v1:\n        fields:\n", NOTE_WAIVED_FOR_NOBODY),
                 (BILLING, "          note?: str\n", "")],
        readers: Readers::Anyone,
        expect: &[("field-removed-optional", "invoice.issued v1", "note", "error", "billing-ledger"),
                  ("field-removed-optional", "invoice.issued v2", "note", "error", "billing-ledger"),
                  STILL_READS_DEPRECATED] },
];

#[test]
fn every_case_names_the_consumers_it_should() {
    let lock = baseline();
    let mut failures = Vec::new();
    for case in CASES {
        let schema = edited(case.name, case.edits);
        let report = compat::check(&schema, Baseline::Lock(lock), TODAY, case.readers)
            .map_err(|f| f.render(false))
            .unwrap_or_else(|e| panic!("{}: {e}", case.name));
        let found = findings(&report);
        let mut expected: Vec<_> = case
            .expect
            .iter()
            .map(|(a, b, c, d, e)| [a, b, c, d, e].map(|s| (*s).to_owned()))
            .collect();
        expected.sort();
        if found != expected {
            failures.push(format!(
                "{}:\n  expected {expected:#?}\n  found    {found:#?}",
                case.name
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The human output says who a break reaches and how to agree it with them; JSON carries the names.
#[test]
fn the_report_names_the_consumers_in_words_and_in_json() {
    let schema = edited("words", &[(BILLING, "          note?: str\n", "")]);
    let report = compat::check(&schema, Baseline::Lock(baseline()), TODAY, Readers::Anyone)
        .map_err(|f| f.render(false))
        .unwrap();
    let human = report.render(Format::Human, "the baseline", false);
    assert!(
        human.contains(
            "optional field `note` removed from `invoice.issued` v1: it breaks a consumer (`billing-ledger`, which reads it), although the rules call it compatible"
        ),
        "{human}"
    );
    assert!(
        human.contains("read by consumers: `billing-ledger` (billing@example.com)"),
        "{human}"
    );
    assert!(
        human.contains("reason: …, consumers: [billing-ledger]}]"),
        "the help shows the waiver naming the consumer:\n{human}"
    );
    assert!(
        human.contains(
            "`payments-crm` still reads `invoice.voided v2`, deprecated: it may be removed from 2099-01-01"
        ),
        "{human}"
    );
    let markdown = report.render(Format::Markdown, "the baseline", false);
    assert!(
        markdown.contains("; read by `billing-ledger`"),
        "{markdown}"
    );

    let json = report.render(Format::Json, "the baseline", false);
    let lines: Vec<serde_json::Value> = json
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 3);
    for line in &lines {
        let consumers = line["consumers"]
            .as_array()
            .expect("every finding names its consumers");
        let expected = if line["rule"] == "consumer-reads-deprecated" {
            "payments-crm"
        } else {
            "billing-ledger"
        };
        assert_eq!(consumers, &[serde_json::json!(expected)], "{line}");
    }

    // A break nobody registered reads says so, and names nobody.
    let schema = edited("nobody", &[(BILLING, "          reference: str\n", "")]);
    let report = compat::check(&schema, Baseline::Lock(baseline()), TODAY, Readers::Anyone)
        .unwrap_or_else(|f| panic!("{}", f.render(false)));
    let human = report.render(Format::Human, "the baseline", false);
    assert!(human.contains("breaks no registered consumer"), "{human}");
    let json = report.render(Format::Json, "the baseline", false);
    assert!(json.contains(r#""consumers":[]"#), "{json}");
}

/// A contract that names what neither the schema nor the baseline has is a mistake in the contract:
/// located, with what exists nearby, in `cargo xtask compat` and in `cargo xtask codegen` alike.
#[test]
fn a_typo_in_a_contract_is_a_located_error() {
    let schema = edited(
        "typo",
        &[(
            "consumers/billing-ledger.yaml",
            "/ledger/account/number",
            "/ledger/acount/number",
        )],
    );
    let failure = compat::check(&schema, Baseline::Lock(baseline()), TODAY, Readers::Anyone)
        .err()
        .expect("a typo fails the check");
    let text = failure.render(false);
    assert!(text.contains("error[unknown-field-pointer]"), "{text}");
    assert!(text.contains("consumers/billing-ledger.yaml:8:"), "{text}");
    assert!(text.contains("no field `acount` in `Ledger`"), "{text}");
    assert!(
        text.contains("help: did you mean `account`?"),
        "the nearby field is suggested:\n{text}"
    );
    assert_eq!(
        text.matches("error[").count(),
        1,
        "one mistake, said once for both versions:\n{text}"
    );

    let failure = energy_codegen::build_model(&schema).expect_err("the generator refuses it too");
    assert_eq!(failure.render(false), text);

    // What the change removes from under a contract is a finding, not a mistake; what the baseline never
    // had is a mistake on both.
    let schema = edited(
        "unknown-version",
        &[(
            "consumers/payments-crm.yaml",
            "versions: [v1]",
            "versions: [v1, v9]",
        )],
    );
    let text = compat::check(&schema, Baseline::Lock(baseline()), TODAY, Readers::Anyone)
        .err()
        .expect("an unknown version fails the check")
        .render(false);
    assert!(text.contains("error[unknown-version]"), "{text}");
    assert!(
        text.contains("`payment.taken` has no version `v9` (versions: v1)"),
        "{text}"
    );
}

/// `--consumers`: per version, who reads it; published versions nobody reads are counted.
#[test]
fn coverage_says_who_reads_each_version() {
    let schema = edited("coverage", &[]);
    let coverage = compat::coverage(&schema, baseline())
        .map_err(|f| f.render(false))
        .unwrap();
    let row = |event: &str, version: &str| {
        coverage
            .versions
            .iter()
            .find(|v| v.event == event && v.version == version)
            .unwrap_or_else(|| panic!("{event} {version}"))
    };
    assert_eq!(row("invoice.issued", "v1").consumers, ["billing-ledger"]);
    assert_eq!(row("payment.taken", "v1").consumers, ["payments-crm"]);
    assert_eq!(
        row("invoice.voided", "v2").sunset.as_deref(),
        Some("2099-01-01")
    );
    assert!(row("invoice.voided", "v3").consumers.is_empty());
    let unread: Vec<String> = coverage
        .unread_published()
        .map(|v| format!("{} {}", v.event, v.version))
        .collect();
    assert_eq!(unread, ["invoice.voided v1", "invoice.voided v3"]);
    let table = coverage.render(Format::Human);
    assert!(
        table.contains(
            "5 of 7 versions read by a registered consumer; 2 published versions read by none"
        ),
        "{table}"
    );
    let json = coverage.render(Format::Json);
    let first: serde_json::Value = serde_json::from_str(json.lines().next().unwrap()).unwrap();
    assert_eq!(first["event"], "invoice.issued");
    assert_eq!(first["consumers"], serde_json::json!(["billing-ledger"]));
}

/// The folder cases write into, under the target folder: paths in messages stay the same on every run.
fn scratch() -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("consumer-contracts")
}

/// The published baseline of the base schema, written once.
fn baseline() -> &'static Path {
    static LOCK: OnceLock<PathBuf> = OnceLock::new();
    LOCK.get_or_init(|| {
        let dir = scratch().join("published");
        let _ = std::fs::remove_dir_all(&dir);
        energy_tests::copy_tree(
            &energy_tests::generator_fixture("compat/base"),
            &dir.join("schema"),
        );
        let lock = dir.join("published.lock");
        let (report, _) = compat::publish(&dir.join("schema"), &lock, &dir.join("golden"), TODAY)
            .map_err(|f| f.render(false))
            .expect("the base schema publishes");
        assert_eq!(report.errors(), 0);
        lock
    })
}

/// The base schema with its contracts and `edits`, in a folder of its own (tests run in parallel).
fn edited(name: &str, edits: &[(&str, &str, &str)]) -> PathBuf {
    let dir = scratch().join("cases").join(name);
    let _ = std::fs::remove_dir_all(&dir);
    energy_tests::copy_tree(&energy_tests::generator_fixture("compat/base"), &dir);
    energy_tests::copy_tree(
        &energy_tests::generator_fixture("compat/consumers"),
        &dir.join("consumers"),
    );
    for (file, from, to) in edits {
        let path = dir.join(file);
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(
            text.matches(from).count(),
            1,
            "{name}: `{from}` occurs once in {file}"
        );
        std::fs::write(&path, text.replacen(from, to, 1)).unwrap();
    }
    dir
}

fn findings(report: &Report) -> Vec<[String; 5]> {
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
                other => format!("{other:?}"),
            };
            [
                f.rule.id().to_owned(),
                subject,
                f.path.clone(),
                f.severity.as_str().to_owned(),
                f.consumers.join(","),
            ]
        })
        .collect();
    out.sort();
    out
}

/// A contract the runtime writes from a consumer's handler registry (`Handlers::contract`) is a
/// contract of the schema format: the generator reads and checks it against the real schema, and a
/// projection naming a field the payload does not have is a located error in it.
#[test]
fn a_contract_written_from_a_consumers_code_is_read_by_the_generator() {
    use energy_api::EventType;
    use energy_api::events::{AgreementUpdated, BillingLedgerEntryPostedV2};
    use energy_runtime::bus::Handlers;

    let mut handlers = Handlers::new();
    handlers
        .on(|_: AgreementUpdated, _| async { Ok(()) })
        .on_version(|_: BillingLedgerEntryPostedV2, _| async { Ok(()) })
        .reading(EventType::AgreementUpdated, &["/agreement_id", "/changes"]);
    let contract = handlers.contract("ledger-from-code", Some("ledger@example.com"));

    let schema = scratch().join("from-code");
    let _ = std::fs::remove_dir_all(&schema);
    energy_tests::copy_tree(&energy_tests::schema_dir(), &schema);
    let file = schema.join("consumers/ledger-from-code.yaml");
    std::fs::write(&file, contract.to_yaml()).unwrap();
    let model = energy_codegen::build_model(&schema)
        .map_err(|f| f.render(false))
        .expect("the generator reads the contract the runtime wrote");
    let read = model
        .consumers
        .iter()
        .find(|c| c.name == "ledger-from-code")
        .expect("the contract is in the model");
    let reads: Vec<(&str, Vec<&str>, Option<usize>)> = read
        .reads
        .iter()
        .map(|r| {
            (
                r.event.as_str(),
                r.versions.iter().map(String::as_str).collect(),
                r.fields.as_ref().map(Vec::len),
            )
        })
        .collect();
    assert_eq!(
        reads,
        [
            ("agreement.updated", vec!["v1", "v2"], Some(2)),
            ("billing.ledger.entry_posted", vec!["v2"], None)
        ]
    );

    handlers.reading(EventType::AgreementUpdated, &["/agreement_id", "/change"]);
    let contract = handlers.contract("ledger-from-code", None);
    std::fs::write(&file, contract.to_yaml()).unwrap();
    let text = energy_codegen::build_model(&schema)
        .expect_err("a projection of a field the payload lacks is refused")
        .render(false);
    assert!(text.contains("error[unknown-field-pointer]"), "{text}");
    assert!(text.contains("consumers/ledger-from-code.yaml:"), "{text}");
    assert!(text.contains("did you mean `changes`?"), "{text}");
}
