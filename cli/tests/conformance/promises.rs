//! The promises every broker keeps, each a function of a [`Plugged`] broker: what a consumer's
//! handlers, settlements, retries, dead letters and captures look like from the library, whichever
//! broker carries them. Where a broker cannot keep a promise, the promise checks what the broker says
//! it does instead ([`Plugged::cannot`]).

use super::plug::{Kind, Plugged, Promise, draft, handled_ids, missing, publish_numbered};
use energy_api::Event;
use energy_runtime::bus::content::ContentMode;
use energy_runtime::bus::lines::{draft_from_line, line_of};
use energy_runtime::bus::transport::{Outgoing, Sink};
use energy_runtime::bus::{
    Broker, CaptureRange, Captured, ConsumerConfig, HandlerError, Handlers, Headers, Ordering,
    Outcome, Start, UnknownPolicy,
};
use energy_runtime::events::Decoded;
use energy_testkit::golden_cases;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering as Atomic};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Published and consumed back: the golden payloads of many versions decode to the values
/// `Event::decode` gives for the same bytes, on their subjects, with their ids.
pub(crate) fn events_go_round_and_decode_to_equal_values(p: &mut Plugged) {
    // Every fifth golden case: each catalogue section, many versions, every shape of payload.
    let cases: Vec<_> = golden_cases().into_iter().step_by(5).collect();
    p.block(120, async {
        let publisher = p.bus.publisher();
        let mut expected = HashMap::new();
        for (i, (event_type, version, case, payload)) in cases.iter().enumerate() {
            let id = format!("golden-{i}");
            let mut one = draft(event_type, payload, &[("id", &id)]);
            one.version = version.clone();
            let receipt = publisher
                .publish_draft(one)
                .await
                .unwrap_or_else(|e| panic!("{event_type} {version} {case}: {e}"));
            assert!(!receipt.duplicate, "{receipt:?}");
            let event = Event::decode(event_type, version, payload.as_bytes()).expect("decodes");
            expected.insert(id, event);
        }
        let received: Arc<Mutex<HashMap<String, (Event, String)>>> = Arc::default();
        let sink = received.clone();
        let mut handlers = Handlers::new();
        handlers.fallback(move |decoded, context| {
            let sink = sink.clone();
            async move {
                let Decoded::Known(known) = decoded else {
                    return Err(HandlerError::reject("expected a known event"));
                };
                let subject = context.subject.to_string();
                sink.lock()
                    .unwrap()
                    .insert(context.id, (*known.event, subject));
                Ok(())
            }
        });
        let (_, stats) = p
            .consume(ConsumerConfig::durable("round-trip"), handlers)
            .await;
        assert_eq!(stats.handled as usize, cases.len(), "{stats:?}");
        assert_eq!(stats.total(), stats.handled, "{stats:?}");
        let received = received.lock().unwrap();
        for (id, event) in &expected {
            let (got, subject) = &received[id];
            assert_eq!(got, event, "{id}");
            let version = event.version();
            let on = p.bus.subjects().event(event.event_type().as_str(), version);
            assert_eq!(subject, &on, "{id}");
        }
    });
}

/// An event handled is acknowledged: the same durable consumer, opened again, gets nothing more,
/// and nothing is left for it on the broker.
pub(crate) fn a_handled_event_is_acknowledged_and_not_delivered_again(p: &mut Plugged) {
    p.block(90, async {
        publish_numbered(p.bus.as_ref(), 0..30).await;
        let config = || ConsumerConfig::durable("acknowledging");
        let (_, first) = p.consume(config(), counting()).await;
        assert_eq!(first.handled, 30, "{first:?}");
        let (settled, again) = p.consume(config(), counting()).await;
        assert_eq!(again.total(), 0, "delivered again: {settled:#?}");
        let consumer = p.bus.consumer(config().ack_wait(p.ack_wait())).await;
        let lag = consumer.expect("opened again").lag_probe().lag().await;
        assert_eq!(lag.map(|l| (l.pending, l.ack_pending)).ok(), Some((0, 0)));
    });
}

