//! Where events live on Kafka and how a record carries one: a topic per catalogue section, the record key,
//! and the CloudEvents Kafka protocol binding's headers.
//!
//! - **Topics.** Events of a section go to `<prefix>.<section>` (`energy.billing`); dead letters of
//!   every consumer to `<prefix>_dead_letters` (one partition: a dead letter's offset is its number);
//!   a consumer group's delayed retries to `<prefix>_retry.<group>`. The bus speaks in subjects
//!   (`energy.billing.final_bill.v1`, as on NATS): [`Topics::of_subject`] maps one to its topic.
//! - **Key.** `<event type>/<version>`, then `/<subject>` when the event names the entity it is
//!   about (the CloudEvents `subject` attribute): records of one key go to one partition (murmur2, as
//!   the Java client partitions), so one entity's events of a type and version stay in order.
//! - **Headers.** Binary mode: each `ce-<attribute>` header of the bus is the record header
//!   `ce_<attribute>`, except `datacontenttype`, which is `content-type`; values are the attribute's
//!   UTF-8 text (the NATS binding's percent-encoding undone). Structured mode: `content-type:
//!   application/cloudevents+json` and the event as the value. Other headers (`traceparent`,
//!   `energy-dead-letter-*`) keep their names.

use crate::bus::cloudevents;
use crate::bus::headers::{Headers, percent_decode, percent_encode};
use crate::bus::structured;
use crate::bus::subjects::{Subjects, may_match};
use crate::bus::transport::Read;
use energy_api::events::SECTIONS;
use std::collections::HashMap;
use std::sync::OnceLock;

/// The names of one deployment's topics, from its subjects' prefix.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Topics {
    subjects: Subjects,
}

/// The catalogue's section of each event type (former names included).
fn section_of(event_type: &str) -> Option<&'static str> {
    static SECTION_OF: OnceLock<HashMap<&'static str, &'static str>> = OnceLock::new();
    SECTION_OF
        .get_or_init(|| {
            SECTIONS
                .iter()
                .flat_map(|s| {
                    s.event_types
                        .iter()
                        .chain(s.former_event_types)
                        .map(move |t| (*t, s.name))
                })
                .collect()
        })
        .get(event_type)
        .copied()
}

impl Topics {
    /// The topics of the deployment whose subjects are `subjects`.
    pub fn new(subjects: Subjects) -> Self {
        Topics { subjects }
    }

    /// The subjects these topics carry.
    pub fn subjects(&self) -> &Subjects {
        &self.subjects
    }

    /// The topic of a catalogue section: `<prefix>.<section>`.
    pub fn section(&self, section: &str) -> String {
        energy_api_core::bus::section_topic(self.subjects.prefix(), section)
    }

    /// Every section's topic, sorted.
    pub fn sections(&self) -> Vec<String> {
        let mut topics: Vec<String> = SECTIONS.iter().map(|s| self.section(s.name)).collect();
        topics.sort();
        topics
    }

    /// The dead-letter topic: `<prefix>_dead_letters`.
    pub fn dead_letters(&self) -> String {
        self.subjects.dead_letter_root()
    }

    /// A consumer group's retry topic: `<prefix>_retry.<group>`.
    pub fn retry(&self, group: &str) -> String {
        format!("{}_retry.{group}", self.subjects.prefix())
    }

    /// The topic a subject's messages go to: an event's section topic, the dead-letter topic for a
    /// dead letter's subject, else the subject itself.
    pub fn of_subject(&self, subject: &str) -> String {
        if let Some((event_type, _)) = self.event_of_subject(subject)
            && let Some(section) = section_of(event_type)
        {
            return self.section(section);
        }
        let root = self.subjects.dead_letter_root();
        if subject == root
            || subject
                .strip_prefix(root.as_str())
                .is_some_and(|rest| rest.starts_with('.'))
        {
            return root;
        }
        subject.to_owned()
    }

