//! Stamps of a directory's contents taken relative to the open directory.
//!
//! A run that finds a large tree unchanged takes one `lstat` per file and per directory, and
//! nothing else. By absolute path, the kernel walks every component from `/` for each of
//! them, and the guarded root checks (and remembers) each directory on the way; for a skill
//! whose paths are recorded, the directory is opened once and each of its entries is stamped
//! from there, one or two components each.

use std::collections::HashSet;

use crate::error::{EntryKind, Error, Result};
use crate::platform::{self, StampBase};
use crate::root::{Root, join, parent_of};
use crate::stamp::FileStamp;

/// Past this many directories, the set of those stamped is hashed rather than searched.
const LISTED: usize = 16;

/// A directory of the tree held open to stamp what lies below it ([`Root::stamp_dir`]).
///
/// Paths given to it are relative to the directory, with `/` separators. The guard is the
/// root's: a link is never followed, neither at a path nor on the way to it. Every directory
/// on the way to a path is stamped first (with [`StampDir::dir_stamp`], or here on first need)
/// and must be a real directory; a directory met again is not looked at again, so a caller
/// that stamps directories parents first and then their files (as a recorded tree lists
/// them) pays exactly one `lstat` per entry.
pub struct StampDir {
    base: StampBase,
    rel: String,
    own: Option<FileStamp>,
    /// Directories below this one seen to be real directories (few, usually: a list).
    dirs: Vec<String>,
    many: HashSet<String>,
}

impl std::fmt::Debug for StampDir {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StampDir")
            .field("rel", &self.rel)
            .field("own", &self.own)
            .finish_non_exhaustive()
    }
}

impl Root {
    /// Opens the directory at `rel` to stamp what lies below it; `None` when nothing, or
    /// something other than a real directory, stands there (a link there included). The
    /// directories on the way are checked as [`Root::dir_stamp`] checks them.
    ///
    /// # Errors
    /// [`Error::Symlink`] / [`Error::WrongKind`] for a directory on the way that is not a
    /// real one; an I/O failure.
    pub fn stamp_dir(&self, rel: &str) -> Result<Option<StampDir>> {
        if !self.check_ancestors(rel)? {
            return Ok(None);
        }
        let base = match StampBase::open(&self.abs(rel)) {
            Ok(base) => base,
            Err(e) if is_absent(&e) => return Ok(None),
            // A link (refused by `O_NOFOLLOW`) or another kind: not a directory to stamp.
            Err(e) if is_not_a_real_directory(&e) => return Ok(None),
            Err(e) => return Err(Error::io(rel, "open the directory", e)),
        };
        let (kind, own) = base
            .lstat("")
            .map(kind_and_stamp)
            .map_err(|e| Error::io(rel, "inspect", e))?;
        if kind != EntryKind::Directory {
            return Ok(None);
        }
        if !rel.is_empty() {
            self.mark_checked(rel);
        }
        Ok(Some(StampDir {
            base,
            rel: rel.to_owned(),
            own,
            dirs: Vec::new(),
            many: HashSet::new(),
        }))
    }
}

/// The kind of what `lstat` found, and its stamp when it is a regular file or a directory.
#[cfg(unix)]
fn kind_and_stamp(found: platform::Lstat) -> (EntryKind, Option<FileStamp>) {
    let stamp = FileStamp::from_fields(
        found.device,
        found.inode,
        found.size,
        found.mode,
        found.modified,
        found.changed,
    );
    let has_stamp = matches!(found.kind, EntryKind::File | EntryKind::Directory);
    (found.kind, has_stamp.then_some(stamp))
}

/// The kind of what `lstat` found, and its stamp when it is a regular file or a directory.
#[cfg(not(unix))]
fn kind_and_stamp(found: std::fs::Metadata) -> (EntryKind, Option<FileStamp>) {
    let stamp = FileStamp::of(&found).or_else(|| FileStamp::of_dir(&found));
    (crate::root::kind_of(found.file_type()), stamp)
}

fn is_absent(e: &std::io::Error) -> bool {
    e.kind() == std::io::ErrorKind::NotFound || platform::is_not_a_directory(e)
}

