//! Node trees to the schema AST: every key checked, every mistake recorded, nothing resolved yet.

use crate::ast::*;
use crate::diag::{Code, Diagnostic, Diagnostics};
use crate::naming;
use crate::source::{FileId, SourceMap, Span};
use crate::yaml::{Node, NodeKind};

/// Reads the node trees of schema files into the AST, one file at a time, recording every mistake.
pub struct Reader<'a> {
    sources: &'a SourceMap,
    diags: &'a mut Diagnostics,
    /// Whether the files document what they define: the schema's do; the published baseline records
    /// wire shapes only, so nothing there needs a description (or a title).
    documented: bool,
}

/// A mapping whose keys were checked: scalars, no duplicates, only allowed ones.
struct Entries<'n> {
    span: Span,
    entries: Vec<(&'n str, &'n Node, &'n Node)>,
    /// Keys that are not keywords (already reported): a missing key may only be misspelt.
    unknown_keys: Vec<&'n str>,
}

impl<'n> Entries<'n> {
    /// An unknown key of this mapping is probably `key` misspelt (and already reported).
    fn misspelt(&self, key: &str) -> bool {
        crate::diag::closest(key, self.unknown_keys.iter().copied()).is_some()
    }

    fn get(&self, key: &str) -> Option<&'n Node> {
        self.entries
            .iter()
            .find(|(k, _, _)| *k == key)
            .map(|(_, _, v)| *v)
    }
}

/// The keys of each mapping of the schema format, and the values of its enumerated keys: the one list
/// the reader checks against, from which `emit::schema_format` writes the format's JSON Schema too.
pub mod keys {
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
    /// A field's long form in the events' files.
    pub const EVENT_FIELD: &[&str] = &["type", "description", "renamed_from"];

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
}

impl<'a> Reader<'a> {
    /// A reader of the schema's files, recording into `diags`.
    pub fn new(sources: &'a SourceMap, diags: &'a mut Diagnostics) -> Self {
        Reader {
            sources,
            diags,
            documented: true,
        }
    }

    /// A reader of files in the schema format that hold wire shapes only (the published baseline): the
    /// same keys and checks, but no description, title or version is required.
    pub fn wire_shapes(sources: &'a SourceMap, diags: &'a mut Diagnostics) -> Self {
        Reader {
            documented: false,
            ..Reader::new(sources, diags)
        }
    }

    fn error(&mut self, d: Diagnostic) {
        self.diags.push(d);
    }

    /// Reads `types.yaml`.
    pub fn types_file(&mut self, file: FileId, root: &Node) -> Option<TypesFile> {
        let top = self.entries(root, "the shared types file", Some(keys::TYPES_FILE))?;
        let mut types = Vec::new();
        if let Some(node) = self.required(&top, "types", "the shared types file")
            && let Some(map) = self.entries(node, "`types`", None)
        {
            for (_, key, value) in &map.entries {
                if let Some(t) = self.type_def(key, value, false) {
                    types.push(t);
                }
            }
        }
        Some(TypesFile { file, types })
    }

    /// Reads one events file.
    pub fn section_file(
        &mut self,
        file: FileId,
        stem: Located,
        root: &Node,
    ) -> Option<SectionFile> {
        let top = self.entries(root, "an events file", Some(keys::SECTION_FILE))?;
        let title = self.documentation(&top, "section", "an events file");
        let description = self.documentation(&top, "description", "an events file");
        let reserved = top
            .get("reserved")
            .map(|n| self.name_list(n, "`reserved`"))
            .unwrap_or_default();
        let bases = top
            .get("bases")
            .map(|n| self.bases(n, false))
            .unwrap_or_default();
        let mut events = Vec::new();
        if let Some(list) = self.required(&top, "events", "an events file") {
            match &list.kind {
                NodeKind::Seq(items) => {
                    for item in items {
                        if let Some(e) = self.event_def(item) {
                            events.push(e);
                        }
                    }
                }
                _ => self.expected(
                    list,
                    "`events`",
                    "a sequence of event entries (`- name: …`)",
                ),
            }
        }
        Some(SectionFile {
            file,
            stem,
            title,
            description,
            reserved,
            bases,
            events,
        })
    }

