//! The rules of `cargo xtask compat`: each a stable kebab-case id, what it finds, and the semver bump of
//! `energy-api` it needs.

/// How much a change to the interface costs users of the generated `energy-api` crate, by Cargo's
/// semver rules. Its structs are `#[non_exhaustive]` and built through `new` (the required fields) and
/// `with_<field>` setters (the optional ones), so an optional field added is an addition; a required
/// one changes `new`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Bump {
    /// Nothing in the crate changes (a description, a change to a version not yet published).
    None,
    /// Documentation only.
    Patch,
    /// Additions, deprecations and behaviour changes that code using the crate keeps compiling against
    /// (an enum variant of a `#[non_exhaustive]` enum, a new type, an optional field and its setter on a
    /// `#[non_exhaustive]` struct, a `#[deprecated]` attribute, a request type that sends another path).
    Minor,
    /// Code using the crate may stop compiling (a field removed or renamed, a type changed, a required
    /// field added: `new` takes one more argument, a conversion between versions gone; with feature
    /// `server`, an endpoint added or its credentials changed: the handlers' trait `Api` gains a
    /// required method, or one takes the principal or no longer does).
    Major,
}

impl Bump {
    /// `none`, `patch`, `minor`, `major`.
    pub fn as_str(self) -> &'static str {
        match self {
            Bump::None => "none",
            Bump::Patch => "patch",
            Bump::Minor => "minor",
            Bump::Major => "major",
        }
    }
}

