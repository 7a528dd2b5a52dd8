//! `allowed-tools`: the grants a skill asks for, token by token, and which are unscoped.
//!
//! Claude Code reads `allowed-tools` as text (`Bash(git add:*), Read`) or a YAML list; a
//! token's scope is what its parentheses hold, and a comma inside them belongs to the scope.

use asv_model::yaml::Yaml;

/// The tokens of an `allowed-tools` value, in order, trimmed; `None` when absent or of
/// another type (the validator reports that).
pub fn tokens(value: Option<&Yaml>) -> Option<Vec<String>> {
    match value? {
        Yaml::String(s) => Some(split(s)),
        Yaml::Seq(items) => Some(
            items
                .iter()
                .filter_map(|i| match i {
                    Yaml::String(s) => Some(split(s)),
                    _ => None,
                })
                .flatten()
                .collect(),
        ),
        _ => None,
    }
}

/// Splits at commas and whitespace outside parentheses.
fn split(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut depth = 0usize;
    let mut current = String::new();
    for c in text.chars() {
        match c {
            '(' => {
                depth += 1;
                current.push(c);
            }
            ')' => {
                depth = depth.saturating_sub(1);
                current.push(c);
            }
            ',' if depth == 0 => push(&mut out, &mut current),
            c if c.is_whitespace() && depth == 0 => push(&mut out, &mut current),
            c => current.push(c),
        }
    }
    push(&mut out, &mut current);
    out
}

fn push(out: &mut Vec<String>, current: &mut String) {
    let t = current.trim();
    if !t.is_empty() {
        out.push(t.to_owned());
    }
    current.clear();
}

/// Why a token grants everything of its kind, or `None` when it is scoped.
pub fn broad(token: &str) -> Option<&'static str> {
    let (name, scope) = match token.split_once('(') {
        Some((n, rest)) => (n.trim(), Some(rest.trim_end_matches(')').trim())),
        None => (token, None),
    };
    let wild = |s: &str| s.is_empty() || s.chars().all(|c| matches!(c, '*' | ':' | ' '));
    match (name, scope) {
        ("*", _) => Some("every tool"),
        ("Bash" | "PowerShell", None) => Some("any shell command"),
        ("Bash" | "PowerShell", Some(s)) if wild(s) => Some("any shell command"),
        ("Write" | "Edit" | "MultiEdit" | "NotebookEdit", None) => Some("writes to any file"),
        ("Write" | "Edit" | "MultiEdit" | "NotebookEdit", Some(s))
            if wild(s) || s == "**" || s == "/**" =>
        {
            Some("writes to any file")
        }
        (n, _) if n.starts_with("mcp__") => {
            let parts: Vec<&str> = n.split("__").collect();
            if parts.len() < 3 || parts.iter().any(|p| p.contains('*')) {
                Some("every tool of an MCP server")
            } else {
                None
            }
        }
        _ => None,
    }
}

/// Whether `wider` grants something `narrower` did not: a token that is new, ignoring the
/// tokens `narrower` already had. Used by the capability diff.
pub fn widened<'a>(narrower: &[String], wider: &'a [String]) -> Vec<&'a str> {
    wider
        .iter()
        .filter(|t| !narrower.contains(t))
        .map(String::as_str)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_keep_their_scopes_whole() {
        assert_eq!(
            split("Bash(git add:*), Bash(gh pr view:*) Read,Write(docs/**)"),
            [
                "Bash(git add:*)",
                "Bash(gh pr view:*)",
                "Read",
                "Write(docs/**)"
            ]
        );
    }

    #[test]
    fn unscoped_grants_are_broad() {
        for t in [
            "Bash",
            "Bash(*)",
            "Bash(*:*)",
            "Write",
            "*",
            "mcp__github",
            "mcp__github__*",
            "mcp__*",
        ] {
            assert!(broad(t).is_some(), "{t}");
        }
        for t in [
            "Bash(git diff:*)",
            "Read",
            "Grep",
            "Write(docs/**)",
            "mcp__github__get_issue",
        ] {
            assert!(broad(t).is_none(), "{t}");
        }
    }
}
