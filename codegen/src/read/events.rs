//! Events files: their event entries, versions, `extends` and deprecations.

use super::{SchemaReader, is_date, keys};
use crate::ast::*;
use crate::diag::{Code, Diagnostic};
use crate::source::FileId;
use crate::yaml::{Node, NodeKind};

impl SchemaReader<'_> {
    /// Reads one events file.
    pub fn section_file(
        &mut self,
        file: FileId,
        stem: Located,
        root: &Node,
    ) -> Option<SectionFile> {
        let top = self.entries(root, "an events file", Some(keys::SECTION_FILE))?;
        let title = self.documentation(&top, "section", "an events file");
        let description = self.documentation(&top, "description", "an events file");
        let reserved = top
            .get("reserved")
            .map(|n| self.name_list(n, "`reserved`"))
            .unwrap_or_default();
        let bases = top
            .get("bases")
            .map(|n| self.bases(n, false))
            .unwrap_or_default();
        let mut events = Vec::new();
        if let Some(list) = self.required(&top, "events", "an events file") {
            match &list.kind {
                NodeKind::Seq(items) => {
                    for item in items {
                        if let Some(e) = self.event_def(item) {
                            events.push(e);
                        }
                    }
                }
                _ => self.expected(
                    list,
                    "`events`",
                    "a sequence of event entries (`- name: …`)",
                ),
            }
        }
        Some(SectionFile {
            file,
            stem,
            title,
            description,
            reserved,
            bases,
            events,
        })
    }

    fn event_def(&mut self, node: &Node) -> Option<EventDef> {
        let map = self.entries(node, "an event entry", Some(keys::EVENT))?;
        let names = match (map.get("name"), map.get("names")) {
            (Some(n), None) => self.located(n).into_iter().collect(),
            (None, Some(list)) => {
                let names = self.name_list(list, "`names`");
                if names.len() < 2 {
                    self.error(
                        Diagnostic::new(
                            Code::InvalidValue,
                            list.span,
                            "`names` lists the event types sharing these versions",
                        )
                        .label("fewer than two names")
                        .with_help("write `name: <event type>` for a single event type"),
                    );
                }
                names
            }
            (Some(_), Some(list)) => {
                self.error(
                    Diagnostic::new(
                        Code::ConflictingKeys,
                        list.span,
                        "an event entry has `name` or `names`, not both",
                    )
                    .label("second way to name the entry"),
                );
                return None;
            }
            (None, None) => {
                self.error(
                    Diagnostic::new(
                        Code::MissingKey,
                        map.span,
                        "an event entry needs `name` (or `names`)",
                    )
                    .label("this entry has no name"),
                );
                return None;
            }
        };
        let description = self.description(&map, false, "an event entry");
        let rust_name = map.get("rust_name").and_then(|n| self.located(n));
        if let (Some(r), true) = (&rust_name, names.len() > 1) {
            self.error(
                Diagnostic::new(
                    Code::ConflictingKeys,
                    r.span,
                    "`rust_name` names one event type; this entry has several",
                )
                .label("ambiguous")
                .with_help("give the event that needs a Rust name its own entry"),
            );
        }
        let mut versions = Vec::new();
        if let Some(vnode) = self.required(&map, "versions", "an event entry")
            && let Some(vmap) = self.entries(vnode, "`versions`", None)
        {
            if vmap.entries.is_empty() {
                self.error(Diagnostic::new(
                    Code::MissingKey,
                    vnode.span,
                    "an event needs at least one version",
                ));
            }
            for (_, key, value) in &vmap.entries {
                if let Some(v) = self.version_def(key, value) {
                    versions.push(v);
                }
            }
        }
        let renamed_from = map
            .get("renamed_from")
            .map(|n| self.one_or_more_names(n, "`renamed_from`"))
            .unwrap_or_default();
        if let (Some(first), true) = (renamed_from.first(), names.len() > 1) {
            self.error(
                Diagnostic::new(
                    Code::ConflictingKeys,
                    first.span,
                    "`renamed_from` names the former name of one event type; this entry has several",
                )
                .label("ambiguous")
                .with_help("give the renamed event type its own entry"),
            );
        }
        let reserved = map
            .get("reserved")
            .map(|n| self.name_list(n, "`reserved`"))
            .unwrap_or_default();
        Some(EventDef {
            names,
            description,
            rust_name,
            renamed_from,
            reserved,
            versions,
            span: map.span,
        })
    }

    fn version_def(&mut self, key: &Node, value: &Node) -> Option<VersionDef> {
        let label = self.located(key)?;
        let map = self.entries(value, "a version", Some(keys::VERSION))?;
        let payload = map.get("payload").and_then(|n| self.located(n));
        let description = self.description(&map, false, "a version");
        let extends = map.get("extends").and_then(|n| self.extends_ref(n));
        let bases = map
            .get("bases")
            .map(|n| self.name_list(n, "`bases`"))
            .unwrap_or_default();
        let fields = map
            .get("fields")
            .map(|n| self.fields(n, false, false))
            .unwrap_or_default();
        let incomplete = map.get("incomplete").is_some_and(|n| self.boolean(n));
        let composed =
            map.get("extends").is_some() || !bases.is_empty() || map.get("fields").is_some();
        match (&payload, composed) {
            // A misspelt `fields` is reported as an unknown key; "no fields" would only repeat it.
            (None, false) if map.unknown_keys.is_empty() => self.error(
                Diagnostic::new(
                    Code::MissingKey,
                    key.span,
                    format!("version `{}` has no fields", label.text),
                )
                .label("needs `fields`, `bases`, `extends` or `payload`"),
            ),
            (Some(p), true) => self.error(
                Diagnostic::new(
                    Code::ConflictingKeys,
                    p.span,
                    "`payload` names the whole payload type",
                )
                .label("cannot be combined with `fields`, `bases` or `extends`"),
            ),
            _ => {}
        }
        let deprecated = map.get("deprecated").and_then(|n| self.deprecation(n));
        let waivers = self.waivers(&map);
        Some(VersionDef {
            label,
            description,
            extends,
            bases,
            fields,
            incomplete,
            payload,
            deprecated,
            waivers,
        })
    }

    fn extends_ref(&mut self, node: &Node) -> Option<ExtendsRef> {
        let text = self.located(node)?;
        let words: Vec<&str> = text.text.split_whitespace().collect();
        let inner = |word: &str| self.sub_span(node, word);
        match words.as_slice() {
            [version] => Some(ExtendsRef {
                event: None,
                version: Located {
                    text: (*version).to_owned(),
                    span: inner(version),
                },
                span: node.span,
            }),
            [event, version] => Some(ExtendsRef {
                event: Some(Located {
                    text: (*event).to_owned(),
                    span: inner(event),
                }),
                version: Located {
                    text: (*version).to_owned(),
                    span: inner(version),
                },
                span: node.span,
            }),
            _ => {
                self.error(
                    Diagnostic::new(
                        Code::InvalidValue,
                        node.span,
                        "`extends` names a version: `v1`, or `<event type> v1`",
                    )
                    .label("not a version reference"),
                );
                None
            }
        }
    }

    /// `deprecated: {sunset: YYYY-MM-DD, note: …}`.
    fn deprecation(&mut self, node: &Node) -> Option<DeprecationDef> {
        let map = self.entries(node, "`deprecated`", Some(&["sunset", "note"]))?;
        let sunset = self
            .required(&map, "sunset", "`deprecated`")
            .and_then(|n| self.located(n))?;
        if !is_date(&sunset.text) {
            let d = Diagnostic::new(
                Code::InvalidValue,
                sunset.span,
                format!("`{}` is not a date", sunset.text),
            )
            .label("expected `YYYY-MM-DD`, such as `2027-06-30`");
            self.error(d);
            return None;
        }
        let note = map
            .get("note")
            .and_then(|n| self.located(n))
            .map(|l| l.text);
        Some(DeprecationDef { sunset, note })
    }
}
