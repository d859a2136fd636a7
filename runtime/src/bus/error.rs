//! What went wrong on the bus, for the library's caller: one error type for connecting, setting up,
//! publishing and consuming; and a broker's answer to come, boxed (a program may hold any broker).

use super::publisher::PublishError;
use super::transport::TransportError;

/// A broker's answer, still to come.
pub type Answer<'a, T> = futures_util::future::BoxFuture<'a, Result<T, BusError>>;

/// What stops a reading that follows, or a consumer: a future that resolves when it is time.
pub type Stop<'a> = futures_util::future::BoxFuture<'a, ()>;

/// What went wrong on the bus.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BusError {
    /// No server could be reached, or none accepted the client.
    #[error("cannot connect to {servers} with {method}: {message}")]
    Connect {
        /// The servers tried (a password in a URL shown as `***`).
        servers: String,
        /// The authentication method and TLS settings tried, in words (never a secret).
        method: String,
        /// Why.
        message: String,
    },
    /// The server refused an operation the user may not make (a permission violation), or withdrew
    /// its authorisation: never retried.
    #[error("permission denied: {servers} refuses {method}: {refused}")]
    PermissionDenied {
        /// The servers (a password in a URL shown as `***`).
        servers: String,
        /// The authentication method used, in words.
        method: String,
        /// What was refused, in the broker's terms (on NATS: ``may not publish to `…` `` and what the
        /// request was for).
        refused: String,
    },
    /// A request to the broker failed.
    #[error("{0}")]
    Transport(#[from] TransportError),
    /// `init` would lose data, or change what cannot be changed: nothing was changed.
    #[error("stream `{stream}` not changed: {}", reasons.join("; "))]
    Refused {
        /// The stream (on Kafka, the topic).
        stream: String,
        /// Every reason.
        reasons: Vec<String>,
    },
    /// A setting, a name, or the state of the broker does not allow the request.
    #[error("{0}")]
    Invalid(String),
    /// Publishing failed.
    #[error("{0}")]
    Publish(#[from] PublishError),
}
