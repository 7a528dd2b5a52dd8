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
