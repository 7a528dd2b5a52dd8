//! One small function per command, each returning the [`Report`] the binary prints.

pub mod contracts;
pub mod help;
pub mod skill;

use crate::exit::ExitStatus;

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
