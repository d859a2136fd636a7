//! What a secured NATS deployment hands out, made at test time: a certificate authority with server and
//! client certificates (rcgen), NKey seeds, and decentralised-auth JWTs (operator, account, user) with
//! the credentials files the NATS tools write. Nothing here is checked in: every run makes its own.

use base64::Engine as _;
use rcgen::{
    BasicConstraints, CertificateParams, CertifiedIssuer, DnType, ExtendedKeyUsagePurpose, IsCa,
    KeyPair, KeyUsagePurpose,
};
use std::path::{Path, PathBuf};

/// A certificate authority that signs server and client certificates.
pub struct Authority {
    issuer: CertifiedIssuer<'static, KeyPair>,
}

impl Authority {
    /// A new CA named `name`.
    pub fn new(name: &str) -> Authority {
        let mut params = CertificateParams::new(Vec::<String>::new()).expect("CA parameters");
        params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        params.distinguished_name.push(DnType::CommonName, name);
        params.key_usages = vec![
            KeyUsagePurpose::KeyCertSign,
            KeyUsagePurpose::CrlSign,
            KeyUsagePurpose::DigitalSignature,
        ];
        let key = KeyPair::generate().expect("a CA key");
        Authority {
            issuer: CertifiedIssuer::self_signed(params, key).expect("a CA certificate"),
        }
    }

    /// Writes the CA's certificate (PEM) to `dir/<file>`.
    pub fn write(&self, dir: &Path, file: &str) -> PathBuf {
        let path = dir.join(file);
        std::fs::write(&path, self.issuer.as_ref().pem()).expect("the CA is written");
        path
    }

    /// A certificate for `names` (host names or IP addresses), for a server or a client, written as
    /// `dir/<stem>.pem` and `dir/<stem>-key.pem`; returns both paths.
    pub fn issue(
        &self,
        dir: &Path,
        stem: &str,
        names: &[&str],
        client: bool,
    ) -> (PathBuf, PathBuf) {
        let mut params =
            CertificateParams::new(names.iter().map(|n| (*n).to_owned()).collect::<Vec<_>>())
                .expect("certificate parameters");
        params.distinguished_name.push(DnType::CommonName, stem);
        params.extended_key_usages = vec![if client {
            ExtendedKeyUsagePurpose::ClientAuth
        } else {
            ExtendedKeyUsagePurpose::ServerAuth
        }];
        let key = KeyPair::generate().expect("a key");
        let certificate = params
            .signed_by(&key, &self.issuer)
            .expect("a signed certificate");
        let (cert_path, key_path) = (
            dir.join(format!("{stem}.pem")),
            dir.join(format!("{stem}-key.pem")),
        );
        std::fs::write(&cert_path, certificate.pem()).expect("the certificate is written");
        std::fs::write(&key_path, key.serialize_pem()).expect("the key is written");
        (cert_path, key_path)
    }
}

/// A user NKey's seed written as `nk -gen user` writes it (one line, a trailing newline), and its public
/// key (what the server's configuration names).
pub fn nkey_seed_file(dir: &Path, file: &str) -> (PathBuf, String) {
    let user = nkeys::KeyPair::new_user();
    let path = dir.join(file);
    std::fs::write(&path, format!("{}\n", user.seed().expect("a seed")))
        .expect("the seed is written");
    (path, user.public_key())
}

fn base64url(bytes: &[u8]) -> String {
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes)
}

