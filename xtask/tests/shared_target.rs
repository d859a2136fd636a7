//! Two checkouts sharing one target directory (git worktrees, a global `CARGO_TARGET_DIR`): cargo
//! can find the first checkout's xtask build fresh and run it in the second. `cargo xtask` must then
//! refuse, never read or write the first checkout's `schema/` and `generated/`.

use energy_testkit::workspace;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// This test binary's xtask (built from this checkout), run in `dir` with `env`.
fn xtask_in(dir: &Path, env: &[(&str, &Path)], args: &[&str]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_xtask"));
    command
        .current_dir(dir)
        .env_remove("CARGO_MANIFEST_DIR")
        .args(args);
    for (name, value) in env {
        command.env(name, value);
    }
    command.output().expect("xtask runs")
}

#[test]
fn a_build_run_for_another_checkout_refuses_to_run() {
    let other = tempfile::tempdir().expect("temp dir");
    for dir in ["xtask", "schema", "generated"] {
        std::fs::create_dir(other.path().join(dir)).expect("folder");
    }
    std::fs::write(other.path().join("xtask/Cargo.toml"), "").expect("manifest");

    // As `cargo xtask` in the other checkout runs it: cargo sets CARGO_MANIFEST_DIR to that
    // checkout's xtask folder.
    let via_cargo = xtask_in(
        other.path(),
        &[("CARGO_MANIFEST_DIR", &other.path().join("xtask"))],
        &["codegen", "--check"],
    );
    // Run directly, from a folder inside the other checkout.
    let direct = xtask_in(&other.path().join("schema"), &[], &["codegen", "--check"]);
    for run in [&via_cargo, &direct] {
        assert_eq!(run.status.code(), Some(2), "{}", stderr(run));
        let message = stderr(run);
        assert!(
            message.starts_with(&format!(
                "error: this xtask was built from the checkout in {}, but runs for the one in {}",
                workspace().display(),
                other.path().display()
            )),
            "{message}"
        );
        assert!(message.contains("touch xtask/src/main.rs"), "{message}");
    }
    assert_eq!(
        std::fs::read_dir(other.path().join("generated"))
            .expect("generated")
            .count(),
        0
    );

    let nowhere = tempfile::tempdir().expect("temp dir");
    let lost = xtask_in(nowhere.path(), &[], &["codegen", "--check"]);
    assert_eq!(lost.status.code(), Some(2));
    assert!(
        stderr(&lost).contains("no workspace with an `xtask` crate"),
        "{}",
        stderr(&lost)
    );

    // In its own checkout, from any folder of it, it runs.
    let home = xtask_in(&workspace().join("schema"), &[], &["codegen", "--check"]);
    assert!(home.status.success(), "{}", stderr(&home));
}

/// The sources of a checkout, copied with their modification times (`cp -a`), as a second worktree
/// of the same commit has them: cargo then takes the first checkout's build as fresh for it. Every
/// top-level entry but the build output, git's folder and the installed validators.
fn copy_checkout(to: &Path) {
    std::fs::create_dir_all(to).expect("folder");
    let entries: Vec<PathBuf> = std::fs::read_dir(workspace())
        .expect("workspace")
        .map(|entry| entry.expect("entry").path())
        .filter(|path| {
            !matches!(
                path.file_name().and_then(|name| name.to_str()),
                Some("target" | ".git" | "tools")
            )
        })
        .collect();
    let status = Command::new("cp")
        .arg("-a")
        .args(entries)
        .arg(to)
        .status()
        .expect("cp runs");
    assert!(status.success());
}

#[test]
fn two_checkouts_sharing_one_target_directory() {
    let temp = tempfile::tempdir().expect("temp dir");
    let (first, second, target) = (
        temp.path().join("first"),
        temp.path().join("second"),
        temp.path().join("target"),
    );
    copy_checkout(&first);
    copy_checkout(&second);
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let cargo_xtask = |checkout: &Path| {
        Command::new(&cargo)
            .current_dir(checkout)
            .env("CARGO_TARGET_DIR", &target)
            .env_remove("CARGO_MANIFEST_DIR")
            .args(["xtask", "codegen", "--check"])
            .output()
            .expect("cargo runs")
    };
    let built_in_first = cargo_xtask(&first);
    assert!(
        built_in_first.status.success(),
        "{}",
        stderr(&built_in_first)
    );

    // The second checkout's generated/ goes stale (a generated file is lost); the first one's is not.
    std::fs::remove_file(second.join("generated/openapi.yaml")).expect("remove");

    // cargo finds the first checkout's build fresh and runs it here: it must refuse, rather than
    // check (or, without --check, rewrite) the first checkout's files and report success.
    let reused = cargo_xtask(&second);
    assert_eq!(reused.status.code(), Some(2), "{}", stderr(&reused));
    assert!(
        stderr(&reused).contains(&format!(
            "this xtask was built from the checkout in {}, but runs for the one in {}",
            first.display(),
            second.display()
        )),
        "{}",
        stderr(&reused)
    );

    // The remedy the message gives: rebuilt here, it works on this checkout.
    let main_rs = second.join("xtask/src/main.rs");
    let now = std::fs::File::options()
        .append(true)
        .open(&main_rs)
        .expect("main.rs");
    now.set_modified(std::time::SystemTime::now())
        .expect("touch");
    let rebuilt = cargo_xtask(&second);
    assert_eq!(rebuilt.status.code(), Some(1), "{}", stderr(&rebuilt));
    assert!(
        stderr(&rebuilt).contains("stale: generated/openapi.yaml"),
        "{}",
        stderr(&rebuilt)
    );
}
