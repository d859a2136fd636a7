//! Places in the schema files, for tools that edit them (`energy events drift --suggest`).
//!
//! The files are parsed by the generator's own reader (`yaml.rs`: the node trees and spans its
//! diagnostics point with), and the nodes are found as `read/` finds them: an event type's entry in a
//! file's `events` (by `name`, or among `names`), a version under its `versions`, a shared type under
//! `types`, and their `fields` or `payload`. A node that is a copy of an anchored one (an alias
//! `*anchor`, or an entry merged by `<<: *anchor`) has no text of its own to edit: it is not located,
//! and neither is anything reached through it. What is not located gives `None`, never a wrong place.

use crate::source::{FileId, SourceFile, Span};
use crate::yaml::{self, Node, NodeKind};
use std::path::{Path, PathBuf};

/// A schema folder's `types.yaml` and `events/*.yaml`, parsed to locate nodes in.
#[derive(Debug)]
pub struct SchemaFiles {
    files: Vec<ParsedFile>,
}

#[derive(Debug)]
struct ParsedFile {
    source: SourceFile,
    /// The node tree; `None` when the file is not YAML the reader accepts (nothing is located in it).
    root: Option<Node>,
}

/// A place in one of the [`SchemaFiles`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Place {
    /// The file, an index into [`SchemaFiles::paths`].
    pub file: usize,
    /// The byte offset in the file.
    pub offset: usize,
    /// The 0-based line.
    pub line: usize,
    /// The byte offset in that line (for a key at the start of a block line, its indentation).
    pub byte_in_line: usize,
}

/// A located node of a schema file: a mapping, a sequence or a scalar that is text of its own.
#[derive(Debug, Clone, Copy)]
pub struct Located<'s> {
    file: usize,
    source: &'s SourceFile,
    node: &'s Node,
}

impl SchemaFiles {
    /// Reads and parses `types.yaml` and `events/*.yaml` (in sorted order) of `dir`; a folder or file
    /// that is not there is skipped. A file that is not valid YAML is kept, with nothing located in
    /// it; a file that cannot be read is an error.
    pub fn read(dir: &Path) -> Result<SchemaFiles, String> {
        let mut paths = vec![dir.join("types.yaml")];
        if let Ok(entries) = std::fs::read_dir(dir.join("events")) {
            let mut events: Vec<PathBuf> = entries
                .filter_map(Result::ok)
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|e| e == "yaml"))
                .collect();
            events.sort();
            paths.extend(events);
        }
        let mut files = Vec::new();
        for path in paths {
            if !path.is_file() {
                continue;
            }
            let text = std::fs::read_to_string(&path)
                .map_err(|e| format!("cannot read `{}`: {e}", path.display()))?;
            files.push((path, text));
        }
        Ok(SchemaFiles::from_texts(files))
    }

    /// Parses files given as (path, text) pairs.
    pub fn from_texts(files: Vec<(PathBuf, String)>) -> SchemaFiles {
        let files = files
            .into_iter()
            .enumerate()
            .map(|(index, (path, text))| {
                let shown = path.display().to_string();
                let source = SourceFile::new(path, shown, text);
                let root = (source.text.len() <= yaml::MAX_FILE_BYTES)
                    .then(|| yaml::parse(FileId(crate::source::to_u32(index)), &source).ok())
                    .flatten();
                ParsedFile { source, root }
            })
            .collect();
        SchemaFiles { files }
    }

    /// The files' paths, as `dir` was given joined with their names; a [`Place`]'s `file` indexes them.
    pub fn paths(&self) -> impl Iterator<Item = &Path> {
        self.files.iter().map(|f| f.source.path.as_path())
    }

    /// The text of file `file` as read.
    pub fn text(&self, file: usize) -> &str {
        self.files.get(file).map_or("", |f| f.source.text.as_str())
    }

    fn roots(&self) -> impl Iterator<Item = Located<'_>> {
        self.files.iter().enumerate().filter_map(|(file, f)| {
            let node = f.root.as_ref()?;
            Located::new(file, &f.source, node)
        })
    }

    /// The entry of an events file's `events` that declares event type `name` (`name: x`, or `x`
    /// among `names: […]`): a mapping.
    pub fn event(&self, name: &str) -> Option<Located<'_>> {
        self.roots()
            .filter_map(|root| root.get("events"))
            .flat_map(|events| events.items())
            .find(|entry| entry.event_names().iter().any(|n| n == name))
    }

    /// Shared type `name`, a key of `types` in the types file: its key and its value.
    pub fn shared_type(&self, name: &str) -> Option<(Located<'_>, Located<'_>)> {
        self.roots()
            .filter_map(|root| root.get("types"))
            .find_map(|types| types.entry(name))
    }
}

