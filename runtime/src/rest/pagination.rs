//! Following `next` links: which page to fetch next, and when to stop.

use std::collections::HashSet;
use std::time::Duration;

use energy_api::rest::Page;
use url::Url;

use super::exchange::{CallLimits, Deadline};
use super::{BaseUrl, ClientConfig, Error, HttpRequest};

/// The pages of one list call, as a state machine both clients drive: ask [`PageCursor::next_request`]
/// for a request, fetch it, hand the page to [`PageCursor::on_page`] (or report a failure with
/// [`PageCursor::stop`]), repeat until `next_request` gives `None`.
///
/// The cursor follows each page's `next` link exactly as given, lazily (only when asked), and refuses
/// a link that leaves the base URL's origin, one that repeats a page already fetched (a loop), and one
/// past the optional cap on pages. A refusal comes out of `next_request` as an error, after the page
/// that carried the link; the cursor is finished after any error.
///
/// The clients also hold the whole list to one deadline ([`ClientConfig::with_deadline`]), started
/// when the first page is requested.
#[derive(Debug)]
pub struct PageCursor {
    base_url: BaseUrl,
    state: State,
    seen: HashSet<String>,
    fetched: usize,
    received: usize,
    records: usize,
    max_pages: Option<usize>,
    deadline_length: Duration,
    deadline: Option<Deadline>,
}

#[derive(Debug)]
enum State {
    Fetch(HttpRequest),
    Fail(Error),
    Finished,
}

impl PageCursor {
    /// A cursor whose first page is `first` (or which fails at once with the error that prevented
    /// building it); `max_pages` caps the pages fetched.
    pub fn new(
        first: Result<HttpRequest, Error>,
        base_url: BaseUrl,
        max_pages: Option<usize>,
    ) -> Self {
        Self {
            base_url,
            state: match first {
                Ok(request) => State::Fetch(request),
                Err(error) => State::Fail(error),
            },
            seen: HashSet::new(),
            fetched: 0,
            received: 0,
            records: 0,
            max_pages,
            deadline_length: ClientConfig::DEFAULT_DEADLINE,
            deadline: None,
        }
    }

    /// The deadline of the whole list (started when its first page is requested).
    pub(crate) fn with_deadline(mut self, length: Duration) -> Self {
        self.deadline_length = length;
        self
    }

    /// The limits of the next page's call: the list's deadline, and how far the list got.
    pub(crate) fn limits<'a>(&mut self, config: &'a ClientConfig) -> CallLimits<'a> {
        let length = self.deadline_length;
        let deadline = *self.deadline.get_or_insert_with(|| Deadline::start(length));
        CallLimits::in_list(config, deadline, self.received, self.records)
    }

    /// The request of the next page, an error that ends the pagination, or `None` when it is over.
    pub fn next_request(&mut self) -> Option<Result<HttpRequest, Error>> {
        match std::mem::replace(&mut self.state, State::Finished) {
            State::Fetch(request) => {
                if let Ok(url) = Url::parse(request.url()) {
                    self.seen.insert(url.into());
                }
                self.fetched += 1;
                Some(Ok(request))
            }
            State::Fail(error) => Some(Err(error)),
            State::Finished => None,
        }
    }

    /// Takes the page that `request` fetched, and decides what comes after it.
    pub fn on_page<T>(&mut self, request: &HttpRequest, page: &Page<T>) {
        self.received += 1;
        self.records += page.results.len();
        self.state = match self.after(request, page) {
            Ok(Some(next)) => State::Fetch(next),
            Ok(None) => State::Finished,
            Err(error) => State::Fail(error),
        };
    }

    /// Ends the pagination after a failed fetch.
    pub fn stop(&mut self) {
        self.state = State::Finished;
    }

    /// How many pages were requested so far.
    pub fn pages_requested(&self) -> usize {
        self.fetched
    }

    /// How many records the pages received so far held.
    pub fn records_received(&self) -> usize {
        self.records
    }

    fn after<T>(
        &self,
        request: &HttpRequest,
        page: &Page<T>,
    ) -> Result<Option<HttpRequest>, Error> {
        let Some(next) = page.next.as_deref() else {
            return Ok(None);
        };
        let (next_request, url) = request.follow(next, &self.base_url)?;
        if self.seen.contains(url.as_str()) {
            return Err(Error::PaginationLoop {
                request: request.summary(),
                next: next.to_owned(),
            });
        }
        if let Some(limit) = self.max_pages.filter(|&limit| self.fetched >= limit) {
            return Err(Error::PageLimit {
                request: request.summary(),
                limit,
                records: self.records,
            });
        }
        Ok(Some(next_request))
    }
}

