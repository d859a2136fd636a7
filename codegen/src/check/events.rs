//! The events side: shared payload types, bases, event versions flattened through `extends` and bases,
//! and the catalogue sections that hold them.

use super::types::{Placed, Scope};
use super::{Resolver, VersionKey, VersionSite, duplicate};
use crate::ast::{self, Located, Schema, TypeDef};
use crate::diag::{Code, Diagnostic, closest};
use crate::model::{Deprecation, EventType, EventVersion, NamedRef, Section, Struct, Type, TypeId};
use crate::naming;
use crate::source::Span;
use std::collections::{BTreeMap, BTreeSet};
use std::rc::Rc;

impl<'s> Resolver<'s> {
    /// Registers the shared payload types of `types.yaml`.
    pub(super) fn register_shared_types(&mut self, schema: &'s Schema) {
        for file in &schema.types {
            for t in &file.types {
                self.check_type_name(&t.name);
                // Names are keys of one mapping: the reader reports a repeated one.
                self.shared.insert(&t.name.text, t);
                self.places
                    .shared_types
                    .insert(t.name.text.clone(), t.name.span);
            }
        }
    }

    /// Registers the bases of every events file (a base's fields note where they come from).
    pub(super) fn register_event_bases(&mut self, schema: &'s Schema) {
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
    }

