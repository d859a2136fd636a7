//! The structs of the crate (payloads, shared types, REST resources) and what each is written with: its
//! fields' Rust types and documentation, its `#[cfg]`, and its `table_struct!`. The sibling modules
//! write their items with this toolbox; the hub (`mod.rs`) only lists the files.

use super::construct;
pub(crate) use super::typing::{Home, ident, value_type};
use crate::model::{Field, Format, Model, Struct, Type};
use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use std::collections::{BTreeMap, BTreeSet};

/// The `#[cfg]` of each shared type, by name: compiled when a section whose events reach it is (so that
/// a build of one section compiles only its own types); a type no event reaches has none.
pub(crate) fn shared_type_cfgs(model: &Model) -> BTreeMap<String, TokenStream> {
    let mut features: BTreeMap<&str, BTreeSet<&str>> = model
        .shared_types
        .iter()
        .map(|t| (t.name.as_str(), BTreeSet::new()))
        .collect();
    for section in &model.sections {
        let roots: Vec<&Struct> = section
            .events
            .iter()
            .flat_map(|e| &e.versions)
            .map(|v| &v.payload)
            .collect();
        for t in model.shared_types_reached(&roots) {
            if let Some(set) = features.get_mut(t.name.as_str()) {
                set.insert(section.feature.as_str());
            }
        }
    }
    features
        .into_iter()
        .map(|(name, set)| {
            let cfg = match set.len() {
                0 => quote!(),
                1 => {
                    let one = set.iter();
                    quote!(#[cfg(#(feature = #one)*)])
                }
                _ => {
                    let set = set.iter();
                    quote!(#[cfg(any(#(feature = #set),*))])
                }
            };
            (name.to_owned(), cfg)
        })
        .collect()
}

/// `#[doc]` attributes, one per line, so that they print as `///` lines.
pub(crate) fn doc_attrs(text: &str) -> TokenStream {
    let lines = text.lines().map(|l| {
        if l.is_empty() {
            String::new()
        } else {
            format!(" {l}")
        }
    });
    quote! { #(#[doc = #lines])* }
}

/// `#![doc]` attributes, one per line, for a module's own documentation.
pub(crate) fn inner_doc_attrs(text: &str) -> TokenStream {
    let lines = text.lines().map(|l| {
        if l.is_empty() {
            String::new()
        } else {
            format!(" {l}")
        }
    });
    quote! { #(#![doc = #lines])* }
}

/// The documentation of a field: its description, or a sentence made from its name and type.
pub(crate) fn field_doc(f: &Field) -> String {
    let mut doc = match &f.description {
        Some(d) => d.clone(),
        None => format!("`{}` ({}).", f.name, f.ty.describe()),
    };
    if let Some(origin) = &f.origin {
        doc.push_str(&format!(" From {origin}."));
    }
    if !f.renamed_from.is_empty() {
        let former: Vec<String> = f.renamed_from.iter().map(|r| format!("`{r}`")).collect();
        doc.push_str(&format!(
            " Formerly {}: decoding accepts that name too.",
            former.join(", ")
        ));
    }
    doc
}

/// The serde attributes that make a derive read (and, with `serialize`, write) a field as its struct's
/// table does: its JSON name where the identifier is not it, its former names as aliases, and an
/// optional field `None` when absent and skipped when `None` (a nullable one is written as `null`).
/// The derived twin's fields have them all; a struct compiled per type derives only `Deserialize`.
pub(crate) fn serde_field_attrs(f: &Field, serialize: bool) -> TokenStream {
    let json = &f.name;
    let rename =
        (crate::naming::unraw(&f.rust_name) != f.name).then(|| quote!(#[serde(rename = #json)]));
    let aliases = f.renamed_from.iter().map(|a| quote!(#[serde(alias = #a)]));
    let optional = f.optional.then(|| {
        if serialize {
            quote!(#[serde(default, skip_serializing_if = "::std::option::Option::is_none")])
        } else {
            quote!(#[serde(default)])
        }
    });
    quote! {
        #rename
        #(#aliases)*
        #optional
    }
}

/// A struct with serde: `Serialize` and `Deserialize` by its table (see [`deserialize_impl`]), or, for
/// a free-form one, derived through the map it wraps. `compiled` (a struct the traffic profile names,
/// `crate::profile`): `Deserialize` is serde's derive, with the attributes that make it read what the
/// table reads, and the fast reader has code of its own; its table still writes it and serves the
/// borrowed view and the structs that hold it. Optional fields are `Option` and skipped when
/// absent; unknown fields are ignored, or kept in `additional_fields` when the struct is incomplete.
/// `free_form`: the names of the free-form structs of `home` (a field that holds one has the shape
/// `Obj`; none has a table).
pub(crate) fn struct_tokens(
    s: &Struct,
    home: Home,
    nested: bool,
    free_form: &BTreeSet<String>,
    cfg: &TokenStream,
    compiled: bool,
) -> TokenStream {
    let name = format_ident!("{}", s.rust_name);
    let doc = if s.incomplete {
        doc_attrs(&format!(
            "{}\n\nIncomplete: the spec does not show every field; fields not listed here are kept in \
             `additional_fields`, not dropped.",
            s.doc
        ))
    } else {
        doc_attrs(&s.doc)
    };
    let generics = s.generic.as_ref().map(|g| {
        let g = format_ident!("{}", g);
        quote!(<#g>)
    });
    if s.free_form {
        return quote! {
            #doc
            #cfg
            #[derive(Debug, Clone, Default, PartialEq, ::serde::Serialize, ::serde::Deserialize)]
            #[serde(transparent)]
            pub struct #name(pub ::serde_json::Map<::std::string::String, ::serde_json::Value>);
        }
        .into_iter()
        .chain(match home {
            // A shared type is read whole by the fast reader, as a payload's field.
            Home::Types => quote! {
                #cfg
                impl<'r> ::energy_api_core::read::ReadJson<'r> for #name {
                    fn read(
                        reader: &mut ::energy_api_core::read::Reader<'r>,
                    ) -> ::std::result::Result<Self, ::energy_api_core::read::Stop> {
                        ::energy_api_core::read::ReadJson::read(reader).map(Self)
                    }
                }
            },
            // A resource may be held by another, whose table reads it from a slot as a free-form object.
            Home::Rest => quote! {
                #[cfg(test)]
                impl ::energy_api_core::table::Shaped for #name {
                    const SHAPE: ::energy_api_core::table::Shape = ::energy_api_core::table::Shape::Obj;
                }

                impl<'a> ::energy_api_core::table::FromSlot<'a> for #name {
                    #[inline]
                    fn from_slot(
                        slot: ::std::option::Option<::energy_api_core::table::Slot<'a>>,
                        ok: &mut bool,
                    ) -> Self {
                        Self(::energy_api_core::table::FromSlot::from_slot(slot, ok))
                    }
                }
            },
        })
        .collect();
    }
    let fields = s.fields.iter().map(|f| {
        let doc = doc_attrs(&field_doc(f));
        let id = ident(&f.rust_name);
        let ty = field_type(f, home);
        let serde = compiled.then(|| serde_field_attrs(f, false));
        quote! {
            #doc
            #serde
            pub #id: #ty,
        }
    });
    let additional = s.incomplete.then(|| {
        quote! {
            /// Fields the schema does not list (it marks this type incomplete), kept as they came: each
            /// as its JSON text (`RawJson::parse` reads one).
            pub additional_fields: ::energy_api_core::Unlisted,
        }
    });
    let default = construct::derives_default(s).then(|| quote!(Default,));
    // `Deserialize` derived; `Serialize` by the table's writer, which took fewer instructions than
    // the derive's (BENCHMARKS.md, section 31).
    let serde = compiled.then(|| quote!(::serde::Deserialize,));
    let derives = quote!(#[derive(Debug, Clone, #default PartialEq, #serde)]);
    let non_exhaustive = construct::attributes();
    let constructors = construct::impl_block(s, home, cfg);
    let deserialize = deserialize_impl(s, home, nested, free_form, compiled);
    quote! {
        #doc
        #cfg
        #derives
        #non_exhaustive
        pub struct #name #generics {
            #(#fields)*
            #additional
        }
        #constructors
        #cfg
        #deserialize
    }
}

/// A struct's fields in the byte order of their JSON names, as a chain (`StructTable::by_name`): the
/// first, then for each field the one whose name follows its own (the count of fields after the last).
fn by_name(s: &Struct) -> Vec<usize> {
    let mut order: Vec<usize> = (0..s.fields.len()).collect();
    order.sort_by(|a, b| {
        s.fields[*a]
            .name
            .as_bytes()
            .cmp(s.fields[*b].name.as_bytes())
    });
    let mut chain = vec![s.fields.len(); s.fields.len() + 1];
    chain[0] = order.first().copied().unwrap_or(s.fields.len());
    for pair in order.windows(2) {
        chain[pair[0] + 1] = pair[1];
    }
    chain
}

/// A field's shape as a row of `table_struct!` writes it (the macro brings `Shape`'s variants into
/// scope); a struct by the path of its table, which is named as the struct, in the module of `home`.
fn shape_expr(
    ty: &Type,
    format: Option<Format>,
    home: Home,
    free_form: &BTreeSet<String>,
) -> TokenStream {
    match ty {
        Type::Str if format == Some(Format::DateTime) => quote!(Timestamp),
        Type::Str => quote!(Str),
        Type::Int => quote!(Int),
        Type::Num => quote!(Num),
        Type::Bool => quote!(Bool),
        Type::Obj => quote!(Obj),
        Type::Array(inner) => {
            let inner = shape_expr(inner, None, home, free_form);
            quote!(Array(&#inner))
        }
        Type::Map(value) => {
            let value = shape_expr(value, None, home, free_form);
            quote!(Map(&#value))
        }
        // Events name shared types, REST resources other resources: the table of a struct is a static
        // named as it is; a generic one's is its `FromFields::TABLE`.
        Type::Named(r) if free_form.contains(&r.name) => quote!(Obj),
        Type::Named(r) => {
            let name = format_ident!("{}", r.name);
            match (home, &r.arg) {
                (Home::Types, _) => quote!(Struct(&crate::types::#name)),
                (Home::Rest, None) => quote!(Struct(&crate::rest::#name)),
                (Home::Rest, Some(_)) => {
                    let ty = value_type(ty, None, home, false);
                    quote!(Struct(<#ty as ::energy_api_core::table::FromFields<'static>>::TABLE))
                }
            }
        }
        // In a generic struct's table, the parameter names its own (`table_struct!`'s generic form).
        Type::Param(p) => {
            let p = format_ident!("{}", p);
            quote!(Struct(#p))
        }
    }
}

/// A field's Rust type, as its struct declares it.
fn field_type(f: &Field, home: Home) -> TokenStream {
    let value = value_type(&f.ty, f.format, home, f.boxed);
    if f.is_option() {
        quote!(::std::option::Option<#value>)
    } else {
        value
    }
}

/// `Deserialize` (and `Serialize`) for a struct: every payload, shared type and REST resource is read
/// and written by its table. `energy_api_core::table_struct!`, beside the struct, makes the table from a
/// row per field, the conversion from the fields the one reader of `energy_api_core::table` read, and
/// `Deserialize` and the fast reader's `ReadJson` as calls to that reader.
fn deserialize_impl(
    s: &Struct,
    home: Home,
    nested: bool,
    free_form: &BTreeSet<String>,
    compiled: bool,
) -> TokenStream {
    let name = format_ident!("{}", s.rust_name);
    let generics = s.generic.as_ref().map(|g| {
        let g = format_ident!("{}", g);
        quote!(<#g>)
    });
    let name = if compiled {
        quote!(compiled #name #generics)
    } else {
        quote!(#name #generics)
    };
    table_impl(s, name, None, nested, home, free_form)
}

/// The `table_struct!` of a struct read by its table: a row per field, stating the field and its entry
/// in the table at once (for an owned struct its shape, which the crate's tests check against the
/// field's Rust type). For an owned struct (`view_of: None`) the macro makes the table; a borrowed
/// view (`view_of`: the path of the owned struct, whose table is named as it is) shares that table. `nested` for a shared type or resource,
/// which other structs hold (a payload struct is only ever read and written whole).
pub(crate) fn table_impl(
    s: &Struct,
    name: TokenStream,
    view_of: Option<&TokenStream>,
    nested: bool,
    home: Home,
    free_form: &BTreeSet<String>,
) -> TokenStream {
    // A field's JSON name, where the identifier is not it (a keyword, `r#type`), is written for the
    // table and for the `Serialize` the macro makes, which names every field with a literal. (In
    // every row, it cost 0.3-0.4 % of the crate's build: `BENCHMARKS.md`, section 27.)
    let fields = s.fields.iter().map(|f| {
        let id = ident(&f.rust_name);
        let json = (f.rust_name != f.name).then(|| {
            let json = &f.name;
            quote!(= #json)
        });
        // The owned struct's shape of the field (checked against its Rust type in the crate's tests);
        // a view shares the table.
        let shape = view_of.is_none().then(|| {
            let shape = shape_expr(&f.ty, f.format, home, free_form);
            if f.is_option() {
                quote!(: Optional(&#shape))
            } else {
                quote!(: #shape)
            }
        });
        // Left out when `None`: the `Serialize` it makes counts and skips such fields as it writes.
        let omit = f.optional.then(|| quote!(=> omit_none));
        quote!(#id #json #shape #omit)
    });
    let keep = s
        .incomplete
        .then(|| quote!(, keep_unlisted_in additional_fields));
    let nested = nested.then(|| quote!(nested));
    match view_of {
        Some(owned) => quote! {
            ::energy_api_core::table_struct!(#nested #name, view_of #owned, [#(#fields),*] #keep);
        },
        None => {
            let by_name = by_name(s)
                .into_iter()
                .map(proc_macro2::Literal::usize_unsuffixed);
            let renamed: Vec<TokenStream> = s
                .fields
                .iter()
                .flat_map(|f| {
                    let id = ident(&f.rust_name);
                    f.renamed_from
                        .iter()
                        .map(move |former| quote!(#former => #id))
                })
                .collect();
            let aliases = (!renamed.is_empty()).then(|| quote!(, aliases: [#(#renamed),*]));
            quote! {
                ::energy_api_core::table_struct!(#nested #name, [#(#fields),*], by_name: [#(#by_name),*] #aliases #keep);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn field(name: &str) -> Field {
        Field {
            name: name.to_owned(),
            rust_name: name.to_owned(),
            ty: Type::Str,
            optional: false,
            nullable: false,
            format: None,
            description: None,
            origin: None,
            boxed: false,
            renamed_from: Vec::new(),
            rules: Default::default(),
        }
    }

    /// The chain of `StructTable::by_name`: the first name, then each name's successor, in byte order.
    #[test]
    fn fields_are_chained_in_name_order() {
        let s = Struct {
            name: "Ledger".to_owned(),
            rust_name: "Ledger".to_owned(),
            doc: String::new(),
            fields: ["number", "account", "id", "Zone"].map(field).to_vec(),
            incomplete: false,
            generic: None,
            free_form: false,
            waivers: Vec::new(),
        };
        // Zone (3) < account (1) < id (2) < number (0).
        assert_eq!(by_name(&s), [3, 4, 2, 0, 1]);
        let empty = Struct {
            fields: Vec::new(),
            ..s
        };
        assert_eq!(by_name(&empty), [0]);
    }
}
