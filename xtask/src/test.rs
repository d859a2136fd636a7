//! `cargo xtask test`: every test of the project, in the order that fails fastest.

use std::process::{Command, ExitCode};

/// Arguments of `cargo xtask test`.
#[derive(clap::Args)]
pub(crate) struct TestArgs {
    /// Extra arguments passed to `cargo test` (a test name filter, say).
    #[arg(trailing_var_arg = true)]
    cargo_args: Vec<String>,
}

pub(crate) fn run(args: &TestArgs) -> ExitCode {
    let root = crate::workspace_root();
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let steps: Vec<(&str, Command)> = {
        let mut workspace = Command::new(&cargo);
        workspace
            .current_dir(&root)
            .args(["test", "--workspace", "--all-features"])
            .args(&args.cargo_args);
        vec![(
            "workspace tests (cargo test --workspace --all-features)",
            workspace,
        )]
    };
    for (name, mut command) in steps {
        eprintln!("==> {name}");
        match command.status() {
            Ok(status) if status.success() => {}
            Ok(status) => {
                eprintln!("error: {name} failed ({status})");
                return ExitCode::FAILURE;
            }
            Err(e) => {
                eprintln!("error: cannot run {name}: {e}");
                return ExitCode::FAILURE;
            }
        }
    }
    eprintln!("all tests passed");
    ExitCode::SUCCESS
}
