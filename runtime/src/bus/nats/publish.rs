//! Publishing to JetStream: the [`Sink`] of the transport.

use super::Peer;
use crate::bus::headers::Headers;
use crate::bus::transport::{Outgoing, Receipt, Sink, TransportError, TransportErrorKind};
use async_nats::Client;
use async_nats::jetstream::{self};
use std::borrow::Cow;
use std::future::Future;

/// `headers` as the client's header map. The client panics on a header name it cannot send, and would
/// send a line break in a value as a second header: both are refused here instead. Each name is hashed
/// once (`insert`; `append` only for a name that repeats, which looks it up first); a static name (the
/// ones the bus writes) is taken as it is, not copied.
fn header_map(headers: &Headers) -> Result<async_nats::HeaderMap, TransportError> {
    let mut map = async_nats::HeaderMap::new();
    let pairs: Vec<(&Cow<'static, str>, &str)> = headers.entries().collect();
    for (i, (name, value)) in pairs.iter().enumerate() {
        if name.is_empty() || name.contains(|c: char| !c.is_ascii_graphic() || c == ':') {
            return Err(TransportError::new(
                TransportErrorKind::Rejected,
                format!("`{name}` cannot be a NATS header name (printable ASCII without `:`)"),
            ));
        }
        let header = match name {
            Cow::Borrowed(name) => async_nats::HeaderName::from_static(name),
            Cow::Owned(name) => name.parse().map_err(|_| {
                TransportError::new(
                    TransportErrorKind::Rejected,
                    format!("`{name}` cannot be a NATS header name"),
                )
            })?,
        };
        if value.contains(['\r', '\n']) {
            return Err(TransportError::new(
                TransportErrorKind::Rejected,
                format!("the value of header `{name}` holds a line break"),
            ));
        }
        if pairs[..i].iter().any(|(earlier, _)| earlier == name) {
            map.append(header, *value);
        } else {
            map.insert(header, *value);
        }
    }
    Ok(map)
}

/// Publishes to JetStream.
#[derive(Clone)]
pub struct NatsSink {
    pub(super) jetstream: jetstream::Context,
    pub(super) client: Client,
    pub(super) peer: Peer,
}

impl Sink for NatsSink {
    type Pending = std::pin::Pin<Box<dyn Future<Output = Result<Receipt, TransportError>> + Send>>;

    async fn send(&self, message: &Outgoing) -> Result<Self::Pending, TransportError> {
        let headers = header_map(&message.headers)?;
        let publish = jetstream::message::PublishMessage::build()
            .payload(message.payload.clone())
            .headers(headers)
            .message_id(&message.id);
        // A publish the user may not make is refused by the server beside the request, never answered:
        // heard here, it fails the publish at once, for good.
        // Only a refusal of this subject: others in flight at the same time are refused their own.
        let mut refused = self.peer.refusals.watch();
        let subject = async_nats::Subject::from(message.subject.as_str());
        let acknowledgement = self
            .jetstream
            .send_publish(subject.clone(), publish)
            .await
            .map_err(publish_error)?;
        // The wait starts now, not when the acknowledgement is first awaited: a publisher awaits its
        // acknowledgements one after the other, and those lost with a connection must all time out
        // together, not each after the one before it. (The client starts its timer at the first poll:
        // polled once here.)
        let mut acknowledgement = acknowledgement.into_future();
        let mut first = std::task::Context::from_waker(std::task::Waker::noop());
        let early = acknowledgement.as_mut().poll(&mut first);
        let peer = self.peer.clone();
        Ok(Box::pin(async move {
            let ack = match early {
                std::task::Poll::Ready(ack) => ack,
                std::task::Poll::Pending => tokio::select! {
                    ack = acknowledgement => ack,
                    refusal = refused.next_concerning(|refusal| refusal.concerns_publish_to(&subject)) => {
                        return Err(TransportError::new(
                            TransportErrorKind::Rejected,
                            peer.denied(refusal).to_string(),
                        ));
                    }
                },
            }
            .map_err(publish_error)?;
            Ok(Receipt {
                stream: ack.stream,
                sequence: ack.sequence,
                duplicate: ack.duplicate,
            })
        }))
    }

    async fn flush(&self) {
        if let Err(e) = self.client.flush().await {
            log::warn!("the connection could not be flushed: {e}");
        }
    }
}

fn publish_error(error: jetstream::context::PublishError) -> TransportError {
    use jetstream::context::PublishErrorKind as K;
    let kind = match error.kind() {
        K::TimedOut => TransportErrorKind::Timeout,
        K::MaxPayloadExceeded | K::WrongLastMessageId | K::WrongLastSequence => {
            TransportErrorKind::Rejected
        }
        // No stream (yet), a broken connection, a leader being elected: passing.
        K::StreamNotFound | K::BrokenPipe | K::MaxAckPending | K::Other => {
            TransportErrorKind::Unavailable
        }
    };
    let text = match error.kind() {
        K::StreamNotFound => {
            "no stream stores this subject (or no server answered): run `energy bus init`"
                .to_owned()
        }
        _ => error.to_string(),
    };
    TransportError::new(kind, text)
}
