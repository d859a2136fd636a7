//! Schema evolution, case by case: each case edits a copy of a published schema
//! (`tests/fixtures/compat/base/`) the way an author would and asserts exactly what `cargo xtask compat`
//! finds: the rule, the subject, the path, the severity and the direction that breaks. The human message
//! of every case is snapshotted (`tests/snapshots/compat/`).

use energy_codegen::compat::{self, Baseline, Format, Readers, Report};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// The date sunsets are judged on: after `invoice.voided` v1's sunset, before v2's.
const TODAY: &str = "2026-11-23";

/// One finding, as the cases state it: (rule, subject, path, severity, direction that breaks).
type Expected = (
    &'static str,
    &'static str,
    &'static str,
    &'static str,
    &'static str,
);

struct Case {
    name: &'static str,
    /// (file under the schema folder, text to replace, its replacement); each text occurs once.
    edits: &'static [(&'static str, &'static str, &'static str)],
    expect: &'static [Expected],
}

const BILLING: &str = "events/billing.yaml";
const TYPES: &str = "types.yaml";
const REST: &str = "rest.yaml";

const ISSUED_V1: &str = "          invoice_id: int\n          account_number: str\n          amount: int\n          price: num\n          note?: str\n          lines: [Line]\n          changes: obj\n          ledger: Ledger\n          reference: str\n";

