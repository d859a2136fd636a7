//! Where a schema edit goes: the lines of the schema files that hold an event type's entry, a version,
//! a shared type and their `fields`, found by their indentation and keys (the files are not parsed:
//! the model comes from the generated crate; the files are read only to place the edits), and the
//! edits made to copies of those lines.
//!
//! The schema format writes mappings in block style with flow mappings for short field lists
//! (`fields: {a: int, b?: str}`), as `docs/schema-format.md` shows; a layout this does not recognise
//! leaves the suggestion unlocated (written without an edit), never a wrong edit.

use std::collections::BTreeMap;
use std::path::Path;

/// A schema file's lines, as read and as edited.
pub(crate) struct SchemaFile {
    /// The path as the user gave the folder (`schema/events/billing.yaml`).
    pub(crate) path: String,
    lines: Vec<String>,
    /// Edits by line index: the line's new text, and lines inserted after it.
    edits: BTreeMap<usize, (String, Vec<String>)>,
}

/// A block of lines: the line of its key, and one past its last line.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Block {
    pub(crate) line: usize,
    pub(crate) end: usize,
}

fn indent(line: &str) -> usize {
    line.len() - line.trim_start().len()
}

fn is_blank_or_comment(line: &str) -> bool {
    let text = line.trim_start();
    text.is_empty() || text.starts_with('#')
}

/// A plain or quoted scalar's text.
fn unquote(text: &str) -> &str {
    let text = text.trim();
    text.strip_prefix('"')
        .and_then(|t| t.strip_suffix('"'))
        .or_else(|| text.strip_prefix('\'').and_then(|t| t.strip_suffix('\'')))
        .unwrap_or(text)
}

impl SchemaFile {
    fn line(&self, i: usize) -> &str {
        self.lines.get(i).map_or("", String::as_str)
    }

    /// One past the last line of the block whose key is at line `start` (the lines indented deeper
    /// than it, blank lines and comments inside included).
    fn block_end(&self, start: usize, key_indent: usize) -> usize {
        let mut end = start + 1;
        let mut i = start + 1;
        while i < self.lines.len() {
            let line = self.line(i);
            if !is_blank_or_comment(line) {
                if indent(line) <= key_indent {
                    break;
                }
                end = i + 1;
            }
            i += 1;
        }
        end
    }

    /// The keys directly inside `block` (the first indentation deeper than its key's), with their
    /// lines.
    fn children(&self, block: Block) -> Vec<(String, Block)> {
        let key_line = self.line(block.line);
        let key_indent = indent(key_line);
        let mut children = Vec::new();
        // An entry of a list (`- name: x`) has its other keys under its first one, past the `- `.
        let mut child_indent = key_line
            .trim_start()
            .starts_with("- ")
            .then_some(key_indent + 2);
        for i in block.line + 1..block.end {
            let line = self.line(i);
            if is_blank_or_comment(line) {
                continue;
            }
            let at = indent(line);
            if at <= key_indent || child_indent.is_some_and(|c| at != c) {
                continue;
            }
            child_indent = Some(at);
            let text = line.trim_start();
            let key = text.strip_prefix("- ").unwrap_or(text);
            if let Some((key, _)) = key.split_once(':') {
                children.push((
                    unquote(key).to_owned(),
                    Block {
                        line: i,
                        end: self.block_end(i, at),
                    },
                ));
            }
        }
        children
    }

