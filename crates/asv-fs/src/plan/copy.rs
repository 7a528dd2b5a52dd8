//! Reading a copy source: opened without following a link or blocking on a FIFO, walked in
//! order, each file judged on the handle that is read.

use std::fs::{self, File};
use std::io;
use std::path::{Path, PathBuf};

use crate::error::{EntryKind, Error, Result};
use crate::faults::Calls;
use crate::platform;
use crate::root::{join, kind_of};

/// One entry met by [`walk_copy_source`].
pub(crate) enum CopyEntry<'a> {
    /// A directory (the source itself when `rel` is empty) and its permission bits.
    Dir { rel: &'a str, mode: u32 },
    /// A regular file, opened for reading, and its permission bits.
    File { rel: &'a str, file: File, mode: u32 },
}

fn copy_source_unreadable(shown: &str, rel: &str, error: io::Error) -> Error {
    Error::CopySourceUnreadable {
        copy_source: shown.to_owned(),
        path: rel.to_owned(),
        error,
    }
}

/// Opens the regular file `abs` of a copy source without following a link or blocking on a
/// FIFO, and judges it by `fstat` on the handle that will be read.
fn open_copy_source_file(abs: &Path, shown: &str, rel: &str, calls: &Calls) -> Result<(File, u32)> {
    calls
        .step()
        .map_err(|e| copy_source_unreadable(shown, rel, e))?;
    let file = platform::open_read_nofollow(abs).map_err(|e| {
        if platform::is_link_refused(&e) {
            Error::CopySourceLink {
                copy_source: shown.to_owned(),
                path: rel.to_owned(),
            }
        } else {
            copy_source_unreadable(shown, rel, e)
        }
    })?;
    let meta = file
        .metadata()
        .map_err(|e| copy_source_unreadable(shown, rel, e))?;
    let found = kind_of(meta.file_type());
    if found == EntryKind::Symlink {
        // Where a link opens as itself (Windows) rather than failing to open.
        return Err(Error::CopySourceLink {
            copy_source: shown.to_owned(),
            path: rel.to_owned(),
        });
    }
    if found != EntryKind::File {
        return Err(Error::CopySourceWrongKind {
            copy_source: shown.to_owned(),
            path: rel.to_owned(),
            found,
        });
    }
    Ok((file, platform::mode_of(&meta)))
}

/// Walks the copy source `source` (shown in messages as `shown`) without following any link,
/// visiting each directory before what it holds, entries in bytewise name order. A link (the
/// source itself included) is [`Error::CopySourceLink`], a special file [`Error::CopySourceWrongKind`],
/// a directory or file that cannot be read [`Error::CopySourceUnreadable`]. Every listing and open
/// first takes a step of `calls`.
pub(crate) fn walk_copy_source(
    source: &Path,
    shown: &str,
    calls: &Calls,
    visit: &mut dyn FnMut(CopyEntry<'_>) -> Result<()>,
) -> Result<()> {
    let meta = fs::symlink_metadata(source).map_err(|e| copy_source_unreadable(shown, "", e))?;
    match kind_of(meta.file_type()) {
        EntryKind::Directory => {}
        EntryKind::File => {
            let (file, mode) = open_copy_source_file(source, shown, "", calls)?;
            return visit(CopyEntry::File {
                rel: "",
                file,
                mode,
            });
        }
        EntryKind::Symlink => {
            return Err(Error::CopySourceLink {
                copy_source: shown.to_owned(),
                path: String::new(),
            });
        }
        found => {
            return Err(Error::CopySourceWrongKind {
                copy_source: shown.to_owned(),
                path: String::new(),
                found,
            });
        }
    }
    visit(CopyEntry::Dir {
        rel: "",
        mode: platform::mode_of(&meta),
    })?;
    walk_copy_source_dir(source, "", shown, calls, visit)
}

fn walk_copy_source_dir(
    abs: &Path,
    rel: &str,
    shown: &str,
    calls: &Calls,
    visit: &mut dyn FnMut(CopyEntry<'_>) -> Result<()>,
) -> Result<()> {
    calls
        .step()
        .map_err(|e| copy_source_unreadable(shown, rel, e))?;
    let mut names = Vec::new();
    for entry in fs::read_dir(abs).map_err(|e| copy_source_unreadable(shown, rel, e))? {
        let entry = entry.map_err(|e| copy_source_unreadable(shown, rel, e))?;
        let name = entry
            .file_name()
            .into_string()
            .map_err(|raw| Error::NonUtf8Name {
                path: format!("{shown}/{}", join(rel, &raw.to_string_lossy())),
            })?;
        names.push(name);
    }
    names.sort();
    for name in names {
        let child_rel = join(rel, &name);
        let child_abs = abs.join(&name);
        let meta = fs::symlink_metadata(&child_abs)
            .map_err(|e| copy_source_unreadable(shown, &child_rel, e))?;
        match kind_of(meta.file_type()) {
            EntryKind::Directory => {
                visit(CopyEntry::Dir {
                    rel: &child_rel,
                    mode: platform::mode_of(&meta),
                })?;
                walk_copy_source_dir(&child_abs, &child_rel, shown, calls, visit)?;
            }
            EntryKind::File => {
                let (file, mode) = open_copy_source_file(&child_abs, shown, &child_rel, calls)?;
                visit(CopyEntry::File {
                    rel: &child_rel,
                    file,
                    mode,
                })?;
            }
            EntryKind::Symlink => {
                return Err(Error::CopySourceLink {
                    copy_source: shown.to_owned(),
                    path: child_rel,
                });
            }
            found => {
                return Err(Error::CopySourceWrongKind {
                    copy_source: shown.to_owned(),
                    path: child_rel,
                    found,
                });
            }
        }
    }
    Ok(())
}

/// The real location of the copy source `source`, which is not itself a link.
pub(crate) fn real_copy_source(source: &Path, shown: &str) -> Result<PathBuf> {
    fs::canonicalize(source).map_err(|e| copy_source_unreadable(shown, "", e))
}
