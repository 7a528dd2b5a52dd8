//! The skill side's lines: findings, `skill add`, `status`, `pull`, `resolve`, `pack`,
//! `install`, `sync`, `verify`, `diff`, `remove`, `outdated` and `list`.

use asv_skills::add::{Added, Pin};
use asv_skills::diff::{Compared, DiffLine};
use asv_skills::install::Installed;
use asv_skills::naming::NamedBy;
use asv_skills::package::Packed;
use asv_skills::pull::Pulled;
use asv_skills::skill_dir;
use asv_skills::status::{State, Status};

use super::capabilities::CapabilityRecord;
use super::line::{Level, Line, files, size};
use super::records::*;
use crate::cli::Format;
use crate::style::{DiffPart, Paint};

/// A commit id or digest as `format` shows it: short in text (twelve hex digits, as git
/// shows them: [`asv_model::source::short`]), whole in JSON and GitHub annotations, which a
/// program reads and may look up.
fn id(format: Format, text: &str) -> &str {
    match format {
        Format::Text => asv_model::source::short(text),
        Format::Json | Format::Github | Format::Sarif => text,
    }
}

/// Renders one skill finding as a line (without the line break).
pub fn finding(format: Format, f: &asv_skills::Finding) -> String {
    let (kind, level) = match f.severity {
        asv_skills::Severity::Error => ("error", Level::Error),
        asv_skills::Severity::Warning => ("warning", Level::Warning),
    };
    match format {
        Format::Text => format!("{kind}: {}: {}", f.location(), f.problem),
        _ => Line {
            line: f.line,
            ..Line::new(level, kind, f.problem.to_string()).at(&f.path)
        }
        .render(
            format,
            FindingFields {
                rule: f.rule.code(),
            },
        ),
    }
}

/// Renders what `skill add` placed.
pub fn added(format: Format, a: &Added) -> String {
    let dir = skill_dir(&a.name);
    let message = match &a.pin {
        // A directory's tree hash is the hash placed unless the import renamed it.
        Pin::Tree(tree) if *tree == a.hash => {
            format!("{} <- {} at {}", a.name, a.source, id(format, tree))
        }
        pin => format!(
            "{} <- {} at {} ({})",
            a.name,
            a.source,
            id(format, pin.as_str()),
            id(format, &a.hash)
        ),
    };
    // The name is said when it is not the upstream directory's, so the user knows which rule
    // chose it.
    let message = match a.named_by {
        NamedBy::Manifest if a.name != a.upstream => format!(
            "{message}; named by its SKILL.md (upstream directory {})",
            asv_error::quote::DisplayPath(&a.upstream)
        ),
        NamedBy::Directory => {
            format!("{message}; named after its directory (its SKILL.md gives no usable name)")
        }
        _ => message,
    };
    Line::new(Level::Notice, "added", message).at(&dir).render(
        format,
        AddedFields {
            name: &a.name,
            source: &a.source,
            revision: a.pin.as_str(),
            hash: &a.hash,
            named_by: a.named_by.code(),
        },
    )
}

/// Renders one line of `skill status`; in text, its state word is coloured as `paint` says.
pub fn status(format: Format, paint: Paint, s: &Status) -> String {
    let reason = match &s.state {
        State::Invalid(why) => Some(why.to_string()),
        _ => None,
    };
    let state = s.state.as_str();
    // What follows the state word: the same in every format, coloured in none.
    let mut after = match &reason {
        Some(why) => format!(" ({why})"),
        None => String::new(),
    };
    match s.removed_upstream.as_deref() {
        Some("") => after.push_str("; removed upstream, kept as it is"),
        Some(at) => after.push_str(&format!(
            "; removed upstream at {}, kept as it is",
            id(format, at)
        )),
        None => {}
    }
    let shown = format!("{state}{after}");
    match format {
        Format::Text => format!("{}: {}{after}", s.name, paint.state(&s.state)),
        Format::Github => {
            let level = if matches!(s.state, State::Clean | State::Modified) {
                Level::Notice
            } else {
                Level::Warning
            };
            Line::new(level, state, reason.unwrap_or_else(|| state.to_owned()))
                .at(&skill_dir(&s.name))
                .annotation()
        }
        Format::Json | Format::Sarif => Line::new(Level::Notice, "status", shown)
            .at(&skill_dir(&s.name))
            .render(
                format,
                StatusFields {
                    name: &s.name,
                    state,
                    reason: reason.as_deref(),
                    source: &s.source,
                    revision: &s.revision,
                    removed_upstream: s.removed_upstream.as_deref(),
                },
            ),
    }
}

