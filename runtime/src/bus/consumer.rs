//! The consumer's logic, the same on any broker: every pulled message is read as a CloudEvent, decoded
//! and validated as `energy events validate` does, handed to its handler, and settled exactly once:
//!
//! | what happened | settlement | outcome |
//! |---|---|---|
//! | the handler returned `Ok` | acknowledged (only then) | `handled` |
//! | the handler failed, deliveries left | delivered again after the next retry delay (or, with per-subject order, tried again in place) | `retried` |
//! | the handler failed on the last of `max_deliver` deliveries | dead-lettered (`handler_failed`) | `dead_lettered` |
//! | the handler rejected it ([`HandlerError::reject`]) | dead-lettered (`handler_rejected`) | `dead_lettered` |
//! | headers, JSON or payload invalid (poison) | dead-lettered at once, before any handler, with the error's kind and path | `dead_lettered` |
//! | delivered more than `max_deliver` times without being settled (the consumer stopped each time) | dead-lettered (`not_settled`) without calling the handler again | `dead_lettered` |
//! | unknown event type or version | per [`UnknownPolicy`]: acknowledged, dead-lettered or handed to the fallback | `unknown`, `dead_lettered`, … |
//! | a known event no handler takes | acknowledged | `skipped` |
//! | the dead letter could not be stored | delivered again later: never terminated unless its dead letter is stored | `retried` |
//! | still held when a stop's `shutdown_timeout` ran out | handed back to the broker (delivered again at once, to another process) | `handed_back` |
//!
//! While a message is being handled (or waits for its turn), its broker timer is restarted every third
//! of the acknowledgement wait, so a slow handler does not get its message delivered twice.

use super::dead_letter::{DeadLetterCause, dead_letter_of};
use super::handlers::{Context, Envelope, HandlerError, HandlerFuture, Handlers, UnknownPolicy};
use super::health::Health;
use super::metrics::{ConsumerMetrics, event_type_label};
pub use super::outcome::Outcome;
use super::publisher::{PublishRetry, send_with_retry};
use super::trace;
use super::transport::{Delivery, Lag, Pulled, Pulling, Sink, Source, TransportError, Watch};
use crate::events::{Decoded, Decoder, ErrorKind, EventError, Unknown};
use futures_util::stream::FuturesUnordered;
use futures_util::{FutureExt, StreamExt};
use std::collections::HashMap;
use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering as Atomic};
use std::time::Duration;
// The consumer's clock is tokio's, so that a paused clock (tests on the in-memory broker) moves its
// retries, idle exits and stops without waiting.
use tokio::sync::{Semaphore, mpsc, oneshot, watch};
use tokio::task::JoinSet;
use tokio::time::Instant;

/// How the handling of messages is ordered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Ordering {
    /// Up to `concurrency` messages at once, in any order (the fastest); a failed message is delivered
    /// again after its delay, after later ones.
    #[default]
    Concurrent,
    /// Messages of one subject (one event type and version) one after the other, in the order this
    /// process received them; subjects in parallel. A failed message is tried again in place, after its
    /// delay, holding back the ones behind it. (Several processes on one durable consumer each keep
    /// their own order.)
    PerSubject,
}

/// Where a new durable consumer starts in the stream (an existing one goes on where it was).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Start {
    /// The oldest event still stored.
    #[default]
    All,
    /// Events stored after the consumer is created.
    New,
    /// The event at this stream sequence, then on.
    Sequence(u64),
    /// The first event stored at or after this time, then on.
    Time(jiff::Timestamp),
}

