//! The third-party validators of `generated/openapi.yaml` and `generated/asyncapi.yaml`, a step of
//! `cargo xtask test`: `redocly lint` (both), `spectral lint` with `spectral:oas` and `spectral:asyncapi`
//! (both), `@asyncapi/parser` (AsyncAPI, and each consumer contract's document in
//! `generated/consumers/`, which refers to the producer's channels) and `openapi-spec-validator`
//! (OpenAPI).
//!
//! The operators' Grafana dashboard (`docs/grafana/energy-consumer.json`) is held to the types Grafana
//! publishes for a dashboard (`@grafana/schema`), by `tsc`: no Grafana server is reachable from CI, so
//! the dashboard is not loaded into one (its queries run on a real Prometheus in
//! `cli/tests/bus_metrics.rs`).
//!
//! The Protobuf files (`generated/proto/`) are held to `buf lint` with the rules their `buf.yaml` names
//! (`STANDARD`, none switched off) and compiled by `buf build` (the Avro and JSON Schema files, and
//! `protoc`, are run by `tests/wire_formats.rs`).
//!
//! Each must pass with no error and no warning (the configs in `tools/validators/` switch rules off only
//! with a reason). Each also runs on a copy of the document with one broken `$ref` (the dashboard: a
//! panel with a key Grafana does not know) and must fail naming it, so that a validator that checks
//! nothing (a wrong path, a config that disables everything) fails this step instead of passing it.

use crate::tools::{Job, Tools, clip, output_text, run_two_at_a_time, run_with_timeout};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

/// The name the broken copies refer to.
const MISSING: &str = "NoSuchSchema";

/// The operators' Grafana dashboard, relative to the workspace root.
const DASHBOARD: &str = "docs/grafana/energy-consumer.json";

/// How long one validator may take.
const LIMIT: Duration = Duration::from_secs(300);

enum Expect {
    /// Succeeds, and its standard output, trimmed, is this (when given).
    Pass(Option<String>),
    /// Fails, and its output names the broken reference.
    Fail,
}

struct Check {
    name: String,
    command: Command,
    expect: Expect,
}

/// Runs every validator on both documents and on their broken copies.
pub(crate) fn run(root: &Path) -> Result<(), String> {
    let model = energy_codegen::build_model(&root.join("schema"))
        .map_err(|f| format!("the schema does not load:\n{}", f.render(false)))?;
    let tools = Tools::install(root)?;
    let openapi = root
        .join("generated")
        .join(energy_codegen::emit::openapi::PATH);
    let asyncapi = root
        .join("generated")
        .join(energy_codegen::emit::asyncapi::PATH);
    let canary_dir = root.join("target/validator-canary");
    let broken_openapi = broken_copy(&openapi, &canary_dir)?;
    let broken_asyncapi = broken_copy(&asyncapi, &canary_dir)?;
    let (channels, operations, messages) = energy_codegen::emit::asyncapi::counts(&model);
    let parsed = format!(
        "{{\"version\":\"{}\",\"channels\":{channels},\"operations\":{operations},\"messages\":{messages}}}",
        energy_codegen::emit::asyncapi::ASYNCAPI_VERSION,
    );

    let mut checks = Vec::new();
    for (openapi, asyncapi, expect_pass) in [
        (&openapi, &asyncapi, true),
        (&broken_openapi, &broken_asyncapi, false),
    ] {
        let expect = |output: Option<String>| {
            if expect_pass {
                Expect::Pass(output)
            } else {
                Expect::Fail
            }
        };
        let which = if expect_pass { "" } else { " (broken copy)" };
        for doc in [openapi, asyncapi] {
            let mut redocly = tools.npm_bin("redocly");
            redocly
                .args(["lint", "--config", "redocly.yaml", "--max-problems", "50"])
                .arg(doc);
            checks.push(Check {
                name: format!("redocly lint {}{which}", file_name(doc)),
                command: redocly,
                expect: expect(None),
            });
            let mut spectral = tools.npm_bin("spectral");
            spectral
                .args([
                    "lint",
                    "--ruleset",
                    ".spectral.yaml",
                    "--fail-severity",
                    "warn",
                ])
                .arg(doc);
            checks.push(Check {
                name: format!("spectral lint {}{which}", file_name(doc)),
                command: spectral,
                expect: expect(None),
            });
        }
        let mut parser = tools.node_script("asyncapi-parse.cjs");
        parser.arg(asyncapi);
        checks.push(Check {
            name: format!("@asyncapi/parser {}{which}", file_name(asyncapi)),
            command: parser,
            expect: expect(Some(parsed.clone())),
        });
        let mut validator = tools.venv_bin("openapi-spec-validator");
        validator.args(["--schema", "3.1"]).arg(openapi);
        checks.push(Check {
            name: format!("openapi-spec-validator {}{which}", file_name(openapi)),
            command: validator,
            expect: expect(None),
        });
    }
    checks.extend(consumer_documents(root, &model, &tools, &canary_dir)?);
    checks.extend(grafana_dashboard(root, &tools, &canary_dir)?);
    checks.extend(protobuf_files(root, &tools, &canary_dir)?);
    let jobs: Vec<Job> = checks
        .into_iter()
        .map(|check| -> Job {
            let name = check.name.clone();
            (name, Box::new(move || judge(check).map(|()| String::new())))
        })
        .collect();
    let failures = run_two_at_a_time(jobs);
    if failures.is_empty() {
        Ok(())
    } else {
        Err(failures.join("\n\n"))
    }
}