/// A handler that fails is called again once its retry delay is past, no sooner, each delivery
/// counted (`attempt` 1, 2, 3); the third time it succeeds.
pub(crate) fn a_retry_comes_after_its_delay_with_its_delivery_counted(p: &mut Plugged) {
    p.block(90, async {
        let publisher = p.bus.publisher();
        let payload = r#"{"agreement_id":7,"account_number":"A-1B2C3D4E"}"#;
        publisher
            .publish_draft(draft("agreement.revoked", payload, &[("id", "flaky-1")]))
            .await
            .expect("published");
        let calls: Arc<Mutex<Vec<(u64, Instant)>>> = Arc::default();
        let seen = calls.clone();
        let mut handlers = Handlers::new();
        handlers.fallback(move |_, context| {
            let seen = seen.clone();
            async move {
                let mut seen = seen.lock().unwrap();
                seen.push((context.attempt, Instant::now()));
                if seen.len() < 3 {
                    return Err(HandlerError::retry("the ledger is not reachable"));
                }
                Ok(())
            }
        });
        let delay = Duration::from_millis(1500);
        let config = ConsumerConfig::durable("retrying").retry_delays([delay]);
        let (settled, stats) = p.consume(config, handlers).await;
        let outcomes: Vec<(u64, Outcome)> =
            settled.iter().map(|s| (s.attempt, s.outcome)).collect();
        assert_eq!(
            outcomes,
            [
                (1, Outcome::Retried),
                (2, Outcome::Retried),
                (3, Outcome::Handled)
            ],
            "{stats:?}"
        );
        let calls = calls.lock().unwrap();
        assert_eq!(calls.iter().map(|c| c.0).collect::<Vec<_>>(), [1, 2, 3]);
        for pair in calls.windows(2) {
            let waited = pair[1].1 - pair[0].1;
            assert!(
                waited >= delay,
                "retried after {waited:?}, before its {delay:?}"
            );
        }
    });
}

/// A handler that always fails is called `max_deliver` times, no more, and the event is then
/// dead-lettered as `handler_failed` with the last error.
pub(crate) fn a_handler_that_always_fails_is_dead_lettered_after_max_deliver(p: &mut Plugged) {
    p.block(90, async {
        let payload = r#"{"id":7}"#;
        p.bus
            .publisher()
            .publish_draft(draft("business.created", payload, &[("id", "doomed-1")]))
            .await
            .expect("published");
        let calls = Arc::new(AtomicU64::new(0));
        let counted = calls.clone();
        let mut handlers = Handlers::new();
        handlers.fallback(move |_, _| {
            counted.fetch_add(1, Atomic::Relaxed);
            async { Err(HandlerError::retry("the warehouse is down")) }
        });
        let config = ConsumerConfig::durable("doomed")
            .max_deliver(3)
            .retry_delays([Duration::from_millis(200)]);
        let (_, stats) = p.consume(config, handlers).await;
        assert_eq!(calls.load(Atomic::Relaxed), 3, "{stats:?}");
        assert_eq!((stats.retried, stats.dead_lettered), (2, 1), "{stats:?}");
        let letters = p.bus.dead_letters(None).await.expect("dead letters");
        assert_eq!(letters.len(), 1, "{letters:#?}");
        assert_eq!(letters[0].cause.kind, "handler_failed");
        assert!(
            letters[0].cause.message.contains("the warehouse is down"),
            "{:?}",
            letters[0].cause
        );
        assert_eq!(letters[0].deliveries, 3);
    });
}

