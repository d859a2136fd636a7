//! The broker a bus command talks to: NATS or Kafka, chosen by the server address's scheme. Each command
//! is written once against [`Broker`] and [`AnyConsumer`]; only their matches know there are two.

use energy_runtime::bus::kafka::{KafkaBus, KafkaConsumer, KafkaLagProbe};
use energy_runtime::bus::{
    Bus, BusError, CaptureRange, Captured, ConsumerConfig, Counters, DeadLetter, Handlers, Health,
    Lag, LagProbe, NatsConsumer, Receipt, Settled, Stats, Subjects,
};
use std::future::Future;
use std::sync::Arc;

/// A connected broker.
#[derive(Clone)]
pub(crate) enum Broker {
    /// NATS JetStream (boxed: its client is ten times the size of Kafka's handle).
    Nats(Box<Bus>),
    /// Kafka.
    Kafka(KafkaBus),
}

impl Broker {
    /// The broker's kind, as OpenTelemetry names it.
    pub(crate) fn system(&self) -> &'static str {
        match self {
            Broker::Nats(_) => "nats",
            Broker::Kafka(_) => "kafka",
        }
    }

    /// The subjects (and so, on Kafka, the topics) of the deployment.
    pub(crate) fn subjects(&self) -> &Subjects {
        match self {
            Broker::Nats(bus) => bus.subjects(),
            Broker::Kafka(bus) => bus.subjects(),
        }
    }

    /// Fails when the events cannot be stored (no stream, no topics): `energy bus init` first.
    pub(crate) async fn check_ready(&self) -> Result<(), BusError> {
        match self {
            Broker::Nats(bus) => bus.check_streams().await,
            Broker::Kafka(bus) => bus.check_topics().await,
        }
    }

    /// A consumer.
    pub(crate) async fn consumer(&self, config: ConsumerConfig) -> Result<AnyConsumer, BusError> {
        match self {
            Broker::Nats(bus) => bus
                .consumer(config)
                .await
                .map(|c| AnyConsumer::Nats(Box::new(c))),
            Broker::Kafka(bus) => bus
                .consumer(config)
                .await
                .map(|c| AnyConsumer::Kafka(Box::new(c))),
        }
    }

    /// The dead letters of `subject` (every one without).
    pub(crate) async fn dead_letters(
        &self,
        subject: Option<&str>,
    ) -> Result<Vec<DeadLetter>, BusError> {
        match self {
            Broker::Nats(bus) => bus.dead_letters(subject).await,
            Broker::Kafka(bus) => bus.dead_letters(subject).await,
        }
    }

    /// Every dead letter of `subject` (every one without), one at a time.
    pub(crate) async fn each_dead_letter(
        &self,
        subject: Option<&str>,
        each: impl FnMut(DeadLetter),
    ) -> Result<u64, BusError> {
        match self {
            Broker::Nats(bus) => bus.each_dead_letter(subject, each).await,
            Broker::Kafka(bus) => bus.each_dead_letter(subject, each).await,
        }
    }

    /// One dead letter.
    pub(crate) async fn dead_letter(&self, sequence: u64) -> Result<DeadLetter, BusError> {
        match self {
            Broker::Nats(bus) => bus.dead_letter(sequence).await,
            Broker::Kafka(bus) => bus.dead_letter(sequence).await,
        }
    }

    /// Publishes a dead letter again.
    pub(crate) async fn republish_dead_letter(&self, sequence: u64) -> Result<Receipt, BusError> {
        match self {
            Broker::Nats(bus) => bus.republish_dead_letter(sequence).await,
            Broker::Kafka(bus) => bus.republish_dead_letter(sequence).await,
        }
    }

    /// Reads the events in `range`.
    pub(crate) async fn capture(
        &self,
        range: &CaptureRange,
        each: impl FnMut(Captured) -> Result<(), String>,
        stop: impl Future<Output = ()>,
    ) -> Result<u64, BusError> {
        match self {
            Broker::Nats(bus) => bus.capture(range, each, stop).await,
            Broker::Kafka(bus) => bus.capture(range, each, stop).await,
        }
    }
}

/// A consumer on either broker.
pub(crate) enum AnyConsumer {
    Nats(Box<NatsConsumer>),
    Kafka(Box<KafkaConsumer>),
}

impl AnyConsumer {
    pub(crate) fn with_metrics(self, registry: &mut prometheus_client::registry::Registry) -> Self {
        match self {
            AnyConsumer::Nats(c) => AnyConsumer::Nats(Box::new(c.with_metrics(registry))),
            AnyConsumer::Kafka(c) => AnyConsumer::Kafka(Box::new(c.with_metrics(registry))),
        }
    }

    pub(crate) fn health(&self) -> Health {
        match self {
            AnyConsumer::Nats(c) => c.health(),
            AnyConsumer::Kafka(c) => c.health(),
        }
    }

    pub(crate) fn observe(self, observer: impl Fn(&Settled) + Send + Sync + 'static) -> Self {
        match self {
            AnyConsumer::Nats(c) => AnyConsumer::Nats(Box::new(c.observe(observer))),
            AnyConsumer::Kafka(c) => AnyConsumer::Kafka(Box::new(c.observe(observer))),
        }
    }

    pub(crate) fn counters(&self) -> Arc<Counters> {
        match self {
            AnyConsumer::Nats(c) => c.counters(),
            AnyConsumer::Kafka(c) => c.counters(),
        }
    }

    pub(crate) fn lag_probe(&self) -> AnyProbe {
        match self {
            AnyConsumer::Nats(c) => AnyProbe::Nats(Box::new(c.lag_probe())),
            AnyConsumer::Kafka(c) => AnyProbe::Kafka(c.lag_probe()),
        }
    }

    pub(crate) async fn run(
        self,
        handlers: Handlers,
        shutdown: impl Future<Output = ()> + Send,
    ) -> Result<Stats, BusError> {
        match self {
            AnyConsumer::Nats(c) => c.run(handlers, shutdown).await,
            AnyConsumer::Kafka(c) => c.run(handlers, shutdown).await,
        }
    }
}

/// Reads a consumer's backlog on either broker.
pub(crate) enum AnyProbe {
    Nats(Box<LagProbe>),
    Kafka(KafkaLagProbe),
}

impl AnyProbe {
    pub(crate) async fn lag(&self) -> Result<Lag, BusError> {
        match self {
            AnyProbe::Nats(p) => p.lag().await,
            AnyProbe::Kafka(p) => p.lag().await,
        }
    }
}