impl<'s> Located<'s> {
    fn new(file: usize, source: &'s SourceFile, node: &'s Node) -> Option<Located<'s>> {
        (!node.aliased).then_some(Located { file, source, node })
    }

    fn at(&self, offset: u32) -> Place {
        let (line, _) = self.source.line_col(offset);
        let line_start = self.source.offset_of(line, 1) as usize;
        Place {
            file: self.file,
            offset: offset as usize,
            line: line - 1,
            byte_in_line: (offset as usize).saturating_sub(line_start),
        }
    }

    /// Where the node starts: a block mapping at its first key, a flow collection at its bracket, a
    /// scalar at its first character (its quote, if quoted).
    pub fn place(&self) -> Place {
        self.at(self.node.span.start)
    }

    /// The scalar's value, if this is a scalar.
    pub fn text(&self) -> Option<&'s str> {
        self.node.as_str()
    }

    /// Whether this is a flow mapping or sequence (`{…}`, `[…]`).
    pub fn is_flow(&self) -> bool {
        let Span { start, end, .. } = self.node.span;
        let first = self.source.text.as_bytes().get(start as usize);
        match self.node.kind {
            NodeKind::Map(_) => end == start + 1 && first == Some(&b'{'),
            NodeKind::Seq(_) => end == start + 1 && first == Some(&b'['),
            _ => false,
        }
    }

    /// Whether this is a mapping.
    pub fn is_mapping(&self) -> bool {
        matches!(self.node.kind, NodeKind::Map(_))
    }

    /// The mapping's entries that are located (entries merged by `<<: *anchor` left out), in source
    /// order; `None` when this is not a mapping.
    pub fn entries(&self) -> Option<Vec<(Located<'s>, Located<'s>)>> {
        let NodeKind::Map(pairs) = &self.node.kind else {
            return None;
        };
        Some(
            pairs
                .iter()
                .filter_map(|(key, value)| {
                    Some((
                        Located::new(self.file, self.source, key)?,
                        Located::new(self.file, self.source, value)?,
                    ))
                })
                .collect(),
        )
    }

    /// The entry whose key is `key` (its key and value), when the mapping has exactly one such key
    /// (merged ones counted) and neither it nor its value is a copy of an anchored node.
    pub fn entry(&self, key: &str) -> Option<(Located<'s>, Located<'s>)> {
        let NodeKind::Map(pairs) = &self.node.kind else {
            return None;
        };
        let mut found = pairs.iter().filter(|(k, _)| k.as_str() == Some(key));
        let (k, v) = found.next()?;
        if found.next().is_some() {
            return None;
        }
        Some((
            Located::new(self.file, self.source, k)?,
            Located::new(self.file, self.source, v)?,
        ))
    }

    /// Whether this is a mapping without key `key`, merged entries included: a new `key` entry may
    /// then be written into it.
    pub fn lacks(&self, key: &str) -> bool {
        match &self.node.kind {
            NodeKind::Map(pairs) => !pairs.iter().any(|(k, _)| k.as_str() == Some(key)),
            _ => false,
        }
    }

    /// The value of `key`, as [`entry`](Self::entry) finds it.
    pub fn get(&self, key: &str) -> Option<Located<'s>> {
        self.entry(key).map(|(_, value)| value)
    }

    /// The sequence's items that are located (copies of anchored nodes left out).
    pub fn items(&self) -> Vec<Located<'s>> {
        match &self.node.kind {
            NodeKind::Seq(items) => items
                .iter()
                .filter_map(|n| Located::new(self.file, self.source, n))
                .collect(),
            _ => Vec::new(),
        }
    }

    /// The event types an event entry declares: its `name`, or the items of its `names`.
    pub fn event_names(&self) -> Vec<String> {
        if let Some(name) = self.get("name") {
            return name.text().map(str::to_owned).into_iter().collect();
        }
        self.get("names")
            .map(|names| {
                names
                    .items()
                    .iter()
                    .filter_map(|n| n.text().map(str::to_owned))
                    .collect()
            })
            .unwrap_or_default()
    }

    /// Version `label` of an event entry: its key and its value (`versions: {label: …}`).
    pub fn version(&self, label: &str) -> Option<(Located<'s>, Located<'s>)> {
        self.get("versions")?.entry(label)
    }

    /// The `fields` of a version or shared type (a flow `{…}` or block mapping), with its key.
    pub fn fields(&self) -> Option<(Located<'s>, Located<'s>)> {
        self.entry("fields")
    }

    /// The shared type a version's `payload:` names, a scalar.
    pub fn payload(&self) -> Option<Located<'s>> {
        self.get("payload").filter(|p| p.text().is_some())
    }

    /// Where the node's text ends: one past its last character (a flow collection's closing bracket;
    /// a block collection's last descendant, an alias among them ending with its `*anchor`; a scalar's
    /// last non-blank character). `None` when that is not certain (a flow collection not closed where
    /// expected).
    pub fn end(&self) -> Option<Place> {
        end_of(self.node, &self.source.text).map(|end| self.at(end))
    }

    /// Where a new member of a flow mapping or sequence goes: just after its last member (then written
    /// `, member`), or just after its opening bracket when it is empty (then written `member`). The
    /// second value says whether it has members.
    pub fn flow_insertion(&self) -> Option<(Place, bool)> {
        if !self.is_flow() {
            return None;
        }
        if let NodeKind::Map(pairs) = &self.node.kind
            && pairs.iter().any(|(_, value)| {
                matches!(value.kind, NodeKind::Null) && value.span.start == value.span.end
            })
        {
            // `{a: int, b: }`: after the last key may stand its `:`; no certain place.
            return None;
        }
        let last = last_child_end(self.node, &self.source.text)?;
        Some(match last {
            Some(end) => (self.at(end), true),
            None => (self.at(self.node.span.start + 1), false),
        })
    }
}

