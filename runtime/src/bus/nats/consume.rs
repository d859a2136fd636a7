//! Consuming: a durable pull consumer on the events stream (opened for the floor's
//! [`Consumer`]), the [`Source`] that pulls its messages and the [`Delivery`] that settles each, and
//! the consumer's lag.

use super::{Bus, NatsSink, Peer, headers_of, request_error};
use crate::bus::consumer::{ConsumerConfig, Running, Start, Stats};
use crate::bus::error::{Answer, BusError, Stop};
use crate::bus::handle::{Consumer, LagProbe, Opened, checked_filters, run_on};
use crate::bus::metrics::ConsumerMetrics;
use crate::bus::transport::{
    Carried, Delivery, DeliveryInfo, Lag, Pulled, Pulling, Source, TransportError,
    TransportErrorKind, Watch,
};
use async_nats::Client;
use async_nats::jetstream::{self, AckKind, consumer::pull};
use futures_util::StreamExt;
use std::sync::Arc;
use std::time::Duration;

impl Bus {
    /// A durable pull consumer on the events stream: created as configured, or the existing one of that
    /// name when it selects the same events from the same start (a different one is an error, never a
    /// silent change).
    pub(super) async fn open_consumer(&self, config: ConsumerConfig) -> Result<Consumer, BusError> {
        let filters = checked_filters(&config)?;
        let stream_name = self.subjects.events_stream();
        let stream = self.stream(&stream_name).await?;
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
        let opened = NatsOpened {
            consumer,
            sink: self.sink(),
            batch_floor: (config.concurrency / 4).max(1),
        };
        Ok(Consumer::new("nats", opened, config, &self.subjects))
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

/// A durable pull consumer on JetStream, opened: what the floor's [`Consumer`] runs.
struct NatsOpened {
    consumer: jetstream::consumer::PullConsumer,
    sink: NatsSink,
    /// The fewest free slots worth a pull (a quarter of the concurrency).
    batch_floor: usize,
}

impl Opened for NatsOpened {
    fn probe(&self, _metrics: Option<&ConsumerMetrics>) -> LagProbe {
        LagProbe::new(NatsProbe {
            consumer: self.consumer.clone(),
            client: self.sink.client.clone(),
        })
    }

    /// A refusal of the server (a permission the user lacks) ends it at once with
    /// [`BusError::PermissionDenied`].
    fn run<'a>(self: Box<Self>, running: Running, shutdown: Stop<'a>) -> Answer<'a, Stats> {
        let probe = self.probe(None);
        let peer: Peer = self.sink.peer.clone();
        let source = NatsSource {
            consumer: self.consumer,
            pull_wait: PULL_WAIT,
            batch_floor: self.batch_floor,
        };
        let running = run_on(source, self.sink, probe, running, shutdown);
        Box::pin(async move { peer.guard(running).await })
    }
}

/// How long a pull waits on the server for the next message once caught up.
const PULL_WAIT: Duration = Duration::from_secs(2);

/// Reads a durable consumer's backlog on the server, and whether the connection is up.
struct NatsProbe {
    consumer: jetstream::consumer::PullConsumer,
    client: Client,
}

impl Watch for NatsProbe {
    async fn lag(&self) -> Result<Lag, TransportError> {
        let info = self
            .consumer
            .get_info()
            .await
            .map_err(|e| transport_of(request_error("reading the consumer's state", e)))?;
        Ok(Lag {
            pending: info.num_pending,
            ack_pending: u64::try_from(info.num_ack_pending).unwrap_or(u64::MAX),
        })
    }

    fn connected(&self) -> bool {
        self.client.connection_state() == async_nats::connection::State::Connected
    }
}

/// The transport error of a request that failed.
fn transport_of(error: BusError) -> TransportError {
    match error {
        BusError::Transport(e) => e,
        other => TransportError::new(TransportErrorKind::Rejected, other.to_string()),
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

    async fn pull(self, mut pulling: Pulling<NatsDelivery>) -> Result<(), TransportError> {
        let mut failures = 0u32;
        // Caught up: the last fetch found nothing waiting.
        let mut caught_up = false;
        loop {
            if pulling.stopping() {
                return Ok(());
            }
            // Wait for enough free slots (one, when waiting for the next message), then take every
            // free one.
            let fewest = if caught_up {
                1
            } else {
                u32::try_from(self.batch_floor).unwrap_or(1)
            };
            let Some(mut slots) = pulling.free_slots(fewest).await else {
                return Ok(());
            };
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
                    pulling.health.pulled(true);
                    batch
                }
                Err(e) => {
                    drop(slots);
                    if pulling.wait_after_failure(&mut failures, &e).await {
                        continue;
                    }
                    return Ok(());
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
                    _ = pulling.stop.changed(), if waiting => break,
                };
                match next {
                    Some(Ok(message)) => {
                        received += 1;
                        let Some(slot) = slots.split(1) else {
                            // More than asked for: hand it back.
                            let _ = message.ack_with(AckKind::Nak(None)).await;
                            continue;
                        };
                        if pulling.stopping() {
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
            if !pulling.hand_over(pulled).await {
                return Ok(());
            }
            caught_up = received == 0;
        }
    }
}

/// One delivery of a JetStream message.
struct NatsDelivery {
    message: jetstream::Message,
    carried: Carried,
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
        let carried = Carried::new(
            message.message.subject.to_string(),
            headers,
            message.message.payload.clone(),
            info,
        );
        Ok(NatsDelivery { message, carried })
    }

    async fn send(&self, kind: AckKind) -> Result<(), TransportError> {
        self.message
            .ack_with(kind)
            .await
            .map_err(|e| TransportError::new(TransportErrorKind::Unavailable, e.to_string()))
    }
}

impl Delivery for NatsDelivery {
    fn carried(&self) -> &Carried {
        &self.carried
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
            .publish(reply, bytes::Bytes::from(format!("+TERM {reason}")))
            .await
            .map_err(|e| TransportError::new(TransportErrorKind::Unavailable, e.to_string()))
    }

    async fn keep_alive(&self) -> Result<(), TransportError> {
        self.send(AckKind::Progress).await
    }
}