/// Declares [`Rule`]: each variant with its id, its bump, and what it finds.
macro_rules! rules {
    ($($(#[doc = $doc:literal])* $variant:ident = $id:literal, $bump:ident;)*) => {
        /// A kind of change between two versions of the interface.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum Rule {
            $($(#[doc = $doc])* $variant,)*
        }

        impl Rule {
            /// Every rule.
            pub const ALL: &'static [Rule] = &[$(Rule::$variant,)*];

            /// The stable id, as waivers and JSON output name it.
            pub const fn id(self) -> &'static str {
                match self {
                    $(Rule::$variant => $id,)*
                }
            }

            /// The semver bump of `energy-api` a change of this kind needs.
            pub const fn bump(self) -> Bump {
                match self {
                    $(Rule::$variant => Bump::$bump,)*
                }
            }

            /// What the rule finds, in one sentence.
            pub fn summary(self) -> &'static str {
                match self {
                    $(Rule::$variant => concat!($($doc),*).trim_ascii(),)*
                }
            }
        }
    };
}

rules! {
    /// An event type is gone: replayed and retained events of it no longer decode.
    EventTypeRemoved = "event-type-removed", Major;
    /// An event type has a new name (`renamed_from:`); decoders accept the old one.
    EventTypeRenamed = "event-type-renamed", Major;
    /// A new event type.
    EventTypeAdded = "event-type-added", Minor;
    /// A payload version is gone: replayed and retained payloads of it no longer decode.
    VersionRemoved = "version-removed", Major;
    /// A new payload version.
    VersionAdded = "version-added", Minor;
    /// A newer version no longer holds every field of an older one: the conversion `From<newer> for
    /// older` is gone, and handlers of the older (`Router::on_view`) no longer take the newer.
    VersionViewRemoved = "version-view-removed", Major;
    /// A new version that every reader of the previous one already reads, and the reverse: it was not needed.
    VersionNotNeeded = "version-not-needed", None;
    /// A payload version is deprecated, with the date from which it may be removed.
    VersionDeprecated = "version-deprecated", Minor;
    /// A deprecated payload version is still read by an active consumer contract.
    ConsumerReadsDeprecated = "consumer-reads-deprecated", None;
    /// A required field is gone.
    FieldRemovedRequired = "field-removed-required", Major;
    /// An optional field is gone.
    FieldRemovedOptional = "field-removed-optional", Major;
    /// A required field is new.
    FieldAddedRequired = "field-added-required", Major;
    /// An optional field is new.
    FieldAddedOptional = "field-added-optional", Minor;
    /// A field has a new name (`renamed_from:`); decoders accept the old one.
    FieldRenamed = "field-renamed", Major;
    /// An optional field became required.
    FieldOptionalToRequired = "field-optional-to-required", Major;
    /// A required field became optional.
    FieldRequiredToOptional = "field-required-to-optional", Major;
    /// A field may now be `null`.
    FieldNullableAdded = "field-nullable-added", Major;
    /// A field may no longer be `null`.
    FieldNullableRemoved = "field-nullable-removed", Major;
    /// A field's type accepts more than before (`int` to `num`, a struct to `obj`).
    FieldTypeWidened = "field-type-widened", Major;
    /// A field's type accepts less than before (`num` to `int`, `obj` to a struct).
    FieldTypeNarrowed = "field-type-narrowed", Major;
    /// A field's type changed to one that shares no value with the old one (`str` to `int`, a value to an array).
    FieldTypeChanged = "field-type-changed", Major;
    /// A string field's format changed (a `date-time` is parsed as a timestamp).
    FieldFormatChanged = "field-format-changed", Major;
    /// A later version uses a field name of an earlier one for another type.
    FieldNameReused = "field-name-reused", None;
    /// A struct's borrowed view (the crate's feature `borrowed`) gains or loses its lifetime: its first
    /// string or free-form field came (it held numbers and booleans only, and was re-exported), or its
    /// last went.
    BorrowedViewChanged = "borrowed-view-changed", Major;
    /// A payload now keeps the members it does not list (`incomplete: true`).
    KeepsUnlistedFields = "keeps-unlisted-fields", Minor;
    /// A payload no longer keeps the members it does not list.
    DropsUnlistedFields = "drops-unlisted-fields", Major;
    /// Only a description changed.
    DescriptionChanged = "description-changed", Patch;
    /// A shared type or resource is gone from the crate.
    TypeRemoved = "type-removed", Major;
    /// An endpoint is gone: clients calling it fail.
    EndpointRemoved = "endpoint-removed", Major;
    /// A new endpoint (a server built on the crate's feature `server` must implement it).
    EndpointAdded = "endpoint-added", Major;
    /// An endpoint has another method or path: clients calling the old one fail.
    EndpointMoved = "endpoint-moved", Minor;
    /// An endpoint now requires credentials: clients without them fail.
    AuthRequired = "auth-required", Major;
    /// An endpoint no longer requires credentials.
    AuthNoLongerRequired = "auth-no-longer-required", Major;
    /// A parameter accepts fewer values (a `minimum` raised or added, a `maximum` lowered or added, a
    /// `not_after` added): a request an older client sends may be refused by a newer server.
    ParameterNarrowed = "parameter-narrowed", Minor;
    /// A parameter accepts more values (a `minimum` lowered or removed, a `maximum` raised or removed, a
    /// `not_after` removed): a request a newer client sends may be refused by an older server.
    ParameterWidened = "parameter-widened", Minor;
    /// The value an absent parameter takes changed: a request without it gets another answer.
    ParameterDefaultChanged = "parameter-default-changed", Minor;
    /// A waiver matches no finding: it waives nothing, or what it waived is published.
    WaiverUnused = "waiver-unused", None;
    /// A field of a published version changes its type in the Avro schema, where a waiver lets JSON
    /// readers through: Avro binary carries no types, so data of the old type no longer reads.
    AvroFieldTypeChanged = "avro-field-type-changed", Major;
    /// A field of a published struct would be written with another Protobuf field number than the
    /// baseline records (`protobuf-field-numbers` of `published.lock`).
    ProtobufFieldRenumbered = "protobuf-field-renumbered", None;
}

impl Rule {
    /// The rule with this id.
    pub fn from_id(id: &str) -> Option<Rule> {
        Rule::ALL.iter().copied().find(|r| r.id() == id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_unique_kebab_case_and_read_back() {
        let mut seen = std::collections::BTreeSet::new();
        for rule in Rule::ALL {
            let id = rule.id();
            assert!(seen.insert(id), "{id} twice");
            assert!(
                id.chars().all(|c| c.is_ascii_lowercase() || c == '-'),
                "{id}"
            );
            assert_eq!(Rule::from_id(id), Some(*rule));
            assert!(!rule.summary().is_empty());
        }
    }
}
