//! The serving side of the REST endpoints (feature `server`): what a generated crate declares for each
//! operation, and the one reader of a request's parameters that every server of the API shares.
//!
//! A generated crate declares, per operation, a row ([`Operation`], its [`Parameter`]s with their
//! rules), how its request type is read from [`Arguments`] ([`Request`], through `server_request!`),
//! its response enum ([`Reply`], through `server_reply!`), and one trait of handlers with the routes
//! that call it (`server_api!`). An HTTP server (the `energy-server` crate) turns a request into
//! [`Arguments`], a route into a call, and a [`ServerError`] or a [`Reply`] into a response. Nothing
//! here does I/O.
//!
//! Every violation of a request is collected, not only the first: a client learns at once that
//! `page_size` is out of range *and* `is_green` is not a boolean.

use crate::rest::{Endpoint, Method};
use std::any::Any;
use std::borrow::Cow;
use std::future::Future;
use std::pin::Pin;

/// Where a parameter is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Location {
    /// A segment of the path.
    Path,
    /// The query string.
    Query,
}

impl Location {
    /// As OpenAPI's `in` names it.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Path => "path",
            Self::Query => "query",
        }
    }
}

/// One parameter of an operation, as the schema declares it, with the rules a server enforces.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Parameter {
    /// The name on the wire.
    pub name: &'static str,
    /// Where it is.
    pub location: Location,
    /// The least value of an integer.
    pub minimum: Option<i64>,
    /// The greatest value of an integer.
    pub maximum: Option<i64>,
    /// The value an absent integer takes.
    pub default: Option<i64>,
    /// Another date-time parameter this one may not be later than.
    pub not_after: Option<&'static str>,
}

impl Parameter {
    /// A path parameter (always required).
    pub const fn path(name: &'static str) -> Self {
        Self::new(name, Location::Path)
    }

    /// A query parameter (always optional).
    pub const fn query(name: &'static str) -> Self {
        Self::new(name, Location::Query)
    }

    const fn new(name: &'static str, location: Location) -> Self {
        Self {
            name,
            location,
            minimum: None,
            maximum: None,
            default: None,
            not_after: None,
        }
    }

    /// With a least value.
    pub const fn minimum(mut self, value: i64) -> Self {
        self.minimum = Some(value);
        self
    }

    /// With a greatest value.
    pub const fn maximum(mut self, value: i64) -> Self {
        self.maximum = Some(value);
        self
    }

    /// With a default.
    pub const fn default(mut self, value: i64) -> Self {
        self.default = Some(value);
        self
    }

    /// Not later than the parameter `other`.
    pub const fn not_after(mut self, other: &'static str) -> Self {
        self.not_after = Some(other);
        self
    }
}

/// One operation, as the schema declares it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Operation {
    /// The operation's name (its `operationId`).
    pub name: &'static str,
    /// The HTTP method.
    pub method: Method,
    /// The path with `{parameter}` placeholders, ending with `/`.
    pub path: &'static str,
    /// Whether credentials are required.
    pub auth_required: bool,
    /// Its parameters: the path's in path order, then the query's.
    pub parameters: &'static [Parameter],
}

impl Operation {
    /// The path parameters' raw (still percent-encoded) values when `path` is this operation's, with
    /// or without its trailing `/` (the spec shows both forms); `None` when it is not.
    pub fn match_path<'p>(&self, path: &'p str) -> Option<Vec<(&'static str, &'p str)>> {
        let template = self.path.strip_suffix('/').unwrap_or(self.path);
        let path = path.strip_suffix('/').unwrap_or(path);
        let mut wanted = template.split('/');
        let mut given = path.split('/');
        let mut values = Vec::new();
        loop {
            match (wanted.next(), given.next()) {
                (None, None) => return Some(values),
                (Some(w), Some(g)) => {
                    if let Some(name) = w.strip_prefix('{').and_then(|w| w.strip_suffix('}')) {
                        if g.is_empty() {
                            return None;
                        }
                        let name = self
                            .parameters
                            .iter()
                            .find(|p| p.name == name)
                            .map_or("", |p| p.name);
                        values.push((name, g));
                    } else if w != g {
                        return None;
                    }
                }
                _ => return None,
            }
        }
    }
}

/// What is wrong with one parameter of a request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Violation {
    /// The parameter's name (as given, for an unknown one).
    pub parameter: String,
    /// Where it is.
    pub location: Location,
    /// A stable code: `missing`, `empty`, `invalid`, `out_of_range`, `unknown`, `repeated`,
    /// `bad_encoding`, `order`.
    pub code: &'static str,
    /// What is wrong, in a sentence.
    pub message: String,
}

