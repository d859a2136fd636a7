//! The schema as written: what the YAML files say, with places, before names are resolved.

use crate::source::{FileId, Span};

/// A name or other short text with its place.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Located {
    pub text: String,
    pub span: Span,
}

/// A built-in type of the notation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Builtin {
    Str,
    Int,
    Num,
    Bool,
    Obj,
}

impl Builtin {
    /// The spelling in the schema.
    pub const fn keyword(self) -> &'static str {
        match self {
            Builtin::Str => "str",
            Builtin::Int => "int",
            Builtin::Num => "num",
            Builtin::Bool => "bool",
            Builtin::Obj => "obj",
        }
    }

    /// All built-ins, for suggestions.
    pub const ALL: [Builtin; 5] = [
        Builtin::Str,
        Builtin::Int,
        Builtin::Num,
        Builtin::Bool,
        Builtin::Obj,
    ];

    /// The built-in spelled `s`.
    pub fn from_keyword(s: &str) -> Option<Builtin> {
        Builtin::ALL.into_iter().find(|b| b.keyword() == s)
    }
}

/// A type as written: `str`, `[Ledger]`, `Page<Product>`, `map<Tariff>`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TypeExpr {
    Builtin(Builtin, Span),
    /// A named type, possibly with one type argument.
    Named(Located, Option<Box<TypeExpr>>),
    Array(Box<TypeExpr>, Span),
    /// `map<T>`: a JSON object whose member names are data (region codes, say), each value a `T`.
    Map(Box<TypeExpr>, Span),
}

impl TypeExpr {
    /// Where the expression is written.
    pub fn span(&self) -> Span {
        match self {
            TypeExpr::Builtin(_, s) | TypeExpr::Array(_, s) | TypeExpr::Map(_, s) => *s,
            TypeExpr::Named(n, _) => n.span,
        }
    }
}

/// A value format of a REST field or parameter.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Format {
    /// An ISO 8601 / RFC 3339 date-time.
    DateTime,
    /// An absolute URI.
    Uri,
}

impl Format {
    /// The spelling in the schema and in OpenAPI.
    pub const fn keyword(self) -> &'static str {
        match self {
            Format::DateTime => "date-time",
            Format::Uri => "uri",
        }
    }
}

/// One field of a type, base or event version.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldDef {
    /// The JSON name (without the `?` marker).
    pub name: Located,
    /// Written with `?`: may be absent.
    pub optional: bool,
    pub ty: TypeExpr,
    pub description: Option<String>,
    /// May be `null` (REST only).
    pub nullable: bool,
    /// Value format (REST only).
    pub format: Option<Format>,
    /// Names the field had before (`renamed_from:`): decoders accept them too.
    pub renamed_from: Vec<Located>,
    /// A parameter's rules (none for a field).
    pub rules: ParamRulesDef,
    /// Where the whole entry is.
    pub span: Span,
}

/// The rules of a path or query parameter, as written.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ParamRulesDef {
    /// `minimum:`, an integer, with where it is.
    pub minimum: Option<(i64, Span)>,
    /// `maximum:`, an integer, with where it is.
    pub maximum: Option<(i64, Span)>,
    /// `default:`, the value an absent parameter takes, with where it is.
    pub default: Option<(i64, Span)>,
    /// `not_after:`, another date-time parameter this one may not be later than.
    pub not_after: Option<Located>,
}

/// `waivers:` entry: an intentional incompatible change, allowed by name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WaiverDef {
    /// The compatibility rule it waives (`field-removed-required`).
    pub rule: Located,
    /// The field path the finding names (`ledger.account.number`; empty for the item itself).
    pub path: Located,
    /// Why the break is intended.
    pub reason: String,
    /// The consumers (contract names) that agreed to the break.
    pub consumers: Vec<Located>,
    /// Where the whole entry is.
    pub span: Span,
}

/// `deprecated:` of an event version.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeprecationDef {
    /// The date (`YYYY-MM-DD`) from which the version may be removed.
    pub sunset: Located,
    /// What to use instead.
    pub note: Option<String>,
}

/// A named struct type (a shared payload type or a REST resource).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TypeDef {
    pub name: Located,
    pub description: Option<String>,
    /// Named field sets whose fields come first (REST resources only).
    pub bases: Vec<Located>,
    pub fields: Vec<FieldDef>,
    /// The spec does not show every field: unlisted fields are kept, not dropped.
    pub incomplete: bool,
    /// A type parameter, for generic envelopes such as `Page<T>`.
    pub generic: Option<Located>,
    /// A free-form JSON object kept whole (`type: obj`), instead of fields.
    pub free_form: bool,
    /// Field names the type may not use (`reserved:`).
    pub reserved: Vec<Located>,
    /// Intentional incompatible changes of the type.
    pub waivers: Vec<WaiverDef>,
}

