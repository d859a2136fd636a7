//! Setting up the topics from the catalogue (`energy bus init --server kafka://…`): a topic per section
//! and the dead-letter topic, created or grown idempotently: partitions are only added (Kafka cannot
//! take them away, and a key's partition would move), retention only lengthened (a shorter one would
//! delete stored events: refused, nothing changed).

use super::{KafkaBus, REQUEST_TIMEOUT};
use crate::bus::error::BusError;
use crate::bus::setup::{Change, SetUp, SetUpReport};
use rdkafka::admin::{
    AdminClient, AdminOptions, AlterConfig, NewPartitions, NewTopic, ResourceSpecifier,
    TopicReplication,
};
use rdkafka::client::DefaultClientContext;
use std::collections::BTreeMap;
use std::time::Duration;

/// `retention.ms` of a retention: `-1` for none.
fn retention_ms(retention: Option<Duration>) -> i64 {
    retention.map_or(-1, |r| i64::try_from(r.as_millis()).unwrap_or(i64::MAX))
}

impl KafkaBus {
    /// Creates or grows the topics of every catalogue section (`settings.partitions` each, with
    /// `replicas` copies, kept for `max_age`) and the dead-letter topic. Idempotent: partitions are
    /// only added, retention only lengthened; a shorter retention is refused with
    /// [`BusError::Refused`] and nothing is changed.
    pub(super) async fn init_topics(&self, settings: &SetUp) -> Result<Vec<SetUpReport>, BusError> {
        let replication = i32::try_from(settings.replicas).unwrap_or(i32::MAX);
        if settings.partitions < 1 || replication < 1 {
            return Err(BusError::Invalid(
                "topics have at least one partition and one copy".to_owned(),
            ));
        }
        let admin = self.admin()?;
        let mut wanted: BTreeMap<String, i32> = self
            .topics
            .sections()
            .into_iter()
            .map(|t| (t, settings.partitions))
            .collect();
        wanted.insert(self.topics.dead_letters(), 1);
        let existing = self.partition_counts().await?;
        let retention = retention_ms(settings.max_age);
        // Refuse first, change after: nothing is changed when anything is refused.
        let mut retentions = BTreeMap::new();
        for topic in wanted.keys().filter(|t| existing.contains_key(*t)) {
            let have = self.retention_of(&admin, topic).await?;
            let shorter = match (have, retention) {
                (_, -1) => false,
                (-1, _) => true,
                (have, want) => want < have,
            };
            if shorter {
                return Err(BusError::Refused {
                    stream: topic.clone(),
                    reasons: vec![format!(
                        "retention {} would be shorter than the topic's {} and delete stored events",
                        show_ms(retention),
                        show_ms(have)
                    )],
                });
            }
            retentions.insert(topic.clone(), have);
        }
        let options = AdminOptions::new().request_timeout(Some(REQUEST_TIMEOUT));
        let retention_text = retention.to_string();
        let mut reports = Vec::new();
        for (topic, partitions) in &wanted {
            let report = match existing.get(topic) {
                None => {
                    self.create_topic(
                        &admin,
                        topic,
                        *partitions,
                        replication,
                        Some(&retention_text),
                    )
                    .await?;
                    topic_report(topic, Change::Created, *partitions)
                }
                Some(&have) => {
                    let mut changes = Vec::new();
                    if have < *partitions {
                        let grow =
                            NewPartitions::new(topic, usize::try_from(*partitions).unwrap_or(1));
                        admin
                            .create_partitions([&grow], &options)
                            .await
                            .map_err(|e| match e {
                                rdkafka::error::KafkaError::AdminOp(
                                    rdkafka::types::RDKafkaErrorCode::UnsupportedFeature,
                                ) => {
                                    BusError::Refused {
                                        stream: topic.clone(),
                                        reasons: vec![format!(
                                            "the broker cannot add partitions (it does not implement CreatePartitions): the topic keeps its {have}"
                                        )],
                                    }
                                }
                                _ => self.request_error(&format!("adding partitions to `{topic}`"), &e),
                            })?
                            .into_iter()
                            .try_for_each(|r| {
                                r.map(|_| ()).map_err(|(_, code)| {
                                    BusError::Invalid(format!(
                                        "partitions of `{topic}` not added: {code}"
                                    ))
                                })
                            })?;
                        changes.push(format!("partitions {have} → {partitions}"));
                    }
                    let had = retentions.get(topic).copied().unwrap_or(retention);
                    if had != retention {
                        let alter = AlterConfig::new(ResourceSpecifier::Topic(topic))
                            .set("retention.ms", &retention_text);
                        admin.alter_configs([&alter], &options).await.map_err(|e| {
                            self.request_error(&format!("setting the retention of `{topic}`"), &e)
                        })?;
                        changes.push(format!(
                            "retention {} → {}",
                            show_ms(had),
                            show_ms(retention)
                        ));
                    }
                    let change = if changes.is_empty() {
                        Change::Unchanged
                    } else {
                        Change::Updated(changes)
                    };
                    topic_report(topic, change, have.max(*partitions))
                }
            };
            reports.push(report);
        }
        Ok(reports)
    }

