//! `asyncapi.yaml`: the events catalogue as an AsyncAPI 3.0.0 document.
//!
//! The document describes the platform, which sends events:
//! - two servers, `nats` and `kafka`: the spec says only that events go to an event bus; the bus is
//!   ours to choose (NATS JetStream, or Kafka: see `energy_runtime::bus`), each with its host as a
//!   variable; each channel's Kafka binding names its section's topic, each message's its record key;
//! - one channel per event type, addressed by its subject with the version as a parameter
//!   (`energy.agreement.updated.{version}`) and titled by the type (`agreement.updated`), holding one
//!   message per payload version, and one `send` operation per channel: a reader finds an event by its
//!   type in both lists. Channels are keyed by the Rust name of the event type (`AgreementUpdated`) and
//!   operations by `send` and that name (`sendAgreementUpdated`): model generators name the union of an
//!   event type's payload versions after its channel key, and code generators name functions after
//!   operation ids, so both are identifiers, the same as the Rust crate's, whatever the event types;
//! - one message per (type, version), keyed and named by its stable id (`agreement.updated.v2`), titled
//!   `agreement.updated v2`, with `x-event-type` and `x-payload-version`, and the CloudEvents headers
//!   of the bus (`CloudEventHeaders`: binary content mode) as its headers;
//! - the dead-letter channel (`deadLetters`, `energy_dead_letters.{consumer}`), where consumers built on
//!   the runtime store what they cannot handle, with its message and headers;
//! - payload schemas in `components/schemas` (named as the Rust types, `AgreementUpdatedV2`), with
//!   `$ref`s to the shared types beside them; a version whose payload is a shared type is `allOf` it.
//!
//! Summaries and titles are plain text; Markdown is only in descriptions. Every message has an example
//! payload made from the model's sample data ([`crate::samples`]).
//!
//! Sections of the catalogue are tags, defined once in `components/tags` and referred to by operations and
//! messages; each channel writes its section's tag out (name and description), because docs renderers
//! group channels by the names of their tags and do not follow a `$ref` there. Channels come section by
//! section.

use super::schema::{Dialect, Schemas, version_description};
use super::tree::{Map, Node, reference, to_yaml};
use crate::model::{EventType, EventVersion, Model, Section};
use crate::samples::{self, Optionals};
use std::collections::BTreeMap;

/// Where the document is written, relative to `generated/`.
pub const PATH: &str = "asyncapi.yaml";

/// The document's own version of AsyncAPI.
pub const ASYNCAPI_VERSION: &str = "3.0.0";

/// The title of the document.
pub const TITLE: &str = "Energy Supply Platform Events";

const SCHEMAS: Schemas<'static> = Schemas {
    ref_prefix: "#/components/schemas/",
    ref_suffix: "",
    dialect: Dialect::BareReferences,
};

/// The AsyncAPI document.
pub fn emit(model: &Model) -> Result<BTreeMap<String, String>, String> {
    let mut files = BTreeMap::new();
    files.insert(
        PATH.to_owned(),
        to_yaml(&super::header("#"), &document(model)?),
    );
    Ok(files)
}

/// How many channels, operations and messages the document holds: one channel and operation per event
/// type and one message per version, and the dead-letter channel, its operation and message.
pub fn counts(model: &Model) -> (usize, usize, usize) {
    let event_types: usize = model.sections.iter().map(|s| s.events.len()).sum();
    (event_types + 1, event_types + 1, model.version_count() + 1)
}

/// The key of an event type's channel: the Rust name of the event type (`AgreementUpdated`).
pub fn channel_key(event: &EventType) -> &str {
    &event.rust_name
}

/// The id of the operation that sends an event type (`sendAgreementUpdated`).
pub fn operation_id(event: &EventType) -> String {
    format!("send{}", event.rust_name)
}

