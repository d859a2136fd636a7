//! `energy` built with the `otlp` feature exports its spans over OTLP/HTTP when
//! `OTEL_EXPORTER_OTLP_ENDPOINT` names a collector: here one on 127.0.0.1 that records what it receives,
//! while `energy` publishes and consumes on a real `nats-server`.
#![cfg(feature = "otlp")]

use energy_testkit::nats::NatsServer;
use energy_testkit::process::EnergyProcess;
use std::time::Duration;

/// A collector's OTLP/HTTP endpoint on 127.0.0.1: records the body of every `POST /v1/traces`.
fn collector() -> (String, std::sync::Arc<std::sync::Mutex<Vec<Vec<u8>>>>) {
    use std::io::{BufRead, BufReader, Read, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("a port");
    let url = format!("http://{}", listener.local_addr().expect("an address"));
    let bodies = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let recorded = bodies.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming().map_while(Result::ok) {
            let recorded = recorded.clone();
            std::thread::spawn(move || {
                let mut reader = BufReader::new(stream.try_clone().expect("a stream"));
                let mut writer = stream;
                loop {
                    let mut head = String::new();
                    let mut length = 0usize;
                    loop {
                        let mut line = String::new();
                        if reader.read_line(&mut line).unwrap_or(0) == 0 {
                            return;
                        }
                        if line == "\r\n" {
                            break;
                        }
                        if let Some(value) =
                            line.to_ascii_lowercase().strip_prefix("content-length:")
                        {
                            length = value.trim().parse().unwrap_or(0);
                        }
                        head.push_str(&line);
                    }
                    let mut body = vec![0; length];
                    if reader.read_exact(&mut body).is_err() {
                        return;
                    }
                    if head.starts_with("POST /v1/traces") {
                        recorded.lock().expect("the record").push(body);
                    }
                    let _ = writer.write_all(
                        b"HTTP/1.1 200 OK\r\ncontent-type: application/x-protobuf\r\ncontent-length: 0\r\n\r\n",
                    );
                }
            });
        }
    });
    (url, bodies)
}

#[test]
fn energy_exports_its_spans_over_otlp_when_the_collector_is_named() {
    let server = NatsServer::start();
    let (endpoint, bodies) = collector();
    let dir = tempfile::tempdir().expect("a folder");
    let events = dir.path().join("events.ndjson");
    std::fs::write(
        &events,
        r#"{"event_type":"business.created","version":"v1","id":"otlp-1","payload":{"id":1}}"#,
    )
    .expect("written");
    let env = [
        ("OTEL_EXPORTER_OTLP_ENDPOINT", endpoint.as_str()),
        ("NATS_URL", server.url.as_str()),
    ];
    for args in [
        vec!["bus", "init"],
        vec!["events", "publish", events.to_str().expect("UTF-8")],
        vec!["events", "consume", "--durable", "otlp", "--idle-exit", "1"],
    ] {
        let mut run = EnergyProcess::start_with_env(&args, &env);
        assert_eq!(
            run.wait(Duration::from_secs(30)),
            Some(0),
            "{}",
            run.stderr()
        );
    }
    let bodies = bodies.lock().expect("the record");
    let all: Vec<u8> = bodies.iter().flatten().copied().collect();
    let has = |text: &str| all.windows(text.len()).any(|w| w == text.as_bytes());
    assert!(
        has("energy events publish"),
        "the publisher's span was exported"
    );
    assert!(
        has("process energy.business.created.v1"),
        "the consumer's span was exported"
    );
    assert!(has("energy"), "under the service name");
}
