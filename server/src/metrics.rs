//! The server's figures for an operator, in the Prometheus / OpenMetrics text format at `/metrics`:
//!
//! | metric | type | labels | what |
//! |---|---|---|---|
//! | `http_server_requests_total` | counter | `operation`, `status` | requests answered, by operation (`list_products`, …; `none` for no operation: 404, 405, limits) and status |
//! | `http_server_request_duration_seconds` | histogram | `operation` | time from the request to its response |
//! | `http_server_active_requests` | gauge | | requests being answered now |
//! | `http_server_shed_requests_total` | counter | | requests refused with 503 because too many were in flight |
//!
//! Names follow OpenTelemetry's HTTP server conventions as their Prometheus translation writes them.

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::Histogram;
use prometheus_client::registry::{Registry, Unit};
use std::sync::Arc;
use std::time::Duration;

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct Answered {
    operation: &'static str,
    status: u16,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct Timed {
    operation: &'static str,
}

/// Request durations' bucket bounds, in seconds: 0.5 ms to 10 s.
const BUCKETS: [f64; 14] = [
    0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0,
];

/// The figures of one server. Cheap to clone: clones count into the same series.
#[derive(Clone)]
pub struct ServerMetrics {
    registry: Arc<Registry>,
    answered: Family<Answered, Counter>,
    duration: Family<Timed, Histogram>,
    pub(crate) active: Gauge,
    pub(crate) shed: Counter,
}

impl ServerMetrics {
    /// A registry of its own with the server's figures.
    pub fn new() -> Self {
        let mut registry = Registry::default();
        let answered = Family::<Answered, Counter>::default();
        let duration = Family::<Timed, Histogram>::new_with_constructor(|| {
            Histogram::new(BUCKETS.iter().copied())
        });
        let active = Gauge::default();
        let shed = Counter::default();
        registry.register(
            "http_server_requests",
            "Requests answered, by operation and status",
            answered.clone(),
        );
        registry.register_with_unit(
            "http_server_request_duration",
            "Time from a request to its response, by operation",
            Unit::Seconds,
            duration.clone(),
        );
        registry.register(
            "http_server_active_requests",
            "Requests being answered now",
            active.clone(),
        );
        registry.register(
            "http_server_shed_requests",
            "Requests refused with 503 because too many were in flight",
            shed.clone(),
        );
        Self {
            registry: Arc::new(registry),
            answered,
            duration,
            active,
            shed,
        }
    }

    /// Counts one answer.
    pub(crate) fn answered(&self, operation: &'static str, status: u16, took: Duration) {
        self.answered
            .get_or_create(&Answered { operation, status })
            .inc();
        self.duration
            .get_or_create(&Timed { operation })
            .observe(took.as_secs_f64());
    }

    /// The figures in the OpenMetrics text format.
    pub fn encode(&self) -> String {
        let mut out = String::new();
        // Writing into a String cannot fail.
        let _ = prometheus_client::encoding::text::encode(&mut out, &self.registry);
        out
    }
}

impl Default for ServerMetrics {
    fn default() -> Self {
        Self::new()
    }
}