/// One past the last non-blank byte of `node`'s text.
fn end_of(node: &Node, text: &str) -> Option<u32> {
    let span = node.span;
    if node.aliased {
        // The alias (`*anchor`, or the one of `<<: *anchor`): its text is its span.
        return Some(span.end);
    }
    match &node.kind {
        NodeKind::Null | NodeKind::Scalar(_) => {
            let written = text.get(span.start as usize..span.end as usize)?;
            let trimmed = written.trim_end();
            Some(span.start + crate::source::to_u32(trimmed.len()))
        }
        NodeKind::Seq(_) | NodeKind::Map(_) => {
            let last = last_child_end(node, text)?;
            let flow_close = match (&node.kind, span.end == span.start + 1) {
                (NodeKind::Map(_), true) => Some(b'}'),
                (NodeKind::Seq(_), true) => Some(b']'),
                _ => None,
            };
            match flow_close {
                Some(close) => closing(text, last.unwrap_or(span.start + 1), close),
                None => last,
            }
        }
    }
}

/// The end of the last child of a collection (`Ok(None)` when it has none); `None` when a child's end
/// is not certain.
#[allow(clippy::option_option)]
fn last_child_end(node: &Node, text: &str) -> Option<Option<u32>> {
    let children: Vec<&Node> = match &node.kind {
        NodeKind::Seq(items) => items.iter().collect(),
        NodeKind::Map(pairs) => pairs.iter().flat_map(|(k, v)| [k, v]).collect(),
        _ => Vec::new(),
    };
    let mut last = None;
    for child in children {
        let end = end_of(child, text)?;
        // An empty scalar (a null written as nothing) ends nowhere of its own.
        if child.span.end > child.span.start || !matches!(child.kind, NodeKind::Null) {
            last = Some(last.map_or(end, |l: u32| l.max(end)));
        }
    }
    Some(last)
}

