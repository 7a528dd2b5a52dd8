//! A tree's `.gitignore` rules, read from the files (never from git's index): the
//! repository's, for the contracts' directory mappings, and a local skill source's, for what
//! `skill add` takes from a plain directory. Both sides need them, so they live here.
//!
//! gix-ignore parses and matches the patterns; this module adds git's walk around them: the
//! files are read from the root down, a deeper file's rules win over a shallower one's, and
//! nothing below an excluded directory is looked at (so it cannot be re-included).

use asv_fs::{EntryKind, Root, join};
use bstr::ByteSlice;
use gix_ignore::glob::pattern::Case;

use crate::error::{Error, GitignoreProblem, Result};

/// The `.gitignore` rules that apply inside one directory of the tree.
#[derive(Clone, Default)]
pub struct IgnoreRules {
    search: gix_ignore::Search,
}

impl IgnoreRules {
    /// Adds the rules of `<dir>/.gitignore`, if that file exists.
    ///
    /// # Errors
    /// A link or wrong kind at the file (guarded read), or an I/O failure.
    pub fn add_dir(&mut self, root: &Root, dir: &str) -> Result<()> {
        let path = join(dir, ".gitignore");
        if let Some(bytes) = root.read_file_capped(
            &path,
            crate::layout::SETTINGS_LIMIT,
            crate::layout::SETTINGS_LIMIT_WHAT,
        )? {
            // The root is the empty path, so each list's base is its directory + "/".
            self.search
                .add_patterns_buffer(
                    &bytes,
                    std::path::PathBuf::from(&path),
                    Some(std::path::Path::new("")),
                    gix_ignore::search::Ignore {
                        support_precious: false,
                    },
                )
                .map_err(|e| Error::Gitignore {
                    path: path.clone(),
                    problem: GitignoreProblem::Unplaceable(e),
                })?;
        }
        Ok(())
    }

    /// Whether the root-relative `path` is excluded by the rules added so far.
    pub fn is_excluded(&self, path: &str, is_dir: bool) -> bool {
        self.search
            .pattern_matching_relative_path(
                path.as_bytes().as_bstr(),
                Some(is_dir),
                Case::Sensitive,
            )
            .is_some_and(|m| !m.pattern.is_negative())
    }

    /// Whether `base/rel` is excluded, judging every directory on the way from `base` down
    /// (an excluded directory excludes everything below it, as in git).
    pub fn excludes_below(&self, base: &str, rel: &str, is_dir: bool) -> bool {
        let mut prefix = String::new();
        let parts: Vec<&str> = rel.split('/').collect();
        for (i, part) in parts.iter().enumerate() {
            prefix = join(&prefix, part);
            let last = i + 1 == parts.len();
            if self.is_excluded(&join(base, &prefix), if last { is_dir } else { true }) {
                return true;
            }
        }
        false
    }

    /// Rules from a list of patterns (the `ignore` arrays of the table), matched against
    /// paths relative to whatever directory they are applied to.
    pub fn from_patterns(patterns: &[String]) -> IgnoreRules {
        let mut rules = IgnoreRules::default();
        if !patterns.is_empty() {
            // git drops a CR at the end of every line of a .gitignore; so do we.
            let lines: Vec<&str> = patterns
                .iter()
                .map(|p| p.strip_suffix('\r').unwrap_or(p))
                .collect();
            let text = lines.join("\n");
            // A buffer without a base: patterns apply relative to the path they are asked about.
            let _ = rules.search.add_patterns_buffer(
                text.as_bytes(),
                std::path::PathBuf::from("vendor-manifest.yaml"),
                None,
                gix_ignore::search::Ignore {
                    support_precious: false,
                },
            );
        }
        rules
    }

