//! The async client, on `reqwest` and tokio.

use std::sync::Arc;
use std::time::Duration;

use energy_api::rest::{Endpoint, Page};
use futures_util::{Stream, TryStreamExt as _, stream};
use jiff::Timestamp;
use reqwest::header::{HeaderName, HeaderValue};
use serde::de::DeserializeOwned;

use super::exchange::CallLimits;
use super::response::BodyBuffer;
use super::{ClientConfig, Error, Exchange, HttpRequest, HttpResponse, Step};

/// An async client of the REST API (feature `async`), for a tokio runtime.
///
/// The same calls as the blocking [`Client`](super::Client): [`AsyncClient::send`] for one request,
/// [`AsyncClient::pages`] and [`AsyncClient::items`] for streams over the pages or records of a list,
/// each page fetched when the stream is polled past the previous one. Bodies are read chunk by chunk
/// and counted against [`ClientConfig::with_max_body_bytes`] as they come.
///
/// ```no_run
/// use energy_runtime::rest::{AsyncClient, BaseUrl, ClientConfig, DateTimeParam};
/// use energy_api::rest::{ListProducts, ListStandardUnitRates};
/// use futures_util::TryStreamExt as _;
///
/// # async fn run() -> Result<(), energy_runtime::rest::Error> {
/// let client = AsyncClient::new(ClientConfig::new(BaseUrl::parse("https://api.example.com")?))?;
///
/// let prepaid = ListProducts::default().with_is_prepay(true).with_page_size(50);
/// let mut products = std::pin::pin!(client.items(&prepaid));
/// while let Some(product) = products.try_next().await? {
///     println!("{}", product.code);
/// }
///
/// let mut rates = ListStandardUnitRates::new("AGILE-24-04-03", "E-1R-AGILE-24-04-03-C");
/// rates.period_from = Some(DateTimeParam::parse("2024-10-27T00:00")?.to_timestamp()?);
/// let rates: Vec<_> = client.items(&rates).try_collect().await?;
/// # Ok(()) }
/// ```
#[derive(Clone)]
pub struct AsyncClient {
    config: Arc<ClientConfig>,
    http: reqwest::Client,
}

impl AsyncClient {
    /// A client with this configuration.
    pub fn new(config: ClientConfig) -> Result<Self, Error> {
        let mut builder = reqwest::Client::builder()
            .timeout(config.timeout())
            .redirect(reqwest::redirect::Policy::none());
        if config.base_url().is_loopback() {
            builder = builder.no_proxy();
        }
        let http = builder.build().map_err(|e| Error::Setup {
            message: error_chain(&e),
        })?;
        Ok(Self {
            config: Arc::new(config),
            http,
        })
    }

    /// The configuration.
    pub fn config(&self) -> &ClientConfig {
        &self.config
    }

    /// Calls an endpoint once (for a list, that is its first page).
    pub async fn send<E: Endpoint>(&self, endpoint: &E) -> Result<E::Response, Error> {
        let request = self.config.request(endpoint)?;
        self.call(request, &CallLimits::single(&self.config)).await
    }

    /// Calls an endpoint once, reading the body as `T` rather than `E::Response`: a type of one's own
    /// that reads only some fields, or `Box<serde_json::value::RawValue>` to keep the JSON text.
    pub async fn send_as<E: Endpoint, T: DeserializeOwned>(
        &self,
        endpoint: &E,
    ) -> Result<T, Error> {
        let request = self.config.request(endpoint)?;
        self.call(request, &CallLimits::single(&self.config)).await
    }

    /// The pages of a list endpoint, each fetched when the stream is polled for it. The stream ends
    /// after the last page or after the first error.
    pub fn pages<E, T>(
        &self,
        endpoint: &E,
    ) -> impl Stream<Item = Result<Page<T>, Error>> + use<E, T>
    where
        E: Endpoint<Response = Page<T>>,
        Page<T>: DeserializeOwned,
    {
        let cursor = self.config.pages(endpoint);
        stream::unfold((self.clone(), cursor), |(client, mut cursor)| async move {
            let request = match cursor.next_request()? {
                Ok(request) => request,
                Err(error) => return Some((Err(error), (client, cursor))),
            };
            let limits = cursor.limits(&client.config);
            let page = client.call::<Page<T>>(request.clone(), &limits).await;
            match &page {
                Ok(page) => cursor.on_page(&request, page),
                Err(_) => cursor.stop(),
            }
            Some((page, (client, cursor)))
        })
    }

