//! The blocking client, on `ureq`.

use std::collections::VecDeque;
use std::io::Read as _;
use std::sync::Arc;
use std::time::Duration;

use energy_api::rest::{Endpoint, Page};
use jiff::Timestamp;
use serde::de::DeserializeOwned;
use ureq::unversioned::resolver::{DefaultResolver, ResolvedSocketAddrs, Resolver};
use ureq::unversioned::transport::{DefaultConnector, NextTimeout};

use super::exchange::CallLimits;
use super::response::BodyBuffer;
use super::{ClientConfig, Error, Exchange, HttpRequest, HttpResponse, PageCursor, Step};

/// A blocking client of the REST API (feature `blocking`, on by default).
///
/// Every endpoint goes through [`Client::send`] (one request), or, for lists, [`Client::pages`] (an
/// iterator over pages) and [`Client::items`] (an iterator over the records of all pages). Redirects
/// are not followed: a 3xx is an [`Error::Status`], so that no request is carried to another place.
/// Bodies are read through the decompressor and counted decompressed against
/// [`ClientConfig::with_max_body_bytes`].
///
/// ```no_run
/// use energy_runtime::rest::{BaseUrl, Client, ClientConfig, Credentials, DateTimeParam};
/// use energy_api::rest::{GetAccount, ListProducts, ListStandardUnitRates};
///
/// # fn main() -> Result<(), energy_runtime::rest::Error> {
/// let config = ClientConfig::new(BaseUrl::parse("https://api.example.com")?)
///     .with_credentials(Credentials::api_key("sk_live_...")?);
/// let client = Client::new(config);
///
/// // Every green product of a brand, all pages, fetched as the iterator advances.
/// let green = ListProducts::default().with_brand("OCTOPUS_ENERGY").with_is_green(true);
/// for product in client.items(&green) {
///     let product = product?;
///     println!("{} {}", product.code, product.display_name);
/// }
///
/// // Half-hourly prices of one London day (23 hours long: the clocks go forward).
/// let mut rates = ListStandardUnitRates::new("AGILE-24-04-03", "E-1R-AGILE-24-04-03-C");
/// rates.period_from = Some(DateTimeParam::parse("2024-03-31")?.to_timestamp()?);
/// rates.period_to = Some(DateTimeParam::parse("2024-04-01")?.to_timestamp()?);
/// let rates: Vec<_> = client.items(&rates).collect::<Result<_, _>>()?;
///
/// let account = client.send(&GetAccount::new("A-1234ABCD"))?;
/// # Ok(()) }
/// ```
#[derive(Clone)]
pub struct Client {
    config: Arc<ClientConfig>,
    agent: ureq::Agent,
}

impl Client {
    /// A client with this configuration.
    pub fn new(config: ClientConfig) -> Self {
        let mut builder = ureq::Agent::config_builder()
            .timeout_global(Some(config.timeout()))
            .http_status_as_error(false)
            .max_redirects(0);
        if config.base_url().is_loopback() {
            builder = builder.proxy(None);
        }
        let agent = ureq::Agent::with_parts(
            builder.build(),
            DefaultConnector::new(),
            AddressResolver::default(),
        );
        Self {
            config: Arc::new(config),
            agent,
        }
    }

    /// The configuration.
    pub fn config(&self) -> &ClientConfig {
        &self.config
    }

    /// Calls an endpoint once (for a list, that is its first page).
    pub fn send<E: Endpoint>(&self, endpoint: &E) -> Result<E::Response, Error> {
        self.call(
            self.config.request(endpoint)?,
            &CallLimits::single(&self.config),
        )
    }

    /// Calls an endpoint once, reading the body as `T` rather than `E::Response`: a type of one's own
    /// that reads only some fields, or `Box<serde_json::value::RawValue>` to keep the JSON text and
    /// walk it without building a tree (what the `energy` CLI does with an account, whose fields the
    /// spec does not show).
    pub fn send_as<E: Endpoint, T: DeserializeOwned>(&self, endpoint: &E) -> Result<T, Error> {
        self.call(
            self.config.request(endpoint)?,
            &CallLimits::single(&self.config),
        )
    }

