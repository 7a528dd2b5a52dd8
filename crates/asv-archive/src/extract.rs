//! Writing accepted entries into a fresh directory, never through a link.
//!
//! This is the one place the crate writes to disk, and it does so with `rustix` rather than
//! through `asv_fs::Tree`: the tree writes a temporary sibling and renames it over the target,
//! which is right for a user's repository but would let an extraction replace what already
//! stands. An extraction wants the opposite: each directory a plain `mkdirat`, each file an
//! exclusive create (`O_CREAT | O_EXCL | O_NOFOLLOW`) relative to its parent's handle, so no
//! link — planted beforehand or raced in — is ever followed, and nothing is overwritten. The
//! destination is a fresh directory the caller made (a staging directory of the tool's own).

use std::fs::File;
use std::io::{self, Write};
use std::os::fd::{AsFd, OwnedFd};
use std::path::Path;

use rustix::fs::{Mode, OFlags};
use rustix::io::Errno;

use crate::error::{Error, Result};

/// The widest modes an extracted file gets: the executable bit is all an archive decides.
const FILE_MODE: u32 = 0o644;
const EXECUTABLE_MODE: u32 = 0o755;
const DIR_MODE: u32 = 0o755;

/// The mode of an extracted file: what the process's umask left of `0644` (or `0755` for an
/// executable entry) when the file was created, never wider, execute granted exactly where the
/// umask left read. Under `umask 077` that is `0600` / `0700`.
///
/// # Example
/// ```
/// use asv_archive::extracted_file_mode;
/// assert_eq!(extracted_file_mode(0o755, true), 0o755);
/// assert_eq!(extracted_file_mode(0o4755, true), 0o755);
/// assert_eq!(extracted_file_mode(0o700, false), 0o600);
/// assert_eq!(extracted_file_mode(0o640, true), 0o750);
/// ```
pub fn extracted_file_mode(created: u32, executable: bool) -> u32 {
    let granted = created & 0o777;
    if executable {
        (granted | ((granted & 0o444) >> 2)) & EXECUTABLE_MODE
    } else {
        granted & FILE_MODE
    }
}

/// The destination of one extraction: its root handle, and the archive's label for messages.
pub(crate) struct Destination<'a> {
    root: OwnedFd,
    archive: &'a str,
}

fn write_error(archive: &str, path: &str, op: &'static str, source: Errno) -> Error {
    Error::Write {
        archive: archive.to_owned(),
        path: path.to_owned(),
        op,
        source: io::Error::from(source),
    }
}

impl<'a> Destination<'a> {
    /// Opens the directory `into` (a link to it is the caller's own choice, so it is followed).
    pub(crate) fn open(into: &Path, archive: &'a str) -> Result<Self> {
        let root = rustix::fs::open(
            into,
            OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC,
            Mode::empty(),
        )
        .map_err(|e| write_error(archive, "", "open the destination", e))?;
        Ok(Destination { root, archive })
    }

    /// The handle of the directory `segments` (created where missing), reached component by
    /// component without following a link.
    fn dir(&self, segments: &[&str]) -> Result<Option<OwnedFd>> {
        let mut current: Option<OwnedFd> = None;
        for (i, segment) in segments.iter().enumerate() {
            let path = segments[..=i].join("/");
            let parent = current.as_ref().map_or(self.root.as_fd(), |fd| fd.as_fd());
            match rustix::fs::mkdirat(parent, *segment, Mode::from_raw_mode(DIR_MODE)) {
                Ok(()) | Err(Errno::EXIST) => {}
                Err(e) => return Err(write_error(self.archive, &path, "make the directory", e)),
            }
            let opened = rustix::fs::openat(
                parent,
                *segment,
                OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC,
                Mode::empty(),
            );
            current = Some(match opened {
                Ok(fd) => fd,
                Err(Errno::NOTDIR | Errno::LOOP) => {
                    return Err(Error::InTheWay {
                        archive: self.archive.to_owned(),
                        path,
                    });
                }
                Err(e) => return Err(write_error(self.archive, &path, "open the directory", e)),
            });
        }
        Ok(current)
    }

    /// Makes the directory at `segments`.
    pub(crate) fn make_dir(&self, segments: &[&str]) -> Result<()> {
        self.dir(segments).map(|_| ())
    }

    /// Creates the file at `segments` exclusively and writes `bytes` with the extracted mode.
    pub(crate) fn write_file(
        &self,
        segments: &[&str],
        bytes: &[u8],
        executable: bool,
    ) -> Result<()> {
        let Some((name, parents)) = segments.split_last() else {
            return Ok(());
        };
        let path = segments.join("/");
        let parent = self.dir(parents)?;
        let parent = parent.as_ref().map_or(self.root.as_fd(), |fd| fd.as_fd());
        let mode = if executable {
            EXECUTABLE_MODE
        } else {
            FILE_MODE
        };
        let fd = rustix::fs::openat(
            parent,
            *name,
            OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC,
            Mode::from_raw_mode(mode),
        )
        .map_err(|e| match e {
            Errno::EXIST | Errno::LOOP | Errno::ISDIR => Error::InTheWay {
                archive: self.archive.to_owned(),
                path: path.clone(),
            },
            e => write_error(self.archive, &path, "create", e),
        })?;
        // On the handle, never by path: only the file this call created is changed.
        let created = rustix::fs::fstat(&fd)
            .map_err(|e| write_error(self.archive, &path, "inspect", e))?
            .st_mode;
        rustix::fs::fchmod(
            &fd,
            Mode::from_raw_mode(extracted_file_mode(created, executable)),
        )
        .map_err(|e| write_error(self.archive, &path, "set the mode of", e))?;
        let mut file = File::from(fd);
        file.write_all(bytes).map_err(|source| Error::Write {
            archive: self.archive.to_owned(),
            path: path.clone(),
            op: "write",
            source,
        })?;
        Ok(())
    }
}
