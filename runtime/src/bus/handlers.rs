//! [`Handlers`]: what a consumer does with each event, registered per event type (every version through
//! its version enum, one version, or a version view), with a policy for event types and versions the
//! catalogue does not know and a fallback for the rest. The asynchronous counterpart of
//! [`crate::events::Router`].

use super::headers::Headers;
use crate::events::{Decoded, KnownEvent, Metadata};
use energy_api::events::{PayloadVersion, TypedEvent};
use energy_api::{Event, EventType};
use std::collections::HashMap;
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

/// What a handler returns.
pub type HandlerResult = Result<(), HandlerError>;

/// A handler's future, boxed.
pub type HandlerFuture = Pin<Box<dyn Future<Output = HandlerResult> + Send>>;

/// The versions each event type's handlers take, by event type.
pub(crate) type Registered =
    std::collections::BTreeMap<EventType, std::collections::BTreeSet<&'static str>>;

type Route = Box<dyn Fn(Box<Event>, Context) -> Result<HandlerFuture, Box<Event>> + Send + Sync>;
type Fallback = Box<dyn Fn(Decoded, Context) -> HandlerFuture + Send + Sync>;

/// Why a handler did not handle an event, and whether trying again may help.
///
/// `?` on any error gives a [`HandlerError::retry`]: the message is delivered again after a delay, and
/// dead-lettered once it has failed on every one of the consumer's `max_deliver` deliveries. A handler
/// that knows the event will never succeed says [`HandlerError::reject`]: it is dead-lettered at once.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HandlerError {
    message: String,
    permanent: bool,
}

impl HandlerError {
    /// A failure that may pass: deliver the event again later.
    pub fn retry(error: impl fmt::Display) -> Self {
        HandlerError {
            message: error.to_string(),
            permanent: false,
        }
    }

    /// A failure that will not pass: dead-letter the event now.
    pub fn reject(error: impl fmt::Display) -> Self {
        HandlerError {
            message: error.to_string(),
            permanent: true,
        }
    }

    /// Whether the event is to be dead-lettered at once.
    pub fn is_permanent(&self) -> bool {
        self.permanent
    }

    /// What went wrong.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl<E: std::error::Error> From<E> for HandlerError {
    fn from(error: E) -> Self {
        HandlerError::retry(error)
    }
}

impl fmt::Display for HandlerError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

/// Where an event came from, for its handler (cheap to clone: its parts are shared).
#[derive(Debug, Clone)]
pub struct Context {
    /// Its CloudEvents id (`ce-id`).
    pub id: String,
    /// The subject it was published to.
    pub subject: Arc<str>,
    /// Its position in the stream.
    pub sequence: u64,
    /// Which delivery this is (1 the first time).
    pub attempt: u64,
    /// The message's headers, as they came.
    pub headers: Arc<Headers>,
    /// The message, for its envelope fields (read when first asked for).
    pub(crate) envelope: Arc<Envelope>,
}

impl Context {
    /// Its envelope fields: `id`, `source`, `time`, … (see [`super::cloudevents`]), read from the
    /// message the first time they are asked for (most handlers never ask).
    pub fn metadata(&self) -> &Metadata {
        self.envelope.metadata.get_or_init(|| {
            super::content::read_message(&self.headers, &self.envelope.body)
                .map(|(incoming, _)| incoming.metadata)
                .unwrap_or_default()
        })
    }
}

/// A message's body, and its envelope fields once read.
#[derive(Debug, Default)]
pub(crate) struct Envelope {
    /// The body (structured mode holds the attributes there).
    pub body: bytes::Bytes,
    /// The envelope fields, once read.
    pub metadata: std::sync::OnceLock<Metadata>,
}

/// What a consumer does with an event whose type or version the catalogue does not know: never a
/// crash.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum UnknownPolicy {
    /// Acknowledge it and count it as `unknown` (the default: a newer producer's events do not pile up).
    #[default]
    Skip,
    /// Dead-letter it (`unknown_event_type`, `unknown_version`), to be published again once the consumer
    /// knows it.
    DeadLetter,
    /// Hand it to the fallback handler as a [`Decoded::Unknown`] (skipped when there is none).
    Fallback,
}

/// The handlers of a consumer.
///
/// ```
/// use energy_api::events::{AgreementUpdated, BillingLedgerEntryPostedV2};
/// use energy_runtime::bus::{HandlerError, Handlers, UnknownPolicy};
///
/// let mut handlers = Handlers::new();
/// handlers
///     .on(|updated: AgreementUpdated, context| async move {
///         println!("{} (event {})", updated.version(), context.id);
///         Ok(())
///     })
///     // The event type is inferred from the payload struct's.
///     .on_version(|posted: BillingLedgerEntryPostedV2, _| async move {
///         if posted.entry.is_reversal {
///             return Err(HandlerError::reject("reversals are booked by hand"));
///         }
///         Ok(())
///     })
///     .unknown(UnknownPolicy::DeadLetter);
/// assert_eq!(handlers.len(), 2);
/// ```
pub struct Handlers {
    routes: HashMap<EventType, Vec<Route>>,
    fallback: Option<Fallback>,
    unknown: UnknownPolicy,
    /// The versions each event type's handlers take (the contract they imply).
    registered: Registered,
    /// The fields declared read, per event type.
    projections: HashMap<EventType, Vec<&'static str>>,
}

impl Default for Handlers {
    fn default() -> Self {
        Self::new()
    }
}

impl Handlers {
    /// No handler: every known event is skipped, unknown ones too.
    pub fn new() -> Self {
        Handlers {
            routes: HashMap::new(),
            fallback: None,
            unknown: UnknownPolicy::Skip,
            registered: Default::default(),
            projections: HashMap::new(),
        }
    }

