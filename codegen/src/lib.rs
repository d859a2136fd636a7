//! The schema-first generator of the energy platform's interface.
//!
//! `load` → `read` → `check` → [`Model`] → emitters. The YAML under `schema/` is read into a tree of
//! located nodes, checked and resolved into one [`Model`] (names resolved, bases and versions flattened,
//! everything sorted), and every output is a pure function of that model.
#![forbid(unsafe_code)]

pub mod ast;
pub mod check;
pub mod diag;
pub mod emit;
pub mod load;
pub mod model;
pub mod naming;
pub mod read;
pub mod samples;
pub mod source;
pub mod typeexpr;
pub mod views;
pub mod write;
pub mod yaml;

pub use diag::{Diagnostic, Diagnostics};
pub use model::Model;
pub use source::SourceMap;
pub use write::{WriteReport, write_files};

use std::collections::BTreeMap;
use std::path::Path;

/// Why a run produced nothing: the schema mistakes found, with the files they are in.
#[derive(Debug)]
pub struct Failure {
    /// The files read.
    pub sources: SourceMap,
    /// Every mistake, sorted by place.
    pub diagnostics: Diagnostics,
}

impl Failure {
    /// rustc-style text of every mistake and a summary line.
    pub fn render(&self, color: bool) -> String {
        self.diagnostics.render(&self.sources, color)
    }

    /// One JSON object per mistake per line.
    pub fn to_json_lines(&self) -> String {
        self.diagnostics.to_json_lines(&self.sources)
    }
}

/// Diagnostic codes after which a whole file (or folder) could not be read.
const FILE_LEVEL: &[&str] = &[
    "missing-schema-folder",
    "empty-schema-folder",
    "io",
    "file-too-large",
    "not-utf8",
    "empty-file",
    "yaml-syntax",
    "yaml-too-large",
];

/// Loads and checks the schema folder into the model.
pub fn build_model(schema_dir: &Path) -> Result<Model, Failure> {
    let mut sources = SourceMap::default();
    let mut diagnostics = Diagnostics::default();
    let schema = load::load(schema_dir, &mut sources, &mut diagnostics);
    resolve(schema, sources, diagnostics)
}

/// Loads and checks schema files given in memory (see [`load::load_in_memory`]) into the model.
pub fn build_model_in_memory(files: &[(&str, &[u8])]) -> Result<Model, Failure> {
    let mut sources = SourceMap::default();
    let mut diagnostics = Diagnostics::default();
    let schema = load::load_in_memory(files, &mut sources, &mut diagnostics);
    resolve(schema, sources, diagnostics)
}

fn resolve(
    schema: ast::Schema,
    sources: SourceMap,
    mut diagnostics: Diagnostics,
) -> Result<Model, Failure> {
    // Resolving a schema with a whole file missing would only add follow-on errors (unknown types that
    // the unreadable file defines); mistakes inside readable files do not stop resolution.
    let file_lost = diagnostics.0.iter().any(|d| FILE_LEVEL.contains(&d.code));
    let model = if file_lost {
        None
    } else {
        check::resolve(&schema, &sources, &mut diagnostics)
    };
    match model {
        Some(model) if diagnostics.is_empty() => Ok(model),
        _ => {
            diagnostics.sort(&sources);
            Err(Failure {
                sources,
                diagnostics,
            })
        }
    }
}

/// Every generated file, by path relative to the `generated/` folder.
pub fn generate(schema_dir: &Path) -> Result<BTreeMap<String, String>, Failure> {
    let model = build_model(schema_dir)?;
    emit_all(&model).map_err(|message| {
        let mut diagnostics = Diagnostics::default();
        diagnostics.push(Diagnostic::about_path(
            "internal",
            schema_dir.display().to_string(),
            message,
        ));
        Failure {
            sources: SourceMap::default(),
            diagnostics,
        }
    })
}

/// Every output of the model. An error here is a bug of the generator, not of the schema.
pub fn emit_all(model: &Model) -> Result<BTreeMap<String, String>, String> {
    let mut files = emit::rust::emit(model)?;
    for more in [
        emit::openapi::emit(model)?,
        emit::asyncapi::emit(model)?,
        emit::jsonschema::emit(model)?,
        emit::schema_format::emit()?,
    ] {
        for (path, contents) in more {
            if files.insert(path.clone(), contents).is_some() {
                return Err(format!("two emitters write `{path}`"));
            }
        }
    }
    Ok(files)
}