/// A consumer's settings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConsumerConfig {
    /// The durable consumer's name: processes using the same name share its work.
    pub durable: String,
    /// Subject filters (`energy.billing.final_bill.*`); none means every event of the stream.
    pub filters: Vec<String>,
    /// Where dead letters go; `None` means the default, `<prefix>_dead_letters.<durable>`.
    pub dead_letter_subject: Option<String>,
    /// Deliveries of one message before a handler failure dead-letters it (at least 1).
    pub max_deliver: u64,
    /// The wait before the n-th redelivery after a handler failure (the last one repeats).
    pub retry_delays: Vec<Duration>,
    /// How long the broker waits for a settlement before delivering a message again.
    pub ack_wait: Duration,
    /// Messages held at once (pulled and not yet settled).
    pub concurrency: usize,
    /// How handling is ordered.
    pub ordering: Ordering,
    /// Where a new durable consumer starts.
    pub start: Start,
    /// Stop once nothing has arrived, and nothing is being handled, for this long, and then the
    /// durable consumer has nothing pending and nothing awaiting acknowledgement on the broker (so that
    /// a consumer restarted after a crash handles the crashed one's messages before it stops).
    pub idle_exit: Option<Duration>,
    /// On a stop, how long the messages held may take to be settled; those still held then are handed
    /// back to the broker (delivered again at once) and counted as `handed_back`.
    pub shutdown_timeout: Duration,
}

impl ConsumerConfig {
    /// The defaults for a durable consumer: every event, at most 5 deliveries, retried after 1 s, 5 s,
    /// then 30 s, acknowledgement wait 30 s, 64 at once in any order, from the oldest event.
    pub fn durable(name: &str) -> Self {
        ConsumerConfig {
            durable: name.to_owned(),
            filters: Vec::new(),
            dead_letter_subject: None,
            max_deliver: 5,
            retry_delays: vec![
                Duration::from_secs(1),
                Duration::from_secs(5),
                Duration::from_secs(30),
            ],
            ack_wait: Duration::from_secs(30),
            concurrency: 64,
            ordering: Ordering::Concurrent,
            start: Start::All,
            idle_exit: None,
            shutdown_timeout: Duration::from_secs(30),
        }
    }

    /// Only events on these subjects (filters with `*` and `>` allowed).
    pub fn filters(mut self, filters: impl IntoIterator<Item = String>) -> Self {
        self.filters = filters.into_iter().collect();
        self
    }

    /// Dead letters to this subject (a stream must store it: `energy bus init` stores
    /// `<prefix>_dead_letters.>`).
    pub fn dead_letter_subject(mut self, subject: impl Into<String>) -> Self {
        self.dead_letter_subject = Some(subject.into());
        self
    }

    /// At most this many deliveries of a failing message (at least 1).
    pub fn max_deliver(mut self, max_deliver: u64) -> Self {
        self.max_deliver = max_deliver.max(1);
        self
    }

    /// The waits before redeliveries (the last one repeats).
    pub fn retry_delays(mut self, delays: impl IntoIterator<Item = Duration>) -> Self {
        self.retry_delays = delays.into_iter().collect();
        self
    }

    /// The broker's acknowledgement wait.
    pub fn ack_wait(mut self, wait: Duration) -> Self {
        self.ack_wait = wait;
        self
    }

    /// At most this many messages held at once (at least 1).
    pub fn concurrency(mut self, concurrency: usize) -> Self {
        self.concurrency = concurrency.max(1);
        self
    }

    /// How handling is ordered.
    pub fn ordering(mut self, ordering: Ordering) -> Self {
        self.ordering = ordering;
        self
    }

    /// Where a new durable consumer starts.
    pub fn start(mut self, start: Start) -> Self {
        self.start = start;
        self
    }

    /// Stop once idle for this long with nothing left on the broker (see [`ConsumerConfig::idle_exit`]).
    pub fn idle_exit(mut self, idle: Duration) -> Self {
        self.idle_exit = Some(idle);
        self
    }

    /// How long a stop waits for the messages held before handing them back.
    pub fn shutdown_timeout(mut self, timeout: Duration) -> Self {
        self.shutdown_timeout = timeout;
        self
    }

