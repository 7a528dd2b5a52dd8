//! Characters a reader cannot see: tag characters, bidirectional controls, variation
//! selectors and the other default-ignorable code points, judged one run at a time.
//!
//! A run of the same class is one finding (a 100,000-character tag payload is one line of the
//! report, with the text it spells), and the few places where such a character is ordinary
//! text are let through: emoji flag tag sequences, a zero-width joiner inside an emoji or
//! between letters of a script that needs it, one emoji or standardized variation selector
//! after a visible character, one ideographic variation selector after a CJK ideograph, a
//! byte order mark at the very start.

use unicode_properties::{GeneralCategoryGroup, UnicodeEmoji, UnicodeGeneralCategory};

use crate::finding::{Finding, Lines};
use crate::rules::Rule;

/// What an invisible character is, for grouping it into runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Class {
    /// Plane 14's tag block and the rest of its default-ignorable range.
    Tag,
    /// Bidirectional embeddings, overrides and isolates.
    Bidi,
    /// U+E0100–E01EF.
    VariationSupplement,
    /// Any other default-ignorable or invisible format character, and U+2028/2029.
    Invisible,
}

impl Class {
    /// The word used in counts (`3 bidi`, …) and in the capability summary.
    pub fn as_str(self) -> &'static str {
        match self {
            Class::Tag => "tag",
            Class::Bidi => "bidi",
            Class::VariationSupplement => "variation-supplement",
            Class::Invisible => "invisible",
        }
    }
}

/// The class of `c`, or `None` for a character a reader sees (or plain whitespace).
pub fn class(c: char) -> Option<Class> {
    let u = c as u32;
    match u {
        0xE0100..=0xE01EF => Some(Class::VariationSupplement),
        0xE0000..=0xE0FFF => Some(Class::Tag),
        0x202A..=0x202E | 0x2066..=0x2069 => Some(Class::Bidi),
        0x2028 | 0x2029 | 0xFFF9..=0xFFFB => Some(Class::Invisible),
        _ if asv_model::frontmatter::is_default_ignorable(c) => Some(Class::Invisible),
        _ => None,
    }
}

/// Whether `c` is a format (Cf) character or default-ignorable: nothing of it belongs in
/// frontmatter.
fn invisible_or_format(c: char) -> bool {
    class(c).is_some()
        || matches!(
            c.general_category(),
            unicode_properties::GeneralCategory::Format
        )
}

fn is_han(c: char) -> bool {
    matches!(c as u32,
        0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xF900..=0xFAFF | 0x20000..=0x3FFFF)
}

/// An emoji a joiner may follow or precede: a non-ASCII emoji character, an emoji
/// presentation selector, or a skin-tone modifier.
fn emoji_side(c: Option<char>) -> bool {
    c.is_some_and(|c| {
        (!c.is_ascii() && c.is_emoji_char())
            || c == '\u{FE0F}'
            || ('\u{1F3FB}'..='\u{1F3FF}').contains(&c)
    })
}

/// A letter or mark outside ASCII: the scripts (Persian, Indic, …) where joiners are spelling.
fn script_side(c: Option<char>) -> bool {
    c.is_some_and(|c| {
        !c.is_ascii()
            && matches!(
                c.general_category_group(),
                GeneralCategoryGroup::Letter | GeneralCategoryGroup::Mark
            )
    })
}

/// Whether the invisible character at hand is ordinary text where it stands.
fn ordinary(c: char, prev: Option<char>, next: Option<char>, offset: usize) -> bool {
    match c {
        '\u{FEFF}' => offset == 0,
        '\u{200D}' => {
            (emoji_side(prev) && emoji_side(next)) || (script_side(prev) && script_side(next))
        }
        '\u{200C}' => script_side(prev) && script_side(next),
        '\u{FE00}'..='\u{FE0F}' => prev.is_some_and(|p| class(p).is_none() && !p.is_whitespace()),
        '\u{180B}'..='\u{180F}' => prev.is_some_and(|p| ('\u{1800}'..='\u{18AF}').contains(&p)),
        _ => false,
    }
}

