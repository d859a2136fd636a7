//! Traces across the bus, on a real `nats-server`: an event published inside a span and handled by a
//! consumer makes one trace (the consumer's `process` span under the publishing span), seen through an
//! in-memory OpenTelemetry exporter; the trace context
//! travels as `ce-traceparent` and `traceparent`, and capture, publishing a captured line and dead
//! letters keep it. (`energy` exporting its spans over OTLP: `cli/tests/otlp.rs`.)
#![cfg(feature = "bus")]

use energy_runtime::bus::lines::{draft_from_line, line_of};
use energy_runtime::bus::{
    Broker, Bus, CaptureRange, ConsumerConfig, Draft, HandlerError, Handlers, SetUp, Start,
};
use energy_runtime::events::Metadata;
use energy_testkit::nats::NatsServer;
use opentelemetry::trace::{SpanKind, TracerProvider as _};
use opentelemetry_sdk::trace::{InMemorySpanExporter, SdkTracerProvider, SpanData};
use std::time::Duration;
use tracing_subscriber::layer::SubscriberExt as _;

fn span<'a>(spans: &'a [SpanData], name: &str) -> &'a SpanData {
    spans.iter().find(|s| s.name == name).unwrap_or_else(|| {
        panic!(
            "no span `{name}` among {:?}",
            spans.iter().map(|s| &s.name).collect::<Vec<_>>()
        )
    })
}

fn attribute(span: &SpanData, key: &str) -> Option<String> {
    span.attributes
        .iter()
        .find(|kv| kv.key.as_str() == key)
        .map(|kv| kv.value.to_string())
}

#[test]
fn publish_and_handle_make_one_trace_and_the_context_survives_capture_and_dead_letters() {
    let exporter = InMemorySpanExporter::default();
    let provider = SdkTracerProvider::builder()
        .with_simple_exporter(exporter.clone())
        .build();
    let subscriber = tracing_subscriber::registry()
        .with(energy_runtime::bus::trace::layer().with_tracer(provider.tracer("energy-test")));
    // Global: the consumer's tasks run on the runtime's threads.
    tracing::subscriber::set_global_default(subscriber).expect("the only subscriber");

    let server = NatsServer::start();
    let runtime = tokio::runtime::Runtime::new().expect("a runtime");
    runtime.block_on(async {
        let bus = Bus::connect(&server.url).await.expect("connects");
        bus.init(&SetUp::default()).await.expect("streams");
        let publisher = bus.publisher();
        let draft = |id: &str, payload: &str| {
            let mut metadata = Metadata::new();
            metadata.insert_str("id", id);
            Draft {
                event_type: "business.created".to_owned(),
                version: "v1".to_owned(),
                payload: payload.to_owned().into(),
                metadata,
            }
        };
        {
            let checkout = tracing::info_span!("checkout");
            let _entered = checkout.enter();
            let message = publisher
                .prepare(&draft("traced-1", r#"{"id":1}"#))
                .expect("valid");
            assert!(
                message.headers.get("ce-traceparent").is_some()
                    && message.headers.get("traceparent") == message.headers.get("ce-traceparent"),
                "{:?}",
                message.headers
            );
            publisher.send(message).await.expect("published");
            publisher
                .publish_draft(draft("traced-2", r#"{"id":2}"#))
                .await
                .expect("published");
        }

        let mut handlers = Handlers::new();
        handlers.fallback(|decoded, context| async move {
            let _ = decoded;
            if context.id == "traced-2" {
                return Err(HandlerError::reject("not for us"));
            }
            tracing::info!("handled");
            Ok(())
        });
        let stats = bus
            .consumer(ConsumerConfig::durable("traced").idle_exit(Duration::from_secs(1)))
            .await
            .expect("a consumer")
            .run(handlers, std::future::pending())
            .await
            .expect("runs");
        assert_eq!((stats.handled, stats.dead_lettered), (1, 1));

        provider.force_flush().expect("flushed");
        let spans = exporter.get_finished_spans().expect("spans");
        let checkout = span(&spans, "checkout");
        let process = span(&spans, "process energy.business.created.v1");
        let trace = checkout.span_context.trace_id();
        assert_eq!(process.span_context.trace_id(), trace, "one trace");
        assert_eq!(process.parent_span_id, checkout.span_context.span_id());
        assert_eq!(process.span_kind, SpanKind::Consumer);
        assert!(process.parent_span_is_remote);
        assert_eq!(
            attribute(process, "messaging.consumer.group.name").as_deref(),
            Some("traced")
        );
        assert_eq!(
            attribute(process, "messaging.system").as_deref(),
            Some("nats")
        );
        assert_eq!(
            attribute(process, "cloudevents.event_type").as_deref(),
            Some("business.created")
        );
        let processes: Vec<&SpanData> = spans
            .iter()
            .filter(|s| s.name == "process energy.business.created.v1")
            .collect();
        assert_eq!(processes.len(), 2, "one handling span per delivery");
        assert!(
            processes.iter().all(|p| p.span_context.trace_id() == trace),
            "each handling in the publisher's trace"
        );

        // Capture keeps the context; the captured line published again carries the same one.
        let mut lines = Vec::new();
        bus.capture(
            &CaptureRange {
                filters: Vec::new(),
                start: Start::All,
                follow: false,
                idle_exit: None,
            },
            &mut |message| {
                lines.push((
                    message.headers.get("traceparent").map(str::to_owned),
                    line_of(&message.headers, &message.payload).0,
                ));
                Ok(())
            },
            Box::pin(std::future::pending()),
        )
        .await
        .expect("captured");
        let (original, line) = &lines[0];
        let original = original.clone().expect("a traceparent header");
        assert!(
            line.contains(&format!(r#""traceparent":"{original}""#)),
            "{line}"
        );
        let again = {
            let other = tracing::info_span!("another-trace");
            let _entered = other.enter();
            publisher
                .prepare(&draft_from_line(line.as_bytes()).expect("a valid line"))
                .expect("valid")
        };
        assert_eq!(again.headers.get("traceparent"), Some(original.as_str()));
        assert_eq!(again.headers.get("ce-traceparent"), Some(original.as_str()));

        // The dead letter keeps the original's context.
        let letters = bus.dead_letters(None).await.expect("dead letters");
        assert_eq!(letters.len(), 1);
        let (_, dead_line) = &lines[1];
        let dead_parent = letters[0].headers.get("traceparent").expect("kept");
        assert!(dead_line.contains(dead_parent), "{dead_line}");
    });
}
