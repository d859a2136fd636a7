//! `cargo xtask bench`: whole-process figures for BENCHMARKS.md, beside the criterion benches.
//!
//! - `compile`: a clean debug build of `energy-api` alone (its dependencies already built), with all
//!   features, with none, and with each section's feature alone;
//! - `validate`: `energy events validate` (release) on a multi-gigabyte stream: throughput and peak memory;
//! - `drift`: `energy events drift` against `validate` on the same streams, one of them as varied as a
//!   stream can be (`crate::bench_drift`);
//! - `criterion`: runs the criterion benches (generation, decoding, the REST client);
//! - `bus`: the event bus end to end on a real `nats-server` (`runtime/benches/bus.rs`);
//! - `server`: the REST server under `wrk` against hand-written axum and bare hyper
//!   (`server/benches/server.rs`);
//! - `--peer`: the same payload types through a peer generator, cargo-typify (pinned, installed by the
//!   command into `<target>/peer-tools/`): generation time and compile time, ours against the peer's, as
//!   a Markdown table of medians and ratios with the date, `nproc` and rustc version (see
//!   [`crate::peer`]; the timing itself is [`crate::measure`]). With `--peer`, only the parts named by `--only` run beside it.
//! - `--check` (`--bless`): the decoding paths' instruction counts against their baseline
//!   ([`crate::bench_check`]).

use crate::measure::{CleanBuild, cargo, median, section_features};
use std::path::Path;
use std::process::{Command, ExitCode};

/// Arguments of `cargo xtask bench`.
#[derive(clap::Args)]
pub(crate) struct BenchArgs {
    /// Which figures to measure (default: all; with `--peer`, none beside it).
    #[arg(long = "only", value_enum)]
    only: Vec<Part>,
    /// Repetitions of each compile measurement (the median is reported).
    #[arg(long, default_value_t = 3)]
    runs: usize,
    /// Size of the stream `validate` checks, in gigabytes.
    #[arg(long, default_value_t = 2.0)]
    gigabytes: f64,
    /// Compare with cargo-typify (pinned; installed into `<target>/peer-tools/` on first use) on the
    /// same types: generation and compile time, ours/peer, as a Markdown table (the compile rounds are
    /// `--runs`; generation runs at least 5 times each).
    #[arg(long)]
    peer: bool,
    /// Count the instructions of each decoding path under callgrind on small fixed streams and compare
    /// them with `BENCHMARKS.instructions`: more than 3 % over fails (the only thing this runs).
    #[arg(long)]
    check: bool,
    /// With `--check`: write the counts as the new baseline instead of failing on them.
    #[arg(long, requires = "check")]
    bless: bool,
}

#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum Part {
    /// Compile time of `energy-api`.
    Compile,
    /// `energy events validate` on a large stream.
    Validate,
    /// `energy events drift` against `validate` on the same large streams: throughput and memory.
    Drift,
    /// The criterion benches (and the bus bench, as `cargo bench` runs every bench).
    Criterion,
    /// The event bus end to end on a real `nats-server`: typed against a bare `async-nats` loop, and
    /// memory over a million events.
    Bus,
    /// The event bus end to end on a real Kafka-protocol broker (`tansu`): typed against a bare
    /// `rdkafka` loop, and memory over a million events.
    BusKafka,
    /// The REST server under `wrk`: through the trait and router, against hand-written axum handlers
    /// and a bare hyper service; memory at 1,000 keep-alive connections (`server/benches/server.rs`).
    Server,
}

