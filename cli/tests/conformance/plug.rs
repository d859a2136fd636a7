//! The brokers the suite runs on, each started for one test: the in-memory broker in the test's own
//! process, `nats-server` and `tansu` on 127.0.0.1; connected through the runtime's [`Broker`] and set
//! up. What a broker cannot promise it says here, in its own words ([`Plugged::cannot`]): the promise
//! then checks what the broker does instead, where that can be seen.

use energy_runtime::bus::kafka::KafkaBus;
use energy_runtime::bus::{
    Broker, Bus, ConsumerConfig, Draft, Handlers, MemoryBus, SetUp, Settled, Stats,
};
use energy_runtime::events::Metadata;
use energy_testkit::kafka::KafkaBroker;
use energy_testkit::nats::NatsServer;
use energy_testkit::process::EnergyProcess;
use std::future::Future;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Which broker.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// `MemoryBus`, in the test's process.
    Memory,
    /// `nats-server` with JetStream on file storage.
    Nats,
    /// `tansu` keeping its records in memory.
    Kafka,
    /// `tansu` storing its records in SQLite (`TANSU_DURABLE`).
    DurableKafka,
}

/// A promise that not every broker can keep.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Promise {
    /// A message published again with the same id (within a window) is stored once.
    SameIdStoredOnce,
    /// What the broker stored outlives the broker's process (killed and started again).
    OutlivesItsProcess,
    /// Consumers in other processes share the broker (a consumer process killed, another started).
    ReachedFromOtherProcesses,
    /// A message delivered again after its consumer died counts that delivery (`attempt` > 1).
    CountsDeliveriesAcrossProcesses,
}

enum Server {
    InProcess(MemoryBus),
    Nats(NatsServer),
    Kafka(KafkaBroker),
}

/// One broker, started, connected and set up, with the runtime its connection lives on.
pub(crate) struct Plugged {
    /// Which broker.
    pub(crate) kind: Kind,
    /// The connection.
    pub(crate) bus: Box<dyn Broker>,
    server: Server,
    runtime: tokio::runtime::Runtime,
}

impl Plugged {
    /// Starts a broker of `kind`, connects and sets it up.
    pub(crate) fn start(kind: Kind) -> Plugged {
        let server = match kind {
            Kind::Memory => Server::InProcess(MemoryBus::new()),
            Kind::Nats => Server::Nats(NatsServer::start()),
            Kind::Kafka => Server::Kafka(KafkaBroker::start()),
            Kind::DurableKafka => Server::Kafka(KafkaBroker::start_durable()),
        };
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .expect("a runtime");
        let bus = runtime.block_on(connect(&server));
        let plugged = Plugged {
            kind,
            bus,
            server,
            runtime,
        };
        plugged.block(60, async {
            plugged.bus.init(&SetUp::default()).await.expect("set up")
        });
        plugged
    }

    /// Runs `work` on the connection's runtime, failing the test past `seconds`.
    pub(crate) fn block<T>(&self, seconds: u64, work: impl Future<Output = T>) -> T {
        self.runtime.block_on(async {
            tokio::time::timeout(Duration::from_secs(seconds), work)
                .await
                .unwrap_or_else(|_| panic!("{:?}: not done within {seconds} s", self.kind))
        })
    }

