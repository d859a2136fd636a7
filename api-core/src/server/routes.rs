//! What a route does: a request type read from its arguments and handed to its handler, and what the
//! handler answers.

use super::{Arguments, Operation, ServerError};
use crate::rest::Endpoint;
use std::any::Any;
use std::future::Future;
use std::pin::Pin;

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
