//! The consuming teams' contracts (`consumers/<name>.yaml`): read into the model, and their references
//! (event types, versions, JSON pointers) checked against a model of the events.
//!
//! The generator checks a contract against the schema beside it: a name or pointer the schema does not
//! have is a located error, with what exists nearby. `cargo xtask compat` checks it against the
//! published baseline instead, and reports what the schema change removed from under it as a finding
//! naming the consumer (`references` is the one check both use).

use super::Resolver;
use crate::ast::{Located, Schema};
use crate::diag::{Code, Diagnostic};
use crate::evolution::{Missing, Unresolved};
use crate::model::{Consumer, ConsumerRead};
use crate::naming::{ConsumerPlaces, Places};
use crate::source::Span;

impl Resolver<'_> {
    /// The contracts of `schema`, in name order, their places recorded.
    pub(super) fn consumers(&mut self, schema: &Schema) -> Vec<Consumer> {
        let mut consumers = Vec::new();
        for file in &schema.consumers {
            let mut places = ConsumerPlaces {
                name: file.consumer.span,
                reads: Vec::new(),
            };
            let mut reads: Vec<ConsumerRead> = Vec::new();
            for read in &file.reads {
                if let Some(i) = reads.iter().position(|r| r.event == read.event.text) {
                    let d = Diagnostic::new(
                        Code::DuplicateKey,
                        read.event.span,
                        format!("`{}` is read twice in this contract", read.event.text),
                    )
                    .label("again here")
                    .with_secondary(places.reads[i].event, "first here")
                    .with_help("list all the versions it reads in one entry");
                    self.error(d);
                    continue;
                }
                places.reads.push(crate::naming::ReadPlaces {
                    event: read.event.span,
                    versions: read.versions.iter().map(|v| v.span).collect(),
                    fields: read.fields.iter().flatten().map(|f| f.span).collect(),
                });
                reads.push(ConsumerRead {
                    event: read.event.text.clone(),
                    versions: read.versions.iter().map(|v| v.text.clone()).collect(),
                    fields: read
                        .fields
                        .as_ref()
                        .map(|fields| fields.iter().map(|f| f.text.clone()).collect()),
                });
            }
            self.places
                .consumers
                .insert(file.consumer.text.clone(), places);
            consumers.push(Consumer {
                name: file.consumer.text.clone(),
                owner: file.owner.as_ref().map(|o| o.text.clone()),
                active: file.status.as_ref().is_none_or(|s| s.text == "active"),
                reads,
            });
        }
        consumers.sort_by(|a, b| a.name.cmp(&b.name));
        consumers
    }

    /// Reports the consumers waivers name that no contract is.
    pub(super) fn check_waiver_consumers(&mut self, named: &[Located], consumers: &[Consumer]) {
        for name in named {
            if consumers.iter().all(|c| c.name != name.text) {
                let d = Diagnostic::new(
                    Code::UnknownConsumer,
                    name.span,
                    format!("no contract of consumer `{}`", name.text),
                )
                .label("not in `consumers/`")
                .suggest(&name.text, consumers.iter().map(|c| c.name.as_str()));
                self.error(d);
            }
        }
    }
}

/// The located error of an unresolved reference, at its place in the contract.
pub(crate) fn diagnostic(unresolved: &Unresolved, places: &Places) -> Option<Diagnostic> {
    let read = places
        .consumers
        .get(&unresolved.consumer)?
        .reads
        .get(unresolved.read)?;
    let span: Span = match unresolved.what {
        Missing::Event => read.event,
        Missing::Version(i) => *read.versions.get(i)?,
        Missing::Field(i) => *read.fields.get(i)?,
    };
    let code = match unresolved.what {
        Missing::Event => Code::UnknownEvent,
        Missing::Version(_) => Code::UnknownVersion,
        Missing::Field(_) => Code::UnknownFieldPointer,
    };
    Some(
        Diagnostic::new(
            code,
            span,
            format!(
                "consumer `{}` reads what the schema does not have: {}",
                unresolved.consumer, unresolved.message
            ),
        )
        .label("not in the schema")
        .suggest(
            &unresolved.written,
            unresolved.nearby.iter().map(String::as_str),
        ),
    )
}
