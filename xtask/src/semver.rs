//! The step of `cargo xtask test` that holds `cargo xtask compat`'s semver bumps to cargo-semver-checks:
//! the ignored test `cargo_semver_checks_agrees_with_every_bump` (`codegen/tests/semver_checks.rs`), run with the
//! pinned cargo-semver-checks.
//!
//! No registry this project reaches ships cargo-semver-checks prebuilt, so it is built from crates.io in
//! the background of the other steps ([`crate::background`]: a debug build without debug info, about a
//! third of the CPU time of a release build, and fast enough for the small crates it compares) into
//! `tools/semver-checks/`; this step waits for it, then runs the test. `CARGO_SEMVER_CHECKS` names a
//! binary to use instead.

use crate::background::Install;
use std::path::Path;
use std::process::{Child, Command};
use std::sync::Mutex;
use std::time::{Duration, Instant};

static BUILD: Mutex<Option<(Child, Instant)>> = Mutex::new(None);

/// cargo-semver-checks, pinned: a debug build without debug info (the least to compile and link).
pub(crate) static INSTALL: Install = Install {
    krate: "cargo-semver-checks",
    binary: "cargo-semver-checks",
    version: "0.51.0",
    dir: "tools/semver-checks",
    instead: "CARGO_SEMVER_CHECKS",
    args: &["--debug"],
    env: &[("CARGO_PROFILE_DEV_DEBUG", "0")],
    limit: Duration::from_secs(45 * 60),
    build: &BUILD,
};

/// The step: waits for the build (or builds now), then runs the ignored test with the binary.
pub(crate) fn check(root: &Path) -> Result<(), String> {
    let started = Instant::now();
    let binary = INSTALL.finish(root)?;
    let waited = started.elapsed();
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    // The same selection of packages and features as the workspace's tests: nothing is built again.
    let status = Command::new(cargo)
        .current_dir(root)
        .args([
            "test",
            "--workspace",
            "--all-features",
            "--test",
            "semver_checks",
        ])
        .args(["--", "--ignored", "--nocapture"])
        .env("CARGO_SEMVER_CHECKS", &binary)
        .status()
        .map_err(|e| format!("cannot run cargo test: {e}"))?;
    eprintln!(
        "    waited {:.0} s for cargo-semver-checks, compared the crates in {:.0} s",
        waited.as_secs_f64(),
        (started.elapsed() - waited).as_secs_f64()
    );
    if status.success() {
        Ok(())
    } else {
        Err(format!(
            "cargo-semver-checks disagrees with a bump of `cargo xtask compat` ({status}): see the table above"
        ))
    }
}
