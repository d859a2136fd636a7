//! The [`Broker`] in memory: its streams already set up (set-up reports them, and takes the duplicate
//! window), captures of the events stream in order, and the dead-letter stream (a letter removed once
//! published again).

use super::MemoryBus;
use super::store::Stored;
use crate::bus::broker::{AnySink, Broker, Kept, Reading};
use crate::bus::capture::Captured;
use crate::bus::consumer::ConsumerConfig;
use crate::bus::dead_letter::DeadLetter;
use crate::bus::error::{Answer, BusError};
use crate::bus::handle::Consumer;
use crate::bus::setup::{Change, SetUp, SetUpReport};
use crate::bus::subjects::{Subjects, may_match};
use crate::bus::transport::Receipt;
use std::sync::Arc;
use std::time::Duration;

/// How many messages a capture takes from the stream at a time (the lock is not held while it hands
/// them over).
const BATCH: usize = 256;

/// Messages read from a stream, with their sequences.
type Batch = Vec<(u64, Arc<Stored>)>;

impl MemoryBus {
    /// The messages of stream `name` from sequence `from` on that `filters` select, at most `BATCH`;
    /// and the stream's last sequence.
    fn read_from(
        &self,
        name: &str,
        from: u64,
        filters: &[String],
    ) -> Result<(Batch, u64), BusError> {
        let state = self.shared.lock();
        let stream = state
            .streams
            .get(name)
            .ok_or_else(|| BusError::Invalid(format!("the stream `{name}` does not exist")))?;
        let selected = stream
            .messages
            .range(from..)
            .filter(|(_, stored)| {
                filters.is_empty() || filters.iter().any(|f| may_match(f, &stored.subject))
            })
            .take(BATCH)
            .map(|(sequence, stored)| (*sequence, stored.clone()))
            .collect();
        Ok((selected, stream.last))
    }

    /// Reads stream `name` in sequence order as a capture does: until caught up with what it held
    /// when the reading began (with `follow`: until `stop`, or idle for `idle_exit`).
    async fn read_stream(&self, name: &str, reading: Reading<'_>) -> Result<u64, BusError> {
        let Reading {
            range, each, stop, ..
        } = reading;
        let (mut next, end) = {
            let state = self.shared.lock();
            let stream = state
                .streams
                .get(name)
                .ok_or_else(|| BusError::Invalid(format!("the stream `{name}` does not exist")))?;
            (stream.first_at(range.start), stream.last)
        };
        let idle = range.idle_exit.unwrap_or(Duration::MAX);
        let mut count = 0u64;
        tokio::pin!(stop);
        loop {
            let arrived = self.shared.arrived.notified();
            tokio::pin!(arrived);
            arrived.as_mut().enable();
            let (batch, last) = self.read_from(name, next, &range.filters)?;
            let full = batch.len() == BATCH;
            for (sequence, stored) in batch {
                if !range.follow && sequence > end {
                    return Ok(count);
                }
                next = sequence + 1;
                count += 1;
                each(Captured {
                    sequence,
                    subject: stored.subject.clone(),
                    headers: (*stored.headers).clone(),
                    payload: stored.payload.clone(),
                })
                .map_err(BusError::Invalid)?;
            }
            if full {
                continue;
            }
            // Caught up: every message to the stream's last was read or passed over.
            next = next.max(last + 1);
            if !range.follow {
                return Ok(count);
            }
            tokio::select! {
                () = &mut arrived => {}
                () = &mut stop => return Ok(count),
                () = tokio::time::sleep(idle), if range.idle_exit.is_some() => return Ok(count),
            }
        }
    }
}

impl Broker for MemoryBus {
    fn subjects(&self) -> &Subjects {
        &self.subjects
    }

    /// Not a broker OpenTelemetry names: this process.
    fn system(&self) -> &'static str {
        "memory"
    }

    /// The streams exist since the broker was made: each reported unchanged, but for a new duplicate
    /// window (the one setting that applies in memory).
    fn init<'a>(&'a self, settings: &'a SetUp) -> Answer<'a, Vec<SetUpReport>> {
        let mut state = self.shared.lock();
        let mut reports = Vec::new();
        for name in [
            self.subjects.events_stream(),
            self.subjects.dead_letter_stream(),
        ] {
            let Some(stream) = state.streams.get_mut(&name) else {
                continue;
            };
            let had = stream.duplicate_window;
            stream.duplicate_window = settings.duplicate_window;
            let change = if had == settings.duplicate_window {
                Change::Unchanged
            } else {
                Change::Updated(vec![format!(
                    "duplicate window: {}s → {}s",
                    had.as_secs(),
                    settings.duplicate_window.as_secs()
                )])
            };
            reports.push(SetUpReport {
                kind: "stream",
                name,
                change,
                size: 1,
                unit: "subject filter",
            });
        }
        Box::pin(std::future::ready(Ok(reports)))
    }

    fn check_ready(&self) -> Answer<'_, ()> {
        Box::pin(std::future::ready(Ok(())))
    }

    fn sink(&self) -> AnySink {
        AnySink::new(MemoryBus::sink(self))
    }

    fn consumer(&self, config: ConsumerConfig) -> Answer<'_, Consumer> {
        Box::pin(std::future::ready(self.open_consumer(config)))
    }

    fn read<'a>(&'a self, reading: Reading<'a>) -> Answer<'a, u64> {
        let name = match reading.kept {
            Kept::Events => self.subjects.events_stream(),
            Kept::DeadLetters => self.subjects.dead_letter_stream(),
        };
        Box::pin(async move { self.read_stream(&name, reading).await })
    }

    fn dead_letter(&self, sequence: u64) -> Answer<'_, DeadLetter> {
        let name = self.subjects.dead_letter_stream();
        let letter = self
            .shared
            .lock()
            .streams
            .get(&name)
            .and_then(|stream| stream.messages.get(&sequence).cloned())
            .and_then(|stored| {
                DeadLetter::read(
                    sequence,
                    &stored.subject,
                    &stored.headers,
                    stored.payload.clone(),
                )
            })
            .ok_or_else(|| {
                BusError::Invalid(format!("no dead letter at sequence {sequence} of `{name}`"))
            });
        Box::pin(std::future::ready(letter))
    }

    /// Removed from the dead-letter stream.
    fn remove_dead_letter<'a>(
        &'a self,
        sequence: u64,
        _republished: &'a Receipt,
    ) -> Answer<'a, ()> {
        let name = self.subjects.dead_letter_stream();
        if let Some(stream) = self.shared.lock().streams.get_mut(&name) {
            stream.messages.remove(&sequence);
        }
        Box::pin(std::future::ready(Ok(())))
    }
}