    /// The wait before the delivery after failed `attempt` (1-based).
    pub fn retry_delay(&self, attempt: u64) -> Duration {
        let index = usize::try_from(attempt.saturating_sub(1)).unwrap_or(usize::MAX);
        self.retry_delays
            .get(index)
            .or(self.retry_delays.last())
            .copied()
            .unwrap_or(Duration::from_secs(1))
    }
}

/// One settlement of one delivery.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Settled {
    /// The event's `ce-id`, when its headers gave one.
    pub id: Option<String>,
    /// Its type, when its headers gave one.
    pub event_type: Option<String>,
    /// Its version, when its headers gave one.
    pub version: Option<String>,
    /// The subject it came on.
    pub subject: String,
    /// Its position in the stream.
    pub sequence: u64,
    /// Which delivery (or, tried again in place, which try) this was.
    pub attempt: u64,
    /// What became of it.
    pub outcome: Outcome,
    /// Why, when it was not handled: the error kind, path and message.
    pub cause: Option<DeadLetterCause>,
}

/// Counts of outcomes since the consumer started.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Stats {
    /// Handled and acknowledged.
    pub handled: u64,
    /// Retried (each retry counted).
    pub retried: u64,
    /// Dead-lettered.
    pub dead_lettered: u64,
    /// Unknown type or version (not dead-lettered).
    pub unknown: u64,
    /// Known, with no handler.
    pub skipped: u64,
    /// Handed back to the broker when a stop ran out of time.
    pub handed_back: u64,
}

impl Stats {
    /// Every settlement counted.
    pub fn total(&self) -> u64 {
        self.handled
            + self.retried
            + self.dead_lettered
            + self.unknown
            + self.skipped
            + self.handed_back
    }
}

/// Counters a running consumer updates and anyone may read.
#[derive(Debug, Default)]
pub struct Counters {
    handled: AtomicU64,
    retried: AtomicU64,
    dead_lettered: AtomicU64,
    unknown: AtomicU64,
    skipped: AtomicU64,
    handed_back: AtomicU64,
}

impl Counters {
    /// The counts now.
    pub fn snapshot(&self) -> Stats {
        Stats {
            handled: self.handled.load(Atomic::Relaxed),
            retried: self.retried.load(Atomic::Relaxed),
            dead_lettered: self.dead_lettered.load(Atomic::Relaxed),
            unknown: self.unknown.load(Atomic::Relaxed),
            skipped: self.skipped.load(Atomic::Relaxed),
            handed_back: self.handed_back.load(Atomic::Relaxed),
        }
    }

    fn count(&self, outcome: Outcome) {
        let counter = match outcome {
            Outcome::Handled => &self.handled,
            Outcome::Retried => &self.retried,
            Outcome::DeadLettered => &self.dead_lettered,
            Outcome::Unknown => &self.unknown,
            Outcome::Skipped => &self.skipped,
            Outcome::HandedBack => &self.handed_back,
        };
        counter.fetch_add(1, Atomic::Relaxed);
    }
}

/// Called with every outcome once it is decided, before it is sent to the broker (a process stopped in
/// between reports it again when the message comes back: every outcome is reported at least once).
pub type Observer = Arc<dyn Fn(&Settled) + Send + Sync>;

/// What every message task shares.
struct Shared<K> {
    sink: K,
    config: ConsumerConfig,
    dead_letter_subject: String,
    handlers: Handlers,
    decoder: Decoder,
    counters: Arc<Counters>,
    observer: Option<Observer>,
    metrics: Option<ConsumerMetrics>,
    /// Turns true when the stop's time is up: what is still held is handed back.
    hand_back: watch::Receiver<bool>,
    /// The broker's kind, for the spans.
    system: &'static str,
}

/// What a running consumer needs beside its transport.
pub(crate) struct Running {
    /// Its settings.
    pub config: ConsumerConfig,
    /// Where its dead letters go.
    pub dead_letter_subject: String,
    /// Its handlers.
    pub handlers: Handlers,
    /// Its counters.
    pub counters: Arc<Counters>,
    /// Who hears of each settlement.
    pub observer: Option<Observer>,
    /// Its figures, when someone reads them.
    pub metrics: Option<ConsumerMetrics>,
    /// Its health, for whoever asks.
    pub health: Health,
    /// The broker's kind, as OpenTelemetry names it (`nats`, `kafka`): the spans' `messaging.system`.
    pub system: &'static str,
}