/// The findings of `text` (`path`), with `frontmatter` the byte range of `SKILL.md`'s
/// frontmatter when this is one. `counts` gains each run's length by class.
pub fn scan(
    path: &str,
    text: &str,
    lines: &Lines<'_>,
    frontmatter: Option<std::ops::Range<usize>>,
    counts: &mut std::collections::BTreeMap<Class, u64>,
    out: &mut Vec<Finding>,
) {
    // Cheap exit: every character of interest is outside ASCII, and most files are ASCII.
    if text.is_ascii() {
        return;
    }
    let in_front = |at: usize| frontmatter.as_ref().is_some_and(|r| r.contains(&at));
    let mut run: Option<(Rule, usize, usize, usize)> = None; // rule, start, end, chars
    let mut prev: Option<char> = None;
    // The end of an emoji flag tag sequence met, whose tag characters are text.
    let mut flag_until = 0;
    let mut chars = text.char_indices().peekable();
    while let Some((at, c)) = chars.next() {
        let next = chars.peek().map(|&(_, n)| n);
        if c == '\u{1F3F4}' {
            flag_until = flag_end(text, at + c.len_utf8());
        }
        let rule = if at < flag_until && !in_front(at) {
            None
        } else {
            judge(c, prev, next, at, in_front(at))
        };
        if let Some(rule) = rule {
            if let Some(cls) = class(c) {
                *counts.entry(cls).or_insert(0) += 1;
            }
            match &mut run {
                Some((r, _, end, n)) if *r == rule && *end == at => {
                    *end = at + c.len_utf8();
                    *n += 1;
                }
                _ => {
                    if let Some(done) = run.take() {
                        out.push(finish(path, text, lines, done, prev));
                    }
                    run = Some((rule, at, at + c.len_utf8(), 1));
                }
            }
        } else if let Some(done) = run.take() {
            out.push(finish(path, text, lines, done, prev));
        }
        prev = Some(c);
    }
    if let Some(done) = run.take() {
        out.push(finish(path, text, lines, done, prev));
    }
}

/// The rule `c` breaks where it stands, if any.
fn judge(
    c: char,
    prev: Option<char>,
    next: Option<char>,
    at: usize,
    in_front: bool,
) -> Option<Rule> {
    if c.is_ascii() {
        return None;
    }
    let cls = class(c);
    match cls {
        Some(Class::Tag) => Some(Rule::UnicodeTag),
        Some(Class::Bidi) => Some(Rule::UnicodeBidi),
        Some(Class::VariationSupplement) => {
            if prev.is_some_and(is_han) {
                None
            } else {
                Some(Rule::UnicodeVariationSupplement)
            }
        }
        Some(Class::Invisible) | None if in_front && invisible_or_format(c) => {
            Some(Rule::UnicodeInvisibleFrontmatter)
        }
        Some(Class::Invisible) => {
            if ordinary(c, prev, next, at) {
                None
            } else {
                Some(Rule::UnicodeInvisible)
            }
        }
        None => None,
    }
}

/// Where the emoji flag tag sequence starting at `from` (just after U+1F3F4) ends: after
/// 2 to 7 tag letters or digits and the cancel tag U+E007F (subdivision flags such as
/// England's). `from` when there is none.
fn flag_end(text: &str, from: usize) -> usize {
    let tag_alnum = |c: char| matches!(c as u32, 0xE0030..=0xE0039 | 0xE0061..=0xE007A);
    let mut n = 0;
    for (i, c) in text[from..].char_indices() {
        if tag_alnum(c) && n < 7 {
            n += 1;
        } else if c == '\u{E007F}' && n >= 2 {
            return from + i + c.len_utf8();
        } else {
            break;
        }
    }
    from
}

