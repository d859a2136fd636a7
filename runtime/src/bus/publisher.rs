//! [`Publisher`]: validates each event against the catalogue, writes it as a CloudEvent, publishes it and
//! waits for the broker to have stored it, retrying what failed for a passing reason with the same id.

use super::cloudevents::{self, Defaults};
use super::content::ContentMode;
use super::subjects::Subjects;
use super::trace;
use super::transport::{Outgoing, Receipt, Sink, TransportError};
use crate::events::{Checked, Decoder, EventError, Metadata};
use energy_api::Event;
use energy_api::events::JSON_SCHEMA_ID_BASE;
use futures_util::StreamExt;
use futures_util::future::Either;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Why an event was not published.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PublishError {
    /// The event is not valid (or of an unknown type or version): it was not sent. The error is the
    /// one `energy events validate` reports, with the JSON path of the fault.
    #[error("not published: {0}")]
    Invalid(EventError),
    /// The broker did not store it, after `attempts` tries over the retry policy's time.
    #[error("not published after {attempts} attempts: {error}")]
    Transport {
        /// The last failure.
        error: TransportError,
        /// How many times it was sent.
        attempts: u32,
    },
}

/// How long, and how often, to try again a publish that failed for a passing reason (the broker
/// restarting, a leader being elected, a timeout). Every try carries the same id, so the broker stores
/// the event once however many tries it took.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PublishRetry {
    /// Give up when this much time has passed since the first try.
    pub deadline: Duration,
    /// The first wait between tries; each next one doubles, up to `max_delay`.
    pub first_delay: Duration,
    /// The longest wait between tries.
    pub max_delay: Duration,
}

impl Default for PublishRetry {
    /// One minute, waiting 100 ms, then 200 ms, … up to 2 s between tries.
    fn default() -> Self {
        PublishRetry {
            deadline: Duration::from_secs(60),
            first_delay: Duration::from_millis(100),
            max_delay: Duration::from_secs(2),
        }
    }
}

/// Publishes events to the bus.
///
/// Nothing invalid reaches the bus: every payload is checked against the catalogue first (an unknown
/// type or version is refused too: it cannot be checked). Each event becomes a CloudEvent in binary mode
/// ([`super::cloudevents`]) on its subject ([`Subjects::event`]), with the broker's deduplication id set
/// from its `ce-id`, and each publish resolves only once the broker has stored it.
#[derive(Clone)]
pub struct Publisher<S> {
    sink: S,
    subjects: Subjects,
    source: Arc<str>,
    retry: PublishRetry,
    decoder: Decoder,
    mode: ContentMode,
}

/// One event to publish: type, version, payload bytes (sent exactly as given) and envelope fields
/// (`id`, `source`, `time`, …; see [`super::cloudevents`]).
#[derive(Debug, Clone)]
pub struct Draft {
    /// The event type.
    pub event_type: String,
    /// The payload version.
    pub version: String,
    /// The payload's JSON text.
    pub payload: bytes::Bytes,
    /// The envelope's other fields.
    pub metadata: Metadata,
}

impl<S: Sink> Publisher<S> {
    /// A publisher on `sink`, under `subjects`, with the default source (`/energy-platform`) and retry
    /// policy.
    pub fn new(sink: S, subjects: Subjects) -> Self {
        Publisher {
            sink,
            subjects,
            source: Arc::from(cloudevents::DEFAULT_SOURCE),
            retry: PublishRetry::default(),
            decoder: Decoder::new().reject_unknown(true),
            mode: ContentMode::Binary,
        }
    }

    /// Writes events in this content mode (binary by default; structured puts the attributes and the
    /// payload in one JSON body, see [`super::structured`]).
    pub fn with_mode(mut self, mode: ContentMode) -> Self {
        self.mode = mode;
        self
    }

    /// The `ce-source` of events whose envelope names none.
    pub fn with_source(mut self, source: &str) -> Self {
        self.source = Arc::from(source);
        self
    }

    /// How long and how often to try again.
    pub fn with_retry(mut self, retry: PublishRetry) -> Self {
        self.retry = retry;
        self
    }

    /// The subjects it publishes to.
    pub fn subjects(&self) -> &Subjects {
        &self.subjects
    }

    /// Publishes a typed event (a new id, the current time).
    pub async fn publish(&self, event: &Event) -> Result<Receipt, PublishError> {
        self.publish_with(event, &Metadata::new()).await
    }

    /// Publishes a typed event with envelope fields (`id`, `source`, `time`, …).
    pub async fn publish_with(
        &self,
        event: &Event,
        metadata: &Metadata,
    ) -> Result<Receipt, PublishError> {
        let draft = Draft {
            event_type: event.event_type().as_str().to_owned(),
            version: event.version().to_owned(),
            payload: event.to_payload_json().into(),
            metadata: metadata.clone(),
        };
        self.publish_draft(draft).await
    }

    /// Publishes a payload given as bytes, after checking it.
    pub async fn publish_draft(&self, draft: Draft) -> Result<Receipt, PublishError> {
        let message = self.prepare(&draft).map_err(PublishError::Invalid)?;
        self.send(message).await
    }

