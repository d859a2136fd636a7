//! The `Endpoint` trait every generated request type implements, `Method`, and path-segment encoding.

/// An HTTP method.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Method {
    /// `GET`.
    Get,
    /// `POST`.
    Post,
    /// `PUT`.
    Put,
    /// `PATCH`.
    Patch,
    /// `DELETE`.
    Delete,
}

impl Method {
    /// The method as sent on the wire.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Get => "GET",
            Self::Post => "POST",
            Self::Put => "PUT",
            Self::Patch => "PATCH",
            Self::Delete => "DELETE",
        }
    }
}

/// A request to one endpoint: it knows its method, path, query and response type.
///
/// A client drives any endpoint through this trait, so that no endpoint's rules are written twice.
pub trait Endpoint {
    /// The JSON body of a successful response.
    type Response: serde::de::DeserializeOwned;
    /// The HTTP method.
    const METHOD: Method;
    /// The path with `{parameter}` placeholders, relative to the base URL.
    const PATH_TEMPLATE: &'static str;
    /// The operation's name in the schema (and its `operationId` in OpenAPI).
    const OPERATION: &'static str;
    /// Whether the endpoint needs credentials.
    const AUTH_REQUIRED: bool;
    /// The path with its parameters filled in and percent-encoded, relative to the base URL.
    fn path(&self) -> String;
    /// The query parameters that are set, in schema order, not yet percent-encoded.
    fn query(&self) -> Vec<(&'static str, String)>;
}

/// Appends `value` as one path segment: every byte but RFC 3986's unreserved characters is
/// percent-encoded, so that a `/` or `?` in a code cannot change the request.
pub fn push_path_segment(path: &mut String, value: &str) {
    const HEX: &[u8; 16] = b"0123456789ABCDEF";
    for &b in value.as_bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~') {
            path.push(char::from(b));
        } else {
            path.push('%');
            path.push(char::from(HEX[usize::from(b >> 4)]));
            path.push(char::from(HEX[usize::from(b & 0xF)]));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn segments_are_percent_encoded() {
        let mut path = String::from("/v1/products/");
        push_path_segment(&mut path, "AGILE-24-10-01");
        path.push('/');
        push_path_segment(&mut path, "a/b?c=d é");
        assert_eq!(path, "/v1/products/AGILE-24-10-01/a%2Fb%3Fc%3Dd%20%C3%A9");
    }
}
