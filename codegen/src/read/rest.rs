//! `rest.yaml`: authentication schemes, resources and endpoints.

use super::{SchemaReader, keys};
use crate::ast::*;
use crate::diag::{Code, Diagnostic};
use crate::source::FileId;
use crate::yaml::{Node, NodeKind};

impl SchemaReader<'_> {
    /// Reads `rest.yaml`.
    pub fn rest_file(&mut self, file: FileId, root: &Node) -> Option<RestFile> {
        let top = self.entries(root, "the REST file", Some(keys::REST_FILE))?;
        let title = self.documentation(&top, "title", "the REST file");
        let version = self.documentation(&top, "version", "the REST file");
        let description = self.documentation(&top, "description", "the REST file");
        let mut auth = Vec::new();
        if let Some(node) = top.get("authentication")
            && let Some(map) = self.entries(node, "`authentication`", None)
        {
            for (_, key, value) in &map.entries {
                if let Some(a) = self.auth_def(key, value) {
                    auth.push(a);
                }
            }
        }
        let bases = top
            .get("bases")
            .map(|n| self.bases(n, true))
            .unwrap_or_default();
        let mut resources = Vec::new();
        if let Some(node) = self.required(&top, "resources", "the REST file")
            && let Some(map) = self.entries(node, "`resources`", None)
        {
            for (_, key, value) in &map.entries {
                if let Some(t) = self.type_def(key, value, true) {
                    resources.push(t);
                }
            }
        }
        let error_response = top.get("error_response").and_then(|n| self.type_expr(n));
        let mut endpoints = Vec::new();
        if let Some(list) = self.required(&top, "endpoints", "the REST file") {
            match &list.kind {
                NodeKind::Seq(items) => {
                    for item in items {
                        if let Some(e) = self.endpoint(item) {
                            endpoints.push(e);
                        }
                    }
                }
                _ => self.expected(list, "`endpoints`", "a sequence of endpoints (`- name: …`)"),
            }
        }
        Some(RestFile {
            file,
            title,
            version,
            description,
            auth,
            bases,
            resources,
            error_response,
            endpoints,
        })
    }

    fn auth_def(&mut self, key: &Node, value: &Node) -> Option<AuthDef> {
        let name = self.located(key)?;
        let map = self.entries(value, "an authentication scheme", Some(keys::AUTH_SCHEME))?;
        let description = self.description(&map, true, "an authentication scheme");
        let kind_node = self.required(&map, "kind", "an authentication scheme")?;
        let kind = match kind_node.as_str() {
            Some("basic") => AuthKind::Basic,
            Some("authorization-header") => AuthKind::AuthorizationHeader,
            other => {
                let d = Diagnostic::new(
                    Code::InvalidValue,
                    kind_node.span,
                    "unknown authentication kind",
                )
                .label("expected `basic` or `authorization-header`");
                self.error(d.suggest(other.unwrap_or(""), keys::AUTH_KINDS.iter().copied()));
                return None;
            }
        };
        Some(AuthDef {
            name,
            kind,
            description,
        })
    }

    fn endpoint(&mut self, node: &Node) -> Option<EndpointDef> {
        let map = self.entries(node, "an endpoint", Some(keys::ENDPOINT))?;
        let name = self
            .required(&map, "name", "an endpoint")
            .and_then(|n| self.located(n));
        let method = self
            .required(&map, "method", "an endpoint")
            .and_then(|n| self.located(n));
        let path = self
            .required(&map, "path", "an endpoint")
            .and_then(|n| self.located(n));
        let description = self.description(&map, true, "an endpoint");
        let path_parameters = map
            .get("path_parameters")
            .map(|n| self.parameters(n))
            .unwrap_or_default();
        let query = map
            .get("query")
            .map(|n| self.parameters(n))
            .unwrap_or_default();
        let response = self
            .required(&map, "response", "an endpoint")
            .and_then(|n| self.type_expr(n));
        let auth = match map.get("auth") {
            None => AuthRequirement::None,
            Some(n) => match n.as_str() {
                Some("none") => AuthRequirement::None,
                Some("required") => AuthRequirement::Required,
                other => {
                    let d = Diagnostic::new(Code::InvalidValue, n.span, "unknown `auth` value")
                        .label("expected `none` or `required`");
                    self.error(
                        d.suggest(other.unwrap_or(""), keys::AUTH_REQUIREMENTS.iter().copied()),
                    );
                    AuthRequirement::None
                }
            },
        };
        if let Some(m) = &method
            && !keys::METHODS.contains(&m.text.as_str())
        {
            let d = Diagnostic::new(
                Code::InvalidValue,
                m.span,
                format!("unknown HTTP method `{}`", m.text),
            )
            .label("expected GET, POST, PUT, PATCH or DELETE");
            self.error(d.suggest(&m.text.to_ascii_uppercase(), keys::METHODS.iter().copied()));
        }
        let waivers = self.waivers(&map);
        Some(EndpointDef {
            name: name?,
            method: method?,
            path: path?,
            description,
            path_parameters,
            query,
            response: response?,
            auth,
            waivers,
            span: map.span,
        })
    }
}
