//! The consuming teams' contracts against a change: who each finding breaks, and what contracts make
//! errors beyond the rules.
//!
//! A finding about an event version is *read* by an active contract that reads that version (or the
//! type, for a finding about the type) and, when the contract lists fields, one of them overlaps the
//! finding's path (one is a prefix of the other: a change inside `/ledger` is read by a reader of
//! `/ledger`, and a change to `ledger` by a reader of `/ledger/number`). Beyond the rules, a contract
//! makes these errors, naming its consumer:
//!
//! - a field it reads removed, renamed or retyped in a version it reads, even where the rules call the
//!   change compatible (removing an optional field, widening `int` to `num`);
//! - a version it reads removed, an event type it reads removed or renamed;
//!
//! unless a waiver names every consumer it breaks. A deprecated version a contract still reads is a
//! warning naming the consumer and the sunset. With `consumers_only`, an error that no active contract
//! reads passes as a note: the producer's set of contracts is complete.

use super::finding::{Finding, Item, Severity, Subject, Verdict};
use super::rules::Rule;
use crate::model::{Consumer, EventType, Model, Struct, Type, TypeId};

/// The rules whose findings break a contract that reads what they are about, whatever their severity.
const BREAKS_A_READER: &[Rule] = &[
    Rule::EventTypeRemoved,
    Rule::EventTypeRenamed,
    Rule::VersionRemoved,
    Rule::FieldRemovedRequired,
    Rule::FieldRemovedOptional,
    Rule::FieldRenamed,
    Rule::FieldTypeWidened,
    Rule::FieldTypeNarrowed,
    Rule::FieldTypeChanged,
    Rule::FieldFormatChanged,
    Rule::FieldNullableAdded,
];

/// Names the active contracts of `new` that read each finding; makes an error of each break of a
/// contract that no waiver names its consumer for; adds a warning for each deprecated version an active
/// contract reads; and with `consumers_only`, lets an error no contract reads pass as a note.
pub(crate) fn apply(new: &Model, findings: &mut Vec<Finding>, consumers_only: bool) {
    let active: Vec<&Consumer> = new.consumers.iter().filter(|c| c.active).collect();
    for f in findings.iter_mut() {
        let Subject::Event { event, version } = &f.subject else {
            continue;
        };
        let paths = paths_of(f);
        f.consumers = active
            .iter()
            .filter(|c| {
                paths
                    .iter()
                    .any(|path| reads(new, c, event, version.as_deref(), path))
            })
            .map(|c| c.name.clone())
            .collect();
        let unagreed: Vec<&String> = f
            .consumers
            .iter()
            .filter(|c| !f.waived_for.contains(c))
            .collect();
        if BREAKS_A_READER.contains(&f.rule) && !unagreed.is_empty() {
            let compatible = f.severity != Severity::Error;
            f.severity = Severity::Error;
            let names = unagreed
                .iter()
                .map(|c| format!("`{c}`"))
                .collect::<Vec<_>>()
                .join(", ");
            f.message = format!(
                "{}: it breaks {} ({}, which {} it){}",
                f.message,
                if unagreed.len() == 1 {
                    "a consumer"
                } else {
                    "consumers"
                },
                names,
                if unagreed.len() == 1 { "reads" } else { "read" },
                if compatible && f.waived.is_none() {
                    ", although the rules call it compatible"
                } else if f.waived.is_some() {
                    "; the waiver does not say they agreed"
                } else {
                    ""
                }
            );
        }
    }
    if consumers_only {
        for f in findings.iter_mut() {
            if f.severity == Severity::Error
                && f.consumers.is_empty()
                && matches!(f.subject, Subject::Event { .. })
                && f.rule != Rule::WaiverUnused
            {
                f.severity = Severity::Info;
                f.message = format!("{} (breaks no registered consumer)", f.message);
            }
        }
    }
    findings.extend(deprecated_reads(new, &active));
}

