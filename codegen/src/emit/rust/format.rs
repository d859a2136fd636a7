//! How the crate's Rust files are laid out: token streams formatted with prettyplease, items separated as
//! in hand-written code, and a cache of earlier results so that a run formats only what changed.

use crate::model::Model;
use proc_macro2::TokenStream;
use quote::quote;
use std::collections::{BTreeMap, BTreeSet};
use std::hash::Hash;
use std::path::PathBuf;

/// Formatted files kept between runs of the generator, by what they were made from.
///
/// Formatting (parsing the tokens back with syn, printing them with prettyplease) is most of the
/// generator's time, and an edit to the schema changes few files. An entry is a formatted file, named by
/// a 128-bit hash of a `build` identity the caller gives (the generator's executable, say), so that a
/// generator whose code changed never reads what another build made, and of what the file was made
/// from: a section's files, the section itself, so that an unchanged section's tokens are not even
/// built; every other file, the text of its tokens. An entry starts with a checksum of the file it holds, so that a
/// damaged entry costs a reformat, never a wrong file.
///
/// A run also leaves an index of its files by a hash of the whole model: the next run from the same model
/// (a `--check`, a regeneration that changes nothing) takes every file from it without building tokens.
pub struct FormatCache {
    dir: PathBuf,
    build: String,
}

impl FormatCache {
    /// A cache in `dir` (created when first written) for the generator build named by `build`.
    pub fn new(dir: impl Into<PathBuf>, build: impl Into<String>) -> Self {
        FormatCache {
            dir: dir.into(),
            build: build.into(),
        }
    }

    /// The name of an entry: a 128-bit hash of this build, of `what` the entry is (a path, a kind) and of
    /// what `feed` writes into the hasher (a text, or a value of the model), and `extension`.
    fn entry_name(&self, what: &str, extension: &str, feed: impl FnOnce(&mut Hasher128)) -> String {
        let mut hasher = Hasher128::new();
        self.build.hash(&mut hasher);
        what.hash(&mut hasher);
        feed(&mut hasher);
        format!("{}.{extension}", hasher.hex())
    }

    /// The files of an earlier run from the same model, by path, if its index and every entry it names
    /// are there and intact.
    fn earlier_run(&self, index: &str) -> Option<Vec<(String, String, String)>> {
        let list = std::fs::read_to_string(self.dir.join(index)).ok()?;
        list.lines()
            .map(|line| {
                let (path, name) = line.split_once('\t')?;
                Some((path.to_owned(), name.to_owned(), self.get(name)?))
            })
            .collect()
    }

    /// The file formatted in an earlier run from the tokens that `name` was made from, if it is there and
    /// intact.
    fn get(&self, name: &str) -> Option<String> {
        let mut entry = std::fs::read_to_string(self.dir.join(name)).ok()?;
        let (checksum, formatted) = entry.split_once('\n')?;
        if checksum != format!("{:016x}", Self::checksum(formatted)) {
            return None;
        }
        Some(entry.split_off(checksum.len() + 1))
    }

    fn checksum(formatted: &str) -> u64 {
        use std::hash::BuildHasher;
        foldhash::quality::FixedState::with_seed(0).hash_one(formatted)
    }

    /// Keeps `formatted` under `name`, after a checksum line.
    fn put(&self, name: &str, formatted: &str) {
        let checksum = Self::checksum(formatted);
        self.write(name, &format!("{checksum:016x}\n{formatted}"));
    }

    /// Writes a file of the cache: to a temporary file, then renamed, so that a run reading it at the same
    /// time sees all of it or none; a failure to write only costs a reformat next time.
    fn write(&self, name: &str, contents: &str) {
        let temporary = self.dir.join(format!("{name}.{}.tmp", std::process::id()));
        let written = std::fs::create_dir_all(&self.dir)
            .and_then(|()| std::fs::write(&temporary, contents))
            .and_then(|()| std::fs::rename(&temporary, self.dir.join(name)));
        if written.is_err() {
            let _ = std::fs::remove_file(&temporary);
        }
    }

    /// Removes the entries not named in `used` (those of files the schema no longer makes as they were),
    /// so that the cache holds one generation's files, not every file ever formatted.
    fn keep_only(&self, used: &BTreeSet<String>) {
        let Ok(entries) = std::fs::read_dir(&self.dir) else {
            return;
        };
        for entry in entries.flatten() {
            let name = entry.file_name();
            // Anything else there is stale, or a temporary file a run that stopped midway left behind.
            if name.to_str().is_none_or(|n| !used.contains(n)) {
                let _ = std::fs::remove_file(entry.path());
            }
        }
    }
}

