//! `schema-format/*.json`: JSON Schemas (draft-07) of the YAML schema format itself, one per kind of
//! schema file, for editors. A YAML language server pointed at one (each file of `schema/` starts with
//! `# yaml-language-server: $schema=…`) completes keys and checks keys, kinds of values, required keys,
//! enumerated values and name patterns while the author types.
//!
//! The keys are the reader's own lists ([`crate::read::keys`]); every key of every list has a value
//! schema here, or generation fails, so that the JSON Schemas and the reader cannot drift apart. The
//! JSON Schemas check the shape of one file; what needs the whole schema (a named type that exists, a
//! cycle, two names that collide, a path parameter that matches the path) only the generator checks.

use super::tree::{Map, Node, reference, to_json};
pub use crate::read::keys;
use std::collections::BTreeMap;

/// The folder of the files, relative to `generated/`.
pub const DIR: &str = "schema-format";

/// The dialect of the files: draft-07, which every YAML language server reads.
pub const DRAFT: &str = "http://json-schema.org/draft-07/schema#";

/// The kinds of schema files, each with its JSON Schema's file name and title.
pub const FILES: [(FileKind, &str, &str); 4] = [
    (
        FileKind::Types,
        "types-file.json",
        "Shared types file of the energy interface schema (schema/types.yaml)",
    ),
    (
        FileKind::Rest,
        "rest-file.json",
        "REST file of the energy interface schema (schema/rest.yaml)",
    ),
    (
        FileKind::Section,
        "events-file.json",
        "Events file of the energy interface schema (schema/events/<section>.yaml)",
    ),
    (
        FileKind::Consumer,
        "consumer-file.json",
        "Consumer contract of the energy interface schema (schema/consumers/<name>.yaml)",
    ),
];

/// A kind of schema file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileKind {
    /// `schema/types.yaml`.
    Types,
    /// `schema/rest.yaml`.
    Rest,
    /// `schema/events/<section>.yaml`.
    Section,
    /// `schema/consumers/<name>.yaml`.
    Consumer,
}

/// The kind of a schema file, by its path relative to the schema folder.
pub fn kind_of(relative: &str) -> Option<FileKind> {
    match relative {
        "types.yaml" => Some(FileKind::Types),
        "rest.yaml" => Some(FileKind::Rest),
        _ if relative.starts_with("events/") && relative.ends_with(".yaml") => {
            Some(FileKind::Section)
        }
        _ if relative.starts_with("consumers/") && relative.ends_with(".yaml") => {
            Some(FileKind::Consumer)
        }
        _ => None,
    }
}

/// The path of a kind's JSON Schema, relative to `generated/`.
pub fn path(kind: FileKind) -> String {
    let name = FILES
        .iter()
        .find(|(k, _, _)| *k == kind)
        .map_or("", |(_, name, _)| name);
    format!("{DIR}/{name}")
}

/// The modeline a schema file starts with, at `relative` (its path in the schema folder), for a schema
/// folder beside `generated/`.
pub fn modeline(relative: &str) -> Option<String> {
    let kind = kind_of(relative)?;
    let up = "../".repeat(relative.matches('/').count() + 1);
    Some(format!(
        "# yaml-language-server: $schema={up}generated/{}",
        path(kind)
    ))
}

/// Field names: ASCII letters, digits and `_`, not starting with a digit; `?` marks an optional field.
const FIELD_NAME: &str = "^[A-Za-z_][A-Za-z0-9_]*[?]?$";

/// Version labels: `v1`, `v2`, … or `MAJOR.MINOR.PATCH`.
const VERSION_LABEL: &str = "^(v[1-9][0-9]*|[0-9]+[.][0-9]+[.][0-9]+)$";

/// How deep the type notation's pattern nests arrays around a type (the reader allows 16).
const MAX_ARRAY_DEPTH: usize = 16;

/// How deep the pattern nests type arguments (`map<map<Tariff>>` is two); each level doubles the
/// pattern, so it stops where schemas stop. Deeper types are checked by the generator alone.
const MAX_ARGUMENT_DEPTH: usize = 2;