fn document(model: &Model) -> Result<Map, String> {
    let info = Map::new()
        .with("title", TITLE)
        .with("version", "1.0.0")
        .with("description", info_description(model))
        .with(
            "tags",
            model
                .sections
                .iter()
                .map(|s| Node::Map(tag_reference(s)))
                .collect::<Vec<_>>(),
        );
    let server = Map::new()
        .with("host", "{nats_host}")
        .with("protocol", "nats")
        .with(
            "description",
            "The event bus the platform emits its events to. The spec does not show the bus; the \
             decision is NATS JetStream (`energy bus init` creates its streams from this catalogue). \
             Each event is a message on the subject `<prefix>.<event type>.<version>` (prefix `energy` \
             unless configured; a `.` in a version written `_`): CloudEvents 1.0 in binary content mode, \
             the payload as the body and the context attributes as `ce-` headers (`CloudEventHeaders`). \
             The broker drops an event published again with the same `ce-id` within its deduplication \
             window. Delivery is at least once: a consumer acknowledges an event after handling it, and \
             dead-letters one it cannot handle to `energy_dead_letters.<consumer>` (`deadLetters`).",
        )
        .with(
            "variables",
            Map::new().with(
                "nats_host",
                Map::new()
                    .with(
                        "description",
                        "A NATS server of the deployment, host and port (a cluster has several).",
                    )
                    .with("default", "127.0.0.1:4222"),
            ),
        );
    let kafka = Map::new()
        .with("host", "{kafka_host}")
        .with("protocol", "kafka")
        .with(
            "description",
            "The same events on Kafka (`energy bus init --server kafka://…` creates the topics): a topic \
             per catalogue section, `<prefix>.<section>` (each channel's Kafka binding), keyed by \
             `<event type>/<version>` then the event's CloudEvents `subject` when it names one (each \
             message's binding), so one entity's events of a type and version stay in order on one \
             partition. CloudEvents 1.0 in the Kafka protocol binding's binary mode: the payload as the \
             record's value, the context attributes as `ce_` headers and `content-type`. The producer is \
             idempotent (`acks=all`); there is no broker-side deduplication window, so an event published \
             twice with one `ce-id` is stored twice and a consumer sees it again (its `attempt` says so). \
             Each consumer is a consumer group, commits a partition's offset only past settled records, \
             retries through `<prefix>_retry.<group>` and dead-letters to `<prefix>_dead_letters`.",
        )
        .with(
            "variables",
            Map::new().with(
                "kafka_host",
                Map::new()
                    .with(
                        "description",
                        "A bootstrap broker of the Kafka cluster, host and port.",
                    )
                    .with("default", "127.0.0.1:9092"),
            ),
        );
    let mut channels = Map::new();
    let mut operations = Map::new();
    let mut messages = Map::new();
    let mut schemas = Map::new();
    for t in &model.shared_types {
        schemas.set(&t.name, SCHEMAS.struct_schema(t, &t.doc));
    }
    for (name, schema) in super::bus::schemas() {
        schemas.set(name, schema);
    }
    // Section by section, so that the document and its rendering list each section's event types together.
    let by_section = model
        .sections
        .iter()
        .flat_map(|s| s.events.iter().map(move |e| (s, e)));
    for (section, event) in by_section {
        let mut channel_messages = Map::new();
        let mut operation_messages = Vec::new();
        for v in &event.versions {
            channel_messages.set(&v.id, reference(format!("#/components/messages/{}", v.id)));
            operation_messages.push(Node::Map(reference(format!(
                "#/channels/{}/messages/{}",
                channel_key(event),
                v.id
            ))));
            let name = &v.payload.rust_name;
            if schemas.get(name).is_some() {
                return Err(format!(
                    "the payload schema name `{name}` of `{}` is already taken",
                    v.id
                ));
            }
            schemas.set(name, SCHEMAS.payload_schema(v, &version_description(v)));
            let payload = reference(format!("#/components/schemas/{name}"));
            messages.set(&v.id, message(model, section, event, v, payload));
        }
        let tags = vec![Node::Map(tag_reference(section))];
        let versions: Vec<&str> = event.versions.iter().map(|v| v.label.as_str()).collect();
        let tokens = super::bus::version_tokens(versions.iter().copied());
        let parameter = Map::new()
            .with(
                "description",
                format!(
                    "The payload version as a subject token (a `.` written `_`): {}.",
                    tokens.join(", ")
                ),
            )
            .with("enum", tokens.iter().map(Node::from).collect::<Vec<_>>());
        let mut channel = Map::new()
            .with("address", super::bus::event_address(&event.name))
            .with("title", &event.name)
            .with(
                "summary",
                format!(
                    "Events of type {}, payload {} {}.",
                    event.name,
                    if versions.len() == 1 {
                        "version"
                    } else {
                        "versions"
                    },
                    versions.join(", ")
                ),
            );
        let former = (!event.renamed_from.is_empty()).then(|| {
            let names: Vec<String> = event
                .renamed_from
                .iter()
                .map(|r| format!("`{r}`"))
                .collect();
            format!(
                "Formerly {}: decoders built on this schema accept events under that name too.",
                names.join(", ")
            )
        });
        let description: Vec<&str> = [event.description.as_deref(), former.as_deref()]
            .into_iter()
            .flatten()
            .collect();
        if !description.is_empty() {
            channel.set("description", description.join("\n\n"));
        }
        channels.set(
            channel_key(event),
            channel
                .with("parameters", Map::new().with("version", parameter))
                .with("messages", channel_messages)
                .with("tags", vec![Node::Map(section_tag(section))])
                .with(
                    "bindings",
                    super::bus::kafka_channel(
                        energy_api_core::bus::section_topic(
                            energy_api_core::bus::DEFAULT_PREFIX,
                            &section.feature,
                        ),
                        energy_api_core::bus::DEFAULT_PARTITIONS,
                    ),
                ),
        );
        operations.set(
            operation_id(event),
            Map::new()
                .with("action", "send")
                .with(
                    "channel",
                    reference(format!("#/channels/{}", channel_key(event))),
                )
                .with("title", format!("Send {}", event.name))
                .with(
                    "summary",
                    format!("The platform emits {} to the event bus.", event.name),
                )
                .with("description", operation_description(section, event))
                .with("messages", operation_messages)
                .with("tags", tags),
        );
    }
    let (key, channel, operation, message) = dead_letters();
    channels.set(super::bus::DEAD_LETTER_CHANNEL, channel);
    operations.set(key, operation);
    messages.set(super::bus::DEAD_LETTER_MESSAGE, message);
    Ok(Map::new()
        .with("asyncapi", ASYNCAPI_VERSION)
        .with("info", info)
        .with("defaultContentType", "application/json")
        .with(
            "servers",
            Map::new().with("nats", server).with("kafka", kafka),
        )
        .with("channels", channels)
        .with("operations", operations)
        .with(
            "components",
            Map::new()
                .with("schemas", schemas)
                .with("messages", messages)
                .with("tags", section_tags(model)),
        ))
}

