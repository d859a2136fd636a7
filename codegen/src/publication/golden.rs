//! Golden payloads: when a version is published, payloads of it are frozen under `tests/golden/events/`
//! (one file per version, never rewritten), so that a published version that stops accepting its own
//! past payloads fails a test (`tests/golden_payloads.rs`) even if no compatibility rule notices.

use crate::model::{EventVersion, Model};
use crate::samples::{Optionals, event_payload};
use serde_json::{Value, json};
use std::path::Path;

/// The folder of the golden payloads, relative to the workspace root.
pub const GOLDEN_DIR: &str = "tests/golden/events";

/// The cases frozen for a version: a realistic payload (every optional field present), the same with
/// every optional field absent (and nullable fields `null`), and one with a member the schema does not
/// list, which readers must ignore (or keep, for a payload marked incomplete).
pub fn golden_cases(model: &Model, version: &EventVersion) -> Vec<(&'static str, Value)> {
    let all = event_payload(model, version, Optionals::All);
    let none = event_payload(model, version, Optionals::None);
    let mut unknown = all.clone();
    if let Value::Object(map) = &mut unknown {
        map.insert(
            "x_member_added_later".to_owned(),
            json!({"note": "a member a later schema may add", "values": [1, 2.5, null]}),
        );
    }
    let mut cases = vec![("realistic", all.clone())];
    if none != all {
        cases.push(("optional_fields_absent", none));
    }
    cases.push(("unknown_member", unknown));
    cases
}

/// Writes the golden file of every version in `added` that has none yet, and removes those of `dropped`;
/// gives the number of files written.
pub(crate) fn write(
    model: &Model,
    added: &[String],
    dropped: &[String],
    dir: &Path,
) -> std::io::Result<usize> {
    let mut written = 0;
    for (_, event) in model.events() {
        for v in &event.versions {
            if !added.contains(&v.id) {
                continue;
            }
            let path = dir.join(format!("{}.json", v.id));
            if path.exists() {
                // Frozen: a golden payload is never rewritten.
                continue;
            }
            let cases: serde_json::Map<String, Value> = golden_cases(model, v)
                .into_iter()
                .map(|(name, value)| (name.to_owned(), value))
                .collect();
            let file = json!({
                "$comment": format!(
                    "Frozen when `{}` {} was published (`cargo xtask compat --publish`); never rewritten. \
                     tests/golden_payloads.rs decodes every case with the current crate.",
                    event.name, v.label
                ),
                "event_type": event.name,
                "version": v.label,
                "cases": cases,
            });
            std::fs::create_dir_all(dir)?;
            let mut text = serde_json::to_string_pretty(&file).map_err(std::io::Error::other)?;
            text.push('\n');
            std::fs::write(&path, text)?;
            written += 1;
        }
    }
    for id in dropped {
        let path = dir.join(format!("{id}.json"));
        if path.exists() {
            std::fs::remove_file(path)?;
        }
    }
    Ok(written)
}