/// A NATS JWT (v2) of `subject`, signed by `issuer`.
fn jwt(
    issuer: &nkeys::KeyPair,
    subject: &str,
    name: &str,
    nats: serde_json::Value,
    expires: Option<i64>,
) -> String {
    let header = base64url(br#"{"typ":"JWT","alg":"ed25519-nkey"}"#);
    let now = jiff::Timestamp::now().as_second();
    let mut claims = serde_json::json!({
        "jti": format!("{}{}", name.to_ascii_uppercase().replace(|c: char| !c.is_ascii_alphanumeric(), ""), now),
        "iat": now - 60,
        "iss": issuer.public_key(),
        "name": name,
        "sub": subject,
        "nats": nats,
    });
    if let Some(expires) = expires {
        claims["exp"] = serde_json::json!(expires);
    }
    let signed = format!("{header}.{}", base64url(claims.to_string().as_bytes()));
    let signature = issuer.sign(signed.as_bytes()).expect("signed");
    format!("{signed}.{}", base64url(&signature))
}

/// An operator with one account (JetStream on) and a system account, for `nats-server` in operator
/// mode with a memory resolver; users are issued by the account.
pub struct Operator {
    account: nkeys::KeyPair,
    config: String,
}

impl Operator {
    /// A new operator whose account revokes the users in `revoked` (their public keys).
    pub fn new(revoked: &[&str]) -> Operator {
        let operator = nkeys::KeyPair::new_operator();
        let system = nkeys::KeyPair::new_account();
        let account = nkeys::KeyPair::new_account();
        let operator_jwt = jwt(
            &operator,
            &operator.public_key(),
            "energy-test-operator",
            serde_json::json!({"type": "operator", "version": 2, "system_account": system.public_key()}),
            None,
        );
        let system_jwt = jwt(
            &operator,
            &system.public_key(),
            "SYS",
            serde_json::json!({"type": "account", "version": 2,
                "limits": {"subs": -1, "data": -1, "payload": -1, "imports": -1, "exports": -1,
                           "wildcards": true, "conn": -1, "leaf": -1}}),
            None,
        );
        let now = jiff::Timestamp::now().as_second();
        let revocations: serde_json::Map<String, serde_json::Value> = revoked
            .iter()
            .map(|user| ((*user).to_owned(), serde_json::json!(now)))
            .collect();
        let account_jwt = jwt(
            &operator,
            &account.public_key(),
            "ENERGY",
            serde_json::json!({"type": "account", "version": 2,
                "limits": {"subs": -1, "data": -1, "payload": -1, "imports": -1, "exports": -1,
                           "wildcards": true, "conn": -1, "leaf": -1,
                           "mem_storage": -1, "disk_storage": -1, "streams": -1, "consumer": -1},
                "revocations": revocations}),
            None,
        );
        let config = format!(
            "operator: {operator_jwt}\nsystem_account: {}\nresolver: MEMORY\nresolver_preload: {{\n  {}: {system_jwt}\n  {}: {account_jwt}\n}}\n",
            system.public_key(),
            system.public_key(),
            account.public_key(),
        );
        Operator { account, config }
    }

    /// The lines of the server's configuration that set up operator mode.
    pub fn config(&self) -> &str {
        &self.config
    }

    /// A credentials file for a user of the account, as `nsc` writes it, expiring at `expires`
    /// (Unix seconds) when given; also the user's public key.
    pub fn creds(&self, dir: &Path, file: &str, expires: Option<i64>) -> (PathBuf, String) {
        let user = nkeys::KeyPair::new_user();
        self.creds_of(&user, dir, file, expires)
    }

    /// A credentials file for `user`.
    pub fn creds_of(
        &self,
        user: &nkeys::KeyPair,
        dir: &Path,
        file: &str,
        expires: Option<i64>,
    ) -> (PathBuf, String) {
        let user_jwt = jwt(
            &self.account,
            &user.public_key(),
            file,
            serde_json::json!({"type": "user", "version": 2, "subs": -1, "data": -1, "payload": -1,
                               "pub": {}, "sub": {}}),
            expires,
        );
        let text = format!(
            "-----BEGIN NATS USER JWT-----\n{user_jwt}\n------END NATS USER JWT------\n\n\
             ************************* IMPORTANT *************************\n\
             NKEY Seed printed below can be used to sign and prove identity.\n\
             NKEYs are sensitive and should be treated as secrets.\n\n\
             -----BEGIN USER NKEY SEED-----\n{}\n------END USER NKEY SEED------\n\n\
             *************************************************************\n",
            user.seed().expect("a seed")
        );
        let path = dir.join(file);
        std::fs::write(&path, text).expect("the credentials are written");
        (path, user.public_key())
    }
}

/// The secrets inside a file (a seed, a JWT): what must never be printed.
pub fn secrets_in(path: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(path).expect("the secret file");
    text.lines()
        .map(str::trim)
        .filter(|l| l.len() > 20 && !l.starts_with('-') && !l.starts_with('*') && !l.contains(' '))
        .map(str::to_owned)
        .collect()
}
