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

mod support;

use support::compat_cases;

use compat_cases::{CASES, Case};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The scratch folder of this file's crates, under the workspace's `target/`.
fn scratch() -> PathBuf {
    energy_testkit::workspace()
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
    let core = energy_testkit::workspace().join("api-core");
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
// `invoice.voided` v2 is deprecated in the base schema, and still handled here, as teams do until its sunset.
#![allow(deprecated)]

use energy_api::events::{
    InvoiceIssued, InvoiceIssuedV1, InvoiceVoidedV2, InvoiceVoidedV3, PaymentTaken, PaymentTakenV1,
};
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

/// A handler of `invoice.voided` v2 given a v3, through the version view.
pub fn voided(v3: InvoiceVoidedV3) -> InvoiceVoidedV2 {
    InvoiceVoidedV2::from(v3)
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
        energy_testkit::workspace().join("Cargo.lock"),
        dir.join("Cargo.lock"),
    )
    .unwrap();
    let output = cargo()
        .current_dir(&dir)
        .args(["check", "--offline", "--quiet", "-p", "consumer"])
        .env("RUSTFLAGS", "-D warnings")
        .env(
            "CARGO_TARGET_DIR",
            energy_testkit::workspace()
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
    // Major changes that cargo-semver-checks does not report (see `VERDICTS`), each proven here.
    for (name, what, symptom) in [
        (
            "field-added-required",
            "a required field changes `new`",
            "takes 3 arguments",
        ),
        (
            "version-view-removed",
            "v3 is no longer a view of v2",
            "expected `InvoiceVoidedV2`, found `InvoiceVoidedV3`",
        ),
        (
            "query-parameter-added-required",
            "a required parameter takes `Default` away",
            "default",
        ),
    ] {
        assert_eq!(case(name).bump, "major", "{name}");
        let error = check_consumer(case(name)).expect_err(what);
        assert!(error.contains(symptom), "{name}: {error}");
    }
}

/// What cargo-semver-checks says of each case against the base: (case, its verdict, its lints, why it
/// differs from the case's bump where it does). Its verdict is `major`, `minor` (with
/// `--release-type patch`, minor-level lints fail) or `none`; it has no verdict for additions, so `none`
/// agrees with our `minor` where nothing but additions changed.
type Verdict = (
    &'static str,
    &'static str,
    &'static [&'static str],
    &'static str,
);

/// A type changed under a field: cargo-semver-checks 0.51 has no lint comparing field types; code
/// reading the field stops compiling (the witnesses of `docs/semver-check.md`).
const NO_TYPE_LINT: &str =
    "it has no lint for a field's type; code reading the field stops compiling";

