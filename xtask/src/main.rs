//! `cargo xtask`: the project's tasks. `cargo xtask codegen` regenerates `generated/` from `schema/`.
#![forbid(unsafe_code)]

mod background;
mod bench;
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
mod peer;
mod schemathesis;
mod semver;
mod test;
mod tools;
mod validate;

use clap::{Parser, Subcommand};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::OnceLock;

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
    match locate_workspace() {
        Ok(root) => {
            let _ = WORKSPACE.set(root);
        }
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

/// The workspace this run works on, found by [`locate_workspace`] before any task runs.
static WORKSPACE: OnceLock<PathBuf> = OnceLock::new();

/// The workspace root this run works on.
pub(crate) fn workspace_root() -> PathBuf {
    WORKSPACE
        .get()
        .cloned()
        .unwrap_or_else(|| compiled_workspace().to_path_buf())
}

/// The target folder of this build: `CARGO_TARGET_DIR` (relative to the workspace) when set, else
/// `target/` in the workspace.
pub(crate) fn target_dir(root: &Path) -> PathBuf {
    match std::env::var_os("CARGO_TARGET_DIR") {
        Some(dir) if !dir.is_empty() => root.join(dir),
        _ => root.join("target"),
    }
}

/// The workspace this binary was compiled from.
fn compiled_workspace() -> &'static Path {
    let manifest_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    manifest_dir.parent().unwrap_or(manifest_dir)
}

/// The workspace this run is for, located from where it runs: `CARGO_MANIFEST_DIR` as `cargo run`
/// (`cargo xtask`) sets it for this run, else the nearest folder above the current one that holds
/// `xtask/Cargo.toml`. Refused when it is not the workspace this binary was compiled from: with a
/// target directory shared by two checkouts (git worktrees, a global `CARGO_TARGET_DIR`), cargo can
/// find the other checkout's build fresh and run it, which would read and write that checkout's
/// `schema/` and `generated/` while the user works in this one.
fn locate_workspace() -> Result<PathBuf, String> {
    let running = match std::env::var_os("CARGO_MANIFEST_DIR") {
        Some(manifest_dir) => {
            let manifest_dir = PathBuf::from(manifest_dir);
            manifest_dir.parent().unwrap_or(&manifest_dir).to_path_buf()
        }
        None => {
            let here = std::env::current_dir()
                .map_err(|e| format!("cannot read the current folder: {e}"))?;
            here.ancestors()
                .find(|dir| dir.join("xtask").join("Cargo.toml").is_file())
                .map(Path::to_path_buf)
                .ok_or_else(|| {
                    format!(
                        "no workspace with an `xtask` crate in {} or above: run `cargo xtask` in a \
                         checkout of the project",
                        here.display()
                    )
                })?
        }
    };
    let compiled = compiled_workspace();
    let same = |a: &Path, b: &Path| match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => a == b,
    };
    if same(&running, compiled) {
        Ok(running)
    } else {
        Err(format!(
            "this xtask was built from the checkout in {}, but runs for the one in {}: the two \
             share a target directory, and cargo ran the other checkout's build; it would work on \
             that checkout's files. Give each checkout its own target directory (unset a global \
             CARGO_TARGET_DIR, or set one per checkout), or make cargo rebuild it here with \
             `touch xtask/src/main.rs`",
            compiled.display(),
            running.display()
        ))
    }
}
