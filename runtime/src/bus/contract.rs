//! A consuming team's contract: which event types, versions and fields it reads (`schema/consumers/
//! <name>.yaml`, checked by `cargo xtask compat` before a schema change ships). The contract is written
//! from the consumer's own code ([`Handlers::contract`]: the types and versions of its registrations, the
//! fields of the projections it declares), and a running consumer checks at start-up that it handles at
//! least what its contract says ([`Handlers::check_contract`], `energy events consume --contract FILE`).
//!
//! ```yaml
//! consumer: billing-ledger
//! owner: billing@example.com
//! status: active
//! reads:
//!   - event: billing.ledger.entry_posted
//!     versions: [v1, v2]
//!     fields: [/ledger/number, /entry/id]
//! ```

use super::handlers::Handlers;
use energy_api::EventType;
use std::fmt::Write as _;

/// Whether a contract is checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ContractStatus {
    /// Checked: a change that breaks what it reads fails.
    #[default]
    Active,
    /// Kept for the record, never checked.
    Retired,
}

/// What one consuming team reads.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Contract {
    /// The team's consumer name (the contract file's stem).
    pub consumer: String,
    /// Who to ask about it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub owner: Option<String>,
    /// Whether it is checked.
    #[serde(default)]
    pub status: ContractStatus,
    /// The event types it reads.
    pub reads: Vec<Reads>,
}

/// One event type a contract reads.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Reads {
    /// The event type.
    pub event: String,
    /// The versions it decodes.
    pub versions: Vec<String>,
    /// The JSON pointers it reads (`/ledger/number`); `None` when it reads every field.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fields: Option<Vec<String>>,
}

impl Contract {
    /// The contract as a YAML file in the contract format, written the same way every time (types in
    /// name order, versions in catalogue order, fields in the order declared).
    pub fn to_yaml(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(out, "consumer: {}", quoted(&self.consumer));
        if let Some(owner) = &self.owner {
            let _ = writeln!(out, "owner: {}", quoted(owner));
        }
        let status = match self.status {
            ContractStatus::Active => "active",
            ContractStatus::Retired => "retired",
        };
        let _ = writeln!(out, "status: {status}");
        out.push_str("reads:");
        if self.reads.is_empty() {
            out.push_str(" []");
        }
        out.push('\n');
        let list = |items: &[String]| {
            items
                .iter()
                .map(|i| quoted(i))
                .collect::<Vec<_>>()
                .join(", ")
        };
        for read in &self.reads {
            let _ = writeln!(out, "  - event: {}", quoted(&read.event));
            let _ = writeln!(out, "    versions: [{}]", list(&read.versions));
            if let Some(fields) = &read.fields {
                let _ = writeln!(out, "    fields: [{}]", list(fields));
            }
        }
        out
    }
}

/// A YAML scalar: bare when it reads back as the same string, else double-quoted (JSON escapes are
/// YAML's too).
fn quoted(text: &str) -> String {
    let bare = !text.is_empty()
        && text
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"._-/@+".contains(&b))
        && !text.starts_with(['-', '@', '/', '.'])
        && !matches!(
            text,
            "true" | "false" | "null" | "yes" | "no" | "on" | "off" | "~"
        )
        && text.parse::<f64>().is_err();
    if bare {
        text.to_owned()
    } else {
        serde_json::Value::from(text).to_string()
    }
}

/// What a consumer handles, against its contract.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ContractCheck {
    /// Versions the contract reads that the consumer does not handle: `(event type, version)`.
    pub not_handled: Vec<(String, String)>,
    /// Event types or versions the contract names that this consumer's catalogue does not know.
    pub unknown: Vec<(String, String)>,
    /// Versions of the contract's event types in the catalogue that the consumer does not handle
    /// (a version added since the contract was written, say): not an error, said at start-up.
    pub catalogue_not_handled: Vec<(String, String)>,
}

impl ContractCheck {
    /// Whether the consumer handles at least what the contract says.
    pub fn holds(&self) -> bool {
        self.not_handled.is_empty() && self.unknown.is_empty()
    }
}

impl Handlers {
    /// The contract of what these handlers read: every event type with a handler, the versions its
    /// handlers take (a version view takes its version and every later one), and the fields of the
    /// projection declared for it ([`Handlers::reading`]). A fallback handler is not a contract: it
    /// reads what arrives, so it adds nothing.
    pub fn contract(&self, consumer: &str, owner: Option<&str>) -> Contract {
        let reads = self
            .registered()
            .iter()
            .map(|(event_type, versions)| Reads {
                event: event_type.as_str().to_owned(),
                versions: event_type
                    .versions()
                    .iter()
                    .filter(|v| versions.contains(*v))
                    .map(|v| (*v).to_owned())
                    .collect(),
                fields: self
                    .projection(*event_type)
                    .map(|fields| fields.iter().map(|f| (*f).to_owned()).collect()),
            })
            .collect();
        Contract {
            consumer: consumer.to_owned(),
            owner: owner.map(str::to_owned),
            status: ContractStatus::Active,
            reads,
        }
    }

