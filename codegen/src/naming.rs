//! Rust names for schema names: case conversion, keywords, and the names the generated crate reserves.

use heck::{ToSnakeCase, ToUpperCamelCase};

/// Rust keywords of edition 2024 (strict and reserved), which need a raw identifier or another name.
const KEYWORDS: &[&str] = &[
    "abstract", "as", "async", "await", "become", "box", "break", "const", "continue", "crate",
    "do", "dyn", "else", "enum", "extern", "false", "final", "fn", "for", "gen", "if", "impl",
    "in", "let", "loop", "macro", "match", "mod", "move", "mut", "override", "priv", "pub", "ref",
    "return", "self", "Self", "static", "struct", "super", "trait", "true", "try", "type",
    "typeof", "unsafe", "unsized", "use", "virtual", "where", "while", "yield",
];

/// Keywords that cannot be raw identifiers.
const NOT_RAW: &[&str] = &["crate", "self", "Self", "super"];

/// Whether `s` is a Rust keyword.
pub fn is_keyword(s: &str) -> bool {
    KEYWORDS.contains(&s)
}

/// The Rust field name for a JSON field name: snake_case, a raw identifier for keywords (`r#type`),
/// a `_` suffix for the keywords that cannot be raw (`self_`).
pub fn field_ident(json: &str) -> String {
    let mut snake = json.to_snake_case();
    if snake.is_empty() || snake.starts_with(|c: char| c.is_ascii_digit()) {
        snake.insert_str(0, "field_");
    }
    if NOT_RAW.contains(&snake.as_str()) {
        format!("{snake}_")
    } else if is_keyword(&snake) {
        format!("r#{snake}")
    } else {
        snake
    }
}

/// The field name without a raw-identifier prefix (what serde sees).
pub fn unraw(ident: &str) -> &str {
    ident.strip_prefix("r#").unwrap_or(ident)
}

/// The Rust type name for an event type: `auth-server.access-token.issued` → `AuthServerAccessTokenIssued`.
pub fn event_ident(event_type: &str) -> String {
    event_type.to_upper_camel_case()
}

/// The Rust name of an endpoint's request type: `list_products` → `ListProducts`.
pub fn type_ident(name: &str) -> String {
    name.to_upper_camel_case()
}

/// The module (and feature) name of an events file stem: `account-users` → `account_users`.
pub fn module_ident(stem: &str) -> String {
    stem.to_snake_case()
}

/// The cargo feature of an events file stem: `account_users` → `account-users`.
pub fn feature_name(stem: &str) -> String {
    stem.to_snake_case().replace('_', "-")
}

/// The enum variant of a version label: `v2` → `V2`, `1.0.0` → `V1_0_0`.
pub fn version_variant(label: &str) -> String {
    match label.strip_prefix('v') {
        Some(n) => format!("V{n}"),
        None => format!("V{}", label.replace('.', "_")),
    }
}

/// A parsed version label, for ordering: `v2` < `v10`; `1.0.0` by its three numbers.
pub fn version_key(label: &str) -> Option<(u64, u64, u64)> {
    if let Some(n) = label.strip_prefix('v') {
        if n.starts_with('0') || n.is_empty() || !n.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        return n.parse().ok().map(|n| (n, 0, 0));
    }
    let parts: Vec<&str> = label.split('.').collect();
    if parts.len() != 3
        || parts
            .iter()
            .any(|p| p.is_empty() || !p.bytes().all(|b| b.is_ascii_digit()))
    {
        return None;
    }
    let n = |i: usize| parts[i].parse::<u64>().ok();
    Some((n(0)?, n(1)?, n(2)?))
}

/// Names the generated `events` module defines itself, which no event type may take.
pub const RESERVED_EVENT_NAMES: &[&str] = &[
    "Event",
    "EventType",
    "DecodeError",
    "PayloadError",
    "PayloadErrorKind",
    "UnknownEventType",
];

/// Names the generated `rest` module defines itself.
pub const RESERVED_REST_NAMES: &[&str] = &["Endpoint", "Method", "ErrorResponse"];

/// Whether `s` is a valid PascalCase type name as the schema writes them.
pub fn is_type_name(s: &str) -> bool {
    s.starts_with(|c: char| c.is_ascii_uppercase())
        && s.chars().all(|c| c.is_ascii_alphanumeric())
        && s != "Self"
}

/// Whether `s` is a valid event type name: lowercase letters, digits, `.`, `_`, `-`, starting with a letter.
pub fn is_event_name(s: &str) -> bool {
    s.starts_with(|c: char| c.is_ascii_lowercase())
        && s.chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || matches!(c, '.' | '_' | '-'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keywords_become_valid_identifiers() {
        assert_eq!(field_ident("type"), "r#type");
        assert_eq!(field_ident("match"), "r#match");
        assert_eq!(field_ident("self"), "self_");
        assert_eq!(field_ident("account_number"), "account_number");
        assert_eq!(field_ident("userId"), "user_id");
        assert_eq!(unraw("r#type"), "type");
    }

    #[test]
    fn event_names_become_type_names() {
        assert_eq!(
            event_ident("auth-server.access-token.issued"),
            "AuthServerAccessTokenIssued"
        );
        assert_eq!(
            event_ident("lifecycle.join_supplier._ensure_payment_instructions.step_initiated"),
            "LifecycleJoinSupplierEnsurePaymentInstructionsStepInitiated"
        );
        assert_eq!(version_variant("v2"), "V2");
        assert_eq!(version_variant("1.0.0"), "V1_0_0");
    }

    #[test]
    fn versions_order_numerically() {
        assert!(version_key("v2") < version_key("v10"));
        assert_eq!(version_key("1.0.0"), Some((1, 0, 0)));
        for bad in ["V1", "v0", "v", "1.0", "v1.0", "version1", "v01", "1.0.x"] {
            assert_eq!(version_key(bad), None, "{bad}");
        }
    }
}
