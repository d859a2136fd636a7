//! The in-memory leaf of the bus: [`MemoryBus`], a broker inside this process, with the same
//! [`Broker`] as NATS and Kafka (publishers, consumers with their retries, dead letters, redelivery
//! counts, per-subject order, captures, metrics), for testing handlers without starting a broker.
//! It behaves as JetStream does where the two could differ (streams with subject filters, durable
//! consumers with an acknowledgement wait, delayed redeliveries), and runs on tokio's clock: under a
//! paused clock (`#[tokio::test(start_paused = true)]`) a retry due in 30 s comes at once, in order.
//!
//! - this file: [`MemoryBus`] and its [`MemorySink`];
//! - `store`: the streams (messages in order, deduplication by id) and the durable consumers' state;
//! - `consume`: the consumer opened for the floor's [`crate::bus::Consumer`], its source and deliveries;
//! - `broker`: the [`Broker`] on memory: set-up, captures and dead letters.
//!
//! What it cannot promise: nothing outlives the process (a killed process takes its broker with it),
//! and no age limit or retention removes what is stored.

mod broker;
mod consume;
mod store;

#[cfg(doc)]
use crate::bus::broker::Broker;
use crate::bus::publisher::Publisher;
use crate::bus::subjects::Subjects;
use crate::bus::transport::{Outgoing, Receipt, Sink, TransportError};
use std::sync::Arc;
use store::Shared;

/// The scheme that names the in-memory broker in a server address (`memory://`).
pub const SCHEME: &str = "memory://";

/// Whether `servers` names the in-memory broker: it has the `memory://` scheme.
pub fn is_memory(servers: &str) -> bool {
    servers
        .trim_start()
        .to_ascii_lowercase()
        .starts_with(SCHEME)
}

/// A broker in this process's memory: the way to test handlers. Its streams are set up when it is
/// made; clones share it.
///
/// ```
/// use energy_api::{Event, events::AgreementUpdated};
/// use energy_runtime::bus::{Broker, ConsumerConfig, Handlers, MemoryBus};
///
/// # #[tokio::main(flavor = "current_thread")] async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let bus = MemoryBus::new();
/// let payload = br#"{"agreement_id": 12, "changes": {}, "account_number": "A-1B2C3D4E"}"#;
/// bus.publisher().publish(&Event::decode("agreement.updated", "v2", payload)?).await?;
/// let mut handlers = Handlers::new();
/// handlers.on(|updated: AgreementUpdated, _| async move { Ok(assert_eq!(updated.version(), "v2")) });
/// let config = ConsumerConfig::durable("billing").idle_exit(std::time::Duration::from_millis(50));
/// let stats = bus.consumer(config).await?.run(handlers, std::future::pending()).await?;
/// assert_eq!(stats.handled, 1);
/// # Ok(()) }
/// ```
#[derive(Clone)]
pub struct MemoryBus {
    shared: Arc<Shared>,
    subjects: Subjects,
}

impl Default for MemoryBus {
    fn default() -> Self {
        Self::new()
    }
}

impl MemoryBus {
    /// A new, empty broker, its streams set up (as `energy bus init` sets up a server's).
    pub fn new() -> Self {
        let subjects = Subjects::default();
        let shared = Arc::new(Shared::default());
        shared.ensure_streams(&subjects);
        MemoryBus { shared, subjects }
    }

    /// Uses these subjects (another prefix), and sets up their streams.
    pub fn with_subjects(mut self, subjects: Subjects) -> Self {
        self.shared.ensure_streams(&subjects);
        self.subjects = subjects;
        self
    }

    /// A publisher of events (through the [`MemorySink`] itself, not [`Broker::publisher`]'s any
    /// sink).
    pub fn publisher(&self) -> Publisher<MemorySink> {
        Publisher::new(self.sink(), self.subjects.clone())
    }

    /// The publishing side of the transport.
    pub fn sink(&self) -> MemorySink {
        MemorySink {
            shared: self.shared.clone(),
        }
    }
}

/// Publishes to the in-memory broker: stored at once, in the stream whose filters hold the subject.
#[derive(Clone)]
pub struct MemorySink {
    shared: Arc<Shared>,
}

impl Sink for MemorySink {
    type Pending = std::future::Ready<Result<Receipt, TransportError>>;

    async fn send(&self, message: &Outgoing) -> Result<Self::Pending, TransportError> {
        Ok(std::future::ready(self.shared.store(message)))
    }

    async fn flush(&self) {}
}
