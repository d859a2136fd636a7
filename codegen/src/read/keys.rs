//! The keys of each mapping of the schema format, and the values of its enumerated keys: the one list
//! the reader checks against, from which `emit::schema_format` writes the format's JSON Schema too.

/// `types.yaml`.
pub const TYPES_FILE: &[&str] = &["description", "types"];
/// `events/<section>.yaml`.
pub const SECTION_FILE: &[&str] = &["section", "description", "reserved", "bases", "events"];
/// `rest.yaml`.
pub const REST_FILE: &[&str] = &[
    "title",
    "version",
    "description",
    "authentication",
    "bases",
    "resources",
    "error_response",
    "endpoints",
];
/// An authentication scheme of `rest.yaml`.
pub const AUTH_SCHEME: &[&str] = &["kind", "description"];
/// An endpoint of `rest.yaml`.
pub const ENDPOINT: &[&str] = &[
    "name",
    "method",
    "path",
    "description",
    "path_parameters",
    "query",
    "response",
    "auth",
    "waivers",
];
/// `consumers/<name>.yaml`, a consuming team's contract.
pub const CONSUMER_FILE: &[&str] = &["consumer", "owner", "status", "reads"];
/// An entry of a contract's `reads`.
pub const READS: &[&str] = &["event", "versions", "fields"];
/// A waiver of an incompatible change.
pub const WAIVER: &[&str] = &["rule", "path", "reason", "consumers"];
/// A base (a field set shared by several types or versions).
pub const BASE: &[&str] = &["description", "fields"];
/// A shared type of `types.yaml`.
pub const TYPE: &[&str] = &["description", "fields", "incomplete", "reserved", "waivers"];
/// A resource of `rest.yaml`.
pub const RESOURCE: &[&str] = &[
    "description",
    "fields",
    "incomplete",
    "generic",
    "type",
    "bases",
    "reserved",
    "waivers",
];
/// An event entry of an events file.
pub const EVENT: &[&str] = &[
    "name",
    "names",
    "description",
    "rust_name",
    "renamed_from",
    "reserved",
    "versions",
];
/// A payload version of an event entry.
pub const VERSION: &[&str] = &[
    "description",
    "extends",
    "bases",
    "fields",
    "incomplete",
    "payload",
    "deprecated",
    "waivers",
];
/// A field's long form in `rest.yaml` (fields, bases and parameters).
pub const REST_FIELD: &[&str] = &["type", "description", "nullable", "format", "renamed_from"];
/// A path or query parameter's long form in `rest.yaml`: a field's keys, and the rules a server enforces
/// (and documents) for it.
pub const PARAMETER: &[&str] = &[
    "type",
    "description",
    "format",
    "renamed_from",
    "minimum",
    "maximum",
    "default",
    "not_after",
];
/// A field's long form in the events' files.
pub const EVENT_FIELD: &[&str] = &["type", "description", "renamed_from"];

/// The values of a contract's `status`.
pub const CONSUMER_STATUSES: &[&str] = &["active", "retired"];
/// The values of an authentication scheme's `kind`.
pub const AUTH_KINDS: &[&str] = &["basic", "authorization-header"];
/// The values of an endpoint's `auth`.
pub const AUTH_REQUIREMENTS: &[&str] = &["none", "required"];
/// The values of an endpoint's `method`.
pub const METHODS: &[&str] = &["GET", "POST", "PUT", "PATCH", "DELETE"];
/// The values of a field's `format`.
pub const FORMATS: &[&str] = &["date-time", "uri"];
/// The only value of a resource's `type`: a free-form JSON object.
pub const RESOURCE_TYPES: &[&str] = &["obj"];
