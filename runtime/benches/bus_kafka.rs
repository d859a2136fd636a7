//! End-to-end events per second on a real Kafka-protocol broker (`tansu`, 127.0.0.1): publish → topics →
//! consumer group with offsets committed, the typed path (`Publisher<KafkaSink>`: validation, CloudEvents
//! Kafka headers, record keys; `KafkaConsumer`: headers read, payload decoded into the generated types, a
//! handler, offsets committed past settled records) against a bare `rdkafka` loop moving the same bytes,
//! headers and keys to the same topics (an idempotent producer, a consumer group storing offsets as it
//! reads) with no validation and no decoding. Then the typed path's memory over a long run. Each round
//! has topics of its own (a prefix per round), so no round reads another's records.
//!
//! `cargo xtask bench --only bus-kafka` (installs the pinned broker), or
//! `TANSU=… cargo bench -p energy-runtime --features kafka --bench bus_kafka -- [EVENTS] [ROUNDS]
//! [MEMORY_EVENTS]` (defaults 100000, 5, 1000000).
#![forbid(unsafe_code)]

/// Both paths run on mimalloc, as a high-rate consumer would.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

use energy_runtime::bus::kafka::{KafkaBus, records};
use energy_runtime::bus::transport::Outgoing;
use energy_runtime::bus::{Broker, SetUp};
use energy_runtime::bus::{ConsumerConfig, Draft, Handlers, Subjects};
use energy_runtime::events::Metadata;
use energy_testkit::kafka::KafkaBroker;
use futures_util::StreamExt;
use rdkafka::consumer::{CommitMode, Consumer, StreamConsumer};
use rdkafka::message::{Header, OwnedHeaders};
use rdkafka::producer::{FutureProducer, FutureRecord};
use std::collections::VecDeque;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// Messages awaiting the broker's acknowledgement at once, on both paths.
const IN_FLIGHT: usize = 1024;
/// Messages a consumer holds at once.
const CONCURRENCY: usize = 1024;

fn main() {
    let mut args = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .map(|a| {
            a.parse::<u64>()
                .expect("numbers: EVENTS ROUNDS MEMORY_EVENTS")
        });
    let events = args.next().unwrap_or(100_000);
    let rounds = args.next().unwrap_or(5);
    let memory_events = args.next().unwrap_or(1_000_000);
    let broker = KafkaBroker::start();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    runtime.block_on(async {
        let mix = golden_mix();
        println!(
            "bus-kafka bench: {events} events a round, {rounds} rounds each, payloads cycling through {} golden cases ({} bytes on average); tansu 0.6.0 on 127.0.0.1, memory storage",
            mix.len(),
            mix.iter().map(|d| d.payload.len()).sum::<usize>() / mix.len(),
        );
        typed_round(&broker, &mix, events / 10, "warmtyped", None).await;
        let samples = Arc::new(std::sync::Mutex::new(Vec::new()));
        let seconds = typed_round(&broker, &mix, memory_events, "memory", Some(samples.clone())).await;
        let samples = samples.lock().expect("samples").clone();
        let mib = |kib: u64| kib as f64 / 1024.0;
        let at = |handled: u64| {
            samples
                .iter()
                .find(|(h, _)| *h >= handled)
                .map_or(0.0, |(_, k)| mib(*k))
        };
        let after_warmup: Vec<u64> = samples.iter().skip(samples.len() / 10).map(|(_, k)| *k).collect();
        println!(
            "memory, typed path over {memory_events} events ({:.0} events/s): resident {:.1} MiB at 100000 events, {:.1} MiB at {memory_events}; after the first tenth between {:.1} and {:.1} MiB",
            memory_events as f64 / seconds,
            at(100_000),
            samples.last().map_or(0.0, |s| mib(s.1)),
            mib(after_warmup.iter().copied().min().unwrap_or(0)),
            mib(after_warmup.iter().copied().max().unwrap_or(0)),
        );
        bare_round(&broker, &mix, events / 10, "warmbare").await;
        let (mut typed, mut bare) = (Vec::new(), Vec::new());
        for round in 0..rounds {
            // Alternate which goes first, so that neither always has the warmer machine.
            for k in 0..2 {
                let typed_now = (k + round) % 2 == 0;
                let name = format!("{}{round}", if typed_now { "typed" } else { "bare" });
                let seconds = if typed_now {
                    typed_round(&broker, &mix, events, &name, None).await
                } else {
                    bare_round(&broker, &mix, events, &name).await
                };
                let rate = events as f64 / seconds;
                println!("  {name:>10}: {seconds:.2} s, {rate:.0} events/s");
                if typed_now { typed.push(rate) } else { bare.push(rate) }
            }
        }
        let median = |v: &[f64]| {
            let mut v = v.to_vec();
            v.sort_by(f64::total_cmp);
            v[v.len() / 2]
        };
        let ratios: Vec<f64> = typed.iter().zip(&bare).map(|(a, b)| a / b).collect();
        println!(
            "typed / bare: {:.0} / {:.0} events/s = {:.2} by the ratio of the medians (rounds' ratios from {:.2} to {:.2})",
            median(&typed),
            median(&bare),
            median(&typed) / median(&bare),
            ratios.iter().copied().fold(f64::INFINITY, f64::min),
            ratios.iter().copied().fold(0.0, f64::max),
        );
    });
    drop(broker);
}

