//! The longer sentences some refusals are made of, built from their data.

use asv_error::quote::{DisplayPath, json_string};

use super::Error;

/// The refusal of a `skill remove` that would lose local edits or conflicts.
pub(super) fn would_lose(
    path: &str,
    name: &str,
    edits: Option<&[crate::edits::Edit]>,
    conflicted: bool,
) -> String {
    let state = if conflicted {
        "waits for skill resolve (a pull wrote its conflicts here)"
    } else {
        "has local edits"
    };
    let lost = match edits {
        Some([]) | None if conflicted => String::new(),
        Some(edits) => format!(
            ", and removing it would lose {}",
            crate::edits::EditList(edits)
        ),
        None => format!(
            " (it no longer hashes to the base the lock records, and that base is not kept in {}, so the files cannot be named)",
            asv_model::layout::SKILL_BASES_DIR
        ),
    };
    format!(
        "{}: {state}{lost}; see them with skill diff {name}, or pass --force to remove it anyway",
        DisplayPath(path)
    )
}

/// How many imported skills a refusal names before it counts the rest.
const NAMES_SHOWN: usize = 8;

/// The refusal of a name that is not imported, naming the imported skills.
pub(super) fn not_among(name: &str, imported: &[String]) -> String {
    if imported.is_empty() {
        return format!(
            "the skill {} is not imported, and no skill is; skill add imports one",
            json_string(name)
        );
    }
    let mut shown = imported
        .iter()
        .take(NAMES_SHOWN)
        .map(String::as_str)
        .collect::<Vec<_>>()
        .join(", ");
    if imported.len() > NAMES_SHOWN {
        shown.push_str(&format!(" and {} more", imported.len() - NAMES_SHOWN));
    }
    format!(
        "the skill {} is not imported; the imported skills are {shown} (skill status shows each one's state)",
        json_string(name)
    )
}

/// The refusal of a `skill add` whose path holds skills, not one: the options that take them.
pub(super) fn holds_skills(path: &str, skills: &[String]) -> String {
    let first = skills.first().map_or("", String::as_str);
    let one = if path == "." {
        first.to_owned()
    } else {
        format!("{path}/{first}")
    };
    format!(
        "{}: holds no SKILL.md of its own but {} below it ({}); pass --all to take every one, --skill <name>,… to choose, or one skill's path ({one})",
        DisplayPath(path),
        if skills.len() == 1 {
            "a skill".to_owned()
        } else {
            format!("{} skills", skills.len())
        },
        shown_names(skills)
    )
}

/// The refusal of a name `skill list` does not know, naming the skills it does.
pub(super) fn no_such_skill(name: &str, skills: &[String]) -> String {
    if skills.is_empty() {
        return format!(
            "the skill {} is not under skills/ and not imported, and there is no skill yet; skill add imports one",
            json_string(name)
        );
    }
    format!(
        "the skill {} is not under skills/ and not imported; the skills are {} (skill list with no name lists them all)",
        json_string(name),
        shown_names(skills)
    )
}

/// The first [`NAMES_SHOWN`] of `names`, then how many more there are.
fn shown_names(names: &[String]) -> String {
    let mut shown = names
        .iter()
        .take(NAMES_SHOWN)
        .map(String::as_str)
        .collect::<Vec<_>>()
        .join(", ");
    if names.len() > NAMES_SHOWN {
        shown.push_str(&format!(" and {} more", names.len() - NAMES_SHOWN));
    }
    shown
}

/// One indented line per refusal of a `skill add --all`: a rule broken said without the
/// remedy, which the heading gives once.
pub(super) fn refused_lines(refused: &[Error]) -> String {
    refused
        .iter()
        .map(|e| match e {
            Error::Invalid { first, more, .. } => format!(
                "\n  {}: {}{}",
                first.location(),
                first.problem,
                more_errors(*more)
            ),
            other => format!("\n  {other}"),
        })
        .collect()
}

/// ` (and 1 more error)`, ` (and 3 more errors)`, or nothing.
pub(super) fn more_errors(more: usize) -> String {
    match more {
        0 => String::new(),
        1 => " (and 1 more error)".to_owned(),
        n => format!(" (and {n} more errors)"),
    }
}
