//! The NATS JetStream transport: [`Bus`] connects, sets up the streams from the catalogue, and makes
//! publishers, consumers, dead-letter views and captures; the [`Sink`], [`Source`] and [`Delivery`] of
//! [`super::transport`] on `async-nats`.

use super::connect::ConnectSettings;
use super::consumer::{self, ConsumerConfig, Counters, Observer, Start, Stats};
use super::dead_letter::DeadLetter;
pub use super::error::BusError;
use super::handlers::Handlers;
use super::headers::Headers;
use super::health::Health;
use super::metrics::ConsumerMetrics;
use super::publisher::Publisher;
use super::refusals::{Refusal, Refusals};
use super::subjects::{Subjects, durable_name_error};
use super::transport::{
    Delivery, DeliveryInfo, Lag, Outgoing, Pulled, Receipt, Sink, Source, TransportError,
    TransportErrorKind, Watch,
};
use async_nats::Client;
use async_nats::jetstream::{self, AckKind, consumer::pull, stream};
use bytes::Bytes;
use futures_util::StreamExt;
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::{Semaphore, mpsc, watch};

/// How the events are stored (`energy bus init`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StreamSettings {
    /// On disk (survives a restart) or in memory.
    pub storage: Storage,
    /// When stored events are removed.
    pub retention: Retention,
    /// Copies kept on different servers of a cluster (1 to 5; a single server keeps 1).
    pub replicas: usize,
    /// How long the broker remembers event ids to drop duplicates.
    pub duplicate_window: Duration,
    /// Remove events older than this; `None` keeps them (until retention removes them).
    pub max_age: Option<Duration>,
}

impl Default for StreamSettings {
    /// On disk, kept by limits (not removed when consumed), one replica, duplicates dropped within 2
    /// minutes, no age limit.
    fn default() -> Self {
        StreamSettings {
            storage: Storage::File,
            retention: Retention::Limits,
            replicas: 1,
            duplicate_window: Duration::from_secs(120),
            max_age: None,
        }
    }
}

/// Where a stream keeps its messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Storage {
    /// On disk.
    File,
    /// In memory (lost when the server stops).
    Memory,
}

/// When a stream removes its messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Retention {
    /// Only by its limits (age); consumers do not remove anything: replays work.
    Limits,
    /// Once every consumer has acknowledged it.
    Interest,
    /// Once one consumer has acknowledged it.
    WorkQueue,
}

/// What `init` did to one stream.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Change {
    /// It did not exist: created.
    Created,
    /// It existed: these changes were made.
    Updated(Vec<String>),
    /// It existed as asked.
    Unchanged,
}

/// The outcome of `init` for one stream.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StreamReport {
    /// The stream's name.
    pub stream: String,
    /// What was done.
    pub change: Change,
    /// The subjects it stores, after the change.
    pub subjects: usize,
}

/// One message of a stream, as [`Bus::capture`] reads it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Captured {
    /// Its position in the stream.
    pub sequence: u64,
    /// Its subject.
    pub subject: String,
    /// Its headers, sorted by name.
    pub headers: Headers,
    /// Its body.
    pub payload: Bytes,
}

/// Where a capture starts, and when it ends.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CaptureRange {
    /// Subject filters; none for every message of the stream.
    pub filters: Vec<String>,
    /// Where to start.
    pub start: Start,
    /// Keep reading new messages once caught up, until stopped or idle.
    pub follow: bool,
    /// With `follow`, stop when nothing arrived for this long.
    pub idle_exit: Option<Duration>,
}

/// A connection to a NATS server (or cluster) and the names of one deployment's subjects and streams.
#[derive(Clone)]
pub struct Bus {
    client: Client,
    jetstream: jetstream::Context,
    subjects: Subjects,
    peer: Peer,
}

/// Who the connection is, for errors: the servers (secrets hidden), the method, what it was refused.
#[derive(Clone, Debug)]
pub(crate) struct Peer {
    servers: Arc<str>,
    method: Arc<str>,
    refusals: Refusals,
}

