//! End-to-end events per second on a real `nats-server` (127.0.0.1): publish → stream → consumer with
//! acknowledgements, the typed path (`Publisher`: validation and CloudEvents headers; `NatsConsumer`:
//! headers read, payload decoded into the generated types, a handler, acknowledgement) against a bare
//! `async-nats` loop moving the same bytes and headers with no validation and no decoding; and the typed
//! path observed as an operator runs it (the consumer's metrics on, a tracing subscriber with the
//! OpenTelemetry layer making every `create` and `process` span, exported nowhere) against the same path
//! unobserved. Then the typed path's memory over a long run. The ratios are what BENCHMARKS.md records.
//!
//! `cargo xtask bench --only bus` (installs the pinned server), or
//! `NATS_SERVER=… cargo bench -p energy-runtime --bench bus -- [EVENTS] [ROUNDS] [MEMORY_EVENTS]`
//! (defaults 200000, 7, 1000000). `BUS_BENCH_ONLY=typed|observed|bare` runs the rounds of one path only
//! (no warm-up, no memory run: for a profiler, such as `valgrind --tool=callgrind`, which counts the
//! instructions of this process per event).
#![forbid(unsafe_code)]

/// Both paths run on mimalloc, as a high-rate consumer would (BENCHMARKS.md gives the figures on the
/// system allocator too, from a build without these two lines).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

use energy_testkit::nats;

use async_nats::jetstream;
use energy_runtime::bus::transport::Outgoing;
use energy_runtime::bus::{
    Broker, Bus, ConsumerConfig, Draft, Handlers, Retention, SetUp, Storage,
};
use energy_runtime::events::Metadata;
use futures_util::StreamExt;
use std::collections::VecDeque;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// Messages awaiting the broker's acknowledgement at once, on both paths.
const IN_FLIGHT: usize = 256;
/// Messages a consumer holds at once, on both paths (`energy events consume --concurrency`).
const CONCURRENCY: usize = 1024;

/// Whether the OpenTelemetry layer records spans now (on in the observed rounds only).
static OBSERVED: AtomicBool = AtomicBool::new(false);

/// A tracing subscriber with the OpenTelemetry layer at the INFO level (as deployments run it), its
/// tracer exporting nowhere, recording only while [`OBSERVED`] is on (off, the spans are disabled, as
/// with no subscriber).
fn install_tracing() {
    use opentelemetry::trace::TracerProvider as _;
    use tracing_subscriber::Layer as _;
    use tracing_subscriber::layer::SubscriberExt as _;
    let provider = opentelemetry_sdk::trace::SdkTracerProvider::builder().build();
    let layer = energy_runtime::bus::trace::layer()
        .with_tracer(provider.tracer("energy-bench"))
        // Dynamic: asked at every span (a static filter's answer is cached per callsite).
        .with_filter(tracing_subscriber::filter::dynamic_filter_fn(
            |metadata, _| {
                OBSERVED.load(Ordering::Relaxed) && *metadata.level() <= tracing::Level::INFO
            },
        ));
    tracing::subscriber::set_global_default(tracing_subscriber::registry().with(layer))
        .expect("the only subscriber");
    // Kept for the process's life: dropping the provider would end the tracer.
    std::mem::forget(provider);
}

