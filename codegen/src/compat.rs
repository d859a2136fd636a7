//! Schema evolution, as `cargo xtask compat` runs it: the check of the schema against the published
//! baseline (or a git revision), its findings and report, and publishing. The rules are in the private
//! `evolution` module, the command in `publication`; these are the items xtask and the tests use.

pub use crate::evolution::{
    Bump, Compatibility, Counterexample, Finding, Place, Rule, Severity, Subject, Verdict,
    VersionPair, classify,
};
pub use crate::publication::{
    Baseline, Coverage, Format, GOLDEN_DIR, LOCK_FILE, Published, Readers, Report, VersionReaders,
    check, coverage, golden_cases, publish, published_versions,
};