fn judge(check: Check) -> Result<(), String> {
    let Check {
        command, expect, ..
    } = check;
    let output = run_with_timeout(command, LIMIT)?;
    let text = output_text(&output);
    match expect {
        Expect::Pass(_) if !output.status.success() => {
            Err(format!("failed ({}):\n{}", output.status, clip(&text)))
        }
        Expect::Pass(Some(expected))
            if String::from_utf8_lossy(&output.stdout).trim() != expected =>
        {
            Err(format!(
                "resolved something else than the model: expected `{expected}`, got:\n{}",
                clip(&text)
            ))
        }
        Expect::Pass(_) => Ok(()),
        Expect::Fail if output.status.success() => Err(format!(
            "passed a broken copy (a `$ref` to, or a key named, `{MISSING}`): it checks nothing\n{}",
            clip(&text)
        )),
        Expect::Fail if !text.contains(MISSING) => Err(format!(
            "failed on the broken copy without naming what is broken (`{MISSING}`):\n{}",
            clip(&text)
        )),
        Expect::Fail => Ok(()),
    }
}

/// `@asyncapi/parser` on each consumer contract's document, which must resolve its references into the
/// producer's document to exactly the contract's channels, operations and messages; and on a copy of one
/// whose first message reference names a message the producer does not have, which must fail naming it.
fn consumer_documents(
    root: &Path,
    model: &energy_codegen::Model,
    tools: &Tools,
    canary_dir: &Path,
) -> Result<Vec<Check>, String> {
    use energy_codegen::emit::{asyncapi, consumers};
    let generated = root.join("generated");
    let mut checks = Vec::new();
    for consumer in model.consumers.iter().filter(|c| c.active) {
        let doc = generated.join(consumers::path(&consumer.name));
        let versions: usize = consumer.reads.iter().map(|r| r.versions.len()).sum();
        let reads = consumer.reads.len();
        let mut parser = tools.node_script("asyncapi-parse.cjs");
        parser.arg(&doc);
        checks.push(Check {
            name: format!("@asyncapi/parser {}", consumers::path(&consumer.name)),
            command: parser,
            expect: Expect::Pass(Some(format!(
                "{{\"version\":\"{}\",\"channels\":{reads},\"operations\":{reads},\"messages\":{versions}}}",
                asyncapi::ASYNCAPI_VERSION
            ))),
        });
    }
    let Some(first) = model.consumers.iter().find(|c| c.active) else {
        return Ok(checks);
    };
    // The copy sits beside a copy of the producer's document, as in `generated/`.
    let dir = canary_dir.join("consumer");
    crate::files::create_dir(&dir.join(consumers::DIR))?;
    let producer = std::fs::read_to_string(generated.join(asyncapi::PATH))
        .map_err(|e| format!("cannot read {}: {e}", asyncapi::PATH))?;
    crate::files::write(&dir.join(asyncapi::PATH), &producer)?;
    let path = consumers::path(&first.name);
    let text = std::fs::read_to_string(generated.join(&path))
        .map_err(|e| format!("cannot read {path}: {e} (run `cargo xtask codegen`)"))?;
    const TARGET: &str = "/messages/";
    let start = text
        .find(TARGET)
        .map(|i| i + TARGET.len())
        .ok_or_else(|| format!("{path} refers to no message"))?;
    let end = start
        + text[start..]
            .find('"')
            .ok_or_else(|| format!("{path}: unterminated `$ref`"))?;
    let broken = dir.join(&path);
    crate::files::write(
        &broken,
        &format!("{}{MISSING}{}", &text[..start], &text[end..]),
    )?;
    let mut parser = tools.node_script("asyncapi-parse.cjs");
    parser.arg(&broken);
    checks.push(Check {
        name: format!("@asyncapi/parser {path} (broken copy)"),
        command: parser,
        expect: Expect::Fail,
    });
    Ok(checks)
}