    /// The pages of a list endpoint, each fetched when the iterator reaches it. The iterator ends
    /// after the last page or after the first error.
    pub fn pages<E, T>(&self, endpoint: &E) -> Pages<T>
    where
        E: Endpoint<Response = Page<T>>,
        Page<T>: DeserializeOwned,
    {
        Pages {
            client: self.clone(),
            cursor: self.config.pages(endpoint),
            record_type: std::marker::PhantomData,
        }
    }

    /// The records of every page of a list endpoint, pages fetched as the iterator needs them.
    pub fn items<E, T>(&self, endpoint: &E) -> Items<T>
    where
        E: Endpoint<Response = Page<T>>,
        Page<T>: DeserializeOwned,
    {
        Items {
            pages: self.pages(endpoint),
            buffer: VecDeque::new(),
        }
    }

    fn call<T: DeserializeOwned>(
        &self,
        request: HttpRequest,
        limits: &CallLimits<'_>,
    ) -> Result<T, Error> {
        let mut exchange = Exchange::new(request, self.config.retry().clone());
        loop {
            let timeout = limits.attempt_timeout(exchange.request())?;
            let response = self
                .transport(exchange.request(), timeout)
                .map_err(|error| limits.on_error(error, exchange.request()))?;
            match exchange.on_response(response, Timestamp::now()) {
                Step::Retry(notice) => {
                    std::thread::sleep(limits.before_retry(&notice, exchange.request())?);
                }
                Step::Done(result) => return result,
            }
        }
    }

    fn transport(&self, request: &HttpRequest, timeout: Duration) -> Result<HttpResponse, Error> {
        log::debug!("{}", request.summary());
        let failed = |message: String| Error::Transport {
            request: request.summary(),
            message,
        };
        let mut builder = ureq::http::Request::builder()
            .method(request.method().as_str())
            .uri(request.url());
        for header in request.headers() {
            builder = builder.header(header.name, header.value);
        }
        // The error of an invalid request names no header value, but say nothing of it anyway.
        let http_request = builder
            .body(())
            .map_err(|_| failed("the URL cannot be sent as an HTTP request".to_owned()))?;
        let http_request = self
            .agent
            .configure_request(http_request)
            .timeout_global(Some(timeout))
            .build();
        let map_error = |error: ureq::Error| match error {
            ureq::Error::Timeout(_) => Error::Timeout {
                request: request.summary(),
                timeout,
            },
            other => failed(super::tls::explain(&other.to_string())),
        };
        let mut response = self.agent.run(http_request).map_err(map_error)?;
        let status = response.status().as_u16();
        let header = |name: &str| {
            response
                .headers()
                .get(name)
                .and_then(|value| value.to_str().ok())
                .map(str::to_owned)
        };
        let (retry_after, location) = (header("retry-after"), header("location"));
        // A compressed body's length says nothing of its size once decompressed.
        let announced = if response.headers().contains_key("content-encoding") {
            None
        } else {
            header("content-length").and_then(|length| length.trim().parse().ok())
        };
        let too_large = |_| Error::BodyTooLarge {
            request: request.summary(),
            limit: self.config.max_body_bytes(),
        };
        let mut body =
            BodyBuffer::new(status, self.config.max_body_bytes(), announced).map_err(too_large)?;
        // ureq's own limit counts the bytes on the wire; this reader gives them decompressed.
        let mut reader = response.body_mut().as_reader();
        let mut chunk = vec![0; 64 * 1024];
        loop {
            let read = match reader.read(&mut chunk) {
                Ok(0) => break,
                Ok(read) => read,
                Err(error) if error.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(error) => return Err(map_error(ureq::Error::from(error))),
            };
            if !body.push(&chunk[..read]).map_err(too_large)? {
                break;
            }
        }
        Ok(body.finish(status, retry_after, location))
    }
}

impl std::fmt::Debug for Client {
    // The agent's own `Debug` would show its proxy settings, which may hold credentials.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Client")
            .field("config", &self.config)
            .finish()
    }
}