    /// Checks that these handlers handle at least what `contract` says; `receives` says which event
    /// types reach the consumer at all (its subject filters). With a fallback handler, every version of
    /// a type it receives is handled.
    pub fn check_contract(
        &self,
        contract: &Contract,
        receives: impl Fn(EventType) -> bool,
    ) -> ContractCheck {
        let registered = self.registered();
        let mut check = ContractCheck::default();
        for read in &contract.reads {
            let Ok(event_type) = read.event.parse::<EventType>() else {
                check
                    .unknown
                    .push((read.event.clone(), read.versions.join(", ")));
                continue;
            };
            let handles = |version: &str| {
                receives(event_type)
                    && (self.has_fallback()
                        || registered
                            .get(&event_type)
                            .is_some_and(|versions| versions.contains(version)))
            };
            for version in &read.versions {
                if !event_type.versions().contains(&version.as_str()) {
                    check.unknown.push((read.event.clone(), version.clone()));
                } else if !handles(version) {
                    check
                        .not_handled
                        .push((read.event.clone(), version.clone()));
                }
            }
            for version in event_type.versions() {
                if !handles(version) && !read.versions.iter().any(|v| v == version) {
                    check
                        .catalogue_not_handled
                        .push((read.event.clone(), (*version).to_owned()));
                }
            }
        }
        check
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use energy_api::events::{
        AgreementUpdated, BillingLedgerEntryPostedV1, BillingLedgerEntryPostedV2,
    };

    fn handlers() -> Handlers {
        let mut handlers = Handlers::new();
        handlers
            .on(|_: AgreementUpdated, _| async { Ok(()) })
            .on_version(|_: BillingLedgerEntryPostedV2, _| async { Ok(()) })
            .reading(
                EventType::BillingLedgerEntryPosted,
                &["/ledger/number", "/entry/id"],
            );
        handlers
    }

    #[test]
    fn handlers_write_the_contract_of_what_they_take() {
        let contract = handlers().contract("billing-ledger", Some("billing@example.com"));
        assert_eq!(
            contract.to_yaml(),
            "consumer: billing-ledger\n\
             owner: billing@example.com\n\
             status: active\n\
             reads:\n  \
             - event: agreement.updated\n    versions: [v1, v2]\n  \
             - event: billing.ledger.entry_posted\n    versions: [v2]\n    fields: [\"/ledger/number\", \"/entry/id\"]\n"
        );
    }

    #[test]
    fn a_view_reads_its_version_and_every_later_one() {
        let mut handlers = Handlers::new();
        handlers.on_view(|_: BillingLedgerEntryPostedV1, _| async { Ok(()) });
        let contract = handlers.contract("ledger-view", None);
        assert_eq!(contract.reads[0].versions, ["v1", "v2"]);
    }

    #[test]
    fn the_check_says_what_is_not_handled_and_what_is_unknown() {
        let contract = Contract {
            consumer: "billing-ledger".to_owned(),
            owner: None,
            status: ContractStatus::Active,
            reads: vec![
                Reads {
                    event: "billing.ledger.entry_posted".to_owned(),
                    versions: vec!["v1".to_owned(), "v2".to_owned(), "v9".to_owned()],
                    fields: None,
                },
                Reads {
                    event: "agreement.updated".to_owned(),
                    versions: vec!["v2".to_owned()],
                    fields: None,
                },
                Reads {
                    event: "made.up".to_owned(),
                    versions: vec!["v1".to_owned()],
                    fields: None,
                },
            ],
        };
        let check = handlers().check_contract(&contract, |_| true);
        assert_eq!(
            check.not_handled,
            [("billing.ledger.entry_posted".to_owned(), "v1".to_owned())]
        );
        assert_eq!(
            check.unknown,
            [
                ("billing.ledger.entry_posted".to_owned(), "v9".to_owned()),
                ("made.up".to_owned(), "v1".to_owned())
            ]
        );
        assert!(!check.holds());
        // Handled but not in the contract: said, not an error.
        assert_eq!(
            check.catalogue_not_handled,
            Vec::<(String, String)>::new(),
            "agreement.updated v1 is handled"
        );
        // A consumer whose filters leave a type out does not handle it, fallback or not.
        let mut everything = Handlers::new();
        everything.fallback(|_, _| async { Ok(()) });
        let check = everything.check_contract(&contract, |t| t != EventType::AgreementUpdated);
        assert_eq!(
            check.not_handled,
            [("agreement.updated".to_owned(), "v2".to_owned())]
        );
        assert_eq!(
            check.catalogue_not_handled,
            [("agreement.updated".to_owned(), "v1".to_owned())]
        );
    }

    #[test]
    fn scalars_are_quoted_only_when_yaml_would_read_them_otherwise() {
        assert_eq!(
            quoted("billing.ledger.entry_posted"),
            "billing.ledger.entry_posted"
        );
        assert_eq!(quoted("true"), "\"true\"");
        assert_eq!(quoted("1.0"), "\"1.0\"");
        assert_eq!(quoted("/ledger/number"), "\"/ledger/number\"");
        assert_eq!(quoted("a: b"), "\"a: b\"");
    }
}
