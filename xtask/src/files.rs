//! File operations of the tasks, each failing with a message that names the file.

use std::path::Path;

/// A file's bytes.
pub(crate) fn read(path: &Path) -> Result<Vec<u8>, String> {
    std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))
}

/// A file's text.
pub(crate) fn read_text(path: &Path) -> Result<String, String> {
    std::fs::read_to_string(path).map_err(|e| format!("cannot read {}: {e}", path.display()))
}

/// Writes a file whole.
pub(crate) fn write(path: &Path, contents: &(impl AsRef<[u8]> + ?Sized)) -> Result<(), String> {
    std::fs::write(path, contents.as_ref())
        .map_err(|e| format!("cannot write {}: {e}", path.display()))
}

/// Creates a folder and its parents.
pub(crate) fn create_dir(dir: &Path) -> Result<(), String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))
}

/// Copies a folder and everything in it into `to` (created if missing).
pub(crate) fn copy_dir(from: &Path, to: &Path) -> Result<(), String> {
    create_dir(to)?;
    let entries =
        std::fs::read_dir(from).map_err(|e| format!("cannot read {}: {e}", from.display()))?;
    for entry in entries {
        let path = entry
            .map_err(|e| format!("cannot read {}: {e}", from.display()))?
            .path();
        let target = to.join(path.file_name().unwrap_or_default());
        if path.is_dir() {
            copy_dir(&path, &target)?;
        } else {
            std::fs::copy(&path, &target)
                .map_err(|e| format!("cannot copy {}: {e}", path.display()))?;
        }
    }
    Ok(())
}
