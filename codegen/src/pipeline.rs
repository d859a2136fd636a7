//! The pipeline: a schema folder (or files in memory, or the published baseline) loaded, read and
//! checked into the [`Model`], and every output emitted from it. `lib.rs` re-exports what other crates
//! call; the stages themselves are the modules it names.

use crate::diag::Diagnostics;
use crate::emit::rust::FormatCache;
use crate::model::Model;
use crate::source::SourceMap;
use crate::{ast, check, emit, evolution, load, lock_file, naming, numbers, profile};
use std::collections::BTreeMap;
use std::path::Path;

/// Why a run produced nothing: the schema mistakes found, with the files they are in; or a bug of the
/// generator itself.
#[derive(Debug)]
pub struct Failure {
    /// The files read.
    pub sources: SourceMap,
    /// Every mistake, sorted by place.
    pub diagnostics: Diagnostics,
    /// An output could not be made from a valid model: a bug of the generator, not of the schema.
    pub bug: Option<String>,
}

impl Failure {
    /// The schema mistakes `diagnostics` found in `sources`, sorted by place.
    pub(crate) fn of_mistakes(sources: SourceMap, mut diagnostics: Diagnostics) -> Failure {
        diagnostics.sort(&sources);
        Failure {
            sources,
            diagnostics,
            bug: None,
        }
    }

    /// rustc-style text of every mistake and a summary line.
    pub fn render(&self, color: bool) -> String {
        match &self.bug {
            Some(bug) => format!(
                "error: internal error of the generator (please report it; the schema is not at fault): {bug}\n"
            ),
            None => self.diagnostics.render(&self.sources, color),
        }
    }

    /// One JSON object per mistake per line.
    pub fn to_json_lines(&self) -> String {
        match &self.bug {
            Some(bug) => format!(
                "{}\n",
                serde_json::json!({"severity": "error", "code": "internal", "message": bug})
            ),
            None => self.diagnostics.to_json_lines(&self.sources),
        }
    }
}

/// Loads and checks the schema folder into the model.
pub fn build_model(schema_dir: &Path) -> Result<Model, Failure> {
    build_located(schema_dir).map(|(model, _, _)| model)
}

/// Loads and checks schema files given in memory, as (path relative to the schema folder, contents)
/// pairs: the path says what the file is (`types.yaml`, `rest.yaml`, `events/<section>.yaml`). For
/// fuzzing and property tests, which have no folder.
pub fn build_model_in_memory(files: &[(&str, &[u8])]) -> Result<Model, Failure> {
    build_located_in_memory(files)
        .and_then(check_contracts)
        .map(|(model, _, _)| model)
}

/// The model of a schema folder, with where each item is written and the files read. Every reference
/// of an active consumer contract must be in the schema beside it.
pub(crate) fn build_located(
    schema_dir: &Path,
) -> Result<(Model, naming::Places, SourceMap), Failure> {
    check_contracts(build_located_for_comparison(schema_dir)?)
}

/// [`build_located`] without checking the contracts' references: `cargo xtask compat` checks them
/// against both sides, since what a change removes from under a contract is a finding, not a mistake.
pub(crate) fn build_located_for_comparison(
    schema_dir: &Path,
) -> Result<(Model, naming::Places, SourceMap), Failure> {
    let mut sources = SourceMap::default();
    let mut diagnostics = Diagnostics::default();
    let schema = load::load(schema_dir, &mut sources, &mut diagnostics);
    let (mut model, places, mut sources) = resolve(schema, sources, diagnostics)?;
    numbers::assign(&mut model, &lock_file::field_numbers_beside(schema_dir));
    let mut diagnostics = Diagnostics::default();
    profile::apply(&mut model, schema_dir, &mut sources, &mut diagnostics);
    if !diagnostics.is_empty() {
        return Err(Failure::of_mistakes(sources, diagnostics));
    }
    Ok((model, places, sources))
}

/// [`build_located_for_comparison`] of files given in memory (see [`build_model_in_memory`]).
pub(crate) fn build_located_in_memory(
    files: &[(&str, &[u8])],
) -> Result<(Model, naming::Places, SourceMap), Failure> {
    let mut sources = SourceMap::default();
    let mut diagnostics = Diagnostics::default();
    let schema = load::load_in_memory(files, &mut sources, &mut diagnostics);
    let (mut model, places, sources) = resolve(schema, sources, diagnostics)?;
    numbers::assign(&mut model, &numbers::FieldNumbers::new());
    Ok((model, places, sources))
}