/// The type notation as a pattern: a name, or a generic name applied to a type (`Page<Product>`,
/// `map<[str]>`), in balanced brackets (`[[str]]`), with spaces anywhere between.
fn type_notation_pattern() -> String {
    format!("^ *({}) *$", bracketed(MAX_ARGUMENT_DEPTH, MAX_ARRAY_DEPTH))
}

/// A name applied to at most `depth` levels of arguments, in up to `arrays` balanced brackets. Inside
/// an argument, two levels of brackets (`Page<[[T]]>`) keep the pattern small.
fn bracketed(depth: usize, arrays: usize) -> String {
    const NAME: &str = "[A-Za-z_][A-Za-z0-9_]*";
    let named = match depth {
        0 => NAME.to_owned(),
        _ => format!("{NAME}( *< *({}) *>)?", bracketed(depth - 1, 2)),
    };
    (0..=arrays)
        .map(|n| format!("(\\[ *){{{n}}}({named})( *\\]){{{n}}}"))
        .collect::<Vec<_>>()
        .join("|")
}

/// A mapping of the format: its keys, which of them are required, and what it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mapping {
    TypesFile,
    SectionFile,
    RestFile,
    AuthScheme,
    Endpoint,
    EventBase,
    RestBase,
    Type,
    Resource,
    Event,
    Version,
    RestField,
    Parameter,
    EventField,
    ConsumerFile,
    Read,
}

impl Mapping {
    fn keys(self) -> &'static [&'static str] {
        match self {
            Mapping::TypesFile => keys::TYPES_FILE,
            Mapping::SectionFile => keys::SECTION_FILE,
            Mapping::RestFile => keys::REST_FILE,
            Mapping::AuthScheme => keys::AUTH_SCHEME,
            Mapping::Endpoint => keys::ENDPOINT,
            Mapping::EventBase | Mapping::RestBase => keys::BASE,
            Mapping::Type => keys::TYPE,
            Mapping::Resource => keys::RESOURCE,
            Mapping::Event => keys::EVENT,
            Mapping::Version => keys::VERSION,
            Mapping::RestField => keys::REST_FIELD,
            Mapping::Parameter => keys::PARAMETER,
            Mapping::EventField => keys::EVENT_FIELD,
            Mapping::ConsumerFile => keys::CONSUMER_FILE,
            Mapping::Read => keys::READS,
        }
    }

    fn required(self) -> &'static [&'static str] {
        match self {
            Mapping::TypesFile => &["types"],
            Mapping::SectionFile => &["section", "description", "events"],
            Mapping::RestFile => &["title", "version", "description", "resources", "endpoints"],
            Mapping::AuthScheme => &["kind", "description"],
            Mapping::Endpoint => &["name", "method", "path", "description", "response"],
            Mapping::EventBase | Mapping::RestBase | Mapping::Type => &["description", "fields"],
            Mapping::Resource => &["description"],
            Mapping::Event => &["versions"],
            Mapping::Version => &[],
            Mapping::RestField | Mapping::Parameter => &["type", "description"],
            Mapping::EventField => &["type"],
            Mapping::ConsumerFile => &["consumer", "reads"],
            Mapping::Read => &["event", "versions"],
        }
    }

    /// The definition's name in the JSON Schema.
    fn definition(self) -> &'static str {
        match self {
            Mapping::TypesFile => "types_file",
            Mapping::SectionFile => "events_file",
            Mapping::RestFile => "rest_file",
            Mapping::AuthScheme => "authentication_scheme",
            Mapping::Endpoint => "endpoint",
            Mapping::EventBase => "event_base",
            Mapping::RestBase => "rest_base",
            Mapping::Type => "type",
            Mapping::Resource => "resource",
            Mapping::Event => "event",
            Mapping::Version => "version",
            Mapping::RestField => "rest_field",
            Mapping::Parameter => "parameter",
            Mapping::EventField => "event_field",
            Mapping::ConsumerFile => "consumer_file",
            Mapping::Read => "read",
        }
    }

    fn description(self) -> &'static str {
        match self {
            Mapping::TypesFile => {
                "`schema/types.yaml`: the payload types shared by several events."
            }
            Mapping::SectionFile => {
                "`schema/events/<section>.yaml`: one section of the events catalogue."
            }
            Mapping::RestFile => {
                "`schema/rest.yaml`: the REST API's resources, endpoints and authentication."
            }
            Mapping::AuthScheme => "A way to authenticate.",
            Mapping::Endpoint => "An endpoint of the REST API.",
            Mapping::EventBase | Mapping::RestBase => {
                "A set of fields that several types or versions include with `bases: [Name]`."
            }
            Mapping::Type => "A shared payload type.",
            Mapping::Resource => {
                "A REST resource: `fields`, or `type: obj` for a free-form JSON object kept whole."
            }
            Mapping::Event => {
                "An event type (`name`), or several sharing their versions (`names`), with its payload versions."
            }
            Mapping::Version => {
                "A payload version: `fields`, `bases` and `extends` (combined), or `payload: <SharedType>`."
            }
            Mapping::RestField => "A field in long form; REST fields are described.",
            Mapping::Parameter => {
                "A path or query parameter, described, with the rules a server enforces for it."
            }
            Mapping::EventField => "A field in long form.",
            Mapping::ConsumerFile => {
                "`schema/consumers/<name>.yaml`: what a consuming team reads of the events; `cargo xtask compat` names the contracts a change breaks."
            }
            Mapping::Read => {
                "An event type the consumer reads: the versions it decodes and, optionally, the fields."
            }
        }
    }

    /// The mappings whose definitions this one refers to.
    fn children(self) -> &'static [Mapping] {
        match self {
            Mapping::TypesFile => &[Mapping::Type, Mapping::EventField],
            Mapping::SectionFile => &[
                Mapping::EventBase,
                Mapping::Event,
                Mapping::Version,
                Mapping::EventField,
            ],
            Mapping::RestFile => &[
                Mapping::AuthScheme,
                Mapping::RestBase,
                Mapping::Resource,
                Mapping::Endpoint,
                Mapping::RestField,
                Mapping::Parameter,
            ],
            Mapping::ConsumerFile => &[Mapping::Read],
            _ => &[],
        }
    }
}

