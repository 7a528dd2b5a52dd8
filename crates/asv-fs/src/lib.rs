//! Guarded file access for agentic-skill-vendor.
//!
//! The tool reads and writes inside repositories it does not control. A symbolic link could
//! point a read at a secret outside the tree or a write at a file the user never meant to
//! give up; a named pipe could hang a read forever; a file where a directory belongs could be
//! mistaken for "nothing here" and silently overwritten. Every access therefore goes through
//! [`Root`], which never follows a link, checks the kind of every entry on the way, and
//! writes through a temporary sibling renamed into place.
//!
//! Whole entries (a placed directory, a copy, the tool's own state) are replaced or removed
//! through a [`Plan`]: every change is decided first, with nothing written, then applied with
//! a rollback that leaves every destination as it was when anything fails (see [`plan`]).
//!
//! ```
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let dir = tempfile::tempdir()?;
//! let root = asv_fs::Root::open(dir.path())?;
//! root.write_file("skills/a/SKILL.md", b"---\nname: a\n---\n")?;
//! let listing = root.read_dir("skills")?.unwrap_or_default();
//! assert_eq!(listing[0].name, "a");
//! # Ok(())
//! # }
//! ```
#![deny(missing_docs)]
// This crate is the one place allowed to touch the file system directly.
#![allow(clippy::disallowed_methods)]

pub mod apply;
#[cfg(feature = "test-hooks")]
#[doc(hidden)]
pub mod corpus;
pub mod error;
mod faults;
mod git_index;
pub mod plan;
pub mod platform;
mod reader;
mod root;
mod stamp;
mod stamp_dir;
mod writer_lock;

pub use apply::{
    Applied, ApplyWarning, Interrupted, STATE_DIR, is_journal_name, is_journal_path,
    is_parked_tree_entry, is_tree_change_residue,
};
pub use error::{EntryKind, Error, JournalProblem, Result, StrandedEntry};
pub use plan::{
    Action, Body, Change, Content, Disowned, During, FileSink, FileWriteFn, Fill, NewFile,
    Ownership, Plan, PlannedChange, SharedBytes, TreeFile, Verdict, is_plain_relative,
};
pub use reader::{CHUNK, FileReader};
pub use root::{DirEntry, Root, join};
pub use stamp::FileStamp;
pub use stamp_dir::{OpenDir, StampDir};
pub use writer_lock::WriterLock;
