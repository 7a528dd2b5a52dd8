//! A capability diff (issue 32 §3) in each form: text lines under the skill's own line, one
//! JSON object in the record of `skill pull`, `skill diff` and `skill outdated
//! --capabilities`, and the words of the warning a widening update carries.

use std::collections::BTreeMap;

use asv_audit::{CapabilityDiff, Finding};
use serde::Serialize;

use super::line::{Level, Line};
use crate::cli::Format;
use asv_skills::skill_dir;

/// How `diff` changes what the skill can do, in a few words.
pub fn verdict(diff: &CapabilityDiff) -> &'static str {
    if diff.widens() {
        "capabilities widened"
    } else if diff.is_empty() {
        "capabilities unchanged"
    } else {
        "capabilities changed, none widened"
    }
}

/// Each fact of `diff`, one a line: `+` before what the new version has and the old did not,
/// `-` before what it gave up (hidden-character counts as `old -> new`).
fn facts(diff: &CapabilityDiff) -> Vec<String> {
    let mut out = Vec::new();
    delta(&mut out, "file", &diff.files, &[]);
    // A file that runs because its bit is set is said once, as an executable.
    let executables: Vec<String> = diff
        .executables
        .added
        .iter()
        .chain(&diff.executables.removed)
        .cloned()
        .collect();
    delta(&mut out, "script", &diff.scripts, &executables);
    for path in &diff.executables.added {
        let was = if diff.files.added.contains(path) {
            "new, 755"
        } else {
            "644 -> 755"
        };
        out.push(format!("+ executable {} ({was})", shown(path)));
    }
    for path in &diff.executables.removed {
        if !diff.files.removed.contains(path) {
            out.push(format!("- executable {} (755 -> 644)", shown(path)));
        }
    }
    delta(&mut out, "binary", &diff.binaries, &[]);
    delta(&mut out, "archive", &diff.archives, &[]);
    for w in &diff.tools_widened {
        let was = if w.was.is_empty() {
            String::new()
        } else {
            format!(" (was {})", w.was.join(", "))
        };
        out.push(format!("+ allowed-tool {}{was}", shown(&w.token)));
    }
    for t in &diff.tools_narrowed {
        out.push(format!("- allowed-tool {}", shown(t)));
    }
    delta(&mut out, "load-time command", &diff.dynamic_commands, &[]);
    delta(&mut out, "host", &diff.hosts, &[]);
    delta(&mut out, "credential path", &diff.cred_paths, &[]);
    delta(&mut out, "secret variable", &diff.secret_variables, &[]);
    for (class, (before, after)) in &diff.hidden {
        out.push(format!("  hidden {class} characters {before} -> {after}"));
    }
    for (sign, found) in [("+", &diff.findings_new), ("-", &diff.findings_resolved)] {
        for f in found {
            out.push(format!(
                "{sign} finding {} {} {}:{}:{} {}",
                f.severity.as_str(),
                f.rule.id(),
                shown(&f.path),
                f.line,
                f.column,
                shown(&f.detail)
            ));
        }
    }
    out
}

/// The lines of one set's change: `+ <what> <value>` for each added, `- …` for each removed,
/// leaving out the values of `skip`.
fn delta(out: &mut Vec<String>, what: &str, d: &asv_audit::Delta, skip: &[String]) {
    for v in d.added.iter().filter(|v| !skip.contains(v)) {
        out.push(format!("+ {what} {}", shown(v)));
    }
    for v in d.removed.iter().filter(|v| !skip.contains(v)) {
        out.push(format!("- {what} {}", shown(v)));
    }
}

/// A value as a line shows it: paths and commands come from a skill's files and may hold a
/// line break or a control character, which would forge a line of their own.
fn shown(v: &str) -> String {
    v.escape_debug().to_string()
}

/// The text lines of `name`'s capability diff: `<name>: <verdict>`, then each fact indented.
/// Nothing when `quiet_if_empty` and the diff is empty.
pub fn lines(name: &str, diff: &CapabilityDiff, quiet_if_empty: bool) -> Vec<String> {
    if quiet_if_empty && diff.is_empty() {
        return Vec::new();
    }
    let mut out = vec![format!("{name}: {}", verdict(diff))];
    out.extend(facts(diff).into_iter().map(|f| format!("  {f}")));
    out
}

/// What a widening update adds, in one clause: `executable scripts/run.sh, allowed-tool Bash
/// (was Bash(git diff:*)), host x.dev`, the first few and how many more.
fn added(diff: &CapabilityDiff) -> String {
    let grants: Vec<String> = facts(diff)
        .into_iter()
        .filter_map(|f| {
            f.strip_prefix("+ ")
                .filter(|f| !f.starts_with("file ") && !f.starts_with("finding warning"))
                .map(str::to_owned)
                .or_else(|| {
                    // Hidden characters count when there are more of them.
                    f.strip_prefix("  hidden ").map(|h| format!("hidden {h}"))
                })
        })
        .collect();
    const SHOWN: usize = 4;
    let mut out = grants
        .iter()
        .take(SHOWN)
        .cloned()
        .collect::<Vec<_>>()
        .join(", ");
    if grants.len() > SHOWN {
        out.push_str(&format!(" and {} more", grants.len() - SHOWN));
    }
    out
}