    /// Reads `rest.yaml`.
    pub fn rest_file(&mut self, file: FileId, root: &Node) -> Option<RestFile> {
        let top = self.entries(root, "the REST file", Some(keys::REST_FILE))?;
        let title = self.documentation(&top, "title", "the REST file");
        let version = self.documentation(&top, "version", "the REST file");
        let description = self.documentation(&top, "description", "the REST file");
        let mut auth = Vec::new();
        if let Some(node) = top.get("authentication")
            && let Some(map) = self.entries(node, "`authentication`", None)
        {
            for (_, key, value) in &map.entries {
                if let Some(a) = self.auth_def(key, value) {
                    auth.push(a);
                }
            }
        }
        let bases = top
            .get("bases")
            .map(|n| self.bases(n, true))
            .unwrap_or_default();
        let mut resources = Vec::new();
        if let Some(node) = self.required(&top, "resources", "the REST file")
            && let Some(map) = self.entries(node, "`resources`", None)
        {
            for (_, key, value) in &map.entries {
                if let Some(t) = self.type_def(key, value, true) {
                    resources.push(t);
                }
            }
        }
        let error_response = top.get("error_response").and_then(|n| self.type_expr(n));
        let mut endpoints = Vec::new();
        if let Some(list) = self.required(&top, "endpoints", "the REST file") {
            match &list.kind {
                NodeKind::Seq(items) => {
                    for item in items {
                        if let Some(e) = self.endpoint(item) {
                            endpoints.push(e);
                        }
                    }
                }
                _ => self.expected(list, "`endpoints`", "a sequence of endpoints (`- name: …`)"),
            }
        }
        Some(RestFile {
            file,
            title,
            version,
            description,
            auth,
            bases,
            resources,
            error_response,
            endpoints,
        })
    }

    fn auth_def(&mut self, key: &Node, value: &Node) -> Option<AuthDef> {
        let name = self.located(key)?;
        let map = self.entries(value, "an authentication scheme", Some(keys::AUTH_SCHEME))?;
        let description = self.description(&map, true, "an authentication scheme");
        let kind_node = self.required(&map, "kind", "an authentication scheme")?;
        let kind = match kind_node.as_str() {
            Some("basic") => AuthKind::Basic,
            Some("authorization-header") => AuthKind::AuthorizationHeader,
            other => {
                let d = Diagnostic::new(
                    Code::InvalidValue,
                    kind_node.span,
                    "unknown authentication kind",
                )
                .label("expected `basic` or `authorization-header`");
                self.error(d.suggest(other.unwrap_or(""), keys::AUTH_KINDS.iter().copied()));
                return None;
            }
        };
        Some(AuthDef {
            name,
            kind,
            description,
        })
    }

    fn endpoint(&mut self, node: &Node) -> Option<EndpointDef> {
        let map = self.entries(node, "an endpoint", Some(keys::ENDPOINT))?;
        let name = self
            .required(&map, "name", "an endpoint")
            .and_then(|n| self.located(n));
        let method = self
            .required(&map, "method", "an endpoint")
            .and_then(|n| self.located(n));
        let path = self
            .required(&map, "path", "an endpoint")
            .and_then(|n| self.located(n));
        let description = self.description(&map, true, "an endpoint");
        let path_parameters = map
            .get("path_parameters")
            .map(|n| self.fields(n, true, true))
            .unwrap_or_default();
        let query = map
            .get("query")
            .map(|n| self.fields(n, true, true))
            .unwrap_or_default();
        let response = self
            .required(&map, "response", "an endpoint")
            .and_then(|n| self.type_expr(n));
        let auth = match map.get("auth") {
            None => AuthRequirement::None,
            Some(n) => match n.as_str() {
                Some("none") => AuthRequirement::None,
                Some("required") => AuthRequirement::Required,
                other => {
                    let d = Diagnostic::new(Code::InvalidValue, n.span, "unknown `auth` value")
                        .label("expected `none` or `required`");
                    self.error(
                        d.suggest(other.unwrap_or(""), keys::AUTH_REQUIREMENTS.iter().copied()),
                    );
                    AuthRequirement::None
                }
            },
        };
        if let Some(m) = &method
            && !keys::METHODS.contains(&m.text.as_str())
        {
            let d = Diagnostic::new(
                Code::InvalidValue,
                m.span,
                format!("unknown HTTP method `{}`", m.text),
            )
            .label("expected GET, POST, PUT, PATCH or DELETE");
            self.error(d.suggest(&m.text.to_ascii_uppercase(), keys::METHODS.iter().copied()));
        }
        let waivers = self.waivers(&map);
        Some(EndpointDef {
            name: name?,
            method: method?,
            path: path?,
            description,
            path_parameters,
            query,
            response: response?,
            auth,
            waivers,
            span: map.span,
        })
    }