    /// Runs `work` in the background on the connection's runtime.
    pub(crate) fn spawn<T: Send + 'static>(
        &self,
        work: impl Future<Output = T> + Send + 'static,
    ) -> tokio::task::JoinHandle<T> {
        self.runtime.spawn(work)
    }

    /// Why this broker cannot keep `promise`, if it cannot.
    pub(crate) fn cannot(&self, promise: Promise) -> Option<&'static str> {
        use Kind::*;
        use Promise::*;
        match (self.kind, promise) {
            (Kafka | DurableKafka, SameIdStoredOnce) => Some(
                "Kafka has no broker-side window: an event published twice by the caller is stored twice (its consumers count it: attempt 2)",
            ),
            (Memory, OutlivesItsProcess) => {
                Some("the in-memory broker lives in its process: killed, it takes what it held")
            }
            (Kafka, OutlivesItsProcess) => Some(
                "tansu with memory storage keeps nothing across a restart (the SQLite one does)",
            ),
            (Memory, ReachedFromOtherProcesses | CountsDeliveriesAcrossProcesses) => Some(
                "the in-memory broker is reached from its own process only: its consumers stop (dropped), they are not killed",
            ),
            (Kafka | DurableKafka, CountsDeliveriesAcrossProcesses) => Some(
                "a record read again by another member after a rebalance is its first delivery there (no delivery count survives a process)",
            ),
            _ => None,
        }
    }

    /// The server's address for an `energy` process, when another process can reach it.
    pub(crate) fn url(&self) -> Option<String> {
        match &self.server {
            Server::InProcess(_) => None,
            Server::Nats(server) => Some(server.url.clone()),
            Server::Kafka(broker) => Some(broker.url.clone()),
        }
    }

    /// Kills the broker's process (SIGKILL) and starts it again on its data.
    pub(crate) fn restart(&mut self) {
        match &mut self.server {
            Server::InProcess(_) => panic!("the in-memory broker has no process of its own"),
            Server::Nats(server) => server.restart(),
            Server::Kafka(broker) => broker.restart(),
        }
    }

    /// The acknowledgement wait of the suite's consumers: on Kafka the group's session, which a
    /// broker takes 6 s at least.
    pub(crate) fn ack_wait(&self) -> Duration {
        match self.kind {
            Kind::Memory | Kind::Nats => Duration::from_secs(2),
            Kind::Kafka | Kind::DurableKafka => Duration::from_secs(6),
        }
    }

    /// Runs a consumer until it has been idle for a second with nothing left for it on the broker;
    /// its settlements in order, and its counts.
    pub(crate) async fn consume(
        &self,
        config: ConsumerConfig,
        handlers: Handlers,
    ) -> (Vec<Settled>, Stats) {
        let settled = Arc::new(Mutex::new(Vec::new()));
        let seen = settled.clone();
        let config = config
            .ack_wait(self.ack_wait())
            .idle_exit(Duration::from_secs(1));
        let consumer = self
            .bus
            .consumer(config)
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

    /// `energy events consume` on this broker (a process of its own), until idle for `idle_exit`
    /// seconds.
    pub(crate) fn consumer_process(&self, durable: &str, idle_exit: u32) -> EnergyProcess {
        let url = self.url().expect("a broker other processes reach");
        let ack_wait = format!("{}s", self.ack_wait().as_secs());
        EnergyProcess::start(&[
            "events",
            "consume",
            "--server",
            &url,
            "--durable",
            durable,
            "--ack-wait",
            &ack_wait,
            "--retry-delay",
            "200ms",
            "--idle-exit",
            &idle_exit.to_string(),
        ])
    }
}

async fn connect(server: &Server) -> Box<dyn Broker> {
    match server {
        Server::InProcess(bus) => Box::new(bus.clone()),
        Server::Nats(server) => Box::new(Bus::connect(&server.url).await.expect("connects")),
        Server::Kafka(broker) => Box::new(KafkaBus::connect(&broker.url).await.expect("connects")),
    }
}

/// A draft of `event_type` v1 with `payload` and the envelope fields `pairs` (`id`, `subject`, …).
pub(crate) fn draft(event_type: &str, payload: &str, pairs: &[(&str, &str)]) -> Draft {
    let mut metadata = Metadata::new();
    for (name, value) in pairs {
        metadata.insert_str(*name, value);
    }
    Draft {
        event_type: event_type.to_owned(),
        version: "v1".to_owned(),
        payload: payload.as_bytes().to_vec().into(),
        metadata,
    }
}

/// The `i`-th event of a stream: three event types in turn (three catalogue sections), each with its
/// own id, about one of 97 accounts.
pub(crate) fn numbered(i: u64) -> Draft {
    let id = format!("evt-{i}");
    let account = format!("A-{}", i % 97);
    let pairs = [("id", id.as_str()), ("subject", account.as_str())];
    match i % 3 {
        0 => draft("business.created", &format!(r#"{{"id":{i}}}"#), &pairs),
        1 => draft(
            "agreement.revoked",
            &format!(r#"{{"agreement_id":{i},"account_number":"A-{i}"}}"#),
            &pairs,
        ),
        _ => draft(
            "billing.issued_bill",
            &format!(r#"{{"account_number":"A-{i}","statement_id":{i}}}"#),
            &pairs,
        ),
    }
}

/// Publishes events `range` of [`numbered`], `in_flight` at a time; fails on any not stored.
pub(crate) async fn publish_numbered(bus: &dyn Broker, range: std::ops::Range<u64>) {
    let publisher = bus.publisher();
    let messages = futures_util::stream::iter(range.map(|i| {
        let message = publisher.prepare(&numbered(i)).expect("a valid event");
        (i, message)
    }));
    let mut failures = Vec::new();
    publisher
        .send_ordered(messages, 128, |i, result| {
            if let Err(e) = result {
                failures.push(format!("evt-{i}: {e}"));
            }
            true
        })
        .await;
    assert!(failures.is_empty(), "not published: {failures:?}");
}

/// The ids a consumer process reported handled.
pub(crate) fn handled_ids(lines: &[String]) -> Vec<String> {
    lines
        .iter()
        .filter_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())
        .filter(|v| v["outcome"] == "handled")
        .filter_map(|v| v["id"].as_str().map(str::to_owned))
        .collect()
}

/// The ids `0..count` of [`numbered`] missing from `handled`.
pub(crate) fn missing(handled: &[String], count: u64) -> Vec<u64> {
    let seen: std::collections::HashSet<&String> = handled.iter().collect();
    (0..count)
        .filter(|i| !seen.contains(&format!("evt-{i}")))
        .collect()
}