/// Every case of every golden file, as a draft to publish.
fn golden_mix() -> Vec<Draft> {
    energy_testkit::golden_cases()
        .into_iter()
        .map(|(event_type, version, _, payload)| Draft {
            event_type,
            version,
            payload: payload.into(),
            metadata: Metadata::new(),
        })
        .collect()
}

/// The `i`-th draft of a round: the mix in turn, each with an id of its own.
fn draft(mix: &[Draft], round: &str, i: u64) -> Draft {
    let mut draft = mix[(i % mix.len() as u64) as usize].clone();
    draft.metadata.insert_str("id", &format!("{round}-{i}"));
    draft
}

/// A bus whose topics are the round's own (`<round>.<section>`), set up.
async fn round_bus(broker: &KafkaBroker, round: &str) -> KafkaBus {
    let bus = KafkaBus::connect(&broker.url)
        .await
        .expect("connects")
        .with_subjects(Subjects::new(round).expect("a prefix"));
    bus.init(&SetUp::default()).await.expect("topics");
    bus
}

/// Resident memory samples: (events handled, KiB).
type Samples = Arc<std::sync::Mutex<Vec<(u64, u64)>>>;

/// The typed path: validated and published by `Publisher`, consumed by `KafkaConsumer` into the
/// generated types. Seconds from the first publish to the last event handled.
async fn typed_round(
    broker: &KafkaBroker,
    mix: &[Draft],
    events: u64,
    round: &str,
    memory: Option<Samples>,
) -> f64 {
    let bus = round_bus(broker, round).await;
    let consumer = bus
        .consumer(
            ConsumerConfig::durable(round)
                .concurrency(CONCURRENCY)
                .ack_wait(Duration::from_secs(6)),
        )
        .await
        .expect("a consumer");
    let counters = consumer.counters();
    let mut handlers = Handlers::new();
    handlers.fallback(|decoded, _| async move {
        std::hint::black_box(decoded);
        Ok(())
    });
    let finished = Arc::new(std::sync::Mutex::new(None::<Instant>));
    let first = Arc::new(std::sync::Mutex::new(None::<Instant>));
    let done = {
        let (counters, finished, first) = (counters.clone(), finished.clone(), first.clone());
        async move {
            let mut next_sample = events / 100;
            loop {
                let handled = counters.snapshot().handled;
                if handled > 1 {
                    first
                        .lock()
                        .expect("first")
                        .get_or_insert_with(Instant::now);
                }
                if let Some(samples) = &memory
                    && handled >= next_sample
                {
                    samples
                        .lock()
                        .expect("samples")
                        .push((handled, resident_kib()));
                    next_sample += events / 100;
                }
                // The probe, then the round's events.
                if handled > events {
                    *finished.lock().expect("finished") = Some(Instant::now());
                    return;
                }
                tokio::time::sleep(Duration::from_millis(2)).await;
            }
        }
    };
    let consuming = tokio::spawn(consumer.run(handlers, done));
    let publisher = bus.publisher();
    // The clock starts once the group has joined and handled a first event (a join takes seconds,
    // the same for both paths, and is not the path's throughput).
    publisher
        .publish_draft(draft(mix, &format!("{round}-probe"), 0))
        .await
        .expect("the probe published");
    while counters.snapshot().handled == 0 {
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    let started = Instant::now();
    let messages = futures_util::stream::iter(0..events)
        .map(|i| (i, publisher.prepare(&draft(mix, round, i)).expect("valid")));
    publisher
        .send_ordered(messages, IN_FLIGHT, |i, result| {
            if let Err(e) = result {
                panic!("event {i} not published: {e}");
            }
            true
        })
        .await;
    let published = started.elapsed();
    let stats = consuming
        .await
        .expect("the consumer task")
        .expect("the consumer");
    let seconds = finished
        .lock()
        .expect("finished")
        .map_or_else(|| started.elapsed(), |at| at - started)
        .as_secs_f64();
    assert!(stats.handled > events, "{stats:?}");
    if let Some(first) = *first.lock().expect("first") {
        println!(
            "  {round:>10}: published in {:.2} s, first handled at {:.2} s",
            published.as_secs_f64(),
            (first - started).as_secs_f64()
        );
    }
    seconds
}

/// The bare loop: the same bytes, headers and keys produced with `rdkafka` (idempotent, the same number
/// in flight) and read by a consumer group that stores each offset as it reads it (committed every
/// second by librdkafka); nothing validated, nothing decoded.
async fn bare_round(broker: &KafkaBroker, mix: &[Draft], events: u64, round: &str) -> f64 {
    let bus = round_bus(broker, round).await;
    let servers = format!("127.0.0.1:{}", broker.port);
    let producer: FutureProducer = rdkafka::ClientConfig::new()
        .set("bootstrap.servers", &servers)
        .set("enable.idempotence", "true")
        .set("acks", "all")
        .set("linger.ms", "1")
        .create()
        .expect("a producer");
    let consumer: StreamConsumer = rdkafka::ClientConfig::new()
        .set("bootstrap.servers", &servers)
        .set("group.id", round)
        .set("auto.offset.reset", "earliest")
        .set("enable.auto.offset.store", "false")
        .set("session.timeout.ms", "6000")
        .set("heartbeat.interval.ms", "2000")
        .create()
        .expect("a consumer");
    let topics = bus.topics().sections();
    let names: Vec<&str> = topics.iter().map(String::as_str).collect();
    consumer.subscribe(&names).expect("subscribed");
    // The records are made before the clock starts: the bare loop only moves bytes.
    let publisher = bus.publisher();
    let messages: Vec<(String, Option<String>, OwnedHeaders, Outgoing)> = (0..events)
        .map(|i| {
            let message = publisher.prepare(&draft(mix, round, i)).expect("valid");
            let topic = bus.topics().of_subject(&message.subject);
            let key = records::key_of(&message.headers, &message.payload);
            let mut headers = OwnedHeaders::new();
            for (name, value) in message.headers.iter() {
                headers = headers.insert(Header {
                    key: &records::record_header_name(name),
                    value: Some(&records::record_header_value(value)),
                });
            }
            (topic, key, headers, message)
        })
        .collect();
    let received = Arc::new(AtomicU64::new(0));
    let first = Arc::new(std::sync::Mutex::new(None::<Instant>));
    let consuming = {
        let (received, first) = (received.clone(), first.clone());
        tokio::spawn(async move {
            loop {
                let message = consumer.recv().await.expect("a record");
                first
                    .lock()
                    .expect("first")
                    .get_or_insert_with(Instant::now);
                consumer
                    .store_offset_from_message(&message)
                    .expect("stored");
                std::hint::black_box(&message);
                if received.fetch_add(1, Ordering::Relaxed) + 1 >= events {
                    break;
                }
            }
            consumer
                .commit_consumer_state(CommitMode::Sync)
                .expect("committed");
        })
    };
    // The clock starts once the group has joined and read a first record.
    let (topic, key, headers, message) = &messages[0];
    let mut probe = FutureRecord::to(topic)
        .payload(&message.payload[..])
        .headers(headers.clone());
    if let Some(key) = key {
        probe = probe.key(key.as_str());
    }
    producer
        .send(probe, Duration::from_secs(10))
        .await
        .expect("the probe stored");
    while received.load(Ordering::Relaxed) == 0 {
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    let started = Instant::now();
    let mut pending = VecDeque::new();
    for (topic, key, headers, message) in &messages {
        let mut record = FutureRecord::to(topic)
            .payload(&message.payload[..])
            .headers(headers.clone());
        if let Some(key) = key {
            record = record.key(key.as_str());
        }
        pending.push_back(
            producer
                .send_result(record)
                .map_err(|(e, _)| e)
                .expect("queued"),
        );
        if pending.len() >= IN_FLIGHT
            && let Some(delivery) = pending.pop_front()
        {
            delivery.await.expect("delivered").expect("stored");
        }
    }
    for delivery in pending {
        delivery.await.expect("delivered").expect("stored");
    }
    let published = started.elapsed();
    consuming.await.expect("the consumer task");
    if let Some(first) = *first.lock().expect("first") {
        println!(
            "  {round:>10}: published in {:.2} s, first handled at {:.2} s",
            published.as_secs_f64(),
            (first - started).as_secs_f64()
        );
    }
    started.elapsed().as_secs_f64()
}

/// This process's resident memory, in KiB (Linux).
fn resident_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|status| {
            status
                .lines()
                .find_map(|l| l.strip_prefix("VmRSS:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        })
        .unwrap_or(0)
}
