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
use opentelemetry::trace::noop::NoopTracer;
use opentelemetry::trace::{SpanContext, SpanId, TraceContextExt, TraceFlags, TraceId};
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
    if span.is_disabled() {
        return;
    }
    if let Some(span_context) = remote_context(headers) {
        let _ =
            span.set_parent(opentelemetry::Context::new().with_remote_span_context(span_context));
    }
}

/// The trace context `headers` carry, read as the W3C propagator reads it; `None` when they carry none,
/// or none that is valid.
///
/// Read here rather than by `TraceContextPropagator::extract` (three quarters of what continuing a
/// trace cost per message: a vector of the parts, a lookup per header asked, a radix parse): one pass
/// over the headers, and the ids read as the fixed-width lowercase hex the W3C format says they are.
/// A `ce-` attribute that is percent-encoded or quoted is read from its plain header instead.
fn remote_context(headers: &Headers) -> Option<SpanContext> {
    let (mut parent, mut plain_parent, mut state, mut plain_state) = (None, None, None, None);
    for (name, value) in headers.iter() {
        let slot = if name.eq_ignore_ascii_case(CE_TRACEPARENT) {
            &mut parent
        } else if name.eq_ignore_ascii_case(TRACEPARENT) {
            &mut plain_parent
        } else if name.eq_ignore_ascii_case(CE_TRACESTATE) {
            &mut state
        } else if name.eq_ignore_ascii_case(TRACESTATE) {
            &mut plain_state
        } else {
            continue;
        };
        // The first of a repeated header counts.
        slot.get_or_insert(value);
    }
    let readable = |value: &&str| !value.contains('%') && !value.starts_with('"');
    let parent = parent.filter(readable).or(plain_parent)?;
    let (trace_id, span_id, flags) = parse_traceparent(parent.trim())?;
    let state = state
        .filter(readable)
        .or(plain_state)
        .and_then(|state| state.parse().ok())
        .unwrap_or_default();
    let span_context = SpanContext::new(trace_id, span_id, flags, true, state);
    span_context.is_valid().then_some(span_context)
}

/// A `traceparent` value: `version-trace_id-parent_id-flags` in lowercase hex (2, 32, 16 and 2 digits);
/// version `ff` is invalid, version `00` has exactly these four parts, a later version may add parts
/// after a `-`. Of the flags only `sampled` is kept, as the W3C propagator keeps it.
fn parse_traceparent(value: &str) -> Option<(TraceId, SpanId, TraceFlags)> {
    let bytes = value.as_bytes();
    if bytes.len() < 55 || bytes[2] != b'-' || bytes[35] != b'-' || bytes[52] != b'-' {
        return None;
    }
    let version = hex_u128(&bytes[..2])?;
    if version == 0xff
        || (version == 0 && bytes.len() != 55)
        || (bytes.len() > 55 && bytes[55] != b'-')
    {
        return None;
    }
    let trace_id = TraceId::from(hex_u128(&bytes[3..35])?);
    let span_id = SpanId::from(u64::try_from(hex_u128(&bytes[36..52])?).ok()?);
    let flags =
        TraceFlags::new(u8::try_from(hex_u128(&bytes[53..55])?).ok()?) & TraceFlags::SAMPLED;
    Some((trace_id, span_id, flags))
}

/// Lowercase hex digits (at most 32) as a number; `None` for any other byte.
fn hex_u128(digits: &[u8]) -> Option<u128> {
    let mut value = 0u128;
    for digit in digits {
        let nibble = match digit {
            b'0'..=b'9' => digit - b'0',
            b'a'..=b'f' => digit - b'a' + 10,
            _ => return None,
        };
        value = (value << 4) | u128::from(nibble);
    }
    Some(value)
}

#[cfg(test)]
mod tests {
    use super::*;
    use opentelemetry::propagation::{Extractor, Injector, TextMapPropagator};
    use opentelemetry::trace::TraceState;
    use opentelemetry_sdk::propagation::TraceContextPropagator;

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