fn main() {
    let mut args = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .map(|a| {
            a.parse::<u64>()
                .expect("numbers: EVENTS ROUNDS MEMORY_EVENTS")
        });
    let events = args.next().unwrap_or(200_000);
    let rounds = args.next().unwrap_or(7);
    let memory_events = args.next().unwrap_or(1_000_000);
    install_tracing();
    let server = nats::NatsServer::start();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    runtime.block_on(async {
        let bus = Bus::connect(&server.url).await.expect("connects");
        bus.init(&SetUp {
            storage: Storage::Memory,
            // Acknowledged events are removed: the stream stays small however long the run.
            retention: Retention::Interest,
            ..SetUp::default()
        })
        .await
        .expect("streams");
        let mix = golden_mix();
        println!(
            "bus bench: {events} events a round, {rounds} rounds each, payloads cycling through {} golden cases ({} bytes on average); nats-server {} on 127.0.0.1, memory storage",
            mix.len(),
            mix.iter().map(|d| d.payload.len()).sum::<usize>() / mix.len(),
            server_version()
        );
        let only = std::env::var("BUS_BENCH_ONLY").ok();
        if only.is_none() {
            // A warm-up round of each (not counted): the first round of a process pays for the server's
            // and the allocator's first pages.
            typed_round(&bus, &mix, events / 10, "warm-typed", None, false).await;
            typed_round(&bus, &mix, events / 10, "warm-observed", None, true).await;
            // Memory first, before the bare rounds fill the allocator with their prepared messages.
            let samples = Arc::new(std::sync::Mutex::new(Vec::new()));
            let seconds = typed_round(&bus, &mix, memory_events, "memory", Some(samples.clone()), true).await;
            let samples = samples.lock().expect("samples").clone();
            let mib = |kib: u64| kib as f64 / 1024.0;
            let after_warmup: Vec<u64> = samples.iter().skip(samples.len() / 10).map(|(_, k)| *k).collect();
            println!(
                "memory, typed path observed (metrics, OpenTelemetry layer) over {memory_events} events ({:.0} events/s): resident {} MiB at {} events … {} MiB at {} events; after the first tenth between {:.1} and {:.1} MiB",
                memory_events as f64 / seconds,
                samples.first().map_or(0.0, |s| mib(s.1)),
                samples.first().map_or(0, |s| s.0),
                samples.last().map_or(0.0, |s| mib(s.1)),
                samples.last().map_or(0, |s| s.0),
                mib(after_warmup.iter().copied().min().unwrap_or(0)),
                mib(after_warmup.iter().copied().max().unwrap_or(0)),
            );
            bare_round(&bus, &mix, events / 10, "warm-bare").await;
        }
        let (mut typed, mut observed, mut bare) = (Vec::new(), Vec::new(), Vec::new());
        for round in 0..rounds {
            // Rotate which goes first, so that none always has the warmer machine.
            let kinds = ["typed", "observed", "bare"];
            for k in 0..3 {
                let kind = kinds[(k + round as usize) % 3];
                if only.as_deref().is_some_and(|only| only != kind) {
                    continue;
                }
                let name = format!("{kind}-{round}");
                let cpu = cpu_seconds();
                let seconds = match kind {
                    "typed" => typed_round(&bus, &mix, events, &name, None, false).await,
                    "observed" => typed_round(&bus, &mix, events, &name, None, true).await,
                    _ => bare_round(&bus, &mix, events, &name).await,
                };
                let cpu = (cpu_seconds() - cpu) * 1e6 / events as f64;
                let rate = events as f64 / seconds;
                println!("  {name:>10}: {seconds:.2} s, {rate:.0} events/s, this process {cpu:.1} µs of CPU an event");
                match kind {
                    "typed" => typed.push(rate),
                    "observed" => observed.push(rate),
                    _ => bare.push(rate),
                }
            }
        }
        let median = |v: &[f64]| {
            let mut v = v.to_vec();
            v.sort_by(f64::total_cmp);
            v[v.len() / 2]
        };
        let report = |name: &str, numerator: &[f64], denominator: &[f64]| {
            let ratios: Vec<f64> = numerator.iter().zip(denominator).map(|(a, b)| a / b).collect();
            println!(
                "{name}: {:.0} / {:.0} events/s = {:.2} by the ratio of the medians (median of the rounds' ratios {:.2}, from {:.2} to {:.2})",
                median(numerator),
                median(denominator),
                median(numerator) / median(denominator),
                median(&ratios),
                ratios.iter().copied().fold(f64::INFINITY, f64::min),
                ratios.iter().copied().fold(0.0, f64::max),
            );
        };
        if only.is_none() {
            report("typed / bare", &typed, &bare);
            report("observed / typed", &observed, &typed);
        }
    });
}

