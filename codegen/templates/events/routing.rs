//! Routing by event type and payload version without matching on every variant of [`Event`].
//!
//! This file is the same for every schema; the generator copies it from `codegen/templates/`. The
//! generator implements both traits for every event type and payload version.

use super::{Event, EventType};

/// One event type in all its payload versions (its version enum, such as `AgreementUpdated`), so that
/// events can be routed by type without matching on every variant of [`Event`].
pub trait TypedEvent: Sized + Into<Event> {
    /// The event type (the version enum's `EVENT_TYPE` is its name).
    const TYPE: EventType;

    /// The event as this type, or the event unchanged when it is of another type.
    // The error is the event given back, as large as it is; boxing it would cost an allocation.
    #[allow(clippy::result_large_err)]
    fn from_event(event: Event) -> Result<Self, Event>;
}

/// The payload of one version of the event type `E` (such as `AgreementUpdatedV1` of `AgreementUpdated`).
pub trait PayloadVersion<E: TypedEvent>: Sized + Into<E> {
    /// The payload version.
    const VERSION: &'static str;

    /// The payload when `event` is in this version, or the event unchanged.
    #[allow(clippy::result_large_err)]
    fn from_versions(event: E) -> Result<Self, E>;

    /// The payload when `event` is in this version, or in a later version that contains every field of
    /// this one (converted by its `From` impl, a version view); otherwise the event unchanged.
    #[allow(clippy::result_large_err)]
    fn view_of(event: E) -> Result<Self, E> {
        Self::from_versions(event)
    }
}
