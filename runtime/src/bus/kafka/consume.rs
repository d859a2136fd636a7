//! Consuming: a consumer group per durable name (opened for the floor's [`Consumer`]), the [`Source`]
//! that receives its records and the [`Delivery`] that settles each, and delayed retries through the
//! group's retry topic. The group itself (rebalances, membership, lag) is `group.rs`.
//!
//! Kafka has no per-message acknowledgement: a group commits, per partition, the offset to start from.
//! Records are handled concurrently and settled out of order, so each partition's committed offset
//! moves only up to its lowest record not yet settled (`offsets`): a process killed at any moment
//! leaves nothing acknowledged that was not settled, and the next owner of its partitions starts at
//! the first record that was not. A retry never blocks its partition: the record is published again to
//! `<prefix>_retry.<group>` with its due time and attempt, and settled; the group reads that topic
//! too, and hands a retried record to its handler once it is due.

use super::group::{
    GroupConsumer, GroupContext, GroupProbe, Membership, group_name_error, list_at, list_of,
    partitions_of_topics,
};
use super::offsets::{Arrival, Offsets, Partition};
use super::records::{self, Topics};
use super::{KafkaBus, KafkaSink, REQUEST_TIMEOUT, bus_headers};
use crate::bus::consumer::{ConsumerConfig, Running, Start, Stats};
use crate::bus::content;
use crate::bus::error::{Answer, BusError, Stop};
use crate::bus::handle::{Consumer, LagProbe, Opened, checked_filters, run_on};

use crate::bus::metrics::ConsumerMetrics;
use crate::bus::subjects::may_match;
use crate::bus::transport::{
    Carried, Delivery, DeliveryInfo, Pulled, Pulling, Source, TransportError,
};
use bytes::Bytes;
use futures_util::FutureExt;
use rdkafka::consumer::{CommitMode, Consumer as _};
use rdkafka::message::Message;
use rdkafka::{Offset, TopicPartitionList};
use std::collections::{HashMap, VecDeque};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::{OwnedSemaphorePermit, watch};

/// The header of a retried record: when it is due (RFC 3339).
const RETRY_DUE: &str = "energy-retry-due";
/// The header of a retried record: which delivery it is to be.
const RETRY_ATTEMPT: &str = "energy-retry-attempt";
/// The header of a retried record: where the original was (`topic[partition]`).
const RETRY_STREAM: &str = "energy-retry-stream";
/// The header of a retried record: the original's offset.
const RETRY_SEQUENCE: &str = "energy-retry-sequence";
/// How often settled offsets are committed while records flow.
const COMMIT_INTERVAL: Duration = Duration::from_millis(200);
/// How many recent event ids a consumer remembers to tell a redelivery.
const RECENT_IDS: usize = 16_384;
/// The most records handed over at once.
const BATCH: usize = 64;