    /// The entry of `events:` that declares event type `name` (`- name: x`, or `x` among `names:`).
    pub(crate) fn event(&self, name: &str) -> Option<Block> {
        for (i, line) in self.lines.iter().enumerate() {
            let text = line.trim_start();
            let Some(entry) = text.strip_prefix("- ") else {
                continue;
            };
            let entry = entry.trim_start();
            let found = if let Some(value) = entry.strip_prefix("name:") {
                unquote(value) == name
            } else if let Some(value) = entry.strip_prefix("names:") {
                let value = value.trim();
                if value.is_empty() {
                    // A block list on the lines below.
                    let at = indent(line) + 2;
                    let mut j = i + 1;
                    let mut hit = false;
                    while j < self.lines.len() && indent(self.line(j)) > at {
                        let item = self.line(j).trim_start();
                        if item.strip_prefix("- ").is_some_and(|t| unquote(t) == name) {
                            hit = true;
                        }
                        j += 1;
                    }
                    hit
                } else {
                    value
                        .trim_start_matches('[')
                        .trim_end_matches(']')
                        .split(',')
                        .any(|t| unquote(t) == name)
                }
            } else {
                false
            };
            if found {
                // The entry's keys are indented past the `- `.
                let key_indent = indent(line);
                return Some(Block {
                    line: i,
                    end: self.block_end(i, key_indent),
                });
            }
        }
        None
    }

    /// The event types an entry declares (one for `- name: x`; several for `- names: […]`).
    pub(crate) fn entry_names(&self, entry: Block) -> Vec<String> {
        let first = self.line(entry.line).trim_start();
        let first = first.strip_prefix("- ").unwrap_or(first).trim_start();
        if let Some(value) = first.strip_prefix("name:") {
            return vec![unquote(value).to_owned()];
        }
        let Some(value) = first.strip_prefix("names:") else {
            return Vec::new();
        };
        let value = value.trim();
        if !value.is_empty() {
            return value
                .trim_start_matches('[')
                .trim_end_matches(']')
                .split(',')
                .map(|t| unquote(t).to_owned())
                .collect();
        }
        let at = indent(self.line(entry.line)) + 2;
        (entry.line + 1..entry.end)
            .map(|i| self.line(i))
            .take_while(|l| indent(l) > at || is_blank_or_comment(l))
            .filter_map(|l| {
                l.trim_start()
                    .strip_prefix("- ")
                    .map(|t| unquote(t).to_owned())
            })
            .collect()
    }

    /// Version `label` of an event entry, and the last version's block.
    pub(crate) fn version(&self, entry: Block, label: &str) -> Option<(Block, Block)> {
        // The entry's first line holds its first key after `- `: its other keys are children.
        let versions = self
            .children(entry)
            .into_iter()
            .find(|(key, _)| key == "versions")?
            .1;
        let all = self.children(versions);
        let found = all.iter().find(|(key, _)| key == label)?.1;
        let last = all.last()?.1;
        Some((found, last))
    }

    /// Shared type `name` (a key under the top-level `types:`).
    pub(crate) fn shared_type(&self, name: &str) -> Option<Block> {
        let types = self
            .lines
            .iter()
            .position(|l| l.trim_end() == "types:" && indent(l) == 0)?;
        let block = Block {
            line: types,
            end: self.block_end(types, 0),
        };
        self.children(block)
            .into_iter()
            .find(|(key, _)| key == name)
            .map(|(_, b)| b)
    }

    /// The `payload:` a version is written as (a shared type's name), if it is one.
    pub(crate) fn payload_type(&self, version: Block) -> Option<String> {
        self.children(version)
            .into_iter()
            .find(|(key, _)| key == "payload")
            .map(|(_, b)| {
                let line = self.line(b.line);
                let value = line.split_once(':').map_or("", |(_, v)| v);
                unquote(value.split('#').next().unwrap_or("")).to_owned()
            })
    }

