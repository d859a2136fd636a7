//! `cargo xtask bench --only drift`: `energy events drift` against `energy events validate` on the same
//! multi-gigabyte streams (release builds): throughput, the ratio of the two, and peak memory.
//!
//! Two streams of the same size: the generator's (every one of the 288 versions in turn, no drift),
//! and a varied one made from it, where every line carries an undeclared member of a name of its own
//! (`drift_<line>`), a string of a value of its own: the most variety a stream can have, which the
//! drift's tables must hold to their bounds (what they drop is counted and said).

use crate::measure::cargo;
use std::io::{BufRead, BufReader, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// Peak RSS and seconds of one run.
struct Run {
    seconds: f64,
    kib: f64,
    code: Option<i32>,
}

fn timed(energy: &Path, args: &[&str], stream: &Path) -> Result<Run, String> {
    let output = Command::new("/usr/bin/time")
        .args(["-f", "%e %M"])
        .arg(energy)
        .args(args)
        .arg(stream)
        .stdout(Stdio::null())
        .output()
        .map_err(|e| format!("cannot run /usr/bin/time (Debian package `time`): {e}"))?;
    let stderr = String::from_utf8_lossy(&output.stderr);
    let last = stderr.lines().last().unwrap_or("");
    let mut fields = last.split_whitespace();
    let seconds = fields
        .next()
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| format!("no timing in: {stderr}"))?;
    let kib = fields
        .next()
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| format!("no RSS in: {stderr}"))?;
    Ok(Run {
        seconds,
        kib,
        code: output.status.code(),
    })
}

fn build(root: &Path, args: &[&str]) -> Result<(), String> {
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
}

/// `plain` with an undeclared member of its own in every payload (before the payload's last `}`,
/// which the generator writes last in the envelope).
fn varied_stream(plain: &Path) -> Result<PathBuf, String> {
    let varied = plain.with_extension("varied.ndjson");
    if varied.exists() {
        return Ok(varied);
    }
    let input = std::fs::File::open(plain).map_err(|e| format!("{}: {e}", plain.display()))?;
    let output =
        std::fs::File::create(&varied).map_err(|e| format!("{}: {e}", varied.display()))?;
    let mut out = BufWriter::with_capacity(1 << 20, output);
    let mut reader = BufReader::with_capacity(1 << 20, input);
    let mut line = String::new();
    let mut n = 0u64;
    loop {
        line.clear();
        let read = reader
            .read_line(&mut line)
            .map_err(|e| format!("{}: {e}", plain.display()))?;
        if read == 0 {
            break;
        }
        let text = line.trim_end();
        let written = match text.strip_suffix("}}") {
            Some(head) if !head.ends_with('{') => {
                writeln!(out, "{head},\"drift_{n}\":\"value {n}\"}}}}")
            }
            _ => writeln!(out, "{text}"),
        };
        written.map_err(|e| format!("{}: {e}", varied.display()))?;
        n += 1;
    }
    out.flush()
        .map_err(|e| format!("{}: {e}", varied.display()))?;
    Ok(varied)
}

/// Runs validate and drift on each stream, printing a Markdown table.
pub(crate) fn run(root: &Path, gigabytes: f64) -> Result<(), String> {
    build(
        root,
        &[
            "build",
            "--quiet",
            "--release",
            "-p",
            "energy-cli",
            "--bin",
            "energy",
        ],
    )?;
    build(
        root,
        &[
            "build",
            "--quiet",
            "--release",
            "-p",
            "energy-tests",
            "--example",
            "event_stream",
        ],
    )?;
    let target = crate::paths::target_dir(root);
    let dir = target.join("bench-validate");
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let energy = target.join("release/energy");
    let generator = target.join("release/examples/event_stream");
    let plain =
        crate::measure::generated_stream(&dir, &generator, crate::measure::lines_for(gigabytes))?;
    let varied = varied_stream(&plain)?;
    println!("energy events drift against energy events validate (release), the same stream each:");
    println!(
        "| stream | GB | validate s | validate MB/s | drift s | drift MB/s | drift / validate | validate peak RSS | drift peak RSS |"
    );
    println!("|---|---|---|---|---|---|---|---|---|");
    for (name, stream) in [
        ("every version in turn", &plain),
        ("an undeclared member of its own on every line", &varied),
    ] {
        let bytes = std::fs::metadata(stream).map_err(|e| e.to_string())?.len();
        let validate = timed(&energy, &["events", "validate"], stream)?;
        let drift = timed(&energy, &["events", "drift", "--format", "json"], stream)?;
        if validate.code != Some(0) || !matches!(drift.code, Some(0 | 1)) {
            return Err(format!(
                "unexpected exit statuses on {}: validate {:?}, drift {:?}",
                stream.display(),
                validate.code,
                drift.code
            ));
        }
        let mb = bytes as f64 / 1_048_576.0;
        println!(
            "| {name} | {:.2} | {:.1} | {:.0} | {:.1} | {:.0} | {:.2}× | {:.1} MiB | {:.1} MiB |",
            bytes as f64 / 1e9,
            validate.seconds,
            mb / validate.seconds,
            drift.seconds,
            mb / drift.seconds,
            validate.seconds / drift.seconds,
            validate.kib / 1024.0,
            drift.kib / 1024.0
        );
    }
    Ok(())
}
