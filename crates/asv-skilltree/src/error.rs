//! The one error type of `asv-skilltree`.

use asv_error::{Failure, Location, Side};
use asv_fs::EntryKind;

use crate::path::PathProblem;

/// The one error type of `asv-skilltree`.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Guarded tree access refused or failed.
    #[error(transparent)]
    Fs(#[from] asv_fs::Error),
    /// An entry of a kind a skill cannot hold (input side).
    #[error(
        "{}: a skill holds only regular files and directories, found {kind}; remove it",
        asv_error::quote::DisplayPath(path)
    )]
    Unsupported {
        /// The entry.
        path: String,
        /// What it is ("a symbolic link", "a named pipe", …).
        kind: EntryKind,
    },
    /// A strict read met an entry a plain read would skip (input side).
    #[error(
        "{}: {} would not be copied with the skill; remove it before taking the skill",
        asv_error::quote::DisplayPath(path),
        asv_error::quote::json_string(path.rsplit('/').next().unwrap_or(path))
    )]
    IgnoredMetadata {
        /// The entry.
        path: String,
    },
    /// A strict read's root is missing or not a directory (input side).
    #[error(
        "{}: {}; give the directory of a skill",
        asv_error::quote::DisplayPath(path),
        match found { None => "does not exist".to_owned(), Some(k) => format!("is {k}, not a directory") }
    )]
    NotADirectory {
        /// The root asked for.
        path: String,
        /// What stands there instead, if anything.
        found: Option<EntryKind>,
    },
    /// A tree path that could escape its skill root or cannot be written (input side).
    #[error(
        "{}: the path {problem}; a skill's paths are relative, `/`-separated, without `.` or `..`",
        asv_error::quote::json_string(path)
    )]
    UnsafePath {
        /// The path as given.
        path: String,
        /// What is wrong with it.
        problem: PathProblem,
    },
    /// A tree holds a file where another of its files needs a directory (input side).
    #[error(
        "{}: is a file and a directory in one tree; keep one of them",
        asv_error::quote::json_string(path)
    )]
    FileDirectory {
        /// The path that is both.
        path: String,
    },
    /// A capped read met more bytes of files than its limit; refused before the file that
    /// passes it is read (input side).
    #[error(
        "{}: its files hold at least {size} bytes, over the {limit} bytes {what}; move large files out of it",
        asv_error::quote::DisplayPath(path)
    )]
    TooLarge {
        /// The directory read.
        path: String,
        /// The bytes counted when the limit was passed: the files before, and the one whose
        /// size `fstat` gave or whose read passed the limit.
        size: u64,
        /// The limit.
        limit: u64,
        /// What the limit is for, worded to follow "over the N bytes".
        what: &'static str,
    },
    /// A file handed on in pieces ([`crate::Receiver`]) that did not come to the length it was
    /// announced with; its caller holds a source to that length (internal side).
    #[error("a file announced as {declared} bytes arrived as {received}")]
    ReceivedLength {
        /// The length announced.
        declared: u64,
        /// The bytes that came (counted up to one past the announced length).
        received: u64,
    },
    /// Materializing into a directory that is not empty (destination side).
    #[error(
        "{}: is not empty; materialize into a new empty directory",
        asv_error::quote::DisplayPath(path)
    )]
    NotEmpty {
        /// The directory.
        path: String,
    },
}

impl Failure for Error {
    /// Which side the failure lies with: what a skill holds is the input's; a directory that
    /// is not empty where a tree is materialized is the destination's.
    fn side(&self) -> Side {
        match self {
            Error::Fs(e) => e.side(),
            Error::NotEmpty { .. } => Side::Destination,
            Error::ReceivedLength { .. } => Side::Internal,
            Error::Unsupported { .. }
            | Error::IgnoredMetadata { .. }
            | Error::NotADirectory { .. }
            | Error::UnsafePath { .. }
            | Error::FileDirectory { .. }
            | Error::TooLarge { .. } => Side::Input,
        }
    }

    /// The entry the failure is about, as the tree names it.
    fn location(&self) -> Option<Location> {
        match self {
            Error::Fs(e) => e.location(),
            Error::Unsupported { path, .. }
            | Error::IgnoredMetadata { path }
            | Error::NotADirectory { path, .. }
            | Error::UnsafePath { path, .. }
            | Error::FileDirectory { path }
            | Error::TooLarge { path, .. }
            | Error::NotEmpty { path } => Some(Location::file(path.clone())),
            Error::ReceivedLength { .. } => None,
        }
    }
}
