//! The guarded root: every read and write of a user's repository goes through [`Root`].

use std::collections::HashSet;
use std::fs::{self, File};
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::RwLock;
use std::sync::atomic::{AtomicUsize, Ordering};

use crate::error::{EntryKind, Error, Result};
use crate::platform;
use crate::reader::FileReader;
use crate::stamp::FileStamp;

/// One entry of a directory listing, as `lstat` sees it (links are not followed).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DirEntry {
    /// The entry's file name.
    pub name: String,
    /// What stands there.
    pub kind: EntryKind,
}

/// A repository root with guarded access to everything below it.
///
/// Paths given to a `Root` are relative to the root and use `/` separators; an empty path
/// names the root itself. No method follows a symbolic link: a link met on the way to a path,
/// or at the path, is [`Error::Symlink`]; an entry of another kind than the one needed is
/// [`Error::WrongKind`] — never "absent".
///
/// # Example
/// ```
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let dir = tempfile::tempdir()?;
/// let root = asv_fs::Root::open(dir.path())?;
/// root.write_file("a/b.txt", b"hello\n")?;
/// assert_eq!(root.read_file("a/b.txt")?.as_deref(), Some(&b"hello\n"[..]));
/// assert_eq!(root.read_file("a/missing.txt")?, None);
/// # Ok(())
/// # }
/// ```
#[derive(Debug)]
pub struct Root {
    root: PathBuf,
    /// Directories already checked to be real directories all the way up, so deep reads
    /// do not `lstat` the same ancestors again and again.
    checked_dirs: RwLock<HashSet<String>>,
    /// Writes left before an injected failure, for tests of interrupted runs.
    write_budget: Option<AtomicUsize>,
}

pub(crate) fn kind_of(ft: fs::FileType) -> EntryKind {
    if ft.is_symlink() {
        EntryKind::Symlink
    } else if ft.is_dir() {
        EntryKind::Directory
    } else if ft.is_file() {
        EntryKind::File
    } else {
        platform::special_kind(ft)
    }
}

/// Joins a relative directory and a name with `/`.
pub fn join(dir: &str, name: &str) -> String {
    if dir.is_empty() {
        name.to_owned()
    } else {
        format!("{dir}/{name}")
    }
}

pub(crate) fn parent_of(path: &str) -> &str {
    path.rfind('/').map_or("", |i| &path[..i])
}

/// Applies `.` and `..` lexically: empty and `.` parts dropped, `..` removes the previous part.
fn normalize_lexically(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    let mut parts: Vec<std::ffi::OsString> = Vec::new();
    for comp in path.components() {
        match comp {
            std::path::Component::RootDir | std::path::Component::Prefix(_) => {
                out.push(comp.as_os_str());
            }
            std::path::Component::CurDir => {}
            std::path::Component::ParentDir => {
                parts.pop();
            }
            std::path::Component::Normal(p) => parts.push(p.to_owned()),
        }
    }
    for p in parts {
        out.push(p);
    }
    out
}

fn is_not_found(e: &io::Error) -> bool {
    e.kind() == io::ErrorKind::NotFound
}

impl Root {
    /// Opens the tree at `root`, which must be a directory (it may itself be reached through a
    /// link: the guard applies below it).
    ///
    /// # Errors
    /// [`Error::RootMissing`] when nothing stands at `root`, [`Error::RootNotDirectory`] when
    /// something else than a directory does, [`Error::Io`] when it cannot be looked at.
    pub fn open(root: impl Into<PathBuf>) -> Result<Self> {
        let root = root.into();
        match fs::metadata(&root) {
            Ok(m) if m.is_dir() => Ok(Root {
                root,
                checked_dirs: RwLock::new(HashSet::new()),
                write_budget: None,
            }),
            Ok(_) => Err(Error::RootNotDirectory {
                path: root.display().to_string(),
            }),
            Err(e) if is_not_found(&e) => Err(Error::RootMissing {
                path: root.display().to_string(),
            }),
            // A permission or I/O problem on the way is not "missing": say what it is.
            Err(source) => Err(Error::Io {
                path: root.display().to_string(),
                op: "open the directory",
                error: source,
            }),
        }
    }

    /// Makes the `n+1`th write (or removal) through this tree fail with
    /// [`Error::InjectedFault`], to show what an interrupted run leaves behind.
    pub fn fail_writes_after(mut self, n: usize) -> Self {
        self.write_budget = Some(AtomicUsize::new(n));
        self
    }

