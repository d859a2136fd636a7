//! The resolved model: every name resolved, every base and `extends` flattened, every generated name
//! chosen (by `naming`), everything in a deterministic order. Emitters read only this.

pub use crate::ast::{AuthKind, Format};

/// The whole interface.
#[derive(Debug, Clone, PartialEq, Hash)]
pub struct Model {
    /// Shared payload types of the events, by name.
    pub shared_types: Vec<Struct>,
    /// Catalogue sections, by module name; each holds its event types by name.
    pub sections: Vec<Section>,
    /// The REST API, when `rest.yaml` exists.
    pub rest: Option<Rest>,
    /// The consuming teams' contracts (`consumers/<name>.yaml`), by name.
    pub consumers: Vec<Consumer>,
    /// The Protobuf field numbers of every event struct (see [`FieldNumbers`]).
    pub field_numbers: FieldNumbers,
    /// What the traffic profile beside the schema compiles per type (nothing without one; see
    /// [`crate::profile`]).
    pub compiled: Compiled,
}

/// The Protobuf field numbers of every shared type (keyed by its name) and every event payload version
/// (keyed by its id, `agreement.updated.v2`): the field names in number order, so that a field's number
/// is its position plus one. The published ones come from `schema/published.lock` and never change; a
/// field the baseline lacks gets the next number, wherever it is written; a field renamed keeps its
/// number; a field removed keeps its slot (reserved in the `.proto`). A struct that keeps unlisted
/// members has a slot [`ADDITIONAL_FIELDS`] for them.
pub type FieldNumbers = std::collections::BTreeMap<String, Vec<String>>;

/// The name of the member that carries an incomplete struct's unlisted members, in the Avro and Protobuf
/// schemas (the Rust field's name; no JSON field of such a struct may have it).
pub const ADDITIONAL_FIELDS: &str = "additional_fields";

/// A consuming team's contract: what it reads of the events. `cargo xtask compat` names the contracts
/// a change breaks; the generator writes each as an AsyncAPI document of what it receives.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Consumer {
    /// Its name (the file's stem).
    pub name: String,
    /// Who to ask about it.
    pub owner: Option<String>,
    /// Checked (`active`), or kept for the record and never checked (`retired`).
    pub active: bool,
    /// The event types it reads, in the order written.
    pub reads: Vec<ConsumerRead>,
}

/// One event type a contract reads.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ConsumerRead {
    /// The event type, as the contract names it.
    pub event: String,
    /// The versions it decodes.
    pub versions: Vec<String>,
    /// The JSON pointers it reads (`/ledger/number`); `None` when it reads every field.
    pub fields: Option<Vec<String>>,
}

/// A type of a field.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Type {
    /// A string.
    Str,
    /// An integer (i64).
    Int,
    /// A number (f64; JSON integers accepted).
    Num,
    /// A boolean.
    Bool,
    /// A free-form JSON object.
    Obj,
    /// An array.
    Array(Box<Type>),
    /// A JSON object whose member names are data (string keys), each value of one type.
    Map(Box<Type>),
    /// A named struct (a shared type, or a REST resource), possibly applied to a type argument.
    Named(NamedRef),
    /// The type parameter of a generic resource.
    Param(String),
}

/// A reference to a named struct.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct NamedRef {
    /// The struct referred to.
    pub id: TypeId,
    /// Its name, which is also its Rust name and its component name in the documents.
    pub name: String,
    /// The type argument of a generic resource.
    pub arg: Option<Box<Type>>,
}

impl NamedRef {
    /// The index of the struct in its list ([`Model::shared_types`] or [`Rest::resources`]).
    pub fn index(&self) -> usize {
        match self.id {
            TypeId::Shared(i) | TypeId::Resource(i) => i,
        }
    }
}

/// Which named struct a reference points at. Event payloads can refer only to shared types and REST
/// resources only to resources, so the two never mix; the id says which list to look in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum TypeId {
    /// A shared payload type: its index in [`Model::shared_types`].
    Shared(usize),
    /// A REST resource: its index in [`Rest::resources`].
    Resource(usize),
}

impl Type {
    /// A short English description, for generated docs: "array of string".
    pub fn describe(&self) -> String {
        match self {
            Type::Str => "string".to_owned(),
            Type::Int => "integer".to_owned(),
            Type::Num => "number".to_owned(),
            Type::Bool => "boolean".to_owned(),
            Type::Obj => "free-form object".to_owned(),
            Type::Array(inner) => format!("array of {}", inner.describe()),
            Type::Map(value) => format!("map of {}", value.describe()),
            Type::Named(r) => match &r.arg {
                Some(a) => format!("`{}` of {}", r.name, a.describe()),
                None => format!("`{}`", r.name),
            },
            Type::Param(p) => format!("`{p}`"),
        }
    }
}

