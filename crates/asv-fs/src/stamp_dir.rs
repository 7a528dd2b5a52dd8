//! Stamps of a directory's contents taken relative to the open directory.
//!
//! A run that finds a large tree unchanged takes one `lstat` per file and per directory, and
//! nothing else. By absolute path, the kernel walks every component from `/` for each of
//! them, and the guarded root checks (and remembers) each directory on the way; for a skill
//! whose paths are recorded, the directory is opened once and each of its entries is stamped
//! from there, one or two components each.

use std::collections::HashSet;

use crate::error::{EntryKind, Error, Result};
use crate::plan::is_plain_relative;
use crate::platform::{self, StampBase};
use crate::root::{Root, join, parent_of};
use crate::stamp::FileStamp;

/// Past this many directories, the set of those stamped is hashed rather than searched.
const LISTED: usize = 16;

/// A directory of the tree held open, to stamp the directories in it ([`Root::open_dir`]):
/// many skills of one agent's directory are stamped from the one descriptor, so none of
/// them costs an open of its own. Shared across threads.
pub struct OpenDir {
    base: StampBase,
    rel: String,
}

impl std::fmt::Debug for OpenDir {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OpenDir")
            .field("rel", &self.rel)
            .finish_non_exhaustive()
    }
}

/// The open directory a [`StampDir`] stamps from: its own, or one it shares.
enum Base<'a> {
    Owned(StampBase),
    Shared(&'a StampBase),
}

impl Base<'_> {
    fn get(&self) -> &StampBase {
        match self {
            Base::Owned(base) => base,
            Base::Shared(base) => base,
        }
    }
}

/// A directory of the tree whose entries are stamped relative to an open directory
/// ([`Root::stamp_dir`], [`OpenDir::stamp_dir`]).
///
/// Paths given to it are relative to the directory, with `/` separators. The guard is the
/// root's: a link is never followed, neither at a path nor on the way to it. Every directory
/// on the way to a path is stamped first (with [`StampDir::dir_stamp`], or here on first need)
/// and must be a real directory; a directory met again is not looked at again, so a caller
/// that stamps directories parents first and then their files (as a recorded tree lists
/// them) pays exactly one `lstat` per entry. A path that is not a plain relative one
/// ([`crate::is_plain_relative`]: an empty, `.` or `..` segment) names nothing below the
/// directory, and is answered `None` without a call.
pub struct StampDir<'a> {
    base: Base<'a>,
    /// The directory's path in its tree, and its path from the open directory ("" when it
    /// is that directory).
    rel: String,
    prefix: String,
    own: Option<FileStamp>,
    /// Directories below this one seen to be real directories (few, usually: a list).
    dirs: Vec<String>,
    many: HashSet<String>,
    /// The path handed to the kernel, built here to spare an allocation per call.
    buf: String,
}

impl std::fmt::Debug for StampDir<'_> {
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
    pub fn stamp_dir(&self, rel: &str) -> Result<Option<StampDir<'static>>> {
        let Some((base, own)) = self.open_base(rel)? else {
            return Ok(None);
        };
        Ok(Some(StampDir::new(
            Base::Owned(base),
            rel.to_owned(),
            String::new(),
            own,
        )))
    }

    /// Opens the directory at `rel` to stamp the directories in it with
    /// [`OpenDir::stamp_dir`]; `None` as for [`Root::stamp_dir`].
    ///
    /// # Errors
    /// As [`Root::stamp_dir`].
    pub fn open_dir(&self, rel: &str) -> Result<Option<OpenDir>> {
        Ok(self.open_base(rel)?.map(|(base, _)| OpenDir {
            base,
            rel: rel.to_owned(),
        }))
    }

    /// The directory at `rel` opened, and its own stamp, when it is a real directory reached
    /// through real directories.
    fn open_base(&self, rel: &str) -> Result<Option<(StampBase, Option<FileStamp>)>> {
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
        Ok(Some((base, own)))
    }
}

impl OpenDir {
    /// The directory's path in its tree.
    pub fn path(&self) -> &str {
        &self.rel
    }

    /// The directory at `sub` below this one, to stamp what lies below it; `None` when
    /// nothing, or something other than a real directory, stands there. Its own stamp is the
    /// one [`StampDir::stamp`] gives.
    ///
    /// # Errors
    /// As [`StampDir::file_stamp`].
    pub fn stamp_dir(&self, sub: &str) -> Result<Option<StampDir<'_>>> {
        if !is_plain_relative(sub) {
            return Ok(None);
        }
        let own = if sub.contains('/') {
            // Deeper: each directory on the way checked as [`StampDir`] checks it.
            let mut top = StampDir::new(
                Base::Shared(&self.base),
                self.rel.clone(),
                String::new(),
                None,
            );
            top.dir_stamp(sub)?
        } else {
            // One name (an agent's skill): a single `lstat`, nothing on the way to check.
            match self.base.lstat(sub) {
                Ok(found) => match kind_and_stamp(found) {
                    (EntryKind::Directory, stamp) => stamp,
                    _ => None,
                },
                Err(e) if is_absent(&e) => None,
                Err(e) => return Err(Error::io(&join(&self.rel, sub), "inspect", e)),
            }
        };
        let Some(own) = own else {
            return Ok(None);
        };
        Ok(Some(StampDir::new(
            Base::Shared(&self.base),
            join(&self.rel, sub),
            sub.to_owned(),
            Some(own),
        )))
    }
}

