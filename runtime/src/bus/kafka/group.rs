//! A consumer group as the bus sees it: the rebalance callbacks (a partition taken away commits what
//! was settled of it and forgets the rest), whether the consumer is in its group with its brokers
//! answering, the names a group may have, and its lag (`GroupProbe`).

use super::REQUEST_TIMEOUT;
use super::offsets::{Offsets, Partition};
use crate::bus::metrics::ConsumerMetrics;
use crate::bus::subjects::durable_name_error;
use crate::bus::transport::{Lag, TransportError, TransportErrorKind, Watch};
use rdkafka::consumer::{
    BaseConsumer, CommitMode, Consumer, ConsumerContext, Rebalance, StreamConsumer,
};
use rdkafka::{ClientContext, Offset, TopicPartitionList};
use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// The rebalance callbacks: a partition taken away commits what was settled of it and forgets the
/// rest; one given starts afresh. And whether the consumer is in its group, with its brokers reachable.
pub(super) struct GroupContext {
    pub(super) offsets: Arc<Offsets>,
    pub(super) membership: Arc<Membership>,
}

/// Whether a consumer is in its group (assigned, even nothing) and its brokers answer.
#[derive(Debug, Default)]
pub(super) struct Membership {
    in_group: AtomicBool,
    brokers_down: AtomicBool,
}

impl Membership {
    fn healthy(&self) -> bool {
        self.in_group.load(Ordering::Relaxed) && !self.brokers_down.load(Ordering::Relaxed)
    }
}

impl ClientContext for GroupContext {
    fn error(&self, error: rdkafka::error::KafkaError, reason: &str) {
        if error.rdkafka_error_code() == Some(rdkafka::types::RDKafkaErrorCode::AllBrokersDown) {
            self.membership.brokers_down.store(true, Ordering::Relaxed);
        }
        // librdkafka says it too, in its own log line.
        log::debug!("kafka: {error}: {reason}");
    }
}

fn partitions_of(list: &TopicPartitionList) -> Vec<Partition> {
    list.elements()
        .iter()
        .map(|e| (e.topic().to_owned(), e.partition()))
        .collect()
}

pub(super) fn list_of(commits: &[(Partition, i64)]) -> TopicPartitionList {
    let mut list = TopicPartitionList::with_capacity(commits.len());
    for ((topic, partition), offset) in commits {
        let _ = list.add_partition_offset(topic, *partition, Offset::Offset(*offset));
    }
    list
}

impl ConsumerContext for GroupContext {
    fn pre_rebalance(&self, consumer: &BaseConsumer<Self>, rebalance: &Rebalance<'_>) {
        match rebalance {
            Rebalance::Revoke(list) => {
                let commits = self.offsets.revoked(partitions_of(list));
                if !commits.is_empty()
                    && let Err(e) = consumer.commit(&list_of(&commits), CommitMode::Sync)
                {
                    // Forgotten here (the partition is no longer this consumer's): its new owner
                    // starts from the last offset the broker confirmed, and reads the rest again.
                    log::warn!(
                        "the offsets of revoked partitions were not committed ({e}): their new owner starts earlier"
                    );
                }
            }
            Rebalance::Error(e) => {
                log::warn!("rebalance failed: {e}");
                self.membership.in_group.store(false, Ordering::Relaxed);
            }
            Rebalance::Assign(_) => {}
        }
    }

    fn post_rebalance(&self, _consumer: &BaseConsumer<Self>, rebalance: &Rebalance<'_>) {
        if let Rebalance::Assign(list) = rebalance {
            self.offsets.assigned(partitions_of(list));
            self.membership.in_group.store(true, Ordering::Relaxed);
            self.membership.brokers_down.store(false, Ordering::Relaxed);
        }
    }

    /// Every commit's answer (asynchronous or not): an offset counts as committed only once stored,
    /// and one refused is sent again (see `offsets`).
    fn commit_callback(&self, result: rdkafka::error::KafkaResult<()>, list: &TopicPartitionList) {
        if let Err(e) = &result {
            log::debug!("a commit failed ({e}); its offsets are sent again");
        }
        for element in list.elements() {
            let Offset::Offset(offset) = element.offset() else {
                continue;
            };
            let stored = result.is_ok() && element.error().is_ok();
            let partition = (element.topic().to_owned(), element.partition());
            self.offsets.answered(&[(partition, offset)], stored);
        }
    }
}

pub(super) type GroupConsumer = StreamConsumer<GroupContext>;

/// Why `name` cannot name a consumer group here: a durable name (as on NATS) made only of what a
/// topic name may hold, since it names the group's retry topic.
pub(super) fn group_name_error(name: &str) -> Option<String> {
    if let Some(why) = durable_name_error(name) {
        return Some(why);
    }
    if !name
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
    {
        return Some(format!(
            "`{name}` cannot name a Kafka consumer group here: ASCII letters, digits, `_` and `-` only (it names the retry topic)"
        ));
    }
    None
}