    fn bases(&mut self, node: &Node, rest: bool) -> Vec<BaseDef> {
        let mut out = Vec::new();
        let Some(map) = self.entries(node, "`bases`", None) else {
            return out;
        };
        for (_, key, value) in &map.entries {
            let Some(name) = self.located(key) else {
                continue;
            };
            let Some(base) = self.entries(value, "a base", Some(keys::BASE)) else {
                continue;
            };
            let description = self.description(&base, true, "a base");
            let fields = match self.required(&base, "fields", "a base") {
                Some(n) => self.fields(n, rest, rest),
                None => Vec::new(),
            };
            out.push(BaseDef {
                name,
                description,
                fields,
            });
        }
        out
    }

    fn type_def(&mut self, key: &Node, value: &Node, rest: bool) -> Option<TypeDef> {
        let name = self.located(key)?;
        let allowed = if rest { keys::RESOURCE } else { keys::TYPE };
        let what = if rest { "a resource" } else { "a type" };
        let map = self.entries(value, what, Some(allowed))?;
        let description = self.description(&map, true, what);
        let incomplete = map.get("incomplete").is_some_and(|n| self.boolean(n));
        let generic = map.get("generic").and_then(|n| self.located(n));
        let free_form = match map.get("type") {
            None => false,
            Some(n) if n.as_str() == Some("obj") => true,
            Some(n) => {
                let d = Diagnostic::new(
                    Code::InvalidValue,
                    n.span,
                    "a resource's `type` can only be `obj`",
                )
                .label("a free-form JSON object kept whole")
                .with_help("describe a structured resource with `fields:` instead");
                self.error(d);
                false
            }
        };
        let bases = map
            .get("bases")
            .map(|n| self.name_list(n, "`bases`"))
            .unwrap_or_default();
        let fields = match (map.get("fields"), free_form) {
            (Some(n), false) => self.fields(n, rest, rest),
            (None, true) => Vec::new(),
            (Some(n), true) => {
                self.error(
                    Diagnostic::new(
                        Code::ConflictingKeys,
                        n.span,
                        "a free-form resource (`type: obj`) has no `fields`",
                    )
                    .label("remove these fields or `type: obj`"),
                );
                Vec::new()
            }
            (None, false) => {
                self.error(
                    Diagnostic::new(Code::MissingKey, key.span, format!("{what} needs `fields`"))
                        .label(format!("`{}` has no `fields`", name.text)),
                );
                Vec::new()
            }
        };
        let reserved = map
            .get("reserved")
            .map(|n| self.name_list(n, "`reserved`"))
            .unwrap_or_default();
        let waivers = self.waivers(&map);
        Some(TypeDef {
            name,
            description,
            bases,
            fields,
            incomplete,
            generic,
            free_form,
            reserved,
            waivers,
        })
    }

