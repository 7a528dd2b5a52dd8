//! The keys of a JSON text as written: the first key an object holds twice, and the line a
//! key stands on.
//!
//! The locks are state files that travel through pull requests (issue 27 §3). serde_json
//! keeps the last of two equal keys without a word, both in a `Value` and in a derived map,
//! so a lock that gives an entry twice would be acted on as its later copy while a reviewer
//! reads the earlier one; the lock readers refuse such a text with [`duplicate_key`]. After a
//! semantic check refuses a value, [`key_line`] finds the line its key stands on, so the
//! refusal can name it.
//!
//! Written here rather than taken from a crate: serde_json keeps no positions past parsing,
//! and what is wanted is one linear pass over text the parser has already accepted, without
//! building a tree of values (a lock may hold 100,000 skills).
//!
//! ```
//! use asv_model::json::{duplicate_key, key_line};
//! let text = "{\n  \"skills\": {\n    \"a\": 1,\n    \"a\": 2\n  }\n}\n";
//! let twice = duplicate_key(text).ok_or("no duplicate")?;
//! assert_eq!((twice.line, twice.path.as_slice()), (4, ["skills".to_owned(), "a".to_owned()].as_slice()));
//! assert_eq!(key_line(text, &["skills", "a"]), Some(3));
//! assert_eq!(key_line(text, &["a"]), None);
//! # Ok::<(), &str>(())
//! ```

use std::collections::HashSet;

/// A key that an object of the text holds twice.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Duplicate {
    /// The 1-based line of its second occurrence.
    pub line: usize,
    /// The keys from the top level down to it, it last (arrays on the way add nothing).
    pub path: Vec<String>,
}

/// One open object or array while the text is walked.
enum Frame {
    /// An object: the keys seen so far, and whether the next string is a key.
    Object {
        keys: HashSet<String>,
        expect_key: bool,
    },
    /// An array.
    Array,
}

/// Walks the keys of `text` in order, calling `on_key(path, line, repeated)` for each (its
/// path from the top level, it last; its 1-based line; whether its object held it already)
/// until `on_key` answers `true`.
///
/// `text` should be JSON the parser accepted: of any other text, the answers mean nothing,
/// but the walk still ends without a panic.
fn walk(text: &str, mut on_key: impl FnMut(&[String], usize, bool) -> bool) {
    let bytes = text.as_bytes();
    let mut stack: Vec<Frame> = Vec::new();
    // The current key of each open object, outermost first.
    let mut path: Vec<String> = Vec::new();
    let mut line = 1;
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        match b {
            b'\n' => line += 1,
            b'"' => {
                let (end, escaped) = string_end(bytes, i + 1);
                if let Some(Frame::Object { keys, expect_key }) = stack.last_mut()
                    && *expect_key
                {
                    // Both ends are ASCII quotes, so the slice falls on character boundaries.
                    let raw = text.get(i + 1..end).unwrap_or_default();
                    let key = if escaped {
                        unescape(raw).unwrap_or_else(|| raw.to_owned())
                    } else {
                        raw.to_owned()
                    };
                    *expect_key = false;
                    let repeated = !keys.insert(key.clone());
                    if let Some(last) = path.last_mut() {
                        *last = key;
                    }
                    if on_key(&path, line, repeated) {
                        return;
                    }
                }
                i = end;
            }
            b'{' => {
                stack.push(Frame::Object {
                    keys: HashSet::new(),
                    expect_key: true,
                });
                path.push(String::new());
            }
            b'[' => stack.push(Frame::Array),
            b'}' | b']' => {
                if let Some(Frame::Object { .. }) = stack.pop() {
                    path.pop();
                }
            }
            b',' => {
                if let Some(Frame::Object { expect_key, .. }) = stack.last_mut() {
                    *expect_key = true;
                }
            }
            _ => {}
        }
        i += 1;
    }
}

/// The index of the quote that closes the string whose text starts at `start` (the length of
/// `bytes` when none does), and whether the string holds an escape.
fn string_end(bytes: &[u8], start: usize) -> (usize, bool) {
    let mut escaped = false;
    let mut i = start;
    while let Some(&b) = bytes.get(i) {
        match b {
            b'"' => return (i, escaped),
            b'\\' => {
                escaped = true;
                i += 2;
            }
            _ => i += 1,
        }
    }
    (bytes.len(), escaped)
}

/// The string a JSON string's text (between its quotes) stands for; `None` for a malformed
/// escape.
fn unescape(raw: &str) -> Option<String> {
    let mut out = String::with_capacity(raw.len());
    let mut units: Vec<u16> = Vec::new();
    let mut chars = raw.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            if !units.is_empty() {
                out.extend(char::decode_utf16(units.drain(..)).map(|r| r.unwrap_or('\u{fffd}')));
            }
            out.push(c);
            continue;
        }
        let e = chars.next()?;
        if e == 'u' {
            let hex: String = chars.by_ref().take(4).collect();
            if hex.len() != 4 {
                return None;
            }
            units.push(u16::from_str_radix(&hex, 16).ok()?);
            continue;
        }
        if !units.is_empty() {
            out.extend(char::decode_utf16(units.drain(..)).map(|r| r.unwrap_or('\u{fffd}')));
        }
        out.push(match e {
            '"' => '"',
            '\\' => '\\',
            '/' => '/',
            'b' => '\u{8}',
            'f' => '\u{c}',
            'n' => '\n',
            'r' => '\r',
            't' => '\t',
            _ => return None,
        });
    }
    out.extend(char::decode_utf16(units).map(|r| r.unwrap_or('\u{fffd}')));
    Some(out)
}