/// Two 64-bit hashers, differently seeded, fed alike: a 128-bit hash of values (`Hash`) and of text
/// (`fmt::Write`). foldhash, a fast hash, as these are not keys an adversary chooses: SipHash was a
/// quarter of a run; hashing the model's debug text instead of the model, another quarter.
struct Hasher128([foldhash::quality::FoldHasher<'static>; 2]);

impl Hasher128 {
    fn new() -> Self {
        use std::hash::BuildHasher;
        let seeded = |seed| foldhash::quality::FixedState::with_seed(seed).build_hasher();
        Hasher128([seeded(1), seeded(2)])
    }

    fn hex(&self) -> String {
        use std::hash::Hasher;
        format!("{:016x}{:016x}", self.0[0].finish(), self.0[1].finish())
    }
}

impl std::hash::Hasher for Hasher128 {
    fn write(&mut self, bytes: &[u8]) {
        for hasher in &mut self.0 {
            hasher.write(bytes);
        }
    }

    /// Not used: [`Hasher128::hex`] gives both halves.
    fn finish(&self) -> u64 {
        self.0[0].finish()
    }
}

impl std::fmt::Write for Hasher128 {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        std::hash::Hasher::write(self, s.as_bytes());
        Ok(())
    }
}

/// Formats the files of one run, through a cache when there is one.
pub(super) struct Formatter<'a> {
    /// The cache and the name of this model's index in it.
    cache: Option<(&'a FormatCache, String)>,
    /// The entry of each file this run formatted or took from the cache, by path.
    entries: std::sync::Mutex<BTreeMap<String, String>>,
}

impl<'a> Formatter<'a> {
    pub(super) fn new(cache: Option<&'a FormatCache>, model: &Model) -> Self {
        Formatter {
            cache: cache.map(|c| {
                let index = c.entry_name("the model", "run", |h| model.hash(h));
                (c, index)
            }),
            entries: Default::default(),
        }
    }

    /// Every file of an earlier run from the same model, by path, when the cache has them all.
    pub(super) fn earlier_run(&self) -> Option<BTreeMap<String, String>> {
        let (cache, index) = self.cache.as_ref()?;
        let run = cache.earlier_run(index)?;
        let mut entries = self.entries.lock().ok()?;
        Some(
            run.into_iter()
                .map(|(path, name, formatted)| {
                    entries.insert(path.clone(), name);
                    (path, formatted)
                })
                .collect(),
        )
    }

    /// The file at `path` made from `tokens`: from the cache if it holds it, else formatted (and kept).
    pub(super) fn format(&self, path: &str, tokens: TokenStream) -> Result<String, String> {
        let Some((cache, _)) = &self.cache else {
            return format_file(tokens);
        };
        // Hashed as printed, never held: printing the text whole would cost a third of a run that finds
        // every file in the cache. Writing to a hasher cannot fail.
        let name = cache.entry_name("tokens", "rs", |h| {
            let _ = std::fmt::Write::write_fmt(h, format_args!("{tokens}"));
        });
        if let Ok(mut entries) = self.entries.lock() {
            entries.insert(path.to_owned(), name.clone());
        }
        if let Some(formatted) = cache.get(&name) {
            return Ok(formatted);
        }
        let formatted = format_file(tokens)?;
        cache.put(&name, &formatted);
        Ok(formatted)
    }

    /// The file at `path` that `build` makes from `inputs` (everything it reads): from the cache if a run
    /// made it from the same inputs, else built and formatted (and kept).
    pub(super) fn format_from(
        &self,
        path: &str,
        inputs: impl std::hash::Hash,
        build: impl FnOnce() -> TokenStream,
    ) -> Result<String, String> {
        let Some((cache, _)) = &self.cache else {
            return format_file(build());
        };
        let name = cache.entry_name(path, "rs", |h| inputs.hash(h));
        if let Ok(mut entries) = self.entries.lock() {
            entries.insert(path.to_owned(), name.clone());
        }
        if let Some(formatted) = cache.get(&name) {
            return Ok(formatted);
        }
        let formatted = format_file(build())?;
        cache.put(&name, &formatted);
        Ok(formatted)
    }

    /// Ends the run: the cache keeps this model's index and the entries it names, nothing else.
    pub(super) fn finish(self) {
        let (Some((cache, index)), Ok(entries)) = (self.cache, self.entries.into_inner()) else {
            return;
        };
        let list: String = entries
            .iter()
            .map(|(path, name)| format!("{path}\t{name}\n"))
            .collect();
        cache.write(&index, &list);
        let mut used: BTreeSet<String> = entries.into_values().collect();
        used.insert(index);
        cache.keep_only(&used);
    }
}

/// Formats a token stream as a Rust file with the generated header, items separated by blank lines (as
/// progenitor does) so that a reader finds their way as in hand-written code.
fn format_file(tokens: TokenStream) -> Result<String, String> {
    let mut file = syn::parse2::<syn::File>(tokens)
        .map_err(|e| format!("generated Rust does not parse: {e}"))?;
    let items = std::mem::take(&mut file.items);
    let mut out = crate::emit::header("//");
    let header_len = out.len();
    out.push_str(&prettyplease::unparse(&file));
    // Declarations (`use`, `mod x;`) stay together, as a list.
    let declaration = |item: &syn::Item| match item {
        syn::Item::Use(_) => true,
        syn::Item::Mod(m) => m.content.is_none(),
        _ => false,
    };
    let mut previous_declares = false;
    file.attrs.clear();
    for item in items {
        let declares = declaration(&item);
        if out.len() > header_len && !(declares && previous_declares) {
            out.push('\n');
        }
        previous_declares = declares;
        if let Some(text) = reader_invocation(&item)
            .or_else(|| item_invocation(&item))
            .or_else(|| rows_invocation(&item))
        {
            out.push_str(&text);
            continue;
        }
        file.items = vec![item];
        out.push_str(&separate_nested_items(&prettyplease::unparse(&file)));
    }
    Ok(out)
}

/// A `table_struct!` invocation laid out as rustfmt would, a field per line
/// (prettyplease prints the arguments of macros it does not know as one run of tokens).
fn reader_invocation(item: &syn::Item) -> Option<String> {
    let syn::Item::Macro(m) = item else {
        return None;
    };
    let name = &m.mac.path.segments.last()?.ident;
    if name != "table_struct" && name != "server_request" {
        return None;
    }
    // Its attributes (a `#[cfg]`) as prettyplease prints them, then the invocation.
    let mut out = String::new();
    for attr in &m.attrs {
        let carrier = syn::parse2::<syn::File>(quote!(#attr const _: () = ();)).ok()?;
        let printed = prettyplease::unparse(&carrier);
        out.push_str(printed.lines().next().unwrap_or_default());
        out.push('\n');
    }
    out.push_str(&format!("::energy_api_core::{name}!(\n"));
    for argument in split_top_level(m.mac.tokens.clone()) {
        match argument.first() {
            Some(proc_macro2::TokenTree::Group(fields))
                if fields.delimiter() == proc_macro2::Delimiter::Bracket =>
            {
                out.push_str("    [\n");
                for field in split_top_level(fields.stream()) {
                    out.push_str(&format!("        {},\n", compact(&field)));
                }
                out.push_str("    ],\n");
            }
            _ => out.push_str(&format!("    {},\n", compact(&argument))),
        }
    }
    out.push_str(");\n");
    Some(out)
}

/// A `version_enum!` invocation, whose body is an enum written as Rust, laid out as that enum would
/// be: formatted by prettyplease as an item and indented inside the braces (prettyplease prints the
/// body of a macro it does not know as one run of tokens).
fn item_invocation(item: &syn::Item) -> Option<String> {
    let syn::Item::Macro(m) = item else {
        return None;
    };
    let name = &m.mac.path.segments.last()?.ident;
    if (name != "version_enum" && name != "server_api") || !m.attrs.is_empty() {
        return None;
    }
    let body = syn::parse2::<syn::File>(m.mac.tokens.clone()).ok()?;
    let path: Vec<String> = m
        .mac
        .path
        .segments
        .iter()
        .map(|segment| segment.ident.to_string())
        .collect();
    let leading = if m.mac.path.leading_colon.is_some() {
        "::"
    } else {
        ""
    };
    let mut out = format!("{leading}{}! {{\n", path.join("::"));
    for line in prettyplease::unparse(&body).lines() {
        if !line.is_empty() {
            out.push_str("    ");
        }
        out.push_str(line);
        out.push('\n');
    }
    out.push_str("}\n");
    Some(out)
}

/// An `event_enum!` invocation laid out as a table: its header (`owned;`), then a row per line
/// (`#[cfg(feature = "billing")] AgreementUpdated(billing::AgreementUpdated) = "agreement.updated",`).
fn rows_invocation(item: &syn::Item) -> Option<String> {
    let syn::Item::Macro(m) = item else {
        return None;
    };
    let name = &m.mac.path.segments.last()?.ident;
    if name != "event_enum" || !m.attrs.is_empty() {
        return None;
    }
    let mut out = format!("::energy_api_core::{name}! {{\n");
    let tokens: Vec<proc_macro2::TokenTree> = m.mac.tokens.clone().into_iter().collect();
    let header_end = tokens
        .iter()
        .position(|t| matches!(t, proc_macro2::TokenTree::Punct(p) if p.as_char() == ';'))?;
    out.push_str(&format!("    {};\n", compact(&tokens[..header_end])));
    let rows: TokenStream = tokens[header_end + 1..].iter().cloned().collect();
    for row in split_top_level(rows) {
        out.push_str(&format!("    {},\n", compact(&row)));
    }
    out.push_str("}\n");
    Some(out)
}

/// The comma-separated parts of a token stream, outside any group.
fn split_top_level(tokens: TokenStream) -> Vec<Vec<proc_macro2::TokenTree>> {
    let mut parts = vec![Vec::new()];
    for token in tokens {
        match &token {
            proc_macro2::TokenTree::Punct(p) if p.as_char() == ',' => parts.push(Vec::new()),
            _ => parts.last_mut().map_or((), |part| part.push(token)),
        }
    }
    parts.retain(|part| !part.is_empty());
    parts
}

/// Tokens as Rust text without the spaces `to_string` puts around punctuation: `Page<T>`,
/// `(0, required, r#type, "type")`, `Optional(&Str)`.
fn compact(tokens: &[proc_macro2::TokenTree]) -> String {
    let mut out = String::new();
    // A `:` of its own (not half of `::`), as in `id: i64` or `id: ::std::string::String`, is
    // followed by a space: the first `:` of a `::` is joint to the second.
    let lone_colon = |i: usize| {
        let colon = |j: Option<usize>, spacing: proc_macro2::Spacing| matches!(j.and_then(|j| tokens.get(j)), Some(proc_macro2::TokenTree::Punct(p)) if p.as_char() == ':' && p.spacing() == spacing);
        colon(i.checked_sub(1), proc_macro2::Spacing::Alone)
            && !colon(i.checked_sub(2), proc_macro2::Spacing::Joint)
    };
    for (i, token) in tokens.iter().enumerate() {
        let text = match token {
            proc_macro2::TokenTree::Group(g) => {
                let inner: Vec<String> = split_top_level(g.stream())
                    .iter()
                    .map(|part| compact(part))
                    .collect();
                let (open, close) = match g.delimiter() {
                    proc_macro2::Delimiter::Parenthesis => ("(", ")"),
                    proc_macro2::Delimiter::Bracket => ("[", "]"),
                    proc_macro2::Delimiter::Brace => ("{", "}"),
                    proc_macro2::Delimiter::None => ("", ""),
                };
                format!("{open}{}{close}", inner.join(", "))
            }
            other => other.to_string(),
        };
        // A call's parentheses follow its name: `Array(&Str)`.
        let call = text.starts_with('(')
            && matches!(
                i.checked_sub(1).and_then(|j| tokens.get(j)),
                Some(proc_macro2::TokenTree::Ident(_))
            );
        // A path after `as` keeps its space: `<T as ::energy_api_core::…>`.
        let after_as = matches!(
            i.checked_sub(1).and_then(|j| tokens.get(j)),
            Some(proc_macro2::TokenTree::Ident(word)) if word == "as"
        );
        let joins = !lone_colon(i)
            && !after_as
            && (out.is_empty()
                || call
                || out.ends_with(['<', ':', '\'', '&', '#'])
                || text.starts_with(['<', '>', ':', ',']));
        if !joins {
            out.push(' ');
        }
        out.push_str(&text);
    }
    out
}

/// Puts a blank line between the items of a block (the methods of an `impl`, say): before a line that
/// starts an item, when the line above ends one at the same indentation.
fn separate_nested_items(text: &str) -> String {
    const ITEM_STARTS: [&str; 10] = [
        "///", "#[", "pub ", "pub(", "fn ", "const ", "type ", "impl", "struct ", "enum ",
    ];
    let indent = |l: &str| l.len() - l.trim_start().len();
    let mut out = String::with_capacity(text.len() + text.len() / 16);
    let mut previous: Option<&str> = None;
    for line in text.lines() {
        if let Some(above) = previous {
            let trimmed = line.trim_start();
            let ends_item = above.trim() == "}" || above.ends_with(';');
            if indent(line) > 0
                && indent(line) == indent(above)
                && ends_item
                && ITEM_STARTS.iter().any(|s| trimmed.starts_with(s))
            {
                out.push('\n');
            }
        }
        out.push_str(line);
        out.push('\n');
        previous = Some(line);
    }
    out
}
