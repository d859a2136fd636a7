//! Consuming: a durable pull consumer on the events stream ([`NatsConsumer`]), the [`Source`] that pulls
//! its messages and the [`Delivery`] that settles each, and the consumer's lag.

use super::{Bus, NatsSink, headers_of, request_error};
use crate::bus::consumer::{self, ConsumerConfig, Counters, Observer, Start, Stats};
use crate::bus::error::BusError;
use crate::bus::handlers::Handlers;
use crate::bus::headers::Headers;
use crate::bus::health::Health;
use crate::bus::metrics::ConsumerMetrics;
use crate::bus::subjects::durable_name_error;
use crate::bus::transport::{
    Delivery, DeliveryInfo, Lag, Pulled, Source, TransportError, TransportErrorKind, Watch,
};
use async_nats::Client;
use async_nats::jetstream::{self, AckKind, consumer::pull};
use bytes::Bytes;
use futures_util::StreamExt;
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::{Semaphore, mpsc, watch};

impl Bus {
    /// A durable pull consumer on the events stream: created as configured, or the existing one of that
    /// name when it selects the same events from the same start (a different one is an error, never a
    /// silent change). Processes that open the same durable share its events.
    pub async fn consumer(&self, config: ConsumerConfig) -> Result<NatsConsumer, BusError> {
        self.peer.guard(self.open_consumer(config)).await
    }

    async fn open_consumer(&self, config: ConsumerConfig) -> Result<NatsConsumer, BusError> {
        if let Some(why) = durable_name_error(&config.durable) {
            return Err(BusError::Invalid(why));
        }
        if config.ack_wait < Duration::from_secs(1) {
            return Err(BusError::Invalid(
                "the acknowledgement wait is at least 1 second".to_owned(),
            ));
        }
        let stream_name = self.subjects.events_stream();
        let stream = self.events_stream(&stream_name).await?;
        let mut filters = config.filters.clone();
        filters.sort();
        filters.dedup();
        let wanted = pull::Config {
            durable_name: Some(config.durable.clone()),
            name: Some(config.durable.clone()),
            description: Some("energy events consumer".to_owned()),
            ack_policy: jetstream::consumer::AckPolicy::Explicit,
            ack_wait: config.ack_wait,
            // The consumer counts deliveries itself, and dead-letters a message rather than let the
            // broker stop delivering it where nobody sees it.
            max_deliver: -1,
            filter_subject: if filters.len() == 1 {
                filters[0].clone()
            } else {
                String::new()
            },
            filter_subjects: if filters.len() > 1 {
                filters.clone()
            } else {
                Vec::new()
            },
            deliver_policy: deliver_policy(config.start),
            max_ack_pending: 10_000,
            ..Default::default()
        };
        let consumer = match stream.consumer_info(&config.durable).await {
            Ok(info) => {
                let mut have: Vec<String> = info.config.filter_subjects.clone();
                if !info.config.filter_subject.is_empty() {
                    have.push(info.config.filter_subject.clone());
                }
                have.sort();
                if have != filters {
                    return Err(BusError::Invalid(format!(
                        "the durable consumer `{}` exists and selects {} (asked: {}): give this consumer another name, or use its filters",
                        config.durable,
                        describe_filters(&have),
                        describe_filters(&filters)
                    )));
                }
                if info.config.deliver_policy != wanted.deliver_policy {
                    return Err(BusError::Invalid(format!(
                        "the durable consumer `{}` exists, created to start at {:?}; a start ({:?}) applies only when it is created: to replay, use a new durable name",
                        config.durable, info.config.deliver_policy, wanted.deliver_policy
                    )));
                }
                if info.config.ack_wait != wanted.ack_wait || info.config.max_deliver != -1 {
                    // The same events from the same start: only the wait changes.
                    stream.update_consumer(wanted).await.map_err(|e| {
                        request_error(&format!("updating consumer `{}`", config.durable), e)
                    })?
                } else {
                    stream
                        .get_consumer::<pull::Config>(&config.durable)
                        .await
                        .map_err(|e| {
                            request_error(&format!("reading consumer `{}`", config.durable), e)
                        })?
                }
            }
            Err(e) if e.kind() == jetstream::context::ConsumerInfoErrorKind::NotFound => {
                stream.create_consumer(wanted).await.map_err(|e| {
                    request_error(&format!("creating consumer `{}`", config.durable), e)
                })?
            }
            Err(e) => {
                return Err(request_error(
                    &format!("reading consumer `{}`", config.durable),
                    e,
                ));
            }
        };
        let dead_letter_subject = config
            .dead_letter_subject
            .clone()
            .unwrap_or_else(|| self.subjects.dead_letters_of(&config.durable));
        Ok(NatsConsumer {
            consumer,
            sink: self.sink(),
            config,
            dead_letter_subject,
            counters: Arc::new(Counters::default()),
            observer: None,
            metrics: None,
            health: Health::default(),
            pull_wait: Duration::from_secs(2),
        })
    }
}