/// `O_NOFOLLOW` on a link gives `ELOOP`; `O_DIRECTORY` on another kind, `ENOTDIR` (taken
/// above as absent, as [`Root::dir_stamp`] takes it).
#[cfg(unix)]
fn is_not_a_real_directory(e: &std::io::Error) -> bool {
    e.raw_os_error() == Some(rustix::io::Errno::LOOP.raw_os_error())
}

#[cfg(not(unix))]
fn is_not_a_real_directory(e: &std::io::Error) -> bool {
    e.kind() == std::io::ErrorKind::NotADirectory
}

impl StampDir {
    /// The directory's path in its tree.
    pub fn path(&self) -> &str {
        &self.rel
    }

    /// The directory's own stamp ([`FileStamp::of_dir`]), taken from the open directory: the
    /// one whose contents the other calls stamp.
    pub fn stamp(&self) -> Option<FileStamp> {
        self.own
    }

    /// The stamp of the directory at `sub` below this one; `None` when nothing, or something
    /// else than a real directory, stands there.
    ///
    /// # Errors
    /// As [`StampDir::file_stamp`].
    pub fn dir_stamp(&mut self, sub: &str) -> Result<Option<FileStamp>> {
        if !self.check_way(sub)? {
            return Ok(None);
        }
        match self.lstat(sub)? {
            Some((EntryKind::Directory, stamp)) => {
                self.note_dir(sub);
                Ok(stamp)
            }
            _ => Ok(None),
        }
    }

    /// The stamp of the regular file at `sub` below this directory; `None` when nothing, or
    /// something else than a regular file, stands there.
    ///
    /// # Errors
    /// [`Error::Symlink`] / [`Error::WrongKind`] for a directory on the way that is not a
    /// real one; an I/O failure.
    pub fn file_stamp(&mut self, sub: &str) -> Result<Option<FileStamp>> {
        if !self.check_way(sub)? {
            return Ok(None);
        }
        match self.lstat(sub)? {
            Some((EntryKind::File, stamp)) => Ok(stamp),
            _ => Ok(None),
        }
    }

    fn lstat(&self, sub: &str) -> Result<Option<(EntryKind, Option<FileStamp>)>> {
        match self.base.lstat(sub) {
            Ok(found) => Ok(Some(kind_and_stamp(found))),
            Err(e) if is_absent(&e) => Ok(None),
            Err(e) => Err(Error::io(&join(&self.rel, sub), "inspect", e)),
        }
    }

    fn is_dir_seen(&self, sub: &str) -> bool {
        if self.dirs.len() < LISTED {
            self.dirs.iter().any(|d| d == sub)
        } else {
            self.many.contains(sub)
        }
    }

    fn note_dir(&mut self, sub: &str) {
        if self.is_dir_seen(sub) {
            return;
        }
        if self.dirs.len() + 1 < LISTED {
            self.dirs.push(sub.to_owned());
        } else {
            if self.many.is_empty() {
                self.many.extend(self.dirs.drain(..));
            }
            self.many.insert(sub.to_owned());
        }
    }

