//! The bus commands of `energy` as a user runs them, against a real `nats-server` on 127.0.0.1: what
//! they print, their exit statuses, and their errors.
#![cfg(feature = "bus")]

use energy_runtime::bus::lines::line_of;
use energy_runtime::bus::{Broker, Bus, Draft, SetUp};
use energy_runtime::events::Metadata;
use energy_testkit::nats::{NatsServer, cloud_headers, publish_raw};
use energy_testkit::process::EnergyProcess;
use energy_testkit::{bounded, golden_cases};
use std::path::Path;
use std::process::Output;
use std::time::Duration;

fn energy(args: &[&str]) -> Output {
    energy_testkit::process::energy_command()
        .args(args)
        .output()
        .expect("energy runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn mixed() -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/fixtures/events/mixed.ndjson")
        .display()
        .to_string()
}

#[test]
fn init_creates_the_streams_once_and_refuses_to_lose_events() {
    let server = NatsServer::start();
    let first = energy(&["bus", "init", "--server", &server.url]);
    assert_eq!(first.status.code(), Some(0), "{}", text(&first.stderr));
    assert_eq!(
        text(&first.stdout),
        "stream ENERGY_EVENTS: created; 274 subject filters\nstream ENERGY_DEAD_LETTERS: created; 1 subject filter\n"
    );
    let again = energy(&["bus", "init", "--server", &server.url]);
    assert_eq!(
        text(&again.stdout),
        "stream ENERGY_EVENTS: unchanged; 274 subject filters\nstream ENERGY_DEAD_LETTERS: unchanged; 1 subject filter\n"
    );
    let wider = energy(&[
        "bus",
        "init",
        "--server",
        &server.url,
        "--duplicate-window",
        "5m",
    ]);
    assert!(
        text(&wider.stdout).contains("updated (duplicate window: 2m → 5m)"),
        "{}",
        text(&wider.stdout)
    );
    let shorter = energy(&["bus", "init", "--server", &server.url, "--max-age", "30d"]);
    assert_eq!(shorter.status.code(), Some(1));
    assert_eq!(
        text(&shorter.stderr),
        "error: stream `ENERGY_EVENTS` not changed: its age limit is none; 30d would remove the events older than that\n"
    );
    let emptied = energy(&[
        "bus",
        "init",
        "--server",
        &server.url,
        "--retention",
        "workqueue",
    ]);
    assert_eq!(emptied.status.code(), Some(1));
    assert!(text(&emptied.stderr).contains("would remove events that are kept now"));
    let other = energy(&[
        "bus",
        "init",
        "--server",
        &server.url,
        "--prefix",
        "acme.energy",
    ]);
    assert!(text(&other.stdout).contains("stream ACME_ENERGY_EVENTS: created"));
}

