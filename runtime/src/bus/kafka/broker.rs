//! The [`Broker`] on Kafka: topics set up from the catalogue, a consumer group's member, and the topics
//! read without a group (captures, the dead-letter topic, where a letter published again is marked
//! so).

use super::KafkaBus;
use crate::bus::broker::{AnySink, Broker, Kept, Reading};
use crate::bus::consumer::ConsumerConfig;
use crate::bus::dead_letter::DeadLetter;
use crate::bus::error::Answer;
use crate::bus::handle::Consumer;
use crate::bus::setup::{SetUp, SetUpReport};
use crate::bus::subjects::Subjects;
use crate::bus::transport::Receipt;

impl Broker for KafkaBus {
    fn system(&self) -> &'static str {
        "kafka"
    }

    fn subjects(&self) -> &Subjects {
        self.topics.subjects()
    }

    /// A topic per section and the dead-letter topic: partitions only added, retention only
    /// lengthened.
    fn init<'a>(&'a self, settings: &'a SetUp) -> Answer<'a, Vec<SetUpReport>> {
        Box::pin(self.init_topics(settings))
    }

    /// An error unless every section's topic and the dead-letter topic exist.
    fn check_ready(&self) -> Answer<'_, ()> {
        Box::pin(self.check_topics())
    }

    fn sink(&self) -> AnySink {
        AnySink::new(KafkaBus::sink(self))
    }

    /// A member of the group named `config.durable`, subscribed to its events' topics and its retry
    /// topic.
    fn consumer(&self, config: ConsumerConfig) -> Answer<'_, Consumer> {
        Box::pin(self.open_consumer(config))
    }

    /// Each partition in order (`sequence` starts are offsets, the same in every partition),
    /// partitions interleaved as they arrive; nothing committed, no group joined. Dead letters stored
    /// twice are listed once, those published again not at all.
    fn read<'a>(&'a self, reading: Reading<'a>) -> Answer<'a, u64> {
        let Reading {
            kept,
            range,
            each,
            stop,
        } = reading;
        match kept {
            Kept::Events => Box::pin(self.read_events(range, each, stop)),
            Kept::DeadLetters => Box::pin(self.read_dead_letters(range, each)),
        }
    }

    /// The letter at that offset of the dead-letter topic.
    fn dead_letter(&self, sequence: u64) -> Answer<'_, DeadLetter> {
        Box::pin(self.letter_at(sequence))
    }

    /// Marked as published again by a record on the dead-letter topic.
    fn remove_dead_letter<'a>(
        &'a self,
        sequence: u64,
        _republished: &'a Receipt,
    ) -> Answer<'a, ()> {
        Box::pin(self.mark_republished(sequence))
    }
}
