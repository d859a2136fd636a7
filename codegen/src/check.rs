//! Resolve and check: names to definitions, bases and `extends` flattened, Rust names chosen and checked
//! for collisions, cycles found. Produces the [`Model`] or records why it cannot.

use crate::ast::{
    self, BaseDef, Builtin, EventDef, FieldDef, Located, Schema, TypeDef, TypeExpr, VersionDef,
};
use crate::diag::{Diagnostic, Diagnostics, closest};
use crate::model::*;
use crate::naming;
use crate::source::{SourceMap, Span};
use std::collections::{BTreeMap, BTreeSet};
use std::rc::Rc;

/// A field with the place it was written, while structs are assembled.
#[derive(Clone)]
struct Placed {
    field: Field,
    span: Span,
}

/// Which names a type expression may use.
#[derive(Clone, Copy)]
enum Scope<'a> {
    /// Event payloads and shared types: the shared types.
    Events,
    /// REST resources and endpoints: the resources, and the type parameter of a generic resource.
    Rest { param: Option<&'a str> },
}

type VersionKey<'s> = (&'s str, &'s str);

struct VersionSite<'s> {
    event: &'s Located,
    entry: &'s EventDef,
    def: &'s VersionDef,
    section: usize,
}

struct Resolver<'s> {
    sources: &'s SourceMap,
    diags: &'s mut Diagnostics,
    shared: BTreeMap<&'s str, &'s TypeDef>,
    resources: BTreeMap<&'s str, &'s TypeDef>,
    event_bases: BTreeMap<&'s str, (&'s BaseDef, Vec<Placed>)>,
    rest_bases: BTreeMap<&'s str, (&'s BaseDef, Vec<Placed>)>,
    versions: BTreeMap<VersionKey<'s>, VersionSite<'s>>,
    flat: BTreeMap<VersionKey<'s>, Option<Rc<Vec<Placed>>>>,
    visiting: Vec<VersionKey<'s>>,
}

/// Resolves a read schema into the model. Returns `None` when any mistake was recorded.
pub fn resolve(schema: &Schema, sources: &SourceMap, diags: &mut Diagnostics) -> Option<Model> {
    let errors_before = diags.len();
    let mut r = Resolver {
        sources,
        diags,
        shared: BTreeMap::new(),
        resources: BTreeMap::new(),
        event_bases: BTreeMap::new(),
        rest_bases: BTreeMap::new(),
        versions: BTreeMap::new(),
        flat: BTreeMap::new(),
        visiting: Vec::new(),
    };
    r.register_types(schema);
    r.register_bases(schema);
    r.register_versions(schema);
    let shared_types = r.shared_types();
    let sections = r.sections(schema);
    let rest = schema.rest.as_ref().map(|rest| r.rest(rest));
    r.check_event_names(&sections, schema);
    let mut model = Model {
        shared_types,
        sections,
        rest,
    };
    break_cycles(&mut model.shared_types, &r.shared, r.diags);
    if let Some(rest) = &mut model.rest {
        break_cycles(&mut rest.resources, &r.resources, r.diags);
    }
    (r.diags.len() == errors_before).then_some(model)
}

impl<'s> Resolver<'s> {
    fn error(&mut self, d: Diagnostic) {
        self.diags.push(d);
    }

    fn register_types(&mut self, schema: &'s Schema) {
        for file in &schema.types {
            for t in &file.types {
                self.check_type_name(&t.name);
                if let Some(first) = self.shared.get(t.name.text.as_str()) {
                    let d = duplicate("duplicate-type", "type", &t.name, first.name.span);
                    self.error(d);
                } else {
                    self.shared.insert(&t.name.text, t);
                }
            }
        }
        if let Some(rest) = &schema.rest {
            for t in &rest.resources {
                self.check_type_name(&t.name);
                if naming::RESERVED_REST_NAMES.contains(&t.name.text.as_str()) {
                    let d = Diagnostic::new(
                        "reserved-name",
                        t.name.span,
                        format!("`{}` is reserved", t.name.text),
                    )
                    .label("the generated `rest` module defines this name itself")
                    .with_help("rename the resource");
                    self.error(d);
                }
                if let Some(first) = self.resources.get(t.name.text.as_str()) {
                    let d = duplicate("duplicate-type", "resource", &t.name, first.name.span);
                    self.error(d);
                } else {
                    self.resources.insert(&t.name.text, t);
                }
            }
        }
    }

