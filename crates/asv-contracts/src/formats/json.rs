//! Rendering JSON exactly as `JSON.stringify(value, null, 2)` with keys sorted in UTF-16 order.
//!
//! The lock is compared byte for byte between two tools, so the spelling is fixed here rather
//! than left to a serializer's defaults: 2-space indentation, `{}`/`[]` for empty containers,
//! non-ASCII written as it is, and object keys sorted recursively in JavaScript string order.

use serde_json::Value;

use crate::digest::cmp_utf16;

/// Renders `value` with 2-space indentation, keys sorted in UTF-16 order, and one trailing LF.
///
/// # Example
/// ```
/// let v = serde_json::json!({"b": [], "a": {"é": 1}});
/// assert_eq!(asv_contracts::json::render(&v), "{\n  \"a\": {\n    \"é\": 1\n  },\n  \"b\": []\n}\n");
/// ```
pub fn render(value: &Value) -> String {
    let mut out = String::new();
    write_value(&mut out, value, 0);
    out.push('\n');
    out
}

/// Where rendered text goes: a `String`, or a [`Compare`] that only checks it.
pub trait Sink {
    /// Takes the next piece of text.
    fn put(&mut self, text: &str);

    /// Takes one character.
    fn put_char(&mut self, c: char) {
        self.put(c.encode_utf8(&mut [0; 4]));
    }
}

impl Sink for String {
    fn put(&mut self, text: &str) {
        self.push_str(text);
    }

    fn put_char(&mut self, c: char) {
        self.push(c);
    }
}

/// A sink that compares what is rendered with bytes already in hand, holding nothing: a lock
/// of 100,000 skills is checked against its file without its rendering ever being built.
///
/// # Example
/// ```
/// use asv_contracts::json::{Compare, Sink};
/// let mut c = Compare::new(b"{}\n");
/// c.put("{}");
/// c.put_char('\n');
/// assert!(c.matched());
/// ```
#[derive(Debug)]
pub struct Compare<'a> {
    rest: &'a [u8],
    equal: bool,
}

impl<'a> Compare<'a> {
    /// A comparison with `expected`.
    pub fn new(expected: &'a [u8]) -> Self {
        Compare {
            rest: expected,
            equal: true,
        }
    }

    /// Whether everything put so far, and nothing more, is exactly the expected bytes.
    pub fn matched(&self) -> bool {
        self.equal && self.rest.is_empty()
    }
}

impl Sink for Compare<'_> {
    fn put(&mut self, text: &str) {
        if !self.equal {
            return;
        }
        match self.rest.strip_prefix(text.as_bytes()) {
            Some(rest) => self.rest = rest,
            None => self.equal = false,
        }
    }
}

/// The order `JSON.stringify` writes the keys of an object built by inserting keys sorted in
/// UTF-16 order: JavaScript puts array-index keys ("0", "42", below 2^32 - 1) first, in numeric
/// order, and then every other key in insertion order. Ids like `123` are valid, so this shows.
pub fn js_property_order(a: &str, b: &str) -> std::cmp::Ordering {
    match (array_index(a), array_index(b)) {
        (Some(x), Some(y)) => x.cmp(&y),
        (Some(_), None) => std::cmp::Ordering::Less,
        (None, Some(_)) => std::cmp::Ordering::Greater,
        (None, None) => cmp_utf16(a, b),
    }
}

fn array_index(key: &str) -> Option<u32> {
    if key.is_empty() || key.len() > 10 || !key.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    if key.len() > 1 && key.starts_with('0') {
        return None;
    }
    let value: u64 = key.parse().ok()?;
    if value < u64::from(u32::MAX) {
        u32::try_from(value).ok()
    } else {
        None
    }
}

pub(crate) fn indent(out: &mut impl Sink, level: usize) {
    for _ in 0..level {
        out.put("  ");
    }
}

pub(crate) fn write_value(out: &mut impl Sink, value: &Value, level: usize) {
    match value {
        Value::Null => out.put("null"),
        Value::Bool(b) => out.put(if *b { "true" } else { "false" }),
        Value::Number(n) => out.put(&n.to_string()),
        Value::String(s) => out.put(&asv_error::quote::json_string(s)),
        Value::Array(items) => {
            if items.is_empty() {
                out.put("[]");
                return;
            }
            out.put("[\n");
            for (i, item) in items.iter().enumerate() {
                indent(out, level + 1);
                write_value(out, item, level + 1);
                if i + 1 < items.len() {
                    out.put_char(',');
                }
                out.put_char('\n');
            }
            indent(out, level);
            out.put_char(']');
        }
        Value::Object(map) => {
            if map.is_empty() {
                out.put("{}");
                return;
            }
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort_by(|a, b| js_property_order(a, b));
            out.put("{\n");
            for (i, key) in keys.iter().enumerate() {
                indent(out, level + 1);
                out.put(&asv_error::quote::json_string(key));
                out.put(": ");
                if let Some(v) = map.get(*key) {
                    write_value(out, v, level + 1);
                }
                if i + 1 < keys.len() {
                    out.put_char(',');
                }
                out.put_char('\n');
            }
            indent(out, level);
            out.put_char('}');
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integer_like_keys_come_first_as_in_javascript() {
        let v = serde_json::json!({"b": 1, "10": 2, "2": 3, "01": 4, "4294967295": 5, "a": 6});
        assert_eq!(
            render(&v),
            "{\n  \"2\": 3,\n  \"10\": 2,\n  \"01\": 4,\n  \"4294967295\": 5,\n  \"a\": 6,\n  \"b\": 1\n}\n"
        );
    }

    #[test]
    fn lock_vector_renders_exactly() {
        let vectors: Value =
            serde_json::from_str(include_str!("../../tests/vectors.json")).expect("vectors parse");
        for lock in vectors["locks"].as_array().expect("locks") {
            assert_eq!(
                render(&lock["value"]),
                lock["rendered"].as_str().expect("rendered"),
                "{}",
                lock["name"]
            );
        }
    }
}