/// Renders what `skill pull` did to one skill (one or more lines).
pub fn pulled(format: Format, p: &Pulled) -> Vec<String> {
    match format {
        Format::Text => pulled_lines(format, p),
        Format::Json | Format::Sarif => {
            let (kind, name) = match p {
                Pulled::UpToDate { name, .. } => ("up-to-date", name),
                Pulled::Updated { name, .. } => ("updated", name),
                Pulled::Conflicts { name, .. } => ("conflicts", name),
                Pulled::Waiting { name, .. } => ("waiting", name),
                Pulled::RemovedUpstream { name, .. } => ("removed-upstream", name),
            };
            let dir = skill_dir(name);
            let head = pulled_lines(format, p)
                .into_iter()
                .next()
                .unwrap_or_default();
            vec![
                Line::new(Level::Notice, kind, head)
                    .at(&dir)
                    .render(format, pulled_fields(p)),
            ]
        }
        Format::Github => match p {
            Pulled::Conflicts {
                name, conflicts, ..
            } => {
                let dir = skill_dir(name);
                let head = pulled_lines(format, p).swap_remove(0);
                let mut out = vec![
                    Line::new(Level::Error, "conflicts", head)
                        .at(&dir)
                        .annotation(),
                ];
                out.extend(conflicts.iter().map(|c| {
                    let path = format!("{dir}/{}", c.path);
                    Line::new(Level::Error, "conflict", c.kind.as_str().to_owned())
                        .at(&path)
                        .annotation()
                }));
                out
            }
            Pulled::Waiting { name, .. } => vec![
                Line::new(
                    Level::Error,
                    "waiting",
                    pulled_lines(format, p).swap_remove(0),
                )
                .at(&skill_dir(name))
                .annotation(),
            ],
            _ => pulled_lines(format, p)
                .into_iter()
                .map(|l| Line::new(Level::Notice, "pulled", l).annotation())
                .collect(),
        },
    }
}

/// The warning a pull's outcome carries: a merge made without its base.
pub fn pull_warning(p: &Pulled) -> Option<String> {
    p.lost_base().map(|path| {
        format!(
            "{}: the base is not in {path} and its local directory source cannot give it again, so the merge was made without one: a file that differs, or that only one side holds, is a conflict",
            p.name()
        )
    })
}

/// A pull's outcome as text lines.
fn pulled_lines(format: Format, p: &Pulled) -> Vec<String> {
    let at = |revision: &str| id(format, revision).to_owned();
    match p {
        Pulled::UpToDate { name, revision } => {
            vec![format!("{name}: up to date at {}", at(revision))]
        }
        Pulled::Updated {
            name,
            from,
            to,
            kept_local,
            ..
        } => vec![format!(
            "{name}: updated {} -> {}{}",
            at(from),
            at(to),
            if *kept_local {
                " (local edits kept)"
            } else {
                ""
            }
        )],
        Pulled::Conflicts {
            name,
            revision,
            conflicts,
            written,
            ..
        } => {
            // Markers stand only where both sides edited text; every other conflict leaves
            // one side's file as it is, which the line of each conflict says.
            let markers_only = conflicts
                .iter()
                .all(|c| c.kind == asv_skilltree::merge::ConflictKind::Content);
            let mut lines = vec![if *written && markers_only {
                format!(
                    "{name}: {} with upstream {}; written with markers: edit them, then run skill resolve {name}",
                    conflict_count(conflicts.len()),
                    at(revision)
                )
            } else if *written {
                format!(
                    "{name}: {} with upstream {}; written for you to settle, markers only in text both sides edited (each file below says what stands; resolve keeps the files as you leave them): settle them, then run skill resolve {name}",
                    conflict_count(conflicts.len()),
                    at(revision)
                )
            } else {
                format!(
                    "{name}: {} with upstream {}; nothing was changed (--write-conflicts writes them with markers)",
                    conflict_count(conflicts.len()),
                    at(revision)
                )
            }];
            lines.extend(conflicts.iter().map(|c| {
                format!(
                    "{}/{} ({}{})",
                    skill_dir(name),
                    c.path,
                    c.kind.as_str(),
                    what_each_side_did(c.kind, *written)
                )
            }));
            lines
        }
        Pulled::Waiting { name, revision } => vec![format!(
            "{name}: not pulled; the conflicts with upstream {} wait: edit them, then run skill resolve {name}",
            at(revision)
        )],
        Pulled::RemovedUpstream {
            name,
            revision,
            modified,
        } => vec![format!(
            // A local directory read as it stands has no revision to name.
            "{name}: removed upstream{}; kept {}{} — remove it yourself if it should go",
            if revision.is_empty() {
                String::new()
            } else {
                format!(" at {}", at(revision))
            },
            skill_dir(name),
            if *modified {
                " with its local edits"
            } else {
                ""
            }
        )],
    }
}