    fn check_type_name(&mut self, name: &Located) {
        if !naming::is_type_name(&name.text) {
            let fixed = heck::ToUpperCamelCase::to_upper_camel_case(name.text.as_str());
            let mut d = Diagnostic::new(
                "invalid-type-name",
                name.span,
                format!("invalid type name `{}`", name.text),
            )
            .label("type names are PascalCase: ASCII letters and digits, starting with a capital");
            if naming::is_type_name(&fixed) {
                d = d.with_help(format!("did you mean `{fixed}`?"));
            }
            self.error(d);
        }
    }

    fn register_bases(&mut self, schema: &'s Schema) {
        for section in &schema.sections {
            for base in &section.bases {
                let fields = self.fields(
                    &base.fields,
                    Scope::Events,
                    Some(&format!("base {}", base.name.text)),
                );
                self.register_base(base, fields, false);
            }
        }
        if let Some(rest) = &schema.rest {
            for base in &rest.bases {
                let fields = self.fields(&base.fields, Scope::Rest { param: None }, None);
                self.register_base(base, fields, true);
            }
        }
    }

    fn register_base(&mut self, base: &'s BaseDef, fields: Vec<Placed>, rest: bool) {
        let fields = self.assemble(vec![fields]);
        let map = if rest {
            &mut self.rest_bases
        } else {
            &mut self.event_bases
        };
        if let Some((first, _)) = map.get(base.name.text.as_str()) {
            let d = duplicate("duplicate-base", "base", &base.name, first.name.span);
            self.error(d);
        } else {
            map.insert(&base.name.text, (base, fields));
        }
    }

    fn register_versions(&mut self, schema: &'s Schema) {
        let mut home: BTreeMap<&str, (usize, Span)> = BTreeMap::new();
        for (index, section) in schema.sections.iter().enumerate() {
            for entry in &section.events {
                let mut seen_names: BTreeMap<&str, Span> = BTreeMap::new();
                for name in &entry.names {
                    if let Some(first) = seen_names.insert(&name.text, name.span) {
                        let d = duplicate("duplicate-event", "event type", name, first);
                        self.error(d);
                        continue;
                    }
                    if !naming::is_event_name(&name.text) {
                        let d = Diagnostic::new("invalid-event-name", name.span, format!("invalid event type `{}`", name.text))
                            .label("event types are lowercase letters, digits, `.`, `_` and `-`, starting with a letter");
                        self.error(d);
                        continue;
                    }
                    match home.get(name.text.as_str()) {
                        Some(&(other, first)) if other != index => {
                            let d = Diagnostic::new(
                                "event-in-two-sections",
                                name.span,
                                format!(
                                    "event type `{}` is defined in two events files",
                                    name.text
                                ),
                            )
                            .label("defined here")
                            .with_secondary(first, "and here")
                            .with_help("keep all versions of an event type in one section");
                            self.error(d);
                            continue;
                        }
                        Some(_) => {}
                        None => {
                            home.insert(&name.text, (index, name.span));
                        }
                    }
                    for v in &entry.versions {
                        if naming::version_key(&v.label.text).is_none() {
                            let d = invalid_version(&v.label);
                            self.error(d);
                            continue;
                        }
                        let key = (name.text.as_str(), v.label.text.as_str());
                        if let Some(first) = self.versions.get(&key) {
                            let d = Diagnostic::new(
                                "duplicate-version",
                                v.label.span,
                                format!(
                                    "version `{}` of `{}` is defined twice",
                                    v.label.text, name.text
                                ),
                            )
                            .label("defined again here")
                            .with_secondary(first.def.label.span, "first defined here");
                            self.error(d);
                            continue;
                        }
                        self.versions.insert(
                            key,
                            VersionSite {
                                event: name,
                                entry,
                                def: v,
                                section: index,
                            },
                        );
                    }
                }
            }
        }
    }

    fn shared_types(&mut self) -> Vec<Struct> {
        let defs: Vec<&TypeDef> = self.shared.values().copied().collect();
        defs.into_iter()
            .map(|t| {
                let fields = self.fields(&t.fields, Scope::Events, None);
                let fields = self.assemble(vec![fields]);
                Struct {
                    name: t.name.text.clone(),
                    rust_name: t.name.text.clone(),
                    doc: t.description.clone().unwrap_or_default(),
                    fields: fields.into_iter().map(|p| p.field).collect(),
                    incomplete: t.incomplete,
                    generic: None,
                    free_form: false,
                }
            })
            .collect()
    }

