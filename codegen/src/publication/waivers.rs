//! Waivers: a finding that a waiver of the new side names (by rule and path, on the item that changed, or
//! on the shared type or resource holding the field) is allowed; a waiver that names nothing is itself an
//! error.

use super::side::Side;
use crate::evolution::{Finding, Item, Rule, Severity, Subject, Verdict};
use crate::model::{Model, Waiver};
use std::collections::BTreeMap;

/// Finds with waivers of the new side: an error finding a waiver names (by rule and path, on the item
/// that changed, or on the shared type or resource holding the field) is waived; a waiver that names
/// nothing is itself an error.
pub(super) fn apply(new: &Side, findings: &mut Vec<Finding>) {
    let mut used: BTreeMap<(String, String, String), bool> = new
        .places
        .waivers
        .keys()
        .map(|k| (k.clone(), false))
        .collect();
    let waiver_of = |owner: &str, rule: Rule, path: &str| {
        waivers_of(&new.model, owner)
            .iter()
            .find(|w| w.rule == rule.id() && w.path == path)
            .map(|w| (owner.to_owned(), w))
    };
    for f in findings.iter_mut() {
        let direct = match &f.subject {
            // A change to the event type as a whole is waived on any of its versions.
            Subject::Event {
                event,
                version: None,
            } => new
                .model
                .events()
                .find(|(_, e)| &e.name == event)
                .into_iter()
                .flat_map(|(_, e)| &e.versions)
                .find_map(|v| waiver_of(&format!("version {event} {}", v.label), f.rule, &f.path)),
            subject => owner(subject).and_then(|owner| waiver_of(&owner, f.rule, &f.path)),
        };
        let through = f.via.as_ref().and_then(|(ty, path)| {
            waiver_of(&format!("type {ty}"), f.rule, path)
                .or_else(|| waiver_of(&format!("resource {ty}"), f.rule, path))
        });
        if let Some((owner, waiver)) = direct.or(through) {
            let is_via = f.via.as_ref().is_some_and(|(ty, _)| {
                owner == format!("type {ty}") || owner == format!("resource {ty}")
            });
            let key_path = if is_via {
                f.via.as_ref().map(|(_, p)| p.clone()).unwrap_or_default()
            } else {
                f.path.clone()
            };
            used.insert((owner, f.rule.id().to_owned(), key_path), true);
            if f.severity == Severity::Error {
                f.severity = Severity::Info;
            }
            f.waived = Some(waiver.reason.clone());
            f.waived_for = waiver.consumers.clone();
        }
    }
    for ((owner, rule, path), was_used) in used {
        if was_used {
            continue;
        }
        findings.push(Finding {
            rule: Rule::WaiverUnused,
            severity: Severity::Error,
            forward: Verdict::Reads,
            backward: Verdict::Reads,
            strict_forward: None,
            subject: subject_of_owner(&owner),
            path: path.clone(),
            message: format!(
                "the waiver of `{rule}` at `{}` matches no finding: remove it",
                if path.is_empty() { "." } else { &path }
            ),
            old: None,
            new: None,
            old_value: None,
            new_value: None,
            counterexample: None,
            waived: None,
            published: true,
            via: None,
            items: (None, Some(Item::Waiver(owner, rule, path))),
            request: false,
            consumers: Vec::new(),
            waived_for: Vec::new(),
        });
    }
}

fn waivers_of<'m>(model: &'m Model, owner: &str) -> &'m [Waiver] {
    let (kind, rest) = owner.split_once(' ').unwrap_or((owner, ""));
    match kind {
        "version" => {
            let (event, label) = rest.rsplit_once(' ').unwrap_or((rest, ""));
            model
                .events()
                .find(|(_, e)| e.name == event)
                .and_then(|(_, e)| e.versions.iter().find(|v| v.label == label))
                .map_or(&[], |v| v.waivers.as_slice())
        }
        "type" => model
            .shared_type(rest)
            .map_or(&[], |t| t.waivers.as_slice()),
        "resource" => model
            .rest
            .as_ref()
            .and_then(|r| r.resources.iter().find(|x| x.name == rest))
            .map_or(&[], |t| t.waivers.as_slice()),
        "endpoint" => model
            .rest
            .as_ref()
            .and_then(|r| r.endpoints.iter().find(|x| x.name == rest))
            .map_or(&[], |e| e.waivers.as_slice()),
        _ => &[],
    }
}

fn subject_of_owner(owner: &str) -> Subject {
    let (kind, rest) = owner.split_once(' ').unwrap_or((owner, ""));
    match kind {
        "version" => {
            let (event, label) = rest.rsplit_once(' ').unwrap_or((rest, ""));
            Subject::Event {
                event: event.to_owned(),
                version: Some(label.to_owned()),
            }
        }
        "type" => Subject::SharedType(rest.to_owned()),
        "resource" => Subject::Resource(rest.to_owned()),
        _ => Subject::Endpoint(rest.to_owned()),
    }
}

/// The item whose waivers may allow a finding about `subject` (`version <type> <label>`, …), named as
/// the reader records waivers' owners.
fn owner(subject: &Subject) -> Option<String> {
    match subject {
        Subject::Event {
            event,
            version: Some(v),
        } => Some(format!("version {event} {v}")),
        Subject::Event { version: None, .. } | Subject::ErrorResponse => None,
        Subject::SharedType(t) => Some(format!("type {t}")),
        Subject::Resource(r) => Some(format!("resource {r}")),
        Subject::Endpoint(e) => Some(format!("endpoint {e}")),
    }
}
