//! The comparison of two models, by wire shape.
//!
//! Payloads are compared field by field, structurally: a field whose type is a shared type is compared
//! through it (so a change inside a shared type is found once per event version that reaches it, with
//! the full path), and two types are the same when their shapes are, whatever their names. Each change
//! is judged twice: can a reader of one side read what the other side writes.
//!
//! - `events`: event types and their versions, and shared types no version reaches;
//! - `rest`: endpoints, their parameters and responses, and resources no endpoint reaches;
//! - `structs`: the fields of two structs, and the types of two fields;
//! - `shape`: what a type is on the wire, and which changes of it a reader accepts.

mod events;
mod rest;
mod shape;
mod structs;

pub(crate) use shape::notation;

use super::counterexample;
use super::finding::{Finding, Item, Severity, Subject, Verdict};
use super::published::PublishedKeys;
use super::rules::Rule;
use crate::model::{Field, Model, Struct};
use shape::At;

/// Who writes what is compared: the platform (payloads and responses: old and new consumers read), or
/// the client (request parameters: old and new servers read).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Writer {
    Platform,
    Client,
}

/// The comparison in progress.
struct Diff<'a> {
    old: &'a Model,
    new: &'a Model,
    /// Both sides know their descriptions (a baseline records wire shapes only).
    descriptions: bool,
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

/// Every change from `old` to `new`, each with a counterexample where a payload proves the break, in the
/// order the comparison meets them. `descriptions`: both sides know their descriptions (a baseline
/// records wire shapes only), so a changed one is a finding; `published` says which items are
/// published; `today` (`YYYY-MM-DD`) decides which sunsets have passed.
pub(crate) fn compare(
    old: &Model,
    new: &Model,
    descriptions: bool,
    published: &PublishedKeys,
    today: &str,
) -> Vec<Finding> {
    let mut d = Diff {
        old,
        new,
        descriptions,
        published,
        today,
        out: Vec::new(),
        stack: Vec::new(),
        old_keeps_unlisted: false,
    };
    d.events();
    d.borrowed_views();
    d.unreached_shared_types();
    d.rest();
    d.new_versions();
    counterexample::attach(old, new, &mut d.out);
    d.out
}

/// The changes from payload `older` to payload `newer`, two versions of one event type in `model`.
pub(super) fn compare_payloads(model: &Model, older: &Struct, newer: &Struct) -> Vec<Finding> {
    let published = PublishedKeys::default();
    let mut d = Diff {
        old: model,
        new: model,
        descriptions: false,
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
        items: (Option<Item>, Option<Item>),
    ) {
        let breaks = !forward.reads() || !backward.reads();
        let severity = match rule {
            // About versions not yet published, by definition: still worth a look before publishing.
            Rule::VersionNotNeeded | Rule::FieldNameReused => Severity::Warning,
            _ if !ctx.published || ctx.retired => Severity::Info,
            // Wire-compatible, but a router's handler of the older version silently stops getting the
            // newer one.
            // Wire-compatible, but code naming the borrowed view stops compiling.
            Rule::TypeRemoved | Rule::VersionViewRemoved | Rule::BorrowedViewChanged => {
                Severity::Warning
            }
            _ if breaks => Severity::Error,
            Rule::FieldRemovedOptional | Rule::ParameterDefaultChanged => Severity::Warning,
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
            consumers: Vec::new(),
            waived_for: Vec::new(),
            request: ctx.writer == Writer::Client,
            via: ctx.via.as_ref().map(|(ty, entered)| {
                let inside = path
                    .strip_prefix(entered.as_str())
                    .map_or(path, |rest| rest.trim_start_matches('.'));
                (ty.clone(), inside.to_owned())
            }),
            items,
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

    /// A field of `owner`, as an item.
    fn field_item(owner: &Struct, field: &str) -> Option<Item> {
        Some(Item::Field(owner.name.clone(), field.to_owned()))
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
