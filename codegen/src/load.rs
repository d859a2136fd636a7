//! Finding and reading the schema files of a folder.

use crate::ast::{Located, Schema};
use crate::diag::{Code, Diagnostic, Diagnostics};
use crate::read::SchemaReader;
use crate::source::{FileId, SourceFile, SourceMap, Span, display_path};
use crate::yaml::{self, NodeKind};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Reads every schema file under `dir`: `types.yaml`, `rest.yaml`, `events/*.yaml` and the consuming
/// teams' contracts, `consumers/*.yaml`.
///
/// Files are read in sorted order, so the result does not depend on the order the file system lists them.
pub fn load(dir: &Path, sources: &mut SourceMap, diags: &mut Diagnostics) -> Schema {
    let cwd = std::env::current_dir().unwrap_or_default();
    let shown = display_path(dir, &cwd);
    let mut schema = Schema::default();
    if !dir.is_dir() {
        let what = if dir.exists() {
            "is not a folder"
        } else {
            "does not exist"
        };
        diags.push(
            Diagnostic::about_path(
                Code::MissingSchemaFolder,
                shown.clone(),
                format!("schema folder `{shown}` {what}"),
            )
            .with_help("run from the workspace root, or pass `--schema <DIR>`"),
        );
        return schema;
    }
    let mut files: Vec<(PathBuf, Kind)> = Vec::new();
    for (name, kind) in [("types.yaml", Kind::Types), ("rest.yaml", Kind::Rest)] {
        let path = dir.join(name);
        if path.is_file() {
            files.push((path, kind));
        }
    }
    for entry in sorted_entries(dir, diags, &cwd) {
        let name = entry
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let is_yaml = name.ends_with(".yaml") || name.ends_with(".yml");
        if entry.is_file() && is_yaml && name != "types.yaml" && name != "rest.yaml" {
            let path = display_path(&entry, &cwd);
            let d = Diagnostic::about_path(
                Code::UnexpectedFile,
                path,
                format!("unexpected schema file `{name}`"),
            )
            .with_help(
                "schema files are `types.yaml`, `rest.yaml`, `events/<section>.yaml` and `consumers/<name>.yaml`",
            );
            diags.push(d);
        }
    }
    for (folder, kind) in [("events", Kind::Section), ("consumers", Kind::Consumer)] {
        let folder = dir.join(folder);
        if !folder.is_dir() {
            continue;
        }
        for entry in sorted_entries(&folder, diags, &cwd) {
            let name = entry
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            if name.starts_with('.') || !entry.is_file() {
                continue;
            }
            if name.ends_with(".yaml") {
                files.push((entry, kind));
            } else if name.ends_with(".yml") {
                let d = Diagnostic::about_path(
                    Code::UnexpectedFile,
                    display_path(&entry, &cwd),
                    format!("`{name}` is not read"),
                )
                .with_help("schema files end in `.yaml`; rename it");
                diags.push(d);
            }
        }
    }
    if files.is_empty() {
        diags.push(
            Diagnostic::about_path(
                Code::EmptySchemaFolder,
                shown.clone(),
                format!("no schema files in `{shown}`"),
            )
            .with_help("expected `types.yaml`, `rest.yaml` or `events/<section>.yaml`"),
        );
    }
    let mut read = Vec::new();
    for (path, kind) in files {
        let shown = display_path(&path, &cwd);
        match std::fs::read(&path) {
            Ok(bytes) => read.push((path, shown, bytes, kind)),
            Err(e) => diags.push(Diagnostic::about_path(
                Code::Io,
                shown,
                format!("cannot read schema file: {e}"),
            )),
        }
    }
    add_files(&mut schema, read, sources, diags);
    schema
}

/// Reads schema files given in memory, as (path relative to the schema folder, contents) pairs: the path
/// says what the file is (`types.yaml`, `rest.yaml`, `events/<section>.yaml`). For fuzzing and property
/// tests, which have no folder.
pub fn load_in_memory(
    files: &[(&str, &[u8])],
    sources: &mut SourceMap,
    diags: &mut Diagnostics,
) -> Schema {
    let mut schema = Schema::default();
    let mut files: Vec<&(&str, &[u8])> = files.iter().collect();
    files.sort_by_key(|(path, _)| *path);
    let mut read = Vec::new();
    for (path, bytes) in files {
        let Some(kind) = Kind::of_path(path) else {
            let d = Diagnostic::about_path(
                Code::UnexpectedFile,
                *path,
                format!("unexpected schema file `{path}`"),
            );
            diags.push(d);
            continue;
        };
        read.push((
            PathBuf::from(path),
            (*path).to_owned(),
            bytes.to_vec(),
            kind,
        ));
    }
    add_files(&mut schema, read, sources, diags);
    schema
}

