//! Reading topics without joining a group (nothing committed, no other consumer disturbed): captures of
//! the events (`energy events capture`), the dead letters (`energy events dlq`), and the mark of a dead
//! letter published again.
//!
//! Kafka cannot delete one record: a dead letter published again is marked so by a record on the
//! dead-letter topic (`energy-dead-letter-republished: <its offset>`), and is no longer listed. A dead
//! letter stored twice (its consumer stopped between storing it and committing past the original) is
//! listed once, as NATS's deduplication window stores it once.

use super::records;
use super::{KafkaBus, REQUEST_TIMEOUT, bus_headers};
use crate::bus::broker::Broker;
use crate::bus::capture::{CaptureRange, Captured};
use crate::bus::consumer::Start;
use crate::bus::content;
use crate::bus::dead_letter::DeadLetter;
use crate::bus::error::BusError;
use crate::bus::headers::{Headers, percent_decode};
use crate::bus::subjects::may_match;
use bytes::Bytes;
use rdkafka::consumer::{Consumer, StreamConsumer};
use rdkafka::message::Message;
use rdkafka::{Offset, TopicPartitionList};
use std::collections::{BTreeMap, HashSet};
use std::future::Future;
use std::time::Duration;

/// How long a reader caught up with the high watermarks waits for more records of batches fetched.
const DRAIN: Duration = Duration::from_millis(300);

/// The header of the record that marks a dead letter as published again.
const REPUBLISHED: &str = "energy-dead-letter-republished";

/// One record read.
struct Record {
    topic: String,
    offset: i64,
    key: Option<Vec<u8>>,
    headers: Headers,
    payload: Bytes,
}

impl KafkaBus {
    /// Reads the events' topics in `range` (filters select event subjects; `sequence` starts are
    /// offsets, the same in every partition), handing each event to `each`: each partition in order,
    /// partitions interleaved as they arrive. Stops once caught up with what was stored when it began
    /// (or, with `follow`, when `stop` resolves or it is idle). Returns how many were read.
    pub(super) async fn read_events(
        &self,
        range: &CaptureRange,
        mut each: impl FnMut(Captured) -> Result<(), String>,
        stop: impl Future<Output = ()>,
    ) -> Result<u64, BusError> {
        let topics = self.topics.of_filters(&range.filters);
        let subjects = self.topics.subjects().clone();
        let mut count = 0u64;
        self.read_topics(
            &topics,
            range.start,
            range.follow,
            range.idle_exit,
            stop,
            |record| {
                let read = content::read_event(&record.headers, &record.payload);
                let subject =
                    records::subject_of(&subjects, &read, record.key.as_deref(), &record.topic);
                if !range.filters.is_empty()
                    && !range.filters.iter().any(|f| may_match(f, &subject))
                {
                    return Ok(());
                }
                count += 1;
                each(Captured {
                    sequence: u64::try_from(record.offset).unwrap_or(0),
                    subject,
                    headers: record.headers.sorted(),
                    payload: record.payload,
                })
            },
        )
        .await?;
        Ok(count)
    }

