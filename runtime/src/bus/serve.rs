//! A consumer's figures and health over HTTP, for Prometheus and for the operator's checks: `GET
//! /metrics` (the registry, in the OpenMetrics text format when the scraper asks for it, else the
//! Prometheus text format 0.0.4) and `GET /healthz` (`200 ok` while healthy, `503` with why not).
//!
//! A small HTTP/1.1 server on hyper: one request per connection task, the request head read within 10
//! seconds, no request body read; anything but `GET` (or `HEAD`) of those two paths is refused.

use super::health::Health;
use bytes::Bytes;
use http_body_util::Full;
use hyper::body::Incoming;
use hyper::header::{ACCEPT, CONTENT_TYPE, HeaderValue};
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::{TokioIo, TokioTimer};
use prometheus_client::registry::Registry;
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;
use tokio::net::TcpListener;

/// What the endpoint serves: a registry (its figures are updated through their own handles) and a
/// health.
#[derive(Clone)]
pub struct Endpoint {
    registry: Arc<Registry>,
    health: Health,
}

impl Endpoint {
    /// Serves `registry` at `/metrics` and `health` at `/healthz`.
    pub fn new(registry: Arc<Registry>, health: Health) -> Self {
        Endpoint { registry, health }
    }

    /// Answers connections on `listener` until `stop` resolves.
    pub async fn serve(self, listener: TcpListener, stop: impl Future<Output = ()>) {
        tokio::pin!(stop);
        loop {
            let (stream, _) = tokio::select! {
                accepted = listener.accept() => match accepted {
                    Ok(accepted) => accepted,
                    Err(e) => {
                        log::debug!("metrics endpoint: a connection was not accepted: {e}");
                        tokio::time::sleep(Duration::from_millis(50)).await;
                        continue;
                    }
                },
                () = &mut stop => return,
            };
            let endpoint = self.clone();
            tokio::spawn(async move {
                let service = hyper::service::service_fn(move |request| {
                    let endpoint = endpoint.clone();
                    async move { Ok::<_, std::convert::Infallible>(endpoint.answer(&request)) }
                });
                let served = hyper::server::conn::http1::Builder::new()
                    .timer(TokioTimer::new())
                    .header_read_timeout(Duration::from_secs(10))
                    .keep_alive(true)
                    .serve_connection(TokioIo::new(stream), service)
                    .await;
                if let Err(e) = served {
                    log::debug!("metrics endpoint: {e}");
                }
            });
        }
    }

    fn answer(&self, request: &Request<Incoming>) -> Response<Full<Bytes>> {
        if request.method() != Method::GET && request.method() != Method::HEAD {
            return plain(
                StatusCode::METHOD_NOT_ALLOWED,
                "only GET /metrics and GET /healthz\n".to_owned(),
            );
        }
        match request.uri().path() {
            "/metrics" => self.metrics(request),
            "/healthz" => match self.health.check() {
                Ok(()) => plain(StatusCode::OK, "ok\n".to_owned()),
                Err(why) => plain(
                    StatusCode::SERVICE_UNAVAILABLE,
                    format!("unhealthy: {why}\n"),
                ),
            },
            _ => plain(
                StatusCode::NOT_FOUND,
                "not found: GET /metrics or /healthz\n".to_owned(),
            ),
        }
    }

    fn metrics(&self, request: &Request<Incoming>) -> Response<Full<Bytes>> {
        let openmetrics = request
            .headers()
            .get_all(ACCEPT)
            .iter()
            .filter_map(|v| v.to_str().ok())
            .any(|v| v.contains("application/openmetrics-text"));
        let mut text = String::new();
        let (encoded, content_type) = if openmetrics {
            (
                prometheus_client::encoding::text::encode(&mut text, &self.registry),
                "application/openmetrics-text; version=1.0.0; charset=utf-8",
            )
        } else {
            (
                prometheus_client::encoding::prometheus_text::encode(&mut text, &self.registry),
                prometheus_client::encoding::prometheus_text::CONTENT_TYPE,
            )
        };
        if encoded.is_err() {
            return plain(
                StatusCode::INTERNAL_SERVER_ERROR,
                "the figures could not be written\n".to_owned(),
            );
        }
        let mut response = Response::new(Full::new(Bytes::from(text)));
        response
            .headers_mut()
            .insert(CONTENT_TYPE, HeaderValue::from_static(content_type));
        response
    }
}

fn plain(status: StatusCode, text: String) -> Response<Full<Bytes>> {
    let mut response = Response::new(Full::new(Bytes::from(text)));
    *response.status_mut() = status;
    response.headers_mut().insert(
        CONTENT_TYPE,
        HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    response
}
