//! TLS failures in plain words: rustls names a certificate problem by its enum variant
//! (`invalid peer certificate: UnknownIssuer`), which tells a user neither what is wrong nor why the
//! client stopped.

/// The transport's message, with what it means in front when it is a certificate failure.
pub(crate) fn explain(message: &str) -> String {
    // `CaUsedAsEndEntity`: an authority's certificate presented as the server's own, which is what
    // `openssl req -x509` makes by default: a self-signed certificate.
    let meaning = if [
        "UnknownIssuer",
        "unknown issuer",
        "CaUsedAsEndEntity",
        "SelfSigned",
        "self-signed",
        "self signed",
    ]
    .iter()
    .any(|needle| message.contains(needle))
    {
        "the server's TLS certificate is not issued by an authority this client trusts (it is \
         self-signed, or from a private authority); nothing was sent to a server that cannot be \
         verified"
    } else if message.contains("Expired") || message.contains("expired") {
        "the server's TLS certificate has expired (or the clock of this machine is wrong)"
    } else if message.contains("NotValidForName") || message.contains("not valid for name") {
        "the server's TLS certificate is for another host name than the base URL's"
    } else if message.contains("invalid peer certificate") || message.contains("InvalidCertificate")
    {
        "the server's TLS certificate is not valid"
    } else {
        return message.to_owned();
    };
    format!("{meaning} ({message})")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn certificate_failures_are_explained_and_the_rest_kept() {
        let explained = explain("io: invalid peer certificate: UnknownIssuer");
        assert!(
            explained.starts_with("the server's TLS certificate is not issued by an authority")
        );
        assert!(explained.ends_with("(io: invalid peer certificate: UnknownIssuer)"));
        assert!(
            explain("invalid peer certificate: Other(OtherError(CaUsedAsEndEntity))")
                .contains("self-signed")
        );
        assert_eq!(explain("Connection refused"), "Connection refused");
    }
}
