//! What the generator's tests share beyond `energy-testkit`: the schema evolution cases
//! ([`compat_cases`]), and scratch crates of generated code checked by a real `cargo check`. Each test
//! file uses part of it.
#![allow(dead_code, reason = "each test file uses part of the support module")]

pub mod compat_cases;

/// Writes a generated crate as the member `name` of the scratch workspace `scratch`: renamed, and with
/// its `energy-api-core` dependency (the sibling folder `api-core` in this repository) made absolute.
pub fn write_scratch_crate(
    scratch: &std::path::Path,
    name: &str,
    mut files: std::collections::BTreeMap<String, String>,
) {
    let core = energy_testkit::workspace().join("api-core");
    let manifest = files
        .get_mut("Cargo.toml")
        .expect("a manifest is generated");
    *manifest = manifest
        .replace("name = \"energy-api\"", &format!("name = \"{name}\""))
        .replace(
            "path = \"../api-core\"",
            &format!("path = \"{}\"", core.display()),
        );
    energy_codegen::write_files(&scratch.join(name), &files, false).expect("scratch crate written");
}

/// Makes `scratch` a workspace of the generated crates in `members` (folders under it), with this
/// workspace's locked dependency versions, and checks it with warnings denied.
pub fn check_scratch_workspace(scratch: &std::path::Path, members: &[String]) {
    let root = energy_testkit::workspace();
    let manifest = format!(
        "[workspace]\nresolver = \"3\"\nmembers = [{}]\n",
        members.join(", ")
    );
    std::fs::write(scratch.join("Cargo.toml"), manifest).expect("scratch workspace written");
    std::fs::copy(root.join("Cargo.lock"), scratch.join("Cargo.lock")).expect("lock file copied");
    // Every feature: the borrowed views too.
    cargo_check(scratch, &["--workspace", "--all-features"]);
}

/// `cargo check` with warnings denied, in a target folder of its own (the running `cargo test` holds the
/// workspace's), shared by every such check so dependencies build once.
pub fn cargo_check(dir: &std::path::Path, args: &[&str]) {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let output = std::process::Command::new(cargo)
        .current_dir(dir)
        .arg("check")
        .args(args)
        .args(["--offline", "--quiet"])
        .env("RUSTFLAGS", "-D warnings")
        .env(
            "CARGO_TARGET_DIR",
            energy_testkit::workspace()
                .join("target")
                .join("scratch-check"),
        )
        .output()
        .expect("cargo runs");
    assert!(
        output.status.success(),
        "`cargo check {}` in {} fails:\n{}",
        args.join(" "),
        dir.display(),
        String::from_utf8_lossy(&output.stderr)
    );
}