    /// Checks a draft and makes its message, without sending it: the error is the one `energy events
    /// validate` reports for the same event.
    pub fn prepare(&self, draft: &Draft) -> Result<Outgoing, EventError> {
        let (event_type, version) = (draft.event_type.as_str(), draft.version.as_str());
        match self
            .decoder
            .validate_parts(event_type, version, &draft.payload)?
        {
            Checked::Known(_) => {}
            // `reject_unknown` makes these errors; kept exhaustive for safety.
            Checked::Unknown { .. } => {
                return Err(EventError::new(
                    crate::events::ErrorKind::UnknownEventType,
                    "event_type",
                    format!("unknown event type or version `{event_type}` `{version}`"),
                ));
            }
        }
        let defaults = Defaults {
            source: &self.source,
            data_schema: Some(data_schema(event_type, version)),
        };
        let (id, mut headers) =
            cloudevents::to_headers(event_type, version, &draft.metadata, defaults)
                .map_err(|e| e.of(Some(event_type), Some(version)))?;
        let subject = self.subjects.event(event_type, version);
        // The event's trace context: its own when it carries one (a captured line published again),
        // else the caller's current span's.
        if !trace::carries_context(&headers) {
            trace::inject(&tracing::Span::current(), &mut headers);
        }
        let (headers, payload) = match self.mode {
            ContentMode::Binary => (headers, draft.payload.clone()),
            ContentMode::Structured => {
                let (headers, body) = super::structured::to_structured(&headers, &draft.payload)
                    .map_err(|e| e.of(Some(event_type), Some(version)))?;
                (headers, body.into())
            }
        };
        Ok(Outgoing {
            subject,
            headers,
            payload,
            id,
        })
    }

    /// Sends a prepared message, trying again (with the same id) while the failure is a passing one
    /// and the retry policy's time lasts.
    pub async fn send(&self, message: Outgoing) -> Result<Receipt, PublishError> {
        send_with_retry(&self.sink, message, self.retry).await
    }

    /// Publishes many prepared messages, each tagged by the caller (a line number, say): sent in their
    /// order (so the broker stores them in that order, but for one that had to be sent again), with at
    /// most `in_flight` awaiting the broker's acknowledgement at once. `each` hears of every result in
    /// the order of the input, and stops the publishing by returning `false` (what was sent by then is
    /// still awaited, and reported).
    pub async fn send_ordered<T, I>(
        &self,
        messages: I,
        in_flight: usize,
        mut each: impl FnMut(T, Result<Receipt, PublishError>) -> bool,
    ) where
        I: futures_util::Stream<Item = (T, Outgoing)>,
    {
        type Acknowledgement = std::pin::Pin<
            Box<dyn std::future::Future<Output = Result<Receipt, TransportError>> + Send>,
        >;
        let in_flight = in_flight.max(1);
        let mut messages = std::pin::pin!(messages);
        let mut pending: std::collections::VecDeque<(T, Outgoing, Acknowledgement)> =
            std::collections::VecDeque::new();
        let (mut input_done, mut stopping) = (false, false);
        loop {
            let room = pending.len() < in_flight && !input_done && !stopping;
            let next = match pending.front_mut() {
                None if !room => return,
                None => Either::Left(messages.next().await),
                Some((_, _, acknowledgement)) if room => tokio::select! {
                    biased;
                    result = acknowledgement.as_mut() => Either::Right(result),
                    item = messages.next() => Either::Left(item),
                },
                Some((_, _, acknowledgement)) => Either::Right(acknowledgement.as_mut().await),
            };
            match next {
                Either::Left(Some((tag, message))) => {
                    let acknowledgement: Acknowledgement = match self.sink.send(&message).await {
                        Ok(ack) => Box::pin(ack),
                        Err(error) => Box::pin(std::future::ready(Err(error))),
                    };
                    pending.push_back((tag, message, acknowledgement));
                }
                Either::Left(None) => input_done = true,
                Either::Right(result) => {
                    let Some((tag, message, _)) = pending.pop_front() else {
                        return;
                    };
                    let result = match result {
                        Ok(receipt) => Ok(receipt),
                        Err(error) if error.is_transient() => {
                            send_with_retry(&self.sink, message, self.retry).await
                        }
                        Err(error) => Err(PublishError::Transport { error, attempts: 1 }),
                    };
                    if !each(tag, result) {
                        stopping = true;
                    }
                }
            }
        }
    }
}

/// The `$id` of a version's JSON Schema: `<base>events/<type>.<version>.json`.
fn data_schema(event_type: &str, version: &str) -> String {
    let path = energy_api_core::bus::event_schema_path(event_type, version);
    let mut id = String::with_capacity(JSON_SCHEMA_ID_BASE.len() + path.len());
    id.push_str(JSON_SCHEMA_ID_BASE);
    id.push_str(&path);
    id
}

/// Sends `message` on `sink`, retrying passing failures under `retry`.
pub(crate) async fn send_with_retry<S: Sink>(
    sink: &S,
    message: Outgoing,
    retry: PublishRetry,
) -> Result<Receipt, PublishError> {
    let started = Instant::now();
    let mut delay = retry.first_delay;
    let mut attempts = 0u32;
    loop {
        attempts += 1;
        match sink.publish(&message).await {
            Ok(receipt) => return Ok(receipt),
            Err(error) if error.is_transient() && started.elapsed() + delay < retry.deadline => {
                log::debug!(
                    "publish of {} to {} failed ({error}); trying again in {delay:?}",
                    message.id,
                    message.subject
                );
                tokio::time::sleep(delay).await;
                delay = (delay * 2).min(retry.max_delay);
            }
            Err(error) => return Err(PublishError::Transport { error, attempts }),
        }
    }
}
