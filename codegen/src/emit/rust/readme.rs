//! The crate's `README.md`, which is also its front page in rustdoc (`lib.rs` includes it, so its Rust
//! examples are doctests of the crate): what it holds, how to read and how to build and publish an event,
//! its features, how to depend on it. Its `CHANGELOG.md` is a template (`codegen/templates/`).

use crate::model::{EventType, EventVersion, Model, Section, Type};
use crate::samples::{Optionals, event_payload};
use serde_json::Value;

/// The crate's version, written into its manifest; `CHANGELOG.md` says what each release changed.
pub(super) const CRATE_VERSION: &str = "1.0.0";

/// The README.
pub(super) fn readme(model: &Model) -> String {
    let event_types: usize = model.sections.iter().map(|s| s.events.len()).sum();
    let mut out = format!("<!-- {} -->\n", crate::emit::header_text());
    out.push_str(&format!(
        "# energy-api\n\n\
         Types of the energy supply platform's interface, generated from its YAML schemas: {} shared \
         payload types, {event_types} event types in {} payload versions, and {} REST resources with {} \
         endpoints, with serde; the OpenAPI and AsyncAPI documents of the same interface \
         (`openapi.yaml`, `asyncapi.yaml`) and a JSON Schema per event version (`schemas/`).\n\n",
        model.shared_types.len(),
        model.version_count(),
        model.rest.as_ref().map_or(0, |r| r.resources.len()),
        model.rest.as_ref().map_or(0, |r| r.endpoints.len()),
    ));
    out.push_str(
        "- `types`: payload types shared by several events;\n\
         - `events`: one struct per event payload version, a version enum per event type, and `Event` to \
         decode any payload by (event type, version);\n\
         - `rest` (feature `rest`): the REST resources, the paginated envelope and a request type per \
         endpoint;\n\
         - `documents` (feature `documents`): the OpenAPI and AsyncAPI documents, as text;\n\
         - `borrowed` (feature `borrowed`): the event payloads again as views whose strings point into the \
         input, and `EventRef` to decode any payload as one without copying its strings.\n\n\
         Unknown JSON fields are ignored when decoding, so that payloads with fields added later still \
         decode; types the schema marks incomplete keep them in `additional_fields`, each as its JSON \
         text (`RawJson`).\n\n\
         It depends on `energy-api-core` (the code every generated crate shares), which it expects as \
         the sibling folder `api-core`: vendor the two folders side by side, or publish both to your \
         registry (`cargo publish -p energy-api-core -p energy-api`).\n\n",
    );
    out.push_str(&producing(model));
    out.push_str(
        "## Features\n\n\
         On by default: `rest` (the REST resources and endpoint request types), `documents` (the \
         OpenAPI and AsyncAPI documents as constants), and one feature per section of the events \
         catalogue; a team that reads one domain compiles only its payloads and the shared types they \
         use. Off by default: `borrowed` (views of the payloads whose strings point into the input, \
         `EventRef`).\n\n",
    );
    for s in &model.sections {
        out.push_str(&format!(
            "- `{}`: {} ({} event types)\n",
            s.feature,
            s.title,
            s.events.len()
        ));
    }
    let feature = model
        .sections
        .iter()
        .find(|s| s.feature == "billing")
        .or(model.sections.first())
        .map_or(String::new(), |s| format!("\"{}\"", s.feature));
    out.push_str(&format!(
        "\n```toml\n[dependencies]\nenergy-api = {{ version = \"{}\", default-features = false, \
         features = [{feature}] }}\n```\n\n\
         ## Versions\n\n\
         The crate follows Cargo's semver rules, and its structs are made to grow: an optional field \
         added to a payload, a shared type, a REST resource or a request is a minor release, because \
         the structs are `#[non_exhaustive]` and built through `new` and setters, never by a struct \
         literal. A required field added, a field removed, renamed or retyped, a version removed is a \
         major one. `CHANGELOG.md` says what each release changed and what its users change.\n",
        major(CRATE_VERSION)
    ));
    out
}

/// `1` of `1.0.0`: what a dependency asks for.
fn major(version: &str) -> &str {
    version.split('.').next().unwrap_or(version)
}

