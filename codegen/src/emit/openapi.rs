//! `openapi.yaml`: the REST API as an OpenAPI 3.1.0 document.
//!
//! Decisions the spec leaves open, each written into the document too:
//! - one server, `{base_url}`, whose variable is the platform's base URL (paths carry `/v1/` and the
//!   trailing slash the real API uses);
//! - a generic resource is written out once per type argument it is used with, in full: `Page<Product>`
//!   is the object `ProductPage` with typed, required `results` (code generators type an `allOf` over a
//!   generic envelope badly or not at all), and the generic `Page` itself is not a schema;
//! - the two ways to authenticate are `http`/`basic` (API key as user name, empty password) and an
//!   `apiKey` in the `Authorization` header (the token is sent as given: the spec does not show a
//!   `Bearer` prefix), either of which the account endpoint requires; public endpoints say `security: []`;
//! - errors: the statuses a server of this document answers ([`SERVER_ERRORS`]: 400 with every
//!   violation, 401 with `WWW-Authenticate` where credentials are required, 404, 405 with `Allow`, 503
//!   with `Retry-After`), each a shared response; any other, under `4XX` and `5XX` (the spec shows no
//!   status codes), the shared `Error`; all with the schema's error body;
//! - every response and parameter has an example made from the model's sample data
//!   ([`crate::samples`]).

use super::schema::{Dialect, Schemas, component_name, example as example_node};
use super::tree::{Map, Node, reference, to_yaml};
use crate::model::{AuthKind, Endpoint, Field, Model, NamedRef, Rest, Type};
use crate::samples::{self, Optionals};
use std::collections::BTreeMap;

/// Where the document is written, relative to `generated/`.
pub const PATH: &str = "openapi.yaml";

/// The document's own version of OpenAPI.
pub const OPENAPI_VERSION: &str = "3.1.0";

const SCHEMAS: Schemas<'static> = Schemas {
    ref_prefix: "#/components/schemas/",
    ref_suffix: "",
    dialect: Dialect::SiblingsAllowed,
};

/// The OpenAPI document, when the model has a REST API.
pub fn emit(model: &Model) -> Result<BTreeMap<String, String>, String> {
    let mut files = BTreeMap::new();
    if let Some(rest) = &model.rest {
        files.insert(
            PATH.to_owned(),
            to_yaml(&super::header("#"), &document(model, rest)?),
        );
    }
    Ok(files)
}

fn document(model: &Model, rest: &Rest) -> Result<Map, String> {
    let info = Map::new()
        .with("title", &rest.title)
        .with("version", &rest.version)
        .with("description", &rest.doc);
    let server = Map::new()
        .with("url", "{base_url}")
        .with(
            "description",
            format!(
                "The platform's API host. Every path starts with the API version (/{}/); HTTPS only.",
                rest.version
            ),
        )
        .with(
            "variables",
            Map::new().with(
                "base_url",
                Map::new().with("default", "https://api.example.com").with(
                    "description",
                    "The platform's base URL, scheme and host without a trailing slash (the spec \
                     writes it `{base_url}` and does not give it; the default is a placeholder).",
                ),
            ),
        );
    let mut paths = Map::new();
    for e in &rest.endpoints {
        let method = e.method.to_ascii_lowercase();
        let mut item = match paths.get(&e.path) {
            Some(Node::Map(m)) => m.clone(),
            _ => Map::new(),
        };
        item.set(method, operation(model, rest, e));
        paths.set(&e.path, item);
    }
    let mut components = Map::new().with("schemas", schemas(rest)?);
    if let Some(error) = &rest.error_response {
        let mut responses = Map::new().with("Error", error_response(model, error));
        for server_error in SERVER_ERRORS {
            responses.set(server_error.name, server_error.response(error));
        }
        components.set("responses", responses);
    }
    if !rest.auth.is_empty() {
        components.set("securitySchemes", security_schemes(rest));
    }
    Ok(Map::new()
        .with("openapi", OPENAPI_VERSION)
        .with("info", info)
        .with("servers", vec![server])
        .with("tags", tags(rest))
        .with("paths", paths)
        .with("components", components))
}