/// How often the backlog is read for the figures.
const BACKLOG_REFRESH: Duration = Duration::from_secs(2);
/// How often an idle consumer asks the broker whether anything is left for it.
const IDLE_RECHECK: Duration = Duration::from_secs(1);

/// Runs a consumer until `shutdown` resolves (or it is idle for `idle_exit` with nothing left on the
/// broker, or the source fails for good): then it stops pulling, finishes what it holds within the
/// `shutdown_timeout`, hands back what it still holds then, and returns the counts.
pub(crate) async fn run<Src, K, W>(
    source: Src,
    sink: K,
    broker: W,
    running: Running,
    shutdown: impl Future<Output = ()> + Send,
) -> Result<Stats, TransportError>
where
    Src: Source,
    K: Sink,
    W: Watch,
{
    let Running {
        config,
        dead_letter_subject,
        handlers,
        counters,
        observer,
        metrics,
        health,
        system,
    } = running;
    let concurrency = config.concurrency.max(1);
    let room = Arc::new(Semaphore::new(concurrency));
    let (deliveries_tx, mut deliveries) = mpsc::channel(concurrency);
    let (stop, stopped) = watch::channel(false);
    let (hand_back, handing_back) = watch::channel(false);
    health.started();
    // Dropping the consumer's future (a caller that gives up on it) stops the pulling too.
    let mut pulling = AbortOnDrop(tokio::spawn(source.pull(Pulling {
        room: room.clone(),
        deliveries: deliveries_tx,
        stop: stopped,
        health: health.clone(),
    })));
    let idle_exit = config.idle_exit;
    let shutdown_timeout = config.shutdown_timeout;
    let ordered = config.ordering == Ordering::PerSubject;
    let shared = Arc::new(Shared {
        sink,
        config,
        dead_letter_subject,
        handlers,
        decoder: Decoder::new(),
        counters: counters.clone(),
        observer,
        metrics: metrics.clone(),
        hand_back: handing_back,
        system,
    });
    // Per subject (ordered mode): the signal that the last message given a turn is done.
    let mut lanes: HashMap<String, oneshot::Receiver<()>> = HashMap::new();
    let mut tasks = JoinSet::new();
    let mut last_arrival = Instant::now();
    let mut next_idle_check = Instant::now();
    let mut ticker = tokio::time::interval(Duration::from_millis(100));
    let mut refresh = tokio::time::interval(BACKLOG_REFRESH);
    tokio::pin!(shutdown);
    let mut stopping = false;
    loop {
        tokio::select! {
            pulled = deliveries.recv() => {
                let Some(pulled) = pulled else { break };
                last_arrival = Instant::now();
                if let Some(metrics) = &metrics {
                    metrics.in_flight().inc_by(i64::try_from(pulled.len()).unwrap_or(i64::MAX));
                }
                // One task per pull, settling its messages concurrently: a message costs no task
                // and no wake-up of another thread.
                let mut settling = Vec::with_capacity(pulled.len());
                for Pulled { delivery, slot } in pulled {
                    let (previous, done) = if ordered {
                        let (done, next_turn) = oneshot::channel();
                        let previous = lanes.insert(delivery.lane().to_owned(), next_turn);
                        (previous, Some(done))
                    } else {
                        (None, None)
                    };
                    settling.push((delivery, slot, previous, done));
                }
                let shared = shared.clone();
                tasks.spawn(async move {
                    let mut running: FuturesUnordered<_> = settling
                        .into_iter()
                        .map(|(delivery, slot, previous, done)| {
                            let shared = &shared;
                            async move {
                                settle(&delivery, shared, previous).await;
                                if let Some(done) = done {
                                    let _ = done.send(());
                                }
                                if let Some(metrics) = &shared.metrics {
                                    metrics.in_flight().dec();
                                }
                                drop(slot);
                            }
                        })
                        .collect();
                    while running.next().await.is_some() {}
                });
            }
            () = &mut shutdown, if !stopping => {
                stopping = true;
                let _ = stop.send(true);
            }
            _ = ticker.tick(), if idle_exit.is_some() && !stopping => {
                let idle = idle_exit.unwrap_or(Duration::MAX);
                // The source holds free slots while it pulls: idle is no message task and nothing
                // new. Then the broker must have nothing left for this durable either: messages
                // another process took and never settled (it crashed) come back after their
                // acknowledgement wait, and are this consumer's to handle.
                if tasks.is_empty()
                    && last_arrival.elapsed() >= idle
                    && Instant::now() >= next_idle_check
                {
                    match broker.lag().await {
                        Ok(Lag { pending: 0, ack_pending: 0 }) => {
                            stopping = true;
                            let _ = stop.send(true);
                        }
                        Ok(lag) => log::debug!(
                            "idle, but {} pending and {} unsettled on the broker: waiting for them",
                            lag.pending, lag.ack_pending
                        ),
                        Err(e) => log::debug!("idle, and the backlog cannot be read ({e}): waiting"),
                    }
                    next_idle_check = Instant::now() + IDLE_RECHECK;
                }
            }
            _ = refresh.tick(), if metrics.is_some() => {
                health.connected(broker.connected());
                if let Some(metrics) = &metrics {
                    if let Ok(lag) = broker.lag().await {
                        metrics.backlog(lag);
                    }
                    metrics.health(health.check().is_ok());
                }
            }
            Some(_) = tasks.join_next(), if !tasks.is_empty() => {}
        }
    }
    // The source stopped (asked to, or failed): finish what is held, within the shutdown timeout; then
    // hand back what is still held.
    let finished = tokio::time::timeout(shutdown_timeout, async {
        while tasks.join_next().await.is_some() {}
    })
    .await;
    if finished.is_err() {
        let _ = hand_back.send(true);
        while tasks.join_next().await.is_some() {}
    }
    health.stopped();
    let pulled = (&mut pulling.0).await.unwrap_or_else(|panic| {
        Err(TransportError::new(
            super::transport::TransportErrorKind::Rejected,
            format!("the pulling task failed: {panic}"),
        ))
    });
    shared.sink.flush().await;
    if let Some(metrics) = &metrics {
        if let Ok(lag) = broker.lag().await {
            metrics.backlog(lag);
        }
        metrics.health(false);
    }
    pulled.map(|()| counters.snapshot())
}

