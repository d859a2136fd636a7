//! Dead letters: messages a consumer could not handle, stored with why. No broker's dead-letter queue
//! is used (JetStream has none, Kafka leaves it to the client): a consumer publishes the dead letter to
//! a subject that the broker keeps (`energy bus init` sets it up), waits for the broker to have stored
//! it, and only then terminates the original. A dead letter is the original message (body and headers, byte for byte) plus headers
//! saying what went wrong and where it came from:
//!
//! | header | value |
//! |---|---|
//! | `energy-dead-letter-kind` | an error kind of `energy events validate` (`malformed_json`, `bad_envelope`, `unknown_event_type`, `unknown_version`, `missing_field`, `invalid_type`), or `handler_failed` (failed on every one of `max_deliver` deliveries), `handler_rejected` (the handler said it never will succeed), `not_settled` (delivered more than `max_deliver` times without being settled: the consumer stopped each time) |
//! | `energy-dead-letter-path` | the JSON path at fault (`payload.ledger.account.number`), or the header (`ce-type`); empty when none |
//! | `energy-dead-letter-message` | the error, in words |
//! | `energy-dead-letter-subject`, `-stream`, `-sequence` | where the original was |
//! | `energy-dead-letter-consumer`, `-deliveries` | who gave up on it, after how many deliveries |
//! | `energy-dead-letter-time` | when |
//!
//! Values are percent-encoded as the CloudEvents attributes are.

use super::error::BusError;
use super::headers::{Headers, percent_decode, percent_encode};
use super::transport::{Delivery, Outgoing};
use crate::events::EventError;
use bytes::Bytes;

/// The prefix of the headers a dead letter adds.
pub const HEADER_PREFIX: &str = "energy-dead-letter-";

const KIND: &str = "energy-dead-letter-kind";
const PATH: &str = "energy-dead-letter-path";
const MESSAGE: &str = "energy-dead-letter-message";
const SUBJECT: &str = "energy-dead-letter-subject";
const STREAM: &str = "energy-dead-letter-stream";
const SEQUENCE: &str = "energy-dead-letter-sequence";
const CONSUMER: &str = "energy-dead-letter-consumer";
const DELIVERIES: &str = "energy-dead-letter-deliveries";
const TIME: &str = "energy-dead-letter-time";

/// Why a message was dead-lettered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeadLetterCause {
    /// The error kind (`invalid_type`, `handler_failed`, …).
    pub kind: String,
    /// The JSON path (or header) at fault; empty when none.
    pub path: String,
    /// What was wrong, in words.
    pub message: String,
}

impl DeadLetterCause {
    /// The event itself, as decoding found it at fault.
    pub fn of_event(error: &EventError) -> Self {
        DeadLetterCause {
            kind: error.kind.as_str().to_owned(),
            path: error.path.clone(),
            message: error.message.clone(),
        }
    }

    /// The handler (`handler_failed`, `handler_rejected`), or the delivery (`not_settled`), at fault.
    pub fn new(kind: &str, message: impl Into<String>) -> Self {
        DeadLetterCause {
            kind: kind.to_owned(),
            path: String::new(),
            message: message.into(),
        }
    }

    /// One line for the broker's termination reason and for logs: `invalid_type at payload.x: …`.
    pub fn summary(&self) -> String {
        let text = if self.path.is_empty() {
            format!("{}: {}", self.kind, self.message)
        } else {
            format!("{} at {}: {}", self.kind, self.path, self.message)
        };
        text.replace(['\r', '\n'], " ")
    }
}

/// The dead letter of `delivery`, to publish to `subject`. Its deduplication id names the original's
/// place and the consumer, so that a dead letter published again (the consumer stopped before it could
/// terminate the original, which came back) is stored once.
pub fn dead_letter_of(
    delivery: &impl Delivery,
    cause: &DeadLetterCause,
    consumer: &str,
    subject: &str,
) -> Outgoing {
    let info = delivery.info();
    let mut headers: Headers = delivery
        .headers()
        .iter()
        .filter(|(name, _)| {
            !name.eq_ignore_ascii_case(super::cloudevents::MESSAGE_ID_HEADER)
                && !name.to_ascii_lowercase().starts_with(HEADER_PREFIX)
        })
        .map(|(n, v)| (n.to_owned(), v.to_owned()))
        .collect();
    let mut put =
        |name: &'static str, value: &str| headers.append(name, percent_encode(value).into_owned());
    put(KIND, &cause.kind);
    put(PATH, &cause.path);
    put(MESSAGE, &cause.message);
    put(SUBJECT, delivery.subject());
    put(STREAM, &info.stream);
    put(SEQUENCE, &info.sequence.to_string());
    put(CONSUMER, consumer);
    put(DELIVERIES, &info.attempt.to_string());
    put(TIME, &jiff::Timestamp::now().to_string());
    Outgoing {
        subject: subject.to_owned(),
        headers,
        payload: delivery.payload().clone(),
        id: format!("{}:{}:{consumer}", info.stream, info.sequence),
    }
}