impl KafkaBus {
    /// A consumer in the group named `config.durable`, subscribed to the topics holding the events its
    /// filters select and to the group's retry topic (created when missing, as the dead-letter topic
    /// is). Processes in one group share the partitions. A new group starts where `config.start`
    /// says; a group with committed offsets goes on from them.
    pub(super) async fn open_consumer(&self, config: ConsumerConfig) -> Result<Consumer, BusError> {
        let filters = checked_filters(&config)?;
        // Stricter than a durable name: it names the group's retry topic.
        if let Some(why) = group_name_error(&config.durable) {
            return Err(BusError::Invalid(why));
        }
        let event_topics = self.topics.of_filters(&filters);
        let retry_topic = self.topics.retry(&config.durable);
        let existing = self.partition_counts().await?;
        let missing: Vec<&String> = event_topics
            .iter()
            .filter(|t| !existing.contains_key(*t))
            .collect();
        if !missing.is_empty() {
            return Err(BusError::Invalid(format!(
                "no topic {} on {}: run `energy bus init --server {}`",
                missing
                    .iter()
                    .map(|t| format!("`{t}`"))
                    .collect::<Vec<_>>()
                    .join(", "),
                self.settings.servers_shown(),
                self.settings.servers_shown()
            )));
        }
        for topic in [&retry_topic, &self.topics.dead_letters()] {
            if !existing.contains_key(topic) {
                let admin = self.admin()?;
                self.create_topic(&admin, topic, 1, 1, None).await?;
            }
        }
        let offsets = Arc::new(Offsets::default());
        let membership = Arc::new(Membership::default());
        let mut client = self.settings.client_config();
        for (name, value) in [
            ("group.id", config.durable.as_str()),
            ("enable.auto.commit", "false"),
            ("enable.auto.offset.store", "false"),
            (
                "auto.offset.reset",
                match config.start {
                    Start::New => "latest",
                    _ => "earliest",
                },
            ),
            // Only the partitions that move are taken away in a rebalance: the others go on.
            ("partition.assignment.strategy", "cooperative-sticky"),
            // A bounded prefetch (8 MiB for the consumer's one queue, not librdkafka's 64): memory
            // stays flat whatever the backlog. (A smaller fetch, `queued.min.messages` 1,000 and
            // `fetch.wait.max.ms` 100, made the typed path 0.62x the bare loop instead of 0.93x:
            // BENCHMARKS.md.)
            ("queued.max.messages.kbytes", "8192"),
        ] {
            if self.settings.get(name).is_none() || name == "group.id" {
                client.set(name, value);
            }
        }
        // The acknowledgement wait is the group's session: a member silent for that long (killed) has
        // its partitions given to the others, whose reading starts at its last commit. Brokers take
        // 6 s to 30 min by default.
        let session = config
            .ack_wait
            .clamp(Duration::from_secs(6), Duration::from_secs(1800))
            .as_millis();
        let timings = [
            ("session.timeout.ms", session.to_string()),
            ("heartbeat.interval.ms", (session / 3).to_string()),
            ("max.poll.interval.ms", session.max(300_000).to_string()),
        ];
        for (name, value) in &timings {
            if self.settings.get(name).is_none() {
                client.set(*name, value);
            }
        }
        let context = GroupContext {
            offsets: offsets.clone(),
            membership: membership.clone(),
        };
        let consumer: GroupConsumer = client
            .create_with_context(context)
            .map_err(|e| self.request_error("making a consumer", &e))?;
        let consumer = Arc::new(consumer);
        let mut topics = event_topics;
        topics.push(retry_topic.clone());
        self.start_new_group(&consumer, &topics, config.start).await;
        let names: Vec<&str> = topics.iter().map(String::as_str).collect();
        consumer
            .subscribe(&names)
            .map_err(|e| self.request_error("subscribing", &e))?;
        let opened = KafkaOpened {
            consumer,
            offsets,
            membership,
            sink: self.sink(),
            topics: self.topics.clone(),
            subscribed: topics,
            retry_topic,
            filters,
        };
        Ok(Consumer::new(
            "kafka",
            opened,
            config,
            self.topics.subjects(),
        ))
    }

    /// A group that has committed nothing starts at `start`: its first offsets are committed before it
    /// joins (a start at the end or at a time; `All` is the broker's `earliest`). One that has
    /// committed goes on from there.
    async fn start_new_group(
        &self,
        consumer: &Arc<GroupConsumer>,
        topics: &[String],
        start: Start,
    ) {
        if matches!(start, Start::All) {
            return;
        }
        let consumer = consumer.clone();
        let topics = topics.to_vec();
        let started = tokio::task::spawn_blocking(move || -> rdkafka::error::KafkaResult<()> {
            let partitions = partitions_of_topics(consumer.as_ref(), &topics)?;
            let committed = consumer
                .committed_offsets(list_at(&partitions, Offset::Invalid), REQUEST_TIMEOUT)?;
            if committed
                .elements()
                .iter()
                .any(|e| e.offset().to_raw().is_some_and(|o| o >= 0))
            {
                return Ok(());
            }
            let list = match start {
                Start::All => return Ok(()),
                Start::New => list_at(&partitions, Offset::End),
                Start::Sequence(n) => {
                    list_at(&partitions, Offset::Offset(i64::try_from(n).unwrap_or(0)))
                }
                Start::Time(time) => consumer.offsets_for_times(
                    list_at(&partitions, Offset::Offset(time.as_millisecond())),
                    REQUEST_TIMEOUT,
                )?,
            };
            // Ends resolved to offsets (a commit of "the end" commits nothing).
            let mut resolved = TopicPartitionList::new();
            for element in list.elements() {
                let offset = match element.offset() {
                    Offset::Offset(o) => o,
                    _ => {
                        consumer
                            .fetch_watermarks(
                                element.topic(),
                                element.partition(),
                                REQUEST_TIMEOUT,
                            )?
                            .1
                    }
                };
                resolved.add_partition_offset(
                    element.topic(),
                    element.partition(),
                    Offset::Offset(offset),
                )?;
            }
            consumer.commit(&resolved, CommitMode::Sync)
        })
        .await;
        match started {
            Ok(Ok(())) => {}
            Ok(Err(e)) => log::warn!(
                "the new group's start was not committed ({e}); it starts at the broker's reset point"
            ),
            Err(e) => log::warn!("the new group's start was not committed ({e})"),
        }
    }
}

