//! The one reader of a request's parameters: decoded once, each taken by its row, every violation
//! collected.

use super::{Location, Operation, Parameter, ServerError, Violation};
use std::any::Any;

/// A value of a parameter, read from its text.
pub trait FromArgument: Sized {
    /// The value of `text`, or a code and a sentence saying why it is not one.
    fn from_argument(text: &str, parameter: &Parameter) -> Result<Self, (&'static str, String)>;
}

impl FromArgument for String {
    fn from_argument(text: &str, _: &Parameter) -> Result<Self, (&'static str, String)> {
        Ok(text.to_owned())
    }
}

impl FromArgument for bool {
    /// Exactly `true` or `false`, as the client writes them.
    fn from_argument(text: &str, _: &Parameter) -> Result<Self, (&'static str, String)> {
        match text {
            "true" => Ok(true),
            "false" => Ok(false),
            _ => Err(("invalid", "must be `true` or `false`".to_owned())),
        }
    }
}

impl FromArgument for i64 {
    /// A whole number in decimal (an optional `-`, digits), within the parameter's bounds.
    fn from_argument(text: &str, parameter: &Parameter) -> Result<Self, (&'static str, String)> {
        let digits = text.strip_prefix('-').unwrap_or(text);
        let value = if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) {
            text.parse::<i64>().ok()
        } else {
            None
        };
        let Some(value) = value else {
            return Err((
                "invalid",
                "must be a whole number, such as `100`".to_owned(),
            ));
        };
        let below = parameter.minimum.is_some_and(|min| value < min);
        let above = parameter.maximum.is_some_and(|max| value > max);
        if below || above {
            let range = match (parameter.minimum, parameter.maximum) {
                (Some(min), Some(max)) => format!("from {min} to {max}"),
                (Some(min), None) => format!("{min} or more"),
                (None, Some(max)) => format!("{max} or less"),
                (None, None) => String::new(),
            };
            return Err(("out_of_range", format!("must be {range}; {value} is not")));
        }
        Ok(value)
    }
}

#[cfg(feature = "jiff")]
impl FromArgument for jiff::Timestamp {
    /// An ISO 8601 date-time, by the rule of [`crate::datetime`] (`Europe/London` without a zone).
    fn from_argument(text: &str, _: &Parameter) -> Result<Self, (&'static str, String)> {
        crate::datetime::parse(text)
            .and_then(|t| t.to_timestamp())
            .map_err(|reason| {
                (
                    "invalid",
                    format!("must be an ISO 8601 date-time: {reason}"),
                )
            })
    }
}

/// One query parameter as given.
#[derive(Debug)]
struct Given {
    name: String,
    value: String,
    taken: bool,
}