/// "Producing an event": how a producer builds a payload (`new`, setters) and publishes it, with an
/// example on a version of the catalogue ([`example_version`]) that is a doctest of the crate.
fn producing(model: &Model) -> String {
    let mut out = String::from(
        "## Producing an event\n\n\
         Every payload, shared type, REST resource and request is `#[non_exhaustive]`: code outside the \
         crate reads its public fields and matches it with `..`, and builds it with `new`, which takes \
         the required fields in schema order (strings as anything that converts into a `String`), then \
         a `with_<field>` setter per optional field. A struct whose fields are all optional is also \
         `Default`. So a field added later breaks no producer that does not need it.\n\n",
    );
    let Some((section, event, version)) = example_version(model) else {
        return out;
    };
    let all = event_payload(model, version, Optionals::All);
    let payload = &version.payload;
    let arguments: Vec<String> = payload
        .fields
        .iter()
        .filter(|f| !f.optional)
        .map(|f| rust_literal(&f.ty, all.get(&f.name)))
        .collect();
    let setters: String = payload
        .fields
        .iter()
        .filter(|f| f.optional && is_scalar(&f.ty) && f.format.is_none())
        .take(1)
        .map(|f| {
            format!(
                "\n    .with_{}({})",
                crate::naming::unraw(&f.rust_name),
                rust_literal(&f.ty, all.get(&f.name))
            )
        })
        .collect();
    let (enum_name, struct_name) = (&event.rust_name, &payload.rust_name);
    out.push_str(&format!(
        "```rust\n\
         use energy_api::Event;\n\
         use energy_api::events::{{{enum_name}, {struct_name}}};\n\n\
         // `{}` {}: its required fields in schema order, then an optional one.\n\
         let payload = {struct_name}::new({}){setters};\n\
         let event = Event::from({enum_name}::from(payload));\n\
         assert_eq!((event.event_type().as_str(), event.version()), ({:?}, {:?}));\n\n\
         // The payload exactly as the platform sends it, and read back.\n\
         let json = event.to_payload_json();\n\
         assert_eq!(Event::decode({:?}, {:?}, &json)?, event);\n\
         # Ok::<(), energy_api::DecodeError>(())\n\
         ```\n\n",
        event.name,
        version.label,
        arguments.join(", "),
        event.name,
        version.label,
        event.name,
        version.label,
    ));
    out.push_str(&format!(
        "On the platform's bus, `energy-runtime` (feature `bus`) publishes it: checked against the \
         version's JSON Schema, then sent as a CloudEvent on the subject of its type and version \
         (section `{}`).\n\n\
         ```rust,ignore\n\
         let bus = energy_runtime::bus::Bus::connect(\"nats://127.0.0.1:4222\").await?;\n\
         let receipt = bus.publisher().publish(&event).await?;\n\
         ```\n\n",
        section.feature
    ));
    out
}

/// The version the README's example builds: the first of the catalogue, not deprecated, with an
/// optional field of a scalar type and required fields whose values are written as literals
/// ([`rust_literal`]).
fn example_version(model: &Model) -> Option<(&Section, &EventType, &EventVersion)> {
    model.events().find_map(|(section, event)| {
        event
            .versions
            .iter()
            .find(|v| {
                let fields = &v.payload.fields;
                v.alias_of.is_none()
                    && v.deprecated.is_none()
                    && !v.payload.free_form
                    && fields
                        .iter()
                        .any(|f| f.optional && is_scalar(&f.ty) && f.format.is_none())
                    && fields.iter().any(|f| !f.optional)
                    && fields
                        .iter()
                        .filter(|f| !f.optional)
                        .all(|f| !f.nullable && f.format.is_none() && literal_type(&f.ty))
            })
            .map(|v| (section, event, v))
    })
}

fn is_scalar(ty: &Type) -> bool {
    matches!(ty, Type::Str | Type::Int | Type::Num | Type::Bool)
}

/// A type whose value the example writes as a literal: a scalar or a free-form object.
fn literal_type(ty: &Type) -> bool {
    is_scalar(ty) || matches!(ty, Type::Obj)
}

/// A Rust literal of the sample `value` of a field of type `ty` (a free-form object as an empty map).
fn rust_literal(ty: &Type, value: Option<&Value>) -> String {
    match (ty, value) {
        (Type::Str, Some(Value::String(s))) => format!("{s:?}"),
        (Type::Int, Some(Value::Number(n))) => n.to_string(),
        (Type::Num, Some(Value::Number(n))) => {
            let text = n.to_string();
            if text.contains(['.', 'e']) {
                text
            } else {
                format!("{text}.0")
            }
        }
        (Type::Bool, Some(Value::Bool(b))) => b.to_string(),
        (Type::Str, _) => "\"text\"".to_owned(),
        (Type::Int, _) => "1".to_owned(),
        (Type::Num, _) => "1.0".to_owned(),
        (Type::Bool, _) => "true".to_owned(),
        _ => "serde_json::Map::new()".to_owned(),
    }
}