    fn sections(&mut self, schema: &'s Schema) -> Vec<Section> {
        let keys: Vec<VersionKey<'s>> = self.versions.keys().copied().collect();
        let mut by_section: BTreeMap<usize, BTreeMap<&'s str, Vec<EventVersion>>> = BTreeMap::new();
        let mut descriptions: BTreeMap<&str, Option<String>> = BTreeMap::new();
        let mut rust_names: BTreeMap<&str, String> = BTreeMap::new();
        for key in keys {
            let Some(fields) = self.version_fields(key) else {
                continue;
            };
            let site = &self.versions[&key];
            let (event, label) = key;
            let description = descriptions.entry(event).or_insert(None);
            if description.is_none() {
                description.clone_from(&site.entry.description);
            }
            let rust_name = match &site.entry.rust_name {
                Some(r) => r.text.clone(),
                None => naming::event_ident(event),
            };
            rust_names.insert(event, rust_name.clone());
            let variant = naming::version_variant(label);
            let extends = site.def.extends.as_ref().map(|e| {
                format!(
                    "{} {}",
                    e.event.as_ref().map_or(event, |n| n.text.as_str()),
                    e.version.text
                )
            });
            let version = EventVersion {
                label: label.to_owned(),
                variant: variant.clone(),
                id: format!("{event}.{label}"),
                description: site.def.description.clone(),
                extends,
                bases: site.def.bases.iter().map(|b| b.text.clone()).collect(),
                alias_of: site.def.payload.as_ref().map(|p| NamedRef {
                    name: p.text.clone(),
                    rust_name: p.text.clone(),
                    arg: None,
                }),
                payload: Struct {
                    name: format!("{event} {label}"),
                    rust_name: format!("{rust_name}{variant}"),
                    doc: String::new(),
                    fields: fields.iter().map(|p| p.field.clone()).collect(),
                    incomplete: site.def.incomplete,
                    generic: None,
                    free_form: false,
                },
            };
            by_section
                .entry(site.section)
                .or_default()
                .entry(event)
                .or_default()
                .push(version);
        }
        let mut sections: Vec<Section> = schema
            .sections
            .iter()
            .enumerate()
            .map(|(index, file)| {
                let events = by_section
                    .remove(&index)
                    .unwrap_or_default()
                    .into_iter()
                    .map(|(name, mut versions)| {
                        versions.sort_by_key(|v| (naming::version_key(&v.label), v.label.clone()));
                        EventType {
                            name: name.to_owned(),
                            rust_name: rust_names[name].clone(),
                            description: descriptions.get(name).cloned().flatten(),
                            versions,
                        }
                    })
                    .collect();
                Section {
                    stem: file.stem.text.clone(),
                    module: naming::module_ident(&file.stem.text),
                    feature: naming::feature_name(&file.stem.text),
                    title: file.title.clone(),
                    doc: file.description.clone(),
                    events,
                }
            })
            .collect();
        sections.sort_by(|a, b| a.module.cmp(&b.module));
        for section in &mut sections {
            let title = section.title.clone();
            for event in &mut section.events {
                let (name, description) = (event.name.clone(), event.description.clone());
                for v in &mut event.versions {
                    v.payload.doc = payload_doc(&title, &name, description.as_deref(), v);
                }
            }
        }
        sections
    }

    /// The flattened fields of one event version: those of the version it extends, then its bases', then its own.
    fn version_fields(&mut self, key: VersionKey<'s>) -> Option<Rc<Vec<Placed>>> {
        if let Some(done) = self.flat.get(&key) {
            return done.clone();
        }
        let site = self.versions.get(&key)?;
        let (event_span, def) = (site.event.span, site.def);
        if let Some(start) = self.visiting.iter().position(|k| *k == key) {
            let chain: Vec<String> = self.visiting[start..]
                .iter()
                .chain([&key])
                .map(|(e, v)| format!("`{e} {v}`"))
                .collect();
            let d = Diagnostic::new(
                "extends-cycle",
                def.extends.as_ref().map_or(def.label.span, |e| e.span),
                format!(
                    "versions extend each other in a cycle: {}",
                    chain.join(" → ")
                ),
            )
            .label("this `extends` closes the cycle");
            self.error(d);
            return None;
        }
        self.visiting.push(key);
        let mut parts = Vec::new();
        let mut ok = true;
        if let Some(ext) = &def.extends {
            let target_event: &'s str = ext.event.as_ref().map_or(key.0, |e| e.text.as_str());
            let target = (target_event, ext.version.text.as_str());
            if self.versions.contains_key(&target) {
                match self.version_fields(target) {
                    Some(fields) => {
                        let origin = format!("{} {}", target.0, target.1);
                        parts.push(
                            fields
                                .iter()
                                .map(|p| {
                                    let mut p = p.clone();
                                    p.field.origin.get_or_insert_with(|| origin.clone());
                                    p
                                })
                                .collect(),
                        );
                    }
                    None => ok = false,
                }
            } else {
                ok = false;
                let d = self.missing_version(target_event, ext, event_span);
                self.error(d);
            }
        }
        for base in &def.bases {
            match self.event_bases.get(base.text.as_str()) {
                Some((_, fields)) => parts.push(fields.clone()),
                None => {
                    ok = false;
                    let known: Vec<&str> = self.event_bases.keys().copied().collect();
                    let mut d = Diagnostic::new(
                        "unknown-base",
                        base.span,
                        format!("unknown base `{}`", base.text),
                    )
                    .label("no base of this name")
                    .suggest(&base.text, known.iter().copied());
                    if d.help.is_none() && !known.is_empty() {
                        d = d.with_help(format!("known bases: {}", known.join(", ")));
                    }
                    self.error(d);
                }
            }
        }
        parts.push(self.fields(&def.fields, Scope::Events, None));
        if let Some(payload) = &def.payload {
            match self.resolve_named(payload, None, Scope::Events) {
                Some(Type::Named(r)) => {
                    if let Some(t) = self.shared.get(r.name.as_str()).copied() {
                        parts.push(self.fields(&t.fields, Scope::Events, None));
                    }
                }
                _ => ok = false,
            }
        }
        self.visiting.pop();
        let result = ok.then(|| Rc::new(self.assemble(parts)));
        self.flat.insert(key, result.clone());
        result
    }

