//! The findings as people and tools read them: rustc-style text with both places, one JSON object per
//! finding, or a Markdown changelog grouped by catalogue section.

use crate::diag::visible_range;
use crate::evolution::{Bump, Finding, Place, Rule, Severity, Subject, Verdict};
use crate::model::Model;
use crate::source::{SourceMap, Span};
use annotate_snippets::{AnnotationKind, Group, Level, Renderer, Snippet};
use std::collections::BTreeMap;

/// How to print a report.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// rustc-style text, with a summary line.
    Human,
    /// One JSON object per finding per line.
    Json,
    /// A changelog grouped by catalogue section.
    Markdown,
}

/// The outcome of a comparison.
pub struct Report {
    /// Every finding, sorted by subject and path.
    pub findings: Vec<Finding>,
    /// Where each finding is on the old side and the new side, in `sources`.
    spans: Vec<(Option<Span>, Option<Span>)>,
    sources: SourceMap,
    /// Each event type's section title.
    sections: BTreeMap<String, String>,
    /// The owner of each active consumer contract, by its name.
    owners: BTreeMap<String, Option<String>>,
}

impl Report {
    /// A report of `findings`, at `spans` in `sources` (one pair per finding); `model` is the new side.
    pub(crate) fn new(
        findings: Vec<Finding>,
        spans: Vec<(Option<Span>, Option<Span>)>,
        sources: SourceMap,
        model: &Model,
    ) -> Report {
        let sections = model
            .events()
            .flat_map(|(s, e)| {
                std::iter::once(e.name.clone())
                    .chain(e.renamed_from.iter().cloned())
                    .map(move |name| (name, s.title.clone()))
            })
            .collect();
        let owners = model
            .consumers
            .iter()
            .filter(|c| c.active)
            .map(|c| (c.name.clone(), c.owner.clone()))
            .collect();
        Report {
            findings,
            spans,
            sources,
            sections,
            owners,
        }
    }

    /// Findings that fail the check.
    pub fn errors(&self) -> usize {
        self.count(Severity::Error)
    }

    fn count(&self, severity: Severity) -> usize {
        self.findings
            .iter()
            .filter(|f| f.severity == severity)
            .count()
    }

    /// The semver bump of `energy-api` the changes need.
    pub fn bump(&self) -> Bump {
        self.findings
            .iter()
            .map(Finding::bump)
            .max()
            .unwrap_or(Bump::None)
    }

    /// The report in `format`; `against` names the baseline; `color` styles human output.
    pub fn render(&self, format: Format, against: &str, color: bool) -> String {
        match format {
            Format::Human => self.human(against, color),
            Format::Json => self.json(),
            Format::Markdown => self.markdown(against),
        }
    }

    fn summary(&self, against: &str) -> String {
        let waived = self.findings.iter().filter(|f| f.waived.is_some()).count();
        let plural = |n: usize, word: &str| format!("{n} {word}{}", if n == 1 { "" } else { "s" });
        let mut text = format!(
            "{}, {}, {}",
            plural(self.errors(), "error"),
            plural(self.count(Severity::Warning), "warning"),
            plural(self.count(Severity::Info), "note")
        );
        if waived > 0 {
            text.push_str(&format!(" ({waived} waived)"));
        }
        format!(
            "{text} against {against}; energy-api needs {}",
            match self.bump() {
                Bump::None => "no new release".to_owned(),
                other => format!("a {} release", other.as_str()),
            }
        )
    }

    fn human(&self, against: &str, color: bool) -> String {
        let renderer = if color {
            Renderer::styled()
        } else {
            Renderer::plain()
        };
        let mut out = String::new();
        for (f, spans) in self.findings.iter().zip(&self.spans) {
            out.push_str(&renderer.render(&self.groups(f, *spans)));
            out.push_str("\n\n");
        }
        out.push_str(&format!("compat: {}\n", self.summary(against)));
        out
    }

