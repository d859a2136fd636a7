//! Traces across the bus: W3C Trace Context travels with every event, so that a consumer's handling is
//! part of the trace that published the event.
//!
//! - The publisher writes the context of the caller's current `tracing` span into the message, as the
//!   CloudEvents distributed-tracing extension says (`ce-traceparent`, `ce-tracestate`: attributes,
//!   binary mode) and as plain `traceparent` / `tracestate` headers (what NATS-native tools read). A
//!   message that already carries a trace context (a captured line published again) keeps its own.
//!   (No span of its own per message: a span costs microseconds, and the caller's span already says
//!   what is being published.)
//! - The consumer runs each handler in a `process <subject>` span (kind consumer) whose parent is the
//!   context the message carries, with the messaging attributes (`messaging.system`,
//!   `messaging.operation.type`, `messaging.destination.name`, `messaging.consumer.group.name`,
//!   `messaging.message.id`, `cloudevents.event_type`).
//! - Capture keeps the headers (the `ce-` ones as envelope fields, the plain ones in `headers`), so does
//!   a dead letter: the trace goes on when they are published again.
//!
//! Spans are `tracing` spans; with a subscriber that has the `tracing-opentelemetry` layer they become
//! OpenTelemetry spans, exported where that layer's tracer sends them (`energy` built with the `otlp`
//! feature exports over OTLP when `OTEL_EXPORTER_OTLP_ENDPOINT` is set). With no subscriber, nothing is
//! made and nothing is written.

use super::headers::{Headers, percent_encode};
use opentelemetry::propagation::{Extractor, TextMapPropagator};
use opentelemetry::trace::noop::NoopTracer;
use opentelemetry::trace::{SpanContext, TraceContextExt, TraceFlags};
use opentelemetry_sdk::propagation::TraceContextPropagator;
use tracing_opentelemetry::{OpenTelemetryLayer, OpenTelemetrySpanExt};
use tracing_subscriber::registry::LookupSpan;

/// The W3C trace context header.
pub const TRACEPARENT: &str = "traceparent";
/// The W3C trace state header.
pub const TRACESTATE: &str = "tracestate";
/// The CloudEvents distributed-tracing extension's attributes, as binary-mode headers.
pub const CE_TRACEPARENT: &str = "ce-traceparent";
/// See [`CE_TRACEPARENT`].
pub const CE_TRACESTATE: &str = "ce-tracestate";

/// Whether the headers carry a trace context already.
pub fn carries_context(headers: &Headers) -> bool {
    headers.get(CE_TRACEPARENT).is_some() || headers.get(TRACEPARENT).is_some()
}

/// The `tracing-opentelemetry` layer as `energy` runs it, for a consumer's or a producer's subscriber:
/// spans with their messaging attributes and W3C context, without what the layer adds to every span by
/// default (the source file and line, the thread, the target as attributes; busy and idle times, two
/// clock readings at every poll; the OpenTelemetry context made current at every poll), each of which
/// costs on every message and says nothing about one. Code that asks OpenTelemetry itself for the
/// current context (rather than `tracing`) reads `tracing::Span::current().context()` instead
/// (`OpenTelemetrySpanExt`). Give it a tracer: `trace::layer().with_tracer(provider.tracer("my-service"))`.
pub fn layer<S>() -> OpenTelemetryLayer<S, NoopTracer>
where
    S: tracing::Subscriber + for<'span> LookupSpan<'span>,
{
    tracing_opentelemetry::layer()
        .with_location(false)
        .with_threads(false)
        .with_target(false)
        .with_tracked_inactivity(false)
        .with_context_activation(false)
}