/// A section's tag written out (name and description), as on channels.
fn section_tag(section: &Section) -> Map {
    Map::new().with("name", &section.title).with_opt(
        "description",
        (!section.doc.is_empty()).then_some(&section.doc),
    )
}

/// Sections are tags defined once under `components/tags` (by module name) and referred to elsewhere.
fn tag_reference(section: &Section) -> Map {
    reference(format!("#/components/tags/{}", section.module))
}

fn operation_description(section: &Section, event: &EventType) -> String {
    let versions: Vec<String> = event
        .versions
        .iter()
        .map(|v| format!("`{}` (message `{}`)", v.label, v.id))
        .collect();
    let mut text = format!(
        "Emitted by the platform ({}), with one payload shape per version: {}. The trigger is not shown \
         in the spec.",
        section.title,
        versions.join(", ")
    );
    if let Some(d) = &event.description {
        text = format!("{d}\n\n{text}");
    }
    text
}

fn info_description(model: &Model) -> String {
    let event_types: usize = model.sections.iter().map(|s| s.events.len()).sum();
    let plural =
        |n: usize, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
    let mut text = format!(
        "The events the platform emits to its event bus: {} in {}, in {} of the catalogue.",
        plural(event_types, "event type", "event types"),
        plural(model.version_count(), "payload version", "payload versions"),
        plural(model.sections.len(), "section", "sections"),
    );
    // An example from the catalogue itself: the first event type with several versions, else the first.
    let example = model
        .events()
        .map(|(_, e)| e)
        .find(|e| e.versions.len() > 1)
        .or_else(|| model.events().map(|(_, e)| e).next());
    if let Some(e) = example
        && let Some(v) = e.versions.last()
    {
        text.push_str(&format!(
            "\n\nEach event has an event type (`{}`) and a payload version (`{}`). Each type is a channel \
             addressed by its subject on the bus, `energy.<type>.<version>`, with one message per version \
             whose id is `<type>.<version>` (`{}`).",
            e.name, v.label, v.id
        ));
    }
    text.push_str(
        "\n\nA payload is a JSON object. A field not listed in `required` may be absent, and members a \
         schema does not list may occur: decoders ignore them, so payloads with fields added later still \
         decode.\n\n\
         Not shown by the spec: the bus itself, the envelope around a payload, delivery guarantees, \
         ordering, retries, the trigger of each event, the formats of date and date-time strings (plain \
         strings here) and the allowed values of string fields. The bus, the envelope (CloudEvents \
         headers) and the delivery rules described here are this project's decisions (see the servers).",
    );
    text
}

