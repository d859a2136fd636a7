//! `cargo xtask bench`: whole-process figures for BENCHMARKS.md, beside the criterion benches.
//!
//! - `compile`: a clean debug build of `energy-api` alone (its dependencies already built), with all
//!   features, with none, and with each section's feature alone;
//! - `validate`: `energy events validate` (release) on a multi-gigabyte stream: throughput and peak memory;
//! - `criterion`: runs the criterion benches (generation, decoding, the REST client).

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
    /// Size of the stream `validate` checks, in gigabytes.
    #[arg(long, default_value_t = 2.0)]
    gigabytes: f64,
}

#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum Part {
    /// Compile time of `energy-api`.
    Compile,
    /// `energy events validate` on a large stream.
    Validate,
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
        if wants(Part::Validate) {
            validate_stream(&root, args.gigabytes)?;
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
    println!("| features | median (s) | fastest – slowest (s) |");
    println!("|---|---|---|");
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
        println!(
            "| {name} | {:.2} | {:.2} – {:.2} |",
            times[times.len() / 2].as_secs_f64(),
            times[0].as_secs_f64(),
            times[times.len() - 1].as_secs_f64()
        );
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

/// Runs `energy events validate` (release) on a stream of `gigabytes`, reporting throughput and peak
/// memory (`/usr/bin/time`), and the same on a tenth of it, to show that memory does not grow.
fn validate_stream(root: &Path, gigabytes: f64) -> Result<(), String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let run = |args: &[&str]| -> Result<(), String> {
        let status = Command::new(&cargo)
            .current_dir(root)
            .args(args)
            .status()
            .map_err(|e| format!("cannot run cargo: {e}"))?;
        if status.success() {
            Ok(())
        } else {
            Err(format!("cargo {} failed", args.join(" ")))
        }
    };
    run(&[
        "build",
        "--quiet",
        "--release",
        "-p",
        "energy-runtime",
        "--bin",
        "energy",
    ])?;
    run(&[
        "build",
        "--quiet",
        "--release",
        "-p",
        "energy-tests",
        "--example",
        "event_stream",
    ])?;
    let dir = root.join("target").join("bench-validate");
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let energy = root.join("target/release/energy");
    let generator = root.join("target/release/examples/event_stream");
    println!("energy events validate (release), one stream cycling through all 288 versions:");
    println!("| stream | lines | seconds | MB/s | peak RSS |");
    println!("|---|---|---|---|---|");
    for size in [gigabytes / 10.0, gigabytes] {
        // About 316 bytes a line (see tests/examples/event_stream.rs).
        let lines = (size * 1e9 / 316.0) as u64;
        let stream = dir.join(format!("stream-{lines}.ndjson"));
        if !stream.exists() {
            let file =
                std::fs::File::create(&stream).map_err(|e| format!("{}: {e}", stream.display()))?;
            let status = Command::new(&generator)
                .arg(lines.to_string())
                .stdout(file)
                .status()
                .map_err(|e| format!("cannot run the stream generator: {e}"))?;
            if !status.success() {
                return Err("the stream generator failed".to_owned());
            }
        }
        let bytes = std::fs::metadata(&stream).map_err(|e| e.to_string())?.len();
        let output = Command::new("/usr/bin/time")
            .args(["-f", "%e %M"])
            .arg(&energy)
            .args(["events", "validate"])
            .arg(&stream)
            .stdout(std::process::Stdio::null())
            .output()
            .map_err(|e| format!("cannot run /usr/bin/time (Debian package `time`): {e}"))?;
        let stderr = String::from_utf8_lossy(&output.stderr);
        let last = stderr.lines().last().unwrap_or("");
        let mut fields = last.split_whitespace();
        let seconds: f64 = fields
            .next()
            .and_then(|s| s.parse().ok())
            .ok_or_else(|| format!("no timing in: {last}"))?;
        let kib: f64 = fields
            .next()
            .and_then(|s| s.parse().ok())
            .ok_or_else(|| format!("no RSS in: {last}"))?;
        if !output.status.success() {
            return Err(format!(
                "energy events validate failed on the generated stream:\n{stderr}"
            ));
        }
        println!(
            "| {:.2} GB | {lines} | {seconds:.1} | {:.0} | {:.1} MiB |",
            bytes as f64 / 1e9,
            bytes as f64 / 1_048_576.0 / seconds,
            kib / 1024.0
        );
    }
    Ok(())
}
