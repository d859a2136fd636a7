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
use opentelemetry::propagation::{Extractor, Injector, TextMapPropagator};
use opentelemetry::trace::TraceContextExt;
use opentelemetry_sdk::propagation::TraceContextPropagator;
use tracing_opentelemetry::OpenTelemetrySpanExt;

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

/// Writes the context of `span` into `headers`, both as the CloudEvents attributes and as plain
/// headers; nothing when the span records nothing (no subscriber, or one without OpenTelemetry).
pub(crate) fn inject(span: &tracing::Span, headers: &mut Headers) {
    if span.is_disabled() {
        return;
    }
    let context = span.context();
    if !context.span().span_context().is_valid() {
        return;
    }
    let mut fields = Fields::default();
    TraceContextPropagator::new().inject_context(&context, &mut fields);
    for (name, value) in fields.0 {
        // The propagator writes an empty trace state when there is none: not worth two headers.
        if value.is_empty() {
            continue;
        }
        let attribute = match name.as_str() {
            TRACEPARENT => CE_TRACEPARENT,
            TRACESTATE => CE_TRACESTATE,
            _ => continue,
        };
        headers.append(attribute, percent_encode(&value).into_owned());
        headers.append(name, value);
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

#[derive(Default)]
struct Fields(Vec<(String, String)>);

impl Injector for Fields {
    fn set(&mut self, key: &str, value: String) {
        self.0.push((key.to_owned(), value));
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