/// A value of a parameter, read from its text.
pub trait FromArgument: Sized {
    /// The value of `text`, or a code and a sentence saying why it is not one.
    fn from_argument(text: &str, parameter: &Parameter) -> Result<Self, (&'static str, String)>;
}

impl FromArgument for String {
    fn from_argument(text: &str, _: &Parameter) -> Result<Self, (&'static str, String)> {
        Ok(text.to_owned())
    }
}

impl FromArgument for bool {
    /// Exactly `true` or `false`, as the client writes them.
    fn from_argument(text: &str, _: &Parameter) -> Result<Self, (&'static str, String)> {
        match text {
            "true" => Ok(true),
            "false" => Ok(false),
            _ => Err(("invalid", "must be `true` or `false`".to_owned())),
        }
    }
}

impl FromArgument for i64 {
    /// A whole number in decimal (an optional `-`, digits), within the parameter's bounds.
    fn from_argument(text: &str, parameter: &Parameter) -> Result<Self, (&'static str, String)> {
        let digits = text.strip_prefix('-').unwrap_or(text);
        let value = if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) {
            text.parse::<i64>().ok()
        } else {
            None
        };
        let Some(value) = value else {
            return Err((
                "invalid",
                "must be a whole number, such as `100`".to_owned(),
            ));
        };
        let below = parameter.minimum.is_some_and(|min| value < min);
        let above = parameter.maximum.is_some_and(|max| value > max);
        if below || above {
            let range = match (parameter.minimum, parameter.maximum) {
                (Some(min), Some(max)) => format!("from {min} to {max}"),
                (Some(min), None) => format!("{min} or more"),
                (None, Some(max)) => format!("{max} or less"),
                (None, None) => String::new(),
            };
            return Err(("out_of_range", format!("must be {range}; {value} is not")));
        }
        Ok(value)
    }
}

#[cfg(feature = "jiff")]
impl FromArgument for jiff::Timestamp {
    /// An ISO 8601 date-time, by the rule of [`crate::datetime`] (`Europe/London` without a zone).
    fn from_argument(text: &str, _: &Parameter) -> Result<Self, (&'static str, String)> {
        crate::datetime::parse(text)
            .and_then(|t| t.to_timestamp())
            .map_err(|reason| {
                (
                    "invalid",
                    format!("must be an ISO 8601 date-time: {reason}"),
                )
            })
    }
}

/// One query parameter as given.
#[derive(Debug)]
struct Given {
    name: String,
    value: String,
    taken: bool,
}