impl Peer {
    /// The error of a refusal heard on this connection.
    pub(crate) fn denied(&self, refusal: Refusal) -> BusError {
        BusError::PermissionDenied {
            servers: self.servers.to_string(),
            method: self.method.to_string(),
            refusal,
        }
    }

    /// Runs `work`, failing it at once with the refusal heard meanwhile, if any: a request the server
    /// refused is never answered, and would otherwise only time out.
    pub(crate) async fn guard<T>(
        &self,
        work: impl Future<Output = Result<T, BusError>>,
    ) -> Result<T, BusError> {
        let mut refused = self.refusals.watch();
        tokio::select! {
            result = work => result,
            refusal = refused.next() => Err(self.denied(refusal)),
        }
    }
}

impl Bus {
    /// Connects to `servers` (one URL, or several separated by commas: `nats://a:4222,nats://b:4222`)
    /// with no credentials of its own, reconnecting by itself whenever the connection drops.
    pub async fn connect(servers: &str) -> Result<Bus, BusError> {
        Self::connect_with(&ConnectSettings::new(servers)).await
    }

    /// Connects with `settings`: the servers, one authentication method (user and password, token,
    /// NKey seed, credentials file), TLS (a CA, a client certificate, TLS first), an inbox prefix. A
    /// failure is one line naming the servers and the method tried (never a secret), within seconds.
    pub async fn connect_with(settings: &ConnectSettings) -> Result<Bus, BusError> {
        let (addresses, options) = settings.options()?;
        let refusals = Refusals::default();
        let hearing = refusals.clone();
        let client = options
            .event_callback(move |event| {
                if let async_nats::Event::ServerError(error) = &event {
                    hearing.hear(error.to_string().trim_start_matches("nats: "));
                }
                std::future::ready(())
            })
            .connect(addresses)
            .await
            .map_err(|e| settings.connect_failure(&e))?;
        Ok(Bus {
            jetstream: jetstream::new(client.clone()),
            client,
            subjects: Subjects::default(),
            peer: Peer {
                servers: Arc::from(settings.servers_shown()),
                method: Arc::from(settings.method()),
                refusals,
            },
        })
    }

    /// Uses these subjects (another prefix).
    pub fn with_subjects(mut self, subjects: Subjects) -> Self {
        self.subjects = subjects;
        self
    }

    /// The subjects and streams used.
    pub fn subjects(&self) -> &Subjects {
        &self.subjects
    }

    /// The NATS client, for what this crate does not do.
    pub fn client(&self) -> &Client {
        &self.client
    }

    /// A publisher of events.
    pub fn publisher(&self) -> Publisher<NatsSink> {
        Publisher::new(self.sink(), self.subjects.clone())
    }

    /// The publishing side of the transport.
    pub fn sink(&self) -> NatsSink {
        NatsSink {
            jetstream: self.jetstream.clone(),
            client: self.client.clone(),
            peer: self.peer.clone(),
        }
    }

    /// Creates or updates the events stream (every event type of the catalogue) and the dead-letter
    /// stream, idempotently: subjects are only ever added, and a change that would lose stored events
    /// (a shorter age limit, a retention that removes consumed events, another storage) is refused
    /// with its reasons, changing nothing.
    pub async fn init(&self, settings: &StreamSettings) -> Result<Vec<StreamReport>, BusError> {
        self.peer.guard(self.init_streams(settings)).await
    }

