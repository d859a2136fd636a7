//! The comparison of two sides, by wire shape.
//!
//! Payloads are compared field by field, structurally: a field whose type is a shared type is compared
//! through it (so a change inside a shared type is found once per event version that reaches it, with
//! the full path), and two types are the same when their shapes are, whatever their names. Each change
//! is judged twice: can a reader of one side read what the other side writes.

use super::lock::PublishedKeys;
use super::{Finding, Rule, Severity, Side, Subject, Verdict};
use crate::model::{EventType, EventVersion, Field, Format, Model, Struct, Type};
use crate::source::Span;
use std::collections::BTreeSet;

/// Who writes what is compared: the platform (payloads and responses: old and new consumers read), or
/// the client (request parameters: old and new servers read).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Writer {
    Platform,
    Client,
}

/// One side's struct being compared: its model, and the type argument of a generic resource.
#[derive(Clone, Copy)]
struct At<'m> {
    model: &'m Model,
    strukt: &'m Struct,
    arg: Option<&'m Type>,
}

/// What is compared at one place, on one side.
#[derive(Clone, Copy)]
enum Shape<'m> {
    Str(Option<Format>),
    Int,
    Num,
    Bool,
    /// Any JSON object (`obj`, a free-form resource).
    Obj,
    Struct(At<'m>),
    Array(&'m Type, At<'m>),
    /// `map<T>`: an object of values of one type.
    Map(&'m Type, At<'m>),
}

impl Shape<'_> {
    fn describe(&self) -> String {
        match self {
            Shape::Str(None) => "str".to_owned(),
            Shape::Str(Some(f)) => format!("str ({})", f.keyword()),
            Shape::Int => "int".to_owned(),
            Shape::Num => "num".to_owned(),
            Shape::Bool => "bool".to_owned(),
            Shape::Obj => "obj".to_owned(),
            Shape::Struct(at) => format!("`{}`", at.strukt.name),
            Shape::Array(..) => "an array".to_owned(),
            Shape::Map(value, _) => format!("map<{}>", super::lock::type_text(value)),
        }
    }

    /// A value of this shape in the decoder's words, for messages: "a string", "i64".
    fn expected(&self) -> &'static str {
        match self {
            Shape::Str(_) => "a string",
            Shape::Int => "i64",
            Shape::Num => "f64",
            Shape::Bool => "a boolean",
            Shape::Obj | Shape::Map(..) => "a map",
            Shape::Struct(_) => "a struct",
            Shape::Array(..) => "a sequence",
        }
    }
}

/// The shape of `ty` as written in `at`'s struct.
fn shape_of<'m>(ty: &'m Type, format: Option<Format>, at: At<'m>) -> Shape<'m> {
    match ty {
        Type::Str => Shape::Str(format),
        Type::Int => Shape::Int,
        Type::Num => Shape::Num,
        Type::Bool => Shape::Bool,
        Type::Obj => Shape::Obj,
        Type::Array(inner) => Shape::Array(inner, at),
        Type::Map(value) => Shape::Map(value, at),
        Type::Named(r) => {
            let strukt = at.model.named(r.id);
            if strukt.free_form {
                Shape::Obj
            } else {
                Shape::Struct(At {
                    model: at.model,
                    strukt,
                    // The argument is written in the enclosing struct: resolve it there.
                    arg: r.arg.as_deref().map(|a| resolve_param(a, at)),
                })
            }
        }
        Type::Param(_) => match at.arg {
            Some(arg) => shape_of(arg, format, At { arg: None, ..at }),
            None => Shape::Obj,
        },
    }
}

fn resolve_param<'m>(ty: &'m Type, at: At<'m>) -> &'m Type {
    match (ty, at.arg) {
        (Type::Param(_), Some(arg)) => arg,
        _ => ty,
    }
}

/// Whether a reader expecting `reader` accepts every value a writer of `writer` sends; the rule the
/// difference falls under.
fn type_change(reader: &Shape<'_>, writer: &Shape<'_>) -> Option<(Rule, Verdict)> {
    let rejects = |why: String| Verdict::Rejects(why);
    match (reader, writer) {
        (Shape::Num, Shape::Int) | (Shape::Obj, Shape::Struct(_) | Shape::Map(..)) => {
            Some((Rule::FieldTypeWidened, Verdict::Reads))
        }
        (Shape::Int, Shape::Num) => Some((
            Rule::FieldTypeNarrowed,
            rejects("invalid type: a number with a fraction, expected i64".to_owned()),
        )),
        (Shape::Struct(at), Shape::Obj) => Some((
            Rule::FieldTypeNarrowed,
            rejects(format!(
                "any object may arrive where `{}` is expected",
                at.strukt.name
            )),
        )),
        (Shape::Map(value, _), Shape::Obj) => Some((
            Rule::FieldTypeNarrowed,
            rejects(format!(
                "any object may arrive where a map of {} is expected",
                value.describe()
            )),
        )),
        _ => Some((
            Rule::FieldTypeChanged,
            rejects(format!(
                "invalid type: {}, expected {}",
                writer.describe(),
                reader.expected()
            )),
        )),
    }
}

/// One side as the comparison sees it: places are known for sides read from files, not for two versions
/// of one model compared with each other.
#[derive(Clone, Copy)]
struct View<'a> {
    model: &'a Model,
    places: &'a crate::naming::Places,
    has_docs: bool,
}

