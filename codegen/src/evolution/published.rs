//! What a baseline publishes: the event types, versions, shared types, resources and endpoints of its
//! model. A change to a published item may break someone; a change to the rest may not.

use crate::model::Model;
use std::collections::BTreeSet;

/// The items a baseline publishes, by name.
#[derive(Debug, Default, Clone)]
pub(crate) struct PublishedKeys {
    pub(crate) events: BTreeSet<String>,
    pub(crate) versions: BTreeSet<(String, String)>,
    pub(crate) types: BTreeSet<String>,
    pub(crate) resources: BTreeSet<String>,
    pub(crate) endpoints: BTreeSet<String>,
}

/// The items of a baseline's model: everything in it is published.
pub(crate) fn published_keys(model: &Model) -> PublishedKeys {
    let mut keys = PublishedKeys::default();
    for (_, e) in model.events() {
        keys.events.insert(e.name.clone());
        for v in &e.versions {
            keys.versions.insert((e.name.clone(), v.label.clone()));
        }
    }
    keys.types = model.shared_types.iter().map(|t| t.name.clone()).collect();
    if let Some(rest) = &model.rest {
        keys.resources = rest.resources.iter().map(|r| r.name.clone()).collect();
        keys.endpoints = rest.endpoints.iter().map(|e| e.name.clone()).collect();
    }
    keys
}
