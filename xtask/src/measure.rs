//! Running and timing the commands of a measurement, for `cargo xtask bench` and its peer comparison
//! (`peer`): a crate built clean again and again, medians, a step's output kept for its error.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

/// One crate built clean again and again in a target folder of its own (debug, `CARGO_INCREMENTAL=0`),
/// its dependencies built once before: the compile time of the crate alone.
pub(crate) struct CleanBuild {
    manifest: PathBuf,
    package: String,
    target: PathBuf,
}

impl CleanBuild {
    /// The package `package` of the manifest `manifest`, built in `target`.
    pub(crate) fn new(manifest: &Path, package: &str, target: &Path) -> CleanBuild {
        CleanBuild {
            manifest: manifest.to_path_buf(),
            package: package.to_owned(),
            target: target.to_path_buf(),
        }
    }

    /// Builds and checks the crate with its default features, and so its dependencies (fetching any
    /// missing; `cargo check` keeps its dependencies' metadata apart from the built ones).
    pub(crate) fn prepare(&self) -> Result<(), String> {
        for subcommand in ["build", "check"] {
            let mut command = self.cargo(subcommand);
            command.arg("--quiet");
            run_step(
                &format!("{subcommand}ing {} and its dependencies", self.package),
                command,
            )?;
        }
        Ok(())
    }

    /// `cargo clean -p`, then the wall-clock time of `cargo build` with `features` (offline).
    pub(crate) fn time(&self, features: &[&str]) -> Result<Duration, String> {
        self.time_of("build", features)
    }

    /// `cargo clean -p`, then the wall-clock time of `cargo check` with `features` (offline): what an
    /// editor and `cargo clippy` pay for the crate.
    pub(crate) fn time_check(&self, features: &[&str]) -> Result<Duration, String> {
        self.time_of("check", features)
    }

    fn time_of(&self, subcommand: &str, features: &[&str]) -> Result<Duration, String> {
        let mut clean = self.cargo("clean");
        clean.arg("--quiet");
        run_step(&format!("cleaning {}", self.package), clean)?;
        let mut command = self.cargo(subcommand);
        command.args(["--quiet", "--offline"]).args(features);
        let started = Instant::now();
        run_step(&format!("{subcommand}ing {}", self.package), command)?;
        Ok(started.elapsed())
    }

    fn cargo(&self, subcommand: &str) -> Command {
        let mut command = Command::new(cargo());
        command
            .arg(subcommand)
            .arg("--manifest-path")
            .arg(&self.manifest)
            .args(["-p", &self.package])
            .env("CARGO_TARGET_DIR", &self.target)
            .env("CARGO_INCREMENTAL", "0");
        command
    }
}

/// The median (of two middle values, their mean).
pub(crate) fn median(times: &[Duration]) -> Duration {
    let mut sorted = times.to_vec();
    sorted.sort();
    match sorted.len() {
        0 => Duration::ZERO,
        n if n % 2 == 1 => sorted[n / 2],
        n => (sorted[n / 2 - 1] + sorted[n / 2]) / 2,
    }
}

/// The cargo that runs this task (`CARGO`), else `cargo` on the path.
pub(crate) fn cargo() -> String {
    std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned())
}

/// A command as a shell line, for messages.
pub(crate) fn command_line(command: &Command) -> String {
    std::iter::once(command.get_program())
        .chain(command.get_args())
        .map(|a| a.to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join(" ")
}

/// Runs one step of a measurement, its output captured; on failure, an error naming the step, the
/// command and the end of what it printed.
pub(crate) fn run_step(step: &str, mut command: Command) -> Result<Output, String> {
    let line = command_line(&command);
    let output = command
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("{step}: cannot run `{line}`: {e}"))?;
    if output.status.success() {
        return Ok(output);
    }
    Err(format!(
        "{step} failed ({}): `{line}`\n{}",
        output.status,
        excerpt(&crate::tools::output_text(&output))
    ))
}

/// The first 25 and the last 15 lines of a tool's output (cargo's first error, and its summary).
fn excerpt(text: &str) -> String {
    let lines: Vec<&str> = text.lines().collect();
    if lines.len() <= 40 {
        return crate::tools::clip(text);
    }
    let head = crate::tools::clip(&lines[..25].join("\n"));
    let tail = crate::tools::clip(&lines[lines.len() - 15..].join("\n"));
    format!("{head}\n… ({} lines left out)\n{tail}", lines.len() - 40)
}

/// The cargo feature of every catalogue section, from the schema (the crate's other features, such as
/// `rest`, are not sections).
pub(crate) fn section_features(root: &Path) -> Result<Vec<String>, String> {
    let model = energy_codegen::build_model(&root.join("schema")).map_err(|f| f.render(false))?;
    Ok(model.sections.iter().map(|s| s.feature.clone()).collect())
}

/// The lines of a stream of about `gigabytes` made by the stream generator (about 316 bytes a line:
/// see tests/examples/event_stream.rs).
pub(crate) fn lines_for(gigabytes: f64) -> u64 {
    (gigabytes * 1e9 / 316.0) as u64
}

/// The generator's stream of `lines` envelopes in `dir`, made once and reused by later runs.
pub(crate) fn generated_stream(
    dir: &Path,
    generator: &Path,
    lines: u64,
) -> Result<PathBuf, String> {
    let stream = dir.join(format!("stream-{lines}.ndjson"));
    if !stream.exists() {
        let file =
            std::fs::File::create(&stream).map_err(|e| format!("{}: {e}", stream.display()))?;
        let status = Command::new(generator)
            .arg(lines.to_string())
            .stdout(file)
            .status()
            .map_err(|e| format!("cannot run the stream generator: {e}"))?;
        if !status.success() {
            return Err("the stream generator failed".to_owned());
        }
    }
    Ok(stream)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failed_step_names_the_step_the_command_and_what_it_printed() {
        let mut command = Command::new("sh");
        command.args(["-c", "echo 'error: no such schema' >&2; exit 3"]);
        let error = run_step("running the peer", command).expect_err("exit 3 fails");
        assert!(error.starts_with("running the peer failed"), "{error}");
        assert!(
            error.contains("`sh -c echo 'error: no such schema' >&2; exit 3`"),
            "{error}"
        );
        assert!(error.contains("error: no such schema"), "{error}");
        let missing =
            run_step("running nothing", Command::new("/no/such/program")).expect_err("no program");
        assert!(
            missing.starts_with("running nothing: cannot run `/no/such/program`"),
            "{missing}"
        );
    }

    #[test]
    fn long_output_keeps_its_head_and_tail() {
        let text: String = (1..=100).map(|i| format!("line {i}\n")).collect();
        let kept = excerpt(&text);
        assert!(
            kept.contains("line 1\n") && kept.contains("line 25\n"),
            "{kept}"
        );
        assert!(
            !kept.contains("line 26\n") && !kept.contains("line 85\n"),
            "{kept}"
        );
        assert!(
            kept.contains("(60 lines left out)") && kept.ends_with("line 100"),
            "{kept}"
        );
    }

    #[test]
    fn the_median_of_an_even_count_is_the_mean_of_the_middle_two() {
        let s = Duration::from_secs;
        assert_eq!(median(&[s(4), s(1), s(3)]), s(3));
        assert_eq!(
            median(&[s(4), s(1), s(3), s(2)]),
            Duration::from_millis(2500)
        );
    }
}