    /// The root directory on disk.
    pub fn root(&self) -> &Path {
        &self.root
    }

    pub(crate) fn abs(&self, rel: &str) -> PathBuf {
        if rel.is_empty() {
            self.root.clone()
        } else {
            self.root.join(rel)
        }
    }

    fn lstat_kind(&self, rel: &str) -> Result<Option<EntryKind>> {
        self.check_names(rel)?;
        match fs::symlink_metadata(self.abs(rel)) {
            Ok(m) => Ok(Some(kind_of(m.file_type()))),
            Err(e) if is_not_found(&e) => Ok(None),
            Err(e) if platform::is_not_a_directory(&e) => {
                // An ancestor is not a directory; the caller checked ancestors first, so this
                // is a race with another process. Report it as what stands there now.
                Ok(None)
            }
            Err(e) => Err(Error::io(rel, "inspect", e)),
        }
    }

    /// Refuses a path holding a name this system cannot give a file (Windows only: there a
    /// backslash or drive colon inside one name would reach another entry; see
    /// [`platform::windows_name_problem`]).
    #[cfg(not(unix))]
    fn check_names(&self, rel: &str) -> Result<()> {
        match platform::path_problem(rel) {
            Some((name, reason)) => Err(Error::UnusableName {
                path: rel.to_owned(),
                name,
                reason,
            }),
            None => Ok(()),
        }
    }

    /// Every name is a usable file name on Unix.
    #[cfg(unix)]
    #[inline(always)]
    fn check_names(&self, _rel: &str) -> Result<()> {
        Ok(())
    }

    /// Checks that every directory on the way to `rel` (excluding `rel`) is a real directory.
    /// Returns `false` when one of them is missing.
    pub(crate) fn check_ancestors(&self, rel: &str) -> Result<bool> {
        self.check_names(rel)?;
        let parent = parent_of(rel);
        self.check_dir_chain(parent)
    }

    /// Checks that `dir` and all its ancestors are real directories; `false` when missing.
    fn check_dir_chain(&self, dir: &str) -> Result<bool> {
        if dir.is_empty() {
            return Ok(true);
        }
        if self.is_checked(dir) {
            return Ok(true);
        }
        if !self.check_dir_chain(parent_of(dir))? {
            return Ok(false);
        }
        match self.lstat_kind(dir)? {
            None => Ok(false),
            Some(EntryKind::Directory) => {
                self.mark_checked(dir);
                Ok(true)
            }
            Some(EntryKind::Symlink) => Err(Error::Symlink {
                path: dir.to_owned(),
            }),
            Some(found) => Err(Error::WrongKind {
                path: dir.to_owned(),
                expected: EntryKind::Directory,
                found,
            }),
        }
    }

    fn is_checked(&self, dir: &str) -> bool {
        self.checked_dirs
            .read()
            .map(|set| set.contains(dir))
            .unwrap_or(false)
    }

    pub(crate) fn mark_checked(&self, dir: &str) {
        if let Ok(mut set) = self.checked_dirs.write() {
            set.insert(dir.to_owned());
        }
    }

    pub(crate) fn forget_checked(&self, dir: &str) {
        self.forget_checked_all(&[dir]);
    }

    /// [`Root::forget_checked`] for many entries in one pass over the cache: a cached
    /// directory is forgotten when it or one of its ancestors is among `dirs`.
    pub(crate) fn forget_checked_all(&self, dirs: &[&str]) {
        if dirs.is_empty() {
            return;
        }
        let gone: std::collections::HashSet<&str> = dirs.iter().copied().collect();
        if let Ok(mut set) = self.checked_dirs.write() {
            set.retain(|d| {
                let mut p = d.as_str();
                loop {
                    if gone.contains(p) {
                        return false;
                    }
                    match p.rfind('/') {
                        Some(cut) => p = &p[..cut],
                        None => return true,
                    }
                }
            });
        }
    }

    /// What stands at `rel`, without following a link; `None` when nothing does.
    ///
    /// # Errors
    /// A link or non-directory on the way to `rel` ([`Error::Symlink`], [`Error::WrongKind`]);
    /// an I/O failure.
    pub fn kind(&self, rel: &str) -> Result<Option<EntryKind>> {
        if !self.check_ancestors(rel)? {
            return Ok(None);
        }
        self.lstat_kind(rel)
    }

