//! Two structs field by field, and two fields type by type.

use super::shape::{At, Shape, shape_of, type_change};
use super::{Ctx, Diff, field_text, join, parent};
use crate::evolution::finding::{Item, Verdict};
use crate::evolution::rules::Rule;
use crate::model::{Field, Format, Type};
use std::collections::BTreeSet;

impl Diff<'_> {
    pub(super) fn structs(&mut self, ctx: &Ctx, prefix: &str, old: At<'_>, new: At<'_>) {
        let key = (old.strukt.name.clone(), new.strukt.name.clone());
        if self.stack.contains(&key) {
            return;
        }
        self.stack.push(key);
        if old.strukt.incomplete != new.strukt.incomplete {
            let (rule, what) = if new.strukt.incomplete {
                (Rule::KeepsUnlistedFields, "now keeps")
            } else {
                (Rule::DropsUnlistedFields, "no longer keeps")
            };
            let items = (
                Some(Item::SharedType(old.strukt.name.clone())),
                Some(Item::SharedType(new.strukt.name.clone())),
            );
            self.push(
                ctx,
                rule,
                prefix,
                (Verdict::Reads, Verdict::Reads),
                format!(
                    "{} {what} the members it does not list",
                    self.subject_text(ctx, prefix)
                ),
                (None, None),
                items,
            );
        }
        let outer = std::mem::replace(&mut self.old_keeps_unlisted, old.strukt.incomplete);
        self.fields(ctx, prefix, old, new);
        self.old_keeps_unlisted = outer;
        self.stack.pop();
    }

    pub(super) fn fields(&mut self, ctx: &Ctx, prefix: &str, old: At<'_>, new: At<'_>) {
        let mut matched = BTreeSet::new();
        for fo in &old.strukt.fields {
            let same = new.strukt.fields.iter().find(|f| f.name == fo.name);
            let renamed = new
                .strukt
                .fields
                .iter()
                .find(|f| f.renamed_from.contains(&fo.name));
            let old_item = Self::field_item(old.strukt, &fo.name);
            match same.or(renamed) {
                None => {
                    let path = join(prefix, &fo.name);
                    let ctx = ctx.clone();
                    let required = !fo.optional;
                    let rule = if required {
                        Rule::FieldRemovedRequired
                    } else {
                        Rule::FieldRemovedOptional
                    };
                    let name = fo.name.clone();
                    // The side that no longer has the field neither writes nor reads it.
                    let verdicts = Self::directions(ctx.writer, |reader_is_old, _| {
                        if reader_is_old && required && !fo.nullable {
                            Verdict::Rejects(format!("missing field `{name}`"))
                        } else {
                            Verdict::Reads
                        }
                    });
                    let message = format!(
                        "{} field `{}` removed from {}",
                        if required { "required" } else { "optional" },
                        fo.name,
                        self.subject_text(&ctx, prefix)
                    );
                    self.push(
                        &ctx,
                        rule,
                        &path,
                        verdicts,
                        message,
                        (Some(field_text(fo)), None),
                        (old_item, None),
                    );
                }
                Some(fnew) => {
                    matched.insert(fnew.name.clone());
                    let path = join(prefix, &fnew.name);
                    let new_item = Self::field_item(new.strukt, &fnew.name);
                    if fnew.name != fo.name {
                        let ctx = ctx.clone();
                        let (name, required) = (fo.name.clone(), !fo.optional && !fo.nullable);
                        let verdicts = Self::directions(ctx.writer, |reader_is_old, _| {
                            // The old side knows only the old name; the new one accepts both.
                            if reader_is_old && required {
                                Verdict::Rejects(format!("missing field `{name}`"))
                            } else {
                                Verdict::Reads
                            }
                        });
                        let message = format!(
                            "field `{}` renamed `{}` in {} (decoders built on the new schema accept the old name)",
                            fo.name,
                            fnew.name,
                            self.subject_text(&ctx, prefix)
                        );
                        self.push(
                            &ctx,
                            Rule::FieldRenamed,
                            &path,
                            verdicts,
                            message,
                            (Some(fo.name.clone()), Some(fnew.name.clone())),
                            (old_item.clone(), new_item.clone()),
                        );
                    }
                    self.field(ctx, &path, (fo, old), (fnew, new), (old_item, new_item));
                }
            }
        }
        for fnew in &new.strukt.fields {
            if matched.contains(&fnew.name) {
                continue;
            }
            let path = join(prefix, &fnew.name);
            let ctx = ctx.clone();
            let required = !fnew.optional;
            let rule = if required {
                Rule::FieldAddedRequired
            } else {
                Rule::FieldAddedOptional
            };
            let name = fnew.name.clone();
            let nullable = fnew.nullable;
            let verdicts = Self::directions(ctx.writer, |reader_is_old, _| {
                // The side that has the field reads it; it requires it from a writer that never sends it.
                if !reader_is_old && required && !nullable {
                    Verdict::Rejects(format!("missing field `{name}`"))
                } else {
                    Verdict::Reads
                }
            });
            let message = format!(
                "{} field `{}` added to {}",
                if required { "required" } else { "optional" },
                fnew.name,
                self.subject_text(&ctx, prefix)
            );
            let new_item = Self::field_item(new.strukt, &fnew.name);
            self.push(
                &ctx,
                rule,
                &path,
                verdicts,
                message,
                (None, Some(field_text(fnew))),
                (None, new_item),
            );
        }
    }

    /// One field present on both sides (perhaps under another name).
    fn field(
        &mut self,
        ctx: &Ctx,
        path: &str,
        (fo, old): (&Field, At<'_>),
        (fnew, new): (&Field, At<'_>),
        items: (Option<Item>, Option<Item>),
    ) {
        let leaf = ctx.clone();
        if fo.optional != fnew.optional {
            let (rule, what) = if fnew.optional {
                (Rule::FieldRequiredToOptional, "optional")
            } else {
                (Rule::FieldOptionalToRequired, "required")
            };
            let name = fnew.name.clone();
            let verdicts = Self::directions(ctx.writer, |reader_is_old, _| {
                let (reader, writer) = if reader_is_old {
                    (fo, fnew)
                } else {
                    (fnew, fo)
                };
                if writer.optional && !reader.is_option() {
                    Verdict::Rejects(format!("missing field `{name}`"))
                } else {
                    Verdict::Reads
                }
            });
            let message = format!(
                "field `{}` of {} is now {what}",
                fnew.name,
                self.subject_text(&leaf, parent(path))
            );
            self.push(
                &leaf,
                rule,
                path,
                verdicts,
                message,
                (Some(field_text(fo)), Some(field_text(fnew))),
                items.clone(),
            );
        }
        if fo.nullable != fnew.nullable {
            let (rule, what) = if fnew.nullable {
                (Rule::FieldNullableAdded, "may now be `null`")
            } else {
                (Rule::FieldNullableRemoved, "may no longer be `null`")
            };
            let verdicts = Self::directions(ctx.writer, |reader_is_old, _| {
                let (reader, writer) = if reader_is_old {
                    (fo, fnew)
                } else {
                    (fnew, fo)
                };
                if writer.nullable && !reader.is_option() {
                    Verdict::Rejects("invalid type: null".to_owned())
                } else {
                    Verdict::Reads
                }
            });
            let message = format!(
                "field `{}` of {} {what}",
                fnew.name,
                self.subject_text(&leaf, parent(path))
            );
            self.push(
                &leaf,
                rule,
                path,
                verdicts,
                message,
                (Some(field_text(fo)), Some(field_text(fnew))),
                items.clone(),
            );
        }
        if self.descriptions && fo.description != fnew.description {
            let message = format!(
                "description of field `{}` of {} changed",
                fnew.name,
                self.subject_text(&leaf, parent(path))
            );
            self.push(
                &leaf,
                Rule::DescriptionChanged,
                path,
                (Verdict::Reads, Verdict::Reads),
                message,
                (None, None),
                items.clone(),
            );
        }
        self.types(
            ctx,
            path,
            (&fo.ty, fo.format, old),
            (&fnew.ty, fnew.format, new),
            items,
        );
    }

    pub(super) fn types(
        &mut self,
        ctx: &Ctx,
        path: &str,
        (old_ty, old_format, old): (&Type, Option<Format>, At<'_>),
        (new_ty, new_format, new): (&Type, Option<Format>, At<'_>),
        items: (Option<Item>, Option<Item>),
    ) {
        let o = shape_of(old_ty, old_format, old);
        let n = shape_of(new_ty, new_format, new);
        match (o, n) {
            (Shape::Str(fo), Shape::Str(fnew)) if fo != fnew => {
                let leaf = ctx.clone();
                let verdicts = Self::directions(ctx.writer, |reader_is_old, _| {
                    let (reader, writer) = if reader_is_old {
                        (fo, fnew)
                    } else {
                        (fnew, fo)
                    };
                    match reader {
                        Some(Format::DateTime) if writer != reader => Verdict::Rejects(
                            "a string that is not a date-time where a date-time is expected"
                                .to_owned(),
                        ),
                        _ => Verdict::Reads,
                    }
                });
                let message = format!(
                    "format of `{path}` changed from {} to {}",
                    o.describe(),
                    n.describe()
                );
                self.push(
                    &leaf,
                    Rule::FieldFormatChanged,
                    path,
                    verdicts,
                    message,
                    (Some(o.describe()), Some(n.describe())),
                    items,
                );
            }
            (Shape::Str(_), Shape::Str(_))
            | (Shape::Int, Shape::Int)
            | (Shape::Num, Shape::Num)
            | (Shape::Bool, Shape::Bool)
            | (Shape::Obj, Shape::Obj) => {}
            (Shape::Struct(a), Shape::Struct(b)) => {
                // Changes inside a shared type or resource can be waived on it, at their path in it.
                let inner = Ctx {
                    via: Some((b.strukt.name.clone(), path.to_owned())),
                    ..ctx.clone()
                };
                self.structs(&inner, path, a, b);
            }
            (Shape::Array(a, at_a), Shape::Array(b, at_b)) => {
                let path = format!("{path}[]");
                self.types(ctx, &path, (a, None, at_a), (b, None, at_b), items);
            }
            (Shape::Map(a, at_a), Shape::Map(b, at_b)) => {
                let path = format!("{path}.*");
                self.types(ctx, &path, (a, None, at_a), (b, None, at_b), items);
            }
            (o, n) => {
                let leaf = ctx.clone();
                let verdicts = Self::directions(ctx.writer, |reader_is_old, _| {
                    let (reader, writer) = if reader_is_old { (&o, &n) } else { (&n, &o) };
                    type_change(reader, writer).map_or(Verdict::Reads, |(_, v)| v)
                });
                // The rule is named from the new side's point of view: widened when it accepts more.
                let rule = type_change(&n, &o).map_or(Rule::FieldTypeChanged, |(r, _)| r);
                let message = format!(
                    "type of `{}` changed from {} to {}",
                    if path.is_empty() { "the payload" } else { path },
                    o.describe(),
                    n.describe()
                );
                self.push(
                    &leaf,
                    rule,
                    path,
                    verdicts,
                    message,
                    (Some(o.describe()), Some(n.describe())),
                    items,
                );
            }
        }
    }
}
