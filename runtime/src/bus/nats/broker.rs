//! The [`Broker`] on NATS JetStream: the streams set up from the catalogue, the consumer, captures of
//! the events stream, and the dead-letter stream (read in order, one letter at a time, and a letter
//! removed once published again). Every request is guarded: a refusal of the server fails it at once.

use super::{Bus, headers_of};
use crate::bus::broker::{AnySink, Broker, Kept, Reading};
use crate::bus::consumer::ConsumerConfig;
use crate::bus::dead_letter::DeadLetter;
use crate::bus::error::{Answer, BusError};
use crate::bus::handle::Consumer;
use crate::bus::setup::{SetUp, SetUpReport};
use crate::bus::subjects::Subjects;
use crate::bus::transport::Receipt;

impl Broker for Bus {
    fn system(&self) -> &'static str {
        "nats"
    }

    fn subjects(&self) -> &Subjects {
        &self.subjects
    }

    fn init<'a>(&'a self, settings: &'a SetUp) -> Answer<'a, Vec<SetUpReport>> {
        Box::pin(self.peer.guard(self.init_streams(settings)))
    }

    /// An error unless the events stream exists.
    fn check_ready(&self) -> Answer<'_, ()> {
        Box::pin(self.peer.guard(async {
            let name = self.subjects.events_stream();
            self.stream(&name).await.map(|_| ())
        }))
    }

    fn sink(&self) -> AnySink {
        AnySink::new(Bus::sink(self))
    }

    /// A durable pull consumer on the events stream; a different one of the same name is an error,
    /// never a silent change.
    fn consumer(&self, config: ConsumerConfig) -> Answer<'_, Consumer> {
        Box::pin(self.peer.guard(self.open_consumer(config)))
    }

    /// The events stream, or the dead-letter stream, in stream order.
    fn read<'a>(&'a self, reading: Reading<'a>) -> Answer<'a, u64> {
        let name = match reading.kept {
            Kept::Events => self.subjects.events_stream(),
            Kept::DeadLetters => self.subjects.dead_letter_stream(),
        };
        Box::pin(self.peer.guard(async move {
            let Reading {
                range, each, stop, ..
            } = reading;
            self.read_stream(&name, range, each, stop).await
        }))
    }

    /// Read straight from the dead-letter stream by its sequence.
    fn dead_letter(&self, sequence: u64) -> Answer<'_, DeadLetter> {
        Box::pin(self.peer.guard(async move {
            let name = self.subjects.dead_letter_stream();
            let stream = self.stream(&name).await?;
            let message = stream.get_raw_message(sequence).await.map_err(|e| {
                BusError::Invalid(format!(
                    "no dead letter at sequence {sequence} of `{name}`: {e}"
                ))
            })?;
            let headers = headers_of(Some(&message.headers));
            DeadLetter::read(sequence, &message.subject, &headers, message.payload).ok_or_else(
                || {
                    BusError::Invalid(format!(
                        "the message at sequence {sequence} of `{name}` is not a dead letter"
                    ))
                },
            )
        }))
    }

    /// Deleted from the dead-letter stream.
    fn remove_dead_letter<'a>(
        &'a self,
        sequence: u64,
        _republished: &'a Receipt,
    ) -> Answer<'a, ()> {
        Box::pin(self.peer.guard(async move {
            let name = self.subjects.dead_letter_stream();
            let stream = self.stream(&name).await?;
            stream
                .delete_message(sequence)
                .await
                .map(|_| ())
                .map_err(|e| BusError::Invalid(format!("not removed from `{name}`: {e}")))
        }))
    }
}