/// The first key (in text order) that its object already holds, if any.
///
/// `text` should be JSON the parser accepted; of other text the answer means nothing.
pub fn duplicate_key(text: &str) -> Option<Duplicate> {
    let mut found = None;
    walk(text, |path, line, repeated| {
        if repeated {
            found = Some(Duplicate {
                line,
                path: path.to_vec(),
            });
        }
        repeated
    });
    found
}

/// The 1-based line of the first key whose path from the top level is `path` (arrays on the
/// way add nothing), if there is one.
///
/// `text` should be JSON the parser accepted; of other text the answer means nothing.
pub fn key_line(text: &str, path: &[&str]) -> Option<usize> {
    let mut found = None;
    walk(text, |at, line, _| {
        let here = at.len() == path.len() && at.iter().zip(path).all(|(a, b)| a == b);
        if here {
            found = Some(line);
        }
        here
    });
    found
}

/// Renders a key path for a refusal: keys joined by `.`, each key that is not plain (ASCII
/// letters, digits, `-`, `_`) as a JSON string, so `projections.".claude/skills".pdf`.
pub fn display_path<S: AsRef<str>>(path: &[S]) -> String {
    path.iter()
        .map(|key| {
            let key = key.as_ref();
            let plain = !key.is_empty()
                && key
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
            if plain {
                key.to_owned()
            } else {
                asv_error::quote::json_string(key)
            }
        })
        .collect::<Vec<_>>()
        .join(".")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dup(text: &str) -> Option<(usize, Vec<String>)> {
        duplicate_key(text).map(|found| (found.line, found.path))
    }

    #[test]
    fn duplicates_are_found_with_their_path_and_line() {
        /// A text, and the line and path of its first duplicate key.
        type Row<'a> = (&'a str, Option<(usize, &'a [&'a str])>);
        let rows: &[Row<'_>] = &[
            ("{}", None),
            (r#"{"a":1,"b":2}"#, None),
            (r#"{"a":1,"a":2}"#, Some((1, &["a"]))),
            // the same key in two objects is no duplicate
            (r#"{"a":{"x":1},"b":{"x":1}}"#, None),
            ("{\"a\":{\"x\":1,\n\"x\":2}}", Some((2, &["a", "x"]))),
            // a value equal to a key is no key
            (r#"{"a":"a","b":"a"}"#, None),
            // keys inside arrays of objects: each object on its own
            (r#"{"l":[{"k":1},{"k":2}]}"#, None),
            (r#"{"l":[{"k":1,"k":2}]}"#, Some((1, &["l", "k"]))),
            // escapes spell the same key differently
            (r#"{"a":1,"\u0061":2}"#, Some((1, &["a"]))),
            (r#"{"\"q\\":1,"\"q\\":2}"#, Some((1, &["\"q\\"]))),
            (r#"{"\ud83d\ude00":1,"😀":2}"#, Some((1, &["😀"]))),
            // a quote or brace inside a string changes nothing
            (r#"{"a{":"}\"","a":{"a{":1}}"#, None),
            ("[1,2,{\"x\":1,\"x\":1}]", Some((1, &["x"]))),
        ];
        for (text, want) in rows {
            let got = dup(text);
            let want = want.map(|(l, p)| (l, p.iter().map(|s| (*s).to_owned()).collect()));
            assert_eq!(got, want, "{text}");
        }
    }

    #[test]
    fn key_line_follows_the_path() {
        let text = "{\n  \"skills\": {\n    \"source\": {\n      \"source\": \"x\"\n    },\n    \"b\": {\"source\": \"y\"}\n  },\n  \"projections\": {\n    \".claude/skills\": {\n      \"b\": \"h\"\n    }\n  }\n}\n";
        assert_eq!(key_line(text, &["skills"]), Some(2));
        assert_eq!(key_line(text, &["skills", "source"]), Some(3));
        assert_eq!(key_line(text, &["skills", "source", "source"]), Some(4));
        assert_eq!(key_line(text, &["skills", "b", "source"]), Some(6));
        assert_eq!(
            key_line(text, &["projections", ".claude/skills", "b"]),
            Some(10)
        );
        assert_eq!(key_line(text, &["projections", "b"]), None);
        assert_eq!(key_line(text, &[]), None);
    }

    #[test]
    fn text_that_is_not_json_ends_the_walk_without_a_panic() {
        for text in [
            "",
            "\"",
            "{\"a",
            "{\"a\\",
            "}}]]{",
            "{\"\\u12\":1}",
            "{\"é\":1,\"é\":2",
        ] {
            let _ = duplicate_key(text);
            let _ = key_line(text, &["a"]);
        }
        assert_eq!(unescape("\\u12"), None);
        assert_eq!(unescape("\\x"), None);
    }

    #[test]
    fn paths_render_plain_keys_bare() {
        assert_eq!(
            display_path(&["projections", ".claude/skills", "pdf"]),
            "projections.\".claude/skills\".pdf"
        );
        assert_eq!(display_path(&["a", ""]), "a.\"\"");
    }
}