    /// The rules that apply inside `dir` (every `.gitignore` from the root down to `dir`), or
    /// `None` when `dir` or one of its ancestors is itself excluded.
    ///
    /// # Errors
    /// As [`IgnoreRules::add_dir`].
    pub fn for_dir(root: &Root, dir: &str) -> Result<Option<IgnoreRules>> {
        let mut rules = IgnoreRules::default();
        rules.add_dir(root, "")?;
        if dir.is_empty() {
            return Ok(Some(rules));
        }
        let mut current = String::new();
        let mut exists = true;
        for part in dir.split('/') {
            current = join(&current, part);
            if rules.is_excluded(&current, true) {
                return Ok(None);
            }
            // Below a missing directory there are no more files to read, but the rules read
            // so far still judge every directory on the way (a dest about to be created).
            if exists && root.kind(&current)? == Some(EntryKind::Directory) {
                rules.add_dir(root, &current)?;
            } else {
                exists = false;
            }
        }
        Ok(Some(rules))
    }
}

/// Every regular file below `dir` that the repository's `.gitignore` files do not exclude,
/// as paths relative to `dir`; `None` when `dir` does not exist or is itself excluded.
///
/// # Errors
/// A link, FIFO or other non-file, non-directory entry anywhere below `dir` (excluded ones
/// included: the walk does not descend into excluded directories, but refuses a link standing
/// in plain sight), or an I/O failure.
pub fn unignored_files(root: &Root, dir: &str) -> Result<Option<Vec<String>>> {
    let Some(rules) = IgnoreRules::for_dir(root, dir)? else {
        return Ok(None);
    };
    if root.read_dir(dir)?.is_none() {
        return Ok(None);
    }
    let mut files = Vec::new();
    walk(root, dir, "", rules, &mut files)?;
    files.sort();
    Ok(Some(files))
}

fn walk(
    root: &Root,
    top: &str,
    sub: &str,
    mut rules: IgnoreRules,
    files: &mut Vec<String>,
) -> Result<()> {
    let here = join(top, sub);
    rules.add_dir(root, &here)?;
    let entries = root.read_dir(&here)?.unwrap_or_default();
    for entry in entries {
        let rel = join(sub, &entry.name);
        let full = join(top, &rel);
        match entry.kind {
            EntryKind::Directory => {
                if !rules.is_excluded(&full, true) {
                    walk(root, top, &rel, rules.clone(), files)?;
                }
            }
            EntryKind::File => {
                if !rules.is_excluded(&full, false) {
                    files.push(rel);
                }
            }
            EntryKind::Symlink => return Err(asv_fs::Error::Symlink { path: full }.into()),
            found => {
                return Err(asv_fs::Error::WrongKind {
                    path: full,
                    expected: EntryKind::File,
                    found,
                }
                .into());
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn files(setup: &[(&str, &str)], dir: &str) -> Option<Vec<String>> {
        let d = tempfile::tempdir().unwrap();
        let root = Root::open(d.path()).unwrap();
        for (p, c) in setup {
            root.write_file(p, c.as_bytes()).unwrap();
        }
        unignored_files(&root, dir).unwrap()
    }

    #[test]
    fn gitignore_table() {
        let base = [("c/t/a.md", "a"), ("c/t/b.log", "b"), ("c/t/sub/x.md", "x")];
        let all = vec!["a.md", "b.log", "sub/x.md"];
        assert_eq!(files(&base, "c/t").unwrap(), all);
        // root rule
        let mut s = base.to_vec();
        s.push((".gitignore", "*.log\n"));
        assert_eq!(files(&s, "c/t").unwrap(), vec!["a.md", "sub/x.md"]);
        // deeper negation wins
        s.push(("c/t/.gitignore", "!b.log\n"));
        assert_eq!(
            files(&s, "c/t").unwrap(),
            vec![".gitignore", "a.md", "b.log", "sub/x.md"]
        );
        // excluded directory cannot be re-included
        let s = [
            ("c/t/sub/x.md", "x"),
            ("c/t/.gitignore", "sub/\n!sub/x.md\n"),
        ];
        assert_eq!(files(&s, "c/t").unwrap(), vec![".gitignore"]);
        // ancestor excluded: nothing
        let s = [("c/t/a.md", "a"), (".gitignore", "/c/\n")];
        assert_eq!(files(&s, "c/t"), None);
        // anchored pattern is relative to its file's directory
        let s = [
            ("c/t/a.md", "a"),
            ("c/t/z/a.md", "a"),
            ("c/.gitignore", "/t/a.md\n"),
        ];
        assert_eq!(files(&s, "c/t").unwrap(), vec!["z/a.md"]);
    }
}