    /// The plain W3C headers, as the propagator is given them.
    struct Plain<'a>(&'a [(&'a str, &'a str)]);

    impl Extractor for Plain<'_> {
        fn get(&self, key: &str) -> Option<&str> {
            self.0.iter().find(|(k, _)| *k == key).map(|(_, v)| *v)
        }

        fn keys(&self) -> Vec<&str> {
            self.0.iter().map(|(k, _)| *k).collect()
        }
    }

    fn propagators(pairs: &[(&str, &str)]) -> Option<SpanContext> {
        let context = TraceContextPropagator::new().extract(&Plain(pairs));
        let span_context = context.span().span_context().clone();
        span_context.is_valid().then_some(span_context)
    }

    fn headers(pairs: &[(&'static str, &str)]) -> Headers {
        let mut headers = Headers::new();
        for (name, value) in pairs {
            headers.append(*name, *value);
        }
        headers
    }

    const PARENT: &str = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";

    /// What the consumer reads of a well-formed context (and of a malformed one: nothing) is what the
    /// W3C propagator reads, from the plain headers and from the CloudEvents attributes alike.
    #[test]
    fn a_context_is_read_as_the_propagator_reads_it() {
        let parents = [
            PARENT,
            "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-00",
            // Unknown flags are dropped, only `sampled` kept.
            "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-ff",
            // A later version may carry more parts.
            "cc-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01-what-comes-next",
            " 00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01 ",
            // Invalid: version ff, version 00 with more parts, ids of zeros, uppercase, wrong widths.
            "ff-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
            "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01-more",
            "00-00000000000000000000000000000000-b7ad6b7169203331-01",
            "00-0af7651916cd43dd8448eb211c80319c-0000000000000000-01",
            "00-0AF7651916CD43DD8448EB211C80319C-b7ad6b7169203331-01",
            "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-0x",
            "",
            "not a context",
        ];
        let states = [
            None,
            Some("congo=t61rcWkgMzE,rojo=00f067aa0ba902b7"),
            Some("not a state"),
        ];
        for parent in parents {
            for state in states {
                let mut plain = vec![(TRACEPARENT, parent)];
                plain.extend(state.map(|state| (TRACESTATE, state)));
                let expected = propagators(&plain);
                assert_eq!(remote_context(&headers(&plain)), expected, "{plain:?}");
                let mut attributes = vec![("ce-id", "1"), (CE_TRACEPARENT, parent)];
                attributes.extend(state.map(|state| (CE_TRACESTATE, state)));
                assert_eq!(
                    remote_context(&headers(&attributes)),
                    expected,
                    "{attributes:?}"
                );
            }
        }
        assert!(propagators(&[(TRACEPARENT, PARENT)]).is_some_and(|c| c.is_sampled()));
    }

    /// Where the propagator is lenient (it parses each part as a number in radix 16, so a part of the
    /// wrong width or with a sign passes), the consumer holds to the W3C format's fixed widths.
    #[test]
    fn parts_of_the_wrong_width_are_refused() {
        for parent in [
            "00-0af7651916cd43dd8448eb211c80319c-b7ad6b716920333-01",
            "00-0af7651916cd43dd8448eb211c80319cb-7ad6b7169203331-01",
            "00-+af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
            "00-af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01-",
        ] {
            assert!(propagators(&[(TRACEPARENT, parent)]).is_some(), "{parent}");
            assert_eq!(
                remote_context(&headers(&[(TRACEPARENT, parent)])),
                None,
                "{parent}"
            );
        }
    }

    /// The CloudEvents attribute is read first; one that is percent-encoded or quoted gives way to the
    /// plain header; the first of a repeated header counts; no context, nothing.
    #[test]
    fn the_attribute_comes_first_unless_it_is_encoded() {
        let other = "00-11111111111111111111111111111111-2222222222222222-00";
        let read = |pairs: &[(&'static str, &str)]| {
            remote_context(&headers(pairs)).map(|c| c.trace_id().to_string())
        };
        let ids = |parent: &str| Some(parent[3..35].to_owned());
        assert_eq!(
            read(&[(TRACEPARENT, other), (CE_TRACEPARENT, PARENT)]),
            ids(PARENT)
        );
        assert_eq!(read(&[("CE-TraceParent", PARENT)]), ids(PARENT));
        let quoted = format!("\"{PARENT}\"");
        assert_eq!(
            read(&[(CE_TRACEPARENT, &quoted), (TRACEPARENT, other)]),
            ids(other)
        );
        assert_eq!(
            read(&[(CE_TRACEPARENT, "00%2D0af7"), (TRACEPARENT, other)]),
            ids(other)
        );
        assert_eq!(
            read(&[(TRACEPARENT, PARENT), (TRACEPARENT, other)]),
            ids(PARENT)
        );
        assert_eq!(
            read(&[("ce-id", "1"), ("ce-type", "billing.account.created")]),
            None
        );
        let state = remote_context(&headers(&[
            (CE_TRACEPARENT, PARENT),
            (CE_TRACESTATE, "rojo%3D1"),
            (TRACESTATE, "congo=2"),
        ]))
        .map(|c| c.trace_state().header());
        assert_eq!(state.as_deref(), Some("congo=2"));
    }
}