/// A member of a consumer group on Kafka, opened: what the floor's [`Consumer`] runs.
struct KafkaOpened {
    consumer: Arc<GroupConsumer>,
    offsets: Arc<Offsets>,
    membership: Arc<Membership>,
    sink: KafkaSink,
    topics: Topics,
    /// The topics it reads: its events' topics, then its retry topic.
    subscribed: Vec<String>,
    retry_topic: String,
    filters: Vec<String>,
}

impl Opened for KafkaOpened {
    /// The group's lag, each partition's kept in `metrics`.
    fn probe(&self, metrics: Option<&ConsumerMetrics>) -> LagProbe {
        LagProbe::new(GroupProbe {
            consumer: self.consumer.clone(),
            offsets: self.offsets.clone(),
            membership: self.membership.clone(),
            topics: self.subscribed.clone(),
            metrics: metrics.cloned(),
        })
    }

    /// Stops receiving on a stop, finishes and settles what it holds, commits what was settled, and
    /// leaves the group.
    fn run<'a>(self: Box<Self>, running: Running, shutdown: Stop<'a>) -> Answer<'a, Stats> {
        let probe = self.probe(running.metrics.as_ref());
        let settler = Arc::new(Settler {
            offsets: self.offsets.clone(),
            sink: self.sink.clone(),
            retry_topic: self.retry_topic.clone(),
        });
        let source = GroupSource {
            consumer: self.consumer,
            offsets: self.offsets,
            settler,
            topics: self.topics,
            retry_topic: self.retry_topic,
            filters: self.filters,
            recent: RecentIds::default(),
            metrics: running.metrics.clone(),
        };
        Box::pin(run_on(source, self.sink, probe, running, shutdown))
    }
}

/// Event ids seen lately by this process, with how many times: a record seen again (published twice
/// with one id, or delivered again after a rebalance) is told to its handler by its `attempt`.
#[derive(Default)]
struct RecentIds {
    seen: HashMap<String, u64>,
    order: VecDeque<String>,
}

impl RecentIds {
    /// Counts one more sighting of `id`; returns how many times it has been seen, this one included.
    fn sighting(&mut self, id: &str) -> u64 {
        if let Some(count) = self.seen.get_mut(id) {
            *count += 1;
            return *count;
        }
        if self.order.len() >= RECENT_IDS
            && let Some(oldest) = self.order.pop_front()
        {
            self.seen.remove(&oldest);
        }
        self.order.push_back(id.to_owned());
        self.seen.insert(id.to_owned(), 1);
        1
    }
}

/// What deliveries need to settle: the offsets, and the producer of retries.
struct Settler {
    offsets: Arc<Offsets>,
    sink: KafkaSink,
    retry_topic: String,
}

/// Receives a group's records, as many as the consumer has room for.
struct GroupSource {
    consumer: Arc<GroupConsumer>,
    offsets: Arc<Offsets>,
    settler: Arc<Settler>,
    topics: Topics,
    retry_topic: String,
    filters: Vec<String>,
    recent: RecentIds,
    metrics: Option<ConsumerMetrics>,
}

/// A received record: to hand over now, at a due time, not this consumer's, or dropped to be read
/// again (past a gap in its partition's offsets).
enum Received {
    Now(KafkaDelivery),
    Due(KafkaDelivery, jiff::Timestamp),
    PassedOver,
    Dropped,
}

