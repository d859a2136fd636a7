//! The step of `cargo xtask test` that holds `cargo xtask compat`'s semver bumps to cargo-semver-checks:
//! the ignored test `cargo_semver_checks_agrees_with_every_bump` (`codegen/tests/semver_checks.rs`), run with the
//! pinned cargo-semver-checks.
//!
//! No registry this project reaches ships cargo-semver-checks prebuilt, so it is built from crates.io
//! (`cargo install --locked`, a debug build without debug info: about a third of the CPU time of a
//! release build, and fast enough for the small crates it compares) into `tools/semver-checks/`, once per
//! pinned version. `cargo xtask test` starts that build at its beginning, in the background at the lowest
//! priority, so that it takes the CPU the other steps leave idle (the bus tests wait on a broker, the
//! validators on Node and Chromium); this step waits for it, then runs the test. `CARGO_SEMVER_CHECKS`
//! names a binary to use instead.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// The pinned version.
const VERSION: &str = "0.51.0";

/// The install folder, relative to the workspace root (`bin/cargo-semver-checks` in it).
const DIR: &str = "tools/semver-checks";

/// How long the build may take, in the background of the other steps and then alone.
const BUILD_LIMIT: Duration = Duration::from_secs(45 * 60);

/// The build started by [`start_install`], and when it started.
static BUILD: Mutex<Option<(Child, Instant)>> = Mutex::new(None);

/// The binary, when `CARGO_SEMVER_CHECKS` names one or the pinned version is installed.
fn installed(root: &Path) -> Option<PathBuf> {
    if let Some(path) = std::env::var_os("CARGO_SEMVER_CHECKS") {
        return Some(PathBuf::from(path));
    }
    let dir = root.join(DIR);
    let binary = dir.join("bin").join("cargo-semver-checks");
    let stamp = std::fs::read_to_string(dir.join(".installed-version")).ok()?;
    (stamp.trim() == VERSION && binary.is_file()).then_some(binary)
}

/// The log of the build, beside the install.
fn log_path(root: &Path) -> PathBuf {
    root.join(DIR).join("build.log")
}

/// `cargo install --locked` of the pinned version, at the lowest CPU priority where `nice` exists, its
/// output into [`log_path`]; its build folder is under the target folder, so a second build is
/// incremental.
fn spawn_build(root: &Path) -> Result<Child, String> {
    let dir = root.join(DIR);
    std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create {DIR}: {e}"))?;
    let log = std::fs::File::create(log_path(root))
        .map_err(|e| format!("cannot write {DIR}/build.log: {e}"))?;
    let log_too = log
        .try_clone()
        .map_err(|e| format!("cannot write {DIR}/build.log: {e}"))?;
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let nice = Command::new("nice")
        .arg("true")
        .stdin(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    let mut command = if nice {
        let mut nice = Command::new("nice");
        nice.args(["-n", "19"]).arg(&cargo);
        nice
    } else {
        Command::new(&cargo)
    };
    command
        .args(["install", "--locked", "--debug", "--force"])
        .args(["cargo-semver-checks", "--version", &format!("={VERSION}")])
        .arg("--root")
        .arg(&dir)
        .arg("--target-dir")
        .arg(crate::target_dir(root).join("semver-checks-build"))
        // A debug build without debug info: the least to compile and link.
        .env("CARGO_PROFILE_DEV_DEBUG", "0")
        .stdin(Stdio::null())
        .stdout(log)
        .stderr(log_too)
        .spawn()
        .map_err(|e| format!("cannot run cargo install: {e}"))
}

/// Starts building the pinned cargo-semver-checks in the background, unless it is there (a failure
/// to start is reported by [`check`], which tries again).
pub(crate) fn start_install(root: &Path) {
    if installed(root).is_some() {
        return;
    }
    eprintln!(
        "==> building cargo-semver-checks {VERSION} into {DIR}/ in the background (once per version; log: {DIR}/build.log)"
    );
    if let Ok(child) = spawn_build(root)
        && let Ok(mut slot) = BUILD.lock()
    {
        *slot = Some((child, Instant::now()));
    }
}

/// Ends the build started in the background, when `cargo xtask test` stops before the step that needs it.
pub(crate) fn abandon() {
    if let Some((mut child, _)) = BUILD.lock().ok().and_then(|mut slot| slot.take()) {
        let _ = child.kill();
        let _ = child.wait();
    }
}

/// Waits for the build (started in the background, or now) and gives the binary.
fn finish_build(root: &Path) -> Result<PathBuf, String> {
    let pending = BUILD.lock().ok().and_then(|mut slot| slot.take());
    let (mut child, started) = match pending {
        Some(build) => build,
        None => (spawn_build(root)?, Instant::now()),
    };
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if started.elapsed() > BUILD_LIMIT => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!(
                    "building cargo-semver-checks took more than {BUILD_LIMIT:?} (log: {DIR}/build.log)"
                ));
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(200)),
            Err(e) => return Err(format!("cannot wait for cargo install: {e}")),
        }
    };
    let log = std::fs::read_to_string(log_path(root)).unwrap_or_default();
    if !status.success() {
        return Err(format!(
            "cargo install cargo-semver-checks {VERSION} failed ({status}):\n{}",
            crate::tools::clip(&log)
        ));
    }
    std::fs::write(root.join(DIR).join(".installed-version"), VERSION)
        .map_err(|e| format!("cannot write {DIR}/.installed-version: {e}"))?;
    eprintln!(
        "    built cargo-semver-checks {VERSION}, {:.0} s after it started",
        started.elapsed().as_secs_f64()
    );
    Ok(root.join(DIR).join("bin").join("cargo-semver-checks"))
}

/// The step: waits for the build (or builds now), then runs the ignored test with the binary.
pub(crate) fn check(root: &Path) -> Result<(), String> {
    let started = Instant::now();
    let binary = match installed(root) {
        Some(binary) => {
            abandon();
            binary
        }
        None => {
            eprintln!("    waiting for the build of cargo-semver-checks");
            finish_build(root)?
        }
    };
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
