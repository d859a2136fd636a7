//! Consuming from the in-memory broker: a durable consumer of the events stream (opened for the
//! floor's [`Consumer`]), the [`Source`] that takes as many messages as there are free slots, waiting
//! for the next one to arrive or come due, and the [`Delivery`] that settles each.

use super::store::{Handed, Shared};
use super::{MemoryBus, MemorySink};
use crate::bus::consumer::{ConsumerConfig, Running, Stats};
use crate::bus::error::{Answer, BusError, Stop};
use crate::bus::handle::{Consumer, LagProbe, Opened, checked_filters, run_on};
use crate::bus::metrics::ConsumerMetrics;
use crate::bus::transport::{
    Carried, Delivery, DeliveryInfo, Lag, Pulled, Pulling, Source, TransportError, Watch,
};
use std::sync::Arc;
use std::time::Duration;

/// Which durable consumer of which stream: what a delivery settles with.
#[derive(Clone)]
struct Place {
    shared: Arc<Shared>,
    stream: Arc<str>,
    durable: Arc<str>,
}

impl Place {
    /// At most `room` messages, and when the next one held back comes due.
    fn hand(&self, room: usize) -> (Vec<Handed>, Option<tokio::time::Instant>) {
        self.shared.hand(&self.stream, &self.durable, room)
    }

    fn settle(&self, sequence: u64) {
        self.shared.settle(&self.stream, &self.durable, sequence);
    }

    fn put_back(&self, sequence: u64, delay: Duration) {
        self.shared
            .put_back(&self.stream, &self.durable, sequence, delay);
    }

    fn keep(&self, sequence: u64) {
        self.shared.keep(&self.stream, &self.durable, sequence);
    }
}

impl MemoryBus {
    /// A durable consumer of the events stream: created as configured, or the existing one of that
    /// name when it selects the same events from the same start.
    pub(super) fn open_consumer(&self, config: ConsumerConfig) -> Result<Consumer, BusError> {
        let filters = checked_filters(&config)?;
        let stream = self.subjects.events_stream();
        self.shared
            .open(
                &stream,
                &config.durable,
                filters,
                config.start,
                config.ack_wait,
            )
            .map_err(BusError::Invalid)?;
        let opened = MemoryOpened {
            place: Place {
                shared: self.shared.clone(),
                stream: Arc::from(stream),
                durable: Arc::from(config.durable.as_str()),
            },
            sink: self.sink(),
        };
        Ok(Consumer::new("memory", opened, config, &self.subjects))
    }
}

/// A durable consumer of the in-memory broker, opened.
struct MemoryOpened {
    place: Place,
    sink: MemorySink,
}

impl Opened for MemoryOpened {
    /// Counted in the broker's memory: no figures per partition.
    fn probe(&self, _metrics: Option<&ConsumerMetrics>) -> LagProbe {
        LagProbe::new(MemoryProbe(self.place.clone()))
    }

    fn run<'a>(self: Box<Self>, running: Running, shutdown: Stop<'a>) -> Answer<'a, Stats> {
        let MemoryOpened { place, sink } = *self;
        let probe = LagProbe::new(MemoryProbe(place.clone()));
        Box::pin(run_on(MemorySource(place), sink, probe, running, shutdown))
    }
}

/// Reads a durable consumer's backlog; the broker is always there.
struct MemoryProbe(Place);

impl Watch for MemoryProbe {
    async fn lag(&self) -> Result<Lag, TransportError> {
        Ok(self.0.shared.backlog(&self.0.stream, &self.0.durable))
    }

    fn connected(&self) -> bool {
        true
    }
}

/// Takes a durable consumer's messages, as many as there are free slots.
struct MemorySource(Place);

impl Source for MemorySource {
    type Delivery = MemoryDelivery;

    /// Never fails: its broker is in this process.
    async fn pull(self, mut pulling: Pulling<MemoryDelivery>) -> Result<(), TransportError> {
        let place = self.0;
        while !pulling.stopping() {
            let Some(mut slots) = pulling.free_slots(1).await else {
                break;
            };
            // Listening before looking: a message stored in between wakes the wait below.
            let arrived = place.shared.arrived.notified();
            tokio::pin!(arrived);
            arrived.as_mut().enable();
            let (handed, wake) = place.hand(slots.num_permits());
            pulling.health.pulled(true);
            if handed.is_empty() {
                drop(slots);
                let due = async {
                    match wake {
                        Some(at) => tokio::time::sleep_until(at).await,
                        None => std::future::pending().await,
                    }
                };
                tokio::select! {
                    () = arrived => {}
                    () = due => {}
                    _ = pulling.stop.changed() => break,
                }
                continue;
            }
            let mut pulled = Vec::with_capacity(handed.len());
            for handed in handed {
                let Some(slot) = slots.split(1) else {
                    break;
                };
                pulled.push(Pulled {
                    delivery: MemoryDelivery::new(handed, &place),
                    slot,
                });
            }
            if !pulling.hand_over(pulled).await {
                break;
            }
        }
        Ok(())
    }
}

/// One delivery of a stored message.
struct MemoryDelivery {
    carried: Carried,
    place: Place,
}

impl MemoryDelivery {
    fn new(handed: Handed, place: &Place) -> Self {
        let stored = handed.stored;
        let info = DeliveryInfo {
            attempt: handed.attempt,
            sequence: handed.sequence,
            stream: place.stream.to_string(),
            published: Some(stored.time),
        };
        let carried = Carried::new(
            stored.subject.clone(),
            stored.headers.clone(),
            stored.payload.clone(),
            info,
        );
        MemoryDelivery {
            carried,
            place: place.clone(),
        }
    }
}

impl Delivery for MemoryDelivery {
    fn carried(&self) -> &Carried {
        &self.carried
    }

    /// Settled for good (terminated too: its dead letter is stored).
    async fn ack(&self) -> Result<(), TransportError> {
        self.place.settle(self.info().sequence);
        Ok(())
    }

    async fn retry_after(&self, delay: Duration) -> Result<(), TransportError> {
        self.place.put_back(self.info().sequence, delay);
        Ok(())
    }

    async fn keep_alive(&self) -> Result<(), TransportError> {
        self.place.keep(self.info().sequence);
        Ok(())
    }
}