/// The tag of an endpoint: the first path segment after the version (`/v1/products/…` → `Products`).
fn tag(rest: &Rest, e: &Endpoint) -> (String, String) {
    let first = e
        .path
        .split('/')
        .find(|s| !s.is_empty() && *s != rest.version && !s.starts_with('{'))
        .unwrap_or("api");
    let mut name: Vec<char> = first.replace(['-', '_'], " ").chars().collect();
    if let Some(c) = name.first_mut() {
        *c = c.to_ascii_uppercase();
    }
    let prefix = if rest.version.is_empty() {
        format!("/{first}/")
    } else {
        format!("/{}/{first}/", rest.version)
    };
    (name.into_iter().collect(), prefix)
}

fn tags(rest: &Rest) -> Vec<Node> {
    let mut seen: BTreeMap<String, String> = BTreeMap::new();
    for e in &rest.endpoints {
        let (name, prefix) = tag(rest, e);
        seen.entry(name).or_insert(prefix);
    }
    seen.into_iter()
        .map(|(name, prefix)| {
            Node::Map(
                Map::new()
                    .with("name", name)
                    .with("description", format!("Endpoints under `{prefix}`.")),
            )
        })
        .collect()
}

/// The first sentence of a text, as plain text for a summary.
fn first_sentence(text: &str) -> String {
    let line = text.lines().next().unwrap_or_default();
    let sentence = match line.find(". ") {
        Some(end) => &line[..=end],
        None => line,
    };
    super::plain_text(sentence)
}

fn operation(model: &Model, rest: &Rest, e: &Endpoint) -> Map {
    let security: Vec<Node> = if e.auth_required {
        rest.auth
            .iter()
            .map(|a| Node::Map(Map::new().with(&a.name, Vec::<Node>::new())))
            .collect()
    } else {
        Vec::new()
    };
    let mut parameters: Vec<Node> = Vec::new();
    for (index, f) in e.path_parameters.iter().enumerate() {
        parameters.push(Node::Map(parameter(model, f, "path", index)));
    }
    for (index, f) in e.query.iter().enumerate() {
        parameters.push(Node::Map(parameter(model, f, "query", index)));
    }
    let auth = if e.auth_required {
        let ways: Vec<String> = rest
            .auth
            .iter()
            .map(|a| match a.kind {
                AuthKind::Basic => {
                    format!("HTTP Basic with the API key as user name (`{}`)", a.name)
                }
                AuthKind::AuthorizationHeader => {
                    format!("a token in the `Authorization` header (`{}`)", a.name)
                }
            })
            .collect();
        format!("Authentication: {}.", ways.join(", or "))
    } else {
        "Authentication: none.".to_owned()
    };
    let mut responses = Map::new().with(
        "200",
        Map::new()
            .with("description", format!("OK: {}.", e.response.describe()))
            .with(
                "content",
                json_content(
                    SCHEMAS.type_schema(&e.response, None, None),
                    example(
                        model,
                        &e.response,
                        "A response as the API sends it (sample values).",
                    ),
                ),
            ),
    );
    if rest.error_response.is_some() {
        for error in SERVER_ERRORS {
            if error.status != "401" || e.auth_required {
                responses.set(
                    error.status,
                    reference(format!("#/components/responses/{}", error.name)),
                );
            }
        }
        for range in ["4XX", "5XX"] {
            responses.set(range, reference("#/components/responses/Error"));
        }
    }
    let mut op = Map::new()
        .with("operationId", &e.name)
        .with("tags", vec![tag(rest, e).0])
        .with("summary", first_sentence(&e.doc))
        .with("description", format!("{}\n\n{auth}", e.doc.trim_end()))
        .with("security", security);
    if !parameters.is_empty() {
        op.set("parameters", parameters);
    }
    op.with("responses", responses)
}