    /// [`Root::kind`], telling apart the one way nothing stands at `rel` that says the same of
    /// its siblings: `Err(())` when a directory on the way to it is missing.
    ///
    /// # Errors
    /// As [`Root::kind`].
    pub(crate) fn kind_or_missing_parent(
        &self,
        rel: &str,
    ) -> Result<std::result::Result<Option<EntryKind>, ()>> {
        if !self.check_ancestors(rel)? {
            return Ok(Err(()));
        }
        self.lstat_kind(rel).map(Ok)
    }

    /// Reads the regular file at `rel`; `None` when nothing stands there.
    ///
    /// # Errors
    /// [`Error::Symlink`] when `rel` or a directory on the way is a link,
    /// [`Error::WrongKind`] when something other than a regular file stands there (a FIFO is
    /// opened without blocking and refused), or an I/O failure.
    pub fn read_file(&self, rel: &str) -> Result<Option<Vec<u8>>> {
        let mut out = Vec::new();
        match self.open_file(rel)? {
            None => Ok(None),
            Some(mut f) => {
                f.read_to_end(&mut out)
                    .map_err(|e| Error::io(rel, "read", e))?;
                Ok(Some(out))
            }
        }
    }

    /// Reads the regular file at `rel` whole, refusing it when it holds more than `limit`
    /// bytes; `None` when nothing stands there. The size `fstat` reports is judged before
    /// anything is read, and the read itself stops one byte past `limit`, so a file that grows
    /// meanwhile is refused all the same and never costs more than `limit` bytes of memory.
    /// `what` words the refusal (see [`Error::TooLarge`]).
    ///
    /// # Errors
    /// [`Error::TooLarge`] past `limit`; as [`Root::read_file`].
    pub fn read_file_capped(
        &self,
        rel: &str,
        limit: u64,
        what: &'static str,
    ) -> Result<Option<Vec<u8>>> {
        let Some(file) = self.open_file(rel)? else {
            return Ok(None);
        };
        let too_large = |size| Error::TooLarge {
            path: rel.to_owned(),
            size,
            limit,
            what,
        };
        let len = file
            .metadata()
            .map_err(|e| Error::io(rel, "inspect", e))?
            .len();
        if len > limit {
            return Err(too_large(len));
        }
        let mut out = Vec::with_capacity(usize::try_from(len).unwrap_or(0));
        file.take(limit.saturating_add(1))
            .read_to_end(&mut out)
            .map_err(|e| Error::io(rel, "read", e))?;
        if out.len() as u64 > limit {
            return Err(too_large(out.len() as u64));
        }
        Ok(Some(out))
    }

    /// Reads at most the first `max` bytes of the regular file at `rel`; `None` when nothing
    /// stands there. For telling a file by its opening without holding the rest.
    ///
    /// # Errors
    /// As [`Root::read_file`].
    pub fn read_head(&self, rel: &str, max: usize) -> Result<Option<Vec<u8>>> {
        let Some(file) = self.open_file(rel)? else {
            return Ok(None);
        };
        let mut out = Vec::with_capacity(max);
        file.take(max as u64)
            .read_to_end(&mut out)
            .map_err(|e| Error::io(rel, "read", e))?;
        Ok(Some(out))
    }

    /// Opens the regular file at `rel` to be read in chunks (see [`FileReader`]); `None`
    /// when nothing stands there.
    ///
    /// # Errors
    /// As [`Root::read_file`].
    pub fn open_reader(&self, rel: &str) -> Result<Option<FileReader>> {
        let Some((file, meta)) = self.open_file_inspected(rel)? else {
            return Ok(None);
        };
        Ok(Some(FileReader::new(rel.to_owned(), file, &meta)))
    }

    /// The stamp of the regular file at `rel`, looked at without following a link; `None`
    /// when nothing stands there, something else than a regular file does, or the platform
    /// gives no stamp.
    ///
    /// # Errors
    /// [`Error::Symlink`] / [`Error::WrongKind`] for a directory on the way that is not a
    /// real one; [`Error::Io`] when it cannot be looked at.
    pub fn stamp(&self, rel: &str) -> Result<Option<FileStamp>> {
        if !self.check_ancestors(rel)? {
            return Ok(None);
        }
        match fs::symlink_metadata(self.abs(rel)) {
            Ok(meta) => Ok(FileStamp::of(&meta)),
            Err(e) if is_not_found(&e) || platform::is_not_a_directory(&e) => Ok(None),
            Err(e) => Err(Error::io(rel, "inspect", e)),
        }
    }

