//! Whether a consumer is healthy, for `/healthz` and for whoever asks.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

/// Whether a consumer is healthy: connected to a server, and pulling (its last pull request did not
/// fail, and it has not stopped). Shared by the consumer, which updates it, and whoever asks.
#[derive(Clone, Debug, Default)]
pub struct Health(Arc<HealthState>);

#[derive(Debug, Default)]
struct HealthState {
    started: AtomicBool,
    stopped: AtomicBool,
    failing_pulls: AtomicU64,
    disconnected: AtomicBool,
}

impl Health {
    /// `Ok` when healthy, else why not.
    pub fn check(&self) -> Result<(), String> {
        let state = &self.0;
        if !state.started.load(Ordering::Relaxed) {
            return Err("not started".to_owned());
        }
        if state.stopped.load(Ordering::Relaxed) {
            return Err("stopped".to_owned());
        }
        if state.disconnected.load(Ordering::Relaxed) {
            return Err("not connected to a server".to_owned());
        }
        match state.failing_pulls.load(Ordering::Relaxed) {
            0 => Ok(()),
            n => Err(format!("the last {n} pull requests failed")),
        }
    }

    pub(crate) fn started(&self) {
        self.0.started.store(true, Ordering::Relaxed);
    }

    pub(crate) fn stopped(&self) {
        self.0.stopped.store(true, Ordering::Relaxed);
    }

    pub(crate) fn pulled(&self, ok: bool) {
        if ok {
            self.0.failing_pulls.store(0, Ordering::Relaxed);
        } else {
            self.0.failing_pulls.fetch_add(1, Ordering::Relaxed);
        }
    }

    pub(crate) fn connected(&self, connected: bool) {
        self.0.disconnected.store(!connected, Ordering::Relaxed);
    }
}
