//! The cases of schema evolution, shared by `compat_mutations.rs` (what `cargo xtask compat` finds) and
//! `semver_checks.rs` (what the generated crates' change is, as cargo-semver-checks judges it): each
//! edits a copy of a published schema (`tests/fixtures/compat/base/`) the way an author would.

use std::path::Path;

/// The date sunsets are judged on: after `invoice.voided` v1's sunset, before v2's.
pub const TODAY: &str = "2026-11-23";

/// One finding, as the cases state it: (rule, subject, path, severity, direction that breaks).
pub type Expected = (
    &'static str,
    &'static str,
    &'static str,
    &'static str,
    &'static str,
);

pub struct Case {
    pub name: &'static str,
    /// The semver bump of `energy-api` the change needs (`none`, `patch`, `minor`, `major`): the crate of
    /// the edited schema against the crate of the base, as `cargo semver-checks` also judges them
    /// (`tests/semver_checks.rs`).
    pub bump: &'static str,
    /// (file under the schema folder, text to replace, its replacement); each text occurs once.
    pub edits: &'static [(&'static str, &'static str, &'static str)],
    pub expect: &'static [Expected],
}

pub const BILLING: &str = "events/billing.yaml";
pub const TYPES: &str = "types.yaml";
pub const REST: &str = "rest.yaml";
/// The published baseline beside the schema (`published.lock`), which carries the Protobuf field
/// numbers: edits of it apply where a case is written with the baseline (`write_edited_with_lock`).
pub const LOCK: &str = "published.lock";

const ISSUED_V1: &str = "          invoice_id: int\n          account_number: str\n          amount: int\n          price: num\n          note?: str\n          lines: [Line]\n          changes: obj\n          ledger: Ledger\n          reference: str\n";