impl GroupSource {
    /// Commits the settled offsets: those that moved (asynchronously), or every one (waiting).
    async fn commit(&self, all: bool) {
        let commits = self.offsets.to_commit(all);
        if commits.is_empty() {
            return;
        }
        let list = list_of(&commits);
        if all {
            let consumer = self.consumer.clone();
            // Bounded as the group's leave is (see `run`): a commit waits for a coordinator.
            let done = tokio::time::timeout(
                REQUEST_TIMEOUT,
                tokio::task::spawn_blocking(move || consumer.commit(&list, CommitMode::Sync)),
            )
            .await;
            let stored = matches!(done, Ok(Ok(Ok(()))));
            self.offsets.answered(&commits, stored);
            match done {
                Ok(Ok(Ok(()))) => {}
                Ok(Ok(Err(e))) => log::warn!(
                    "the final commit failed ({e}): records settled since the last commit will be delivered again"
                ),
                Ok(Err(e)) => log::warn!("the final commit failed ({e})"),
                Err(_) => log::warn!(
                    "the final commit was not answered within {REQUEST_TIMEOUT:?}: records settled since the last commit will be delivered again"
                ),
            }
        } else if let Err(e) = self.consumer.commit(&list, CommitMode::Async) {
            // Not even queued: sent again on the next tick.
            self.offsets.answered(&commits, false);
            log::debug!("a commit was not sent ({e}); it is sent again");
        }
    }

    /// Whether the record at `offset` is to be received: a gap before it (offsets that no record
    /// came for) is read again once, to tell records skipped (a broker's or client's fault, read now:
    /// warned of and counted) from offsets that hold none (compaction, transaction markers).
    fn in_order(&self, partition: &Partition, offset: i64) -> bool {
        let (topic, index) = (&partition.0, partition.1);
        match self.offsets.arrival(partition, offset) {
            Arrival::InOrder => true,
            Arrival::Dropped => false,
            Arrival::Gap { from } => {
                match self
                    .consumer
                    .seek(topic, index, Offset::Offset(from), Duration::ZERO)
                {
                    Ok(()) => {
                        log::debug!(
                            "{topic}[{index}]: offsets {from} to {} came without records; reading them again",
                            offset - 1
                        );
                        false
                    }
                    Err(e) => {
                        self.offsets.reread_failed(partition);
                        log::warn!(
                            "{topic}[{index}]: no record came for offsets {from} to {}, and they cannot be read again ({e}): passed over",
                            offset - 1
                        );
                        self.count_gap(partition, offset - from);
                        true
                    }
                }
            }
            Arrival::Hole { missing } => {
                log::debug!(
                    "{topic}[{index}]: {missing} offsets before {offset} hold no record (compaction or transaction markers)"
                );
                true
            }
            Arrival::Refilled { missing } => {
                log::warn!(
                    "{topic}[{index}]: {missing} records from offset {offset} were skipped by the first read and read again"
                );
                self.count_gap(partition, missing);
                true
            }
        }
    }

    fn count_gap(&self, partition: &Partition, missing: i64) {
        if let Some(metrics) = &self.metrics {
            metrics.offset_gap(
                &partition.0,
                partition.1,
                u64::try_from(missing).unwrap_or(0),
            );
        }
    }

    fn receive(&mut self, message: &rdkafka::message::BorrowedMessage<'_>) -> Received {
        let topic = message.topic();
        let partition = (topic.to_owned(), message.partition());
        let offset = message.offset();
        if !self.in_order(&partition, offset) {
            return Received::Dropped;
        }
        let mut headers = bus_headers(message.headers());
        let payload = Bytes::copy_from_slice(message.payload().unwrap_or_default());
        let key = message.key().map(<[u8]>::to_vec);
        let retried = topic == self.retry_topic;
        let mut origin = None;
        let mut due = None;
        let mut attempt = 1;
        if retried {
            let mut take = |name: &str| {
                let value = headers.get(name).map(str::to_owned);
                headers.remove(name);
                value
            };
            due = take(RETRY_DUE).and_then(|v| v.parse::<jiff::Timestamp>().ok());
            attempt = take(RETRY_ATTEMPT)
                .and_then(|v| v.parse::<u64>().ok())
                .unwrap_or(2);
            let stream = take(RETRY_STREAM);
            let sequence = take(RETRY_SEQUENCE).and_then(|v| v.parse::<u64>().ok());
            if let (Some(stream), Some(sequence)) = (stream, sequence) {
                origin = Some((stream, sequence));
            }
        }
        let read = content::read_event(&headers, &payload);
        let subject = records::subject_of(self.topics.subjects(), &read, key.as_deref(), topic);
        if !self.filters.is_empty() && !self.filters.iter().any(|f| may_match(f, &subject)) {
            self.offsets.passed(&partition, offset);
            return Received::PassedOver;
        }
        let generation = self.offsets.received(&partition, offset);
        if !retried && let Some(id) = headers.get("ce-id") {
            attempt = self.recent.sighting(id);
        }
        let (stream, sequence) = origin.unwrap_or_else(|| {
            (
                format!("{topic}[{}]", partition.1),
                u64::try_from(offset).unwrap_or(0),
            )
        });
        let published = message
            .timestamp()
            .to_millis()
            .and_then(|ms| jiff::Timestamp::from_millisecond(ms).ok());
        let info = DeliveryInfo {
            attempt,
            sequence,
            stream,
            published,
        };
        let mut carried = Carried::new(subject, Arc::new(headers), payload, info).read_as(read);
        if let Some(key) = &key {
            carried = carried.in_lane(String::from_utf8_lossy(key).into_owned());
        }
        let delivery = KafkaDelivery {
            carried,
            partition,
            offset,
            generation,
            key,
            settler: self.settler.clone(),
        };
        match due {
            Some(due) if due > jiff::Timestamp::now() => Received::Due(delivery, due),
            _ => Received::Now(delivery),
        }
    }
}