/// The parameters of one request, decoded, read once each by the request type's declaration; what is
/// wrong is collected, not returned at the first problem.
#[derive(Debug)]
pub struct Arguments {
    operation: &'static Operation,
    path: Vec<(&'static str, String)>,
    query: Vec<Given>,
    #[cfg(feature = "jiff")]
    instants: Vec<(&'static str, jiff::Timestamp)>,
    violations: Vec<Violation>,
}

impl Arguments {
    /// The arguments of `operation` in a request whose path matched it with the raw `path` values
    /// ([`Operation::match_path`]), and whose raw query string is `query` (without the `?`).
    /// Percent-encoding is decoded (`+` is a space in the query); what does not decode to UTF-8 is a
    /// violation.
    pub fn read(
        operation: &'static Operation,
        path: &[(&'static str, &str)],
        query: Option<&str>,
    ) -> Self {
        let mut violations = Vec::new();
        let mut decoded_path = Vec::new();
        for (name, raw) in path {
            match percent_decode(raw, false) {
                Ok(value) => decoded_path.push((*name, value)),
                Err(why) => violations.push(Violation {
                    parameter: (*name).to_owned(),
                    location: Location::Path,
                    code: "bad_encoding",
                    message: why,
                }),
            }
        }
        let mut given = Vec::new();
        for pair in query
            .unwrap_or_default()
            .split('&')
            .filter(|p| !p.is_empty())
        {
            let (raw_name, raw_value) = pair.split_once('=').unwrap_or((pair, ""));
            match (
                percent_decode(raw_name, true),
                percent_decode(raw_value, true),
            ) {
                (Ok(name), Ok(value)) => given.push(Given {
                    name,
                    value,
                    taken: false,
                }),
                (name, value) => violations.push(Violation {
                    parameter: name.unwrap_or_else(|_| shown(raw_name)),
                    location: Location::Query,
                    code: "bad_encoding",
                    message: value
                        .err()
                        .unwrap_or_else(|| "its name does not decode".to_owned()),
                }),
            }
        }
        Self {
            operation,
            path: decoded_path,
            query: given,
            #[cfg(feature = "jiff")]
            instants: Vec::new(),
            violations,
        }
    }

    fn parameter(&self, name: &'static str) -> Parameter {
        self.operation
            .parameters
            .iter()
            .find(|p| p.name == name)
            .copied()
            .unwrap_or(Parameter::query(name))
    }

    fn violation(&mut self, parameter: &Parameter, code: &'static str, message: String) {
        self.violations.push(Violation {
            parameter: parameter.name.to_owned(),
            location: parameter.location,
            code,
            message,
        });
    }

    /// The text given for `parameter`: `None` when absent (a violation when repeated or empty).
    fn text(&mut self, parameter: &Parameter) -> Option<String> {
        match parameter.location {
            Location::Path => self
                .path
                .iter()
                .find(|(name, _)| *name == parameter.name)
                .map(|(_, value)| value.clone()),
            Location::Query => {
                let mut found: Option<String> = None;
                let mut repeated = false;
                for given in self.query.iter_mut().filter(|g| g.name == parameter.name) {
                    given.taken = true;
                    if found.is_some() {
                        repeated = true;
                    } else {
                        found = Some(given.value.clone());
                    }
                }
                if repeated {
                    self.violation(parameter, "repeated", "is given more than once".to_owned());
                    return None;
                }
                found
            }
        }
    }

    fn value<T: FromArgument + 'static>(&mut self, parameter: &Parameter, text: &str) -> Option<T> {
        if text.is_empty() {
            self.violation(
                parameter,
                "empty",
                "is empty: give a value or leave the parameter out".to_owned(),
            );
            return None;
        }
        match T::from_argument(text, parameter) {
            Ok(value) => {
                #[cfg(feature = "jiff")]
                if let Some(instant) = (&value as &dyn Any).downcast_ref::<jiff::Timestamp>() {
                    self.instants.push((parameter.name, *instant));
                }
                Some(value)
            }
            Err((code, message)) => {
                self.violation(parameter, code, message);
                None
            }
        }
    }

    /// A required parameter's value; a violation when it is absent or not valid.
    pub fn required<T: FromArgument + 'static>(&mut self, name: &'static str) -> Option<T> {
        let parameter = self.parameter(name);
        match self.text(&parameter) {
            Some(text) => self.value(&parameter, &text),
            None => {
                if !self.violations.iter().any(|v| v.parameter == name) {
                    self.violation(&parameter, "missing", "is required".to_owned());
                }
                None
            }
        }
    }

    /// An optional parameter's value: its default (or `None`) when absent; a violation when it is
    /// not valid.
    pub fn optional<T: FromArgument + From<i64> + 'static>(
        &mut self,
        name: &'static str,
    ) -> Option<T> {
        let parameter = self.parameter(name);
        match self.text(&parameter) {
            Some(text) => self.value(&parameter, &text),
            None => parameter.default.map(T::from),
        }
    }

    /// An optional parameter without a default: its value, or `None` when absent; a violation when
    /// it is not valid.
    pub fn optional_plain<T: FromArgument + 'static>(&mut self, name: &'static str) -> Option<T> {
        let parameter = self.parameter(name);
        let text = self.text(&parameter)?;
        self.value(&parameter, &text)
    }