/// A dead letter as stored: why, where from, and the original message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeadLetter {
    /// Its position in the dead-letter stream (what `energy events dlq show` and `republish` take).
    pub sequence: u64,
    /// The subject it was stored under.
    pub dead_letter_subject: String,
    /// Why.
    pub cause: DeadLetterCause,
    /// The original's subject.
    pub subject: String,
    /// The original's stream and position in it.
    pub stream: String,
    /// The original's position in its stream.
    pub stream_sequence: u64,
    /// The consumer that dead-lettered it.
    pub consumer: String,
    /// How many times it had been delivered.
    pub deliveries: u64,
    /// When it was dead-lettered (RFC 3339).
    pub time: String,
    /// The original's headers (the dead-letter headers removed).
    pub headers: Headers,
    /// The original's body.
    pub payload: Bytes,
}

impl DeadLetter {
    /// Reads a stored dead letter; `None` when the message carries no dead-letter headers.
    pub fn read(
        sequence: u64,
        dead_letter_subject: &str,
        headers: &Headers,
        payload: Bytes,
    ) -> Option<Self> {
        let get = |name: &str| {
            headers
                .get(name)
                .map(|v| percent_decode(v).map_or_else(|_| v.to_owned(), |d| d.into_owned()))
        };
        let kind = get(KIND)?;
        let original: Headers = headers
            .iter()
            .filter(|(name, _)| !name.to_ascii_lowercase().starts_with(HEADER_PREFIX))
            .map(|(n, v)| (n.to_owned(), v.to_owned()))
            .collect();
        let number = |name: &str| get(name).and_then(|v| v.parse().ok()).unwrap_or(0);
        Some(DeadLetter {
            sequence,
            dead_letter_subject: dead_letter_subject.to_owned(),
            cause: DeadLetterCause {
                kind,
                path: get(PATH).unwrap_or_default(),
                message: get(MESSAGE).unwrap_or_default(),
            },
            subject: get(SUBJECT).unwrap_or_default(),
            stream: get(STREAM).unwrap_or_default(),
            stream_sequence: number(SEQUENCE),
            consumer: get(CONSUMER).unwrap_or_default(),
            deliveries: number(DELIVERIES),
            time: get(TIME).unwrap_or_default(),
            headers: original,
            payload,
        })
    }

    /// The original event's type, version and id, as far as its headers say.
    pub fn event(&self) -> (Option<String>, Option<String>, Option<String>) {
        if let Ok((incoming, _)) = super::content::read_message(&self.headers, &self.payload) {
            return (
                Some(incoming.event_type),
                Some(incoming.version),
                Some(incoming.id),
            );
        }
        let get = |name: &str| {
            self.headers
                .get(name)
                .and_then(|v| percent_decode(v).ok().map(|d| d.into_owned()))
        };
        (get("ce-type"), get("ce-dataversion"), get("ce-id"))
    }

    /// The original message, to publish again: to its subject, with its headers, under a new
    /// deduplication id (the original's id would be dropped as a duplicate within the broker's window).
    pub fn original(&self) -> Outgoing {
        let id = self.event().2.unwrap_or_default();
        Outgoing {
            subject: self.subject.clone(),
            headers: self.headers.clone(),
            payload: self.payload.clone(),
            id: format!("{id}:republished:{}", self.sequence),
        }
    }

    /// The original message, once it passes the checks a publisher makes (a newer catalogue may
    /// accept it now, or its consumer's handler was fixed): what `republish` sends again. One that is
    /// still invalid is an error naming the kind, path and message.
    pub fn republishable(&self) -> Result<Outgoing, BusError> {
        let original = self.original();
        let still = |e: EventError| {
            BusError::Invalid(format!(
                "dead letter {} still cannot be published: {} at `{}`: {}",
                self.sequence, e.kind, e.path, e.message
            ))
        };
        let (incoming, data) =
            super::content::read_message(&original.headers, &original.payload).map_err(still)?;
        crate::events::Decoder::new()
            .reject_unknown(true)
            .validate_parts(
                &incoming.event_type,
                &incoming.version,
                &original.payload[data],
            )
            .map_err(still)?;
        Ok(original)
    }
}
