//! Diagnostics for schema mistakes: located, rendered like rustc, or as JSON for tools.

use crate::source::{SourceMap, Span};
use annotate_snippets::{AnnotationKind, Group, Level, Renderer, Snippet};

/// Declares [`Code`]: each variant with its stable kebab-case text.
macro_rules! codes {
    ($($(#[doc = $doc:literal])* $variant:ident = $text:literal,)*) => {
        /// A kind of schema mistake. Its text (`unknown-type`) is stable: it is shown in brackets, in JSON
        /// diagnostics, and names the mistake's fixture in `codegen/tests/fixtures/mistakes/`.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum Code {
            $($(#[doc = $doc])* $variant,)*
        }

        impl Code {
            /// Every code.
            pub const ALL: &'static [Code] = &[$(Code::$variant,)*];

            /// The stable kebab-case text.
            pub const fn as_str(self) -> &'static str {
                match self {
                    $(Code::$variant => $text,)*
                }
            }
        }
    };
}

codes! {
    /// The schema folder does not exist or is not a folder.
    MissingSchemaFolder = "missing-schema-folder",
    /// The schema folder holds no schema file.
    EmptySchemaFolder = "empty-schema-folder",
    /// A file in the schema folder that is not a schema file (`.yml`, an unknown name).
    UnexpectedFile = "unexpected-file",
    /// A schema file or folder could not be read.
    Io = "io",
    /// A schema file over the size limit.
    FileTooLarge = "file-too-large",
    /// A schema file that is not UTF-8.
    NotUtf8 = "not-utf8",
    /// A schema file with nothing but blank lines and comments.
    EmptyFile = "empty-file",
    /// Invalid YAML.
    YamlSyntax = "yaml-syntax",
    /// YAML nested too deeply or expanding beyond the loader's limits (aliases).
    YamlTooLarge = "yaml-too-large",
    /// A mapping key that is not a plain name.
    InvalidKey = "invalid-key",
    /// A key written twice in one mapping.
    DuplicateKey = "duplicate-key",
    /// A key the schema format does not have here.
    UnknownKey = "unknown-key",
    /// A required key is absent.
    MissingKey = "missing-key",
    /// Keys that cannot be combined.
    ConflictingKeys = "conflicting-keys",
    /// A value of the wrong kind (a mapping where a name belongs, an unknown keyword).
    InvalidValue = "invalid-value",
    /// An item that must be documented has no description.
    MissingDescription = "missing-description",
    /// A type expression that is malformed or not allowed here.
    InvalidType = "invalid-type",
    /// A type name that is neither a built-in nor a defined type.
    UnknownType = "unknown-type",
    /// A `format` on a field that is not a string.
    InvalidFormat = "invalid-format",
    /// A type name that is not PascalCase ASCII.
    InvalidTypeName = "invalid-type-name",
    /// A field name that is not ASCII letters, digits and `_`.
    InvalidFieldName = "invalid-field-name",
    /// An event type name with characters the catalogue does not use.
    InvalidEventName = "invalid-event-name",
    /// An endpoint name that is not snake_case.
    InvalidEndpointName = "invalid-endpoint-name",
    /// A version label that is neither `vN` nor `MAJOR.MINOR.PATCH`.
    InvalidVersion = "invalid-version",
    /// An endpoint path that is relative or has unbalanced or repeated placeholders.
    InvalidPath = "invalid-path",
    /// An events file whose stem cannot name a Rust module and cargo feature.
    InvalidFileName = "invalid-file-name",
    /// A base defined twice.
    DuplicateBase = "duplicate-base",
    /// An event type named twice in one entry.
    DuplicateEvent = "duplicate-event",
    /// A version of an event type defined twice.
    DuplicateVersion = "duplicate-version",
    /// A field defined twice in one payload (directly or through bases and `extends`).
    DuplicateField = "duplicate-field",
    /// An event type defined in two events files.
    EventInTwoSections = "event-in-two-sections",
    /// An event type whose words begin another's (`a.b`, `a.b.c`): their bus subjects would overlap.
    SubjectOverlap = "subject-overlap",
    /// A base that is not defined.
    UnknownBase = "unknown-base",
    /// `extends` names an event type that does not exist.
    UnknownEvent = "unknown-event",
    /// `extends` names a version that does not exist.
    UnknownVersion = "unknown-version",
    /// Versions that extend each other in a cycle.
    ExtendsCycle = "extends-cycle",
    /// A type that contains itself through required fields only (no finite JSON has its shape).
    TypeCycle = "type-cycle",
    /// An endpoint's path placeholders and declared path parameters differ.
    PathParameterMismatch = "path-parameter-mismatch",
    /// A parameter rule that does not fit its parameter (`minimum` on a string, a `default` out of
    /// bounds, `not_after` naming no date-time parameter).
    InvalidParameterRule = "invalid-parameter-rule",
    /// Two schema names that become the same generated name.
    NameCollision = "name-collision",
    /// Two fields of one payload that become the same Rust field.
    FieldNameCollision = "field-name-collision",
    /// A schema name that becomes a name the generated crate or documents define themselves.
    ReservedName = "reserved-name",
    /// A field whose name its event type, shared type or resource has reserved (`reserved:`).
    ReservedField = "reserved-field",
    /// An event type whose name a section has reserved (`reserved:`).
    ReservedEvent = "reserved-event",
    /// A consumer's contract reads a field (a JSON pointer) its event version does not have.
    UnknownFieldPointer = "unknown-field-pointer",
    /// A waiver names a consumer that has no contract.
    UnknownConsumer = "unknown-consumer",
}

impl Code {
    /// After this mistake a whole file (or the folder) could not be read: resolving names would only
    /// add follow-on errors about what the unread file defines.
    pub(crate) const fn loses_a_file(self) -> bool {
        matches!(
            self,
            Code::MissingSchemaFolder
                | Code::EmptySchemaFolder
                | Code::Io
                | Code::FileTooLarge
                | Code::NotUtf8
                | Code::EmptyFile
                | Code::YamlSyntax
                | Code::YamlTooLarge
        )
    }
}

impl std::fmt::Display for Code {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A label pointing at a place in a schema file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Label {
    /// Where.
    pub span: Span,
    /// What is there (may be empty).
    pub message: String,
}

/// One schema mistake.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    /// The kind of mistake, e.g. [`Code::UnknownType`].
    pub code: Code,
    /// What is wrong, in one sentence.
    pub message: String,
    /// The place of the mistake; `None` only for mistakes about no particular text (a missing folder).
    pub primary: Option<Label>,
    /// Other places involved (the first definition of a duplicate, say).
    pub secondary: Vec<Label>,
    /// A suggested fix, e.g. "did you mean `Ledger`?".
    pub help: Option<String>,
    /// Path of a file the mistake is about when there is no span (an unreadable file).
    pub file: Option<String>,
}

impl Diagnostic {
    /// A mistake at `span`.
    pub fn new(code: Code, span: Span, message: impl Into<String>) -> Self {
        Diagnostic {
            code,
            message: message.into(),
            primary: Some(Label {
                span,
                message: String::new(),
            }),
            secondary: Vec::new(),
            help: None,
            file: None,
        }
    }

    /// A mistake about a file or folder as a whole.
    pub fn about_path(code: Code, path: impl Into<String>, message: impl Into<String>) -> Self {
        Diagnostic {
            code,
            message: message.into(),
            primary: None,
            secondary: Vec::new(),
            help: None,
            file: Some(path.into()),
        }
    }

    /// Sets the label under the primary place.
    pub fn label(mut self, message: impl Into<String>) -> Self {
        if let Some(primary) = &mut self.primary {
            primary.message = message.into();
        }
        self
    }

    /// Adds another place.
    pub fn with_secondary(mut self, span: Span, message: impl Into<String>) -> Self {
        self.secondary.push(Label {
            span,
            message: message.into(),
        });
        self
    }

    /// Adds a suggestion.
    pub fn with_help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }

    /// Adds "did you mean `x`?" when a known name is close to `unknown`.
    pub fn suggest<'a>(self, unknown: &str, known: impl IntoIterator<Item = &'a str>) -> Self {
        match closest(unknown, known) {
            Some(best) => self.with_help(format!("did you mean `{best}`?")),
            None => self,
        }
    }

    fn sort_key(&self, sources: &SourceMap) -> (String, u32, Code, String) {
        match &self.primary {
            Some(l) => (
                sources.file(l.span.file).display_path.clone(),
                l.span.start,
                self.code,
                self.message.clone(),
            ),
            None => (
                self.file.clone().unwrap_or_default(),
                0,
                self.code,
                self.message.clone(),
            ),
        }
    }
}

