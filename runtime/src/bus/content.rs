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
    read(headers, body, true)
}

/// [`read_message`] without building the envelope fields (its `metadata` left empty), checked all the
/// same: what a consumer needs to decode and route; a handler asks for the fields only when it needs
/// them ([`super::Context::metadata`]).
pub(crate) fn read_event(
    headers: &Headers,
    body: &[u8],
) -> Result<(Incoming, std::ops::Range<usize>), EventError> {
    read(headers, body, false)
}

fn read(
    headers: &Headers,
    body: &[u8],
    fields: bool,
) -> Result<(Incoming, std::ops::Range<usize>), EventError> {
    if structured::is_structured(headers) {
        structured::read_fields(headers, body, fields)
    } else {
        cloudevents::read_headers(headers, fields).map(|incoming| (incoming, 0..body.len()))
    }
}
