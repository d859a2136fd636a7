//! `cargo xtask codegen`: regenerate `generated/` from `schema/`, or check that it is up to date.

use clap::ValueEnum;
use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;

/// Arguments of `cargo xtask codegen`.
#[derive(clap::Args)]
pub(crate) struct CodegenArgs {
    /// Write nothing; fail and list the stale files if the output is not up to date.
    #[arg(long)]
    check: bool,
    /// The schema folder.
    #[arg(long, value_name = "DIR")]
    schema: Option<PathBuf>,
    /// The output folder (the `energy-api` crate).
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// How to print schema errors.
    #[arg(long, value_enum, default_value_t = MessageFormat::Human)]
    message_format: MessageFormat,
}

#[derive(Clone, Copy, ValueEnum)]
enum MessageFormat {
    /// rustc-style text.
    Human,
    /// One JSON object per line, for editors and CI annotations.
    Json,
}

pub(crate) fn run(args: &CodegenArgs) -> ExitCode {
    let root = crate::paths::workspace_root();
    let schema = args.schema.clone().unwrap_or_else(|| root.join("schema"));
    let out = args.out.clone().unwrap_or_else(|| root.join("generated"));
    let cache = format_cache(&root);
    let files = match energy_codegen::generate(&schema, cache.as_ref()) {
        Ok(files) => files,
        Err(failure) => {
            match args.message_format {
                MessageFormat::Human => {
                    eprint!("{}", failure.render(std::io::stderr().is_terminal()))
                }
                MessageFormat::Json => print!("{}", failure.to_json_lines()),
            }
            return ExitCode::FAILURE;
        }
    };
    let report = match energy_codegen::write_files(&out, &files, args.check) {
        Ok(report) => report,
        Err(e) => {
            eprintln!("error: cannot write generated files: {e}");
            return ExitCode::FAILURE;
        }
    };
    let shown = out
        .strip_prefix(std::env::current_dir().unwrap_or_default())
        .unwrap_or(&out)
        .display();
    if args.check {
        if report.is_clean() {
            eprintln!(
                "{} generated files in {shown} are up to date",
                report.unchanged
            );
            return ExitCode::SUCCESS;
        }
        for f in &report.changed {
            eprintln!("stale: {shown}/{f}");
        }
        for f in &report.removed {
            eprintln!("no longer generated: {shown}/{f}");
        }
        eprintln!(
            "error: {} generated file(s) out of date; run `cargo xtask codegen` and commit the result",
            report.changed.len() + report.removed.len()
        );
        return ExitCode::FAILURE;
    }
    eprintln!(
        "generated {} files in {shown}: {} written, {} removed, {} unchanged",
        files.len(),
        report.changed.len(),
        report.removed.len(),
        report.unchanged
    );
    ExitCode::SUCCESS
}

/// The generator's cache of formatted files, in the target folder, for this build of the generator: its
/// executable's size and modification time name the build, so a rebuilt generator starts afresh. None
/// when the executable cannot be read (the run formats everything, as on a first run).
fn format_cache(root: &std::path::Path) -> Option<energy_codegen::FormatCache> {
    let executable = std::fs::metadata(std::env::current_exe().ok()?).ok()?;
    let modified = executable
        .modified()
        .ok()?
        .duration_since(std::time::UNIX_EPOCH)
        .ok()?;
    Some(energy_codegen::FormatCache::new(
        format_cache_dir(root),
        format!("{} {}", executable.len(), modified.as_nanos()),
    ))
}

/// Where the generator keeps formatted files between runs.
pub(crate) fn format_cache_dir(root: &std::path::Path) -> PathBuf {
    crate::paths::target_dir(root).join("codegen-format-cache")
}
