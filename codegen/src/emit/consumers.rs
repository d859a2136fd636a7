//! `consumers/<name>.asyncapi.yaml`: each active consumer contract as an AsyncAPI 3.0 document of what
//! the consuming team receives, for its own docs site.
//!
//! The document defines nothing of the events: its channels are references to the producer's channels in
//! `asyncapi.yaml` beside it (so a schema, a header or an address is stated once), and it has one
//! `receive` operation per event type the contract reads, listing the messages of the versions it
//! decodes and, in words, the fields it reads. Retired contracts are not rendered: they are never
//! checked, so what they name may be gone.

use super::asyncapi::{self, ASYNCAPI_VERSION, channel_key};
use super::tree::{Map, Node, reference, to_yaml};
use crate::model::{Consumer, EventType, Model};
use std::collections::BTreeMap;

/// The folder of the documents, relative to `generated/`.
pub const DIR: &str = "consumers";

/// The path of a consumer's document, relative to `generated/`.
pub fn path(consumer: &str) -> String {
    format!("{DIR}/{consumer}.asyncapi.yaml")
}

/// One document per active contract.
pub fn emit(model: &Model) -> Result<BTreeMap<String, String>, String> {
    let mut files = BTreeMap::new();
    for consumer in model.consumers.iter().filter(|c| c.active) {
        files.insert(
            path(&consumer.name),
            to_yaml(&super::header("#"), &document(model, consumer)?),
        );
    }
    Ok(files)
}

fn document(model: &Model, consumer: &Consumer) -> Result<Map, String> {
    let producer = format!("../{}", asyncapi::PATH);
    let mut channels = Map::new();
    let mut operations = Map::new();
    for read in &consumer.reads {
        let event = model
            .events()
            .map(|(_, e)| e)
            .find(|e| e.name == read.event)
            .ok_or_else(|| {
                format!(
                    "contract `{}` reads `{}`, which the checked model does not have",
                    consumer.name, read.event
                )
            })?;
        let key = channel_key(event);
        channels.set(key, reference(format!("{producer}#/channels/{key}")));
        let messages: Vec<Node> = read
            .versions
            .iter()
            .map(|label| message_id(event, label, &consumer.name))
            .collect::<Result<Vec<_>, _>>()?
            .into_iter()
            .map(|id| Node::Map(reference(format!("#/channels/{key}/messages/{id}"))))
            .collect();
        let fields = match &read.fields {
            None => "It reads every field.".to_owned(),
            Some(pointers) => format!(
                "It reads these fields (JSON pointers into the payload): {}.",
                pointers
                    .iter()
                    .map(|p| format!("`{p}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        };
        operations.set(
            format!("receive{key}"),
            Map::new()
                .with("action", "receive")
                .with("channel", reference(format!("#/channels/{key}")))
                .with("title", format!("Receive {}", event.name))
                .with(
                    "summary",
                    format!(
                        "{} receives {} {} {}.",
                        consumer.name,
                        event.name,
                        if read.versions.len() == 1 {
                            "version"
                        } else {
                            "versions"
                        },
                        read.versions.join(", ")
                    ),
                )
                .with(
                    "description",
                    format!(
                        "{fields} `cargo xtask compat` names `{}` in every finding about what it reads.",
                        consumer.name
                    ),
                )
                .with("messages", messages)
                .with("bindings", super::bus::kafka_operation(&consumer.name)),
        );
    }
    let owner = consumer
        .owner
        .as_ref()
        .map(|o| format!(" Owner: {o}."))
        .unwrap_or_default();
    let info = Map::new()
        .with("title", format!("{}: events it receives", consumer.name))
        .with("version", "1.0.0")
        .with(
            "description",
            format!(
                "What the consumer `{}` reads of the {}, from its contract \
                 `schema/consumers/{}.yaml`.{owner} The servers, channels and messages are the \
                 producer's (`{}`): on NATS its durable consumer, on Kafka its consumer group, is \
                 named `{}` (each operation's Kafka binding).",
                consumer.name,
                asyncapi::TITLE,
                consumer.name,
                asyncapi::PATH,
                consumer.name
            ),
        );
    let servers = ["nats", "kafka"]
        .into_iter()
        .fold(Map::new(), |servers, name| {
            servers.with(
                name,
                reference(format!("../{}#/servers/{name}", asyncapi::PATH)),
            )
        });
    Ok(Map::new()
        .with("asyncapi", ASYNCAPI_VERSION)
        .with("info", info)
        .with("defaultContentType", "application/json")
        .with("servers", servers)
        .with("channels", channels)
        .with("operations", operations))
}

/// The id of the message of version `label` of `event` (`agreement.updated.v2`).
fn message_id(event: &EventType, label: &str, consumer: &str) -> Result<String, String> {
    event
        .versions
        .iter()
        .find(|v| v.label == label)
        .map(|v| v.id.clone())
        .ok_or_else(|| {
            format!(
                "contract `{consumer}` reads `{} {label}`, which the checked model does not have",
                event.name
            )
        })
}