/// A rejected event's dead letter is the original body byte for byte and its headers, with why,
/// where from and who gave up; published again, it is handled and off the list.
pub(crate) fn a_dead_letter_keeps_the_original_byte_for_byte_and_goes_round_again(p: &mut Plugged) {
    p.block(120, async {
        // Spaces and an order of its own: what was published is what is kept.
        let payload = r#"{ "account_number" : "A-9", "statement_id" : 41 }"#;
        let pairs = [
            ("id", "rejected-1"),
            ("source", "/billing-engine"),
            ("subject", "A-9"),
            (
                "traceparent",
                "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
            ),
        ];
        p.bus
            .publisher()
            .publish_draft(draft("billing.issued_bill", payload, &pairs))
            .await
            .expect("published");
        let original: Arc<Mutex<Option<Headers>>> = Arc::default();
        let kept = original.clone();
        let mut handlers = Handlers::new();
        handlers.fallback(move |_, context| {
            *kept.lock().unwrap() = Some((*context.headers).clone());
            async { Err(HandlerError::reject("statement 41 was cancelled")) }
        });
        let (_, stats) = p
            .consume(ConsumerConfig::durable("rejecting"), handlers)
            .await;
        assert_eq!(stats.dead_lettered, 1, "{stats:?}");
        let letters = p.bus.dead_letters(None).await.expect("dead letters");
        assert_eq!(letters.len(), 1, "{letters:#?}");
        let letter = &letters[0];
        assert_eq!(&letter.payload[..], payload.as_bytes(), "byte for byte");
        let delivered = original
            .lock()
            .unwrap()
            .clone()
            .expect("the handler saw it");
        for (name, value) in delivered.iter() {
            // The broker's own deduplication header is the transport's, not the event's.
            if name.eq_ignore_ascii_case("Nats-Msg-Id") {
                continue;
            }
            assert_eq!(letter.headers.get(name), Some(value), "header {name}");
        }
        assert_eq!(
            (letter.cause.kind.as_str(), letter.cause.message.as_str()),
            ("handler_rejected", "statement 41 was cancelled")
        );
        assert_eq!(
            (letter.consumer.as_str(), letter.deliveries),
            ("rejecting", 1)
        );
        let on = p.bus.subjects().event("billing.issued_bill", "v1");
        assert_eq!(letter.subject, on);
        assert_eq!(
            letter.dead_letter_subject,
            p.bus.subjects().dead_letters_of("rejecting")
        );
        assert_eq!(letter.event().2.as_deref(), Some("rejected-1"));

        p.bus
            .republish_dead_letter(letter.sequence)
            .await
            .expect("published again");
        assert!(p.bus.dead_letters(None).await.expect("listed").is_empty());
        let (settled, stats) = p
            .consume(ConsumerConfig::durable("second-chance"), counting())
            .await;
        assert_eq!(stats.handled, 2, "the original and its copy: {settled:#?}");
        assert!(
            settled
                .iter()
                .all(|s| s.id.as_deref() == Some("rejected-1"))
        );
    });
}

