//! The REST API: endpoints (method, path, credentials, parameters, response), the error response, and
//! the resources no endpoint reaches.

use super::shape::At;
use super::{Ctx, Diff, Writer};
use crate::evolution::finding::{Item, Subject, Verdict};
use crate::evolution::rules::Rule;
use crate::model::{Endpoint, Field, Model, Struct, Type};
use std::collections::BTreeSet;

impl Diff<'_> {
    pub(super) fn rest(&mut self) {
        let (Some(old_rest), Some(new_rest)) = (&self.old.rest, &self.new.rest) else {
            return;
        };
        for old_e in &old_rest.endpoints {
            let ctx = Ctx {
                subject: Subject::Endpoint(old_e.name.clone()),
                writer: Writer::Platform,
                published: self.published.endpoints.contains(&old_e.name),
                via: None,
                retired: false,
            };
            let old_item = Some(Item::Endpoint(old_e.name.clone()));
            let Some(new_e) = new_rest.endpoints.iter().find(|e| e.name == old_e.name) else {
                self.push(
                    &ctx,
                    Rule::EndpointRemoved,
                    "",
                    (
                        Verdict::Rejects(format!("`{} {}` is gone", old_e.method, old_e.path)),
                        Verdict::Reads,
                    ),
                    format!(
                        "endpoint `{}` (`{} {}`) removed",
                        old_e.name, old_e.method, old_e.path
                    ),
                    (None, None),
                    (old_item, None),
                );
                continue;
            };
            let new_item = Some(Item::Endpoint(new_e.name.clone()));
            if (&old_e.method, &old_e.path) != (&new_e.method, &new_e.path) {
                let (old_at, new_at) = (
                    format!("{} {}", old_e.method, old_e.path),
                    format!("{} {}", new_e.method, new_e.path),
                );
                self.push(
                    &ctx,
                    Rule::EndpointMoved,
                    "",
                    (
                        Verdict::Rejects(format!("`{old_at}` is gone")),
                        Verdict::Rejects(format!("`{new_at}` does not exist yet")),
                    ),
                    format!(
                        "endpoint `{}` moved from `{old_at}` to `{new_at}`",
                        new_e.name
                    ),
                    (Some(old_at.clone()), Some(new_at.clone())),
                    (old_item.clone(), new_item.clone()),
                );
            }
            if old_e.auth_required != new_e.auth_required {
                let (rule, verdicts, message) = if new_e.auth_required {
                    (
                        Rule::AuthRequired,
                        (
                            Verdict::Rejects("a request without credentials is refused".to_owned()),
                            Verdict::Reads,
                        ),
                        format!("endpoint `{}` now requires credentials", new_e.name),
                    )
                } else {
                    (
                        Rule::AuthNoLongerRequired,
                        (Verdict::Reads, Verdict::Reads),
                        format!("endpoint `{}` no longer requires credentials", new_e.name),
                    )
                };
                self.push(
                    &ctx,
                    rule,
                    "",
                    verdicts,
                    message,
                    (None, None),
                    (old_item.clone(), new_item.clone()),
                );
            }
            if self.descriptions && old_e.doc != new_e.doc {
                self.push(
                    &ctx,
                    Rule::DescriptionChanged,
                    "",
                    (Verdict::Reads, Verdict::Reads),
                    format!("description of endpoint `{}` changed", new_e.name),
                    (None, None),
                    (old_item, new_item),
                );
            }
            let request = Ctx {
                writer: Writer::Client,
                ..ctx.clone()
            };
            self.parameters(
                &request,
                "path",
                (&old_e.path_parameters, &old_e.name),
                (&new_e.path_parameters, &new_e.name),
            );
            self.parameters(
                &request,
                "query",
                (&old_e.query, &old_e.name),
                (&new_e.query, &new_e.name),
            );
            let old_holder = endpoint_holder(old_e);
            let new_holder = endpoint_holder(new_e);
            // A change of the response type as a whole is shown at the endpoints.
            let items = (
                Some(Item::Endpoint(old_e.name.clone())),
                Some(Item::Endpoint(new_e.name.clone())),
            );
            self.types(
                &ctx,
                "response",
                (
                    &old_e.response,
                    None,
                    At {
                        model: self.old,
                        strukt: &old_holder,
                        arg: None,
                    },
                ),
                (
                    &new_e.response,
                    None,
                    At {
                        model: self.new,
                        strukt: &new_holder,
                        arg: None,
                    },
                ),
                items,
            );
        }
        for new_e in &new_rest.endpoints {
            if old_rest.endpoints.iter().any(|e| e.name == new_e.name) {
                continue;
            }
            let ctx = Ctx {
                subject: Subject::Endpoint(new_e.name.clone()),
                writer: Writer::Platform,
                published: false,
                via: None,
                retired: false,
            };
            let item = Some(Item::Endpoint(new_e.name.clone()));
            self.push(
                &ctx,
                Rule::EndpointAdded,
                "",
                (Verdict::Reads, Verdict::Reads),
                format!(
                    "new endpoint `{}` (`{} {}`)",
                    new_e.name, new_e.method, new_e.path
                ),
                (None, None),
                (None, item),
            );
        }
        if let (Some(old_error), Some(new_error)) =
            (&old_rest.error_response, &new_rest.error_response)
        {
            let ctx = Ctx {
                subject: Subject::ErrorResponse,
                writer: Writer::Platform,
                published: !self.published.endpoints.is_empty(),
                via: None,
                retired: false,
            };
            let holder = endpoint_holder_named("error response");
            let items = (Some(Item::ErrorResponse), Some(Item::ErrorResponse));
            self.types(
                &ctx,
                "",
                (
                    old_error,
                    None,
                    At {
                        model: self.old,
                        strukt: &holder,
                        arg: None,
                    },
                ),
                (
                    new_error,
                    None,
                    At {
                        model: self.new,
                        strukt: &holder,
                        arg: None,
                    },
                ),
                items,
            );
        }
        let reached = reached_resources(self.old);
        for old_r in &old_rest.resources {
            let published = self.published.resources.contains(&old_r.name);
            let subject = Subject::Resource(old_r.name.clone());
            let old_item = Some(Item::Resource(old_r.name.clone()));
            match new_rest.resources.iter().find(|r| r.name == old_r.name) {
                None => {
                    let ctx = Ctx {
                        subject,
                        writer: Writer::Platform,
                        published,
                        via: None,
                        retired: false,
                    };
                    self.push(
                        &ctx,
                        Rule::TypeRemoved,
                        "",
                        (Verdict::Reads, Verdict::Reads),
                        format!(
                            "resource `{}` removed from the crate (code naming it stops compiling)",
                            old_r.name
                        ),
                        (None, None),
                        (old_item, None),
                    );
                }
                Some(new_r) if !reached.contains(&old_r.name) && old_r.generic.is_none() => {
                    let ctx = Ctx {
                        subject,
                        writer: Writer::Platform,
                        published,
                        via: Some((old_r.name.clone(), String::new())),
                        retired: false,
                    };
                    let old_at = At {
                        model: self.old,
                        strukt: old_r,
                        arg: None,
                    };
                    let new_at = At {
                        model: self.new,
                        strukt: new_r,
                        arg: None,
                    };
                    self.structs(&ctx, "", old_at, new_at);
                }
                Some(_) => {}
            }
        }
    }

    fn parameters(
        &mut self,
        ctx: &Ctx,
        prefix: &str,
        (old, old_owner): (&[Field], &str),
        (new, new_owner): (&[Field], &str),
    ) {
        let old_holder = Struct {
            name: old_owner.to_owned(),
            fields: old.to_vec(),
            ..endpoint_holder_named(old_owner)
        };
        let new_holder = Struct {
            name: new_owner.to_owned(),
            fields: new.to_vec(),
            ..endpoint_holder_named(new_owner)
        };
        let old_at = At {
            model: self.old,
            strukt: &old_holder,
            arg: None,
        };
        let new_at = At {
            model: self.new,
            strukt: &new_holder,
            arg: None,
        };
        self.fields(ctx, prefix, old_at, new_at);
        for new_p in new {
            if let Some(old_p) = old.iter().find(|p| p.name == new_p.name) {
                self.parameter_rules(ctx, prefix, new_owner, old_p, new_p);
            }
        }
    }

    /// A parameter's rules compared: the values it accepts (bounds and `not_after`) and its default.
    fn parameter_rules(&mut self, ctx: &Ctx, prefix: &str, owner: &str, old: &Field, new: &Field) {
        let (was, is) = (&old.rules, &new.rules);
        if was == is {
            return;
        }
        let path = format!("{prefix}.{}", new.name);
        let item = || Some(Item::Field(owner.to_owned(), new.name.clone()));
        // `None` is no bound: -infinity below, +infinity above.
        let lower = |bound: Option<i64>| bound.unwrap_or(i64::MIN);
        let upper = |bound: Option<i64>| bound.unwrap_or(i64::MAX);
        let mut narrowed = Vec::new();
        let mut widened = Vec::new();
        match lower(is.minimum).cmp(&lower(was.minimum)) {
            std::cmp::Ordering::Greater => narrowed.push("its minimum rose"),
            std::cmp::Ordering::Less => widened.push("its minimum fell"),
            std::cmp::Ordering::Equal => {}
        }
        match upper(is.maximum).cmp(&upper(was.maximum)) {
            std::cmp::Ordering::Less => narrowed.push("its maximum fell"),
            std::cmp::Ordering::Greater => widened.push("its maximum rose"),
            std::cmp::Ordering::Equal => {}
        }
        if was.not_after != is.not_after {
            if is.not_after.is_some() {
                narrowed.push("it may no longer be later than another parameter");
            }
            if was.not_after.is_some() {
                widened.push("it may be later than a parameter it was bounded by");
            }
        }
        let shown = |rules: &crate::model::ParamRules| Some(rules_text(rules));
        if !narrowed.is_empty() {
            let why = narrowed.join(" and ");
            self.push(
                ctx,
                Rule::ParameterNarrowed,
                &path,
                (
                    Verdict::Rejects(format!(
                        "a value an older client sends may be refused: {why}"
                    )),
                    Verdict::Reads,
                ),
                format!("parameter `{path}` of endpoint `{owner}` accepts fewer values: {why}"),
                (shown(was), shown(is)),
                (item(), item()),
            );
        }
        if !widened.is_empty() {
            let why = widened.join(" and ");
            self.push(
                ctx,
                Rule::ParameterWidened,
                &path,
                (
                    Verdict::Reads,
                    Verdict::Rejects(format!(
                        "a value a newer client sends may be refused by an older server: {why}"
                    )),
                ),
                format!("parameter `{path}` of endpoint `{owner}` accepts more values: {why}"),
                (shown(was), shown(is)),
                (item(), item()),
            );
        }
        if was.default != is.default {
            let text = |d: Option<i64>| d.map_or_else(|| "none".to_owned(), |d| d.to_string());
            self.push(
                ctx,
                Rule::ParameterDefaultChanged,
                &path,
                (Verdict::Reads, Verdict::Reads),
                format!(
                    "parameter `{path}` of endpoint `{owner}` takes another value when absent: {} \
                     was {}",
                    text(is.default),
                    text(was.default)
                ),
                (Some(text(was.default)), Some(text(is.default))),
                (item(), item()),
            );
        }
    }
}

