//! Shared types, resources and bases, their fields, and type expressions.

use super::{SchemaReader, keys};
use crate::ast::*;
use crate::diag::{Code, Diagnostic};
use crate::naming;
use crate::source::{FileId, Span};
use crate::yaml::{Node, NodeKind};

impl SchemaReader<'_> {
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

    pub(super) fn bases(&mut self, node: &Node, rest: bool) -> Vec<BaseDef> {
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

    pub(super) fn type_def(&mut self, key: &Node, value: &Node, rest: bool) -> Option<TypeDef> {
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

    /// A mapping of field entries: `name: type`, `name?: type`, or `name: {type: …, description: …}`.
    pub(super) fn fields(&mut self, node: &Node, rest: bool, describe: bool) -> Vec<FieldDef> {
        let allowed = if rest {
            keys::REST_FIELD
        } else {
            keys::EVENT_FIELD
        };
        self.field_entries(node, allowed, describe)
    }

    /// The path or query parameters of an endpoint: fields, with their rules.
    pub(super) fn parameters(&mut self, node: &Node) -> Vec<FieldDef> {
        self.field_entries(node, keys::PARAMETER, true)
    }

    fn field_entries(&mut self, node: &Node, allowed: &[&str], describe: bool) -> Vec<FieldDef> {
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
                    let integer = |r: &mut Self, key: &str| {
                        let node = long.get(key)?;
                        match node.as_str().map(str::parse::<i64>) {
                            Some(Ok(n)) => Some((n, node.span)),
                            _ => {
                                r.expected(
                                    node,
                                    &format!("`{key}`"),
                                    "a whole number, such as `100`",
                                );
                                None
                            }
                        }
                    };
                    let rules = ParamRulesDef {
                        minimum: integer(self, "minimum"),
                        maximum: integer(self, "maximum"),
                        default: integer(self, "default"),
                        not_after: long.get("not_after").and_then(|n| self.located(n)),
                    };
                    FieldDef {
                        name,
                        optional,
                        ty,
                        description,
                        nullable,
                        format,
                        renamed_from,
                        rules,
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
                        rules: ParamRulesDef::default(),
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
}
