//! Which paths a skill may be read from and written to: one name policy for every sink (the
//! archive entry policy), and a skill directory that has to be a real directory.

use asv_fs::{EntryKind, Root};
use asv_model::layout::SKILLS_DIR;
use asv_skilltree::SkillTree;

use crate::error::Error;

/// Refuses a list of paths the archive entry policy would refuse: a name some host cannot
/// write (`CON`, `a:b`, a trailing dot), or two names one volume folds together.
///
/// # Errors
/// [`Error::Unwritable`] naming `label` and the first path refused.
pub(crate) fn portable(label: &str, paths: &[String]) -> Result<(), Error> {
    let refs: Vec<&str> = paths.iter().map(String::as_str).collect();
    match asv_archive::path_refusal(&refs) {
        None => Ok(()),
        Some(refusal) => Err(Error::Unwritable {
            input: label.to_owned(),
            refusal,
        }),
    }
}

/// Requires a real directory at `dir`: a link there (even to a directory) or another kind is
/// refused by name, an absent one is [`Error::Missing`].
///
/// # Errors
/// As above; a guarded-read failure.
pub(crate) fn require_dir(root: &Root, dir: &str) -> Result<(), Error> {
    match root.kind(dir)? {
        Some(EntryKind::Directory) => Ok(()),
        None => Err(Error::Missing {
            path: dir.to_owned(),
        }),
        Some(EntryKind::Symlink) => Err(Error::Fs(asv_fs::Error::Symlink {
            path: dir.to_owned(),
        })),
        Some(found) => Err(Error::Fs(asv_fs::Error::WrongKind {
            path: dir.to_owned(),
            expected: EntryKind::Directory,
            found,
        })),
    }
}

/// Requires a real directory at the skill directory `dir` (`skills/<name>`): as
/// [`require_dir`], with a link there refused as [`Error::LinkedSkill`], the one way every
/// skill command says it.
///
/// # Errors
/// As above.
pub(crate) fn require_skill_dir(root: &Root, dir: &str) -> Result<(), Error> {
    refuse_linked_skill(root, dir)?;
    require_dir(root, dir)
}

/// Refuses a symbolic link at the skill directory `dir` ([`Error::LinkedSkill`]); anything
/// else (absent included) passes.
///
/// # Errors
/// As above; a guarded-read failure.
pub(crate) fn refuse_linked_skill(root: &Root, dir: &str) -> Result<(), Error> {
    if root.kind(dir)? == Some(EntryKind::Symlink) {
        return Err(Error::LinkedSkill {
            path: dir.to_owned(),
        });
    }
    Ok(())
}

/// The names of the symbolic links directly under `skills/`, in name order: skill directories
/// no command follows ([`Error::LinkedSkill`]).
///
/// # Errors
/// A guarded-read failure of `skills/`.
pub(crate) fn linked_skills(root: &Root) -> Result<Vec<String>, Error> {
    let mut names: Vec<String> = root
        .read_dir(asv_model::layout::SKILLS_DIR)?
        .unwrap_or_default()
        .into_iter()
        .filter(|e| e.kind == EntryKind::Symlink && !asv_fs::is_tree_change_residue(&e.name))
        .map(|e| e.name)
        .collect();
    names.sort();
    Ok(names)
}

/// Refuses a file whose path passes through a staged or parked entry of an interrupted tree
/// change ([`asv_fs::is_tree_change_residue`]): `skill pack` and `skill install` would carry
/// it on. `shown` is how the input is named, prefixed to the path in the refusal.
///
/// # Errors
/// [`Error::Residue`] naming the first such entry.
pub(crate) fn refuse_residue<'p>(
    paths: impl IntoIterator<Item = &'p str>,
    shown: &str,
) -> Result<(), Error> {
    for path in paths {
        let mut at = 0;
        for segment in path.split('/') {
            if asv_fs::is_tree_change_residue(segment) {
                return Err(Error::Residue {
                    path: asv_fs::join(shown, &path[..at + segment.len()]),
                });
            }
            at += segment.len() + 1;
        }
    }
    Ok(())
}

/// The directory of the skill `name`.
pub fn skill_dir(name: &str) -> String {
    format!("{SKILLS_DIR}/{name}")
}

/// The skill's paths answer to the archive entry policy, so what lands in the repository
/// can be checked out on every host.
pub(crate) fn portable_tree(label: &str, tree: &SkillTree) -> Result<(), Error> {
    let paths: Vec<String> = tree.files().iter().map(|f| f.path.clone()).collect();
    portable(label, &paths)
}

/// The skill directories under `skills/`, by name (what a change of the tree left part-way is
/// not one).
///
/// # Errors
/// A guarded-read refusal of `skills/`.
pub(crate) fn skill_names(root: &Root) -> Result<Vec<String>, Error> {
    Ok(root
        .read_dir(SKILLS_DIR)?
        .unwrap_or_default()
        .into_iter()
        .filter(|e| e.kind == EntryKind::Directory && !asv_fs::is_tree_change_residue(&e.name))
        .map(|e| e.name)
        .collect())
}
