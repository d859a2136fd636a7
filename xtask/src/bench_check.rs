//! `cargo xtask bench --check`: instruction counts guard the decoding paths.
//!
//! The decoding bench (`tests/benches/event_decoding.rs`) in its `count` mode runs each path once
//! (after a pass that warms it) over small fixed streams; callgrind counts the instructions of each
//! pass alone (`--toggle-collect` and `--dump-after` on the bench's `counted_pass`, a dump per
//! pass), so setup is not counted and a count does not move with the machine's load. The counts are compared with
//! [`BASELINE`]: a count more than [`TOLERANCE`] over its baseline fails; one more than that under it
//! is reported, so that the baseline is blessed again and the guard stays tight. `--bless` writes the
//! counts as the new baseline (an explicit step, whose diff a review sees).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The baseline, beside BENCHMARKS.md.
pub(crate) const BASELINE: &str = "BENCHMARKS.instructions";

/// How far a count may rise over its baseline (and fall under it before it is reported).
pub(crate) const TOLERANCE: f64 = 0.03;

/// The command that writes [`BASELINE`], named in its header.
const BLESS: &str = "cargo xtask bench --check --bless";

/// The step of `cargo xtask test`: the counts against the baseline.
pub(crate) fn step(root: &Path) -> Result<(), String> {
    check(root, false)
}

/// Counts every path and compares the counts with the baseline, or with `bless` writes them as the
/// baseline.
pub(crate) fn check(root: &Path, bless: bool) -> Result<(), String> {
    if Command::new("valgrind")
        .arg("--version")
        .stdout(Stdio::null())
        .status()
        .is_err()
    {
        crate::tools::install_debian_package(
            "valgrind",
            "the instruction counts of `cargo xtask bench --check` (callgrind)",
        )?;
    }
    let bench = build_bench(root)?;
    let counts = count(root, &bench)?;
    let baseline_path = root.join(BASELINE);
    let baseline = match std::fs::read_to_string(&baseline_path) {
        Ok(text) => parse_baseline(&text).map_err(|e| format!("{BASELINE}: {e}"))?,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound && bless => BTreeMap::new(),
        Err(e) => {
            return Err(format!(
                "cannot read {}: {e} (write it with `{BLESS}`)",
                baseline_path.display()
            ));
        }
    };
    let report = compare(&baseline, &counts);
    println!("{}", report.table);
    if bless {
        std::fs::write(&baseline_path, write_baseline(&counts))
            .map_err(|e| format!("cannot write {}: {e}", baseline_path.display()))?;
        println!(
            "wrote {} counts to {BASELINE}: commit it with the change",
            counts.len()
        );
        return Ok(());
    }
    if !report.under.is_empty() {
        println!(
            "{} path(s) more than {:.0} % under the baseline: `{BLESS}` keeps the guard tight",
            report.under.len(),
            TOLERANCE * 100.0
        );
    }
    if report.failures.is_empty() {
        println!(
            "every path within {:.0} % of {BASELINE} or under it",
            TOLERANCE * 100.0
        );
        Ok(())
    } else {
        Err(format!(
            "{}\n(if the change is meant, write the new baseline with `{BLESS}` and commit it)",
            report.failures.join("\n")
        ))
    }
}

/// Builds the decoding bench (release, as `cargo bench` builds it) and gives its executable.
fn build_bench(root: &Path) -> Result<PathBuf, String> {
    let output = Command::new(crate::measure::cargo())
        .current_dir(root)
        .args([
            "bench",
            "-p",
            "energy-tests",
            "--bench",
            "event_decoding",
            "--no-run",
            "--message-format=json-render-diagnostics",
        ])
        .stderr(Stdio::inherit())
        .output()
        .map_err(|e| format!("cannot run cargo bench: {e}"))?;
    if !output.status.success() {
        return Err(format!(
            "building the decoding bench failed ({})",
            output.status
        ));
    }
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())
        .filter(|m| m["reason"] == "compiler-artifact" && m["target"]["name"] == "event_decoding")
        .find_map(|m| m["executable"].as_str().map(PathBuf::from))
        .ok_or_else(|| "cargo built no executable of the decoding bench".to_owned())
}

/// A (stream, path) and its count.
type Counts = BTreeMap<(String, String), u64>;

