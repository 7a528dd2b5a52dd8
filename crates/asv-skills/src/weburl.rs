//! A GitHub web address typed as a source (issue 31 §1): `https://github.com/o/r`,
//! `…/tree/<ref>/<path>` and `…/blob/<ref>/<path>/SKILL.md`, with or without `.git`, read as
//! the repository `o/r` (the GitHub API transport), a ref and a path, as a user copies them
//! from the browser.
//!
//! A ref may hold slashes (`feature/x`), so `tree/feature/x/skills` does not say where the ref
//! ends: the shortest leading part of the rest that the repository resolves (a branch, a tag
//! or a commit) is the ref, and what follows is the path. Git keeps no two branches where one
//! is a directory of the other (`a` and `a/b`), so at most one branch fits.

use asv_fs::Root;

use crate::error::Error;
use crate::sources::{Reach, Sources};
use crate::upstream::{Source, commit_at};

/// A GitHub web address, taken apart.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WebUrl {
    /// `owner/repo`.
    pub repository: String,
    /// What follows `tree/` or `blob/`, by segment (a `SKILL.md` at the end of a `blob/`
    /// address left out): the ref and the path, not yet told apart.
    pub rest: Vec<String>,
}

/// Reads `given` as a GitHub web address; `None` for anything else (a git URL of another
/// host, `owner/repo`, a local directory), which is then read as it always was.
pub fn parse(given: &str) -> Option<WebUrl> {
    let after = given
        .strip_prefix("https://github.com/")
        .or_else(|| given.strip_prefix("http://github.com/"))
        .or_else(|| given.strip_prefix("https://www.github.com/"))?;
    let after = after.split(['?', '#']).next().unwrap_or(after);
    let mut parts = after.split('/').filter(|s| !s.is_empty());
    let owner = parts.next()?;
    let repo = parts.next()?;
    let repo = repo.strip_suffix(".git").unwrap_or(repo);
    if owner.starts_with('.') || repo.is_empty() || repo.starts_with('.') {
        return None;
    }
    let rest: Vec<String> = match parts.next() {
        None => Vec::new(),
        Some(kind @ ("tree" | "blob")) => {
            let mut rest: Vec<String> = parts.map(str::to_owned).collect();
            // A file's address names the skill's directory by its SKILL.md (or any file).
            if kind == "blob" && rest.len() > 1 {
                rest.pop();
            }
            if rest.is_empty() {
                return None;
            }
            rest
        }
        Some(_) => return None,
    };
    Some(WebUrl {
        repository: format!("{owner}/{repo}"),
        rest,
    })
}

/// The ref and the path `url` names (`.` for the root; the ref `None` for an address with no
/// `tree/` or `blob/`), asking the repository which leading part of the rest is a ref.
///
/// # Errors
/// As [`crate::upstream::take`] for a source that cannot be reached.
pub fn ref_and_path(
    root: &Root,
    url: &WebUrl,
    sources: &Sources<'_>,
) -> Result<(Option<String>, String), Error> {
    let path_from = |k: usize| {
        if k >= url.rest.len() {
            ".".to_owned()
        } else {
            url.rest[k..].join("/")
        }
    };
    match url.rest.len() {
        0 => return Ok((None, ".".to_owned())),
        1 => return Ok((Some(url.rest[0].clone()), ".".to_owned())),
        _ => {}
    }
    let source = Source::parse(&url.repository)?;
    let Source::Remote(spec) = &source else {
        return Ok((Some(url.rest[0].clone()), path_from(1)));
    };
    let reach = Reach::Remote(spec.clone());
    for k in 1..url.rest.len() {
        let candidate = url.rest[..k].join("/");
        let found = sources.with(root, &reach, |t| {
            Ok(commit_at(t, &url.repository, &candidate).is_ok())
        })?;
        if found {
            return Ok((Some(candidate), path_from(k)));
        }
    }
    // None resolved: the first segment is the ref, and reading the source says it is unknown.
    Ok((Some(url.rest[0].clone()), path_from(1)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rest(given: &str) -> Option<(String, Vec<String>)> {
        parse(given).map(|u| (u.repository, u.rest))
    }

    #[test]
    fn web_addresses_are_taken_apart() {
        let s = |v: &[&str]| v.iter().map(|x| (*x).to_owned()).collect::<Vec<_>>();
        assert_eq!(rest("https://github.com/o/r"), Some(("o/r".into(), vec![])));
        assert_eq!(
            rest("https://github.com/o/r.git"),
            Some(("o/r".into(), vec![]))
        );
        assert_eq!(
            rest("https://github.com/o/r/"),
            Some(("o/r".into(), vec![]))
        );
        assert_eq!(
            rest("https://github.com/o/r/tree/main/skills/pdf"),
            Some(("o/r".into(), s(&["main", "skills", "pdf"])))
        );
        assert_eq!(
            rest("https://github.com/o/r/blob/v1/skills/pdf/SKILL.md"),
            Some(("o/r".into(), s(&["v1", "skills", "pdf"])))
        );
        assert_eq!(
            rest("https://github.com/o/r/tree/main?tab=readme"),
            Some(("o/r".into(), s(&["main"])))
        );
        assert_eq!(rest("https://github.com/o/r/issues/3"), None);
        assert_eq!(rest("https://github.com/o"), None);
        assert_eq!(rest("https://gitlab.com/o/r"), None);
        assert_eq!(rest("o/r"), None);
    }
}