/// A task aborted when its handle is dropped.
struct AbortOnDrop<T>(tokio::task::JoinHandle<T>);

impl<T> Drop for AbortOnDrop<T> {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// Settles one delivery, keeping its broker timer running meanwhile; with `previous`, only once the
/// message before it on its subject is settled. When the stop's time runs out before its outcome is
/// decided, it is handed back to the broker instead.
async fn settle<D: Delivery, K: Sink>(
    delivery: &D,
    shared: &Shared<K>,
    previous: Option<oneshot::Receiver<()>>,
) {
    let decided = std::sync::atomic::AtomicBool::new(false);
    let work = async {
        if let Some(previous) = previous {
            // An error means that task is gone: its turn is over too.
            let _ = previous.await;
        }
        process(delivery, shared, &decided).await;
    };
    tokio::pin!(work);
    // Most messages are settled at their first poll: those never make a timer.
    let first = std::future::poll_fn(|cx| std::task::Poll::Ready(work.as_mut().poll(cx))).await;
    if first.is_ready() {
        return;
    }
    let period = (shared.config.ack_wait / 3).max(Duration::from_millis(100));
    let mut hand_back = shared.hand_back.clone();
    let mut handing_back = *hand_back.borrow();
    loop {
        tokio::select! {
            biased;
            () = &mut work => return,
            changed = hand_back.changed(), if !handing_back => {
                handing_back = changed.is_err() || *hand_back.borrow();
                if handing_back && !decided.load(std::sync::atomic::Ordering::Acquire) {
                    // Its handler is abandoned mid-way: the message is delivered again, at once.
                    let info = delivery.info();
                    let base = Base {
                        id: delivery.headers().get("ce-id"),
                        event_type: delivery.headers().get("ce-type"),
                        version: delivery.headers().get("ce-dataversion"),
                        subject: delivery.subject(),
                        sequence: info.sequence,
                        attempt: info.attempt,
                    };
                    shared.report(&base, Outcome::HandedBack, None);
                    if let Err(e) = delivery.retry_after(Duration::ZERO).await {
                        log::debug!("sequence {}: not handed back ({e}); delivered again after the acknowledgement wait", info.sequence);
                    }
                    return;
                }
            }
            () = tokio::time::sleep(period) => {
                if let Err(e) = delivery.keep_alive().await {
                    log::debug!("keep-alive of sequence {} not sent: {e}", delivery.info().sequence);
                }
            }
        }
    }
}

/// What a report of one delivery says before its outcome, borrowed: a report is made (owned, as
/// [`Settled`]) only when someone observes the consumer.
#[derive(Clone, Copy)]
struct Base<'a> {
    id: Option<&'a str>,
    event_type: Option<&'a str>,
    version: Option<&'a str>,
    subject: &'a str,
    sequence: u64,
    attempt: u64,
}