/// The parameters of one request, decoded, read once each by the request type's declaration; what is
/// wrong is collected, not returned at the first problem.
#[derive(Debug)]
pub struct Arguments {
    operation: &'static Operation,
    path: Vec<(&'static str, String)>,
    query: Vec<Given>,
    #[cfg(feature = "jiff")]
    instants: Vec<(&'static str, jiff::Timestamp)>,
    violations: Vec<Violation>,
}

impl Arguments {
    /// The arguments of `operation` in a request whose path matched it with the raw `path` values
    /// ([`Operation::match_path`]), and whose raw query string is `query` (without the `?`).
    /// Percent-encoding is decoded (`+` is a space in the query); what does not decode to UTF-8 is a
    /// violation.
    pub fn read(
        operation: &'static Operation,
        path: &[(&'static str, &str)],
        query: Option<&str>,
    ) -> Self {
        let mut violations = Vec::new();
        let mut decoded_path = Vec::new();
        for (name, raw) in path {
            match percent_decode(raw, false) {
                Ok(value) => decoded_path.push((*name, value)),
                Err(why) => violations.push(Violation {
                    parameter: (*name).to_owned(),
                    location: Location::Path,
                    code: "bad_encoding",
                    message: why,
                }),
            }
        }
        let mut given = Vec::new();
        for pair in query
            .unwrap_or_default()
            .split('&')
            .filter(|p| !p.is_empty())
        {
            let (raw_name, raw_value) = pair.split_once('=').unwrap_or((pair, ""));
            match (
                percent_decode(raw_name, true),
                percent_decode(raw_value, true),
            ) {
                (Ok(name), Ok(value)) => given.push(Given {
                    name,
                    value,
                    taken: false,
                }),
                (name, value) => violations.push(Violation {
                    parameter: name.unwrap_or_else(|_| shown(raw_name)),
                    location: Location::Query,
                    code: "bad_encoding",
                    message: value
                        .err()
                        .unwrap_or_else(|| "its name does not decode".to_owned()),
                }),
            }
        }
        Self {
            operation,
            path: decoded_path,
            query: given,
            #[cfg(feature = "jiff")]
            instants: Vec::new(),
            violations,
        }
    }

    fn parameter(&self, name: &'static str) -> Parameter {
        self.operation
            .parameters
            .iter()
            .find(|p| p.name == name)
            .copied()
            .unwrap_or(Parameter::query(name))
    }

    fn violation(&mut self, parameter: &Parameter, code: &'static str, message: String) {
        self.violations.push(Violation {
            parameter: parameter.name.to_owned(),
            location: parameter.location,
            code,
            message,
        });
    }

    /// The text given for `parameter`: `None` when absent (a violation when repeated or empty).
    fn text(&mut self, parameter: &Parameter) -> Option<String> {
        match parameter.location {
            Location::Path => self
                .path
                .iter()
                .find(|(name, _)| *name == parameter.name)
                .map(|(_, value)| value.clone()),
            Location::Query => {
                let mut found: Option<String> = None;
                let mut repeated = false;
                for given in self.query.iter_mut().filter(|g| g.name == parameter.name) {
                    given.taken = true;
                    if found.is_some() {
                        repeated = true;
                    } else {
                        found = Some(given.value.clone());
                    }
                }
                if repeated {
                    self.violation(parameter, "repeated", "is given more than once".to_owned());
                    return None;
                }
                found
            }
        }
    }

    fn value<T: FromArgument + 'static>(&mut self, parameter: &Parameter, text: &str) -> Option<T> {
        if text.is_empty() {
            self.violation(
                parameter,
                "empty",
                "is empty: give a value or leave the parameter out".to_owned(),
            );
            return None;
        }
        match T::from_argument(text, parameter) {
            Ok(value) => {
                #[cfg(feature = "jiff")]
                if let Some(instant) = (&value as &dyn Any).downcast_ref::<jiff::Timestamp>() {
                    self.instants.push((parameter.name, *instant));
                }
                Some(value)
            }
            Err((code, message)) => {
                self.violation(parameter, code, message);
                None
            }
        }
    }

    /// A required parameter's value; a violation when it is absent or not valid.
    pub fn required<T: FromArgument + 'static>(&mut self, name: &'static str) -> Option<T> {
        let parameter = self.parameter(name);
        match self.text(&parameter) {
            Some(text) => self.value(&parameter, &text),
            None => {
                if !self.violations.iter().any(|v| v.parameter == name) {
                    self.violation(&parameter, "missing", "is required".to_owned());
                }
                None
            }
        }
    }

    /// An optional parameter's value: its default (or `None`) when absent; a violation when it is
    /// not valid.
    pub fn optional<T: FromArgument + From<i64> + 'static>(
        &mut self,
        name: &'static str,
    ) -> Option<T> {
        let parameter = self.parameter(name);
        match self.text(&parameter) {
            Some(text) => self.value(&parameter, &text),
            None => parameter.default.map(T::from),
        }
    }

    /// An optional parameter without a default: its value, or `None` when absent; a violation when
    /// it is not valid.
    pub fn optional_plain<T: FromArgument + 'static>(&mut self, name: &'static str) -> Option<T> {
        let parameter = self.parameter(name);
        let text = self.text(&parameter)?;
        self.value(&parameter, &text)
    }