    async fn init_streams(&self, settings: &StreamSettings) -> Result<Vec<StreamReport>, BusError> {
        if !(1..=5).contains(&settings.replicas) {
            return Err(BusError::Invalid(format!(
                "{} replicas: a stream has 1 to 5",
                settings.replicas
            )));
        }
        let events = self.stream_config(
            self.subjects.events_stream(),
            self.subjects.catalogue(),
            settings,
            settings.retention,
            "Events of the energy platform's catalogue, one subject filter per event type (energy bus init).",
        );
        let dead_letters = self.stream_config(
            self.subjects.dead_letter_stream(),
            vec![format!("{}.>", self.subjects.dead_letter_root())],
            settings,
            // Dead letters stay until someone deals with them, whatever the events' retention.
            Retention::Limits,
            "Dead letters of the energy platform's consumers: the original message and why (energy bus init).",
        );
        // Both are checked before either is changed.
        let planned = [
            self.plan(events, settings.max_age.is_some()).await?,
            self.plan(dead_letters, false).await?,
        ];
        let mut reports = Vec::new();
        for (config, change) in planned {
            let name = config.name.clone();
            let subjects = config.subjects.len();
            match &change {
                Change::Created => {
                    self.jetstream
                        .create_stream(config)
                        .await
                        .map_err(|e| request_error(&format!("creating stream `{name}`"), e))?;
                }
                Change::Updated(_) => {
                    self.jetstream
                        .update_stream(config)
                        .await
                        .map_err(|e| request_error(&format!("updating stream `{name}`"), e))?;
                }
                Change::Unchanged => {}
            }
            reports.push(StreamReport {
                stream: name,
                change,
                subjects,
            });
        }
        Ok(reports)
    }

    fn stream_config(
        &self,
        name: String,
        subjects: Vec<String>,
        settings: &StreamSettings,
        retention: Retention,
        description: &str,
    ) -> stream::Config {
        stream::Config {
            name,
            subjects,
            retention: match retention {
                Retention::Limits => stream::RetentionPolicy::Limits,
                Retention::Interest => stream::RetentionPolicy::Interest,
                Retention::WorkQueue => stream::RetentionPolicy::WorkQueue,
            },
            storage: match settings.storage {
                Storage::File => stream::StorageType::File,
                Storage::Memory => stream::StorageType::Memory,
            },
            num_replicas: settings.replicas,
            duplicate_window: settings.duplicate_window,
            max_age: settings.max_age.unwrap_or_default(),
            allow_direct: true,
            description: Some(description.to_owned()),
            ..Default::default()
        }
    }

    /// What `init` would do to one stream: the config to write and the change, or the refusal.
    async fn plan(
        &self,
        mut wanted: stream::Config,
        age_given: bool,
    ) -> Result<(stream::Config, Change), BusError> {
        let existing = match self.jetstream.get_stream(&wanted.name).await {
            Ok(mut stream) => stream
                .info()
                .await
                .map_err(|e| request_error(&format!("reading stream `{}`", wanted.name), e))?
                .config
                .clone(),
            Err(e) if is_not_found(&e) => return Ok((wanted, Change::Created)),
            Err(e) => {
                return Err(request_error(
                    &format!("reading stream `{}`", wanted.name),
                    e,
                ));
            }
        };
        let mut refusals = Vec::new();
        let mut changes = Vec::new();
        if existing.storage != wanted.storage {
            refusals.push(format!(
                "its storage is {:?}, and moving it to {:?} would need a new stream (not done: the events would be lost)",
                existing.storage, wanted.storage
            ));
        }
        use stream::RetentionPolicy as R;
        match (existing.retention, wanted.retention) {
            (a, b) if a == b => {}
            (R::Interest, R::Limits) => changes.push("retention: interest → limits".to_owned()),
            (a, b) => refusals.push(format!(
                "its retention is {a:?}; {b:?} would remove events that are kept now"
            )),
        }
        if !age_given {
            // Not asked: the age limit stays as it is.
            wanted.max_age = existing.max_age;
        }
        let unlimited = Duration::ZERO;
        if wanted.max_age != existing.max_age {
            let shorter = existing.max_age == unlimited
                || (wanted.max_age != unlimited && wanted.max_age < existing.max_age);
            if shorter {
                refusals.push(format!(
                    "its age limit is {}; {} would remove the events older than that",
                    age(existing.max_age),
                    age(wanted.max_age)
                ));
            } else {
                changes.push(format!(
                    "age limit: {} → {}",
                    age(existing.max_age),
                    age(wanted.max_age)
                ));
            }
        }
        if !refusals.is_empty() {
            return Err(BusError::Refused {
                stream: wanted.name,
                reasons: refusals,
            });
        }
        if existing.num_replicas != wanted.num_replicas {
            changes.push(format!(
                "replicas: {} → {}",
                existing.num_replicas, wanted.num_replicas
            ));
        }
        if existing.duplicate_window != wanted.duplicate_window {
            changes.push(format!(
                "duplicate window: {} → {}",
                age(existing.duplicate_window),
                age(wanted.duplicate_window)
            ));
        }
        // Subjects are only ever added: events of a type no longer in the catalogue stay storable.
        let mut subjects = existing.subjects.clone();
        let added: Vec<&String> = wanted
            .subjects
            .iter()
            .filter(|s| !existing.subjects.contains(s))
            .collect();
        if !added.is_empty() {
            changes.push(format!("{} subjects added", added.len()));
            subjects.extend(added.into_iter().cloned());
        }
        if !existing.allow_direct {
            changes.push("direct reads allowed".to_owned());
        }
        if changes.is_empty() {
            return Ok((existing, Change::Unchanged));
        }
        let config = stream::Config {
            subjects,
            retention: wanted.retention,
            num_replicas: wanted.num_replicas,
            duplicate_window: wanted.duplicate_window,
            max_age: wanted.max_age,
            allow_direct: true,
            ..existing
        };
        Ok((config, Change::Updated(changes)))
    }

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

