//! `cargo xtask`: the project's tasks. `cargo xtask codegen` regenerates `generated/` from `schema/`.
#![forbid(unsafe_code)]

mod bench;
mod codegen;
mod consumers;
mod docs;
mod fuzz;
mod test;
mod tools;
mod validate;

use clap::{Parser, Subcommand};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Generation allocates and frees millions of small token and string buffers; with glibc's allocator
/// that was a third of its instructions (callgrind), so the generator runs on mimalloc.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

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
    Codegen(codegen::CodegenArgs),
    /// Run every test: the workspace's tests, then the third-party validators of the documents.
    Test(test::TestArgs),
    /// Fuzz the schema loader and the event decoder for a given time (needs `cargo install cargo-fuzz`).
    Fuzz(fuzz::FuzzArgs),
    /// Measure generation, compile time and the criterion benches (figures for BENCHMARKS.md).
    Bench(bench::BenchArgs),
    /// Render the OpenAPI and AsyncAPI documents as static HTML pages in `target/docs/`.
    Docs(docs::DocsArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Codegen(args) => codegen::run(&args),
        Command::Test(args) => test::run(&args),
        Command::Fuzz(args) => fuzz::run(&args),
        Command::Bench(args) => bench::run(&args),

        Command::Docs(args) => docs::run(&args),
    }
}

/// The workspace root: the parent of this crate's folder.
pub(crate) fn workspace_root() -> PathBuf {
    let manifest_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    manifest_dir.parent().unwrap_or(manifest_dir).to_path_buf()
}
