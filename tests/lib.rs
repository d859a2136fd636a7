//! Shared helpers of the cross-crate tests: where the workspace, the schema and the fixtures are.
#![forbid(unsafe_code)]

use std::path::PathBuf;

/// The workspace root.
pub fn workspace_root() -> PathBuf {
    let tests_dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    tests_dir.parent().map(PathBuf::from).unwrap_or(tests_dir)
}

/// The real schema folder.
pub fn schema_dir() -> PathBuf {
    workspace_root().join("schema")
}

/// The checked-in `energy-api` crate.
pub fn generated_dir() -> PathBuf {
    workspace_root().join("generated")
}

/// A fixture file or folder under `tests/fixtures/`.
pub fn fixture(path: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures")
        .join(path)
}

/// The README's Rust examples, compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