/// `tsc` on the dashboard written as a TypeScript object literal that `satisfies` `@grafana/schema`'s
/// `Dashboard`: a key Grafana does not know, a value of the wrong type or a missing required field is an
/// error. And on a copy whose first panel has the key `NoSuchSchema`, which must fail naming it.
fn grafana_dashboard(root: &Path, tools: &Tools, canary_dir: &Path) -> Result<Vec<Check>, String> {
    let text = std::fs::read_to_string(root.join(DASHBOARD))
        .map_err(|e| format!("cannot read {DASHBOARD}: {e}"))?;
    let mut broken: serde_json::Value =
        serde_json::from_str(&text).map_err(|e| format!("{DASHBOARD} is not JSON: {e}"))?;
    let first_panel = broken
        .pointer_mut("/panels/0")
        .and_then(serde_json::Value::as_object_mut)
        .ok_or_else(|| format!("{DASHBOARD} has no panel"))?;
    first_panel.insert(MISSING.to_owned(), serde_json::Value::from(1));
    let broken = serde_json::to_string_pretty(&broken).map_err(|e| e.to_string())?;
    let dir = canary_dir.join("grafana");
    crate::files::create_dir(&dir)?;
    let mut checks = Vec::new();
    for (json, file, which, expect) in [
        (text, "dashboard.ts", "", Expect::Pass(None)),
        (
            broken,
            "dashboard-broken.ts",
            " (broken copy)",
            Expect::Fail,
        ),
    ] {
        let path = dir.join(file);
        crate::files::write(
            &path,
            &format!(
                "import type {{ Dashboard }} from '@grafana/schema';\n\
                 export const dashboard = ({json}) satisfies Dashboard;\n"
            ),
        )?;
        let mut tsc = tools.npm_bin("tsc");
        tsc.args([
            "--noEmit", "--strict", "--target", "es2022", "--module", "esnext",
        ])
        .args(["--moduleResolution", "bundler", "--baseUrl"])
        // The copy is outside the tools' folder: bare names resolve in its `node_modules`.
        .arg(tools.node_modules())
        .arg(&path);
        checks.push(Check {
            name: format!("tsc, @grafana/schema's Dashboard: {DASHBOARD}{which}"),
            command: tsc,
            expect,
        });
    }
    Ok(checks)
}