    fn event_def(&mut self, node: &Node) -> Option<EventDef> {
        let map = self.entries(node, "an event entry", Some(keys::EVENT))?;
        let names = match (map.get("name"), map.get("names")) {
            (Some(n), None) => self.located(n).into_iter().collect(),
            (None, Some(list)) => {
                let names = self.name_list(list, "`names`");
                if names.len() < 2 {
                    self.error(
                        Diagnostic::new(
                            Code::InvalidValue,
                            list.span,
                            "`names` lists the event types sharing these versions",
                        )
                        .label("fewer than two names")
                        .with_help("write `name: <event type>` for a single event type"),
                    );
                }
                names
            }
            (Some(_), Some(list)) => {
                self.error(
                    Diagnostic::new(
                        Code::ConflictingKeys,
                        list.span,
                        "an event entry has `name` or `names`, not both",
                    )
                    .label("second way to name the entry"),
                );
                return None;
            }
            (None, None) => {
                self.error(
                    Diagnostic::new(
                        Code::MissingKey,
                        map.span,
                        "an event entry needs `name` (or `names`)",
                    )
                    .label("this entry has no name"),
                );
                return None;
            }
        };
        let description = self.description(&map, false, "an event entry");
        let rust_name = map.get("rust_name").and_then(|n| self.located(n));
        if let (Some(r), true) = (&rust_name, names.len() > 1) {
            self.error(
                Diagnostic::new(
                    Code::ConflictingKeys,
                    r.span,
                    "`rust_name` names one event type; this entry has several",
                )
                .label("ambiguous")
                .with_help("give the event that needs a Rust name its own entry"),
            );
        }
        let mut versions = Vec::new();
        if let Some(vnode) = self.required(&map, "versions", "an event entry")
            && let Some(vmap) = self.entries(vnode, "`versions`", None)
        {
            if vmap.entries.is_empty() {
                self.error(Diagnostic::new(
                    Code::MissingKey,
                    vnode.span,
                    "an event needs at least one version",
                ));
            }
            for (_, key, value) in &vmap.entries {
                if let Some(v) = self.version_def(key, value) {
                    versions.push(v);
                }
            }
        }
        let renamed_from = map
            .get("renamed_from")
            .map(|n| self.one_or_more_names(n, "`renamed_from`"))
            .unwrap_or_default();
        if let (Some(first), true) = (renamed_from.first(), names.len() > 1) {
            self.error(
                Diagnostic::new(
                    Code::ConflictingKeys,
                    first.span,
                    "`renamed_from` names the former name of one event type; this entry has several",
                )
                .label("ambiguous")
                .with_help("give the renamed event type its own entry"),
            );
        }
        let reserved = map
            .get("reserved")
            .map(|n| self.name_list(n, "`reserved`"))
            .unwrap_or_default();
        Some(EventDef {
            names,
            description,
            rust_name,
            renamed_from,
            reserved,
            versions,
            span: map.span,
        })
    }

    fn version_def(&mut self, key: &Node, value: &Node) -> Option<VersionDef> {
        let label = self.located(key)?;
        let map = self.entries(value, "a version", Some(keys::VERSION))?;
        let payload = map.get("payload").and_then(|n| self.located(n));
        let description = self.description(&map, false, "a version");
        let extends = map.get("extends").and_then(|n| self.extends_ref(n));
        let bases = map
            .get("bases")
            .map(|n| self.name_list(n, "`bases`"))
            .unwrap_or_default();
        let fields = map
            .get("fields")
            .map(|n| self.fields(n, false, false))
            .unwrap_or_default();
        let incomplete = map.get("incomplete").is_some_and(|n| self.boolean(n));
        let composed =
            map.get("extends").is_some() || !bases.is_empty() || map.get("fields").is_some();
        match (&payload, composed) {
            // A misspelt `fields` is reported as an unknown key; "no fields" would only repeat it.
            (None, false) if map.unknown_keys.is_empty() => self.error(
                Diagnostic::new(
                    Code::MissingKey,
                    key.span,
                    format!("version `{}` has no fields", label.text),
                )
                .label("needs `fields`, `bases`, `extends` or `payload`"),
            ),
            (Some(p), true) => self.error(
                Diagnostic::new(
                    Code::ConflictingKeys,
                    p.span,
                    "`payload` names the whole payload type",
                )
                .label("cannot be combined with `fields`, `bases` or `extends`"),
            ),
            _ => {}
        }
        let deprecated = map.get("deprecated").and_then(|n| self.deprecation(n));
        let waivers = self.waivers(&map);
        Some(VersionDef {
            label,
            description,
            extends,
            bases,
            fields,
            incomplete,
            payload,
            deprecated,
            waivers,
        })
    }