    /// An array parameter (the parameter repeated): every value, or `None` when absent; a violation
    /// for each value that is not valid.
    pub fn list<T: FromArgument + 'static>(&mut self, name: &'static str) -> Option<Vec<T>> {
        let parameter = self.parameter(name);
        let mut texts = Vec::new();
        for given in self.query.iter_mut().filter(|g| g.name == parameter.name) {
            given.taken = true;
            texts.push(given.value.clone());
        }
        if texts.is_empty() {
            return None;
        }
        let values: Vec<Option<T>> = texts.iter().map(|t| self.value(&parameter, t)).collect();
        values.into_iter().collect()
    }

    /// A required array parameter: every value; a violation when it is absent.
    pub fn required_list<T: FromArgument + 'static>(
        &mut self,
        name: &'static str,
    ) -> Option<Vec<T>> {
        let listed = self.list(name);
        if listed.is_none() && !self.violations.iter().any(|v| v.parameter == name) {
            let parameter = self.parameter(name);
            self.violation(&parameter, "missing", "is required".to_owned());
        }
        listed
    }

    /// Checks what concerns the request as a whole, once every parameter has been read: no unknown
    /// parameter, date-times in order (`not_after`). Whether the request is free of violations.
    pub fn finish(&mut self) -> bool {
        let known: Vec<&str> = self
            .operation
            .parameters
            .iter()
            .filter(|p| p.location == Location::Query)
            .map(|p| p.name)
            .collect();
        let mut unknown: Vec<String> = Vec::new();
        for given in self.query.iter().filter(|g| !g.taken) {
            if !unknown.contains(&given.name) {
                unknown.push(given.name.clone());
            }
        }
        for name in unknown {
            let message = if known.is_empty() {
                format!(
                    "is not a parameter of `{}`, which takes none",
                    self.operation.name
                )
            } else {
                format!(
                    "is not a parameter of `{}` (it takes {})",
                    self.operation.name,
                    known
                        .iter()
                        .map(|k| format!("`{k}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            };
            self.violations.push(Violation {
                parameter: name,
                location: Location::Query,
                code: "unknown",
                message,
            });
        }
        #[cfg(feature = "jiff")]
        for parameter in self.operation.parameters {
            let Some(other) = parameter.not_after else {
                continue;
            };
            let at = |name: &str| {
                self.instants
                    .iter()
                    .find(|(n, _)| *n == name)
                    .map(|(_, t)| *t)
            };
            if let (Some(this), Some(that)) = (at(parameter.name), at(other))
                && this > that
            {
                let message = format!("{this} is later than `{other}` ({that})");
                self.violation(parameter, "order", message);
            }
        }
        // In the order the operation declares its parameters (an unknown one last).
        let place = |v: &Violation| {
            self.operation
                .parameters
                .iter()
                .position(|p| p.name == v.parameter)
                .unwrap_or(usize::MAX)
        };
        self.violations.sort_by_key(place);
        self.violations.is_empty()
    }

    /// The violations found, in the order of the operation's parameters.
    pub fn violations(&self) -> &[Violation] {
        &self.violations
    }

    /// The error that refuses this request: every violation.
    pub fn refusal(&mut self) -> ServerError {
        ServerError::bad_request(std::mem::take(&mut self.violations))
    }
}

/// Some text given by a client, as an error may show it: at most 100 characters, control characters
/// escaped.
fn shown(text: &str) -> String {
    let mut out: String = text
        .chars()
        .take(100)
        .flat_map(char::escape_debug)
        .collect();
    if text.chars().count() > 100 {
        out.push('…');
    }
    out
}

/// Percent-decodes `raw` (and `+` as a space in a query), into UTF-8.
fn percent_decode(raw: &str, plus_is_space: bool) -> Result<String, String> {
    let bytes = raw.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'%' => {
                let hex = |b: u8| char::from(b).to_digit(16);
                match (
                    bytes.get(i + 1).copied().and_then(hex),
                    bytes.get(i + 2).copied().and_then(hex),
                ) {
                    (Some(high), Some(low)) => {
                        out.push(u8::try_from(high * 16 + low).unwrap_or(b'?'));
                        i += 3;
                    }
                    _ => {
                        return Err(format!(
                            "`%` must be followed by two hexadecimal digits (in `{}`)",
                            shown(raw)
                        ));
                    }
                }
            }
            b'+' if plus_is_space => {
                out.push(b' ');
                i += 1;
            }
            b => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8(out).map_err(|_| "its percent-encoded bytes are not UTF-8".to_owned())
}

/// A request type as a server reads it: its operation's row, and how it is built from the arguments.
pub trait Request: Endpoint + Sized + Send + 'static {
    /// The operation's row.
    const ROW: &'static Operation;
    /// The request, when every parameter is valid (`None` leaves the violations in `arguments`).
    fn from_arguments(arguments: &mut Arguments) -> Option<Self>;
}

/// A page of a list, whose links a server writes.
pub trait Paged {
    /// The number of records of the whole list.
    fn count(&self) -> i64;
    /// Sets the links to the next and the previous page.
    fn set_links(&mut self, next: Option<String>, previous: Option<String>);
}

/// A response of an operation: one variant per documented status.
pub trait Reply: Send + 'static {
    /// The HTTP status.
    fn status(&self) -> u16;
    /// The page, when the body is one (its links are the server's to write).
    fn page(&mut self) -> Option<&mut dyn Paged>;
    /// The JSON body.
    fn to_json(&self) -> Result<Vec<u8>, String>;
}

/// A documented example of an operation's response (the OpenAPI document's), for a mock server and
/// `Prefer: example=…`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Example {
    /// The operation.
    pub operation: &'static str,
    /// The status it is an example of.
    pub status: u16,
    /// Its name in the document (`sample`).
    pub name: &'static str,
    /// The JSON body.
    pub body: &'static str,
}

