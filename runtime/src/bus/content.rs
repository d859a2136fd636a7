//! The two content modes of CloudEvents on the bus, and reading a message in either: binary mode
//! ([`super::cloudevents`]: attributes as `ce-` headers, the payload as the body) and structured mode
//! ([`super::structured`]: one JSON body).

use super::cloudevents::{self, Incoming};
use super::headers::Headers;
use super::structured;
use crate::events::EventError;

/// How an event is written on the bus.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ContentMode {
    /// Attributes as `ce-` headers, the payload as the body (the default).
    #[default]
    Binary,
    /// Attributes and payload as one JSON object in the body.
    Structured,
}

/// Reads the event of a message in either content mode (structured when its content type says so, else
/// binary): its attributes, and where its payload lies in `body`.
pub fn read_message(
    headers: &Headers,
    body: &[u8],
) -> Result<(Incoming, std::ops::Range<usize>), EventError> {
    if structured::is_structured(headers) {
        structured::read(headers, body)
    } else {
        cloudevents::from_headers(headers).map(|incoming| (incoming, 0..body.len()))
    }
}