    /// Registers every version of every event type, by (event type, label).
    pub(super) fn register_versions(&mut self, schema: &'s Schema) {
        let mut home: BTreeMap<&str, (usize, Span)> = BTreeMap::new();
        for (index, section) in schema.sections.iter().enumerate() {
            for entry in &section.events {
                let mut seen_names: BTreeMap<&str, Span> = BTreeMap::new();
                for name in &entry.names {
                    if let Some(first) = seen_names.insert(&name.text, name.span) {
                        let d = duplicate(Code::DuplicateEvent, "event type", name, first);
                        self.error(d);
                        continue;
                    }
                    if !naming::is_event_name(&name.text) {
                        let d = Diagnostic::new(Code::InvalidEventName, name.span, format!("invalid event type `{}`", name.text))
                            .label("event types are words of lowercase letters, digits, `_` and `-` joined by single dots, starting with a letter");
                        self.error(d);
                        continue;
                    }
                    match home.get(name.text.as_str()) {
                        Some(&(other, first)) if other != index => {
                            let d = Diagnostic::new(
                                Code::EventInTwoSections,
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
                            let rust_name =
                                entry.rust_name.as_ref().map(|r| (r.text.clone(), r.span));
                            self.places
                                .events
                                .insert(name.text.clone(), (name.span, rust_name));
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
                                Code::DuplicateVersion,
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

    /// Reports event types (or former names) whose tokens begin another's (`a.b` and `a.b.c`): their
    /// subjects would share a prefix, and a filter for one (`energy.a.b.>`) would select the other.
    pub(super) fn check_subject_overlap(&mut self, schema: &'s Schema) {
        // Every name (current or former) with its place and the entry it belongs to.
        let mut names: BTreeMap<&str, (Span, usize)> = BTreeMap::new();
        let entries = schema.sections.iter().flat_map(|s| &s.events).enumerate();
        for (entry_index, entry) in entries {
            for name in entry.names.iter().chain(&entry.renamed_from) {
                if naming::is_event_name(&name.text) {
                    names.entry(&name.text).or_insert((name.span, entry_index));
                }
            }
        }
        for (&short, &(short_span, short_entry)) in &names {
            // Names that continue `short` with a `.` sort between `short.` and `short/`.
            let (from, to) = (format!("{short}."), format!("{short}/"));
            for (&long, &(long_span, long_entry)) in names.range::<str, _>((
                std::ops::Bound::Included(from.as_str()),
                std::ops::Bound::Excluded(to.as_str()),
            )) {
                if long_entry == short_entry {
                    continue;
                }
                let d = Diagnostic::new(
                    Code::SubjectOverlap,
                    long_span,
                    format!("the subjects of event type `{long}` begin with event type `{short}`'s"),
                )
                .label(format!("`{short}` followed by more words"))
                .with_secondary(short_span, "this event type")
                .with_help(format!(
                    "on the bus a filter for every version of `{short}` (`energy.{short}.>`) would also select `{long}`: rename one of them"
                ));
                self.error(d);
            }
        }
    }

    /// Reports event types whose name a section has reserved (names of removed event types).
    pub(super) fn check_reserved_events(&mut self, schema: &'s Schema) {
        let reserved: Vec<&Located> = schema.sections.iter().flat_map(|s| &s.reserved).collect();
        for site in self
            .versions
            .values()
            .filter(|site| site.def.label.span == site.entry.versions[0].label.span)
        {
            if let Some(r) = reserved.iter().find(|r| r.text == site.event.text) {
                let d = Diagnostic::new(
                    Code::ReservedEvent,
                    site.event.span,
                    format!("event type name `{}` is reserved", site.event.text),
                )
                .label("this event type")
                .with_secondary(r.span, "reserved here")
                .with_help("a reserved name was an event type once; consumers may still hold its events: pick a new name");
                self.diags.push(d);
            }
        }
    }

    /// The shared payload types, by name.
    pub(super) fn shared_types(&mut self) -> Vec<Struct> {
        let defs: Vec<&TypeDef> = self.shared.values().copied().collect();
        defs.into_iter()
            .map(|t| {
                let fields = self.fields(&t.fields, Scope::Events, None);
                let fields = self.assemble(vec![fields]);
                self.place_fields(&t.name.text, &fields);
                self.check_reserved_fields(
                    &t.reserved,
                    &fields,
                    &format!("the shared type `{}`", t.name.text),
                );
                let waivers = self.waivers(&format!("type {}", t.name.text), &t.waivers);
                Struct {
                    name: t.name.text.clone(),
                    rust_name: String::new(),
                    doc: t.description.clone().unwrap_or_default(),
                    fields: fields.into_iter().map(|p| p.field).collect(),
                    incomplete: t.incomplete,
                    generic: None,
                    free_form: false,
                    waivers,
                }
            })
            .collect()
    }

    /// A reference to the shared type `name`, if there is one.
    fn shared_ref(&self, name: &str) -> Option<NamedRef> {
        let index = self.shared.keys().position(|k| *k == name)?;
        Some(NamedRef {
            id: TypeId::Shared(index),
            name: name.to_owned(),
            arg: None,
        })
    }

    /// The catalogue sections with their event types and versions (named and ordered by `naming`).
    pub(super) fn sections(&mut self, schema: &'s Schema) -> Vec<Section> {
        let keys: Vec<VersionKey<'s>> = self.versions.keys().copied().collect();
        let mut by_section: BTreeMap<usize, BTreeMap<&'s str, Vec<EventVersion>>> = BTreeMap::new();
        let mut descriptions: BTreeMap<&str, Option<String>> = BTreeMap::new();
        let mut former_names: BTreeMap<&str, Vec<String>> = BTreeMap::new();
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
            let extends = site.def.extends.as_ref().map(|e| {
                format!(
                    "{} {}",
                    e.event.as_ref().map_or(event, |n| n.text.as_str()),
                    e.version.text
                )
            });
            let alias_of = site
                .def
                .payload
                .as_ref()
                .and_then(|p| self.shared_ref(&p.text));
            let (entry, def) = (site.entry, site.def);
            let payload_name = format!("{event} {label}");
            self.place_fields(&payload_name, &fields);
            self.check_reserved_fields(
                &entry.reserved,
                &fields,
                &format!("the event type `{event}`"),
            );
            self.places
                .versions
                .insert((event.to_owned(), label.to_owned()), def.label.span);
            let waivers = self.waivers(&format!("version {event} {label}"), &def.waivers);
            if !former_names.contains_key(event) {
                for former in &entry.renamed_from {
                    self.places
                        .former_events
                        .entry(former.text.clone())
                        .or_default()
                        .push((event.to_owned(), former.span));
                }
                former_names.insert(
                    event,
                    entry.renamed_from.iter().map(|r| r.text.clone()).collect(),
                );
            }
            let site = &self.versions[&key];
            let version = EventVersion {
                label: label.to_owned(),
                variant: String::new(),
                id: String::new(),
                description: site.def.description.clone(),
                extends,
                bases: site.def.bases.iter().map(|b| b.text.clone()).collect(),
                alias_of,
                payload: Struct {
                    name: payload_name,
                    rust_name: String::new(),
                    doc: String::new(),
                    fields: fields.iter().map(|p| p.field.clone()).collect(),
                    incomplete: site.def.incomplete,
                    generic: None,
                    free_form: false,
                    waivers: Vec::new(),
                },
                deprecated: site.def.deprecated.as_ref().map(|d| Deprecation {
                    sunset: d.sunset.text.clone(),
                    note: d.note.clone(),
                }),
                waivers,
            };
            by_section
                .entry(site.section)
                .or_default()
                .entry(event)
                .or_default()
                .push(version);
        }
        let sections: Vec<Section> = schema
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
                            rust_name: String::new(),
                            description: descriptions.get(name).cloned().flatten(),
                            renamed_from: former_names.remove(name).unwrap_or_default(),
                            versions,
                        }
                    })
                    .collect();
                self.places
                    .sections
                    .insert(file.stem.text.clone(), file.stem.span);
                Section {
                    stem: file.stem.text.clone(),
                    module: String::new(),
                    feature: String::new(),
                    title: file.title.clone(),
                    doc: file.description.clone(),
                    events,
                }
            })
            .collect();
        let mut sections = sections;
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
                Code::ExtendsCycle,
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
                        Code::UnknownBase,
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
                Code::UnknownEvent,
                span,
                format!("`extends` names an unknown event type `{event}`"),
            )
            .label("no event type of this name")
            .suggest(event, events.iter().copied());
        }
        Diagnostic::new(
            Code::UnknownVersion,
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
        Code::InvalidVersion,
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
    if let Some(d) = &v.deprecated {
        doc.push_str("\n\n");
        doc.push_str(&deprecation_note(d));
    }
    doc
}

/// The sentence every output says of a deprecated version.
fn deprecation_note(d: &Deprecation) -> String {
    let mut text = format!(
        "Deprecated: this version may be removed from {} on.",
        d.sunset
    );
    if let Some(note) = &d.note {
        text.push(' ');
        text.push_str(note);
    }
    text
}
