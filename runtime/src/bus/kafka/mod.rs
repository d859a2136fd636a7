//! The Kafka leaf of the bus (feature `kafka`): the same bus as on NATS, on any Kafka-protocol broker,
//! through librdkafka. [`KafkaBus`] connects, and is the [`Broker`] on Kafka (topics from the catalogue,
//! publishers, consumers, dead letters, captures); the `Sink`, `Source` and `Delivery` of the floor's
//! [`crate::bus::transport`] on `rdkafka`. The only folder that knows Kafka.
//!
//! - this file: the connection ([`KafkaBus`]), the [`KafkaSink`], errors;
//! - `settings`: servers and client properties, security among them ([`KafkaSettings`]);
//! - `records`: topics, record keys and the CloudEvents Kafka binding's headers ([`Topics`]);
//! - `topics`: setting the topics up (`energy bus init --server kafka://…`);
//! - `offsets`: which offsets a group may commit when records are settled out of order;
//! - `consume`: the consumer group's member, its source, deliveries and retries;
//! - `group`: the group's rebalances, membership and lag;
//! - `read`: reading topics without a group: captures and dead letters;
//! - `broker`: the [`Broker`] on Kafka.

mod broker;
mod consume;
mod group;
mod offsets;
mod read;
pub mod records;
pub mod settings;
mod topics;

pub use records::Topics;
pub use settings::{KafkaSettings, is_kafka};

#[cfg(doc)]
use crate::bus::broker::Broker;
use crate::bus::error::BusError;
use crate::bus::headers::Headers;
use crate::bus::publisher::Publisher;
use crate::bus::subjects::Subjects;
use crate::bus::transport::{Outgoing, Receipt, Sink, TransportError, TransportErrorKind};
use rdkafka::error::{KafkaError, RDKafkaErrorCode};
use rdkafka::message::{Header, OwnedHeaders};
use rdkafka::producer::{FutureRecord, Producer};
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

/// The producer, with what librdkafka said of its connections.
type FutureProducer = rdkafka::producer::FutureProducer<Heard>;

/// What librdkafka said last of a connection that failed (an SSL handshake, an authentication), so
/// that a failure to connect says why, not only that no broker answered. librdkafka's words name
/// brokers and reasons, never a secret.
#[derive(Clone, Default)]
pub(crate) struct Heard(Arc<std::sync::Mutex<Option<String>>>);

impl Heard {
    fn last(&self) -> Option<String> {
        self.0.lock().ok().and_then(|l| l.clone())
    }
}

impl rdkafka::ClientContext for Heard {
    fn error(&self, error: KafkaError, reason: &str) {
        // Those that say why a connection failed; "all brokers down" only repeats it.
        let says_why = matches!(
            error.rdkafka_error_code(),
            Some(
                RDKafkaErrorCode::Authentication
                    | RDKafkaErrorCode::SaslAuthenticationFailed
                    | RDKafkaErrorCode::SSL
            )
        ) || reason.contains("SSL")
            || reason.contains("SASL");
        if says_why && let Ok(mut last) = self.0.lock() {
            *last = Some(reason.to_owned());
        }
        // librdkafka says it too, in its own log line.
        log::debug!("kafka: {error}: {reason}");
    }
}

/// How long a request to the cluster (metadata, an admin request, a commit) may take.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(10);

/// A connection to a Kafka cluster and the names of one deployment's topics.
#[derive(Clone)]
pub struct KafkaBus {
    settings: Arc<KafkaSettings>,
    topics: Topics,
    producer: FutureProducer,
}

impl KafkaBus {
    /// Connects to `servers` (`kafka://host:port`, several separated by commas) with no security.
    pub async fn connect(servers: &str) -> Result<KafkaBus, BusError> {
        Self::connect_with(&KafkaSettings::new(servers)?).await
    }

    /// Connects with `settings`, and reads the cluster's metadata to know that it answers: a failure
    /// is one line naming the servers and the method (never a secret), within seconds.
    pub async fn connect_with(settings: &KafkaSettings) -> Result<KafkaBus, BusError> {
        let heard = Heard::default();
        let producer = producer(settings, heard.clone())?;
        let probe = producer.clone();
        let answered = tokio::task::spawn_blocking(move || {
            probe
                .client()
                .fetch_metadata(None, REQUEST_TIMEOUT)
                .map(|_| ())
        })
        .await
        .map_err(|e| connect_error(settings, &e.to_string()))?;
        answered.map_err(|e| {
            // librdkafka's own words say why (a handshake, an authentication) where it heard it.
            let why = heard.last().unwrap_or_else(|| describe(&e));
            connect_error(settings, &why)
        })?;
        Ok(KafkaBus {
            settings: Arc::new(settings.clone()),
            topics: Topics::new(Subjects::default()),
            producer,
        })
    }

    /// Uses these subjects (another prefix), and so these topics.
    pub fn with_subjects(mut self, subjects: Subjects) -> Self {
        self.topics = Topics::new(subjects);
        self
    }

    /// The topics used.
    pub fn topics(&self) -> &Topics {
        &self.topics
    }

    /// The settings connected with.
    pub fn settings(&self) -> &KafkaSettings {
        &self.settings
    }

    /// A publisher of events (through the [`KafkaSink`] itself, not [`Broker::publisher`]'s any
    /// sink).
    pub fn publisher(&self) -> Publisher<KafkaSink> {
        Publisher::new(self.sink(), self.topics.subjects().clone())
    }

    /// The publishing side of the transport.
    pub fn sink(&self) -> KafkaSink {
        KafkaSink {
            producer: self.producer.clone(),
            topics: self.topics.clone(),
        }
    }