    fn extends_ref(&mut self, node: &Node) -> Option<ExtendsRef> {
        let text = self.located(node)?;
        let words: Vec<&str> = text.text.split_whitespace().collect();
        let inner = |word: &str| self.sub_span(node, word);
        match words.as_slice() {
            [version] => Some(ExtendsRef {
                event: None,
                version: Located {
                    text: (*version).to_owned(),
                    span: inner(version),
                },
                span: node.span,
            }),
            [event, version] => Some(ExtendsRef {
                event: Some(Located {
                    text: (*event).to_owned(),
                    span: inner(event),
                }),
                version: Located {
                    text: (*version).to_owned(),
                    span: inner(version),
                },
                span: node.span,
            }),
            _ => {
                self.error(
                    Diagnostic::new(
                        Code::InvalidValue,
                        node.span,
                        "`extends` names a version: `v1`, or `<event type> v1`",
                    )
                    .label("not a version reference"),
                );
                None
            }
        }
    }

    /// A mapping of field entries: `name: type`, `name?: type`, or `name: {type: …, description: …}`.
    fn fields(&mut self, node: &Node, rest: bool, describe: bool) -> Vec<FieldDef> {
        let mut out = Vec::new();
        let Some(map) = self.entries(node, "`fields`", None) else {
            return out;
        };
        for (raw, key, value) in &map.entries {
            let (name, optional) = match raw.strip_suffix('?') {
                Some(n) => (n, true),
                None => (*raw, false),
            };
            let name_span = self.sub_span(key, name);
            if !naming::is_field_name(name) {
                let fixed: String = name
                    .chars()
                    .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
                    .collect();
                let mut d = Diagnostic::new(
                    Code::InvalidFieldName,
                    name_span,
                    format!("invalid field name `{name}`"),
                )
                .label("field names are ASCII letters, digits and `_`, not starting with a digit");
                if naming::is_field_name(&fixed) {
                    d = d.with_help(format!("did you mean `{fixed}`?"));
                }
                self.error(d);
                continue;
            }
            let name = Located {
                text: name.to_owned(),
                span: name_span,
            };
            let span = Span {
                file: key.span.file,
                start: key.span.start,
                end: value.span.end.max(key.span.end),
            };
            let field = match &value.kind {
                NodeKind::Map(_) => {
                    let allowed = if rest {
                        keys::REST_FIELD
                    } else {
                        keys::EVENT_FIELD
                    };
                    let Some(long) = self.entries(value, "a field", Some(allowed)) else {
                        continue;
                    };
                    let Some(ty) = self
                        .required(&long, "type", "a field")
                        .and_then(|n| self.type_expr(n))
                    else {
                        continue;
                    };
                    let description = self.description(&long, describe, "a field");
                    let nullable = long.get("nullable").is_some_and(|n| self.boolean(n));
                    let format = long.get("format").and_then(|n| self.format(n));
                    let renamed_from = long
                        .get("renamed_from")
                        .map(|n| self.one_or_more_names(n, "`renamed_from`"))
                        .unwrap_or_default();
                    FieldDef {
                        name,
                        optional,
                        ty,
                        description,
                        nullable,
                        format,
                        renamed_from,
                        span,
                    }
                }
                _ => {
                    let Some(ty) = self.type_expr(value) else {
                        continue;
                    };
                    if describe && self.documented {
                        self.error(
                            Diagnostic::new(
                                Code::MissingDescription,
                                key.span,
                                format!("field `{}` needs a description", name.text),
                            )
                            .label("REST fields and parameters are documented")
                            .with_help(format!("write `{raw}: {{type: …, description: …}}`")),
                        );
                    }
                    FieldDef {
                        name,
                        optional,
                        ty,
                        description: None,
                        nullable: false,
                        format: None,
                        renamed_from: Vec::new(),
                        span,
                    }
                }
            };
            out.push(field);
        }
        out
    }