    fn missing_version(&self, event: &str, ext: &ast::ExtendsRef, _at: Span) -> Diagnostic {
        let versions: Vec<&str> = self
            .versions
            .keys()
            .filter(|(e, _)| *e == event)
            .map(|(_, v)| *v)
            .collect();
        if versions.is_empty() {
            let events: BTreeSet<&str> = self.versions.keys().map(|(e, _)| *e).collect();
            let span = ext.event.as_ref().map_or(ext.span, |e| e.span);
            return Diagnostic::new(
                "unknown-event",
                span,
                format!("`extends` names an unknown event type `{event}`"),
            )
            .label("no event type of this name")
            .suggest(event, events.iter().copied());
        }
        Diagnostic::new(
            "unknown-version",
            ext.version.span,
            format!(
                "`extends` names version `{}` of `{event}`, which is not defined",
                ext.version.text
            ),
        )
        .label("no such version")
        .with_help(match closest(&ext.version.text, versions.iter().copied()) {
            Some(v) => format!("did you mean `{v}`? `{event}` has {}", versions.join(", ")),
            None => format!("`{event}` has {}", versions.join(", ")),
        })
    }

    /// Resolves field definitions (types, formats); `origin` marks fields that come from a base.
    fn fields(&mut self, defs: &[FieldDef], scope: Scope<'_>, origin: Option<&str>) -> Vec<Placed> {
        let mut out = Vec::with_capacity(defs.len());
        for def in defs {
            let Some(ty) = self.resolve_type(&def.ty, scope) else {
                continue;
            };
            if let Some(format) = def.format
                && ty != Type::Str
            {
                let d = Diagnostic::new(
                    "invalid-format",
                    def.name.span,
                    format!(
                        "format `{}` applies to strings; `{}` is {}",
                        format.keyword(),
                        def.name.text,
                        ty.describe()
                    ),
                );
                self.error(d);
            }
            out.push(Placed {
                field: Field {
                    name: def.name.text.clone(),
                    rust_name: naming::field_ident(&def.name.text),
                    ty,
                    optional: def.optional,
                    nullable: def.nullable,
                    format: def.format,
                    description: def.description.clone(),
                    origin: origin.map(str::to_owned),
                    boxed: false,
                },
                span: def.name.span,
            });
        }
        out
    }

    /// Concatenates field lists, reporting a field defined twice and two fields with one Rust name.
    fn assemble(&mut self, parts: Vec<Vec<Placed>>) -> Vec<Placed> {
        let mut out: Vec<Placed> = Vec::new();
        for field in parts.into_iter().flatten() {
            if let Some(first) = out.iter().find(|f| f.field.name == field.field.name) {
                if first.span == field.span {
                    continue;
                }
                let origin = |p: &Placed| match &p.field.origin {
                    Some(o) => format!("first defined here (from {o})"),
                    None => "first defined here".to_owned(),
                };
                let d = Diagnostic::new(
                    "duplicate-field",
                    field.span,
                    format!("field `{}` is defined twice", field.field.name),
                )
                .label("defined again here")
                .with_secondary(first.span, origin(first));
                self.error(d);
                continue;
            }
            if let Some(first) = out
                .iter()
                .find(|f| f.field.rust_name == field.field.rust_name)
            {
                let d = Diagnostic::new(
                    "field-name-collision",
                    field.span,
                    format!(
                        "fields `{}` and `{}` both become `{}` in Rust",
                        first.field.name, field.field.name, field.field.rust_name
                    ),
                )
                .label("this field")
                .with_secondary(first.span, "collides with this one")
                .with_help("rename one of them: they differ only in case or separators");
                self.error(d);
                continue;
            }
            out.push(field);
        }
        out
    }