    /// Checks that every directory on the way to `sub` is a real directory, stamping those
    /// not seen yet; `false` when one is missing.
    fn check_way(&mut self, sub: &str) -> Result<bool> {
        let parent = parent_of(sub);
        if parent.is_empty() || self.is_dir_seen(parent) {
            return Ok(true);
        }
        if !self.check_way(parent)? {
            return Ok(false);
        }
        let path = || join(&self.rel, parent);
        match self.lstat(parent)? {
            None => Ok(false),
            Some((EntryKind::Directory, _)) => {
                self.note_dir(parent);
                Ok(true)
            }
            Some((EntryKind::Symlink, _)) => Err(Error::Symlink { path: path() }),
            Some((found, _)) => Err(Error::WrongKind {
                path: path(),
                expected: EntryKind::Directory,
                found,
            }),
        }
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[allow(clippy::unwrap_used)]
    fn tree() -> (tempfile::TempDir, Root) {
        let dir = tempfile::tempdir().unwrap();
        let root = Root::open(dir.path()).unwrap();
        root.write_file("p/s/SKILL.md", b"---\nname: s\n---\n")
            .unwrap();
        root.write_file_mode("p/s/scripts/run.sh", b"#!/bin/sh\n", true)
            .unwrap();
        root.write_file("p/s/a/b/c.md", b"deep").unwrap();
        (dir, root)
    }

    /// The same stamps as by path: device, inode, size, mode and both times, for files, an
    /// executable, directories and the directory itself.
    #[test]
    fn stamps_equal_those_taken_by_path() {
        let (_dir, root) = tree();
        let mut at = root.stamp_dir("p/s").unwrap().unwrap();
        assert_eq!(at.path(), "p/s");
        assert_eq!(at.stamp(), root.dir_stamp("p/s").unwrap());
        assert!(at.stamp().is_some());
        for file in ["SKILL.md", "scripts/run.sh", "a/b/c.md"] {
            let by_path = root.stamp(&join("p/s", file)).unwrap();
            assert!(by_path.is_some(), "{file}");
            assert_eq!(at.file_stamp(file).unwrap(), by_path, "{file}");
        }
        for sub in ["scripts", "a", "a/b"] {
            let by_path = root.dir_stamp(&join("p/s", sub)).unwrap();
            assert!(by_path.is_some(), "{sub}");
            assert_eq!(at.dir_stamp(sub).unwrap(), by_path, "{sub}");
        }
        // Another kind, or nothing: no stamp.
        assert_eq!(at.file_stamp("scripts").unwrap(), None);
        assert_eq!(at.dir_stamp("SKILL.md").unwrap(), None);
        assert_eq!(at.file_stamp("missing.md").unwrap(), None);
        assert_eq!(at.file_stamp("missing/x.md").unwrap(), None);
        assert_eq!(at.file_stamp("SKILL.md/x").unwrap_err().to_string(), {
            Error::WrongKind {
                path: "p/s/SKILL.md".into(),
                expected: EntryKind::Directory,
                found: EntryKind::File,
            }
            .to_string()
        });
    }

    /// No link is followed: not at the directory, not on the way to it, not inside it, and a
    /// FIFO is no file.
    #[test]
    fn links_are_never_followed() {
        let (dir, root) = tree();
        let p = dir.path();
        std::os::unix::fs::symlink(p.join("p/s"), p.join("p/link")).unwrap();
        assert!(root.stamp_dir("p/link").unwrap().is_none());
        std::os::unix::fs::symlink(p.join("p"), p.join("q")).unwrap();
        assert!(matches!(
            root.stamp_dir("q/s").unwrap_err(),
            Error::Symlink { path } if path == "q"
        ));
        assert!(root.stamp_dir("p/s/SKILL.md").unwrap().is_none());
        assert!(root.stamp_dir("p/none").unwrap().is_none());

        std::os::unix::fs::symlink(p.join("p/s/a"), p.join("p/s/la")).unwrap();
        std::os::unix::fs::symlink(p.join("p/s/SKILL.md"), p.join("p/s/lf")).unwrap();
        rustix::fs::mknodat(
            rustix::fs::CWD,
            p.join("p/s/fifo"),
            rustix::fs::FileType::Fifo,
            rustix::fs::Mode::from_raw_mode(0o600),
            0,
        )
        .unwrap();
        let mut at = root.stamp_dir("p/s").unwrap().unwrap();
        assert_eq!(at.dir_stamp("la").unwrap(), None);
        assert_eq!(at.file_stamp("lf").unwrap(), None);
        assert_eq!(at.file_stamp("fifo").unwrap(), None);
        assert!(matches!(
            at.file_stamp("la/b/c.md").unwrap_err(),
            Error::Symlink { path } if path == "p/s/la"
        ));
    }

    /// Past the listed few, the directories seen are kept in a set: every file of a wide
    /// tree is still stamped as by path.
    #[test]
    fn a_wide_tree_is_stamped_whole() {
        let dir = tempfile::tempdir().unwrap();
        let root = Root::open(dir.path()).unwrap();
        let files: Vec<String> = (0..3 * LISTED).map(|i| format!("d{i}/e/f.md")).collect();
        for f in &files {
            root.write_file(&join("s", f), f.as_bytes()).unwrap();
        }
        let mut at = root.stamp_dir("s").unwrap().unwrap();
        for f in files.iter().chain(&files) {
            let by_path = root.stamp(&join("s", f)).unwrap();
            assert!(by_path.is_some());
            assert_eq!(at.file_stamp(f).unwrap(), by_path, "{f}");
        }
    }
}