/// A named set of fields shared by several events or resources (the spec's UB, DB, …).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BaseDef {
    pub name: Located,
    pub description: Option<String>,
    pub fields: Vec<FieldDef>,
}

/// `extends:` of an event version: another version's fields come first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExtendsRef {
    /// Another event type, or `None` for the same one.
    pub event: Option<Located>,
    pub version: Located,
    pub span: Span,
}

/// One payload version of one or more event types.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VersionDef {
    /// `v1`, `v2`, `1.0.0`…
    pub label: Located,
    pub description: Option<String>,
    /// The version whose fields come first.
    pub extends: Option<ExtendsRef>,
    /// Bases whose fields come next.
    pub bases: Vec<Located>,
    /// Fields of its own.
    pub fields: Vec<FieldDef>,
    /// The spec does not show every field.
    pub incomplete: bool,
    /// The payload is this shared type as a whole (instead of `fields`).
    pub payload: Option<Located>,
    /// Deprecated, to be removed after its sunset date.
    pub deprecated: Option<DeprecationDef>,
    /// Intentional incompatible changes of this published version.
    pub waivers: Vec<WaiverDef>,
}

/// An entry of an events file: one event type, or several sharing the same versions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EventDef {
    pub names: Vec<Located>,
    /// What the event is.
    pub description: Option<String>,
    /// A Rust name to use instead of the derived one.
    pub rust_name: Option<Located>,
    /// Names the event type had before (`renamed_from:`): decoders accept them too.
    pub renamed_from: Vec<Located>,
    /// Field names no version of the event type may use (`reserved:`).
    pub reserved: Vec<Located>,
    pub versions: Vec<VersionDef>,
    /// Where the entry starts.
    pub span: Span,
}

/// One events file: one section of the catalogue.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SectionFile {
    pub file: FileId,
    /// Stem of the file name (module and feature name).
    pub stem: Located,
    pub title: String,
    pub description: String,
    /// Event type names no event may take again (`reserved:`).
    pub reserved: Vec<Located>,
    pub bases: Vec<BaseDef>,
    pub events: Vec<EventDef>,
}

/// The shared payload types file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TypesFile {
    pub file: FileId,
    pub types: Vec<TypeDef>,
}

/// Whether an endpoint needs credentials.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum AuthRequirement {
    None,
    Required,
}

/// How an authentication scheme carries the credential.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum AuthKind {
    /// HTTP Basic: the API key as user name, an empty password.
    Basic,
    /// A value in the `Authorization` header.
    AuthorizationHeader,
}

/// One way to authenticate.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuthDef {
    pub name: Located,
    pub kind: AuthKind,
    pub description: Option<String>,
}

/// A REST endpoint.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EndpointDef {
    /// Operation name, snake_case (`list_products`).
    pub name: Located,
    pub method: Located,
    /// Path with `{param}` placeholders.
    pub path: Located,
    pub description: Option<String>,
    pub path_parameters: Vec<FieldDef>,
    /// Query parameters.
    pub query: Vec<FieldDef>,
    pub response: TypeExpr,
    pub auth: AuthRequirement,
    /// Intentional incompatible changes of the endpoint.
    pub waivers: Vec<WaiverDef>,
    /// Where the entry starts.
    pub span: Span,
}

/// The REST file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RestFile {
    pub file: FileId,
    pub title: String,
    /// API version (path prefix).
    pub version: String,
    /// What the API is and its rules.
    pub description: String,
    pub auth: Vec<AuthDef>,
    pub bases: Vec<BaseDef>,
    pub resources: Vec<TypeDef>,
    pub error_response: Option<TypeExpr>,
    pub endpoints: Vec<EndpointDef>,
}

/// Everything read from a schema folder.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Schema {
    /// `types.yaml`.
    pub types: Vec<TypesFile>,
    /// `events/*.yaml`, in file-name order.
    pub sections: Vec<SectionFile>,
    /// `rest.yaml`.
    pub rest: Option<RestFile>,
    /// `consumers/*.yaml`, in file-name order.
    pub consumers: Vec<ConsumerFile>,
}

/// `consumers/<name>.yaml`: what one consuming team reads of the events.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConsumerFile {
    /// The file's stem, placed at the file's start.
    pub stem: Located,
    /// `consumer:`, the team's consumer name.
    pub consumer: Located,
    /// `owner:`, who to ask.
    pub owner: Option<Located>,
    /// `status:`, `active` or `retired`.
    pub status: Option<Located>,
    /// `reads:`, the event types it reads.
    pub reads: Vec<ReadDef>,
}

/// One entry of a contract's `reads:`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadDef {
    /// The event type.
    pub event: Located,
    /// The versions it decodes.
    pub versions: Vec<Located>,
    /// The JSON pointers it reads; `None` for every field.
    pub fields: Option<Vec<Located>>,
}
