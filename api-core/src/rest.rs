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

/// Appends `value` as one path segment, percent-encoded per RFC 3986: every byte but the unreserved
/// characters is encoded, so that a `/` or `?` in a code cannot change the request; and the dots of a
/// value that is exactly `.` or `..` are encoded too (`%2E`, `%2E%2E`), since as a segment those mean
/// "this folder" and "the parent folder" (RFC 3986, 5.2.4) and a resolver would remove them, taking
/// the request to another endpoint.
///
/// An empty value gives an empty segment, and WHATWG URL parsers (browsers, the `url` crate) read
/// `%2E` as a dot too: a client should refuse those values before sending (the `energy-runtime`
/// clients do).
pub fn push_path_segment(path: &mut String, value: &str) {
    const HEX: &[u8; 16] = b"0123456789ABCDEF";
    let dot_segment = value == "." || value == "..";
    for &b in value.as_bytes() {
        let unreserved = b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~');
        if unreserved && !dot_segment {
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

    #[test]
    fn dot_segments_have_their_dots_encoded_and_other_dots_are_kept() {
        for (value, segment) in [
            (".", "%2E"),
            ("..", "%2E%2E"),
            ("...", "..."),
            ("v1.2", "v1.2"),
            ("../x", "..%2Fx"),
        ] {
            let mut path = String::new();
            push_path_segment(&mut path, value);
            assert_eq!(path, segment, "{value}");
        }
    }
}