impl Base<'_> {
    fn settled(&self, outcome: Outcome, cause: Option<DeadLetterCause>) -> Settled {
        Settled {
            id: self.id.map(str::to_owned),
            event_type: self.event_type.map(str::to_owned),
            version: self.version.map(str::to_owned),
            subject: self.subject.to_owned(),
            sequence: self.sequence,
            attempt: self.attempt,
            outcome,
            cause,
        }
    }
}

/// Decodes, hands to a handler and settles one delivery.
async fn process<D: Delivery, K: Sink>(
    delivery: &D,
    shared: &Shared<K>,
    decided: &std::sync::atomic::AtomicBool,
) {
    let info = delivery.info();
    let config = &shared.config;
    let mut base = Base {
        id: None,
        event_type: None,
        version: None,
        subject: delivery.subject(),
        sequence: info.sequence,
        attempt: info.attempt,
    };
    // Binary or structured mode: the attributes, and where the payload lies in the body.
    let (incoming, data) = match delivery.event() {
        Ok(read) => read,
        Err(error) => {
            let cause = DeadLetterCause::of_event(error);
            return shared.dead_letter(delivery, cause, &base, decided).await;
        }
    };
    base.id = Some(&incoming.id);
    base.event_type = Some(&incoming.event_type);
    base.version = Some(&incoming.version);
    if info.attempt > config.max_deliver {
        let cause = DeadLetterCause::new(
            "not_settled",
            format!(
                "delivered {} times (max_deliver is {}) without being settled: the consumer stopped while it was being handled",
                info.attempt, config.max_deliver
            ),
        );
        return shared.dead_letter(delivery, cause, &base, decided).await;
    }
    // Shared by every try: a handler's context costs a few reference counts.
    let envelope = Arc::new(Envelope {
        body: delivery.payload().clone(),
        metadata: std::sync::OnceLock::new(),
    });
    let headers = delivery.headers().clone();
    let subject: Arc<str> = Arc::from(delivery.subject());
    let mut attempt = info.attempt;
    loop {
        base.attempt = attempt;
        // The metadata is the context's; a decoded event carries it only to the fallback.
        let decoded = shared.decoder.decode_parts(
            &incoming.event_type,
            &incoming.version,
            &delivery.payload()[data.clone()],
            crate::events::Metadata::new(),
        );
        let context = Context {
            id: incoming.id.clone(),
            subject: subject.clone(),
            sequence: info.sequence,
            attempt,
            headers: headers.clone(),
            envelope: envelope.clone(),
        };
        let future: HandlerFuture = match decoded {
            Err(error) => {
                return shared
                    .dead_letter(delivery, DeadLetterCause::of_event(&error), &base, decided)
                    .await;
            }
            Ok(Decoded::Unknown(mut raw)) => {
                let unknown = unknown_error(&raw.event_type, &raw.version, raw.reason());
                match shared.handlers.unknown_policy() {
                    UnknownPolicy::Skip => {
                        let cause = Some(DeadLetterCause::of_event(&unknown));
                        return shared
                            .ack(delivery, &base, Outcome::Unknown, cause, decided)
                            .await;
                    }
                    UnknownPolicy::DeadLetter => {
                        return shared
                            .dead_letter(
                                delivery,
                                DeadLetterCause::of_event(&unknown),
                                &base,
                                decided,
                            )
                            .await;
                    }
                    UnknownPolicy::Fallback => {
                        raw.metadata = context.metadata().clone();
                        match shared
                            .handlers
                            .dispatch_unknown(Decoded::Unknown(raw), context)
                        {
                            Some(future) => future,
                            None => {
                                let cause = Some(DeadLetterCause::of_event(&unknown));
                                return shared
                                    .ack(delivery, &base, Outcome::Unknown, cause, decided)
                                    .await;
                            }
                        }
                    }
                }
            }
            Ok(Decoded::Known(known)) => match shared.handlers.dispatch(known, context) {
                Some(future) => future,
                None => {
                    return shared
                        .ack(delivery, &base, Outcome::Skipped, None, decided)
                        .await;
                }
            },
        };
        let span = tracing::info_span!(
            "process",
            otel.name = %format_args!("process {}", delivery.subject()),
            otel.kind = "consumer",
            messaging.system = shared.system,
            messaging.operation.type = "process",
            messaging.destination.name = delivery.subject(),
            messaging.consumer.group.name = config.durable.as_str(),
            messaging.message.id = incoming.id.as_str(),
            cloudevents.event_type = incoming.event_type.as_str(),
        );
        trace::continue_from(delivery.headers(), &span);
        let started = shared.metrics.as_ref().map(|_| Instant::now());
        let result = AssertUnwindSafe(tracing::Instrument::instrument(future, span))
            .catch_unwind()
            .await
            .unwrap_or_else(|panic| {
                let what = panic
                    .downcast_ref::<&str>()
                    .map(|s| (*s).to_owned())
                    .or_else(|| panic.downcast_ref::<String>().cloned())
                    .unwrap_or_default();
                Err(HandlerError::retry(format!("the handler panicked: {what}")))
            });
        if let (Some(metrics), Some(started)) = (&shared.metrics, started) {
            metrics.handler_took(event_type_label(base.event_type), started.elapsed());
        }
        let error = match result {
            Ok(()) => {
                return shared
                    .ack(delivery, &base, Outcome::Handled, None, decided)
                    .await;
            }
            Err(error) => error,
        };
        if error.is_permanent() {
            let cause = DeadLetterCause::new("handler_rejected", error.message());
            return shared.dead_letter(delivery, cause, &base, decided).await;
        }
        if attempt >= config.max_deliver {
            let cause = DeadLetterCause::new(
                "handler_failed",
                format!(
                    "the handler failed on each of {attempt} deliveries (max_deliver); the last time: {error}"
                ),
            );
            return shared.dead_letter(delivery, cause, &base, decided).await;
        }
        let delay = config.retry_delay(attempt);
        let cause = Some(DeadLetterCause::new("handler_failed", error.message()));
        if config.ordering != Ordering::PerSubject {
            decided.store(true, std::sync::atomic::Ordering::Release);
        }
        shared.report(&base, Outcome::Retried, cause);
        if config.ordering == Ordering::PerSubject {
            // In place, holding back the messages behind it on its subject.
            tokio::time::sleep(delay).await;
            attempt += 1;
            continue;
        }
        if let Err(e) = delivery.retry_after(delay).await {
            log::warn!(
                "sequence {}: the retry was not sent ({e}); the broker will deliver it again after its wait",
                info.sequence
            );
        }
        return;
    }
}