/// The version of the server binary.
fn server_version() -> String {
    std::process::Command::new(nats::binary())
        .arg("--version")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned())
        .unwrap_or_default()
}

/// Every case of every golden file, as a draft to publish.
fn golden_mix() -> Vec<Draft> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/golden/events");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("the golden folder")
        .map(|e| e.expect("an entry").path())
        .collect();
    files.sort();
    let mut mix = Vec::new();
    for path in files {
        let stem = path
            .file_stem()
            .expect("a name")
            .to_string_lossy()
            .into_owned();
        let (event_type, version) = energy_api::EventType::ALL
            .iter()
            .find_map(|t| {
                let rest = stem.strip_prefix(t.as_str())?.strip_prefix('.')?;
                t.versions().contains(&rest).then(|| (t.as_str(), rest))
            })
            .expect("a known version");
        let file: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&path).expect("readable")).expect("JSON");
        for payload in file["cases"].as_object().expect("cases").values() {
            mix.push(Draft {
                event_type: event_type.to_owned(),
                version: version.to_owned(),
                payload: payload.to_string().into(),
                metadata: Metadata::new(),
            });
        }
    }
    mix
}

/// The `i`-th draft of a round: the mix in turn, each with an id of its own.
fn draft(mix: &[Draft], round: &str, i: u64) -> Draft {
    let mut draft = mix[(i % mix.len() as u64) as usize].clone();
    draft.metadata.insert_str("id", &format!("{round}-{i}"));
    draft
}

/// Resident memory samples: (events handled, KiB).
type Samples = Arc<std::sync::Mutex<Vec<(u64, u64)>>>;

/// The typed path: validated and published by `Publisher`, consumed by `NatsConsumer` into the
/// generated types. Seconds from the first publish to the last acknowledgement.
async fn typed_round(
    bus: &Bus,
    mix: &[Draft],
    events: u64,
    round: &str,
    memory: Option<Samples>,
    observed: bool,
) -> f64 {
    OBSERVED.store(observed, Ordering::Relaxed);
    let mut consumer = bus
        .consumer(ConsumerConfig::durable(round).concurrency(CONCURRENCY))
        .await
        .expect("a consumer");
    let mut registry = prometheus_client::registry::Registry::default();
    if observed {
        consumer = consumer.with_metrics(&mut registry);
    }
    let counters = consumer.counters();
    let mut handlers = Handlers::new();
    handlers.fallback(|decoded, _| async move {
        // The typed event is there; a handler would use it.
        std::hint::black_box(decoded);
        Ok(())
    });
    let finished = Arc::new(std::sync::Mutex::new(None::<Instant>));
    let done = {
        let counters = counters.clone();
        let finished = finished.clone();
        async move {
            let mut next_sample = events / 100;
            loop {
                let handled = counters.snapshot().handled;
                if let Some(samples) = &memory
                    && handled >= next_sample
                {
                    samples
                        .lock()
                        .expect("samples")
                        .push((handled, resident_kib()));
                    next_sample += events / 100;
                }
                if handled >= events {
                    *finished.lock().expect("finished") = Some(Instant::now());
                    return;
                }
                tokio::time::sleep(Duration::from_millis(2)).await;
            }
        }
    };
    let started = Instant::now();
    let consuming = tokio::spawn(consumer.run(handlers, done));
    let publisher = bus.publisher();
    // Published inside a span, as a traced producer would: every message carries its trace context.
    let publishing = tracing::info_span!("publish-round");
    let messages = futures_util::stream::iter(0..events).map(|i| {
        let _entered = publishing.enter();
        let message = publisher.prepare(&draft(mix, round, i)).expect("valid");
        (i, message)
    });
    publisher
        .send_ordered(messages, IN_FLIGHT, |i, result| {
            if let Err(e) = result {
                panic!("event {i} not published: {e}");
            }
            true
        })
        .await;
    let stats = consuming
        .await
        .expect("the consumer task")
        .expect("the consumer");
    // Until the last event was handled (the shutdown after it is not the path's throughput).
    let seconds = finished
        .lock()
        .expect("finished")
        .map_or_else(|| started.elapsed(), |at| at - started)
        .as_secs_f64();
    assert_eq!(stats.handled, events, "{stats:?}");
    delete_consumer(bus, round).await;
    seconds
}