    /// The stamp of the directory at `rel` ([`FileStamp::of_dir`]), taken with the same
    /// `lstat` that checks it is a real directory, so a listing of it after needs no other;
    /// `None` when nothing, or something other than a directory, stands there.
    ///
    /// # Errors
    /// [`Error::Symlink`] / [`Error::WrongKind`] for a directory on the way that is not one;
    /// an I/O failure.
    pub fn dir_stamp(&self, rel: &str) -> Result<Option<FileStamp>> {
        if !self.check_ancestors(rel)? {
            return Ok(None);
        }
        match fs::symlink_metadata(self.abs(rel)) {
            Ok(meta) => {
                let stamp = FileStamp::of_dir(&meta);
                if !rel.is_empty() && meta.file_type().is_dir() {
                    self.mark_checked(rel);
                }
                Ok(stamp)
            }
            Err(e) if is_not_found(&e) || platform::is_not_a_directory(&e) => Ok(None),
            Err(e) => Err(Error::io(rel, "inspect", e)),
        }
    }

    /// Opens the regular file at `rel` for reading; `None` when nothing stands there.
    ///
    /// # Errors
    /// As [`Root::read_file`].
    pub fn open_file(&self, rel: &str) -> Result<Option<File>> {
        Ok(self.open_file_inspected(rel)?.map(|(file, _)| file))
    }

    /// [`Root::open_file`] with the metadata the open was judged on, so a caller that wants
    /// the length or the mode does not ask the kernel again.
    fn open_file_inspected(&self, rel: &str) -> Result<Option<(File, fs::Metadata)>> {
        if !self.check_ancestors(rel)? {
            return Ok(None);
        }
        let opened = platform::open_read_nofollow(&self.abs(rel));
        let file = match opened {
            Ok(f) => f,
            Err(e) if is_not_found(&e) => return Ok(None),
            Err(e) => {
                return match self.lstat_kind(rel)? {
                    Some(EntryKind::Symlink) => Err(Error::Symlink {
                        path: rel.to_owned(),
                    }),
                    Some(found) if found != EntryKind::File => Err(Error::WrongKind {
                        path: rel.to_owned(),
                        expected: EntryKind::File,
                        found,
                    }),
                    None => Ok(None),
                    Some(_) => Err(Error::io(rel, "open", e)),
                };
            }
        };
        let meta = file.metadata().map_err(|e| Error::io(rel, "inspect", e))?;
        let found = kind_of(meta.file_type());
        if found == EntryKind::Symlink {
            // Where a link opens as itself (Windows) rather than failing to open.
            return Err(Error::Symlink {
                path: rel.to_owned(),
            });
        }
        if found != EntryKind::File {
            return Err(Error::WrongKind {
                path: rel.to_owned(),
                expected: EntryKind::File,
                found,
            });
        }
        Ok(Some((file, meta)))
    }

    /// Lists the directory at `rel`, sorted by name bytewise; `None` when nothing stands there.
    ///
    /// # Errors
    /// [`Error::Symlink`] / [`Error::WrongKind`] when `rel` or a directory on the way is not a
    /// real directory; [`Error::NonUtf8Name`] for an entry whose name is not UTF-8.
    pub fn read_dir(&self, rel: &str) -> Result<Option<Vec<DirEntry>>> {
        if !self.check_dir_chain(rel)? {
            return Ok(None);
        }
        let iter = match fs::read_dir(self.abs(rel)) {
            Ok(it) => it,
            Err(e) if is_not_found(&e) => return Ok(None),
            Err(e) => return Err(Error::io(rel, "list", e)),
        };
        let mut out = Vec::new();
        for entry in iter {
            let entry = entry.map_err(|e| Error::io(rel, "list", e))?;
            let ft = entry
                .file_type()
                .map_err(|e| Error::io(rel, "inspect", e))?;
            let name = match entry.file_name().into_string() {
                Ok(n) => n,
                Err(raw) => {
                    return Err(Error::NonUtf8Name {
                        path: join(rel, &raw.to_string_lossy()),
                    });
                }
            };
            out.push(DirEntry {
                name,
                kind: kind_of(ft),
            });
        }
        out.sort_by(|a, b| a.name.cmp(&b.name));
        Ok(Some(out))
    }