#[rustfmt::skip]
pub const CASES: &[Case] = &[
    // ---- fields of an event payload, both directions
    Case { name: "field-removed-required", bump: "major",
        edits: &[(BILLING, "          reference: str\n", "")],
        expect: &[("field-removed-required", "invoice.issued v1", "reference", "error", "forward"),
                  ("field-removed-required", "invoice.issued v2", "reference", "error", "forward")] },
    Case { name: "field-removed-optional", bump: "major",
        edits: &[(BILLING, "          note?: str\n", "")],
        expect: &[("field-removed-optional", "invoice.issued v1", "note", "warning", "none"),
                  ("field-removed-optional", "invoice.issued v2", "note", "warning", "none")] },
    Case { name: "field-added-required", bump: "major",
        edits: &[(BILLING, "{payment_id: int, account_number: str}", "{payment_id: int, account_number: str, method: str}")],
        expect: &[("field-added-required", "payment.taken v1", "method", "error", "backward")] },
    Case { name: "field-added-optional", bump: "minor",
        edits: &[(BILLING, "{payment_id: int, account_number: str}", "{payment_id: int, account_number: str, method?: str}")],
        expect: &[("field-added-optional", "payment.taken v1", "method", "info", "none")] },
    Case { name: "field-optional-to-required", bump: "major",
        edits: &[(BILLING, "          note?: str\n", "          note: str\n")],
        expect: &[("field-optional-to-required", "invoice.issued v1", "note", "error", "backward"),
                  ("field-optional-to-required", "invoice.issued v2", "note", "error", "backward")] },
    Case { name: "field-required-to-optional", bump: "major",
        edits: &[(BILLING, "{payment_id: int, account_number: str}", "{payment_id: int, account_number?: str}")],
        expect: &[("field-required-to-optional", "payment.taken v1", "account_number", "error", "forward")] },
    Case { name: "field-type-widened-int-to-num", bump: "major",
        edits: &[(BILLING, "          amount: int\n", "          amount: num\n")],
        expect: &[("field-type-widened", "invoice.issued v1", "amount", "error", "forward"),
                  ("field-type-widened", "invoice.issued v2", "amount", "error", "forward")] },
    Case { name: "field-type-narrowed-num-to-int", bump: "major",
        edits: &[(BILLING, "          price: num\n", "          price: int\n")],
        expect: &[("field-type-narrowed", "invoice.issued v1", "price", "error", "backward"),
                  ("field-type-narrowed", "invoice.issued v2", "price", "error", "backward")] },
    Case { name: "field-type-changed-str-to-int", bump: "major",
        edits: &[(BILLING, "{payment_id: int, account_number: str}", "{payment_id: int, account_number: int}")],
        expect: &[("borrowed-view-changed", "payment.taken v1", "", "warning", "none"),
                  ("field-type-changed", "payment.taken v1", "account_number", "error", "both")] },
    Case { name: "field-type-changed-scalar-to-array", bump: "major",
        edits: &[(BILLING, "          reference: str\n", "          reference: [str]\n")],
        expect: &[("field-type-changed", "invoice.issued v1", "reference", "error", "both"),
                  ("field-type-changed", "invoice.issued v2", "reference", "error", "both")] },
    Case { name: "named-type-to-obj-widens", bump: "major",
        edits: &[(BILLING, "{ledger: Ledger, entry_id: int}", "{ledger: obj, entry_id: int}")],
        expect: &[("field-type-widened", "ledger.posted v1", "ledger", "error", "forward")] },
    Case { name: "obj-to-named-type-narrows", bump: "major",
        edits: &[(BILLING, "          changes: obj\n", "          changes: Line\n")],
        expect: &[("field-type-narrowed", "invoice.issued v1", "changes", "error", "backward"),
                  ("field-type-narrowed", "invoice.issued v2", "changes", "error", "backward")] },
    // ---- maps (`map<T>`): their values compared like fields, at `.*`
    Case { name: "obj-to-map-narrows", bump: "major",
        edits: &[(BILLING, "          changes: obj\n", "          changes: map<str>\n")],
        expect: &[("field-type-narrowed", "invoice.issued v1", "changes", "error", "backward"),
                  ("field-type-narrowed", "invoice.issued v2", "changes", "error", "backward")] },
    Case { name: "map-to-obj-widens", bump: "major",
        edits: &[(REST, "prices: {type: \"map<num>\",", "prices: {type: obj,")],
        expect: &[("field-type-widened", "endpoint list_products", "response.results[].prices", "error", "forward")] },
    Case { name: "map-value-type-narrowed", bump: "major",
        edits: &[(REST, "prices: {type: \"map<num>\",", "prices: {type: \"map<int>\",")],
        expect: &[("field-type-narrowed", "endpoint list_products", "response.results[].prices.*", "error", "backward")] },
    // ---- shared types: one finding per event version that reaches the change, with the path
    Case { name: "shared-type-field-optional-propagates", bump: "major",
        edits: &[(TYPES, "fields: {number: str}", "fields: {number?: str}")],
        expect: &[("field-required-to-optional", "invoice.issued v1", "ledger.account.number", "error", "forward"),
                  ("field-required-to-optional", "invoice.issued v2", "ledger.account.number", "error", "forward"),
                  ("field-required-to-optional", "ledger.posted v1", "ledger.account.number", "error", "forward")] },
    Case { name: "shared-type-in-an-array", bump: "major",
        edits: &[(TYPES, "fields: {amount: int, label: str}", "fields: {amount: str, label: str}")],
        expect: &[("field-type-changed", "invoice.issued v1", "lines[].amount", "error", "both"),
                  ("field-type-changed", "invoice.issued v2", "lines[].amount", "error", "both")] },
    Case { name: "shared-type-field-added-optional", bump: "minor",
        edits: &[(TYPES, "fields: {amount: int, label: str}", "fields: {amount: int, label: str, unit?: str}")],
        expect: &[("field-added-optional", "invoice.issued v1", "lines[].unit", "info", "none"),
                  ("field-added-optional", "invoice.issued v2", "lines[].unit", "info", "none")] },
    Case { name: "shared-type-no-event-uses", bump: "major",
        edits: &[(TYPES, "fields: {code: str}", "fields: {code: int}")],
        expect: &[("borrowed-view-changed", "type Unused", "", "warning", "none"),
                  ("field-type-changed", "type Unused", "code", "error", "both")] },
    Case { name: "shared-type-removed", bump: "major",
        edits: &[(TYPES, "  Unused:\n    description: A type no event uses.\n    fields: {code: str}\n", "")],
        expect: &[("type-removed", "type Unused", "", "warning", "none")] },
    // ---- event types and versions
    Case { name: "event-type-removed", bump: "major",
        edits: &[(BILLING, "  - name: payment.taken\n    versions:\n      v1:\n        fields: {payment_id: int, account_number: str}\n", "")],
        expect: &[("event-type-removed", "payment.taken", "", "error", "backward")] },
    Case { name: "version-removed", bump: "major",
        edits: &[(BILLING, "      v3:\n        incomplete: true\n        fields: {invoice_id: int, reason: str, voided_at: str}\n", "")],
        expect: &[("version-removed", "invoice.voided v3", "", "error", "backward")] },
    Case { name: "version-removed-before-its-sunset", bump: "major",
        edits: &[(BILLING, "      v2:\n        deprecated: {sunset: 2099-01-01, note: Use v3.}\n        fields: {invoice_id: int, reason: str}\n", "")],
        expect: &[("version-removed", "invoice.voided v2", "", "error", "backward")] },
    Case { name: "version-removed-after-its-sunset", bump: "major",
        edits: &[(BILLING, "      v1:\n        deprecated: {sunset: 2026-01-01, note: Use v3.}\n        fields: {invoice_id: int}\n", "")],
        expect: &[("version-removed", "invoice.voided v1", "", "info", "backward")] },
    Case { name: "version-deprecated", bump: "minor",
        edits: &[(BILLING, "      v3:\n        incomplete: true\n", "      v3:\n        incomplete: true\n        deprecated: {sunset: 2027-06-30}\n")],
        expect: &[("version-deprecated", "invoice.voided v3", "", "info", "none")] },
    Case { name: "version-added", bump: "minor",
        edits: &[(BILLING, "        fields: {payment_id: int, account_number: str}\n", "        fields: {payment_id: int, account_number: str}\n      v2:\n        fields: {payment_id: int, account_number: str, taken_at: str}\n")],
        expect: &[("version-added", "payment.taken v2", "", "info", "none")] },
    Case { name: "version-not-needed", bump: "minor",
        edits: &[(BILLING, "        fields: {payment_id: int, account_number: str}\n", "        fields: {payment_id: int, account_number: str}\n      v2:\n        fields: {payment_id: int, account_number: str, note?: str}\n")],
        expect: &[("version-added", "payment.taken v2", "", "info", "none"),
                  ("version-not-needed", "payment.taken v2", "", "warning", "none")] },
    Case { name: "field-name-reused", bump: "minor",
        edits: &[(BILLING, "        fields: {payment_id: int, account_number: str}\n", "        fields: {payment_id: int, account_number: str}\n      v2:\n        fields: {payment_id: str, taken_at: str}\n")],
        expect: &[("field-name-reused", "payment.taken v2", "payment_id", "warning", "none"),
                  ("version-added", "payment.taken v2", "", "info", "none")] },
    Case { name: "event-type-added", bump: "minor",
        edits: &[(BILLING, "  - name: payment.taken\n", "  - name: payment.refunded\n    versions:\n      v1:\n        fields: {payment_id: int}\n  - name: payment.taken\n")],
        expect: &[("event-type-added", "payment.refunded", "", "info", "none")] },
    Case { name: "version-view-removed", bump: "major",
        edits: &[(BILLING, "        fields: {invoice_id: int, reason: str}\n", "        fields: {invoice_id: int, reason: str, refund_id?: int}\n")],
        expect: &[("field-added-optional", "invoice.voided v2", "refund_id", "info", "none"),
                  ("version-view-removed", "invoice.voided v3", "", "warning", "none")] },
    Case { name: "borrowed-view-changed", bump: "major",
        edits: &[(BILLING, "        fields: {invoice_id: int}\n", "        fields: {invoice_id: int, note?: str}\n")],
        expect: &[("field-added-optional", "invoice.voided v1", "note", "info", "none"),
                  ("borrowed-view-changed", "invoice.voided v1", "", "warning", "none"),
                  ("version-view-removed", "invoice.voided v2", "", "warning", "none"),
                  ("version-view-removed", "invoice.voided v3", "", "warning", "none")] },
    Case { name: "keeps-unlisted-fields", bump: "minor",
        edits: &[(BILLING, "      v1:\n        fields: {payment_id: int, account_number: str}\n", "      v1:\n        incomplete: true\n        fields: {payment_id: int, account_number: str}\n")],
        expect: &[("keeps-unlisted-fields", "payment.taken v1", "", "info", "none")] },
    Case { name: "drops-unlisted-fields", bump: "major",
        edits: &[(BILLING, "      v3:\n        incomplete: true\n", "      v3:\n")],
        expect: &[("drops-unlisted-fields", "invoice.voided v3", "", "info", "none")] },
    // ---- renames
    Case { name: "field-renamed", bump: "major",
        edits: &[(BILLING, "{payment_id: int, account_number: str}", "{payment_id: int, account: {type: str, renamed_from: account_number}}")],
        expect: &[("field-renamed", "payment.taken v1", "account", "error", "forward")] },
    Case { name: "event-type-renamed", bump: "major",
        edits: &[(BILLING, "  - name: payment.taken\n", "  - name: payment.received\n    renamed_from: payment.taken\n")],
        expect: &[("event-type-renamed", "payment.received", "", "error", "forward")] },
    Case { name: "event-type-renamed-with-a-waiver", bump: "major",
        edits: &[(BILLING, "  - name: payment.taken\n    versions:\n      v1:\n", "  - name: payment.received\n    renamed_from: payment.taken\n    versions:\n      v1:\n        waivers:\n          - {rule: event-type-renamed, reason: Every consumer moved to the new name in release 2026.11.}\n")],
        expect: &[("event-type-renamed", "payment.received", "", "info", "forward")] },
    // ---- waivers
    Case { name: "waiver-allows-a-break", bump: "major",
        edits: &[(BILLING, "      v1:\n        fields: {payment_id: int, account_number: str}\n", "      v1:\n        waivers:\n          - {rule: field-type-changed, path: account_number, reason: Producers always sent a number (INC-42).}\n        fields: {payment_id: int, account_number: int}\n")],
        expect: &[("avro-field-type-changed", "payment.taken v1", "account_number", "error", "both"),
                  ("borrowed-view-changed", "payment.taken v1", "", "warning", "none"),
                  ("field-type-changed", "payment.taken v1", "account_number", "info", "both")] },
    Case { name: "waiver-on-a-shared-type", bump: "major",
        edits: &[(TYPES, "    description: A billing account.\n    fields: {number: str}", "    description: A billing account.\n    waivers:\n      - {rule: field-required-to-optional, path: number, reason: Accounts being migrated have no number yet.}\n    fields: {number?: str}")],
        expect: &[("avro-field-type-changed", "invoice.issued v1", "ledger.account.number", "error", "forward"),
                  ("avro-field-type-changed", "invoice.issued v2", "ledger.account.number", "error", "forward"),
                  ("avro-field-type-changed", "ledger.posted v1", "ledger.account.number", "error", "forward"),
                  ("field-required-to-optional", "invoice.issued v1", "ledger.account.number", "info", "forward"),
                  ("field-required-to-optional", "invoice.issued v2", "ledger.account.number", "info", "forward"),
                  ("field-required-to-optional", "ledger.posted v1", "ledger.account.number", "info", "forward")] },
    // ---- wire-format identities: Protobuf field numbers recorded in the baseline
    Case { name: "protobuf-field-renumbered", bump: "none",
        edits: &[(LOCK, "  payment.taken.v1: [payment_id, account_number]\n", "  payment.taken.v1: [account_number, payment_id]\n")],
        expect: &[("protobuf-field-renumbered", "payment.taken v1", "account_number", "error", "both"),
                  ("protobuf-field-renumbered", "payment.taken v1", "payment_id", "error", "both")] },
    Case { name: "waiver-unused", bump: "none",
        edits: &[(BILLING, "      v1:\n        fields: {payment_id: int, account_number: str}\n", "      v1:\n        waivers:\n          - {rule: field-removed-required, path: account_number, reason: Stale.}\n        fields: {payment_id: int, account_number: str}\n")],
        expect: &[("waiver-unused", "payment.taken v1", "account_number", "error", "none")] },
    // ---- refactors that change nothing on the wire
    Case { name: "refactor-extends-written-out", bump: "none",
        edits: &[(BILLING, "        extends: v1\n        fields: {due_date: str}\n", "        fields:\n          invoice_id: int\n          account_number: str\n          amount: int\n          price: num\n          note?: str\n          lines: [Line]\n          changes: obj\n          ledger: Ledger\n          reference: str\n          due_date: str\n")],
        expect: &[] },
    Case { name: "refactor-fields-moved-into-a-base", bump: "none",
        edits: &[(BILLING, ISSUED_V1, "          amount: int\n          price: num\n          note?: str\n          lines: [Line]\n          changes: obj\n          ledger: Ledger\n          reference: str\n"),
                 (BILLING, "      v1:\n        fields:\n          amount: int", "      v1:\n        bases: [IB]\n        fields:\n          amount: int")],
        expect: &[] },
    Case { name: "refactor-payload-as-a-shared-type", bump: "none",
        edits: &[(BILLING, "      v1:\n        fields: {ledger: Ledger, entry_id: int}\n", "      v1:\n        payload: LedgerEntry\n"),
                 (TYPES, "  Line:\n", "  LedgerEntry:\n    description: A posted entry.\n    fields: {ledger: Ledger, entry_id: int}\n  Line:\n")],
        expect: &[] },
    // ---- REST: responses are read by clients, parameters are written by them
    Case { name: "endpoint-removed", bump: "major",
        edits: &[(REST, "  - name: get_account\n    method: GET\n    path: /v1/accounts/{number}/\n    description: One account.\n    path_parameters:\n      number: {type: str, description: The account number.}\n    response: Account\n    auth: required\n", "")],
        expect: &[("endpoint-removed", "endpoint get_account", "", "error", "forward")] },
    Case { name: "endpoint-added", bump: "major",
        edits: &[(REST, "    response: Account\n    auth: required\n", "    response: Account\n    auth: required\n  - name: get_product\n    method: GET\n    path: /v1/products/{code}/\n    description: One product.\n    path_parameters:\n      code: {type: str, description: The code.}\n    response: Product\n")],
        expect: &[("endpoint-added", "endpoint get_product", "", "info", "none")] },
    Case { name: "endpoint-moved", bump: "minor",
        edits: &[(REST, "path: /v1/products/\n", "path: /v1/catalogue/products/\n")],
        expect: &[("endpoint-moved", "endpoint list_products", "", "error", "both")] },
    Case { name: "auth-required", bump: "major",
        edits: &[(REST, "    response: Page<Product>\n", "    response: Page<Product>\n    auth: required\n")],
        expect: &[("auth-required", "endpoint list_products", "", "error", "forward")] },
    Case { name: "auth-no-longer-required", bump: "major",
        edits: &[(REST, "    response: Account\n    auth: required\n", "    response: Account\n")],
        expect: &[("auth-no-longer-required", "endpoint get_account", "", "info", "none")] },
    Case { name: "query-parameter-added-required", bump: "major",
        edits: &[(REST, "      page_size?: {type: int, description: Records per page.}\n", "      page_size?: {type: int, description: Records per page.}\n      market: {type: str, description: A market.}\n")],
        expect: &[("field-added-required", "endpoint list_products", "query.market", "error", "forward")] },
    Case { name: "query-parameter-added-optional", bump: "minor",
        edits: &[(REST, "      page_size?: {type: int, description: Records per page.}\n", "      page_size?: {type: int, description: Records per page.}\n      market?: {type: str, description: A market.}\n")],
        expect: &[("field-added-optional", "endpoint list_products", "query.market", "info", "none")] },
    Case { name: "query-parameter-removed", bump: "major",
        edits: &[(REST, "      brand?: {type: str, description: A brand code.}\n", "")],
        expect: &[("field-removed-optional", "endpoint list_products", "query.brand", "warning", "none")] },
    Case { name: "query-parameter-widened-breaks-old-servers", bump: "major",
        edits: &[(REST, "page_size?: {type: int,", "page_size?: {type: num,")],
        expect: &[("field-type-widened", "endpoint list_products", "query.page_size", "error", "backward")] },
    Case { name: "query-parameter-bounds-added", bump: "minor",
        edits: &[(REST, "page_size?: {type: int, description: Records per page.}", "page_size?: {type: int, minimum: 1, maximum: 1000, default: 100, description: Records per page.}")],
        expect: &[("parameter-narrowed", "endpoint list_products", "query.page_size", "error", "forward"),
                  ("parameter-default-changed", "endpoint list_products", "query.page_size", "warning", "none")] },
    Case { name: "query-parameter-bounds-widened", bump: "minor",
        edits: &[(REST, "page?: {type: int, minimum: 1,", "page?: {type: int, minimum: 0,")],
        expect: &[("parameter-widened", "endpoint list_products", "query.page", "error", "backward")] },
    Case { name: "response-field-added-optional", bump: "minor",
        edits: &[(REST, "      price: {type: num, description: Its price.}\n", "      price: {type: num, description: Its price.}\n      carbon_intensity?: {type: num, description: Grams of CO2 per kWh.}\n")],
        expect: &[("field-added-optional", "endpoint list_products", "response.results[].carbon_intensity", "info", "none")] },
    Case { name: "response-field-removed", bump: "major",
        edits: &[(REST, "      price: {type: num, description: Its price.}\n", "")],
        expect: &[("field-removed-required", "endpoint list_products", "response.results[].price", "error", "forward")] },
    Case { name: "response-field-nullable", bump: "major",
        edits: &[(REST, "      name: {type: str, description: Its name.}", "      name: {type: str, nullable: true, description: Its name.}")],
        expect: &[("field-nullable-added", "endpoint list_products", "response.results[].name", "error", "forward")] },
    Case { name: "response-field-no-longer-nullable", bump: "major",
        edits: &[(REST, "      next: {type: str, nullable: true, format: uri, description: The next page.}", "      next: {type: str, format: uri, description: The next page.}")],
        expect: &[("field-nullable-removed", "endpoint list_products", "response.next", "error", "backward")] },
    Case { name: "response-format-dropped", bump: "major",
        edits: &[(REST, "available_from: {type: str, format: date-time,", "available_from: {type: str,")],
        expect: &[("field-format-changed", "endpoint list_products", "response.results[].available_from", "error", "forward")] },
    Case { name: "response-becomes-free-form", bump: "major",
        edits: &[(REST, "    response: Page<Product>\n", "    response: Account\n")],
        expect: &[("field-type-widened", "endpoint list_products", "response", "error", "forward")] },
    Case { name: "resource-no-endpoint-returns", bump: "major",
        edits: &[(REST, "      x: {type: str, description: Something.}", "      x: {type: str, description: Something.}\n      y: {type: str, description: More.}")],
        expect: &[("field-added-required", "resource Orphan", "y", "error", "backward")] },
    Case { name: "resource-removed", bump: "major",
        edits: &[(REST, "  Orphan:\n    description: A resource no endpoint returns.\n    fields:\n      x: {type: str, description: Something.}\n", "")],
        expect: &[("type-removed", "resource Orphan", "", "warning", "none")] },
];

/// Writes the base schema with `case`'s edits into `dir` (emptied first).
pub fn write_edited(case: &Case, dir: &Path) {
    write_edited_with_lock(case, dir, None);
}

/// [`write_edited`], with the published baseline `lock` copied beside the schema first (as
/// `schema/published.lock` is in the repository), so that the generator numbers Protobuf fields from
/// it; without one, the case's edits of the baseline are left out.
pub fn write_edited_with_lock(case: &Case, dir: &Path, lock: Option<&Path>) {
    let _ = std::fs::remove_dir_all(dir);
    energy_testkit::copy_tree(&energy_testkit::generator_fixture("compat/base"), dir);
    if let Some(lock) = lock {
        std::fs::copy(lock, dir.join(LOCK)).unwrap();
    }
    for (file, from, to) in case.edits {
        if *file == LOCK && lock.is_none() {
            continue;
        }
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
}