/// Runs the bench's `count` mode under callgrind: one dump per counted pass, in the order the bench
/// names them on its standard output.
fn count(root: &Path, bench: &Path) -> Result<Counts, String> {
    let dir = crate::paths::target_dir(root).join("bench-check");
    if dir.exists() {
        std::fs::remove_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let out_file = dir.join("callgrind.out");
    let mut command = Command::new("valgrind");
    command
        .current_dir(root)
        .args([
            "--tool=callgrind",
            "--collect-atstart=no",
            "--toggle-collect=*counted_pass*",
            // Callgrind 3.19 matches a dump's function by its whole name, not by a pattern.
            "--dump-after=event_decoding::counted_pass",
        ])
        .arg(format!("--callgrind-out-file={}", out_file.display()))
        .arg(bench)
        .arg("count");
    eprintln!("counting: {}", crate::measure::command_line(&command));
    let output = command
        .output()
        .map_err(|e| format!("cannot run valgrind: {e}"))?;
    if !output.status.success() {
        return Err(format!(
            "the bench's count mode failed under valgrind ({}):\n{}",
            output.status,
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    let passes: Vec<(String, String)> = String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter_map(|line| line.strip_prefix("counted: "))
        .filter_map(|rest| rest.split_once(' '))
        .map(|(stream, path)| (stream.to_owned(), path.to_owned()))
        .collect();
    let mut counts = Counts::new();
    for (n, pass) in passes.into_iter().enumerate() {
        // Callgrind numbers its dumps from 1, after the name it was given.
        let dump = dir.join(format!("callgrind.out.{}", n + 1));
        let text =
            std::fs::read_to_string(&dump).map_err(|e| format!("{}: {e}", dump.display()))?;
        let total = text
            .lines()
            .find_map(|l| {
                l.strip_prefix("totals: ")
                    .or_else(|| l.strip_prefix("summary: "))
            })
            .and_then(|n| n.trim().parse::<u64>().ok())
            .ok_or_else(|| format!("{}: no total of instructions", dump.display()))?;
        counts.insert(pass, total);
    }
    if counts.is_empty() {
        return Err("the bench's count mode counted no pass".to_owned());
    }
    Ok(counts)
}

/// The lines of a baseline file: `stream path count`, `#` comments.
fn parse_baseline(text: &str) -> Result<Counts, String> {
    let mut counts = Counts::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let fields: Vec<&str> = line.split_whitespace().collect();
        let [stream, path, count] = fields.as_slice() else {
            return Err(format!(
                "line {}: expected `stream path count`, found `{line}`",
                n + 1
            ));
        };
        let count = count
            .parse()
            .map_err(|e| format!("line {}: count `{count}`: {e}", n + 1))?;
        counts.insert(((*stream).to_owned(), (*path).to_owned()), count);
    }
    Ok(counts)
}

/// The baseline file of `counts`, sorted, one line per (stream, path).
fn write_baseline(counts: &Counts) -> String {
    let mut text = format!(
        "# Instructions of each path of the decoding bench (tests/benches/event_decoding.rs, its `count`\n\
         # mode) on small fixed streams, counted by callgrind: the baseline of `cargo xtask bench --check`,\n\
         # which fails when a count is more than {:.0} % over its line. Written by `{BLESS}`.\n\
         # stream path instructions\n",
        TOLERANCE * 100.0
    );
    for ((stream, path), count) in counts {
        text += &format!("{stream} {path} {count}\n");
    }
    text
}

/// The comparison of counts with a baseline.
struct Report {
    /// A Markdown table of every count: baseline, now, change.
    table: String,
    /// One line per count over the tolerance, or missing from either side.
    failures: Vec<String>,
    /// The counts more than the tolerance under their baseline.
    under: Vec<String>,
}

fn compare(baseline: &Counts, counts: &Counts) -> Report {
    let mut table =
        "| stream | path | baseline | now | change |\n|---|---|---|---|---|\n".to_owned();
    let mut failures = Vec::new();
    let mut under = Vec::new();
    let keys: std::collections::BTreeSet<&(String, String)> =
        baseline.keys().chain(counts.keys()).collect();
    for key @ (stream, path) in keys {
        let (was, now) = (baseline.get(key), counts.get(key));
        let change = match (was, now) {
            (Some(&was), Some(&now)) => {
                let change = now as f64 / was as f64 - 1.0;
                let text = format!("{:+.2} %", change * 100.0);
                if change > TOLERANCE {
                    failures.push(format!(
                        "{stream} {path}: {now} instructions, {text} over the baseline's {was}"
                    ));
                    format!("**{text}** (over)")
                } else if change < -TOLERANCE {
                    under.push(format!("{stream} {path}"));
                    format!("{text} (under: bless)")
                } else {
                    text
                }
            }
            (None, Some(_)) => {
                failures.push(format!("{stream} {path}: not in the baseline"));
                "new".to_owned()
            }
            (Some(_), None) => {
                failures.push(format!("{stream} {path}: in the baseline, not counted"));
                "gone".to_owned()
            }
            (None, None) => continue,
        };
        let show = |c: Option<&u64>| c.map_or("—".to_owned(), u64::to_string);
        table += &format!(
            "| {stream} | {path} | {} | {} | {change} |\n",
            show(was),
            show(now)
        );
    }
    Report {
        table,
        failures,
        under,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn counts(lines: &[(&str, &str, u64)]) -> Counts {
        lines
            .iter()
            .map(|(s, p, c)| (((*s).to_owned(), (*p).to_owned()), *c))
            .collect()
    }

    #[test]
    fn over_fails_under_is_reported_and_the_file_reads_back() {
        let baseline = counts(&[("zipf", "read", 1000), ("zipf", "write", 1000)]);
        let now = counts(&[("zipf", "read", 1031), ("zipf", "write", 960)]);
        let report = compare(&baseline, &now);
        assert_eq!(report.failures.len(), 1, "{:?}", report.failures);
        assert!(report.failures[0].starts_with("zipf read"));
        assert_eq!(report.under, ["zipf write"]);
        assert!(compare(&baseline, &baseline).failures.is_empty());
        assert_eq!(parse_baseline(&write_baseline(&now)), Ok(now));
        assert!(parse_baseline("zipf read many").is_err());
    }
}
