//! The workspace's fixtures, as the tests read them.

use std::path::{Path, PathBuf};

/// The workspace's root folder.
pub fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the testkit folder is in the workspace")
        .to_path_buf()
}

/// A fixture under the workspace's `tests/fixtures/` (`rest/...` or `real-responses/...`), with
/// `{base_url}` replaced by the test server's base URL.
pub fn fixture(path: &str, base_url: &str) -> String {
    let file = workspace().join("tests/fixtures").join(path);
    std::fs::read_to_string(&file)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", file.display()))
        .replace("{base_url}", base_url)
}

/// A file or folder under the workspace's `tests/fixtures/` (what several crates' tests read: REST
/// responses, event streams).
pub fn fixture_path(path: &str) -> PathBuf {
    workspace().join("tests/fixtures").join(path)
}

/// A file or folder under `codegen/tests/fixtures/`: the generator's small schemas (`schemas/`), its
/// mistake catalogue (`mistakes/`) and the evolution cases (`compat/`).
pub fn generator_fixture(path: &str) -> PathBuf {
    workspace().join("codegen/tests/fixtures").join(path)
}

/// The real schema folder.
pub fn schema_dir() -> PathBuf {
    workspace().join("schema")
}

/// The checked-in `energy-api` crate.
pub fn generated_dir() -> PathBuf {
    workspace().join("generated")
}

/// Copies the folder `from` to `to`, recursively (the real schema into a scratch folder, say).
pub fn copy_tree(from: &Path, to: &Path) {
    copy_tree_in_order(from, to, false);
}

/// [`copy_tree`], the files of each folder created in sorted or, with `reverse`, reverse sorted order (to
/// show that what reads the copy does not depend on the order the file system lists them in).
pub fn copy_tree_in_order(from: &Path, to: &Path, reverse: bool) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(from)
        .unwrap_or_else(|e| panic!("cannot list {}: {e}", from.display()))
        .map(|e| e.expect("a folder entry").path())
        .collect();
    entries.sort();
    if reverse {
        entries.reverse();
    }
    std::fs::create_dir_all(to).unwrap_or_else(|e| panic!("cannot create {}: {e}", to.display()));
    for path in entries {
        let target = to.join(path.file_name().expect("a named entry"));
        if path.is_dir() {
            copy_tree_in_order(&path, &target, reverse);
        } else {
            std::fs::copy(&path, &target)
                .unwrap_or_else(|e| panic!("cannot copy {}: {e}", path.display()));
        }
    }
}

/// A file of two valid events of the catalogue (the first lines of `tests/fixtures/events/mixed.ndjson`),
/// in `dir`.
pub fn two_events(dir: &Path) -> PathBuf {
    let mixed = std::fs::read_to_string(workspace().join("tests/fixtures/events/mixed.ndjson"))
        .expect("the fixture");
    let path = dir.join("events.ndjson");
    std::fs::write(&path, mixed.lines().take(2).collect::<Vec<_>>().join("\n")).expect("written");
    path
}

/// Every case of every golden file (`tests/golden/events/<type>.<version>.json`): event type, version,
/// case name, payload as JSON text; files in name order, cases in file order.
pub fn golden_cases() -> Vec<(String, String, String, String)> {
    let dir = workspace().join("tests/golden/events");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("the golden folder")
        .map(|e| e.expect("an entry").path())
        .collect();
    files.sort();
    let mut cases = Vec::new();
    for path in files {
        let stem = path
            .file_stem()
            .expect("a file name")
            .to_string_lossy()
            .into_owned();
        let (event_type, version) = split_version(&stem)
            .unwrap_or_else(|| panic!("{stem} does not end with a version (`.v2`, `.1.0.0`)"));
        let file: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&path).expect("a golden file"))
                .expect("JSON");
        for (name, payload) in file["cases"].as_object().expect("cases") {
            cases.push((
                event_type.to_owned(),
                version.to_owned(),
                name.clone(),
                payload.to_string(),
            ));
        }
    }
    cases
}

/// `billing.final_bill.v1` as (`billing.final_bill`, `v1`); `x.sale.1.0.0` as (`x.sale`, `1.0.0`).
fn split_version(stem: &str) -> Option<(&str, &str)> {
    let (head, last) = stem.rsplit_once('.')?;
    if last
        .strip_prefix('v')
        .is_some_and(|n| n.parse::<u32>().is_ok())
    {
        return Some((head, last));
    }
    // A semantic version: the last three tokens are numbers.
    let mut cut = stem.len();
    for _ in 0..3 {
        let (before, token) = stem[..cut].rsplit_once('.')?;
        token.parse::<u32>().ok()?;
        cut = before.len();
    }
    Some((&stem[..cut], &stem[cut + 1..]))
}

#[cfg(test)]
mod tests {
    use super::split_version;

    #[test]
    fn golden_file_names_split_into_type_and_version() {
        assert_eq!(
            split_version("billing.final_bill.v12"),
            Some(("billing.final_bill", "v12"))
        );
        assert_eq!(
            split_version("lifecycle.support-site.sale.1.0.0"),
            Some(("lifecycle.support-site.sale", "1.0.0"))
        );
        assert_eq!(split_version("no-version"), None);
    }
}
