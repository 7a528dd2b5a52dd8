//! One small function per command, each returning the [`Report`] the binary prints.

pub mod audit;
pub mod contracts;
pub mod help;
mod install_user;
pub mod skill;

use std::time::Duration;

use crate::error::Finished;
use crate::exit::ExitStatus;
use crate::settings::Settings;

/// How long a command that changes the repository waits for another run changing it to
/// finish before refusing: long enough for a short `gen` to end, short enough that a person
/// is told soon why nothing happens.
const WRITER_WAIT: Duration = Duration::from_secs(2);

/// Takes the repository's writer lock (issue 15 §2) for a command that changes the tree,
/// before it reads anything; the guard is held until the command returns. Taking it first
/// puts right what a killed run of this tool left (issue 15 §1), which the user is told on
/// stderr, at once: the command's own output may never come.
///
/// # Errors
/// Another run still changes the repository after [`WRITER_WAIT`]; the root cannot be locked;
/// what a killed run left cannot be put right.
fn lock_for_writing<'t>(
    settings: &Settings,
    root: &'t asv_fs::Root,
) -> crate::error::Result<asv_fs::WriterLock<'t>> {
    lock_for_writing_as(settings, root, true)
}

/// [`lock_for_writing`], where `finished_stops` says whether this very command found
/// finished by a killed run stops here ([`Finished`]). Only a command whose second run does
/// nothing twice passes `false`: `skill sync --scope user`, three changes of two trees, whose
/// first change found complete is not the command complete.
///
/// # Errors
/// As [`lock_for_writing`].
fn lock_for_writing_as<'t>(
    settings: &Settings,
    root: &'t asv_fs::Root,
    finished_stops: bool,
) -> crate::error::Result<asv_fs::WriterLock<'t>> {
    let this = this_command_line();
    let lock = root
        .lock_for_writing(WRITER_WAIT)?
        .with_command(this.clone());
    if !settings.quiet {
        let told: Vec<String> = lock
            .recovered()
            .iter()
            .map(crate::render::warnings::recovered)
            .collect();
        crate::style::warn(&told, settings.stderr_color);
    }
    // This very command, killed after its change was complete (only the removal of what it
    // replaced was left, now done): its work is on disk, and running it again would act twice
    // (`skill install` would find its own skills in the way, `skill remove` its skill gone).
    if let Some(run) = lock
        .recovered()
        .iter()
        .find(|run| finished_stops && run.committed && run.command == this)
    {
        return Err(Finished(run.command.clone()).into());
    }
    Ok(lock)
}

/// The command that is running, as a person would type it again: what the journal of each
/// change records (the library reads no environment), so a later run can tell whether it is
/// the interrupted command run again.
fn this_command_line() -> String {
    let mut words = vec!["agentic-skill-vendor".to_owned()];
    words.extend(std::env::args().skip(1).map(|a| {
        if !a.is_empty()
            && a.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"-_./=,:@+".contains(&b))
        {
            a
        } else {
            format!("'{}'", a.replace('\'', r"'\''"))
        }
    }));
    words.join(" ")
}

/// [`lock_for_writing`] unless the run is a dry run, which changes nothing.
///
/// # Errors
/// As [`lock_for_writing`].
fn lock_unless_dry<'t>(
    settings: &Settings,
    root: &'t asv_fs::Root,
    dry_run: bool,
) -> crate::error::Result<Option<asv_fs::WriterLock<'t>>> {
    if dry_run {
        Ok(None)
    } else {
        lock_for_writing(settings, root).map(Some)
    }
}

/// The warnings of the changes a writer applied under `lock` (`None`: a dry run, which
/// applies nothing), taken out of the lock and worded ([`crate::render::warnings::left_behind`]).
/// Every writing command passes them on, so none is lost between a library and stderr.
fn left_behind(lock: Option<&asv_fs::WriterLock<'_>>) -> Vec<String> {
    lock.map(asv_fs::WriterLock::take_warnings)
        .unwrap_or_default()
        .iter()
        .map(crate::render::warnings::left_behind)
        .collect()
}

/// `report` with [`left_behind`]'s warnings after its own.
fn with_left_behind(mut report: Report, lock: Option<&asv_fs::WriterLock<'_>>) -> Report {
    report.warnings.extend(left_behind(lock));
    report
}

/// For a command that only reads: puts a finding for every run of this tool that was killed
/// while it changed `root` (issue 15 §1) before the report's lines, and fails the run. Such a
/// tree is half one state and half another; a reader must say so rather than judge it as the
/// user's work.
///
/// # Errors
/// The root or a journal cannot be read.
fn with_interrupted(
    settings: &Settings,
    root: &asv_fs::Root,
    mut report: Report,
) -> crate::error::Result<Report> {
    let runs = root.interrupted_runs()?;
    if !runs.is_empty() {
        let mut lines: Vec<String> = runs
            .iter()
            .map(|run| crate::render::interrupted(settings.format, run))
            .collect();
        lines.append(&mut report.lines);
        report.lines = lines;
        report.status = ExitStatus::Violations;
        report.summary = None;
    }
    Ok(report)
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
