//! The contract side's lines: violations, `gen` events, `init`'s report, refusals and the
//! self-test.

use asv_contracts::{Event, Violation};

use super::line::{Level, Line};
use super::records::{CheckedFields, RefusalFields};
use crate::cli::Format;

/// Renders one violation as a line (without the line break).
pub fn violation(format: Format, v: &Violation) -> String {
    Line {
        id: v.id().map(|i| i.as_str()),
        line: v.line(),
        path: v.path(),
        ..Line::new(Level::Error, v.kind(), v.message())
    }
    .render_finding(format)
}

/// Renders a run of this tool that was killed while it changed the tree, as a reader finds it.
pub fn interrupted(format: Format, run: &asv_fs::Interrupted) -> String {
    if let Some(problem) = &run.refused {
        // Not a run this tool will put right: a file to delete, said as the writers say it.
        let message = format!(
            "{}: a journal no command acts on: {problem}; if no run of agentic-skill-vendor is changing this repository, delete this file",
            asv_error::quote::DisplayPath(&run.journal)
        );
        return Line::new(Level::Error, "journal-refused", message)
            .at(&run.journal)
            .render_finding(format);
    }
    let message = format!(
        "{}: `{}` was killed while it changed the tree, which is part old, part new; run it again (a command that writes first {} what it changed)",
        asv_error::quote::DisplayPath(&run.journal),
        run.command,
        if run.committed {
            "finishes"
        } else {
            "puts back"
        }
    );
    Line::new(Level::Error, "interrupted", message)
        .at(&run.journal)
        .render_finding(format)
}

/// Renders one violation as a line about `path` at `line` instead of its own path: a
/// `closure` annotation points at the SKILL.md line that declares the missing contract, where
/// the fix is made, not at the file that is not there.
pub fn violation_at(format: Format, v: &Violation, path: &str, line: Option<usize>) -> String {
    Line {
        id: v.id().map(|i| i.as_str()),
        line,
        path: Some(path),
        ..Line::new(Level::Error, v.kind(), v.message())
    }
    .render_finding(format)
}

/// Renders one `gen` event as a line (without the line break).
pub fn event(format: Format, e: &Event) -> String {
    let level = if matches!(e, Event::WorkdirNotIgnored) {
        Level::Warning
    } else {
        Level::Notice
    };
    Line {
        id: e.id().map(|i| i.as_str()),
        path: e.path(),
        ..Line::new(level, e.kind(), e.message())
    }
    .render_finding(format)
}

/// Renders what `init` made: `created: <dir>/`, `created: .gitignore (<rule>)` or
/// `ignored: <rule> (added to .gitignore)`.
pub fn made(format: Format, made: &asv_contracts::init::Made) -> String {
    use asv_contracts::init::{IGNORE_RULE, Made};
    let (kind, path, message) = match made {
        Made::Directory(dir) => ("created", *dir, format!("{dir}/")),
        Made::IgnoreRule { created: true } => (
            "created",
            ".gitignore",
            format!(".gitignore ({IGNORE_RULE})"),
        ),
        Made::IgnoreRule { created: false } => (
            "ignored",
            ".gitignore",
            format!("{IGNORE_RULE} (added to .gitignore)"),
        ),
    };
    Line::new(Level::Notice, kind, message)
        .at(path)
        .render_finding(format)
}

/// Renders a refusal for `--format json` (a record of kind `error` with its side) or `github`
/// (an error annotation at the file and line it names).
pub fn refusal(
    format: Format,
    side: asv_error::Side,
    location: Option<&asv_error::Location>,
    message: &str,
) -> String {
    Line {
        path: location.map(|l| l.file.as_str()),
        line: location.and_then(|l| l.line),
        ..Line::new(Level::Error, "error", message.to_owned())
    }
    .render(format, RefusalFields { side: side.name() })
}

/// Renders what `self-test` checked: `vectors` by name, `failed` of them disagreeing.
pub fn checked(format: Format, vectors: &[&str], failed: usize) -> String {
    let agree = vectors.len() - failed.min(vectors.len());
    let message = format!(
        "{} embedded vectors checked ({}); {agree} agree",
        vectors.len(),
        vectors.join(", ")
    );
    Line::new(Level::Notice, "checked", message).render(format, CheckedFields { vectors, failed })
}
