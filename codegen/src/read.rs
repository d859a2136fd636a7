//! Node trees to the schema AST: every key checked, every mistake recorded, nothing resolved yet.
//!
//! This file is the reader and what every mapping of the format needs (checked keys, required keys,
//! descriptions, waivers); by file:
//!
//! - `keys`: the keys of every mapping of the format (from which its JSON Schemas are written too);
//! - `types`: `types.yaml`, resources and bases, fields and type expressions;
//! - `events`: events files, their entries, versions and deprecations;
//! - `rest`: `rest.yaml`, its authentication schemes and endpoints;
//! - `consumers`: `consumers/<name>.yaml`, the consuming teams' contracts.

use crate::ast::*;
use crate::diag::{Code, Diagnostic, Diagnostics};
use crate::evolution::Rule;
use crate::source::{SourceMap, Span};
use crate::yaml::{Node, NodeKind};

pub mod keys;

mod consumers;
mod events;
mod rest;
mod types;

/// Reads the node trees of schema files into the AST, one file at a time, recording every mistake.
pub struct SchemaReader<'a> {
    sources: &'a SourceMap,
    diags: &'a mut Diagnostics,
    /// Whether the files document what they define: the schema's do; the published baseline records
    /// wire shapes only, so nothing there needs a description (or a title).
    documented: bool,
}

/// A mapping whose keys were checked: scalars, no duplicates, only allowed ones.
struct Entries<'n> {
    span: Span,
    entries: Vec<(&'n str, &'n Node, &'n Node)>,
    /// Keys that are not keywords (already reported): a missing key may only be misspelt.
    unknown_keys: Vec<&'n str>,
}

impl<'n> Entries<'n> {
    /// An unknown key of this mapping is probably `key` misspelt (and already reported).
    fn misspelt(&self, key: &str) -> bool {
        crate::diag::closest(key, self.unknown_keys.iter().copied()).is_some()
    }

    fn get(&self, key: &str) -> Option<&'n Node> {
        self.entries
            .iter()
            .find(|(k, _, _)| *k == key)
            .map(|(_, _, v)| *v)
    }
}

impl<'a> SchemaReader<'a> {
    /// A reader of the schema's files, recording into `diags`.
    pub fn new(sources: &'a SourceMap, diags: &'a mut Diagnostics) -> Self {
        SchemaReader {
            sources,
            diags,
            documented: true,
        }
    }

    /// A reader of files in the schema format that hold wire shapes only (the published baseline): the
    /// same keys and checks, but no description, title or version is required.
    pub fn wire_shapes(sources: &'a SourceMap, diags: &'a mut Diagnostics) -> Self {
        SchemaReader {
            documented: false,
            ..SchemaReader::new(sources, diags)
        }
    }

    fn error(&mut self, d: Diagnostic) {
        self.diags.push(d);
    }

    /// A name, or a sequence of names.
    fn one_or_more_names(&mut self, node: &Node, what: &str) -> Vec<Located> {
        match &node.kind {
            NodeKind::Scalar(_) => self.located(node).into_iter().collect(),
            _ => self.name_list(node, what),
        }
    }

