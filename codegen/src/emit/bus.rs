//! The event bus as the documents describe it, shared by the AsyncAPI document and the JSON Schema files:
//! NATS JetStream, events as CloudEvents 1.0 in binary content mode (the CloudEvents NATS protocol
//! binding), subjects `<prefix>.<event type>.<version>`, and the dead letters consumers store. The
//! wire format itself is the runtime's (`energy_runtime::bus`); these schemas describe it, and the
//! runtime's tests check that the headers it writes are the ones described here.

use super::tree::{Map, Node};
use crate::naming::{CLOUD_EVENT_HEADERS, DEAD_LETTER_HEADERS, DEAD_LETTER_PAYLOAD};

/// The folder of the bus's schema files, relative to `generated/`.
pub const DIR: &str = "schemas/bus";

/// The dead-letter channel's key in the AsyncAPI document.
pub const DEAD_LETTER_CHANNEL: &str = "deadLetters";

/// The dead-letter message's id in the AsyncAPI document.
pub const DEAD_LETTER_MESSAGE: &str = "deadLetter";

/// The error kinds a dead letter can carry: those of `energy events validate`, then the consumer's own.
pub const DEAD_LETTER_KINDS: [&str; 9] = [
    "malformed_json",
    "bad_envelope",
    "unknown_event_type",
    "unknown_version",
    "missing_field",
    "invalid_type",
    "handler_failed",
    "handler_rejected",
    "not_settled",
];

/// The subject filter of the dead letters of every consumer, under the default prefix.
pub fn dead_letter_address() -> String {
    format!(
        "{}_dead_letters.{{consumer}}",
        energy_api_core::bus::DEFAULT_PREFIX
    )
}

/// The channel address of an event type under the default prefix: its subject with the version as a
/// parameter (`energy.agreement.updated.{version}`).
pub fn event_address(event_type: &str) -> String {
    format!(
        "{}.{event_type}.{{version}}",
        energy_api_core::bus::DEFAULT_PREFIX
    )
}

/// The version of the AsyncAPI Kafka bindings the documents use.
pub const KAFKA_BINDING_VERSION: &str = "0.5.0";

/// The Kafka topic of the dead letters of every consumer, under the default prefix (one partition: its
/// offsets number the dead letters).
pub fn dead_letter_topic() -> String {
    format!("{}_dead_letters", energy_api_core::bus::DEFAULT_PREFIX)
}

/// A channel's Kafka binding: its topic and partitions.
pub fn kafka_channel(topic: String, partitions: i32) -> Map {
    Map::new().with(
        "kafka",
        Map::new()
            .with("topic", topic)
            .with("partitions", Node::from(i64::from(partitions)))
            .with("bindingVersion", KAFKA_BINDING_VERSION),
    )
}

/// A message's Kafka binding: its record key, `<type>/<version>` then `/<subject>` when the event
/// names the entity it is about.
pub fn kafka_message(event_type: &str, version: &str) -> Map {
    let escaped: String = event_type
        .chars()
        .flat_map(|c| match c {
            '.' | '-' | '+' | '(' | ')' => vec!['\\', c],
            c => vec![c],
        })
        .collect();
    let version_escaped = version.replace('.', "\\.");
    Map::new().with(
        "kafka",
        Map::new()
            .with(
                "key",
                Map::new()
                    .with("type", "string")
                    .with(
                        "description",
                        "The record key: the event type and version, then the entity the event is about \
                         (its CloudEvents `subject`) when it names one; records of one key go to one \
                         partition, in order.",
                    )
                    .with("pattern", format!("^{escaped}/{version_escaped}(/.*)?$"))
                    .with("examples", vec![Node::from(format!("{event_type}/{version}"))]),
            )
            .with("bindingVersion", KAFKA_BINDING_VERSION),
    )
}

/// A receiving operation's Kafka binding: its consumer group.
pub fn kafka_operation(group: &str) -> Map {
    Map::new().with(
        "kafka",
        Map::new()
            .with(
                "groupId",
                Map::new()
                    .with("type", "string")
                    .with("enum", vec![Node::from(group)]),
            )
            .with("bindingVersion", KAFKA_BINDING_VERSION),
    )
}

/// The subject token of each version (`v2`, `1_0_0`).
pub fn version_tokens<'a>(versions: impl IntoIterator<Item = &'a str>) -> Vec<String> {
    versions
        .into_iter()
        .map(|v| energy_api_core::bus::version_token(v).into_owned())
        .collect()
}

/// The bus's schemas, by name: the CloudEvents headers of every event, and the dead letter's headers
/// and body.
pub fn schemas() -> Vec<(&'static str, Map)> {
    vec![
        (CLOUD_EVENT_HEADERS, cloud_event_headers()),
        (DEAD_LETTER_HEADERS, dead_letter_headers()),
        (DEAD_LETTER_PAYLOAD, dead_letter_payload()),
    ]
}

fn string(description: &str) -> Map {
    Map::new()
        .with("type", "string")
        .with("description", description)
}

/// A W3C `traceparent`: version, trace id, parent span id, flags, in lowercase hex.
const TRACEPARENT_PATTERN: &str = "^[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$";

