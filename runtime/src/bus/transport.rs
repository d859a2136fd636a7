//! The one boundary between the bus's logic (publishing, consuming, dead-lettering) and a broker. A
//! broker provides three things: a [`Sink`] that publishes a message and waits for the broker to have
//! stored it, a [`Source`] that pulls as many messages as the consumer has room for, and each pulled
//! message as a [`Delivery`] that can be acknowledged, retried after a delay, terminated with a reason,
//! or kept alive while it is being handled. Handlers, decoding and the dead-letter logic see only these.
//!
//! Each broker is a leaf that implements them: NATS JetStream in [`super::nats`], Kafka in
//! `super::kafka` (feature `kafka`), the in-memory broker in [`super::memory`]; how each maps them: the
//! decisions table of `docs/event-bus.md`.

use super::cloudevents::Incoming;
use super::headers::Headers;
use super::health::Health;
use crate::events::EventError;
use bytes::Bytes;
use std::future::Future;
use std::time::Duration;
use tokio::sync::{OwnedSemaphorePermit, Semaphore, mpsc, watch};

/// A message to publish.
#[derive(Debug, Clone)]
pub struct Outgoing {
    /// Where it goes.
    pub subject: String,
    /// Its headers.
    pub headers: Headers,
    /// Its body.
    pub payload: Bytes,
    /// The id the broker deduplicates by (a message published again with the same id within the
    /// broker's window is stored once).
    pub id: String,
}

/// The broker's acknowledgement that it stored a message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Receipt {
    /// The stream that stored it.
    pub stream: String,
    /// Its position in that stream.
    pub sequence: u64,
    /// The broker had stored a message with the same id already (within its deduplication window),
    /// and did not store this one again.
    pub duplicate: bool,
}

/// What went wrong between the bus and the broker.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TransportErrorKind {
    /// No broker reachable, or nothing stores the subject (yet): worth retrying.
    Unavailable,
    /// The broker did not answer in time: worth retrying (with the same id, so nothing is stored twice).
    Timeout,
    /// The broker refused the request for good (too large, not permitted, a wrong configuration).
    Rejected,
}

/// An error of the transport, with the broker's words.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct TransportError {
    /// What kind of failure.
    pub kind: TransportErrorKind,
    /// What happened.
    pub message: String,
}

impl TransportError {
    /// An error of this kind.
    pub fn new(kind: TransportErrorKind, message: impl Into<String>) -> Self {
        TransportError {
            kind,
            message: message.into(),
        }
    }

    /// Whether the same request may succeed if made again.
    pub fn is_transient(&self) -> bool {
        matches!(
            self.kind,
            TransportErrorKind::Unavailable | TransportErrorKind::Timeout
        )
    }
}

/// Publishes messages and waits for the broker to have stored each.
pub trait Sink: Clone + Send + Sync + 'static {
    /// The broker's acknowledgement of a sent message, still to come.
    type Pending: Future<Output = Result<Receipt, TransportError>> + Send + 'static;

    /// Sends `message` on the connection; messages sent one after the other reach the broker in that
    /// order. Resolves once it is sent, to the acknowledgement to wait for.
    fn send(
        &self,
        message: &Outgoing,
    ) -> impl Future<Output = Result<Self::Pending, TransportError>> + Send;

    /// Sends `message` and waits for the broker to have stored it (or to say it had it already).
    fn publish(
        &self,
        message: &Outgoing,
    ) -> impl Future<Output = Result<Receipt, TransportError>> + Send {
        async move { self.send(message).await?.await }
    }

    /// Makes sure that what was sent on the connection (settlements included) reached the broker.
    fn flush(&self) -> impl Future<Output = ()> + Send;
}

/// Where a delivered message stands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeliveryInfo {
    /// How many times it has been delivered, this time included (1 the first time).
    pub attempt: u64,
    /// Its position in the stream (the same on every delivery).
    pub sequence: u64,
    /// The stream holding it.
    pub stream: String,
    /// When the broker stored it.
    pub published: Option<jiff::Timestamp>,
}

/// What a delivered message was read as: its CloudEvent's attributes (binary or structured mode) and
/// where its payload lies in the body, or why it is no event. A delivery reads it once: when its
/// source must know the event to route the message (Kafka's subject), else when the consumer asks.
pub type Read = Result<(Incoming, std::ops::Range<usize>), EventError>;

/// What a delivery carries, whatever its broker: the message, where it stands, and what it was read
/// as.
#[derive(Debug)]
pub struct Carried {
    subject: String,
    lane: Option<String>,
    headers: std::sync::Arc<Headers>,
    payload: Bytes,
    info: DeliveryInfo,
    read: std::sync::OnceLock<Read>,
}

impl Carried {
    /// A message delivered on `subject`, its lane its subject, read when first asked.
    pub fn new(
        subject: String,
        headers: std::sync::Arc<Headers>,
        payload: Bytes,
        info: DeliveryInfo,
    ) -> Self {
        Carried {
            subject,
            lane: None,
            headers,
            payload,
            info,
            read: std::sync::OnceLock::new(),
        }
    }

    /// Ordered in `lane` rather than by its subject (on Kafka, its record key).
    pub fn in_lane(mut self, lane: String) -> Self {
        self.lane = Some(lane);
        self
    }

    /// Read already (a source that routes by the event reads it first).
    pub fn read_as(self, read: Read) -> Self {
        let _ = self.read.set(read);
        self
    }
}