/// The closest of `known` to `unknown`, if close enough to be a likely typo.
pub fn closest<'a>(unknown: &str, known: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let unknown_lower = unknown.to_ascii_lowercase();
    known
        .into_iter()
        .map(|k| {
            (
                strsim::damerau_levenshtein(&unknown_lower, &k.to_ascii_lowercase()),
                k,
            )
        })
        .filter(|&(d, k)| d > 0 || k != unknown)
        .filter(|&(d, k)| d <= 2.max(k.len().min(unknown.len()) / 3))
        .min()
        .map(|(_, k)| k)
}

/// Every mistake found in one run.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Diagnostics(pub Vec<Diagnostic>);

impl Diagnostics {
    /// Records a mistake.
    pub fn push(&mut self, d: Diagnostic) {
        self.0.push(d);
    }

    /// No mistake recorded.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Number of mistakes.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Sorts by file and place, and drops exact duplicates, so that output is stable.
    pub fn sort(&mut self, sources: &SourceMap) {
        self.0.sort_by_cached_key(|d| d.sort_key(sources));
        self.0.dedup();
    }

    /// Renders every diagnostic as rustc does, followed by a summary line.
    pub fn render(&self, sources: &SourceMap, color: bool) -> String {
        let renderer = if color {
            Renderer::styled()
        } else {
            Renderer::plain()
        };
        let mut out = String::new();
        for d in &self.0 {
            out.push_str(&renderer.render(&report(d, sources)));
            out.push_str("\n\n");
        }
        let n = self.0.len();
        out.push_str(&format!(
            "error: could not generate: {n} schema error{} found\n",
            if n == 1 { "" } else { "s" }
        ));
        out
    }