#[rustfmt::skip]
const VERDICTS: &[Verdict] = &[
    ("field-removed-required", "major", &["method_parameter_count_changed", "struct_pub_field_missing"], ""),
    ("field-removed-optional", "major", &["inherent_method_missing", "struct_pub_field_missing"], ""),
    ("field-added-required", "major", &["method_parameter_count_changed"], ""),
    ("field-added-optional", "none", &[], ""),
    ("field-optional-to-required", "major", &["inherent_method_missing", "method_parameter_count_changed"], ""),
    ("field-required-to-optional", "major", &["method_parameter_count_changed"], ""),
    ("field-type-widened-int-to-num", "none", &[], NO_TYPE_LINT),
    ("field-type-narrowed-num-to-int", "none", &[], NO_TYPE_LINT),
    ("field-type-changed-str-to-int", "major", &["type_mismatched_generic_lifetimes"], ""),
    ("field-type-changed-scalar-to-array", "none", &[], NO_TYPE_LINT),
    ("named-type-to-obj-widens", "none", &[], NO_TYPE_LINT),
    ("obj-to-named-type-narrows", "none", &[], NO_TYPE_LINT),
    ("obj-to-map-narrows", "none", &[], NO_TYPE_LINT),
    ("map-to-obj-widens", "none", &[], NO_TYPE_LINT),
    ("map-value-type-narrowed", "none", &[], NO_TYPE_LINT),
    ("shared-type-field-optional-propagates", "major", &["method_parameter_count_changed"], ""),
    ("shared-type-in-an-array", "none", &[], NO_TYPE_LINT),
    ("shared-type-field-added-optional", "none", &[], ""),
    ("shared-type-no-event-uses", "major", &["type_mismatched_generic_lifetimes"], ""),
    ("shared-type-removed", "major", &["struct_missing"], ""),
    ("event-type-removed", "major", &["enum_missing", "enum_variant_missing", "struct_missing"], ""),
    ("version-removed", "major", &["enum_variant_missing", "struct_missing"], ""),
    ("version-removed-before-its-sunset", "major", &["enum_variant_missing", "struct_missing"], ""),
    ("version-removed-after-its-sunset", "major", &["enum_variant_missing", "struct_missing"], ""),
    ("version-deprecated", "minor", &["type_marked_deprecated"], ""),
    ("version-added", "none", &[], ""),
    ("version-not-needed", "none", &[], ""),
    ("field-name-reused", "none", &[], ""),
    ("event-type-added", "major", &["enum_no_repr_variant_discriminant_changed", "partial_ord_enum_variants_reordered"], "on purpose: `EventType`'s numeric values (an `as` cast) move when a name sorts before others; its docs say they are not API"),
    ("version-view-removed", "none", &[], "it has no lint for a trait impl removed: `From<InvoiceVoidedV3> for InvoiceVoidedV2` is gone, `InvoiceVoidedV2::from(v3)` stops compiling"),
    ("borrowed-view-changed", "major", &["derive_trait_impl_removed", "inherent_method_missing", "type_mismatched_generic_lifetimes"], ""),
    ("keeps-unlisted-fields", "none", &[], ""),
    ("drops-unlisted-fields", "major", &["struct_pub_field_missing"], ""),
    ("field-renamed", "major", &["struct_pub_field_missing"], ""),
    ("event-type-renamed", "major", &["enum_missing", "enum_variant_missing", "struct_missing"], ""),
    ("event-type-renamed-with-a-waiver", "major", &["enum_missing", "enum_variant_missing", "struct_missing"], ""),
    ("waiver-allows-a-break", "major", &["type_mismatched_generic_lifetimes"], ""),
    ("waiver-on-a-shared-type", "major", &["method_parameter_count_changed"], ""),
    ("protobuf-field-renumbered", "none", &[], ""),
    ("waiver-unused", "none", &[], ""),
    ("refactor-extends-written-out", "none", &[], ""),
    ("refactor-fields-moved-into-a-base", "none", &[], ""),
    ("refactor-payload-as-a-shared-type", "none", &[], ""),
    ("endpoint-removed", "major", &["enum_missing", "struct_missing", "trait_method_missing"], ""),
    ("endpoint-added", "major", &["trait_method_added"], ""),
    ("endpoint-moved", "none", &[], ""),
    ("auth-required", "major", &["trait_method_parameter_count_changed"], ""),
    ("auth-no-longer-required", "major", &["trait_method_parameter_count_changed"], ""),
    ("query-parameter-added-required", "none", &[], "it does not report the derived `Default` removed: `ListProducts::default()` stops compiling"),
    ("query-parameter-added-optional", "none", &[], ""),
    ("query-parameter-removed", "major", &["inherent_method_missing", "struct_pub_field_missing"], ""),
    ("query-parameter-widened-breaks-old-servers", "none", &[], NO_TYPE_LINT),
    ("query-parameter-bounds-added", "none", &[], ""),
    ("query-parameter-bounds-widened", "none", &[], ""),
    ("response-field-added-optional", "none", &[], ""),
    ("response-field-removed", "major", &["method_parameter_count_changed", "struct_pub_field_missing"], ""),
    ("response-field-nullable", "none", &[], NO_TYPE_LINT),
    ("response-field-no-longer-nullable", "none", &[], NO_TYPE_LINT),
    ("response-format-dropped", "none", &[], NO_TYPE_LINT),
    ("response-becomes-free-form", "none", &[], "it does not compare an associated type: `<ListProducts as Endpoint>::Response` changes"),
    ("resource-no-endpoint-returns", "major", &["method_parameter_count_changed"], ""),
    ("resource-removed", "major", &["struct_missing"], ""),
];

/// `none`, `patch`, `minor`, `major` as a rank.
fn rank(bump: &str) -> usize {
    ["none", "patch", "minor", "major"]
        .iter()
        .position(|b| *b == bump)
        .unwrap_or_else(|| panic!("no bump `{bump}`"))
}

/// The rustdoc JSON of `case`'s crate (every feature, private items too, as cargo-semver-checks builds
/// it), copied to `dir/<case>.json`.
fn rustdoc(case: &Case, dir: &Path) -> PathBuf {
    let root = dir.join(case.name);
    generate(case, &root);
    std::fs::write(
        root.join("Cargo.toml"),
        "[workspace]\nresolver = \"3\"\nmembers = [\"energy-api\"]\n",
    )
    .unwrap();
    std::fs::copy(
        energy_testkit::workspace().join("Cargo.lock"),
        root.join("Cargo.lock"),
    )
    .unwrap();
    let target = energy_testkit::workspace()
        .join("target")
        .join("semver-rustdoc");
    let output = cargo()
        .current_dir(&root)
        .args(["rustdoc", "--offline", "--quiet", "--lib", "--all-features"])
        .args(["-p", "energy-api", "--"])
        .args(["-Zunstable-options", "--output-format", "json"])
        .args(["--document-private-items", "--document-hidden-items"])
        .args(["--cap-lints", "allow"])
        // Rustdoc's JSON output is unstable: cargo-semver-checks itself builds it so on a stable
        // toolchain.
        .env("RUSTC_BOOTSTRAP", "1")
        .env("CARGO_TARGET_DIR", &target)
        .output()
        .expect("cargo runs");
    assert!(
        output.status.success(),
        "rustdoc of {}: {}",
        case.name,
        String::from_utf8_lossy(&output.stderr)
    );
    let json = dir.join(format!("{}.json", case.name));
    std::fs::copy(target.join("doc").join("energy_api.json"), &json).expect("rustdoc JSON");
    json
}

