//! What a client is configured with, shared by the blocking and the async client.

use std::sync::Arc;
use std::time::Duration;

use energy_api::rest::{Endpoint, Page};

use super::{BaseUrl, Credentials, Error, HttpRequest, PageCursor, RetryPolicy};

/// The configuration of a client: where the API is, how to authenticate, how long to wait, when to
/// retry, and how many pages to follow at most.
#[derive(Clone, Debug)]
pub struct ClientConfig {
    base_url: BaseUrl,
    credentials: Option<Credentials>,
    timeout: Duration,
    retry: RetryPolicy,
    max_pages: Option<usize>,
    user_agent: Arc<str>,
}

impl ClientConfig {
    /// A configuration with no credentials, a 30 s timeout per request, the default [`RetryPolicy`]
    /// and no cap on pages.
    pub fn new(base_url: BaseUrl) -> Self {
        Self {
            base_url,
            credentials: None,
            timeout: Duration::from_secs(30),
            retry: RetryPolicy::default(),
            max_pages: None,
            user_agent: concat!("energy-runtime/", env!("CARGO_PKG_VERSION")).into(),
        }
    }

    /// Authenticates the endpoints that require it.
    pub fn with_credentials(mut self, credentials: Credentials) -> Self {
        self.credentials = Some(credentials);
        self
    }

    /// The longest one request may take, from connecting to the end of the body.
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// When to retry.
    pub fn with_retry(mut self, retry: RetryPolicy) -> Self {
        self.retry = retry;
        self
    }

    /// Stops a list after this many pages, with [`Error::PageLimit`] if more remain. The first page
    /// is always fetched, so a cap of 0 counts as 1.
    pub fn with_max_pages(mut self, max_pages: usize) -> Self {
        self.max_pages = Some(max_pages.max(1));
        self
    }

    /// The `User-Agent` header (`energy-runtime/<version>` by default).
    pub fn with_user_agent(mut self, user_agent: &str) -> Self {
        self.user_agent = user_agent.into();
        self
    }

    /// The base URL.
    pub fn base_url(&self) -> &BaseUrl {
        &self.base_url
    }

    /// The timeout of one request.
    pub fn timeout(&self) -> Duration {
        self.timeout
    }

    /// The retry policy.
    pub fn retry(&self) -> &RetryPolicy {
        &self.retry
    }

    /// The request of one endpoint call; fails only when the endpoint needs credentials and there
    /// are none.
    pub fn request<E: Endpoint>(&self, endpoint: &E) -> Result<HttpRequest, Error> {
        if E::AUTH_REQUIRED && self.credentials.is_none() {
            return Err(Error::MissingCredentials {
                operation: E::OPERATION,
            });
        }
        Ok(HttpRequest::for_endpoint(
            &self.base_url,
            endpoint,
            self.credentials.as_ref().map(Credentials::authorization),
            Arc::clone(&self.user_agent),
        ))
    }

    /// The pagination of a list endpoint, starting at its first page.
    pub fn pages<E, T>(&self, endpoint: &E) -> PageCursor
    where
        E: Endpoint<Response = Page<T>>,
    {
        PageCursor::new(
            self.request(endpoint),
            self.base_url.clone(),
            self.max_pages,
        )
    }
}
