//! What the in-memory broker holds: its streams (messages in order under one sequence each, ids
//! remembered for a window to store a message published again once) and its durable consumers (where
//! each is in its stream, what it was handed and must settle before its acknowledgement wait runs
//! out, what is to come again and when). One lock over all of it; a [`Notify`] wakes the consumers
//! waiting for a message or a redelivery.

use crate::bus::consumer::Start;
use crate::bus::headers::Headers;
use crate::bus::subjects::{Subjects, may_match};
use crate::bus::transport::{Lag, Outgoing, Receipt, TransportError, TransportErrorKind};
use bytes::Bytes;
use std::collections::{BTreeMap, HashMap, VecDeque};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;
use tokio::sync::Notify;
use tokio::time::Instant;

/// The broker: its state, and the signal that something arrived or came due.
#[derive(Default)]
pub(super) struct Shared {
    state: Mutex<State>,
    /// Woken on every message stored and every message put back: a consumer waiting looks again.
    pub(super) arrived: Notify,
}

/// Everything the broker holds.
#[derive(Default)]
pub(super) struct State {
    /// The streams, by name.
    pub(super) streams: BTreeMap<String, Stream>,
    /// The durable consumers, by stream and name.
    durables: HashMap<(String, String), Durable>,
}

/// One stream: its subject filters and messages.
pub(super) struct Stream {
    /// The subjects it stores.
    filters: Vec<String>,
    /// Its messages, by sequence (from 1).
    pub(super) messages: BTreeMap<u64, Arc<Stored>>,
    /// The last sequence given.
    pub(super) last: u64,
    /// Ids published within the window, with their sequences.
    ids: HashMap<String, u64>,
    /// The ids in the order they were stored, with when, to forget them after the window.
    remembered: VecDeque<(Instant, String)>,
    /// How long an id is remembered.
    pub(super) duplicate_window: Duration,
}

/// A message as the broker stores it.
pub(super) struct Stored {
    /// Its subject.
    pub(super) subject: String,
    /// Its headers, sorted by name (as NATS hands them over).
    pub(super) headers: Arc<Headers>,
    /// Its body.
    pub(super) payload: Bytes,
    /// When it was stored.
    pub(super) time: jiff::Timestamp,
}

/// A durable consumer of a stream.
pub(super) struct Durable {
    /// The subjects it selects (sorted); none for all.
    pub(super) filters: Vec<String>,
    /// Where it started.
    pub(super) start: Start,
    /// How long a message handed over may stay unsettled before it is handed over again.
    pub(super) ack_wait: Duration,
    /// The next sequence not yet handed over.
    next: u64,
    /// How many times each message not yet settled was handed over.
    deliveries: HashMap<u64, u64>,
    /// Handed over and not settled: when its acknowledgement wait runs out.
    out: BTreeMap<u64, Instant>,
    /// To be handed over again: when.
    again: BTreeMap<u64, Instant>,
}

/// A message handed to a consumer: what it is, and which delivery this is.
pub(super) struct Handed {
    /// Its sequence.
    pub(super) sequence: u64,
    /// The message.
    pub(super) stored: Arc<Stored>,
    /// Which delivery (1 the first time).
    pub(super) attempt: u64,
}

impl Stream {
    fn new(filters: Vec<String>) -> Self {
        Stream {
            filters,
            messages: BTreeMap::new(),
            last: 0,
            ids: HashMap::new(),
            remembered: VecDeque::new(),
            duplicate_window: Duration::from_secs(120),
        }
    }

    fn stores(&self, subject: &str) -> bool {
        self.filters.iter().any(|f| may_match(f, subject))
    }

    /// The first sequence at `start` (one past the last for the messages still to come).
    pub(super) fn first_at(&self, start: Start) -> u64 {
        match start {
            Start::All => 1,
            Start::New => self.last + 1,
            Start::Sequence(sequence) => sequence,
            Start::Time(time) => self
                .messages
                .iter()
                .find(|(_, stored)| stored.time >= time)
                .map_or(self.last + 1, |(sequence, _)| *sequence),
        }
    }