/// The JSON Schema of each kind of file.
pub fn emit() -> Result<BTreeMap<String, String>, String> {
    let mut files = BTreeMap::new();
    for (kind, _, title) in FILES {
        let root_mapping = match kind {
            FileKind::Types => Mapping::TypesFile,
            FileKind::Rest => Mapping::RestFile,
            FileKind::Section => Mapping::SectionFile,
            FileKind::Consumer => Mapping::ConsumerFile,
        };
        let mut definitions = Map::new()
            .with("text", text())
            .with("type_notation", type_notation());
        for m in root_mapping.children() {
            definitions.set(m.definition(), mapping_schema(*m)?);
        }
        let rest = kind == FileKind::Rest;
        if kind != FileKind::Consumer {
            definitions.set(fields_definition(rest), fields_schema(rest));
        }
        if rest {
            definitions.set("parameters", parameters_schema());
        }
        let root = Map::new()
            .with("$comment", super::header_text())
            .with("$schema", DRAFT)
            .with("title", title)
            .with_entries(&mapping_schema(root_mapping)?)
            .with("definitions", definitions);
        files.insert(path(kind), to_json(&root));
    }
    Ok(files)
}

fn fields_definition(rest: bool) -> &'static str {
    if rest { "rest_fields" } else { "event_fields" }
}

fn definition(name: &str) -> Map {
    reference(format!("#/definitions/{name}"))
}

fn described(description: &str, schema: Map) -> Map {
    Map::new()
        .with("description", description)
        .with_entries(&schema)
}