#[test]
fn publish_reports_invalid_lines_exactly_as_validate_does_and_publishes_the_others() {
    let server = NatsServer::start();
    energy(&["bus", "init", "--server", &server.url]);
    let published = energy(&["events", "publish", "--server", &server.url, &mixed()]);
    assert_eq!(
        published.status.code(),
        Some(1),
        "{}",
        text(&published.stderr)
    );
    let validated = energy(&["events", "validate", &mixed()]);
    let invalid_in_validate: Vec<String> = text(&validated.stdout)
        .lines()
        .filter(|l| l.contains(r#""ok":false"#))
        .map(str::to_owned)
        .collect();
    let lines: Vec<String> = text(&published.stdout).lines().map(str::to_owned).collect();
    let invalid_in_publish: Vec<String> = lines
        .iter()
        .filter(|l| l.contains(r#""ok":false"#))
        .cloned()
        .collect();
    assert_eq!(
        invalid_in_publish, invalid_in_validate,
        "the same reports, in line order"
    );
    let ok: Vec<serde_json::Value> = lines
        .iter()
        .filter(|l| l.contains(r#""ok":true"#))
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let events = text(&validated.stdout).lines().count();
    assert_eq!(
        ok.len() + invalid_in_publish.len(),
        events,
        "every event line reported"
    );
    for (i, line) in ok.iter().enumerate() {
        assert_eq!(line["sequence"], i as u64 + 1, "{line}");
        assert_eq!(line["duplicate"], false);
    }
    let numbers: Vec<u64> = lines
        .iter()
        .map(|l| {
            serde_json::from_str::<serde_json::Value>(l).unwrap()["line"]
                .as_u64()
                .unwrap()
        })
        .collect();
    assert!(
        numbers.windows(2).all(|w| w[0] < w[1]),
        "in line order: {numbers:?}"
    );
    assert!(text(&published.stderr).contains(&format!("{} published", ok.len())));

    // Published again: the events with an id are dropped as duplicates; those without get a new one.
    let again = energy(&["events", "publish", "--server", &server.url, &mixed()]);
    let duplicates = text(&again.stdout).matches(r#""duplicate":true"#).count();
    assert!(duplicates >= 3, "{}", text(&again.stdout));
}

#[test]
fn consume_prints_one_line_per_outcome() {
    let server = NatsServer::start();
    energy(&["bus", "init", "--server", &server.url]);
    energy(&["events", "publish", "--server", &server.url, &mixed()]);
    let consumed = energy(&[
        "events",
        "consume",
        "--server",
        &server.url,
        "--durable",
        "printer",
        "--idle-exit",
        "1",
    ]);
    assert_eq!(
        consumed.status.code(),
        Some(0),
        "{}",
        text(&consumed.stderr)
    );
    let lines: Vec<serde_json::Value> = text(&consumed.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect();
    assert!(!lines.is_empty());
    for line in &lines {
        assert_eq!(line["outcome"], "handled", "{line}");
        for field in [
            "id",
            "event_type",
            "version",
            "subject",
            "sequence",
            "attempt",
        ] {
            assert!(!line[field].is_null(), "{field} in {line}");
        }
    }
    assert!(text(&consumed.stderr).contains(&format!("{} handled", lines.len())));
    // The durable consumer goes on where it was: nothing left.
    let again = energy(&[
        "events",
        "consume",
        "--server",
        &server.url,
        "--durable",
        "printer",
        "--idle-exit",
        "1",
    ]);
    assert_eq!(text(&again.stdout), "");
    // Another durable consumer, of one section, from a sequence.
    let billing = energy(&[
        "events",
        "consume",
        "--server",
        &server.url,
        "--durable",
        "billing",
        "--section",
        "billing",
        "--from-sequence",
        "2",
        "--idle-exit",
        "1",
    ]);
    for line in text(&billing.stdout).lines() {
        let line: serde_json::Value = serde_json::from_str(line).unwrap();
        assert!(
            line["event_type"].as_str().unwrap().starts_with("billing."),
            "{line}"
        );
        assert!(line["sequence"].as_u64().unwrap() >= 2);
    }
    // The same durable name for other events is an error, not a silent change.
    let clash = energy(&[
        "events",
        "consume",
        "--server",
        &server.url,
        "--durable",
        "billing",
        "--section",
        "accounts",
        "--idle-exit",
        "1",
    ]);
    assert_eq!(clash.status.code(), Some(2));
    assert!(
        text(&clash.stderr).contains("exists and selects"),
        "{}",
        text(&clash.stderr)
    );
}

#[test]
fn usage_and_connection_errors_exit_2_with_a_message() {
    for (args, says) in [
        (
            vec!["events", "publish", "--server", "nats://127.0.0.1:1", "-"],
            "cannot connect to nats://127.0.0.1:1",
        ),
        (
            vec!["bus", "init", "--server", "nats://127.0.0.1:1"],
            "cannot connect",
        ),
        (
            vec![
                "events",
                "consume",
                "--durable",
                "a.b",
                "--server",
                "nats://127.0.0.1:1",
            ],
            "cannot connect",
        ),
        (
            vec!["events", "publish", "--prefix", "energy.>", "-"],
            "cannot be a subject prefix",
        ),
        (vec!["bus", "init", "--replicas", "9"], "9 is not in 1..=5"),
        (
            vec![
                "events",
                "consume",
                "--durable",
                "x",
                "--retry-delay",
                "soon",
            ],
            "not a duration",
        ),
        (
            vec![
                "events",
                "consume",
                "--durable",
                "x",
                "--since",
                "yesterday",
            ],
            "nor a duration ago",
        ),
        (vec!["events", "consume"], "--durable"),
        (
            vec!["events", "publish", "/no/such/file.ndjson"],
            "cannot read `/no/such/file.ndjson`",
        ),
    ] {
        let output = energy(&args);
        assert_eq!(
            output.status.code(),
            Some(2),
            "{args:?}: {}",
            text(&output.stderr)
        );
        assert!(
            text(&output.stderr).contains(says),
            "{args:?}: {}",
            text(&output.stderr)
        );
    }
    let server = NatsServer::start();
    energy(&["bus", "init", "--server", &server.url]);
    for (args, says) in [
        (
            vec![
                "events",
                "consume",
                "--server",
                &server.url,
                "--durable",
                "a.b",
            ],
            "cannot name a durable consumer",
        ),
        (
            vec![
                "events",
                "consume",
                "--server",
                &server.url,
                "--durable",
                "x",
                "--section",
                "nope",
            ],
            "is not a catalogue section",
        ),
        (
            vec!["events", "dlq", "show", "--server", &server.url, "7"],
            "no dead letter at sequence 7",
        ),
        (
            vec![
                "events",
                "publish",
                "--server",
                &server.url,
                "--prefix",
                "other",
                "-",
            ],
            "the stream `OTHER_EVENTS` does not exist: create it with `energy bus init",
        ),
    ] {
        let output = energy(&args);
        assert_eq!(
            output.status.code(),
            Some(2),
            "{args:?}: {}",
            text(&output.stderr)
        );
        assert!(
            text(&output.stderr).contains(says),
            "{args:?}: {}",
            text(&output.stderr)
        );
    }
}

async fn ready_bus(server: &NatsServer) -> Bus {
    let bus = Bus::connect(&server.url).await.expect("connects");
    bus.init(&SetUp::default()).await.expect("streams");
    bus
}

fn metadata(pairs: &[(&str, &str)]) -> Metadata {
    let mut metadata = Metadata::new();
    for (name, value) in pairs {
        metadata.insert_str(*name, value);
    }
    metadata
}

#[test]
fn a_captured_subject_is_published_again_byte_for_byte() {
    let first = NatsServer::start();
    let second = NatsServer::start();
    let dir = tempfile::tempdir().unwrap();
    let (captured, again) = (
        dir.path().join("captured.ndjson"),
        dir.path().join("again.ndjson"),
    );
    bounded(90, async {
        let bus = ready_bus(&first).await;
        ready_bus(&second).await;
        let publisher = bus.publisher();
        for (i, (event_type, version, _, payload)) in
            golden_cases().into_iter().enumerate().step_by(7)
        {
            let mut fields = metadata(&[
                ("source", "/billing/Zürich 1"),
                (
                    "traceparent",
                    "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
                ),
            ]);
            fields.insert(
                "occurred_at",
                serde_json::value::to_raw_value(&serde_json::json!({"at": i})).unwrap(),
            );
            publisher
                .publish_draft(Draft {
                    event_type,
                    version,
                    payload: payload.into(),
                    metadata: fields,
                })
                .await
                .unwrap();
        }
        // A producer's own headers travel too.
        publish_raw(
            bus.client(),
            &bus.subjects().event("business.created", "v1"),
            &[
                cloud_headers("raw-1", "business.created", "v1"),
                vec![
                    ("X-Tenant", "north"),
                    ("ce-time", "2024-03-01T09:30:00Z"),
                    (
                        "ce-dataschema",
                        "https://schemas.energy-platform.example/events/business.created.v1.json",
                    ),
                ],
            ]
            .concat(),
            b"{ \"id\" : 12 }",
        )
        .await;
    });
    let run = |args: &[&str]| {
        let mut process = EnergyProcess::start(args);
        assert_eq!(
            process.wait(Duration::from_secs(60)),
            Some(0),
            "{args:?}: {}",
            process.stderr()
        );
        process
    };
    run(&[
        "events",
        "capture",
        "--server",
        &first.url,
        "--output",
        captured.to_str().unwrap(),
    ]);
    let publish = run(&[
        "events",
        "publish",
        "--server",
        &second.url,
        captured.to_str().unwrap(),
    ]);
    assert!(publish.lines().iter().all(|l| l.contains(r#""ok":true"#)));
    run(&[
        "events",
        "capture",
        "--server",
        &second.url,
        "--output",
        again.to_str().unwrap(),
    ]);
    let (a, b) = (
        std::fs::read(&captured).unwrap(),
        std::fs::read(&again).unwrap(),
    );
    assert!(a.len() > 10_000);
    assert_eq!(String::from_utf8_lossy(&a), String::from_utf8_lossy(&b));
    let text = String::from_utf8(a).unwrap();
    assert!(text.contains(r#""source":"/billing/Zürich 1""#));
    assert!(
        text.contains(r#""headers":{"X-Tenant":"north"}"#),
        "{}",
        text.lines().last().unwrap()
    );
    assert!(
        text.contains(r#""payload":{ "id" : 12 }"#),
        "the payload's own bytes"
    );
    // And the messages themselves: the same bodies and headers.
    bounded(30, async {
        let read = |url: String| async move {
            let bus = Bus::connect(&url).await.unwrap();
            let mut messages = Vec::new();
            bus.capture(
                &energy_runtime::bus::CaptureRange {
                    filters: vec![],
                    start: energy_runtime::bus::Start::All,
                    follow: false,
                    idle_exit: None,
                },
                &mut |m| {
                    messages.push((m.subject, m.headers, m.payload));
                    Ok(())
                },
                Box::pin(std::future::pending()),
            )
            .await
            .unwrap();
            messages
        };
        let (from, to) = (
            read(first.url.clone()).await,
            read(second.url.clone()).await,
        );
        assert_eq!(from.len(), to.len());
        for (a, b) in from.iter().zip(&to) {
            // The deduplication id is the transport's (set from `ce-id` on publishing), not the event's.
            let without_id = |h: &energy_runtime::bus::Headers| {
                h.iter()
                    .filter(|(n, _)| *n != "Nats-Msg-Id")
                    .map(|(n, v)| (n.to_owned(), v.to_owned()))
                    .collect::<Vec<_>>()
            };
            assert_eq!((&a.0, &a.2), (&b.0, &b.2));
            assert_eq!(without_id(&a.1), without_id(&b.1));
            assert_eq!(line_of(&a.1, &a.2).1, None);
        }
    });
}

#[test]
fn consume_checks_its_contract_at_start_up() {
    let server = NatsServer::start();
    energy(&["bus", "init", "--server", &server.url]);
    let dir = tempfile::tempdir().unwrap();
    let contract = dir.path().join("billing-ledger.yaml");
    std::fs::write(
        &contract,
        "consumer: billing-ledger\nowner: billing@example.com\nstatus: active\nreads:\n  - event: billing.ledger.entry_posted\n    versions: [v1, v2]\n    fields: [/ledger/number]\n",
    )
    .unwrap();
    let contract = contract.to_str().unwrap();
    let consume = |extra: &[&str]| {
        let mut args = vec![
            "events",
            "consume",
            "--server",
            &server.url,
            "--durable",
            "contracted",
            "--idle-exit",
            "1",
            "--contract",
        ];
        args.extend(extra);
        energy(&args)
    };
    let ok = consume(&[contract, "--section", "billing"]);
    assert_eq!(ok.status.code(), Some(0), "{}", text(&ok.stderr));
    let left_out = consume(&[contract, "--section", "accounts"]);
    assert_eq!(left_out.status.code(), Some(2));
    assert!(
        text(&left_out.stderr)
            .contains("reads billing.ledger.entry_posted v1, which this consumer does not receive"),
        "{}",
        text(&left_out.stderr)
    );
    let newer = dir.path().join("newer.yaml");
    std::fs::write(
        &newer,
        "consumer: newer\nreads:\n  - event: billing.ledger.entry_posted\n    versions: [v9]\n",
    )
    .unwrap();
    let unknown = consume(&[newer.to_str().unwrap()]);
    assert_eq!(unknown.status.code(), Some(2));
    assert!(
        text(&unknown.stderr).contains("which this consumer's catalogue does not know"),
        "{}",
        text(&unknown.stderr)
    );
    let broken = dir.path().join("broken.yaml");
    std::fs::write(&broken, "consumer: broken\nreads: 7\n").unwrap();
    let malformed = consume(&[broken.to_str().unwrap()]);
    assert_eq!(malformed.status.code(), Some(2));
    assert!(
        text(&malformed.stderr).contains("is not a consumer contract"),
        "{}",
        text(&malformed.stderr)
    );
}