    /// Every regular file below the directory `rel`, as paths relative to `rel`, sorted
    /// bytewise; `None` when `rel` does not exist. `skip_dir` is asked about each directory
    /// (by its path relative to `rel`) and may prune it.
    ///
    /// # Errors
    /// A link anywhere below `rel` is [`Error::Symlink`]; a FIFO, socket or device is
    /// [`Error::WrongKind`].
    pub fn walk_files(
        &self,
        rel: &str,
        skip: &mut dyn FnMut(&str, EntryKind) -> bool,
    ) -> Result<Option<Vec<String>>> {
        let Some(top) = self.read_dir(rel)? else {
            return Ok(None);
        };
        let mut files = Vec::new();
        let mut stack: Vec<(String, Vec<DirEntry>)> = vec![(String::new(), top)];
        while let Some((dir, entries)) = stack.pop() {
            for entry in entries {
                let sub = join(&dir, &entry.name);
                let full = join(rel, &sub);
                match entry.kind {
                    EntryKind::Symlink => return Err(Error::Symlink { path: full }),
                    EntryKind::Directory => {
                        if skip(&sub, EntryKind::Directory) {
                            continue;
                        }
                        let listing = self.read_dir(&full)?.unwrap_or_default();
                        stack.push((sub, listing));
                    }
                    EntryKind::File => {
                        if !skip(&sub, EntryKind::File) {
                            files.push(sub);
                        }
                    }
                    found => {
                        return Err(Error::WrongKind {
                            path: full,
                            expected: EntryKind::File,
                            found,
                        });
                    }
                }
            }
        }
        files.sort();
        Ok(Some(files))
    }

