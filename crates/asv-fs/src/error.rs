//! The one error type of `asv-fs`.

use std::fmt;
use std::io;

use crate::quote::DisplayPath;

/// What kind of file system entry stands at a path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EntryKind {
    /// A regular file.
    File,
    /// A directory.
    Directory,
    /// A symbolic link (never followed).
    Symlink,
    /// A named pipe (FIFO).
    Fifo,
    /// A Unix domain socket.
    Socket,
    /// A block device.
    BlockDevice,
    /// A character device.
    CharDevice,
    /// Anything the platform reports that none of the above describes.
    Unknown,
}

impl EntryKind {
    /// The words used for this kind in messages ("a regular file", "a named pipe", …).
    pub fn describe(self) -> &'static str {
        match self {
            EntryKind::File => "a regular file",
            EntryKind::Directory => "a directory",
            EntryKind::Symlink => "a symbolic link",
            EntryKind::Fifo => "a named pipe",
            EntryKind::Socket => "a socket",
            EntryKind::BlockDevice => "a block device",
            EntryKind::CharDevice => "a character device",
            EntryKind::Unknown => "an entry of unknown kind",
        }
    }
}

impl fmt::Display for EntryKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.describe())
    }
}

/// Everything that can go wrong while reading or writing inside a guarded tree.
///
/// Paths are relative to the tree's root with `/` separators, so a message never leaks where
/// the tree lives on disk.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A symbolic link stands where the tool reads or writes (input side).
    #[error("symlink is not allowed inside the tree: {}", DisplayPath(path))]
    Symlink {
        /// The link's path.
        path: String,
    },
    /// An entry of another kind stands where a file or directory belongs (input side).
    #[error(
        "{} is {found} where {expected} belongs; move it aside or replace it",
        DisplayPath(path)
    )]
    WrongKind {
        /// The entry's path.
        path: String,
        /// The kind the tool needed there.
        expected: EntryKind,
        /// The kind that stands there.
        found: EntryKind,
    },
    /// A file name that is not valid UTF-8 (input side).
    #[error("{}: file name is not valid UTF-8; rename it", DisplayPath(path))]
    NonUtf8Name {
        /// The lossy rendering of the name's path.
        path: String,
    },
    /// The root given to the tool is not a directory (input side).
    #[error("{path}: root is not a directory; pass --root <path> naming the repository")]
    RootNotDirectory {
        /// The root as given.
        path: String,
    },
    /// A system call failed (environment side).
    #[error("{}: cannot {op}: {source}", DisplayPath(path))]
    Io {
        /// The path the call was about.
        path: String,
        /// What the tool was doing ("read", "write", "rename into place", …).
        op: &'static str,
        /// The underlying failure.
        #[source]
        source: io::Error,
    },
    /// A staged entry and its destination are on different file systems (environment side).
    #[error(
        "{} and {} are on different file systems, so the dest cannot be replaced in one step; keep .agentic-skill-vendor on the file system the skills are on",
        DisplayPath(dest),
        DisplayPath(staged)
    )]
    CrossDevice {
        /// The staged entry.
        staged: String,
        /// The destination.
        dest: String,
    },
    /// A write failed because a fault was injected (tests of interrupted runs only).
    #[error("{}: injected write failure", DisplayPath(path))]
    InjectedFault {
        /// The path whose write was failed.
        path: String,
    },
}

impl Error {
    /// Whether the failure lies with the tree the user gave (as opposed to the environment).
    pub fn is_input(&self) -> bool {
        matches!(
            self,
            Error::Symlink { .. }
                | Error::WrongKind { .. }
                | Error::NonUtf8Name { .. }
                | Error::RootNotDirectory { .. }
        )
    }

    pub(crate) fn io(path: &str, op: &'static str, source: io::Error) -> Self {
        Error::Io {
            path: path.to_owned(),
            op,
            source,
        }
    }
}

/// The result type of `asv-fs`.
pub type Result<T, E = Error> = std::result::Result<T, E>;