    /// Handles every version of the event type `E` (its version enum).
    pub fn on<E, F, Fut>(&mut self, handler: F) -> &mut Self
    where
        E: TypedEvent + Send + 'static,
        F: Fn(E, Context) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = HandlerResult> + Send + 'static,
    {
        self.register(E::TYPE, E::TYPE.versions());
        self.route(
            E::TYPE,
            Box::new(move |event, context| match E::from_event(*event) {
                Ok(typed) => Ok(Box::pin(handler(typed, context))),
                Err(other) => Err(Box::new(other)),
            }),
        )
    }

    /// Handles one version of `E`: its payload struct `P`.
    pub fn on_version<E, P, F, Fut>(&mut self, handler: F) -> &mut Self
    where
        E: TypedEvent + Send + 'static,
        P: PayloadVersion<E> + Send + 'static,
        F: Fn(P, Context) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = HandlerResult> + Send + 'static,
    {
        self.register(E::TYPE, &[P::VERSION]);
        self.route(
            E::TYPE,
            Box::new(move |event, context| {
                let typed = E::from_event(*event).map_err(Box::new)?;
                match P::from_versions(typed) {
                    Ok(payload) => Ok(Box::pin(handler(payload, context))),
                    Err(other) => Err(Box::new(other.into())),
                }
            }),
        )
    }

    /// Handles version `P` of `E` and every later version holding all of `P`'s fields, read as `P`.
    pub fn on_view<E, P, F, Fut>(&mut self, handler: F) -> &mut Self
    where
        E: TypedEvent + Send + 'static,
        P: PayloadVersion<E> + Send + 'static,
        F: Fn(P, Context) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = HandlerResult> + Send + 'static,
    {
        // A view takes its version and the later ones that hold all of its fields: counted from its
        // version on.
        let versions = E::TYPE.versions();
        let from = versions.iter().position(|v| *v == P::VERSION).unwrap_or(0);
        self.register(E::TYPE, &versions[from..]);
        self.route(
            E::TYPE,
            Box::new(move |event, context| {
                let typed = E::from_event(*event).map_err(Box::new)?;
                match P::view_of(typed) {
                    Ok(payload) => Ok(Box::pin(handler(payload, context))),
                    Err(other) => Err(Box::new(other.into())),
                }
            }),
        )
    }

    /// Handles the known events no other handler takes (and unknown ones, with
    /// [`UnknownPolicy::Fallback`]). Without a fallback they are acknowledged and counted as skipped.
    pub fn fallback<F, Fut>(&mut self, handler: F) -> &mut Self
    where
        F: Fn(Decoded, Context) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = HandlerResult> + Send + 'static,
    {
        self.fallback = Some(Box::new(move |decoded, context| {
            Box::pin(handler(decoded, context))
        }));
        self
    }

    /// Declares the fields the handlers of `event_type` read, as JSON pointers into its payload
    /// (`/ledger/number`): the projection written in the contract ([`Handlers::contract`]). Without
    /// one, a contract says the consumer reads every field.
    pub fn reading(&mut self, event_type: EventType, fields: &[&'static str]) -> &mut Self {
        self.projections.insert(event_type, fields.to_vec());
        self
    }

    /// What to do with unknown event types and versions.
    pub fn unknown(&mut self, policy: UnknownPolicy) -> &mut Self {
        self.unknown = policy;
        self
    }

    /// The unknown-event policy.
    pub fn unknown_policy(&self) -> UnknownPolicy {
        self.unknown
    }

    /// The number of handlers registered (the fallback not counted).
    pub fn len(&self) -> usize {
        self.routes.values().map(Vec::len).sum()
    }

    /// No handler is registered.
    pub fn is_empty(&self) -> bool {
        self.routes.is_empty()
    }

    /// The handler's future for a known event, or `None` when no handler (nor fallback) takes it.
    pub(crate) fn dispatch(&self, known: KnownEvent, context: Context) -> Option<HandlerFuture> {
        let KnownEvent {
            mut event,
            metadata,
        } = known;
        if let Some(routes) = self.routes.get(&event.event_type()) {
            for route in routes {
                match route(event, context.clone()) {
                    Ok(future) => return Some(future),
                    Err(back) => event = back,
                }
            }
        }
        let fallback = self.fallback.as_ref()?;
        // The fallback gets the whole decoded event, its envelope fields included.
        let metadata = if metadata.is_empty() {
            context.metadata().clone()
        } else {
            metadata
        };
        Some(fallback(
            Decoded::Known(KnownEvent { event, metadata }),
            context,
        ))
    }

    /// The fallback's future for an unknown event, when there is a fallback.
    pub(crate) fn dispatch_unknown(&self, raw: Decoded, context: Context) -> Option<HandlerFuture> {
        self.fallback
            .as_ref()
            .map(|fallback| fallback(raw, context))
    }

    /// The versions each event type's handlers take.
    pub(crate) fn registered(&self) -> &Registered {
        &self.registered
    }

    /// The fields declared read for `event_type`.
    pub(crate) fn projection(&self, event_type: EventType) -> Option<&[&'static str]> {
        self.projections.get(&event_type).map(Vec::as_slice)
    }

    /// Whether a fallback handler takes what no other handler does.
    pub(crate) fn has_fallback(&self) -> bool {
        self.fallback.is_some()
    }

    fn register(&mut self, event_type: EventType, versions: &[&'static str]) {
        self.registered
            .entry(event_type)
            .or_default()
            .extend(versions.iter().copied());
    }

    fn route(&mut self, event_type: EventType, route: Route) -> &mut Self {
        self.routes.entry(event_type).or_default().push(route);
        self
    }
}
