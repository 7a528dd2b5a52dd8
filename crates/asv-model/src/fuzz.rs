//! The frontmatter half of the `skill_md` fuzz target (`fuzz/` at the repository root; the
//! rest is `asv_skills::fuzz::skill_md`), kept here so the cargo-fuzz target and the stable
//! replay of its committed corpus run the same code. Not part of the crate's interface.

use crate::declaration::{declaration_line, read_frontmatter};
use crate::frontmatter::split;

/// Arbitrary bytes as a SKILL.md: split at the frontmatter and read its declarations, as
/// `gen`, `verify` and `skill validate` all do. A refusal is fine, a panic is a bug.
///
/// # Panics
/// When the split breaks its own promises: a frontmatter is only ever taken from a text that
/// opens with a `---` line, and the body is always the text's tail.
pub fn frontmatter(data: &[u8]) {
    if let Ok(text) = std::str::from_utf8(data)
        && let Ok(parts) = split(text)
    {
        assert!(
            text.ends_with(parts.body),
            "the body is not the text's tail"
        );
        match parts.yaml {
            Some(yaml) => {
                assert!(
                    text.starts_with("---\n"),
                    "frontmatter without a '---' line"
                );
                assert!(
                    text[4..].starts_with(yaml),
                    "the YAML is not what follows '---'"
                );
            }
            None => assert_eq!(parts.body, text, "no frontmatter, yet the body was cut"),
        }
    }
    if let Ok(Some(front)) = read_frontmatter("skills/fuzz/SKILL.md", data) {
        for id in &front.declared {
            // Only for pointing at a line; it must merely not fail on what was accepted.
            let _ = declaration_line(data, id);
        }
    }
}

#[cfg(test)]
mod tests {
    /// Every committed corpus file of the `skill_md` target, through the frontmatter half, replayed: none may panic (fuzz/README.md).
    #[test]
    fn fuzz_corpus_replays_without_panic() {
        asv_fs::corpus::replay_fuzz_corpus("skill_md", &super::frontmatter);
    }
}