/// The paths a finding is about: its own, and for a renamed field the former name too (which the
/// contracts written before the rename point at).
fn paths_of(f: &Finding) -> Vec<String> {
    let mut paths = vec![f.path.clone()];
    if f.rule == Rule::FieldRenamed
        && let Some(former) = &f.old_value
    {
        paths.push(match f.path.rsplit_once('.') {
            Some((parent, _)) => format!("{parent}.{former}"),
            None => former.clone(),
        });
    }
    paths
}

/// Whether contract `consumer` reads what a finding about `event` (its `version`, at `path`) is about.
fn reads(
    model: &Model,
    consumer: &Consumer,
    event: &str,
    version: Option<&str>,
    path: &str,
) -> bool {
    // A contract that names a former name reads the renamed type.
    let names: Vec<&str> = std::iter::once(event)
        .chain(
            event_type(model, event)
                .into_iter()
                .flat_map(|e| e.renamed_from.iter().map(String::as_str)),
        )
        .collect();
    consumer.reads.iter().any(|read| {
        names.contains(&read.event.as_str())
            && version.is_none_or(|v| read.versions.iter().any(|r| r == v))
            && match &read.fields {
                None => true,
                Some(pointers) => {
                    let changed = path_segments(path);
                    changed.is_empty()
                        || pointers
                            .iter()
                            .any(|p| overlaps(&pointer_segments(p), &changed))
                }
            }
    })
}

/// A finding's path (`ledger.account.number`, `supply_points[].market_name`, `tariffs.*.code`) as
/// segments, an array's or map's elements as `*`.
fn path_segments(path: &str) -> Vec<String> {
    let mut out = Vec::new();
    for part in path.split('.').filter(|p| !p.is_empty()) {
        let (name, arrays) = match part.find("[]") {
            Some(at) => (&part[..at], part[at..].matches("[]").count()),
            None => (part, 0),
        };
        if !name.is_empty() {
            out.push(name.to_owned());
        }
        out.extend(std::iter::repeat_n("*".to_owned(), arrays));
    }
    out
}

/// A JSON pointer (`/supply_points/0/market_name`) as segments, an index as `*`.
fn pointer_segments(pointer: &str) -> Vec<String> {
    pointer
        .split('/')
        .skip(1)
        .map(|s| {
            if s.parse::<usize>().is_ok() || s == "-" {
                "*".to_owned()
            } else {
                s.replace("~1", "/").replace("~0", "~")
            }
        })
        .collect()
}

/// Whether one path lies inside the other (or they are the same).
fn overlaps(a: &[String], b: &[String]) -> bool {
    a.iter().zip(b).all(|(x, y)| x == y || x == "*" || y == "*")
}

/// A warning for each deprecated version of `model` that an active contract reads.
fn deprecated_reads(model: &Model, active: &[&Consumer]) -> Vec<Finding> {
    let mut out = Vec::new();
    for (_, event) in model.events() {
        for version in &event.versions {
            let Some(deprecation) = &version.deprecated else {
                continue;
            };
            let readers: Vec<String> = active
                .iter()
                .filter(|c| reads(model, c, &event.name, Some(&version.label), ""))
                .map(|c| c.name.clone())
                .collect();
            if readers.is_empty() {
                continue;
            }
            let names = readers
                .iter()
                .map(|c| format!("`{c}`"))
                .collect::<Vec<_>>()
                .join(", ");
            out.push(Finding {
                rule: Rule::ConsumerReadsDeprecated,
                severity: Severity::Warning,
                forward: Verdict::Reads,
                backward: Verdict::Reads,
                strict_forward: None,
                subject: Subject::Event {
                    event: event.name.clone(),
                    version: Some(version.label.clone()),
                },
                path: String::new(),
                message: format!(
                    "{names} still {} `{} {}`, deprecated: it may be removed from {}",
                    if readers.len() == 1 { "reads" } else { "read" },
                    event.name,
                    version.label,
                    deprecation.sunset
                ),
                old: None,
                new: None,
                old_value: None,
                new_value: Some(format!("sunset {}", deprecation.sunset)),
                counterexample: None,
                waived: None,
                published: true,
                via: None,
                items: (
                    None,
                    Some(Item::Version(event.name.clone(), version.label.clone())),
                ),
                request: false,
                consumers: readers,
                waived_for: Vec::new(),
            });
        }
    }
    out
}