/// The broker's name for where a new consumer starts.
pub(super) fn deliver_policy(start: Start) -> jetstream::consumer::DeliverPolicy {
    use jetstream::consumer::DeliverPolicy;
    match start {
        Start::All => DeliverPolicy::All,
        Start::New => DeliverPolicy::New,
        Start::Sequence(start_sequence) => DeliverPolicy::ByStartSequence { start_sequence },
        Start::Time(time) => DeliverPolicy::ByStartTime {
            start_time: time::OffsetDateTime::from_unix_timestamp_nanos(time.as_nanosecond())
                .unwrap_or(time::OffsetDateTime::UNIX_EPOCH),
        },
    }
}

fn describe_filters(filters: &[String]) -> String {
    if filters.is_empty() {
        "every event".to_owned()
    } else {
        filters.join(", ")
    }
}

/// A durable pull consumer on NATS JetStream, ready to run.
pub struct NatsConsumer {
    consumer: jetstream::consumer::PullConsumer,
    sink: NatsSink,
    config: ConsumerConfig,
    dead_letter_subject: String,
    counters: Arc<Counters>,
    observer: Option<Observer>,
    metrics: Option<ConsumerMetrics>,
    health: Health,
    pull_wait: Duration,
}

impl NatsConsumer {
    /// Calls `observer` with every settlement as it happens (the `energy events consume` report).
    pub fn observe(
        mut self,
        observer: impl Fn(&consumer::Settled) + Send + Sync + 'static,
    ) -> Self {
        self.observer = Some(Arc::new(observer));
        self
    }

    /// Keeps this consumer's figures in `registry` (see [`crate::bus::metrics`] for their names), refreshing
    /// its backlog every 2 s while it runs.
    pub fn with_metrics(mut self, registry: &mut prometheus_client::registry::Registry) -> Self {
        self.metrics = Some(ConsumerMetrics::register(registry, &self.config.durable));
        self
    }

    /// The live counters (shared with the running consumer).
    pub fn counters(&self) -> Arc<Counters> {
        self.counters.clone()
    }

    /// Whether the consumer is healthy (shared with the running consumer): connected and pulling.
    pub fn health(&self) -> Health {
        self.health.clone()
    }

    /// Where dead letters go.
    pub fn dead_letter_subject(&self) -> &str {
        &self.dead_letter_subject
    }

    /// A handle that reads the consumer's backlog, also while it runs.
    pub fn lag_probe(&self) -> LagProbe {
        LagProbe {
            consumer: self.consumer.clone(),
            client: self.sink.client.clone(),
        }
    }

    /// Handles events with `handlers` until `shutdown` resolves (or the consumer is idle for its
    /// `idle_exit` with nothing left on the broker): then stops pulling, finishes and settles what it
    /// holds within its `shutdown_timeout`, hands back what it still holds, and returns the counts.
    /// A refusal of the server (a permission the user lacks) ends it at once with
    /// [`BusError::PermissionDenied`].
    pub async fn run(
        self,
        handlers: Handlers,
        shutdown: impl Future<Output = ()> + Send,
    ) -> Result<Stats, BusError> {
        let broker = self.lag_probe();
        let source = NatsSource {
            consumer: self.consumer,
            pull_wait: self.pull_wait,
            batch_floor: (self.config.concurrency / 4).max(1),
        };
        let peer = self.sink.peer.clone();
        let running = consumer::run(
            source,
            self.sink,
            broker,
            consumer::Running {
                config: self.config,
                dead_letter_subject: self.dead_letter_subject,
                handlers,
                counters: self.counters,
                observer: self.observer,
                metrics: self.metrics,
                health: self.health,
                system: "nats",
            },
            shutdown,
        );
        peer.guard(async { running.await.map_err(BusError::Transport) })
            .await
    }
}

