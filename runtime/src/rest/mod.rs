//! A typed client of the platform's REST API, on the generated [`energy_api::rest`] types.
//!
//! One protocol core, free of I/O, knows every rule of the REST document; two transports drive it:
//!
//! - [`BaseUrl`]: `https://` only, except loopback hosts (`127.0.0.0/8`, `::1`, `localhost`).
//! - [`HttpRequest`]: built from any generated [`Endpoint`](energy_api::rest::Endpoint) (URL = base
//!   URL + path + query string; headers), with credentials only where the endpoint requires them.
//! - [`Credentials`]: an API key (HTTP Basic, key as user name, empty password) or a token (the
//!   `Authorization` header as given); never in `Debug`, logs or errors.
//! - [`HttpResponse`]: status and JSON body into the generated types; a mismatch is an
//!   [`Error::Decode`] naming its JSON path; fields the types do not list are ignored.
//! - [`Exchange`] and [`RetryPolicy`]: bounded retries on 429 and 503, honouring `Retry-After`, each
//!   reported as a [`RetryNotice`].
//! - [`PageCursor`]: follows `next` links exactly as given, refusing loops, other origins and pages
//!   past the cap.
//! - Bounds no server can push a client past ([`ClientConfig`]): a body size counted after
//!   decompression (10 MiB), a page cap (1,000) and a deadline for a call or a whole list (10
//!   minutes), besides the timeout of each request (30 s).
//! - [`DateTimeParam`]: an instant, or a civil date-time resolved in `Europe/London` (see
//!   [the rule for clock changes](datetime)).
//!
//! The transports: [`Client`] (blocking, on `ureq`, feature `blocking`, default) and [`AsyncClient`]
//! (on `reqwest` and tokio, feature `async`). Both offer `send` (one call), `pages` and `items` (every
//! page of a list, lazily, as an iterator or a stream).

// Without a transport (no `blocking` nor `async` feature) the protocol core is there for others to
// drive, and the parts only the transports use are unused.
#![cfg_attr(
    not(any(feature = "blocking", feature = "async")),
    allow(dead_code, reason = "used by the transports, which no feature enables")
)]

mod base_url;
mod config;
mod credentials;
pub mod datetime;
mod error;
mod exchange;
mod pagination;
mod request;
mod response;
mod tls;

#[cfg(feature = "async")]
mod asynchronous;
#[cfg(feature = "blocking")]
mod blocking;

#[cfg(feature = "async")]
pub use asynchronous::AsyncClient;
pub use base_url::BaseUrl;
#[cfg(feature = "blocking")]
pub use blocking::{Client, Items, Pages};
pub use config::ClientConfig;
pub use credentials::Credentials;
pub use datetime::DateTimeParam;
pub use error::{Error, RequestSummary};
pub use exchange::{Exchange, RetryNotice, RetryPolicy, Step};
pub use pagination::PageCursor;
pub use request::{Header, HttpRequest};
pub use response::HttpResponse;
