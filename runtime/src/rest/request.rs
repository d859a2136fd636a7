//! Requests as data: the URL (base URL + path + query string) and headers of one HTTP request.

use std::fmt;
use std::sync::Arc;

use energy_api::rest::{Endpoint, Method};
use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, percent_decode_str, utf8_percent_encode};
use url::Url;

use super::credentials::Secret;
use super::{BaseUrl, Error, RequestSummary};

/// What a query value keeps unencoded: RFC 3986's unreserved characters, and `:` so that date-times
/// stay readable (`period_from=2024-03-31T00:00:00Z`). Everything else, `+` included (a form decoder
/// would read it as a space), is percent-encoded.
const QUERY_VALUE: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~')
    .remove(b':');

/// One HTTP request, ready for a transport to send. Building it does no I/O.
///
/// Its `Debug` never shows the `Authorization` header.
#[derive(Clone)]
pub struct HttpRequest {
    method: Method,
    url: String,
    user_agent: Arc<str>,
    authorization: Option<Secret>,
}

/// One request header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Header<'a> {
    /// The header name.
    pub name: &'static str,
    /// The header value.
    pub value: &'a str,
    /// Whether the value is a secret, which a transport must mark as such and never log.
    pub sensitive: bool,
}

impl HttpRequest {
    /// The request of an endpoint: `{base_url}{path}?{query}`, with the `Authorization` header when the
    /// endpoint requires authentication (and only then: no credential travels where none is needed).
    ///
    /// Refused when a path parameter is empty, `.` or `..`: whatever its encoding, URL parsers
    /// (WHATWG's, the `url` crate's under `reqwest`) and many servers read those as "this folder" or
    /// "the parent folder", and `GetAccount::new("..")` would send `GET /v1/` with the credentials.
    pub(crate) fn for_endpoint<E: Endpoint>(
        base_url: &BaseUrl,
        endpoint: &E,
        authorization: Option<Secret>,
        user_agent: Arc<str>,
    ) -> Result<Self, Error> {
        let path = endpoint.path();
        check_path_parameters(E::PATH_TEMPLATE, &path, E::OPERATION)?;
        let mut url = base_url.join(&path);
        for (index, (name, value)) in endpoint.query().iter().enumerate() {
            url.push(if index == 0 { '?' } else { '&' });
            url.extend(utf8_percent_encode(name, QUERY_VALUE));
            url.push('=');
            url.extend(utf8_percent_encode(value, QUERY_VALUE));
        }
        Ok(Self {
            method: E::METHOD,
            url,
            user_agent,
            authorization: if E::AUTH_REQUIRED {
                authorization
            } else {
                None
            },
        })
    }

    /// The request of the page a `next` link points to: the link as given (resolved against this
    /// request's URL if it is relative), with this request's headers. Refused unless the link stays on
    /// the base URL's origin, so that no credential and no request goes to a host nobody configured.
    pub(crate) fn follow(&self, next: &str, base_url: &BaseUrl) -> Result<(Self, Url), Error> {
        let invalid = |reason: String| Error::InvalidNextPage {
            request: self.summary(),
            next: next.to_owned(),
            reason,
        };
        let (url, absolute) = match Url::parse(next) {
            Ok(url) => (url, true),
            Err(url::ParseError::RelativeUrlWithoutBase) => {
                let current = Url::parse(&self.url).map_err(|e| invalid(e.to_string()))?;
                (
                    current.join(next).map_err(|e| invalid(e.to_string()))?,
                    false,
                )
            }
            Err(e) => return Err(invalid(e.to_string())),
        };
        if !base_url.same_origin(&url) {
            return Err(Error::ForeignNextPage {
                request: self.summary(),
                next: super::base_url::shown_url(next),
                origin: base_url.origin(),
            });
        }
        let request = Self {
            method: Method::Get,
            url: if absolute {
                next.to_owned()
            } else {
                url.as_str().to_owned()
            },
            user_agent: Arc::clone(&self.user_agent),
            authorization: self.authorization.clone(),
        };
        Ok((request, url))
    }

    /// The HTTP method.
    pub fn method(&self) -> Method {
        self.method
    }

    /// The absolute URL, query string included.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// The headers to send: `Accept`, `User-Agent`, and `Authorization` when the request carries
    /// credentials (marked sensitive).
    pub fn headers(&self) -> Vec<Header<'_>> {
        let mut headers = vec![
            Header {
                name: "Accept",
                value: "application/json",
                sensitive: false,
            },
            Header {
                name: "User-Agent",
                value: &self.user_agent,
                sensitive: false,
            },
        ];
        if let Some(authorization) = &self.authorization {
            headers.push(Header {
                name: "Authorization",
                value: authorization.expose(),
                sensitive: true,
            });
        }
        headers
    }

    /// The request as errors and logs show it: method and URL.
    pub fn summary(&self) -> RequestSummary {
        RequestSummary {
            method: self.method,
            url: self.url.clone(),
        }
    }
}

/// An error if a path parameter's segment is empty or a dot segment (`.`, `..`, in any
/// percent-encoding a WHATWG URL parser also reads as one: `%2e`, `.%2E`, ...).
fn check_path_parameters(template: &str, path: &str, operation: &'static str) -> Result<(), Error> {
    for (placeholder, segment) in template.split('/').zip(path.split('/')) {
        let Some(parameter) = placeholder
            .strip_prefix('{')
            .and_then(|rest| rest.strip_suffix('}'))
        else {
            continue;
        };
        let dots = segment.to_ascii_lowercase().replace("%2e", ".");
        if segment.is_empty() || dots == "." || dots == ".." {
            return Err(Error::InvalidPathParameter {
                operation,
                parameter: parameter.to_owned(),
                value: percent_decode_str(segment).decode_utf8_lossy().into_owned(),
            });
        }
    }
    Ok(())
}