/// Reads a consumer's backlog, and whether its connection is up.
#[derive(Clone)]
pub struct LagProbe {
    consumer: jetstream::consumer::PullConsumer,
    client: Client,
}

impl LagProbe {
    /// The backlog now.
    pub async fn lag(&self) -> Result<Lag, BusError> {
        let info = self
            .consumer
            .get_info()
            .await
            .map_err(|e| request_error("reading the consumer's state", e))?;
        Ok(Lag {
            pending: info.num_pending,
            ack_pending: u64::try_from(info.num_ack_pending).unwrap_or(u64::MAX),
        })
    }
}

impl Watch for LagProbe {
    async fn lag(&self) -> Result<Lag, TransportError> {
        LagProbe::lag(self).await.map_err(|e| match e {
            BusError::Transport(e) => e,
            other => TransportError::new(TransportErrorKind::Rejected, other.to_string()),
        })
    }

    fn connected(&self) -> bool {
        self.client.connection_state() == async_nats::connection::State::Connected
    }
}

/// Pulls from a JetStream pull consumer, as many messages as there are free slots.
struct NatsSource {
    consumer: jetstream::consumer::PullConsumer,
    /// How long one pull waits for messages on the server.
    pull_wait: Duration,
    /// The fewest free slots worth a pull (fewer, larger pulls when messages keep coming).
    batch_floor: usize,
}

impl Source for NatsSource {
    type Delivery = NatsDelivery;

    async fn pull(
        self,
        room: Arc<Semaphore>,
        deliveries: mpsc::Sender<Vec<Pulled<NatsDelivery>>>,
        mut stop: watch::Receiver<bool>,
        health: Health,
    ) -> Result<(), TransportError> {
        let mut failures = 0u32;
        // Caught up: the last fetch found nothing waiting.
        let mut caught_up = false;
        loop {
            if *stop.borrow() {
                return Ok(());
            }
            // Wait for enough free slots (one, when waiting for the next message), then take every
            // free one.
            let floor = if caught_up {
                1
            } else {
                u32::try_from(self.batch_floor).unwrap_or(1)
            };
            let mut slots = tokio::select! {
                slots = room.clone().acquire_many_owned(floor) => match slots {
                    Ok(slots) => slots,
                    Err(_) => return Ok(()),
                },
                _ = stop.changed() => return Ok(()),
            };
            let more = u32::try_from(room.available_permits()).unwrap_or(0);
            if more > 0
                && let Ok(extra) = room.clone().try_acquire_many_owned(more)
            {
                slots.merge(extra);
            }
            // Messages waiting: fetch as many as there are free slots, and only those (no prefetch
            // buffer where a message's timer would run before anyone handles it). Caught up: wait
            // for the next one with a pull that expires (a long poll, not a busy loop), then fetch
            // again. (A pull that waits with its expiry is delivered to at a small fraction of the
            // rate of one that does not: measured, BENCHMARKS.md.)
            let batch = if caught_up {
                self.consumer
                    .batch()
                    .max_messages(1)
                    .expires(self.pull_wait)
                    .messages()
                    .await
            } else {
                self.consumer
                    .fetch()
                    .max_messages(slots.num_permits())
                    .messages()
                    .await
            };
            let mut batch = match batch {
                Ok(batch) => {
                    failures = 0;
                    health.pulled(true);
                    batch
                }
                Err(e) => {
                    drop(slots);
                    failures += 1;
                    health.pulled(false);
                    log::debug!("pull failed ({e}); trying again");
                    let wait = Duration::from_millis(100 * u64::from(failures.min(20)));
                    tokio::select! {
                        () = tokio::time::sleep(wait) => continue,
                        _ = stop.changed() => return Ok(()),
                    }
                }
            };
            // A pull ends by itself (at once when fetching, after `pull_wait` when waiting); one lost
            // with its connection is given up a second after that, and made again (on the new
            // connection).
            let deadline = tokio::time::sleep(self.pull_wait + Duration::from_secs(1));
            tokio::pin!(deadline);
            let mut received = 0usize;
            let mut pulled = Vec::with_capacity(slots.num_permits());
            let waiting = caught_up;
            loop {
                let next = tokio::select! {
                    next = batch.next() => next,
                    () = &mut deadline => break,
                    // Stopping while waiting for a message: stop now rather than at the end of the
                    // wait. (A message the server sends in that instant is delivered again after the
                    // acknowledgement wait: late, never lost.)
                    _ = stop.changed(), if waiting => break,
                };
                match next {
                    Some(Ok(message)) => {
                        received += 1;
                        let Some(slot) = slots.split(1) else {
                            // More than asked for: hand it back.
                            let _ = message.ack_with(AckKind::Nak(None)).await;
                            continue;
                        };
                        if *stop.borrow() {
                            // Stopping: back to the broker at once, for another consumer.
                            let _ = message.ack_with(AckKind::Nak(None)).await;
                            continue;
                        }
                        let delivery = match NatsDelivery::new(message) {
                            Ok(delivery) => delivery,
                            Err(e) => {
                                log::warn!("a delivered message was skipped: {e}");
                                continue;
                            }
                        };
                        pulled.push(Pulled { delivery, slot });
                    }
                    Some(Err(e)) => {
                        let text = e.to_string();
                        if text.contains("Consumer Deleted") {
                            return Err(TransportError::new(
                                TransportErrorKind::Rejected,
                                format!("the consumer was deleted on the server: {text}"),
                            ));
                        }
                        log::debug!("pull ended: {text}");
                        break;
                    }
                    None => break,
                }
            }
            if !pulled.is_empty() && deliveries.send(pulled).await.is_err() {
                return Ok(());
            }
            caught_up = received == 0;
        }
    }
}

