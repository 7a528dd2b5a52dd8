//! OpenSSH's patterns, as allowed-signers files use them for principals and namespaces: `*`
//! for any run of characters, `?` for one, a comma-separated list where a `!`-negated match
//! vetoes the rest.

/// Whether `text` matches the one pattern `pattern` (`*`, `?`, everything else literal).
pub(crate) fn matches(text: &str, pattern: &str) -> bool {
    let (t, p): (Vec<char>, Vec<char>) = (text.chars().collect(), pattern.chars().collect());
    // The classic greedy matcher with one backtrack point: linear in practice, never
    // exponential, since a later `*` makes the earlier one's choice final.
    let (mut ti, mut pi) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while ti < t.len() {
        if pi < p.len() && (p[pi] == '?' || p[pi] == t[ti]) {
            ti += 1;
            pi += 1;
        } else if pi < p.len() && p[pi] == '*' {
            star = Some((pi, ti));
            pi += 1;
        } else if let Some((sp, st)) = star {
            pi = sp + 1;
            ti = st + 1;
            star = Some((sp, st + 1));
        } else {
            return false;
        }
    }
    p[pi..].iter().all(|&c| c == '*')
}

/// Whether `text` matches the comma-separated `list`: some pattern matches and no negated
/// one (`!pattern`) does.
pub(crate) fn matches_list(text: &str, list: &str) -> bool {
    let mut matched = false;
    for pattern in list.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        match pattern.strip_prefix('!') {
            Some(negated) if matches(text, negated) => return false,
            Some(_) => {}
            None => matched |= matches(text, pattern),
        }
    }
    matched
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stars_and_question_marks() {
        assert!(matches("git", "git"));
        assert!(matches("git", "*"));
        assert!(matches("alice@example.com", "*@example.com"));
        assert!(matches("file", "f??e"));
        assert!(!matches("files", "f??e"));
        assert!(!matches("git", "gi"));
        assert!(matches("", "*"));
        assert!(matches("aaab", "*a*b"));
    }

    #[test]
    fn a_negated_pattern_vetoes() {
        assert!(matches_list("git", "file,git"));
        assert!(!matches_list("git", "*,!git"));
        assert!(!matches_list("git", "file"));
        assert!(!matches_list("git", "!file"));
    }
}
