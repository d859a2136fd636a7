//! [`Broker`]: what every broker of the bus does, as one trait a program can hold without knowing
//! which broker it talks to (`Box<dyn Broker>`): set up, check, publish, consume, capture, and deal
//! with dead letters. Each broker is a leaf that implements it (NATS JetStream's [`super::Bus`], Kafka's
//! `KafkaBus`, the in-memory [`super::MemoryBus`]); what is the same on every broker (reading dead
//! letters into a list, publishing one again after the publisher's checks) is written here, once.

use super::capture::{CaptureRange, Captured};
use super::consumer::{ConsumerConfig, Start};
use super::dead_letter::DeadLetter;
use super::error::{Answer, BusError, Stop};
use super::handle::Consumer;
use super::publisher::{PublishRetry, Publisher, send_with_retry};
use super::setup::{SetUp, SetUpReport};
use super::subjects::Subjects;
use super::transport::{Outgoing, Receipt, Sink, TransportError};
use futures_util::future::BoxFuture;
use std::sync::Arc;

/// What a capture hands each message to; an error stops the capture with it.
pub type EachCaptured<'a> = dyn FnMut(Captured) -> Result<(), String> + Send + 'a;

/// What a reading of the dead letters hands each one to.
pub type EachDeadLetter<'a> = dyn FnMut(DeadLetter) + Send + 'a;

/// What a broker keeps messages in: the events, or the dead letters.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kept {
    /// The events (NATS's events stream, Kafka's section topics).
    Events,
    /// The dead letters (their stream, or topic), each under `<prefix>_dead_letters.<consumer>`.
    DeadLetters,
}

/// One reading of what a broker keeps, in order: what, which, where to, and to whom.
pub struct Reading<'a> {
    /// The events or the dead letters.
    pub kept: Kept,
    /// Which messages (subject filters), from where, and whether to follow.
    pub range: &'a CaptureRange,
    /// Who takes each message.
    pub each: &'a mut EachCaptured<'a>,
    /// Ends a reading that follows.
    pub stop: Stop<'a>,
}

/// A connected broker, whichever it is. Its futures are boxed so that a program may hold any broker
/// as `Box<dyn Broker>` (none of them is on a message's path: publishing and consuming run on the
/// leaf's own types). A broker implements the first nine methods; the others are written once, here.
pub trait Broker: Send + Sync {
    /// The broker's kind, as OpenTelemetry names it (`nats`, `kafka`, `memory`).
    fn system(&self) -> &'static str;

    /// The subjects of the deployment (and so, on Kafka, its topics).
    fn subjects(&self) -> &Subjects;

    /// Creates or updates what stores the events (every event type of the catalogue) and the dead
    /// letters, idempotently: a change that would lose stored events is refused with
    /// [`BusError::Refused`], changing nothing.
    fn init<'a>(&'a self, settings: &'a SetUp) -> Answer<'a, Vec<SetUpReport>>;

    /// Fails, saying to run `energy bus init`, when the events cannot be stored yet: without it every
    /// publish would be retried until it timed out.
    fn check_ready(&self) -> Answer<'_, ()>;

    /// The publishing side of the transport, as any broker's.
    fn sink(&self) -> AnySink;

    /// A consumer: created as configured, or the existing one of that durable name (on Kafka, the
    /// group) when it selects the same events from the same start. Processes that open the same
    /// durable share its events.
    fn consumer(&self, config: ConsumerConfig) -> Answer<'_, Consumer>;

    /// Reads what the broker keeps in order (each stream, or each partition, in order), handing each
    /// message to the reading's `each`, until caught up with what was stored when it began (or, with
    /// `follow`, until `stop` resolves or it is idle). Dead letters come under the subject of their
    /// consumer, and once each: not those published again. Returns how many messages were read.
    fn read<'a>(&'a self, reading: Reading<'a>) -> Answer<'a, u64>;

    /// The dead letter at `sequence` (what `energy events dlq list` numbers it).
    fn dead_letter(&self, sequence: u64) -> Answer<'_, DeadLetter>;

    /// Takes the dead letter at `sequence` off the list once it was `republished`: removed from its
    /// stream, or (on Kafka, which cannot delete a record) marked so.
    fn remove_dead_letter<'a>(&'a self, sequence: u64, republished: &'a Receipt) -> Answer<'a, ()>;

    /// A publisher of events on this broker.
    fn publisher(&self) -> Publisher<AnySink> {
        Publisher::new(self.sink(), self.subjects().clone())
    }