pub(crate) fn run(args: &BenchArgs) -> ExitCode {
    let root = crate::paths::workspace_root();
    if args.check {
        return match crate::bench_check::check(&root, args.bless) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("error: {e}");
                ExitCode::FAILURE
            }
        };
    }
    let wants = |p: Part| args.only.contains(&p) || (args.only.is_empty() && !args.peer);
    let result = (|| -> Result<(), String> {
        if args.peer {
            crate::peer::compare(&root, args.runs.max(1))?;
        }
        if wants(Part::Compile) {
            compile_times(&root, args.runs.max(1))?;
        }
        if wants(Part::Validate) {
            validate_stream(&root, args.gigabytes)?;
        }
        if wants(Part::Drift) {
            crate::bench_drift::run(&root, args.gigabytes)?;
        }
        if wants(Part::Bus) {
            let server = crate::tools::Tools::install_nats_server(&root)?;
            let status = Command::new(cargo())
                .current_dir(&root)
                .env("NATS_SERVER", &server)
                .args([
                    "bench",
                    "-p",
                    "energy-runtime",
                    "--features",
                    "bus",
                    "--bench",
                    "bus",
                ])
                .status()
                .map_err(|e| format!("cannot run the bus bench: {e}"))?;
            if !status.success() {
                return Err(format!("the bus bench failed ({status})"));
            }
        }
        if wants(Part::BusKafka) {
            let tansu = crate::tools::Tools::install_tansu(&root)?;
            let status = Command::new(cargo())
                .current_dir(&root)
                .env("TANSU", &tansu)
                .args([
                    "bench",
                    "-p",
                    "energy-runtime",
                    "--features",
                    "kafka",
                    "--bench",
                    "bus_kafka",
                ])
                .status()
                .map_err(|e| format!("cannot run the Kafka bus bench: {e}"))?;
            if !status.success() {
                return Err(format!("the Kafka bus bench failed ({status})"));
            }
        }
        if wants(Part::Server) {
            if Command::new("wrk").arg("--version").output().is_err() {
                crate::tools::install_debian_package("wrk", "the server bench's load generator")?;
            }
            let status = Command::new(cargo())
                .current_dir(&root)
                .args(["bench", "-p", "energy-server", "--bench", "server"])
                .status()
                .map_err(|e| format!("cannot run the server bench: {e}"))?;
            if !status.success() {
                return Err(format!("the server bench failed ({status})"));
            }
        }
        if wants(Part::Criterion) {
            let server = crate::tools::Tools::install_nats_server(&root)?;
            let status = Command::new(cargo())
                .current_dir(&root)
                .env("NATS_SERVER", &server)
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
    let manifest = root.join("generated").join("Cargo.toml");
    let sections = section_features(root)?;
    let ours = CleanBuild::new(
        &manifest,
        "energy-api",
        &crate::paths::target_dir(root).join("bench-compile"),
    );
    ours.prepare()?;
    println!(
        "clean debug build of energy-api alone (dependencies built; CARGO_INCREMENTAL=0), median of {runs}:"
    );
    println!("| features | median (s) | fastest – slowest (s) |");
    println!("|---|---|---|");
    let mut cases: Vec<(String, Vec<&str>)> = vec![
        ("all (default)".to_owned(), vec![]),
        ("none".to_owned(), vec!["--no-default-features"]),
    ];
    for s in &sections {
        cases.push((
            s.clone(),
            vec!["--no-default-features", "--features", s.as_str()],
        ));
    }
    for (name, features) in cases {
        let mut times = Vec::with_capacity(runs);
        for _ in 0..runs {
            times.push(ours.time(&features)?);
        }
        times.sort();
        println!(
            "| {name} | {:.2} | {:.2} – {:.2} |",
            median(&times).as_secs_f64(),
            times[0].as_secs_f64(),
            times[times.len() - 1].as_secs_f64()
        );
    }
    Ok(())
}

/// Runs `energy events validate` (release) on a stream of `gigabytes`, reporting throughput and peak
/// memory (`/usr/bin/time`), and the same on a tenth of it, to show that memory does not grow.
fn validate_stream(root: &Path, gigabytes: f64) -> Result<(), String> {
    let run = |args: &[&str]| -> Result<(), String> {
        let status = Command::new(cargo())
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
        "energy-cli",
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
    let target = crate::paths::target_dir(root);
    let dir = target.join("bench-validate");
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let energy = target.join("release/energy");
    let generator = target.join("release/examples/event_stream");
    println!("energy events validate (release), one stream cycling through all 288 versions:");
    println!("| stream | lines | seconds | MB/s | peak RSS |");
    println!("|---|---|---|---|---|");
    for size in [gigabytes / 10.0, gigabytes] {
        let lines = crate::measure::lines_for(size);
        let stream = crate::measure::generated_stream(&dir, &generator, lines)?;
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
    against_jq(&energy, &dir, &generator)
}

/// `energy events validate` against `jq -c .` (which only parses and writes each line again) on the
/// same 100 MB stream, each the best of three runs, alternately: the ratio of their times (target
/// ≤ 0.10, issue 55). `jq` is Debian's package.
fn against_jq(energy: &Path, dir: &Path, generator: &Path) -> Result<(), String> {
    let stream = crate::measure::generated_stream(dir, generator, crate::measure::lines_for(0.1))?;
    let time = |program: &Path, args: &[&str]| -> Result<f64, String> {
        let input =
            std::fs::File::open(&stream).map_err(|e| format!("{}: {e}", stream.display()))?;
        let start = std::time::Instant::now();
        let status = Command::new(program)
            .args(args)
            .stdin(input)
            .stdout(std::process::Stdio::null())
            .status()
            .map_err(|e| format!("cannot run {}: {e}", program.display()))?;
        if !status.success() {
            return Err(format!("{} {} failed", program.display(), args.join(" ")));
        }
        Ok(start.elapsed().as_secs_f64())
    };
    let jq = Path::new("jq");
    let (mut ours, mut theirs) = (f64::MAX, f64::MAX);
    for _ in 0..3 {
        ours = ours.min(time(energy, &["events", "validate", "-"])?);
        theirs = theirs.min(time(jq, &["-c", "."])?);
    }
    println!(
        "\n`energy events validate` {ours:.2} s, `jq -c .` {theirs:.2} s on the same 100 MB: {:.4}× (target ≤ 0.10)",
        ours / theirs
    );
    Ok(())
}