    /// Reads the dead-letter topic as [`Broker::read`] hands dead letters over: each under the subject
    /// of its consumer (`<prefix>_dead_letters.<group>`) that the range's filters select, oldest
    /// first, without those published again. Two reads of the topic: the first finds the marks of
    /// letters published again (appended after them), the second hands the letters over, each once (a
    /// letter stored twice is known by a hash of its place and consumer: 8 bytes a letter). Returns how
    /// many records were read.
    pub(super) async fn read_dead_letters(
        &self,
        range: &CaptureRange,
        mut each: impl FnMut(Captured) -> Result<(), String>,
    ) -> Result<u64, BusError> {
        let topic = self.topics.dead_letters();
        let mut republished = HashSet::new();
        self.read_topics(
            std::slice::from_ref(&topic),
            Start::All,
            false,
            None,
            std::future::pending(),
            |record| {
                if let Some(offset) = record
                    .headers
                    .get(REPUBLISHED)
                    .and_then(|v| v.parse::<u64>().ok())
                {
                    republished.insert(offset);
                }
                Ok(())
            },
        )
        .await?;
        let mut places = HashSet::new();
        let mut read = 0u64;
        self.read_topics(
            &[topic],
            Start::All,
            false,
            None,
            std::future::pending(),
            |record| {
                read += 1;
                let sequence = u64::try_from(record.offset).unwrap_or(0);
                if republished.contains(&sequence) || record.headers.get(REPUBLISHED).is_some() {
                    return Ok(());
                }
                let header = |name: &str| record.headers.get(name).unwrap_or_default().to_owned();
                let consumer = header("energy-dead-letter-consumer");
                let consumer =
                    percent_decode(&consumer).map_or(consumer.clone(), |d| d.into_owned());
                let subject = self.topics.subjects().dead_letters_of(&consumer);
                if !range.filters.iter().any(|f| may_match(f, &subject)) {
                    return Ok(());
                }
                let place = {
                    use std::hash::{Hash, Hasher};
                    let mut hasher = std::collections::hash_map::DefaultHasher::new();
                    ["stream", "sequence", "consumer"]
                        .map(|what| header(&format!("energy-dead-letter-{what}")))
                        .hash(&mut hasher);
                    hasher.finish()
                };
                if !places.insert(place) {
                    return Ok(());
                }
                each(Captured {
                    sequence,
                    subject,
                    headers: record.headers,
                    payload: record.payload,
                })
            },
        )
        .await?;
        Ok(read)
    }

    /// The dead letter at offset `sequence` of the dead-letter topic (read to its end: Kafka finds a
    /// record by its offset, but only a whole read knows whether it was published again).
    pub(super) async fn letter_at(&self, sequence: u64) -> Result<DeadLetter, BusError> {
        let mut found = None;
        self.each_dead_letter(None, &mut |letter| {
            if letter.sequence == sequence {
                found = Some(letter);
            }
        })
        .await?;
        found.ok_or_else(|| {
            BusError::Invalid(format!(
                "no dead letter at offset {sequence} of `{}` (or it was published again)",
                self.topics.dead_letters()
            ))
        })
    }

    /// Marks the dead letter at `sequence` as published again, with a record appended to the
    /// dead-letter topic (Kafka cannot delete one record).
    pub(super) async fn mark_republished(&self, sequence: u64) -> Result<(), BusError> {
        let mut marker = Headers::new();
        marker.append(REPUBLISHED, sequence.to_string());
        let topic = self.topics.dead_letters();
        let marked = match self.sink().produce(&topic, None, &marker, b"") {
            Ok(pending) => pending.await,
            Err(e) => Err(e),
        };
        marked
            .map(|_| ())
            .map_err(|e| BusError::Invalid(format!("not marked so on `{topic}`: {e}")))
    }

