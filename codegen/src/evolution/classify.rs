//! Every payload version of an event type against every earlier one: which readers read which payloads.
//! The documents publish the table (AsyncAPI message descriptions, `COMPATIBILITY.md`, the docs site).

use super::diff::compare_payloads;
use super::finding::{Finding, Verdict};
use crate::model::{EventType, EventVersion, Model};

/// Which readers of two versions read each other's payloads, as schema registries name it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Compatibility {
    /// Readers of either version read payloads of both.
    Full,
    /// Readers of the newer version read payloads of the older (not the reverse).
    Backward,
    /// Readers of the older version read payloads of the newer (not the reverse).
    Forward,
    /// Neither reads the other's payloads.
    None,
}

impl Compatibility {
    /// `full`, `backward`, `forward`, `none`.
    pub fn as_str(self) -> &'static str {
        match self {
            Compatibility::Full => "full",
            Compatibility::Backward => "backward",
            Compatibility::Forward => "forward",
            Compatibility::None => "none",
        }
    }
}

/// An older and a newer version of one event type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VersionPair {
    /// The older version's label.
    pub older: String,
    /// The newer version's label.
    pub newer: String,
    /// How they relate.
    pub compatibility: Compatibility,
    /// Why a reader of the older version rejects payloads of the newer, when it does: the field and the
    /// decoder's words (`account_number: missing field`).
    pub older_reader_rejects: Option<String>,
    /// Why a reader of the newer version rejects payloads of the older, when it does.
    pub newer_reader_rejects: Option<String>,
}

/// Every pair of versions of `event`, newest first, then the earlier version newest first.
pub fn classify(model: &Model, event: &EventType) -> Vec<VersionPair> {
    let mut pairs = Vec::new();
    for (n, newer) in event.versions.iter().enumerate().rev() {
        for older in event.versions[..n].iter().rev() {
            pairs.push(compare_versions(model, older, newer));
        }
    }
    pairs
}

/// How `newer` relates to `older`, two versions of one event type of `model`.
fn compare_versions(model: &Model, older: &EventVersion, newer: &EventVersion) -> VersionPair {
    let findings = compare_payloads(model, &older.payload, &newer.payload);
    let first = |pick: fn(&Finding) -> &Verdict| {
        findings.iter().find_map(|f| match pick(f) {
            Verdict::Reads => None,
            Verdict::Rejects(why) if f.path.is_empty() => Some(why.clone()),
            Verdict::Rejects(why) => Some(format!("`{}`: {why}", f.path)),
        })
    };
    let older_reader_rejects = first(|f| &f.forward);
    let newer_reader_rejects = first(|f| &f.backward);
    let compatibility = match (&older_reader_rejects, &newer_reader_rejects) {
        (None, None) => Compatibility::Full,
        (Some(_), None) => Compatibility::Backward,
        (None, Some(_)) => Compatibility::Forward,
        (Some(_), Some(_)) => Compatibility::None,
    };
    VersionPair {
        older: older.label.clone(),
        newer: newer.label.clone(),
        compatibility,
        older_reader_rejects,
        newer_reader_rejects,
    }
}