    fn resolve_type(&mut self, t: &TypeExpr, scope: Scope<'_>) -> Option<Type> {
        match t {
            TypeExpr::Builtin(b, _) => Some(match b {
                Builtin::Str => Type::Str,
                Builtin::Int => Type::Int,
                Builtin::Num => Type::Num,
                Builtin::Bool => Type::Bool,
                Builtin::Obj => Type::Obj,
            }),
            TypeExpr::Array(inner, _) => {
                Some(Type::Array(Box::new(self.resolve_type(inner, scope)?)))
            }
            TypeExpr::Named(name, arg) => self.resolve_named(name, arg.as_deref(), scope),
        }
    }

    fn resolve_named(
        &mut self,
        name: &Located,
        arg: Option<&TypeExpr>,
        scope: Scope<'_>,
    ) -> Option<Type> {
        let (found, param) = match scope {
            Scope::Events => (self.shared.get(name.text.as_str()).copied(), None),
            Scope::Rest { param } => (self.resources.get(name.text.as_str()).copied(), param),
        };
        if param == Some(name.text.as_str()) {
            return Some(Type::Param(name.text.clone()));
        }
        let Some(def) = found else {
            let d = self.unknown_type(name, scope);
            self.error(d);
            return None;
        };
        let arg = match (&def.generic, arg) {
            (None, None) => None,
            (Some(_), Some(a)) => Some(Box::new(self.resolve_type(a, scope)?)),
            (None, Some(a)) => {
                let d = Diagnostic::new(
                    "invalid-type",
                    a.span(),
                    format!("`{}` takes no type argument", name.text),
                )
                .label("remove this argument");
                self.error(d);
                return None;
            }
            (Some(p), None) => {
                let d = Diagnostic::new(
                    "invalid-type",
                    name.span,
                    format!("`{}` needs a type argument", name.text),
                )
                .label(format!(
                    "write `{}<…>`, the type of `{}`",
                    name.text, p.text
                ));
                self.error(d);
                return None;
            }
        };
        Some(Type::Named(NamedRef {
            name: def.name.text.clone(),
            rust_name: def.name.text.clone(),
            arg,
        }))
    }

    fn unknown_type(&self, name: &Located, scope: Scope<'_>) -> Diagnostic {
        const SYNONYMS: [(&str, &str); 8] = [
            ("string", "str"),
            ("integer", "int"),
            ("number", "num"),
            ("float", "num"),
            ("boolean", "bool"),
            ("object", "obj"),
            ("i64", "int"),
            ("f64", "num"),
        ];
        let mut known: Vec<&str> = Builtin::ALL.iter().map(|b| b.keyword()).collect();
        match scope {
            Scope::Events => known.extend(self.shared.keys().copied()),
            Scope::Rest { param } => {
                known.extend(self.resources.keys().copied());
                known.extend(param);
            }
        }
        let d = Diagnostic::new(
            "unknown-type",
            name.span,
            format!("unknown type `{}`", name.text),
        )
        .label("not a built-in or a defined type");
        let lower = name.text.to_ascii_lowercase();
        if let Some((_, b)) = SYNONYMS.iter().find(|(s, _)| *s == lower) {
            return d.with_help(format!("did you mean `{b}`?"));
        }
        if matches!(scope, Scope::Events) && self.resources.contains_key(name.text.as_str()) {
            return d.with_help(format!(
                "`{}` is a REST resource; event payloads can use only the shared types of `types.yaml`",
                name.text
            ));
        }
        d.suggest(&name.text, known)
    }

