//! Schema evolution: what a change to the interface does to the people reading it.
//!
//! Two versions of the interface (the published baseline `schema/published.lock`, or the schema at a git
//! revision, against the working tree) are compared over the model, not over the emitted documents: by
//! wire shape, so that refactors that change nothing on the wire (`extends` instead of written-out
//! fields, fields moved into a shared type, a type renamed) report nothing. Every change is judged in two
//! directions, as schema registries name them:
//!
//! - **forward**: a consumer built on the old schema reads payloads written under the new one;
//! - **backward**: a consumer built on the new schema reads payloads written under the old one (replays,
//!   retained and retried events);
//! - **full**: both.
//!
//! Judged under the generated decoder's default, which ignores members it does not list; a strict reader
//! (`energy events validate --strict`) also rejects members it does not know, which each finding notes.
//! REST responses are read by clients like events; request parameters are written by clients, the
//! opposite direction.
//!
//! - `rules`: the rules, their ids and semver bumps;
//! - `diff`: the comparison of two models;
//! - `lock`: the published baseline, read and written;
//! - `counterexample`: a payload that proves a break, checked by the decoder's own shape checker;
//! - `classify`: every version of an event type against every earlier one (for the documents);
//! - `golden`: payloads frozen when a version is published;
//! - `report`: human, JSON and Markdown output.

mod classify;
mod counterexample;
mod diff;
mod golden;
mod lock;
mod report;
mod rules;

pub use classify::{Compatibility, VersionPair, classify};
pub use golden::{GOLDEN_DIR, golden_cases};
pub use lock::LOCK_FILE;
pub use report::{Format, Report};
pub use rules::{Bump, Rule};

use crate::diag::{Diagnostic, Diagnostics};
use crate::model::Model;
use crate::naming::Places;
use crate::source::{SourceMap, Span};
use crate::{Failure, SourceFile};
use std::collections::BTreeMap;
use std::path::Path;

/// A model with the places its items are written: the schema (or the baseline) being compared.
pub(crate) struct Side {
    pub(crate) model: Model,
    pub(crate) places: Places,
    /// Whether descriptions are known (the baseline records wire shapes only).
    pub(crate) has_docs: bool,
}

/// What a reader does with what a writer sends, in one direction.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// The reader accepts it.
    Reads,
    /// The reader rejects some payloads, for this reason (in the decoder's words, where it has them).
    Rejects(String),
}

impl Verdict {
    /// Whether the reader accepts everything.
    pub fn reads(&self) -> bool {
        matches!(self, Verdict::Reads)
    }
}

/// How serious a finding is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    /// Nothing breaks.
    Info,
    /// Nothing breaks, but a reader may lose or misread data.
    Warning,
    /// A reader rejects payloads (or a consumer's code stops compiling) and nothing allows it.
    Error,
}

impl Severity {
    /// `info`, `warning`, `error`.
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Info => "info",
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }
}

/// What a finding is about.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Subject {
    /// An event type, or one of its versions.
    Event {
        /// The event type (its new name, when renamed).
        event: String,
        /// The payload version, when the finding is about one.
        version: Option<String>,
    },
    /// A shared payload type no event version reaches (those reached are reported per version).
    SharedType(String),
    /// A REST resource no endpoint reaches (those reached are reported per endpoint).
    Resource(String),
    /// A REST endpoint.
    Endpoint(String),
    /// The body of REST error responses.
    ErrorResponse,
}

impl Subject {
    /// The waivers of the subject live on the item named so (`version <type> <label>`, …).
    fn owner(&self) -> Option<String> {
        match self {
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
}

/// A place on one of the two sides: file, line and column.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Place {
    /// The file as shown (`schema/events/billing.yaml`, `schema/published.lock`, `HEAD~3:schema/rest.yaml`).
    pub file: String,
    /// 1-based line.
    pub line: usize,
    /// 1-based column.
    pub column: usize,
}

/// A payload that proves a break: written under one side, rejected by the other side's reader.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Counterexample {
    /// `forward` (the old reader rejects a new payload) or `backward`.
    pub direction: &'static str,
    /// The payload, compact JSON.
    pub payload: String,
    /// The reader's error, from running the decoder's shape checker.
    pub error: String,
}