impl fmt::Debug for HttpRequest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HttpRequest")
            .field("method", &self.method)
            .field("url", &self.url)
            .field("authorization", &self.authorization)
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use energy_api::rest::{GetAccount, ListProducts, ListStandardUnitRates};

    use super::*;
    use crate::rest::Credentials;

    fn base() -> BaseUrl {
        BaseUrl::parse("https://api.example.com").expect("base")
    }

    fn key() -> Option<Secret> {
        Some(
            Credentials::api_key("sk_test")
                .expect("key")
                .authorization(),
        )
    }

    #[test]
    fn filters_combine_in_the_query_string() {
        let list = ListProducts::default()
            .with_brand("OCTOPUS_ENERGY")
            .with_is_green(true)
            .with_is_prepay(false)
            .with_page_size(25);
        let request =
            HttpRequest::for_endpoint(&base(), &list, key(), "ua".into()).expect("request");
        assert_eq!(
            request.url(),
            "https://api.example.com/v1/products/?brand=OCTOPUS_ENERGY&is_green=true&is_prepay=false&page_size=25"
        );
        // Listing products needs no authentication, so no credential is attached.
        assert!(request.headers().iter().all(|h| h.name != "Authorization"));
    }

    #[test]
    fn query_values_and_path_segments_are_encoded() {
        let list = ListProducts::default().with_brand("A&B =+/é");
        let request =
            HttpRequest::for_endpoint(&base(), &list, None, "ua".into()).expect("request");
        assert_eq!(
            request.url(),
            "https://api.example.com/v1/products/?brand=A%26B%20%3D%2B%2F%C3%A9"
        );
        let mut rates = ListStandardUnitRates::new("AGILE/24", "E-1R?x");
        rates.period_from = Some("2024-03-31T00:00:00Z".parse().expect("instant"));
        let request =
            HttpRequest::for_endpoint(&base(), &rates, None, "ua".into()).expect("request");
        assert_eq!(
            request.url(),
            "https://api.example.com/v1/products/AGILE%2F24/electricity-tariffs/E-1R%3Fx/standard-unit-rates/?period_from=2024-03-31T00:00:00Z"
        );
    }

    #[test]
    fn authenticated_endpoints_carry_the_header_and_debug_hides_it() {
        let request =
            HttpRequest::for_endpoint(&base(), &GetAccount::new("A-1234"), key(), "ua".into())
                .expect("request");
        let authorization = request
            .headers()
            .into_iter()
            .find(|h| h.name == "Authorization")
            .expect("header");
        assert_eq!(authorization.value, "Basic c2tfdGVzdDo=");
        assert!(authorization.sensitive);
        let debug = format!("{request:?}");
        assert!(!debug.contains("c2tfdGVzdDo"), "{debug}");
        assert!(debug.contains("<redacted>"), "{debug}");
    }

    #[test]
    fn dot_segments_and_empty_parameters_are_refused_and_dots_elsewhere_kept() {
        for value in ["", ".", ".."] {
            let error =
                HttpRequest::for_endpoint(&base(), &GetAccount::new(value), key(), "ua".into())
                    .expect_err(value);
            let Error::InvalidPathParameter {
                operation,
                parameter,
                value: shown,
            } = &error
            else {
                panic!("{error}")
            };
            assert_eq!(
                (*operation, parameter.as_str()),
                ("get_account", "account_number")
            );
            assert_eq!(shown, value);
        }
        for (value, segment) in [
            ("...", "..."),
            (".a", ".a"),
            ("%2e%2e", "%252e%252e"),
            ("../x", "..%2Fx"),
        ] {
            let request =
                HttpRequest::for_endpoint(&base(), &GetAccount::new(value), key(), "ua".into())
                    .expect(value);
            assert_eq!(
                request.url(),
                format!("https://api.example.com/v1/accounts/{segment}/")
            );
        }
        let rates = ListStandardUnitRates::new("AGILE-24-04-03", "..");
        let error = HttpRequest::for_endpoint(&base(), &rates, None, "ua".into()).expect_err("..");
        assert!(
            error.to_string().starts_with(
                "`list_standard_unit_rates`: the path parameter `tariff_code` is `..`, which cannot be sent"
            ),
            "{error}"
        );
    }

    #[test]
    fn next_links_are_followed_as_given_on_the_same_origin_only() {
        let first = HttpRequest::for_endpoint(&base(), &GetAccount::new("A-1"), key(), "ua".into())
            .expect("request");
        let given = "https://api.example.com/v1/products/?page=2&brand=X";
        let (next, _) = first.follow(given, &base()).expect("same origin");
        assert_eq!(next.url(), given);
        assert_eq!(next.headers(), first.headers());
        let (relative, _) = first
            .follow("/v1/products/?page=3", &base())
            .expect("relative");
        assert_eq!(
            relative.url(),
            "https://api.example.com/v1/products/?page=3"
        );
        for foreign in [
            "https://evil.example.com/v1/products/?page=2",
            "http://api.example.com/v1/products/?page=2",
            "//evil.example.com/steal",
        ] {
            let error = first.follow(foreign, &base()).expect_err(foreign);
            assert!(matches!(error, Error::ForeignNextPage { .. }), "{error}");
        }
    }
}
