//! What the bus tests share: a bus with its streams set up, metadata, the documents' header schemas,
//! and a consumer run until idle.

use energy_runtime::bus::{Broker, Bus, ConsumerConfig, Handlers, SetUp, Settled, Stats};
use energy_runtime::events::Metadata;
use energy_testkit::nats::NatsServer;
use std::sync::{Arc, Mutex};
use std::time::Duration;

pub(crate) async fn ready_bus(server: &NatsServer) -> Bus {
    let bus = Bus::connect(&server.url).await.expect("connects");
    bus.init(&SetUp::default()).await.expect("streams set up");
    bus
}

pub(crate) fn metadata(pairs: &[(&str, &str)]) -> Metadata {
    let mut m = Metadata::new();
    for (name, value) in pairs {
        m.insert_str(*name, value);
    }
    m
}

/// A schema of the bus in `generated/schemas/bus/` (what the documents say the headers are).
fn bus_schema(name: &str) -> serde_json::Value {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../generated/schemas/bus")
        .join(format!("{name}.json"));
    serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap()
}

/// Checks headers against a header schema of the documents: every required one present, every value
/// of an enumerated or constant one allowed.
pub(crate) fn assert_headers_match(schema: &str, headers: &energy_runtime::bus::Headers) {
    let schema = bus_schema(schema);
    for required in schema["required"].as_array().unwrap() {
        let name = required.as_str().unwrap();
        assert!(
            headers.get(name).is_some(),
            "{name} missing from {headers:?}"
        );
    }
    for (name, property) in schema["properties"].as_object().unwrap() {
        let Some(value) = headers.get(name) else {
            continue;
        };
        if let Some(allowed) = property["enum"].as_array() {
            assert!(
                allowed.iter().any(|a| a == value),
                "{name}: {value} not in {allowed:?}"
            );
        }
        if let Some(constant) = property["const"].as_str() {
            assert_eq!(value, constant, "{name}");
        }
    }
}

/// Runs a consumer until it has been idle for a second; its settlements in order, and its counts.
pub(crate) async fn consume(
    bus: &Bus,
    config: ConsumerConfig,
    handlers: Handlers,
) -> (Vec<Settled>, Stats) {
    let settled = Arc::new(Mutex::new(Vec::new()));
    let seen = settled.clone();
    let consumer = bus
        .consumer(config.idle_exit(Duration::from_secs(1)))
        .await
        .expect("a consumer")
        .observe(move |s| seen.lock().unwrap().push(s.clone()));
    let stats = consumer
        .run(handlers, std::future::pending())
        .await
        .expect("the consumer runs");
    let settled = settled.lock().unwrap().clone();
    (settled, stats)
}
