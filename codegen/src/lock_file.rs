//! The published baseline's file beside the schema: its name, and the field numbers it records. A leaf
//! under both the pipeline (which numbers a model's fields against the baseline) and the publication
//! check (which reads the whole baseline as a schema), so that neither imports the other for it.

use crate::numbers::{self, FieldNumbers};
use std::path::Path;

/// The baseline's file, relative to the schema folder.
pub const LOCK_FILE: &str = "published.lock";

/// The Protobuf field numbers recorded in the baseline beside the schema in `schema_dir`; none when
/// there is no baseline. A damaged one is reported by `cargo xtask compat`, which reads it as a schema.
pub(crate) fn field_numbers_beside(schema_dir: &Path) -> FieldNumbers {
    std::fs::read(schema_dir.join(LOCK_FILE))
        .map(|bytes| numbers::from_lock(&bytes))
        .unwrap_or_default()
}