/// One past the bracket `close` that ends a flow collection whose last member ends at `from`: only
/// blanks, commas, a `:` of an empty value and comments may stand between them.
fn closing(text: &str, from: u32, close: u8) -> Option<u32> {
    let bytes = text.as_bytes();
    let mut i = from as usize;
    while let Some(&b) = bytes.get(i) {
        match b {
            b' ' | b'\t' | b'\r' | b'\n' | b',' | b':' => i += 1,
            b'#' => {
                while bytes.get(i).is_some_and(|&b| b != b'\n') {
                    i += 1;
                }
            }
            b if b == close => return Some(crate::source::to_u32(i + 1)),
            _ => return None,
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn files(types: &str, events: &str) -> SchemaFiles {
        SchemaFiles::from_texts(vec![
            (PathBuf::from("types.yaml"), types.to_owned()),
            (PathBuf::from("events/a.yaml"), events.to_owned()),
        ])
    }

    const TYPES: &str = "\
types:
  Base: &base
    description: \"a: b\"  # fields: {x: int}
    fields: {a: int, 'b': [X], c: {d: e}}  # a comment
  Copy: *base
  Merged:
    <<: *base
    description: merged
  Block:
    description: |
      fields: {not: this}

    fields:
      x: int
      y: {type: str,
          description: long}  # end
    # after
";

    const EVENTS: &str = "\
events:
  - name: one
    versions:
      v1: {bases: [B]}  # {fields}
      v2:
        payload: \"Base\"
  - names: [two, 'three']
    versions:
      v1:
        fields: {}
  - *other
";

    #[test]
    fn nodes_are_located_by_keys_not_by_text() {
        let f = files(TYPES, EVENTS);
        let (key, base) = f.shared_type("Base").expect("Base");
        assert_eq!((key.place().line, key.place().byte_in_line), (1, 2));
        let (_, fields) = base.fields().expect("fields");
        assert!(fields.is_flow());
        let (at, members) = fields.flow_insertion().expect("flow");
        assert!(members);
        assert_eq!(
            &TYPES[..at.offset],
            &TYPES[..TYPES.find("d: e}").unwrap() + 5]
        );
        let end = fields.end().expect("end");
        assert_eq!(&TYPES[end.offset - 2..end.offset], "}}");
        let (_, block) = f.shared_type("Block").expect("Block");
        let (_, fields) = block.fields().expect("fields");
        assert!(!fields.is_flow());
        let end = fields.end().expect("end");
        assert_eq!(end.line, 15);
        assert_eq!(&TYPES[end.offset - 5..end.offset], "long}");
        assert_eq!(block.end().expect("end").line, 15);
        assert_eq!(
            fields.entries().expect("entries")[0].0.place().byte_in_line,
            6
        );
    }

    #[test]
    fn copies_of_anchored_nodes_are_not_located() {
        let f = files(TYPES, EVENTS);
        assert!(f.shared_type("Copy").is_none());
        let (_, merged) = f.shared_type("Merged").expect("Merged");
        assert!(merged.fields().is_none() && !merged.lacks("fields"));
        assert_eq!(merged.entries().map(|e| e.len()), Some(1));
        let end = merged.end().expect("end");
        assert_eq!(&TYPES[end.offset - 6..end.offset], "merged");
    }

    #[test]
    fn events_versions_and_payloads_are_found() {
        let f = files(
            TYPES,
            "events:\n  - name: one\n    versions:\n      v1: {bases: [B]}  # {fields}\n      v2:\n        payload: \"Base\"\n  - names: [two, 'three']\n    versions:\n      v1:\n        fields: {}\n",
        );
        let one = f.event("one").expect("one");
        assert_eq!(one.place().line, 1);
        assert_eq!(one.event_names(), ["one"]);
        let (_, v1) = one.version("v1").expect("v1");
        assert!(v1.is_flow() && v1.fields().is_none());
        let (at, _) = v1.flow_insertion().expect("flow");
        assert_eq!(
            f.text(at.file)[at.offset..].split('\n').next(),
            Some("}  # {fields}")
        );
        let (_, v2) = one.version("v2").expect("v2");
        assert_eq!(v2.payload().and_then(|p| p.text()), Some("Base"));
        let three = f.event("three").expect("three");
        assert_eq!(three.event_names(), ["two", "three"]);
        let (_, fields) = three
            .version("v1")
            .and_then(|(_, v)| v.fields())
            .expect("fields");
        assert_eq!(fields.flow_insertion().map(|(_, m)| m), Some(false));
        // An alias to an anchor that is not there: not YAML the reader accepts; nothing located.
        assert!(files(TYPES, EVENTS).event("one").is_none());
    }
}
