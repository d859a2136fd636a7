//! The least-privilege deployment of `docs/deploy/nats-server.conf`, run as it is on a real
//! `nats-server`: the admin sets up the streams, the producer publishes, each consuming team consumes
//! from its own durable and dead-letters to its own subject; and each user is refused outside its
//! rights, at once (exit 2), with the subject and the operation named.
#![cfg(feature = "bus")]

use energy_runtime::bus::{Auth, Bus, ConnectSettings, Secret};
use energy_testkit::nats::{NatsServer, publish_not_an_event};
use energy_testkit::process::{EnergyProcess, Run, run_energy};
use energy_testkit::two_events;
use std::path::Path;
use std::time::Duration;

const PASSWORDS: [(&str, &str); 4] = [
    ("ENERGY_ADMIN_PASSWORD", "admin-pw-7d1f"),
    ("ENERGY_PRODUCER_PASSWORD", "producer-pw-2b9c"),
    ("ENERGY_BILLING_PASSWORD", "billing-pw-44e0"),
    ("ENERGY_CRM_PASSWORD", "crm-pw-91aa"),
];

/// Runs `energy` as `user` (its password in NATS_PASSWORD, its own inbox prefix, as the deployment
/// example says) against `server`.
fn energy_as(user: &str, server: &NatsServer, args: &[&str]) -> Run {
    let password = PASSWORDS
        .iter()
        .find(|(name, _)| name.contains(&user.to_ascii_uppercase()))
        .map(|(_, password)| *password)
        .expect("a user of the example");
    let inbox = format!("_INBOX_{user}");
    let mut all: Vec<&str> = args.to_vec();
    all.extend([
        "--server",
        &server.url,
        "--user",
        user,
        "--inbox-prefix",
        &inbox,
    ]);
    run_energy(&all, &[("NATS_PASSWORD", password)])
}

/// The run was refused for a permission: exit 2, the error naming the user and what was refused.
fn denied(run: &Run, user: &str, refused: &str) {
    assert_eq!(run.code, Some(2), "{}\n{}", run.stdout, run.stderr);
    let expected = format!("refuses user `{user}` and a password: may not ");
    assert!(
        run.stderr.contains(&expected),
        "`{expected}` not in:\n{}",
        run.stderr
    );
    assert!(
        run.stderr.contains(refused),
        "`{refused}` not in:\n{}",
        run.stderr
    );
    for (_, password) in PASSWORDS {
        assert!(!run.stderr.contains(password) && !run.stdout.contains(password));
    }
}

#[test]
fn each_user_does_its_job_and_is_refused_outside_its_rights() {
    let config = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/deploy/nats-server.conf"),
    )
    .expect("the deployment example");
    // The example as it is, but for where the server keeps its store (a folder of the test's; the
    // address and port are the test harness's too, given on the command line).
    let dir = tempfile::tempdir().expect("a folder");
    let store = dir.path().join("store");
    assert!(
        config.contains("store_dir: /var/lib/nats"),
        "the example names its store"
    );
    let config = config.replace(
        "store_dir: /var/lib/nats",
        &format!("store_dir: \"{}\"", store.display()),
    );
    let server = NatsServer::start_with_config_env(&config, &PASSWORDS);
    let events = two_events(dir.path());
    let events = events.to_str().expect("UTF-8");

    // Each at its job.
    let init = energy_as("admin", &server, &["bus", "init"]);
    assert_eq!(init.code, Some(0), "{}", init.stderr);
    let published = energy_as("producer", &server, &["events", "publish", events]);
    assert_eq!(published.code, Some(0), "{}", published.stderr);
    let runtime = tokio::runtime::Runtime::new().expect("a runtime");
    runtime.block_on(async {
        // Something that is not an event, for the teams to dead-letter.
        let producer = Bus::connect_with(&ConnectSettings {
            auth: Auth::UserPassword {
                user: "producer".to_owned(),
                password: Secret::new(PASSWORDS[1].1),
            },
            inbox_prefix: Some("_INBOX_producer".to_owned()),
            ..ConnectSettings::new(&server.url)
        })
        .await
        .expect("the producer connects");
        publish_not_an_event(producer.client(), "energy.account.created.v1", "poison").await;
    });
    for team in ["billing", "crm"] {
        let consumed = energy_as(
            team,
            &server,
            &["events", "consume", "--durable", team, "--idle-exit", "1"],
        );
        assert_eq!(consumed.code, Some(0), "{team}: {}", consumed.stderr);
        assert!(
            consumed
                .stderr
                .contains("2 handled, 0 retried, 1 dead-lettered"),
            "{team}: {}",
            consumed.stderr
        );
    }
    let letters = energy_as("admin", &server, &["events", "dlq", "list"]);
    assert_eq!(letters.code, Some(0), "{}", letters.stderr);
    assert_eq!(
        letters.stdout.lines().count(),
        2,
        "one per team: {}",
        letters.stdout
    );

    // Outside their rights.
    let run = energy_as("billing", &server, &["events", "publish", events]);
    denied(
        &run,
        "billing",
        "may not publish to `energy.account.created.v1`",
    );
    let run = energy_as(
        "billing",
        &server,
        &["events", "consume", "--durable", "crm", "--idle-exit", "1"],
    );
    denied(
        &run,
        "billing",
        "may not publish to `$JS.API.CONSUMER.INFO.ENERGY_EVENTS.crm` (read consumer `crm` of stream `ENERGY_EVENTS`)",
    );
    let run = energy_as(
        "billing",
        &server,
        &[
            "events",
            "consume",
            "--durable",
            "billing-2",
            "--idle-exit",
            "1",
        ],
    );
    denied(
        &run,
        "billing",
        "(read consumer `billing-2` of stream `ENERGY_EVENTS`)",
    );
    let run = energy_as(
        "producer",
        &server,
        &[
            "events",
            "consume",
            "--durable",
            "producer",
            "--idle-exit",
            "1",
        ],
    );
    denied(
        &run,
        "producer",
        "(read consumer `producer` of stream `ENERGY_EVENTS`)",
    );
    let run = energy_as(
        "billing",
        &server,
        &["bus", "init", "--duplicate-window", "5m"],
    );
    denied(
        &run,
        "billing",
        "may not publish to `$JS.API.STREAM.INFO.ENERGY_DEAD_LETTERS` (read stream `ENERGY_DEAD_LETTERS`)",
    );
    let run = energy_as("producer", &server, &["events", "dlq", "list"]);
    denied(&run, "producer", "(read stream `ENERGY_DEAD_LETTERS`)");
    let run = energy_as("crm", &server, &["events", "capture"]);
    denied(&run, "crm", "(create or update consumer");

    // Without its own inbox prefix a user cannot hear the answers to its requests.
    let mut process = EnergyProcess::start_with_env(
        &[
            "events",
            "dlq",
            "list",
            "--server",
            &server.url,
            "--user",
            "admin",
        ],
        &[("NATS_PASSWORD", PASSWORDS[0].1)],
    );
    let code = process.wait(Duration::from_secs(30));
    assert_eq!(code, Some(2), "{}", process.stderr());
    assert!(
        process.stderr().contains("may not subscribe to `_INBOX."),
        "{}",
        process.stderr()
    );
}
