//! The event bus: typed producers and consumers of the catalogue's events on NATS JetStream.
//!
//! - [`Bus`] connects to a server or cluster, and sets up the streams from the catalogue
//!   ([`Bus::init`]): the events stream (one subject filter per event type, `energy.<type>.*`) and the
//!   dead-letter stream.
//! - [`Publisher`] validates every event first (nothing invalid reaches the bus), writes it as a
//!   CloudEvent in binary mode ([`cloudevents`]), and waits for the broker to have stored it.
//! - [`Bus::consumer`] and [`NatsConsumer::run`] hand each event to its typed handler ([`Handlers`]),
//!   acknowledge only after the handler succeeded, retry with delays, dead-letter what can never be
//!   handled with why ([`dead_letter`]), keep going on unknown events, and stop gracefully; several
//!   processes on one durable consumer share the work.
//! - [`Bus::capture`] reads a stream back in the JSON-lines file format ([`lines`]), and
//!   [`Bus::dead_letters`] lists the dead letters, which [`Bus::republish_dead_letter`] publishes again.
//!
//! Only [`nats`] knows NATS, and only `kafka` (feature `kafka`: [`kafka::KafkaBus`], the same publisher,
//! handlers and consumer on a Kafka-protocol broker) knows Kafka: the rest sees the small boundary of
//! [`transport`].

pub mod cloudevents;
pub mod connect;
mod consumer;
pub mod content;
pub mod contract;
pub mod dead_letter;
mod error;
mod handlers;
pub mod headers;
mod health;
#[cfg(feature = "kafka")]
pub mod kafka;
pub mod lines;
pub mod metrics;
pub mod nats;
mod outcome;
mod publisher;
pub mod refusals;
pub mod serve;
pub mod structured;
mod subjects;
pub mod trace;
pub mod transport;

pub use connect::{Auth, ConnectSettings, Secret, Tls};
pub use consumer::{ConsumerConfig, Counters, Observer, Ordering, Settled, Start, Stats};
pub use contract::{Contract, ContractCheck, ContractStatus, Reads};
pub use dead_letter::{DeadLetter, DeadLetterCause};
pub use error::BusError;
pub use handlers::{Context, HandlerError, HandlerFuture, HandlerResult, Handlers, UnknownPolicy};
pub use headers::Headers;
pub use health::Health;
pub use metrics::ConsumerMetrics;
pub use nats::{
    Bus, CaptureRange, Captured, Change, LagProbe, NatsConsumer, NatsSink, Retention, Storage,
    StreamReport, StreamSettings,
};
pub use outcome::Outcome;
pub use publisher::{Draft, PublishError, PublishRetry, Publisher};
pub use refusals::Refusal;
pub use subjects::{Subjects, durable_name_error};
pub use transport::{Lag, Receipt, TransportError, TransportErrorKind};