    /// Stores `message`, or finds it stored within the window.
    fn store(&mut self, name: &str, message: &Outgoing, now: Instant) -> Receipt {
        while let Some((at, _)) = self.remembered.front() {
            if now.duration_since(*at) < self.duplicate_window {
                break;
            }
            if let Some((_, id)) = self.remembered.pop_front() {
                self.ids.remove(&id);
            }
        }
        if let Some(&sequence) = self.ids.get(&message.id) {
            return Receipt {
                stream: name.to_owned(),
                sequence,
                duplicate: true,
            };
        }
        self.last += 1;
        let stored = Stored {
            subject: message.subject.clone(),
            headers: Arc::new(message.headers.clone().sorted()),
            payload: message.payload.clone(),
            time: jiff::Timestamp::now(),
        };
        self.messages.insert(self.last, Arc::new(stored));
        if !message.id.is_empty() {
            self.ids.insert(message.id.clone(), self.last);
            self.remembered.push_back((now, message.id.clone()));
        }
        Receipt {
            stream: name.to_owned(),
            sequence: self.last,
            duplicate: false,
        }
    }
}

impl Durable {
    fn selects(&self, subject: &str) -> bool {
        self.filters.is_empty() || self.filters.iter().any(|f| may_match(f, subject))
    }

    /// Hands over at most `room` messages of `stream`: first those due again (their wait over, or
    /// their acknowledgement wait run out), then new ones, in sequence order. Returns them, and when
    /// the next one not yet due comes due.
    fn hand(
        &mut self,
        stream: &Stream,
        room: usize,
        now: Instant,
    ) -> (Vec<Handed>, Option<Instant>) {
        let expired: Vec<u64> = self
            .out
            .iter()
            .filter(|(_, deadline)| **deadline <= now)
            .map(|(sequence, _)| *sequence)
            .collect();
        for sequence in expired {
            self.out.remove(&sequence);
            self.again.insert(sequence, now);
        }
        let mut handed = Vec::new();
        let due: Vec<u64> = self
            .again
            .iter()
            .filter(|(_, at)| **at <= now)
            .map(|(sequence, _)| *sequence)
            .take(room)
            .collect();
        for sequence in due {
            self.again.remove(&sequence);
            if let Some(stored) = stream.messages.get(&sequence) {
                handed.push(self.handed(sequence, stored.clone(), now));
            }
        }
        while handed.len() < room && self.next <= stream.last {
            let sequence = self.next;
            self.next += 1;
            if let Some(stored) = stream.messages.get(&sequence)
                && self.selects(&stored.subject)
            {
                handed.push(self.handed(sequence, stored.clone(), now));
            }
        }
        let wake = self.again.values().chain(self.out.values()).min().copied();
        (handed, wake)
    }

    fn handed(&mut self, sequence: u64, stored: Arc<Stored>, now: Instant) -> Handed {
        let attempt = self.deliveries.entry(sequence).or_insert(0);
        *attempt += 1;
        self.out.insert(sequence, now + self.ack_wait);
        Handed {
            sequence,
            stored,
            attempt: *attempt,
        }
    }

    fn backlog(&self, stream: &Stream) -> Lag {
        let pending = stream
            .messages
            .range(self.next..)
            .filter(|(_, stored)| self.selects(&stored.subject))
            .count();
        Lag {
            pending: u64::try_from(pending).unwrap_or(u64::MAX),
            ack_pending: u64::try_from(self.out.len() + self.again.len()).unwrap_or(u64::MAX),
        }
    }
}

/// Why a durable consumer of these settings cannot be opened on the one that exists, if it cannot.
fn mismatch(name: &str, have: &Durable, filters: &[String], start: Start) -> Option<String> {
    let describe = |filters: &[String]| {
        if filters.is_empty() {
            "every event".to_owned()
        } else {
            filters.join(", ")
        }
    };
    if have.filters != filters {
        return Some(format!(
            "the durable consumer `{name}` exists and selects {} (asked: {}): give this consumer another name, or use its filters",
            describe(&have.filters),
            describe(filters)
        ));
    }
    (have.start != start).then(|| {
        format!(
            "the durable consumer `{name}` exists, created to start at {:?}; a start ({start:?}) applies only when it is created: to replay, use a new durable name",
            have.start
        )
    })
}

impl Shared {
    pub(super) fn lock(&self) -> MutexGuard<'_, State> {
        // A panic while the lock was held left nothing half-written that a reader could trip on.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Makes the events stream and the dead-letter stream of `subjects`, when missing.
    pub(super) fn ensure_streams(&self, subjects: &Subjects) {
        let mut state = self.lock();
        state
            .streams
            .entry(subjects.events_stream())
            .or_insert_with(|| Stream::new(subjects.catalogue()));
        state
            .streams
            .entry(subjects.dead_letter_stream())
            .or_insert_with(|| Stream::new(vec![format!("{}.>", subjects.dead_letter_root())]));
    }