    /// `waivers:` of an item: a sequence of `{rule, path, reason}`.
    fn waivers(&mut self, map: &Entries<'_>) -> Vec<WaiverDef> {
        let Some(node) = map.get("waivers") else {
            return Vec::new();
        };
        let NodeKind::Seq(items) = &node.kind else {
            self.expected(
                node,
                "`waivers`",
                "a sequence of `{rule: …, path: …, reason: …}`",
            );
            return Vec::new();
        };
        let mut out = Vec::new();
        for item in items {
            let Some(w) = self.entries(item, "a waiver", Some(keys::WAIVER)) else {
                continue;
            };
            let rule = self
                .required(&w, "rule", "a waiver")
                .and_then(|n| self.located(n));
            let path = match w.get("path") {
                Some(n) => self.located(n),
                // The item itself (a removed version, say).
                None => Some(Located {
                    text: String::new(),
                    span: w.span,
                }),
            };
            let reason = self.required(&w, "reason", "a waiver").and_then(|n| {
                let text = self.located(n)?;
                if text.text.trim().is_empty() {
                    let d = Diagnostic::new(Code::InvalidValue, n.span, "a waiver needs a reason")
                        .label("empty")
                        .with_help(
                            "say why the break is intended: reviewers and the changelog read it",
                        );
                    self.error(d);
                    return None;
                }
                Some(text.text.trim().to_owned())
            });
            if let Some(rule) = &rule
                && Rule::from_id(&rule.text).is_none()
            {
                let d = Diagnostic::new(
                    Code::InvalidValue,
                    rule.span,
                    format!("unknown compatibility rule `{}`", rule.text),
                )
                .label("not a rule of `cargo xtask compat`")
                .suggest(&rule.text, Rule::ALL.iter().map(|r| r.id()));
                self.error(d);
                continue;
            }
            let consumers = match w.get("consumers") {
                Some(n) => self.name_list(n, "`consumers`"),
                None => Vec::new(),
            };
            if let (Some(rule), Some(path), Some(reason)) = (rule, path, reason) {
                out.push(WaiverDef {
                    rule,
                    path,
                    reason,
                    consumers,
                    span: item.span,
                });
            }
        }
        out
    }

    fn name_list(&mut self, node: &Node, what: &str) -> Vec<Located> {
        match &node.kind {
            NodeKind::Seq(items) => items.iter().filter_map(|n| self.located(n)).collect(),
            _ => {
                self.expected(node, what, "a sequence of names, such as `[UB]`");
                Vec::new()
            }
        }
    }

    fn boolean(&mut self, node: &Node) -> bool {
        match node.as_str() {
            Some("true") => true,
            Some("false") => false,
            _ => {
                self.expected(node, "this flag", "`true` or `false`");
                false
            }
        }
    }

    fn description(&mut self, map: &Entries<'_>, required: bool, what: &str) -> Option<String> {
        match map.get("description") {
            Some(n) => match n.as_str() {
                Some(s) if !s.trim().is_empty() => Some(s.trim().to_owned()),
                _ => {
                    self.expected(n, "`description`", "some text");
                    None
                }
            },
            None if required && self.documented && !map.misspelt("description") => {
                self.error(
                    Diagnostic::new(Code::MissingDescription, map.span, format!("{what} needs a description"))
                        .label("no `description` here")
                        .with_help("every item is documented: the text goes into rustdoc, OpenAPI and AsyncAPI"),
                );
                None
            }
            None => None,
        }
    }

