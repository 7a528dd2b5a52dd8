//! Splitting a Markdown text into its frontmatter and its body: one reader for a contract's
//! canonical text and for a `SKILL.md`.
//!
//! Frontmatter exists only when line 1 is exactly `---`, and it closes at the next line that
//! is exactly `---`. The delimiter is matched exactly because it also decides where a
//! contract's body starts: a second spelling would change what a pinned text digests to. A
//! line a reader would take for the delimiter without it being exact is therefore refused,
//! never read as body: a look-alike opening line would hide a live block, a look-alike closing
//! line would let the scan run on to a horizontal rule and pin a truncated body.

/// Whether `c` is a Unicode Default_Ignorable_Code_Point (invisible in most renderings).
///
/// The ranges are those of `DerivedCoreProperties.txt` (Unicode 15.1).
pub fn is_default_ignorable(c: char) -> bool {
    matches!(c as u32,
        0x00AD | 0x034F | 0x061C | 0x115F..=0x1160 | 0x17B4..=0x17B5 | 0x180B..=0x180F
        | 0x200B..=0x200F | 0x202A..=0x202E | 0x2060..=0x206F | 0x3164 | 0xFE00..=0xFE0F
        | 0xFEFF | 0xFFA0 | 0xFFF0..=0xFFF8 | 0x1BCA0..=0x1BCA3 | 0x1D173..=0x1D17A
        | 0xE0000..=0xE0FFF)
}

/// Whether `c` is whitespace as JavaScript's `String.prototype.trim` and `\s` see it.
///
/// It differs from Rust's `char::is_whitespace`: U+FEFF counts, U+0085 does not.
pub fn is_js_whitespace(c: char) -> bool {
    matches!(
        c,
        '\t' | '\n' | '\u{b}' | '\u{c}' | '\r' | ' ' | '\u{a0}' | '\u{1680}' | '\u{2000}'
            ..='\u{200a}'
                | '\u{2028}'
                | '\u{2029}'
                | '\u{202f}'
                | '\u{205f}'
                | '\u{3000}'
                | '\u{feff}'
    )
}

/// The text a reader sees on a line: invisible characters (Default_Ignorable and the blank
/// Braille pattern U+2800, which Unicode files as graphic but draws as nothing) removed
/// anywhere, then surrounding whitespace trimmed.
pub fn visible_text(line: &str) -> String {
    let kept: String = line
        .chars()
        .filter(|c| !is_default_ignorable(*c) && *c != '\u{2800}')
        .collect();
    kept.trim_matches(is_js_whitespace).to_owned()
}

/// Whether `line` reads as `---` to a person looking at it (exactly `---` or not).
pub fn reads_as_fence(line: &str) -> bool {
    // A cheap exit first: a line that reads as `---` holds exactly three hyphen-minus signs
    // (neither invisible characters nor whitespace are one), and few lines of a text do.
    line == "---"
        || (line.bytes().filter(|&b| b == b'-').count() == 3 && visible_text(line) == "---")
}

/// Whether `line` is not exactly `---` but reads as `---` to a person looking at it.
pub fn looks_like_fence(line: &str) -> bool {
    line != "---" && reads_as_fence(line)
}

/// Why a text's frontmatter cannot be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FrontmatterProblem {
    /// Line 1 reads as `---` without being it exactly.
    OpeningLookalike {
        /// Line 1 as a reader sees it (split at a CR or LF).
        shown: String,
    },
    /// The first line that is not blank to the eye reads as `---`, but it is not line 1.
    OpensBelowBlank {
        /// Its 1-based line number (counting a lone CR as a line break).
        line: usize,
    },
    /// A line before the closing `---` reads as `---` without being it exactly.
    ClosingLookalike {
        /// Its 1-based line number.
        line: usize,
        /// The line.
        text: String,
    },
    /// Line 1 is `---` and no later line is.
    Unclosed,
}

impl FrontmatterProblem {
    /// The 1-based line at fault.
    pub fn line(&self) -> usize {
        match self {
            FrontmatterProblem::OpeningLookalike { .. } | FrontmatterProblem::Unclosed => 1,
            FrontmatterProblem::OpensBelowBlank { line }
            | FrontmatterProblem::ClosingLookalike { line, .. } => *line,
        }
    }
}

/// The wording shared with the TypeScript tool (it follows `<path>: `).
impl std::fmt::Display for FrontmatterProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FrontmatterProblem::OpeningLookalike { shown } => write!(
                f,
                "the line opening the frontmatter is not exactly '---': {}",
                asv_error::quote::json_string(shown)
            ),
            FrontmatterProblem::OpensBelowBlank { .. } => f.write_str(
                "frontmatter has to open on the first line, and this document reaches '---' only below a blank one",
            ),
            FrontmatterProblem::ClosingLookalike { text, .. } => write!(
                f,
                "the line closing the frontmatter is not exactly '---': {}",
                asv_error::quote::json_string(text)
            ),
            FrontmatterProblem::Unclosed => {
                f.write_str("frontmatter opens with '---' but the closing '---' line is missing")
            }
        }
    }
}

/// A text split at its frontmatter.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Split<'a> {
    /// The lines between the two `---` lines, LF-separated; `None` when there is no
    /// frontmatter.
    pub yaml: Option<&'a str>,
    /// The body: after the closing line and the exactly-empty lines that follow it, or the
    /// whole text when there is no frontmatter.
    pub body: &'a str,
}

/// The 1-based line the YAML of a frontmatter starts on.
pub const YAML_FIRST_LINE: usize = 2;

