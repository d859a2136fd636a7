//! What an event bus needs to know of the catalogue, decided once for the generator (which writes the
//! AsyncAPI channel addresses and checks the names) and the runtime (which publishes and subscribes):
//! the subject of every event, the filters that select them, and the JSON Schema of every version.
//!
//! Subjects are `<prefix>.<event type>.<version>` (`energy.agreement.updated.v2`), with every `.` inside
//! a version written as `_` (`energy.lifecycle.support-site.sale.1_0_0`), so that a version is always
//! one token: `<prefix>.<event type>.*` selects every version of one event type, and nothing else as
//! long as no event type's tokens begin another's (the generator checks that: [`tokens_overlap`]).
//! Readers take the type and version from the message's headers, never from the subject.

/// The subject prefix when none is configured.
pub const DEFAULT_PREFIX: &str = "energy";

/// A catalogue section as the generated crate lists it (`energy_api::events::SECTIONS`): the subject
/// filters of one section are built from its event types.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Section {
    /// The section's module and cargo feature name (`billing`).
    pub name: &'static str,
    /// The section's title in the catalogue (`Billing`).
    pub title: &'static str,
    /// Its event types, sorted.
    pub event_types: &'static [&'static str],
    /// Names its event types had before a rename, sorted: producers built on an older schema still
    /// publish under them.
    pub former_event_types: &'static [&'static str],
}

/// A version as one subject token: `v2` stays `v2`, `1.0.0` becomes `1_0_0`.
pub fn version_token(version: &str) -> std::borrow::Cow<'_, str> {
    if version.contains('.') {
        std::borrow::Cow::Owned(version.replace('.', "_"))
    } else {
        std::borrow::Cow::Borrowed(version)
    }
}

/// The subject of one event: `<prefix>.<event type>.<version token>`.
pub fn event_subject(prefix: &str, event_type: &str, version: &str) -> String {
    // Pushed rather than formatted: a publisher makes one per event.
    let token = version_token(version);
    let mut subject = String::with_capacity(prefix.len() + event_type.len() + token.len() + 2);
    for part in [prefix, ".", event_type, ".", &token] {
        subject.push_str(part);
    }
    subject
}

/// The filter that selects every version of one event type: `<prefix>.<event type>.*`.
pub fn type_filter(prefix: &str, event_type: &str) -> String {
    format!("{prefix}.{event_type}.*")
}

/// Whether the tokens of one event type begin the other's (`a.b` and `a.b.c`): then a filter such as
/// `<prefix>.a.b.>` would also select the other type's events.
pub fn tokens_overlap(a: &str, b: &str) -> bool {
    let (short, long) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    short == long
        || long
            .strip_prefix(short)
            .is_some_and(|rest| rest.starts_with('.'))
}

/// Why `text` cannot be a subject made of literal tokens (a prefix, an event type), if it cannot: an
/// empty token, a wildcard (`*`, `>`), whitespace or a control character.
pub fn literal_subject_error(text: &str) -> Option<String> {
    if text.is_empty() {
        return Some("it is empty".to_owned());
    }
    for token in text.split('.') {
        if token.is_empty() {
            return Some(format!(
                "`{text}` has an empty token (a `.` at its start or end, or two in a row)"
            ));
        }
        if token == "*" || token == ">" || token.contains(['*', '>']) {
            return Some(format!(
                "`{text}` holds a wildcard (`*` or `>`), which a literal subject cannot"
            ));
        }
        if token.chars().any(|c| c.is_whitespace() || c.is_control()) {
            return Some(format!("`{text}` holds whitespace or a control character"));
        }
    }
    None
}

/// The path of a version's JSON Schema below the schemas' `$id` base: `events/<type>.<version>.json`.
pub fn event_schema_path(event_type: &str, version: &str) -> String {
    let mut path = String::with_capacity(event_type.len() + version.len() + 13);
    for part in ["events/", event_type, ".", version, ".json"] {
        path.push_str(part);
    }
    path
}

/// The Kafka topic of a catalogue section's events: `<prefix>.<section>` (`energy.billing`).
pub fn section_topic(prefix: &str, section: &str) -> String {
    format!("{prefix}.{section}")
}

/// The partitions of a section's topic that `energy bus init` makes unless told otherwise.
pub const DEFAULT_PARTITIONS: i32 = 3;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn subjects_keep_a_version_in_one_token() {
        assert_eq!(
            event_subject("energy", "agreement.updated", "v2"),
            "energy.agreement.updated.v2"
        );
        assert_eq!(
            event_subject("acme.energy", "lifecycle.support-site.sale", "1.0.0"),
            "acme.energy.lifecycle.support-site.sale.1_0_0"
        );
        assert_eq!(
            type_filter("energy", "business.created"),
            "energy.business.created.*"
        );
        assert_eq!(version_token("v10"), "v10");
    }

    #[test]
    fn overlapping_tokens_are_whole_tokens() {
        assert!(tokens_overlap("a.b", "a.b.c"));
        assert!(tokens_overlap("a.b.c", "a.b"));
        assert!(tokens_overlap("a.b", "a.b"));
        assert!(!tokens_overlap("a.b", "a.bc"));
        assert!(!tokens_overlap("a.b", "a.c.b"));
        assert!(!tokens_overlap("account.created", "account_user.created"));
    }

    #[test]
    fn literal_subjects_have_no_empty_token_wildcard_or_space() {
        assert_eq!(literal_subject_error("energy"), None);
        assert_eq!(literal_subject_error("acme.energy-events"), None);
        for bad in [
            "", ".energy", "energy.", "a..b", "a.*", "a.>", "a.b>", "a b", "a\tb",
        ] {
            assert!(literal_subject_error(bad).is_some(), "{bad:?}");
        }
    }

    #[test]
    fn schema_paths_mirror_the_files() {
        assert_eq!(
            event_schema_path("agreement.updated", "v2"),
            "events/agreement.updated.v2.json"
        );
    }
}