    /// An array parameter (the parameter repeated): every value, or `None` when absent; a violation
    /// for each value that is not valid.
    pub fn list<T: FromArgument + 'static>(&mut self, name: &'static str) -> Option<Vec<T>> {
        let parameter = self.parameter(name);
        let mut texts = Vec::new();
        for given in self.query.iter_mut().filter(|g| g.name == parameter.name) {
            given.taken = true;
            texts.push(given.value.clone());
        }
        if texts.is_empty() {
            return None;
        }
        let values: Vec<Option<T>> = texts.iter().map(|t| self.value(&parameter, t)).collect();
        values.into_iter().collect()
    }

    /// A required array parameter: every value; a violation when it is absent.
    pub fn required_list<T: FromArgument + 'static>(
        &mut self,
        name: &'static str,
    ) -> Option<Vec<T>> {
        let listed = self.list(name);
        if listed.is_none() && !self.violations.iter().any(|v| v.parameter == name) {
            let parameter = self.parameter(name);
            self.violation(&parameter, "missing", "is required".to_owned());
        }
        listed
    }

    /// Checks what concerns the request as a whole, once every parameter has been read: no unknown
    /// parameter, date-times in order (`not_after`). Whether the request is free of violations.
    pub fn finish(&mut self) -> bool {
        let known: Vec<&str> = self
            .operation
            .parameters
            .iter()
            .filter(|p| p.location == Location::Query)
            .map(|p| p.name)
            .collect();
        let mut unknown: Vec<String> = Vec::new();
        for given in self.query.iter().filter(|g| !g.taken) {
            if !unknown.contains(&given.name) {
                unknown.push(given.name.clone());
            }
        }
        for name in unknown {
            let message = if known.is_empty() {
                format!(
                    "is not a parameter of `{}`, which takes none",
                    self.operation.name
                )
            } else {
                format!(
                    "is not a parameter of `{}` (it takes {})",
                    self.operation.name,
                    known
                        .iter()
                        .map(|k| format!("`{k}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            };
            self.violations.push(Violation {
                parameter: name,
                location: Location::Query,
                code: "unknown",
                message,
            });
        }
        #[cfg(feature = "jiff")]
        for parameter in self.operation.parameters {
            let Some(other) = parameter.not_after else {
                continue;
            };
            let at = |name: &str| {
                self.instants
                    .iter()
                    .find(|(n, _)| *n == name)
                    .map(|(_, t)| *t)
            };
            if let (Some(this), Some(that)) = (at(parameter.name), at(other))
                && this > that
            {
                let message = format!("{this} is later than `{other}` ({that})");
                self.violation(parameter, "order", message);
            }
        }
        // In the order the operation declares its parameters (an unknown one last).
        let place = |v: &Violation| {
            self.operation
                .parameters
                .iter()
                .position(|p| p.name == v.parameter)
                .unwrap_or(usize::MAX)
        };
        self.violations.sort_by_key(place);
        self.violations.is_empty()
    }

    /// The violations found, in the order of the operation's parameters.
    pub fn violations(&self) -> &[Violation] {
        &self.violations
    }

    /// The error that refuses this request: every violation.
    pub fn refusal(&mut self) -> ServerError {
        ServerError::bad_request(std::mem::take(&mut self.violations))
    }
}

/// Some text given by a client, as an error may show it: at most 100 characters, control characters
/// escaped.
pub(super) fn shown(text: &str) -> String {
    let mut out: String = text
        .chars()
        .take(100)
        .flat_map(char::escape_debug)
        .collect();
    if text.chars().count() > 100 {
        out.push('…');
    }
    out
}

/// Percent-decodes `raw` (and `+` as a space in a query), into UTF-8.
fn percent_decode(raw: &str, plus_is_space: bool) -> Result<String, String> {
    let bytes = raw.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'%' => {
                let hex = |b: u8| char::from(b).to_digit(16);
                match (
                    bytes.get(i + 1).copied().and_then(hex),
                    bytes.get(i + 2).copied().and_then(hex),
                ) {
                    (Some(high), Some(low)) => {
                        out.push(u8::try_from(high * 16 + low).unwrap_or(b'?'));
                        i += 3;
                    }
                    _ => {
                        return Err(format!(
                            "`%` must be followed by two hexadecimal digits (in `{}`)",
                            shown(raw)
                        ));
                    }
                }
            }
            b'+' if plus_is_space => {
                out.push(b' ');
                i += 1;
            }
            b => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8(out).map_err(|_| "its percent-encoded bytes are not UTF-8".to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rest::Method;

    static LIST: Operation = Operation {
        name: "list_products",
        method: Method::Get,
        path: "/v1/products/",
        auth_required: false,
        parameters: &[
            Parameter::query("brand"),
            Parameter::query("is_green"),
            Parameter::query("page_size")
                .minimum(1)
                .maximum(1000)
                .default(100),
        ],
    };

    static RATES: Operation = Operation {
        name: "list_standard_unit_rates",
        method: Method::Get,
        path: "/v1/products/{product_code}/electricity-tariffs/{tariff_code}/standard-unit-rates/",
        auth_required: false,
        parameters: &[
            Parameter::path("product_code"),
            Parameter::path("tariff_code"),
            Parameter::query("period_from").not_after("period_to"),
            Parameter::query("period_to"),
        ],
    };

    fn codes(arguments: &Arguments) -> Vec<(String, &'static str)> {
        arguments
            .violations()
            .iter()
            .map(|v| (v.parameter.clone(), v.code))
            .collect()
    }

    #[test]
    fn both_path_forms_match_and_others_do_not() {
        let path = "/v1/products/AGILE%2F24/electricity-tariffs/E-1R-A/standard-unit-rates/";
        assert_eq!(
            RATES.match_path(path),
            Some(vec![
                ("product_code", "AGILE%2F24"),
                ("tariff_code", "E-1R-A")
            ])
        );
        assert!(RATES.match_path(path.trim_end_matches('/')).is_some());
        assert_eq!(LIST.match_path("/v1/products"), Some(vec![]));
        assert_eq!(LIST.match_path("/v1/products/"), Some(vec![]));
        assert_eq!(LIST.match_path("/v1/products/x/"), None);
        assert_eq!(
            RATES.match_path("/v1/products//electricity-tariffs/t/standard-unit-rates/"),
            None
        );
        assert_eq!(LIST.match_path("/v1/productsx/"), None);
    }

    #[test]
    fn every_violation_is_reported_at_once() {
        let mut arguments = Arguments::read(
            &LIST,
            &[],
            Some("is_green=yes&page_size=0&brand=&colour=red&colour=blue&x=%zz"),
        );
        let brand: Option<String> = arguments.optional_plain("brand");
        let green: Option<bool> = arguments.optional_plain("is_green");
        let size: Option<i64> = arguments.optional("page_size");
        assert_eq!((brand, green, size), (None, None, None));
        assert!(!arguments.finish());
        assert_eq!(
            codes(&arguments),
            vec![
                ("brand".to_owned(), "empty"),
                ("is_green".to_owned(), "invalid"),
                ("page_size".to_owned(), "out_of_range"),
                ("x".to_owned(), "bad_encoding"),
                ("colour".to_owned(), "unknown"),
            ]
        );
        let error = arguments.refusal();
        assert_eq!(error.status(), 400);
        let body: serde_json::Value = serde_json::from_slice(&error.to_json()).unwrap();
        assert_eq!(body["code"], "invalid_parameters");
        assert_eq!(
            body["errors"][2]["message"],
            "must be from 1 to 1000; 0 is not"
        );
        assert_eq!(body["errors"][4]["in"], "query");
    }

    #[test]
    fn defaults_fill_absent_parameters_and_values_decode() {
        let mut arguments = Arguments::read(
            &LIST,
            &[],
            Some("brand=OCTOPUS%20ENERGY+LTD&is_green=false"),
        );
        let brand: Option<String> = arguments.optional_plain("brand");
        let green: Option<bool> = arguments.optional_plain("is_green");
        let size: Option<i64> = arguments.optional("page_size");
        assert!(arguments.finish(), "{:?}", arguments.violations());
        assert_eq!(brand.as_deref(), Some("OCTOPUS ENERGY LTD"));
        assert_eq!((green, size), (Some(false), Some(100)));
    }

    #[test]
    fn a_repeated_parameter_and_bad_utf8_are_refused() {
        let mut arguments = Arguments::read(&LIST, &[], Some("page_size=5&page_size=6&brand=%FF"));
        let _: Option<i64> = arguments.optional("page_size");
        let _: Option<String> = arguments.optional_plain("brand");
        assert!(!arguments.finish());
        assert_eq!(
            codes(&arguments),
            vec![
                ("brand".to_owned(), "bad_encoding"),
                ("page_size".to_owned(), "repeated")
            ]
        );
        for number in ["1e3", "12.0", "+5", "", "-", "99999999999999999999"] {
            assert!(
                i64::from_argument(number, &LIST.parameters[2]).is_err(),
                "{number}"
            );
        }
    }

    #[cfg(feature = "jiff")]
    #[test]
    fn a_period_that_ends_before_it_starts_is_refused() {
        let path = [("product_code", "P"), ("tariff_code", "T")];
        let mut arguments = Arguments::read(
            &RATES,
            &path,
            Some("period_from=2024-03-31T12:00Z&period_to=2024-03-31"),
        );
        let _: Option<String> = arguments.required("product_code");
        let _: Option<String> = arguments.required("tariff_code");
        let from: Option<jiff::Timestamp> = arguments.optional_plain("period_from");
        let _: Option<jiff::Timestamp> = arguments.optional_plain("period_to");
        assert!(from.is_some());
        assert!(!arguments.finish());
        assert_eq!(codes(&arguments), vec![("period_from".to_owned(), "order")]);
        // London midnight of a civil date, read as the client reads it.
        let mut fine = Arguments::read(
            &RATES,
            &path,
            Some("period_from=2024-03-30T23:00Z&period_to=2024-03-31"),
        );
        let _: Option<String> = fine.required("product_code");
        let _: Option<String> = fine.required("tariff_code");
        let _: Option<jiff::Timestamp> = fine.optional_plain("period_from");
        let _: Option<jiff::Timestamp> = fine.optional_plain("period_to");
        assert!(fine.finish(), "{:?}", fine.violations());
    }
}
