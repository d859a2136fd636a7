//! The dead-letter stream: reading dead letters, and publishing one again.

use super::{Bus, CaptureRange, headers_of};
use crate::bus::consumer::Start;
use crate::bus::dead_letter::DeadLetter;
use crate::bus::error::BusError;
use crate::bus::transport::Receipt;

impl Bus {
    /// Every dead letter stored on `subject` (a filter; `None` for all), oldest first.
    pub async fn dead_letters(&self, subject: Option<&str>) -> Result<Vec<DeadLetter>, BusError> {
        self.peer.guard(self.read_dead_letters(subject)).await
    }

    async fn read_dead_letters(&self, subject: Option<&str>) -> Result<Vec<DeadLetter>, BusError> {
        let name = self.subjects.dead_letter_stream();
        let filter = subject
            .map(str::to_owned)
            .unwrap_or_else(|| format!("{}.>", self.subjects.dead_letter_root()));
        let range = CaptureRange {
            filters: vec![filter],
            start: Start::All,
            follow: false,
            idle_exit: None,
        };
        let mut letters = Vec::new();
        self.read_stream(
            &name,
            &range,
            |message| {
                if let Some(letter) = DeadLetter::read(
                    message.sequence,
                    &message.subject,
                    &message.headers,
                    message.payload,
                ) {
                    letters.push(letter);
                }
                Ok(())
            },
            std::future::pending(),
        )
        .await?;
        Ok(letters)
    }

    /// Hands every dead letter stored on `subject` (a filter; `None` for all), oldest first, to
    /// `each`, one at a time (none is kept: for reading a dead-letter stream of any size, as `energy
    /// events drift --dlq` does). Returns how many messages were read.
    pub async fn each_dead_letter(
        &self,
        subject: Option<&str>,
        mut each: impl FnMut(DeadLetter),
    ) -> Result<u64, BusError> {
        let name = self.subjects.dead_letter_stream();
        let filter = subject
            .map(str::to_owned)
            .unwrap_or_else(|| format!("{}.>", self.subjects.dead_letter_root()));
        let range = CaptureRange {
            filters: vec![filter],
            start: Start::All,
            follow: false,
            idle_exit: None,
        };
        let read = self.read_stream(
            &name,
            &range,
            |message| {
                if let Some(letter) = DeadLetter::read(
                    message.sequence,
                    &message.subject,
                    &message.headers,
                    message.payload,
                ) {
                    each(letter);
                }
                Ok(())
            },
            std::future::pending(),
        );
        self.peer.guard(read).await
    }

    /// The dead letter at `sequence` of the dead-letter stream.
    pub async fn dead_letter(&self, sequence: u64) -> Result<DeadLetter, BusError> {
        self.peer.guard(self.read_dead_letter(sequence)).await
    }

    async fn read_dead_letter(&self, sequence: u64) -> Result<DeadLetter, BusError> {
        let name = self.subjects.dead_letter_stream();
        let stream = self.stream(&name).await?;
        let message = stream.get_raw_message(sequence).await.map_err(|e| {
            BusError::Invalid(format!(
                "no dead letter at sequence {sequence} of `{name}`: {e}"
            ))
        })?;
        let headers = headers_of(Some(&message.headers));
        DeadLetter::read(sequence, &message.subject, &headers, message.payload).ok_or_else(|| {
            BusError::Invalid(format!(
                "the message at sequence {sequence} of `{name}` is not a dead letter"
            ))
        })
    }

    /// Publishes the dead letter at `sequence` again, to its original subject, once it passes the
    /// checks a publisher makes (it may have been fixed by a newer catalogue, or its consumer's
    /// handler fixed); then removes it from the dead-letter stream. One that is still invalid stays.
    pub async fn republish_dead_letter(&self, sequence: u64) -> Result<Receipt, BusError> {
        self.peer
            .guard(self.publish_dead_letter_again(sequence))
            .await
    }

    async fn publish_dead_letter_again(&self, sequence: u64) -> Result<Receipt, BusError> {
        let letter = self.read_dead_letter(sequence).await?;
        let original = letter.original();
        let (incoming, data) =
            crate::bus::content::read_message(&original.headers, &original.payload).map_err(
                |e| {
                    BusError::Invalid(format!(
                        "dead letter {sequence} still cannot be published: {} at `{}`: {}",
                        e.kind, e.path, e.message
                    ))
                },
            )?;
        crate::events::Decoder::new()
            .reject_unknown(true)
            .validate_parts(
                &incoming.event_type,
                &incoming.version,
                &original.payload[data],
            )
            .map_err(|e| {
                BusError::Invalid(format!(
                    "dead letter {sequence} still cannot be published: {} at `{}`: {}",
                    e.kind, e.path, e.message
                ))
            })?;
        let receipt = crate::bus::publisher::send_with_retry(
            &self.sink(),
            original,
            crate::bus::publisher::PublishRetry::default(),
        )
        .await?;
        let name = self.subjects.dead_letter_stream();
        let stream = self.stream(&name).await?;
        stream.delete_message(sequence).await.map_err(|e| {
            BusError::Invalid(format!(
                "dead letter {sequence} was published again (stream sequence {}), but not removed from `{name}`: {e}",
                receipt.sequence
            ))
        })?;
        Ok(receipt)
    }
}