    fn required<'n>(&mut self, map: &Entries<'n>, key: &str, what: &str) -> Option<&'n Node> {
        let found = map.get(key);
        if found.is_none() && !map.misspelt(key) {
            self.error(
                Diagnostic::new(Code::MissingKey, map.span, format!("{what} needs `{key}`"))
                    .label(format!("`{key}` is missing here")),
            );
        }
        found
    }

    /// The text of a file's documenting key (`title`, `description`): required where files are
    /// documented, empty where it is absent from a file of wire shapes.
    fn documentation(&mut self, map: &Entries<'_>, key: &str, what: &str) -> String {
        let text = if self.documented {
            self.required_text(map, key, what)
        } else {
            map.get(key).and_then(|n| self.located(n)).map(|l| l.text)
        };
        text.unwrap_or_default()
    }

    fn required_text(&mut self, map: &Entries<'_>, key: &str, what: &str) -> Option<String> {
        let node = self.required(map, key, what)?;
        self.located(node).map(|l| l.text)
    }

    fn located(&mut self, node: &Node) -> Option<Located> {
        match &node.kind {
            NodeKind::Scalar(s) => Some(Located {
                text: s.clone(),
                span: node.span,
            }),
            _ => {
                self.expected(node, "this value", "a name or text");
                None
            }
        }
    }

    fn expected(&mut self, node: &Node, what: &str, expected: &str) {
        self.error(
            Diagnostic::new(
                Code::InvalidValue,
                node.span,
                format!("{what} should be {expected}"),
            )
            .label(format!("found {}", node.kind_name())),
        );
    }

    /// Checks a mapping's keys. `allowed: None` accepts any key (names of fields, types, …).
    fn entries<'n>(
        &mut self,
        node: &'n Node,
        what: &str,
        allowed: Option<&[&str]>,
    ) -> Option<Entries<'n>> {
        let NodeKind::Map(pairs) = &node.kind else {
            let found = node.kind_name();
            let d = if matches!(node.kind, NodeKind::Null) {
                Diagnostic::new(Code::InvalidValue, node.span, format!("{what} is empty"))
                    .label("expected a mapping here")
            } else {
                Diagnostic::new(
                    Code::InvalidValue,
                    node.span,
                    format!("{what} should be a mapping"),
                )
                .label(format!("found {found}"))
            };
            self.error(d);
            return None;
        };
        let mut entries: Vec<(&'n str, &'n Node, &'n Node)> = Vec::with_capacity(pairs.len());
        let mut unknown_keys = Vec::new();
        for (key, value) in pairs {
            let Some(k) = key.as_str() else {
                self.error(
                    Diagnostic::new(Code::InvalidKey, key.span, "mapping keys are plain names")
                        .label(format!("found {}", key.kind_name())),
                );
                continue;
            };
            if let Some((_, first, _)) = entries.iter().find(|(seen, _, _)| *seen == k) {
                self.error(
                    Diagnostic::new(
                        Code::DuplicateKey,
                        key.span,
                        format!("duplicate key `{k}` in {what}"),
                    )
                    .label("defined again here")
                    .with_secondary(first.span, "first defined here"),
                );
                continue;
            }
            if let Some(allowed) = allowed
                && !allowed.contains(&k)
            {
                unknown_keys.push(k);
                let d = Diagnostic::new(
                    Code::UnknownKey,
                    key.span,
                    format!("unknown key `{k}` in {what}"),
                )
                .label("not a key of the schema format")
                .suggest(k, allowed.iter().copied());
                let d = if k.contains(char::is_whitespace) {
                    // `{description: a, b}` reads `b` as a second key.
                    d.with_help(
                        "inside `{…}` a comma starts a new key: quote text that holds a comma",
                    )
                } else if d.help.is_none() {
                    d.with_help(format!("expected one of: {}", allowed.join(", ")))
                } else {
                    d
                };
                self.error(d);
                continue;
            }
            entries.push((k, key, value));
        }
        let span = match pairs.first() {
            Some((k, _)) => k.span,
            None => node.span,
        };
        Some(Entries {
            span,
            entries,
            unknown_keys,
        })
    }

    /// The span of `part` inside a scalar node (quoted scalars start one byte later than their text).
    fn sub_span(&self, node: &Node, part: &str) -> Span {
        let written = self.sources.text(node.span);
        let fallback = Span {
            file: node.span.file,
            start: node.span.start,
            end: node.span.end,
        };
        let Some(at) = written.find(part) else {
            return fallback;
        };
        let start = node.span.start + crate::source::to_u32(at);
        Span {
            file: node.span.file,
            start,
            end: start + crate::source::to_u32(part.len()),
        }
    }
}

/// Whether `text` is a calendar date written `YYYY-MM-DD`.
pub(crate) fn is_date(text: &str) -> bool {
    let parts: Vec<&str> = text.split('-').collect();
    let [y, m, d] = parts.as_slice() else {
        return false;
    };
    if y.len() != 4 || m.len() != 2 || d.len() != 2 {
        return false;
    }
    let (Ok(y), Ok(m), Ok(d)) = (y.parse::<u32>(), m.parse::<u32>(), d.parse::<u32>()) else {
        return false;
    };
    let leap = y % 4 == 0 && (y % 100 != 0 || y % 400 == 0);
    let days = match m {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return false,
    };
    (1..=days).contains(&d)
}

#[cfg(test)]
mod tests {
    use super::is_date;

    #[test]
    fn dates_are_calendar_dates() {
        for good in ["2027-06-30", "2024-02-29", "2000-02-29", "1999-12-31"] {
            assert!(is_date(good), "{good}");
        }
        for bad in [
            "2027-6-30",
            "2023-02-29",
            "1900-02-29",
            "2027-13-01",
            "2027-04-31",
            "27-06-30",
            "2027/06/30",
            "",
        ] {
            assert!(!is_date(bad), "{bad}");
        }
    }
}