    fn check_event_names(&mut self, sections: &[Section], schema: &Schema) {
        // Every event name and payload struct is a Rust item of the `events` module tree.
        let mut idents: BTreeMap<String, (String, Span)> = BTreeMap::new();
        // Where each event type is named (its `rust_name` when it has one), found once: no scan per event.
        let mut spans: BTreeMap<&str, Span> = BTreeMap::new();
        for entry in schema.sections.iter().flat_map(|s| &s.events) {
            for n in &entry.names {
                spans
                    .entry(n.text.as_str())
                    .or_insert(entry.rust_name.as_ref().map_or(n.span, |r| r.span));
            }
        }
        let name_span = |event: &str| spans.get(event).copied();

        for section in sections {
            for event in &section.events {
                let Some(span) = name_span(&event.name) else {
                    continue;
                };
                if !naming::is_type_name(&event.rust_name) {
                    let d = Diagnostic::new(
                        "invalid-type-name",
                        span,
                        format!("`{}` is not a valid Rust type name", event.rust_name),
                    )
                    .label("Rust names of events are PascalCase");
                    self.error(d);
                    continue;
                }
                if naming::RESERVED_EVENT_NAMES.contains(&event.rust_name.as_str()) {
                    let d = Diagnostic::new(
                        "reserved-name",
                        span,
                        format!(
                            "event type `{}` would be named `{}`, which is reserved",
                            event.name, event.rust_name
                        ),
                    )
                    .label("the generated `events` module defines this name itself")
                    .with_help("give the event a `rust_name:`");
                    self.error(d);
                    continue;
                }
                let own = std::iter::once((
                    event.rust_name.clone(),
                    format!("event type `{}`", event.name),
                ));
                let payloads = event.versions.iter().map(|v| {
                    (
                        v.payload.rust_name.clone(),
                        format!("payload `{} {}`", event.name, v.label),
                    )
                });
                for (ident, what) in own.chain(payloads) {
                    match idents.get(&ident) {
                        Some((other, first)) => {
                            let d = Diagnostic::new(
                                "name-collision",
                                span,
                                format!("{what} and {other} both become `{ident}` in Rust"),
                            )
                            .label("this one")
                            .with_secondary(*first, "collides with this one")
                            .with_help("give one of the event types a `rust_name:`");
                            self.error(d);
                        }
                        None => {
                            idents.insert(ident, (what, span));
                        }
                    }
                }
            }
        }
        // Payload structs and shared types share one namespace in the AsyncAPI document's
        // `components/schemas` (in Rust they live in different modules).
        for section in sections {
            for event in &section.events {
                for v in event.versions.iter().filter(|v| v.alias_of.is_none()) {
                    let name = &v.payload.rust_name;
                    let (Some(shared), Some(span)) =
                        (self.shared.get(name.as_str()), name_span(&event.name))
                    else {
                        continue;
                    };
                    let d = Diagnostic::new(
                        "name-collision",
                        span,
                        format!(
                            "payload `{} {}` and shared type `{name}` are both named `{name}` in the AsyncAPI document",
                            event.name, v.label
                        ),
                    )
                    .label("this event's payload")
                    .with_secondary(shared.name.span, "the shared type")
                    .with_help("rename the shared type, or give the event type a `rust_name:`");
                    self.error(d);
                }
            }
        }
        let mut modules: BTreeMap<String, Span> = BTreeMap::new();
        for file in &schema.sections {
            let module = naming::module_ident(&file.stem.text);
            let valid = !module.is_empty()
                && module.starts_with(|c: char| c.is_ascii_lowercase())
                && !naming::is_keyword(&module)
                && module != "mod";
            let span = file.stem.span;
            if !valid {
                let d = Diagnostic::new(
                    "invalid-file-name",
                    span,
                    format!("events file `{}` cannot name a Rust module", file.stem.text),
                )
                .label(
                    "file stems are lowercase words joined by `-` or `_`, and not a Rust keyword",
                );
                self.error(d);
            } else if let Some(first) = modules.get(&module) {
                let d = Diagnostic::new(
                    "name-collision",
                    span,
                    format!("two events files become the Rust module `{module}`"),
                )
                .label("this file")
                .with_secondary(*first, "and this one")
                .with_help("rename one of the files");
                self.error(d);
            } else {
                modules.insert(module, span);
            }
        }
    }

