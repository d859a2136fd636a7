//! The first step of `cargo xtask test`: no hand-written Rust file is longer than [`MAX_LINES`].
//!
//! A past issue drew the line (a file a reader can hold in mind, split by concern before it grows past
//! it); without a check it creeps back after the issue closes. Hand-written means every `.rs` file of
//! the repository but the generated crate (`generated/`), the pinned tools (`tools/`), build output
//! (any `target/`) and the fuzzers' corpora; the derived twin is written into its build's `OUT_DIR`,
//! under `target/`.

use std::path::{Path, PathBuf};

/// The most lines a hand-written Rust file may have.
pub(crate) const MAX_LINES: usize = 900;

/// Folders (by name, at any depth) that hold no hand-written Rust.
const SKIPPED_FOLDERS: [&str; 6] = [
    "target",
    ".git",
    "node_modules",
    "corpus",
    "artifacts",
    ".venv",
];

/// Folders of the repository root that hold no hand-written Rust.
const SKIPPED_AT_ROOT: [&str; 2] = ["generated", "tools"];

/// The step: every hand-written Rust file under `root` past [`MAX_LINES`], one located line each.
pub(crate) fn check(root: &Path) -> Result<(), String> {
    let mut files = Vec::new();
    collect(root, root, &mut files).map_err(|e| format!("cannot list the sources: {e}"))?;
    files.sort();
    let mut long = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).map_err(|e| format!("{}: {e}", file.display()))?;
        let lines = text.lines().count();
        if lines > MAX_LINES {
            let shown = file.strip_prefix(root).unwrap_or(file).display();
            long.push(format!(
                "{shown}:{}: {lines} lines, past the {MAX_LINES}-line line of hand-written Rust: split it by concern",
                MAX_LINES + 1
            ));
        }
    }
    if long.is_empty() {
        eprintln!(
            "    {} hand-written Rust files, none past {MAX_LINES} lines",
            files.len()
        );
        Ok(())
    } else {
        Err(long.join("\n"))
    }
}

/// The `.rs` files under `dir`, but those of the skipped folders.
fn collect(root: &Path, dir: &Path, files: &mut Vec<PathBuf>) -> std::io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let path = entry.path();
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if entry.file_type()?.is_dir() {
            let skipped = SKIPPED_FOLDERS.contains(&name.as_ref())
                || (dir == root && SKIPPED_AT_ROOT.contains(&name.as_ref()));
            if !skipped {
                collect(root, &path, files)?;
            }
        } else if name.ends_with(".rs") {
            files.push(path);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_file_is_named_with_its_place_and_generated_ones_are_not() {
        let root = tempfile::tempdir().unwrap();
        let write = |path: &str, lines: usize| {
            let path = root.path().join(path);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, "//\n".repeat(lines)).unwrap();
        };
        write("runtime/src/short.rs", MAX_LINES);
        write("generated/src/events/mod.rs", 5 * MAX_LINES);
        write("tools/x/src/lib.rs", 5 * MAX_LINES);
        write("fuzz/target/debug/build/out.rs", 5 * MAX_LINES);
        assert_eq!(check(root.path()), Ok(()));
        write("api-core/src/table/mod.rs", MAX_LINES + 16);
        assert_eq!(
            check(root.path()),
            Err(format!(
                "api-core/src/table/mod.rs:901: 916 lines, past the {MAX_LINES}-line line of hand-written Rust: split it by concern"
            ))
        );
    }
}