/// A parameter's rules as the schema writes them (`minimum: 1, maximum: 1000`), or `no rule`.
fn rules_text(rules: &crate::model::ParamRules) -> String {
    let mut parts = Vec::new();
    if let Some(min) = rules.minimum {
        parts.push(format!("minimum: {min}"));
    }
    if let Some(max) = rules.maximum {
        parts.push(format!("maximum: {max}"));
    }
    if let Some(other) = &rules.not_after {
        parts.push(format!("not_after: {other}"));
    }
    if parts.is_empty() {
        "no rule".to_owned()
    } else {
        parts.join(", ")
    }
}

/// A stand-in struct holding an endpoint's response or parameters, so they compare like fields.
fn endpoint_holder(e: &Endpoint) -> Struct {
    endpoint_holder_named(&e.name)
}

fn endpoint_holder_named(name: &str) -> Struct {
    Struct {
        name: name.to_owned(),
        rust_name: String::new(),
        doc: String::new(),
        fields: Vec::new(),
        incomplete: false,
        generic: None,
        free_form: false,
        waivers: Vec::new(),
    }
}

/// Resources some endpoint (or the error response) reaches.
fn reached_resources(model: &Model) -> BTreeSet<String> {
    let Some(rest) = &model.rest else {
        return BTreeSet::new();
    };
    let mut found = BTreeSet::new();
    let mut pending: Vec<&Type> = rest.endpoints.iter().map(|e| &e.response).collect();
    pending.extend(&rest.error_response);
    while let Some(ty) = pending.pop() {
        match ty {
            Type::Array(inner) | Type::Map(inner) => pending.push(inner),
            Type::Named(r) => {
                if let Some(arg) = &r.arg {
                    pending.push(arg);
                }
                let s = model.named(r.id);
                if found.insert(s.name.clone()) {
                    pending.extend(s.fields.iter().map(|f| &f.ty));
                }
            }
            _ => {}
        }
    }
    found
}
