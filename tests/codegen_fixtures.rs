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

/// Generated files that are the same for every schema (copied from `codegen/templates/`, and tested
/// there): not snapshotted.
const SCHEMA_INDEPENDENT: &[&str] = &["src/events/decode.rs", "src/events/routing.rs"];

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
        energy_tests::write_scratch_crate(&scratch, &format!("fixture-{name}"), files);
        members.push(format!("\"fixture-{name}\""));
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

/// A team vendors the generated crate (with `energy-api-core`, its sibling folder) or publishes both to
/// its registry: copied out of this workspace, the crate builds on its own manifest, and packaging it
/// finds nothing missing in its metadata.
#[test]
fn the_generated_crate_builds_and_packages_outside_the_workspace() {
    let root = energy_tests::workspace_root();
    let outside = tempfile::tempdir().expect("a folder outside the workspace");
    for folder in ["generated", "api-core"] {
        copy_tree(&root.join(folder), &outside.path().join(folder));
    }
    let vendored = outside.path().join("generated");
    // The workspace's lock file pins the same dependency versions (cargo drops what is not needed).
    std::fs::copy(root.join("Cargo.lock"), vendored.join("Cargo.lock")).expect("lock copied");
    energy_tests::cargo_check(
        &vendored,
        &["--no-default-features", "--features", "billing"],
    );
    // Publishing: the two crates are packaged together (the generated one names the other by version).
    std::fs::write(
        outside.path().join("Cargo.toml"),
        "[workspace]\nresolver = \"3\"\nmembers = [\"api-core\", \"generated\"]\n",
    )
    .expect("publishing workspace written");
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let output = std::process::Command::new(&cargo)
        .current_dir(outside.path())
        .args(["package", "--no-verify", "--offline", "--allow-dirty"])
        .args(["-p", "energy-api-core", "-p", "energy-api"])
        .env(
            "CARGO_TARGET_DIR",
            root.join("target").join("scratch-package"),
        )
        .output()
        .expect("cargo runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "`cargo package`:\n{stderr}");
    assert!(
        !stderr.contains("warning"),
        "`cargo package` warns:\n{stderr}"
    );
    assert_eq!(stderr.matches("Packaged ").count(), 2, "{stderr}");
}

fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("folder created");
    for entry in std::fs::read_dir(from).expect("folder listed") {
        let path = entry.expect("entry").path();
        let target = to.join(path.file_name().expect("a name"));
        if path.is_dir() {
            copy_tree(&path, &target);
        } else {
            std::fs::copy(&path, &target).expect("file copied");
        }
    }
}