#[cfg(test)]
mod tests {
    use energy_api::rest::ListProducts;

    use super::*;

    fn base() -> BaseUrl {
        BaseUrl::parse("https://api.example.com").expect("base")
    }

    fn cursor(max_pages: Option<usize>) -> PageCursor {
        let first = HttpRequest::for_endpoint(&base(), &ListProducts::default(), None, "ua".into())
            .expect("request");
        PageCursor::new(Ok(first), base(), max_pages)
    }

    fn page(next: Option<&str>) -> Page<()> {
        Page::new(3, next.map(str::to_owned), None, vec![()])
    }

    fn fetch(cursor: &mut PageCursor, next: Option<&str>) -> Option<Result<String, String>> {
        let request = match cursor.next_request()? {
            Ok(request) => request,
            Err(error) => return Some(Err(error.to_string())),
        };
        cursor.on_page(&request, &page(next));
        Some(Ok(request.url().to_owned()))
    }

    #[test]
    fn follows_next_until_null() {
        let mut cursor = cursor(None);
        let page2 = "https://api.example.com/v1/products/?page=2";
        assert_eq!(
            fetch(&mut cursor, Some(page2)),
            Some(Ok("https://api.example.com/v1/products/".to_owned()))
        );
        assert_eq!(fetch(&mut cursor, None), Some(Ok(page2.to_owned())));
        assert_eq!(fetch(&mut cursor, None), None);
        assert_eq!(cursor.pages_requested(), 2);
    }

    #[test]
    fn a_next_that_repeats_a_page_is_an_error_not_a_loop() {
        let mut cursor = cursor(None);
        let page2 = "https://api.example.com/v1/products/?page=2";
        fetch(&mut cursor, Some(page2));
        // Page 2 points back to page 1 (spelled with the default port, still the same page).
        fetch(
            &mut cursor,
            Some("https://api.example.com:443/v1/products/"),
        );
        let error = fetch(&mut cursor, None)
            .expect("an error")
            .expect_err("loop");
        assert!(error.contains("repeats a page already fetched"), "{error}");
        assert_eq!(fetch(&mut cursor, None), None);
    }

    #[test]
    fn a_next_to_another_origin_is_an_error() {
        let mut cursor = cursor(None);
        fetch(
            &mut cursor,
            Some("https://elsewhere.example.net/v1/products/?page=2"),
        );
        let error = fetch(&mut cursor, None)
            .expect("an error")
            .expect_err("foreign");
        assert!(
            error.contains("leaves the API's origin https://api.example.com"),
            "{error}"
        );
        assert_eq!(fetch(&mut cursor, None), None);
    }

    #[test]
    fn the_page_cap_stops_with_an_error_when_more_remain() {
        let mut cursor = cursor(Some(2));
        fetch(
            &mut cursor,
            Some("https://api.example.com/v1/products/?page=2"),
        );
        fetch(
            &mut cursor,
            Some("https://api.example.com/v1/products/?page=3"),
        );
        let error = fetch(&mut cursor, None)
            .expect("an error")
            .expect_err("cap");
        assert!(
            error.contains("stopped after 2 pages (2 records)"),
            "{error}"
        );

        let mut exact = self::cursor(Some(2));
        fetch(
            &mut exact,
            Some("https://api.example.com/v1/products/?page=2"),
        );
        assert!(fetch(&mut exact, None).expect("page 2").is_ok());
        assert_eq!(fetch(&mut exact, None), None);
    }
}