    fn groups<'a>(
        &'a self,
        f: &'a Finding,
        (old, new): (Option<Span>, Option<Span>),
    ) -> Vec<Group<'a>> {
        let level = match f.severity {
            Severity::Error => Level::ERROR,
            Severity::Warning => Level::WARNING,
            Severity::Info => Level::INFO,
        };
        let mut group = Group::with_title(level.primary_title(&f.message).id(f.rule.id()));
        let mut spans = Vec::new();
        if let Some(s) = new {
            spans.push((s, true, new_label(f)));
        }
        if let Some(s) = old {
            spans.push((s, new.is_none(), old_label(f)));
        }
        for (span, primary, label) in spans {
            let file = self.sources.file(span.file);
            let kind = if primary {
                AnnotationKind::Primary
            } else {
                AnnotationKind::Context
            };
            group = group.element(
                Snippet::source(file.text.as_str())
                    .path(file.display_path.as_str())
                    .fold(true)
                    .annotation(kind.span(visible_range(file, span)).label(label)),
            );
        }
        let mut groups = vec![group];
        for note in notes(f).into_iter().chain(self.readers_note(f)) {
            groups.push(Group::with_title(Level::NOTE.secondary_title(note)));
        }
        if let Some(help) = help(f) {
            groups.push(Group::with_title(Level::HELP.secondary_title(help)));
        }
        groups
    }

    fn json(&self) -> String {
        let place = |p: &Option<Place>, value: &Option<String>| {
            serde_json::json!({
                "file": p.as_ref().map(|p| p.file.clone()),
                "line": p.as_ref().map(|p| p.line),
                "column": p.as_ref().map(|p| p.column),
                "value": value,
            })
        };
        let verdict = |v: &Verdict| match v {
            Verdict::Reads => serde_json::Value::Null,
            Verdict::Rejects(why) => serde_json::Value::String(why.clone()),
        };
        let mut out = String::new();
        for f in &self.findings {
            let (event, version) = match &f.subject {
                Subject::Event { event, version } => (Some(event.clone()), version.clone()),
                _ => (None, None),
            };
            let value = serde_json::json!({
                "rule": f.rule.id(),
                "severity": f.severity.as_str(),
                "direction": f.direction(),
                "compatibility": f.compatibility(),
                "event": event,
                "version": version,
                "subject": subject_text(&f.subject),
                "path": f.path,
                "message": f.message,
                "old": place(&f.old, &f.old_value),
                "new": place(&f.new, &f.new_value),
                "forward_rejects": verdict(&f.forward),
                "backward_rejects": verdict(&f.backward),
                "strict_forward_rejects": f.strict_forward.as_ref().map(verdict),
                "counterexample": f.counterexample.as_ref().map(|c| serde_json::json!({
                    "direction": c.direction, "payload": c.payload, "error": c.error,
                })),
                "waived": f.waived,
                "consumers": f.consumers,
                "published": f.published,
                "semver": f.bump().as_str(),
                "fingerprint": f.fingerprint(),
            });
            out.push_str(&value.to_string());
            out.push('\n');
        }
        out
    }

    fn markdown(&self, against: &str) -> String {
        let mut out = format!(
            "# Interface changes\n\nCompared with {against}: {}.\n",
            self.summary(against)
                .split(" against ")
                .next()
                .unwrap_or_default()
        );
        out.push_str(&format!(
            "`energy-api` needs a **{}** release.\n",
            self.bump().as_str()
        ));
        let mut by_section: BTreeMap<String, Vec<&Finding>> = BTreeMap::new();
        for f in &self.findings {
            let section = match &f.subject {
                Subject::Event { event, .. } => self
                    .sections
                    .get(event)
                    .cloned()
                    .unwrap_or_else(|| "Removed event types".to_owned()),
                Subject::SharedType(_) => "Shared payload types".to_owned(),
                _ => "REST API".to_owned(),
            };
            by_section.entry(section).or_default().push(f);
        }
        for (section, findings) in by_section {
            out.push_str(&format!("\n## {section}\n\n"));
            for f in findings {
                let mut line = format!(
                    "- **{}** `{}`: {}",
                    f.severity.as_str(),
                    f.rule.id(),
                    escape_markdown(&f.message)
                );
                line.push_str(&format!(" ({}", compatibility_words(f)));
                line.push_str(&format!("; semver {}", f.bump().as_str()));
                if let Some(reason) = &f.waived {
                    line.push_str(&format!("; waived: {}", escape_markdown(reason)));
                }
                if !f.consumers.is_empty() {
                    line.push_str(&format!("; read by {}", quoted(&f.consumers)));
                }
                line.push_str(").\n");
                out.push_str(&line);
            }
        }
        out
    }
}

impl Report {
    /// Which registered consumers read what `f` is about, with their owners to ask; or, where contracts
    /// exist and none reads a break, that it breaks no registered consumer.
    fn readers_note(&self, f: &Finding) -> Option<String> {
        if self.owners.is_empty() || !matches!(f.subject, Subject::Event { .. }) {
            return None;
        }
        if f.consumers.is_empty() {
            let breaks = !f.forward.reads() || !f.backward.reads();
            return breaks
                .then(|| "breaks no registered consumer (`schema/consumers/`)".to_owned());
        }
        let named: Vec<String> = f
            .consumers
            .iter()
            .map(|c| match self.owners.get(c).cloned().flatten() {
                Some(owner) => format!("`{c}` ({owner})"),
                None => format!("`{c}`"),
            })
            .collect();
        Some(format!("read by consumers: {}", named.join(", ")))
    }
}

