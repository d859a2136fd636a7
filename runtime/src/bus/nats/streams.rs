//! Setting up the streams from the catalogue (`energy bus init`): created or updated idempotently, a
//! change that would lose stored events refused; and finding a stream.

use super::{Bus, is_not_found, request_error};
use crate::bus::error::BusError;
use async_nats::jetstream::stream;
use std::time::Duration;

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

impl Bus {
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

    pub(super) async fn events_stream(&self, name: &str) -> Result<stream::Stream, BusError> {
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

    pub(super) async fn stream(&self, name: &str) -> Result<stream::Stream, BusError> {
        match self.jetstream.get_stream(name).await {
            Ok(stream) => Ok(stream),
            Err(e) if is_not_found(&e) => Err(BusError::Invalid(format!(
                "the stream `{name}` does not exist: create it with `energy bus init --server …`"
            ))),
            Err(e) => Err(request_error(&format!("reading stream `{name}`"), e)),
        }
    }
}

/// A duration in the largest whole unit that states it (`30d`, `2m`, `90s`); `none` for zero (no limit).
pub(super) fn age(duration: Duration) -> String {
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
