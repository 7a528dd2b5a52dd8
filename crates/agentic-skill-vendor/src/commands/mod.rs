//! One small function per command, each returning the [`Report`] the binary prints.

pub mod contracts;
pub mod help;
pub mod skill;

use std::time::Duration;

use crate::exit::ExitStatus;

/// How long a command that changes the repository waits for another run changing it to
/// finish before refusing: long enough for a short `gen` to end, short enough that a person
/// is told soon why nothing happens.
const WRITER_WAIT: Duration = Duration::from_secs(2);

/// Takes the repository's writer lock (issue 15 §2) for a command that changes the tree,
/// before it reads anything; the guard is held until the command returns.
///
/// # Errors
/// Another run still changes the repository after [`WRITER_WAIT`]; the root cannot be locked.
fn lock_for_writing(tree: &asv_fs::Root) -> anyhow::Result<asv_fs::WriterLock> {
    Ok(tree.lock_for_writing(WRITER_WAIT)?)
}

/// [`lock_for_writing`] unless the run is a dry run, which changes nothing.
///
/// # Errors
/// As [`lock_for_writing`].
fn lock_unless_dry(
    tree: &asv_fs::Root,
    dry_run: bool,
) -> anyhow::Result<Option<asv_fs::WriterLock>> {
    if dry_run {
        Ok(None)
    } else {
        lock_for_writing(tree).map(Some)
    }
}

/// What a command has to say: its lines for stdout, already in the chosen format, its
/// warnings for stderr, and how the run ends.
pub struct Report {
    /// The lines, without line breaks.
    pub lines: Vec<String>,
    /// How the run ends.
    pub status: ExitStatus,
    /// Warnings for stderr, each without its `warning: ` label: what is worth a look but
    /// changes nothing the command does.
    pub warnings: Vec<String>,
    /// Lines for stderr that say what was done or what to do next, without a label: in text
    /// mode only (stdout keeps the lines the TypeScript tool prints), never with `--quiet`.
    pub notes: Vec<String>,
    /// A line for stderr after the report, for a person at a terminal (see
    /// [`crate::summary`]); `None` unless the settings asked for it.
    pub summary: Option<String>,
}

impl Report {
    /// `lines`, ending in [`ExitStatus::Violations`] when `failed`.
    pub fn new(lines: Vec<String>, failed: bool) -> Self {
        Report {
            lines,
            status: ExitStatus::failed_if(failed),
            warnings: Vec::new(),
            notes: Vec::new(),
            summary: None,
        }
    }
}
