//! The event bus against a real `nats-server` on 127.0.0.1: publishing every golden payload and reading
//! it back typed, deduplication, poison messages, retries, dead letters, unknown events, per-subject
//! order, and capture and replay byte for byte. Each test starts its own server and is bounded in time.
#![cfg(feature = "bus")]

use energy_api::Event;
use energy_runtime::bus::lines::line_of;
use energy_runtime::bus::{
    Broker, ConsumerConfig, Draft, HandlerError, Handlers, Ordering, Outcome, UnknownPolicy,
};
use energy_runtime::events::{Decoded, Metadata};
use energy_testkit::nats::{NatsServer, cloud_headers, publish_raw};
use energy_testkit::{bounded, golden_cases};
use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};
use std::time::Duration;

#[path = "bus/support.rs"]
mod support;
use support::{assert_headers_match, consume, metadata, ready_bus};

#[test]
fn every_golden_payload_goes_round_the_bus_and_decodes_to_equal_values() {
    let server = NatsServer::start();
    bounded(120, async {
        let bus = ready_bus(&server).await;
        let publisher = bus.publisher();
        let cases = golden_cases();
        assert!(cases.len() >= 288, "{} golden cases", cases.len());
        let mut expected: HashMap<String, Event> = HashMap::new();
        for (i, (event_type, version, case, payload)) in cases.iter().enumerate() {
            let id = format!("golden-{i}");
            let draft = Draft {
                event_type: event_type.clone(),
                version: version.clone(),
                payload: payload.clone().into(),
                metadata: metadata(&[("id", &id)]),
            };
            let receipt = publisher
                .publish_draft(draft)
                .await
                .unwrap_or_else(|e| panic!("{event_type} {version} {case}: {e}"));
            assert!(!receipt.duplicate);
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
                let subject = context.subject.clone();
                // The headers are the ones the documents describe.
                assert_headers_match("CloudEventHeaders", &context.headers);
                sink.lock()
                    .unwrap()
                    .insert(context.id, (*known.event, subject.to_string()));
                Ok(())
            }
        });
        let (_, stats) = consume(&bus, ConsumerConfig::durable("golden"), handlers).await;
        assert_eq!(stats.handled as usize, cases.len(), "{stats:?}");
        assert_eq!(stats.total(), stats.handled, "{stats:?}");
        let received = received.lock().unwrap();
        assert_eq!(received.len(), expected.len());
        for (id, event) in &expected {
            let (got, subject) = &received[id];
            assert_eq!(got, event, "{id}");
            assert_eq!(
                subject,
                &bus.subjects()
                    .event(event.event_type().as_str(), event.version())
            );
        }
    });
}

#[test]
fn the_same_event_published_twice_is_stored_once() {
    let server = NatsServer::start();
    bounded(60, async {
        let bus = ready_bus(&server).await;
        let publisher = bus.publisher();
        let draft = Draft {
            event_type: "agreement.revoked".to_owned(),
            version: "v2".to_owned(),
            payload: br#"{"agreement_id":7,"account_number":"A-1B2C3D4E"}"#
                .to_vec()
                .into(),
            metadata: metadata(&[("id", "evt-once")]),
        };
        let first = publisher.publish_draft(draft.clone()).await.unwrap();
        let second = publisher.publish_draft(draft).await.unwrap();
        assert!(!first.duplicate);
        assert!(second.duplicate, "{second:?}");
        assert_eq!(first.sequence, second.sequence);
        let info = async_nats::jetstream::new(bus.client().clone())
            .get_stream(bus.subjects().events_stream())
            .await
            .unwrap()
            .get_info()
            .await
            .unwrap();
        assert_eq!(info.state.messages, 1);
    });
}