/// A struct: a shared type, an event payload version, or a REST resource.
#[derive(Debug, Clone, PartialEq, Hash)]
pub struct Struct {
    /// Schema name (`Ledger`; `agreement.updated v2` for a payload).
    pub name: String,
    /// Rust name.
    pub rust_name: String,
    /// Documentation.
    pub doc: String,
    /// Fields, in declared order (from `extends`, then bases, then its own).
    pub fields: Vec<Field>,
    /// The spec does not show every field: unlisted ones are kept in a map.
    pub incomplete: bool,
    /// The type parameter, for a generic resource.
    pub generic: Option<String>,
    /// A free-form JSON object kept whole, with no declared fields.
    pub free_form: bool,
    /// Intentional incompatible changes of a shared type or resource (see [`Waiver`]).
    pub waivers: Vec<Waiver>,
}

/// An intentional incompatible change, allowed by the schema: the finding of `cargo xtask compat` with
/// this rule and path is reported as waived, not as an error.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Waiver {
    /// The rule's id, such as `field-removed-required`.
    pub rule: String,
    /// The field path of the finding, relative to the item that holds the waiver.
    pub path: String,
    /// Why the break is intended.
    pub reason: String,
    /// The consumers (contract names) that agreed to the break: a contract the change breaks whose
    /// consumer is not named keeps it an error.
    pub consumers: Vec<String>,
}

/// An event version that is going away.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Deprecation {
    /// From this date (`YYYY-MM-DD`) on, the version may be removed.
    pub sunset: String,
    /// What to use instead.
    pub note: Option<String>,
}

/// One field.
#[derive(Debug, Clone, PartialEq, Hash)]
pub struct Field {
    /// JSON name.
    pub name: String,
    /// Rust identifier (a raw identifier such as `r#type` for keywords).
    pub rust_name: String,
    /// Type.
    pub ty: Type,
    /// May be absent.
    pub optional: bool,
    /// May be `null`.
    pub nullable: bool,
    /// Value format.
    pub format: Option<Format>,
    /// What the field means, when the schema says.
    pub description: Option<String>,
    /// Where a flattened field came from: `base UB`, `agreement.updated v1`.
    pub origin: Option<String>,
    /// Boxed in Rust, because the field's type contains the struct itself.
    pub boxed: bool,
    /// JSON names the field had before: decoders accept them too.
    pub renamed_from: Vec<String>,
    /// A parameter's rules (none for a field).
    pub rules: ParamRules,
}

/// The rules of a path or query parameter, which a server enforces and the documents state.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct ParamRules {
    /// The least value of an integer.
    pub minimum: Option<i64>,
    /// The greatest value of an integer.
    pub maximum: Option<i64>,
    /// The value an absent integer parameter takes.
    pub default: Option<i64>,
    /// Another date-time parameter of the endpoint this one may not be later than (JSON name).
    pub not_after: Option<String>,
}

impl ParamRules {
    /// Whether no rule is set.
    pub fn is_empty(&self) -> bool {
        *self == Self::default()
    }
}

impl Field {
    /// Absent or `null` both read as "no value".
    pub fn is_option(&self) -> bool {
        self.optional || self.nullable
    }
}

/// A catalogue section: one events file, one Rust module, one cargo feature.
#[derive(Debug, Clone, PartialEq, Hash)]
pub struct Section {
    /// File stem.
    pub stem: String,
    /// Rust module name.
    pub module: String,
    /// Cargo feature name.
    pub feature: String,
    /// Title in the catalogue.
    pub title: String,
    /// Documentation.
    pub doc: String,
    /// Event types, by name.
    pub events: Vec<EventType>,
}

/// An event type with all its payload versions.
#[derive(Debug, Clone, PartialEq, Hash)]
pub struct EventType {
    /// The event type, e.g. `agreement.updated`.
    pub name: String,
    /// Rust name of its version enum and `Event` variant, e.g. `AgreementUpdated`.
    pub rust_name: String,
    /// What the event is, when the schema says.
    pub description: Option<String>,
    /// Names the event type had before: decoders accept events under them too.
    pub renamed_from: Vec<String>,
    /// Versions, oldest first.
    pub versions: Vec<EventVersion>,
}

/// One payload version of an event type.
#[derive(Debug, Clone, PartialEq, Hash)]
pub struct EventVersion {
    /// Label as emitted: `v1`, `1.0.0`.
    pub label: String,
    /// Rust enum variant: `V1`, `V1_0_0`.
    pub variant: String,
    /// Stable identifier: `agreement.updated.v2`.
    pub id: String,
    /// What this version is or changed, when the schema says.
    pub description: Option<String>,
    /// The version whose fields this one starts with: `agreement.updated v1`.
    pub extends: Option<String>,
    /// Bases whose fields it includes.
    pub bases: Vec<String>,
    /// The payload is this shared type as a whole; `payload` then holds that type's fields.
    pub alias_of: Option<NamedRef>,
    /// The payload (its `doc` is generated from the above).
    pub payload: Struct,
    /// Deprecated, with the date from which it may be removed.
    pub deprecated: Option<Deprecation>,
    /// Intentional incompatible changes of this version (see [`Waiver`]).
    pub waivers: Vec<Waiver>,
}