    fn format(&mut self, node: &Node) -> Option<Format> {
        match node.as_str() {
            Some("date-time") => Some(Format::DateTime),
            Some("uri") => Some(Format::Uri),
            other => {
                let d = Diagnostic::new(Code::InvalidValue, node.span, "unknown format")
                    .label("expected `date-time` or `uri`");
                self.error(d.suggest(other.unwrap_or(""), keys::FORMATS.iter().copied()));
                None
            }
        }
    }

    /// A type: a scalar such as `str`, `Ledger` or `Page<Product>`, or a one-element sequence `[T]`.
    pub(crate) fn type_expr(&mut self, node: &Node) -> Option<TypeExpr> {
        match &node.kind {
            NodeKind::Seq(items) if items.len() == 1 => {
                let inner = self.type_expr(&items[0])?;
                Some(TypeExpr::Array(Box::new(inner), node.span))
            }
            NodeKind::Seq(_) => {
                self.error(
                    Diagnostic::new(
                        Code::InvalidType,
                        node.span,
                        "an array type has exactly one element type",
                    )
                    .label("write `[T]`, for example `[str]`"),
                );
                None
            }
            NodeKind::Scalar(text) => {
                let base = self.sub_span(node, text).start;
                match crate::typeexpr::parse(text, node.span.file, base) {
                    Ok(t) => Some(t),
                    Err((offset, message)) => {
                        let at = base + offset;
                        let span = Span {
                            file: node.span.file,
                            start: at,
                            end: at.max(node.span.end.min(at + 1)),
                        };
                        self.error(
                            Diagnostic::new(
                                Code::InvalidType,
                                span,
                                format!("invalid type `{text}`"),
                            )
                            .label(message),
                        );
                        None
                    }
                }
            }
            _ => {
                self.expected(node, "a type", "a type such as `str`, `[int]` or `Ledger`");
                None
            }
        }
    }

    /// A name, or a sequence of names.
    fn one_or_more_names(&mut self, node: &Node, what: &str) -> Vec<Located> {
        match &node.kind {
            NodeKind::Scalar(_) => self.located(node).into_iter().collect(),
            _ => self.name_list(node, what),
        }
    }

    /// `waivers:` of an item: a sequence of `{rule, path, reason}`.
    fn waivers(&mut self, map: &Entries<'_>) -> Vec<WaiverDef> {
        let Some(node) = map.get("waivers") else {
            return Vec::new();
        };
        let NodeKind::Seq(items) = &node.kind else {
            self.expected(
                node,
                "`waivers`",
                "a sequence of `{rule: …, path: …, reason: …}`",
            );
            return Vec::new();
        };
        let mut out = Vec::new();
        for item in items {
            let Some(w) = self.entries(item, "a waiver", Some(&["rule", "path", "reason"])) else {
                continue;
            };
            let rule = self
                .required(&w, "rule", "a waiver")
                .and_then(|n| self.located(n));
            let path = match w.get("path") {
                Some(n) => self.located(n),
                // The item itself (a removed version, say).
                None => Some(Located {
                    text: String::new(),
                    span: w.span,
                }),
            };
            let reason = self.required(&w, "reason", "a waiver").and_then(|n| {
                let text = self.located(n)?;
                if text.text.trim().is_empty() {
                    let d = Diagnostic::new(Code::InvalidValue, n.span, "a waiver needs a reason")
                        .label("empty")
                        .with_help(
                            "say why the break is intended: reviewers and the changelog read it",
                        );
                    self.error(d);
                    return None;
                }
                Some(text.text.trim().to_owned())
            });
            if let Some(rule) = &rule
                && crate::evolution::Rule::from_id(&rule.text).is_none()
            {
                let d = Diagnostic::new(
                    Code::InvalidValue,
                    rule.span,
                    format!("unknown compatibility rule `{}`", rule.text),
                )
                .label("not a rule of `cargo xtask compat`")
                .suggest(
                    &rule.text,
                    crate::evolution::Rule::ALL.iter().map(|r| r.id()),
                );
                self.error(d);
                continue;
            }
            if let (Some(rule), Some(path), Some(reason)) = (rule, path, reason) {
                out.push(WaiverDef {
                    rule,
                    path,
                    reason,
                    span: item.span,
                });
            }
        }
        out
    }