    /// The records of every page of a list endpoint, pages fetched as the stream needs them.
    pub fn items<E, T>(&self, endpoint: &E) -> impl Stream<Item = Result<T, Error>> + use<E, T>
    where
        E: Endpoint<Response = Page<T>>,
        Page<T>: DeserializeOwned,
    {
        self.pages(endpoint)
            .map_ok(|page| stream::iter(page.results.into_iter().map(Ok)))
            .try_flatten()
    }

    async fn call<T: DeserializeOwned>(
        &self,
        request: HttpRequest,
        limits: &CallLimits<'_>,
    ) -> Result<T, Error> {
        let mut exchange = Exchange::new(request, self.config.retry().clone());
        loop {
            let timeout = limits.attempt_timeout(exchange.request())?;
            let response = self
                .transport(exchange.request(), timeout)
                .await
                .map_err(|error| limits.on_error(error, exchange.request()))?;
            match exchange.on_response(response, Timestamp::now()) {
                Step::Retry(notice) => {
                    tokio::time::sleep(limits.before_retry(&notice, exchange.request())?).await;
                }
                Step::Done(result) => return result,
            }
        }
    }

    /// One attempt, from connecting to the end of the body, within `timeout`.
    async fn transport(
        &self,
        request: &HttpRequest,
        timeout: Duration,
    ) -> Result<HttpResponse, Error> {
        // reqwest's own timeout covers the body too; this one bounds the whole attempt regardless.
        tokio::time::timeout(timeout, self.attempt(request, timeout))
            .await
            .unwrap_or_else(|_| {
                Err(Error::Timeout {
                    request: request.summary(),
                    timeout,
                })
            })
    }

    async fn attempt(
        &self,
        request: &HttpRequest,
        timeout: Duration,
    ) -> Result<HttpResponse, Error> {
        log::debug!("{}", request.summary());
        let failed = |message: String| Error::Transport {
            request: request.summary(),
            message,
        };
        let map_error = |error: reqwest::Error| {
            if error.is_timeout() {
                Error::Timeout {
                    request: request.summary(),
                    timeout,
                }
            } else {
                failed(super::tls::explain(&error_chain(&error.without_url())))
            }
        };
        let method = reqwest::Method::from_bytes(request.method().as_str().as_bytes())
            .map_err(|e| failed(e.to_string()))?;
        let mut builder = self.http.request(method, request.url()).timeout(timeout);
        for header in request.headers() {
            // Values were checked when the credentials were made; the error names no value anyway.
            let mut value = HeaderValue::from_str(header.value)
                .map_err(|_| failed(format!("invalid value of header {}", header.name)))?;
            value.set_sensitive(header.sensitive);
            let name = HeaderName::from_bytes(header.name.as_bytes())
                .map_err(|e| failed(e.to_string()))?;
            builder = builder.header(name, value);
        }
        let mut response = builder.send().await.map_err(map_error)?;
        let status = response.status().as_u16();
        let header = |name: reqwest::header::HeaderName| {
            response
                .headers()
                .get(name)
                .and_then(|value| value.to_str().ok())
                .map(str::to_owned)
        };
        let retry_after = header(reqwest::header::RETRY_AFTER);
        let location = header(reqwest::header::LOCATION);
        // A compressed body's length says nothing of its size once decompressed.
        let announced = if response
            .headers()
            .contains_key(reqwest::header::CONTENT_ENCODING)
        {
            None
        } else {
            response.content_length()
        };
        let too_large = |_| Error::BodyTooLarge {
            request: request.summary(),
            limit: self.config.max_body_bytes(),
        };
        let mut body =
            BodyBuffer::new(status, self.config.max_body_bytes(), announced).map_err(too_large)?;
        while let Some(chunk) = response.chunk().await.map_err(map_error)? {
            if !body.push(&chunk).map_err(too_large)? {
                break;
            }
        }
        Ok(body.finish(status, retry_after, location))
    }
}

impl std::fmt::Debug for AsyncClient {
    // The HTTP client's own `Debug` would show its proxy settings, which may hold credentials.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AsyncClient")
            .field("config", &self.config)
            .finish()
    }
}

/// An error and its sources, as one line (reqwest's own message is often just "error sending request").
fn error_chain(error: &dyn std::error::Error) -> String {
    let mut message = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        message.push_str(": ");
        message.push_str(&cause.to_string());
        source = cause.source();
    }
    message
}