/// A boxed future, as routes return them.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// A typed request, inspected by a hook before its handler runs (downcast it to the request type).
pub type Inspect<'h> =
    &'h mut (dyn FnMut(&'static Operation, &dyn Any) -> Result<(), ServerError> + Send);

/// A request read and handed to its handler.
pub struct Called<'a> {
    /// The request's path, as a client writes it (percent-encoded).
    pub path: String,
    /// The request's query parameters that are set, as a client writes them (dates in UTC): the
    /// filters that links to other pages keep.
    pub query: Vec<(&'static str, String)>,
    /// The handler's answer.
    pub reply: BoxFuture<'a, Result<Box<dyn Reply>, ServerError>>,
}

type Call<A, P> = dyn for<'a> Fn(&'a A, &mut Arguments, Option<&'a P>, Inspect<'_>) -> Result<Called<'a>, ServerError>
    + Send
    + Sync;

/// How a route hands a request of type `R` to its handler of the trait `A` (principal type `P`).
pub type Handler<A, P, R> =
    for<'a> fn(&'a A, R, Option<&'a P>) -> BoxFuture<'a, Result<Box<dyn Reply>, ServerError>>;

/// One operation of a handlers' trait `A` (whose principal type is `P`): its row, and how a request
/// is read and handed to its handler.
pub struct Route<A, P> {
    /// The operation's row.
    pub operation: &'static Operation,
    call: Box<Call<A, P>>,
}

impl<A: 'static, P: 'static> Route<A, P> {
    /// The route of the request type `R`, whose handler is `handle`.
    pub fn new<R: Request>(handle: Handler<A, P, R>) -> Self {
        Self {
            operation: R::ROW,
            call: Box::new(move |api, arguments, principal, inspect| {
                let Some(request) = R::from_arguments(arguments) else {
                    return Err(arguments.refusal());
                };
                inspect(R::ROW, &request)?;
                let path = request.path();
                let query = request.query();
                Ok(Called {
                    path,
                    query,
                    reply: handle(api, request, principal),
                })
            }),
        }
    }

    /// Reads the request from `arguments` (every violation refused at once), shows it to `inspect`,
    /// and hands it to the handler.
    pub fn call<'a>(
        &self,
        api: &'a A,
        arguments: &mut Arguments,
        principal: Option<&'a P>,
        inspect: Inspect<'_>,
    ) -> Result<Called<'a>, ServerError> {
        (self.call)(api, arguments, principal, inspect)
    }
}