/// The error a rejecting decoder would give for an unknown type or version.
fn unknown_error(event_type: &str, version: &str, reason: Unknown) -> EventError {
    let error = match reason {
        Unknown::Version(known) => EventError::new(
            ErrorKind::UnknownVersion,
            "ce-dataversion",
            format!(
                "unknown version `{version}` of event type `{event_type}` (known: {})",
                known.versions().join(", ")
            ),
        ),
        Unknown::EventType => EventError::new(
            ErrorKind::UnknownEventType,
            "ce-type",
            format!("unknown event type `{event_type}`"),
        ),
    };
    error.of(Some(event_type), Some(version))
}

impl<K: Sink> Shared<K> {
    fn report(&self, base: &Base<'_>, outcome: Outcome, cause: Option<DeadLetterCause>) {
        self.counters.count(outcome);
        if let Some(metrics) = &self.metrics {
            let kind = cause.as_ref().map(|f| f.kind.as_str());
            metrics.settled(event_type_label(base.event_type), outcome, kind);
        }
        if let Some(observer) = &self.observer {
            observer(&base.settled(outcome, cause));
        }
    }

    /// Reports, then acknowledges: a process stopped in between reports it again on redelivery, so
    /// that every outcome is reported at least once.
    async fn ack<D: Delivery>(
        &self,
        delivery: &D,
        base: &Base<'_>,
        outcome: Outcome,
        cause: Option<DeadLetterCause>,
        decided: &std::sync::atomic::AtomicBool,
    ) {
        decided.store(true, std::sync::atomic::Ordering::Release);
        self.report(base, outcome, cause);
        if let Err(e) = delivery.ack().await {
            log::warn!(
                "sequence {}: the acknowledgement was not sent ({e}); the broker will deliver it again",
                base.sequence
            );
        }
    }

