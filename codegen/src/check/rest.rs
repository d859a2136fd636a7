//! The REST side: resources (bases, generic envelopes, free-form objects), authentication, and endpoints
//! with their path templates and parameters.

use super::Resolver;
use super::types::Scope;
use crate::ast::{self, Located, TypeDef};
use crate::diag::{Code, Diagnostic};
use crate::model::{AuthScheme, Endpoint, PathSegment, Rest, Struct, Type};
use crate::naming;
use crate::source::Span;
use std::collections::{BTreeMap, BTreeSet};

impl<'s> Resolver<'s> {
    /// Registers the resources of `rest.yaml`.
    pub(super) fn register_resources(&mut self, rest: &'s ast::RestFile) {
        for t in &rest.resources {
            self.check_type_name(&t.name);
            // Names are keys of one mapping: the reader reports a repeated one.
            self.resources.insert(&t.name.text, t);
            self.places
                .resources
                .insert(t.name.text.clone(), t.name.span);
        }
    }

    /// Registers the bases of `rest.yaml`.
    pub(super) fn register_rest_bases(&mut self, rest: &'s ast::RestFile) {
        for base in &rest.bases {
            let fields = self.fields(&base.fields, Scope::Rest { param: None }, None);
            self.register_base(base, fields, true);
        }
    }

    /// The REST API: resources, authentication, endpoints.
    pub(super) fn rest(&mut self, file: &'s ast::RestFile) -> Rest {
        let mut resources = Vec::new();
        let defs: Vec<&TypeDef> = self.resources.values().copied().collect();
        for t in defs {
            let param = t.generic.as_ref().map(|g| g.text.as_str());
            if let Some(g) = &t.generic
                && !naming::is_type_name(&g.text)
            {
                let d = Diagnostic::new(
                    Code::InvalidTypeName,
                    g.span,
                    format!("invalid type parameter `{}`", g.text),
                )
                .label("a type parameter is a PascalCase name such as `T`");
                self.error(d);
            }
            let mut parts = Vec::new();
            for base in &t.bases {
                match self.rest_bases.get(base.text.as_str()) {
                    Some((_, fields)) => parts.push(fields.clone()),
                    None => {
                        let known: Vec<&str> = self.rest_bases.keys().copied().collect();
                        let d = Diagnostic::new(
                            Code::UnknownBase,
                            base.span,
                            format!("unknown base `{}`", base.text),
                        )
                        .label("no base of this name in rest.yaml")
                        .suggest(&base.text, known);
                        self.error(d);
                    }
                }
            }
            parts.push(self.fields(&t.fields, Scope::Rest { param }, None));
            let fields = self.assemble(parts);
            self.place_fields(&t.name.text, &fields);
            self.check_reserved_fields(
                &t.reserved,
                &fields,
                &format!("the resource `{}`", t.name.text),
            );
            let waivers = self.waivers(&format!("resource {}", t.name.text), &t.waivers);
            resources.push(Struct {
                name: t.name.text.clone(),
                rust_name: String::new(),
                doc: t.description.clone().unwrap_or_default(),
                fields: fields.into_iter().map(|p| p.field).collect(),
                incomplete: t.incomplete,
                generic: t.generic.as_ref().map(|g| g.text.clone()),
                free_form: t.free_form,
                waivers,
            });
        }
        let auth: BTreeMap<&str, AuthScheme> = file
            .auth
            .iter()
            .map(|a| {
                let scheme = AuthScheme {
                    name: a.name.text.clone(),
                    kind: a.kind,
                    doc: a.description.clone().unwrap_or_default(),
                };
                (a.name.text.as_str(), scheme)
            })
            .collect();
        let error_response = file.error_response.as_ref().and_then(|t| {
            self.places.error_response = Some(t.span());
            self.resolve_type(t, Scope::Rest { param: None })
        });
        let mut endpoints = Vec::new();
        for e in &file.endpoints {
            if let Some(endpoint) = self.endpoint(e) {
                if endpoint.auth_required && auth.is_empty() {
                    let d = Diagnostic::new(
                        Code::MissingKey,
                        e.name.span,
                        "this endpoint requires authentication, but rest.yaml defines no scheme",
                    )
                    .label("`auth: required`")
                    .with_help("add an `authentication:` section");
                    self.error(d);
                }
                endpoints.push(endpoint);
            }
        }
        Rest {
            title: file.title.clone(),
            version: file.version.clone(),
            doc: file.description.clone(),
            auth: auth.into_values().collect(),
            resources,
            error_response,
            endpoints,
        }
    }