/// `1 conflict`, `2 conflicts`.
/// For a delete/modify conflict: what each side did and what is left in place, so that
/// `skill resolve` (which keeps the files as they stand) holds no surprise.
fn what_each_side_did(kind: asv_skilltree::merge::ConflictKind, written: bool) -> &'static str {
    use asv_skilltree::merge::{ConflictKind, MergeSide};
    match (kind, written) {
        (
            ConflictKind::DeleteModify {
                deleted_by: MergeSide::Upstream,
            },
            true,
        ) => {
            ": upstream deleted it, you changed it; your version is left in place without markers: delete it to take upstream's delete, or keep it"
        }
        (
            ConflictKind::DeleteModify {
                deleted_by: MergeSide::Local,
            },
            true,
        ) => {
            ": you deleted it, upstream changed it; upstream's version is written back without markers: delete it again to keep it deleted, or keep it"
        }
        (
            ConflictKind::DeleteModify {
                deleted_by: MergeSide::Upstream,
            },
            false,
        ) => ": upstream deleted it, you changed it",
        (
            ConflictKind::DeleteModify {
                deleted_by: MergeSide::Local,
            },
            false,
        ) => ": you deleted it, upstream changed it",
        _ => "",
    }
}

fn conflict_count(n: usize) -> String {
    if n == 1 {
        "1 conflict".to_owned()
    } else {
        format!("{n} conflicts")
    }
}

/// The fields of one skill's pull in JSON.
fn pulled_fields(p: &Pulled) -> PulledFields<'_> {
    match p {
        Pulled::UpToDate { name, revision } | Pulled::Waiting { name, revision } => {
            PulledFields::UpToDate { name, revision }
        }
        Pulled::Updated {
            name,
            from,
            to,
            kept_local,
            lost_base,
            ..
        } => PulledFields::Updated {
            name,
            from,
            to,
            kept_local: *kept_local,
            lost_base: lost_base.as_deref(),
            widens: p.widens(),
            capabilities: p.capabilities().map(CapabilityRecord::of),
        },
        Pulled::Conflicts {
            name,
            revision,
            conflicts,
            written,
            lost_base,
            ..
        } => PulledFields::Conflicts {
            name,
            revision,
            written: *written,
            conflicts: conflicts
                .iter()
                .map(|c| ConflictRecord {
                    kind: c.kind.as_str(),
                    path: format!("{}/{}", skill_dir(name), c.path),
                })
                .collect(),
            lost_base: lost_base.as_deref(),
            widens: p.widens(),
            capabilities: p.capabilities().map(CapabilityRecord::of),
        },
        Pulled::RemovedUpstream {
            name,
            revision,
            modified,
        } => PulledFields::RemovedUpstream {
            name,
            revision,
            modified: *modified,
        },
    }
}

/// Renders what `skill resolve` recorded.
pub fn resolved(format: Format, name: &str, revision: &str) -> String {
    let dir = skill_dir(name);
    Line::new(
        Level::Notice,
        "resolved",
        format!("{name} at {}", id(format, revision)),
    )
    .at(&dir)
    .render(format, ResolvedFields { name, revision })
}

