//! What the workspace's tests share, written once: real servers on 127.0.0.1 (`nats-server`
//! processes, an HTTP server with canned replies, a hostile HTTP server), `energy` processes, the
//! secrets a secured deployment hands out (certificates, NKeys, JWTs) made at test time, and the
//! fixtures. A dev-dependency only; it depends on none of the workspace's own crates, so that each
//! test compiles the crate it tests once.
#![forbid(unsafe_code)]

pub mod fixtures;
pub mod hostile;
pub mod json_schemas;
pub mod kafka;
pub mod nats;
pub mod process;
pub mod secrets;
pub mod server;

pub use fixtures::{
    copy_tree, copy_tree_in_order, fixture, fixture_path, generated_dir, generator_fixture,
    golden_cases, schema_dir, two_events, workspace,
};
pub use json_schemas::SchemaFiles;

/// Runs `work` on a two-thread runtime of its own, failing the test when it takes more than `seconds`.
pub fn bounded<F: std::future::Future>(seconds: u64, work: F) -> F::Output {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a runtime")
        .block_on(async {
            tokio::time::timeout(std::time::Duration::from_secs(seconds), work)
                .await
                .unwrap_or_else(|_| panic!("the test did not finish within {seconds} s"))
        })
}
