//! Type expressions and field lists: what every struct, base, payload and parameter is made of.

use super::{Resolver, duplicate};
use crate::ast::{BaseDef, Builtin, FieldDef, Located, TypeExpr};
use crate::diag::{Code, Diagnostic};
use crate::model::{Field, NamedRef, ParamRules, Type, TypeId};
use crate::naming;
use crate::source::Span;

/// A field with the place it was written, while structs are assembled.
#[derive(Clone)]
pub(super) struct Placed {
    pub(super) field: Field,
    pub(super) span: Span,
}

/// Which names a type expression may use.
#[derive(Clone, Copy)]
pub(super) enum Scope<'a> {
    /// Event payloads and shared types: the shared types.
    Events,
    /// REST resources and endpoints: the resources, and the type parameter of a generic resource.
    Rest { param: Option<&'a str> },
}

impl<'s> Resolver<'s> {
    pub(super) fn check_type_name(&mut self, name: &Located) {
        if !naming::is_type_name(&name.text) {
            let fixed = heck::ToUpperCamelCase::to_upper_camel_case(name.text.as_str());
            let mut d = Diagnostic::new(
                Code::InvalidTypeName,
                name.span,
                format!("invalid type name `{}`", name.text),
            )
            .label("type names are PascalCase: ASCII letters and digits, starting with a capital");
            if naming::is_type_name(&fixed) {
                d = d.with_help(format!("did you mean `{fixed}`?"));
            }
            self.error(d);
        }
    }

    /// Registers a base (its fields assembled), reporting a second base of the same name.
    pub(super) fn register_base(&mut self, base: &'s BaseDef, fields: Vec<Placed>, rest: bool) {
        let fields = self.assemble(vec![fields]);
        let map = if rest {
            &mut self.rest_bases
        } else {
            &mut self.event_bases
        };
        if let Some((first, _)) = map.get(base.name.text.as_str()) {
            let d = duplicate(Code::DuplicateBase, "base", &base.name, first.name.span);
            self.error(d);
        } else {
            map.insert(&base.name.text, (base, fields));
        }
    }

    /// Resolves field definitions (types, formats); `origin` marks fields that come from a base.
    pub(super) fn fields(
        &mut self,
        defs: &[FieldDef],
        scope: Scope<'_>,
        origin: Option<&str>,
    ) -> Vec<Placed> {
        let mut out = Vec::with_capacity(defs.len());
        for def in defs {
            let Some(ty) = self.resolve_type(&def.ty, scope) else {
                continue;
            };
            if let Some(format) = def.format
                && ty != Type::Str
            {
                let d = Diagnostic::new(
                    Code::InvalidFormat,
                    def.name.span,
                    format!(
                        "format `{}` applies to strings; `{}` is {}",
                        format.keyword(),
                        def.name.text,
                        ty.describe()
                    ),
                );
                self.error(d);
            }
            out.push(Placed {
                field: Field {
                    name: def.name.text.clone(),
                    rust_name: String::new(),
                    ty,
                    optional: def.optional,
                    nullable: def.nullable,
                    format: def.format,
                    description: def.description.clone(),
                    origin: origin.map(str::to_owned),
                    boxed: false,
                    renamed_from: def.renamed_from.iter().map(|r| r.text.clone()).collect(),
                    rules: ParamRules {
                        minimum: def.rules.minimum.map(|(n, _)| n),
                        maximum: def.rules.maximum.map(|(n, _)| n),
                        default: def.rules.default.map(|(n, _)| n),
                        not_after: def.rules.not_after.as_ref().map(|l| l.text.clone()),
                    },
                },
                span: def.name.span,
            });
        }
        out
    }

    /// Concatenates field lists, reporting a field defined twice.
    pub(super) fn assemble(&mut self, parts: Vec<Vec<Placed>>) -> Vec<Placed> {
        let mut out: Vec<Placed> = Vec::new();
        for field in parts.into_iter().flatten() {
            if let Some(first) = out.iter().find(|f| f.field.name == field.field.name) {
                if first.span == field.span {
                    continue;
                }
                let origin = |p: &Placed| match &p.field.origin {
                    Some(o) => format!("first defined here (from {o})"),
                    None => "first defined here".to_owned(),
                };
                let d = Diagnostic::new(
                    Code::DuplicateField,
                    field.span,
                    format!("field `{}` is defined twice", field.field.name),
                )
                .label("defined again here")
                .with_secondary(first.span, origin(first));
                self.error(d);
                continue;
            }
            out.push(field);
        }
        out
    }

