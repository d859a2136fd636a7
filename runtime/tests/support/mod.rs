//! Helpers shared by the tests: a real HTTP server on 127.0.0.1, real `nats-server` processes, and the
//! fixtures.
#![allow(dead_code)] // Each test binary uses its own part of the helpers.

pub mod hostile;
pub mod nats;
pub mod secrets;
pub mod server;

use std::path::PathBuf;

/// A fixture under the workspace's `tests/fixtures/` (`rest/...` or `real-responses/...`), with
/// `{base_url}` replaced by the test server's base URL.
pub fn fixture(path: &str, base_url: &str) -> String {
    let file = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/fixtures")
        .join(path);
    std::fs::read_to_string(&file)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", file.display()))
        .replace("{base_url}", base_url)
}