/// Writes the context of `span` into `headers`, both as the CloudEvents attributes and as plain
/// headers; nothing when the span records nothing (no subscriber, or one without OpenTelemetry).
///
/// The `traceparent` value is written as the W3C propagator writes it (version `00`, only the sampled
/// flag), once for both headers: it is lowercase hex and `-`, nothing to percent-encode. An empty trace
/// state is not worth two headers.
pub(crate) fn inject(span: &tracing::Span, headers: &mut Headers) {
    if span.is_disabled() {
        return;
    }
    let context = span.context();
    let span = context.span();
    let span_context = span.span_context();
    if !span_context.is_valid() {
        return;
    }
    let parent = traceparent(span_context);
    headers.append(CE_TRACEPARENT, parent.clone());
    headers.append(TRACEPARENT, parent);
    let state = span_context.trace_state().header();
    if !state.is_empty() {
        headers.append(CE_TRACESTATE, percent_encode(&state).into_owned());
        headers.append(TRACESTATE, state);
    }
}

/// The `traceparent` header of `span_context`, as the W3C propagator writes it (version `00`, only the
/// sampled flag); written digit by digit: the formatting machinery costs more than the rest of the
/// header on every message.
fn traceparent(span_context: &SpanContext) -> String {
    let mut out = String::with_capacity(55);
    out.push_str("00-");
    push_hex(&mut out, &span_context.trace_id().to_bytes());
    out.push('-');
    push_hex(&mut out, &span_context.span_id().to_bytes());
    out.push('-');
    push_hex(
        &mut out,
        &[(span_context.trace_flags() & TraceFlags::SAMPLED).to_u8()],
    );
    out
}

/// `bytes` in lowercase hex.
fn push_hex(out: &mut String, bytes: &[u8]) {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    for byte in bytes {
        out.push(char::from(DIGITS[usize::from(byte >> 4)]));
        out.push(char::from(DIGITS[usize::from(byte & 0xf)]));
    }
}

/// Makes `span`'s parent the context a message carries (the CloudEvents attributes first, else the plain
/// headers); nothing when it carries none, or when the span records nothing.
pub(crate) fn continue_from(headers: &Headers, span: &tracing::Span) {
    if span.is_disabled() || !carries_context(headers) {
        return;
    }
    let context = TraceContextPropagator::new().extract(&Carrier(headers));
    if context.span().span_context().is_valid() {
        let _ = span.set_parent(context);
    }
}

struct Carrier<'a>(&'a Headers);

impl Extractor for Carrier<'_> {
    fn get(&self, key: &str) -> Option<&str> {
        let attribute = match key {
            TRACEPARENT => Some(CE_TRACEPARENT),
            TRACESTATE => Some(CE_TRACESTATE),
            _ => None,
        };
        attribute
            .and_then(|attribute| self.0.get(attribute))
            // A value that is percent-encoded is read from the plain header instead.
            .filter(|value| !value.contains('%') && !value.starts_with('"'))
            .or_else(|| self.0.get(key))
    }

    fn keys(&self) -> Vec<&str> {
        vec![TRACEPARENT, TRACESTATE]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use opentelemetry::propagation::Injector;
    use opentelemetry::trace::{SpanId, TraceId, TraceState};

    struct Written(Vec<(String, String)>);

    impl Injector for Written {
        fn set(&mut self, key: &str, value: String) {
            self.0.push((key.to_owned(), value));
        }
    }

    /// What `inject` writes is what the W3C propagator writes, for sampled and unsampled contexts.
    #[test]
    fn the_traceparent_is_the_propagators() {
        for flags in [
            TraceFlags::SAMPLED,
            TraceFlags::default(),
            TraceFlags::new(0xff),
        ] {
            let span_context = SpanContext::new(
                TraceId::from_hex("0af7651916cd43dd8448eb211c80319c").expect("hex"),
                SpanId::from_hex("00f067aa0ba902b7").expect("hex"),
                flags,
                true,
                TraceState::default(),
            );
            let mut written = Written(Vec::new());
            let context =
                opentelemetry::Context::new().with_remote_span_context(span_context.clone());
            TraceContextPropagator::new().inject_context(&context, &mut written);
            let expected = written
                .0
                .iter()
                .find(|(k, _)| k == TRACEPARENT)
                .map(|(_, v)| v.clone());
            assert_eq!(Some(traceparent(&span_context)), expected);
        }
    }
}