    pub(super) fn resolve_type(&mut self, t: &TypeExpr, scope: Scope<'_>) -> Option<Type> {
        match t {
            TypeExpr::Builtin(b, _) => Some(match b {
                Builtin::Str => Type::Str,
                Builtin::Int => Type::Int,
                Builtin::Num => Type::Num,
                Builtin::Bool => Type::Bool,
                Builtin::Obj => Type::Obj,
            }),
            TypeExpr::Array(inner, _) => {
                Some(Type::Array(Box::new(self.resolve_type(inner, scope)?)))
            }
            TypeExpr::Map(value, _) => Some(Type::Map(Box::new(self.resolve_type(value, scope)?))),
            TypeExpr::Named(name, arg) => self.resolve_named(name, arg.as_deref(), scope),
        }
    }

    pub(super) fn resolve_named(
        &mut self,
        name: &Located,
        arg: Option<&TypeExpr>,
        scope: Scope<'_>,
    ) -> Option<Type> {
        let (found, param) = match scope {
            Scope::Events => (self.shared.get(name.text.as_str()).copied(), None),
            Scope::Rest { param } => (self.resources.get(name.text.as_str()).copied(), param),
        };
        if param == Some(name.text.as_str()) {
            return Some(Type::Param(name.text.clone()));
        }
        let Some(def) = found else {
            let d = self.unknown_type(name, scope);
            self.error(d);
            return None;
        };
        let arg = match (&def.generic, arg) {
            (None, None) => None,
            (Some(_), Some(a)) => Some(Box::new(self.resolve_type(a, scope)?)),
            (None, Some(a)) => {
                let d = Diagnostic::new(
                    Code::InvalidType,
                    a.span(),
                    format!("`{}` takes no type argument", name.text),
                )
                .label("remove this argument");
                self.error(d);
                return None;
            }
            (Some(p), None) => {
                let d = Diagnostic::new(
                    Code::InvalidType,
                    name.span,
                    format!("`{}` needs a type argument", name.text),
                )
                .label(format!(
                    "write `{}<…>`, the type of `{}`",
                    name.text, p.text
                ));
                self.error(d);
                return None;
            }
        };
        let name = def.name.text.as_str();
        let id = match scope {
            Scope::Events => TypeId::Shared(self.shared.keys().position(|k| *k == name)?),
            Scope::Rest { .. } => TypeId::Resource(self.resources.keys().position(|k| *k == name)?),
        };
        Some(Type::Named(NamedRef {
            id,
            name: name.to_owned(),
            arg,
        }))
    }

    fn unknown_type(&self, name: &Located, scope: Scope<'_>) -> Diagnostic {
        const SYNONYMS: [(&str, &str); 8] = [
            ("string", "str"),
            ("integer", "int"),
            ("number", "num"),
            ("float", "num"),
            ("boolean", "bool"),
            ("object", "obj"),
            ("i64", "int"),
            ("f64", "num"),
        ];
        let mut known: Vec<&str> = Builtin::ALL.iter().map(|b| b.keyword()).collect();
        match scope {
            Scope::Events => known.extend(self.shared.keys().copied()),
            Scope::Rest { param } => {
                known.extend(self.resources.keys().copied());
                known.extend(param);
            }
        }
        let d = Diagnostic::new(
            Code::UnknownType,
            name.span,
            format!("unknown type `{}`", name.text),
        )
        .label("not a built-in or a defined type");
        let lower = name.text.to_ascii_lowercase();
        if let Some((_, b)) = SYNONYMS.iter().find(|(s, _)| *s == lower) {
            return d.with_help(format!("did you mean `{b}`?"));
        }
        if matches!(scope, Scope::Events) && self.resources.contains_key(name.text.as_str()) {
            return d.with_help(format!(
                "`{}` is a REST resource; event payloads can use only the shared types of `types.yaml`",
                name.text
            ));
        }
        d.suggest(&name.text, known)
    }
}