#[test]
fn an_invalid_event_never_reaches_the_bus() {
    let server = NatsServer::start();
    bounded(60, async {
        let bus = ready_bus(&server).await;
        let publisher = bus.publisher();
        for (event_type, version, payload, kind, path) in [
            (
                "agreement.revoked",
                "v2",
                r#"{"agreement_id":"7","account_number":"A-1"}"#,
                "invalid_type",
                "payload.agreement_id",
            ),
            (
                "billing.ledger.entry_posted",
                "v1",
                r#"{"ledger":{"account":{},"number":"L-1"}}"#,
                "missing_field",
                "payload.ledger.account.number",
            ),
            (
                "agreement.revoked",
                "v9",
                r#"{}"#,
                "unknown_version",
                "version",
            ),
            (
                "meter.exploded",
                "v1",
                r#"{}"#,
                "unknown_event_type",
                "event_type",
            ),
            // Cut short: the path of the member being read, as `energy events validate` says.
            (
                "agreement.revoked",
                "v2",
                r#"{"agreement_id":7,"#,
                "malformed_json",
                "payload.agreement_id",
            ),
        ] {
            let draft = Draft {
                event_type: event_type.to_owned(),
                version: version.to_owned(),
                payload: payload.to_owned().into(),
                metadata: Metadata::new(),
            };
            let Err(energy_runtime::bus::PublishError::Invalid(error)) =
                publisher.publish_draft(draft).await
            else {
                panic!("{event_type} {version} {payload} was published");
            };
            assert_eq!(
                (error.kind.as_str(), error.path.as_str()),
                (kind, path),
                "{payload}"
            );
        }
        let info = async_nats::jetstream::new(bus.client().clone())
            .get_stream(bus.subjects().events_stream())
            .await
            .unwrap()
            .get_info()
            .await
            .unwrap();
        assert_eq!(info.state.messages, 0);
    });
}

#[test]
fn poison_messages_are_dead_lettered_with_their_kind_and_path_and_the_consumer_goes_on() {
    let server = NatsServer::start();
    bounded(60, async {
        let bus = ready_bus(&server).await;
        let subject = bus.subjects().event("agreement.revoked", "v2");
        let wrong_type = br#"{"agreement_id":"seven","account_number":"A-1"}"#;
        publish_raw(
            bus.client(),
            &subject,
            &cloud_headers("p-1", "agreement.revoked", "v2"),
            wrong_type,
        )
        .await;
        publish_raw(
            bus.client(),
            &subject,
            &cloud_headers("p-2", "agreement.revoked", "v2"),
            b"{\"agreement_id\": 7,",
        )
        .await;
        publish_raw(
            bus.client(),
            &subject,
            &[("ce-specversion", "1.0"), ("ce-id", "p-3")],
            b"{}",
        )
        .await;
        let ledger = bus.subjects().event("billing.ledger.entry_posted", "v1");
        publish_raw(
            bus.client(),
            &ledger,
            &cloud_headers("p-4", "billing.ledger.entry_posted", "v1"),
            br#"{"ledger":{"account":{},"number":"L-1"}}"#,
        )
        .await;
        publish_raw(
            bus.client(),
            &subject,
            &cloud_headers("p-5", "agreement.revoked", "v2"),
            br#"{"agreement_id":7,"account_number":"A-1"}"#,
        )
        .await;

        let calls = Arc::new(Mutex::new(Vec::new()));
        let seen = calls.clone();
        let mut handlers = Handlers::new();
        handlers.on(
            move |revoked: energy_api::events::AgreementRevoked, context| {
                let seen = seen.clone();
                async move {
                    seen.lock().unwrap().push((context.id, revoked.version()));
                    Ok(())
                }
            },
        );
        let (settled, stats) = consume(&bus, ConsumerConfig::durable("poison"), handlers).await;
        assert_eq!(
            *calls.lock().unwrap(),
            [("p-5".to_owned(), "v2")],
            "only the valid one reaches a handler"
        );
        assert_eq!(
            (stats.handled, stats.dead_lettered, stats.retried),
            (1, 4, 0),
            "{settled:#?}"
        );
        for s in settled
            .iter()
            .filter(|s| s.outcome == Outcome::DeadLettered)
        {
            assert_eq!(
                s.attempt, 1,
                "dead-lettered on the first delivery, before any handler"
            );
        }

        let letters = bus.dead_letters(None).await.unwrap();
        // Stored with the headers the documents describe.
        let stream = async_nats::jetstream::new(bus.client().clone())
            .get_stream(bus.subjects().dead_letter_stream())
            .await
            .unwrap();
        for letter in &letters {
            let raw = stream.get_raw_message(letter.sequence).await.unwrap();
            let headers: energy_runtime::bus::Headers = raw
                .headers
                .iter()
                .flat_map(|(n, vs)| {
                    vs.iter()
                        .map(move |v| (n.to_string(), v.as_str().to_owned()))
                })
                .collect();
            assert_headers_match("DeadLetterHeaders", &headers);
        }
        let by_id: BTreeMap<String, _> = letters
            .iter()
            .map(|l| (l.event().2.unwrap_or_default(), l))
            .collect();
        let expect = [
            (
                "p-1",
                "invalid_type",
                "payload.agreement_id",
                &wrong_type[..],
            ),
            (
                "p-2",
                "malformed_json",
                "payload.agreement_id",
                &b"{\"agreement_id\": 7,"[..],
            ),
            ("p-3", "bad_envelope", "ce-type", &b"{}"[..]),
            (
                "p-4",
                "missing_field",
                "payload.ledger.account.number",
                &br#"{"ledger":{"account":{},"number":"L-1"}}"#[..],
            ),
        ];
        assert_eq!(by_id.len(), expect.len(), "{letters:#?}");
        for (id, kind, path, body) in expect {
            let letter = by_id[id];
            assert_eq!(
                (letter.cause.kind.as_str(), letter.cause.path.as_str()),
                (kind, path),
                "{id}"
            );
            assert_eq!(&letter.payload[..], body, "{id}: the original bytes");
            assert_eq!(letter.consumer, "poison");
            assert_eq!(letter.deliveries, 1);
            assert_eq!(
                letter.dead_letter_subject,
                bus.subjects().dead_letters_of("poison")
            );
            assert!(letter.stream_sequence > 0);
            // The original headers, as they were.
            assert_eq!(
                letter.headers.get("ce-source"),
                (id != "p-3").then_some("/broken-producer")
            );
        }
    });
}