    /// The event type and version token of an event subject (`<prefix>.<type>.<version>`).
    pub fn event_of_subject<'s>(&self, subject: &'s str) -> Option<(&'s str, &'s str)> {
        let rest = subject
            .strip_prefix(self.subjects.prefix())?
            .strip_prefix('.')?;
        rest.rsplit_once('.')
    }

    /// The topics holding the events `filters` select (NATS subject filters, `*` and `>`): every
    /// section with an event type one of them may match; every section when there is none.
    pub fn of_filters(&self, filters: &[String]) -> Vec<String> {
        let mut topics: Vec<String> = SECTIONS
            .iter()
            .filter(|section| {
                filters.is_empty()
                    || section
                        .event_types
                        .iter()
                        .chain(section.former_event_types)
                        .any(|t| {
                            let subject = self.subjects.event(t, "*");
                            filters.iter().any(|f| may_match(f, &subject))
                        })
            })
            .map(|s| self.section(s.name))
            .collect();
        topics.sort();
        topics
    }
}

/// The subject of a record's event: from what it was read as (its `ce_type` and `ce_dataversion` in
/// binary mode, its body in structured mode), else its key; else its topic (not an event:
/// dead-lettered as such).
pub(crate) fn subject_of(
    subjects: &Subjects,
    read: &Read,
    key: Option<&[u8]>,
    topic: &str,
) -> String {
    if let Ok((incoming, _)) = read {
        return subjects.event(&incoming.event_type, &incoming.version);
    }
    if let Some(key) = key.and_then(|k| std::str::from_utf8(k).ok()) {
        let mut parts = key.splitn(3, '/');
        if let (Some(event_type), Some(version)) = (parts.next(), parts.next()) {
            return subjects.event(event_type, version);
        }
    }
    topic.to_owned()
}

/// The record key of an event: `<type>/<version>[/<subject>]`, from a message's headers (binary
/// mode) or body (structured mode); `None` when neither names the event.
pub fn key_of(headers: &Headers, body: &[u8]) -> Option<String> {
    let decoded = |name: &str| {
        headers
            .get(name)
            .map(|v| percent_decode(v).map_or_else(|_| v.to_owned(), |d| d.into_owned()))
    };
    let (event_type, version, subject) = if structured::is_structured(headers) {
        let (incoming, _) = crate::bus::content::read_message(headers, body).ok()?;
        let subject = incoming.metadata.get_str("subject");
        (incoming.event_type, incoming.version, subject)
    } else {
        (
            decoded("ce-type")?,
            decoded("ce-dataversion")?,
            decoded("ce-subject"),
        )
    };
    let mut key = format!("{event_type}/{version}");
    if let Some(subject) = subject {
        key.push('/');
        key.push_str(&subject);
    }
    Some(key)
}

/// The record header of a bus header: `ce-x` → `ce_x`, `ce-datacontenttype` → `content-type`.
pub fn record_header_name(name: &str) -> std::borrow::Cow<'_, str> {
    if name.eq_ignore_ascii_case("ce-datacontenttype") {
        return std::borrow::Cow::Borrowed(structured::CONTENT_TYPE_HEADER);
    }
    match name.get(..3) {
        Some(prefix) if prefix.eq_ignore_ascii_case("ce-") => {
            std::borrow::Cow::Owned(format!("ce_{}", &name[3..]))
        }
        _ => std::borrow::Cow::Borrowed(name),
    }
}

/// The bus header of a record header (the inverse of [`record_header_name`]): `ce_x` → `ce-x`;
/// `content-type` stays itself in structured mode (`application/cloudevents…`), else is
/// `ce-datacontenttype`.
pub fn bus_header_name(name: &str, value: &[u8]) -> std::borrow::Cow<'static, str> {
    if name.eq_ignore_ascii_case(structured::CONTENT_TYPE_HEADER) {
        return if value.starts_with(b"application/cloudevents") {
            std::borrow::Cow::Borrowed(structured::CONTENT_TYPE_HEADER)
        } else {
            cloudevents::header_name("ce-datacontenttype")
        };
    }
    match name.get(..3) {
        Some(prefix) if prefix.eq_ignore_ascii_case("ce_") => {
            cloudevents::header_name(&format!("ce-{}", &name[3..]))
        }
        _ => cloudevents::header_name(name),
    }
}