/// cargo-semver-checks on two rustdoc JSON files: its verdict and the lints that failed or warned.
fn semver_checks(tool: &std::ffi::OsStr, baseline: &Path, current: &Path) -> (String, Vec<String>) {
    let output = Command::new(tool)
        .args(["semver-checks", "check-release", "--release-type", "patch"])
        .args(["--color", "never"])
        .arg("--baseline-rustdoc")
        .arg(baseline)
        .arg("--current-rustdoc")
        .arg(current)
        .output()
        .expect("cargo-semver-checks runs");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    let summary = text
        .lines()
        .find_map(|l| l.trim().strip_prefix("Summary "))
        .unwrap_or_else(|| panic!("no summary from cargo-semver-checks:\n{text}"));
    let verdict = if summary.contains("new major version") {
        "major"
    } else if summary.contains("new minor version") {
        "minor"
    } else if summary.contains("no semver update required") {
        "none"
    } else {
        panic!("unknown summary `{summary}`")
    };
    let mut lints: Vec<String> = text
        .lines()
        .filter_map(|l| {
            l.strip_prefix("--- failure ")
                .or_else(|| l.strip_prefix("--- warning "))
        })
        .filter_map(|l| l.split(':').next())
        .map(str::to_owned)
        .collect();
    lints.sort();
    lints.dedup();
    (verdict.to_owned(), lints)
}

/// Every case's crate against the base's, by cargo-semver-checks: never more than our bump unless
/// recorded with a reason, and exactly the verdict recorded in [`VERDICTS`]. Prints the table of
/// `docs/semver-check.md`.
#[test]
#[ignore = "needs cargo-semver-checks: `cargo xtask test` installs it and runs this with CARGO_SEMVER_CHECKS set"]
fn cargo_semver_checks_agrees_with_every_bump() {
    let tool = std::env::var_os("CARGO_SEMVER_CHECKS")
        .expect("CARGO_SEMVER_CHECKS: the path of the cargo-semver-checks binary");
    let dir = scratch().join("rustdoc");
    let baseline = rustdoc(&BASE, &dir);
    let mut rows = Vec::new();
    let mut failures = Vec::new();
    for case in CASES {
        let current = rustdoc(case, &dir);
        let (verdict, lints) = semver_checks(&tool, &baseline, &current);
        let ours: std::collections::BTreeSet<&str> = case.expect.iter().map(|e| e.0).collect();
        let ours = ours.into_iter().collect::<Vec<_>>().join(", ");
        let recorded = VERDICTS.iter().find(|v| v.0 == case.name);
        let agrees = rank(&verdict) == rank(case.bump)
            || (verdict == "none" && case.bump == "minor")
            || (verdict == "none" && case.bump == "patch");
        let note = recorded.map_or("", |v| v.3);
        rows.push(format!(
            "| {} | {} | {} | {} | {} | {} |",
            case.name,
            if ours.is_empty() { "-" } else { &ours },
            case.bump,
            verdict,
            if lints.is_empty() {
                "-".to_owned()
            } else {
                lints.join(", ")
            },
            if agrees {
                "agrees".to_owned()
            } else {
                format!("**differs**: {note}")
            },
        ));
        match recorded {
            None => failures.push(format!(
                "{}: not in VERDICTS (found {verdict} {lints:?})",
                case.name
            )),
            Some((_, v, l, _)) if *v != verdict || *l != lints.as_slice() => {
                failures.push(format!(
                    "{}: recorded {v} {l:?}, found {verdict} {lints:?}",
                    case.name
                ))
            }
            Some((_, _, _, why)) if !agrees && why.is_empty() => failures.push(format!(
                "{}: ours {}, cargo-semver-checks {verdict}, and no reason recorded",
                case.name, case.bump
            )),
            Some(_) => {}
        }
    }
    eprintln!(
        "| case | our rule(s) | our bump | cargo-semver-checks | its lints | |\n|---|---|---|---|---|---|\n{}",
        rows.join("\n")
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
