//! The router: an axum `Router` from the handlers' trait, each request through the same steps.
//!
//! 1. The tower layers a team adds to the router (the hook before anything is read).
//! 2. The path picks the operation (both forms, with and without the trailing `/`); another method
//!    answers 405 with `Allow`, an unknown path 404, a URI longer than the limit 414.
//! 3. Too many requests in flight: 503 with `Retry-After`, at once (load is shed, not queued).
//! 4. `Prefer: code=…` (when enabled) answers with that documented status.
//! 5. Credentials, for an operation that requires them ([`crate::auth`]): 401 with `WWW-Authenticate`.
//! 6. Every parameter read and checked by the request type's declaration: 400 with every violation.
//! 7. The inspection hook, on the typed request (the hook after parsing).
//! 8. The handler, within the request timeout (503 when it runs out).
//! 9. A page's `next` and `previous` written from the public URL ([`crate::links`]), the body as JSON.
//!
//! Every answer that is not a handler's success is a [`ServerError`], in the API's error body: axum's
//! own plain-text rejections are never reached (no extractor that can reject is used).

use crate::auth::{self, Authenticate, CHALLENGE};
use crate::links::{self, PublicUrl, TrustedProxies};
use crate::metrics::ServerMetrics;
use axum::body::Body;
use axum::extract::Request;
use axum::http::request::Parts;
use axum::http::{HeaderValue, Method as HttpMethod, StatusCode, header};
use axum::response::Response;
use energy_api::rest::Method;
use energy_api::rest::server::{Api, routes};
use energy_api::rest::server::{Arguments, Operation, Route, ServerError};
use std::any::Any;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::Semaphore;
use tracing::Instrument as _;

/// The usual size of a page (`page_size`'s default, and the size of lists that have no `page_size`).
pub const PAGE_SIZE: i64 = 100;

/// The address a connection came from, as the listener put it in the request's extensions.
#[derive(Debug, Clone, Copy)]
pub struct Peer(pub SocketAddr);