/// The comparison in progress.
struct Diff<'a> {
    old: View<'a>,
    new: View<'a>,
    published: &'a PublishedKeys,
    today: &'a str,
    out: Vec<Finding>,
    /// Structs being compared, old and new name, to stop on types that contain themselves.
    stack: Vec<(String, String)>,
    /// The old struct whose fields are being compared keeps the members it does not list, so a strict
    /// reader of it does not reject an added one.
    old_keeps_unlisted: bool,
}

/// The context of a field comparison.
#[derive(Clone)]
struct Ctx {
    subject: Subject,
    writer: Writer,
    /// In the baseline (changing it may break someone).
    published: bool,
    /// Removed after its sunset: allowed, though the crate still loses its items.
    retired: bool,
    /// The shared type or resource being compared through, and the path at which it was entered.
    via: Option<(String, String)>,
}

/// Everything that changed from `old` to `new`; `published` says which items are published.
pub(super) fn compare<'a>(
    old: &'a Side,
    new: &'a Side,
    published: &'a PublishedKeys,
    today: &'a str,
) -> Vec<Finding> {
    let view = |side: &'a Side| View {
        model: &side.model,
        places: &side.places,
        has_docs: side.has_docs,
    };
    let mut d = Diff {
        old: view(old),
        new: view(new),
        published,
        today,
        out: Vec::new(),
        stack: Vec::new(),
        old_keeps_unlisted: false,
    };
    d.events();
    d.unreached_shared_types();
    d.rest();
    d.new_versions();
    d.out
}

/// The changes from payload `older` to payload `newer`, two versions of one event type in `model`.
pub(super) fn compare_payloads(model: &Model, older: &Struct, newer: &Struct) -> Vec<Finding> {
    let places = crate::naming::Places::default();
    let view = View {
        model,
        places: &places,
        has_docs: false,
    };
    let published = PublishedKeys::default();
    let mut d = Diff {
        old: view,
        new: view,
        published: &published,
        today: "",
        out: Vec::new(),
        stack: Vec::new(),
        old_keeps_unlisted: false,
    };
    let ctx = Ctx {
        subject: Subject::Event {
            event: String::new(),
            version: None,
        },
        writer: Writer::Platform,
        published: true,
        via: None,
        retired: false,
    };
    let at = |strukt| At {
        model,
        strukt,
        arg: None,
    };
    d.structs(&ctx, "", at(older), at(newer));
    d.out
}

