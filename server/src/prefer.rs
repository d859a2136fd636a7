//! `Prefer: code=…` and `Prefer: example=…` (RFC 7240), as the Prism mock server reads them: a client
//! team asks for a documented status, or a named example of the documented response, to test its
//! handling of it. A preference the server cannot apply is ignored, as RFC 7240 allows; one applied is
//! said in `Preference-Applied`. Enabled by [`crate::RouterConfig::honour_prefer`] (`energy serve`).

use axum::http::HeaderMap;
use energy_api::rest::server::EXAMPLES;
use energy_api::rest::server::{Location, Operation, ServerError, Violation};

/// The answer `Prefer` asks for, when the operation documents it.
pub(crate) fn answer(
    operation: &Operation,
    headers: &HeaderMap,
) -> Option<Result<(u16, Vec<u8>), ServerError>> {
    let mut code = None;
    let mut example = None;
    for value in headers.get_all("prefer") {
        let Ok(text) = value.to_str() else { continue };
        for preference in text.split([',', ';']) {
            match preference.trim().split_once('=') {
                Some(("code", n)) => code = n.trim().trim_matches('"').parse::<u16>().ok(),
                Some(("example", name)) => example = Some(name.trim().trim_matches('"').to_owned()),
                _ => {}
            }
        }
    }
    let applied =
        |what: String| move |error: ServerError| error.with_header("preference-applied", what);
    match code {
        None | Some(200) => {
            let name = example?;
            let found = EXAMPLES
                .iter()
                .find(|e| e.operation == operation.name && e.status == 200 && e.name == name)?;
            Some(Ok((200, found.body.as_bytes().to_vec())))
        }
        Some(status) => {
            let why = "as asked by the request's `Prefer` header";
            let error = match status {
                400 => {
                    let parameter = operation
                        .parameters
                        .iter()
                        .find(|p| p.location == Location::Query)
                        .or(operation.parameters.first())
                        .map_or("page", |p| p.name);
                    ServerError::bad_request(vec![Violation {
                        parameter: parameter.to_owned(),
                        location: Location::Query,
                        code: "invalid",
                        message: format!("is not valid ({why})"),
                    }])
                }
                401 if operation.auth_required => ServerError::unauthorized(
                    format!("not authenticated ({why})"),
                    crate::auth::CHALLENGE,
                ),
                404 => ServerError::not_found(format!("nothing here ({why})")),
                405 => ServerError::method_not_allowed("DELETE", &["GET", "HEAD"]),
                500 => ServerError::internal(format!("the server failed ({why})")),
                503 => ServerError::unavailable(format!("the server is busy ({why})"), 1),
                _ => return None,
            };
            Some(Err(applied(format!("code={status}"))(error)))
        }
    }
}