/// One delivery of a JetStream message.
pub struct NatsDelivery {
    message: jetstream::Message,
    headers: Arc<Headers>,
    info: DeliveryInfo,
}

impl NatsDelivery {
    fn new(message: jetstream::Message) -> Result<Self, String> {
        let info = message.info().map_err(|e| e.to_string())?;
        let info = DeliveryInfo {
            attempt: u64::try_from(info.delivered).unwrap_or(1),
            sequence: info.stream_sequence,
            stream: info.stream.to_owned(),
            published: jiff::Timestamp::from_nanosecond(info.published.unix_timestamp_nanos()).ok(),
        };
        let headers = Arc::new(headers_of(message.message.headers.as_ref()));
        Ok(NatsDelivery {
            message,
            headers,
            info,
        })
    }

    async fn send(&self, kind: AckKind) -> Result<(), TransportError> {
        self.message
            .ack_with(kind)
            .await
            .map_err(|e| TransportError::new(TransportErrorKind::Unavailable, e.to_string()))
    }
}

impl Delivery for NatsDelivery {
    fn subject(&self) -> &str {
        self.message.message.subject.as_str()
    }

    fn headers(&self) -> &Arc<Headers> {
        &self.headers
    }

    fn payload(&self) -> &Bytes {
        &self.message.message.payload
    }

    fn info(&self) -> &DeliveryInfo {
        &self.info
    }

    async fn ack(&self) -> Result<(), TransportError> {
        self.send(AckKind::Ack).await
    }

    async fn retry_after(&self, delay: Duration) -> Result<(), TransportError> {
        let delay = (!delay.is_zero()).then_some(delay);
        self.send(AckKind::Nak(delay)).await
    }

    async fn terminate(&self, reason: &str) -> Result<(), TransportError> {
        // `+TERM <reason>`: the server puts the reason in its termination advisory.
        let Some(reply) = self.message.message.reply.clone() else {
            return Err(TransportError::new(
                TransportErrorKind::Rejected,
                "not a JetStream delivery (no reply subject)",
            ));
        };
        let reason: String = reason.chars().filter(|c| !c.is_control()).collect();
        self.message
            .context
            .client()
            .publish(reply, Bytes::from(format!("+TERM {reason}")))
            .await
            .map_err(|e| TransportError::new(TransportErrorKind::Unavailable, e.to_string()))
    }

    async fn keep_alive(&self) -> Result<(), TransportError> {
        self.send(AckKind::Progress).await
    }
}