    /// One JSON object per line per diagnostic, for editors and CI annotations.
    pub fn to_json_lines(&self, sources: &SourceMap) -> String {
        let place = |l: &Label| {
            let file = sources.file(l.span.file);
            let (line, column) = file.line_col(l.span.start);
            let (end_line, end_column) = file.line_col(l.span.end);
            serde_json::json!({
                "file": file.display_path, "line": line, "column": column,
                "end_line": end_line, "end_column": end_column, "label": l.message,
            })
        };
        let mut out = String::new();
        for d in &self.0 {
            let value = serde_json::json!({
                "severity": "error",
                "code": d.code.as_str(),
                "message": d.message,
                "file": d.primary.as_ref().map(|l| sources.file(l.span.file).display_path.clone()).or(d.file.clone()),
                "primary": d.primary.as_ref().map(place),
                "secondary": d.secondary.iter().map(place).collect::<Vec<_>>(),
                "help": d.help,
                "rendered": Renderer::plain().render(&report(d, sources)),
            });
            out.push_str(&value.to_string());
            out.push('\n');
        }
        out
    }
}

fn report<'a>(d: &'a Diagnostic, sources: &'a SourceMap) -> Vec<Group<'a>> {
    let mut group = Group::with_title(Level::ERROR.primary_title(&d.message).id(d.code.as_str()));
    let mut labels: Vec<(&Label, bool)> = d.primary.iter().map(|l| (l, true)).collect();
    labels.extend(d.secondary.iter().map(|l| (l, false)));
    // One snippet per file, in order of first mention.
    let mut files = Vec::new();
    for (l, _) in &labels {
        if !files.contains(&l.span.file) {
            files.push(l.span.file);
        }
    }
    for file_id in files {
        let file = sources.file(file_id);
        let mut snippet = Snippet::source(file.text.as_str())
            .path(file.display_path.as_str())
            .fold(true);
        for (l, primary) in labels.iter().filter(|(l, _)| l.span.file == file_id) {
            let kind = if *primary {
                AnnotationKind::Primary
            } else {
                AnnotationKind::Context
            };
            snippet = snippet.annotation(
                kind.span(visible_range(file, l.span))
                    .label(l.message.as_str()),
            );
        }
        group = group.element(snippet);
    }
    if let Some(path) = d.file.as_deref().filter(|_| d.primary.is_none()) {
        group = group.element(annotate_snippets::Origin::path(path));
    }
    let mut groups = vec![group];
    if let Some(help) = &d.help {
        groups.push(Group::with_title(
            Level::HELP.secondary_title(help.as_str()),
        ));
    }
    groups
}

/// A span shown under the source: on character boundaries, never empty, never across a line end.
pub(crate) fn visible_range(
    file: &crate::source::SourceFile,
    span: Span,
) -> std::ops::Range<usize> {
    let text = file.text.as_str();
    let mut start = (span.start as usize).min(text.len());
    while !text.is_char_boundary(start) {
        start -= 1;
    }
    let line_end = file.line_end(crate::source::to_u32(start)) as usize;
    let mut end = (span.end as usize).clamp(start, line_end.max(start));
    while !text.is_char_boundary(end) {
        end += 1;
    }
    if end > start {
        start..end
    } else if start < line_end {
        let width = text[start..].chars().next().map_or(1, char::len_utf8);
        start..start + width
    } else {
        start..start
    }
}
