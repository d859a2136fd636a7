//! `cargo xtask compat`: the schema checked against what is published, and publishing it.
//!
//! The schema folder is compared with the published baseline `schema/published.lock` (or with the schema
//! at a git revision, the baseline still saying what is published) by the rules of `evolution`; waivers of
//! the new side allow what they name; each finding is then located in the files of its side and
//! reported. Publishing records the schema as the new baseline and freezes golden payloads of the
//! versions it adds.
//!
//! - `side`: a side of the comparison (a model with the places of its items), and locating findings;
//! - `lock`: the published baseline, written in the schema format and read back by the schema's reader;
//! - `coverage`: which contracts read each version (`--consumers`);
//! - `contracts`: the consumer contracts' references, against both sides;
//! - `waivers`: the findings waivers allow, and waivers that allow nothing;
//! - `golden`: payloads frozen when a version is published;
//! - `wire`: the Avro types and Protobuf numbers of published fields, which no waiver moves;
//! - `report`: human, JSON and Markdown output.

mod contracts;
mod coverage;
mod golden;
mod lock;
mod report;
mod side;
mod waivers;
mod wire;

pub use coverage::{Coverage, VersionReaders, coverage};
pub use golden::{GOLDEN_DIR, golden_cases};
pub use lock::{LOCK_FILE, Published};
pub use report::{Format, Report};

use crate::Failure;
use crate::diag::{Diagnostic, Diagnostics};
use crate::evolution::{self, PublishedKeys, published_keys};
use crate::source::SourceMap;
use side::Side;
use std::collections::BTreeSet;
use std::path::Path;

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

/// Whom a breaking change is judged against.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Readers {
    /// Any possible reader: a break is an error whether or not a registered consumer reads it.
    Anyone,
    /// The registered consumers (`schema/consumers/`) only: a break no active contract reads passes as
    /// a note. For a producer whose set of contracts is complete (`--consumers-only`).
    Registered,
}

/// Compares the schema in `schema_dir` with a baseline, naming the consumer contracts each finding
/// breaks. `today` (`YYYY-MM-DD`) decides which sunsets have passed.
pub fn check(
    schema_dir: &Path,
    baseline: Baseline<'_>,
    today: &str,
    readers: Readers,
) -> Result<Report, Failure> {
    let mut sources = SourceMap::default();
    let mut new = Side::schema(schema_dir, &mut sources)?;
    let recorded_numbers = matches!(baseline, Baseline::Lock(_));
    let (old, published) = match baseline {
        Baseline::Lock(path) => {
            let old = lock::read(path, &mut sources)?;
            let published = published_keys(&old.model);
            (old, published)
        }
        Baseline::Revision { name, files, lock } => {
            let old = Side::revision(name, &files, &mut sources)?;
            let published = if lock.exists() {
                published_keys(&lock::read(lock, &mut SourceMap::default())?.model)
            } else {
                PublishedKeys::default()
            };
            (old, published)
        }
    };
    if recorded_numbers && !numbers_beside(schema_dir) {
        // A schema with no numbers of its own beside it (a copy, a checkout without the lock) is numbered
        // as it would be published: against the baseline's numbers. Only numbers written beside the
        // schema that differ from the baseline's are a renumbering.
        crate::numbers::assign(&mut new.model, &old.model.field_numbers);
    }
    let descriptions = old.has_docs && new.has_docs;
    let diagnostics = contracts::unresolved_on_both_sides(&old, &new);
    if !diagnostics.is_empty() {
        return Err(Failure::of_mistakes(sources, diagnostics));
    }
    let mut findings = evolution::compare(&old.model, &new.model, descriptions, &published, today);
    waivers::apply(&new, &mut findings);
    let avro = wire::avro_types(&findings);
    findings.extend(avro);
    if recorded_numbers {
        // Only a baseline records numbers: a revision's are its fields' order.
        findings.extend(wire::protobuf_numbers(&old.model, &new.model, &published));
    }
    evolution::apply_consumers(&new.model, &mut findings, readers == Readers::Registered);
    findings.sort_by(|a, b| (&a.subject, &a.path, a.rule).cmp(&(&b.subject, &b.path, b.rule)));
    let spans = side::locate(&old, &new, &sources, &mut findings);
    Ok(Report::new(findings, spans, sources, &new.model))
}

/// Whether the baseline beside the schema in `schema_dir` records Protobuf field numbers.
fn numbers_beside(schema_dir: &Path) -> bool {
    !crate::lock_file::field_numbers_beside(schema_dir).is_empty()
}

/// The ids of the versions the baseline at `lock` publishes (`agreement.updated.v2`).
pub fn published_versions(lock: &Path) -> Result<BTreeSet<String>, Failure> {
    let side = lock::read(lock, &mut SourceMap::default())?;
    Ok(published_keys(&side.model)
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
) -> Result<(Report, Published), Failure> {
    let report = if lock_path.exists() {
        check(
            schema_dir,
            Baseline::Lock(lock_path),
            today,
            Readers::Anyone,
        )?
    } else {
        let mut sources = SourceMap::default();
        let new = Side::schema(schema_dir, &mut sources)?;
        Report::new(Vec::new(), Vec::new(), sources, &new.model)
    };
    if report.errors() > 0 {
        return Ok((report, Published::default()));
    }
    let model = crate::build_model(schema_dir)?;
    let previous = if lock_path.exists() {
        Some(lock::read(lock_path, &mut SourceMap::default())?.model)
    } else {
        None
    };
    let published = lock::write(&model, previous.as_ref(), lock_path, golden_dir)
        .map_err(|e| io_failure(lock_path, &e))?;
    Ok((report, published))
}

/// A file of the publication that could not be written.
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