/// Some text (the reader refuses blank text).
fn text() -> Map {
    Map::new().with("type", "string").with("pattern", "\\S")
}

fn type_notation() -> Map {
    let notation = Map::new()
        .with("type", "string")
        .with("pattern", type_notation_pattern());
    let array = Map::new()
        .with("type", "array")
        .with("minItems", 1_i64)
        .with("maxItems", 1_i64)
        .with("items", definition("type_notation"));
    Map::new()
        .with(
            "description",
            "A type: `str`, `int`, `num`, `bool`, `obj` (free-form object), `[T]` (an array of T), \
             `map<T>` (an object whose member names are data, each value a T), a named type, or a \
             generic resource applied to a type (`Page<Product>`).",
        )
        .with("anyOf", vec![Node::Map(notation), Node::Map(array)])
}

/// A mapping of field names to fields: the short form `name: type` (events only), or the long form.
fn fields_schema(rest: bool) -> Map {
    let long = definition(if rest { "rest_field" } else { "event_field" });
    let value = if rest {
        long
    } else {
        Map::new().with(
            "anyOf",
            vec![Node::Map(definition("type_notation")), Node::Map(long)],
        )
    };
    Map::new()
        .with(
            "description",
            if rest {
                "Fields by name (`name?` for an optional one), each `{type: …, description: …}`."
            } else {
                "Fields by name (`name?` for an optional one): `name: type` or `name: {type: …}`."
            },
        )
        .with("type", "object")
        .with("propertyNames", Map::new().with("pattern", FIELD_NAME))
        .with("additionalProperties", value)
}

/// A mapping of parameter names to parameters in long form.
fn parameters_schema() -> Map {
    Map::new()
        .with(
            "description",
            "Parameters by name (`name?` for an optional one), each `{type: …, description: …}` with \
             its rules.",
        )
        .with("type", "object")
        .with("propertyNames", Map::new().with("pattern", FIELD_NAME))
        .with("additionalProperties", definition("parameter"))
}

fn integer() -> Map {
    Map::new().with("type", "integer")
}

fn enumeration(values: &[&str]) -> Map {
    Map::new().with("enum", values.to_vec())
}

fn names() -> Map {
    Map::new()
        .with("type", "array")
        .with("items", Map::new().with("type", "string"))
}

fn flag() -> Map {
    Map::new().with("type", "boolean")
}

fn string() -> Map {
    Map::new().with("type", "string")
}

fn map_of(value: Map) -> Map {
    Map::new()
        .with("type", "object")
        .with("additionalProperties", value)
}