    /// Fails, saying to run `energy bus init`, when a section's topic or the dead-letter topic is
    /// missing: without it every publish would be retried until it timed out.
    pub(super) async fn check_topics(&self) -> Result<(), BusError> {
        let existing = self.partition_counts().await?;
        let mut wanted = self.topics.sections();
        wanted.push(self.topics.dead_letters());
        let missing: Vec<String> = wanted
            .into_iter()
            .filter(|t| !existing.contains_key(t))
            .map(|t| format!("`{t}`"))
            .collect();
        if missing.is_empty() {
            return Ok(());
        }
        Err(BusError::Invalid(format!(
            "no topic {} on {}: run `energy bus init --server {}`",
            missing.join(", "),
            self.settings.servers_shown(),
            self.settings.servers_shown()
        )))
    }

    /// An admin client of the cluster.
    pub(super) fn admin(&self) -> Result<AdminClient<DefaultClientContext>, BusError> {
        self.settings
            .client_config()
            .create()
            .map_err(|e| self.request_error("making an admin client", &e))
    }

    /// Creates `topic` with `partitions`, `replication` copies and `retention_ms` (`retention.ms`;
    /// the broker's default without); one already there is left as it is.
    pub(super) async fn create_topic(
        &self,
        admin: &AdminClient<DefaultClientContext>,
        topic: &str,
        partitions: i32,
        replication: i32,
        retention_ms: Option<&str>,
    ) -> Result<(), BusError> {
        let mut new = NewTopic::new(topic, partitions, TopicReplication::Fixed(replication));
        if let Some(retention) = retention_ms {
            new = new.set("retention.ms", retention);
        }
        let options = AdminOptions::new().request_timeout(Some(REQUEST_TIMEOUT));
        let results = admin
            .create_topics([&new], &options)
            .await
            .map_err(|e| self.request_error(&format!("creating topic `{topic}`"), &e))?;
        for result in results {
            if let Err((_, code)) = result
                && code != rdkafka::types::RDKafkaErrorCode::TopicAlreadyExists
            {
                return Err(BusError::Invalid(format!(
                    "topic `{topic}` not created on {}: {code}",
                    self.settings.servers_shown()
                )));
            }
        }
        Ok(())
    }

    /// Every topic of the cluster with its number of partitions.
    pub(crate) async fn partition_counts(&self) -> Result<BTreeMap<String, i32>, BusError> {
        let producer = self.producer.clone();
        let metadata = tokio::task::spawn_blocking(move || {
            rdkafka::producer::Producer::client(&producer).fetch_metadata(None, REQUEST_TIMEOUT)
        })
        .await
        .map_err(|e| BusError::Invalid(format!("reading the cluster's metadata: {e}")))?
        .map_err(|e| self.request_error("reading the cluster's metadata", &e))?;
        Ok(metadata
            .topics()
            .iter()
            .filter(|t| t.error().is_none())
            .map(|t| {
                (
                    t.name().to_owned(),
                    i32::try_from(t.partitions().len()).unwrap_or(i32::MAX),
                )
            })
            .collect())
    }

    /// A topic's `retention.ms` (`-1` when it keeps events for ever, or the broker does not say).
    async fn retention_of(
        &self,
        admin: &AdminClient<DefaultClientContext>,
        topic: &str,
    ) -> Result<i64, BusError> {
        let options = AdminOptions::new().request_timeout(Some(REQUEST_TIMEOUT));
        let described = admin
            .describe_configs([&ResourceSpecifier::Topic(topic)], &options)
            .await
            .map_err(|e| {
                self.request_error(&format!("reading the configuration of `{topic}`"), &e)
            })?;
        let retention = described
            .into_iter()
            .filter_map(Result::ok)
            .find_map(|resource| {
                resource
                    .get("retention.ms")
                    .and_then(|entry| entry.value.as_deref())
                    .and_then(|v| v.parse::<i64>().ok())
            });
        Ok(retention.unwrap_or(-1))
    }
}

/// What `init` did to one topic.
fn topic_report(topic: &str, change: Change, partitions: i32) -> SetUpReport {
    SetUpReport {
        kind: "topic",
        name: topic.to_owned(),
        change,
        size: usize::try_from(partitions).unwrap_or(0),
        unit: "partition",
    }
}

/// A retention in words.
fn show_ms(ms: i64) -> String {
    if ms < 0 {
        return "unlimited".to_owned();
    }
    let span = jiff::SignedDuration::from_millis(ms);
    format!("{span:#}")
}