    /// Stores `message` in the stream that holds its subject, and wakes the consumers.
    pub(super) fn store(&self, message: &Outgoing) -> Result<Receipt, TransportError> {
        let receipt = {
            let mut state = self.lock();
            let Some((name, stream)) = state
                .streams
                .iter_mut()
                .find(|(_, stream)| stream.stores(&message.subject))
            else {
                return Err(TransportError::new(
                    TransportErrorKind::Rejected,
                    format!("no stream stores the subject `{}`", message.subject),
                ));
            };
            stream.store(name, message, Instant::now())
        };
        self.arrived.notify_waiters();
        Ok(receipt)
    }

    /// Opens the durable consumer `name` of `stream`: created as asked, or the one that exists when it
    /// selects the same events from the same start (its acknowledgement wait then updated).
    pub(super) fn open(
        &self,
        stream: &str,
        name: &str,
        filters: Vec<String>,
        start: Start,
        ack_wait: Duration,
    ) -> Result<(), String> {
        let mut state = self.lock();
        let Some(first) = state.streams.get(stream).map(|s| s.first_at(start)) else {
            return Err(format!("the stream `{stream}` does not exist"));
        };
        let key = (stream.to_owned(), name.to_owned());
        if let Some(have) = state.durables.get_mut(&key) {
            if let Some(why) = mismatch(name, have, &filters, start) {
                return Err(why);
            }
            have.ack_wait = ack_wait;
            return Ok(());
        }
        state.durables.insert(
            key,
            Durable {
                filters,
                start,
                ack_wait,
                next: first,
                deliveries: HashMap::new(),
                out: BTreeMap::new(),
                again: BTreeMap::new(),
            },
        );
        Ok(())
    }

    /// Hands at most `room` messages to the durable consumer `name` of `stream`, and says when the
    /// next one held back comes due.
    pub(super) fn hand(
        &self,
        stream: &str,
        name: &str,
        room: usize,
    ) -> (Vec<Handed>, Option<Instant>) {
        let mut state = self.lock();
        let State { streams, durables } = &mut *state;
        match (
            streams.get(stream),
            durables.get_mut(&(stream.to_owned(), name.to_owned())),
        ) {
            (Some(stream), Some(durable)) => durable.hand(stream, room, Instant::now()),
            _ => (Vec::new(), None),
        }
    }

    /// The durable consumer's backlog.
    pub(super) fn backlog(&self, stream: &str, name: &str) -> Lag {
        let state = self.lock();
        match (
            state.streams.get(stream),
            state.durables.get(&(stream.to_owned(), name.to_owned())),
        ) {
            (Some(stream), Some(durable)) => durable.backlog(stream),
            _ => Lag::default(),
        }
    }

    /// Settles a message for good (acknowledged, or terminated once dead-lettered).
    pub(super) fn settle(&self, stream: &str, name: &str, sequence: u64) {
        let mut state = self.lock();
        if let Some(durable) = state
            .durables
            .get_mut(&(stream.to_owned(), name.to_owned()))
        {
            durable.out.remove(&sequence);
            durable.again.remove(&sequence);
            durable.deliveries.remove(&sequence);
        }
    }

    /// Puts a message back, to be handed over again after `delay`; wakes the consumers.
    pub(super) fn put_back(&self, stream: &str, name: &str, sequence: u64, delay: Duration) {
        {
            let mut state = self.lock();
            if let Some(durable) = state
                .durables
                .get_mut(&(stream.to_owned(), name.to_owned()))
                && durable.out.remove(&sequence).is_some()
            {
                durable.again.insert(sequence, Instant::now() + delay);
            }
        }
        self.arrived.notify_waiters();
    }

    /// Restarts a message's acknowledgement wait (it is still being handled).
    pub(super) fn keep(&self, stream: &str, name: &str, sequence: u64) {
        let mut state = self.lock();
        if let Some(durable) = state
            .durables
            .get_mut(&(stream.to_owned(), name.to_owned()))
            && let Some(deadline) = durable.out.get_mut(&sequence)
        {
            *deadline = Instant::now() + durable.ack_wait;
        }
    }
}