/// The pages of a list, fetched lazily; see [`Client::pages`].
#[derive(Debug)]
pub struct Pages<T> {
    client: Client,
    cursor: PageCursor,
    record_type: std::marker::PhantomData<fn() -> T>,
}

impl<T> Pages<T> {
    /// How many pages were requested so far.
    pub fn pages_requested(&self) -> usize {
        self.cursor.pages_requested()
    }
}

impl<T> Iterator for Pages<T>
where
    Page<T>: DeserializeOwned,
{
    type Item = Result<Page<T>, Error>;

    fn next(&mut self) -> Option<Self::Item> {
        let request = match self.cursor.next_request()? {
            Ok(request) => request,
            Err(error) => return Some(Err(error)),
        };
        let limits = self.cursor.limits(&self.client.config);
        let page = self.client.call::<Page<T>>(request.clone(), &limits);
        match &page {
            Ok(page) => self.cursor.on_page(&request, page),
            Err(_) => self.cursor.stop(),
        }
        Some(page)
    }
}

/// The records of all pages of a list, fetched lazily; see [`Client::items`].
#[derive(Debug)]
pub struct Items<T> {
    pages: Pages<T>,
    buffer: VecDeque<T>,
}

impl<T> Iterator for Items<T>
where
    Page<T>: DeserializeOwned,
{
    type Item = Result<T, Error>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if let Some(record) = self.buffer.pop_front() {
                return Some(Ok(record));
            }
            match self.pages.next()? {
                Ok(page) => self.buffer = page.results.into(),
                Err(error) => return Some(Err(error)),
            }
        }
    }
}

/// ureq's resolver, except that a host which is an IP address is not looked up under a timeout.
///
/// With a timeout set, ureq's own resolver starts a thread for every request, connection reused or
/// not, to bound a name lookup; an address needs no lookup, so that thread only costs time (a third
/// of a loopback listing). Names still go through ureq's resolver, under the timeout.
#[derive(Debug, Default)]
struct AddressResolver {
    inner: DefaultResolver,
}

impl Resolver for AddressResolver {
    fn resolve(
        &self,
        uri: &ureq::http::Uri,
        config: &ureq::config::Config,
        timeout: NextTimeout,
    ) -> Result<ResolvedSocketAddrs, ureq::Error> {
        let is_address = uri.host().is_some_and(|host| {
            host.trim_start_matches('[')
                .trim_end_matches(']')
                .parse::<std::net::IpAddr>()
                .is_ok()
        });
        // Without a timeout, ureq's resolver parses the address in place.
        let timeout = if is_address {
            NextTimeout::default()
        } else {
            timeout
        };
        self.inner.resolve(uri, config, timeout)
    }
}

#[cfg(test)]
mod tests {
    use std::net::SocketAddr;

    use ureq::unversioned::transport::time::Duration;

    use super::*;

    fn resolve(url: &str, after: Duration) -> Result<Vec<SocketAddr>, ureq::Error> {
        let uri: ureq::http::Uri = url.parse().expect("URI");
        let timeout = NextTimeout {
            after,
            ..NextTimeout::default()
        };
        AddressResolver::default()
            .resolve(&uri, &ureq::config::Config::default(), timeout)
            .map(|addresses| addresses.to_vec())
    }

    #[test]
    fn addresses_resolve_to_themselves_whatever_the_timeout() {
        let expired = Duration::Exact(std::time::Duration::ZERO);
        assert_eq!(
            resolve("http://127.0.0.1:8080/v1/products/", expired).expect("IPv4"),
            ["127.0.0.1:8080".parse::<SocketAddr>().expect("address")]
        );
        assert_eq!(
            resolve("http://[::1]/v1/products/", expired).expect("IPv6"),
            ["[::1]:80".parse::<SocketAddr>().expect("address")]
        );
    }

    #[test]
    fn names_are_still_looked_up() {
        let ample = Duration::Exact(std::time::Duration::from_secs(30));
        let addresses = resolve("http://localhost:8080/", ample).expect("localhost");
        assert!(
            addresses
                .iter()
                .all(|a| a.ip().is_loopback() && a.port() == 8080)
        );
    }
}
