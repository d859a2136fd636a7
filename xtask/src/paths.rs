//! Where this run works: the workspace root and the target folder, a leaf every task reads.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

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
pub(crate) fn compiled_workspace() -> &'static Path {
    let manifest_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    manifest_dir.parent().unwrap_or(manifest_dir)
}

/// The workspace this run is for, located from where it runs: `CARGO_MANIFEST_DIR` as `cargo run`
/// (`cargo xtask`) sets it for this run, else the nearest folder above the current one that holds
/// `xtask/Cargo.toml`. Refused when it is not the workspace this binary was compiled from: with a
/// target directory shared by two checkouts (git worktrees, a global `CARGO_TARGET_DIR`), cargo can
/// find the other checkout's build fresh and run it, which would read and write that checkout's
/// `schema/` and `generated/` while the user works in this one.
pub(crate) fn locate_workspace() -> Result<PathBuf, String> {
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

/// Records the workspace [`locate_workspace`] found, before any task runs.
pub(crate) fn set_workspace(root: PathBuf) {
    let _ = WORKSPACE.set(root);
}