#[rustfmt::skip]
const CASES: &[Case] = &[
    // ---- fields of an event payload, both directions
    Case { name: "field-removed-required",
        edits: &[(BILLING, "          reference: str\n", "")],
        expect: &[("field-removed-required", "invoice.issued v1", "reference", "error", "forward"),
                  ("field-removed-required", "invoice.issued v2", "reference", "error", "forward")] },
    Case { name: "field-removed-optional",
        edits: &[(BILLING, "          note?: str\n", "")],
        expect: &[("field-removed-optional", "invoice.issued v1", "note", "warning", "none"),
                  ("field-removed-optional", "invoice.issued v2", "note", "warning", "none")] },
    Case { name: "field-added-required",
        edits: &[(BILLING, "{payment_id: int, account_number: str}", "{payment_id: int, account_number: str, method: str}")],
        expect: &[("field-added-required", "payment.taken v1", "method", "error", "backward")] },
    Case { name: "field-added-optional",
        edits: &[(BILLING, "{payment_id: int, account_number: str}", "{payment_id: int, account_number: str, method?: str}")],
        expect: &[("field-added-optional", "payment.taken v1", "method", "info", "none")] },
    Case { name: "field-optional-to-required",
        edits: &[(BILLING, "          note?: str\n", "          note: str\n")],
        expect: &[("field-optional-to-required", "invoice.issued v1", "note", "error", "backward"),
                  ("field-optional-to-required", "invoice.issued v2", "note", "error", "backward")] },
    Case { name: "field-required-to-optional",
        edits: &[(BILLING, "{payment_id: int, account_number: str}", "{payment_id: int, account_number?: str}")],
        expect: &[("field-required-to-optional", "payment.taken v1", "account_number", "error", "forward")] },
    Case { name: "field-type-widened-int-to-num",
        edits: &[(BILLING, "          amount: int\n", "          amount: num\n")],
        expect: &[("field-type-widened", "invoice.issued v1", "amount", "error", "forward"),
                  ("field-type-widened", "invoice.issued v2", "amount", "error", "forward")] },
    Case { name: "field-type-narrowed-num-to-int",
        edits: &[(BILLING, "          price: num\n", "          price: int\n")],
        expect: &[("field-type-narrowed", "invoice.issued v1", "price", "error", "backward"),
                  ("field-type-narrowed", "invoice.issued v2", "price", "error", "backward")] },
    Case { name: "field-type-changed-str-to-int",
        edits: &[(BILLING, "{payment_id: int, account_number: str}", "{payment_id: int, account_number: int}")],
        expect: &[("field-type-changed", "payment.taken v1", "account_number", "error", "both")] },
    Case { name: "field-type-changed-scalar-to-array",
        edits: &[(BILLING, "          reference: str\n", "          reference: [str]\n")],
        expect: &[("field-type-changed", "invoice.issued v1", "reference", "error", "both"),
                  ("field-type-changed", "invoice.issued v2", "reference", "error", "both")] },
    Case { name: "named-type-to-obj-widens",
        edits: &[(BILLING, "{ledger: Ledger, entry_id: int}", "{ledger: obj, entry_id: int}")],
        expect: &[("field-type-widened", "ledger.posted v1", "ledger", "error", "forward")] },
    Case { name: "obj-to-named-type-narrows",
        edits: &[(BILLING, "          changes: obj\n", "          changes: Line\n")],
        expect: &[("field-type-narrowed", "invoice.issued v1", "changes", "error", "backward"),
                  ("field-type-narrowed", "invoice.issued v2", "changes", "error", "backward")] },
    // ---- maps (`map<T>`): their values compared like fields, at `.*`
    Case { name: "obj-to-map-narrows",
        edits: &[(BILLING, "          changes: obj\n", "          changes: map<str>\n")],
        expect: &[("field-type-narrowed", "invoice.issued v1", "changes", "error", "backward"),
                  ("field-type-narrowed", "invoice.issued v2", "changes", "error", "backward")] },
    Case { name: "map-to-obj-widens",
        edits: &[(REST, "prices: {type: \"map<num>\",", "prices: {type: obj,")],
        expect: &[("field-type-widened", "endpoint list_products", "response.results[].prices", "error", "forward")] },
    Case { name: "map-value-type-narrowed",
        edits: &[(REST, "prices: {type: \"map<num>\",", "prices: {type: \"map<int>\",")],
        expect: &[("field-type-narrowed", "endpoint list_products", "response.results[].prices.*", "error", "backward")] },
    // ---- shared types: one finding per event version that reaches the change, with the path
    Case { name: "shared-type-field-optional-propagates",
        edits: &[(TYPES, "fields: {number: str}", "fields: {number?: str}")],
        expect: &[("field-required-to-optional", "invoice.issued v1", "ledger.account.number", "error", "forward"),
                  ("field-required-to-optional", "invoice.issued v2", "ledger.account.number", "error", "forward"),
                  ("field-required-to-optional", "ledger.posted v1", "ledger.account.number", "error", "forward")] },
    Case { name: "shared-type-in-an-array",
        edits: &[(TYPES, "fields: {amount: int, label: str}", "fields: {amount: str, label: str}")],
        expect: &[("field-type-changed", "invoice.issued v1", "lines[].amount", "error", "both"),
                  ("field-type-changed", "invoice.issued v2", "lines[].amount", "error", "both")] },
    Case { name: "shared-type-no-event-uses",
        edits: &[(TYPES, "fields: {code: str}", "fields: {code: int}")],
        expect: &[("field-type-changed", "type Unused", "code", "error", "both")] },
    Case { name: "shared-type-removed",
        edits: &[(TYPES, "  Unused:\n    description: A type no event uses.\n    fields: {code: str}\n", "")],
        expect: &[("type-removed", "type Unused", "", "warning", "none")] },
    // ---- event types and versions
    Case { name: "event-type-removed",
        edits: &[(BILLING, "  - name: payment.taken\n    versions:\n      v1:\n        fields: {payment_id: int, account_number: str}\n", "")],
        expect: &[("event-type-removed", "payment.taken", "", "error", "backward")] },
    Case { name: "version-removed",
        edits: &[(BILLING, "      v3:\n        incomplete: true\n        fields: {invoice_id: int, reason: str, voided_at: str}\n", "")],
        expect: &[("version-removed", "invoice.voided v3", "", "error", "backward")] },
    Case { name: "version-removed-before-its-sunset",
        edits: &[(BILLING, "      v2:\n        deprecated: {sunset: 2099-01-01, note: Use v3.}\n        fields: {invoice_id: int, reason: str}\n", "")],
        expect: &[("version-removed", "invoice.voided v2", "", "error", "backward")] },
    Case { name: "version-removed-after-its-sunset",
        edits: &[(BILLING, "      v1:\n        deprecated: {sunset: 2026-01-01, note: Use v3.}\n        fields: {invoice_id: int}\n", "")],
        expect: &[("version-removed", "invoice.voided v1", "", "info", "backward")] },
    Case { name: "version-deprecated",
        edits: &[(BILLING, "      v3:\n        incomplete: true\n", "      v3:\n        incomplete: true\n        deprecated: {sunset: 2027-06-30}\n")],
        expect: &[("version-deprecated", "invoice.voided v3", "", "info", "none")] },
    Case { name: "version-added",
        edits: &[(BILLING, "        fields: {payment_id: int, account_number: str}\n", "        fields: {payment_id: int, account_number: str}\n      v2:\n        fields: {payment_id: int, account_number: str, taken_at: str}\n")],
        expect: &[("version-added", "payment.taken v2", "", "info", "none")] },
    Case { name: "version-not-needed",
        edits: &[(BILLING, "        fields: {payment_id: int, account_number: str}\n", "        fields: {payment_id: int, account_number: str}\n      v2:\n        fields: {payment_id: int, account_number: str, note?: str}\n")],
        expect: &[("version-added", "payment.taken v2", "", "info", "none"),
                  ("version-not-needed", "payment.taken v2", "", "warning", "none")] },
    Case { name: "field-name-reused",
        edits: &[(BILLING, "        fields: {payment_id: int, account_number: str}\n", "        fields: {payment_id: int, account_number: str}\n      v2:\n        fields: {payment_id: str, taken_at: str}\n")],
        expect: &[("field-name-reused", "payment.taken v2", "payment_id", "warning", "none"),
                  ("version-added", "payment.taken v2", "", "info", "none")] },
    Case { name: "event-type-added",
        edits: &[(BILLING, "  - name: payment.taken\n", "  - name: payment.refunded\n    versions:\n      v1:\n        fields: {payment_id: int}\n  - name: payment.taken\n")],
        expect: &[("event-type-added", "payment.refunded", "", "info", "none")] },
    Case { name: "keeps-unlisted-fields",
        edits: &[(BILLING, "      v1:\n        fields: {payment_id: int, account_number: str}\n", "      v1:\n        incomplete: true\n        fields: {payment_id: int, account_number: str}\n")],
        expect: &[("keeps-unlisted-fields", "payment.taken v1", "", "info", "none")] },
    Case { name: "drops-unlisted-fields",
        edits: &[(BILLING, "      v3:\n        incomplete: true\n", "      v3:\n")],
        expect: &[("drops-unlisted-fields", "invoice.voided v3", "", "info", "none")] },
    // ---- renames
    Case { name: "field-renamed",
        edits: &[(BILLING, "{payment_id: int, account_number: str}", "{payment_id: int, account: {type: str, renamed_from: account_number}}")],
        expect: &[("field-renamed", "payment.taken v1", "account", "error", "forward")] },
    Case { name: "event-type-renamed",
        edits: &[(BILLING, "  - name: payment.taken\n", "  - name: payment.received\n    renamed_from: payment.taken\n")],
        expect: &[("event-type-renamed", "payment.received", "", "error", "forward")] },
    Case { name: "event-type-renamed-with-a-waiver",
        edits: &[(BILLING, "  - name: payment.taken\n    versions:\n      v1:\n", "  - name: payment.received\n    renamed_from: payment.taken\n    versions:\n      v1:\n        waivers:\n          - {rule: event-type-renamed, reason: Every consumer moved to the new name in release 2026.11.}\n")],
        expect: &[("event-type-renamed", "payment.received", "", "info", "forward")] },
    // ---- waivers
    Case { name: "waiver-allows-a-break",
        edits: &[(BILLING, "      v1:\n        fields: {payment_id: int, account_number: str}\n", "      v1:\n        waivers:\n          - {rule: field-type-changed, path: account_number, reason: Producers always sent a number (INC-42).}\n        fields: {payment_id: int, account_number: int}\n")],
        expect: &[("field-type-changed", "payment.taken v1", "account_number", "info", "both")] },
    Case { name: "waiver-on-a-shared-type",
        edits: &[(TYPES, "    description: A billing account.\n    fields: {number: str}", "    description: A billing account.\n    waivers:\n      - {rule: field-required-to-optional, path: number, reason: Accounts being migrated have no number yet.}\n    fields: {number?: str}")],
        expect: &[("field-required-to-optional", "invoice.issued v1", "ledger.account.number", "info", "forward"),
                  ("field-required-to-optional", "invoice.issued v2", "ledger.account.number", "info", "forward"),
                  ("field-required-to-optional", "ledger.posted v1", "ledger.account.number", "info", "forward")] },
    Case { name: "waiver-unused",
        edits: &[(BILLING, "      v1:\n        fields: {payment_id: int, account_number: str}\n", "      v1:\n        waivers:\n          - {rule: field-removed-required, path: account_number, reason: Stale.}\n        fields: {payment_id: int, account_number: str}\n")],
        expect: &[("waiver-unused", "payment.taken v1", "account_number", "error", "none")] },
    // ---- refactors that change nothing on the wire
    Case { name: "refactor-extends-written-out",
        edits: &[(BILLING, "        extends: v1\n        fields: {due_date: str}\n", "        fields:\n          invoice_id: int\n          account_number: str\n          amount: int\n          price: num\n          note?: str\n          lines: [Line]\n          changes: obj\n          ledger: Ledger\n          reference: str\n          due_date: str\n")],
        expect: &[] },
    Case { name: "refactor-fields-moved-into-a-base",
        edits: &[(BILLING, ISSUED_V1, "          amount: int\n          price: num\n          note?: str\n          lines: [Line]\n          changes: obj\n          ledger: Ledger\n          reference: str\n"),
                 (BILLING, "      v1:\n        fields:\n          amount: int", "      v1:\n        bases: [IB]\n        fields:\n          amount: int")],
        expect: &[] },
    Case { name: "refactor-payload-as-a-shared-type",
        edits: &[(BILLING, "      v1:\n        fields: {ledger: Ledger, entry_id: int}\n", "      v1:\n        payload: LedgerEntry\n"),
                 (TYPES, "  Line:\n", "  LedgerEntry:\n    description: A posted entry.\n    fields: {ledger: Ledger, entry_id: int}\n  Line:\n")],
        expect: &[] },
    // ---- REST: responses are read by clients, parameters are written by them
    Case { name: "endpoint-removed",
        edits: &[(REST, "  - name: get_account\n    method: GET\n    path: /v1/accounts/{number}/\n    description: One account.\n    path_parameters:\n      number: {type: str, description: The account number.}\n    response: Account\n    auth: required\n", "")],
        expect: &[("endpoint-removed", "endpoint get_account", "", "error", "forward")] },
    Case { name: "endpoint-added",
        edits: &[(REST, "    response: Account\n    auth: required\n", "    response: Account\n    auth: required\n  - name: get_product\n    method: GET\n    path: /v1/products/{code}/\n    description: One product.\n    path_parameters:\n      code: {type: str, description: The code.}\n    response: Product\n")],
        expect: &[("endpoint-added", "endpoint get_product", "", "info", "none")] },
    Case { name: "endpoint-moved",
        edits: &[(REST, "path: /v1/products/\n", "path: /v1/catalogue/products/\n")],
        expect: &[("endpoint-moved", "endpoint list_products", "", "error", "both")] },
    Case { name: "auth-required",
        edits: &[(REST, "    response: Page<Product>\n", "    response: Page<Product>\n    auth: required\n")],
        expect: &[("auth-required", "endpoint list_products", "", "error", "forward")] },
    Case { name: "auth-no-longer-required",
        edits: &[(REST, "    response: Account\n    auth: required\n", "    response: Account\n")],
        expect: &[("auth-no-longer-required", "endpoint get_account", "", "info", "none")] },
    Case { name: "query-parameter-added-required",
        edits: &[(REST, "      page_size?: {type: int, description: Records per page.}\n", "      page_size?: {type: int, description: Records per page.}\n      market: {type: str, description: A market.}\n")],
        expect: &[("field-added-required", "endpoint list_products", "query.market", "error", "forward")] },
    Case { name: "query-parameter-added-optional",
        edits: &[(REST, "      page_size?: {type: int, description: Records per page.}\n", "      page_size?: {type: int, description: Records per page.}\n      market?: {type: str, description: A market.}\n")],
        expect: &[("field-added-optional", "endpoint list_products", "query.market", "info", "none")] },
    Case { name: "query-parameter-removed",
        edits: &[(REST, "      brand?: {type: str, description: A brand code.}\n", "")],
        expect: &[("field-removed-optional", "endpoint list_products", "query.brand", "warning", "none")] },
    Case { name: "query-parameter-widened-breaks-old-servers",
        edits: &[(REST, "page_size?: {type: int,", "page_size?: {type: num,")],
        expect: &[("field-type-widened", "endpoint list_products", "query.page_size", "error", "backward")] },
    Case { name: "response-field-removed",
        edits: &[(REST, "      price: {type: num, description: Its price.}\n", "")],
        expect: &[("field-removed-required", "endpoint list_products", "response.results[].price", "error", "forward")] },
    Case { name: "response-field-nullable",
        edits: &[(REST, "      name: {type: str, description: Its name.}", "      name: {type: str, nullable: true, description: Its name.}")],
        expect: &[("field-nullable-added", "endpoint list_products", "response.results[].name", "error", "forward")] },
    Case { name: "response-field-no-longer-nullable",
        edits: &[(REST, "      next: {type: str, nullable: true, format: uri, description: The next page.}", "      next: {type: str, format: uri, description: The next page.}")],
        expect: &[("field-nullable-removed", "endpoint list_products", "response.next", "error", "backward")] },
    Case { name: "response-format-dropped",
        edits: &[(REST, "available_from: {type: str, format: date-time,", "available_from: {type: str,")],
        expect: &[("field-format-changed", "endpoint list_products", "response.results[].available_from", "error", "forward")] },
    Case { name: "response-becomes-free-form",
        edits: &[(REST, "    response: Page<Product>\n", "    response: Account\n")],
        expect: &[("field-type-widened", "endpoint list_products", "response", "error", "forward")] },
    Case { name: "resource-no-endpoint-returns",
        edits: &[(REST, "      x: {type: str, description: Something.}", "      x: {type: str, description: Something.}\n      y: {type: str, description: More.}")],
        expect: &[("field-added-required", "resource Orphan", "y", "error", "backward")] },
    Case { name: "resource-removed",
        edits: &[(REST, "  Orphan:\n    description: A resource no endpoint returns.\n    fields:\n      x: {type: str, description: Something.}\n", "")],
        expect: &[("type-removed", "resource Orphan", "", "warning", "none")] },
];

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
        energy_tests::copy_tree(&energy_tests::fixture("compat/base"), &dir.join("schema"));
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
    let _ = std::fs::remove_dir_all(&dir);
    energy_tests::copy_tree(&energy_tests::fixture("compat/base"), &dir);
    for (file, from, to) in case.edits {
        let path = dir.join(file);
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(
            text.matches(from).count(),
            1,
            "{}: `{from}` occurs once in {file}",
            case.name
        );
        std::fs::write(&path, text.replacen(from, to, 1)).unwrap();
    }
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
    let base = energy_tests::fixture("compat/base");
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
    let base = energy_tests::fixture("compat/base");
    let files: Vec<(String, Vec<u8>)> = ["types.yaml", "rest.yaml", "events/billing.yaml"]
        .iter()
        .map(|f| ((*f).to_owned(), std::fs::read(base.join(f)).unwrap()))
        .collect();
    let case = Case {
        name: "description-changed",
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