    /// Stores the dead letter, then terminates the original; when the dead letter cannot be stored, the
    /// original is delivered again later instead (never terminated without its dead letter).
    async fn dead_letter<D: Delivery>(
        &self,
        delivery: &D,
        cause: DeadLetterCause,
        base: &Base<'_>,
        decided: &std::sync::atomic::AtomicBool,
    ) {
        let message = dead_letter_of(
            delivery,
            &cause,
            &self.config.durable,
            &self.dead_letter_subject,
        );
        let retry = PublishRetry {
            deadline: self.config.ack_wait.max(Duration::from_secs(5)),
            ..PublishRetry::default()
        };
        match send_with_retry(&self.sink, message, retry).await {
            Ok(_) => {
                decided.store(true, std::sync::atomic::Ordering::Release);
                let reason = cause.summary();
                self.report(base, Outcome::DeadLettered, Some(cause));
                if let Err(e) = delivery.terminate(&reason).await {
                    log::warn!(
                        "sequence {}: dead-lettered, but the termination was not sent ({e}); it will be dead-lettered again (once: the dead letter is deduplicated)",
                        base.sequence
                    );
                }
            }
            Err(error) => {
                let delay = self.config.retry_delay(base.attempt);
                let cause = DeadLetterCause {
                    kind: "dead_letter_failed".to_owned(),
                    path: cause.path,
                    message: format!(
                        "the dead letter was not stored on `{}` ({error}); delivered again later. Why it was to be dead-lettered: {}: {}",
                        self.dead_letter_subject, cause.kind, cause.message
                    ),
                };
                decided.store(true, std::sync::atomic::Ordering::Release);
                self.report(base, Outcome::Retried, Some(cause));
                let _ = delivery.retry_after(delay).await;
            }
        }
    }
}
