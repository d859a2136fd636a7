//! Golden payloads: payloads frozen when each version was published (`tests/golden/events/`, written by
//! `cargo xtask compat --publish`, never rewritten). Every case must still decode with the current crate,
//! serialize back to what was sent (but the members the schema does not list, which a decoder ignores
//! unless the payload keeps them), and validate against the current JSON Schema of its version; so a
//! published version that stops accepting its own past payloads fails here even if no compatibility rule
//! noticed.

use energy_api::Event;
use serde_json::Value;
use std::collections::BTreeSet;

fn golden_files() -> Vec<(String, Value)> {
    let dir = energy_tests::workspace_root().join(energy_codegen::compat::GOLDEN_DIR);
    let mut files: Vec<(String, Value)> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .map(|p| {
            let id = p.file_stem().unwrap().to_string_lossy().into_owned();
            let text = std::fs::read_to_string(&p).expect("readable");
            (
                id,
                serde_json::from_str(&text).expect("a golden file is JSON"),
            )
        })
        .collect();
    files.sort_by(|a, b| a.0.cmp(&b.0));
    files
}

#[test]
fn every_published_version_has_its_golden_payloads() {
    let schema = energy_tests::schema_dir();
    let lock = schema.join(energy_codegen::compat::LOCK_FILE);
    let versions = energy_codegen::compat::published_versions(&lock)
        .map_err(|f| f.render(false))
        .expect("the published baseline reads");
    let golden: BTreeSet<String> = golden_files().into_iter().map(|(id, _)| id).collect();

    let missing: Vec<&String> = versions.difference(&golden).collect();
    assert!(
        missing.is_empty(),
        "published versions without golden payloads: {missing:?} (run `cargo xtask compat --publish`)"
    );
    let stale: Vec<&String> = golden.difference(&versions).collect();
    assert!(
        stale.is_empty(),
        "golden payloads of versions the schema no longer has: {stale:?} (`cargo xtask compat --publish` drops those removed after their sunset)"
    );
}

#[test]
fn past_payloads_still_decode_round_trip_and_validate() {
    let model =
        energy_codegen::build_model(&energy_tests::schema_dir()).expect("the schema builds");
    let schemas = energy_tests::generated_schema_files();
    let mut failures = Vec::new();
    let mut cases = 0;
    for (id, file) in golden_files() {
        let (event_type, version) = (
            file["event_type"].as_str().expect("event_type"),
            file["version"].as_str().expect("version"),
        );
        assert_eq!(
            id,
            format!("{event_type}.{version}"),
            "file name and content agree"
        );
        let incomplete = model
            .events()
            .find(|(_, e)| e.name == event_type)
            .and_then(|(_, e)| e.versions.iter().find(|v| v.label == version))
            .is_some_and(|v| v.payload.incomplete);
        let validator = schemas.validator(&format!("schemas/events/{id}.json"));
        for (case, payload) in file["cases"].as_object().expect("cases") {
            cases += 1;
            let bytes = serde_json::to_vec(payload).unwrap();
            let event = match Event::decode(event_type, version, &bytes) {
                Ok(event) => event,
                Err(e) => {
                    failures.push(format!("{id} {case}: no longer decodes: {e}"));
                    continue;
                }
            };
            let back: Value = serde_json::from_slice(&event.to_payload_json()).unwrap();
            let mut expected = payload.clone();
            if !incomplete && let Value::Object(map) = &mut expected {
                map.remove("x_member_added_later");
            }
            if back != expected {
                failures.push(format!("{id} {case}: round-trips to {back}"));
            }
            let errors: Vec<String> = validator
                .iter_errors(payload)
                .map(|e| e.to_string())
                .collect();
            if !errors.is_empty() {
                failures.push(format!(
                    "{id} {case}: the JSON Schema rejects it: {}",
                    errors.join("; ")
                ));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {cases} cases fail:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(cases >= 3 * 288 - 288, "{cases} cases");
}