/// The warning of an update of `name` that widens what it can do: said on stderr by `skill
/// pull` (and as an annotation in `--format github`). `merged` says whether the run merged it.
pub fn widening_warning(name: &str, diff: &CapabilityDiff, merged: bool) -> String {
    let when = if merged {
        "review what was merged before it is committed".to_owned()
    } else {
        format!(
            "review it before it is merged (skill diff {name} --from base --to upstream shows it)"
        )
    };
    format!(
        "{name}: the update widens what the skill can do ({}); {when}",
        added(diff)
    )
}

/// The warning of `skill diff` when version `to` of `name` can do more than version `from`.
pub fn widening_between(name: &str, from: &str, to: &str, diff: &CapabilityDiff) -> String {
    format!(
        "{name}: the {to} version can do more than the {from} version ({})",
        added(diff)
    )
}

/// `message` as a GitHub warning annotation titled `capabilities`, at `name`'s directory.
pub fn annotation(name: &str, message: String) -> String {
    let dir = skill_dir(name);
    Line::new(Level::Warning, "capabilities", message)
        .at(&dir)
        .annotation()
}

/// The GitHub warning annotation of a widening update, at the skill's directory.
pub fn widening_annotation(name: &str, diff: &CapabilityDiff, merged: bool) -> String {
    annotation(name, widening_warning(name, diff, merged))
}

/// The lines `skill outdated --capabilities` prints after an outdated skill's own: in text,
/// its capability diff (or that its base can no longer be had); in `--format github`, the
/// warning annotation of an update that widens; nothing in JSON, whose record holds it.
pub fn outdated(format: Format, o: &asv_skills::manage::Outdated) -> Vec<String> {
    if o.removed_upstream {
        return Vec::new();
    }
    match (format, &o.capabilities) {
        (Format::Text, Some(diff)) => lines(&o.name, diff, false),
        (Format::Text, None) => vec![format!(
            "{}: capabilities not compared: the base can no longer be had",
            o.name
        )],
        (Format::Github, Some(diff)) if diff.widens() => {
            vec![widening_annotation(&o.name, diff, false)]
        }
        _ => Vec::new(),
    }
}

/// A capability diff in JSON (docs/JSON.md, type `capabilities`).
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct CapabilityRecord<'a> {
    widens: bool,
    files_added: &'a [String],
    files_removed: &'a [String],
    scripts_added: &'a [String],
    scripts_removed: &'a [String],
    executables_added: &'a [String],
    executables_removed: &'a [String],
    binaries_added: &'a [String],
    binaries_removed: &'a [String],
    archives_added: &'a [String],
    archives_removed: &'a [String],
    tools_widened: Vec<WidenedRecord<'a>>,
    tools_narrowed: &'a [String],
    commands_added: &'a [String],
    commands_removed: &'a [String],
    hosts_added: &'a [String],
    hosts_removed: &'a [String],
    credential_paths_added: &'a [String],
    credential_paths_removed: &'a [String],
    secret_variables_added: &'a [String],
    secret_variables_removed: &'a [String],
    hidden: BTreeMap<&'a str, HiddenRecord>,
    findings_new: Vec<FindingRecord<'a>>,
    findings_resolved: Vec<FindingRecord<'a>>,
}

#[derive(Serialize)]
struct WidenedRecord<'a> {
    token: &'a str,
    was: &'a [String],
}

#[derive(Serialize)]
struct HiddenRecord {
    old: u64,
    new: u64,
}

#[derive(Serialize)]
struct FindingRecord<'a> {
    rule: &'a str,
    severity: &'a str,
    path: &'a str,
    line: u32,
    column: u32,
    excerpt: &'a str,
    fingerprint: &'a str,
}

impl<'a> FindingRecord<'a> {
    fn of(f: &'a Finding) -> Self {
        FindingRecord {
            rule: f.rule.id(),
            severity: f.severity.as_str(),
            path: &f.path,
            line: f.line,
            column: f.column,
            excerpt: &f.excerpt,
            fingerprint: &f.fingerprint,
        }
    }
}

impl<'a> CapabilityRecord<'a> {
    /// The record of `d`.
    pub(super) fn of(d: &'a CapabilityDiff) -> Self {
        CapabilityRecord {
            widens: d.widens(),
            files_added: &d.files.added,
            files_removed: &d.files.removed,
            scripts_added: &d.scripts.added,
            scripts_removed: &d.scripts.removed,
            executables_added: &d.executables.added,
            executables_removed: &d.executables.removed,
            binaries_added: &d.binaries.added,
            binaries_removed: &d.binaries.removed,
            archives_added: &d.archives.added,
            archives_removed: &d.archives.removed,
            tools_widened: d
                .tools_widened
                .iter()
                .map(|w| WidenedRecord {
                    token: &w.token,
                    was: &w.was,
                })
                .collect(),
            tools_narrowed: &d.tools_narrowed,
            commands_added: &d.dynamic_commands.added,
            commands_removed: &d.dynamic_commands.removed,
            hosts_added: &d.hosts.added,
            hosts_removed: &d.hosts.removed,
            credential_paths_added: &d.cred_paths.added,
            credential_paths_removed: &d.cred_paths.removed,
            secret_variables_added: &d.secret_variables.added,
            secret_variables_removed: &d.secret_variables.removed,
            hidden: d
                .hidden
                .iter()
                .map(|(k, (old, new))| {
                    (
                        k.as_str(),
                        HiddenRecord {
                            old: *old,
                            new: *new,
                        },
                    )
                })
                .collect(),
            findings_new: d.findings_new.iter().map(FindingRecord::of).collect(),
            findings_resolved: d.findings_resolved.iter().map(FindingRecord::of).collect(),
        }
    }
}