#[test]
fn a_handler_that_fails_twice_is_handled_once_after_two_redeliveries() {
    let server = NatsServer::start();
    bounded(60, async {
        let bus = ready_bus(&server).await;
        bus.publisher()
            .publish_draft(Draft {
                event_type: "billing.final_bill".to_owned(),
                version: "v1".to_owned(),
                payload: br#"{"account_number":"A-1","account_user_emails":[],"statement_id":9}"#
                    .to_vec()
                    .into(),
                metadata: metadata(&[("id", "bill-9")]),
            })
            .await
            .unwrap();
        let attempts = Arc::new(Mutex::new(Vec::new()));
        let seen = attempts.clone();
        let mut handlers = Handlers::new();
        handlers.on(move |_: energy_api::events::BillingFinalBill, context| {
            let seen = seen.clone();
            async move {
                seen.lock().unwrap().push(context.attempt);
                if context.attempt < 3 {
                    return Err(HandlerError::retry("the ledger service is down"));
                }
                Ok(())
            }
        });
        let config = ConsumerConfig::durable("flaky").retry_delays([Duration::from_millis(100)]);
        let (settled, stats) = consume(&bus, config, handlers).await;
        assert_eq!(*attempts.lock().unwrap(), [1, 2, 3]);
        assert_eq!(
            (stats.handled, stats.retried, stats.dead_lettered),
            (1, 2, 0)
        );
        let outcomes: Vec<(Outcome, u64)> =
            settled.iter().map(|s| (s.outcome, s.attempt)).collect();
        assert_eq!(
            outcomes,
            [
                (Outcome::Retried, 1),
                (Outcome::Retried, 2),
                (Outcome::Handled, 3)
            ]
        );
        assert!(bus.dead_letters(None).await.unwrap().is_empty());
    });
}