/// Renders what `skill pack` wrote: the skill's tree hash and the archive's own digest, each
/// named, since a user may compare either.
pub fn packed(format: Format, p: &Packed, output: &str) -> String {
    let zip = asv_contracts::Digest::of(&p.zip).to_string();
    let message = format!(
        "{} -> {output} ({}, {}; tree {}, zip {})",
        p.name,
        files(p.files),
        size(p.zip.len()),
        id(format, &p.hash),
        id(format, &zip)
    );
    Line::new(Level::Notice, "packed", message)
        .at(output)
        .render(
            format,
            PackedFields {
                name: &p.name,
                files: p.files,
                bytes: p.zip.len(),
                hash: &p.hash,
                zip: &zip,
            },
        )
}

/// Renders the signature `skill pack --sign` wrote beside the ZIP.
pub fn pack_signed(format: Format, sig: &str, fingerprint: &str) -> String {
    Line::new(
        Level::Notice,
        "signed",
        format!(
            "{sig} (key {fingerprint}, namespace {})",
            asv_sign::PACK_NAMESPACE
        ),
    )
    .at(sig)
    .render(format, SignedFields { fingerprint })
}

/// Renders the signature `skill install --signed-by` accepted.
pub fn signature_accepted(format: Format, input: &str, signer: &asv_sign::Signer) -> String {
    Line::new(
        Level::Notice,
        "signature",
        format!(
            "{input}: signed by {} (key {})",
            signer.principal, signer.fingerprint
        ),
    )
    .at(input)
    .render(
        format,
        SignerFields {
            principal: &signer.principal,
            fingerprint: &signer.fingerprint,
        },
    )
}

/// Renders one change a dry run would make (`shown_root` prefixes its destination), with the
/// reason the plan gave when `reasons` (an install's `forced` or `already absent` says
/// something; every change of gen is its own by rule, so there it would only repeat itself).
pub fn planned(
    format: Format,
    planned: &asv_fs::PlannedChange,
    shown_root: &str,
    reasons: bool,
) -> String {
    let mut message = format!(
        "{} {shown_root}{}",
        planned.action(),
        asv_error::quote::DisplayPath(planned.dest())
    );
    if let Some(reason) = planned.reason().filter(|_| reasons) {
        message.push_str(&format!(" ({reason})"));
    }
    let dest = format!("{shown_root}{}", planned.dest());
    match format {
        // The JSON message is the plan's own words, the destination unquoted in `path`.
        Format::Json => Line {
            message: planned.to_string(),
            ..Line::new(Level::Notice, "plan", String::new()).at(&dest)
        }
        .render(
            format,
            PlanFields {
                action: &planned.action().to_string(),
            },
        ),
        _ => Line::new(Level::Notice, "plan", message).render_finding(format),
    }
}

/// Renders what `skill install` did, or would do for a dry run (`shown_root` prefixes each
/// destination: `~/` for the home directory).
pub fn installed(format: Format, i: &Installed, shown_root: &str) -> Vec<String> {
    if i.dry_run {
        return i
            .plan
            .iter()
            .map(|p| planned(format, p, shown_root, true))
            .collect();
    }
    i.skills
        .iter()
        .map(|skill| installed_one(format, skill, shown_root))
        .collect()
}

/// Renders one skill `skill install` placed: `(name, destination, tree hash)`.
pub fn installed_one(format: Format, skill: &(String, String, String), shown_root: &str) -> String {
    let (name, dest, hash) = skill;
    let shown = format!("{shown_root}{dest}");
    Line::new(
        Level::Notice,
        "installed",
        format!("{name} -> {shown} ({})", id(format, hash)),
    )
    .at(&shown)
    .render(format, InstalledFields { name, hash })
}

/// Renders one thing `skill sync` did (or would do).
pub fn synced(format: Format, s: &asv_skills::sync::Synced) -> String {
    let path = s.path();
    let level = if s.is_shortfall() {
        Level::Warning
    } else {
        Level::Notice
    };
    Line::new(level, s.kind(), synced_message(format, s))
        .at(&path)
        .render_finding(format)
}