fn parameter(model: &Model, f: &Field, location: &str, index: usize) -> Map {
    let format = f.format.map(|fmt| fmt.keyword());
    let schema = SCHEMAS
        .type_schema(&f.ty, format, None)
        .with_opt("minimum", f.rules.minimum)
        .with_opt("maximum", f.rules.maximum)
        .with_opt("default", f.rules.default)
        // A server refuses an empty value (`?brand=`): give one or leave the parameter out.
        .with_opt("minLength", (f.ty == Type::Str).then_some(1_i64));
    let mut description = super::schema::field_description(f)
        .unwrap_or_else(|| format!("`{}` ({}).", f.name, f.ty.describe()));
    if let Some(other) = &f.rules.not_after {
        description.push_str(&format!(
            "\n\nNot after `{other}`: a request whose `{}` is later than its `{other}` is refused \
             (400).",
            f.name
        ));
    }
    Map::new()
        .with("name", &f.name)
        .with("in", location)
        .with("required", location == "path" || !f.optional)
        .with("description", description)
        .with("schema", schema)
        .with(
            "example",
            Node::from(&samples::parameter_value(model, f, index)),
        )
}

fn json_content(schema: Map, example: Option<Map>) -> Map {
    let media = Map::new()
        .with("schema", schema)
        .with_opt("examples", example.map(|e| Map::new().with("sample", e)));
    Map::new().with("application/json", media)
}

/// An example of a response body of type `ty`, from the model's sample data (every optional field
/// present), when `ty` is a resource.
fn example(model: &Model, ty: &Type, summary: &str) -> Option<Map> {
    let Type::Named(r) = ty else { return None };
    let resources = &model.rest.as_ref()?.resources;
    let lookup = |name: &str| resources.iter().find(|s| s.name == name);
    let resource = lookup(&r.name)?;
    let arg = r.arg.as_deref();
    let value = samples::resource_example(model, resource, arg, Optionals::All);
    Some(
        Map::new()
            .with("summary", summary)
            .with("value", example_node(&value, resource, arg, &lookup)),
    )
}

fn error_response(model: &Model, body: &Type) -> Map {
    Map::new()
        .with(
            "description",
            "An error: any 4xx or 5xx status. The spec shows neither the status codes nor the body; a JSON \
             body is described by the schema, and a client keeps any other body as it came.",
        )
        .with(
            "content",
            json_content(
                SCHEMAS.type_schema(body, None, None),
                example(
                    model,
                    body,
                    "An error body (sample values: the spec shows none; any JSON object may come).",
                ),
            ),
        )
}

/// An error status a server of this document answers, as `energy-server` does: its shared response.
struct ServerErrorResponse {
    status: &'static str,
    name: &'static str,
    description: &'static str,
    /// A header always sent with it: name, what it says, whether its value is a number.
    header: Option<(&'static str, &'static str, bool)>,
    example: &'static str,
}

/// The error statuses of every operation (401 only of those that require credentials). Decision: the
/// spec shows no error status; these are what a server of this document answers, the `energy-server`
/// crate among them, in the error body the schema describes (`detail`, `code`, and `errors` for a
/// request refused).
const SERVER_ERRORS: [ServerErrorResponse; 5] = [
    ServerErrorResponse {
        status: "400",
        name: "BadRequest",
        description: "The request's parameters are not valid: every violation at once, one entry of `errors` \
            per parameter (an unknown parameter, a repeated one, an empty value, a value of the wrong type or \
            out of its bounds, a period that ends before it starts).",
        header: None,
        example: r#"{"detail": "2 parameters are not valid", "code": "invalid_parameters", "errors": [{"parameter": "page_size", "in": "query", "code": "out_of_range", "message": "must be from 1 to 1000; 0 is not"}, {"parameter": "is_green", "in": "query", "code": "invalid", "message": "must be `true` or `false`"}]}"#,
    },
    ServerErrorResponse {
        status: "401",
        name: "Unauthorized",
        description: "No credentials, or credentials refused: an API key (HTTP Basic, empty password) or a token is required.",
        header: Some((
            "WWW-Authenticate",
            "The challenge: `Basic realm=\"energy\", charset=\"UTF-8\"`.",
            false,
        )),
        example: r#"{"detail": "this operation requires authentication: an API key (HTTP Basic) or a token", "code": "not_authenticated"}"#,
    },
    ServerErrorResponse {
        status: "404",
        name: "NotFound",
        description: "Nothing at this path: an unknown product, tariff or account, or a page past the last.",
        header: None,
        example: r#"{"detail": "no product VAR-99-01-01", "code": "not_found"}"#,
    },
    ServerErrorResponse {
        status: "405",
        name: "MethodNotAllowed",
        description: "The path exists, not with this method.",
        header: Some(("Allow", "The methods the path has (`GET, HEAD`).", false)),
        example: r#"{"detail": "method POST is not allowed here (allowed: GET, HEAD)", "code": "method_not_allowed"}"#,
    },
    ServerErrorResponse {
        status: "503",
        name: "Unavailable",
        description: "The server is answering as many requests as it takes, or the request took longer than \
            its limit: try again after `Retry-After` seconds.",
        header: Some(("Retry-After", "Seconds to wait before trying again.", true)),
        example: r#"{"detail": "the server is answering as many requests as it takes; try again shortly", "code": "unavailable"}"#,
    },
];

