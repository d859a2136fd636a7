//! A side of a comparison: a model with the places its items are written, from the schema folder, a git
//! revision or the published baseline; and where on a side a finding's item is.

use crate::Failure;
use crate::evolution::{Finding, Item, Place};
use crate::model::Model;
use crate::naming::Places;
use crate::source::{SourceFile, SourceMap, Span};
use std::path::Path;

/// A model with the places its items are written: the schema (or the baseline) being compared.
pub(super) struct Side {
    pub(super) model: Model,
    pub(super) places: Places,
    /// Whether descriptions are known (the baseline records wire shapes only).
    pub(super) has_docs: bool,
}

impl Side {
    /// The schema folder as a side; its files are added to `sources`.
    pub(super) fn schema(dir: &Path, sources: &mut SourceMap) -> Result<Side, Failure> {
        let (model, places, own) = crate::pipeline::build_located_for_comparison(dir)?;
        Ok(Side::joined(model, places, own, sources, true))
    }

    /// The schema files of a git revision as a side, shown as `<rev>:schema/<path>`.
    pub(super) fn revision(
        name: &str,
        files: &[(String, Vec<u8>)],
        sources: &mut SourceMap,
    ) -> Result<Side, Failure> {
        let borrowed: Vec<(&str, &[u8])> = files
            .iter()
            .map(|(p, b)| (p.as_str(), b.as_slice()))
            .collect();
        let (model, places, mut own) = crate::pipeline::build_located_in_memory(&borrowed)?;
        own.rename(|shown| format!("{name}:schema/{shown}"));
        Ok(Side::joined(model, places, own, sources, true))
    }

    /// A side read into `own`, its files moved to the end of `sources` (and its places with them).
    pub(super) fn joined(
        model: Model,
        places: Places,
        own: SourceMap,
        sources: &mut SourceMap,
        has_docs: bool,
    ) -> Side {
        let offset = sources.append(own);
        Side {
            model,
            places: places.shifted(offset),
            has_docs,
        }
    }

    /// Where `item` is written on this side, when it is.
    fn span_of(&self, item: &Item) -> Option<Span> {
        let places = &self.places;
        match item {
            Item::Event(name) => places.events.get(name).map(|(at, _)| *at),
            Item::FormerEventName(name) => places
                .former_events
                .get(name)
                .and_then(|v| v.first())
                .map(|(_, at)| *at),
            Item::Version(event, label) => places
                .versions
                .get(&(event.clone(), label.clone()))
                .copied(),
            Item::Field(owner, field) => {
                places.fields.get(&(owner.clone(), field.clone())).copied()
            }
            Item::SharedType(name) => places.shared_types.get(name).copied(),
            Item::Resource(name) => places.resources.get(name).copied(),
            Item::Endpoint(name) => places.endpoints.get(name).copied(),
            Item::ErrorResponse => places.error_response,
            Item::Waiver(owner, rule, path) => places
                .waivers
                .get(&(owner.clone(), rule.clone(), path.clone()))
                .copied(),
        }
    }
}

/// Gives each finding its places on both sides (files, lines and columns in `sources`); returns the
/// spans, one pair per finding, for the report's snippets.
pub(super) fn locate(
    old: &Side,
    new: &Side,
    sources: &SourceMap,
    findings: &mut [Finding],
) -> Vec<(Option<Span>, Option<Span>)> {
    findings
        .iter_mut()
        .map(|f| {
            let spans = (
                f.items.0.as_ref().and_then(|item| old.span_of(item)),
                f.items.1.as_ref().and_then(|item| new.span_of(item)),
            );
            f.old = spans.0.map(|s| place(sources, s));
            f.new = spans.1.map(|s| place(sources, s));
            spans
        })
        .collect()
}

/// The place of `span`.
fn place(sources: &SourceMap, span: Span) -> Place {
    let file: &SourceFile = sources.file(span.file);
    let (line, column) = file.line_col(span.start);
    Place {
        file: file.display_path.clone(),
        line,
        column,
    }
}