/// The text after `<kind>: ` of a line of `skill sync`.
fn synced_message(format: Format, s: &asv_skills::sync::Synced) -> String {
    use asv_skills::sync::Synced;
    match s {
        Synced::Taken {
            name,
            source,
            revision,
        } => format!("{name} <- {source} at {}", id(format, revision)),
        Synced::Restored { name, revision } => {
            format!("{} at {}", skill_dir(name), id(format, revision))
        }
        Synced::Dropped { name } => skill_dir(name),
        Synced::Projected { path, hash, how } => {
            format!("{path} ({how}, {})", id(format, hash))
        }
        Synced::Unprojected { path } => path.clone(),
        Synced::NotProjected { name, finding } => format!(
            "{} is not mirrored into the agents' directories: {}: {}; fix it (skill validate lists every finding), then run skill sync",
            skill_dir(name),
            finding.location(),
            finding.problem
        ),
    }
}

/// Renders one problem `skill verify` found.
pub fn skill_problem(format: Format, p: &asv_skills::verify::VerifyProblem) -> String {
    let path = p.path();
    Line::new(Level::Error, p.kind(), skill_problem_message(p))
        .at(&path)
        .render_finding(format)
}

/// What is wrong and what to do, of a problem `skill verify` found.
fn skill_problem_message(p: &asv_skills::verify::VerifyProblem) -> String {
    use asv_skills::verify::{ProjectionState, VerifyProblem};
    match p {
        VerifyProblem::LockEntry { error, .. }
        | VerifyProblem::IntentEntry { error, .. }
        | VerifyProblem::Unreadable { error, .. }
        | VerifyProblem::Signature { error, .. }
        | VerifyProblem::Differs(error) => error.to_string(),
        VerifyProblem::Untaken { name } => {
            format!("{name} is wanted but the lock does not hold it; run skill sync to take it up")
        }
        VerifyProblem::Unwanted { name } => format!(
            "{name} is in the lock but not wanted; run skill sync to drop it, or add its row back"
        ),
        VerifyProblem::Missing { name } => {
            format!("{name} is imported but its directory is gone; run skill sync to restore it")
        }
        VerifyProblem::Conflicted { name } => format!(
            "{name} has a pull waiting; resolve its conflicts, then run skill resolve {name}"
        ),
        VerifyProblem::Invalid { finding, .. } => {
            format!("{}: {}", finding.location(), finding.problem)
        }
        VerifyProblem::Capabilities {
            name,
            recorded,
            found,
        } => format!(
            "{name}: the lock records the capability digest {recorded} for its base, but the copy, which is that base, audits to {found}; restore the entry from version control, or remove its capabilities field when another release of the tool wrote it (the next pull that moves the base records it again)"
        ),
        VerifyProblem::Projection {
            path: dest,
            skill: name,
            state,
        } => match state {
            ProjectionState::Missing => format!("{dest} is missing; run skill sync"),
            ProjectionState::Unrecorded => {
                format!("{dest} is not recorded in the lock; run skill sync to claim it")
            }
            ProjectionState::Stale => format!(
                "{dest} is stale: skills/{name} changed since it was placed; run skill sync"
            ),
            ProjectionState::Edited { file } => format!(
                "{dest} was edited{}; edit skills/{name} instead, then run skill sync --force",
                file.as_ref()
                    .map(|f| format!(" ({f} differs)"))
                    .unwrap_or_default()
            ),
            ProjectionState::Unreadable(error) => error.to_string(),
            ProjectionState::OtherKind(kind) => {
                format!("{dest} is {kind}, not a copy of skills/{name}")
            }
            ProjectionState::Orphaned => format!(
                "{dest} is a copy of skills/{name}, which is gone; run skill sync to remove it"
            ),
            ProjectionState::Gone => format!(
                "{dest} is recorded in the lock, but it and skills/{name} are gone; run skill sync"
            ),
        },
    }
}

/// Renders a skill's tree hash (`skill hash`): the bare hash as text, so a script can take it
/// as it is.
pub fn hash(format: Format, dir: &str, hash: &str) -> String {
    match format {
        Format::Text => hash.to_owned(),
        _ => Line::new(Level::Notice, "hash", hash.to_owned())
            .at(dir)
            .render(format, HashFields { hash }),
    }
}

