//! Setting up the streams from the catalogue (`energy bus init`): created or updated idempotently, a
//! change that would lose stored events refused; and finding a stream.

use super::{Bus, is_not_found, request_error};
use crate::bus::error::BusError;
use crate::bus::setup::{Change, Retention, SetUp, SetUpReport, Storage};
use async_nats::jetstream::stream;
use std::time::Duration;

impl Bus {
    /// Creates or updates the events stream (every event type of the catalogue) and the dead-letter
    /// stream, idempotently: subjects are only ever added, and a change that would lose stored events
    /// (a shorter age limit, a retention that removes consumed events, another storage) is refused
    /// with its reasons, changing nothing.
    pub(super) async fn init_streams(
        &self,
        settings: &SetUp,
    ) -> Result<Vec<SetUpReport>, BusError> {
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
            reports.push(SetUpReport {
                kind: "stream",
                name,
                change,
                size: subjects,
                unit: "subject filter",
            });
        }
        Ok(reports)
    }

    fn stream_config(
        &self,
        name: String,
        subjects: Vec<String>,
        settings: &SetUp,
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

    /// The stream `name`; one that does not exist is an error that says how to create it.
    pub(super) async fn stream(&self, name: &str) -> Result<stream::Stream, BusError> {
        match self.jetstream.get_stream(name).await {
            Ok(stream) => Ok(stream),
            Err(e) if is_not_found(&e) => Err(BusError::Invalid(format!(
                "the stream `{name}` does not exist: create it with `energy bus init --server …` (or `Broker::init`)"
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
