//! `cargo xtask compat`: compares the schema with the published baseline (or with the schema at a git
//! revision) and fails on a change a reader of a published version would reject; `--publish` records
//! the current schema as published.

use clap::ValueEnum;
use energy_codegen::compat::{self, Baseline, Format, Readers};
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

/// Arguments of `cargo xtask compat`.
#[derive(clap::Args)]
pub(crate) struct CompatArgs {
    /// Record the current schema as published: add every version not yet published to the baseline,
    /// refresh published items whose changes are allowed, and freeze golden payloads of the new versions.
    #[arg(long, conflicts_with = "against")]
    publish: bool,
    /// Compare with the schema at a git revision (a commit, tag or branch) instead of the baseline.
    #[arg(long, value_name = "REV")]
    against: Option<String>,
    /// How to print the findings.
    #[arg(long, value_enum, default_value_t = OutputFormat::Human)]
    format: OutputFormat,
    /// The schema folder.
    #[arg(long, value_name = "DIR")]
    schema: Option<PathBuf>,
    /// The published baseline (default: `published.lock` in the schema folder).
    #[arg(long, value_name = "FILE")]
    lock: Option<PathBuf>,
    /// Where golden payloads are frozen (default: `tests/golden/events`).
    #[arg(long, value_name = "DIR")]
    golden: Option<PathBuf>,
    /// The date sunsets are judged on, `YYYY-MM-DD` (default: today, UTC).
    #[arg(long, value_name = "DATE", value_parser = parse_date)]
    today: Option<String>,
    /// Judge breaking changes by the registered consumers only (`schema/consumers/`): a break that no
    /// active contract reads passes as a note. For a producer whose set of contracts is complete.
    #[arg(long, conflicts_with = "publish")]
    consumers_only: bool,
    /// Print, per event type and version, the consumer contracts that read it (and which published
    /// versions nobody reads) instead of comparing.
    #[arg(long, conflicts_with_all = ["publish", "against", "consumers_only"])]
    consumers: bool,
}

#[derive(Clone, Copy, ValueEnum)]
enum OutputFormat {
    /// rustc-style text and a summary line.
    Human,
    /// One JSON object per finding per line.
    Json,
    /// A changelog grouped by catalogue section.
    Markdown,
}

/// Exit codes: 0 nothing is an error, 1 something is, 2 the check could not run.
const CANNOT_RUN: u8 = 2;

pub(crate) fn run(args: &CompatArgs) -> ExitCode {
    let root = crate::paths::workspace_root();
    let schema = args.schema.clone().unwrap_or_else(|| root.join("schema"));
    let lock = args
        .lock
        .clone()
        .unwrap_or_else(|| schema.join(compat::LOCK_FILE));
    let golden = args
        .golden
        .clone()
        .unwrap_or_else(|| root.join(compat::GOLDEN_DIR));
    let today = args.today.clone().unwrap_or_else(today_utc);
    let format = match args.format {
        OutputFormat::Human => Format::Human,
        OutputFormat::Json => Format::Json,
        OutputFormat::Markdown => Format::Markdown,
    };
    let color = std::io::stdout().is_terminal();
    if args.publish {
        return publish(&schema, &lock, &golden, &today, format, color);
    }
    if args.consumers {
        return match compat::coverage(&schema, &lock) {
            Ok(coverage) => {
                print!("{}", coverage.render(format));
                ExitCode::SUCCESS
            }
            Err(failure) => {
                eprint!("{}", failure.render(std::io::stderr().is_terminal()));
                ExitCode::from(CANNOT_RUN)
            }
        };
    }
    let readers = if args.consumers_only {
        Readers::Registered
    } else {
        Readers::Anyone
    };
    let shown_lock = shown(&lock);
    let result = match &args.against {
        None => {
            compat::check(&schema, Baseline::Lock(&lock), &today, readers).map(|r| (r, shown_lock))
        }
        Some(rev) => {
            let files = match revision_files(&schema, rev) {
                Ok(files) => files,
                Err(e) => {
                    eprintln!("error: {e}");
                    return ExitCode::from(CANNOT_RUN);
                }
            };
            let baseline = Baseline::Revision {
                name: rev,
                files,
                lock: &lock,
            };
            compat::check(&schema, baseline, &today, readers).map(|r| (r, format!("`{rev}`")))
        }
    };
    match result {
        Ok((report, against)) => {
            print!("{}", report.render(format, &against, color));
            if report.errors() > 0 {
                ExitCode::FAILURE
            } else {
                ExitCode::SUCCESS
            }
        }
        Err(failure) => {
            eprint!("{}", failure.render(std::io::stderr().is_terminal()));
            ExitCode::from(CANNOT_RUN)
        }
    }
}