/// Renders `skill diff`: the unified diff's lines as text (in text, their parts coloured as
/// `paint` says, by the kind each line was made as), one record in JSON.
pub fn diff(
    format: Format,
    paint: Paint,
    name: &str,
    from: &str,
    to: &str,
    diff: &Compared,
) -> Vec<String> {
    let paint = match format {
        Format::Json | Format::Sarif => {
            return vec![
                Line::new(Level::Notice, "diff", format!("{name}: {from} -> {to}"))
                    .at(&skill_dir(name))
                    .render(
                        format,
                        DiffFields {
                            name,
                            from,
                            to,
                            diff: &diff.unified.to_string(),
                            capabilities: CapabilityRecord::of(&diff.capabilities),
                        },
                    ),
            ];
        }
        Format::Text => paint,
        Format::Github => Paint::OFF,
    };
    let mut lines = Vec::with_capacity(diff.unified.lines().len());
    for line in diff.unified.lines() {
        match line {
            // A path may hold a line break: each line printed is coloured on its own.
            DiffLine::Header(text) => lines.extend(
                text.split('\n')
                    .map(|part| paint.diff(DiffPart::Header, part)),
            ),
            DiffLine::Hunk { ranges, heading } => {
                let mut shown = paint.diff(DiffPart::Ranges, ranges);
                if let Some(heading) = heading {
                    shown.push(' ');
                    shown.push_str(heading);
                }
                lines.push(shown);
            }
            DiffLine::Removed(_) => lines.push(paint.diff(DiffPart::Removed, &line.to_string())),
            DiffLine::Added(_) => lines.push(paint.diff(DiffPart::Added, &line.to_string())),
            DiffLine::Context(_) | DiffLine::NoNewline => lines.push(line.to_string()),
        }
    }
    lines
}

/// Renders what `skill remove` removed: `removed: <name> (skills/<name>)`, saying when the
/// directory was already gone or local edits were discarded.
pub fn removed(format: Format, r: &asv_skills::manage::Removed) -> String {
    let mut notes = Vec::new();
    if !r.present {
        notes.push("already absent");
    }
    if r.discarded {
        notes.push("local edits discarded");
    }
    let mut message = format!("{} ({}", r.name, r.path);
    for note in notes {
        message.push_str("; ");
        message.push_str(note);
    }
    message.push(')');
    Line::new(Level::Notice, "removed", message)
        .at(&r.path)
        .render(
            format,
            RemovedFields {
                name: &r.name,
                discarded: r.discarded,
            },
        )
}

/// Renders one skill of `skill outdated`: `<name>: <locked> -> <now> (<ref>)`, the ref
/// followed by the tags a range picks and, when vendor-skills.yaml asks for another ref than
/// the lock follows, why.
///
/// With `capabilities` (`--capabilities`) the JSON record carries the capability diff (`null`
/// when the base can no longer be had); its text lines come from [`outdated_capabilities`].
pub fn outdated(format: Format, o: &asv_skills::manage::Outdated, capabilities: bool) -> String {
    if o.removed_upstream {
        let at = if o.now.is_empty() {
            String::new()
        } else {
            format!(" at {}", id(format, &o.now))
        };
        let message = format!(
            "removed upstream{at}; {} is kept as it is (skill remove {} drops it)",
            skill_dir(&o.name),
            o.name
        );
        return match format {
            Format::Text => format!("{}: {message}", o.name),
            _ => Line::new(Level::Notice, "removed-upstream", message)
                .at(&skill_dir(&o.name))
                .render(
                    format,
                    OutdatedFields {
                        name: &o.name,
                        locked: &o.locked,
                        now: &o.now,
                        reference: o.reference.as_deref(),
                        locked_ref: None,
                        in_range: None,
                        newest: None,
                        capabilities: None,
                    },
                ),
        };
    }
    let mut why = o
        .reference
        .as_deref()
        .unwrap_or("the directory as it stands")
        .to_owned();
    if let Some(tag) = &o.in_range {
        why.push_str(&format!(": newest in range {tag}"));
        if let Some(newest) = &o.newest {
            why.push_str(&format!(", newest {newest}"));
        }
    }
    if o.ref_changed {
        why.push_str(&format!(
            "; vendor-skills.yaml asks for it, the lock follows {}: skill pull {} moves the pin",
            o.locked_ref
                .as_deref()
                .map_or("the default branch", |r| id(format, r)),
            o.name
        ));
    }
    let message = format!(
        "{} -> {} ({why})",
        id(format, &o.locked),
        id(format, &o.now)
    );
    let dir = skill_dir(&o.name);
    match format {
        Format::Text => format!("{}: {message}", o.name),
        _ => Line::new(Level::Notice, "outdated", message)
            .at(&dir)
            .render(
                format,
                OutdatedFields {
                    name: &o.name,
                    locked: &o.locked,
                    now: &o.now,
                    reference: o.reference.as_deref(),
                    locked_ref: o.ref_changed.then_some(o.locked_ref.as_deref()),
                    in_range: o.in_range.as_deref(),
                    newest: o.in_range.as_ref().map(|_| o.newest.as_deref()),
                    capabilities: capabilities
                        .then(|| o.capabilities.as_ref().map(CapabilityRecord::of)),
                },
            ),
    }
}