    async fn events_stream(&self, name: &str) -> Result<stream::Stream, BusError> {
        match self.jetstream.get_stream(name).await {
            Ok(stream) => Ok(stream),
            Err(e) if is_not_found(&e) => Err(BusError::Invalid(format!(
                "the stream `{name}` does not exist: create it with `energy bus init --server …` (or `Bus::init`)"
            ))),
            Err(e) => Err(request_error(&format!("reading stream `{name}`"), e)),
        }
    }

    /// An error unless the events stream exists (`energy bus init` creates it).
    pub async fn check_streams(&self) -> Result<(), BusError> {
        let stream = self.subjects.events_stream();
        self.peer
            .guard(async { self.events_stream(&stream).await.map(|_| ()) })
            .await
    }

    /// Every dead letter stored on `subject` (a filter; `None` for all), oldest first.
    pub async fn dead_letters(&self, subject: Option<&str>) -> Result<Vec<DeadLetter>, BusError> {
        self.peer.guard(self.read_dead_letters(subject)).await
    }

    async fn read_dead_letters(&self, subject: Option<&str>) -> Result<Vec<DeadLetter>, BusError> {
        let name = self.subjects.dead_letter_stream();
        let filter = subject
            .map(str::to_owned)
            .unwrap_or_else(|| format!("{}.>", self.subjects.dead_letter_root()));
        let range = CaptureRange {
            filters: vec![filter],
            start: Start::All,
            follow: false,
            idle_exit: None,
        };
        let mut letters = Vec::new();
        self.read_stream(
            &name,
            &range,
            |message| {
                if let Some(letter) = DeadLetter::read(
                    message.sequence,
                    &message.subject,
                    &message.headers,
                    message.payload,
                ) {
                    letters.push(letter);
                }
                Ok(())
            },
            std::future::pending(),
        )
        .await?;
        Ok(letters)
    }

    /// The dead letter at `sequence` of the dead-letter stream.
    pub async fn dead_letter(&self, sequence: u64) -> Result<DeadLetter, BusError> {
        self.peer.guard(self.read_dead_letter(sequence)).await
    }

    async fn read_dead_letter(&self, sequence: u64) -> Result<DeadLetter, BusError> {
        let name = self.subjects.dead_letter_stream();
        let stream = self.stream(&name).await?;
        let message = stream.get_raw_message(sequence).await.map_err(|e| {
            BusError::Invalid(format!(
                "no dead letter at sequence {sequence} of `{name}`: {e}"
            ))
        })?;
        let headers = headers_of(Some(&message.headers));
        DeadLetter::read(sequence, &message.subject, &headers, message.payload).ok_or_else(|| {
            BusError::Invalid(format!(
                "the message at sequence {sequence} of `{name}` is not a dead letter"
            ))
        })
    }