    fn endpoint(&mut self, e: &'s ast::EndpointDef) -> Option<Endpoint> {
        if !naming::is_endpoint_name(&e.name.text) {
            let d = Diagnostic::new(
                Code::InvalidEndpointName,
                e.name.span,
                format!("invalid endpoint name `{}`", e.name.text),
            )
            .label("endpoint names are snake_case, such as `list_products`");
            self.error(d);
            return None;
        }
        self.places
            .endpoints
            .insert(e.name.text.clone(), e.name.span);
        let segments = self.path_segments(&e.path)?;
        let mut path_parameters =
            self.fields(&e.path_parameters, Scope::Rest { param: None }, None);
        let query = self.fields(&e.query, Scope::Rest { param: None }, None);
        self.place_fields(&e.name.text, &path_parameters);
        self.place_fields(&e.name.text, &query);
        let placeholders: Vec<&str> = segments
            .iter()
            .filter_map(|s| match s {
                PathSegment::Param(p) => Some(p.as_str()),
                PathSegment::Literal(_) => None,
            })
            .collect();
        let mut ok = true;
        for p in &placeholders {
            if !path_parameters.iter().any(|f| f.field.name == *p) {
                ok = false;
                let at = self.sub_span(&e.path, &format!("{{{p}}}"));
                let declared: Vec<&str> = path_parameters
                    .iter()
                    .map(|f| f.field.name.as_str())
                    .collect();
                let d = Diagnostic::new(
                    Code::PathParameterMismatch,
                    at,
                    format!("path parameter `{p}` is not declared"),
                )
                .label("used in the path")
                .suggest(p, declared);
                let d = if d.help.is_none() {
                    d.with_help(format!("declare it under `path_parameters:` as `{p}: {{type: str, description: …}}`"))
                } else {
                    d
                };
                self.error(d);
            }
        }
        for f in &path_parameters {
            if !placeholders.contains(&f.field.name.as_str()) {
                ok = false;
                let d = Diagnostic::new(
                    Code::PathParameterMismatch,
                    f.span,
                    format!(
                        "path parameter `{}` does not appear in the path `{}`",
                        f.field.name, e.path.text
                    ),
                )
                .label("declared here")
                .suggest(&f.field.name, placeholders.iter().copied());
                self.error(d);
            }
            if f.field.optional || !matches!(f.field.ty, Type::Str | Type::Int) {
                ok = false;
                let d = Diagnostic::new(
                    Code::InvalidType,
                    f.span,
                    format!(
                        "path parameter `{}` must be a required `str` or `int`",
                        f.field.name
                    ),
                )
                .label("a path segment is always present and is text or a number");
                self.error(d);
            }
        }
        for f in &query {
            let scalar = |t: &Type| matches!(t, Type::Str | Type::Int | Type::Num | Type::Bool);
            let ty = &f.field.ty;
            let fine = scalar(ty) || matches!(ty, Type::Array(inner) if scalar(inner));
            if !fine {
                ok = false;
                let d = Diagnostic::new(
                    Code::InvalidType,
                    f.span,
                    format!(
                        "query parameter `{}` must be a scalar or an array of scalars",
                        f.field.name
                    ),
                )
                .label(format!("found {}", ty.describe()));
                self.error(d);
            }
        }
        let parameters: Vec<&ast::FieldDef> = e.path_parameters.iter().chain(&e.query).collect();
        ok &= self.parameter_rules(&parameters);
        path_parameters.sort_by_key(|f| placeholders.iter().position(|p| *p == f.field.name));
        let response = self.resolve_type(&e.response, Scope::Rest { param: None })?;
        let waivers = self.waivers(&format!("endpoint {}", e.name.text), &e.waivers);
        ok.then(|| Endpoint {
            name: e.name.text.clone(),
            rust_name: String::new(),
            method: e.method.text.clone(),
            path: e.path.text.clone(),
            segments,
            doc: e.description.clone().unwrap_or_default(),
            path_parameters: path_parameters.into_iter().map(|p| p.field).collect(),
            query: query.into_iter().map(|p| p.field).collect(),
            response,
            auth_required: e.auth == ast::AuthRequirement::Required,
            waivers,
        })
    }