/// Checks each file's bytes (size, UTF-8, emptiness), parses their YAML and reads them into `schema`, in
/// the order given. Parsing is most of the time and each file parses alone, so files are parsed on one
/// thread per core.
fn add_files(
    schema: &mut Schema,
    files: Vec<(PathBuf, String, Vec<u8>, Kind)>,
    sources: &mut SourceMap,
    diags: &mut Diagnostics,
) {
    let mut checked = Vec::new();
    for (path, shown, bytes, kind) in files {
        let stem = path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        if let Some(file_id) = check_file(path, shown, bytes, sources, diags) {
            checked.push((file_id, stem, kind));
        }
    }
    let shared_sources: &SourceMap = sources;
    let parsed = crate::parallel::map_in_order(&checked, |(file_id, _, _)| {
        yaml::parse(*file_id, shared_sources.file(*file_id))
    });
    for ((file_id, stem, kind), root) in checked.into_iter().zip(parsed) {
        match root {
            Ok(root) => {
                // A section is named by its file: its stem is at the file's start.
                let stem = Located {
                    text: stem,
                    span: Span {
                        file: file_id,
                        start: 0,
                        end: 0,
                    },
                };
                let mut reader = SchemaReader::new(sources, diags);
                read_file(&mut reader, schema, file_id, stem, kind, &root);
            }
            Err(d) => diags.push(*d),
        }
    }
}

/// Reads the published baseline, one file: a mapping whose keys name schema files (`types.yaml`,
/// `rest.yaml`, `events/<section>.yaml`) and whose values are those files' contents, wire shapes only.
/// Each is read by the schema's own reader (without requiring descriptions), at its place in the
/// baseline, so that a mistake in it is reported there like a mistake in a schema file.
pub fn load_baseline(
    path: PathBuf,
    shown: String,
    bytes: Vec<u8>,
    sources: &mut SourceMap,
    diags: &mut Diagnostics,
) -> Schema {
    let mut schema = Schema::default();
    let Some(file_id) = check_file(path, shown, bytes, sources, diags) else {
        return schema;
    };
    let root = match yaml::parse(file_id, sources.file(file_id)) {
        Ok(root) => root,
        Err(d) => {
            diags.push(*d);
            return schema;
        }
    };
    let NodeKind::Map(files) = &root.kind else {
        diags.push(
            Diagnostic::new(
                Code::InvalidValue,
                root.span,
                "the published baseline should be a mapping of schema files",
            )
            .label(format!("found {}", root.kind_name())),
        );
        return schema;
    };
    let mut seen: BTreeMap<&str, Span> = BTreeMap::new();
    let mut reader = SchemaReader::wire_shapes(sources, diags);
    let mut errors = Vec::new();
    for (key, contents) in files {
        let Some(name) = key.as_str() else {
            errors.push(
                Diagnostic::new(
                    Code::InvalidKey,
                    key.span,
                    "keys of the baseline are file names",
                )
                .label(format!("found {}", key.kind_name())),
            );
            continue;
        };
        if let Some(first) = seen.insert(name, key.span) {
            errors.push(
                Diagnostic::new(
                    Code::DuplicateKey,
                    key.span,
                    format!("`{name}` is in the baseline twice"),
                )
                .label("again here")
                .with_secondary(first, "first here"),
            );
            continue;
        }
        if name == crate::numbers::LOCK_KEY {
            // The Protobuf field numbers, beside the files (read by `numbers`).
            continue;
        }
        let Some(kind) = Kind::of_path(name) else {
            errors.push(
                Diagnostic::new(
                    Code::UnexpectedFile,
                    key.span,
                    format!("unexpected schema file `{name}` in the baseline"),
                )
                .label("not a schema file")
                .with_help(
                    "schema files are `types.yaml`, `rest.yaml` and `events/<section>.yaml`",
                ),
            );
            continue;
        };
        let stem = Located {
            text: Path::new(name)
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default(),
            span: key.span,
        };
        read_file(&mut reader, &mut schema, file_id, stem, kind, contents);
    }
    for d in errors {
        diags.push(d);
    }
    schema
}

