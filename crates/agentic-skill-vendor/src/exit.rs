//! How a run ends: one value per outcome, one exit code each.

use std::process::ExitCode;

/// What a run came to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExitStatus {
    /// Nothing to report (exit 0).
    Clean,
    /// Violations, conflicts or failing findings, one per line on stdout (exit 1).
    Violations,
    /// A refusal or an internal error, on stderr (exit 2).
    Refused,
}

impl ExitStatus {
    /// [`ExitStatus::Violations`] when `failed`, else [`ExitStatus::Clean`].
    pub fn failed_if(failed: bool) -> Self {
        if failed {
            ExitStatus::Violations
        } else {
            ExitStatus::Clean
        }
    }
}

impl From<ExitStatus> for ExitCode {
    fn from(status: ExitStatus) -> ExitCode {
        match status {
            ExitStatus::Clean => ExitCode::SUCCESS,
            ExitStatus::Violations => ExitCode::from(1),
            ExitStatus::Refused => ExitCode::from(2),
        }
    }
}