impl Diff<'_> {
    /// A finding, its severity decided from its verdicts and whether it is published.
    #[allow(clippy::too_many_arguments)]
    fn push(
        &mut self,
        ctx: &Ctx,
        rule: Rule,
        path: &str,
        (forward, backward): (Verdict, Verdict),
        message: String,
        values: (Option<String>, Option<String>),
        spans: (Option<Span>, Option<Span>),
    ) {
        let breaks = !forward.reads() || !backward.reads();
        let severity = match rule {
            // About versions not yet published, by definition: still worth a look before publishing.
            Rule::VersionNotNeeded | Rule::FieldNameReused => Severity::Warning,
            _ if !ctx.published || ctx.retired => Severity::Info,
            Rule::TypeRemoved => Severity::Warning,
            _ if breaks => Severity::Error,
            Rule::FieldRemovedOptional => Severity::Warning,
            _ => Severity::Info,
        };
        // Only event readers have a strict mode, and it accepts what an incomplete payload keeps.
        let strict_reader = matches!(ctx.subject, Subject::Event { .. } | Subject::SharedType(_))
            && !self.old_keeps_unlisted;
        let strict_forward = match rule {
            Rule::FieldAddedOptional | Rule::FieldAddedRequired | Rule::FieldRenamed
                if ctx.writer == Writer::Platform && forward.reads() && strict_reader =>
            {
                Some(Verdict::Rejects(format!(
                    "unknown field `{}`",
                    path.rsplit('.').next().unwrap_or(path)
                )))
            }
            _ => None,
        };
        self.out.push(Finding {
            rule,
            severity,
            forward,
            backward,
            strict_forward,
            subject: ctx.subject.clone(),
            path: path.to_owned(),
            message,
            old: None,
            new: None,
            old_value: values.0,
            new_value: values.1,
            counterexample: None,
            waived: None,
            published: ctx.published,
            request: ctx.writer == Writer::Client,
            via: ctx.via.as_ref().map(|(ty, entered)| {
                let inside = path
                    .strip_prefix(entered.as_str())
                    .map_or(path, |rest| rest.trim_start_matches('.'));
                (ty.clone(), inside.to_owned())
            }),
            spans,
        });
    }

    /// The verdicts of a change, from a function of (reader, writer) saying whether the reader reads
    /// what the writer sends; `true` stands for the old side.
    fn directions(writer: Writer, reads: impl Fn(bool, bool) -> Verdict) -> (Verdict, Verdict) {
        match writer {
            // Forward: old consumers read new payloads; backward: new consumers read old payloads.
            Writer::Platform => (reads(true, false), reads(false, true)),
            // Forward: new servers read what old clients send; backward: old servers, new clients.
            Writer::Client => (reads(false, true), reads(true, false)),
        }
    }

    fn field_span(side: View<'_>, owner: &Struct, field: &str) -> Option<Span> {
        side.places
            .fields
            .get(&(owner.name.clone(), field.to_owned()))
            .copied()
    }

    // -----------------------------------------------------------------------------------------------
    // Events

    fn events(&mut self) {
        let old_events: Vec<(&str, &EventType)> = self
            .old
            .model
            .events()
            .map(|(s, e)| (s.stem.as_str(), e))
            .collect();
        let mut matched_new = BTreeSet::new();
        for (_, old_event) in old_events {
            let renamed = self
                .new
                .model
                .events()
                .map(|(_, e)| e)
                .find(|e| e.renamed_from.contains(&old_event.name));
            let same = self
                .new
                .model
                .events()
                .map(|(_, e)| e)
                .find(|e| e.name == old_event.name);
            match same.or(renamed) {
                None => self.event_removed(old_event),
                Some(new_event) => {
                    matched_new.insert(new_event.name.clone());
                    if new_event.name != old_event.name {
                        self.event_renamed(old_event, new_event);
                    }
                    self.versions(old_event, new_event);
                }
            }
        }
        let added: Vec<&EventType> = self
            .new
            .model
            .events()
            .map(|(_, e)| e)
            .filter(|e| !matched_new.contains(&e.name))
            .collect();
        for e in added {
            let ctx = Ctx {
                subject: Subject::Event {
                    event: e.name.clone(),
                    version: None,
                },
                writer: Writer::Platform,
                published: false,
                via: None,
                retired: false,
            };
            let span = self.new.places.events.get(&e.name).map(|(s, _)| *s);
            self.push(
                &ctx,
                Rule::EventTypeAdded,
                "",
                (Verdict::Reads, Verdict::Reads),
                format!("new event type `{}`", e.name),
                (None, None),
                (None, span),
            );
        }
    }

    fn event_removed(&mut self, old_event: &EventType) {
        let sunset_passed = old_event.versions.iter().all(|v| self.sunset_passed(v));
        let ctx = Ctx {
            subject: Subject::Event {
                event: old_event.name.clone(),
                version: None,
            },
            writer: Writer::Platform,
            published: self.published.events.contains(&old_event.name),
            via: None,
            retired: sunset_passed,
        };
        let span = self.old.places.events.get(&old_event.name).map(|(s, _)| *s);
        let why = if sunset_passed {
            "every version was deprecated and its sunset has passed"
        } else {
            "events of it still arrive from replays and retained streams"
        };
        self.push(
            &ctx,
            Rule::EventTypeRemoved,
            "",
            (
                Verdict::Reads,
                Verdict::Rejects(format!("unknown event type `{}`", old_event.name)),
            ),
            format!("event type `{}` removed ({why})", old_event.name),
            (None, None),
            (span, None),
        );
    }

    fn event_renamed(&mut self, old_event: &EventType, new_event: &EventType) {
        let ctx = Ctx {
            subject: Subject::Event {
                event: new_event.name.clone(),
                version: None,
            },
            writer: Writer::Platform,
            published: self.published.events.contains(&old_event.name),
            via: None,
            retired: false,
        };
        let old_span = self.old.places.events.get(&old_event.name).map(|(s, _)| *s);
        let new_span = self
            .new
            .places
            .former_events
            .get(&old_event.name)
            .and_then(|v| v.first())
            .map(|(_, s)| *s);
        self.push(
            &ctx,
            Rule::EventTypeRenamed,
            "",
            (
                Verdict::Rejects(format!("unknown event type `{}`", new_event.name)),
                Verdict::Reads,
            ),
            format!(
                "event type `{}` renamed `{}` (decoders built on the new schema accept the old name)",
                old_event.name, new_event.name
            ),
            (Some(old_event.name.clone()), Some(new_event.name.clone())),
            (old_span, new_span),
        );
    }

    fn sunset_passed(&self, v: &EventVersion) -> bool {
        v.deprecated
            .as_ref()
            .is_some_and(|d| d.sunset.as_str() <= self.today)
    }

    fn versions(&mut self, old_event: &EventType, new_event: &EventType) {
        for old_v in &old_event.versions {
            let key = (old_event.name.clone(), old_v.label.clone());
            let published = self.published.versions.contains(&key);
            let subject = Subject::Event {
                event: new_event.name.clone(),
                version: Some(old_v.label.clone()),
            };
            let old_span = self.old.places.versions.get(&key).copied();
            match new_event.versions.iter().find(|v| v.label == old_v.label) {
                None => {
                    let passed = self.sunset_passed(old_v);
                    let why = match &old_v.deprecated {
                        Some(d) if passed => format!("its sunset {} has passed", d.sunset),
                        Some(d) => format!("before its sunset {}", d.sunset),
                        None => "without being deprecated first".to_owned(),
                    };
                    let ctx = Ctx {
                        subject,
                        writer: Writer::Platform,
                        published,
                        via: None,
                        retired: passed,
                    };
                    self.push(
                        &ctx,
                        Rule::VersionRemoved,
                        "",
                        (
                            Verdict::Reads,
                            Verdict::Rejects(format!(
                                "unknown version `{}` of event type `{}`",
                                old_v.label, new_event.name
                            )),
                        ),
                        format!(
                            "version `{}` of `{}` removed ({why})",
                            old_v.label, old_event.name
                        ),
                        (None, None),
                        (old_span, None),
                    );
                }
                Some(new_v) => {
                    let new_span = self
                        .new
                        .places
                        .versions
                        .get(&(new_event.name.clone(), new_v.label.clone()))
                        .copied();
                    let ctx = Ctx {
                        subject,
                        writer: Writer::Platform,
                        published,
                        via: None,
                        retired: false,
                    };
                    if new_v.deprecated.is_some() && old_v.deprecated.is_none() {
                        let sunset = new_v.deprecated.as_ref().map(|d| d.sunset.clone());
                        self.push(
                            &ctx,
                            Rule::VersionDeprecated,
                            "",
                            (Verdict::Reads, Verdict::Reads),
                            format!(
                                "version `{}` of `{}` deprecated; sunset {}",
                                new_v.label,
                                new_event.name,
                                sunset.clone().unwrap_or_default()
                            ),
                            (None, sunset),
                            (old_span, new_span),
                        );
                    }
                    if self.old.has_docs
                        && self.new.has_docs
                        && (old_v.description != new_v.description
                            || old_event.description != new_event.description)
                    {
                        self.push(
                            &ctx,
                            Rule::DescriptionChanged,
                            "",
                            (Verdict::Reads, Verdict::Reads),
                            format!(
                                "description of `{}` {} changed",
                                new_event.name, new_v.label
                            ),
                            (None, None),
                            (old_span, new_span),
                        );
                    }
                    let via = old_v
                        .alias_of
                        .as_ref()
                        .map(|a| (a.name.clone(), String::new()));
                    let ctx = Ctx { via, ..ctx };
                    let old_at = At {
                        model: self.old.model,
                        strukt: &old_v.payload,
                        arg: None,
                    };
                    let new_at = At {
                        model: self.new.model,
                        strukt: &new_v.payload,
                        arg: None,
                    };
                    self.structs(&ctx, "", old_at, new_at);
                }
            }
        }
        for new_v in &new_event.versions {
            if old_event.versions.iter().any(|v| v.label == new_v.label) {
                continue;
            }
            let ctx = Ctx {
                subject: Subject::Event {
                    event: new_event.name.clone(),
                    version: Some(new_v.label.clone()),
                },
                writer: Writer::Platform,
                published: false,
                via: None,
                retired: false,
            };
            let span = self
                .new
                .places
                .versions
                .get(&(new_event.name.clone(), new_v.label.clone()))
                .copied();
            self.push(
                &ctx,
                Rule::VersionAdded,
                "",
                (Verdict::Reads, Verdict::Reads),
                format!("new version `{}` of `{}`", new_v.label, new_event.name),
                (None, None),
                (None, span),
            );
        }
    }

    /// Checks of versions not yet published, within the new side: a version every reader of the
    /// previous one reads (and the reverse) was not needed; a field name an earlier version used for
    /// another type is reused.
    fn new_versions(&mut self) {
        let events: Vec<&EventType> = self.new.model.events().map(|(_, e)| e).collect();
        for event in events {
            for (i, v) in event.versions.iter().enumerate() {
                let key = (event.name.clone(), v.label.clone());
                if self.published.versions.contains(&key) || i == 0 {
                    continue;
                }
                let span = self.new.places.versions.get(&key).copied();
                let previous = &event.versions[i - 1];
                let pair = super::classify::compare_versions(self.new.model, previous, v);
                let ctx = Ctx {
                    subject: Subject::Event {
                        event: event.name.clone(),
                        version: Some(v.label.clone()),
                    },
                    writer: Writer::Platform,
                    published: false,
                    via: None,
                    retired: false,
                };
                if pair.compatibility == super::Compatibility::Full {
                    self.push(
                        &ctx,
                        Rule::VersionNotNeeded,
                        "",
                        (Verdict::Reads, Verdict::Reads),
                        format!(
                            "`{}` {} is full-compatible with {}: a new version was not needed (the change can go into {} when it is not yet published)",
                            event.name, v.label, previous.label, previous.label
                        ),
                        (Some(previous.label.clone()), Some(v.label.clone())),
                        (None, span),
                    );
                }
                for f in &v.payload.fields {
                    let earlier = event.versions[..i].iter().find_map(|e| {
                        e.payload
                            .fields
                            .iter()
                            .find(|g| g.name == f.name && g.ty != f.ty)
                            .map(|g| (e, g))
                    });
                    if let Some((e, g)) = earlier {
                        let span = Self::field_span(self.new, &v.payload, &f.name);
                        self.push(
                            &ctx,
                            Rule::FieldNameReused,
                            &f.name,
                            (Verdict::Reads, Verdict::Reads),
                            format!(
                                "`{}` {} uses the field name `{}` that {} used for {} ({} here)",
                                event.name,
                                v.label,
                                f.name,
                                e.label,
                                g.ty.describe(),
                                f.ty.describe()
                            ),
                            (Some(g.ty.describe()), Some(f.ty.describe())),
                            (None, span),
                        );
                    }
                }
            }
        }
    }

    /// Shared types that no old event version reaches: compared on their own.
    fn unreached_shared_types(&mut self) {
        let reached = reached_types(self.old.model);
        for old_t in &self.old.model.shared_types {
            let published = self.published.types.contains(&old_t.name);
            let subject = Subject::SharedType(old_t.name.clone());
            let old_span = self.old.places.shared_types.get(&old_t.name).copied();
            match self.new.model.shared_type(&old_t.name) {
                None => {
                    let ctx = Ctx {
                        subject,
                        writer: Writer::Platform,
                        published,
                        via: None,
                        retired: false,
                    };
                    self.push(
                        &ctx,
                        Rule::TypeRemoved,
                        "",
                        (Verdict::Reads, Verdict::Reads),
                        format!(
                            "shared type `{}` removed from the crate (code naming it stops compiling)",
                            old_t.name
                        ),
                        (None, None),
                        (old_span, None),
                    );
                }
                Some(new_t) if !reached.contains(&old_t.name) => {
                    let ctx = Ctx {
                        subject,
                        writer: Writer::Platform,
                        published,
                        via: Some((old_t.name.clone(), String::new())),
                        retired: false,
                    };
                    let old_at = At {
                        model: self.old.model,
                        strukt: old_t,
                        arg: None,
                    };
                    let new_at = At {
                        model: self.new.model,
                        strukt: new_t,
                        arg: None,
                    };
                    self.structs(&ctx, "", old_at, new_at);
                }
                Some(_) => {}
            }
        }
    }

    // -----------------------------------------------------------------------------------------------
    // REST

    fn rest(&mut self) {
        let (Some(old_rest), Some(new_rest)) = (&self.old.model.rest, &self.new.model.rest) else {
            return;
        };
        for old_e in &old_rest.endpoints {
            let ctx = Ctx {
                subject: Subject::Endpoint(old_e.name.clone()),
                writer: Writer::Platform,
                published: self.published.endpoints.contains(&old_e.name),
                via: None,
                retired: false,
            };
            let old_span = self.old.places.endpoints.get(&old_e.name).copied();
            let Some(new_e) = new_rest.endpoints.iter().find(|e| e.name == old_e.name) else {
                self.push(
                    &ctx,
                    Rule::EndpointRemoved,
                    "",
                    (
                        Verdict::Rejects(format!("`{} {}` is gone", old_e.method, old_e.path)),
                        Verdict::Reads,
                    ),
                    format!(
                        "endpoint `{}` (`{} {}`) removed",
                        old_e.name, old_e.method, old_e.path
                    ),
                    (None, None),
                    (old_span, None),
                );
                continue;
            };
            let new_span = self.new.places.endpoints.get(&new_e.name).copied();
            if (&old_e.method, &old_e.path) != (&new_e.method, &new_e.path) {
                let (old_at, new_at) = (
                    format!("{} {}", old_e.method, old_e.path),
                    format!("{} {}", new_e.method, new_e.path),
                );
                self.push(
                    &ctx,
                    Rule::EndpointMoved,
                    "",
                    (
                        Verdict::Rejects(format!("`{old_at}` is gone")),
                        Verdict::Rejects(format!("`{new_at}` does not exist yet")),
                    ),
                    format!(
                        "endpoint `{}` moved from `{old_at}` to `{new_at}`",
                        new_e.name
                    ),
                    (Some(old_at.clone()), Some(new_at.clone())),
                    (old_span, new_span),
                );
            }
            if old_e.auth_required != new_e.auth_required {
                let (rule, verdicts, message) = if new_e.auth_required {
                    (
                        Rule::AuthRequired,
                        (
                            Verdict::Rejects("a request without credentials is refused".to_owned()),
                            Verdict::Reads,
                        ),
                        format!("endpoint `{}` now requires credentials", new_e.name),
                    )
                } else {
                    (
                        Rule::AuthNoLongerRequired,
                        (Verdict::Reads, Verdict::Reads),
                        format!("endpoint `{}` no longer requires credentials", new_e.name),
                    )
                };
                self.push(
                    &ctx,
                    rule,
                    "",
                    verdicts,
                    message,
                    (None, None),
                    (old_span, new_span),
                );
            }
            if self.old.has_docs && self.new.has_docs && old_e.doc != new_e.doc {
                self.push(
                    &ctx,
                    Rule::DescriptionChanged,
                    "",
                    (Verdict::Reads, Verdict::Reads),
                    format!("description of endpoint `{}` changed", new_e.name),
                    (None, None),
                    (old_span, new_span),
                );
            }
            let request = Ctx {
                writer: Writer::Client,
                ..ctx.clone()
            };
            self.parameters(
                &request,
                "path",
                (&old_e.path_parameters, &old_e.name),
                (&new_e.path_parameters, &new_e.name),
            );
            self.parameters(
                &request,
                "query",
                (&old_e.query, &old_e.name),
                (&new_e.query, &new_e.name),
            );
            let old_holder = endpoint_holder(old_e);
            let new_holder = endpoint_holder(new_e);
            // A change of the response type as a whole is shown at the endpoints.
            let spans = (
                self.old.places.endpoints.get(&old_e.name).copied(),
                self.new.places.endpoints.get(&new_e.name).copied(),
            );
            self.types_with_spans(
                &ctx,
                "response",
                (
                    &old_e.response,
                    None,
                    At {
                        model: self.old.model,
                        strukt: &old_holder,
                        arg: None,
                    },
                ),
                (
                    &new_e.response,
                    None,
                    At {
                        model: self.new.model,
                        strukt: &new_holder,
                        arg: None,
                    },
                ),
                spans,
            );
        }
        for new_e in &new_rest.endpoints {
            if old_rest.endpoints.iter().any(|e| e.name == new_e.name) {
                continue;
            }
            let ctx = Ctx {
                subject: Subject::Endpoint(new_e.name.clone()),
                writer: Writer::Platform,
                published: false,
                via: None,
                retired: false,
            };
            let span = self.new.places.endpoints.get(&new_e.name).copied();
            self.push(
                &ctx,
                Rule::EndpointAdded,
                "",
                (Verdict::Reads, Verdict::Reads),
                format!(
                    "new endpoint `{}` (`{} {}`)",
                    new_e.name, new_e.method, new_e.path
                ),
                (None, None),
                (None, span),
            );
        }
        if let (Some(old_error), Some(new_error)) =
            (&old_rest.error_response, &new_rest.error_response)
        {
            let ctx = Ctx {
                subject: Subject::ErrorResponse,
                writer: Writer::Platform,
                published: !self.published.endpoints.is_empty(),
                via: None,
                retired: false,
            };
            let holder = endpoint_holder_named("error response");
            let spans = (
                self.old.places.error_response,
                self.new.places.error_response,
            );
            self.types_with_spans(
                &ctx,
                "",
                (
                    old_error,
                    None,
                    At {
                        model: self.old.model,
                        strukt: &holder,
                        arg: None,
                    },
                ),
                (
                    new_error,
                    None,
                    At {
                        model: self.new.model,
                        strukt: &holder,
                        arg: None,
                    },
                ),
                spans,
            );
        }
        let reached = reached_resources(self.old.model);
        for old_r in &old_rest.resources {
            let published = self.published.resources.contains(&old_r.name);
            let subject = Subject::Resource(old_r.name.clone());
            let old_span = self.old.places.resources.get(&old_r.name).copied();
            match new_rest.resources.iter().find(|r| r.name == old_r.name) {
                None => {
                    let ctx = Ctx {
                        subject,
                        writer: Writer::Platform,
                        published,
                        via: None,
                        retired: false,
                    };
                    self.push(
                        &ctx,
                        Rule::TypeRemoved,
                        "",
                        (Verdict::Reads, Verdict::Reads),
                        format!(
                            "resource `{}` removed from the crate (code naming it stops compiling)",
                            old_r.name
                        ),
                        (None, None),
                        (old_span, None),
                    );
                }
                Some(new_r) if !reached.contains(&old_r.name) && old_r.generic.is_none() => {
                    let ctx = Ctx {
                        subject,
                        writer: Writer::Platform,
                        published,
                        via: Some((old_r.name.clone(), String::new())),
                        retired: false,
                    };
                    let old_at = At {
                        model: self.old.model,
                        strukt: old_r,
                        arg: None,
                    };
                    let new_at = At {
                        model: self.new.model,
                        strukt: new_r,
                        arg: None,
                    };
                    self.structs(&ctx, "", old_at, new_at);
                }
                Some(_) => {}
            }
        }
    }

    fn parameters(
        &mut self,
        ctx: &Ctx,
        prefix: &str,
        (old, old_owner): (&[Field], &str),
        (new, new_owner): (&[Field], &str),
    ) {
        let old_holder = Struct {
            name: old_owner.to_owned(),
            fields: old.to_vec(),
            ..endpoint_holder_named(old_owner)
        };
        let new_holder = Struct {
            name: new_owner.to_owned(),
            fields: new.to_vec(),
            ..endpoint_holder_named(new_owner)
        };
        let old_at = At {
            model: self.old.model,
            strukt: &old_holder,
            arg: None,
        };
        let new_at = At {
            model: self.new.model,
            strukt: &new_holder,
            arg: None,
        };
        self.fields(ctx, prefix, old_at, new_at);
    }

    // -----------------------------------------------------------------------------------------------
    // Structs, fields, types

    fn structs(&mut self, ctx: &Ctx, prefix: &str, old: At<'_>, new: At<'_>) {
        let key = (old.strukt.name.clone(), new.strukt.name.clone());
        if self.stack.contains(&key) {
            return;
        }
        self.stack.push(key);
        if old.strukt.incomplete != new.strukt.incomplete {
            let (rule, what) = if new.strukt.incomplete {
                (Rule::KeepsUnlistedFields, "now keeps")
            } else {
                (Rule::DropsUnlistedFields, "no longer keeps")
            };
            let spans = (
                self.old.places.shared_types.get(&old.strukt.name).copied(),
                self.new.places.shared_types.get(&new.strukt.name).copied(),
            );
            self.push(
                ctx,
                rule,
                prefix,
                (Verdict::Reads, Verdict::Reads),
                format!(
                    "{} {what} the members it does not list",
                    self.subject_text(ctx, prefix)
                ),
                (None, None),
                spans,
            );
        }
        let outer = std::mem::replace(&mut self.old_keeps_unlisted, old.strukt.incomplete);
        self.fields(ctx, prefix, old, new);
        self.old_keeps_unlisted = outer;
        self.stack.pop();
    }

    fn fields(&mut self, ctx: &Ctx, prefix: &str, old: At<'_>, new: At<'_>) {
        let mut matched = BTreeSet::new();
        for fo in &old.strukt.fields {
            let same = new.strukt.fields.iter().find(|f| f.name == fo.name);
            let renamed = new
                .strukt
                .fields
                .iter()
                .find(|f| f.renamed_from.contains(&fo.name));
            let old_span = Self::field_span(self.old, old.strukt, &fo.name);
            match same.or(renamed) {
                None => {
                    let path = join(prefix, &fo.name);
                    let ctx = ctx.clone();
                    let required = !fo.optional;
                    let rule = if required {
                        Rule::FieldRemovedRequired
                    } else {
                        Rule::FieldRemovedOptional
                    };
                    let name = fo.name.clone();
                    // The side that no longer has the field neither writes nor reads it.
                    let verdicts = Self::directions(ctx.writer, |reader_is_old, _| {
                        if reader_is_old && required && !fo.nullable {
                            Verdict::Rejects(format!("missing field `{name}`"))
                        } else {
                            Verdict::Reads
                        }
                    });
                    let message = format!(
                        "{} field `{}` removed from {}",
                        if required { "required" } else { "optional" },
                        fo.name,
                        self.subject_text(&ctx, prefix)
                    );
                    self.push(
                        &ctx,
                        rule,
                        &path,
                        verdicts,
                        message,
                        (Some(field_text(fo)), None),
                        (old_span, None),
                    );
                }
                Some(fnew) => {
                    matched.insert(fnew.name.clone());
                    let path = join(prefix, &fnew.name);
                    let new_span = Self::field_span(self.new, new.strukt, &fnew.name);
                    if fnew.name != fo.name {
                        let ctx = ctx.clone();
                        let (name, required) = (fo.name.clone(), !fo.optional && !fo.nullable);
                        let verdicts = Self::directions(ctx.writer, |reader_is_old, _| {
                            // The old side knows only the old name; the new one accepts both.
                            if reader_is_old && required {
                                Verdict::Rejects(format!("missing field `{name}`"))
                            } else {
                                Verdict::Reads
                            }
                        });
                        let message = format!(
                            "field `{}` renamed `{}` in {} (decoders built on the new schema accept the old name)",
                            fo.name,
                            fnew.name,
                            self.subject_text(&ctx, prefix)
                        );
                        self.push(
                            &ctx,
                            Rule::FieldRenamed,
                            &path,
                            verdicts,
                            message,
                            (Some(fo.name.clone()), Some(fnew.name.clone())),
                            (old_span, new_span),
                        );
                    }
                    self.field(ctx, &path, (fo, old), (fnew, new), (old_span, new_span));
                }
            }
        }
        for fnew in &new.strukt.fields {
            if matched.contains(&fnew.name) {
                continue;
            }
            let path = join(prefix, &fnew.name);
            let ctx = ctx.clone();
            let required = !fnew.optional;
            let rule = if required {
                Rule::FieldAddedRequired
            } else {
                Rule::FieldAddedOptional
            };
            let name = fnew.name.clone();
            let nullable = fnew.nullable;
            let verdicts = Self::directions(ctx.writer, |reader_is_old, _| {
                // The side that has the field reads it; it requires it from a writer that never sends it.
                if !reader_is_old && required && !nullable {
                    Verdict::Rejects(format!("missing field `{name}`"))
                } else {
                    Verdict::Reads
                }
            });
            let message = format!(
                "{} field `{}` added to {}",
                if required { "required" } else { "optional" },
                fnew.name,
                self.subject_text(&ctx, prefix)
            );
            let new_span = Self::field_span(self.new, new.strukt, &fnew.name);
            self.push(
                &ctx,
                rule,
                &path,
                verdicts,
                message,
                (None, Some(field_text(fnew))),
                (None, new_span),
            );
        }
    }

    /// One field present on both sides (perhaps under another name).
    fn field(
        &mut self,
        ctx: &Ctx,
        path: &str,
        (fo, old): (&Field, At<'_>),
        (fnew, new): (&Field, At<'_>),
        spans: (Option<Span>, Option<Span>),
    ) {
        let leaf = ctx.clone();
        if fo.optional != fnew.optional {
            let (rule, what) = if fnew.optional {
                (Rule::FieldRequiredToOptional, "optional")
            } else {
                (Rule::FieldOptionalToRequired, "required")
            };
            let name = fnew.name.clone();
            let verdicts = Self::directions(ctx.writer, |reader_is_old, _| {
                let (reader, writer) = if reader_is_old {
                    (fo, fnew)
                } else {
                    (fnew, fo)
                };
                if writer.optional && !reader.is_option() {
                    Verdict::Rejects(format!("missing field `{name}`"))
                } else {
                    Verdict::Reads
                }
            });
            let message = format!(
                "field `{}` of {} is now {what}",
                fnew.name,
                self.subject_text(&leaf, parent(path))
            );
            self.push(
                &leaf,
                rule,
                path,
                verdicts,
                message,
                (Some(field_text(fo)), Some(field_text(fnew))),
                spans,
            );
        }
        if fo.nullable != fnew.nullable {
            let (rule, what) = if fnew.nullable {
                (Rule::FieldNullableAdded, "may now be `null`")
            } else {
                (Rule::FieldNullableRemoved, "may no longer be `null`")
            };
            let verdicts = Self::directions(ctx.writer, |reader_is_old, _| {
                let (reader, writer) = if reader_is_old {
                    (fo, fnew)
                } else {
                    (fnew, fo)
                };
                if writer.nullable && !reader.is_option() {
                    Verdict::Rejects("invalid type: null".to_owned())
                } else {
                    Verdict::Reads
                }
            });
            let message = format!(
                "field `{}` of {} {what}",
                fnew.name,
                self.subject_text(&leaf, parent(path))
            );
            self.push(
                &leaf,
                rule,
                path,
                verdicts,
                message,
                (Some(field_text(fo)), Some(field_text(fnew))),
                spans,
            );
        }
        if self.old.has_docs && self.new.has_docs && fo.description != fnew.description {
            let message = format!(
                "description of field `{}` of {} changed",
                fnew.name,
                self.subject_text(&leaf, parent(path))
            );
            self.push(
                &leaf,
                Rule::DescriptionChanged,
                path,
                (Verdict::Reads, Verdict::Reads),
                message,
                (None, None),
                spans,
            );
        }
        self.types_with_spans(
            ctx,
            path,
            (&fo.ty, fo.format, old),
            (&fnew.ty, fnew.format, new),
            spans,
        );
    }

    fn types_with_spans(
        &mut self,
        ctx: &Ctx,
        path: &str,
        (old_ty, old_format, old): (&Type, Option<Format>, At<'_>),
        (new_ty, new_format, new): (&Type, Option<Format>, At<'_>),
        spans: (Option<Span>, Option<Span>),
    ) {
        let o = shape_of(old_ty, old_format, old);
        let n = shape_of(new_ty, new_format, new);
        match (o, n) {
            (Shape::Str(fo), Shape::Str(fnew)) if fo != fnew => {
                let leaf = ctx.clone();
                let verdicts = Self::directions(ctx.writer, |reader_is_old, _| {
                    let (reader, writer) = if reader_is_old {
                        (fo, fnew)
                    } else {
                        (fnew, fo)
                    };
                    match reader {
                        Some(Format::DateTime) if writer != reader => Verdict::Rejects(
                            "a string that is not a date-time where a date-time is expected"
                                .to_owned(),
                        ),
                        _ => Verdict::Reads,
                    }
                });
                let message = format!(
                    "format of `{path}` changed from {} to {}",
                    o.describe(),
                    n.describe()
                );
                self.push(
                    &leaf,
                    Rule::FieldFormatChanged,
                    path,
                    verdicts,
                    message,
                    (Some(o.describe()), Some(n.describe())),
                    spans,
                );
            }
            (Shape::Str(_), Shape::Str(_))
            | (Shape::Int, Shape::Int)
            | (Shape::Num, Shape::Num)
            | (Shape::Bool, Shape::Bool)
            | (Shape::Obj, Shape::Obj) => {}
            (Shape::Struct(a), Shape::Struct(b)) => {
                // Changes inside a shared type or resource can be waived on it, at their path in it.
                let inner = Ctx {
                    via: Some((b.strukt.name.clone(), path.to_owned())),
                    ..ctx.clone()
                };
                self.structs(&inner, path, a, b);
            }
            (Shape::Array(a, at_a), Shape::Array(b, at_b)) => {
                let path = format!("{path}[]");
                self.types_with_spans(ctx, &path, (a, None, at_a), (b, None, at_b), spans);
            }
            (Shape::Map(a, at_a), Shape::Map(b, at_b)) => {
                let path = format!("{path}.*");
                self.types_with_spans(ctx, &path, (a, None, at_a), (b, None, at_b), spans);
            }
            (o, n) => {
                let leaf = ctx.clone();
                let verdicts = Self::directions(ctx.writer, |reader_is_old, _| {
                    let (reader, writer) = if reader_is_old { (&o, &n) } else { (&n, &o) };
                    type_change(reader, writer).map_or(Verdict::Reads, |(_, v)| v)
                });
                // The rule is named from the new side's point of view: widened when it accepts more.
                let rule = type_change(&n, &o).map_or(Rule::FieldTypeChanged, |(r, _)| r);
                let message = format!(
                    "type of `{}` changed from {} to {}",
                    if path.is_empty() { "the payload" } else { path },
                    o.describe(),
                    n.describe()
                );
                self.push(
                    &leaf,
                    rule,
                    path,
                    verdicts,
                    message,
                    (Some(o.describe()), Some(n.describe())),
                    spans,
                );
            }
        }
    }

    /// "`agreement.updated` v2", "shared type `Ledger`", "the response of `list_products`", with the
    /// nested struct's path when there is one.
    fn subject_text(&self, ctx: &Ctx, prefix: &str) -> String {
        let base = match &ctx.subject {
            Subject::Event {
                event,
                version: Some(v),
            } => format!("`{event}` {v}"),
            Subject::Event { event, .. } => format!("`{event}`"),
            Subject::SharedType(t) => format!("shared type `{t}`"),
            Subject::Resource(r) => format!("resource `{r}`"),
            Subject::Endpoint(e) => format!("endpoint `{e}`"),
            Subject::ErrorResponse => "the error response".to_owned(),
        };
        if prefix.is_empty() {
            base
        } else {
            format!("`{prefix}` of {base}")
        }
    }
}

fn join(prefix: &str, name: &str) -> String {
    if prefix.is_empty() {
        name.to_owned()
    } else {
        format!("{prefix}.{name}")
    }
}

fn parent(path: &str) -> &str {
    path.rsplit_once('.').map_or("", |(p, _)| p)
}

/// A field's shape in words: `required int`, `optional str (date-time), nullable`.
fn field_text(f: &Field) -> String {
    let mut text = format!(
        "{} {}",
        if f.optional { "optional" } else { "required" },
        f.ty.describe()
    );
    if let Some(format) = f.format {
        text.push_str(&format!(" ({})", format.keyword()));
    }
    if f.nullable {
        text.push_str(", nullable");
    }
    text
}

/// A stand-in struct holding an endpoint's response or parameters, so they compare like fields.
fn endpoint_holder(e: &crate::model::Endpoint) -> Struct {
    endpoint_holder_named(&e.name)
}

fn endpoint_holder_named(name: &str) -> Struct {
    Struct {
        name: name.to_owned(),
        rust_name: String::new(),
        doc: String::new(),
        fields: Vec::new(),
        incomplete: false,
        generic: None,
        free_form: false,
        waivers: Vec::new(),
    }
}

/// Shared types some event version reaches, directly or through other shared types.
fn reached_types(model: &Model) -> BTreeSet<String> {
    let roots: Vec<&Struct> = model
        .events()
        .flat_map(|(_, e)| e.versions.iter().map(|v| &v.payload))
        .collect();
    model
        .shared_types_reached(&roots)
        .into_iter()
        .map(|t| t.name.clone())
        .collect()
}

/// Resources some endpoint (or the error response) reaches.
fn reached_resources(model: &Model) -> BTreeSet<String> {
    let Some(rest) = &model.rest else {
        return BTreeSet::new();
    };
    let mut found = BTreeSet::new();
    let mut pending: Vec<&Type> = rest.endpoints.iter().map(|e| &e.response).collect();
    pending.extend(&rest.error_response);
    while let Some(ty) = pending.pop() {
        match ty {
            Type::Array(inner) | Type::Map(inner) => pending.push(inner),
            Type::Named(r) => {
                if let Some(arg) = &r.arg {
                    pending.push(arg);
                }
                let s = model.named(r.id);
                if found.insert(s.name.clone()) {
                    pending.extend(s.fields.iter().map(|f| &f.ty));
                }
            }
            _ => {}
        }
    }
    found
}
