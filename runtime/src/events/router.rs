//! [`Router`]: handlers registered per event type (all versions, one version, or a version view), and a
//! fallback for everything else, so that a consumer never matches on every event of the catalogue.

use super::envelope::{Decoded, KnownEvent, Metadata};
use energy_api::events::{PayloadVersion, TypedEvent};
use energy_api::{Event, EventType};
use std::collections::HashMap;

/// A route: the handler's result, or the event back when the route does not take it.
type Route<'h, R> = Box<dyn FnMut(Box<Event>, &Metadata) -> Result<R, Box<Event>> + 'h>;

/// Sends each decoded event to the first registered handler that takes it, or to the fallback.
///
/// Handlers of one event type are tried in the order they were registered; a handler of one version
/// passes on the other versions. Unknown events, and known events no handler takes, go to the fallback.
///
/// ```
/// use energy_api::events::{AgreementRevoked, AgreementUpdated, AgreementUpdatedV1};
/// use energy_runtime::events::{Decoded, Decoder, Router};
///
/// let mut router = Router::new(|other: Decoded| format!("skipped {}", other.event_type()));
/// router
///     .on(|revoked: AgreementRevoked, _| format!("revoked ({})", revoked.version()))
///     // A consumer written against v1 also accepts v2, which contains every v1 field.
///     .on_view::<AgreementUpdated, _>(|v1: AgreementUpdatedV1, _| format!("updated {}", v1.agreement_id));
///
/// let line = br#"{"event_type": "agreement.updated", "version": "v2",
///                 "payload": {"agreement_id": 7, "changes": {}, "account_number": "A-1"}}"#;
/// assert_eq!(router.dispatch(Decoder::new().decode(line)?), "updated 7");
/// # Ok::<(), energy_runtime::events::EventError>(())
/// ```
pub struct Router<'h, R> {
    routes: HashMap<EventType, Vec<Route<'h, R>>>,
    fallback: Box<dyn FnMut(Decoded) -> R + 'h>,
}

impl<'h, R> Router<'h, R> {
    /// A router with no handlers; `fallback` gets unknown events and known events no handler takes.
    pub fn new(fallback: impl FnMut(Decoded) -> R + 'h) -> Self {
        Router {
            routes: HashMap::new(),
            fallback: Box::new(fallback),
        }
    }

    /// Handles every version of the event type `E` (its version enum).
    pub fn on<E: TypedEvent>(
        &mut self,
        mut handler: impl FnMut(E, &Metadata) -> R + 'h,
    ) -> &mut Self {
        self.route(
            E::TYPE,
            Box::new(move |event, metadata| {
                E::from_event(*event)
                    .map(|typed| handler(typed, metadata))
                    .map_err(Box::new)
            }),
        )
    }

    /// Handles one version of the event type `E`: its payload struct `P`.
    pub fn on_version<E: TypedEvent, P: PayloadVersion<E>>(
        &mut self,
        mut handler: impl FnMut(P, &Metadata) -> R + 'h,
    ) -> &mut Self {
        self.route(
            E::TYPE,
            Box::new(move |event, metadata| {
                let typed = E::from_event(*event).map_err(Box::new)?;
                P::from_versions(typed)
                    .map(|payload| handler(payload, metadata))
                    .map_err(|other| Box::new(other.into()))
            }),
        )
    }

    /// Handles the version `P` of `E` and every later version that contains all of `P`'s fields (a
    /// version view), converted to `P`.
    pub fn on_view<E: TypedEvent, P: PayloadVersion<E>>(
        &mut self,
        mut handler: impl FnMut(P, &Metadata) -> R + 'h,
    ) -> &mut Self {
        self.route(
            E::TYPE,
            Box::new(move |event, metadata| {
                let typed = E::from_event(*event).map_err(Box::new)?;
                P::view_of(typed)
                    .map(|payload| handler(payload, metadata))
                    .map_err(|other| Box::new(other.into()))
            }),
        )
    }

    /// The number of handlers registered (the fallback not counted).
    pub fn len(&self) -> usize {
        self.routes.values().map(Vec::len).sum()
    }

    /// No handler is registered.
    pub fn is_empty(&self) -> bool {
        self.routes.is_empty()
    }

    /// Sends `decoded` to its handler, or to the fallback, and returns what that returned.
    pub fn dispatch(&mut self, decoded: Decoded) -> R {
        let KnownEvent {
            mut event,
            metadata,
        } = match decoded {
            Decoded::Known(known) => known,
            unknown @ Decoded::Unknown(_) => return (self.fallback)(unknown),
        };
        if let Some(routes) = self.routes.get_mut(&event.event_type()) {
            for route in routes {
                match route(event, &metadata) {
                    Ok(result) => return result,
                    Err(back) => event = back,
                }
            }
        }
        (self.fallback)(Decoded::Known(KnownEvent { event, metadata }))
    }

    fn route(&mut self, event_type: EventType, route: Route<'h, R>) -> &mut Self {
        self.routes.entry(event_type).or_default().push(route);
        self
    }
}
