//! The consumer contracts' references in a comparison: a contract may read what the change removes
//! (that is a finding naming its consumer, made by `evolution`), but not what neither side has (a typo in
//! the contract, a located error as in `cargo xtask codegen`).

use super::side::Side;
use crate::check::contract_diagnostic;
use crate::diag::Diagnostics;
use crate::evolution::references;

/// A located error for each reference of an active contract of the new side that neither side has.
pub(super) fn unresolved_on_both_sides(old: &Side, new: &Side) -> Diagnostics {
    let mut diagnostics = Diagnostics::default();
    for consumer in new.model.consumers.iter().filter(|c| c.active) {
        let on_new = references(&new.model, consumer);
        if on_new.is_empty() {
            continue;
        }
        let on_old = references(&old.model, consumer);
        for unresolved in on_new {
            let also_old = on_old
                .iter()
                .any(|o| o.read == unresolved.read && o.what == unresolved.what);
            if also_old && let Some(d) = contract_diagnostic(&unresolved, &new.places) {
                diagnostics.push(d);
            }
        }
    }
    diagnostics
}
