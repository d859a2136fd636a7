//! Trace context as the bus carries it: a request with a W3C `traceparent` is answered in a span of the
//! caller's trace (kind server, named after its operation), seen through an in-memory OpenTelemetry
//! exporter, on a real server on 127.0.0.1.

use energy_server::{DataSet, Keys, PublicUrl, RouterConfig, Server};
use opentelemetry::trace::{SpanKind, TracerProvider as _};
use opentelemetry_sdk::trace::{InMemorySpanExporter, SdkTracerProvider};
use std::io::{Read as _, Write as _};
use tracing_subscriber::layer::SubscriberExt as _;

#[test]
fn a_request_with_a_traceparent_is_answered_in_a_span_of_the_callers_trace() {
    let exporter = InMemorySpanExporter::default();
    let provider = SdkTracerProvider::builder()
        .with_simple_exporter(exporter.clone())
        .build();
    let subscriber = tracing_subscriber::registry()
        .with(tracing_opentelemetry::layer().with_tracer(provider.tracer("energy-server-test")));
    tracing::subscriber::set_global_default(subscriber).expect("the only subscriber");

    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .expect("a runtime");
    let listener = runtime
        .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
        .expect("a port");
    let address = listener.local_addr().expect("an address");
    let config = RouterConfig::new(PublicUrl::parse(&format!("http://{address}")).expect("a URL"));
    let router = Server::new(DataSet::mock().expect("the examples"), Keys::new(), config).router();
    runtime.spawn(energy_server::serve(
        listener,
        router,
        None,
        Default::default(),
        std::future::pending(),
    ));

    let trace_id = "4bf92f3577b34da6a3ce929d0e0e4736";
    let parent = "00f067aa0ba902b7";
    let mut stream = std::net::TcpStream::connect(address).expect("connects");
    write!(
        stream,
        "GET /v1/products/?page_size=1 HTTP/1.1\r\nHost: x\r\ntraceparent: 00-{trace_id}-{parent}-01\r\nConnection: close\r\n\r\n"
    )
    .expect("sent");
    let mut answer = String::new();
    stream.read_to_string(&mut answer).expect("an answer");
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");

    let _ = provider.force_flush();
    let spans = exporter.get_finished_spans().expect("spans");
    let span = spans
        .iter()
        .find(|s| s.name == "list_products")
        .unwrap_or_else(|| {
            panic!(
                "no span list_products among {:?}",
                spans.iter().map(|s| &s.name).collect::<Vec<_>>()
            )
        });
    assert_eq!(span.span_context.trace_id().to_string(), trace_id);
    assert_eq!(span.parent_span_id.to_string(), parent);
    assert_eq!(span.span_kind, SpanKind::Server);
}
