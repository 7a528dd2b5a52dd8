//! What a command says on stderr beside its report: warnings (each after a `warning:` label)
//! and hints, worded here from the values the libraries return (issue 28 §2). Every writing
//! command passes them on, so none is lost between a library and stderr.

use asv_contracts::Violation;
use asv_error::quote::{DisplayPath, json_string};

/// A change that completed but left something behind: a parked previous entry that could not
/// be removed once the change was made, which the next command that writes removes (issue 27
/// §6).
pub fn left_behind(w: &asv_fs::ApplyWarning) -> String {
    match w {
        asv_fs::ApplyWarning::CleanupIncomplete {
            dest,
            parked,
            error,
        } => format!(
            "{}: the previous {} could not be removed after the change ({error}); the next command that writes removes it",
            DisplayPath(parked),
            DisplayPath(dest)
        ),
    }
}

/// A killed run of this tool that taking the writer lock put right (issue 15 §1).
pub fn recovered(run: &asv_fs::Interrupted) -> String {
    let done = if run.committed {
        "finished the clean-up of"
    } else {
        "put back what was changed by"
    };
    format!(
        "{}: {done} `{}`, which was killed part-way; rerun it if it is not this command",
        DisplayPath(&run.journal),
        run.command
    )
}

/// A copy `gen` wrote again from its canonical text because it was edited by hand.
pub fn restored(path: &str) -> String {
    format!(
        "{}: put back — it was edited by hand; a copy is written from its canonical text, so edit that instead",
        DisplayPath(path)
    )
}

/// A file `gen` replaced in `references/vendor/` that it had not written (issue 15).
pub fn foreign_replaced(path: &str) -> String {
    format!(
        "{}: replaced — it was not written by this tool, and references/vendor/ holds only generated copies; keep your own files elsewhere in the skill",
        DisplayPath(path)
    )
}

/// A file `gen` removed from `references/vendor/` that it had not written (issue 15).
pub fn foreign_removed(path: &str) -> String {
    format!(
        "{}: removed — references/vendor/ holds only generated copies; keep your own files elsewhere in the skill",
        DisplayPath(path)
    )
}

/// A user install with neither `HOME` nor `XDG_CONFIG_HOME` to find the user state directory
/// by: the skills are placed, but nothing records them.
pub fn install_unrecorded() -> String {
    "nothing recorded what was installed: with neither HOME nor XDG_CONFIG_HOME set there is no user state directory, so skill list --scope user and skill sync --scope user will not know these skills for this tool's".to_owned()
}

/// What `skill pull --dry-run` says after its lines.
pub fn pull_dry_run() -> String {
    "dry run: the lines say what a pull would do; nothing was written".to_owned()
}

/// A thing worth a look in the repository of contracts ([`asv_contracts::Repository::warnings`]).
pub fn repository(w: &asv_contracts::warnings::Warning) -> String {
    w.to_string()
}

/// A key of `vendor-skills.yaml` this tool does not read, with the known key it most resembles.
pub fn intent_key(k: &asv_skills::intent::UnknownIntentKey) -> String {
    let at = k.line.map(|l| format!(":{l}")).unwrap_or_default();
    let place = k
        .skill
        .as_deref()
        .map(|skill| format!(" in skill {}", json_string(skill)))
        .unwrap_or_default();
    let hint = match k.nearest {
        Some(near) => format!("did you mean \"{near}\"?"),
        None => "this tool does not read it".to_owned(),
    };
    format!(
        "{}{at}: unknown key {}{place}; {hint}",
        asv_model::layout::SKILL_INTENT,
        json_string(&k.key)
    )
}

/// What to do about the violations found, once per kind, in the order the kinds first appear:
/// `hint: <kind>: <next step>`, for the kinds whose lines do not already end in a next step of
/// their own ([`Violation::hint`]).
pub fn hints(found: &[Violation]) -> Vec<String> {
    let mut seen = std::collections::BTreeSet::new();
    found
        .iter()
        .filter(|v| seen.insert(v.kind()))
        .filter_map(|v| v.hint().map(|hint| format!("hint: {}: {hint}", v.kind())))
        .collect()
}

/// A warning of the audit in what a command wrote: the place, the rule and what was found.
pub fn audit_warning(g: &asv_skills::error::GatedFinding) -> String {
    format!("{} (skill {})", g.located(), g.skill)
}

/// An error finding `--accept-findings` let through for this run, and how to allow it for
/// good instead.
pub fn accepted_finding(g: &asv_skills::error::GatedFinding) -> String {
    format!(
        "{} (skill {}): accepted for this run only (--accept-findings); to allow it for good, skill audit {} --allow {} --fingerprint {} --reason '<why it is safe>'",
        g.located(),
        g.skill,
        g.skill,
        g.finding.rule.id(),
        g.finding.fingerprint
    )
}

/// The audit's warnings in what a command wrote, past the few listed one by one: how many,
/// in how many skills, of which rules.
pub fn audit_warnings(all: &[&asv_skills::error::GatedFinding]) -> String {
    let skills: std::collections::BTreeSet<&str> = all.iter().map(|g| g.skill.as_str()).collect();
    let mut rules: std::collections::BTreeMap<&str, usize> = Default::default();
    for g in all {
        *rules.entry(g.finding.rule.id()).or_default() += 1;
    }
    let rules: Vec<String> = rules.iter().map(|(r, n)| format!("{r} ×{n}")).collect();
    format!(
        "the audit found {} warnings in {} ({}); -v lists them, skill audit shows them",
        all.len(),
        if skills.len() == 1 {
            "1 skill".to_owned()
        } else {
            format!("{} skills", skills.len())
        },
        rules.join(", ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn intent_keys_read_with_their_line_place_and_nearest_key() {
        let rows = [
            (
                asv_skills::intent::UnknownIntentKey {
                    key: "target".into(),
                    skill: None,
                    line: Some(12),
                    nearest: Some("targets"),
                },
                "vendor-skills.yaml:12: unknown key \"target\"; did you mean \"targets\"?",
            ),
            (
                asv_skills::intent::UnknownIntentKey {
                    key: "pth".into(),
                    skill: Some("pdf".into()),
                    line: Some(8),
                    nearest: Some("path"),
                },
                "vendor-skills.yaml:8: unknown key \"pth\" in skill \"pdf\"; did you mean \"path\"?",
            ),
            (
                asv_skills::intent::UnknownIntentKey {
                    key: "note".into(),
                    skill: Some("a\"b".into()),
                    line: None,
                    nearest: None,
                },
                "vendor-skills.yaml: unknown key \"note\" in skill \"a\\\"b\"; this tool does not read it",
            ),
        ];
        for (key, want) in rows {
            assert_eq!(intent_key(&key), want);
        }
    }

    #[test]
    fn a_parked_entry_left_behind_is_named_with_what_to_expect() {
        let error = || asv_fs::Error::InjectedFault {
            path: ".agentic-skill-vendor/old-1".into(),
        };
        let w = asv_fs::ApplyWarning::CleanupIncomplete {
            dest: "skills/pdf".into(),
            parked: ".agentic-skill-vendor/old-1".into(),
            error: error(),
        };
        assert_eq!(
            left_behind(&w),
            format!(
                ".agentic-skill-vendor/old-1: the previous skills/pdf could not be removed after the change ({}); the next command that writes removes it",
                error()
            )
        );
    }
}