/// Names as `` `a`, `b` ``.
fn quoted(names: &[String]) -> String {
    names
        .iter()
        .map(|n| format!("`{n}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// `|` and line breaks would break a changelog's lists and tables.
fn escape_markdown(text: &str) -> String {
    text.replace('|', "\\|").replace('\n', " ")
}

fn subject_text(subject: &Subject) -> String {
    match subject {
        Subject::Event {
            event,
            version: Some(v),
        } => format!("{event} {v}"),
        Subject::Event { event, .. } => event.clone(),
        Subject::SharedType(t) => format!("type {t}"),
        Subject::Resource(r) => format!("resource {r}"),
        Subject::Endpoint(e) => format!("endpoint {e}"),
        Subject::ErrorResponse => "error response".to_owned(),
    }
}

fn new_label(f: &Finding) -> String {
    match f.new_value.as_ref() {
        Some(v) => format!("now: {v}"),
        None if f.rule == Rule::WaiverUnused => "this waiver".to_owned(),
        None => "here".to_owned(),
    }
}

fn old_label(f: &Finding) -> String {
    match f.old_value.as_ref() {
        Some(v) => format!("was: {v}"),
        None => "was here".to_owned(),
    }
}

fn compatibility_words(f: &Finding) -> String {
    match f.compatibility() {
        "full" => "full-compatible".to_owned(),
        "backward" => "breaks forward compatibility".to_owned(),
        "forward" => "breaks backward compatibility".to_owned(),
        _ => "breaks both directions".to_owned(),
    }
}

fn notes(f: &Finding) -> Vec<String> {
    let mut notes = Vec::new();
    if f.rule == Rule::WaiverUnused {
        return notes;
    }
    if f.rule == Rule::ConsumerReadsDeprecated {
        notes.push(
            "ask its owner to move to a later version before the sunset, or keep the version"
                .to_owned(),
        );
        return notes;
    }
    let (forward, backward) = if f.request {
        (
            "servers built on the new schema {} requests of clients built on the old schema",
            "servers built on the old schema {} requests of clients built on the new schema",
        )
    } else if matches!(
        f.subject,
        Subject::Endpoint(_) | Subject::Resource(_) | Subject::ErrorResponse
    ) {
        (
            "clients built on the old schema {} what servers built on the new schema send",
            "clients built on the new schema {} what servers built on the old schema send",
        )
    } else {
        (
            "consumers built on the old schema {} what the new schema writes",
            "consumers built on the new schema {} what the old schema wrote (replays, retained events)",
        )
    };
    for (direction, words, verdict) in [
        ("forward", forward, &f.forward),
        ("backward", backward, &f.backward),
    ] {
        notes.push(match verdict {
            Verdict::Reads => format!("{direction}: {}", words.replace("{}", "accept")),
            Verdict::Rejects(why) => format!(
                "{direction}: breaks: {} ({why})",
                words.replace("{}", "reject")
            ),
        });
    }
    if let Some(Verdict::Rejects(why)) = &f.strict_forward {
        notes.push(format!(
            "strict readers (`--strict`) built on the old schema reject it: {why}"
        ));
    }
    if let Some(c) = &f.counterexample {
        notes.push(format!(
            "counterexample ({}): {} is rejected: {}",
            c.direction, c.payload, c.error
        ));
    }
    if let Some(reason) = &f.waived {
        notes.push(format!("waived: {reason}"));
    }
    if !f.published && f.rule != Rule::WaiverUnused {
        notes.push("not yet published: it may still change freely".to_owned());
    }
    notes.push(match f.bump() {
        Bump::None => "energy-api: no new release needed for this".to_owned(),
        bump => format!("energy-api: a {} change", bump.as_str()),
    });
    notes
}

fn help(f: &Finding) -> Option<String> {
    if f.severity != Severity::Error {
        return None;
    }
    let unagreed: Vec<String> = f
        .consumers
        .iter()
        .filter(|c| !f.waived_for.contains(c))
        .cloned()
        .collect();
    if !unagreed.is_empty() && f.waived.is_some() {
        return Some(format!(
            "agree the change with them and name them in the waiver: `consumers: [{}]`",
            unagreed.join(", ")
        ));
    }
    Some(match f.rule {
        Rule::WaiverUnused => "remove the waiver: what it allowed is published, or it names no change".to_owned(),
        Rule::AvroFieldTypeChanged => {
            "no waiver allows it (Avro readers of the old schema cannot read the new type): make the change in a new version".to_owned()
        }
        Rule::ProtobufFieldRenumbered => {
            "no waiver allows it: restore `protobuf-field-numbers` in the baseline beside the schema from git (`git checkout schema/published.lock`)".to_owned()
        }
        Rule::VersionRemoved | Rule::EventTypeRemoved => {
            "deprecate the version first (`deprecated: {sunset: YYYY-MM-DD}`), publish, and remove it after the sunset".to_owned()
        }
        _ => {
            if let Subject::Event { version: None, .. } = &f.subject {
                return Some(format!(
                    "an event type's name is part of every payload's identity on the bus: waive the change on one of its versions: `waivers: [{{rule: {}, reason: …}}]`",
                    f.rule.id()
                ));
            }
            let item = match &f.subject {
                Subject::Event { .. } => "the version",
                Subject::SharedType(_) => "the shared type",
                Subject::Resource(_) => "the resource",
                Subject::Endpoint(_) | Subject::ErrorResponse => "the endpoint",
            };
            let agreed = if unagreed.is_empty() {
                String::new()
            } else {
                format!(", consumers: [{}]", unagreed.join(", "))
            };
            format!(
                "published shapes are frozen: make the change in a new version, or waive it next to {item}: `waivers: [{{rule: {}, path: \"{}\", reason: …{agreed}}}]`",
                f.rule.id(),
                f.path
            )
        }
    })
}
