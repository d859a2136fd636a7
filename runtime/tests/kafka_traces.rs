//! Traces across the bus on a real Kafka-protocol broker (`tansu`): an event published inside a span and
//! handled by a consumer group makes one trace (the consumer's `process` span under the publishing span,
//! `messaging.system` `kafka`), through an in-memory OpenTelemetry exporter; the context travels in the
//! record's `ce_traceparent` and `traceparent` headers, and its dead letter keeps it.
#![cfg(feature = "kafka")]

use energy_runtime::bus::kafka::KafkaBus;
use energy_runtime::bus::{Broker, SetUp};
use energy_runtime::bus::{ConsumerConfig, Draft, HandlerError, Handlers};
use energy_runtime::events::Metadata;
use energy_testkit::kafka::KafkaBroker;
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
fn publish_and_handle_on_kafka_make_one_trace_and_the_dead_letter_keeps_it() {
    let exporter = InMemorySpanExporter::default();
    let provider = SdkTracerProvider::builder()
        .with_simple_exporter(exporter.clone())
        .build();
    let subscriber = tracing_subscriber::registry()
        .with(energy_runtime::bus::trace::layer().with_tracer(provider.tracer("energy-test")));
    tracing::subscriber::set_global_default(subscriber).expect("the only subscriber");

    let broker = KafkaBroker::start();
    energy_testkit::bounded(90, async {
        let bus = KafkaBus::connect(&broker.url).await.expect("connects");
        bus.init(&SetUp::default()).await.expect("topics");
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
        let traceparent = {
            let checkout = tracing::info_span!("checkout");
            let _entered = checkout.enter();
            let message = publisher
                .prepare(&draft("traced-1", r#"{"id":1}"#))
                .expect("valid");
            let traceparent = message.headers.get("traceparent").map(str::to_owned);
            assert!(traceparent.is_some(), "{:?}", message.headers);
            publisher.send(message).await.expect("published");
            publisher
                .publish_draft(draft("traced-2", r#"{"id":2}"#))
                .await
                .expect("published");
            traceparent
        };
        let mut handlers = Handlers::new();
        handlers.fallback(|_, context| async move {
            if context.id == "traced-2" {
                return Err(HandlerError::reject("not for us"));
            }
            Ok(())
        });
        let stats = bus
            .consumer(
                ConsumerConfig::durable("traced")
                    .idle_exit(Duration::from_secs(1))
                    .ack_wait(Duration::from_secs(6)),
            )
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
        assert_eq!(
            process.span_context.trace_id(),
            checkout.span_context.trace_id(),
            "one trace"
        );
        assert_eq!(process.parent_span_id, checkout.span_context.span_id());
        assert_eq!(process.span_kind, SpanKind::Consumer);
        assert_eq!(
            attribute(process, "messaging.system").as_deref(),
            Some("kafka")
        );
        assert_eq!(
            attribute(process, "messaging.consumer.group.name").as_deref(),
            Some("traced")
        );
        let letters = bus.dead_letters(None).await.expect("dead letters");
        assert_eq!(letters.len(), 1);
        assert_eq!(
            letters[0].headers.get("traceparent").map(str::to_owned),
            traceparent,
            "the dead letter keeps the trace context"
        );
    });
}