    /// `deprecated: {sunset: YYYY-MM-DD, note: …}`.
    fn deprecation(&mut self, node: &Node) -> Option<DeprecationDef> {
        let map = self.entries(node, "`deprecated`", Some(&["sunset", "note"]))?;
        let sunset = self
            .required(&map, "sunset", "`deprecated`")
            .and_then(|n| self.located(n))?;
        if !is_date(&sunset.text) {
            let d = Diagnostic::new(
                Code::InvalidValue,
                sunset.span,
                format!("`{}` is not a date", sunset.text),
            )
            .label("expected `YYYY-MM-DD`, such as `2027-06-30`");
            self.error(d);
            return None;
        }
        let note = map
            .get("note")
            .and_then(|n| self.located(n))
            .map(|l| l.text);
        Some(DeprecationDef { sunset, note })
    }

    fn name_list(&mut self, node: &Node, what: &str) -> Vec<Located> {
        match &node.kind {
            NodeKind::Seq(items) => items.iter().filter_map(|n| self.located(n)).collect(),
            _ => {
                self.expected(node, what, "a sequence of names, such as `[UB]`");
                Vec::new()
            }
        }
    }

    fn boolean(&mut self, node: &Node) -> bool {
        match node.as_str() {
            Some("true") => true,
            Some("false") => false,
            _ => {
                self.expected(node, "this flag", "`true` or `false`");
                false
            }
        }
    }

    fn description(&mut self, map: &Entries<'_>, required: bool, what: &str) -> Option<String> {
        match map.get("description") {
            Some(n) => match n.as_str() {
                Some(s) if !s.trim().is_empty() => Some(s.trim().to_owned()),
                _ => {
                    self.expected(n, "`description`", "some text");
                    None
                }
            },
            None if required && self.documented && !map.misspelt("description") => {
                self.error(
                    Diagnostic::new(Code::MissingDescription, map.span, format!("{what} needs a description"))
                        .label("no `description` here")
                        .with_help("every item is documented: the text goes into rustdoc, OpenAPI and AsyncAPI"),
                );
                None
            }
            None => None,
        }
    }

