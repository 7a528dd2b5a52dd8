//! A finding, where it is, and how its matched text is shown and fingerprinted.

use sha2::{Digest, Sha256};

use crate::rules::{Rule, Severity};

/// The longest excerpt shown, in characters; the fingerprint always covers the whole match.
pub const EXCERPT_CHARS: usize = 120;

/// One thing a rule found in one file.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Finding {
    /// The file, relative to the skill's directory (`/`-separated).
    pub path: String,
    /// The 1-based line (1 for findings about the whole file).
    pub line: u32,
    /// The 1-based column, in Unicode code points from the line's start.
    pub column: u32,
    /// The rule.
    pub rule: Rule,
    /// Its weight here.
    pub severity: Severity,
    /// The matched text, escaped (invisible and control characters as `\u{…}`) and cut at
    /// [`EXCERPT_CHARS`]; secrets are shown by their first characters only.
    pub excerpt: String,
    /// What was found, in words (e.g. `14 tag characters spelling "ignore all…"`).
    pub detail: String,
    /// sha256 (hex) of the rule id, the path and the whole matched text: the same content
    /// at another line keeps it, any change to the matched text changes it.
    pub fingerprint: String,
}

impl Finding {
    /// A finding of `rule` at its default severity.
    pub(crate) fn new(
        rule: Rule,
        path: &str,
        at: Position,
        matched: &str,
        detail: String,
    ) -> Finding {
        Finding::with_severity(rule, rule.default_severity(), path, at, matched, detail)
    }

    /// A finding of `rule` at `severity` (for rules whose weight depends on the place).
    pub(crate) fn with_severity(
        rule: Rule,
        severity: Severity,
        path: &str,
        at: Position,
        matched: &str,
        detail: String,
    ) -> Finding {
        let excerpt = if rule == Rule::SecretLiteral {
            redact(matched)
        } else {
            escape(matched)
        };
        Finding {
            path: path.to_owned(),
            line: at.line,
            column: at.column,
            rule,
            severity,
            excerpt,
            detail,
            fingerprint: fingerprint(rule, path, matched.as_bytes()),
        }
    }
}

/// The fingerprint of a finding: sha256 over the rule id, the path and the matched bytes,
/// each followed by a NUL so that no two different triples run together alike.
pub fn fingerprint(rule: Rule, path: &str, matched: &[u8]) -> String {
    let mut h = Sha256::new();
    h.update(rule.id().as_bytes());
    h.update([0]);
    h.update(path.as_bytes());
    h.update([0]);
    h.update(matched);
    h.update([0]);
    let digest = h.finalize();
    let mut out = String::with_capacity(64);
    for b in digest {
        out.push(char::from_digit(u32::from(b >> 4), 16).unwrap_or('0'));
        out.push(char::from_digit(u32::from(b & 15), 16).unwrap_or('0'));
    }
    out
}

/// A line and column, both 1-based.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Position {
    /// The line.
    pub line: u32,
    /// The column, in code points.
    pub column: u32,
}

impl Position {
    /// The top of a file, for findings about the whole file.
    pub const TOP: Position = Position { line: 1, column: 1 };
}

/// Where each line of a text starts, to turn byte offsets into positions.
pub(crate) struct Lines<'a> {
    text: &'a str,
    starts: Vec<usize>,
}

impl<'a> Lines<'a> {
    /// Indexes `text` (a line ends at `\n`).
    pub(crate) fn new(text: &'a str) -> Lines<'a> {
        let mut starts = vec![0];
        starts.extend(memchr::memchr_iter(b'\n', text.as_bytes()).map(|i| i + 1));
        Lines { text, starts }
    }

    /// The offset where each line starts: 0, then one past each newline (so the last is the
    /// text's length when the text ends with a newline).
    pub(crate) fn starts(&self) -> &[usize] {
        &self.starts
    }

    /// The position of byte `offset` (a char boundary of the text).
    pub(crate) fn at(&self, offset: usize) -> Position {
        let line = self.starts.partition_point(|&s| s <= offset).max(1);
        let start = self.starts[line - 1];
        let column = self
            .text
            .get(start..offset)
            .map_or(1, |before| before.chars().count() + 1);
        Position {
            line: u32::try_from(line).unwrap_or(u32::MAX),
            column: u32::try_from(column).unwrap_or(u32::MAX),
        }
    }
}

/// Whether `c` is shown escaped in an excerpt: controls, format and invisible characters,
/// line separators, and everything a terminal could be made to act on.
pub(crate) fn shown_escaped(c: char) -> bool {
    use unicode_properties::{GeneralCategory, UnicodeGeneralCategory};
    c != ' '
        && (c.is_control()
            || asv_model::frontmatter::is_default_ignorable(c)
            || matches!(
                c.general_category(),
                GeneralCategory::Format
                    | GeneralCategory::LineSeparator
                    | GeneralCategory::ParagraphSeparator
                    | GeneralCategory::SpaceSeparator
                    | GeneralCategory::Unassigned
                    | GeneralCategory::PrivateUse
                    | GeneralCategory::Surrogate
            ))
}

/// `text` with every character [`shown_escaped`] written as `\u{XXXX}`, cut at
/// [`EXCERPT_CHARS`] characters of output.
pub(crate) fn escape(text: &str) -> String {
    let mut out = String::new();
    for (shown, c) in text.chars().enumerate() {
        if shown >= EXCERPT_CHARS {
            out.push('…');
            break;
        }
        if shown_escaped(c) {
            out.push_str(&format!("\\u{{{:04X}}}", c as u32));
        } else {
            out.push(c);
        }
    }
    out
}

/// A secret shown by its first characters only, so that a report does not republish it.
fn redact(text: &str) -> String {
    let keep: String = text.chars().take(8).collect();
    format!("{}… ({} characters)", escape(&keep), text.chars().count())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_count_lines_and_code_points() {
        let text = "ab\nçd\u{200B}x\n";
        let lines = Lines::new(text);
        assert_eq!(lines.at(0), Position { line: 1, column: 1 });
        assert_eq!(lines.at(3), Position { line: 2, column: 1 });
        let zw = text.find('\u{200B}').unwrap();
        assert_eq!(lines.at(zw), Position { line: 2, column: 3 });
    }

    #[test]
    fn excerpts_escape_what_cannot_be_seen_and_redact_secrets() {
        assert_eq!(
            escape("a\u{E0041}\u{202E}b\t"),
            "a\\u{E0041}\\u{202E}b\\u{0009}"
        );
        let long = "x".repeat(200);
        assert_eq!(escape(&long).chars().count(), EXCERPT_CHARS + 1);
        assert_eq!(redact("ghp_abcdefghijkl"), "ghp_abcd… (16 characters)");
    }

    #[test]
    fn a_fingerprint_follows_the_matched_text_not_the_place() {
        let a = fingerprint(Rule::NetUrl, "SKILL.md", b"http://a");
        assert_eq!(a, fingerprint(Rule::NetUrl, "SKILL.md", b"http://a"));
        assert_ne!(a, fingerprint(Rule::NetUrl, "SKILL.md", b"http://b"));
        assert_ne!(a, fingerprint(Rule::NetUrl, "other.md", b"http://a"));
        assert_eq!(a.len(), 64);
    }
}
