//! `consumers/<name>.yaml`: a consuming team's contract, what it reads of the events.

use super::{SchemaReader, keys};
use crate::ast::{ConsumerFile, Located, ReadDef};
use crate::diag::{Code, Diagnostic};
use crate::source::FileId;
use crate::yaml::{Node, NodeKind};

impl SchemaReader<'_> {
    /// Reads a contract file; `stem` is its file name without `.yaml`, which `consumer:` must repeat.
    pub fn consumer_file(
        &mut self,
        _file_id: FileId,
        stem: Located,
        root: &Node,
    ) -> Option<ConsumerFile> {
        let map = self.entries(root, "a consumer contract", Some(keys::CONSUMER_FILE))?;
        let consumer = self
            .required(&map, "consumer", "a consumer contract")
            .and_then(|n| self.located(n));
        let owner = map.get("owner").and_then(|n| self.located(n));
        let status = map.get("status").and_then(|n| {
            let status = self.located(n)?;
            if keys::CONSUMER_STATUSES.contains(&status.text.as_str()) {
                Some(status)
            } else {
                let d = Diagnostic::new(
                    Code::InvalidValue,
                    n.span,
                    format!("unknown contract status `{}`", status.text),
                )
                .label("not a status")
                .suggest(&status.text, keys::CONSUMER_STATUSES.iter().copied())
                .with_help(
                    "`active` contracts are checked; `retired` ones are kept, never checked",
                );
                self.error(d);
                None
            }
        });
        let reads = self
            .required(&map, "reads", "a consumer contract")
            .map(|n| self.reads(n))
            .unwrap_or_default();
        if let Some(consumer) = &consumer
            && consumer.text != stem.text
        {
            let d = Diagnostic::new(
                Code::InvalidValue,
                consumer.span,
                format!(
                    "the contract names consumer `{}` in `{}.yaml`",
                    consumer.text, stem.text
                ),
            )
            .label("not the file's name")
            .with_help(format!(
                "a contract is named by its file: write `consumer: {}`, or rename the file",
                stem.text
            ));
            self.error(d);
            return None;
        }
        let valid = stem.text.starts_with(|c: char| c.is_ascii_lowercase())
            && stem
                .text
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '_');
        if !valid && let Some(consumer) = &consumer {
            let d = Diagnostic::new(
                Code::InvalidFileName,
                consumer.span,
                format!("`{}` cannot name a consumer", stem.text),
            )
            .label("lowercase letters, digits, `-` and `_`, starting with a letter")
            .with_help(
                "a consumer's name becomes a file name and a key in `cargo xtask compat`'s output",
            );
            self.error(d);
            return None;
        }
        Some(ConsumerFile {
            stem,
            consumer: consumer?,
            owner,
            status,
            reads,
        })
    }

    /// `reads:`: a sequence of `{event, versions, fields?}`.
    fn reads(&mut self, node: &Node) -> Vec<ReadDef> {
        let NodeKind::Seq(items) = &node.kind else {
            self.expected(
                node,
                "`reads`",
                "a sequence of `{event: …, versions: […], fields: […]}`",
            );
            return Vec::new();
        };
        let mut out = Vec::new();
        for item in items {
            let Some(read) = self.entries(item, "an entry of `reads`", Some(keys::READS)) else {
                continue;
            };
            let event = self
                .required(&read, "event", "an entry of `reads`")
                .and_then(|n| self.located(n));
            let versions = self
                .required(&read, "versions", "an entry of `reads`")
                .map(|n| self.name_list(n, "`versions`"));
            if versions.as_ref().is_some_and(Vec::is_empty)
                && let Some(n) = read.get("versions")
            {
                let d = Diagnostic::new(
                    Code::InvalidValue,
                    n.span,
                    "a contract reads at least one version",
                )
                .label("no version")
                .with_help("list the versions the consumer decodes, such as `[v1, v2]`");
                self.error(d);
            }
            let fields = read.get("fields").map(|n| {
                let pointers = self.name_list(n, "`fields`");
                pointers
                    .into_iter()
                    .filter(|p| {
                        let ok = p.text.starts_with('/');
                        if !ok {
                            let d = Diagnostic::new(
                                Code::InvalidValue,
                                p.span,
                                format!("`{}` is not a JSON pointer", p.text),
                            )
                            .label("a pointer starts with `/`")
                            .with_help(format!(
                                "write the path of the field from the payload's root, such as `/{}`",
                                p.text.replace('.', "/")
                            ));
                            self.error(d);
                        }
                        ok
                    })
                    .collect()
            });
            if let (Some(event), Some(versions)) = (event, versions) {
                out.push(ReadDef {
                    event,
                    versions,
                    fields,
                });
            }
        }
        out
    }
}