/// `buf lint` and `buf build` on `generated/proto/`, and on a copy whose first reference to a shared
/// type names one that does not exist, which both must refuse naming it.
fn protobuf_files(root: &Path, tools: &Tools, canary_dir: &Path) -> Result<Vec<Check>, String> {
    use energy_codegen::emit::protobuf;
    let real = root.join("generated").join(protobuf::DIR);
    let broken = canary_dir.join("proto");
    let _ = std::fs::remove_dir_all(&broken);
    crate::files::copy_dir(&real, &broken)?;
    const TARGET: &str = "energy.types.v1.";
    let mut done = false;
    let mut pending = vec![broken.join("energy/events")];
    while let Some(dir) = pending.pop().filter(|_| !done) {
        let mut entries: Vec<PathBuf> = std::fs::read_dir(&dir)
            .map_err(|e| format!("{}: {e}", dir.display()))?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .collect();
        entries.sort();
        for path in entries {
            if path.is_dir() {
                pending.push(path);
                continue;
            }
            let text = std::fs::read_to_string(&path).map_err(|e| e.to_string())?;
            // A field's type, not the import's path.
            if let Some(start) = text.find(&format!("  {TARGET}")) {
                let start = start + 2 + TARGET.len();
                let end = start
                    + text[start..]
                        .find(' ')
                        .ok_or_else(|| format!("{}: no field after a type", path.display()))?;
                crate::files::write(
                    &path,
                    &format!("{}{MISSING}{}", &text[..start], &text[end..]),
                )?;
                done = true;
                break;
            }
        }
    }
    if !done {
        return Err("no .proto file refers to a shared type".to_owned());
    }
    let cache = root.join("target/buf-cache");
    let mut checks = Vec::new();
    for (dir, which, expect_pass) in [(&real, "", true), (&broken, " (broken copy)", false)] {
        for args in [&["lint"][..], &["build", "-o", "/dev/null"][..]] {
            let mut buf = tools.npm_bin("buf");
            buf.arg(args[0]).arg(dir).args(&args[1..]);
            buf.env("BUF_CACHE_DIR", &cache);
            checks.push(Check {
                name: format!("buf {} generated/proto{which}", args[0]),
                command: buf,
                expect: if expect_pass {
                    Expect::Pass(None)
                } else {
                    Expect::Fail
                },
            });
        }
    }
    Ok(checks)
}

fn file_name(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// A copy of `doc` whose first reference to a component schema points at a schema that does not exist.
fn broken_copy(doc: &Path, dir: &Path) -> Result<PathBuf, String> {
    let text = std::fs::read_to_string(doc).map_err(|e| {
        format!(
            "cannot read {}: {e} (run `cargo xtask codegen`)",
            doc.display()
        )
    })?;
    const TARGET: &str = "$ref: \"#/components/schemas/";
    let start = text
        .find(TARGET)
        .map(|i| i + TARGET.len())
        .ok_or_else(|| format!("{} refers to no component schema", doc.display()))?;
    let end = start
        + text[start..]
            .find('"')
            .ok_or_else(|| format!("{}: unterminated `$ref`", doc.display()))?;
    let broken = format!("{}{MISSING}{}", &text[..start], &text[end..]);
    crate::files::create_dir(dir)?;
    let path = dir.join(doc.file_name().unwrap_or_default());
    crate::files::write(&path, &broken)?;
    Ok(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `buf lint` and `buf build` pass `generated/proto/` and refuse its broken copy naming what is
    /// broken: the step's Protobuf checks run as `cargo xtask test` runs them (with its pinned tools).
    #[test]
    fn buf_passes_the_protobuf_files_and_refuses_their_broken_copy() {
        let root = crate::paths::workspace_root();
        let tools = Tools::install(&root).unwrap_or_else(|e| {
            panic!("the pinned tools of tools/validators/ (run `cargo xtask test`): {e}")
        });
        let canary = tempfile::tempdir().expect("a temporary folder");
        let checks = protobuf_files(&root, &tools, canary.path()).expect("the checks are made");
        assert_eq!(checks.len(), 4);
        for check in checks {
            let name = check.name.clone();
            judge(check).unwrap_or_else(|e| panic!("{name}: {e}"));
        }
    }
}
