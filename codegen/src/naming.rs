//! Every generated name, decided and checked in one place: Rust identifiers (fields, types, enum
//! variants), module and cargo feature names, OpenAPI and AsyncAPI component names, and the names the
//! generated crate defines itself, which no schema name may take.
//!
//! The resolver builds the model with schema names only; [`assign`] then gives every item its generated
//! names and reports, at the schema's own place, any that is invalid, reserved, or taken twice in one
//! namespace. Emitters read the names from the model and so cannot fail on one.

use crate::diag::{Code, Diagnostic, Diagnostics};
use crate::model::{Model, NamedRef, Struct, Type};
use crate::source::Span;
use heck::{ToSnakeCase, ToUpperCamelCase};
use std::collections::BTreeMap;

/// Rust keywords of edition 2024 (strict and reserved), which need a raw identifier or another name.
const KEYWORDS: &[&str] = &[
    "abstract", "as", "async", "await", "become", "box", "break", "const", "continue", "crate",
    "do", "dyn", "else", "enum", "extern", "false", "final", "fn", "for", "gen", "if", "impl",
    "in", "let", "loop", "macro", "match", "mod", "move", "mut", "override", "priv", "pub", "ref",
    "return", "self", "Self", "static", "struct", "super", "trait", "true", "try", "type",
    "typeof", "unsafe", "unsized", "use", "virtual", "where", "while", "yield",
];

/// Keywords that cannot be raw identifiers.
const NOT_RAW: &[&str] = &["crate", "self", "Self", "super"];

/// What the generated `events` module defines itself (in `events/mod.rs` and the templates it declares):
/// event enums, payload structs and section modules, all glob-imported into it, must not take these.
/// `reserved_names_are_what_the_crate_defines` (below) ties this list to the generated code.
pub const EVENTS_MODULE_ITEMS: &[&str] = &[
    "CATALOGUE",
    "DecodeError",
    "EVENT_TYPE_NAMES",
    "EVENT_TYPE_SLOTS",
    "Event",
    "EventKind",
    "EventRow",
    "EventType",
    "JSON_SCHEMA_ID_BASE",
    "PayloadError",
    "PayloadErrorKind",
    "PayloadRow",
    "PayloadValidator",
    "PayloadVersion",
    "SECTIONS",
    "TypedEvent",
    "UnknownEventType",
    "catalogue",
    "decode",
    "event_type_index",
    "json_path_at",
    "routing",
    "version_enum",
];

/// What the generated `rest` module defines itself, beside the resources and endpoint request types.
pub const REST_MODULE_ITEMS: &[&str] = &[
    "API_VERSION",
    "Endpoint",
    "ErrorResponse",
    "Method",
    "datetime",
];

/// The base of every JSON Schema file's `$id`: `<SCHEMA_ID_BASE>events/agreement.updated.v2.json`, also
/// the CloudEvents `dataschema` of each event on the bus. Decision: the spec gives no URL for the
/// schemas, so the base is under the reserved `.example` domain (nothing is ever fetched from it);
/// identifiers only need to be absolute and unique, and a team that publishes the files elsewhere keeps
/// them as names.
pub const SCHEMA_ID_BASE: &str = "https://schemas.energy-platform.example/";

/// The schema of every event's CloudEvents headers in the documents (`components/schemas`, and
/// `schemas/bus/`).
pub const CLOUD_EVENT_HEADERS: &str = "CloudEventHeaders";

/// The schema of a dead letter's headers.
pub const DEAD_LETTER_HEADERS: &str = "DeadLetterHeaders";

/// The schema of a dead letter's body.
pub const DEAD_LETTER_PAYLOAD: &str = "DeadLetterPayload";

/// Cargo feature names a section may not take.
const RESERVED_FEATURES: &[&str] = &["borrowed", "default", "documents", "rest"];

