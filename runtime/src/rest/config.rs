//! What a client is configured with, shared by the blocking and the async client.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use energy_api::rest::{Endpoint, Page};

use super::{BaseUrl, Credentials, Error, HttpRequest, PageCursor, RetryNotice, RetryPolicy};

/// The configuration of a client: where the API is, how to authenticate, how long to wait, when to
/// retry, and the bounds that no server can push a client past (body size, pages, deadline).
#[derive(Clone, Debug)]
pub struct ClientConfig {
    base_url: BaseUrl,
    credentials: Option<Credentials>,
    timeout: Duration,
    deadline: Duration,
    retry: RetryPolicy,
    max_pages: usize,
    max_body_bytes: u64,
    retry_notice: Option<RetryObserver>,
    user_agent: Arc<str>,
}

/// What a client calls before waiting to retry.
#[derive(Clone)]
struct RetryObserver(Arc<dyn Fn(&RetryNotice) + Send + Sync>);

impl fmt::Debug for RetryObserver {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("RetryObserver")
    }
}

impl ClientConfig {
    /// The default largest body: 10 MiB, decompressed (a page of 1,500 unit rates is about 200 KB).
    pub const DEFAULT_MAX_BODY_BYTES: u64 = 10 * 1024 * 1024;
    /// The default cap on the pages of one list: 1,000 (100,000 records at the usual page size).
    pub const DEFAULT_MAX_PAGES: usize = 1_000;
    /// The default deadline of one call or one whole list: 10 minutes.
    pub const DEFAULT_DEADLINE: Duration = Duration::from_secs(600);

    /// A configuration with no credentials, a 30 s timeout per request, the default [`RetryPolicy`],
    /// and the default bounds: bodies of at most [`DEFAULT_MAX_BODY_BYTES`](Self::DEFAULT_MAX_BODY_BYTES),
    /// lists of at most [`DEFAULT_MAX_PAGES`](Self::DEFAULT_MAX_PAGES) pages, and a
    /// [`DEFAULT_DEADLINE`](Self::DEFAULT_DEADLINE) for any call or list.
    pub fn new(base_url: BaseUrl) -> Self {
        Self {
            base_url,
            credentials: None,
            timeout: Duration::from_secs(30),
            deadline: Self::DEFAULT_DEADLINE,
            retry: RetryPolicy::default(),
            max_pages: Self::DEFAULT_MAX_PAGES,
            max_body_bytes: Self::DEFAULT_MAX_BODY_BYTES,
            retry_notice: None,
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

    /// The longest one call may take, its retries and their waits included; for a list, the longest
    /// the whole list may take, every page included. Past it, the call ends with
    /// [`Error::DeadlineExceeded`], saying how many pages and records came before it; a request under
    /// way is cut short, and a retry whose wait would pass it is not made.
    pub fn with_deadline(mut self, deadline: Duration) -> Self {
        self.deadline = deadline;
        self
    }

    /// The largest response body read, counted after decompression (a small compressed body can
    /// expand a thousandfold); a larger one ends the call with [`Error::BodyTooLarge`] as soon as the
    /// limit is passed, without reading the rest.
    pub fn with_max_body_bytes(mut self, max_body_bytes: u64) -> Self {
        self.max_body_bytes = max_body_bytes;
        self
    }

    /// Calls `notice` before each retry's wait: the request, the status that caused it, the wait and
    /// whether the server asked for it (`Retry-After`). The `energy` CLI prints it on stderr.
    pub fn with_retry_notice(
        mut self,
        notice: impl Fn(&RetryNotice) + Send + Sync + 'static,
    ) -> Self {
        self.retry_notice = Some(RetryObserver(Arc::new(notice)));
        self
    }

    /// When to retry.
    pub fn with_retry(mut self, retry: RetryPolicy) -> Self {
        self.retry = retry;
        self
    }

    /// Stops a list after this many pages, with [`Error::PageLimit`] if more remain (default
    /// [`DEFAULT_MAX_PAGES`](Self::DEFAULT_MAX_PAGES)). The first page is always fetched, so a cap
    /// of 0 counts as 1.
    pub fn with_max_pages(mut self, max_pages: usize) -> Self {
        self.max_pages = max_pages.max(1);
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

    /// The deadline of one call or one whole list.
    pub fn deadline(&self) -> Duration {
        self.deadline
    }

    /// The largest response body read, decompressed.
    pub fn max_body_bytes(&self) -> u64 {
        self.max_body_bytes
    }

    /// The cap on the pages of one list.
    pub fn max_pages(&self) -> usize {
        self.max_pages
    }

    /// Tells the retry observer, if any, of a coming retry.
    pub(crate) fn notify_retry(&self, notice: &RetryNotice) {
        if let Some(RetryObserver(observer)) = &self.retry_notice {
            observer(notice);
        }
    }

    /// The retry policy.
    pub fn retry(&self) -> &RetryPolicy {
        &self.retry
    }

    /// The request of one endpoint call; fails when the endpoint needs credentials and there are
    /// none, and when a path parameter cannot be sent as a path segment (empty, `.` or `..`).
    pub fn request<E: Endpoint>(&self, endpoint: &E) -> Result<HttpRequest, Error> {
        if E::AUTH_REQUIRED && self.credentials.is_none() {
            return Err(Error::MissingCredentials {
                operation: E::OPERATION,
            });
        }
        HttpRequest::for_endpoint(
            &self.base_url,
            endpoint,
            self.credentials.as_ref().map(Credentials::authorization),
            Arc::clone(&self.user_agent),
        )
    }

    /// The pagination of a list endpoint, starting at its first page.
    pub fn pages<E, T>(&self, endpoint: &E) -> PageCursor
    where
        E: Endpoint<Response = Page<T>>,
    {
        PageCursor::new(
            self.request(endpoint),
            self.base_url.clone(),
            Some(self.max_pages),
        )
        .with_deadline(self.deadline)
    }
}
