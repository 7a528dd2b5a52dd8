//! Printing names that may hold control characters.
//!
//! A path goes into a one-line message; a name holding a line break or an escape sequence
//! would forge lines or colour a terminal. Such names are printed as a JSON string instead,
//! exactly as JavaScript's `JSON.stringify` spells it, so both tools print the same bytes.

use std::fmt;

/// Whether `c` is a control character that forces a name to be quoted.
pub fn is_control(c: char) -> bool {
    c.is_control()
}

/// Writes `s` as a JSON string literal the way `JSON.stringify` does.
///
/// Only `"`, `\` and the C0 controls are escaped (`\b`, `\t`, `\n`, `\f`, `\r`, else
/// `\u00xx` in lowercase hex); everything else, non-ASCII included, is written as it is.
pub fn json_string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\u{8}' => out.push_str("\\b"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\u{c}' => out.push_str("\\f"),
            '\r' => out.push_str("\\r"),
            c if (c as u32) < 0x20 => {
                out.push_str(&format!("\\u{:04x}", c as u32));
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Displays a name as it is, or JSON-quoted when it holds a control character.
///
/// # Example
/// ```
/// use asv_error::quote::DisplayPath;
/// assert_eq!(DisplayPath("skills/a").to_string(), "skills/a");
/// assert_eq!(DisplayPath("skills/a\nb").to_string(), "\"skills/a\\nb\"");
/// ```
pub struct DisplayPath<'a>(pub &'a str);

impl fmt::Display for DisplayPath<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.chars().any(is_control) {
            f.write_str(&json_string(self.0))
        } else {
            f.write_str(self.0)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoting_table() {
        let rows: &[(&str, &str)] = &[
            ("plain", "plain"),
            ("ünï", "ünï"),
            ("a\tb", "\"a\\tb\""),
            ("a\u{1}b", "\"a\\u0001b\""),
            ("a\u{1b}[31m", "\"a\\u001b[31m\""),
            ("q\"\n", "\"q\\\"\\n\""),
            ("del\u{7f}", "\"del\u{7f}\""),
        ];
        for (input, want) in rows {
            assert_eq!(DisplayPath(input).to_string(), *want, "{input:?}");
        }
    }
}