/// With per-subject order (`--ordered`), one entity's events of one type are handled in the order
/// they were published, a failed one tried again in place, holding back those behind it.
pub(crate) fn order_holds_per_key_through_a_retry(p: &mut Plugged) {
    p.block(120, async {
        let publisher = p.bus.publisher();
        for i in 0..20 {
            let id = format!("ordered-{i}");
            let payload = format!(r#"{{"id":{i}}}"#);
            publisher
                .publish_draft(draft(
                    "business.created",
                    &payload,
                    &[("id", &id), ("subject", "B-1")],
                ))
                .await
                .expect("published");
        }
        let handled: Arc<Mutex<Vec<String>>> = Arc::default();
        let order = handled.clone();
        let mut handlers = Handlers::new();
        handlers.fallback(move |_, context| {
            let order = order.clone();
            async move {
                if context.id == "ordered-5" && context.attempt == 1 {
                    return Err(HandlerError::retry("not yet"));
                }
                order.lock().unwrap().push(context.id.clone());
                Ok(())
            }
        });
        let config = ConsumerConfig::durable("in-order")
            .ordering(Ordering::PerSubject)
            .concurrency(8)
            .retry_delays([Duration::from_millis(300)]);
        let (_, stats) = p.consume(config, handlers).await;
        assert_eq!((stats.handled, stats.retried), (20, 1), "{stats:?}");
        let expected: Vec<String> = (0..20).map(|i| format!("ordered-{i}")).collect();
        assert_eq!(*handled.lock().unwrap(), expected);
    });
}

/// Event types and versions the catalogue does not know (a newer producer's) are, as the consumer
/// chooses, acknowledged and counted, dead-lettered at their header, or handed to the fallback
/// byte for byte.
pub(crate) fn unknown_types_and_versions_follow_the_consumers_policy(p: &mut Plugged) {
    p.block(120, async {
        let sink = p.bus.sink();
        let on = p.bus.subjects().event("agreement.revoked", "v9");
        for (id, event_type, version, body) in [
            (
                "u-1",
                "agreement.revoked",
                "v9",
                r#"{"agreement_id":7,"revoked_by":"ops"}"#,
            ),
            (
                "u-2",
                "agreement.reinstated_by_robot",
                "v1",
                r#"{"agreement_id":8}"#,
            ),
        ] {
            let mut headers = Headers::new();
            for (name, value) in [
                ("ce-specversion", "1.0"),
                ("ce-id", id),
                ("ce-source", "/newer-producer"),
                ("ce-type", event_type),
                ("ce-dataversion", version),
                ("ce-datacontenttype", "application/json"),
            ] {
                headers.append(name, value);
            }
            let message = Outgoing {
                subject: on.clone(),
                headers,
                payload: body.as_bytes().to_vec().into(),
                id: id.to_owned(),
            };
            sink.publish(&message).await.expect("stored");
        }
        let (settled, stats) = p
            .consume(ConsumerConfig::durable("tolerant"), Handlers::new())
            .await;
        assert_eq!(stats.unknown, 2, "{settled:#?}");
        let mut kinds: Vec<&str> = settled
            .iter()
            .filter_map(|s| s.cause.as_ref().map(|c| c.kind.as_str()))
            .collect();
        kinds.sort_unstable();
        assert_eq!(kinds, ["unknown_event_type", "unknown_version"]);

        let mut handlers = Handlers::new();
        handlers.unknown(UnknownPolicy::DeadLetter);
        let (_, stats) = p
            .consume(ConsumerConfig::durable("exacting"), handlers)
            .await;
        assert_eq!(stats.dead_lettered, 2, "{stats:?}");
        let mut places: Vec<(String, String)> = p
            .bus
            .dead_letters(None)
            .await
            .expect("dead letters")
            .into_iter()
            .map(|l| (l.cause.kind, l.cause.path))
            .collect();
        places.sort();
        assert_eq!(
            places,
            [
                ("unknown_event_type".to_owned(), "ce-type".to_owned()),
                ("unknown_version".to_owned(), "ce-dataversion".to_owned())
            ]
        );

        let forwarded: Arc<Mutex<Vec<String>>> = Arc::default();
        let kept = forwarded.clone();
        let mut handlers = Handlers::new();
        handlers
            .unknown(UnknownPolicy::Fallback)
            .fallback(move |decoded, _| {
                if let Decoded::Unknown(raw) = decoded {
                    kept.lock().unwrap().push(raw.payload.get().to_owned());
                }
                async { Ok(()) }
            });
        let (_, stats) = p
            .consume(ConsumerConfig::durable("forwarding"), handlers)
            .await;
        assert_eq!(stats.handled, 2, "{stats:?}");
        let mut forwarded = forwarded.lock().unwrap().clone();
        forwarded.sort();
        assert_eq!(
            forwarded,
            [
                r#"{"agreement_id":7,"revoked_by":"ops"}"#,
                r#"{"agreement_id":8}"#
            ],
            "byte for byte"
        );
    });
}

/// An event published in structured mode (one JSON body) is handled as its binary twin is, and
/// captured as the same line.
pub(crate) fn structured_mode_reads_as_binary_mode(p: &mut Plugged) {
    p.block(90, async {
        let payload = r#"{"agreement_id":7,"account_number":"A-1B2C3D4E"}"#;
        let fields = |id: &'static str| {
            [
                ("id", id),
                ("source", "/crm"),
                ("time", "2024-03-01T09:30:00Z"),
                ("subject", "A-1B2C3D4E"),
            ]
        };
        let binary = p.bus.publisher();
        let structured = p.bus.publisher().with_mode(ContentMode::Structured);
        structured
            .publish_draft(draft("agreement.revoked", payload, &fields("twin")))
            .await
            .expect("published structured");
        let (settled, stats) = p
            .consume(ConsumerConfig::durable("structured"), counting())
            .await;
        assert_eq!(stats.handled, 1, "{settled:#?}");
        assert_eq!(settled[0].id.as_deref(), Some("twin"));
        binary
            .publish_draft(draft("agreement.revoked", payload, &fields("binary")))
            .await
            .expect("published binary");
        let mut lines = Vec::new();
        let everything = CaptureRange {
            filters: Vec::new(),
            start: Start::All,
            follow: false,
            idle_exit: None,
        };
        let mut each = |captured: Captured| {
            lines.push(line_of(&captured.headers, &captured.payload).0);
            Ok(())
        };
        p.bus
            .capture(&everything, &mut each, Box::pin(std::future::pending()))
            .await
            .expect("captured");
        assert_eq!(lines.len(), 2, "{lines:#?}");
        let twin = lines.iter().find(|l| l.contains(r#""id":"twin""#));
        let binary = lines.iter().find(|l| l.contains(r#""id":"binary""#));
        let (Some(twin), Some(binary)) = (twin, binary) else {
            panic!("both captured: {lines:#?}");
        };
        assert_eq!(twin.replace(r#""id":"twin""#, r#""id":"binary""#), *binary);
        let again = draft_from_line(twin.as_bytes()).expect("a line of the file format");
        assert_eq!(&again.payload[..], payload.as_bytes());
    });
}

/// A capture reads the events its range selects (a type, from a time), each entity's in order, and
/// consumes nothing: a consumer afterwards still gets them all.
pub(crate) fn a_capture_reads_its_range_and_consumes_nothing(p: &mut Plugged) {
    p.block(120, async {
        let publisher = p.bus.publisher();
        let publish = |i: u64| {
            let id = format!("cap-{i}");
            let payload = format!(r#"{{"agreement_id":{i},"account_number":"A-1"}}"#);
            let one = if i.is_multiple_of(2) {
                draft(
                    "agreement.revoked",
                    &payload,
                    &[("id", &id), ("subject", "A-1")],
                )
            } else {
                draft(
                    "business.created",
                    &format!(r#"{{"id":{i}}}"#),
                    &[("id", &id)],
                )
            };
            let publisher = publisher.clone();
            async move { publisher.publish_draft(one).await.expect("published") }
        };
        for i in 0..10 {
            publish(i).await;
        }
        // Broker times are in milliseconds, and a machine's clocks agree to some: well apart.
        tokio::time::sleep(Duration::from_millis(1500)).await;
        let since = jiff::Timestamp::now();
        tokio::time::sleep(Duration::from_millis(1500)).await;
        for i in 10..16 {
            publish(i).await;
        }
        let revoked = vec![p.bus.subjects().event_type("agreement.revoked")];
        let range = |start: Start| CaptureRange {
            filters: revoked.clone(),
            start,
            follow: false,
            idle_exit: None,
        };
        let all: Vec<String> = (0..16).step_by(2).map(|i| format!("cap-{i}")).collect();
        assert_eq!(captured_ids(p.bus.as_ref(), &range(Start::All)).await, all);
        let late: Vec<String> = (10..16).step_by(2).map(|i| format!("cap-{i}")).collect();
        let since = range(Start::Time(since));
        assert_eq!(captured_ids(p.bus.as_ref(), &since).await, late);
        let (_, stats) = p
            .consume(ConsumerConfig::durable("after"), counting())
            .await;
        assert_eq!(
            stats.handled, 16,
            "nothing consumed by the captures: {stats:?}"
        );
    });
}

/// An event published twice with one id: stored once where the broker deduplicates; where it cannot,
/// stored twice and its consumer told the second is a second sighting (`attempt` 2).
pub(crate) fn the_same_id_published_twice(p: &mut Plugged) {
    p.block(90, async {
        let publisher = p.bus.publisher();
        let once = draft("business.created", r#"{"id":1}"#, &[("id", "twice-1")]);
        let first = publisher.publish_draft(once.clone()).await.expect("stored");
        let second = publisher.publish_draft(once).await.expect("stored");
        let (settled, stats) = p
            .consume(ConsumerConfig::durable("dedup"), counting())
            .await;
        match p.cannot(Promise::SameIdStoredOnce) {
            None => {
                assert!(!first.duplicate && second.duplicate, "{second:?}");
                assert_eq!(first.sequence, second.sequence);
                assert_eq!(stats.handled, 1, "{settled:#?}");
            }
            Some(why) => {
                eprintln!("{:?}: {why}", p.kind);
                assert!(!second.duplicate, "{second:?}");
                let attempts: Vec<u64> = settled.iter().map(|s| s.attempt).collect();
                assert_eq!(attempts, [1, 2], "{settled:#?}");
            }
        }
    });
}

/// A consumer does not stop idle while the broker still holds messages for its durable consumer that
/// another one took and never settled (it stopped mid-handling): it handles them first.
pub(crate) fn idle_exit_waits_for_what_a_stopped_consumer_held(p: &mut Plugged) {
    const EVENTS: u64 = 40;
    p.block(120, async {
        publish_numbered(p.bus.as_ref(), 0..EVENTS).await;
        let taken = Arc::new(AtomicU64::new(0));
        let counted = taken.clone();
        let mut stuck = Handlers::new();
        stuck.fallback(move |_, _| {
            counted.fetch_add(1, Atomic::Relaxed);
            std::future::pending()
        });
        let config = ConsumerConfig::durable("shared-work")
            .ack_wait(p.ack_wait())
            .concurrency(16);
        let first = p.bus.consumer(config.clone()).await.expect("a consumer");
        let running = tokio::spawn(first.run(stuck, std::future::pending()));
        while taken.load(Atomic::Relaxed) < 16 {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        // Stopped mid-handling: nothing it held is settled.
        running.abort();
        let _ = running.await;
        let (settled, stats) = p.consume(config, counting()).await;
        assert_eq!(stats.handled, EVENTS, "{settled:#?}");
        if p.cannot(Promise::CountsDeliveriesAcrossProcesses).is_none() {
            let again = settled.iter().filter(|s| s.attempt > 1).count();
            assert!(
                again >= 16,
                "the stopped one's messages come as second deliveries"
            );
        }
    });
}

/// A consumer killed (SIGKILL) in the middle of a stream, and another started: every event handled,
/// none lost. On a broker no other process reaches, its consumer is dropped mid-stream instead.
pub(crate) fn a_consumer_killed_mid_stream_loses_nothing(p: &mut Plugged) {
    const EVENTS: u64 = 2_000;
    p.block(120, publish_numbered(p.bus.as_ref(), 0..EVENTS));
    let mut handled = Vec::new();
    if let Some(why) = p.cannot(Promise::ReachedFromOtherProcesses) {
        eprintln!("{:?}: {why}", p.kind);
        let ids: Arc<Mutex<Vec<String>>> = Arc::default();
        let config = ConsumerConfig::durable("killed").ack_wait(p.ack_wait());
        let consumer = p.block(60, p.bus.consumer(config)).expect("a consumer");
        let first = p.spawn(consumer.run(recording(ids.clone()), std::future::pending()));
        p.block(60, async {
            while (ids.lock().unwrap().len() as u64) < EVENTS / 3 {
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
            first.abort();
            let _ = first.await;
        });
        let config = ConsumerConfig::durable("killed");
        p.block(120, p.consume(config, recording(ids.clone())));
        handled.extend(ids.lock().unwrap().iter().cloned());
    } else {
        let mut first = p.consumer_process("killed", 30);
        assert!(
            first.wait_for(Duration::from_secs(90), |lines| lines.len() as u64
                >= EVENTS / 3),
            "the first consumer handled {}: {}",
            first.lines().len(),
            first.stderr()
        );
        first.kill();
        let mut second = p.consumer_process("killed", 4);
        assert_eq!(
            second.wait(Duration::from_secs(120)),
            Some(0),
            "{}",
            second.stderr()
        );
        handled.extend(handled_ids(&first.lines()));
        handled.extend(handled_ids(&second.lines()));
    }
    let lost = missing(&handled, EVENTS);
    assert!(
        lost.is_empty(),
        "{} never handled, first {:?}",
        lost.len(),
        &lost[..lost.len().min(10)]
    );
}

/// The broker killed (SIGKILL) and started again on its data in the middle of a stream, where the
/// broker keeps its data: every event handled, none lost; the consumer reconnects by itself.
pub(crate) fn a_broker_restarted_mid_stream_loses_nothing(p: &mut Plugged) {
    const EVENTS: u64 = 2_000;
    if let Some(why) = p.cannot(Promise::OutlivesItsProcess) {
        eprintln!("{:?}: {why}", p.kind);
        assert!(matches!(p.kind, Kind::Memory | Kind::Kafka), "{why}");
        return;
    }
    p.block(120, publish_numbered(p.bus.as_ref(), 0..EVENTS));
    let ids: Arc<Mutex<Vec<String>>> = Arc::default();
    let consumer = p.block(60, async {
        p.bus
            .consumer(
                ConsumerConfig::durable("through-restart")
                    .ack_wait(p.ack_wait())
                    .idle_exit(Duration::from_secs(3)),
            )
            .await
            .expect("a consumer")
    });
    let running = p.spawn(consumer.run(recording(ids.clone()), std::future::pending()));
    p.block(60, async {
        while (ids.lock().unwrap().len() as u64) < EVENTS / 3 {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    });
    p.restart();
    let stats = p
        .block(240, running)
        .expect("the consumer task")
        .expect("the consumer ran");
    let handled = ids.lock().unwrap().clone();
    let lost = missing(&handled, EVENTS);
    assert!(
        lost.is_empty(),
        "{} never handled, first {:?}; {stats:?}",
        lost.len(),
        &lost[..lost.len().min(10)]
    );
}

/// The ids of the events a capture of `range` reads, in order.
async fn captured_ids(bus: &dyn Broker, range: &CaptureRange) -> Vec<String> {
    let mut ids = Vec::new();
    let mut each = |captured: Captured| {
        let (line, _) = line_of(&captured.headers, &captured.payload);
        if let Ok(draft) = draft_from_line(line.as_bytes()) {
            ids.extend(draft.metadata.get_str("id"));
        }
        Ok(())
    };
    let count = bus
        .capture(range, &mut each, Box::pin(std::future::pending()))
        .await
        .expect("captured");
    assert_eq!(count as usize, ids.len());
    ids
}

/// Handlers that handle every event.
fn counting() -> Handlers {
    let mut handlers = Handlers::new();
    handlers.fallback(|_, _| async { Ok(()) });
    handlers
}

/// Handlers that note the id of every event handled.
fn recording(ids: Arc<Mutex<Vec<String>>>) -> Handlers {
    let mut handlers = Handlers::new();
    handlers.fallback(move |_, context| {
        ids.lock().unwrap().push(context.id);
        async { Ok(()) }
    });
    handlers
}
