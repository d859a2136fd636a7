//! The in-memory broker as a team tests its handlers with it: on a paused clock, a retry due in
//! 30 s and one due in 5 min come at exactly those times and at once in real time; a message its
//! consumer stopped handling comes back exactly one acknowledgement wait later, its delivery counted;
//! the same handlers on the same `Broker` as on NATS and Kafka. (Every promise the three brokers share
//! is held by the conformance suite, `cli/tests/conformance.rs`.)
#![cfg(feature = "bus")]

use energy_api::Event;
use energy_api::events::{AgreementRevoked, AgreementRevokedV2};
use energy_runtime::bus::{
    Broker, ConsumerConfig, HandlerError, Handlers, MemoryBus, Outcome, Settled,
};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::time::Instant;

fn revoked(agreement_id: u32) -> Event {
    let payload = format!(r#"{{"agreement_id":{agreement_id},"account_number":"A-1B2C3D4E"}}"#);
    Event::decode("agreement.revoked", "v2", payload.as_bytes()).expect("a valid event")
}

#[tokio::test(start_paused = true)]
async fn retries_come_at_their_due_times_at_once_on_a_paused_clock() {
    let bus = MemoryBus::new();
    bus.publisher()
        .publish(&revoked(7))
        .await
        .expect("published");
    let calls: Arc<Mutex<Vec<(u64, Instant)>>> = Arc::default();
    let seen = calls.clone();
    let mut handlers = Handlers::new();
    handlers.on_version(move |revoked: AgreementRevokedV2, context| {
        let seen = seen.clone();
        async move {
            assert_eq!(revoked.agreement_id, 7);
            let mut seen = seen.lock().unwrap();
            seen.push((context.attempt, Instant::now()));
            if seen.len() < 3 {
                return Err(HandlerError::retry("the ledger is not reachable"));
            }
            Ok(())
        }
    });
    let config = ConsumerConfig::durable("billing")
        .retry_delays([Duration::from_secs(30), Duration::from_secs(300)])
        .idle_exit(Duration::from_secs(1));
    let real = std::time::Instant::now();
    let stats = bus
        .consumer(config)
        .await
        .expect("a consumer")
        .run(handlers, std::future::pending())
        .await
        .expect("runs");
    assert!(
        real.elapsed() < Duration::from_secs(5),
        "{:?} of real time",
        real.elapsed()
    );
    assert_eq!((stats.retried, stats.handled), (2, 1), "{stats:?}");
    let calls = calls.lock().unwrap();
    let first = calls[0].1;
    let times: Vec<(u64, Duration)> = calls.iter().map(|(a, at)| (*a, *at - first)).collect();
    assert_eq!(
        times,
        [
            (1, Duration::ZERO),
            (2, Duration::from_secs(30)),
            (3, Duration::from_secs(330))
        ]
    );
}

#[tokio::test(start_paused = true)]
async fn a_message_left_unsettled_comes_back_one_acknowledgement_wait_later() {
    let bus = MemoryBus::new();
    bus.publisher()
        .publish(&revoked(8))
        .await
        .expect("published");
    let ack_wait = Duration::from_secs(30);
    let config = ConsumerConfig::durable("billing").ack_wait(ack_wait);
    let taken = Arc::new(tokio::sync::Notify::new());
    let told = taken.clone();
    let mut stuck = Handlers::new();
    stuck.on(move |_: AgreementRevoked, _| {
        told.notify_one();
        std::future::pending()
    });
    let first = bus.consumer(config.clone()).await.expect("a consumer");
    let running = tokio::spawn(first.run(stuck, std::future::pending()));
    taken.notified().await;
    let stopped_at = Instant::now();
    // Stopped mid-handling (its process gone): nothing settled.
    running.abort();
    let settled: Arc<Mutex<Vec<(Settled, Instant)>>> = Arc::default();
    let seen = settled.clone();
    let mut handlers = Handlers::new();
    handlers.on(|_: AgreementRevoked, _| async { Ok(()) });
    let stats = bus
        .consumer(config.idle_exit(Duration::from_secs(1)))
        .await
        .expect("the same durable")
        .observe(move |s| seen.lock().unwrap().push((s.clone(), Instant::now())))
        .run(handlers, std::future::pending())
        .await
        .expect("runs");
    assert_eq!(stats.handled, 1, "handled before its idle exit: {stats:?}");
    let settled = settled.lock().unwrap();
    let (handled, at) = &settled[0];
    assert_eq!((handled.outcome, handled.attempt), (Outcome::Handled, 2));
    assert_eq!(*at - stopped_at, ack_wait);
}

#[tokio::test]
async fn the_same_broker_trait_serves_handlers_as_on_nats_and_kafka() {
    let bus: Box<dyn Broker> = Box::new(MemoryBus::new());
    bus.publisher()
        .publish(&revoked(9))
        .await
        .expect("published");
    let mut handlers = Handlers::new();
    handlers.on(|_: AgreementRevoked, _| async { Err(HandlerError::reject("cancelled")) });
    let config = ConsumerConfig::durable("crm").idle_exit(Duration::from_millis(100));
    let consumer = bus.consumer(config).await.expect("a consumer");
    assert_eq!(consumer.system(), "memory");
    let stats = consumer
        .run(handlers, std::future::pending())
        .await
        .expect("runs");
    assert_eq!(stats.dead_lettered, 1);
    let letters = bus.dead_letters(None).await.expect("listed");
    assert_eq!(letters[0].cause.kind, "handler_rejected");
    assert_eq!(letters[0].dead_letter_subject, "energy_dead_letters.crm");
}