    /// Adds field `entry` (`name?: type`) to the fields of `block` (a version or a shared type): to
    /// its flow mapping `fields: {…}`, as a line of its block mapping `fields:`, or as a new `fields:`
    /// key. False when the layout is not one of these.
    pub(crate) fn add_field(&mut self, block: Block, entry: &str) -> bool {
        let key_line = self.line(block.line).to_owned();
        let key_value = key_line.split_once(':').map_or("", |(_, v)| v).trim();
        if key_value.starts_with('{') {
            // `v1: {bases: [UB]}`: a `fields` member in the flow mapping.
            return self.append_to_flow(block.line, &format!("fields: {{{entry}}}"));
        }
        let fields = self
            .children(block)
            .into_iter()
            .find(|(key, _)| key == "fields");
        match fields {
            Some((_, fields)) => {
                let line = self.line(fields.line).to_owned();
                let value = line.split_once(':').map_or("", |(_, v)| v).trim();
                if value.starts_with('{') && value.ends_with('}') {
                    self.append_to_flow(fields.line, entry)
                } else if value.is_empty() {
                    let child_indent = (fields.line + 1..fields.end)
                        .map(|i| self.line(i))
                        .find(|l| !is_blank_or_comment(l))
                        .map_or(indent(&line) + 2, indent);
                    self.insert_after(
                        fields.end - 1,
                        format!("{}{entry}", " ".repeat(child_indent)),
                    );
                    true
                } else {
                    false
                }
            }
            None => {
                let child_indent = self
                    .children(block)
                    .first()
                    .map_or(indent(&key_line) + 2, |(_, b)| indent(self.line(b.line)));
                self.insert_after(
                    block.end - 1,
                    format!("{}fields: {{{entry}}}", " ".repeat(child_indent)),
                );
                true
            }
        }
    }

    /// Adds `member` before the last `}` of line `i` (as edited so far).
    fn append_to_flow(&mut self, i: usize, member: &str) -> bool {
        let current = self.current(i).to_owned();
        let Some(close) = current.rfind('}') else {
            return false;
        };
        let inside = current[..close].trim_end();
        let separator = if inside.ends_with('{') { "" } else { ", " };
        let new = format!("{inside}{separator}{member}{}", &current[close..]);
        self.edits
            .entry(i)
            .or_insert_with(|| (current, Vec::new()))
            .0 = new;
        true
    }

    /// Line `i` as edited so far.
    fn current(&self, i: usize) -> &str {
        self.edits.get(&i).map_or(self.line(i), |(text, _)| text)
    }

    /// Inserts `text` after line `i`.
    pub(crate) fn insert_after(&mut self, i: usize, text: String) {
        let current = self.current(i).to_owned();
        self.edits
            .entry(i)
            .or_insert_with(|| (current, Vec::new()))
            .1
            .push(text);
    }

    /// The text of line `i` as read.
    pub(crate) fn original(&self, i: usize) -> &str {
        self.line(i)
    }

    /// The edits: line index, the line as read, and what replaces it.
    pub(crate) fn edits(&self) -> impl Iterator<Item = (usize, &str, Vec<&str>)> {
        self.edits.iter().map(|(i, (text, inserted))| {
            let mut new = vec![text.as_str()];
            new.extend(inserted.iter().map(String::as_str));
            (*i, self.line(*i), new)
        })
    }
}

/// The schema folder's YAML files, read to place edits.
pub(crate) struct Schema {
    pub(crate) files: Vec<SchemaFile>,
}

impl Schema {
    /// Reads `types.yaml` and `events/*.yaml` of `dir` (a folder that is not there gives no files:
    /// suggestions are then written without their places).
    pub(crate) fn read(dir: &Path) -> Result<Schema, String> {
        let mut paths = vec![dir.join("types.yaml")];
        if let Ok(entries) = std::fs::read_dir(dir.join("events")) {
            let mut events: Vec<_> = entries
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
            files.push(SchemaFile {
                path: path.display().to_string(),
                lines: text.lines().map(str::to_owned).collect(),
                edits: BTreeMap::new(),
            });
        }
        Ok(Schema { files })
    }

    /// The file and entry of event type `name`.
    pub(crate) fn event(&self, name: &str) -> Option<(usize, Block)> {
        self.files
            .iter()
            .enumerate()
            .find_map(|(f, file)| file.event(name).map(|b| (f, b)))
    }

    /// The file and block of shared type `name`.
    pub(crate) fn shared_type(&self, name: &str) -> Option<(usize, Block)> {
        self.files
            .iter()
            .enumerate()
            .find_map(|(f, file)| file.shared_type(name).map(|b| (f, b)))
    }
}
