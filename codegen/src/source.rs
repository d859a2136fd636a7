//! Schema source files and byte spans into them.

use std::path::{Path, PathBuf};

/// Index of a file in a [`SourceMap`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct FileId(pub u32);

/// A byte range in one source file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Span {
    /// The file the range is in.
    pub file: FileId,
    /// First byte.
    pub start: u32,
    /// One past the last byte (equal to `start` for a point).
    pub end: u32,
}

/// One loaded schema file.
#[derive(Debug)]
pub struct SourceFile {
    /// Path as shown to the user (relative to the working directory when possible).
    pub display_path: String,
    /// Path on disk.
    pub path: PathBuf,
    /// The file's text (empty when the file could not be read as UTF-8).
    pub text: String,
    /// Byte offset of the start of each line.
    line_starts: Vec<u32>,
}

impl SourceFile {
    /// Wraps a file's text.
    pub fn new(path: PathBuf, display_path: String, text: String) -> Self {
        let line_starts = std::iter::once(0)
            .chain(text.match_indices('\n').map(|(i, _)| to_u32(i + 1)))
            .collect();
        SourceFile {
            display_path,
            path,
            text,
            line_starts,
        }
    }

    /// 1-based line and column (in characters) of a byte offset.
    pub fn line_col(&self, offset: u32) -> (usize, usize) {
        let line = self
            .line_starts
            .partition_point(|&s| s <= offset)
            .saturating_sub(1);
        let start = self.line_starts[line] as usize;
        let offset = (offset as usize).min(self.text.len());
        let column = self
            .text
            .get(start..offset)
            .map_or(offset - start, |s| s.chars().count());
        (line + 1, column + 1)
    }

    /// Byte offset of the end of the line holding `offset` (before its newline).
    pub fn line_end(&self, offset: u32) -> u32 {
        let rest = &self.text.as_bytes()[(offset as usize).min(self.text.len())..];
        offset
            + to_u32(
                rest.iter()
                    .position(|&b| b == b'\n' || b == b'\r')
                    .unwrap_or(rest.len()),
            )
    }

    /// Byte offset of a 1-based line and character column, clamped to the text.
    pub fn offset_of(&self, line: usize, column: usize) -> u32 {
        let Some(&start) = self.line_starts.get(line.saturating_sub(1)) else {
            return to_u32(self.text.len());
        };
        let end = self.line_end(start);
        let line_text = &self.text[start as usize..end as usize];
        let within = line_text
            .char_indices()
            .nth(column.saturating_sub(1))
            .map_or(line_text.len(), |(i, _)| i);
        start + to_u32(within)
    }
}

/// All files of one generator run, addressed by [`FileId`].
#[derive(Debug, Default)]
pub struct SourceMap {
    files: Vec<SourceFile>,
}

impl SourceMap {
    /// Adds a file and returns its id.
    pub fn add(&mut self, file: SourceFile) -> FileId {
        self.files.push(file);
        FileId(to_u32(self.files.len() - 1))
    }

    /// The file with this id.
    pub fn file(&self, id: FileId) -> &SourceFile {
        &self.files[id.0 as usize]
    }

    /// The text a span covers.
    pub fn text(&self, span: Span) -> &str {
        self.file(span.file)
            .text
            .get(span.start as usize..span.end as usize)
            .unwrap_or("")
    }
}

/// Shows `path` relative to `base` when it lies under it, with `/` separators on every platform.
pub fn display_path(path: &Path, base: &Path) -> String {
    let shown = path.strip_prefix(base).unwrap_or(path);
    shown
        .components()
        .map(|c| c.as_os_str().to_string_lossy())
        .collect::<Vec<_>>()
        .join("/")
}

/// Schema files are capped far below 4 GiB (see `load`), so offsets fit in `u32`.
pub(crate) fn to_u32(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}
