//! The schema-first generator of the energy platform's interface.
//!
//! `load` (files → `yaml` node trees → `read` → `ast`) → `check` (resolution, then `naming`) → [`Model`] →
//! `emit` (Rust, OpenAPI, AsyncAPI, JSON Schema) → [`write_files`]. Every mistake in the schema is a located
//! [`Diagnostic`]; every output is a pure function of the model. `docs/ARCHITECTURE.md` is the map.
//!
//! This file is the façade: the modules are private but four, [`emit`] (the outputs, whose paths and
//! pieces xtask and the tests read), [`compat`] (the evolution check), [`profile`] (the traffic profile,
//! which `energy events drift` writes) and [`locate`] (places in the
//! schema files, found by this reader, for the tools that edit them); the model, its sample values and
//! the pipeline's entry points are re-exported here.
#![forbid(unsafe_code)]

mod ast;
mod borrowing;
mod check;
pub mod compat;
mod diag;
pub mod emit;
mod evolution;
mod load;
pub mod locate;
mod lock_file;
mod model;
mod naming;
mod numbers;
mod parallel;
mod pipeline;
pub mod profile;
mod publication;
mod read;
mod samples;
mod source;
mod typeexpr;
mod views;
mod write;
mod yaml;

pub use diag::{Code, Diagnostic, Diagnostics, Label};
pub use emit::rust::FormatCache;
pub use model::*;
pub use pipeline::{Failure, build_model, build_model_in_memory, emit_all, generate};
pub use samples::{
    Optionals, event_payload, parameter_value, resource_example, resource_value, struct_value,
};
pub use source::{FileId, SourceFile, SourceMap, Span};
pub use write::{WriteReport, write_files};
pub use yaml::MAX_FILE_BYTES;