/// The kind of what `lstat` found, and its stamp when it is a regular file or a directory.
#[cfg(unix)]
fn kind_and_stamp(found: platform::Lstat) -> (EntryKind, Option<FileStamp>) {
    let stamp = FileStamp::of_lstat(&found);
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

impl<'a> StampDir<'a> {
    fn new(base: Base<'a>, rel: String, prefix: String, own: Option<FileStamp>) -> Self {
        StampDir {
            base,
            rel,
            prefix,
            own,
            dirs: Vec::new(),
            many: HashSet::new(),
            buf: String::new(),
        }
    }

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
        if !is_plain_relative(sub) || !self.check_way(sub)? {
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
        if !is_plain_relative(sub) || !self.check_way(sub)? {
            return Ok(None);
        }
        match self.lstat(sub)? {
            Some((EntryKind::File, stamp)) => Ok(stamp),
            _ => Ok(None),
        }
    }

    fn lstat(&mut self, sub: &str) -> Result<Option<(EntryKind, Option<FileStamp>)>> {
        let path = if self.prefix.is_empty() {
            sub
        } else {
            self.buf.clear();
            self.buf.push_str(&self.prefix);
            self.buf.push('/');
            self.buf.push_str(sub);
            &self.buf
        };
        match self.base.get().lstat(path) {
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
        match self.lstat(parent)? {
            None => Ok(false),
            Some((EntryKind::Directory, _)) => {
                self.note_dir(parent);
                Ok(true)
            }
            Some((EntryKind::Symlink, _)) => Err(Error::Symlink {
                path: join(&self.rel, parent),
            }),
            Some((found, _)) => Err(Error::WrongKind {
                path: join(&self.rel, parent),
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

    /// A directory stamped from its parent's descriptor gives the same stamps, and the same
    /// refusals with the same paths, as one opened itself.
    #[test]
    fn from_an_open_parent_the_same_as_opened_itself() {
        let (dir, root) = tree();
        let parent = root.open_dir("p").unwrap().unwrap();
        assert_eq!(parent.path(), "p");
        let mut shared = parent.stamp_dir("s").unwrap().unwrap();
        let mut own = root.stamp_dir("p/s").unwrap().unwrap();
        assert_eq!(shared.path(), "p/s");
        assert_eq!(shared.stamp(), own.stamp());
        assert!(shared.stamp().is_some());
        for file in ["SKILL.md", "scripts/run.sh", "a/b/c.md", "missing", "a"] {
            assert_eq!(
                shared.file_stamp(file).unwrap(),
                own.file_stamp(file).unwrap(),
                "{file}"
            );
        }
        assert_eq!(
            shared.dir_stamp("a/b").unwrap(),
            own.dir_stamp("a/b").unwrap()
        );
        // Deeper, through the same descriptor.
        let mut deep = parent.stamp_dir("s/a").unwrap().unwrap();
        assert_eq!(deep.path(), "p/s/a");
        assert_eq!(deep.stamp(), root.dir_stamp("p/s/a").unwrap());
        assert_eq!(
            deep.file_stamp("b/c.md").unwrap(),
            root.stamp("p/s/a/b/c.md").unwrap()
        );
        // Nothing, a file, a link: no directory to stamp.
        let p = dir.path();
        std::os::unix::fs::symlink(p.join("p/s"), p.join("p/link")).unwrap();
        for sub in ["none", "s/SKILL.md", "link"] {
            assert!(parent.stamp_dir(sub).unwrap().is_none(), "{sub}");
        }
        // A link on the way is refused, named by its path in the tree.
        assert!(matches!(
            parent.stamp_dir("link/a").unwrap_err(),
            Error::Symlink { path } if path == "p/link"
        ));
        std::os::unix::fs::symlink(p.join("p/s/a"), p.join("p/s/la")).unwrap();
        assert!(matches!(
            shared.file_stamp("la/b/c.md").unwrap_err(),
            Error::Symlink { path } if path == "p/s/la"
        ));
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

    /// A path that would leave the directory (or names it again) is nothing below it: no
    /// call is made for it, whatever stands there.
    #[test]
    fn a_path_leaving_the_directory_names_nothing() {
        let (_dir, root) = tree();
        let parent = root.open_dir("p").unwrap().unwrap();
        let mut at = parent.stamp_dir("s").unwrap().unwrap();
        for bad in [
            "../s/SKILL.md",
            "a/../SKILL.md",
            "./SKILL.md",
            "/etc/passwd",
            "a//b",
            "",
        ] {
            assert_eq!(at.file_stamp(bad).unwrap(), None, "{bad:?}");
            assert_eq!(at.dir_stamp(bad).unwrap(), None, "{bad:?}");
        }
        for bad in ["..", "../p", "s/..", ".", "/p"] {
            assert!(parent.stamp_dir(bad).unwrap().is_none(), "{bad:?}");
        }
        // The same entries by plain paths are there.
        assert!(at.file_stamp("SKILL.md").unwrap().is_some());
        assert!(parent.stamp_dir("s/a").unwrap().is_some());
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
