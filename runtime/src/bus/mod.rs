//! The event bus: typed producers and consumers of the catalogue's events, on NATS JetStream, on Kafka
//! (feature `kafka`), or in memory.
//!
//! - [`Broker`] is what every broker does: set up the streams (or topics) from the catalogue
//!   ([`Broker::init`]), make publishers and consumers, capture, and deal with dead letters. Each
//!   broker is a leaf that implements it: [`Bus`] on NATS JetStream, `kafka::KafkaBus` on Kafka,
//!   [`MemoryBus`] in this process (the broker to test handlers with).
//! - [`Publisher`] validates every event first (nothing invalid reaches the bus), writes it as a
//!   CloudEvent in binary mode ([`cloudevents`]), and waits for the broker to have stored it.
//! - [`Broker::consumer`] and [`Consumer::run`] hand each event to its typed handler ([`Handlers`]),
//!   acknowledge only after the handler succeeded, retry with delays, dead-letter what can never be
//!   handled with why ([`dead_letter`]), keep going on unknown events, and stop gracefully; several
//!   processes on one durable consumer share the work.
//! - [`Broker::capture`] reads a stream back in the JSON-lines file format ([`lines`]), and
//!   [`Broker::dead_letters`] lists the dead letters, which [`Broker::republish_dead_letter`]
//!   publishes again.
//!
//! The files of this folder are the floor no broker owns; each broker's folder (`nats/`, `kafka/`,
//! `memory/`) is a leaf that imports only the floor, and only that folder knows its broker. The floor
//! meets a broker at [`transport`] (`Sink`, `Source`, `Delivery`, `Watch`) and [`Broker`].

mod broker;
mod capture;
pub mod cloudevents;
mod consumer;
pub mod content;
pub mod contract;
pub mod dead_letter;
mod error;
mod handle;
mod handlers;
pub mod headers;
mod health;
#[cfg(feature = "kafka")]
pub mod kafka;
pub mod lines;
pub mod memory;
pub mod metrics;
pub mod nats;
mod outcome;
mod publisher;
mod secret;
pub mod serve;
mod setup;
pub mod structured;
mod subjects;
pub mod trace;
pub mod transport;

pub use broker::{AnyPending, AnySink, Broker, EachCaptured, EachDeadLetter, Kept, Reading};
pub use capture::{CaptureRange, Captured};
pub use consumer::{ConsumerConfig, Counters, Observer, Ordering, Settled, Start, Stats};
pub use contract::{Contract, ContractCheck, ContractStatus, Reads};
pub use dead_letter::{DeadLetter, DeadLetterCause};
pub use error::{Answer, BusError, Stop};
pub use handle::{Consumer, LagProbe};
pub use handlers::{Context, HandlerError, HandlerFuture, HandlerResult, Handlers, UnknownPolicy};
pub use headers::Headers;
pub use health::Health;
pub use memory::MemoryBus;
pub use metrics::ConsumerMetrics;
pub use nats::connect::{Auth, ConnectSettings, Tls};
pub use nats::{Bus, NatsSink};
pub use outcome::Outcome;
pub use publisher::{Draft, PublishError, PublishRetry, Publisher};
pub use secret::{Secret, redact_url};
pub use setup::{Change, Retention, SetUp, SetUpReport, Storage};
pub use subjects::{Subjects, durable_name_error, may_match};
pub use transport::{Lag, Receipt, TransportError, TransportErrorKind};
