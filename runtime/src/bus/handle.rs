//! The consumer handle every broker returns ([`Consumer`]) and its backlog's probe ([`LagProbe`]):
//! written once over what a broker's leaf opens ([`Opened`]: its [`Source`], [`Sink`] and [`Watch`]
//! behind one call), so that observing, metrics, counters, health and running a consumer are the same
//! on every broker.

use super::consumer::{self, ConsumerConfig, Counters, Observer, Running, Settled, Stats};
use super::error::{Answer, BusError, Stop};
use super::handlers::Handlers;
use super::health::Health;
use super::metrics::ConsumerMetrics;
use super::subjects::{Subjects, durable_name_error};
use super::transport::{Lag, Sink, Source, TransportError, Watch};
use futures_util::future::BoxFuture;
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

/// A consumer a broker's leaf has opened: what the handle asks of it.
pub(crate) trait Opened: Send + 'static {
    /// A probe of the consumer's backlog. Where the broker counts per partition, it keeps those
    /// figures in `metrics`.
    fn probe(&self, metrics: Option<&ConsumerMetrics>) -> LagProbe;

    /// Runs the consumer ([`run_on`] over the leaf's source and sink) until `shutdown` resolves.
    fn run<'a>(self: Box<Self>, running: Running, shutdown: Stop<'a>) -> Answer<'a, Stats>;
}

/// The consumer's logic on a leaf's source and sink, its errors the bus's.
pub(crate) async fn run_on<Src: Source, K: Sink>(
    source: Src,
    sink: K,
    probe: LagProbe,
    running: Running,
    shutdown: impl Future<Output = ()> + Send,
) -> Result<Stats, BusError> {
    consumer::run(source, sink, probe, running, shutdown)
        .await
        .map_err(BusError::Transport)
}

/// The subject filters a consumer of `config` selects, sorted and each once, after its durable name
/// and acknowledgement wait are checked (the same rules on every broker).
pub(crate) fn checked_filters(config: &ConsumerConfig) -> Result<Vec<String>, BusError> {
    if let Some(why) = durable_name_error(&config.durable) {
        return Err(BusError::Invalid(why));
    }
    if config.ack_wait < Duration::from_secs(1) {
        return Err(BusError::Invalid(
            "the acknowledgement wait is at least 1 second".to_owned(),
        ));
    }
    let mut filters = config.filters.clone();
    filters.sort();
    filters.dedup();
    Ok(filters)
}

/// A consumer on any broker, ready to run: a durable consumer on NATS JetStream, a member of a
/// consumer group on Kafka, a durable consumer of the in-memory broker. The same handlers,
/// settlements, dead letters, metrics and traces on each.
pub struct Consumer {
    /// The broker's kind, as OpenTelemetry names it (`nats`, `kafka`, `memory`): the metrics' and
    /// the spans' `messaging.system`.
    system: &'static str,
    opened: Box<dyn Opened>,
    config: ConsumerConfig,
    dead_letter_subject: String,
    counters: Arc<Counters>,
    observer: Option<Observer>,
    metrics: Option<ConsumerMetrics>,
    health: Health,
}

impl Consumer {
    /// The handle of a consumer the leaf of broker `system` opened with `config`; its dead letters go
    /// where `config` says, else to its durable's subject of `subjects`.
    pub(crate) fn new(
        system: &'static str,
        opened: impl Opened,
        config: ConsumerConfig,
        subjects: &Subjects,
    ) -> Self {
        let dead_letter_subject = config
            .dead_letter_subject
            .clone()
            .unwrap_or_else(|| subjects.dead_letters_of(&config.durable));
        Consumer {
            system,
            opened: Box::new(opened),
            config,
            dead_letter_subject,
            counters: Arc::new(Counters::default()),
            observer: None,
            metrics: None,
            health: Health::default(),
        }
    }

    /// Calls `observer` with every settlement as it happens (the `energy events consume` report).
    pub fn observe(mut self, observer: impl Fn(&Settled) + Send + Sync + 'static) -> Self {
        self.observer = Some(Arc::new(observer));
        self
    }

    /// Keeps this consumer's figures in `registry` (see [`crate::bus::metrics`] for their names),
    /// refreshing its backlog (on Kafka, each partition's lag) every 2 s while it runs.
    pub fn with_metrics(mut self, registry: &mut prometheus_client::registry::Registry) -> Self {
        self.metrics = Some(ConsumerMetrics::register(
            registry,
            self.system,
            &self.config.durable,
        ));
        self
    }

    /// The live counters (shared with the running consumer).
    pub fn counters(&self) -> Arc<Counters> {
        self.counters.clone()
    }

    /// Whether the consumer is healthy (shared with the running consumer): connected (on Kafka, in
    /// its group) and pulling.
    pub fn health(&self) -> Health {
        self.health.clone()
    }

    /// Where dead letters go.
    pub fn dead_letter_subject(&self) -> &str {
        &self.dead_letter_subject
    }

    /// The broker's kind, as OpenTelemetry names it (`nats`, `kafka`, `memory`).
    pub fn system(&self) -> &'static str {
        self.system
    }

    /// A handle that reads the consumer's backlog, also while it runs.
    pub fn lag_probe(&self) -> LagProbe {
        self.opened.probe(self.metrics.as_ref())
    }

    /// Handles events with `handlers` until `shutdown` resolves (or the consumer is idle for its
    /// `idle_exit` with nothing left on the broker): then stops pulling, finishes and settles what it
    /// holds within its `shutdown_timeout`, hands back what it still holds, and returns the counts. A
    /// refusal of the server (a permission the user lacks) ends it at once with
    /// [`BusError::PermissionDenied`].
    pub async fn run(
        self,
        handlers: Handlers,
        shutdown: impl Future<Output = ()> + Send,
    ) -> Result<Stats, BusError> {
        let system = self.system;
        let running = Running {
            config: self.config,
            dead_letter_subject: self.dead_letter_subject,
            handlers,
            counters: self.counters,
            observer: self.observer,
            metrics: self.metrics,
            health: self.health,
            system,
        };
        self.opened.run(running, Box::pin(shutdown)).await
    }
}

/// Reads a consumer's backlog, and whether its connection is up, on any broker.
#[derive(Clone)]
pub struct LagProbe(Arc<dyn AnyWatch>);

/// [`Watch`] as a trait object (a backlog is read every second or two: a boxed future is nothing).
trait AnyWatch: Send + Sync {
    fn lag(&self) -> BoxFuture<'_, Result<Lag, TransportError>>;
    fn connected(&self) -> bool;
}

impl<W: Watch> AnyWatch for W {
    fn lag(&self) -> BoxFuture<'_, Result<Lag, TransportError>> {
        Box::pin(Watch::lag(self))
    }

    fn connected(&self) -> bool {
        Watch::connected(self)
    }
}

impl LagProbe {
    /// The probe of a leaf's watch.
    pub(crate) fn new(watch: impl Watch) -> Self {
        LagProbe(Arc::new(watch))
    }

    /// The backlog now: on NATS the durable's pending and unacknowledged messages, on Kafka every
    /// partition's lag behind the group's committed offset (less what this process holds, counted
    /// as unsettled).
    pub async fn lag(&self) -> Result<Lag, BusError> {
        self.0.lag().await.map_err(BusError::Transport)
    }
}

impl Watch for LagProbe {
    async fn lag(&self) -> Result<Lag, TransportError> {
        self.0.lag().await
    }

    fn connected(&self) -> bool {
        self.0.connected()
    }
}