/// The one error of every operation: a status, a stable code, a sentence, and, for a request refused,
/// every violation. Its body is the API's error body:
///
/// ```json
/// {"detail": "2 query parameters are not valid", "code": "invalid_parameters",
///  "errors": [{"parameter": "page_size", "in": "query", "code": "out_of_range",
///              "message": "must be from 1 to 1000; 0 is not"}, …]}
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerError {
    status: u16,
    code: Cow<'static, str>,
    detail: String,
    violations: Vec<Violation>,
    headers: Vec<(&'static str, String)>,
}

impl ServerError {
    /// An error with any status, code and sentence.
    pub fn new(status: u16, code: impl Into<Cow<'static, str>>, detail: impl Into<String>) -> Self {
        Self {
            status,
            code: code.into(),
            detail: detail.into(),
            violations: Vec::new(),
            headers: Vec::new(),
        }
    }

    /// 400: the request's parameters are not valid (every violation).
    pub fn bad_request(violations: Vec<Violation>) -> Self {
        let detail = match violations.len() {
            1 => format!(
                "parameter `{}` {}",
                violations[0].parameter, violations[0].message
            ),
            n => format!("{n} parameters are not valid"),
        };
        Self {
            violations,
            ..Self::new(400, "invalid_parameters", detail)
        }
    }

    /// 401: no credentials, or credentials refused; `challenge` is the `WWW-Authenticate` value.
    pub fn unauthorized(detail: impl Into<String>, challenge: impl Into<String>) -> Self {
        Self::new(401, "not_authenticated", detail).with_header("www-authenticate", challenge)
    }

    /// 403: authenticated, and not allowed to see this.
    pub fn forbidden(detail: impl Into<String>) -> Self {
        Self::new(403, "forbidden", detail)
    }

    /// 404: nothing here.
    pub fn not_found(detail: impl Into<String>) -> Self {
        Self::new(404, "not_found", detail)
    }

    /// 405: the path exists, not with this method; `allowed` lists those it has (`GET`, `HEAD`).
    pub fn method_not_allowed(method: &str, allowed: &[&str]) -> Self {
        Self::new(
            405,
            "method_not_allowed",
            format!(
                "method {} is not allowed here (allowed: {})",
                shown(method),
                allowed.join(", ")
            ),
        )
        .with_header("allow", allowed.join(", "))
    }

    /// 503: the server is busy or stopping; try again after `retry_after_seconds`.
    pub fn unavailable(detail: impl Into<String>, retry_after_seconds: u64) -> Self {
        Self::new(503, "unavailable", detail)
            .with_header("retry-after", retry_after_seconds.to_string())
    }

    /// 500: the server failed. `detail` is shown to the client: say what failed, never a secret.
    pub fn internal(detail: impl Into<String>) -> Self {
        Self::new(500, "internal_error", detail)
    }

    /// With a response header.
    pub fn with_header(mut self, name: &'static str, value: impl Into<String>) -> Self {
        self.headers.push((name, value.into()));
        self
    }

    /// The HTTP status.
    pub fn status(&self) -> u16 {
        self.status
    }

    /// The stable code.
    pub fn code(&self) -> &str {
        &self.code
    }

    /// The sentence.
    pub fn detail(&self) -> &str {
        &self.detail
    }

    /// Every violation of a refused request.
    pub fn violations(&self) -> &[Violation] {
        &self.violations
    }

    /// The response headers it carries (`WWW-Authenticate`, `Allow`, `Retry-After`).
    pub fn headers(&self) -> &[(&'static str, String)] {
        &self.headers
    }

    /// The JSON body.
    pub fn to_json(&self) -> Vec<u8> {
        use serde_json::json;
        let mut body = json!({"detail": self.detail, "code": self.code});
        if !self.violations.is_empty() {
            body["errors"] = self
                .violations
                .iter()
                .map(|v| {
                    json!({
                        "parameter": v.parameter,
                        "in": v.location.as_str(),
                        "code": v.code,
                        "message": v.message,
                    })
                })
                .collect();
        }
        // A `Value` of strings always serialises.
        serde_json::to_vec(&body).unwrap_or_default()
    }
}

impl std::fmt::Display for ServerError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} {}: {}", self.status, self.code, self.detail)
    }
}

impl std::error::Error for ServerError {}

/// Implements [`Request`] for a generated request type: its row, and a field per parameter, read by
/// name: `required` (path parameters, required query parameters), `defaulted` (optional, with a
/// default), `optional`, `lists` (an optional array: the parameter repeated) and `required_lists`.
#[macro_export]
macro_rules! server_request {
    (
        $ty:ty = $operation:expr,
        required: [$($p:ident = $pn:literal),* $(,)?],
        defaulted: [$($d:ident = $dn:literal),* $(,)?],
        optional: [$($o:ident = $on:literal),* $(,)?],
        lists: [$($l:ident = $ln:literal),* $(,)?],
        required_lists: [$($r:ident = $rn:literal),* $(,)?] $(,)?
    ) => {
        impl $crate::server::Request for $ty {
            const ROW: &'static $crate::server::Operation = &$operation;

            fn from_arguments(arguments: &mut $crate::server::Arguments) -> ::std::option::Option<Self> {
                $(let $p = arguments.required($pn);)*
                $(let $d = arguments.optional($dn);)*
                $(let $o = arguments.optional_plain($on);)*
                $(let $l = arguments.list($ln);)*
                $(let $r = arguments.required_list($rn);)*
                if !arguments.finish() {
                    return ::std::option::Option::None;
                }
                ::std::option::Option::Some(Self {
                    $($p: $p?,)*
                    $($d,)*
                    $($o,)*
                    $($l,)*
                    $($r: $r?,)*
                })
            }
        }
    };
}

/// Implements [`Reply`] for a generated response enum: each variant's status, and which hold a page.
#[macro_export]
macro_rules! server_reply {
    ($ty:ident { $($variant:ident = $status:literal $($paged:ident)?),* $(,)? }) => {
        impl $crate::server::Reply for $ty {
            fn status(&self) -> u16 {
                match self {
                    $(Self::$variant(_) => $status,)*
                }
            }

            fn page(&mut self) -> ::std::option::Option<&mut dyn $crate::server::Paged> {
                match self {
                    $(Self::$variant(_value) => $crate::server_reply!(@page _value $($paged)?),)*
                }
            }

            fn to_json(&self) -> ::std::result::Result<::std::vec::Vec<u8>, ::std::string::String> {
                match self {
                    $(Self::$variant(value) => $crate::__private::serde_json::to_vec(value).map_err(|e| e.to_string()),)*
                }
            }
        }
    };
    (@page $value:ident paged) => { ::std::option::Option::Some($value) };
    (@page $value:ident) => { ::std::option::Option::None };
}