/// Splits `text` (one leading BOM already dropped, CRLF already LF) at its frontmatter.
///
/// # Errors
/// A [`FrontmatterProblem`] for a look-alike opening or closing line, a `---` reached only
/// below blank lines, or a frontmatter that never closes.
///
/// # Example
/// ```
/// use asv_model::frontmatter::{split, FrontmatterProblem};
/// let s = split("---\nname: a\n---\n\nBody\n---\nmore\n").unwrap();
/// assert_eq!((s.yaml, s.body), (Some("name: a"), "Body\n---\nmore\n"));
/// assert_eq!(split("---\nname: a\n"), Err(FrontmatterProblem::Unclosed));
/// ```
pub fn split(text: &str) -> Result<Split<'_>, FrontmatterProblem> {
    let first_end = text.find('\n').unwrap_or(text.len());
    if &text[..first_end] != "---" {
        // A lone CR breaks a line for a reader, so it does here (and only here: the body
        // keeps it as content, or pinned digests would change).
        let opening = text
            .split(['\r', '\n'])
            .enumerate()
            .find(|(_, line)| !visible_text(line).is_empty());
        return match opening {
            Some((0, line)) if reads_as_fence(line) => Err(FrontmatterProblem::OpeningLookalike {
                shown: line.to_owned(),
            }),
            Some((i, line)) if reads_as_fence(line) => {
                Err(FrontmatterProblem::OpensBelowBlank { line: i + 1 })
            }
            _ => Ok(Split {
                yaml: None,
                body: text,
            }),
        };
    }
    if first_end == text.len() {
        return Err(FrontmatterProblem::Unclosed);
    }
    let yaml_start = first_end + 1;
    let mut offset = yaml_start;
    for (i, line) in text[yaml_start..].split_inclusive('\n').enumerate() {
        let content = line.strip_suffix('\n').unwrap_or(line);
        if content == "---" {
            let yaml = text[yaml_start..offset]
                .strip_suffix('\n')
                .unwrap_or_default();
            let body = text[offset + line.len()..].trim_start_matches('\n');
            return Ok(Split {
                yaml: Some(yaml),
                body,
            });
        }
        if looks_like_fence(content) {
            return Err(FrontmatterProblem::ClosingLookalike {
                line: i + YAML_FIRST_LINE,
                text: content.to_owned(),
            });
        }
        offset += line.len();
    }
    Err(FrontmatterProblem::Unclosed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits() {
        let rows: &[(&str, Option<&str>, &str)] = &[
            ("Body\n", None, "Body\n"),
            ("", None, ""),
            ("\n\nBody\n", None, "\n\nBody\n"),
            ("---\n---\n", Some(""), ""),
            ("---\n---", Some(""), ""),
            ("---\na: 1\n---", Some("a: 1"), ""),
            ("---\na: 1\nb: 2\n---\n\n\nB\n", Some("a: 1\nb: 2"), "B\n"),
            ("---\na: 1\n---\n \nB\n", Some("a: 1"), " \nB\n"),
            ("---\na\n---\nB\n\n---\n\nC\n", Some("a"), "B\n\n---\n\nC\n"),
            ("# T\n---\n", None, "# T\n---\n"),
            ("a\r\rb", None, "a\r\rb"),
            ("x\n \u{200b}---\n", None, "x\n \u{200b}---\n"),
        ];
        for (text, yaml, body) in rows {
            let s = split(text).unwrap();
            assert_eq!((s.yaml, s.body), (*yaml, *body), "{text:?}");
        }
    }

    #[test]
    fn refusals() {
        use FrontmatterProblem as P;
        let opening = |s: &str| P::OpeningLookalike {
            shown: s.to_owned(),
        };
        let rows: Vec<(&str, P)> = vec![
            (" ---\na\n---\n", opening(" ---")),
            ("--- \na\n---\n", opening("--- ")),
            ("---\t\n", opening("---\t")),
            ("\u{a0}---\n", opening("\u{a0}---")),
            ("-\u{200b}--\n", opening("-\u{200b}--")),
            ("---\u{2060}\n", opening("---\u{2060}")),
            ("-\u{feff}--\n", opening("-\u{feff}--")),
            ("---\u{2800}\n", opening("---\u{2800}")),
            ("\u{180e}---\n", opening("\u{180e}---")),
            ("\u{3000}---\n", opening("\u{3000}---")),
            ("\u{feff}---\n", opening("\u{feff}---")),
            ("---\rname: a\n---\n", opening("---")),
            ("\n---\na\n---\n", P::OpensBelowBlank { line: 2 }),
            (" \n\u{200b}\n---\n", P::OpensBelowBlank { line: 3 }),
            ("\r---\n", P::OpensBelowBlank { line: 2 }),
            ("\n --- \n", P::OpensBelowBlank { line: 2 }),
            ("---\na\n", P::Unclosed),
            ("---\n", P::Unclosed),
            ("---", P::Unclosed),
            (
                "---\na\n--- \n---\n",
                P::ClosingLookalike {
                    line: 3,
                    text: "--- ".into(),
                },
            ),
            (
                "---\na\n---\r\n---\n",
                P::ClosingLookalike {
                    line: 3,
                    text: "---\r".into(),
                },
            ),
            (
                "---\n\u{200b}---\nB\n",
                P::ClosingLookalike {
                    line: 2,
                    text: "\u{200b}---".into(),
                },
            ),
        ];
        for (text, want) in rows {
            assert_eq!(split(text), Err(want), "{text:?}");
        }
    }

    #[test]
    fn wording() {
        let p = FrontmatterProblem::OpeningLookalike {
            shown: "--- ".into(),
        };
        assert_eq!(
            p.to_string(),
            "the line opening the frontmatter is not exactly '---': \"--- \""
        );
        assert_eq!(
            FrontmatterProblem::OpensBelowBlank { line: 2 }.to_string(),
            "frontmatter has to open on the first line, and this document reaches '---' only below a blank one"
        );
    }
}
