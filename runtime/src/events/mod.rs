//! Platform events: decoding, validation and routing on top of the generated [`energy_api`] types.
//!
//! - [`Decoder`] reads the default JSON envelope `{"event_type": "...", "version": "v1", "payload": {...}}`
//!   (other top-level fields are kept as [`Metadata`]), an envelope with other field names
//!   ([`EnvelopeFields`]), or a type, version and payload carried apart ([`Decoder::decode_parts`]). A known
//!   type and version becomes a typed [`Event`](energy_api::Event); an unknown one a [`RawEvent`] that
//!   re-serialises unchanged, or an error if the caller says so. With the `borrowed` feature,
//!   [`Decoder::decode_borrowed`] reads the same events as borrowed views (`DecodedRef`), whose strings
//!   point into the line.
//! - [`EventError`] says which event, which field (a JSON path such as `payload.ledger.account.number`),
//!   and what was wrong ([`ErrorKind`]).
//! - [`Router`] sends events to handlers registered per type, version or version view.
//! - [`LineReader`] reads newline-delimited streams with a bounded buffer.

#[cfg(feature = "borrowed")]
mod borrowed;
mod decode;
mod envelope;
mod error;
mod fast;
mod lines;
mod router;
mod visit;

#[cfg(feature = "borrowed")]
pub use borrowed::{DecodedRef, KnownEventRef, MetadataRef, RawEventRef};
pub(crate) use decode::nests_too_deep;
pub use decode::{Checked, Decoder};
pub use envelope::{Decoded, EnvelopeFields, KnownEvent, Metadata, RawEvent, Unknown};
pub use error::{ErrorKind, EventError, EventErrorDetails};
pub use lines::{DEFAULT_MAX_LINE_BYTES, Line, LineReader};
pub use router::Router;
