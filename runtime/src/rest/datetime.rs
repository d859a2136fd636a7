//! Date-time parameters: an instant, or a civil date-time read in `Europe/London`.
//!
//! The API reads a date-time without an offset in `Europe/London`. A client never leaves that to the
//! server: it resolves civil date-times itself and always sends an instant in UTC (`...Z`), so the
//! request means the same thing whatever the server's rules.
//!
//! # The rule for clock changes
//!
//! A civil date-time is resolved with the *compatible* rule (RFC 5545's, and Temporal's default;
//! jiff's [`Disambiguation::Compatible`](jiff::tz::Disambiguation::Compatible)):
//!
//! - **Gap** (spring forward, the last Sunday of March: 01:00 GMT becomes 02:00 BST): a time in the
//!   missing hour is moved forward by the gap's length; `2024-03-31T01:30` is `02:30 BST`, sent as
//!   `2024-03-31T01:30:00Z`.
//! - **Fold** (fall back, the last Sunday of October: 02:00 BST becomes 01:00 GMT): a time in the
//!   repeated hour means its first occurrence, in BST; `2024-10-27T01:30` is sent as
//!   `2024-10-27T00:30:00Z`. For the second occurrence give the offset: `2024-10-27T01:30+00:00`.
//!
//! So a period given as civil times of one day stays one contiguous period: from midnight to midnight
//! on 31 March 2024 is 23 hours, on 27 October 2024 25 hours. [`DateTimeParam::clock_change_note`]
//! says when a value fell in a gap or a fold, so a tool can tell its user.

use std::fmt;
use std::str::FromStr;

use energy_api::rest::datetime::{ClockChange, DateTimeText};
use jiff::Timestamp;
use jiff::civil;
use jiff::tz::TimeZone;

use super::Error;

/// The time zone the API assumes for a date-time without an offset.
pub use energy_api::rest::datetime::LONDON;

/// A date-time parameter (`period_from`, `period_to`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DateTimeParam {
    /// An instant, sent as it is (in UTC, with `Z`).
    Instant(Timestamp),
    /// A civil date-time, read in `Europe/London` by the rule of this module.
    London(civil::DateTime),
}

impl DateTimeParam {
    /// Parses a date-time as a person types it:
    ///
    /// - with an offset or `Z` (`2024-03-31T01:30Z`, `2024-03-31T02:30:00+01:00`): an instant;
    /// - with a bracketed time zone (`2024-03-31T02:30[Europe/London]`): an instant in that zone;
    /// - without one (`2024-03-31T01:30`, `2024-03-31 01:30:00`): a civil date-time in `Europe/London`;
    /// - a date alone (`2024-03-31`): midnight of that date in `Europe/London`.
    pub fn parse(input: &str) -> Result<Self, Error> {
        match energy_api::rest::datetime::parse(input) {
            Ok(DateTimeText::Instant(instant)) => Ok(Self::Instant(instant)),
            Ok(DateTimeText::London(civil)) => Ok(Self::London(civil)),
            Err(reason) => Err(Error::InvalidDateTime {
                input: input.to_owned(),
                reason,
            }),
        }
    }

    /// The instant this parameter stands for; a civil date-time is resolved in `Europe/London`.
    pub fn to_timestamp(&self) -> Result<Timestamp, Error> {
        self.text()
            .to_timestamp()
            .map_err(|reason| Error::InvalidDateTime {
                input: self.to_string(),
                reason,
            })
    }

    fn text(&self) -> DateTimeText {
        match self {
            Self::Instant(instant) => DateTimeText::Instant(*instant),
            Self::London(civil) => DateTimeText::London(*civil),
        }
    }

    /// When a civil date-time falls in the spring-forward gap or the autumn fold, a sentence saying
    /// how it was resolved; `None` otherwise.
    pub fn clock_change_note(&self) -> Option<String> {
        let Self::London(civil) = self else {
            return None;
        };
        let zone = london().ok()?;
        let instant = self.to_timestamp().ok()?;
        let sent = instant.to_zoned(zone.clone());
        match self.text().clock_change() {
            ClockChange::None => None,
            ClockChange::Gap => Some(format!(
                "{civil} does not exist in {LONDON} (the clocks go forward); using {} ({instant})",
                sent.strftime("%H:%M %Z")
            )),
            ClockChange::Fold { second } => Some(format!(
                "{civil} happens twice in {LONDON} (the clocks go back); using the first, {} \
                 ({instant}); write {}{} for the second",
                sent.strftime("%H:%M %Z"),
                civil.strftime("%Y-%m-%dT%H:%M"),
                second
            )),
        }
    }
}

impl FromStr for DateTimeParam {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self, Error> {
        Self::parse(s)
    }
}