    /// Each parameter's rules fit it: bounds and a default on integers only, a default on an optional
    /// parameter and within the bounds, `not_after` naming another date-time parameter of the endpoint.
    fn parameter_rules(&mut self, parameters: &[&ast::FieldDef]) -> bool {
        let mut ok = true;
        let is_int =
            |p: &ast::FieldDef| matches!(&p.ty, ast::TypeExpr::Builtin(ast::Builtin::Int, _));
        let is_date_time = |p: &ast::FieldDef| {
            matches!(&p.ty, ast::TypeExpr::Builtin(ast::Builtin::Str, _))
                && p.format == Some(ast::Format::DateTime)
        };
        for p in parameters {
            let rules = &p.rules;
            let mut refuse = |r: &mut Self, span: Span, message: String, label: &str| {
                ok = false;
                r.error(
                    Diagnostic::new(Code::InvalidParameterRule, span, message)
                        .label(label.to_owned()),
                );
            };
            for (key, rule) in [
                ("minimum", rules.minimum),
                ("maximum", rules.maximum),
                ("default", rules.default),
            ] {
                if let Some((_, span)) = rule
                    && !is_int(p)
                {
                    refuse(
                        self,
                        span,
                        format!(
                            "`{key}` applies to `int` parameters; `{}` is not one",
                            p.name.text
                        ),
                        "a bound or default of a whole number",
                    );
                }
            }
            if let (Some((min, _)), Some((max, span))) = (rules.minimum, rules.maximum)
                && min > max
            {
                refuse(
                    self,
                    span,
                    format!("`maximum` {max} is below `minimum` {min}"),
                    "no value would be accepted",
                );
            }
            if let Some((default, span)) = rules.default {
                if !p.optional {
                    refuse(
                        self,
                        span,
                        format!("`{}` is required, so it has no default", p.name.text),
                        "write the parameter as optional (`name?:`) to give it a default",
                    );
                }
                let below = rules.minimum.is_some_and(|(min, _)| default < min);
                let above = rules.maximum.is_some_and(|(max, _)| default > max);
                if below || above {
                    refuse(
                        self,
                        span,
                        format!("`default` {default} is outside the parameter's bounds"),
                        "the default must be accepted itself",
                    );
                }
            }
            if let Some(other) = &rules.not_after
                && !is_date_time(p)
            {
                refuse(
                    self,
                    other.span,
                    format!(
                        "`not_after` applies to date-time parameters; `{}` is not one",
                        p.name.text
                    ),
                    "a parameter `{type: str, format: date-time}` may be kept before another",
                );
            } else if let Some(other) = &rules.not_after {
                let target = parameters.iter().find(|q| q.name.text == other.text);
                let fine = other.text != p.name.text && target.is_some_and(|q| is_date_time(q));
                if !fine {
                    ok = false;
                    let d = Diagnostic::new(
                        Code::InvalidParameterRule,
                        other.span,
                        format!("`not_after: {}` must name another date-time parameter of this endpoint", other.text),
                    )
                    .label("both parameters are `{type: str, format: date-time}`")
                    .suggest(
                        &other.text,
                        parameters
                            .iter()
                            .filter(|q| is_date_time(q) && q.name.text != p.name.text)
                            .map(|q| q.name.text.as_str()),
                    );
                    self.error(d);
                }
            }
        }
        ok
    }

    fn path_segments(&mut self, path: &Located) -> Option<Vec<PathSegment>> {
        let text = path.text.as_str();
        let fail = |r: &mut Self, message: String, label: &str| {
            r.error(Diagnostic::new(Code::InvalidPath, path.span, message).label(label));
            None
        };
        if !text.starts_with('/') {
            return fail(
                self,
                format!("endpoint path `{text}` must start with `/`"),
                "relative path",
            );
        }
        let mut segments = Vec::new();
        let mut seen = BTreeSet::new();
        let mut rest = text;
        while !rest.is_empty() {
            match rest.find('{') {
                Some(open) => {
                    if rest[..open].contains('}') {
                        return fail(
                            self,
                            format!("unbalanced `}}` in path `{text}`"),
                            "unbalanced brace",
                        );
                    }
                    if open > 0 {
                        segments.push(PathSegment::Literal(rest[..open].to_owned()));
                    }
                    let Some(close) = rest[open..].find('}') else {
                        return fail(
                            self,
                            format!("unclosed `{{` in path `{text}`"),
                            "unclosed brace",
                        );
                    };
                    let name = &rest[open + 1..open + close];
                    if !naming::is_field_name(name) {
                        return fail(
                            self,
                            format!("invalid path parameter `{{{name}}}` in `{text}`"),
                            "not a parameter name",
                        );
                    }
                    if !seen.insert(name) {
                        return fail(
                            self,
                            format!("path parameter `{name}` appears twice in `{text}`"),
                            "repeated parameter",
                        );
                    }
                    segments.push(PathSegment::Param(name.to_owned()));
                    rest = &rest[open + close + 1..];
                }
                None => {
                    if rest.contains('}') {
                        return fail(
                            self,
                            format!("unbalanced `}}` in path `{text}`"),
                            "unbalanced brace",
                        );
                    }
                    segments.push(PathSegment::Literal(rest.to_owned()));
                    rest = "";
                }
            }
        }
        Some(segments)
    }

    fn sub_span(&self, located: &Located, part: &str) -> Span {
        let written = self.sources.text(located.span);
        match written.find(part) {
            Some(at) => {
                let start = located.span.start + crate::source::to_u32(at);
                Span {
                    file: located.span.file,
                    start,
                    end: start + crate::source::to_u32(part.len()),
                }
            }
            None => located.span,
        }
    }
}