/// A located error for each reference of an active contract that the model does not have.
fn check_contracts(
    (model, places, sources): (Model, naming::Places, SourceMap),
) -> Result<(Model, naming::Places, SourceMap), Failure> {
    let mut diagnostics = Diagnostics::default();
    for consumer in model.consumers.iter().filter(|c| c.active) {
        for unresolved in evolution::references(&model, consumer) {
            if let Some(d) = check::contract_diagnostic(&unresolved, &places) {
                diagnostics.push(d);
            }
        }
    }
    if diagnostics.is_empty() {
        return Ok((model, places, sources));
    }
    Err(Failure::of_mistakes(sources, diagnostics))
}

/// The model of the published baseline at `path` (its `bytes`, shown as `shown`), with where each item
/// is written in it: read and checked as the schema's files are (see `load::load_baseline`).
pub(crate) fn build_located_baseline(
    path: &Path,
    shown: String,
    bytes: Vec<u8>,
) -> Result<(Model, naming::Places, SourceMap), Failure> {
    let mut sources = SourceMap::default();
    let mut diagnostics = Diagnostics::default();
    let locked = numbers::from_lock(&bytes);
    let schema = load::load_baseline(
        path.to_path_buf(),
        shown,
        bytes,
        &mut sources,
        &mut diagnostics,
    );
    let (mut model, places, sources) = resolve(schema, sources, diagnostics)?;
    numbers::assign(&mut model, &locked);
    Ok((model, places, sources))
}

fn resolve(
    schema: ast::Schema,
    sources: SourceMap,
    mut diagnostics: Diagnostics,
) -> Result<(Model, naming::Places, SourceMap), Failure> {
    // Resolving a schema with a whole file missing would only add follow-on errors (unknown types that
    // the unreadable file defines); mistakes inside readable files do not stop resolution.
    let file_lost = diagnostics.0.iter().any(|d| d.code.loses_a_file());
    let model = if file_lost {
        None
    } else {
        check::resolve(&schema, &sources, &mut diagnostics)
    };
    match model {
        Some((model, places)) if diagnostics.is_empty() => Ok((model, places, sources)),
        _ => Err(Failure::of_mistakes(sources, diagnostics)),
    }
}

/// Every generated file, by path relative to the `generated/` folder; Rust files formatted in an earlier
/// run are taken from `cache` when there is one (the output is the same with or without).
pub fn generate(
    schema_dir: &Path,
    cache: Option<&FormatCache>,
) -> Result<BTreeMap<String, String>, Failure> {
    let model = build_model(schema_dir)?;
    emit_all(&model, cache).map_err(|bug| Failure {
        sources: SourceMap::default(),
        diagnostics: Diagnostics::default(),
        bug: Some(bug),
    })
}

/// Every output of the model (see [`generate`] for `cache`). An error here is a bug of the generator, not
/// of the schema.
pub fn emit_all(
    model: &Model,
    cache: Option<&FormatCache>,
) -> Result<BTreeMap<String, String>, String> {
    // The documents are made on threads of their own while the Rust files are: none reads another. The
    // AsyncAPI document alone takes as long as the rest of them. A panic on any of them is the
    // generator's bug, reported as such.
    let (rust, asyncapi, documents) = std::thread::scope(|scope| {
        let rust = scope.spawn(|| emit::rust::emit(model, cache));
        let asyncapi = scope.spawn(|| emit::asyncapi::emit(model));
        let documents = scope.spawn(|| {
            Ok::<_, String>([
                emit::openapi::emit(model)?,
                emit::compatibility::emit(model),
                emit::jsonschema::emit(model)?,
                emit::avro::emit(model)?,
                emit::protobuf::emit(model)?,
                emit::schema_format::emit()?,
                emit::consumers::emit(model)?,
            ])
        });
        let panicked = "a thread of the generator panicked";
        (
            rust.join().unwrap_or_else(|_| Err(panicked.to_owned())),
            asyncapi.join().unwrap_or_else(|_| Err(panicked.to_owned())),
            documents
                .join()
                .unwrap_or_else(|_| Err(panicked.to_owned())),
        )
    });
    let mut files = rust?;
    for more in std::iter::once(asyncapi?).chain(documents?) {
        for (path, contents) in more {
            if files.insert(path.clone(), contents).is_some() {
                return Err(format!("two emitters write `{path}`"));
            }
        }
    }
    Ok(files)
}
