//! Serving a router on a socket: plain HTTP/1.1 or HTTPS (rustls), with the limits hostile clients meet
//! (a header section read within a time, its size and count bounded, connections counted), and a
//! graceful stop that finishes the requests in flight.

use crate::router::Peer;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;
use std::future::Future;
use std::net::SocketAddr;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;
use tokio::net::TcpListener;
use tower::ServiceExt as _;

/// The limits of the listener.
#[derive(Debug, Clone)]
pub struct Limits {
    /// How long a client may take to send its request's header section (a slow client is cut off).
    pub header_read_timeout: Duration,
    /// The largest header section read, in bytes (the request line, URI included); past it, 431.
    pub max_header_bytes: usize,
    /// The most header fields of a request; past it, 431.
    pub max_headers: usize,
    /// The most connections open at once; past it, new ones are closed at once.
    pub max_connections: usize,
    /// How long a stop waits for requests in flight.
    pub shutdown_grace: Duration,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            header_read_timeout: Duration::from_secs(10),
            max_header_bytes: 64 * 1024,
            max_headers: 100,
            max_connections: 10_000,
            shutdown_grace: Duration::from_secs(10),
        }
    }
}

/// A TLS configuration from PEM files: a certificate chain and its private key.
pub fn tls_config(certificate: &Path, key: &Path) -> Result<Arc<rustls::ServerConfig>, String> {
    use rustls::pki_types::pem::PemObject as _;
    use rustls::pki_types::{CertificateDer, PrivateKeyDer};
    let chain = CertificateDer::pem_file_iter(certificate)
        .and_then(|certs| certs.collect::<Result<Vec<_>, _>>())
        .map_err(|e| format!("cannot read the certificate {}: {e}", certificate.display()))?;
    if chain.is_empty() {
        return Err(format!("{} holds no certificate", certificate.display()));
    }
    let key = PrivateKeyDer::from_pem_file(key)
        .map_err(|e| format!("cannot read the private key {}: {e}", key.display()))?;
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let mut config = rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| format!("TLS: {e}"))?
        .with_no_client_auth()
        .with_single_cert(chain, key)
        .map_err(|e| format!("the certificate and key do not go together: {e}"))?;
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    Ok(Arc::new(config))
}

/// Serves `router` on `listener` until `stop` resolves, then stops taking connections and lets the
/// requests in flight finish (within the limits' grace).
pub async fn serve(
    listener: TcpListener,
    router: axum::Router,
    tls: Option<Arc<rustls::ServerConfig>>,
    limits: Limits,
    stop: impl Future<Output = ()>,
) {
    let acceptor = tls.map(tokio_rustls::TlsAcceptor::from);
    let graceful = GracefulShutdown::new();
    let open = Arc::new(AtomicUsize::new(0));
    tokio::pin!(stop);
    loop {
        let accepted = tokio::select! {
            accepted = listener.accept() => accepted,
            () = &mut stop => break,
        };
        let (stream, peer) = match accepted {
            Ok(accepted) => accepted,
            Err(e) => {
                // Out of file descriptors, say: wait a moment rather than spin.
                log::warn!("accepting a connection failed: {e}");
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        if open.load(Ordering::Relaxed) >= limits.max_connections {
            drop(stream);
            continue;
        }
        let _ = stream.set_nodelay(true);
        open.fetch_add(1, Ordering::Relaxed);
        let counted = Counted(open.clone());
        let service =
            router
                .clone()
                .map_request(move |request: hyper::Request<hyper::body::Incoming>| {
                    let mut request = request.map(axum::body::Body::new);
                    request.extensions_mut().insert(Peer(peer));
                    request
                });
        let service = TowerToHyperService::new(service);
        let mut builder = hyper::server::conn::http1::Builder::new();
        builder
            .timer(TokioTimer::new())
            .header_read_timeout(limits.header_read_timeout)
            .max_buf_size(limits.max_header_bytes.max(8192))
            .max_headers(limits.max_headers);
        let watcher = graceful.watcher();
        let acceptor = acceptor.clone();
        let handshake_timeout = limits.header_read_timeout;
        tokio::spawn(async move {
            let _counted = counted;
            match acceptor {
                None => {
                    let connection = builder.serve_connection(TokioIo::new(stream), service);
                    let _ = watcher.watch(connection).await;
                }
                Some(acceptor) => {
                    let Ok(Ok(stream)) =
                        tokio::time::timeout(handshake_timeout, acceptor.accept(stream)).await
                    else {
                        return;
                    };
                    let connection = builder.serve_connection(TokioIo::new(stream), service);
                    let _ = watcher.watch(connection).await;
                }
            }
        });
    }
    drop(listener);
    if tokio::time::timeout(limits.shutdown_grace, graceful.shutdown())
        .await
        .is_err()
    {
        log::warn!(
            "requests were still in flight {} s after the stop; closing",
            limits.shutdown_grace.as_secs()
        );
    }
}

/// Counts an open connection until dropped.
struct Counted(Arc<AtomicUsize>);

impl Drop for Counted {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::Relaxed);
    }
}

/// Whether `address` is a loopback address (plain HTTP is allowed there without a proxy).
pub fn is_loopback(address: SocketAddr) -> bool {
    address.ip().is_loopback()
}