    /// Publishes the dead letter at `sequence` again, to its original subject, once it passes the
    /// checks a publisher makes (it may have been fixed by a newer catalogue, or its consumer's
    /// handler fixed); then removes it from the dead-letter stream. One that is still invalid stays.
    pub async fn republish_dead_letter(&self, sequence: u64) -> Result<Receipt, BusError> {
        self.peer
            .guard(self.publish_dead_letter_again(sequence))
            .await
    }

    async fn publish_dead_letter_again(&self, sequence: u64) -> Result<Receipt, BusError> {
        let letter = self.read_dead_letter(sequence).await?;
        let original = letter.original();
        let (incoming, data) = super::content::read_message(&original.headers, &original.payload)
            .map_err(|e| {
            BusError::Invalid(format!(
                "dead letter {sequence} still cannot be published: {} at `{}`: {}",
                e.kind, e.path, e.message
            ))
        })?;
        crate::events::Decoder::new()
            .reject_unknown(true)
            .validate_parts(
                &incoming.event_type,
                &incoming.version,
                &original.payload[data],
            )
            .map_err(|e| {
                BusError::Invalid(format!(
                    "dead letter {sequence} still cannot be published: {} at `{}`: {}",
                    e.kind, e.path, e.message
                ))
            })?;
        let receipt = super::publisher::send_with_retry(
            &self.sink(),
            original,
            super::publisher::RetryPolicy::default(),
        )
        .await?;
        let name = self.subjects.dead_letter_stream();
        let stream = self.stream(&name).await?;
        stream.delete_message(sequence).await.map_err(|e| {
            BusError::Invalid(format!(
                "dead letter {sequence} was published again (stream sequence {}), but not removed from `{name}`: {e}",
                receipt.sequence
            ))
        })?;
        Ok(receipt)
    }

    async fn stream(&self, name: &str) -> Result<stream::Stream, BusError> {
        match self.jetstream.get_stream(name).await {
            Ok(stream) => Ok(stream),
            Err(e) if is_not_found(&e) => Err(BusError::Invalid(format!(
                "the stream `{name}` does not exist: create it with `energy bus init --server …`"
            ))),
            Err(e) => Err(request_error(&format!("reading stream `{name}`"), e)),
        }
    }

    /// Reads the events stream's messages in `range`, in stream order, handing each to `each`, until
    /// caught up (or, with `follow`, until `stop` resolves or it is idle). Returns how many were read.
    pub async fn capture(
        &self,
        range: &CaptureRange,
        each: impl FnMut(Captured) -> Result<(), String>,
        stop: impl Future<Output = ()>,
    ) -> Result<u64, BusError> {
        let name = self.subjects.events_stream();
        self.peer
            .guard(self.read_stream(&name, range, each, stop))
            .await
    }

    async fn read_stream(
        &self,
        name: &str,
        range: &CaptureRange,
        mut each: impl FnMut(Captured) -> Result<(), String>,
        stop: impl Future<Output = ()>,
    ) -> Result<u64, BusError> {
        let stream = self.stream(name).await?;
        let mut filters = range.filters.clone();
        filters.sort();
        filters.dedup();
        let config = pull::OrderedConfig {
            filter_subject: if filters.len() == 1 {
                filters[0].clone()
            } else {
                String::new()
            },
            filter_subjects: if filters.len() > 1 {
                filters
            } else {
                Vec::new()
            },
            deliver_policy: deliver_policy(range.start),
            ..Default::default()
        };
        let consumer = stream
            .create_consumer(config)
            .await
            .map_err(|e| request_error(&format!("reading stream `{name}`"), e))?;
        let pending = consumer
            .get_info()
            .await
            .map_err(|e| request_error(&format!("reading stream `{name}`"), e))?
            .num_pending;
        if pending == 0 && !range.follow {
            return Ok(0);
        }
        let mut messages = consumer
            .messages()
            .await
            .map_err(|e| request_error(&format!("reading stream `{name}`"), e))?;
        let mut count = 0u64;
        tokio::pin!(stop);
        let idle = range.idle_exit.unwrap_or(Duration::MAX);
        loop {
            let next = tokio::select! {
                next = messages.next() => next,
                () = &mut stop => return Ok(count),
                () = tokio::time::sleep(idle), if range.follow && range.idle_exit.is_some() => return Ok(count),
            };
            let message = match next {
                Some(Ok(message)) => message,
                Some(Err(e)) => {
                    return Err(request_error(&format!("reading stream `{name}`"), e));
                }
                None => return Ok(count),
            };
            let info = message.info().map_err(|e| {
                BusError::Transport(TransportError::new(
                    TransportErrorKind::Rejected,
                    format!("a message of `{name}` without delivery information: {e}"),
                ))
            })?;
            let (sequence, remaining) = (info.stream_sequence, info.pending);
            let message = message.message;
            count += 1;
            each(Captured {
                sequence,
                subject: message.subject.to_string(),
                headers: headers_of(message.headers.as_ref()),
                payload: message.payload,
            })
            .map_err(BusError::Invalid)?;
            if remaining == 0 && !range.follow {
                return Ok(count);
            }
        }
    }
}