impl Source for GroupSource {
    type Delivery = KafkaDelivery;

    async fn pull(mut self, mut pulling: Pulling<KafkaDelivery>) -> Result<(), TransportError> {
        let room = pulling.room.clone();
        let capacity = room.available_permits();
        let mut commit_tick = tokio::time::interval(COMMIT_INTERVAL);
        commit_tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        let mut slot: Option<OwnedSemaphorePermit> = None;
        let mut failures = 0u32;
        let consumer = self.consumer.clone();
        'receiving: loop {
            if pulling.stopping() {
                break;
            }
            if slot.is_none() {
                tokio::select! {
                    taken = room.clone().acquire_owned() => match taken {
                        Ok(taken) => slot = Some(taken),
                        Err(_) => break,
                    },
                    _ = pulling.stop.changed() => break,
                    _ = commit_tick.tick() => {
                        self.commit(false).await;
                        continue;
                    }
                }
            }
            let first = tokio::select! {
                message = consumer.recv() => message.map(|m| self.receive(&m)),
                _ = pulling.stop.changed() => break,
                _ = commit_tick.tick() => {
                    self.commit(false).await;
                    continue;
                }
            };
            let received = match first {
                Ok(received) => {
                    failures = 0;
                    pulling.health.pulled(true);
                    received
                }
                Err(e) => {
                    if pulling.wait_after_failure(&mut failures, &e).await {
                        continue;
                    }
                    break;
                }
            };
            // Records already waiting are taken with the first, as many as there is room for: one
            // hand-over for them all.
            let mut batch = Vec::new();
            let mut next = Some(received);
            while let Some(received) = next.take() {
                let Some(taken) = slot.take() else { break };
                match received {
                    Received::Now(delivery) => batch.push(Pulled {
                        delivery,
                        slot: taken,
                    }),
                    Received::Due(delivery, due) => {
                        // Held (with its slot) until due, without holding up the records behind it;
                        // on a stop it is dropped unsettled, and read again by the next owner.
                        let deliveries = pulling.deliveries.clone();
                        let mut stop = pulling.stop.clone();
                        tokio::spawn(async move {
                            let wait = due.duration_since(jiff::Timestamp::now());
                            let wait = Duration::try_from(wait).unwrap_or(Duration::ZERO);
                            tokio::select! {
                                () = tokio::time::sleep(wait) => {
                                    let _ = deliveries.send(vec![Pulled { delivery, slot: taken }]).await;
                                }
                                () = stopped(&mut stop) => {}
                            }
                        });
                    }
                    Received::PassedOver | Received::Dropped => slot = Some(taken),
                }
                if batch.len() >= BATCH {
                    break;
                }
                if slot.is_none() {
                    slot = room.clone().try_acquire_owned().ok();
                    if slot.is_none() {
                        break;
                    }
                }
                next = match consumer.recv().now_or_never() {
                    Some(Ok(message)) => Some(self.receive(&message)),
                    _ => None,
                };
            }
            if !pulling.hand_over(batch).await {
                break 'receiving;
            }
        }
        // Stopping: what is held is settled (or handed back) by the consumer; its offsets are committed
        // as that goes, and all of them once every slot is back.
        drop(slot);
        while room.available_permits() < capacity {
            tokio::select! {
                () = tokio::time::sleep(Duration::from_millis(20)) => {}
                _ = commit_tick.tick() => self.commit(false).await,
            }
        }
        self.commit(true).await;
        drop(consumer);
        leave(self.consumer).await;
        Ok(())
    }
}