/// A hook on each typed request, after its parameters are read and before its handler runs: downcast
/// the request (`request.downcast_ref::<ListProducts>()`); an error refuses the request.
pub type Inspect =
    dyn Fn(&'static Operation, &dyn Any) -> Result<(), ServerError> + Send + Sync + 'static;

/// How the router behaves; the defaults suit a server on loopback.
#[derive(Debug, Clone)]
pub struct RouterConfig {
    /// The URL clients reach the API at: the base of the links it writes.
    pub public_url: PublicUrl,
    /// Proxies whose forwarding headers are believed.
    pub trusted_proxies: TrustedProxies,
    /// Requests answered at once; more are refused with 503 (default 512).
    pub max_in_flight: usize,
    /// How long a handler may take (default 30 s); past it, 503.
    pub request_timeout: Duration,
    /// The longest URI taken, in bytes (default 8 KiB); longer, 414.
    pub max_uri_bytes: usize,
    /// Where the OpenAPI document is served (default `/openapi.yaml`).
    pub openapi_path: String,
    /// Whether `Prefer: code=…` and `Prefer: example=…` are honoured (as Prism reads them).
    pub honour_prefer: bool,
}

impl RouterConfig {
    /// The defaults, with links to `public_url`.
    pub fn new(public_url: PublicUrl) -> Self {
        Self {
            public_url,
            trusted_proxies: TrustedProxies::default(),
            max_in_flight: 512,
            request_timeout: Duration::from_secs(30),
            max_uri_bytes: 8 * 1024,
            openapi_path: "/openapi.yaml".to_owned(),
            honour_prefer: false,
        }
    }
}

/// What every request shares.
struct Shared<A: Api, Auth> {
    api: A,
    auth: Auth,
    routes: Vec<Route<A, A::Principal>>,
    config: RouterConfig,
    inspect: Option<Box<Inspect>>,
    metrics: ServerMetrics,
    in_flight: Semaphore,
}

/// A server of the API: the handlers (`A`), the credentials' check (`Auth`), and how it behaves.
pub struct Server<A: Api, Auth: Authenticate<Principal = A::Principal>> {
    shared: Shared<A, Auth>,
}

impl<A: Api, Auth: Authenticate<Principal = A::Principal>> Server<A, Auth> {
    /// A server of `api`, checking credentials with `auth`.
    pub fn new(api: A, auth: Auth, config: RouterConfig) -> Self {
        let in_flight = Semaphore::new(config.max_in_flight.max(1));
        Self {
            shared: Shared {
                api,
                auth,
                routes: routes::<A>(),
                config,
                inspect: None,
                metrics: ServerMetrics::new(),
                in_flight,
            },
        }
    }

    /// With a hook on each typed request (see [`Inspect`]).
    pub fn inspect(
        mut self,
        hook: impl Fn(&'static Operation, &dyn Any) -> Result<(), ServerError> + Send + Sync + 'static,
    ) -> Self {
        self.shared.inspect = Some(Box::new(hook));
        self
    }

    /// The server's figures (also served at `/metrics`).
    pub fn metrics(&self) -> ServerMetrics {
        self.shared.metrics.clone()
    }

    /// The router: every operation at both path forms, `/healthz`, `/metrics`, the OpenAPI document,
    /// and the API's error body for everything else. Add tower layers to it for what must run before
    /// anything is read.
    pub fn router(self) -> axum::Router {
        let shared = Arc::new(self.shared);
        let mut templates: Vec<&'static str> = Vec::new();
        for route in &shared.routes {
            if !templates.contains(&route.operation.path) {
                templates.push(route.operation.path);
            }
        }
        let mut router = axum::Router::new();
        for template in templates {
            let handler = {
                let shared = shared.clone();
                move |request: Request| {
                    let shared = shared.clone();
                    async move { shared.answer(template, request).await }
                }
            };
            router = router.route(template, axum::routing::any(handler.clone()));
            if let Some(bare) = template.strip_suffix('/').filter(|b| !b.is_empty()) {
                router = router.route(bare, axum::routing::any(handler));
            }
        }
        let health = || async { json(StatusCode::OK, br#"{"status":"ok"}"#.to_vec()) };
        let metrics = {
            let metrics = shared.metrics.clone();
            move || {
                let metrics = metrics.clone();
                async move {
                    let mut response = Response::new(Body::from(metrics.encode()));
                    response.headers_mut().insert(
                        header::CONTENT_TYPE,
                        HeaderValue::from_static(
                            "application/openmetrics-text; version=1.0.0; charset=utf-8",
                        ),
                    );
                    response
                }
            }
        };
        let openapi = || async {
            let mut response = Response::new(Body::from(energy_api::OPENAPI_YAML));
            response.headers_mut().insert(
                header::CONTENT_TYPE,
                HeaderValue::from_static("application/yaml"),
            );
            response
        };
        let fallback = {
            let shared = shared.clone();
            move |request: Request| {
                let shared = shared.clone();
                async move { shared.unrouted(&request) }
            }
        };
        router
            .route("/healthz", axum::routing::get(health))
            .route("/metrics", axum::routing::get(metrics))
            .route(
                &shared.config.openapi_path.clone(),
                axum::routing::get(openapi),
            )
            .fallback(fallback)
    }
}

/// A JSON response.
fn json(status: StatusCode, body: Vec<u8>) -> Response {
    let mut response = Response::new(Body::from(body));
    *response.status_mut() = status;
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    response
}

/// The response of an error: its status, headers and the API's error body.
pub(crate) fn error_response(error: &ServerError) -> Response {
    let status = StatusCode::from_u16(error.status()).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let mut response = json(status, error.to_json());
    for (name, value) in error.headers() {
        if let Ok(value) = HeaderValue::from_str(value) {
            response.headers_mut().insert(*name, value);
        }
    }
    response
}

fn method_of(method: &HttpMethod) -> Option<Method> {
    Some(match *method {
        HttpMethod::GET | HttpMethod::HEAD => Method::Get,
        HttpMethod::POST => Method::Post,
        HttpMethod::PUT => Method::Put,
        HttpMethod::PATCH => Method::Patch,
        HttpMethod::DELETE => Method::Delete,
        _ => return None,
    })
}

impl<A: Api, Auth: Authenticate<Principal = A::Principal>> Shared<A, Auth> {
    /// A request no route took: 414 for a URI past the limit, else 404.
    fn unrouted(&self, request: &Request) -> Response {
        let error = if uri_bytes(request.uri()) > self.config.max_uri_bytes {
            too_long(self.config.max_uri_bytes)
        } else {
            ServerError::not_found(format!(
                "no endpoint at this path (the API's endpoints are under /v1/; see {})",
                self.config.openapi_path
            ))
        };
        self.metrics
            .answered("none", error.status(), Duration::ZERO);
        error_response(&error)
    }

    /// Answers a request to the path `template`.
    async fn answer(self: Arc<Self>, template: &'static str, request: Request) -> Response {
        let started = Instant::now();
        // The body is not read (no operation has one); the parts are what every step reads.
        let (request, _body) = request.into_parts();
        if uri_bytes(&request.uri) > self.config.max_uri_bytes {
            return self.finish(
                "none",
                started,
                Err(too_long(self.config.max_uri_bytes)),
                false,
            );
        }
        let at_path: Vec<&Route<A, A::Principal>> = self
            .routes
            .iter()
            .filter(|r| r.operation.path == template)
            .collect();
        let wanted = method_of(&request.method);
        let Some(route) = at_path
            .iter()
            .find(|r| Some(r.operation.method) == wanted)
            .copied()
        else {
            let mut allowed: Vec<&str> = at_path
                .iter()
                .map(|r| r.operation.method.as_str())
                .collect();
            if allowed.contains(&"GET") {
                allowed.push("HEAD");
            }
            let error = ServerError::method_not_allowed(request.method.as_str(), &allowed);
            return self.finish("none", started, Err(error), false);
        };
        let operation = route.operation.name;
        let head = request.method == HttpMethod::HEAD;
        let Ok(_permit) = self.in_flight.try_acquire() else {
            self.metrics.shed.inc();
            let error = ServerError::unavailable(
                "the server is answering as many requests as it takes; try again shortly",
                1,
            );
            return self.finish(operation, started, Err(error), head);
        };
        self.metrics.active.inc();
        let span = crate::trace::request_span(operation, template, &request.headers);
        let timeout = self.config.request_timeout;
        let answered = tokio::time::timeout(timeout, self.call(route, &request).instrument(span))
            .await
            .unwrap_or_else(|_| {
                Err(ServerError::unavailable(
                    format!("the request took longer than {} s", timeout.as_secs()),
                    1,
                ))
            });
        self.metrics.active.dec();
        self.finish(operation, started, answered, head)
    }

    /// The response, counted.
    fn finish(
        &self,
        operation: &'static str,
        started: Instant,
        answered: Result<(u16, Vec<u8>), ServerError>,
        head: bool,
    ) -> Response {
        let mut response = match answered {
            Ok((status, body)) => {
                json(StatusCode::from_u16(status).unwrap_or(StatusCode::OK), body)
            }
            Err(error) => error_response(&error),
        };
        self.metrics
            .answered(operation, response.status().as_u16(), started.elapsed());
        if head {
            *response.body_mut() = Body::empty();
        }
        response
    }

    /// Steps 4 to 9 for one operation.
    async fn call(
        &self,
        route: &Route<A, A::Principal>,
        request: &Parts,
    ) -> Result<(u16, Vec<u8>), ServerError> {
        let operation: &'static Operation = route.operation;
        if self.config.honour_prefer
            && let Some(answer) = crate::prefer::answer(operation, &request.headers)
        {
            return answer;
        }
        let principal = if operation.auth_required {
            let given = request
                .headers
                .get(header::AUTHORIZATION)
                .map(HeaderValue::as_bytes);
            let credentials = auth::credentials(given)
                .map_err(|why| ServerError::unauthorized(why, CHALLENGE))?;
            let principal = self
                .auth
                .authenticate(&credentials)
                .await
                .map_err(|refusal| ServerError::unauthorized(refusal.0, CHALLENGE))?;
            Some(principal)
        } else {
            None
        };
        let path = request.uri.path();
        let values = operation
            .match_path(path)
            .ok_or_else(|| ServerError::not_found("no endpoint at this path"))?;
        let mut arguments = Arguments::read(operation, &values, request.uri.query());
        let mut inspect = |op: &'static Operation, typed: &dyn Any| match &self.inspect {
            Some(hook) => hook(op, typed),
            None => Ok(()),
        };
        let called = route.call(&self.api, &mut arguments, principal.as_ref(), &mut inspect)?;
        let mut reply = called.reply.await?;
        if let Some(page) = reply.page() {
            let number = |name: &str, default: i64| {
                called
                    .query
                    .iter()
                    .find(|(n, _)| *n == name)
                    .and_then(|(_, v)| v.parse::<i64>().ok())
                    .unwrap_or(default)
            };
            let defaults: Vec<(&'static str, i64)> = operation
                .parameters
                .iter()
                .filter_map(|p| p.default.map(|d| (p.name, d)))
                .collect();
            let peer = request.extensions.get::<Peer>().map(|p| p.0.ip());
            let base = links::base_for(
                &self.config.public_url,
                &self.config.trusted_proxies,
                peer,
                |name| {
                    request
                        .headers
                        .get(name)
                        .and_then(|v| v.to_str().ok())
                        .map(str::to_owned)
                },
            );
            let (next, previous) = links::page_links(
                &base,
                &called.path,
                &called.query,
                &defaults,
                number("page", 1),
                number("page_size", PAGE_SIZE),
                page.count(),
            );
            page.set_links(next, previous);
        }
        let body = reply.to_json().map_err(|e| {
            ServerError::internal(format!("the response could not be written: {e}"))
        })?;
        Ok((reply.status(), body))
    }
}

/// The length of the request target (path and query), without making it into a string.
fn uri_bytes(uri: &axum::http::Uri) -> usize {
    uri.path().len() + uri.query().map_or(0, |q| q.len() + 1)
}

fn too_long(limit: usize) -> ServerError {
    ServerError::new(
        414,
        "uri_too_long",
        format!("the URI is longer than {limit} bytes"),
    )
}