/// The bare loop: the same bytes and headers published with `async-nats` (acknowledgements awaited,
/// the same number in flight), pulled and acknowledged; nothing validated, nothing decoded.
async fn bare_round(bus: &Bus, mix: &[Draft], events: u64, round: &str) -> f64 {
    let js = jetstream::new(bus.client().clone());
    let stream = js
        .get_stream(bus.subjects().events_stream())
        .await
        .expect("the stream");
    let consumer: jetstream::consumer::PullConsumer = stream
        .create_consumer(jetstream::consumer::pull::Config {
            durable_name: Some(round.to_owned()),
            ack_policy: jetstream::consumer::AckPolicy::Explicit,
            max_ack_pending: 10_000,
            ..Default::default()
        })
        .await
        .expect("a consumer");
    // The messages are made before the clock starts: the bare loop only moves bytes.
    let publisher = bus.publisher();
    let messages: Vec<Outgoing> = (0..events)
        .map(|i| publisher.prepare(&draft(mix, round, i)).expect("valid"))
        .collect();
    let received = Arc::new(AtomicU64::new(0));
    let started = Instant::now();
    let consuming = {
        let received = received.clone();
        tokio::spawn(async move {
            let mut messages = consumer
                .stream()
                .max_messages_per_batch(CONCURRENCY)
                .messages()
                .await
                .expect("messages");
            while let Some(message) = messages.next().await {
                let message = message.expect("a message");
                message.ack().await.expect("acknowledged");
                if received.fetch_add(1, Ordering::Relaxed) + 1 >= events {
                    break;
                }
            }
        })
    };
    let mut pending = VecDeque::new();
    for message in messages {
        let mut headers = async_nats::HeaderMap::new();
        for (name, value) in message.headers.iter() {
            headers.append(name, value);
        }
        let publish = jetstream::message::PublishMessage::build()
            .payload(message.payload)
            .headers(headers)
            .message_id(&message.id);
        pending.push_back(
            js.send_publish(message.subject, publish)
                .await
                .expect("sent"),
        );
        if pending.len() >= IN_FLIGHT
            && let Some(ack) = pending.pop_front()
        {
            ack.await.expect("stored");
        }
    }
    for ack in pending {
        ack.await.expect("stored");
    }
    consuming.await.expect("the consumer task");
    let seconds = started.elapsed().as_secs_f64();
    bus.client().flush().await.expect("flushed");
    delete_consumer(bus, round).await;
    seconds
}

async fn delete_consumer(bus: &Bus, name: &str) {
    let js = jetstream::new(bus.client().clone());
    let stream = js
        .get_stream(bus.subjects().events_stream())
        .await
        .expect("the stream");
    stream.delete_consumer(name).await.expect("deleted");
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

/// This process's CPU time (user and system), in seconds (Linux).
fn cpu_seconds() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    let fields: Vec<&str> = stat
        .rsplit(')')
        .next()
        .unwrap_or("")
        .split_whitespace()
        .collect();
    let ticks = |i: usize| {
        fields
            .get(i)
            .and_then(|f| f.parse::<f64>().ok())
            .unwrap_or(0.0)
    };
    (ticks(11) + ticks(12)) / 100.0
}