fn section_tags(model: &Model) -> Map {
    let mut tags = Map::new();
    for s in &model.sections {
        tags.set(
            &s.module,
            Map::new()
                .with("name", &s.title)
                .with_opt("description", (!s.doc.is_empty()).then_some(&s.doc)),
        );
    }
    tags
}

fn message(
    model: &Model,
    section: &Section,
    event: &EventType,
    v: &EventVersion,
    payload: Map,
) -> Map {
    let example = Map::new()
        .with("name", "sample")
        .with(
            "summary",
            "A payload with every optional field (sample values).",
        )
        .with(
            "payload",
            super::schema::example(
                &samples::struct_value(model, &v.payload, Optionals::All, 0),
                &v.payload,
                None,
                &|name| model.shared_type(name),
            ),
        );
    let headers = Map::new()
        .with("ce-specversion", "1.0")
        .with("ce-id", "0b4f3c6e-9a51-4f1b-8d6a-3c2e1f0a7b59")
        .with("ce-source", "/energy-platform")
        .with("ce-type", &event.name)
        .with("ce-time", "2024-03-01T09:30:00Z")
        .with("ce-datacontenttype", "application/json")
        .with(
            "ce-dataschema",
            format!(
                "{}{}",
                crate::naming::SCHEMA_ID_BASE,
                energy_api_core::bus::event_schema_path(&event.name, &v.label)
            ),
        )
        .with("ce-dataversion", &v.label);
    let example = example.with("headers", headers);
    Map::new()
        .with("name", &v.id)
        .with("title", format!("{} {}", event.name, v.label))
        .with(
            "summary",
            format!("Payload version {} of {}.", v.label, event.name),
        )
        .with("description", message_description(model, event, v))
        .with("contentType", "application/json")
        .with(
            "headers",
            reference(format!(
                "#/components/schemas/{}",
                crate::naming::CLOUD_EVENT_HEADERS
            )),
        )
        .with("payload", payload)
        .with("examples", vec![example])
        .with("tags", vec![Node::Map(tag_reference(section))])
        .with("bindings", super::bus::kafka_message(&event.name, &v.label))
        .with("x-event-type", &event.name)
        .with("x-payload-version", &v.label)
}

/// A message's description: its payload's, then how it relates to the other versions of its type.
fn message_description(model: &Model, event: &EventType, v: &EventVersion) -> String {
    let mut text = version_description(v);
    if let Some(table) = super::compatibility::message_table(model, event, v) {
        text.push_str("\n\n");
        text.push_str(&table);
    }
    text
}

