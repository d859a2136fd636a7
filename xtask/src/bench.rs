//! `cargo xtask bench`: whole-process figures for BENCHMARKS.md, beside the criterion benches.
//!
//! - `compile`: a clean debug build of `energy-api` alone (its dependencies already built), with all
//!   features, with none, and with each section's feature alone;
//! - `criterion`: runs the criterion benches (generation; decoding and the REST client once they exist).

use std::path::Path;
use std::process::{Command, ExitCode};
use std::time::{Duration, Instant};

/// Arguments of `cargo xtask bench`.
#[derive(clap::Args)]
pub(crate) struct BenchArgs {
    /// Which figures to measure (default: all).
    #[arg(long = "only", value_enum)]
    only: Vec<Part>,
    /// Repetitions of each compile measurement (the median is reported).
    #[arg(long, default_value_t = 3)]
    runs: usize,
}

#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum Part {
    /// Compile time of `energy-api`.
    Compile,
    /// The criterion benches.
    Criterion,
}

pub(crate) fn run(args: &BenchArgs) -> ExitCode {
    let root = crate::workspace_root();
    let wants = |p: Part| args.only.is_empty() || args.only.contains(&p);
    let result = (|| -> Result<(), String> {
        if wants(Part::Compile) {
            compile_times(&root, args.runs.max(1))?;
        }
        if wants(Part::Criterion) {
            let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
            let status = Command::new(cargo)
                .current_dir(&root)
                .args(["bench", "--workspace", "--all-features"])
                .status()
                .map_err(|e| format!("cannot run cargo bench: {e}"))?;
            if !status.success() {
                return Err(format!("cargo bench failed ({status})"));
            }
        }
        Ok(())
    })();
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Times clean debug builds of `energy-api` in a target folder of its own, dependencies built first.
fn compile_times(root: &Path, runs: usize) -> Result<(), String> {
    let target = root.join("target").join("bench-compile");
    let manifest = root.join("generated").join("Cargo.toml");
    let sections = section_features(&manifest)?;
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let build = |features: &[&str]| -> Result<Duration, String> {
        let mut command = Command::new(&cargo);
        command
            .current_dir(root)
            .args(["build", "--quiet", "--offline", "-p", "energy-api"])
            .args(features)
            .env("CARGO_TARGET_DIR", &target)
            .env("CARGO_INCREMENTAL", "0");
        let started = Instant::now();
        let status = command
            .status()
            .map_err(|e| format!("cannot run cargo: {e}"))?;
        if !status.success() {
            return Err(format!("cargo build {} failed", features.join(" ")));
        }
        Ok(started.elapsed())
    };
    let clean = || -> Result<(), String> {
        let status = Command::new(&cargo)
            .current_dir(root)
            .args(["clean", "--quiet", "-p", "energy-api"])
            .env("CARGO_TARGET_DIR", &target)
            .status()
            .map_err(|e| format!("cannot run cargo clean: {e}"))?;
        if status.success() {
            Ok(())
        } else {
            Err("cargo clean failed".to_owned())
        }
    };
    // Dependencies first, with every feature so that all of them are built.
    build(&[])?;
    println!(
        "clean debug build of energy-api alone (dependencies built; CARGO_INCREMENTAL=0), median of {runs}:"
    );
    println!("| features | seconds |");
    println!("|---|---|");
    let mut cases: Vec<(String, Vec<String>)> = vec![
        ("all (default)".to_owned(), vec![]),
        ("none".to_owned(), vec!["--no-default-features".to_owned()]),
    ];
    for s in &sections {
        cases.push((
            s.clone(),
            vec![
                "--no-default-features".to_owned(),
                "--features".to_owned(),
                s.clone(),
            ],
        ));
    }
    for (name, features) in cases {
        let features: Vec<&str> = features.iter().map(String::as_str).collect();
        let mut times = Vec::with_capacity(runs);
        for _ in 0..runs {
            clean()?;
            times.push(build(&features)?);
        }
        times.sort();
        println!("| {name} | {:.2} |", times[times.len() / 2].as_secs_f64());
    }
    Ok(())
}

/// The section features of the generated crate, from its manifest's `default` list.
fn section_features(manifest: &Path) -> Result<Vec<String>, String> {
    let text =
        std::fs::read_to_string(manifest).map_err(|e| format!("{}: {e}", manifest.display()))?;
    let line = text
        .lines()
        .find(|l| l.starts_with("default = ["))
        .ok_or_else(|| format!("{}: no default features", manifest.display()))?;
    Ok(line
        .trim_start_matches("default = [")
        .trim_end_matches(']')
        .split(',')
        .map(|f| f.trim().trim_matches('"').to_owned())
        .filter(|f| !f.is_empty())
        .collect())
}
