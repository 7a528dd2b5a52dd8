//! What every error of agentic-skill-vendor shares.
//!
//! Each crate has one `Error` enum; the binary picks the exit code and words the refusal from
//! which [`Side`] a failure lies with and where it is ([`Location`]). Those two types and the
//! [`Failure`] trait that asks for them live here, below every other crate, so no crate has to
//! depend on the file system layer (or another crate's error) only to answer them (issue 28 §1).
//! [`quote`] prints names that may hold control characters, for every crate's messages.
//!
//! ```
//! use asv_error::{Failure, Location, Side};
//!
//! #[derive(Debug)]
//! struct Missing(String);
//!
//! impl std::fmt::Display for Missing {
//!     fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
//!         write!(f, "{}: not found", asv_error::quote::DisplayPath(&self.0))
//!     }
//! }
//!
//! impl std::error::Error for Missing {}
//!
//! impl Failure for Missing {
//!     fn side(&self) -> Side {
//!         Side::Input
//!     }
//!     fn location(&self) -> Option<Location> {
//!         Some(Location::file(self.0.clone()))
//!     }
//! }
//!
//! let e = Missing("skills/a\nb".into());
//! assert_eq!(e.to_string(), "\"skills/a\\nb\": not found");
//! assert_eq!(e.side().name(), "input");
//! ```
#![deny(missing_docs)]

pub mod quote;

/// Which side of a run a failure lies with, for the binary to word the refusal and pick the
/// exit code. One definition for every crate: each crate's error answers [`Failure::side`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Side {
    /// What the user gave: the tree read, a manifest's paths, a copy source, an argument.
    Input,
    /// Where the tool writes: what stands at a destination, or what a failed change left there.
    Destination,
    /// The machine or the network: a failing system call, a full disk, a missing permission, a
    /// server that refused or answered wrongly, a limit reached.
    Environment,
    /// This tool: a state its own code should never reach (reported as `internal error:`).
    Internal,
}

impl Side {
    /// `input`, `destination`, `environment` or `internal`: the spelling of machine-readable
    /// output.
    pub fn name(self) -> &'static str {
        match self {
            Side::Input => "input",
            Side::Destination => "destination",
            Side::Environment => "environment",
            Side::Internal => "internal",
        }
    }
}

/// Where a failure is: a file (from the root, `/`-separated) and, where known, a 1-based line.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Location {
    /// The file or directory.
    pub file: String,
    /// The line, when one line is at fault.
    pub line: Option<usize>,
}

impl Location {
    /// `file`, with no line.
    pub fn file(file: impl Into<String>) -> Self {
        Location {
            file: file.into(),
            line: None,
        }
    }

    /// `file` at `line` (none when `None`).
    pub fn at(file: impl Into<String>, line: Option<usize>) -> Self {
        Location {
            file: file.into(),
            line,
        }
    }
}

/// What the binary asks of every crate's `Error`: the side the failure lies with and the file
/// (and line) it is about.
///
/// Each implementation matches its variants exhaustively, with no catch-all arm, so a variant
/// added later has to be given its side and location where it is defined instead of silently
/// becoming the input's. A wrapped error of another crate answers for itself.
pub trait Failure: std::error::Error {
    /// Which side the failure lies with.
    fn side(&self) -> Side;

    /// The file (and line) the failure is about, when there is one.
    fn location(&self) -> Option<Location>;
}