/// The active contracts of `model` that read version `label` of event type `event`, in name order.
pub(crate) fn readers(model: &Model, event: &str, label: &str) -> Vec<String> {
    model
        .consumers
        .iter()
        .filter(|c| c.active && reads(model, c, event, Some(label), ""))
        .map(|c| c.name.clone())
        .collect()
}

/// What a contract names that a model does not have.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Unresolved {
    /// The contract.
    pub consumer: String,
    /// Its entry of `reads`.
    pub read: usize,
    /// What is not there.
    pub what: Missing,
    /// The name as the contract writes it (of a pointer, the segment that is not there).
    pub written: String,
    /// Why, in words.
    pub message: String,
    /// What exists nearby.
    pub nearby: Vec<String>,
}

/// The part of an entry of `reads` that does not resolve.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Missing {
    /// The event type.
    Event,
    /// Its `i`-th version.
    Version(usize),
    /// Its `i`-th field pointer.
    Field(usize),
}

/// Every reference of `consumer` that `model` does not have: event types (a former name counts as
/// missing, with the new name said), versions, and JSON pointers into the versions it reads.
pub(crate) fn references(model: &Model, consumer: &Consumer) -> Vec<Unresolved> {
    let mut out = Vec::new();
    let unresolved =
        |read: usize, what: Missing, written: &str, message: String, nearby: Vec<String>| {
            Unresolved {
                consumer: consumer.name.clone(),
                read,
                what,
                written: written.to_owned(),
                message,
                nearby,
            }
        };
    let names: Vec<String> = model.events().map(|(_, e)| e.name.clone()).collect();
    for (i, read) in consumer.reads.iter().enumerate() {
        let Some(event) = event_type(model, &read.event) else {
            let renamed = model
                .events()
                .find(|(_, e)| e.renamed_from.contains(&read.event));
            let message = match renamed {
                Some((_, new)) => format!(
                    "event type `{}` is now `{}` (renamed)",
                    read.event, new.name
                ),
                None => format!("no event type `{}` in the catalogue", read.event),
            };
            out.push(unresolved(
                i,
                Missing::Event,
                &read.event,
                message,
                names.clone(),
            ));
            continue;
        };
        let mut versions = Vec::new();
        for (v, label) in read.versions.iter().enumerate() {
            match event.versions.iter().find(|ver| ver.label == *label) {
                Some(version) => versions.push(version),
                None => {
                    let known: Vec<String> =
                        event.versions.iter().map(|v| v.label.clone()).collect();
                    out.push(unresolved(
                        i,
                        Missing::Version(v),
                        label,
                        format!(
                            "`{}` has no version `{label}` (versions: {})",
                            event.name,
                            known.join(", ")
                        ),
                        known,
                    ));
                }
            }
        }
        // A pointer names a field of at least one of the versions read: a field a later version adds is
        // read where it is.
        for (f, pointer) in read.fields.iter().flatten().enumerate() {
            let mut first_miss = None;
            let mut found = false;
            for version in &versions {
                match resolve_pointer(model, &version.payload, pointer) {
                    Ok(_) => found = true,
                    Err(miss) => {
                        first_miss.get_or_insert((miss, &version.label));
                    }
                }
            }
            if let (false, Some((miss, label))) = (found, first_miss) {
                out.push(unresolved(
                    i,
                    Missing::Field(f),
                    &miss.segment,
                    format!("`{pointer}` of `{} {label}`: {}", event.name, miss.message),
                    miss.nearby,
                ));
            }
        }
    }
    out
}