/// The headers of every event on the bus.
fn cloud_event_headers() -> Map {
    let properties = Map::new()
        .with(
            "ce-specversion",
            string("The CloudEvents version.").with("const", "1.0"),
        )
        .with(
            "ce-id",
            string(
                "The event's id: unique per event, kept when it is published again; also the broker's \
                 deduplication id (`Nats-Msg-Id`).",
            )
            .with("minLength", 1i64),
        )
        .with(
            "ce-source",
            string("Who emitted it (a URI reference; `/energy-platform` unless the producer says).")
                .with("minLength", 1i64),
        )
        .with(
            "ce-type",
            string("The event type (`agreement.updated`): the channel's `title`."),
        )
        .with(
            "ce-time",
            string("When it happened or was published (RFC 3339).").with("format", "date-time"),
        )
        .with(
            "ce-datacontenttype",
            string("The payload's content type.").with("const", "application/json"),
        )
        .with(
            "ce-dataschema",
            string("The `$id` of the payload version's JSON Schema (`generated/schemas/events/`).")
                .with("format", "uri"),
        )
        .with(
            "ce-dataversion",
            string(
                "The payload version (`v2`, `1.0.0`): a CloudEvents extension attribute. Readers take \
                 the type and version from these headers, never from the subject.",
            ),
        )
        .with(
            "energy-metadata",
            string(
                "The producer's envelope fields that are not CloudEvents attributes, as one JSON object \
                 (percent-encoded).",
            ),
        )
        .with(
            "Nats-Msg-Id",
            string("The broker's deduplication id: the event's `ce-id`."),
        )
        .with(
            "ce-traceparent",
            string(
                "The W3C trace context of the publisher's span, as the CloudEvents distributed-tracing                  extension carries it; the consumer's handling continues that trace.",
            )
            .with("pattern", TRACEPARENT_PATTERN),
        )
        .with(
            "ce-tracestate",
            string("The W3C trace state beside `ce-traceparent` (percent-encoded)."),
        )
        .with(
            "traceparent",
            string("The same trace context as a plain W3C header, for tools that read NATS headers.")
                .with("pattern", TRACEPARENT_PATTERN),
        )
        .with("tracestate", string("The same trace state as a plain W3C header."));
    Map::new()
        .with("type", "object")
        .with(
            "description",
            "The headers of every event on the bus: CloudEvents 1.0 in binary content mode, as the \
             CloudEvents NATS protocol binding writes it. Each context attribute is a header named \
             `ce-<attribute>`; values are percent-encoded (space, `\"`, `%` and every character outside \
             printable ASCII as `%XY` per UTF-8 byte). Other `ce-` headers are further attributes; other \
             headers are the producer's own. (A consumer also reads structured mode: the header \
             `content-type: application/cloudevents+json` and the attributes with the payload as `data` \
             in one JSON body.)",
        )
        .with(
            "required",
            vec![
                Node::from("ce-specversion"),
                Node::from("ce-id"),
                Node::from("ce-source"),
                Node::from("ce-type"),
                Node::from("ce-dataversion"),
            ],
        )
        .with("properties", properties)
        .with("additionalProperties", Map::new().with("type", "string"))
}

/// The headers a dead letter adds to the original's.
fn dead_letter_headers() -> Map {
    let kinds: Vec<Node> = DEAD_LETTER_KINDS.iter().map(|k| Node::from(*k)).collect();
    let properties = Map::new()
        .with(
            "energy-dead-letter-kind",
            string(
                "Why: an error kind of `energy events validate`, or `handler_failed` (failed on each of \
                 `max_deliver` deliveries), `handler_rejected` (the handler said it never will succeed), \
                 `not_settled` (delivered more than `max_deliver` times without being settled).",
            )
            .with("enum", kinds),
        )
        .with(
            "energy-dead-letter-path",
            string(
                "The JSON path of the fault in the event (`payload.ledger.account.number`) or the header \
                 at fault (`ce-type`); empty when none.",
            ),
        )
        .with("energy-dead-letter-message", string("The error, in words."))
        .with(
            "energy-dead-letter-subject",
            string("The subject the original was published to."),
        )
        .with(
            "energy-dead-letter-stream",
            string("The stream that stored the original."),
        )
        .with(
            "energy-dead-letter-sequence",
            string("The original's sequence in that stream (decimal digits).")
                .with("pattern", "^[0-9]+$"),
        )
        .with(
            "energy-dead-letter-consumer",
            string("The durable consumer that gave up on it."),
        )
        .with(
            "energy-dead-letter-deliveries",
            string("How many times it had been delivered (decimal digits).")
                .with("pattern", "^[0-9]+$"),
        )
        .with(
            "energy-dead-letter-time",
            string("When it was dead-lettered (RFC 3339).").with("format", "date-time"),
        );
    let required: Vec<Node> = [
        "energy-dead-letter-kind",
        "energy-dead-letter-path",
        "energy-dead-letter-message",
        "energy-dead-letter-subject",
        "energy-dead-letter-stream",
        "energy-dead-letter-sequence",
        "energy-dead-letter-consumer",
        "energy-dead-letter-deliveries",
        "energy-dead-letter-time",
    ]
    .into_iter()
    .map(Node::from)
    .collect();
    Map::new()
        .with("type", "object")
        .with(
            "description",
            "The headers of a dead letter: the original message's headers, as they were (its \
             CloudEvents headers when it had them), and these, percent-encoded as the CloudEvents \
             attributes are.",
        )
        .with("required", required)
        .with("properties", properties)
        .with("additionalProperties", Map::new().with("type", "string"))
}

/// The body of a dead letter: the original's, whatever it was.
fn dead_letter_payload() -> Map {
    let any_json: Vec<Node> = ["object", "array", "string", "number", "boolean", "null"]
        .into_iter()
        .map(Node::from)
        .collect();
    Map::new()
        .with("type", any_json)
        .with(
            "description",
            "The original message's body, byte for byte: the event's payload (a JSON object), or whatever \
             a broken producer sent: any JSON value, or bytes that are not JSON at all (which no schema \
             describes).",
        )
}