/// The dead-letter channel, its `send` operation (by consumers) and its message: the operation's key, then
/// the three.
fn dead_letters() -> (&'static str, Map, Map, Map) {
    use super::bus::{DEAD_LETTER_CHANNEL, DEAD_LETTER_MESSAGE};
    use crate::naming::{DEAD_LETTER_HEADERS, DEAD_LETTER_PAYLOAD};
    let channel = Map::new()
        .with("address", super::bus::dead_letter_address())
        .with("title", "Dead letters")
        .with(
            "summary",
            "Events a consumer could not handle, each with why and where it came from.",
        )
        .with(
            "description",
            "A consumer built on `energy-runtime` publishes here what it cannot handle (an event that \
             cannot be decoded or is invalid, at once; one whose handler failed on each of its \
             deliveries; an unknown type or version when it is told to), waits for the broker to have \
             stored it, and only then terminates the original. `energy bus init` creates the stream \
             that keeps them (`<PREFIX>_DEAD_LETTERS`); `energy events dlq` lists, shows and publishes \
             them again.",
        )
        .with(
            "parameters",
            Map::new().with(
                "consumer",
                Map::new().with(
                    "description",
                    "The durable consumer that dead-lettered it (its default dead-letter subject).",
                ),
            ),
        )
        .with(
            "messages",
            Map::new().with(
                DEAD_LETTER_MESSAGE,
                reference(format!("#/components/messages/{DEAD_LETTER_MESSAGE}")),
            ),
        )
        .with(
            "bindings",
            super::bus::kafka_channel(super::bus::dead_letter_topic(), 1),
        );
    let operation = Map::new()
        .with("action", "send")
        .with(
            "channel",
            reference(format!("#/channels/{DEAD_LETTER_CHANNEL}")),
        )
        .with("title", "Dead-letter an event")
        .with(
            "summary",
            "A consumer stores an event it cannot handle, with why.",
        )
        .with(
            "description",
            "Sent by consumers, not by the platform: the original message (body and headers) with the \
             `energy-dead-letter-` headers added.",
        )
        .with(
            "messages",
            vec![Node::Map(reference(format!(
                "#/channels/{DEAD_LETTER_CHANNEL}/messages/{DEAD_LETTER_MESSAGE}"
            )))],
        );
    let example_headers = Map::new()
        .with("ce-specversion", "1.0")
        .with("ce-id", "0b4f3c6e-9a51-4f1b-8d6a-3c2e1f0a7b59")
        .with("ce-source", "/energy-platform")
        .with("ce-type", "agreement.revoked")
        .with("ce-dataversion", "v2")
        .with("energy-dead-letter-kind", "invalid_type")
        .with("energy-dead-letter-path", "payload.agreement_id")
        .with(
            "energy-dead-letter-message",
            "invalid type: string \"seven\", expected i64",
        )
        .with("energy-dead-letter-subject", "energy.agreement.revoked.v2")
        .with("energy-dead-letter-stream", "ENERGY_EVENTS")
        .with("energy-dead-letter-sequence", "1042")
        .with("energy-dead-letter-consumer", "billing-service")
        .with("energy-dead-letter-deliveries", "1")
        .with("energy-dead-letter-time", "2024-03-01T09:30:01Z");
    let example = Map::new()
        .with("name", "invalid")
        .with(
            "summary",
            "An event whose agreement id is a string, dead-lettered on its first delivery.",
        )
        .with("headers", example_headers)
        .with(
            "payload",
            Map::new()
                .with("agreement_id", "seven")
                .with("account_number", "A-1B2C3D4E"),
        );
    let message = Map::new()
        .with("name", DEAD_LETTER_MESSAGE)
        .with("title", "Dead letter")
        .with(
            "summary",
            "The original message, byte for byte, with why it was dead-lettered.",
        )
        .with(
            "headers",
            reference(format!("#/components/schemas/{DEAD_LETTER_HEADERS}")),
        )
        .with(
            "payload",
            reference(format!("#/components/schemas/{DEAD_LETTER_PAYLOAD}")),
        )
        .with("examples", vec![example]);
    ("sendDeadLetter", channel, operation, message)
}