/// What the value of `key` in `mapping` is.
fn value_schema(mapping: Mapping, key: &str) -> Result<Map, String> {
    let rest = matches!(
        mapping,
        Mapping::RestFile
            | Mapping::RestBase
            | Mapping::Resource
            | Mapping::Endpoint
            | Mapping::RestField
            | Mapping::Parameter
    );
    let fields = || definition(fields_definition(rest));
    let schema = match (mapping, key) {
        (_, "description") => described(
            "What it is (rustdoc, OpenAPI, AsyncAPI).",
            definition("text"),
        ),
        (Mapping::TypesFile, "types") => {
            described("The shared types, by name.", map_of(definition("type")))
        }
        (Mapping::SectionFile, "section") => {
            described("The section's title in the catalogue.", definition("text"))
        }
        (Mapping::SectionFile, "bases") => {
            described("Field sets, by name.", map_of(definition("event_base")))
        }
        (Mapping::SectionFile, "events") => described(
            "The section's event types.",
            Map::new()
                .with("type", "array")
                .with("items", definition("event")),
        ),
        (Mapping::RestFile, "title") => described("The API's title.", definition("text")),
        (Mapping::RestFile, "version") => {
            described("The API version, the first path segment (`v1`).", string())
        }
        (Mapping::RestFile, "authentication") => described(
            "The ways to authenticate, by name.",
            map_of(definition("authentication_scheme")),
        ),
        (Mapping::RestFile, "bases") => {
            described("Field sets, by name.", map_of(definition("rest_base")))
        }
        (Mapping::RestFile, "resources") => {
            described("The resources, by name.", map_of(definition("resource")))
        }
        (Mapping::RestFile, "error_response") => {
            described("The body of error responses.", definition("type_notation"))
        }
        (Mapping::RestFile, "endpoints") => described(
            "The endpoints.",
            Map::new()
                .with("type", "array")
                .with("items", definition("endpoint")),
        ),
        (Mapping::AuthScheme, "kind") => described(
            "`basic`: HTTP Basic; `authorization-header`: a token in `Authorization`.",
            enumeration(keys::AUTH_KINDS),
        ),
        (Mapping::Endpoint, "name") => described("The operation's name, snake_case.", string()),
        (Mapping::Endpoint, "method") => described("The HTTP method.", enumeration(keys::METHODS)),
        (Mapping::Endpoint, "path") => {
            described("The path, with `{parameter}` placeholders.", string())
        }
        (Mapping::Endpoint, "path_parameters") => described(
            "The path's parameters, in path order.",
            definition("parameters"),
        ),
        (Mapping::Endpoint, "query") => {
            described("The query parameters.", definition("parameters"))
        }
        (Mapping::Endpoint, "response") => {
            described("The response body.", definition("type_notation"))
        }
        (Mapping::Endpoint, "auth") => described(
            "Whether credentials are required (default `none`).",
            enumeration(keys::AUTH_REQUIREMENTS),
        ),
        (Mapping::EventBase | Mapping::RestBase | Mapping::Type | Mapping::Resource, "fields")
        | (Mapping::Version, "fields") => described("The fields.", fields()),
        (Mapping::Type | Mapping::Resource | Mapping::Version, "incomplete") => described(
            "The spec does not show every field: unlisted ones are kept (`additional_fields`).",
            flag(),
        ),
        (Mapping::Resource, "generic") => {
            described("The type parameter of a generic resource (`T`).", string())
        }
        (Mapping::Resource, "type") => described(
            "`obj`: a free-form JSON object kept whole (no `fields`).",
            enumeration(keys::RESOURCE_TYPES),
        ),
        (Mapping::Resource | Mapping::Version, "bases") => {
            described("The field sets it includes.", names())
        }
        (Mapping::Event, "name") => described("The event type (`agreement.updated`).", string()),
        (Mapping::Event, "names") => described(
            "Several event types sharing these versions.",
            names().with("minItems", 2_i64),
        ),
        (Mapping::Event, "rust_name") => described(
            "The Rust name, when two event types would otherwise get the same one.",
            string(),
        ),
        (Mapping::Event, "versions") => described(
            "The payload versions, by label (`v1`, `v2`, … or `1.0.0`).",
            Map::new()
                .with("type", "object")
                .with("minProperties", 1_i64)
                .with("propertyNames", Map::new().with("pattern", VERSION_LABEL))
                .with("additionalProperties", definition("version")),
        ),
        (Mapping::Version, "extends") => described(
            "The version whose fields this one starts with: `v1`, or `<event type> v1`.",
            string().with("pattern", "^ *[^ ]+( +[^ ]+)? *$"),
        ),
        (Mapping::Version, "payload") => {
            described("The payload is this shared type as a whole.", string())
        }
        (Mapping::RestField | Mapping::EventField | Mapping::Parameter, "type") => {
            described("The field's type.", definition("type_notation"))
        }
        (Mapping::RestField, "nullable") => described("The value may be `null`.", flag()),
        (Mapping::RestField | Mapping::Parameter, "format") => {
            described("The string's format.", enumeration(keys::FORMATS))
        }
        (Mapping::Parameter, "minimum") => {
            described("The least value of an `int` parameter.", integer())
        }
        (Mapping::Parameter, "maximum") => {
            described("The greatest value of an `int` parameter.", integer())
        }
        (Mapping::Parameter, "default") => described(
            "The value an absent optional `int` parameter takes (within the bounds).",
            integer(),
        ),
        (Mapping::Parameter, "not_after") => described(
            "Another date-time parameter of the endpoint this one may not be later than.",
            string(),
        ),
        (Mapping::RestField | Mapping::EventField | Mapping::Parameter, "renamed_from")
        | (Mapping::Event, "renamed_from") => described(
            "The former name (or names): decoders accept it too; `cargo xtask compat` pairs it with this one.",
            Map::new().with("oneOf", vec![Node::Map(string()), Node::Map(names())]),
        ),
        (Mapping::SectionFile, "reserved") => described(
            "Event type names no event may take again (names of removed event types).",
            names(),
        ),
        (Mapping::Type | Mapping::Resource | Mapping::Event, "reserved") => {
            described("Field names that may not be used (again).", names())
        }
        (Mapping::Type | Mapping::Resource | Mapping::Version | Mapping::Endpoint, "waivers") => {
            described(
                "Intentional incompatible changes, allowed by rule id and field path (`cargo xtask compat`).",
                Map::new().with("type", "array").with(
                    "items",
                    Map::new()
                        .with("type", "object")
                        .with("required", vec!["rule", "reason"])
                        .with(
                            "properties",
                            Map::new()
                                .with(
                                    "rule",
                                    described(
                                        "The rule's id.",
                                        enumeration(
                                            &crate::evolution::Rule::ALL
                                                .iter()
                                                .map(|r| r.id())
                                                .collect::<Vec<_>>(),
                                        ),
                                    ),
                                )
                                .with(
                                    "path",
                                    described("The field path the finding names.", string()),
                                )
                                .with(
                                    "reason",
                                    described("Why the break is intended.", definition("text")),
                                )
                                .with(
                                    "consumers",
                                    described(
                                        "The consumers (contract names) that agreed to the break; a contract it breaks whose consumer is not named keeps it an error.",
                                        names(),
                                    ),
                                ),
                        )
                        .with("additionalProperties", false),
                ),
            )
        }
        (Mapping::ConsumerFile, "consumer") => described(
            "The consumer's name: the file's stem.",
            string().with("pattern", "^[a-z][a-z0-9_-]*$"),
        ),
        (Mapping::ConsumerFile, "owner") => {
            described("Who to ask about it (a team's address).", string())
        }
        (Mapping::ConsumerFile, "status") => described(
            "`active` (default) contracts are checked; `retired` ones are kept, never checked.",
            enumeration(keys::CONSUMER_STATUSES),
        ),
        (Mapping::ConsumerFile, "reads") => described(
            "The event types it reads.",
            Map::new()
                .with("type", "array")
                .with("items", definition("read")),
        ),
        (Mapping::Read, "event") => described("The event type (`agreement.updated`).", string()),
        (Mapping::Read, "versions") => described(
            "The versions it decodes.",
            Map::new()
                .with("type", "array")
                .with("minItems", 1_i64)
                .with("items", string().with("pattern", VERSION_LABEL)),
        ),
        (Mapping::Read, "fields") => described(
            "The fields it reads, as JSON pointers from the payload's root (`/ledger/number`; `*` or an index for an array's elements); absent: every field.",
            Map::new()
                .with("type", "array")
                .with("items", string().with("pattern", "^/")),
        ),
        (Mapping::Version, "deprecated") => described(
            "Deprecated: removable from its sunset date on.",
            Map::new()
                .with("type", "object")
                .with("required", vec!["sunset"])
                .with(
                    "properties",
                    Map::new()
                        .with(
                            "sunset",
                            described(
                                "The date from which the version may be removed.",
                                string().with("pattern", "^[0-9]{4}-[0-9]{2}-[0-9]{2}$"),
                            ),
                        )
                        .with(
                            "note",
                            described("What to use instead.", definition("text")),
                        ),
                )
                .with("additionalProperties", false),
        ),
        _ => {
            return Err(format!(
                "the schema format's JSON Schema has no value for the key `{key}` of {}",
                mapping.definition()
            ));
        }
    };
    Ok(schema)
}

