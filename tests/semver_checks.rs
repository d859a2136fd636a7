//! What a change of the schema does to code using the generated crate, as Rust sees it: the crates of
//! the compatibility cases (`compat_cases.rs`, the same edits `compat_mutations.rs` checks) built before
//! and after the edit.
//!
//! - A consumer written against the base crate (field access, patterns with `..`, the version enums,
//!   the constructors and setters) still compiles after an optional field is added to an event version,
//!   a shared type, a REST resource or a request, and stops compiling after a required one is added.
//! - cargo-semver-checks (pinned, installed by `cargo xtask test`, which runs the ignored test here with
//!   `CARGO_SEMVER_CHECKS` set) compares the base crate with each case's crate; its verdict must never ask
//!   for more than `cargo xtask compat`'s bump, and must be the one recorded in [`VERDICTS`], where every
//!   disagreement is explained (`docs/semver-check.md` holds the table).

mod compat_cases;

use compat_cases::{CASES, Case};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The scratch folder of this file's crates, under the workspace's `target/`.
fn scratch() -> PathBuf {
    energy_tests::workspace_root()
        .join("target")
        .join("semver-cases")
}

/// The base schema (no edit).
const BASE: Case = Case {
    name: "base",
    bump: "none",
    edits: &[],
    expect: &[],
};

/// Generates the crate of `case`'s schema into `dir/energy-api/`, named `energy-api` as the real one, its
/// `energy-api-core` dependency made absolute; the schema itself goes into `dir/schema/`.
fn generate(case: &Case, dir: &Path) -> PathBuf {
    let schema = dir.join("schema");
    compat_cases::write_edited(case, &schema);
    let mut files = energy_codegen::generate(&schema, None)
        .unwrap_or_else(|f| panic!("{}: {}", case.name, f.render(false)));
    let core = energy_tests::workspace_root().join("api-core");
    let manifest = files
        .get_mut("Cargo.toml")
        .expect("a manifest is generated");
    *manifest = manifest.replace(
        "path = \"../api-core\"",
        &format!("path = \"{}\"", core.display()),
    );
    let krate = dir.join("energy-api");
    let _ = std::fs::remove_dir_all(&krate);
    energy_codegen::write_files(&krate, &files, false).expect("crate written");
    krate
}

fn cargo() -> Command {
    Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned()))
}

/// Code a user of the base crate writes: reading (fields, `..` patterns, the version enums) and building
/// (constructors, setters, `Default`).
const CONSUMER: &str = r#"//! A user of the base crate.
#![forbid(unsafe_code)]

use energy_api::events::{InvoiceIssued, InvoiceIssuedV1, PaymentTaken, PaymentTakenV1};
use energy_api::rest::{ListProducts, Page, Product};
use energy_api::types::{BillingAccount, Ledger, Line};
use energy_api::{Event, EventType};

/// Field access and patterns with `..`, through the version enums.
pub fn account_number(event: &Event) -> Option<&str> {
    match event {
        Event::PaymentTaken(PaymentTaken::V1(PaymentTakenV1 { account_number, .. })) => Some(account_number),
        Event::InvoiceIssued(InvoiceIssued::V1(v1)) => Some(&v1.account_number),
        Event::InvoiceIssued(InvoiceIssued::V2(v2)) => Some(&v2.account_number),
        _ => None,
    }
}

/// A shared type's fields, optional ones included.
pub fn ledger(ledger: &Ledger) -> (&str, &str, Option<&str>) {
    let Ledger { account, number, id, .. } = ledger;
    (&account.number, number, id.as_deref())
}

/// A REST resource's fields, through the generic page.
pub fn names(page: &Page<Product>) -> Vec<&str> {
    page.results.iter().map(|Product { name, .. }| name.as_str()).collect()
}

/// Every version of an event type, with a fallback arm for later ones.
pub fn version(event: &PaymentTaken) -> &'static str {
    match event {
        PaymentTaken::V1(_) => "v1",
        _ => "later",
    }
}

/// A producer: payloads, shared types and requests built from their required fields and setters.
pub fn produce() -> (Event, InvoiceIssuedV1, ListProducts) {
    let payment = Event::from(PaymentTaken::from(PaymentTakenV1::new(7, "A-1")));
    let ledger = Ledger::new(BillingAccount::new("A-1"), "L-1").with_id("7");
    let invoice = InvoiceIssuedV1::new(1, "A-1", 100, 1.5, vec![Line::new(100, "gas")], serde_json::Map::new(), ledger, "R-1")
        .with_note("first");
    let request = ListProducts::default().with_brand("OE").with_page_size(10);
    (payment, invoice, request)
}

/// The catalogue as it is now.
pub fn types() -> &'static [EventType] {
    EventType::ALL
}
"#;

/// `cargo check` of [`CONSUMER`] against the crate of `case`: the error output when it fails.
fn check_consumer(case: &Case) -> Result<(), String> {
    let dir = scratch().join("consumers").join(case.name);
    generate(case, &dir);
    std::fs::create_dir_all(dir.join("consumer/src")).unwrap();
    std::fs::write(dir.join("consumer/src/lib.rs"), CONSUMER).unwrap();
    std::fs::write(
        dir.join("consumer/Cargo.toml"),
        "[package]\nname = \"consumer\"\nversion = \"0.0.0\"\nedition = \"2024\"\npublish = false\n\n\
         [dependencies]\nenergy-api = { path = \"../energy-api\" }\nserde_json = \"1\"\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("Cargo.toml"),
        "[workspace]\nresolver = \"3\"\nmembers = [\"consumer\", \"energy-api\"]\n",
    )
    .unwrap();
    std::fs::copy(
        energy_tests::workspace_root().join("Cargo.lock"),
        dir.join("Cargo.lock"),
    )
    .unwrap();
    let output = cargo()
        .current_dir(&dir)
        .args(["check", "--offline", "--quiet", "-p", "consumer"])
        .env("RUSTFLAGS", "-D warnings")
        .env(
            "CARGO_TARGET_DIR",
            energy_tests::workspace_root()
                .join("target")
                .join("scratch-check"),
        )
        .output()
        .expect("cargo runs");
    if output.status.success() {
        Ok(())
    } else {
        Err(String::from_utf8_lossy(&output.stderr).into_owned())
    }
}

fn case(name: &str) -> &'static Case {
    CASES
        .iter()
        .find(|c| c.name == name)
        .unwrap_or_else(|| panic!("no case {name}"))
}

/// Code written against the crate before an optional field is added (to a published event version, a
/// shared type, a REST resource, a request) compiles unchanged after it: those changes are minor
/// releases. A required field added is not (the constructor takes it), which the same code proves.
#[test]
fn code_written_before_an_optional_field_compiles_after_it() {
    check_consumer(&BASE).unwrap_or_else(|e| panic!("the consumer of the base crate: {e}"));
    for name in [
        "field-added-optional",
        "shared-type-field-added-optional",
        "response-field-added-optional",
        "query-parameter-added-optional",
        "keeps-unlisted-fields",
    ] {
        assert_eq!(case(name).bump, "minor", "{name}");
        check_consumer(case(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
    }
    let required = case("field-added-required");
    assert_eq!(required.bump, "major");
    let error = check_consumer(required).expect_err("a required field changes `new`");
    assert!(
        error.contains("PaymentTakenV1::new") || error.contains("takes 3 arguments"),
        "{error}"
    );
}