    /// Reads every partition of `topics` from `start`, handing each record to `each`, until caught
    /// up with the high watermarks read when it began (with `follow`: until `stop`, or idle for
    /// `idle_exit`).
    async fn read_topics(
        &self,
        topics: &[String],
        start: Start,
        follow: bool,
        idle_exit: Option<Duration>,
        stop: impl Future<Output = ()>,
        mut each: impl FnMut(Record) -> Result<(), String>,
    ) -> Result<(), BusError> {
        let mut client = self.settings.client_config();
        client
            .set("group.id", "energy-reader")
            .set("enable.auto.commit", "false")
            .set("enable.auto.offset.store", "false")
            .set("enable.partition.eof", "false");
        let consumer: StreamConsumer = client
            .create()
            .map_err(|e| self.request_error("making a reader", &e))?;
        let consumer = std::sync::Arc::new(consumer);
        let plan = {
            let consumer = consumer.clone();
            let topics = topics.to_vec();
            tokio::task::spawn_blocking(move || plan_reading(&consumer, &topics, start))
                .await
                .map_err(|e| BusError::Invalid(e.to_string()))?
                .map_err(|e| self.request_error("reading the topics' offsets", &e))?
        };
        let (assignment, mut remaining) = plan;
        if remaining.is_empty() && !follow {
            return Ok(());
        }
        consumer
            .assign(&assignment)
            .map_err(|e| self.request_error("reading the topics", &e))?;
        tokio::pin!(stop);
        let idle = idle_exit.unwrap_or(Duration::MAX);
        loop {
            // Caught up with the high watermarks: what is still coming of the last batches fetched
            // is read too. (tansu 0.6.0 reports a partition's high watermark as its last batch's first
            // offset plus one, not its last record's: `runtime/tests/kafka.rs` shows it with a bare
            // client.)
            let caught_up = remaining.is_empty() && !follow;
            let message = tokio::select! {
                message = consumer.recv() => message,
                () = &mut stop => return Ok(()),
                () = tokio::time::sleep(idle), if follow && idle_exit.is_some() => return Ok(()),
                () = tokio::time::sleep(DRAIN), if caught_up => return Ok(()),
            };
            let message = message.map_err(|e| self.request_error("reading a record", &e))?;
            let place = (message.topic().to_owned(), message.partition());
            let offset = message.offset();
            if let Some(&end) = remaining.get(&place)
                && offset + 1 >= end
            {
                remaining.remove(&place);
            }
            let record = Record {
                topic: place.0,
                offset,
                key: message.key().map(<[u8]>::to_vec),
                headers: bus_headers(message.headers()),
                payload: Bytes::copy_from_slice(message.payload().unwrap_or_default()),
            };
            each(record).map_err(BusError::Invalid)?;
        }
    }
}

/// Each partition with something to read, and the offset where it ends.
type Ends = BTreeMap<(String, i32), i64>;

/// Where each partition of `topics` starts, and the offset where each with something to read ends.
fn plan_reading(
    consumer: &StreamConsumer,
    topics: &[String],
    start: Start,
) -> rdkafka::error::KafkaResult<(TopicPartitionList, Ends)> {
    let metadata = consumer.fetch_metadata(None, REQUEST_TIMEOUT)?;
    let mut assignment = TopicPartitionList::new();
    let mut remaining = BTreeMap::new();
    let mut times = TopicPartitionList::new();
    for topic in metadata
        .topics()
        .iter()
        .filter(|t| topics.iter().any(|n| n == t.name()))
    {
        for partition in topic.partitions() {
            let (name, id) = (topic.name(), partition.id());
            let (low, high) = consumer.fetch_watermarks(name, id, REQUEST_TIMEOUT)?;
            let from = match start {
                Start::All => low,
                Start::New => high,
                Start::Sequence(n) => i64::try_from(n).unwrap_or(i64::MAX).clamp(low, high),
                Start::Time(time) => {
                    times.add_partition_offset(name, id, Offset::Offset(time.as_millisecond()))?;
                    continue;
                }
            };
            assignment.add_partition_offset(name, id, Offset::Offset(from))?;
            if from < high {
                remaining.insert((name.to_owned(), id), high);
            }
        }
    }
    if times.count() > 0 {
        let found = consumer.offsets_for_times(times, REQUEST_TIMEOUT)?;
        for element in found.elements() {
            let (low, high) =
                consumer.fetch_watermarks(element.topic(), element.partition(), REQUEST_TIMEOUT)?;
            let from = match element.offset() {
                Offset::Offset(o) if o >= 0 => o.max(low),
                _ => high,
            };
            assignment.add_partition_offset(
                element.topic(),
                element.partition(),
                Offset::Offset(from),
            )?;
            if from < high {
                remaining.insert((element.topic().to_owned(), element.partition()), high);
            }
        }
    }
    Ok((assignment, remaining))
}
