//! What differs between an imported skill's base and its local copy, file by file: what
//! `skill remove` says would be lost before it refuses.

use std::collections::BTreeMap;
use std::fmt;

use asv_skilltree::{FileNode, SkillTree};

/// How one file of the local copy differs from the base.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EditKind {
    /// Only the local copy holds it.
    Added,
    /// Both hold it, with other bytes or another executable bit.
    Edited,
    /// Only the base holds it.
    Deleted,
}

impl EditKind {
    /// `added`, `edited`, `deleted`.
    pub fn as_str(self) -> &'static str {
        match self {
            EditKind::Added => "added",
            EditKind::Edited => "edited",
            EditKind::Deleted => "deleted",
        }
    }
}

/// One file that differs, by its path in the skill directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Edit {
    /// The path relative to the skill directory.
    pub path: String,
    /// How it differs.
    pub kind: EditKind,
}

/// Every file of `local` that differs from `base`, sorted by path.
pub fn edits(base: &SkillTree, local: &SkillTree) -> Vec<Edit> {
    let mut both: BTreeMap<&str, (Option<&FileNode>, Option<&FileNode>)> = BTreeMap::new();
    for f in base.files() {
        both.entry(&f.path).or_default().0 = Some(f);
    }
    for f in local.files() {
        both.entry(&f.path).or_default().1 = Some(f);
    }
    both.into_iter()
        .filter_map(|(path, sides)| {
            let kind = match sides {
                (None, Some(_)) => EditKind::Added,
                (Some(_), None) => EditKind::Deleted,
                (Some(b), Some(l)) if b != l => EditKind::Edited,
                _ => return None,
            };
            Some(Edit {
                path: path.to_owned(),
                kind,
            })
        })
        .collect()
}

/// How many files a refusal names before it counts the rest.
pub const SHOWN: usize = 5;

/// A list of edits as a refusal says it: `SKILL.md (edited), notes.md (added)`, past
/// [`SHOWN`] files ending in `and 3 more`.
pub struct EditList<'a>(pub &'a [Edit]);

impl fmt::Display for EditList<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, edit) in self.0.iter().take(SHOWN).enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{} ({})", edit.path, edit.kind.as_str())?;
        }
        if self.0.len() > SHOWN {
            write!(f, " and {} more", self.0.len() - SHOWN)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(path: &str, data: &str, executable: bool) -> FileNode {
        FileNode {
            path: path.to_owned(),
            data: data.into(),
            executable,
        }
    }

    #[test]
    fn each_kind_of_difference_is_named_once() {
        let base = SkillTree::from_files(vec![
            file("SKILL.md", "a", false),
            file("gone.md", "g", false),
            file("run.sh", "r", false),
            file("same.md", "s", false),
        ])
        .unwrap();
        let local = SkillTree::from_files(vec![
            file("SKILL.md", "b", false),
            file("new.md", "n", false),
            file("run.sh", "r", true),
            file("same.md", "s", false),
        ])
        .unwrap();
        let found = edits(&base, &local);
        let shown: Vec<(&str, EditKind)> =
            found.iter().map(|e| (e.path.as_str(), e.kind)).collect();
        assert_eq!(
            shown,
            [
                ("SKILL.md", EditKind::Edited),
                ("gone.md", EditKind::Deleted),
                ("new.md", EditKind::Added),
                ("run.sh", EditKind::Edited),
            ]
        );
        assert_eq!(
            EditList(&found).to_string(),
            "SKILL.md (edited), gone.md (deleted), new.md (added), run.sh (edited)"
        );
        assert!(edits(&base, &base).is_empty());
    }

    #[test]
    fn a_long_list_counts_what_it_does_not_show() {
        let local = SkillTree::from_files(
            (0..8)
                .map(|i| file(&format!("f{i}.md"), "x", false))
                .collect(),
        )
        .unwrap();
        let found = edits(&SkillTree::default(), &local);
        assert_eq!(
            EditList(&found).to_string(),
            "f0.md (added), f1.md (added), f2.md (added), f3.md (added), f4.md (added) and 3 more"
        );
    }
}