impl From<Timestamp> for DateTimeParam {
    fn from(instant: Timestamp) -> Self {
        Self::Instant(instant)
    }
}

impl From<civil::DateTime> for DateTimeParam {
    fn from(civil: civil::DateTime) -> Self {
        Self::London(civil)
    }
}

impl From<civil::Date> for DateTimeParam {
    fn from(date: civil::Date) -> Self {
        Self::London(date.to_datetime(civil::Time::midnight()))
    }
}

impl fmt::Display for DateTimeParam {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Instant(instant) => write!(f, "{instant}"),
            Self::London(civil) => write!(f, "{civil} ({LONDON})"),
        }
    }
}

/// The `Europe/London` time zone, from the system database or the copy bundled into the binary.
pub fn london() -> Result<TimeZone, Error> {
    energy_api::rest::datetime::london().map_err(|reason| Error::InvalidDateTime {
        input: LONDON.to_owned(),
        reason,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sent(input: &str) -> String {
        DateTimeParam::parse(input)
            .and_then(|p| p.to_timestamp())
            .unwrap_or_else(|e| panic!("{input}: {e}"))
            .to_string()
    }

    #[test]
    fn instants_keep_their_offset() {
        assert_eq!(sent("2024-03-31T01:30Z"), "2024-03-31T01:30:00Z");
        assert_eq!(sent("2024-03-31T02:30:00+01:00"), "2024-03-31T01:30:00Z");
        assert_eq!(sent("2024-07-01T12:00:00-05:00"), "2024-07-01T17:00:00Z");
        assert_eq!(
            sent("2024-03-31T02:30[Europe/London]"),
            "2024-03-31T01:30:00Z"
        );
    }

    #[test]
    fn civil_times_are_london_time_in_winter_and_summer() {
        assert_eq!(sent("2024-01-15T09:00"), "2024-01-15T09:00:00Z");
        assert_eq!(sent("2024-07-15T09:00"), "2024-07-15T08:00:00Z");
        assert_eq!(sent("2024-07-15 09:00:00"), "2024-07-15T08:00:00Z");
        assert_eq!(sent("2024-07-15"), "2024-07-14T23:00:00Z");
    }

    #[test]
    fn spring_forward_day_has_23_hours_and_the_gap_moves_forward() {
        assert_eq!(sent("2024-03-31"), "2024-03-31T00:00:00Z");
        assert_eq!(sent("2024-04-01"), "2024-03-31T23:00:00Z");
        assert_eq!(sent("2024-03-31T00:59"), "2024-03-31T00:59:00Z");
        // 01:00 to 01:59 do not exist: moved forward by one hour (01:30 GMT is 02:30 BST).
        assert_eq!(sent("2024-03-31T01:00"), "2024-03-31T01:00:00Z");
        assert_eq!(sent("2024-03-31T01:30"), "2024-03-31T01:30:00Z");
        assert_eq!(sent("2024-03-31T02:00"), "2024-03-31T01:00:00Z");
        let note = DateTimeParam::parse("2024-03-31T01:30")
            .expect("parse")
            .clock_change_note()
            .expect("a gap note");
        assert!(
            note.contains("does not exist") && note.contains("02:30 BST"),
            "{note}"
        );
    }

    #[test]
    fn fall_back_day_has_25_hours_and_the_fold_takes_the_first() {
        assert_eq!(sent("2024-10-27"), "2024-10-26T23:00:00Z");
        assert_eq!(sent("2024-10-28"), "2024-10-28T00:00:00Z");
        // 01:00 to 01:59 happen twice: the first (BST) is taken.
        assert_eq!(sent("2024-10-27T01:30"), "2024-10-27T00:30:00Z");
        assert_eq!(sent("2024-10-27T01:30+00:00"), "2024-10-27T01:30:00Z");
        assert_eq!(sent("2024-10-27T02:00"), "2024-10-27T02:00:00Z");
        let note = DateTimeParam::parse("2024-10-27T01:30")
            .expect("parse")
            .clock_change_note()
            .expect("a fold note");
        assert!(
            note.contains("happens twice") && note.contains("2024-10-27T01:30+00"),
            "{note}"
        );
        let plain = DateTimeParam::parse("2024-10-27T03:30").expect("parse");
        assert_eq!(plain.clock_change_note(), None);
    }

    #[test]
    fn bad_input_says_what_is_expected() {
        for input in [
            "tomorrow",
            "2024-02-30T00:00",
            "2024-13-01",
            "2024-03-31T25:00Z",
        ] {
            let error = DateTimeParam::parse(input).expect_err(input).to_string();
            assert!(error.contains(input), "{error}");
        }
    }
}