    fn required<'n>(&mut self, map: &Entries<'n>, key: &str, what: &str) -> Option<&'n Node> {
        let found = map.get(key);
        if found.is_none() && !map.misspelt(key) {
            self.error(
                Diagnostic::new(Code::MissingKey, map.span, format!("{what} needs `{key}`"))
                    .label(format!("`{key}` is missing here")),
            );
        }
        found
    }

    /// The text of a file's documenting key (`title`, `description`): required where files are
    /// documented, empty where it is absent from a file of wire shapes.
    fn documentation(&mut self, map: &Entries<'_>, key: &str, what: &str) -> String {
        let text = if self.documented {
            self.required_text(map, key, what)
        } else {
            map.get(key).and_then(|n| self.located(n)).map(|l| l.text)
        };
        text.unwrap_or_default()
    }

    fn required_text(&mut self, map: &Entries<'_>, key: &str, what: &str) -> Option<String> {
        let node = self.required(map, key, what)?;
        self.located(node).map(|l| l.text)
    }

    fn located(&mut self, node: &Node) -> Option<Located> {
        match &node.kind {
            NodeKind::Scalar(s) => Some(Located {
                text: s.clone(),
                span: node.span,
            }),
            _ => {
                self.expected(node, "this value", "a name or text");
                None
            }
        }
    }

    fn expected(&mut self, node: &Node, what: &str, expected: &str) {
        self.error(
            Diagnostic::new(
                Code::InvalidValue,
                node.span,
                format!("{what} should be {expected}"),
            )
            .label(format!("found {}", node.kind_name())),
        );
    }

    /// Checks a mapping's keys. `allowed: None` accepts any key (names of fields, types, …).
    fn entries<'n>(
        &mut self,
        node: &'n Node,
        what: &str,
        allowed: Option<&[&str]>,
    ) -> Option<Entries<'n>> {
        let NodeKind::Map(pairs) = &node.kind else {
            let found = node.kind_name();
            let d = if matches!(node.kind, NodeKind::Null) {
                Diagnostic::new(Code::InvalidValue, node.span, format!("{what} is empty"))
                    .label("expected a mapping here")
            } else {
                Diagnostic::new(
                    Code::InvalidValue,
                    node.span,
                    format!("{what} should be a mapping"),
                )
                .label(format!("found {found}"))
            };
            self.error(d);
            return None;
        };
        let mut entries: Vec<(&'n str, &'n Node, &'n Node)> = Vec::with_capacity(pairs.len());
        let mut unknown_keys = Vec::new();
        for (key, value) in pairs {
            let Some(k) = key.as_str() else {
                self.error(
                    Diagnostic::new(Code::InvalidKey, key.span, "mapping keys are plain names")
                        .label(format!("found {}", key.kind_name())),
                );
                continue;
            };
            if let Some((_, first, _)) = entries.iter().find(|(seen, _, _)| *seen == k) {
                self.error(
                    Diagnostic::new(
                        Code::DuplicateKey,
                        key.span,
                        format!("duplicate key `{k}` in {what}"),
                    )
                    .label("defined again here")
                    .with_secondary(first.span, "first defined here"),
                );
                continue;
            }
            if let Some(allowed) = allowed
                && !allowed.contains(&k)
            {
                unknown_keys.push(k);
                let d = Diagnostic::new(
                    Code::UnknownKey,
                    key.span,
                    format!("unknown key `{k}` in {what}"),
                )
                .label("not a key of the schema format")
                .suggest(k, allowed.iter().copied());
                let d = if k.contains(char::is_whitespace) {
                    // `{description: a, b}` reads `b` as a second key.
                    d.with_help(
                        "inside `{…}` a comma starts a new key: quote text that holds a comma",
                    )
                } else if d.help.is_none() {
                    d.with_help(format!("expected one of: {}", allowed.join(", ")))
                } else {
                    d
                };
                self.error(d);
                continue;
            }
            entries.push((k, key, value));
        }
        let span = match pairs.first() {
            Some((k, _)) => k.span,
            None => node.span,
        };
        Some(Entries {
            span,
            entries,
            unknown_keys,
        })
    }

    /// The span of `part` inside a scalar node (quoted scalars start one byte later than their text).
    fn sub_span(&self, node: &Node, part: &str) -> Span {
        let written = self.sources.text(node.span);
        let fallback = Span {
            file: node.span.file,
            start: node.span.start,
            end: node.span.end,
        };
        let Some(at) = written.find(part) else {
            return fallback;
        };
        let start = node.span.start + crate::source::to_u32(at);
        Span {
            file: node.span.file,
            start,
            end: start + crate::source::to_u32(part.len()),
        }
    }
}

/// Whether `text` is a calendar date written `YYYY-MM-DD`.
pub(crate) fn is_date(text: &str) -> bool {
    let parts: Vec<&str> = text.split('-').collect();
    let [y, m, d] = parts.as_slice() else {
        return false;
    };
    if y.len() != 4 || m.len() != 2 || d.len() != 2 {
        return false;
    }
    let (Ok(y), Ok(m), Ok(d)) = (y.parse::<u32>(), m.parse::<u32>(), d.parse::<u32>()) else {
        return false;
    };
    let leap = y % 4 == 0 && (y % 100 != 0 || y % 400 == 0);
    let days = match m {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return false,
    };
    (1..=days).contains(&d)
}

#[cfg(test)]
mod tests {
    use super::is_date;

    #[test]
    fn dates_are_calendar_dates() {
        for good in ["2027-06-30", "2024-02-29", "2000-02-29", "1999-12-31"] {
            assert!(is_date(good), "{good}");
        }
        for bad in [
            "2027-6-30",
            "2023-02-29",
            "1900-02-29",
            "2027-13-01",
            "2027-04-31",
            "27-06-30",
            "2027/06/30",
            "",
        ] {
            assert!(!is_date(bad), "{bad}");
        }
    }
}
