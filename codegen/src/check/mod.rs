//! Resolve and check: the schema as written (`ast`) to the [`Model`]: names to definitions, bases and
//! `extends` flattened, cycles found and boxed; then `naming` gives every item its generated names. Produces
//! the model, or records why it cannot.
//!
//! - `types`: type expressions and field lists, shared by everything below;
//! - `events`: shared payload types, bases, event versions and `extends`, catalogue sections;
//! - `rest`: resources, endpoints and their path templates;
//! - `consumers`: the consuming teams' contracts, and the located error of a reference one misses;
//! - `cycles`: types that contain themselves (fine through an optional field or an array, then boxed).

mod consumers;
mod cycles;
mod events;
mod rest;
mod types;

pub(crate) use consumers::diagnostic as contract_diagnostic;

use crate::ast::{BaseDef, Located, Schema, TypeDef, WaiverDef};
use crate::diag::{Code, Diagnostic, Diagnostics};
use crate::model::{Model, Waiver};
use crate::naming::{self, Places};
use crate::source::{SourceMap, Span};
use std::collections::BTreeMap;
use std::rc::Rc;
use types::Placed;

/// An event version by (event type, label).
type VersionKey<'s> = (&'s str, &'s str);

/// Where an event version is defined.
struct VersionSite<'s> {
    event: &'s Located,
    entry: &'s crate::ast::EventDef,
    def: &'s crate::ast::VersionDef,
    section: usize,
}

/// What resolution knows while it runs: the definitions by name, and what is resolved so far.
struct Resolver<'s> {
    sources: &'s SourceMap,
    diags: &'s mut Diagnostics,
    /// Shared payload types by name (the model lists them in this order).
    shared: BTreeMap<&'s str, &'s TypeDef>,
    /// REST resources by name (the model lists them in this order).
    resources: BTreeMap<&'s str, &'s TypeDef>,
    event_bases: BTreeMap<&'s str, (&'s BaseDef, Vec<Placed>)>,
    rest_bases: BTreeMap<&'s str, (&'s BaseDef, Vec<Placed>)>,
    versions: BTreeMap<VersionKey<'s>, VersionSite<'s>>,
    /// Flattened fields of each version, once resolved (`None`: it could not be).
    flat: BTreeMap<VersionKey<'s>, Option<Rc<Vec<Placed>>>>,
    /// Versions being flattened, to find `extends` cycles.
    visiting: Vec<VersionKey<'s>>,
    /// Where the schema writes what `naming` names.
    places: Places,
    /// The consumers waivers name, checked once the contracts are read.
    waiver_consumers: Vec<Located>,
}

/// Resolves a read schema into the model, with the places of its items. Returns `None` when any mistake
/// was recorded.
pub(crate) fn resolve(
    schema: &Schema,
    sources: &SourceMap,
    diags: &mut Diagnostics,
) -> Option<(Model, Places)> {
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
        places: Places::default(),
        waiver_consumers: Vec::new(),
    };
    r.register_shared_types(schema);
    if let Some(rest) = &schema.rest {
        r.register_resources(rest);
    }
    r.register_event_bases(schema);
    if let Some(rest) = &schema.rest {
        r.register_rest_bases(rest);
    }
    r.register_versions(schema);
    r.check_reserved_events(schema);
    r.check_subject_overlap(schema);
    let shared_types = r.shared_types();
    let sections = r.sections(schema);
    let rest = schema.rest.as_ref().map(|rest| r.rest(rest));
    let consumers = r.consumers(schema);
    let waiver_consumers = std::mem::take(&mut r.waiver_consumers);
    r.check_waiver_consumers(&waiver_consumers, &consumers);
    let mut model = Model {
        shared_types,
        sections,
        rest,
        consumers,
        field_numbers: Default::default(),
        compiled: Default::default(),
    };
    cycles::break_cycles(&mut model.shared_types, &r.shared, r.diags);
    if let Some(rest) = &mut model.rest {
        cycles::break_cycles(&mut rest.resources, &r.resources, r.diags);
    }
    naming::assign(&mut model, &r.places, r.diags);
    (r.diags.len() == errors_before).then_some((model, r.places))
}

impl Resolver<'_> {
    fn error(&mut self, d: Diagnostic) {
        self.diags.push(d);
    }

    /// The waivers of the item `owner` (`version agreement.updated v1`, `type Ledger`, `resource
    /// Product`, `endpoint list_products`), their places recorded for `cargo xtask compat`.
    fn waivers(&mut self, owner: &str, defs: &[WaiverDef]) -> Vec<Waiver> {
        let mut out = Vec::new();
        for w in defs {
            let waiver = Waiver {
                rule: w.rule.text.clone(),
                path: w.path.text.clone(),
                reason: w.reason.clone(),
                consumers: w.consumers.iter().map(|c| c.text.clone()).collect(),
            };
            self.waiver_consumers.extend(w.consumers.iter().cloned());
            let key = (owner.to_owned(), waiver.rule.clone(), waiver.path.clone());
            if let Some(&first) = self.places.waivers.get(&key) {
                let d = Diagnostic::new(
                    Code::DuplicateKey,
                    w.span,
                    format!("a second waiver of `{}` at `{}`", waiver.rule, waiver.path),
                )
                .label("waives the same finding again")
                .with_secondary(first, "first waiver");
                self.error(d);
                continue;
            }
            self.places.waivers.insert(key, w.span);
            out.push(waiver);
        }
        out
    }

    /// Reports fields (or their former names) that `whose` has reserved.
    fn check_reserved_fields(&mut self, reserved: &[Located], fields: &[Placed], whose: &str) {
        for p in fields {
            let names = std::iter::once(&p.field.name).chain(&p.field.renamed_from);
            for name in names {
                if let Some(r) = reserved.iter().find(|r| r.text == *name) {
                    let d = Diagnostic::new(
                        Code::ReservedField,
                        p.span,
                        format!("field name `{name}` is reserved by {whose}"),
                    )
                    .label("this field")
                    .with_secondary(r.span, "reserved here")
                    .with_help(
                        "a reserved name was used before with another meaning; pick a new name",
                    );
                    self.error(d);
                }
            }
        }
    }

    /// Records where each field of the struct `owner` (its schema name) is written, for `naming`.
    fn place_fields(&mut self, owner: &str, fields: &[Placed]) {
        for p in fields {
            self.places
                .fields
                .insert((owner.to_owned(), p.field.name.clone()), p.span);
        }
    }
}

/// "`what` `name` is defined twice", pointing at both definitions.
fn duplicate(code: Code, what: &str, name: &Located, first: Span) -> Diagnostic {
    Diagnostic::new(
        code,
        name.span,
        format!("{what} `{}` is defined twice", name.text),
    )
    .label("defined again here")
    .with_secondary(first, "first defined here")
}