fn finish(
    path: &str,
    text: &str,
    lines: &Lines<'_>,
    (rule, start, end, n): (Rule, usize, usize, usize),
    _prev: Option<char>,
) -> Finding {
    let matched = &text[start..end];
    let what = match rule {
        Rule::UnicodeTag => {
            let spelled: String = matched
                .chars()
                .filter_map(|c| match c as u32 {
                    u @ 0xE0020..=0xE007E => char::from_u32(u - 0xE0000),
                    _ => None,
                })
                .collect();
            if spelled.is_empty() {
                format!("{n} tag character(s)")
            } else {
                format!(
                    "{n} tag character(s) spelling \"{}\"",
                    crate::finding::escape(&spelled)
                )
            }
        }
        Rule::UnicodeBidi => format!("{n} bidirectional control character(s)"),
        Rule::UnicodeVariationSupplement => format!("{n} supplementary variation selector(s)"),
        Rule::UnicodeInvisibleFrontmatter => {
            format!("{n} invisible or format character(s) in the frontmatter")
        }
        _ => format!("{n} invisible character(s)"),
    };
    Finding::new(rule, path, lines.at(start), matched, what)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rules(text: &str, front: Option<std::ops::Range<usize>>) -> Vec<(Rule, String)> {
        let lines = Lines::new(text);
        let mut out = Vec::new();
        scan(
            "f.md",
            text,
            &lines,
            front,
            &mut Default::default(),
            &mut out,
        );
        out.into_iter().map(|f| (f.rule, f.detail)).collect()
    }

    #[test]
    fn a_tag_run_is_one_finding_that_says_what_it_spells() {
        let hidden: String = "ignore this"
            .chars()
            .map(|c| char::from_u32(c as u32 + 0xE0000).unwrap())
            .collect();
        let got = rules(&format!("A clean sentence.{hidden} More.\n"), None);
        assert_eq!(
            got,
            [(
                Rule::UnicodeTag,
                "11 tag character(s) spelling \"ignore this\"".to_owned()
            )]
        );
    }

    #[test]
    fn flags_joined_emoji_and_scripts_pass() {
        // England's flag, a family, a keycap, Persian with a ZWNJ, a Han ideograph with an IVS.
        let ok = "\u{1F3F4}\u{E0067}\u{E0062}\u{E0065}\u{E006E}\u{E0067}\u{E007F} \u{1F468}\u{200D}\u{1F469}\u{200D}\u{1F467} 1\u{FE0F}\u{20E3} \u{0645}\u{06CC}\u{200C}\u{062E}\u{0648}\u{0627}\u{0647}\u{0645} \u{845B}\u{E0100} \u{FEFF}";
        assert_eq!(
            rules(&format!("\u{FEFF}{ok}")[..].replace(" \u{FEFF}", ""), None),
            []
        );
    }

    #[test]
    fn hidden_characters_in_ascii_text_are_found() {
        assert_eq!(rules("a\u{200B}b", None)[0].0, Rule::UnicodeInvisible);
        assert_eq!(rules("a\u{200D}b", None)[0].0, Rule::UnicodeInvisible);
        assert_eq!(rules("x \u{202E}gnp.exe", None)[0].0, Rule::UnicodeBidi);
        assert_eq!(
            rules("a\u{E0100}", None)[0].0,
            Rule::UnicodeVariationSupplement
        );
        assert_eq!(rules("a\u{FE0F}\u{FE0E}", None).len(), 1);
        assert_eq!(rules("x\u{FEFF}", None)[0].0, Rule::UnicodeInvisible);
        assert_eq!(rules("line\u{2028}two", None)[0].0, Rule::UnicodeInvisible);
    }

    #[test]
    fn in_frontmatter_every_invisible_or_format_character_is_an_error() {
        let text = "---\nname: a\u{200D}\u{1F600}b\ndescription: x\u{00AD}y\n---\nbody \u{00AD}\n";
        let end = text.find("---\nbody").unwrap() + 4;
        let got: Vec<Rule> = rules(text, Some(0..end))
            .into_iter()
            .map(|(r, _)| r)
            .collect();
        assert_eq!(
            got,
            [
                Rule::UnicodeInvisibleFrontmatter,
                Rule::UnicodeInvisibleFrontmatter,
                Rule::UnicodeInvisible
            ]
        );
    }
}
