//! The NATS JetStream transport: [`Bus`] connects, sets up the streams from the catalogue, and makes
//! publishers, consumers, dead-letter views and captures; the `Sink`, `Source` and `Delivery` of
//! [`super::transport`] on `async-nats`.
//!
//! - this file: the connection ([`Bus`]) and who it is, for errors; what the others share;
//! - `streams`: the streams from the catalogue (`energy bus init`), and finding one;
//! - `publish`: the [`NatsSink`];
//! - `consume`: the durable pull consumer ([`NatsConsumer`]), its source, deliveries and lag;
//! - `dead_letters`: reading dead letters and publishing one again;
//! - `capture`: reading the events stream in order (`energy events capture`).

mod capture;
mod consume;
mod dead_letters;
mod publish;
mod streams;

pub use capture::{CaptureRange, Captured};
pub use consume::{LagProbe, NatsConsumer};
pub use publish::NatsSink;
pub use streams::{Change, Retention, Storage, StreamReport, StreamSettings};

use crate::bus::connect::ConnectSettings;
pub use crate::bus::error::BusError;
use crate::bus::headers::Headers;
use crate::bus::publisher::Publisher;
use crate::bus::refusals::{Refusal, Refusals};
use crate::bus::subjects::Subjects;
use crate::bus::transport::{TransportError, TransportErrorKind};
use async_nats::Client;
use async_nats::jetstream::{self};
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
            refusal,
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

    /// The subjects and streams used.
    pub fn subjects(&self) -> &Subjects {
        &self.subjects
    }

    /// The NATS client, for what this crate does not do.
    pub fn client(&self) -> &Client {
        &self.client
    }

    /// A publisher of events.
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