/// One change between the two sides.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// The rule.
    pub rule: Rule,
    /// How serious it is, after waivers.
    pub severity: Severity,
    /// Whether the old side's consumers read the new side's payloads.
    pub forward: Verdict,
    /// Whether the new side's consumers read the old side's payloads.
    pub backward: Verdict,
    /// What a strict old reader (rejecting unknown members) does, where it differs from `forward`.
    pub strict_forward: Option<Verdict>,
    /// What it is about.
    pub subject: Subject,
    /// The JSON path of the field, relative to the subject (`ledger.account.number`,
    /// `supply_points[].market_name`, `response.results[].valid_to`; `.*` for any value of a map:
    /// `tariffs.*.code`); empty for the subject itself.
    pub path: String,
    /// One line.
    pub message: String,
    /// Where it is on the old side.
    pub old: Option<Place>,
    /// Where it is on the new side.
    pub new: Option<Place>,
    /// The old value (`required int`), when there is one.
    pub old_value: Option<String>,
    /// The new value.
    pub new_value: Option<String>,
    /// A payload that proves the break, when one was found.
    pub counterexample: Option<Counterexample>,
    /// The reason of the waiver that allows it, when one does.
    pub waived: Option<String>,
    /// Whether it changes something already published (else the item may still change freely).
    pub published: bool,
    /// The shared type or resource holding the changed field, and the path in it, when the change is
    /// inside one (a waiver on that type matches it).
    pub(crate) via: Option<(String, String)>,
    /// Where it is on each side, before `locate` turns spans into places.
    pub(crate) spans: (Option<Span>, Option<Span>),
    /// About a request parameter, which clients write and servers read (the other way round).
    pub(crate) request: bool,
}

impl Finding {
    /// `forward`, `backward`, `both` or `none`: which directions break under the default decoder.
    pub fn direction(&self) -> &'static str {
        match (self.forward.reads(), self.backward.reads()) {
            (true, true) => "none",
            (false, true) => "forward",
            (true, false) => "backward",
            (false, false) => "both",
        }
    }

    /// `full`, `backward`, `forward` or `none`: which compatibility the change keeps.
    pub fn compatibility(&self) -> &'static str {
        match (self.forward.reads(), self.backward.reads()) {
            (true, true) => "full",
            (false, true) => "backward",
            (true, false) => "forward",
            (false, false) => "none",
        }
    }

    /// A stable identifier of the finding (its rule, subject and path; not its message), for tools that
    /// track findings across runs.
    pub fn fingerprint(&self) -> String {
        let subject = match &self.subject {
            Subject::Event { event, version } => {
                format!("event:{event}:{}", version.as_deref().unwrap_or(""))
            }
            Subject::SharedType(t) => format!("type:{t}"),
            Subject::Resource(r) => format!("resource:{r}"),
            Subject::Endpoint(e) => format!("endpoint:{e}"),
            Subject::ErrorResponse => "error-response".to_owned(),
        };
        let key = format!("{}|{subject}|{}", self.rule.id(), self.path);
        // FNV-1a, 64 bits: the same on every platform and run.
        let hash = key.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
            (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
        });
        format!("{hash:016x}")
    }

    /// The semver bump of `energy-api` the change needs: none for what is not yet published.
    pub fn bump(&self) -> Bump {
        if !self.published
            && !matches!(
                self.rule,
                Rule::VersionAdded | Rule::EventTypeAdded | Rule::EndpointAdded
            )
        {
            return Bump::None;
        }
        self.rule.bump()
    }
}

/// Where the baseline comes from.
pub enum Baseline<'a> {
    /// The published baseline file.
    Lock(&'a Path),
    /// The schema files at a git revision, as (path relative to the schema folder, contents), with the
    /// revision's name for messages; the published baseline still says what is published.
    Revision {
        /// The revision as given (`HEAD~3`, `v1.4.0`).
        name: &'a str,
        /// The files.
        files: Vec<(String, Vec<u8>)>,
        /// The published baseline of the working tree.
        lock: &'a Path,
    },
}

/// Compares the schema in `schema_dir` with a baseline. `today` (`YYYY-MM-DD`) decides which sunsets
/// have passed.
pub fn check(schema_dir: &Path, baseline: Baseline<'_>, today: &str) -> Result<Report, Failure> {
    let mut sources = SourceMap::default();
    let new = load_side(schema_dir, &mut sources)?;
    let (old, published) = match baseline {
        Baseline::Lock(path) => {
            let old = lock::read(path, &mut sources)?;
            let published = lock::published_keys(&old.model);
            (old, published)
        }
        Baseline::Revision { name, files, lock } => {
            let old = load_revision(name, &files, &mut sources)?;
            let published = if lock.exists() {
                let mut lock_sources = SourceMap::default();
                lock::published_keys(&lock::read(lock, &mut lock_sources)?.model)
            } else {
                Default::default()
            };
            (old, published)
        }
    };
    let mut findings = diff::compare(&old, &new, &published, today);
    counterexample::attach(&old.model, &new.model, &mut findings);
    apply_waivers(&new, &mut findings);
    locate(&sources, &mut findings);
    findings.sort_by(|a, b| (&a.subject, &a.path, a.rule).cmp(&(&b.subject, &b.path, b.rule)));
    Ok(Report::new(findings, sources, &new.model))
}