impl ServerErrorResponse {
    fn response(&self, body: &Type) -> Map {
        let example: serde_json::Value =
            serde_json::from_str(self.example).unwrap_or(serde_json::Value::Null);
        let mut response = Map::new().with("description", self.description);
        if let Some((name, description, number)) = self.header {
            let schema = if number {
                Map::new()
                    .with("type", "integer")
                    .with("minimum", 0_i64)
                    .with("maximum", i64::MAX)
            } else {
                Map::new().with("type", "string")
            };
            response.set(
                "headers",
                Map::new().with(
                    name,
                    Map::new()
                        .with("description", description)
                        .with("required", true)
                        .with("schema", schema),
                ),
            );
        }
        response.with(
            "content",
            json_content(
                SCHEMAS.type_schema(body, None, None),
                Some(
                    Map::new()
                        .with("summary", "The error body of a server of this document.")
                        .with("value", Node::from(&example)),
                ),
            ),
        )
    }
}

fn security_schemes(rest: &Rest) -> Map {
    let mut schemes = Map::new();
    for a in &rest.auth {
        let scheme = match a.kind {
            AuthKind::Basic => Map::new().with("type", "http").with("scheme", "basic"),
            AuthKind::AuthorizationHeader => Map::new()
                .with("type", "apiKey")
                .with("in", "header")
                .with("name", "Authorization"),
        };
        schemes.set(&a.name, scheme.with("description", &a.doc));
    }
    schemes
}

/// Every resource but the generic ones, and each generic resource applied to each type argument used,
/// written out in full, by name.
fn schemas(rest: &Rest) -> Result<Map, String> {
    let mut used = Vec::new();
    for e in &rest.endpoints {
        applied(&e.response, &mut used);
    }
    for r in &rest.resources {
        for f in &r.fields {
            applied(&f.ty, &mut used);
        }
    }
    if let Some(t) = &rest.error_response {
        applied(t, &mut used);
    }
    let mut all: BTreeMap<String, Map> = BTreeMap::new();
    for r in rest.resources.iter().filter(|r| r.generic.is_none()) {
        all.insert(r.name.clone(), SCHEMAS.struct_schema(r, r.doc.trim_end()));
    }
    for applied in used {
        let name = component_name(applied);
        let Some(arg) = &applied.arg else { continue };
        if all.contains_key(&name) {
            return Err(format!(
                "the OpenAPI schema name `{name}` of {} is already the name of a resource",
                applied_text(applied)
            ));
        }
        let Some(generic) = rest.resources.iter().find(|r| r.name == applied.name) else {
            return Err(format!("unknown resource `{}`", applied.name));
        };
        let description = format!("{}. {}", applied_text(applied), generic.doc.trim_end());
        let schema = Map::new()
            .with("description", description)
            .with_all(SCHEMAS.object_schema(generic, Some(arg)));
        all.insert(name, schema);
    }
    let mut out = Map::new();
    for (name, schema) in all {
        out.set(name, schema);
    }
    Ok(out)
}

fn applied_text(r: &NamedRef) -> String {
    Type::Named(r.clone()).describe()
}

/// Generic resources applied to an argument, in `ty`, innermost first.
fn applied<'m>(ty: &'m Type, out: &mut Vec<&'m NamedRef>) {
    match ty {
        Type::Array(inner) | Type::Map(inner) => applied(inner, out),
        Type::Named(r) => {
            if let Some(arg) = &r.arg {
                applied(arg, out);
                if !out.contains(&r) {
                    out.push(r);
                }
            }
        }
        _ => {}
    }
}