/// Declares the handlers' trait of an API (one `async fn` per operation, taking its request type and,
/// for those with a `principal: Principal` parameter, the authenticated principal), and `routes`, its
/// operations for a router.
#[macro_export]
macro_rules! server_api {
    (
        $(#[$meta:meta])*
        pub trait $api:ident {
            $(
                $(#[$op_meta:meta])*
                fn $op:ident($($params:tt)*) -> $response:ty;
            )*
        }
    ) => {
        $(#[$meta])*
        pub trait $api: ::std::marker::Send + ::std::marker::Sync + 'static {
            /// Who made a request, as the server's authentication check found: what the operations
            /// that require authentication receive.
            type Principal: ::std::marker::Send + ::std::marker::Sync + 'static;
            $(
                $crate::server_api!(@method $(#[$op_meta])* $op ($($params)*) $response);
            )*
        }

        /// Every operation of the handlers' trait, for a router: its row, and how a request is read
        /// and handed to its handler.
        pub fn routes<A: $api>() -> ::std::vec::Vec<$crate::server::Route<A, A::Principal>> {
            ::std::vec![
                $($crate::server_api!(@route $op ($($params)*)),)*
            ]
        }
    };
    (@method $(#[$m:meta])* $op:ident (request: $request:ty, $principal:ident: Principal $(,)?) $response:ty) => {
        $(#[$m])*
        fn $op(
            &self,
            request: $request,
            $principal: &Self::Principal,
        ) -> impl ::std::future::Future<
            Output = ::std::result::Result<$response, $crate::server::ServerError>,
        > + ::std::marker::Send;
    };
    (@method $(#[$m:meta])* $op:ident (request: $request:ty $(,)?) $response:ty) => {
        $(#[$m])*
        fn $op(
            &self,
            request: $request,
        ) -> impl ::std::future::Future<
            Output = ::std::result::Result<$response, $crate::server::ServerError>,
        > + ::std::marker::Send;
    };
    (@route $op:ident (request: $request:ty, $principal:ident: Principal $(,)?)) => {
        $crate::server::Route::new::<$request>(|api, request, principal| {
            ::std::boxed::Box::pin(async move {
                let ::std::option::Option::Some($principal) = principal else {
                    return ::std::result::Result::Err($crate::server::ServerError::unauthorized(
                        "this operation requires authentication",
                        "Basic realm=\"energy\"",
                    ));
                };
                let response = api.$op(request, $principal).await?;
                ::std::result::Result::Ok(::std::boxed::Box::new(response)
                    as ::std::boxed::Box<dyn $crate::server::Reply>)
            })
        })
    };
    (@route $op:ident (request: $request:ty $(,)?)) => {
        $crate::server::Route::new::<$request>(|api, request, _principal| {
            ::std::boxed::Box::pin(async move {
                let response = api.$op(request).await?;
                ::std::result::Result::Ok(::std::boxed::Box::new(response)
                    as ::std::boxed::Box<dyn $crate::server::Reply>)
            })
        })
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    static LIST: Operation = Operation {
        name: "list_products",
        method: Method::Get,
        path: "/v1/products/",
        auth_required: false,
        parameters: &[
            Parameter::query("brand"),
            Parameter::query("is_green"),
            Parameter::query("page_size")
                .minimum(1)
                .maximum(1000)
                .default(100),
        ],
    };

    static RATES: Operation = Operation {
        name: "list_standard_unit_rates",
        method: Method::Get,
        path: "/v1/products/{product_code}/electricity-tariffs/{tariff_code}/standard-unit-rates/",
        auth_required: false,
        parameters: &[
            Parameter::path("product_code"),
            Parameter::path("tariff_code"),
            Parameter::query("period_from").not_after("period_to"),
            Parameter::query("period_to"),
        ],
    };

    fn codes(arguments: &Arguments) -> Vec<(String, &'static str)> {
        arguments
            .violations()
            .iter()
            .map(|v| (v.parameter.clone(), v.code))
            .collect()
    }

    #[test]
    fn both_path_forms_match_and_others_do_not() {
        let path = "/v1/products/AGILE%2F24/electricity-tariffs/E-1R-A/standard-unit-rates/";
        assert_eq!(
            RATES.match_path(path),
            Some(vec![
                ("product_code", "AGILE%2F24"),
                ("tariff_code", "E-1R-A")
            ])
        );
        assert!(RATES.match_path(path.trim_end_matches('/')).is_some());
        assert_eq!(LIST.match_path("/v1/products"), Some(vec![]));
        assert_eq!(LIST.match_path("/v1/products/"), Some(vec![]));
        assert_eq!(LIST.match_path("/v1/products/x/"), None);
        assert_eq!(
            RATES.match_path("/v1/products//electricity-tariffs/t/standard-unit-rates/"),
            None
        );
        assert_eq!(LIST.match_path("/v1/productsx/"), None);
    }

    #[test]
    fn every_violation_is_reported_at_once() {
        let mut arguments = Arguments::read(
            &LIST,
            &[],
            Some("is_green=yes&page_size=0&brand=&colour=red&colour=blue&x=%zz"),
        );
        let brand: Option<String> = arguments.optional_plain("brand");
        let green: Option<bool> = arguments.optional_plain("is_green");
        let size: Option<i64> = arguments.optional("page_size");
        assert_eq!((brand, green, size), (None, None, None));
        assert!(!arguments.finish());
        assert_eq!(
            codes(&arguments),
            vec![
                ("brand".to_owned(), "empty"),
                ("is_green".to_owned(), "invalid"),
                ("page_size".to_owned(), "out_of_range"),
                ("x".to_owned(), "bad_encoding"),
                ("colour".to_owned(), "unknown"),
            ]
        );
        let error = arguments.refusal();
        assert_eq!(error.status(), 400);
        let body: serde_json::Value = serde_json::from_slice(&error.to_json()).unwrap();
        assert_eq!(body["code"], "invalid_parameters");
        assert_eq!(
            body["errors"][2]["message"],
            "must be from 1 to 1000; 0 is not"
        );
        assert_eq!(body["errors"][4]["in"], "query");
    }

    #[test]
    fn defaults_fill_absent_parameters_and_values_decode() {
        let mut arguments = Arguments::read(
            &LIST,
            &[],
            Some("brand=OCTOPUS%20ENERGY+LTD&is_green=false"),
        );
        let brand: Option<String> = arguments.optional_plain("brand");
        let green: Option<bool> = arguments.optional_plain("is_green");
        let size: Option<i64> = arguments.optional("page_size");
        assert!(arguments.finish(), "{:?}", arguments.violations());
        assert_eq!(brand.as_deref(), Some("OCTOPUS ENERGY LTD"));
        assert_eq!((green, size), (Some(false), Some(100)));
    }

    #[test]
    fn a_repeated_parameter_and_bad_utf8_are_refused() {
        let mut arguments = Arguments::read(&LIST, &[], Some("page_size=5&page_size=6&brand=%FF"));
        let _: Option<i64> = arguments.optional("page_size");
        let _: Option<String> = arguments.optional_plain("brand");
        assert!(!arguments.finish());
        assert_eq!(
            codes(&arguments),
            vec![
                ("brand".to_owned(), "bad_encoding"),
                ("page_size".to_owned(), "repeated")
            ]
        );
        for number in ["1e3", "12.0", "+5", "", "-", "99999999999999999999"] {
            assert!(
                i64::from_argument(number, &LIST.parameters[2]).is_err(),
                "{number}"
            );
        }
    }

    #[cfg(feature = "jiff")]
    #[test]
    fn a_period_that_ends_before_it_starts_is_refused() {
        let path = [("product_code", "P"), ("tariff_code", "T")];
        let mut arguments = Arguments::read(
            &RATES,
            &path,
            Some("period_from=2024-03-31T12:00Z&period_to=2024-03-31"),
        );
        let _: Option<String> = arguments.required("product_code");
        let _: Option<String> = arguments.required("tariff_code");
        let from: Option<jiff::Timestamp> = arguments.optional_plain("period_from");
        let _: Option<jiff::Timestamp> = arguments.optional_plain("period_to");
        assert!(from.is_some());
        assert!(!arguments.finish());
        assert_eq!(codes(&arguments), vec![("period_from".to_owned(), "order")]);
        // London midnight of a civil date, read as the client reads it.
        let mut fine = Arguments::read(
            &RATES,
            &path,
            Some("period_from=2024-03-30T23:00Z&period_to=2024-03-31"),
        );
        let _: Option<String> = fine.required("product_code");
        let _: Option<String> = fine.required("tariff_code");
        let _: Option<jiff::Timestamp> = fine.optional_plain("period_from");
        let _: Option<jiff::Timestamp> = fine.optional_plain("period_to");
        assert!(fine.finish(), "{:?}", fine.violations());
    }
}
