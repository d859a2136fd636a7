//! Where a schema edit goes, and the edits made to copies of the schema files' lines.
//!
//! The places come from the generator's own reader (`energy_codegen::locate`: the files parsed into the
//! located nodes its diagnostics point with; the model itself comes from the generated crate): an event
//! type's entry, a version, a shared type, their `fields` (a flow `{…}` or block mapping) and a
//! version's `payload`. A field is written into the flow mapping after its last member, or as a line
//! after the block's last; a new version as lines after the last. A layout without such a place (a
//! copy of an anchored node, `versions` written as a flow mapping) leaves the suggestion unlocated
//! (written without an edit), never a wrong edit.

use energy_codegen::locate::{Located, Place, SchemaFiles};
use std::collections::BTreeMap;
use std::path::Path;

/// The schema folder's YAML files, parsed to place edits, and the edits.
pub(crate) struct Schema {
    /// The files' located nodes.
    pub(crate) located: SchemaFiles,
    /// The edits, file by file (in the order of `located`'s files).
    pub(crate) edits: Edits,
}

/// The edits of every schema file.
pub(crate) struct Edits {
    pub(crate) files: Vec<FileEdits>,
    /// The `fields: {…}` written into a version or shared type that had none, by the place of its key:
    /// a second field goes into it.
    created: BTreeMap<Place, (usize, usize, Slot)>,
    /// What was added, by the place of the key it was added under (a version's or shared type's for
    /// a field, an entry's for a version) and its name: a second suggestion of the same (an entry
    /// declaring several event types, a shared type several versions hold) is the same edit, and a
    /// different one under the same name no edit.
    added: BTreeMap<(Place, String), String>,
}

/// A schema file's lines, as read, and its edits.
pub(crate) struct FileEdits {
    /// The path as the user gave the folder (`schema/events/billing.yaml`).
    pub(crate) path: String,
    lines: Vec<String>,
    edits: BTreeMap<usize, LineEdit>,
}

/// What is written into a line and after it.
#[derive(Default)]
struct LineEdit {
    /// Text inserted at byte offsets of the line as read.
    inline: Vec<(usize, Piece)>,
    /// Lines inserted after it: fields (rank 0) before versions (rank 1).
    after: Vec<(u8, Piece)>,
}

/// A piece of text written.
enum Piece {
    Text(String),
    /// `{before}fields: {a, b}`: a `fields` mapping written where there was none.
    Fields {
        before: String,
        entries: Vec<String>,
    },
}

/// Where a created `fields: {…}` is: inline at an index, or a line after at an index.
#[derive(Clone, Copy)]
enum Slot {
    Inline(usize),
    After(usize),
}

impl Piece {
    fn render(&self) -> String {
        match self {
            Piece::Text(text) => text.clone(),
            Piece::Fields { before, entries } => {
                format!("{before}fields: {{{}}}", entries.join(", "))
            }
        }
    }
}

/// The spaces that indent a key at `place`, if only spaces stand before it on its line (else `None`:
/// not a place for a new line).
fn indent_of(files: &SchemaFiles, place: Place) -> Option<String> {
    let text = files.text(place.file);
    let before = text.get(place.offset - place.byte_in_line..place.offset)?;
    before
        .bytes()
        .all(|b| b == b' ')
        .then(|| " ".repeat(place.byte_in_line))
}

impl Schema {
    /// Reads `types.yaml` and `events/*.yaml` of `dir` (a folder that is not there gives no files:
    /// suggestions are then written without their places).
    pub(crate) fn read(dir: &Path) -> Result<Schema, String> {
        let located = SchemaFiles::read(dir)?;
        let files = located
            .paths()
            .enumerate()
            .map(|(i, path)| FileEdits {
                path: path.display().to_string(),
                lines: located.text(i).lines().map(str::to_owned).collect(),
                edits: BTreeMap::new(),
            })
            .collect();
        Ok(Schema {
            located,
            edits: Edits {
                files,
                created: BTreeMap::new(),
                added: BTreeMap::new(),
            },
        })
    }
}

impl Edits {
    /// Whether `what` (named `name`) is new under the key at `at`: `Some(true)` to add it,
    /// `Some(false)` when it was added already, `None` when something else was added under its name.
    fn first(&mut self, at: Place, name: &str, what: &str) -> Option<bool> {
        match self.added.get(&(at, name.to_owned())) {
            Some(before) => (before == what).then_some(false),
            None => Some(true),
        }
    }

    fn record(&mut self, at: Place, name: &str, what: &str) {
        self.added.insert((at, name.to_owned()), what.to_owned());
    }

    fn line(&mut self, file: usize, line: usize) -> Option<&mut LineEdit> {
        let f = self.files.get_mut(file)?;
        (line < f.lines.len()).then(|| f.edits.entry(line).or_default())
    }

    /// Inserts `text` into the line of `at`, at its place.
    fn insert_inline(&mut self, at: Place, piece: Piece) -> Option<usize> {
        let edit = self.line(at.file, at.line)?;
        edit.inline.push((at.byte_in_line, piece));
        Some(edit.inline.len() - 1)
    }

    /// Inserts a line after line `line` of `file`.
    fn insert_after(&mut self, file: usize, line: usize, rank: u8, piece: Piece) -> Option<usize> {
        let edit = self.line(file, line)?;
        edit.after.push((rank, piece));
        Some(edit.after.len() - 1)
    }

