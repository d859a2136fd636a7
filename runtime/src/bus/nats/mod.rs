//! The NATS JetStream leaf of the bus: [`Bus`] connects, and is the [`Broker`] on NATS (streams from
//! the catalogue, publishers, consumers, dead letters, captures); the `Sink`, `Source` and `Delivery`
//! of the floor's [`crate::bus::transport`] on `async-nats`. The only folder that knows NATS.
//!
//! - this file: the connection ([`Bus`]) and who it is, for errors; what the others share;
//! - `connect`: the servers, authentication and TLS ([`ConnectSettings`]), and why a connection failed;
//! - `refusals`: what the server refuses a connected client, heard on the connection;
//! - `streams`: the streams from the catalogue (`energy bus init`), and finding one;
//! - `publish`: the [`NatsSink`];
//! - `consume`: the durable pull consumer, its source, deliveries and lag;
//! - `broker`: the [`Broker`] on NATS: set-up, capture and dead letters (reading a stream in order).

mod broker;
mod capture;
pub mod connect;
mod consume;
mod publish;
pub mod refusals;
mod streams;

pub use connect::ConnectSettings;
pub use publish::NatsSink;
pub use refusals::Refusal;

#[cfg(doc)]
use crate::bus::broker::Broker;
use crate::bus::error::BusError;
use crate::bus::headers::Headers;
use crate::bus::publisher::Publisher;
use crate::bus::subjects::Subjects;
use crate::bus::transport::{TransportError, TransportErrorKind};
use async_nats::Client;
use async_nats::jetstream::{self};
use refusals::Refusals;
use std::future::Future;
use std::sync::Arc;

/// A connection to a NATS server (or cluster) and the names of one deployment's subjects and streams.
#[derive(Clone)]
pub struct Bus {
    client: Client,
    jetstream: jetstream::Context,
    subjects: Subjects,
    peer: Peer,
}

/// Who the connection is, for errors: the servers (secrets hidden), the method, what it was refused.
#[derive(Clone, Debug)]
pub(crate) struct Peer {
    servers: Arc<str>,
    method: Arc<str>,
    refusals: Refusals,
}

impl Peer {
    /// The error of a refusal heard on this connection.
    pub(crate) fn denied(&self, refusal: Refusal) -> BusError {
        BusError::PermissionDenied {
            servers: self.servers.to_string(),
            method: self.method.to_string(),
            refused: refusal.describe(),
        }
    }

    /// Runs `work`, failing it at once with the refusal heard meanwhile, if any: a request the server
    /// refused is never answered, and would otherwise only time out.
    pub(crate) async fn guard<T>(
        &self,
        work: impl Future<Output = Result<T, BusError>>,
    ) -> Result<T, BusError> {
        let mut refused = self.refusals.watch();
        tokio::select! {
            result = work => result,
            refusal = refused.next() => Err(self.denied(refusal)),
        }
    }
}

impl Bus {
    /// Connects to `servers` (one URL, or several separated by commas: `nats://a:4222,nats://b:4222`)
    /// with no credentials of its own, reconnecting by itself whenever the connection drops.
    pub async fn connect(servers: &str) -> Result<Bus, BusError> {
        Self::connect_with(&ConnectSettings::new(servers)).await
    }

    /// Connects with `settings`: the servers, one authentication method (user and password, token,
    /// NKey seed, credentials file), TLS (a CA, a client certificate, TLS first), an inbox prefix. A
    /// failure is one line naming the servers and the method tried (never a secret), within seconds.
    pub async fn connect_with(settings: &ConnectSettings) -> Result<Bus, BusError> {
        let (addresses, options) = settings.options()?;
        let refusals = Refusals::default();
        let hearing = refusals.clone();
        let client = options
            .event_callback(move |event| {
                if let async_nats::Event::ServerError(error) = &event {
                    hearing.hear(error.to_string().trim_start_matches("nats: "));
                }
                std::future::ready(())
            })
            .connect(addresses)
            .await
            .map_err(|e| settings.connect_failure(&e))?;
        Ok(Bus {
            jetstream: jetstream::new(client.clone()),
            client,
            subjects: Subjects::default(),
            peer: Peer {
                servers: Arc::from(settings.servers_shown()),
                method: Arc::from(settings.method()),
                refusals,
            },
        })
    }

    /// Uses these subjects (another prefix).
    pub fn with_subjects(mut self, subjects: Subjects) -> Self {
        self.subjects = subjects;
        self
    }

    /// The NATS client, for what this crate does not do.
    pub fn client(&self) -> &Client {
        &self.client
    }

    /// A publisher of events (through the [`NatsSink`] itself, not [`Broker::publisher`]'s any sink).
    pub fn publisher(&self) -> Publisher<NatsSink> {
        Publisher::new(self.sink(), self.subjects.clone())
    }

    /// The publishing side of the transport.
    pub fn sink(&self) -> NatsSink {
        NatsSink {
            jetstream: self.jetstream.clone(),
            client: self.client.clone(),
            peer: self.peer.clone(),
        }
    }
}

/// Whether a JetStream error says the stream does not exist.
fn is_not_found(error: &async_nats::error::Error<jetstream::context::GetStreamErrorKind>) -> bool {
    matches!(
        error.kind(),
        jetstream::context::GetStreamErrorKind::JetStream(e)
            if e.error_code() == jetstream::ErrorCode::STREAM_NOT_FOUND
    )
}

/// A request that failed, as a transport error (transient unless the broker refused it).
fn request_error(what: &str, error: impl std::fmt::Display) -> BusError {
    let text = error.to_string();
    let kind = if text.contains("timed out") || text.contains("timeout") {
        TransportErrorKind::Timeout
    } else if text.contains("no responders") || text.contains("request error") {
        TransportErrorKind::Unavailable
    } else {
        TransportErrorKind::Rejected
    };
    BusError::Transport(TransportError::new(kind, format!("{what}: {text}")))
}

/// A NATS header map as [`Headers`], sorted by name (NATS keeps no order).
fn headers_of(map: Option<&async_nats::HeaderMap>) -> Headers {
    let Some(map) = map else {
        return Headers::new();
    };
    let mut pairs: Vec<(&str, &str)> = map
        .iter()
        .flat_map(|(name, values)| {
            values
                .iter()
                .map(move |value| (name.as_ref(), value.as_str()))
        })
        .collect();
    pairs.sort_by(|a, b| a.0.cmp(b.0));
    let mut headers = Headers::with_capacity(pairs.len());
    for (name, value) in pairs {
        headers.append(super::cloudevents::header_name(name), value);
    }
    headers
}
