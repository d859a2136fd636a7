//! Setting a broker up from the catalogue (`energy bus init`, [`super::Broker::init`]): one set of
//! settings for every broker, each taking what applies to it, and one report of what was done to each
//! place that stores events (a NATS stream, a Kafka topic). Idempotent on every broker: a place is
//! created, or changed only in ways that lose nothing, and a change that would lose stored events is
//! refused with its reasons, nothing changed.

use std::time::Duration;

/// How a broker is set up. Each broker takes what applies to it: NATS every field but `partitions`,
/// Kafka `partitions`, `replicas` and `max_age`; the in-memory broker `duplicate_window`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SetUp {
    /// On disk (survives a restart) or in memory.
    pub storage: Storage,
    /// When stored events are removed.
    pub retention: Retention,
    /// Copies kept on different servers of a cluster (1 to 5; a single server keeps 1): a stream's
    /// replicas, a topic's replication factor.
    pub replicas: usize,
    /// How long the broker remembers event ids to drop duplicates.
    pub duplicate_window: Duration,
    /// Remove events older than this; `None` keeps them (until retention removes them).
    pub max_age: Option<Duration>,
    /// Partitions of each section's topic (only ever added). The dead-letter topic has one: its
    /// offsets number the dead letters.
    pub partitions: i32,
}

impl Default for SetUp {
    /// On disk, kept by limits (not removed when consumed), one replica, duplicates dropped within 2
    /// minutes, no age limit, three partitions a topic.
    fn default() -> Self {
        SetUp {
            storage: Storage::File,
            retention: Retention::Limits,
            replicas: 1,
            duplicate_window: Duration::from_secs(120),
            max_age: None,
            partitions: energy_api_core::bus::DEFAULT_PARTITIONS,
        }
    }
}

/// Where a broker keeps its messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Storage {
    /// On disk.
    File,
    /// In memory (lost when the server stops).
    Memory,
}

/// When a broker removes stored messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Retention {
    /// Only by its limits (age); consumers do not remove anything: replays work.
    Limits,
    /// Once every consumer has acknowledged it.
    Interest,
    /// Once one consumer has acknowledged it.
    WorkQueue,
}

/// What set-up did to one place.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Change {
    /// It did not exist: created.
    Created,
    /// It existed: these changes were made.
    Updated(Vec<String>),
    /// It existed as asked.
    Unchanged,
}

impl std::fmt::Display for Change {
    /// `created`, `updated (<each change>; …)`, `unchanged`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Change::Created => f.write_str("created"),
            Change::Updated(changes) => write!(f, "updated ({})", changes.join("; ")),
            Change::Unchanged => f.write_str("unchanged"),
        }
    }
}

/// What set-up did to one place that stores messages.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SetUpReport {
    /// What the place is on its broker: `stream` (NATS and the in-memory broker), `topic` (Kafka).
    pub kind: &'static str,
    /// Its name.
    pub name: String,
    /// What was done.
    pub change: Change,
    /// Its size after the change, in `unit`s: a stream's subject filters, a topic's partitions.
    pub size: usize,
    /// What `size` counts: `subject filter`, `partition`.
    pub unit: &'static str,
}

impl std::fmt::Display for SetUpReport {
    /// `stream ENERGY_EVENTS: created; 274 subject filters`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let plural = if self.size == 1 { "" } else { "s" };
        write!(
            f,
            "{} {}: {}; {} {}{plural}",
            self.kind, self.name, self.change, self.size, self.unit
        )
    }
}
