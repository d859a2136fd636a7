//! Snapshots of the OpenAPI, AsyncAPI, JSON Schema (linked and self-contained), Avro and Protobuf documents generated from the small, purpose-made
//! schemas `tests/fixtures/schemas/docs-*/`: a REST API with a generic page, a nullable date-time, both
//! kinds of authentication and an incomplete resource; events with a base, `extends`, a `1.0.0` version,
//! a payload that is a shared type, an incomplete payload and an optional array of a named type. Each
//! snapshot is short enough to read as the specification of the emitters.

use energy_codegen::emit::{asyncapi, avro, jsonschema, openapi, protobuf};
use std::collections::BTreeMap;
use std::path::PathBuf;

fn fixture_schemas() -> Vec<(String, PathBuf)> {
    let dir = energy_testkit::generator_fixture("schemas");
    let mut found: Vec<(String, PathBuf)> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(Result::ok)
        .map(|e| (e.file_name().to_string_lossy().into_owned(), e.path()))
        .filter(|(name, path)| name.starts_with("docs-") && path.is_dir())
        .collect();
    found.sort();
    found
}

#[test]
fn documents_of_the_fixture_schemas() {
    let fixtures = fixture_schemas();
    assert!(fixtures.len() >= 2, "the docs-* fixtures are found");
    for (name, dir) in fixtures {
        let model = energy_codegen::build_model(&dir).unwrap_or_else(|f| {
            panic!("{name} does not load:\n{}", f.render(false));
        });
        let mut files = BTreeMap::new();
        for emitted in [
            openapi::emit(&model),
            asyncapi::emit(&model),
            jsonschema::emit(&model),
            avro::emit(&model),
            protobuf::emit(&model),
        ] {
            files.extend(emitted.expect("the documents are emitted"));
        }
        // The same files, in the same bytes, are part of the whole output.
        let all = energy_codegen::emit_all(&model, None).expect("everything is emitted");
        for (path, contents) in &files {
            assert_eq!(all.get(path), Some(contents), "{name}: {path}");
        }
        insta::with_settings!({
            snapshot_path => "snapshots",
            prepend_module_to_snapshot => false,
            omit_expression => true,
        }, {
            for (path, contents) in &files {
                let snapshot = format!("{name}__{}", path.replace('/', "__"));
                insta::assert_snapshot!(snapshot, contents);
            }
        });
    }
}