    fn rest(&mut self, file: &'s ast::RestFile) -> Rest {
        let mut resources = Vec::new();
        let defs: Vec<&TypeDef> = self.resources.values().copied().collect();
        for t in defs {
            let param = t.generic.as_ref().map(|g| g.text.as_str());
            if let Some(g) = &t.generic
                && !naming::is_type_name(&g.text)
            {
                let d = Diagnostic::new(
                    "invalid-type-name",
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
                            "unknown-base",
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
            resources.push(Struct {
                name: t.name.text.clone(),
                rust_name: t.name.text.clone(),
                doc: t.description.clone().unwrap_or_default(),
                fields: fields.into_iter().map(|p| p.field).collect(),
                incomplete: t.incomplete,
                generic: t.generic.as_ref().map(|g| g.text.clone()),
                free_form: t.free_form,
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
        let error_response = file
            .error_response
            .as_ref()
            .and_then(|t| self.resolve_type(t, Scope::Rest { param: None }));
        let mut endpoints = Vec::new();
        let mut names: BTreeMap<String, Span> = self
            .resources
            .iter()
            .map(|(name, def)| ((*name).to_owned(), def.name.span))
            .collect();
        for e in &file.endpoints {
            if let Some(endpoint) = self.endpoint(e, &mut names) {
                if endpoint.auth_required && auth.is_empty() {
                    let d = Diagnostic::new(
                        "missing-key",
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

    fn endpoint(
        &mut self,
        e: &'s ast::EndpointDef,
        names: &mut BTreeMap<String, Span>,
    ) -> Option<Endpoint> {
        let valid_name = e.name.text.starts_with(|c: char| c.is_ascii_lowercase())
            && e.name
                .text
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
            && !naming::is_keyword(&e.name.text);
        if !valid_name {
            let d = Diagnostic::new(
                "invalid-endpoint-name",
                e.name.span,
                format!("invalid endpoint name `{}`", e.name.text),
            )
            .label("endpoint names are snake_case, such as `list_products`");
            self.error(d);
            return None;
        }
        let rust_name = naming::type_ident(&e.name.text);
        if let Some(first) = names.get(&rust_name) {
            let d = Diagnostic::new(
                "name-collision",
                e.name.span,
                format!(
                    "endpoint `{}` becomes `{rust_name}` in Rust, which is already taken",
                    e.name.text
                ),
            )
            .label("this endpoint")
            .with_secondary(*first, "taken here")
            .with_help("rename the endpoint");
            self.error(d);
            return None;
        }
        names.insert(rust_name.clone(), e.name.span);
        let segments = self.path_segments(&e.path)?;
        let mut path_parameters =
            self.fields(&e.path_parameters, Scope::Rest { param: None }, None);
        let query = self.fields(&e.query, Scope::Rest { param: None }, None);
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
                    "path-parameter-mismatch",
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
                    "path-parameter-mismatch",
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
                    "invalid-type",
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
                    "invalid-type",
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
        path_parameters.sort_by_key(|f| placeholders.iter().position(|p| *p == f.field.name));
        let response = self.resolve_type(&e.response, Scope::Rest { param: None })?;
        ok.then(|| Endpoint {
            name: e.name.text.clone(),
            rust_name,
            method: e.method.text.clone(),
            path: e.path.text.clone(),
            segments,
            doc: e.description.clone().unwrap_or_default(),
            path_parameters: path_parameters.into_iter().map(|p| p.field).collect(),
            query: query.into_iter().map(|p| p.field).collect(),
            response,
            auth_required: e.auth == ast::AuthRequirement::Required,
        })
    }

    fn path_segments(&mut self, path: &Located) -> Option<Vec<PathSegment>> {
        let text = path.text.as_str();
        let fail = |r: &mut Self, message: String, label: &str| {
            r.error(Diagnostic::new("invalid-path", path.span, message).label(label));
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
                    if !crate::read::is_field_name(name) {
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

fn duplicate(code: &'static str, what: &str, name: &Located, first: Span) -> Diagnostic {
    Diagnostic::new(
        code,
        name.span,
        format!("{what} `{}` is defined twice", name.text),
    )
    .label("defined again here")
    .with_secondary(first, "first defined here")
}

fn invalid_version(label: &Located) -> Diagnostic {
    let t = label.text.trim();
    let guess = if let Some(rest) = t.strip_prefix(['V', 'v']) {
        let digits: String = rest.chars().filter(char::is_ascii_digit).collect();
        let n = digits.trim_start_matches('0');
        (!n.is_empty() && rest.chars().all(|c| c.is_ascii_digit() || c == '.'))
            .then(|| format!("v{n}"))
    } else if t.chars().all(|c| c.is_ascii_digit()) && !t.is_empty() {
        Some(format!("v{}", t.trim_start_matches('0')))
    } else {
        None
    };
    let d = Diagnostic::new(
        "invalid-version",
        label.span,
        format!("invalid version label `{}`", label.text),
    )
    .label("expected `v1`, `v2`, … or `MAJOR.MINOR.PATCH` such as `1.0.0`");
    match guess.filter(|g| naming::version_key(g).is_some()) {
        Some(g) => d.with_help(format!("did you mean `{g}`?")),
        None => d,
    }
}

/// Documentation of an event payload, for every output (each adds what is particular to it, such as how
/// an incomplete payload keeps unlisted fields).
fn payload_doc(
    section_title: &str,
    event: &str,
    description: Option<&str>,
    v: &EventVersion,
) -> String {
    let mut doc = format!(
        "Payload of `{event}` version `{}` ({section_title}).",
        v.label
    );
    if let Some(d) = description {
        doc.push_str("\n\n");
        doc.push_str(d);
    }
    if let Some(d) = &v.description {
        doc.push_str("\n\n");
        doc.push_str(d);
    }
    let mut from = Vec::new();
    if let Some(e) = &v.extends {
        from.push(format!("the fields of `{e}`"));
    }
    for b in &v.bases {
        from.push(format!("the fields of base `{b}`"));
    }
    if !from.is_empty() {
        doc.push_str(&format!("\n\nHolds {}, then its own.", from.join(" and ")));
    }
    if let Some(t) = &v.alias_of {
        doc.push_str(&format!("\n\nThe payload is the shared type `{}`.", t.name));
    }
    doc
}

/// Finds cycles among named types. A cycle that passes through an array, an optional or a nullable field
/// is fine (JSON can end it) and its direct references are boxed in Rust; a cycle of required fields only
/// can never be satisfied by finite JSON and is an error.
fn break_cycles(structs: &mut [Struct], defs: &BTreeMap<&str, &TypeDef>, diags: &mut Diagnostics) {
    let index: BTreeMap<String, usize> = structs
        .iter()
        .enumerate()
        .map(|(i, s)| (s.name.clone(), i))
        .collect();
    let direct = |s: &Struct, required_only: bool| -> Vec<usize> {
        s.fields
            .iter()
            .filter(|f| !required_only || !f.is_option())
            .filter_map(|f| match &f.ty {
                Type::Named(r) => index.get(r.name.as_str()).copied(),
                _ => None,
            })
            .collect()
    };
    let all_edges: Vec<Vec<usize>> = structs.iter().map(|s| direct(s, false)).collect();
    let required_edges: Vec<Vec<usize>> = structs.iter().map(|s| direct(s, true)).collect();
    let required_components = strongly_connected(&required_edges);
    let mut reported = BTreeSet::new();
    for (i, s) in structs.iter().enumerate() {
        let c = required_components[i];
        let cyclic = required_edges[i]
            .iter()
            .any(|&j| required_components[j] == c);
        if cyclic && reported.insert(c) {
            let members: Vec<&str> = structs
                .iter()
                .enumerate()
                .filter(|&(j, _)| required_components[j] == c)
                .map(|(_, t)| t.name.as_str())
                .collect();
            if let Some(def) = defs.get(s.name.as_str()) {
                let d = Diagnostic::new(
                    "type-cycle",
                    def.name.span,
                    format!("type `{}` contains itself through required fields only", s.name),
                )
                .label(format!("cycle: {} → {}", members.join(" → "), members[0]))
                .with_help("no finite JSON value has this shape; make one field of the cycle optional (`name?:`) or an array");
                diags.push(d);
            }
        }
    }
    let components = strongly_connected(&all_edges);
    for (i, s) in structs.iter_mut().enumerate() {
        for f in &mut s.fields {
            if let Type::Named(r) = &f.ty
                && let Some(&j) = index.get(r.name.as_str())
            {
                f.boxed = components[i] == components[j];
            }
        }
    }
}

/// Tarjan's algorithm, iterative (no recursion on hostile input): the component of every node.
fn strongly_connected(edges: &[Vec<usize>]) -> Vec<usize> {
    const UNSEEN: usize = usize::MAX;
    let n = edges.len();
    let (mut index, mut low, mut comp) = (vec![UNSEEN; n], vec![0; n], vec![UNSEEN; n]);
    let (mut on_stack, mut stack) = (vec![false; n], Vec::new());
    let (mut next_index, mut next_comp) = (0, 0);
    for root in 0..n {
        if index[root] != UNSEEN {
            continue;
        }
        let mut work = vec![(root, 0usize)];
        while let Some(&mut (v, ref mut edge)) = work.last_mut() {
            if *edge == 0 && index[v] == UNSEEN {
                index[v] = next_index;
                low[v] = next_index;
                next_index += 1;
                stack.push(v);
                on_stack[v] = true;
            }
            if let Some(&w) = edges[v].get(*edge) {
                *edge += 1;
                if index[w] == UNSEEN {
                    work.push((w, 0));
                } else if on_stack[w] {
                    low[v] = low[v].min(index[w]);
                }
                continue;
            }
            work.pop();
            if let Some(&(parent, _)) = work.last() {
                low[parent] = low[parent].min(low[v]);
            }
            if low[v] == index[v] {
                while let Some(w) = stack.pop() {
                    on_stack[w] = false;
                    comp[w] = next_comp;
                    if w == v {
                        break;
                    }
                }
                next_comp += 1;
            }
        }
    }
    comp
}

#[cfg(test)]
mod tests {
    use super::strongly_connected;

    #[test]
    fn components() {
        let c = strongly_connected(&[vec![1], vec![0], vec![2], vec![]]);
        assert_eq!(c[0], c[1]);
        assert_ne!(c[0], c[2]);
        assert_ne!(c[2], c[3]);
    }
}