/// Leaves the group, which hands the partitions to the others at once (not after a session timeout),
/// and lets go of the consumer off the async threads (its close may wait). Bounded: with its brokers
/// gone, librdkafka's close waits for a coordinator that does not answer, and a stop must not hang on
/// it (the group then notices after its session timeout).
async fn leave(consumer: Arc<GroupConsumer>) {
    let leave = tokio::task::spawn_blocking(move || {
        consumer.unsubscribe();
        drop(consumer);
    });
    if tokio::time::timeout(REQUEST_TIMEOUT, leave).await.is_err() {
        log::warn!(
            "the group was not left within {REQUEST_TIMEOUT:?} (are its brokers gone?); it hands this member's partitions on after its session timeout"
        );
    }
}

/// Resolves once `stop` is true (or its sender is gone).
async fn stopped(stop: &mut watch::Receiver<bool>) {
    loop {
        if *stop.borrow_and_update() {
            return;
        }
        if stop.changed().await.is_err() {
            return;
        }
    }
}

/// One delivery of one Kafka record.
struct KafkaDelivery {
    /// Read when received, to find its subject: the consumer reads it from here.
    carried: Carried,
    partition: Partition,
    offset: i64,
    generation: u64,
    key: Option<Vec<u8>>,
    settler: Arc<Settler>,
}

impl KafkaDelivery {
    fn settle(&self) {
        self.settler
            .offsets
            .settled(&self.partition, self.offset, self.generation);
    }
}

impl Delivery for KafkaDelivery {
    fn carried(&self) -> &Carried {
        &self.carried
    }

    async fn ack(&self) -> Result<(), TransportError> {
        self.settle();
        Ok(())
    }

    /// With no delay, handed back: left unsettled, so that the partition's commit stops before it
    /// and its next owner reads it again. With a delay: published to the group's retry topic with its
    /// due time and next attempt, then settled; when that publish fails, left unsettled (read again
    /// after a restart or rebalance: late, never lost).
    async fn retry_after(&self, delay: Duration) -> Result<(), TransportError> {
        if delay.is_zero() {
            return Ok(());
        }
        let mut headers = (**self.headers()).clone();
        let due = jiff::Timestamp::now()
            .checked_add(jiff::SignedDuration::try_from(delay).unwrap_or(jiff::SignedDuration::MAX))
            .unwrap_or(jiff::Timestamp::MAX);
        headers.insert(RETRY_DUE, due.to_string());
        headers.insert(RETRY_ATTEMPT, (self.info().attempt + 1).to_string());
        headers.insert(RETRY_STREAM, self.info().stream.clone());
        headers.insert(RETRY_SEQUENCE, self.info().sequence.to_string());
        let mut wait = Duration::from_millis(100);
        let started = std::time::Instant::now();
        loop {
            let sent = match self.settler.sink.produce(
                &self.settler.retry_topic,
                self.key.as_deref(),
                &headers,
                self.payload(),
            ) {
                Ok(pending) => pending.await,
                Err(e) => Err(e),
            };
            match sent {
                Ok(_) => {
                    self.settle();
                    return Ok(());
                }
                Err(e) if e.is_transient() && started.elapsed() < Duration::from_secs(30) => {
                    tokio::time::sleep(wait).await;
                    wait = (wait * 2).min(Duration::from_secs(2));
                }
                Err(e) => return Err(e),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_id_seen_again_counts_its_sightings_within_a_bounded_memory() {
        let mut recent = RecentIds::default();
        assert_eq!(recent.sighting("a"), 1);
        assert_eq!(recent.sighting("a"), 2);
        for n in 0..RECENT_IDS {
            recent.sighting(&n.to_string());
        }
        assert!(recent.seen.len() <= RECENT_IDS);
        assert_eq!(recent.sighting("a"), 1, "forgotten once old");
    }
}