/// A bus header's value as a record carries it: its text, percent-decoding undone (a value that is not
/// valid percent-encoding is sent as it is).
pub fn record_header_value(value: &str) -> Vec<u8> {
    let Some(bytes) = percent_decode_bytes(value) else {
        return value.as_bytes().to_vec();
    };
    bytes
}

/// A record header's value as the bus holds it: percent-encoded (bytes that are not UTF-8 each as
/// `%XY`, so that nothing is lost).
pub fn bus_header_value(value: &[u8]) -> String {
    match std::str::from_utf8(value) {
        Ok(text) => percent_encode(text).into_owned(),
        Err(_) => value.iter().map(|b| format!("%{b:02X}")).collect(),
    }
}

/// Percent-decodes to bytes (the header module decodes to text only).
fn percent_decode_bytes(value: &str) -> Option<Vec<u8>> {
    if let Ok(text) = percent_decode(value) {
        return Some(text.into_owned().into_bytes());
    }
    let bytes = value.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = std::str::from_utf8(bytes.get(i + 1..i + 3)?).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn subjects_map_to_section_topics() {
        let topics = Topics::new(Subjects::default());
        assert_eq!(
            topics.of_subject("energy.billing.final_bill.v1"),
            topics.section("billing")
        );
        assert_eq!(
            topics.of_subject("energy_dead_letters.billing-service"),
            "energy_dead_letters"
        );
        assert_eq!(topics.of_subject("energy_retry.g"), "energy_retry.g");
        assert_eq!(
            topics.retry("billing-service"),
            "energy_retry.billing-service"
        );
        assert_eq!(topics.sections().len(), SECTIONS.len());
        let billing = topics.of_filters(&["energy.billing.>".to_owned()]);
        assert!(
            billing.contains(&"energy.billing".to_owned()),
            "{billing:?}"
        );
        assert_eq!(topics.of_filters(&[]).len(), SECTIONS.len());
    }

    #[test]
    fn headers_follow_the_kafka_binding_and_lose_nothing() {
        assert_eq!(record_header_name("ce-type"), "ce_type");
        assert_eq!(record_header_name("ce-datacontenttype"), "content-type");
        assert_eq!(record_header_name("traceparent"), "traceparent");
        assert_eq!(bus_header_name("ce_type", b"x"), "ce-type");
        assert_eq!(
            bus_header_name("content-type", b"application/json"),
            "ce-datacontenttype"
        );
        assert_eq!(
            bus_header_name("content-type", b"application/cloudevents+json"),
            "content-type"
        );
        for value in ["caf\u{e9} 100%", "plain", "%zz"] {
            let bus = percent_encode(value).into_owned();
            assert_eq!(record_header_value(&bus), value.as_bytes());
        }
        let raw = [0xff, b'a'];
        assert_eq!(record_header_value(&bus_header_value(&raw)), raw);
    }

    #[test]
    fn keys_name_the_type_version_and_entity() {
        let mut headers = Headers::new();
        headers.append("ce-type", "agreement.updated");
        headers.append("ce-dataversion", "v2");
        assert_eq!(
            key_of(&headers, b"{}").as_deref(),
            Some("agreement.updated/v2")
        );
        headers.append("ce-subject", "agreement%2012");
        assert_eq!(
            key_of(&headers, b"{}").as_deref(),
            Some("agreement.updated/v2/agreement 12")
        );
        assert_eq!(key_of(&Headers::new(), b"{}"), None);
    }
}
