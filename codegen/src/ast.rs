//! The schema as written: what the YAML files say, with places, before names are resolved.

use crate::source::{FileId, Span};

/// A name or other short text with its place.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Located {
    /// The text.
    pub text: String,
    /// Where it is written.
    pub span: Span,
}

/// A built-in type of the notation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Builtin {
    /// `str`: a string.
    Str,
    /// `int`: an integer (i64).
    Int,
    /// `num`: a number (f64).
    Num,
    /// `bool`: a boolean.
    Bool,
    /// `obj`: a free-form JSON object.
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

/// A type as written: `str`, `[Ledger]`, `Page<Product>`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TypeExpr {
    /// A built-in.
    Builtin(Builtin, Span),
    /// A named type, possibly with one type argument.
    Named(Located, Option<Box<TypeExpr>>),
    /// An array.
    Array(Box<TypeExpr>, Span),
}

impl TypeExpr {
    /// Where the expression is written.
    pub fn span(&self) -> Span {
        match self {
            TypeExpr::Builtin(_, s) | TypeExpr::Array(_, s) => *s,
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
    /// Its type.
    pub ty: TypeExpr,
    /// What it means.
    pub description: Option<String>,
    /// May be `null` (REST only).
    pub nullable: bool,
    /// Value format (REST only).
    pub format: Option<Format>,
    /// Where the whole entry is.
    pub span: Span,
}

/// A named struct type (a shared payload type or a REST resource).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TypeDef {
    /// The type's name.
    pub name: Located,
    /// What it is.
    pub description: Option<String>,
    /// Named field sets whose fields come first (REST resources only).
    pub bases: Vec<Located>,
    /// Its fields, in order.
    pub fields: Vec<FieldDef>,
    /// The spec does not show every field: unlisted fields are kept, not dropped.
    pub incomplete: bool,
    /// A type parameter, for generic envelopes such as `Page<T>`.
    pub generic: Option<Located>,
    /// A free-form JSON object kept whole (`type: obj`), instead of fields.
    pub free_form: bool,
}

/// A named set of fields shared by several events or resources (the spec's UB, DB, …).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BaseDef {
    /// The base's name.
    pub name: Located,
    /// What it is.
    pub description: Option<String>,
    /// Its fields.
    pub fields: Vec<FieldDef>,
}

/// `extends:` of an event version: another version's fields come first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExtendsRef {
    /// Another event type, or `None` for the same one.
    pub event: Option<Located>,
    /// The version label.
    pub version: Located,
    /// The whole reference.
    pub span: Span,
}

/// One payload version of one or more event types.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VersionDef {
    /// `v1`, `v2`, `1.0.0`…
    pub label: Located,
    /// What changed in this version.
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
}

/// An entry of an events file: one event type, or several sharing the same versions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EventDef {
    /// The event types (`name:` gives one, `names:` several).
    pub names: Vec<Located>,
    /// What the event is.
    pub description: Option<String>,
    /// A Rust name to use instead of the derived one.
    pub rust_name: Option<Located>,
    /// Its versions.
    pub versions: Vec<VersionDef>,
    /// Where the entry starts.
    pub span: Span,
}

/// One events file: one section of the catalogue.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SectionFile {
    /// The file.
    pub file: FileId,
    /// Stem of the file name (module and feature name).
    pub stem: Located,
    /// The section's title in the catalogue.
    pub title: String,
    /// What the section covers.
    pub description: String,
    /// Field sets of this section.
    pub bases: Vec<BaseDef>,
    /// The events.
    pub events: Vec<EventDef>,
}

/// The shared payload types file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TypesFile {
    /// The file.
    pub file: FileId,
    /// The types.
    pub types: Vec<TypeDef>,
}

/// Whether an endpoint needs credentials.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum AuthRequirement {
    /// Public.
    None,
    /// Credentials required.
    Required,
}

/// How an authentication scheme carries the credential.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum AuthKind {
    /// HTTP Basic.
    Basic,
    /// A value in the `Authorization` header.
    AuthorizationHeader,
}

/// One way to authenticate.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuthDef {
    /// Its name.
    pub name: Located,
    /// How it works.
    pub kind: AuthKind,
    /// What it is.
    pub description: Option<String>,
}

/// A REST endpoint.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EndpointDef {
    /// Operation name, snake_case (`list_products`).
    pub name: Located,
    /// HTTP method.
    pub method: Located,
    /// Path with `{param}` placeholders.
    pub path: Located,
    /// What it does.
    pub description: Option<String>,
    /// Path parameters.
    pub path_parameters: Vec<FieldDef>,
    /// Query parameters.
    pub query: Vec<FieldDef>,
    /// Response body type.
    pub response: TypeExpr,
    /// Whether credentials are needed.
    pub auth: AuthRequirement,
    /// Where the entry starts.
    pub span: Span,
}

/// The REST file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RestFile {
    /// The file.
    pub file: FileId,
    /// API title.
    pub title: String,
    /// API version (path prefix).
    pub version: String,
    /// What the API is and its rules.
    pub description: String,
    /// Authentication schemes.
    pub auth: Vec<AuthDef>,
    /// Field sets shared by resources.
    pub bases: Vec<BaseDef>,
    /// Resources.
    pub resources: Vec<TypeDef>,
    /// The body of error responses.
    pub error_response: Option<TypeExpr>,
    /// Endpoints.
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
}
