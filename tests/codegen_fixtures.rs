//! The generator on small purpose-made schemas (`tests/fixtures/schemas/<feature>/`): its output is
//! snapshotted (a 30-line fixture's output is a specification), and every fixture's crate compiles
//! without warnings.

use std::path::{Path, PathBuf};

fn fixture_schemas() -> Vec<(String, PathBuf)> {
    let mut dirs: Vec<(String, PathBuf)> = std::fs::read_dir(energy_tests::fixture("schemas"))
        .expect("fixture folder")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_dir())
        .map(|p| (p.file_name().unwrap().to_string_lossy().into_owned(), p))
        .collect();
    dirs.sort();
    dirs
}

/// Generated files that are the same for every schema: compiled with the real crate, not snapshotted.
const SCHEMA_INDEPENDENT: &[&str] = &[
    "src/de.rs",
    "src/events/decode.rs",
    "src/events/routing.rs",
    "src/rest/endpoint.rs",
];

/// The generated Rust of a fixture, every file under a `=== path` heading.
fn rust_output(dir: &Path) -> String {
    let files = energy_codegen::generate(dir)
        .unwrap_or_else(|f| panic!("{}: {}", dir.display(), f.render(false)));
    files
        .iter()
        .filter(|(path, _)| path.ends_with(".rs") || path.as_str() == "Cargo.toml")
        .filter(|(path, _)| !SCHEMA_INDEPENDENT.contains(&path.as_str()))
        .map(|(path, contents)| format!("=== {path}\n{contents}"))
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn generated_rust_matches_snapshots() {
    let fixtures = fixture_schemas();
    assert!(fixtures.len() >= 8, "every feature has its fixture");
    for (name, dir) in fixtures {
        insta::with_settings!({snapshot_path => "snapshots/rust", prepend_module_to_snapshot => false}, {
            insta::assert_snapshot!(name, rust_output(&dir));
        });
    }
}

/// Generates every fixture into a scratch workspace beside the real one and builds it with warnings
/// denied, reusing the workspace's dependency versions.
#[test]
fn fixture_crates_compile_without_warnings() {
    let root = energy_tests::workspace_root();
    let scratch = root.join("target").join("fixture-crates");
    let mut members = Vec::new();
    for (name, dir) in fixture_schemas() {
        let files = energy_codegen::generate(&dir)
            .unwrap_or_else(|f| panic!("{name}: {}", f.render(false)));
        let out = scratch.join(&name);
        let mut files = files;
        let manifest = files
            .get_mut("Cargo.toml")
            .expect("a manifest is generated");
        *manifest = manifest.replace(
            "name = \"energy-api\"",
            &format!("name = \"fixture-{name}\""),
        );
        energy_codegen::write_files(&out, &files, false).expect("scratch crate written");
        members.push(format!("\"{name}\""));
    }
    energy_tests::check_scratch_workspace(&scratch, &members);
}

/// The real crate builds with any set of section features: none, one, or all.
#[test]
fn energy_api_compiles_with_any_features() {
    let manifest = energy_tests::generated_dir().join("Cargo.toml");
    let manifest = manifest.to_string_lossy();
    for features in [
        &["--no-default-features"][..],
        &["--no-default-features", "--features", "billing"],
    ] {
        let mut args = vec!["--manifest-path", manifest.as_ref()];
        args.extend(features);
        energy_tests::cargo_check(&energy_tests::workspace_root(), &args);
    }
}
