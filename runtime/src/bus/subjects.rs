//! Where events live on the bus: their subjects, the filters that select them, the streams that store
//! them, and where dead letters go; all from one configurable prefix (default `energy`) and the
//! catalogue (`energy_api::events::SECTIONS`), never typed by hand.

use energy_api::events::SECTIONS;
use energy_api_core::bus;

/// The names of one deployment's subjects and streams, from its prefix.
///
/// ```
/// use energy_runtime::bus::Subjects;
///
/// let subjects = Subjects::default();
/// assert_eq!(subjects.event("lifecycle.support-site.sale", "1.0.0"), "energy.lifecycle.support-site.sale.1_0_0");
/// assert_eq!(subjects.event_type("agreement.updated"), "energy.agreement.updated.*");
/// assert_eq!(subjects.events_stream(), "ENERGY_EVENTS");
/// assert_eq!(subjects.dead_letters_of("billing-service"), "energy_dead_letters.billing-service");
/// assert!(subjects.section("billing").unwrap().contains(&"energy.billing.final_bill.*".to_owned()));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Subjects {
    prefix: String,
}

impl Default for Subjects {
    fn default() -> Self {
        Subjects {
            prefix: bus::DEFAULT_PREFIX.to_owned(),
        }
    }
}

impl Subjects {
    /// Subjects under `prefix` (one or more tokens, such as `energy` or `acme.energy`).
    pub fn new(prefix: &str) -> Result<Self, String> {
        if let Some(why) = bus::literal_subject_error(prefix) {
            return Err(format!("`{prefix}` cannot be a subject prefix: {why}"));
        }
        if prefix.contains(['/', '\\']) {
            return Err(format!(
                "`{prefix}` cannot be a subject prefix: stream names are made from it, and cannot hold `/` or `\\`"
            ));
        }
        Ok(Subjects {
            prefix: prefix.to_owned(),
        })
    }

    /// The prefix.
    pub fn prefix(&self) -> &str {
        &self.prefix
    }

    /// The subject of one event: `<prefix>.<event type>.<version>`, a `.` in the version written `_`.
    pub fn event(&self, event_type: &str, version: &str) -> String {
        bus::event_subject(&self.prefix, event_type, version)
    }

    /// The filter selecting every version of an event type: `<prefix>.<event type>.*`.
    pub fn event_type(&self, event_type: &str) -> String {
        bus::type_filter(&self.prefix, event_type)
    }

    /// The filters selecting every event of a catalogue section (by its feature name, `billing`), former
    /// names of renamed event types included; `None` for a name that is not a section.
    pub fn section(&self, name: &str) -> Option<Vec<String>> {
        let section = SECTIONS.iter().find(|s| s.name == name)?;
        Some(
            section
                .event_types
                .iter()
                .chain(section.former_event_types)
                .map(|t| self.event_type(t))
                .collect(),
        )
    }

    /// The names of the catalogue's sections.
    pub fn section_names() -> impl Iterator<Item = &'static str> {
        SECTIONS.iter().map(|s| s.name)
    }

    /// The filter of every event type in the catalogue, sorted: the subjects of the events stream.
    pub fn catalogue(&self) -> Vec<String> {
        let mut filters: Vec<String> = SECTIONS
            .iter()
            .flat_map(|s| s.event_types.iter().chain(s.former_event_types))
            .map(|t| self.event_type(t))
            .collect();
        filters.sort();
        filters.dedup();
        filters
    }

    /// The stream storing the events: the prefix in capitals, `.` and `-` as `_`, then `_EVENTS`.
    pub fn events_stream(&self) -> String {
        format!("{}_EVENTS", self.stream_stem())
    }

    /// The stream storing dead letters: `<PREFIX>_DEAD_LETTERS`.
    pub fn dead_letter_stream(&self) -> String {
        format!("{}_DEAD_LETTERS", self.stream_stem())
    }

    /// The root of every dead-letter subject: `<prefix>_dead_letters` (the dead-letter stream stores
    /// `<root>.>`); outside the events' subjects, so that no event filter selects a dead letter.
    pub fn dead_letter_root(&self) -> String {
        format!("{}_dead_letters", self.prefix)
    }

    /// The default dead-letter subject of a durable consumer: `<root>.<durable>`.
    pub fn dead_letters_of(&self, durable: &str) -> String {
        format!("{}.{durable}", self.dead_letter_root())
    }

    fn stream_stem(&self) -> String {
        self.prefix
            .chars()
            .map(|c| match c {
                '.' | '-' => '_',
                c => c.to_ascii_uppercase(),
            })
            .collect()
    }
}

/// Why `name` cannot name a durable consumer (NATS refuses `.`, `*`, `>`, whitespace and path
/// separators in names), if it cannot.
pub fn durable_name_error(name: &str) -> Option<String> {
    if name.is_empty() {
        return Some("a durable consumer name cannot be empty".to_owned());
    }
    if name
        .chars()
        .any(|c| matches!(c, '.' | '*' | '>' | '/' | '\\') || c.is_whitespace() || c.is_control())
    {
        return Some(format!(
            "`{name}` cannot name a durable consumer: no `.`, `*`, `>`, `/`, `\\` or whitespace"
        ));
    }
    None
}

/// Whether the subject filter `filter` matches `subject` (`*` one token, `>` the rest, as NATS reads
/// filters on every broker); a `*` token of `subject` stands for any token (a version not known yet).
pub fn may_match(filter: &str, subject: &str) -> bool {
    let mut filter = filter.split('.');
    let mut subject = subject.split('.');
    loop {
        match (filter.next(), subject.next()) {
            (Some(">"), Some(_)) => return true,
            (Some(f), Some(s)) if f == "*" || s == "*" || f == s => {}
            (None, None) => return true,
            _ => return false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn filters_match_as_on_nats() {
        assert!(may_match("energy.a.b.*", "energy.a.b.v1"));
        assert!(may_match("energy.>", "energy.a.b.v1"));
        assert!(may_match("energy.a.b.v2", "energy.a.b.*"));
        assert!(!may_match("energy.a.b.v2", "energy.a.b.v1"));
        assert!(!may_match("energy.a", "energy.a.b.v1"));
    }

    #[test]
    fn every_event_type_of_the_catalogue_has_one_filter() {
        let filters = Subjects::default().catalogue();
        assert_eq!(filters.len(), 274);
        assert!(
            filters
                .iter()
                .all(|f| f.starts_with("energy.") && f.ends_with(".*"))
        );
        let sections: usize = Subjects::section_names()
            .map(|name| Subjects::default().section(name).unwrap().len())
            .sum();
        assert_eq!(sections, 274);
        assert_eq!(Subjects::default().section("no-such-section"), None);
    }

    #[test]
    fn prefixes_make_stream_names_and_are_checked() {
        let subjects = Subjects::new("acme.energy-events").unwrap();
        assert_eq!(subjects.events_stream(), "ACME_ENERGY_EVENTS_EVENTS");
        assert_eq!(
            subjects.dead_letter_root(),
            "acme.energy-events_dead_letters"
        );
        assert_eq!(
            subjects.event("agreement.updated", "v2"),
            "acme.energy-events.agreement.updated.v2"
        );
        for bad in ["", "a..b", "energy.>", "a b", "a/b"] {
            assert!(Subjects::new(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn durable_names_are_checked() {
        assert_eq!(durable_name_error("billing-service_2"), None);
        for bad in ["", "a.b", "a b", "a*", "a>"] {
            assert!(durable_name_error(bad).is_some(), "{bad:?}");
        }
    }
}
