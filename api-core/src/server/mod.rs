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

mod arguments;
mod error;
mod macros;
mod routes;

pub use arguments::{Arguments, FromArgument};
pub use error::ServerError;
pub use routes::{BoxFuture, Called, Example, Handler, Inspect, Paged, Reply, Request, Route};

use crate::rest::Method;

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
