//! What goes wrong in production, done for real on 127.0.0.1: the consumer process killed (SIGKILL) in the
//! middle of a stream, the server restarted in the middle of a stream, three consumer processes sharing
//! one durable consumer, and a node of a three-node JetStream cluster killed while events are published
//! and consumed. In each, every event is handled at least once and none is lost (distinct ids counted).
#![cfg(feature = "bus")]

use energy_runtime::bus::{Broker, Bus, Draft, SetUp, transport::Outgoing};
use energy_runtime::events::Metadata;
use energy_testkit::bounded;
use energy_testkit::nats::{NatsServer, urls};
use energy_testkit::process::EnergyProcess;
use std::collections::HashSet;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

const EVENTS: u64 = 10_000;

/// The `i`-th event: a few event types in turn, each with a unique id.
fn event(bus: &Bus, i: u64) -> Outgoing {
    let (event_type, payload) = match i % 3 {
        0 => ("business.created", format!(r#"{{"id":{i}}}"#)),
        1 => (
            "agreement.revoked",
            format!(r#"{{"agreement_id":{i},"account_number":"A-{i}"}}"#),
        ),
        _ => (
            "billing.issued_bill",
            format!(r#"{{"account_number":"A-{i}","statement_id":{i}}}"#),
        ),
    };
    let mut metadata = Metadata::new();
    metadata.insert_str("id", &format!("evt-{i}"));
    bus.publisher()
        .prepare(&Draft {
            event_type: event_type.to_owned(),
            version: "v1".to_owned(),
            payload: payload.into(),
            metadata,
        })
        .expect("a valid event")
}

/// Publishes events `0..EVENTS`, counting those the broker acknowledged; fails on any not published.
async fn publish_all(bus: Bus, acknowledged: Arc<AtomicU64>) {
    let publisher = bus.publisher();
    let messages = futures_util::stream::iter((0..EVENTS).map(|i| (i, event(&bus, i))));
    let mut failures = Vec::new();
    publisher
        .send_ordered(messages, 128, |i, result| {
            match result {
                Ok(_) => {
                    acknowledged.fetch_add(1, Ordering::Relaxed);
                }
                Err(e) => failures.push(format!("evt-{i}: {e}")),
            }
            true
        })
        .await;
    assert!(failures.is_empty(), "not published: {failures:?}");
}

/// The ids a consumer process reported handled.
fn handled_ids(lines: &[String]) -> Vec<String> {
    lines
        .iter()
        .filter_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())
        .filter(|v| v["outcome"] == "handled")
        .filter_map(|v| v["id"].as_str().map(str::to_owned))
        .collect()
}

fn consumer(server: &str, durable: &str, idle_exit: u32) -> EnergyProcess {
    EnergyProcess::start(&[
        "events",
        "consume",
        "--server",
        server,
        "--durable",
        durable,
        "--ack-wait",
        "2s",
        "--retry-delay",
        "200ms",
        "--idle-exit",
        &idle_exit.to_string(),
    ])
}

fn assert_all_handled(ids: impl IntoIterator<Item = String>) {
    let distinct: HashSet<String> = ids.into_iter().collect();
    let missing: Vec<u64> = (0..EVENTS)
        .filter(|i| !distinct.contains(&format!("evt-{i}")))
        .collect();
    assert!(
        missing.is_empty(),
        "{} events never handled, the first: {:?}",
        missing.len(),
        &missing[..missing.len().min(10)]
    );
    assert_eq!(distinct.len() as u64, EVENTS);
}

async fn stored(bus: &Bus) -> u64 {
    async_nats::jetstream::new(bus.client().clone())
        .get_stream(bus.subjects().events_stream())
        .await
        .expect("the stream")
        .get_info()
        .await
        .expect("its state")
        .state
        .messages
}

#[test]
fn a_consumer_killed_in_the_middle_of_ten_thousand_events_loses_none() {
    let server = NatsServer::start();
    bounded(60, async {
        let bus = Bus::connect(&server.url).await.unwrap();
        bus.init(&SetUp::default()).await.unwrap();
        publish_all(bus.clone(), Arc::default()).await;
        assert_eq!(stored(&bus).await, EVENTS);
    });
    let mut first = consumer(&server.url, "killed", 10);
    assert!(
        first.wait_for(Duration::from_secs(60), |lines| lines.len() >= 3_000),
        "the consumer handled only {} events: {}",
        first.lines().len(),
        first.stderr()
    );
    first.kill();
    let before = handled_ids(&first.lines());
    assert!((before.len() as u64) < EVENTS, "killed before the end");
    let mut second = consumer(&server.url, "killed", 4);
    assert_eq!(
        second.wait(Duration::from_secs(90)),
        Some(0),
        "{}",
        second.stderr()
    );
    let after = handled_ids(&second.lines());
    assert_all_handled(before.into_iter().chain(after));
}

#[test]
fn a_server_restarted_in_the_middle_of_a_stream_loses_nothing() {
    let mut server = NatsServer::start();
    let url = server.url.clone();
    bounded(30, async {
        let bus = Bus::connect(&url).await.unwrap();
        bus.init(&SetUp::default()).await.unwrap();
    });
    let mut reader = consumer(&url, "restarted", 8);
    let acknowledged = Arc::new(AtomicU64::new(0));
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let publishing = {
        let acknowledged = acknowledged.clone();
        let url = url.clone();
        runtime.spawn(async move {
            let bus = Bus::connect(&url).await.unwrap();
            publish_all(bus, acknowledged).await;
        })
    };
    let started = Instant::now();
    while acknowledged.load(Ordering::Relaxed) < 3_000 {
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "publishing stalled"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
    // SIGKILL, then the same port and store again.
    server.restart();
    let restarted_at = acknowledged.load(Ordering::Relaxed);
    runtime.block_on(async {
        tokio::time::timeout(Duration::from_secs(120), publishing)
            .await
            .expect("the publisher finished after the restart")
            .expect("the publisher did not fail");
    });
    assert!(
        restarted_at < EVENTS,
        "the restart came in the middle ({restarted_at} published)"
    );
    assert_eq!(
        reader.wait(Duration::from_secs(120)),
        Some(0),
        "{}",
        reader.stderr()
    );
    assert_all_handled(handled_ids(&reader.lines()));
    runtime.block_on(async {
        let bus = Bus::connect(&url).await.unwrap();
        assert_eq!(
            stored(&bus).await,
            EVENTS,
            "each event stored once, retries included"
        );
    });
}

#[test]
fn three_consumer_processes_on_one_durable_consumer_share_ten_thousand_events() {
    let server = NatsServer::start();
    bounded(60, async {
        let bus = Bus::connect(&server.url).await.unwrap();
        bus.init(&SetUp::default()).await.unwrap();
        publish_all(bus, Arc::default()).await;
    });
    let mut processes: Vec<EnergyProcess> =
        (0..3).map(|_| consumer(&server.url, "shared", 4)).collect();
    let mut all = Vec::new();
    for process in &mut processes {
        assert_eq!(
            process.wait(Duration::from_secs(120)),
            Some(0),
            "{}",
            process.stderr()
        );
        let ids = handled_ids(&process.lines());
        assert!(
            ids.len() > 500,
            "one process handled only {}: not shared",
            ids.len()
        );
        all.extend(ids);
    }
    assert_all_handled(all);
}

#[test]
fn a_cluster_node_killed_while_publishing_and_consuming_loses_nothing() {
    let mut nodes = NatsServer::cluster();
    let servers = urls(&nodes);
    let bus_servers = servers.clone();
    let leader = bounded(60, async move {
        let bus = Bus::connect(&bus_servers).await.unwrap();
        let settings = SetUp {
            replicas: 3,
            ..SetUp::default()
        };
        // The cluster elects its JetStream leader a moment after it starts.
        let started = Instant::now();
        loop {
            match bus.init(&settings).await {
                Ok(_) => break,
                Err(e) if started.elapsed() < Duration::from_secs(30) => {
                    let _ = e;
                    tokio::time::sleep(Duration::from_millis(250)).await;
                }
                Err(e) => panic!("the cluster never took the streams: {e}"),
            }
        }
        let info = async_nats::jetstream::new(bus.client().clone())
            .get_stream(bus.subjects().events_stream())
            .await
            .unwrap()
            .get_info()
            .await
            .unwrap();
        let cluster = info.cluster.expect("a clustered stream");
        assert_eq!(cluster.replicas.len(), 2, "three copies");
        cluster.leader.expect("a leader")
    });
    let mut reader = consumer(&servers, "clustered", 10);
    let acknowledged = Arc::new(AtomicU64::new(0));
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let publishing = {
        let acknowledged = acknowledged.clone();
        let servers = servers.clone();
        runtime.spawn(async move {
            let bus = Bus::connect(&servers).await.unwrap();
            publish_all(bus, acknowledged).await;
        })
    };
    let started = Instant::now();
    while acknowledged.load(Ordering::Relaxed) < 3_000 {
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "publishing stalled"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
    // The stream's leader goes: the others elect a new one and go on.
    let killed = nodes
        .iter_mut()
        .find(|n| leader.ends_with(n.name()))
        .expect("the leader is one of the nodes");
    killed.kill();
    let killed_at = acknowledged.load(Ordering::Relaxed);
    runtime.block_on(async {
        tokio::time::timeout(Duration::from_secs(120), publishing)
            .await
            .expect("the publisher finished after the node was killed")
            .expect("the publisher did not fail");
    });
    assert!(
        killed_at < EVENTS,
        "killed in the middle ({killed_at} published)"
    );
    assert_eq!(
        reader.wait(Duration::from_secs(120)),
        Some(0),
        "{}",
        reader.stderr()
    );
    assert_all_handled(handled_ids(&reader.lines()));
    let surviving = nodes
        .iter()
        .filter(|n| n.is_running())
        .map(|n| n.url.clone())
        .collect::<Vec<_>>()
        .join(",");
    runtime.block_on(async {
        let bus = Bus::connect(&surviving).await.unwrap();
        assert_eq!(stored(&bus).await, EVENTS);
    });
}

#[test]
fn a_consumer_restarted_after_a_crash_handles_the_crashed_ones_messages_before_its_idle_exit() {
    const BATCH: u64 = 5_000;
    let server = NatsServer::start();
    bounded(60, async {
        let bus = Bus::connect(&server.url).await.unwrap();
        bus.init(&SetUp::default()).await.unwrap();
        let publisher = bus.publisher();
        let messages = futures_util::stream::iter((0..BATCH).map(|i| (i, event(&bus, i))));
        publisher
            .send_ordered(messages, 128, |_, result| {
                result.expect("published");
                true
            })
            .await;
    });
    // The default acknowledgement wait (30 s): what the crashed process held comes back only then.
    let args = |idle: Option<&'static str>| {
        let mut args = vec![
            "events",
            "consume",
            "--server",
            &server.url,
            "--durable",
            "batch",
        ];
        if let Some(idle) = idle {
            args.extend(["--idle-exit", idle]);
        }
        args
    };
    let mut first = EnergyProcess::start(&args(None));
    assert!(
        first.wait_for(Duration::from_secs(60), |lines| lines.len() >= 2_000),
        "the first consumer handled {} events: {}",
        first.lines().len(),
        first.stderr()
    );
    first.kill();
    let before = handled_ids(&first.lines());
    let unsettled = bounded(30, async {
        let bus = Bus::connect(&server.url).await.unwrap();
        let consumer = bus
            .consumer(energy_runtime::bus::ConsumerConfig::durable("batch"))
            .await
            .unwrap();
        consumer.lag_probe().lag().await.unwrap().ack_pending
    });
    assert!(
        unsettled > 0,
        "the crashed consumer held messages unsettled"
    );
    let mut second = EnergyProcess::start(&args(Some("3")));
    assert_eq!(
        second.wait(Duration::from_secs(120)),
        Some(0),
        "{}",
        second.stderr()
    );
    let after = handled_ids(&second.lines());
    let distinct: HashSet<String> = before.into_iter().chain(after).collect();
    assert_eq!(
        distinct.len() as u64,
        BATCH,
        "every event handled before the idle exit ({unsettled} were unsettled at the crash)"
    );
    assert!(
        second
            .stderr()
            .contains("lag 0 pending, 0 awaiting acknowledgement"),
        "{}",
        second.stderr()
    );
}
