//! Traces of `energy` exported over OTLP (HTTP, protobuf), with the `otlp` feature, when
//! `OTEL_EXPORTER_OTLP_ENDPOINT` (or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`) is set: the spans of
//! `energy_runtime::bus::trace` (the publisher's `create`, the consumer's `process`) go to that
//! collector, under the service name `OTEL_SERVICE_NAME` (default `energy`). Without the variable,
//! nothing is installed and nothing is made.

use opentelemetry::trace::TracerProvider as _;
use opentelemetry_sdk::Resource;
use opentelemetry_sdk::trace::SdkTracerProvider;
use tracing_subscriber::Layer as _;
use tracing_subscriber::layer::SubscriberExt as _;

/// The installed exporter; dropping it sends what is still buffered.
pub(crate) struct Telemetry(Option<SdkTracerProvider>);

/// Installs the OTLP exporter when the environment asks for one.
pub(crate) fn init() -> Telemetry {
    let asked = [
        "OTEL_EXPORTER_OTLP_ENDPOINT",
        "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
    ]
    .iter()
    .any(|name| std::env::var_os(name).is_some_and(|v| !v.is_empty()));
    if !asked {
        return Telemetry(None);
    }
    let exporter = match opentelemetry_otlp::SpanExporter::builder()
        .with_http()
        .build()
    {
        Ok(exporter) => exporter,
        Err(e) => {
            eprintln!("warning: traces are not exported: {e}");
            return Telemetry(None);
        }
    };
    let mut resource = Resource::builder();
    if std::env::var_os("OTEL_SERVICE_NAME").is_none() {
        resource = resource.with_service_name("energy");
    }
    let provider = SdkTracerProvider::builder()
        .with_batch_exporter(exporter)
        .with_resource(resource.build())
        .build();
    // Spans and events at INFO and above: the NATS client's own debug and trace events (a few per
    // message) are neither exported nor paid for.
    let subscriber = tracing_subscriber::registry().with(
        energy_runtime::bus::trace::layer()
            .with_tracer(provider.tracer("energy"))
            .with_filter(tracing_subscriber::filter::LevelFilter::INFO),
    );
    if tracing::subscriber::set_global_default(subscriber).is_err() {
        eprintln!("warning: traces are not exported: a tracing subscriber is installed already");
        return Telemetry(None);
    }
    Telemetry(Some(provider))
}

impl Drop for Telemetry {
    fn drop(&mut self) {
        if let Some(provider) = self.0.take()
            && let Err(e) = provider.shutdown()
        {
            eprintln!("warning: the last traces were not exported: {e}");
        }
    }
}