/// Crates the generated code names in `use` paths: a section module of the same name would make
/// `pub use <module>::*` ambiguous.
const EXTERN_CRATES: &[&str] = &[
    "alloc",
    "core",
    "energy_api_core",
    "jiff",
    "serde",
    "serde_json",
    "std",
];

/// Whether `s` is a Rust keyword.
pub fn is_keyword(s: &str) -> bool {
    KEYWORDS.contains(&s)
}

/// The Rust field name for a JSON field name: snake_case, a raw identifier for keywords (`r#type`),
/// a `_` suffix for the keywords that cannot be raw (`self_`).
pub fn field_ident(json: &str) -> String {
    let mut snake = json.to_snake_case();
    if snake.is_empty() || snake.starts_with(|c: char| c.is_ascii_digit()) {
        snake.insert_str(0, "field_");
    }
    if NOT_RAW.contains(&snake.as_str()) {
        format!("{snake}_")
    } else if is_keyword(&snake) {
        format!("r#{snake}")
    } else {
        snake
    }
}

/// The field name without a raw-identifier prefix (what serde sees).
pub fn unraw(ident: &str) -> &str {
    ident.strip_prefix("r#").unwrap_or(ident)
}

/// The Rust type name for an event type: `auth-server.access-token.issued` → `AuthServerAccessTokenIssued`.
pub fn event_ident(event_type: &str) -> String {
    event_type.to_upper_camel_case()
}

/// The Rust name of an endpoint's request type: `list_products` → `ListProducts`.
pub fn endpoint_ident(name: &str) -> String {
    name.to_upper_camel_case()
}

/// The module name of an events file stem: `account-users` → `account_users`.
pub fn module_ident(stem: &str) -> String {
    stem.to_snake_case()
}

/// The cargo feature of an events file stem: `account_users` → `account-users`.
pub fn feature_name(stem: &str) -> String {
    stem.to_snake_case().replace('_', "-")
}

/// The enum variant of a version label: `v2` → `V2`, `1.0.0` → `V1_0_0`.
pub fn version_variant(label: &str) -> String {
    match label.strip_prefix('v') {
        Some(n) => format!("V{n}"),
        None => format!("V{}", label.replace('.', "_")),
    }
}

/// A parsed version label, for ordering: `v2` < `v10`; `1.0.0` by its three numbers.
pub fn version_key(label: &str) -> Option<(u64, u64, u64)> {
    if let Some(n) = label.strip_prefix('v') {
        if n.starts_with('0') || n.is_empty() || !n.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        return n.parse().ok().map(|n| (n, 0, 0));
    }
    let parts: Vec<&str> = label.split('.').collect();
    if parts.len() != 3
        || parts
            .iter()
            .any(|p| p.is_empty() || !p.bytes().all(|b| b.is_ascii_digit()))
    {
        return None;
    }
    let n = |i: usize| parts[i].parse::<u64>().ok();
    Some((n(0)?, n(1)?, n(2)?))
}

/// The component name of a named type in the documents: its name, or for a generic type applied to an
/// argument the argument's name then the type's (`Page<Product>` → `ProductPage`).
pub fn component_name(r: &NamedRef) -> String {
    match &r.arg {
        None => r.name.clone(),
        Some(arg) => format!("{}{}", argument_name(arg), r.name),
    }
}

fn argument_name(ty: &Type) -> String {
    match ty {
        Type::Str => "String".to_owned(),
        Type::Int => "Integer".to_owned(),
        Type::Num => "Number".to_owned(),
        Type::Bool => "Boolean".to_owned(),
        Type::Obj => "Object".to_owned(),
        Type::Array(inner) => format!("{}List", argument_name(inner)),
        Type::Map(value) => format!("{}Map", argument_name(value)),
        Type::Named(r) => component_name(r),
        Type::Param(p) => p.clone(),
    }
}

/// Whether `s` is a valid PascalCase type name as the schema writes them.
pub fn is_type_name(s: &str) -> bool {
    s.starts_with(|c: char| c.is_ascii_uppercase())
        && s.chars().all(|c| c.is_ascii_alphanumeric())
        && s != "Self"
}