/// Every partition of `topics`, from the cluster's metadata.
pub(super) fn partitions_of_topics(
    consumer: &GroupConsumer,
    topics: &[String],
) -> rdkafka::error::KafkaResult<Vec<Partition>> {
    let metadata = consumer.fetch_metadata(None, REQUEST_TIMEOUT)?;
    let mut partitions = Vec::new();
    for topic in metadata.topics() {
        if topics.iter().any(|t| t == topic.name()) {
            for partition in topic.partitions() {
                partitions.push((topic.name().to_owned(), partition.id()));
            }
        }
    }
    partitions.sort();
    Ok(partitions)
}

pub(super) fn list_at(partitions: &[Partition], offset: Offset) -> TopicPartitionList {
    let mut list = TopicPartitionList::with_capacity(partitions.len());
    for (topic, partition) in partitions {
        let _ = list.add_partition_offset(topic, *partition, offset);
    }
    list
}

/// Reads a consumer group's lag, and whether the consumer is in its group (also while it runs).
pub(super) struct GroupProbe {
    pub(super) consumer: Arc<GroupConsumer>,
    pub(super) offsets: Arc<Offsets>,
    pub(super) membership: Arc<Membership>,
    pub(super) topics: Vec<String>,
    pub(super) metrics: Option<ConsumerMetrics>,
}

impl Watch for GroupProbe {
    /// Every partition of the group's topics: its high watermark minus the group's committed offset
    /// (its low watermark when none), what this process holds aside (`ack_pending`). Settled offsets
    /// are committed first, so that an idle consumer sees its own work done.
    async fn lag(&self) -> Result<Lag, TransportError> {
        let consumer = self.consumer.clone();
        let offsets = self.offsets.clone();
        let topics = self.topics.clone();
        let metrics = self.metrics.clone();
        let read = tokio::task::spawn_blocking(move || -> rdkafka::error::KafkaResult<Lag> {
            let commits = offsets.to_commit(false);
            if !commits.is_empty() {
                let committed = consumer.commit(&list_of(&commits), CommitMode::Sync);
                offsets.answered(&commits, committed.is_ok());
                committed?;
            }
            let partitions = partitions_of_topics(&consumer, &topics)?;
            let committed = consumer
                .committed_offsets(list_at(&partitions, Offset::Invalid), REQUEST_TIMEOUT)?;
            // Every partition's ends in one request each (a request per partition takes seconds
            // for a catalogue's topics): the timestamps `End` (-1) and `Beginning` (-2) ask for the latest
            // and earliest.
            let ends = |timestamp: Offset| -> rdkafka::error::KafkaResult<HashMap<Partition, i64>> {
                let found =
                    consumer.offsets_for_times(list_at(&partitions, timestamp), REQUEST_TIMEOUT)?;
                Ok(found
                    .elements()
                    .iter()
                    .filter_map(|e| match e.offset() {
                        Offset::Offset(o) => Some(((e.topic().to_owned(), e.partition()), o)),
                        _ => None,
                    })
                    .collect())
            };
            let (highs, lows) = (ends(Offset::End)?, ends(Offset::Beginning)?);
            let mut behind = 0u64;
            for element in committed.elements() {
                let partition = (element.topic().to_owned(), element.partition());
                let high = highs.get(&partition).copied().unwrap_or(0);
                let from = match element.offset() {
                    Offset::Offset(o) if o >= 0 => o,
                    _ => lows.get(&partition).copied().unwrap_or(0),
                };
                let lag = u64::try_from(high.saturating_sub(from)).unwrap_or(0);
                if let Some(metrics) = &metrics {
                    metrics.partition_lag(element.topic(), element.partition(), lag);
                }
                behind += lag;
            }
            let held = offsets.held();
            Ok(Lag {
                pending: behind.saturating_sub(held),
                ack_pending: held,
            })
        })
        .await
        .map_err(|e| TransportError::new(TransportErrorKind::Unavailable, e.to_string()))?;
        if read.is_ok() {
            // The brokers answered.
            self.membership.brokers_down.store(false, Ordering::Relaxed);
        }
        read.map_err(|e| super::transport_error("reading the group's lag", &e))
    }

    /// In its group (assigned by it, even nothing) and its brokers answering.
    fn connected(&self) -> bool {
        self.membership.healthy()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn group_names_are_topic_names() {
        assert_eq!(group_name_error("billing-service_2"), None);
        assert!(group_name_error("billing:service").is_some());
        assert!(group_name_error("a.b").is_some());
    }
}