/// The REST API.
#[derive(Debug, Clone, PartialEq, Hash)]
pub struct Rest {
    /// API title.
    pub title: String,
    /// API version (`v1`).
    pub version: String,
    /// Documentation, with the API's rules.
    pub doc: String,
    /// Authentication schemes, by name.
    pub auth: Vec<AuthScheme>,
    /// Resources, by name.
    pub resources: Vec<Struct>,
    /// Body of error responses.
    pub error_response: Option<Type>,
    /// Endpoints, in declared order.
    pub endpoints: Vec<Endpoint>,
}

/// One way to authenticate.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct AuthScheme {
    /// Name.
    pub name: String,
    /// How it works.
    pub kind: AuthKind,
    /// Documentation.
    pub doc: String,
}

/// A REST endpoint.
#[derive(Debug, Clone, PartialEq, Hash)]
pub struct Endpoint {
    /// Operation name, snake_case.
    pub name: String,
    /// Rust name of its request type, e.g. `ListProducts`.
    pub rust_name: String,
    /// HTTP method.
    pub method: String,
    /// Path with `{param}` placeholders.
    pub path: String,
    /// Path split into literal text and parameters.
    pub segments: Vec<PathSegment>,
    /// Documentation.
    pub doc: String,
    /// Path parameters, in path order.
    pub path_parameters: Vec<Field>,
    /// Query parameters.
    pub query: Vec<Field>,
    /// Response body.
    pub response: Type,
    /// Credentials required.
    pub auth_required: bool,
    /// Intentional incompatible changes of the endpoint (see [`Waiver`]).
    pub waivers: Vec<Waiver>,
}

/// A piece of an endpoint path.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum PathSegment {
    /// Literal text.
    Literal(String),
    /// A path parameter, by JSON name.
    Param(String),
}

impl Model {
    /// Every event type, by name across sections, with its section.
    pub fn events(&self) -> impl Iterator<Item = (&Section, &EventType)> {
        let mut all: Vec<_> = self
            .sections
            .iter()
            .flat_map(|s| s.events.iter().map(move |e| (s, e)))
            .collect();
        all.sort_by(|a, b| a.1.name.cmp(&b.1.name));
        all.into_iter()
    }

    /// Number of event type/version pairs.
    pub fn version_count(&self) -> usize {
        self.sections
            .iter()
            .flat_map(|s| &s.events)
            .map(|e| e.versions.len())
            .sum()
    }

    /// A shared type by name.
    pub fn shared_type(&self, name: &str) -> Option<&Struct> {
        self.shared_types
            .binary_search_by(|t| t.name.as_str().cmp(name))
            .ok()
            .map(|i| &self.shared_types[i])
    }

    /// Every shared type the structs `roots` refer to, directly or through other shared types, by name.
    pub fn shared_types_reached(&self, roots: &[&Struct]) -> Vec<&Struct> {
        let mut found: std::collections::BTreeMap<&str, &Struct> =
            std::collections::BTreeMap::new();
        let mut pending: Vec<&Struct> = roots.to_vec();
        while let Some(s) = pending.pop() {
            for f in &s.fields {
                let mut ty = &f.ty;
                while let Type::Array(inner) | Type::Map(inner) = ty {
                    ty = inner;
                }
                if let Type::Named(r) = ty
                    && let TypeId::Shared(_) = r.id
                {
                    let t = self.named(r.id);
                    if found.insert(t.name.as_str(), t).is_none() {
                        pending.push(t);
                    }
                }
            }
        }
        found.into_values().collect()
    }

    /// The Protobuf field number of `field` in the struct keyed `key` (see [`FieldNumbers`]).
    pub fn field_number(&self, key: &str, field: &str) -> Option<u32> {
        let slots = self.field_numbers.get(key)?;
        let i = slots.iter().position(|s| s == field)?;
        u32::try_from(i + 1).ok()
    }

    /// The struct a reference points at.
    pub fn named(&self, id: TypeId) -> &Struct {
        match id {
            TypeId::Shared(i) => &self.shared_types[i],
            TypeId::Resource(i) => match &self.rest {
                Some(rest) => &rest.resources[i],
                // A resource id exists only in a model with a REST API.
                None => unreachable!("resource {i} of a model without a REST API"),
            },
        }
    }
}

/// What the traffic profile beside the schema (`crate::profile`) compiles per type: payload versions by id
/// (`agreement.updated.v2`) and the shared types their payloads reach, by name.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct Compiled {
    /// Ids of the versions whose payload struct is compiled per type.
    pub versions: std::collections::BTreeSet<String>,
    /// Names of the shared types compiled per type: those the versions' payloads hold (or are).
    pub shared_types: std::collections::BTreeSet<String>,
}

impl Compiled {
    /// Whether the payload of `version` is compiled per type: its own struct, or, for a version whose
    /// payload is a shared type, that type.
    pub fn payload(&self, version: &EventVersion) -> bool {
        match &version.alias_of {
            Some(shared) => self.shared_types.contains(&shared.name),
            None => self.versions.contains(&version.id),
        }
    }
}