/// Renders one skill of `skill list`: `<name>: <origin>, <state>` (an invalid one with why).
pub fn listed(format: Format, s: &asv_skills::manage::ListedSkill, mirrored: &[&str]) -> String {
    use asv_skills::manage::SkillOrigin;
    let (origin, source, revision) = match &s.origin {
        SkillOrigin::Own => ("own".to_owned(), None, None),
        SkillOrigin::Imported { source, revision } => (
            format!("{source} @ {revision}"),
            Some(source.as_str()),
            Some(revision.as_str()),
        ),
    };
    let state = s.state.as_str();
    // The origin in the message is the one a person reads: its revision short in text.
    let shown_origin = match (source, revision) {
        (Some(source), Some(revision)) => format!("{source} @ {}", id(format, revision)),
        _ => origin.clone(),
    };
    let mut message = match s.state.reason() {
        Some(why) => format!("{shown_origin}, {state} ({why})"),
        None => format!("{shown_origin}, {state}"),
    };
    if !mirrored.is_empty() {
        message.push_str(&format!("; mirrored in {}", mirrored.join(", ")));
    }
    let dir = skill_dir(&s.name);
    match format {
        Format::Text => format!("{}: {message}", s.name),
        _ => Line::new(Level::Notice, "skill", message).at(&dir).render(
            format,
            ListedFields {
                name: &s.name,
                origin: &origin,
                source,
                revision,
                state,
                mirrored,
            },
        ),
    }
}

/// Renders one skill `skill add --list` found in `source` at `revision`: text
/// `<name>: <path>[ (plugin <p>)][ — <description>]`, the description cut to one short line;
/// JSON a `found` record with the whole description.
pub fn discovered(
    format: Format,
    source: &str,
    revision: &str,
    s: &asv_skills::discover::Discovered,
) -> String {
    let mut message = s.path.clone();
    if let Some(plugin) = &s.plugin {
        message.push_str(&format!(" (plugin {plugin})"));
    }
    match format {
        Format::Text => {
            if let Some(d) = &s.description {
                let cut: String = d.chars().take(100).collect();
                let more = if cut.len() < d.len() { "…" } else { "" };
                message.push_str(&format!(" — {cut}{more}"));
            }
            format!("{}: {message}", s.name)
        }
        _ => Line::new(Level::Notice, "found", format!("{}: {message}", s.name))
            .at(&s.path)
            .render(
                format,
                FoundFields {
                    name: &s.name,
                    source,
                    revision,
                    plugin: s.plugin.as_deref(),
                    description: s.description.as_deref(),
                },
            ),
    }
}

/// Renders one skill found in an agent's directory (`dir`, as shown).
pub fn agent_skill(format: Format, dir: &str, s: &asv_skills::sync::AgentSkill) -> String {
    let placed = s.placed.as_str();
    let path = format!("{dir}/{}", s.name);
    match format {
        Format::Text => format!("{}: {placed}", s.name),
        _ => Line::new(Level::Notice, "agent-skill", placed.to_owned())
            .at(&path)
            .render(
                format,
                AgentSkillFields {
                    name: &s.name,
                    hash: s.hash.as_deref(),
                    placed: match s.placed {
                        asv_skills::sync::Placed::BySync => "sync",
                        asv_skills::sync::Placed::EditedSinceSync => "sync-edited",
                        asv_skills::sync::Placed::ByInstall => "install",
                        asv_skills::sync::Placed::EditedSinceInstall => "install-edited",
                        asv_skills::sync::Placed::NotRecorded => "unrecorded",
                    },
                },
            ),
    }
}
