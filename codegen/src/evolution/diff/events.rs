//! Event types and their versions, and the shared types no event version reaches.

use super::shape::At;
use super::{Ctx, Diff, Writer};
use crate::evolution::finding::{Item, Subject, Verdict};
use crate::evolution::rules::Rule;
use crate::model::{EventType, EventVersion, Model, Struct};
use crate::views::version_views;
use std::collections::BTreeSet;

impl Diff<'_> {
    pub(super) fn events(&mut self) {
        let old_events: Vec<(&str, &EventType)> = self
            .old
            .events()
            .map(|(s, e)| (s.stem.as_str(), e))
            .collect();
        let mut matched_new = BTreeSet::new();
        for (_, old_event) in old_events {
            let renamed = self
                .new
                .events()
                .map(|(_, e)| e)
                .find(|e| e.renamed_from.contains(&old_event.name));
            let same = self
                .new
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
            let item = Some(Item::Event(e.name.clone()));
            self.push(
                &ctx,
                Rule::EventTypeAdded,
                "",
                (Verdict::Reads, Verdict::Reads),
                format!("new event type `{}`", e.name),
                (None, None),
                (None, item),
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
        let item = Some(Item::Event(old_event.name.clone()));
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
            (item, None),
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
        let old_item = Some(Item::Event(old_event.name.clone()));
        let new_item = Some(Item::FormerEventName(old_event.name.clone()));
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
            (old_item, new_item),
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
            let old_item = Some(Item::Version(key.0.clone(), key.1.clone()));
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
                        (old_item, None),
                    );
                }
                Some(new_v) => {
                    let new_item = Some(Item::Version(new_event.name.clone(), new_v.label.clone()));
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
                            (old_item.clone(), new_item.clone()),
                        );
                    }
                    if self.descriptions
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
                            (old_item, new_item),
                        );
                    }
                    let via = old_v
                        .alias_of
                        .as_ref()
                        .map(|a| (a.name.clone(), String::new()));
                    let ctx = Ctx { via, ..ctx };
                    let old_at = At {
                        model: self.old,
                        strukt: &old_v.payload,
                        arg: None,
                    };
                    let new_at = At {
                        model: self.new,
                        strukt: &new_v.payload,
                        arg: None,
                    };
                    self.structs(&ctx, "", old_at, new_at);
                }
            }
        }
        self.views_removed(old_event, new_event);
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
            let item = Some(Item::Version(new_event.name.clone(), new_v.label.clone()));
            self.push(
                &ctx,
                Rule::VersionAdded,
                "",
                (Verdict::Reads, Verdict::Reads),
                format!("new version `{}` of `{}`", new_v.label, new_event.name),
                (None, None),
                (None, item),
            );
        }
    }

    /// Version views of the old side that the new side lacks between the same two versions: the crate
    /// loses `From<newer> for older`, and a handler of the older version no longer takes the newer (a
    /// field added to the older alone, optional or not, is enough).
    fn views_removed(&mut self, old_event: &EventType, new_event: &EventType) {
        let new_views: BTreeSet<(&str, &str)> = version_views(new_event)
            .iter()
            .map(|view| (view.newer.label.as_str(), view.older.label.as_str()))
            .collect();
        let has = |label: &str| new_event.versions.iter().any(|v| v.label == label);
        for view in version_views(old_event) {
            let (newer, older) = (view.newer.label.as_str(), view.older.label.as_str());
            if new_views.contains(&(newer, older)) || !has(newer) || !has(older) {
                continue;
            }
            let key = |label: &str| (old_event.name.clone(), label.to_owned());
            let ctx = Ctx {
                subject: Subject::Event {
                    event: new_event.name.clone(),
                    version: Some(newer.to_owned()),
                },
                writer: Writer::Platform,
                published: self.published.versions.contains(&key(newer))
                    && self.published.versions.contains(&key(older)),
                via: None,
                retired: false,
            };
            self.push(
                &ctx,
                Rule::VersionViewRemoved,
                "",
                (Verdict::Reads, Verdict::Reads),
                format!(
                    "`{}` {newer} no longer holds every field of {older}: `From<{newer}> for {older}` is gone, and handlers of {older} (`Router::on_view`) no longer take {newer}",
                    new_event.name
                ),
                (None, None),
                (
                    Some(Item::Version(old_event.name.clone(), newer.to_owned())),
                    Some(Item::Version(new_event.name.clone(), newer.to_owned())),
                ),
            );
        }
    }

    /// Structs whose borrowed view (feature `borrowed`) starts or stops having a lifetime: a shared type,
    /// or a payload version, present on both sides (a renamed or removed one is reported as such).
    pub(super) fn borrowed_views(&mut self) {
        let (old_shared, new_shared) = (
            crate::borrowing::shared_views(self.old),
            crate::borrowing::shared_views(self.new),
        );
        let change = |borrows: bool| {
            if borrows {
                "now has a lifetime (its first string or free-form field came; it was the owned type, re-exported)"
            } else {
                "no longer has a lifetime (it holds numbers and booleans only: the owned type, re-exported)"
            }
        };
        for old_t in &self.old.shared_types {
            let Some(new_t) = self.new.shared_type(&old_t.name) else {
                continue;
            };
            let borrows = new_shared.contains(&new_t.name);
            if old_shared.contains(&old_t.name) == borrows {
                continue;
            }
            let ctx = Ctx {
                subject: Subject::SharedType(old_t.name.clone()),
                writer: Writer::Platform,
                published: self.published.types.contains(&old_t.name),
                via: None,
                retired: false,
            };
            self.push(
                &ctx,
                Rule::BorrowedViewChanged,
                "",
                (Verdict::Reads, Verdict::Reads),
                format!(
                    "the borrowed view of shared type `{}` (feature `borrowed`) {}",
                    old_t.name,
                    change(borrows)
                ),
                (None, None),
                (
                    Some(Item::SharedType(old_t.name.clone())),
                    Some(Item::SharedType(new_t.name.clone())),
                ),
            );
        }
        let pairs: Vec<(&EventType, &EventType)> = self
            .old
            .events()
            .filter_map(|(_, old_e)| {
                self.new
                    .events()
                    .find(|(_, new_e)| new_e.name == old_e.name)
                    .map(|(_, new_e)| (old_e, new_e))
            })
            .collect();
        for (old_e, new_e) in pairs {
            for old_v in &old_e.versions {
                let Some(new_v) = new_e.versions.iter().find(|v| v.label == old_v.label) else {
                    continue;
                };
                let borrows = crate::borrowing::fields_borrow(&new_shared, &new_v.payload);
                if crate::borrowing::fields_borrow(&old_shared, &old_v.payload) == borrows {
                    continue;
                }
                let key = (old_e.name.clone(), old_v.label.clone());
                let ctx = Ctx {
                    subject: Subject::Event {
                        event: new_e.name.clone(),
                        version: Some(new_v.label.clone()),
                    },
                    writer: Writer::Platform,
                    published: self.published.versions.contains(&key),
                    via: None,
                    retired: false,
                };
                self.push(
                    &ctx,
                    Rule::BorrowedViewChanged,
                    "",
                    (Verdict::Reads, Verdict::Reads),
                    format!(
                        "the borrowed view of `{}` {} (feature `borrowed`) {}",
                        new_e.name,
                        new_v.label,
                        change(borrows)
                    ),
                    (None, None),
                    (
                        Some(Item::Version(key.0.clone(), key.1.clone())),
                        Some(Item::Version(new_e.name.clone(), new_v.label.clone())),
                    ),
                );
            }
        }
    }

    /// Checks of versions not yet published, within the new side: a version every reader of the
    /// previous one reads (and the reverse) was not needed; a field name an earlier version used for
    /// another type is reused.
    pub(super) fn new_versions(&mut self) {
        let events: Vec<&EventType> = self.new.events().map(|(_, e)| e).collect();
        for event in events {
            for (i, v) in event.versions.iter().enumerate() {
                let key = (event.name.clone(), v.label.clone());
                if self.published.versions.contains(&key) || i == 0 {
                    continue;
                }
                let item = Some(Item::Version(key.0.clone(), key.1.clone()));
                let previous = &event.versions[i - 1];
                // Full-compatible: no reader of either version rejects a payload of the other.
                let full = super::compare_payloads(self.new, &previous.payload, &v.payload)
                    .iter()
                    .all(|f| f.forward.reads() && f.backward.reads());
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
                if full {
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
                        (None, item),
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
                        let item = Self::field_item(&v.payload, &f.name);
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
                            (None, item),
                        );
                    }
                }
            }
        }
    }

    /// Shared types that no old event version reaches: compared on their own.
    pub(super) fn unreached_shared_types(&mut self) {
        let reached = reached_types(self.old);
        for old_t in &self.old.shared_types {
            let published = self.published.types.contains(&old_t.name);
            let subject = Subject::SharedType(old_t.name.clone());
            let old_item = Some(Item::SharedType(old_t.name.clone()));
            match self.new.shared_type(&old_t.name) {
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
                        (old_item, None),
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
                        model: self.old,
                        strukt: old_t,
                        arg: None,
                    };
                    let new_at = At {
                        model: self.new,
                        strukt: new_t,
                        arg: None,
                    };
                    self.structs(&ctx, "", old_at, new_at);
                }
                Some(_) => {}
            }
        }
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
