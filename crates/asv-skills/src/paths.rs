//! Which paths a skill may be read from and written to: one name policy for every sink (the
//! archive entry policy), and a skill directory that has to be a real directory.

use asv_fs::{EntryKind, Root};

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
            code: refusal.reason().code(),
            refusal: refusal.to_string(),
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