#[test]
fn a_handler_that_always_fails_is_dead_lettered_after_max_deliver() {
    let server = NatsServer::start();
    bounded(60, async {
        let bus = ready_bus(&server).await;
        bus.publisher()
            .publish_draft(Draft {
                event_type: "billing.final_bill".to_owned(),
                version: "v1".to_owned(),
                payload: br#"{"account_number":"A-1","account_user_emails":[],"statement_id":9}"#
                    .to_vec()
                    .into(),
                metadata: metadata(&[("id", "bill-9")]),
            })
            .await
            .unwrap();
        let calls = Arc::new(Mutex::new(0));
        let counted = calls.clone();
        let mut handlers = Handlers::new();
        handlers.on(move |_: energy_api::events::BillingFinalBill, _| {
            let counted = counted.clone();
            async move {
                *counted.lock().unwrap() += 1;
                Err::<(), _>(HandlerError::retry("statement store rejects it"))
            }
        });
        let config = ConsumerConfig::durable("doomed")
            .max_deliver(3)
            .retry_delays([Duration::from_millis(50)]);
        let (_, stats) = consume(&bus, config, handlers).await;
        assert_eq!(*calls.lock().unwrap(), 3, "no endless redelivery");
        assert_eq!(
            (stats.retried, stats.dead_lettered, stats.handled),
            (2, 1, 0)
        );
        let letters = bus.dead_letters(None).await.unwrap();
        assert_eq!(letters.len(), 1);
        assert_eq!(letters[0].cause.kind, "handler_failed");
        assert!(
            letters[0]
                .cause
                .message
                .contains("statement store rejects it"),
            "{}",
            letters[0].cause.message
        );
        assert_eq!(letters[0].deliveries, 3);

        // Once the handler is fixed, the dead letter goes back to its subject (and out of the dead-letter stream).
        let receipt = bus
            .republish_dead_letter(letters[0].sequence)
            .await
            .expect("published again");
        assert!(!receipt.duplicate);
        assert!(bus.dead_letters(None).await.unwrap().is_empty());
        let mut handlers = Handlers::new();
        handlers.on(|_: energy_api::events::BillingFinalBill, _| async { Ok(()) });
        let (settled, stats) = consume(&bus, ConsumerConfig::durable("doomed"), handlers).await;
        assert_eq!(stats.handled, 1, "{settled:#?}");
        assert_eq!(
            settled[0].id.as_deref(),
            Some("bill-9"),
            "the same event id"
        );
    });
}

#[test]
fn a_rejected_event_is_dead_lettered_at_once() {
    let server = NatsServer::start();
    bounded(60, async {
        let bus = ready_bus(&server).await;
        bus.publisher()
            .publish_draft(Draft {
                event_type: "agreement.revoked".to_owned(),
                version: "v1".to_owned(),
                payload: br#"{"agreement_id":7}"#.to_vec().into(),
                metadata: Metadata::new(),
            })
            .await
            .unwrap();
        let mut handlers = Handlers::new();
        handlers.on(|_: energy_api::events::AgreementRevoked, _| async {
            Err(HandlerError::reject("agreement 7 was never ours"))
        });
        let (_, stats) = consume(&bus, ConsumerConfig::durable("strict"), handlers).await;
        assert_eq!((stats.dead_lettered, stats.retried), (1, 0));
        let letter = &bus.dead_letters(None).await.unwrap()[0];
        assert_eq!(
            (letter.cause.kind.as_str(), letter.cause.message.as_str()),
            ("handler_rejected", "agreement 7 was never ours")
        );
    });
}