/// The event type named `name`.
fn event_type<'m>(model: &'m Model, name: &str) -> Option<&'m EventType> {
    model.events().map(|(_, e)| e).find(|e| e.name == name)
}

/// Why a JSON pointer reaches nothing.
struct NotThere {
    message: String,
    /// The segment that is not there.
    segment: String,
    /// What is there instead.
    nearby: Vec<String>,
}

/// What a JSON pointer reaches in a payload: the type at its end. An array's elements are `*` (or an
/// index), a map's values any key; inside a free-form object any pointer is taken.
fn resolve_pointer<'m>(
    model: &'m Model,
    payload: &'m Struct,
    pointer: &str,
) -> Result<Option<&'m Type>, NotThere> {
    let mut segments = pointer_segments(pointer).into_iter();
    let Some(first) = segments.next() else {
        return Ok(None);
    };
    let mut at: &Type = field_type(payload, &first)?;
    for segment in segments {
        at = match at {
            Type::Array(inner) if segment == "*" => inner,
            Type::Array(_) => {
                return Err(NotThere {
                    message: format!(
                        "`{segment}` is not an element of an array (write `*` or an index)"
                    ),
                    segment,
                    nearby: vec!["*".to_owned()],
                });
            }
            Type::Map(value) => value,
            Type::Obj => return Ok(Some(at)),
            Type::Named(r) => {
                let inner = match r.id {
                    TypeId::Shared(i) => &model.shared_types[i],
                    TypeId::Resource(i) => match &model.rest {
                        Some(rest) => &rest.resources[i],
                        None => {
                            return Err(NotThere {
                                message: "no such type".to_owned(),
                                segment,
                                nearby: Vec::new(),
                            });
                        }
                    },
                };
                if inner.free_form {
                    return Ok(Some(at));
                }
                field_type(inner, &segment)?
            }
            scalar => {
                return Err(NotThere {
                    message: format!("a {} has no member `{segment}`", scalar.describe()),
                    segment,
                    nearby: Vec::new(),
                });
            }
        };
    }
    Ok(Some(at))
}

/// The type of `name` in `of`, or why not and which fields there are.
fn field_type<'m>(of: &'m Struct, name: &str) -> Result<&'m Type, NotThere> {
    of.fields
        .iter()
        .find(|f| f.name == name)
        .map(|f| &f.ty)
        .ok_or_else(|| {
            let fields: Vec<String> = of.fields.iter().map(|f| f.name.clone()).collect();
            NotThere {
                message: format!(
                    "no field `{name}` in `{}` (fields: {})",
                    of.name,
                    fields.join(", ")
                ),
                segment: name.to_owned(),
                nearby: fields,
            }
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn segments(a: &[&str]) -> Vec<String> {
        a.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn paths_and_pointers_meet_in_segments() {
        assert_eq!(
            path_segments("supply_points[].market_name"),
            segments(&["supply_points", "*", "market_name"])
        );
        assert_eq!(
            pointer_segments("/supply_points/0/market_name"),
            segments(&["supply_points", "*", "market_name"])
        );
        assert_eq!(
            path_segments("tariffs.*.code"),
            segments(&["tariffs", "*", "code"])
        );
        assert_eq!(pointer_segments("/a~1b/c~0d"), segments(&["a/b", "c~d"]));
    }

    #[test]
    fn a_change_is_read_when_one_path_holds_the_other() {
        let read = pointer_segments("/ledger/number");
        assert!(overlaps(&read, &path_segments("ledger.number")));
        assert!(
            overlaps(&read, &path_segments("ledger")),
            "the whole ledger changed"
        );
        assert!(overlaps(
            &pointer_segments("/ledger"),
            &path_segments("ledger.number")
        ));
        assert!(!overlaps(&read, &path_segments("ledger.account")));
        assert!(!overlaps(&read, &path_segments("entry.id")));
    }
}