/// The ids of the versions the baseline at `lock` publishes (`agreement.updated.v2`).
pub fn published_versions(lock: &Path) -> Result<std::collections::BTreeSet<String>, Failure> {
    let side = lock::read(lock, &mut SourceMap::default())?;
    Ok(lock::published_keys(&side.model)
        .versions
        .into_iter()
        .map(|(event, label)| format!("{event}.{label}"))
        .collect())
}

/// Records the schema in `schema_dir` as published: writes the baseline and the golden payloads of the
/// versions it adds. Refuses while a change to a published item is an error.
pub fn publish(
    schema_dir: &Path,
    lock_path: &Path,
    golden_dir: &Path,
    today: &str,
) -> Result<(Report, lock::Published), Failure> {
    let report = if lock_path.exists() {
        check(schema_dir, Baseline::Lock(lock_path), today)?
    } else {
        let mut sources = SourceMap::default();
        let new = load_side(schema_dir, &mut sources)?;
        Report::new(Vec::new(), sources, &new.model)
    };
    if report.errors() > 0 {
        return Ok((report, lock::Published::default()));
    }
    let mut sources = SourceMap::default();
    let new = load_side(schema_dir, &mut sources)?;
    let previous = if lock_path.exists() {
        let mut lock_sources = SourceMap::default();
        Some(lock::read(lock_path, &mut lock_sources)?.model)
    } else {
        None
    };
    let published = lock::write(&new.model, previous.as_ref(), lock_path, golden_dir, today)
        .map_err(|e| io_failure(lock_path, &e))?;
    Ok((report, published))
}

fn io_failure(path: &Path, error: &std::io::Error) -> Failure {
    let mut diagnostics = Diagnostics::default();
    diagnostics.push(Diagnostic::about_path(
        crate::Code::Io,
        path.display().to_string(),
        format!("cannot write: {error}"),
    ));
    Failure {
        sources: SourceMap::default(),
        diagnostics,
        bug: None,
    }
}

/// The schema folder as a side; its files are added to `sources`.
fn load_side(dir: &Path, sources: &mut SourceMap) -> Result<Side, Failure> {
    let (model, places, own) = crate::build_located(dir)?;
    let offset = sources.append(own);
    Ok(Side {
        model,
        places: places.shifted(offset),
        has_docs: true,
    })
}

/// The schema files of a git revision as a side, shown as `<rev>:schema/<path>`.
fn load_revision(
    name: &str,
    files: &[(String, Vec<u8>)],
    sources: &mut SourceMap,
) -> Result<Side, Failure> {
    let borrowed: Vec<(&str, &[u8])> = files
        .iter()
        .map(|(p, b)| (p.as_str(), b.as_slice()))
        .collect();
    let (model, places, mut own) = crate::build_located_in_memory(&borrowed)?;
    own.rename(|shown| format!("{name}:schema/{shown}"));
    let offset = sources.append(own);
    Ok(Side {
        model,
        places: places.shifted(offset),
        has_docs: true,
    })
}

/// Finds with waivers of the new side: an error finding a waiver names (by rule and path, on the item
/// that changed, or on the shared type or resource holding the field) is waived; a waiver that names
/// nothing is itself an error.
fn apply_waivers(new: &Side, findings: &mut Vec<Finding>) {
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
            .map(|w| (owner.to_owned(), w.reason.clone()))
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
            subject => subject
                .owner()
                .and_then(|owner| waiver_of(&owner, f.rule, &f.path)),
        };
        let through = f.via.as_ref().and_then(|(ty, path)| {
            waiver_of(&format!("type {ty}"), f.rule, path)
                .or_else(|| waiver_of(&format!("resource {ty}"), f.rule, path))
        });
        if let Some((owner, reason)) = direct.or(through) {
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
            f.waived = Some(reason);
        }
    }
    for ((owner, rule, path), was_used) in used {
        if was_used {
            continue;
        }
        let span = new
            .places
            .waivers
            .get(&(owner.clone(), rule.clone(), path.clone()))
            .copied();
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
            spans: (None, span),
            request: false,
        });
    }
}

fn waivers_of<'m>(model: &'m Model, owner: &str) -> &'m [crate::model::Waiver] {
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

/// Gives each finding its places on both sides, from the spans `diff` recorded.
fn locate(sources: &SourceMap, findings: &mut [Finding]) {
    for f in findings {
        f.old = f.spans.0.map(|s| place(sources, s));
        f.new = f.spans.1.map(|s| place(sources, s));
    }
}

/// The place of `span`.
fn place(sources: &SourceMap, span: Span) -> Place {
    let file: &SourceFile = sources.file(span.file);
    let (line, column) = file.line_col(span.start);
    Place {
        file: file.display_path.clone(),
        line,
        column,
    }
}
