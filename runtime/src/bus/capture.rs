//! Reading the events a broker stores back in order, to replay them byte for byte (`energy events
//! capture`): where a capture starts and ends ([`CaptureRange`]), and each message as read
//! ([`Captured`]). Every broker's capture hands over the same.

use super::consumer::Start;
use super::headers::Headers;
use bytes::Bytes;
use std::time::Duration;

/// One stored message, as a capture reads it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Captured {
    /// Its position in its stream (on Kafka, its offset in its partition).
    pub sequence: u64,
    /// Its subject.
    pub subject: String,
    /// Its headers, sorted by name.
    pub headers: Headers,
    /// Its body.
    pub payload: Bytes,
}

/// Where a capture starts, and when it ends.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CaptureRange {
    /// Subject filters; none for every event.
    pub filters: Vec<String>,
    /// Where to start.
    pub start: Start,
    /// Keep reading new messages once caught up, until stopped or idle.
    pub follow: bool,
    /// With `follow`, stop when nothing arrived for this long.
    pub idle_exit: Option<Duration>,
}