/// The broker's name for where a new consumer starts.
fn deliver_policy(start: Start) -> jetstream::consumer::DeliverPolicy {
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

/// A duration in the largest whole unit that states it (`30d`, `2m`, `90s`); `none` for zero (no limit).
fn age(duration: Duration) -> String {
    let seconds = duration.as_secs();
    if duration.is_zero() {
        return "none".to_owned();
    }
    if u128::from(seconds) * 1_000 != duration.as_millis() {
        return format!("{}ms", duration.as_millis());
    }
    for (unit, size) in [("d", 86_400), ("h", 3_600), ("m", 60)] {
        if seconds.is_multiple_of(size) {
            return format!("{}{unit}", seconds / size);
        }
    }
    format!("{seconds}s")
}

/// Whether a JetStream error says the stream does not exist.
fn is_not_found(error: &async_nats::error::Error<jetstream::context::GetStreamErrorKind>) -> bool {
    matches!(
        error.kind(),
        jetstream::context::GetStreamErrorKind::JetStream(e)
            if e.error_code() == jetstream::ErrorCode::STREAM_NOT_FOUND
    )
}

/// A request that failed, as a transport error (transient unless the broker refused it).
fn request_error(what: &str, error: impl std::fmt::Display) -> BusError {
    let text = error.to_string();
    let kind = if text.contains("timed out") || text.contains("timeout") {
        TransportErrorKind::Timeout
    } else if text.contains("no responders") || text.contains("request error") {
        TransportErrorKind::Unavailable
    } else {
        TransportErrorKind::Rejected
    };
    BusError::Transport(TransportError::new(kind, format!("{what}: {text}")))
}

/// A NATS header map as [`Headers`], sorted by name (NATS keeps no order).
fn headers_of(map: Option<&async_nats::HeaderMap>) -> Headers {
    let Some(map) = map else {
        return Headers::new();
    };
    let mut pairs: Vec<(&str, &str)> = map
        .iter()
        .flat_map(|(name, values)| {
            values
                .iter()
                .map(move |value| (name.as_ref(), value.as_str()))
        })
        .collect();
    pairs.sort_by(|a, b| a.0.cmp(b.0));
    let mut headers = Headers::with_capacity(pairs.len());
    for (name, value) in pairs {
        headers.append(super::cloudevents::header_name(name), value);
    }
    headers
}

/// `headers` as the client's header map. The client panics on a header name it cannot send, and would
/// send a line break in a value as a second header: both are refused here instead. Each name is hashed
/// once (`insert`; `append` only for a name that repeats, which looks it up first).
fn header_map(headers: &Headers) -> Result<async_nats::HeaderMap, TransportError> {
    let mut map = async_nats::HeaderMap::new();
    let pairs: Vec<(&str, &str)> = headers.iter().collect();
    for (i, (name, value)) in pairs.iter().enumerate() {
        let header: async_nats::HeaderName = name.parse().map_err(|_| {
            TransportError::new(
                TransportErrorKind::Rejected,
                format!("`{name}` cannot be a NATS header name (printable ASCII without `:`)"),
            )
        })?;
        if value.contains(['\r', '\n']) {
            return Err(TransportError::new(
                TransportErrorKind::Rejected,
                format!("the value of header `{name}` holds a line break"),
            ));
        }
        if pairs[..i].iter().any(|(earlier, _)| earlier == name) {
            map.append(header, *value);
        } else {
            map.insert(header, *value);
        }
    }
    Ok(map)
}

/// Publishes to JetStream.
#[derive(Clone)]
pub struct NatsSink {
    jetstream: jetstream::Context,
    client: Client,
    peer: Peer,
}

impl Sink for NatsSink {
    type Pending = std::pin::Pin<Box<dyn Future<Output = Result<Receipt, TransportError>> + Send>>;

    async fn send(&self, message: &Outgoing) -> Result<Self::Pending, TransportError> {
        let headers = header_map(&message.headers)?;
        let publish = jetstream::message::PublishMessage::build()
            .payload(message.payload.clone())
            .headers(headers)
            .message_id(&message.id);
        // A publish the user may not make is refused by the server beside the request, never answered:
        // heard here, it fails the publish at once, for good.
        let mut refused = self.peer.refusals.watch();
        let acknowledgement = self
            .jetstream
            .send_publish(message.subject.clone(), publish)
            .await
            .map_err(publish_error)?;
        // The wait starts now, not when the acknowledgement is first awaited: a publisher awaits its
        // acknowledgements one after the other, and those lost with a connection must all time out
        // together, not each after the one before it. (The client starts its timer at the first poll:
        // polled once here.)
        let mut acknowledgement = acknowledgement.into_future();
        let mut first = std::task::Context::from_waker(std::task::Waker::noop());
        let early = acknowledgement.as_mut().poll(&mut first);
        let peer = self.peer.clone();
        Ok(Box::pin(async move {
            let ack = match early {
                std::task::Poll::Ready(ack) => ack,
                std::task::Poll::Pending => tokio::select! {
                    ack = acknowledgement => ack,
                    refusal = refused.next() => {
                        return Err(TransportError::new(
                            TransportErrorKind::Rejected,
                            peer.denied(refusal).to_string(),
                        ));
                    }
                },
            }
            .map_err(publish_error)?;
            Ok(Receipt {
                stream: ack.stream,
                sequence: ack.sequence,
                duplicate: ack.duplicate,
            })
        }))
    }

    async fn flush(&self) {
        if let Err(e) = self.client.flush().await {
            log::warn!("the connection could not be flushed: {e}");
        }
    }
}

fn publish_error(error: jetstream::context::PublishError) -> TransportError {
    use jetstream::context::PublishErrorKind as K;
    let kind = match error.kind() {
        K::TimedOut => TransportErrorKind::Timeout,
        K::MaxPayloadExceeded | K::WrongLastMessageId | K::WrongLastSequence => {
            TransportErrorKind::Rejected
        }
        // No stream (yet), a broken connection, a leader being elected: passing.
        K::StreamNotFound | K::BrokenPipe | K::MaxAckPending | K::Other => {
            TransportErrorKind::Unavailable
        }
    };
    let text = match error.kind() {
        K::StreamNotFound => {
            "no stream stores this subject (or no server answered): run `energy bus init`"
                .to_owned()
        }
        _ => error.to_string(),
    };
    TransportError::new(kind, text)
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

    /// Keeps this consumer's figures in `registry` (see [`super::metrics`] for their names), refreshing
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

#[cfg(test)]
mod tests {
    use super::age;
    use std::time::Duration;

    #[test]
    fn ages_are_written_in_their_largest_whole_unit() {
        assert_eq!(age(Duration::ZERO), "none");
        assert_eq!(age(Duration::from_secs(30 * 86_400)), "30d");
        assert_eq!(age(Duration::from_secs(7_200)), "2h");
        assert_eq!(age(Duration::from_secs(120)), "2m");
        assert_eq!(age(Duration::from_secs(90)), "90s");
        assert_eq!(age(Duration::from_millis(1_500)), "1500ms");
    }
}