fn publish(
    schema: &Path,
    lock: &Path,
    golden: &Path,
    today: &str,
    format: Format,
    color: bool,
) -> ExitCode {
    match compat::publish(schema, lock, golden, today) {
        Ok((report, published)) => {
            if report.errors() > 0 {
                print!("{}", report.render(format, &shown(lock), color));
                eprintln!(
                    "error: not published: a change to a published item is an error (fix it, or waive it, first)"
                );
                return ExitCode::FAILURE;
            }
            eprintln!(
                "published: {} version(s) added, {} dropped after their sunset; {} golden payload file(s) written; {} {}",
                published.added.len(),
                published.dropped.len(),
                published.golden_written,
                shown(lock),
                if published.lock_changed {
                    "written"
                } else {
                    "unchanged"
                }
            );
            ExitCode::SUCCESS
        }
        Err(failure) => {
            eprint!("{}", failure.render(std::io::stderr().is_terminal()));
            ExitCode::from(CANNOT_RUN)
        }
    }
}

/// The check `cargo xtask test` runs: the schema against the published baseline.
pub(crate) fn check(root: &Path) -> Result<(), String> {
    let schema = root.join("schema");
    let lock = schema.join(compat::LOCK_FILE);
    let report = compat::check(
        &schema,
        Baseline::Lock(&lock),
        &today_utc(),
        Readers::Anyone,
    )
    .map_err(|f| f.render(false))?;
    let text = report.render(Format::Human, &shown(&lock), false);
    if report.errors() > 0 {
        return Err(text);
    }
    eprint!("{text}");
    Ok(())
}

fn shown(path: &Path) -> String {
    let cwd = std::env::current_dir().unwrap_or_default();
    format!("`{}`", path.strip_prefix(&cwd).unwrap_or(path).display())
}

/// The schema files of `rev`, read from git without a checkout: (path relative to the schema folder,
/// contents).
fn revision_files(schema: &Path, rev: &str) -> Result<Vec<(String, Vec<u8>)>, String> {
    let git = |args: &[&str]| -> Result<Vec<u8>, String> {
        let output = Command::new("git")
            .current_dir(schema)
            .args(args)
            .output()
            .map_err(|e| format!("cannot run git: {e}"))?;
        if output.status.success() {
            Ok(output.stdout)
        } else {
            Err(String::from_utf8_lossy(&output.stderr).trim().to_owned())
        }
    };
    let commit = format!("{rev}^{{commit}}");
    git(&["rev-parse", "--verify", "--quiet", &commit])
        .map_err(|_| format!("`{rev}` is not a revision of this repository"))?;
    let prefix = String::from_utf8_lossy(&git(&["rev-parse", "--show-prefix"])?)
        .trim()
        .to_owned();
    let listing = git(&[
        "ls-tree",
        "-r",
        "-z",
        "--full-name",
        "--name-only",
        &commit,
        "--",
        ".",
    ])?;
    let mut files = Vec::new();
    for path in listing.split(|&b| b == 0).filter(|p| !p.is_empty()) {
        let path = String::from_utf8_lossy(path).into_owned();
        let Some(relative) = path.strip_prefix(&prefix) else {
            continue;
        };
        if !relative.ends_with(".yaml") {
            continue;
        }
        let contents = git(&["show", &format!("{rev}:{path}")])?;
        files.push((relative.to_owned(), contents));
    }
    if files.is_empty() {
        return Err(format!("`{rev}` has no schema files under `{prefix}`"));
    }
    Ok(files)
}

fn parse_date(text: &str) -> Result<String, String> {
    let valid = text.len() == 10
        && text.as_bytes()[4] == b'-'
        && text.as_bytes()[7] == b'-'
        && text
            .bytes()
            .enumerate()
            .all(|(i, b)| i == 4 || i == 7 || b.is_ascii_digit());
    if valid {
        Ok(text.to_owned())
    } else {
        Err("expected a date `YYYY-MM-DD`".to_owned())
    }
}

/// Today's date in UTC, `YYYY-MM-DD` (days since 1970 to a civil date, after Howard Hinnant).
pub(crate) fn today_utc() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let days = i64::try_from(secs / 86_400).unwrap_or(0);
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_are_checked_and_today_is_a_date() {
        assert!(parse_date("2027-06-30").is_ok());
        for bad in ["2027-6-30", "27-06-30", "2027/06/30", "tomorrow"] {
            assert!(parse_date(bad).is_err(), "{bad}");
        }
        let today = today_utc();
        assert!(parse_date(&today).is_ok(), "{today}");
        assert!(today.as_str() > "2026-01-01");
    }
}