    /// Reads the stored events in `range` (see [`Broker::read`]), handing each to `each`. Returns how
    /// many were read.
    fn capture<'a>(
        &'a self,
        range: &'a CaptureRange,
        each: &'a mut EachCaptured<'a>,
        stop: Stop<'a>,
    ) -> Answer<'a, u64> {
        self.read(Reading {
            kept: Kept::Events,
            range,
            each,
            stop,
        })
    }

    /// Hands every dead letter stored on `subject` (a filter; `None` for all), oldest first, to `each`,
    /// one at a time (none is kept: for a dead-letter stream of any size, as `energy events drift
    /// --dlq` reads it). Returns how many messages were read.
    fn each_dead_letter<'a>(
        &'a self,
        subject: Option<&'a str>,
        each: &'a mut EachDeadLetter<'a>,
    ) -> Answer<'a, u64> {
        let filter = subject.map_or_else(
            || format!("{}.>", self.subjects().dead_letter_root()),
            str::to_owned,
        );
        Box::pin(async move {
            let range = CaptureRange {
                filters: vec![filter],
                start: Start::All,
                follow: false,
                idle_exit: None,
            };
            let mut letters = |message: Captured| {
                let letter = DeadLetter::read(
                    message.sequence,
                    &message.subject,
                    &message.headers,
                    message.payload,
                );
                if let Some(letter) = letter {
                    each(letter);
                }
                Ok(())
            };
            let reading = Reading {
                kept: Kept::DeadLetters,
                range: &range,
                each: &mut letters,
                stop: Box::pin(std::future::pending()),
            };
            self.read(reading).await
        })
    }

    /// Every dead letter stored on `subject` (a filter; `None` for all), oldest first.
    fn dead_letters<'a>(&'a self, subject: Option<&'a str>) -> Answer<'a, Vec<DeadLetter>> {
        Box::pin(async move {
            let mut letters = Vec::new();
            self.each_dead_letter(subject, &mut |letter| letters.push(letter))
                .await?;
            Ok(letters)
        })
    }

    /// Publishes the dead letter at `sequence` again, to its original subject with its headers, once
    /// it passes the checks a publisher makes; then takes it off the list. One that is still invalid
    /// stays.
    fn republish_dead_letter(&self, sequence: u64) -> Answer<'_, Receipt> {
        Box::pin(async move {
            let letter = self.dead_letter(sequence).await?;
            let original = letter.republishable()?;
            let receipt = send_with_retry(&self.sink(), original, PublishRetry::default()).await?;
            self.remove_dead_letter(sequence, &receipt)
                .await
                .map_err(|e| {
                    BusError::Invalid(format!(
                        "dead letter {sequence} was published again ({} {}), but is still listed: {e}",
                        receipt.stream, receipt.sequence
                    ))
                })?;
            Ok(receipt)
        })
    }
}

/// Any broker's [`Sink`], behind one type: what [`Broker::publisher`] publishes through.
#[derive(Clone)]
pub struct AnySink(Arc<dyn SendAny>);

/// A broker's acknowledgement still to come, as any broker's.
pub type AnyPending = BoxFuture<'static, Result<Receipt, TransportError>>;

/// [`Sink`] as a trait object.
trait SendAny: Send + Sync {
    fn send<'a>(
        &'a self,
        message: &'a Outgoing,
    ) -> BoxFuture<'a, Result<AnyPending, TransportError>>;
    fn flush(&self) -> BoxFuture<'_, ()>;
}

impl<S: Sink> SendAny for S {
    fn send<'a>(
        &'a self,
        message: &'a Outgoing,
    ) -> BoxFuture<'a, Result<AnyPending, TransportError>> {
        Box::pin(async move {
            let pending = Sink::send(self, message).await?;
            Ok(Box::pin(pending) as AnyPending)
        })
    }

    fn flush(&self) -> BoxFuture<'_, ()> {
        Box::pin(Sink::flush(self))
    }
}

impl AnySink {
    /// A broker's sink, as any broker's.
    pub fn new(sink: impl Sink) -> Self {
        AnySink(Arc::new(sink))
    }
}

impl Sink for AnySink {
    type Pending = AnyPending;

    async fn send(&self, message: &Outgoing) -> Result<AnyPending, TransportError> {
        self.0.send(message).await
    }

    async fn flush(&self) {
        self.0.flush().await;
    }
}