/// Whether `s` is a valid event type name: words of lowercase letters, digits, `_` and `-` joined by single
/// dots, starting with a letter.
pub fn is_event_name(s: &str) -> bool {
    s.starts_with(|c: char| c.is_ascii_lowercase())
        && s.chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || matches!(c, '.' | '_' | '-'))
        // Each word is a token of the event's bus subject: none may be empty.
        && energy_api_core::bus::literal_subject_error(s).is_none()
}

/// Whether `name` is a valid field name: ASCII letters, digits and `_`, not starting with a digit.
pub fn is_field_name(name: &str) -> bool {
    let mut chars = name.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Whether `name` is a valid endpoint name: snake_case, not a keyword.
pub fn is_endpoint_name(name: &str) -> bool {
    name.starts_with(|c: char| c.is_ascii_lowercase())
        && name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
        && !is_keyword(name)
}

/// Where the schema writes what [`assign`] names: the spans it reports at.
#[derive(Debug, Default)]
pub(crate) struct Places {
    /// Shared types, by name.
    pub shared_types: BTreeMap<String, Span>,
    /// REST resources, by name.
    pub resources: BTreeMap<String, Span>,
    /// Endpoints, by name.
    pub endpoints: BTreeMap<String, Span>,
    /// The type of error responses.
    pub error_response: Option<Span>,
    /// Event types, by name: where the type is named, and its `rust_name:` when it has one.
    pub events: BTreeMap<String, (Span, Option<(String, Span)>)>,
    /// Events files, by stem.
    pub sections: BTreeMap<String, Span>,
    /// Event versions, by (event type, label): where the label is written.
    pub versions: BTreeMap<(String, String), Span>,
    /// Former names of event types (`renamed_from:`), by former name: the event type and the place.
    pub former_events: BTreeMap<String, Vec<(String, Span)>>,
    /// Waivers, by (owner, rule, path); the owner is `version <type> <label>`, `type <name>`,
    /// `resource <name>` or `endpoint <name>`.
    pub waivers: BTreeMap<(String, String, String), Span>,
    /// Every field, by the schema name of its struct (`agreement.updated v2` for a payload) and its
    /// JSON name: where it is written (in a base, or a version it extends, for flattened fields).
    pub fields: BTreeMap<(String, String), Span>,
    /// The consuming teams' contracts, by name.
    pub consumers: BTreeMap<String, ConsumerPlaces>,
}

/// Where a contract writes its name and each of its references.
#[derive(Debug, Clone)]
pub(crate) struct ConsumerPlaces {
    /// `consumer:`.
    pub name: Span,
    /// Each entry of `reads`, in order.
    pub reads: Vec<ReadPlaces>,
}

/// Where an entry of a contract's `reads` writes its event type, versions and pointers.
#[derive(Debug, Clone)]
pub(crate) struct ReadPlaces {
    /// `event:`.
    pub event: Span,
    /// Each version.
    pub versions: Vec<Span>,
    /// Each field pointer.
    pub fields: Vec<Span>,
}

impl Places {
    /// The same places, in files whose ids are shifted by `offset` (see `SourceMap::append`).
    pub(crate) fn shifted(self, offset: u32) -> Places {
        let shift = |span: Span| Span {
            file: crate::source::FileId(span.file.0 + offset),
            ..span
        };
        let map = |m: BTreeMap<String, Span>| m.into_iter().map(|(k, v)| (k, shift(v))).collect();
        Places {
            shared_types: map(self.shared_types),
            resources: map(self.resources),
            endpoints: map(self.endpoints),
            error_response: self.error_response.map(shift),
            events: self
                .events
                .into_iter()
                .map(|(k, (at, rust))| (k, (shift(at), rust.map(|(n, s)| (n, shift(s))))))
                .collect(),
            sections: map(self.sections),
            fields: self
                .fields
                .into_iter()
                .map(|(k, v)| (k, shift(v)))
                .collect(),
            versions: self
                .versions
                .into_iter()
                .map(|(k, v)| (k, shift(v)))
                .collect(),
            former_events: self
                .former_events
                .into_iter()
                .map(|(k, v)| (k, v.into_iter().map(|(e, s)| (e, shift(s))).collect()))
                .collect(),
            waivers: self
                .waivers
                .into_iter()
                .map(|(k, v)| (k, shift(v)))
                .collect(),
            consumers: self
                .consumers
                .into_iter()
                .map(|(k, c)| {
                    let read = |r: ReadPlaces| ReadPlaces {
                        event: shift(r.event),
                        versions: r.versions.into_iter().map(shift).collect(),
                        fields: r.fields.into_iter().map(shift).collect(),
                    };
                    (
                        k,
                        ConsumerPlaces {
                            name: shift(c.name),
                            reads: c.reads.into_iter().map(read).collect(),
                        },
                    )
                })
                .collect(),
        }
    }
}

/// One namespace of generated names: the first claim of a name wins, a second one is reported with both
/// places.
struct Namespace {
    /// Where the names live, for messages: "the `events` module".
    label: &'static str,
    /// What the help of a collision suggests.
    remedy: &'static str,
    taken: BTreeMap<String, (String, Option<Span>)>,
}

impl Namespace {
    fn new(label: &'static str, remedy: &'static str) -> Self {
        Namespace {
            label,
            remedy,
            taken: BTreeMap::new(),
        }
    }

    /// Names the generated code defines itself in this namespace.
    fn reserve(mut self, names: &[&str]) -> Self {
        for name in names {
            self.taken.insert((*name).to_owned(), (String::new(), None));
        }
        self
    }

    /// Reports `name` if it is taken already, without taking it.
    fn check(&self, name: &str, what: String, span: Span, diags: &mut Diagnostics) {
        if let Some(d) = self.conflict(name, &what, span) {
            diags.push(d);
        }
    }

    /// Takes `name` for `what` (written at `span`), or reports why it cannot.
    fn claim(&mut self, name: &str, what: String, span: Span, diags: &mut Diagnostics) -> bool {
        match self.conflict(name, &what, span) {
            Some(d) => {
                diags.push(d);
                false
            }
            None => {
                self.taken.insert(name.to_owned(), (what, Some(span)));
                true
            }
        }
    }

    /// Why `what` cannot take `name`, if it cannot.
    fn conflict(&self, name: &str, what: &str, span: Span) -> Option<Diagnostic> {
        let (other, first) = self.taken.get(name)?;
        let d = match first {
            None => {
                let message = if what.ends_with(&format!("`{name}`")) {
                    format!("`{name}` is reserved")
                } else {
                    format!("{what} would be named `{name}`, which is reserved")
                };
                Diagnostic::new(Code::ReservedName, span, message).label(format!(
                    "the generated {} defines `{name}` itself",
                    self.label
                ))
            }
            Some(first) => Diagnostic::new(
                Code::NameCollision,
                span,
                format!(
                    "{what} and {other} are both named `{name}` in the {}",
                    self.label
                ),
            )
            .label("this one")
            .with_secondary(*first, "collides with this one"),
        };
        Some(d.with_help(self.remedy))
    }
}

/// Gives every item of `model` its generated names and checks them, reporting at `places`.
pub(crate) fn assign(model: &mut Model, places: &Places, diags: &mut Diagnostics) {
    let fallback = Span {
        file: crate::source::FileId(0),
        start: 0,
        end: 0,
    };
    let field_place = |owner: &str, field: &str| {
        places
            .fields
            .get(&(owner.to_owned(), field.to_owned()))
            .copied()
            .unwrap_or(fallback)
    };
    for s in &mut model.shared_types {
        s.rust_name = s.name.clone();
        name_fields(s, &field_place, diags);
    }
    if let Some(rest) = &mut model.rest {
        for r in &mut rest.resources {
            r.rust_name = r.name.clone();
            name_fields(r, &field_place, diags);
        }
        for e in &mut rest.endpoints {
            e.rust_name = endpoint_ident(&e.name);
            for f in e.path_parameters.iter_mut().chain(&mut e.query) {
                f.rust_name = field_ident(&f.name);
            }
        }
    }
    name_sections(model, places, diags);
    check_former_event_names(model, places, diags);
    check_rest(model, places, diags);
    check_asyncapi(model, places, diags);
}

/// Rust names of a struct's fields, each unique in the struct; former JSON names (`renamed_from:`) unique
/// among the struct's JSON names.
fn name_fields(s: &mut Struct, place: &dyn Fn(&str, &str) -> Span, diags: &mut Diagnostics) {
    let mut json = Namespace::new(
        "payload's JSON members",
        "a former name must not be another field's name",
    );
    for f in &s.fields {
        json.taken.insert(
            f.name.clone(),
            (format!("field `{}`", f.name), Some(place(&s.name, &f.name))),
        );
    }
    for f in &s.fields {
        for former in &f.renamed_from {
            let what = format!("the former name of field `{}`", f.name);
            json.claim(former, what, place(&s.name, &f.name), diags);
        }
    }
    let mut seen: BTreeMap<String, String> = BTreeMap::new();
    for f in &mut s.fields {
        f.rust_name = field_ident(&f.name);
        if let Some(first) = seen.get(&f.rust_name) {
            diags.push(
                Diagnostic::new(
                    Code::FieldNameCollision,
                    place(&s.name, &f.name),
                    format!(
                        "fields `{first}` and `{}` both become `{}` in Rust",
                        f.name, f.rust_name
                    ),
                )
                .label("this field")
                .with_secondary(place(&s.name, first), "collides with this one")
                .with_help("rename one of them: they differ only in case or separators"),
            );
        } else {
            seen.insert(f.rust_name.clone(), f.name.clone());
        }
    }
}

/// Module and feature names of sections, Rust names of event types, their versions and payloads; then
/// sections in module order.
fn name_sections(model: &mut Model, places: &Places, diags: &mut Diagnostics) {
    let place_of_section = |stem: &str| places.sections.get(stem).copied();
    let mut modules = Namespace::new(
        "`events` module",
        "rename the events file: its name is the module's and the cargo feature's",
    )
    .reserve(EVENTS_MODULE_ITEMS)
    .reserve(EXTERN_CRATES);
    let mut features =
        Namespace::new("`Cargo.toml`", "rename the events file").reserve(RESERVED_FEATURES);
    for section in &mut model.sections {
        section.module = module_ident(&section.stem);
        section.feature = feature_name(&section.stem);
        let Some(span) = place_of_section(&section.stem) else {
            continue;
        };
        let valid = !section.module.is_empty()
            && section.module.starts_with(|c: char| c.is_ascii_lowercase())
            && section
                .module
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
            && !is_keyword(&section.module)
            && section.module != "mod";
        if !valid {
            diags.push(
                Diagnostic::new(
                    Code::InvalidFileName,
                    span,
                    format!("events file `{}` cannot name a Rust module", section.stem),
                )
                .label(
                    "file stems are lowercase words joined by `-` or `_`, and not a Rust keyword",
                ),
            );
            continue;
        }
        let what = format!("events file `{}`", section.stem);
        if modules.claim(&section.module, what.clone(), span, diags) {
            features.claim(&section.feature, what, span, diags);
        }
    }
    model.sections.sort_by(|a, b| a.module.cmp(&b.module));

    // Event enums and payload structs are items of their section's module, glob-imported into `events`:
    // one namespace, with what `events` defines itself.
    let mut items = Namespace::new("`events` module", "give the event type a `rust_name:`")
        .reserve(EVENTS_MODULE_ITEMS);
    for section in &mut model.sections {
        for event in &mut section.events {
            let Some((span, rust_name)) = places.events.get(&event.name) else {
                continue;
            };
            let (name, span) = match rust_name {
                Some((name, at)) => (name.clone(), *at),
                None => (event_ident(&event.name), *span),
            };
            event.rust_name = name;
            for v in &mut event.versions {
                // The stable id of a version, the key of its AsyncAPI message and JSON Schema file.
                v.id = format!("{}.{}", event.name, v.label);
                v.variant = version_variant(&v.label);
                v.payload.rust_name = format!("{}{}", event.rust_name, v.variant);
            }
            if !is_type_name(&event.rust_name) {
                diags.push(
                    Diagnostic::new(
                        Code::InvalidTypeName,
                        span,
                        format!("`{}` is not a valid Rust type name", event.rust_name),
                    )
                    .label("Rust names of events are PascalCase"),
                );
                continue;
            }
            let own = format!("event type `{}`", event.name);
            if !items.claim(&event.rust_name, own, span, diags) {
                continue;
            }
            for v in &event.versions {
                let what = format!("payload `{} {}`", event.name, v.label);
                items.claim(&v.payload.rust_name, what, span, diags);
            }
            for v in &mut event.versions {
                let owner = v.payload.name.clone();
                name_fields(
                    &mut v.payload,
                    &|_, field| {
                        places
                            .fields
                            .get(&(owner.clone(), field.to_owned()))
                            .copied()
                            .unwrap_or(span)
                    },
                    diags,
                );
            }
        }
    }
}

/// Former names of event types (`renamed_from:`) are names on the bus too: none may be a current event
/// type's name, or the former name of two.
fn check_former_event_names(model: &Model, places: &Places, diags: &mut Diagnostics) {
    let mut bus = Namespace::new(
        "event bus's event types",
        "a former name must not be in use",
    );
    for (_, event) in model.events() {
        if let Some(&(span, _)) = places.events.get(&event.name) {
            bus.taken.insert(
                event.name.clone(),
                (format!("event type `{}`", event.name), Some(span)),
            );
        }
    }
    for (former, claims) in &places.former_events {
        for (event, span) in claims {
            let what = format!("the former name of `{event}`");
            bus.claim(former, what, *span, diags);
        }
    }
}

/// The `rest` module's names (resources, request types, what the module defines) and the OpenAPI
/// document's component names (resources, and each generic resource applied to an argument).
fn check_rest(model: &Model, places: &Places, diags: &mut Diagnostics) {
    let Some(rest) = &model.rest else {
        return;
    };
    let mut items = Namespace::new("`rest` module", "rename the resource or endpoint")
        .reserve(REST_MODULE_ITEMS);
    let mut components = Namespace::new(
        "OpenAPI document's `components/schemas`",
        "rename the resource: the document names each use of a generic resource after its argument",
    );
    for (r, used_at) in applied_generics(rest, places) {
        let what = Type::Named(r.clone()).describe();
        let name = component_name(r);
        // The same application used in several places is one component.
        if components.taken.get(&name).is_some_and(|(w, _)| *w == what) {
            continue;
        }
        components.claim(&name, what, used_at, diags);
    }
    for r in &rest.resources {
        let Some(&span) = places.resources.get(&r.name) else {
            continue;
        };
        let what = format!("resource `{}`", r.name);
        if items.claim(&r.rust_name, what.clone(), span, diags) {
            components.claim(&r.name, what, span, diags);
        }
    }
    for e in &rest.endpoints {
        let Some(&span) = places.endpoints.get(&e.name) else {
            continue;
        };
        items.claim(&e.rust_name, format!("endpoint `{}`", e.name), span, diags);
        // Path and query parameters are the fields of one request type.
        let mut fields = Namespace::new("request type", "rename one of the parameters");
        for f in e.path_parameters.iter().chain(&e.query) {
            let at = places
                .fields
                .get(&(e.name.clone(), f.name.clone()))
                .copied()
                .unwrap_or(span);
            let what = format!("parameter `{}`", f.name);
            fields.claim(&f.rust_name, what, at, diags);
        }
    }
}

/// Every generic resource applied to an argument (innermost first), with where it is used: the endpoint
/// or resource whose type holds it.
fn applied_generics<'m>(
    rest: &'m crate::model::Rest,
    places: &Places,
) -> Vec<(&'m NamedRef, Span)> {
    fn walk<'m>(ty: &'m Type, at: Span, out: &mut Vec<(&'m NamedRef, Span)>) {
        match ty {
            Type::Array(inner) | Type::Map(inner) => walk(inner, at, out),
            Type::Named(r) => {
                if let Some(arg) = &r.arg {
                    walk(arg, at, out);
                    out.push((r, at));
                }
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    for e in &rest.endpoints {
        if let Some(&at) = places.endpoints.get(&e.name) {
            walk(&e.response, at, &mut out);
        }
    }
    for r in &rest.resources {
        for f in &r.fields {
            if let Some(&at) = places.fields.get(&(r.name.clone(), f.name.clone())) {
                walk(&f.ty, at, &mut out);
            }
        }
    }
    if let (Some(ty), Some(at)) = (&rest.error_response, places.error_response) {
        walk(ty, at, &mut out);
    }
    out
}

/// The AsyncAPI document's `components/schemas`: shared types and payload structs share it, and model
/// generators name the channels' unions (the channel keys, the event types' Rust names) beside them. (Two
/// payloads or event types of one name already collide in the `events` module.)
fn check_asyncapi(model: &Model, places: &Places, diags: &mut Diagnostics) {
    let mut components = Namespace::new(
        "AsyncAPI document's `components/schemas`",
        "rename the shared type, or give the event type a `rust_name:`",
    )
    .reserve(&[
        CLOUD_EVENT_HEADERS,
        DEAD_LETTER_HEADERS,
        DEAD_LETTER_PAYLOAD,
    ]);
    for t in &model.shared_types {
        if let Some(&span) = places.shared_types.get(&t.name) {
            components.claim(&t.name, format!("shared type `{}`", t.name), span, diags);
        }
    }
    for (_, event) in model.events() {
        let Some(&(span, _)) = places.events.get(&event.name) else {
            continue;
        };
        for v in &event.versions {
            let what = format!("payload `{} {}`", event.name, v.label);
            components.check(&v.payload.rust_name, what, span, diags);
        }
        // The channel is keyed by the event type's Rust name, which model generators give the union of
        // its payload versions, beside the component schemas.
        let what = format!("the channel of `{}`", event.name);
        components.check(&event.rust_name, what, span, diags);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    /// The names a generated module defines at its top level, but for the section modules and their
    /// glob imports (`#[cfg(feature)]` items).
    fn defined_names(source: &str) -> BTreeSet<String> {
        let file = syn::parse_file(source).expect("generated Rust parses");
        let mut names = BTreeSet::new();
        for item in &file.items {
            let behind_feature =
                |attrs: &[syn::Attribute]| attrs.iter().any(|a| a.path().is_ident("cfg"));
            let ident = match item {
                syn::Item::Mod(m) if !behind_feature(&m.attrs) => Some(&m.ident),
                syn::Item::Enum(e) => Some(&e.ident),
                syn::Item::Struct(s) => Some(&s.ident),
                syn::Item::Type(t) => Some(&t.ident),
                syn::Item::Trait(t) => Some(&t.ident),
                syn::Item::Const(c) => Some(&c.ident),
                syn::Item::Static(s) => Some(&s.ident),
                syn::Item::Fn(f) => Some(&f.sig.ident),
                syn::Item::Use(u) if !behind_feature(&u.attrs) => {
                    let mut leaves = Vec::new();
                    use_leaves(&u.tree, &mut leaves);
                    names.extend(leaves);
                    None
                }
                _ => None,
            };
            names.extend(ident.map(ToString::to_string));
        }
        names
    }

    fn use_leaves(tree: &syn::UseTree, out: &mut Vec<String>) {
        match tree {
            syn::UseTree::Path(p) => use_leaves(&p.tree, out),
            syn::UseTree::Name(n) => out.push(n.ident.to_string()),
            syn::UseTree::Rename(r) => out.push(r.rename.to_string()),
            syn::UseTree::Group(g) => g.items.iter().for_each(|t| use_leaves(t, out)),
            syn::UseTree::Glob(_) => {}
        }
    }

    #[test]
    fn reserved_names_are_what_the_crate_defines() {
        let schema = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../schema");
        let model = crate::build_model(&schema)
            .map_err(|f| f.render(false))
            .expect("the real schema builds");
        let files = crate::emit::rust::emit(&model, None).expect("the crate is generated");

        let mut events = defined_names(&files["src/events/mod.rs"]);
        // What its `energy_api_core::event_enum!` invocation defines.
        assert!(
            files["src/events/mod.rs"].contains("::energy_api_core::event_enum! {\n    owned;")
        );
        events.extend(["Event".to_owned(), "EventType".to_owned()]);
        let reserved: BTreeSet<String> = EVENTS_MODULE_ITEMS
            .iter()
            .map(|s| (*s).to_owned())
            .collect();
        assert_eq!(
            events, reserved,
            "EVENTS_MODULE_ITEMS is what `events/mod.rs` defines"
        );

        let rest = model.rest.as_ref().expect("a REST API");
        let mut from_schema: BTreeSet<String> =
            rest.resources.iter().map(|r| r.rust_name.clone()).collect();
        from_schema.extend(rest.endpoints.iter().map(|e| e.rust_name.clone()));
        let own: BTreeSet<String> = defined_names(&files["src/rest/mod.rs"])
            .difference(&from_schema)
            .cloned()
            .collect();
        let reserved: BTreeSet<String> =
            REST_MODULE_ITEMS.iter().map(|s| (*s).to_owned()).collect();
        assert_eq!(
            own, reserved,
            "REST_MODULE_ITEMS is what `rest/mod.rs` defines beside the schema's items"
        );
    }

    #[test]
    fn keywords_become_valid_identifiers() {
        assert_eq!(field_ident("type"), "r#type");
        assert_eq!(field_ident("match"), "r#match");
        assert_eq!(field_ident("self"), "self_");
        assert_eq!(field_ident("account_number"), "account_number");
        assert_eq!(field_ident("userId"), "user_id");
        assert_eq!(unraw("r#type"), "type");
    }

    #[test]
    fn event_names_become_type_names() {
        assert_eq!(
            event_ident("auth-server.access-token.issued"),
            "AuthServerAccessTokenIssued"
        );
        assert_eq!(
            event_ident("lifecycle.join_supplier._ensure_payment_instructions.step_initiated"),
            "LifecycleJoinSupplierEnsurePaymentInstructionsStepInitiated"
        );
        assert_eq!(version_variant("v2"), "V2");
        assert_eq!(version_variant("1.0.0"), "V1_0_0");
    }

    #[test]
    fn versions_order_numerically() {
        assert!(version_key("v2") < version_key("v10"));
        assert_eq!(version_key("1.0.0"), Some((1, 0, 0)));
        for bad in ["V1", "v0", "v", "1.0", "v1.0", "version1", "v01", "1.0.x"] {
            assert_eq!(version_key(bad), None, "{bad}");
        }
    }

    #[test]
    fn generic_components_are_named_after_their_argument() {
        let named = |name: &str, arg: Option<Type>| NamedRef {
            id: crate::model::TypeId::Resource(0),
            name: name.to_owned(),
            arg: arg.map(Box::new),
        };
        let product = Type::Named(named("Product", None));
        assert_eq!(component_name(&named("Page", Some(product))), "ProductPage");
        let list = Type::Array(Box::new(Type::Str));
        assert_eq!(component_name(&named("Page", Some(list))), "StringListPage");
    }
}