/// The schema of one mapping: its keys (and no others), the required ones, and the rules between keys.
fn mapping_schema(mapping: Mapping) -> Result<Map, String> {
    let mut properties = Map::new();
    for key in mapping.keys() {
        properties.set(*key, value_schema(mapping, key)?);
    }
    let mut schema = Map::new()
        .with("description", mapping.description())
        .with("type", "object");
    if !mapping.required().is_empty() {
        schema.set("required", mapping.required().to_vec());
    }
    schema.set("properties", properties);
    schema.set("additionalProperties", false);
    let required = |keys: &[&str]| Node::Map(Map::new().with("required", keys.to_vec()));
    match mapping {
        // `type: obj` or `fields`, never both.
        Mapping::Resource => {
            schema.set("oneOf", vec![required(&["type"]), required(&["fields"])]);
        }
        // `name` or `names`, never both.
        Mapping::Event => {
            schema.set("oneOf", vec![required(&["name"]), required(&["names"])]);
        }
        // Some fields, or a whole shared type, never both.
        Mapping::Version => {
            let composed = || {
                vec![
                    required(&["fields"]),
                    required(&["bases"]),
                    required(&["extends"]),
                ]
            };
            let mut any = composed();
            any.push(required(&["payload"]));
            schema.set("anyOf", any);
            schema.set("if", Map::new().with("required", vec!["payload"]));
            schema.set(
                "then",
                Map::new().with("not", Map::new().with("anyOf", composed())),
            );
        }
        // A format is a string's.
        Mapping::RestField => {
            schema.set("if", Map::new().with("required", vec!["format"]));
            schema.set(
                "then",
                Map::new().with(
                    "properties",
                    Map::new().with("type", Map::new().with("const", "str")),
                ),
            );
        }
        // An endpoint that requires credentials needs a way to authenticate.
        Mapping::RestFile => {
            let requires = Map::new().with("required", vec!["auth"]).with(
                "properties",
                Map::new().with("auth", Map::new().with("const", "required")),
            );
            schema.set(
                "if",
                Map::new().with("required", vec!["endpoints"]).with(
                    "properties",
                    Map::new().with("endpoints", Map::new().with("contains", requires)),
                ),
            );
            schema.set("then", Map::new().with("required", vec!["authentication"]));
        }
        _ => {}
    }
    Ok(schema)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modelines_point_from_each_kind_of_file_to_its_schema() {
        assert_eq!(
            modeline("types.yaml").as_deref(),
            Some("# yaml-language-server: $schema=../generated/schema-format/types-file.json")
        );
        assert_eq!(
            modeline("events/billing.yaml").as_deref(),
            Some("# yaml-language-server: $schema=../../generated/schema-format/events-file.json")
        );
        assert_eq!(modeline("notes.md"), None);
    }

    /// Every enumerated value the JSON Schemas offer is one the reader accepts.
    #[test]
    fn enumerated_values_are_the_readers() {
        for method in keys::METHODS {
            for auth in keys::AUTH_REQUIREMENTS {
                for kind in keys::AUTH_KINDS {
                    for format in keys::FORMATS {
                        let rest = format!(
                            "title: T\nversion: v1\ndescription: D.\n\
                             authentication: {{a: {{kind: {kind}, description: A.}}}}\n\
                             resources:\n  R: {{description: R., fields: {{when: {{type: str, format: {format}, description: W.}}}}}}\n  \
                             O: {{description: O., type: obj}}\n\
                             endpoints:\n  - {{name: get_r, method: {method}, path: /v1/r/, description: G., response: R, auth: {auth}}}\n"
                        );
                        let model = crate::build_model_in_memory(&[("rest.yaml", rest.as_bytes())]);
                        assert!(
                            model.is_ok(),
                            "{method} {auth} {kind} {format}: {:?}",
                            model.err().map(|f| f.render(false))
                        );
                    }
                }
            }
        }
    }
}