#[test]
fn unknown_versions_are_skipped_or_dead_lettered_as_the_consumer_chooses() {
    let server = NatsServer::start();
    bounded(60, async {
        let bus = ready_bus(&server).await;
        // A newer producer's version: its subject is stored (every version of a known type is).
        let subject = bus.subjects().event("agreement.revoked", "v9");
        publish_raw(
            bus.client(),
            &subject,
            &cloud_headers("u-1", "agreement.revoked", "v9"),
            br#"{"agreement_id":7,"revoked_by":"ops"}"#,
        )
        .await;

        let (settled, stats) =
            consume(&bus, ConsumerConfig::durable("tolerant"), Handlers::new()).await;
        assert_eq!(stats.unknown, 1, "{settled:#?}");
        assert_eq!(settled[0].cause.as_ref().unwrap().kind, "unknown_version");

        let mut handlers = Handlers::new();
        handlers.unknown(UnknownPolicy::DeadLetter);
        let (_, stats) = consume(&bus, ConsumerConfig::durable("exacting"), handlers).await;
        assert_eq!(stats.dead_lettered, 1);
        let letter = &bus.dead_letters(None).await.unwrap()[0];
        assert_eq!(
            (letter.cause.kind.as_str(), letter.cause.path.as_str()),
            ("unknown_version", "ce-dataversion")
        );

        let mut handlers = Handlers::new();
        let seen = Arc::new(Mutex::new(Vec::new()));
        let sink = seen.clone();
        handlers
            .unknown(UnknownPolicy::Fallback)
            .fallback(move |decoded, _| {
                let sink = sink.clone();
                async move {
                    if let Decoded::Unknown(raw) = decoded {
                        sink.lock().unwrap().push(raw.payload.get().to_owned());
                    }
                    Ok(())
                }
            });
        let (_, stats) = consume(&bus, ConsumerConfig::durable("forwarding"), handlers).await;
        assert_eq!(stats.handled, 1);
        assert_eq!(
            *seen.lock().unwrap(),
            [r#"{"agreement_id":7,"revoked_by":"ops"}"#],
            "byte for byte"
        );
    });
}

#[test]
fn per_subject_order_holds_through_a_retry() {
    let server = NatsServer::start();
    bounded(60, async {
        let bus = ready_bus(&server).await;
        let publisher = bus.publisher();
        for i in 0..40 {
            // Two subjects, interleaved.
            let (event_type, payload) = if i % 2 == 0 {
                ("business.created", format!(r#"{{"id":{i}}}"#))
            } else {
                (
                    "business_operations_team.updated",
                    format!(r#"{{"id":{i},"operations_team_id":1}}"#),
                )
            };
            publisher
                .publish_draft(Draft {
                    event_type: event_type.to_owned(),
                    version: "v1".to_owned(),
                    payload: payload.into(),
                    metadata: Metadata::new(),
                })
                .await
                .unwrap();
        }
        let handled: Arc<Mutex<Vec<(String, u64)>>> = Arc::default();
        let sink = handled.clone();
        let mut handlers = Handlers::new();
        handlers.fallback(move |_, context| {
            let sink = sink.clone();
            async move {
                // The 10th message fails once, and is slow: what follows on its subject must wait.
                if context.sequence == 10 && context.attempt == 1 {
                    return Err(HandlerError::retry("once"));
                }
                tokio::time::sleep(Duration::from_millis(5)).await;
                sink.lock()
                    .unwrap()
                    .push((context.subject.to_string(), context.sequence));
                Ok(())
            }
        });
        let config = ConsumerConfig::durable("ordered")
            .ordering(Ordering::PerSubject)
            .concurrency(16)
            .retry_delays([Duration::from_millis(200)]);
        let (_, stats) = consume(&bus, config, handlers).await;
        assert_eq!((stats.handled, stats.retried), (40, 1));
        let handled = handled.lock().unwrap();
        let mut by_subject: BTreeMap<&str, Vec<u64>> = BTreeMap::new();
        for (subject, sequence) in handled.iter() {
            by_subject.entry(subject).or_default().push(*sequence);
        }
        for (subject, sequences) in by_subject {
            let mut sorted = sequences.clone();
            sorted.sort_unstable();
            assert_eq!(sequences, sorted, "{subject} handled out of order");
        }
    });
}

#[test]
fn a_message_whose_consumer_keeps_stopping_mid_handling_is_dead_lettered_not_redelivered_for_ever()
{
    let server = NatsServer::start();
    bounded(60, async {
        let bus = ready_bus(&server).await;
        bus.publisher()
            .publish_draft(Draft {
                event_type: "business.created".to_owned(),
                version: "v1".to_owned(),
                payload: br#"{"id":1}"#.to_vec().into(),
                metadata: Metadata::new(),
            })
            .await
            .unwrap();
        let config = ConsumerConfig::durable("crashing")
            .max_deliver(2)
            .ack_wait(Duration::from_secs(1));
        // Twice, the process stops while the handler runs (its run is dropped, as a killed process's).
        for _ in 0..2 {
            let mut handlers = Handlers::new();
            let (started, mut started_rx) = tokio::sync::mpsc::channel(1);
            handlers.fallback(move |_, _| {
                let started = started.clone();
                async move {
                    let _ = started.send(()).await;
                    std::future::pending::<()>().await;
                    Ok(())
                }
            });
            let consumer = bus.consumer(config.clone()).await.unwrap();
            let run = tokio::spawn(consumer.run(handlers, std::future::pending()));
            started_rx.recv().await.expect("the handler started");
            run.abort();
        }
        let mut handlers = Handlers::new();
        handlers.fallback(|_, _| async { panic!("not called again") });
        let (settled, stats) = consume(&bus, config, handlers).await;
        assert_eq!(stats.dead_lettered, 1, "{settled:#?}");
        assert_eq!(settled[0].attempt, 3);
        assert_eq!(
            bus.dead_letters(None).await.unwrap()[0].cause.kind,
            "not_settled"
        );
    });
}

#[test]
fn a_slow_handler_keeps_its_messages_and_those_waiting_for_a_slot_are_not_pulled_early() {
    let server = NatsServer::start();
    bounded(60, async {
        let bus = ready_bus(&server).await;
        let publisher = bus.publisher();
        for i in 0..6 {
            publisher
                .publish_draft(Draft {
                    event_type: "business.created".to_owned(),
                    version: "v1".to_owned(),
                    payload: format!(r#"{{"id":{i}}}"#).into(),
                    metadata: Metadata::new(),
                })
                .await
                .unwrap();
        }
        let mut handlers = Handlers::new();
        handlers.fallback(|_, _| async {
            // Two and a half acknowledgement waits.
            tokio::time::sleep(Duration::from_millis(2_500)).await;
            Ok(())
        });
        // Two at a time: four messages wait for a slot while two are handled, for longer than the wait.
        let config = ConsumerConfig::durable("slow")
            .ack_wait(Duration::from_secs(1))
            .concurrency(2);
        let (settled, stats) = consume(&bus, config, handlers).await;
        assert_eq!(
            (stats.handled, stats.retried, stats.total()),
            (6, 0, 6),
            "{settled:#?}"
        );
        assert!(
            settled.iter().all(|s| s.attempt == 1),
            "none delivered twice: {settled:#?}"
        );
    });
}

#[test]
fn a_stop_that_runs_out_of_time_hands_back_what_is_held_for_another_process_at_once() {
    let server = NatsServer::start();
    bounded(60, async {
        let bus = ready_bus(&server).await;
        let publisher = bus.publisher();
        for i in 0..3 {
            publisher
                .publish_draft(Draft {
                    event_type: "business.created".to_owned(),
                    version: "v1".to_owned(),
                    payload: format!(r#"{{"id":{i}}}"#).into(),
                    metadata: Metadata::new(),
                })
                .await
                .unwrap();
        }
        // Handlers that would take far longer than the stop may: held when the stop comes.
        let mut stuck = Handlers::new();
        let (started_tx, mut started) = tokio::sync::mpsc::unbounded_channel();
        stuck.fallback(move |_, _| {
            let _ = started_tx.send(());
            async {
                tokio::time::sleep(Duration::from_secs(600)).await;
                Ok(())
            }
        });
        let config = ConsumerConfig::durable("stuck")
            .ack_wait(Duration::from_secs(60))
            .shutdown_timeout(Duration::from_millis(500));
        let consumer = bus.consumer(config.clone()).await.unwrap();
        let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<()>();
        let running = tokio::spawn(consumer.run(stuck, async move {
            let _ = stop_rx.await;
        }));
        for _ in 0..3 {
            started.recv().await.expect("a handler started");
        }
        let asked = std::time::Instant::now();
        stop_tx.send(()).unwrap();
        let stats = running.await.unwrap().expect("stops");
        assert_eq!((stats.handed_back, stats.handled), (3, 0), "{stats:?}");
        assert!(
            asked.elapsed() < Duration::from_secs(30),
            "bounded by the shutdown timeout"
        );
        // Handed back, they come at once to the next process (not after the 60 s acknowledgement wait).
        let mut quick = Handlers::new();
        quick.fallback(|_, _| async { Ok(()) });
        let (settled, stats) = consume(&bus, config, quick).await;
        assert_eq!(stats.handled, 3, "{settled:#?}");
        assert!(settled.iter().all(|s| s.attempt == 2), "{settled:#?}");
    });
}

#[test]
fn structured_mode_cloudevents_are_read_as_binary_ones_and_bad_ones_dead_lettered_at_their_member()
{
    let server = NatsServer::start();
    bounded(60, async {
        let bus = ready_bus(&server).await;
        let subject = bus.subjects().event("agreement.revoked", "v2");
        let structured = [("content-type", "application/cloudevents+json")];
        // As another language's CloudEvents SDK writes it by default.
        publish_raw(
            bus.client(),
            &subject,
            &structured,
            br#"{"specversion":"1.0","id":"s-1","source":"/crm","type":"agreement.revoked",
                "dataversion":"v2","datacontenttype":"application/json","time":"2024-03-01T09:30:00Z",
                "data":{"agreement_id":7,"account_number":"A-1"}}"#,
        )
        .await;
        publish_raw(
            bus.client(),
            &subject,
            &structured,
            br#"{"specversion":"1.0","id":"s-2","source":"/crm","dataversion":"v2","data":{}}"#,
        )
        .await;
        publish_raw(
            bus.client(),
            &subject,
            &structured,
            br#"{"specversion":"1.0","id":"s-3","source":"/crm","type":"agreement.revoked",
                "dataversion":"v2","data":{"agreement_id":"seven","account_number":"A-1"}}"#,
        )
        .await;
        // Written by this publisher in structured mode.
        bus.publisher()
            .with_mode(energy_runtime::bus::content::ContentMode::Structured)
            .publish_draft(Draft {
                event_type: "agreement.revoked".to_owned(),
                version: "v2".to_owned(),
                payload: br#"{"agreement_id":8,"account_number":"A-2"}"#.to_vec().into(),
                metadata: metadata(&[("id", "s-4")]),
            })
            .await
            .unwrap();
        let calls = Arc::new(Mutex::new(Vec::new()));
        let seen = calls.clone();
        let mut handlers = Handlers::new();
        handlers.on_version(
            move |revoked: energy_api::events::AgreementRevokedV2, context| {
                let seen = seen.clone();
                async move {
                    seen.lock()
                        .unwrap()
                        .push((context.id, revoked.agreement_id));
                    Ok(())
                }
            },
        );
        let (settled, _) = consume(&bus, ConsumerConfig::durable("structured"), handlers).await;
        assert_eq!(
            *calls.lock().unwrap(),
            [("s-1".to_owned(), 7), ("s-4".to_owned(), 8)]
        );
        let faults: Vec<(String, String)> = settled
            .iter()
            .filter_map(|s| s.cause.as_ref())
            .map(|f| (f.kind.clone(), f.path.clone()))
            .collect();
        assert_eq!(
            faults,
            [
                ("bad_envelope".to_owned(), "type".to_owned()),
                ("invalid_type".to_owned(), "payload.agreement_id".to_owned())
            ],
            "{settled:#?}"
        );
        // The structured message is captured as the same line as its binary twin would be.
        let mut lines = Vec::new();
        bus.capture(
            &energy_runtime::bus::CaptureRange {
                filters: Vec::new(),
                start: energy_runtime::bus::Start::Sequence(1),
                follow: false,
                idle_exit: None,
            },
            &mut |message| {
                lines.push(line_of(&message.headers, &message.payload));
                Ok(())
            },
            Box::pin(std::future::pending()),
        )
        .await
        .unwrap();
        assert_eq!(lines[0].1, None);
        assert_eq!(
            lines[0].0,
            r#"{"event_type":"agreement.revoked","version":"v2","id":"s-1","source":"/crm","time":"2024-03-01T09:30:00Z","datacontenttype":"application/json","payload":{"agreement_id":7,"account_number":"A-1"}}"#
        );
    });
}

#[test]
fn a_message_with_a_header_nats_cannot_carry_is_refused_not_a_panic() {
    let server = NatsServer::start();
    bounded(30, async {
        let bus = ready_bus(&server).await;
        for (name, value) in [("bad:name", "x"), ("ok-name", "two\r\nlines: injected")] {
            let mut headers = energy_runtime::bus::Headers::new();
            headers.append(name.to_owned(), value);
            let error = energy_runtime::bus::transport::Sink::publish(
                &bus.sink(),
                &energy_runtime::bus::transport::Outgoing {
                    subject: "energy.business.created.v1".to_owned(),
                    headers,
                    payload: "{\"id\":1}".into(),
                    id: "h-1".to_owned(),
                },
            )
            .await
            .expect_err("refused");
            assert_eq!(
                error.kind,
                energy_runtime::bus::TransportErrorKind::Rejected,
                "{error}"
            );
        }
    });
}
