//! `init`: lay out a repository for the tool — `contracts/`, `skills/`, and the tool's working
//! directory ignored by git — making what is missing and never touching what is there.

use asv_fs::{Change, EntryKind, Fill, NewFile, Ownership, Plan, WriterLock};
use asv_model::layout::{SKILLS_DIR, TOOL_DIR};

use crate::error::{Error, Result};

/// Where canonical contract texts live.
const CONTRACTS_DIR: &str = "contracts";

/// The empty file `init` puts in each directory it makes, so git can track the directory:
/// the name git users know for it, and one no command reads as a contract or a skill (a
/// contract id and a skill name start with a letter or digit).
pub const PLACEHOLDER: &str = ".gitkeep";

/// The `.gitignore` rule `init` adds: the tool's working directory at the root.
pub const IGNORE_RULE: &str = "/.agentic-skill-vendor/";

/// One thing `init` made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Made {
    /// A directory (`contracts` or `skills`).
    Directory(&'static str),
    /// The ignore rule, added to an existing `.gitignore` (`false`) or to a new one (`true`).
    IgnoreRule {
        /// Whether `.gitignore` was created.
        created: bool,
    },
}

/// Whether a `.gitignore` line already keeps the tool's directory at the root out of git.
fn ignores_tool_dir(line: &str) -> bool {
    let rule = line.trim_end_matches(['\r', ' ', '\t']);
    let bare = rule.strip_prefix('/').unwrap_or(rule);
    bare == TOOL_DIR || bare.strip_suffix('/') == Some(TOOL_DIR)
}

/// Makes `contracts/`, `skills/` (each holding an empty [`PLACEHOLDER`]) and the `.gitignore`
/// rule where they are missing, in that order, and says what it made (nothing when all three are there). It is one change of the
/// tree, under `root`'s writer lock: a run killed part-way is put back by the next writer,
/// and a rerun makes all of it.
///
/// # Errors
/// Something other than a directory at `contracts` or `skills`, or other than a file at
/// `.gitignore` (refused before anything is made); a `.gitignore` that is not UTF-8; a write
/// that fails.
pub fn init(root: &WriterLock<'_>) -> Result<Vec<Made>> {
    // Judge everything first, so a refusal makes nothing.
    let mut dirs = Vec::new();
    for dir in [CONTRACTS_DIR, SKILLS_DIR] {
        match root.kind(dir)? {
            None => dirs.push(dir),
            Some(EntryKind::Directory) => {}
            Some(found) => {
                return Err(asv_fs::Error::WrongKind {
                    path: dir.to_owned(),
                    expected: EntryKind::Directory,
                    found,
                }
                .into());
            }
        }
    }
    let ignore = root.read_file_capped(
        ".gitignore",
        asv_model::layout::SETTINGS_LIMIT,
        asv_model::layout::SETTINGS_LIMIT_WHAT,
    )?;
    let ignore_text = match &ignore {
        None => None,
        Some(bytes) => Some(std::str::from_utf8(bytes).map_err(|_| Error::not_utf8(".gitignore"))?),
    };
    let mut made = Vec::new();
    let mut changes = Vec::new();
    for dir in dirs {
        // Nothing may stand there. The directory holds one empty placeholder: git keeps no
        // empty directory, and a layout that is lost on the first commit and clone is no
        // layout (issue 31 §4).
        changes.push(Change::replace(
            dir,
            Fill::files(vec![NewFile::new(PLACEHOLDER, Vec::new())]),
            Ownership::MustBeFree,
        ));
        made.push(Made::Directory(dir));
    }
    match ignore_text {
        None => {
            changes.push(Change::replace_file(
                ".gitignore",
                format!("{IGNORE_RULE}\n").into_bytes(),
                Ownership::MustBeFree,
            ));
            made.push(Made::IgnoreRule { created: true });
        }
        Some(text) if !text.lines().any(ignores_tool_dir) => {
            // Keep the file's own line ending, and end its last line before adding ours.
            let eol = if text.contains("\r\n") { "\r\n" } else { "\n" };
            let mut new = text.to_owned();
            if !new.is_empty() && !new.ends_with('\n') {
                new.push_str(eol);
            }
            new.push_str(IGNORE_RULE);
            new.push_str(eol);
            // The user's file, read just now: an edit saved meanwhile refuses the change.
            changes.push(Change::replace_file(
                ".gitignore",
                new.into_bytes(),
                Ownership::Force,
            ));
            made.push(Made::IgnoreRule { created: false });
        }
        Some(_) => {}
    }
    if !changes.is_empty() {
        root.apply(Plan::new(root, changes)?)?;
    }
    Ok(made)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rules_that_already_ignore_the_tool_dir() {
        for line in [
            "/.agentic-skill-vendor/",
            "/.agentic-skill-vendor",
            ".agentic-skill-vendor/",
            ".agentic-skill-vendor",
            "/.agentic-skill-vendor/\r",
            "/.agentic-skill-vendor/  ",
        ] {
            assert!(ignores_tool_dir(line), "{line:?}");
        }
        for line in [
            "#/.agentic-skill-vendor/",
            "!/.agentic-skill-vendor/",
            "/.agentic-skill-vendor/cache/",
            ".agentic-skill-vendor-x",
            "",
        ] {
            assert!(!ignores_tool_dir(line), "{line:?}");
        }
    }
}
