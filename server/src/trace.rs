//! Trace context as the bus carries it: a request's W3C `traceparent` (and `tracestate`) makes its
//! span part of the caller's trace. Spans are `tracing` spans; with a subscriber that has the
//! `tracing-opentelemetry` layer they become OpenTelemetry spans (kind server), else nothing is made.

use axum::http::HeaderMap;
use opentelemetry::propagation::{Extractor, TextMapPropagator as _};
use opentelemetry_sdk::propagation::TraceContextPropagator;
use tracing_opentelemetry::OpenTelemetrySpanExt as _;

struct Headers<'h>(&'h HeaderMap);

impl Extractor for Headers<'_> {
    fn get(&self, key: &str) -> Option<&str> {
        self.0.get(key).and_then(|v| v.to_str().ok())
    }

    fn keys(&self) -> Vec<&str> {
        self.0.keys().map(|k| k.as_str()).collect()
    }
}

/// The span of one request to `operation`, a child of the trace its headers carry.
pub(crate) fn request_span(
    operation: &'static str,
    route: &'static str,
    headers: &HeaderMap,
) -> tracing::Span {
    let span = tracing::info_span!(
        "request",
        otel.name = operation,
        otel.kind = "server",
        http.route = route,
        http.request.method = "GET",
    );
    if !span.is_disabled() {
        let parent = TraceContextPropagator::new().extract(&Headers(headers));
        // A context that carries no valid span leaves the span a root: nothing to do on failure.
        let _ = span.set_parent(parent);
    }
    span
}
