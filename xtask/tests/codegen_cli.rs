//! `cargo xtask codegen` as a user runs it: exit codes, human and JSON diagnostics, `--check`.

use energy_testkit::workspace;
use std::process::{Command, Output};

fn xtask(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_xtask"))
        .current_dir(workspace())
        .args(args)
        .output()
        .expect("xtask runs")
}

#[test]
fn schema_mistakes_exit_1_with_located_diagnostics() {
    let out = tempfile::tempdir().unwrap();
    let schema = "codegen/tests/fixtures/mistakes/several-mistakes";
    let run = xtask(&[
        "codegen",
        "--schema",
        schema,
        "--out",
        out.path().to_str().unwrap(),
    ]);
    assert_eq!(run.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(
        stderr.contains("error[unknown-type]: unknown type `BillingAcount`"),
        "{stderr}"
    );
    assert!(
        stderr.contains("--> codegen/tests/fixtures/mistakes/several-mistakes/types.yaml:4:36"),
        "{stderr}"
    );
    assert!(
        stderr.ends_with("error: could not generate: 3 schema errors found\n"),
        "{stderr}"
    );
    assert_eq!(
        std::fs::read_dir(out.path()).unwrap().count(),
        0,
        "nothing is written"
    );

    let json = xtask(&["codegen", "--schema", schema, "--message-format", "json"]);
    assert_eq!(json.status.code(), Some(1));
    let lines: Vec<serde_json::Value> = String::from_utf8_lossy(&json.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON per line"))
        .collect();
    assert_eq!(lines.len(), 3);
    assert_eq!(lines[2]["code"], "unknown-type");
}

#[test]
fn check_fails_until_generated_then_passes() {
    let out = tempfile::tempdir().unwrap();
    let out_dir = out.path().to_str().unwrap();
    let schema = "codegen/tests/fixtures/schemas/extends";
    let stale = xtask(&["codegen", "--check", "--schema", schema, "--out", out_dir]);
    assert_eq!(stale.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&stale.stderr);
    assert!(
        stderr.contains("stale: ") && stderr.contains("src/events/agreements.rs"),
        "{stderr}"
    );
    assert!(stderr.contains("run `cargo xtask codegen`"), "{stderr}");
    assert_eq!(
        std::fs::read_dir(out.path()).unwrap().count(),
        0,
        "--check writes nothing"
    );

    assert!(
        xtask(&["codegen", "--schema", schema, "--out", out_dir])
            .status
            .success()
    );
    let clean = xtask(&["codegen", "--check", "--schema", schema, "--out", out_dir]);
    assert!(
        clean.status.success(),
        "{}",
        String::from_utf8_lossy(&clean.stderr)
    );
}

#[test]
fn usage_errors_exit_2() {
    assert_eq!(
        xtask(&["codegen", "--message-format", "yaml"])
            .status
            .code(),
        Some(2)
    );
}
