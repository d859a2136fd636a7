//! `energy events drift` over the bus, against a real `nats-server` on 127.0.0.1: a consumer's dead
//! letters (`--dlq`) and the events stream read without consuming it (`--from-bus`, `--since`), the
//! counts exact.
#![cfg(feature = "bus")]

use energy_testkit::bounded;
use energy_testkit::nats::{NatsServer, cloud_headers, publish_raw};
use serde_json::Value;
use std::process::Output;

fn energy(args: &[&str]) -> Output {
    energy_testkit::process::energy_command()
        .args(args)
        .output()
        .expect("energy runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn count(report: &Value, path: &str, kind: &str) -> Option<u64> {
    report["findings"].as_array().and_then(|all| {
        all.iter()
            .find(|f| f["path"] == path && f["kind"] == kind)
            .and_then(|f| f["count"].as_u64())
    })
}

fn drift(args: &[&str]) -> (Option<i32>, Value) {
    let output = energy(&[&["events", "drift", "--format", "json"], args].concat());
    let report = serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}\n{}", text(&output.stdout), text(&output.stderr)));
    (output.status.code(), report)
}

#[test]
fn dead_letters_and_the_stream_are_read_for_drift() {
    let server = NatsServer::start();
    let url = server.url.as_str();
    assert_eq!(
        energy(&["bus", "init", "--server", url]).status.code(),
        Some(0)
    );
    // 10 events a producer publishes through `energy events publish` (unknown members pass the
    // publisher's check): 4 carry an undeclared `channel`.
    let dir = tempfile::tempdir().expect("a temporary folder");
    let file = dir.path().join("events.ndjson");
    let lines: String = (0..10)
        .map(|i| {
            let channel = if i < 4 { r#","channel":"web""# } else { "" };
            format!(
                "{{\"event_type\":\"agreement.updated\",\"version\":\"v2\",\"id\":\"evt-{i}\",\"payload\":{{\"agreement_id\":{},\"changes\":{{}},\"account_number\":\"A-1B2C3D4E\"{channel}}}}}\n",
                88_000 + i
            )
        })
        .collect();
    std::fs::write(&file, lines).expect("the stream is written");
    let published = energy(&[
        "events",
        "publish",
        "--server",
        url,
        file.to_str().unwrap_or(""),
    ]);
    assert_eq!(
        published.status.code(),
        Some(0),
        "{}",
        text(&published.stderr)
    );
    // 5 poison messages from a producer that skips the checks: 3 with `agreement_id` a string, 2
    // without `account_number`.
    bounded(60, async {
        let client = async_nats::connect(url).await.expect("connects");
        for i in 0..5 {
            let id = format!("poison-{i}");
            let body = if i < 3 {
                r#"{"agreement_id":"88213","changes":{},"account_number":"A-1B2C3D4E"}"#
            } else {
                r#"{"agreement_id":88213,"changes":{}}"#
            };
            publish_raw(
                &client,
                "energy.agreement.updated.v2",
                &cloud_headers(&id, "agreement.updated", "v2"),
                body.as_bytes(),
            )
            .await;
        }
    });
    let before_consuming = jiff::Timestamp::now();
    // A consumer dead-letters the 5 poison messages at once, and handles the 10 others.
    let consumed = energy(&[
        "events",
        "consume",
        "--server",
        url,
        "--durable",
        "billing",
        "--idle-exit",
        "1",
    ]);
    assert_eq!(
        consumed.status.code(),
        Some(0),
        "{}",
        text(&consumed.stderr)
    );
    assert!(
        text(&consumed.stderr).contains("5 dead-lettered"),
        "{}",
        text(&consumed.stderr)
    );

    let (code, letters) = drift(&["--dlq", "billing", "--server", url]);
    assert_eq!(code, Some(1));
    assert_eq!(letters["events"], 5);
    assert_eq!(
        count(&letters, "payload.agreement_id", "wrong_type"),
        Some(3)
    );
    assert_eq!(
        count(&letters, "payload.account_number", "missing_field"),
        Some(2)
    );
    assert_eq!(count(&letters, "payload.channel", "unknown_member"), None);

    let (code, stream) = drift(&["--from-bus", "--server", url]);
    assert_eq!(code, Some(1));
    assert_eq!(stream["events"], 15);
    assert_eq!(count(&stream, "payload.channel", "unknown_member"), Some(4));
    assert_eq!(
        count(&stream, "payload.agreement_id", "wrong_type"),
        Some(3)
    );
    assert_eq!(
        count(&stream, "payload.account_number", "missing_field"),
        Some(2)
    );
    // Reading did not consume: the same again; nothing stored after `--since`.
    assert_eq!(drift(&["--from-bus", "--server", url]).1, stream);
    let later = (before_consuming + jiff::SignedDuration::from_secs(3600)).to_string();
    let (code, none) = drift(&["--from-bus", "--since", &later, "--server", url]);
    assert_eq!((code, none["events"].as_u64()), (Some(0), Some(0)));

    // A durable consumer that has no dead letters: no drift; a bad name is a usage error.
    let (code, empty) = drift(&["--dlq", "nobody", "--server", url]);
    assert_eq!((code, empty["events"].as_u64()), (Some(0), Some(0)));
    let bad = energy(&["events", "drift", "--dlq", "a.b", "--server", url]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(text(&bad.stderr).contains("--dlq"), "{}", text(&bad.stderr));
    let both = energy(&["events", "drift", "--from-bus", "--server", url, "x.ndjson"]);
    assert_eq!(both.status.code(), Some(2));
}
