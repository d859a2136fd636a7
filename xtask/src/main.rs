//! `cargo xtask`: the project's tasks. `cargo xtask codegen` regenerates `generated/` from `schema/`.
#![forbid(unsafe_code)]

mod background;
mod bench;
mod bench_check;
mod bench_drift;
mod codegen;
mod compat;
mod consumers;
mod docs;
mod files;
mod fuzz;
mod kafka;
mod lines;
mod measure;
mod paths;
mod peer;
mod schemathesis;
mod semver;
mod test;
mod tools;
mod validate;

use clap::{Parser, Subcommand};
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
    /// Check schema changes against the published baseline (`--against REV`: a git revision); `--publish`.
    Compat(compat::CompatArgs),
    /// Run every test: the workspace's tests, then the third-party validators of the documents.
    Test(test::TestArgs),
    /// Fuzz the schema loader and the event decoder for a given time (needs `cargo install cargo-fuzz`).
    Fuzz(fuzz::FuzzArgs),
    /// Measure generation, compile time and the criterion benches (figures for BENCHMARKS.md);
    /// `--peer`: the same against cargo-typify.
    Bench(bench::BenchArgs),
    /// Render the OpenAPI and AsyncAPI documents as static HTML pages in `target/docs/`.
    Docs(docs::DocsArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match paths::locate_workspace() {
        Ok(root) => paths::set_workspace(root),
        Err(message) => {
            eprintln!("error: {message}");
            return ExitCode::from(2);
        }
    }
    match cli.command {
        Command::Codegen(args) => codegen::run(&args),
        Command::Compat(args) => compat::run(&args),
        Command::Test(args) => test::run(&args),
        Command::Fuzz(args) => fuzz::run(&args),
        Command::Bench(args) => bench::run(&args),

        Command::Docs(args) => docs::run(&args),
    }
}
