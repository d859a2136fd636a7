//! `cargo xtask`: the project's tasks. `cargo xtask codegen` regenerates `generated/` from `schema/`.
#![forbid(unsafe_code)]

use clap::{Parser, Subcommand, ValueEnum};
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "cargo xtask",
    about = "Project tasks of the energy interface generator"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Regenerate the `energy-api` crate (and the documents) from the YAML schemas.
    Codegen(CodegenArgs),
}

#[derive(clap::Args)]
struct CodegenArgs {
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

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Codegen(args) => codegen(&args),
    }
}

/// The workspace root: the parent of this crate's folder.
fn workspace_root() -> PathBuf {
    let manifest_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    manifest_dir.parent().unwrap_or(manifest_dir).to_path_buf()
}

fn codegen(args: &CodegenArgs) -> ExitCode {
    let root = workspace_root();
    let schema = args.schema.clone().unwrap_or_else(|| root.join("schema"));
    let out = args.out.clone().unwrap_or_else(|| root.join("generated"));
    let files = match energy_codegen::generate(&schema) {
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