    /// Adds field `entry` (`name?: type`) to the fields of `holder` (a version or a shared type, whose
    /// key is `key`): into its flow mapping `fields: {…}`, as a line of its block mapping `fields:`,
    /// or as a new `fields` entry. The place to show (`file:line` of the key), or `None` when the
    /// layout has no certain place for it.
    pub(crate) fn add_field(
        &mut self,
        files: &SchemaFiles,
        key: Located<'_>,
        holder: Located<'_>,
        entry: &str,
    ) -> Option<String> {
        let at = key.place();
        let shown = format!("{}:{}", self.files.get(at.file)?.path, at.line + 1);
        let name = entry.split(['?', ':']).next().unwrap_or(entry);
        if !self.first(at, name, entry)? {
            return Some(shown);
        }
        let placed = self.place_field(files, at, holder, entry).is_some();
        if placed {
            self.record(at, name, entry);
        }
        placed.then_some(shown)
    }

    /// Writes field `entry` into `holder`, whose key is at `at`; `None` when there is no certain place.
    fn place_field(
        &mut self,
        files: &SchemaFiles,
        at: Place,
        holder: Located<'_>,
        entry: &str,
    ) -> Option<()> {
        if let Some(&(file, line, slot)) = self.created.get(&at) {
            let edit = self.line(file, line)?;
            let piece = match slot {
                Slot::Inline(i) => edit.inline.get_mut(i).map(|(_, p)| p),
                Slot::After(i) => edit.after.get_mut(i).map(|(_, p)| p),
            };
            if let Some(Piece::Fields { entries, .. }) = piece {
                entries.push(entry.to_owned());
                return Some(());
            }
            return None;
        }
        if !holder.is_mapping() {
            return None;
        }
        if let Some((_, fields)) = holder.fields() {
            if !fields.is_mapping() {
                return None;
            }
            if fields.is_flow() {
                let (place, members) = fields.flow_insertion()?;
                let taken = self
                    .line(place.file, place.line)?
                    .inline
                    .iter()
                    .any(|(at, _)| *at == place.byte_in_line);
                let separator = if members || taken { ", " } else { "" };
                self.insert_inline(place, Piece::Text(format!("{separator}{entry}")))?;
            } else {
                let (first, _) = *fields.entries()?.first()?;
                let pad = indent_of(files, first.place())?;
                let end = fields.end()?;
                self.insert_after(end.file, end.line, 0, Piece::Text(format!("{pad}{entry}")))?;
            }
            return Some(());
        }
        if !holder.lacks("fields") {
            return None;
        }
        let created = if holder.is_flow() {
            let (place, members) = holder.flow_insertion()?;
            let piece = Piece::Fields {
                before: if members { ", " } else { "" }.to_owned(),
                entries: vec![entry.to_owned()],
            };
            let index = self.insert_inline(place, piece)?;
            (place.file, place.line, Slot::Inline(index))
        } else {
            let (first, _) = *holder.entries()?.first()?;
            let pad = indent_of(files, first.place())?;
            let end = holder.end()?;
            let piece = Piece::Fields {
                before: pad,
                entries: vec![entry.to_owned()],
            };
            let index = self.insert_after(end.file, end.line, 0, piece)?;
            (end.file, end.line, Slot::After(index))
        };
        self.created.insert(at, created);
        Some(())
    }

    /// Adds a new version (`lines`, its key first, each indented as the entry's versions) after the
    /// last version of event entry `entry`, which must declare version `after`. The place to show
    /// (`file:line` of the entry), or `None`.
    pub(crate) fn add_version(
        &mut self,
        files: &SchemaFiles,
        entry: Located<'_>,
        after: &str,
        lines: &[String],
    ) -> Option<String> {
        let at = entry.place();
        let shown = format!("{}:{}", self.files.get(at.file)?.path, at.line + 1);
        let label = lines.first()?.trim_end_matches(':');
        let all = lines.join("\n");
        if !self.first(at, label, &all)? {
            return Some(shown);
        }
        entry.version(after)?;
        let versions = entry.get("versions")?;
        if versions.is_flow() || !versions.is_mapping() {
            return None;
        }
        let (last, _) = *versions.entries()?.last()?;
        let pad = indent_of(files, last.place())?;
        let end = versions.end()?;
        for line in lines {
            self.insert_after(end.file, end.line, 1, Piece::Text(format!("{pad}{line}")))?;
        }
        self.record(at, label, &all);
        Some(shown)
    }
}

impl FileEdits {
    /// The edits: line index, the line as read, and what replaces it.
    pub(crate) fn edits(&self) -> impl Iterator<Item = (usize, &str, Vec<String>)> {
        self.edits.iter().map(|(&i, edit)| {
            let old = self.lines.get(i).map_or("", String::as_str);
            let mut inline: Vec<&(usize, Piece)> = edit.inline.iter().collect();
            inline.sort_by_key(|(at, _)| *at);
            let mut text = String::new();
            let mut from = 0;
            for (at, piece) in inline {
                let at = (*at).clamp(from, old.len());
                text.push_str(old.get(from..at).unwrap_or(""));
                text.push_str(&piece.render());
                from = at;
            }
            text.push_str(old.get(from..).unwrap_or(""));
            let mut after: Vec<&(u8, Piece)> = edit.after.iter().collect();
            after.sort_by_key(|(rank, _)| *rank);
            let mut new = vec![text];
            new.extend(after.iter().map(|(_, piece)| piece.render()));
            (i, old, new)
        })
    }
}