/// One delivery of one message to a consumer, to be settled exactly once.
pub trait Delivery: Send + Sync + 'static {
    /// What it carries.
    fn carried(&self) -> &Carried;
    /// The subject it was published to.
    fn subject(&self) -> &str {
        &self.carried().subject
    }
    /// What orders it: deliveries of one lane are handled one after the other in ordered mode. The
    /// subject on NATS (one event type and version); the record key on Kafka (the type, version and
    /// entity).
    fn lane(&self) -> &str {
        let carried = self.carried();
        carried.lane.as_deref().unwrap_or(&carried.subject)
    }
    /// Its headers (shared, so that a handler's context takes them without a copy).
    fn headers(&self) -> &std::sync::Arc<Headers> {
        &self.carried().headers
    }
    /// Its body.
    fn payload(&self) -> &Bytes {
        &self.carried().payload
    }
    /// Where it stands.
    fn info(&self) -> &DeliveryInfo {
        &self.carried().info
    }
    /// What it was read as: read once (by its source, or here when first asked), however often asked.
    fn event(&self) -> &Read {
        let carried = self.carried();
        carried
            .read
            .get_or_init(|| super::content::read_event(&carried.headers, &carried.payload))
    }
    /// Handled: the broker will not deliver it again.
    fn ack(&self) -> impl Future<Output = Result<(), TransportError>> + Send;
    /// Not handled now: deliver it again after `delay`.
    fn retry_after(
        &self,
        delay: Duration,
    ) -> impl Future<Output = Result<(), TransportError>> + Send;
    /// Never to be delivered again, for `reason` (after it has been dead-lettered). A broker that
    /// keeps no reason settles it as it settles a message handled.
    fn terminate(&self, reason: &str) -> impl Future<Output = Result<(), TransportError>> + Send {
        let _ = reason;
        self.ack()
    }
    /// Still being handled: restart the broker's timer before it delivers the message again. A
    /// broker that keeps no timer per message (Kafka: the group's session lives while it polls) has
    /// nothing to do.
    fn keep_alive(&self) -> impl Future<Output = Result<(), TransportError>> + Send {
        std::future::ready(Ok(()))
    }
}

/// A pulled delivery with the room it takes in the consumer (released when it is settled).
pub struct Pulled<D> {
    /// The delivery.
    pub delivery: D,
    /// Its slot among the consumer's `concurrency`.
    pub slot: OwnedSemaphorePermit,
}

/// A consumer's backlog on the broker.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Lag {
    /// Messages not yet delivered to the consumer.
    pub pending: u64,
    /// Messages delivered (to any process of the consumer) and not yet settled.
    pub ack_pending: u64,
}

/// What the broker says of a consumer while it runs: its backlog, and whether the connection is up.
pub trait Watch: Send + Sync + 'static {
    /// The consumer's backlog now.
    fn lag(&self) -> impl Future<Output = Result<Lag, TransportError>> + Send;
    /// Whether the connection to the broker is up now.
    fn connected(&self) -> bool;
}

/// Pulls messages for one consumer, never more at once than it has room for.
pub trait Source: Send + 'static {
    /// The deliveries it produces.
    type Delivery: Delivery;

    /// Pulls until `stop` turns true: for each message, takes a free slot of `room`, and sends the
    /// deliveries of each pull together to `deliveries` (one hand-over per pull, not per message).
    /// Pulls only as many as there are free slots, so that no message waits in a buffer while the
    /// broker's timer runs; retries by itself when the broker goes away and comes back (a pull is
    /// never left waiting on a connection that was lost). Messages that arrive after `stop` are
    /// handed back to the broker at once. Tells `health` whether each pull request worked. Returns
    /// when stopped, or on an error that retrying cannot mend.
    fn pull(
        self,
        pulling: Pulling<Self::Delivery>,
    ) -> impl Future<Output = Result<(), TransportError>> + Send;
}

/// What a [`Source`] pulls with.
pub struct Pulling<D> {
    /// The consumer's free slots: a message is pulled only with one.
    pub room: std::sync::Arc<Semaphore>,
    /// Where the deliveries of each pull go, together.
    pub deliveries: mpsc::Sender<Vec<Pulled<D>>>,
    /// Turns true when the consumer stops.
    pub stop: watch::Receiver<bool>,
    /// Told whether each pull worked.
    pub health: Health,
}

impl<D> Pulling<D> {
    /// Whether the consumer is stopping.
    pub fn stopping(&self) -> bool {
        *self.stop.borrow()
    }

    /// Waits for at least `fewest` free slots, then takes every free one; `None` when the consumer
    /// stops meanwhile.
    pub async fn free_slots(&mut self, fewest: u32) -> Option<OwnedSemaphorePermit> {
        let mut slots = tokio::select! {
            slots = self.room.clone().acquire_many_owned(fewest) => slots.ok()?,
            _ = self.stop.changed() => return None,
        };
        let more = u32::try_from(self.room.available_permits()).unwrap_or(0);
        if more > 0
            && let Ok(extra) = self.room.clone().try_acquire_many_owned(more)
        {
            slots.merge(extra);
        }
        Some(slots)
    }

    /// Hands the deliveries of one pull to the consumer; false when it is gone.
    pub async fn hand_over(&self, pulled: Vec<Pulled<D>>) -> bool {
        pulled.is_empty() || self.deliveries.send(pulled).await.is_ok()
    }

    /// After a pull that failed: counts it in `failures` (in a row), tells the health, and waits
    /// before the next one (100 ms more for each failure in a row, 2 s at most). False when the
    /// consumer was stopped meanwhile.
    pub async fn wait_after_failure(
        &mut self,
        failures: &mut u32,
        error: impl std::fmt::Display,
    ) -> bool {
        *failures += 1;
        self.health.pulled(false);
        log::debug!("a pull failed ({error}); trying again");
        let wait = Duration::from_millis(100 * u64::from((*failures).min(20)));
        tokio::select! {
            () = tokio::time::sleep(wait) => true,
            _ = self.stop.changed() => false,
        }
    }
}
