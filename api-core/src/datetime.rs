//! Date-time parameters as the API reads them (`period_from`, `period_to`): an instant, or a civil
//! date-time in `Europe/London`. One implementation for both sides: the client resolves what its user
//! typed with it before sending, and a server reads what a client sent with it.
//!
//! # The rule for clock changes
//!
//! A civil date-time is resolved with the *compatible* rule (RFC 5545's, and Temporal's default;
//! jiff's [`Disambiguation::Compatible`](jiff::tz::Disambiguation::Compatible)):
//!
//! - **Gap** (spring forward, the last Sunday of March: 01:00 GMT becomes 02:00 BST): a time in the
//!   missing hour is moved forward by the gap's length; `2024-03-31T01:30` is `02:30 BST`,
//!   `2024-03-31T01:30:00Z`.
//! - **Fold** (fall back, the last Sunday of October: 02:00 BST becomes 01:00 GMT): a time in the
//!   repeated hour means its first occurrence, in BST; `2024-10-27T01:30` is `2024-10-27T00:30:00Z`.
//!   For the second occurrence give the offset: `2024-10-27T01:30+00:00`.

use jiff::civil;
use jiff::tz::{AmbiguousOffset, TimeZone};
use jiff::{Timestamp, Zoned};

/// The time zone the API assumes for a date-time without an offset.
pub const LONDON: &str = "Europe/London";

/// A date-time as written: an instant, or a civil date-time to be read in `Europe/London`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DateTimeText {
    /// With an offset, `Z` or a bracketed time zone: an instant.
    Instant(Timestamp),
    /// Without one: a civil date-time in `Europe/London`.
    London(civil::DateTime),
}

/// Reads a date-time as a person or a client writes it:
///
/// - with an offset or `Z` (`2024-03-31T01:30Z`, `2024-03-31T02:30:00+01:00`): an instant;
/// - with a bracketed time zone (`2024-03-31T02:30[Europe/London]`): an instant in that zone;
/// - without one (`2024-03-31T01:30`, `2024-03-31 01:30:00`): a civil date-time in `Europe/London`;
/// - a date alone (`2024-03-31`): midnight of that date in `Europe/London`.
///
/// The error says why, in a sentence without the input (the caller names it).
pub fn parse(input: &str) -> Result<DateTimeText, String> {
    let text = input.trim();
    if text.contains('[') {
        return text
            .parse::<Zoned>()
            .map(|zoned| DateTimeText::Instant(zoned.timestamp()))
            .map_err(|e| e.to_string());
    }
    if let Ok(instant) = text.parse::<Timestamp>() {
        return Ok(DateTimeText::Instant(instant));
    }
    if has_offset(text) {
        // An offset that did not parse as an instant: say why, rather than dropping the offset.
        return text
            .parse::<Timestamp>()
            .map(DateTimeText::Instant)
            .map_err(|e| e.to_string());
    }
    if let Ok(civil) = text.parse::<civil::DateTime>() {
        return Ok(DateTimeText::London(civil));
    }
    if let Ok(date) = text.parse::<civil::Date>() {
        return Ok(DateTimeText::London(
            date.to_datetime(civil::Time::midnight()),
        ));
    }
    Err(
        "expected an ISO 8601 date-time such as 2024-03-31T01:30Z, 2024-03-31T01:30 \
         (Europe/London) or a date such as 2024-03-31"
            .to_owned(),
    )
}

impl DateTimeText {
    /// The instant it stands for; a civil date-time is resolved in `Europe/London` by the rule of
    /// this module.
    pub fn to_timestamp(&self) -> Result<Timestamp, String> {
        match self {
            Self::Instant(instant) => Ok(*instant),
            Self::London(civil) => london()?
                .to_ambiguous_timestamp(*civil)
                .compatible()
                .map_err(|e| e.to_string()),
        }
    }

    /// How a civil date-time meets a clock change: not at all, in the spring gap, or in the
    /// autumn fold.
    pub fn clock_change(&self) -> ClockChange {
        let Self::London(civil) = self else {
            return ClockChange::None;
        };
        let Ok(zone) = london() else {
            return ClockChange::None;
        };
        match zone.to_ambiguous_timestamp(*civil).offset() {
            AmbiguousOffset::Unambiguous { .. } => ClockChange::None,
            AmbiguousOffset::Gap { .. } => ClockChange::Gap,
            AmbiguousOffset::Fold { after, .. } => ClockChange::Fold { second: after },
        }
    }
}

/// How a civil date-time in `Europe/London` meets a clock change.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ClockChange {
    /// It happens once.
    None,
    /// It does not exist (the clocks go forward): moved forward by the gap.
    Gap,
    /// It happens twice (the clocks go back): the first is taken; `second` is the offset of the other.
    Fold {
        /// The offset of the second occurrence (`+00`).
        second: jiff::tz::Offset,
    },
}

/// The `Europe/London` time zone, from the system database or a copy bundled into the binary.
pub fn london() -> Result<TimeZone, String> {
    jiff::tz::db()
        .get(LONDON)
        .map_err(|e| format!("cannot load the {LONDON} time zone: {e}"))
}

/// Whether the text ends with an offset (`Z`, `+01:00`, `-0500`) after its time part.
fn has_offset(text: &str) -> bool {
    let Some((_, time)) = text.split_once(['T', 't', ' ']) else {
        return false;
    };
    time.ends_with(['Z', 'z']) || time.contains(['+', '-'])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn instant(input: &str) -> String {
        parse(input)
            .and_then(|p| p.to_timestamp())
            .unwrap_or_else(|e| panic!("{input}: {e}"))
            .to_string()
    }

    #[test]
    fn both_sides_read_the_same_instant() {
        assert_eq!(instant("2024-03-31T01:30Z"), "2024-03-31T01:30:00Z");
        assert_eq!(instant("2024-07-15T09:00"), "2024-07-15T08:00:00Z");
        assert_eq!(instant("2024-03-31T01:30"), "2024-03-31T01:30:00Z");
        assert_eq!(instant("2024-10-27T01:30"), "2024-10-27T00:30:00Z");
        assert_eq!(instant("2024-10-27T01:30+00:00"), "2024-10-27T01:30:00Z");
        assert_eq!(
            parse("2024-03-31T01:30").map(|p| p.clock_change()),
            Ok(ClockChange::Gap)
        );
        assert!(matches!(
            parse("2024-10-27T01:30").map(|p| p.clock_change()),
            Ok(ClockChange::Fold { .. })
        ));
        assert!(parse("2024-02-30T00:00").is_err());
        assert!(parse("2024-03-31T01:30+1").is_err());
    }
}