/// Reads one parsed file (or a file's part of the baseline) into `schema`.
fn read_file(
    reader: &mut SchemaReader<'_>,
    schema: &mut Schema,
    file_id: FileId,
    stem: Located,
    kind: Kind,
    root: &yaml::Node,
) {
    match kind {
        Kind::Types => schema.types.extend(reader.types_file(file_id, root)),
        Kind::Rest => schema.rest = reader.rest_file(file_id, root),
        Kind::Section => schema
            .sections
            .extend(reader.section_file(file_id, stem, root)),
        Kind::Consumer => schema
            .consumers
            .extend(reader.consumer_file(file_id, stem, root)),
    }
}

/// What a schema file holds, by its path relative to the schema folder.
#[derive(Clone, Copy)]
enum Kind {
    Types,
    Rest,
    Section,
    Consumer,
}

impl Kind {
    /// `types.yaml`, `rest.yaml`, `events/<section>.yaml`, `consumers/<name>.yaml`; anything else is no
    /// schema file.
    fn of_path(path: &str) -> Option<Kind> {
        match path {
            "types.yaml" => Some(Kind::Types),
            "rest.yaml" => Some(Kind::Rest),
            p if p.starts_with("events/") && p.ends_with(".yaml") => Some(Kind::Section),
            p if p.starts_with("consumers/") && p.ends_with(".yaml") => Some(Kind::Consumer),
            _ => None,
        }
    }
}

fn sorted_entries(dir: &Path, diags: &mut Diagnostics, cwd: &Path) -> Vec<PathBuf> {
    match std::fs::read_dir(dir) {
        Ok(entries) => {
            let mut paths: Vec<PathBuf> =
                entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
            paths.sort();
            paths
        }
        Err(e) => {
            diags.push(Diagnostic::about_path(
                Code::Io,
                display_path(dir, cwd),
                format!("cannot list folder: {e}"),
            ));
            Vec::new()
        }
    }
}

/// Checks one file's bytes (size, UTF-8, emptiness) and adds it to the sources, to be parsed.
fn check_file(
    path: PathBuf,
    shown: String,
    bytes: Vec<u8>,
    sources: &mut SourceMap,
    diags: &mut Diagnostics,
) -> Option<FileId> {
    if bytes.len() > yaml::MAX_FILE_BYTES {
        let d = Diagnostic::about_path(
            Code::FileTooLarge,
            shown,
            format!(
                "schema file is {} bytes; the limit is {} bytes",
                bytes.len(),
                yaml::MAX_FILE_BYTES
            ),
        )
        .with_help("split the section into several files");
        diags.push(d);
        return None;
    }
    let (text, bad_utf8) = match String::from_utf8(bytes) {
        Ok(t) => (t, None),
        Err(e) => {
            let at = e.utf8_error().valid_up_to();
            (String::from_utf8_lossy(e.as_bytes()).into_owned(), Some(at))
        }
    };
    let file_id = sources.add(SourceFile::new(path, shown, text));
    if let Some(at) = bad_utf8 {
        // The lossy text has the same bytes up to the first bad one, which shows as U+FFFD (three bytes).
        let at = crate::source::to_u32(at);
        let d = Diagnostic::new(
            Code::NotUtf8,
            Span {
                file: file_id,
                start: at,
                end: at + 3,
            },
            "schema file is not valid UTF-8",
        )
        .label(format!("invalid byte at offset {at}"))
        .with_help("save the file as UTF-8");
        diags.push(d);
        return None;
    }
    let file = sources.file(file_id);
    let meaningful = file.text.lines().any(|l| {
        let l = l.trim();
        !l.is_empty() && !l.starts_with('#') && l != "---" && l != "..."
    });
    if !meaningful {
        diags.push(
            Diagnostic::new(
                Code::EmptyFile,
                Span {
                    file: file_id,
                    start: 0,
                    end: 0,
                },
                "schema file is empty",
            )
            .label("nothing but blank lines and comments")
            .with_help("delete the file, or add its definitions"),
        );
        return None;
    }
    Some(file_id)
}