    pub(crate) fn spend_write(&self, rel: &str) -> Result<()> {
        if let Some(budget) = &self.write_budget {
            budget
                .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |left| {
                    left.checked_sub(1)
                })
                .map_err(|_| Error::InjectedFault {
                    path: rel.to_owned(),
                })?;
        }
        Ok(())
    }

    /// Creates the directory `dir` and any missing ancestors, refusing links and files on the way.
    ///
    /// # Errors
    /// [`Error::Symlink`] / [`Error::WrongKind`] on the way; an I/O failure.
    pub fn create_dir_all(&self, dir: &str) -> Result<()> {
        if dir.is_empty() || self.is_checked(dir) {
            return Ok(());
        }
        self.create_dir_all(parent_of(dir))?;
        match self.lstat_kind(dir)? {
            Some(EntryKind::Directory) => {}
            None => match fs::create_dir(self.abs(dir)) {
                Ok(()) => {}
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
                    return self.check_dir_chain(dir).map(|_| ());
                }
                Err(e) => return Err(Error::io(dir, "create directory", e)),
            },
            Some(EntryKind::Symlink) => {
                return Err(Error::Symlink {
                    path: dir.to_owned(),
                });
            }
            Some(found) => {
                return Err(Error::WrongKind {
                    path: dir.to_owned(),
                    expected: EntryKind::Directory,
                    found,
                });
            }
        }
        self.mark_checked(dir);
        Ok(())
    }

    /// Writes `bytes` to `rel` atomically: the bytes go to a temporary sibling that is then
    /// renamed over `rel`, so a reader sees the old file or the new one, never half of one.
    ///
    /// # Errors
    /// A link or wrong kind on the way or at `rel` (a regular file there is replaced; anything
    /// else is refused); an I/O failure, after which the temporary file is removed.
    pub fn write_file(&self, rel: &str, bytes: &[u8]) -> Result<()> {
        self.write_file_mode(rel, bytes, false)
    }

    /// [`Root::write_file`] with the executable bit chosen: an executable file is created
    /// `0777` and any other `0666`, both narrowed by the process umask.
    ///
    /// # Errors
    /// As [`Root::write_file`].
    pub fn write_file_mode(&self, rel: &str, bytes: &[u8], executable: bool) -> Result<()> {
        self.create_dir_all(parent_of(rel))?;
        match self.lstat_kind(rel)? {
            None | Some(EntryKind::File) => {}
            Some(EntryKind::Symlink) => {
                return Err(Error::Symlink {
                    path: rel.to_owned(),
                });
            }
            Some(found) => {
                return Err(Error::WrongKind {
                    path: rel.to_owned(),
                    expected: EntryKind::File,
                    found,
                });
            }
        }
        self.spend_write(rel)?;
        let target = self.abs(rel);
        let dir = target
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_else(|| self.root.clone());
        let mut builder = tempfile::Builder::new();
        builder.prefix(".asv-tmp-");
        platform::new_file_bits(&mut builder, executable);
        let mut tmp = builder.tempfile_in(&dir).map_err(|e| {
            Error::io(rel, "create a temporary file beside", e).in_directory(parent_of(rel))
        })?;
        // No fsync per file: the rename makes each write all-or-nothing for readers, and a
        // crash that loses the newest writes leaves a tree `verify` reports (the lock is
        // written last). Syncing every copy would multiply the cost of a fresh `gen`.
        tmp.write_all(bytes)
            .map_err(|e| Error::io(rel, "write", e))?;
        tmp.persist(&target)
            .map_err(|e| Error::io(rel, "rename into place", e.error))?;
        Ok(())
    }

    /// Removes the regular file at `rel`; nothing happens when nothing stands there.
    ///
    /// # Errors
    /// A link or wrong kind at `rel`; an I/O failure.
    pub fn remove_file(&self, rel: &str) -> Result<()> {
        match self.kind(rel)? {
            None => return Ok(()),
            Some(EntryKind::File) => {}
            Some(EntryKind::Symlink) => {
                return Err(Error::Symlink {
                    path: rel.to_owned(),
                });
            }
            Some(found) => {
                return Err(Error::WrongKind {
                    path: rel.to_owned(),
                    expected: EntryKind::File,
                    found,
                });
            }
        }
        self.spend_write(rel)?;
        match fs::remove_file(self.abs(rel)) {
            Ok(()) => Ok(()),
            Err(e) if is_not_found(&e) => Ok(()),
            Err(e) => Err(Error::io(rel, "remove", e)),
        }
    }

    /// Moves the entry staged at `from` to `to`, replacing whatever stands at `to` (a file or
    /// a whole directory). Where the platform can (`renameat2` with `RENAME_EXCHANGE`, Linux)
    /// the two are exchanged in one step and the old entry, now at `from`, is removed.
    /// Elsewhere the old entry is first renamed aside to `<from>.previous`, then `from` is
    /// renamed to `to`, then the old entry is removed: a stop between the two renames leaves
    /// `to` absent and both entries beside it under `from`'s name, for the caller's next run
    /// to clear. Both must be on one file system.
    ///
    /// # Errors
    /// A link on the way or at `to`; [`Error::CrossDevice`] when `from` and `to`'s directory
    /// are on different file systems; an I/O failure (after which, past the first rename, the
    /// old entry is put back at `to`).
    pub fn swap_into_place(&self, from: &str, to: &str) -> Result<()> {
        let parent = parent_of(to);
        self.create_dir_all(parent)?;
        let existing = match self.lstat_kind(to)? {
            Some(EntryKind::Symlink) => {
                return Err(Error::Symlink {
                    path: to.to_owned(),
                });
            }
            other => other,
        };
        let from_dev = platform::device_of(
            &fs::symlink_metadata(self.abs(from)).map_err(|e| Error::io(from, "inspect", e))?,
        );
        let to_dev = platform::device_of(
            &fs::metadata(self.abs(parent)).map_err(|e| Error::io(parent, "inspect", e))?,
        );
        if from_dev != to_dev {
            return Err(Error::CrossDevice {
                staged: from.to_owned(),
                dest: to.to_owned(),
            });
        }
        self.spend_write(to)?;
        // Whatever moves, the directories known to be checked below `from` and `to` change.
        self.forget_checked(from);
        self.forget_checked(to);
        if existing.is_none() {
            return fs::rename(self.abs(from), self.abs(to))
                .map_err(|e| Error::io(to, "rename into place", e));
        }
        if platform::exchange(&self.abs(from), &self.abs(to))
            .map_err(|e| Error::io(to, "exchange into place", e))?
        {
            return self.remove_all(from);
        }
        // No exchange in one step: rename aside, rename into place, remove what was aside.
        let aside = format!("{from}.previous");
        if self.lstat_kind(&aside)?.is_some() {
            // A run stopped between the two renames left it; its entry was replaced since.
            self.remove_all(&aside)?;
        }
        platform::rename_noreplace(&self.abs(to), &self.abs(&aside))
            .map_err(|e| Error::io(to, "move aside", e))?;
        if let Err(e) = fs::rename(self.abs(from), self.abs(to)) {
            // Put the old entry back; should that fail too, it stays at `aside`, named here.
            return match fs::rename(self.abs(&aside), self.abs(to)) {
                Ok(()) => Err(Error::io(to, "rename into place", e)),
                Err(_) => Err(Error::io(&aside, "rename into place", e)),
            };
        }
        self.forget_checked(&aside);
        self.remove_all(&aside)
    }

    /// Where the link at `rel` points, resolved without requiring the target to exist and
    /// without following the link itself: a relative target is joined to the link's
    /// directory, `.`/`..` are applied lexically, and the deepest existing ancestor of the
    /// result's parent is resolved to its real path with the rest re-attached.
    ///
    /// # Errors
    /// An I/O failure reading the link.
    pub fn resolve_link(&self, rel: &str) -> Result<PathBuf> {
        let abs = self.absolute(rel);
        let target = fs::read_link(&abs).map_err(|e| Error::io(rel, "read link", e))?;
        let joined = if target.is_absolute() {
            target
        } else {
            abs.parent().map(|p| p.join(&target)).unwrap_or(target)
        };
        let normalized = normalize_lexically(&joined);
        let Some(name) = normalized.file_name().map(|n| n.to_owned()) else {
            return Ok(normalized);
        };
        let mut ancestor = normalized.parent().map(Path::to_path_buf);
        let mut tail: Vec<std::ffi::OsString> = Vec::new();
        while let Some(dir) = ancestor {
            if let Ok(real) = fs::canonicalize(&dir) {
                let mut out = real;
                for part in tail.iter().rev() {
                    out.push(part);
                }
                out.push(name);
                return Ok(out);
            }
            if let Some(last) = dir.file_name() {
                tail.push(last.to_owned());
            }
            ancestor = dir.parent().map(Path::to_path_buf);
        }
        Ok(normalized)
    }

    /// The real path (all links resolved) of the directory `rel`, or `None` when it cannot be
    /// resolved.
    pub fn real_path(&self, rel: &str) -> Option<PathBuf> {
        fs::canonicalize(self.absolute(rel)).ok()
    }

    /// The absolute path of `rel` (the root made absolute against the working directory).
    fn absolute(&self, rel: &str) -> PathBuf {
        let abs = self.abs(rel);
        std::path::absolute(&abs).unwrap_or(abs)
    }

    /// Removes whatever stands at `rel` — a file, or a directory with everything below it —
    /// without following any link; nothing happens when nothing stands there.
    ///
    /// # Errors
    /// [`Error::Symlink`] when `rel` itself or a directory on the way is a link; an I/O failure.
    pub fn remove_all(&self, rel: &str) -> Result<()> {
        match self.kind(rel)? {
            None => Ok(()),
            Some(EntryKind::Directory) => {
                self.spend_write(rel)?;
                // std's remove_dir_all never follows links below the directory it removes.
                fs::remove_dir_all(self.abs(rel)).map_err(|e| Error::io(rel, "remove", e))?;
                self.forget_checked(rel);
                Ok(())
            }
            Some(EntryKind::Symlink) => Err(Error::Symlink {
                path: rel.to_owned(),
            }),
            Some(_) => {
                self.spend_write(rel)?;
                match fs::remove_file(self.abs(rel)) {
                    Ok(()) => Ok(()),
                    Err(e) if is_not_found(&e) => Ok(()),
                    Err(e) => Err(Error::io(rel, "remove", e)),
                }
            }
        }
    }

    /// Removes the directory `rel` if it is empty; does nothing otherwise.
    ///
    /// # Errors
    /// An I/O failure other than "not empty" or "not found".
    pub fn remove_dir_if_empty(&self, rel: &str) -> Result<()> {
        if self.kind(rel)? != Some(EntryKind::Directory) {
            return Ok(());
        }
        match fs::remove_dir(self.abs(rel)) {
            Ok(()) => {
                self.forget_checked(rel);
                Ok(())
            }
            Err(e) if is_not_found(&e) || platform::is_not_empty(&e) => Ok(()),
            Err(e) => Err(Error::io(rel, "remove directory", e)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    fn temp_root() -> (tempfile::TempDir, Root) {
        let dir = tempfile::tempdir().unwrap();
        let root = Root::open(dir.path()).unwrap();
        (dir, root)
    }

    #[test]
    fn reads_and_writes() {
        let (_d, t) = temp_root();
        t.write_file("x/y/z.txt", b"z").unwrap();
        assert_eq!(t.read_file("x/y/z.txt").unwrap().unwrap(), b"z");
        t.write_file("x/y/z.txt", b"zz").unwrap();
        assert_eq!(t.read_file("x/y/z.txt").unwrap().unwrap(), b"zz");
        assert_eq!(t.read_file("x/nope").unwrap(), None);
        assert_eq!(t.read_file("nope/deeper").unwrap(), None);
        let names: Vec<_> = t.read_dir("x/y").unwrap().unwrap();
        assert_eq!(names.len(), 1, "no temporary file is left behind");
        let mode = std::os::unix::fs::PermissionsExt::mode(
            &std::fs::metadata(t.root().join("x/y/z.txt"))
                .unwrap()
                .permissions(),
        );
        assert_eq!(mode & 0o044, 0o044, "group and others can read: {mode:o}");
    }

    #[test]
    fn symlinks_are_refused_everywhere() {
        let (d, t) = temp_root();
        std::fs::create_dir(d.path().join("real")).unwrap();
        std::fs::write(d.path().join("real/f"), "f").unwrap();
        symlink(d.path().join("real"), d.path().join("link")).unwrap();
        symlink(d.path().join("real/f"), d.path().join("real/lf")).unwrap();
        for path in ["link/f", "real/lf"] {
            let err = t.read_file(path).unwrap_err();
            assert!(matches!(err, Error::Symlink { .. }), "{path}: {err}");
        }
        assert!(matches!(
            t.read_dir("link").unwrap_err(),
            Error::Symlink { .. }
        ));
        assert!(matches!(
            t.write_file("link/new", b"x").unwrap_err(),
            Error::Symlink { .. }
        ));
        assert!(matches!(
            t.write_file("real/lf", b"x").unwrap_err(),
            Error::Symlink { .. }
        ));
        assert!(matches!(
            t.walk_files("real", &mut |_, _| false).unwrap_err(),
            Error::Symlink { .. }
        ));
        assert_eq!(
            t.read_file("real/lf").unwrap_err().to_string(),
            "symlink is not allowed inside the tree: real/lf"
        );
    }

    #[test]
    fn wrong_kinds_are_refused_not_absent() {
        let (d, t) = temp_root();
        std::fs::write(d.path().join("file"), "f").unwrap();
        std::fs::create_dir(d.path().join("dir")).unwrap();
        rustix::fs::mknodat(
            rustix::fs::CWD,
            d.path().join("fifo"),
            rustix::fs::FileType::Fifo,
            rustix::fs::Mode::from_raw_mode(0o644),
            0,
        )
        .unwrap();
        let rows: &[(&str, EntryKind)] = &[
            ("file/below", EntryKind::File),
            ("dir", EntryKind::Directory),
            ("fifo", EntryKind::Fifo),
        ];
        for (path, found_kind) in rows {
            match t.read_file(path).unwrap_err() {
                Error::WrongKind { found, .. } => assert_eq!(found, *found_kind, "{path}"),
                other => panic!("{path}: {other}"),
            }
        }
        assert!(matches!(
            t.read_dir("file").unwrap_err(),
            Error::WrongKind { .. }
        ));
    }

    #[test]
    fn swap_into_place_replaces_a_directory_and_leaves_nothing_beside_it() {
        let (_d, t) = temp_root();
        let names = |t: &Root| -> Vec<String> {
            t.read_dir("")
                .unwrap()
                .unwrap()
                .into_iter()
                .map(|e| e.name)
                .collect()
        };
        t.write_file("cache/r/old.txt", b"old").unwrap();
        t.write_file("incoming/new.txt", b"new").unwrap();
        t.swap_into_place("incoming", "cache/r").unwrap();
        assert_eq!(t.read_file("cache/r/new.txt").unwrap().unwrap(), b"new");
        assert_eq!(t.read_file("cache/r/old.txt").unwrap(), None);
        assert_eq!(names(&t), ["cache"]);
        if !platform::HAS_EXCHANGE {
            // Rename-aside: what a run stopped between its two renames left aside is cleared.
            t.write_file("incoming.previous/stale.txt", b"stale")
                .unwrap();
            t.write_file("incoming/newer.txt", b"newer").unwrap();
            t.swap_into_place("incoming", "cache/r").unwrap();
            assert_eq!(t.read_file("cache/r/newer.txt").unwrap().unwrap(), b"newer");
            assert_eq!(names(&t), ["cache"]);
        }
    }

    #[test]
    fn injected_fault_fails_the_nth_write() {
        let (_d, t) = temp_root();
        let t = t.fail_writes_after(1);
        t.write_file("a", b"a").unwrap();
        assert!(matches!(
            t.write_file("b", b"b").unwrap_err(),
            Error::InjectedFault { .. }
        ));
        assert_eq!(t.read_file("b").unwrap(), None);
    }
}