    /// An error of a request to this cluster, naming it.
    fn request_error(&self, what: &str, error: &KafkaError) -> BusError {
        BusError::Transport(transport_error(
            &format!("{what} on {}", self.settings.servers_shown()),
            error,
        ))
    }
}

/// The idempotent producer: `acks=all`, `enable.idempotence`, keys partitioned as the Java client does.
fn producer(settings: &KafkaSettings, heard: Heard) -> Result<FutureProducer, BusError> {
    let mut config = settings.client_config();
    for (name, value) in [
        ("enable.idempotence", "true"),
        ("acks", "all"),
        ("partitioner", "murmur2_random"),
        ("message.timeout.ms", "30000"),
        ("linger.ms", "1"),
    ] {
        if settings.get(name).is_none() {
            config.set(name, value);
        }
    }
    config
        .create_with_context(heard)
        .map_err(|e| connect_error(settings, &describe(&e)))
}

fn connect_error(settings: &KafkaSettings, message: &str) -> BusError {
    BusError::Connect {
        servers: settings.servers_shown(),
        method: settings.method(),
        message: message.to_owned(),
    }
}

/// A librdkafka error in words.
fn describe(error: &KafkaError) -> String {
    match error.rdkafka_error_code() {
        Some(RDKafkaErrorCode::BrokerTransportFailure | RDKafkaErrorCode::AllBrokersDown) => {
            format!("no broker answered ({error})")
        }
        Some(RDKafkaErrorCode::OperationTimedOut) => {
            format!(
                "no broker answered in {}s ({error})",
                REQUEST_TIMEOUT.as_secs()
            )
        }
        _ => error.to_string(),
    }
}

/// A librdkafka error as a transport error: transient unless the cluster refused the request.
fn transport_error(what: &str, error: &KafkaError) -> TransportError {
    use RDKafkaErrorCode as C;
    let kind = match error.rdkafka_error_code() {
        Some(C::OperationTimedOut | C::RequestTimedOut | C::MessageTimedOut) => {
            TransportErrorKind::Timeout
        }
        Some(
            C::MessageSizeTooLarge
            | C::TopicAuthorizationFailed
            | C::GroupAuthorizationFailed
            | C::ClusterAuthorizationFailed
            | C::SaslAuthenticationFailed
            | C::Authentication
            | C::InvalidConfig
            | C::InvalidArgument
            | C::InvalidRecord
            | C::UnsupportedVersion,
        ) => TransportErrorKind::Rejected,
        _ => TransportErrorKind::Unavailable,
    };
    TransportError::new(kind, format!("{what}: {}", describe(error)))
}

/// The record headers of a message: the CloudEvents Kafka binding's names, values as UTF-8 text.
fn record_headers(headers: &Headers) -> OwnedHeaders {
    let mut record = OwnedHeaders::new_with_capacity(headers.len());
    for (name, value) in headers.iter() {
        let value = records::record_header_value(value);
        record = record.insert(Header {
            key: &records::record_header_name(name),
            value: Some(&value),
        });
    }
    record
}

/// A message's headers as the bus holds them.
fn bus_headers(record: Option<&rdkafka::message::BorrowedHeaders>) -> Headers {
    use rdkafka::message::Headers as _;
    let Some(record) = record else {
        return Headers::new();
    };
    let mut headers = Headers::with_capacity(record.count());
    for header in record.iter() {
        let value = header.value.unwrap_or_default();
        headers.append(
            records::bus_header_name(header.key, value),
            records::bus_header_value(value),
        );
    }
    headers
}

/// Publishes to Kafka: each message to its subject's topic, keyed by its event (and entity).
#[derive(Clone)]
pub struct KafkaSink {
    producer: FutureProducer,
    topics: Topics,
}

impl KafkaSink {
    /// Produces `payload` to `topic` with `key` and `headers`, resolving to the broker's
    /// acknowledgement once it is queued.
    fn produce(
        &self,
        topic: &str,
        key: Option<&[u8]>,
        headers: &Headers,
        payload: &[u8],
    ) -> Result<<Self as Sink>::Pending, TransportError> {
        let mut record = FutureRecord::to(topic)
            .payload(payload)
            .headers(record_headers(headers));
        if let Some(key) = key {
            record = record.key(key);
        }
        let topic = topic.to_owned();
        match self.producer.send_result(record) {
            Ok(delivery) => Ok(Box::pin(async move {
                match delivery.await {
                    Ok(Ok(stored)) => Ok(Receipt {
                        stream: format!("{topic}[{}]", stored.partition),
                        sequence: u64::try_from(stored.offset).unwrap_or(0),
                        duplicate: false,
                    }),
                    Ok(Err((error, _))) => Err(transport_error(
                        &format!("publishing to topic `{topic}`"),
                        &error,
                    )),
                    Err(_) => Err(TransportError::new(
                        TransportErrorKind::Unavailable,
                        format!("publishing to topic `{topic}`: the producer was closed"),
                    )),
                }
            })),
            Err((error, _)) => Err(transport_error(
                &format!("publishing to topic `{topic}`"),
                &error,
            )),
        }
    }
}

impl Sink for KafkaSink {
    type Pending = std::pin::Pin<Box<dyn Future<Output = Result<Receipt, TransportError>> + Send>>;

    async fn send(&self, message: &Outgoing) -> Result<Self::Pending, TransportError> {
        let topic = self.topics.of_subject(&message.subject);
        let key = records::key_of(&message.headers, &message.payload);
        self.produce(
            &topic,
            key.as_deref().map(str::as_bytes),
            &message.headers,
            &message.payload,
        )
    }

    async fn flush(&self) {
        let producer = self.producer.clone();
        let flushed = tokio::task::spawn_blocking(move || producer.flush(REQUEST_TIMEOUT)).await;
        if let Ok(Err(e)) = flushed {
            log::warn!("the producer could not be flushed: {e}");
        }
    }
}
