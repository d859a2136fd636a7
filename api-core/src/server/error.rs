//! The one error of every operation, and its JSON body.

use super::Violation;
use super::arguments::shown;
use std::borrow::Cow;

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
