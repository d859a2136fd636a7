//! The bus on secured servers, as a deployment runs them: real `nats-server` processes configured for each
//! authentication method and for TLS, with a CA, certificates, NKeys and JWTs made by the test. With the
//! right credentials every `energy` command that talks to the bus works end to end (init, publish,
//! consume, dlq); with the wrong ones each fails within seconds with exit status 2 and one line naming
//! the server and the method tried, never a secret.
#![cfg(feature = "bus")]

use energy_runtime::bus::{Auth, Bus, ConnectSettings, Secret, Tls};
use energy_testkit::nats::{NatsServer, publish_not_an_event};
use energy_testkit::process::{Run, run_energy as energy};
use energy_testkit::secrets::{Authority, Operator, nkey_seed_file, secrets_in};
use energy_testkit::two_events;
use std::path::{Path, PathBuf};

/// `args` followed by the connection options.
fn with<'a>(args: &[&'a str], connection: &[&'a str]) -> Vec<&'a str> {
    args.iter().chain(connection).copied().collect()
}

/// Init, publish, consume and dlq with the connection options `connection` (and `env`): each works.
/// The library, connected with `settings`, publishes one message that is not an event, so that the
/// consumer dead-letters it and `dlq list` shows it.
fn works_end_to_end(connection: &[&str], env: &[(&str, &str)], settings: &ConnectSettings) {
    let dir = tempfile::tempdir().expect("a folder");
    let init = energy(&with(&["bus", "init"], connection), env);
    assert_eq!(init.code, Some(0), "init: {}", init.stderr);
    assert!(
        init.stdout.contains("stream ENERGY_EVENTS: created"),
        "{}",
        init.stdout
    );
    let file = two_events(dir.path());
    let file = file.to_str().expect("a UTF-8 path");
    let published = energy(&with(&["events", "publish", file], connection), env);
    assert_eq!(published.code, Some(0), "publish: {}", published.stderr);
    assert!(
        published.stderr.contains("2 published"),
        "{}",
        published.stderr
    );

    let runtime = tokio::runtime::Runtime::new().expect("a runtime");
    runtime.block_on(async {
        let bus = Bus::connect_with(settings)
            .await
            .expect("the library connects alike");
        publish_not_an_event(bus.client(), "energy.account.created.v1", "poison-1").await;
    });

    let consumed = energy(
        &with(
            &["events", "consume", "--durable", "e2e", "--idle-exit", "1"],
            connection,
        ),
        env,
    );
    assert_eq!(consumed.code, Some(0), "consume: {}", consumed.stderr);
    let outcomes: Vec<String> = consumed
        .stdout
        .lines()
        .map(|l| {
            serde_json::from_str::<serde_json::Value>(l).expect("a JSON line")["outcome"]
                .to_string()
        })
        .collect();
    assert_eq!(
        outcomes,
        [r#""handled""#, r#""handled""#, r#""dead_lettered""#],
        "{}",
        consumed.stdout
    );
    let listed = energy(&with(&["events", "dlq", "list"], connection), env);
    assert_eq!(listed.code, Some(0), "dlq: {}", listed.stderr);
    assert_eq!(listed.stdout.lines().count(), 1, "{}", listed.stdout);
    assert!(
        listed.stdout.contains(r#""kind":"bad_envelope""#),
        "{}",
        listed.stdout
    );
}

/// The run failed as a connection error should: exit 2, one line naming the server and the method, the
/// words expected, and none of `secrets`.
fn refused(run: &Run, server: &str, method: &str, words: &str, secrets: &[String]) {
    assert_eq!(run.code, Some(2), "{}", run.stderr);
    let lines: Vec<&str> = run.stderr.lines().collect();
    assert_eq!(lines.len(), 1, "one line: {}", run.stderr);
    let expected = format!("error: cannot connect to {server} with {method}: ");
    assert!(
        lines[0].starts_with(&expected),
        "`{}` does not start with `{expected}`",
        lines[0]
    );
    assert!(
        lines[0].contains(words),
        "`{}` does not say `{words}`",
        lines[0]
    );
    for secret in secrets {
        assert!(
            !run.stderr.contains(secret.as_str()) && !run.stdout.contains(secret.as_str()),
            "a secret was printed: {}",
            run.stderr
        );
    }
}

fn tls_config(dir: &Path, authority: &Authority, verify: bool, first: bool) -> String {
    let (cert, key) = authority.issue(dir, "server", &["localhost"], false);
    let ca = authority.write(dir, "ca.pem");
    format!(
        "tls {{\n  cert_file: \"{}\"\n  key_file: \"{}\"\n  ca_file: \"{}\"\n  verify: {verify}\n  handshake_first: {first}\n  timeout: 3\n}}\n",
        cert.display(),
        key.display(),
        ca.display()
    )
}

#[test]
fn tls_with_a_private_ca_works_and_a_missing_or_wrong_ca_or_name_is_said() {
    let keys = tempfile::tempdir().expect("a folder");
    let authority = Authority::new("energy test CA");
    let server = NatsServer::start_with_config(&tls_config(keys.path(), &authority, false, false));
    let ca = authority.write(keys.path(), "ca.pem");
    let ca = ca.to_str().expect("UTF-8");
    let url = format!("tls://localhost:{}", server.port);
    works_end_to_end(
        &["--server", &url, "--tls-ca", ca],
        &[],
        &ConnectSettings {
            tls: Tls {
                ca: Some(PathBuf::from(ca)),
                ..Tls::default()
            },
            ..ConnectSettings::new(&url)
        },
    );
    // The same through the environment variables of the `nats` CLI.
    let by_env = energy(
        &["events", "dlq", "list"],
        &[("NATS_URL", &url), ("NATS_CA", ca)],
    );
    assert_eq!(by_env.code, Some(0), "{}", by_env.stderr);

    let no_ca = energy(&["events", "dlq", "list", "--server", &url], &[]);
    refused(
        &no_ca,
        &url,
        "no credentials",
        "give the CA that signed it with --tls-ca",
        &[],
    );

    let other = Authority::new("another CA");
    let other_ca = other.write(keys.path(), "other-ca.pem");
    let other_ca = other_ca.to_str().expect("UTF-8");
    let wrong_ca = energy(
        &[
            "events", "dlq", "list", "--server", &url, "--tls-ca", other_ca,
        ],
        &[],
    );
    refused(
        &wrong_ca,
        &url,
        &format!("no credentials, TLS (CA `{other_ca}`)"),
        "not signed by the given CA",
        &[],
    );

    // The certificate names localhost, not 127.0.0.1 (the same server).
    let wrong_name = format!("tls://127.0.0.1:{}", server.port);
    let mismatch = energy(
        &[
            "events",
            "dlq",
            "list",
            "--server",
            &wrong_name,
            "--tls-ca",
            ca,
        ],
        &[],
    );
    refused(
        &mismatch,
        &wrong_name,
        &format!("no credentials, TLS (CA `{ca}`)"),
        "does not match the host name",
        &[],
    );
}

#[test]
fn mutual_tls_needs_a_client_certificate_and_tls_first_is_honoured() {
    let keys = tempfile::tempdir().expect("a folder");
    let authority = Authority::new("energy test CA");
    let server = NatsServer::start_with_config(&tls_config(keys.path(), &authority, true, true));
    let ca = authority.write(keys.path(), "ca.pem");
    let (cert, key) = authority.issue(keys.path(), "billing-client", &["billing"], true);
    let (ca, cert, key) = (
        ca.to_str().expect("UTF-8"),
        cert.to_str().expect("UTF-8"),
        key.to_str().expect("UTF-8"),
    );
    let url = format!("tls://localhost:{}", server.port);
    works_end_to_end(
        &[
            "--server",
            &url,
            "--tls-ca",
            ca,
            "--tls-cert",
            cert,
            "--tls-key",
            key,
            "--tls-first",
        ],
        &[],
        &ConnectSettings {
            tls: Tls {
                ca: Some(PathBuf::from(ca)),
                cert: Some(PathBuf::from(cert)),
                key: Some(PathBuf::from(key)),
                first: true,
            },
            ..ConnectSettings::new(&url)
        },
    );
    let without_cert = energy(
        &[
            "events",
            "dlq",
            "list",
            "--server",
            &url,
            "--tls-ca",
            ca,
            "--tls-first",
        ],
        &[],
    );
    assert_eq!(without_cert.code, Some(2), "{}", without_cert.stderr);
    assert!(
        without_cert.stderr.contains("client certificate"),
        "{}",
        without_cert.stderr
    );
    let not_first = energy(
        &[
            "events",
            "dlq",
            "list",
            "--server",
            &url,
            "--tls-ca",
            ca,
            "--tls-cert",
            cert,
            "--tls-key",
            key,
        ],
        &[],
    );
    assert_eq!(not_first.code, Some(2), "{}", not_first.stderr);
    assert!(
        not_first.stderr.contains("--tls-first"),
        "{}",
        not_first.stderr
    );
    let key_only = energy(
        &["events", "dlq", "list", "--server", &url, "--tls-key", key],
        &[],
    );
    assert_eq!(key_only.code, Some(2));
    assert!(
        key_only.stderr.contains("--tls-cert"),
        "{}",
        key_only.stderr
    );
}

#[test]
fn user_and_password_work_and_a_wrong_password_is_refused_without_being_shown() {
    let server = NatsServer::start_with_config(
        "authorization {\n  users: [ {user: billing, password: \"c0rrect-h0rse\"} ]\n}\n",
    );
    works_end_to_end(
        &["--server", &server.url, "--user", "billing"],
        &[("NATS_PASSWORD", "c0rrect-h0rse")],
        &ConnectSettings {
            auth: Auth::UserPassword {
                user: "billing".to_owned(),
                password: Secret::new("c0rrect-h0rse"),
            },
            ..ConnectSettings::new(&server.url)
        },
    );
    let wrong = energy(
        &[
            "events",
            "dlq",
            "list",
            "--server",
            &server.url,
            "--user",
            "billing",
            "--password",
            "b4ttery-st4ple",
        ],
        &[],
    );
    refused(
        &wrong,
        &server.url,
        "user `billing` and a password",
        "refused the user and password",
        &["b4ttery-st4ple".to_owned()],
    );
    let none = energy(&["events", "dlq", "list", "--server", &server.url], &[]);
    refused(
        &none,
        &server.url,
        "no credentials",
        "requires credentials",
        &[],
    );
    // A password inside the URL is hidden where the server is named.
    let in_url = format!("nats://billing:b4ttery-st4ple@127.0.0.1:{}", server.port);
    let hidden = energy(&["events", "dlq", "list", "--server", &in_url], &[]);
    refused(
        &hidden,
        &format!("nats://billing:***@127.0.0.1:{}", server.port),
        "the credentials in the URL",
        "authorization violation",
        &["b4ttery-st4ple".to_owned()],
    );
}

#[test]
fn a_token_works_and_a_wrong_one_is_refused_without_being_shown() {
    let server =
        NatsServer::start_with_config("authorization {\n  token: \"s3cret-t0ken-42\"\n}\n");
    works_end_to_end(
        &["--server", &server.url],
        &[("NATS_TOKEN", "s3cret-t0ken-42")],
        &ConnectSettings {
            auth: Auth::Token(Secret::new("s3cret-t0ken-42")),
            ..ConnectSettings::new(&server.url)
        },
    );
    let wrong = energy(
        &[
            "events",
            "dlq",
            "list",
            "--server",
            &server.url,
            "--token",
            "n0t-the-t0ken",
        ],
        &[],
    );
    refused(
        &wrong,
        &server.url,
        "a token",
        "refused the token",
        &["n0t-the-t0ken".to_owned()],
    );
}

#[test]
fn an_nkey_seed_file_works_as_nk_writes_it_and_an_unknown_key_is_refused() {
    let keys = tempfile::tempdir().expect("a folder");
    let (seed, public) = nkey_seed_file(keys.path(), "billing.nk");
    let server = NatsServer::start_with_config(&format!(
        "authorization {{\n  users: [ {{nkey: {public}}} ]\n}}\n"
    ));
    let seed_path = seed.to_str().expect("UTF-8");
    works_end_to_end(
        &["--server", &server.url, "--nkey", seed_path],
        &[],
        &ConnectSettings {
            auth: Auth::NKey(seed.clone()),
            ..ConnectSettings::new(&server.url)
        },
    );
    let (stranger, _) = nkey_seed_file(keys.path(), "stranger.nk");
    let stranger_path = stranger.to_str().expect("UTF-8");
    let wrong = energy(
        &[
            "events",
            "dlq",
            "list",
            "--server",
            &server.url,
            "--nkey",
            stranger_path,
        ],
        &[],
    );
    refused(
        &wrong,
        &server.url,
        &format!("the NKey seed in `{stranger_path}`"),
        "does not accept this NKey",
        &secrets_in(&stranger),
    );
    let not_a_seed = keys.path().join("not-a-seed.nk");
    std::fs::write(&not_a_seed, "hello\n").expect("written");
    let garbage = energy(
        &[
            "events",
            "dlq",
            "list",
            "--server",
            &server.url,
            "--nkey",
            not_a_seed.to_str().expect("UTF-8"),
        ],
        &[],
    );
    assert_eq!(garbage.code, Some(2));
    assert!(
        garbage.stderr.contains("does not hold an NKey seed"),
        "{}",
        garbage.stderr
    );
}

#[test]
fn jwt_credentials_work_in_operator_mode_and_expired_or_revoked_ones_are_said() {
    let keys = tempfile::tempdir().expect("a folder");
    let revoked_user = nkeys::KeyPair::new_user();
    let operator = Operator::new(&[&revoked_user.public_key()]);
    let server = NatsServer::start_with_config(operator.config());
    let (creds, _) = operator.creds(keys.path(), "billing.creds", None);
    let creds_path = creds.to_str().expect("UTF-8");
    works_end_to_end(
        &["--server", &server.url],
        &[("NATS_CREDS", creds_path)],
        &ConnectSettings {
            auth: Auth::Creds(creds.clone()),
            ..ConnectSettings::new(&server.url)
        },
    );
    let (revoked, _) = operator.creds_of(&revoked_user, keys.path(), "revoked.creds", None);
    let revoked_path = revoked.to_str().expect("UTF-8");
    let run = energy(
        &[
            "events",
            "dlq",
            "list",
            "--server",
            &server.url,
            "--creds",
            revoked_path,
        ],
        &[],
    );
    refused(
        &run,
        &server.url,
        &format!("the credentials file `{revoked_path}`"),
        "expired or revoked",
        &secrets_in(&revoked),
    );
    let yesterday = jiff::Timestamp::now().as_second() - 86_400;
    let (expired, _) = operator.creds(keys.path(), "expired.creds", Some(yesterday));
    let expired_path = expired.to_str().expect("UTF-8");
    let run = energy(
        &[
            "events",
            "dlq",
            "list",
            "--server",
            &server.url,
            "--creds",
            expired_path,
        ],
        &[],
    );
    refused(
        &run,
        &server.url,
        &format!("the credentials file `{expired_path}`"),
        "expired at",
        &secrets_in(&expired),
    );
    let stranger = Operator::new(&[]);
    let (foreign, _) = stranger.creds(keys.path(), "foreign.creds", None);
    let foreign_path = foreign.to_str().expect("UTF-8");
    let run = energy(
        &[
            "events",
            "dlq",
            "list",
            "--server",
            &server.url,
            "--creds",
            foreign_path,
        ],
        &[],
    );
    refused(
        &run,
        &server.url,
        &format!("the credentials file `{foreign_path}`"),
        "refused the user JWT",
        &secrets_in(&foreign),
    );
}

#[test]
fn a_nats_cli_context_gives_the_connection_and_options_override_it() {
    let keys = tempfile::tempdir().expect("a folder");
    let operator = Operator::new(&[]);
    let authority = Authority::new("energy test CA");
    let server = NatsServer::start_with_config(&format!(
        "{}{}",
        operator.config(),
        tls_config(keys.path(), &authority, false, false)
    ));
    let (creds, _) = operator.creds(keys.path(), "billing.creds", None);
    let ca = authority.write(keys.path(), "ca.pem");
    let config_home = keys.path().join("config");
    std::fs::create_dir_all(config_home.join("nats/context")).expect("a context folder");
    let context = serde_json::json!({
        "description": "the energy bus",
        "url": format!("tls://localhost:{}", server.port),
        "creds": creds,
        "ca": ca,
        "color_scheme": "",
    });
    std::fs::write(
        config_home.join("nats/context/energy.json"),
        context.to_string(),
    )
    .expect("written");
    let home = config_home.to_str().expect("UTF-8");
    let listed = energy(
        &["bus", "init", "--context", "energy"],
        &[("XDG_CONFIG_HOME", home)],
    );
    assert_eq!(listed.code, Some(0), "{}", listed.stderr);
    let by_env = energy(
        &["events", "dlq", "list"],
        &[("XDG_CONFIG_HOME", home), ("NATS_CONTEXT", "energy")],
    );
    assert_eq!(by_env.code, Some(0), "{}", by_env.stderr);
    // An option given overrides the context's: here a server that is not there.
    let elsewhere = energy(
        &[
            "events",
            "dlq",
            "list",
            "--context",
            "energy",
            "--server",
            "nats://127.0.0.1:1",
        ],
        &[("XDG_CONFIG_HOME", home)],
    );
    assert_eq!(elsewhere.code, Some(2));
    assert!(
        elsewhere
            .stderr
            .contains("cannot connect to nats://127.0.0.1:1 with the credentials file"),
        "{}",
        elsewhere.stderr
    );
    let missing = energy(
        &["events", "dlq", "list", "--context", "nowhere"],
        &[("XDG_CONFIG_HOME", home)],
    );
    assert_eq!(missing.code, Some(2));
    assert!(
        missing.stderr.contains("NATS context `nowhere`"),
        "{}",
        missing.stderr
    );
}

#[test]
fn no_secret_shows_in_help_or_in_a_consumers_lines() {
    let help = energy(
        &["events", "consume", "--help"],
        &[
            ("NATS_PASSWORD", "hunter2-in-env"),
            ("NATS_TOKEN", "t0ken-in-env"),
        ],
    );
    assert_eq!(help.code, Some(0));
    assert!(help.stdout.contains("NATS_PASSWORD"), "{}", help.stdout);
    assert!(
        !help.stdout.contains("hunter2-in-env") && !help.stdout.contains("t0ken-in-env"),
        "{}",
        help.stdout
    );
    for flag in [
        "--creds",
        "--nkey",
        "--user",
        "--password",
        "--token",
        "--tls-ca",
        "--tls-cert",
        "--tls-key",
        "--tls-first",
        "--context",
    ] {
        assert!(help.stdout.contains(flag), "{flag} in\n{}", help.stdout);
    }
    let server = NatsServer::start_with_config(
        "authorization {\n  users: [ {user: billing, password: \"hunter2-in-env\"} ]\n}\n",
    );
    let env = [
        ("NATS_USER", "billing"),
        ("NATS_PASSWORD", "hunter2-in-env"),
        ("NATS_URL", server.url.as_str()),
    ];
    assert_eq!(energy(&["bus", "init"], &env).code, Some(0));
    let dir = tempfile::tempdir().expect("a folder");
    let file = two_events(dir.path());
    assert_eq!(
        energy(&["events", "publish", file.to_str().expect("UTF-8")], &env).code,
        Some(0)
    );
    let consumed = energy(
        &[
            "events",
            "consume",
            "--durable",
            "quiet",
            "--idle-exit",
            "1",
        ],
        &env,
    );
    assert_eq!(consumed.code, Some(0), "{}", consumed.stderr);
    assert!(!consumed.stdout.contains("hunter2") && !consumed.stderr.contains("hunter2"));
}
