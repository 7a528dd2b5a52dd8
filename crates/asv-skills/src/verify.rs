//! `skill verify`: whether the agents' directories, the lock and the intent agree with
//! `skills/`, reading everything (no stamps): what CI runs.

use std::collections::{BTreeMap, BTreeSet};

use asv_error::Failure as _;
use asv_fs::{EntryKind, Root};
use asv_skilltree::SkillTree;

use crate::audit::Audited;
use crate::error::Error;
use crate::intent::{INTENT_FILE, Intent};
use crate::lock::SkillLock;
use crate::paths::skill_dir;
use crate::projection::target_dirs;
use crate::sync::{differs, first_difference, skill_names};
use crate::validate::{Finding, Profile, Severity, validate_tree_as};

/// A refusal of an entry of the lock or the intent as `skill verify` reports it; any other
/// error (a file that does not parse at all, another version) as it is.
fn state_problem(e: Error) -> Result<VerifyProblem, Error> {
    use crate::error::{IntentProblem, SkillLockProblem};
    let path = || {
        e.location()
            .map(|at| at.file)
            .unwrap_or_else(|| crate::lock::SKILL_LOCK_FILE.to_owned())
    };
    match &e {
        Error::Lock {
            problem:
                SkillLockProblem::BadName { .. }
                | SkillLockProblem::BadHash { .. }
                | SkillLockProblem::BadCapabilities { .. }
                | SkillLockProblem::BadSigner { .. }
                | SkillLockProblem::BadPath { .. }
                | SkillLockProblem::BadProjection { .. }
                | SkillLockProblem::Duplicate { .. },
            ..
        } => Ok(VerifyProblem::LockEntry {
            path: path(),
            error: e,
        }),
        Error::Intent {
            problem: IntentProblem::BadName { .. } | IntentProblem::BadPath { .. },
            ..
        } => Ok(VerifyProblem::IntentEntry {
            path: path(),
            error: e,
        }),
        _ => Err(e),
    }
}

/// One problem `skill verify` reports, with what it is about; the binary words it.
#[derive(Debug)]
pub enum VerifyProblem {
    /// An entry of the skill lock a writer refuses (a name, hash or path it could not have
    /// written, a key given twice): the refusal.
    LockEntry {
        /// The file at fault.
        path: String,
        /// The refusal.
        error: Error,
    },
    /// An entry of the intent a writer refuses: the refusal.
    IntentEntry {
        /// The file at fault.
        path: String,
        /// The refusal.
        error: Error,
    },
    /// A skill the intent wants and the lock does not hold.
    Untaken {
        /// The skill.
        name: String,
    },
    /// A skill the intent asks from another source, path or ref than the lock pins: the
    /// refusal a sync would end with ([`Error::IntentDiffers`], [`Error::RefDiffers`]).
    Differs(Error),
    /// A signed row (issue 33 §1) whose pin cannot be vouched for offline: its
    /// allowed-signers file cannot be used, the lock records no signer for it, or the file no
    /// longer holds the signer the lock records ([`crate::error::SignedRefusal`]).
    Signature {
        /// The allowed-signers file.
        path: String,
        /// The refusal.
        error: Error,
    },
    /// A skill the lock holds and the (written) intent no longer wants.
    Unwanted {
        /// The skill.
        name: String,
    },
    /// An imported skill whose directory is gone.
    Missing {
        /// The skill.
        name: String,
    },
    /// An imported skill with a pull waiting.
    Conflicted {
        /// The skill.
        name: String,
    },
    /// A skill directory that cannot be judged: a symbolic link, or a tree that cannot be read.
    Unreadable {
        /// The skill's directory.
        path: String,
        /// Why.
        error: Error,
    },
    /// An imported skill whose copy is its base (it hashes to the lock's `baseHash`) and whose
    /// audit's capability digest is not the one the lock records: the lock was edited by hand,
    /// or written by a build whose audit rules read the skill otherwise. Reported as a lock
    /// entry at fault, as a base hash that did not match would be.
    Capabilities {
        /// The skill.
        name: String,
        /// The digest the lock records.
        recorded: String,
        /// The digest of the copy.
        found: String,
    },
    /// A skill that breaks a rule: the first error found.
    Invalid {
        /// The skill's directory.
        path: String,
        /// The finding.
        finding: Finding,
    },
    /// A mirrored copy that is not what the intent and the lock say.
    Projection {
        /// The copy, from the root (`.claude/skills/pdf`).
        path: String,
        /// The skill it is a copy of.
        skill: String,
        /// What is wrong with it.
        state: ProjectionState,
    },
}

/// What is wrong with a mirrored copy, as `skill verify` finds it.
#[derive(Debug)]
pub enum ProjectionState {
    /// No copy where one should be.
    Missing,
    /// A copy of what `skills/` holds, which the lock does not record.
    Unrecorded,
    /// The copy placed, of a skill changed since.
    Stale,
    /// A copy edited since it was placed.
    Edited {
        /// The first file (within the skill) that differs from `skills/`, when found.
        file: Option<String>,
    },
    /// A copy that cannot be read as a skill tree.
    Unreadable(asv_skilltree::Error),
    /// An entry of another kind than a directory.
    OtherKind(EntryKind),
    /// A copy recorded of a skill gone from `skills/`.
    Orphaned,
    /// A copy recorded of a skill gone from `skills/`, the copy gone too.
    Gone,
}

impl VerifyProblem {
    /// The problem's kind: `missing`, `invalid`, `conflicted`, `intent`, `projection`,
    /// `signature` or `lock`.
    pub fn kind(&self) -> &'static str {
        match self {
            VerifyProblem::LockEntry { .. } | VerifyProblem::Capabilities { .. } => "lock",
            VerifyProblem::IntentEntry { .. }
            | VerifyProblem::Untaken { .. }
            | VerifyProblem::Differs(_)
            | VerifyProblem::Unwanted { .. } => "intent",
            VerifyProblem::Missing { .. } => "missing",
            VerifyProblem::Conflicted { .. } => "conflicted",
            VerifyProblem::Unreadable { .. } | VerifyProblem::Invalid { .. } => "invalid",
            VerifyProblem::Projection { .. } => "projection",
            VerifyProblem::Signature { .. } => "signature",
        }
    }

    /// The path it is about.
    pub fn path(&self) -> String {
        match self {
            VerifyProblem::LockEntry { path, .. }
            | VerifyProblem::IntentEntry { path, .. }
            | VerifyProblem::Unreadable { path, .. }
            | VerifyProblem::Invalid { path, .. }
            | VerifyProblem::Projection { path, .. }
            | VerifyProblem::Signature { path, .. } => path.clone(),
            VerifyProblem::Untaken { .. }
            | VerifyProblem::Differs(_)
            | VerifyProblem::Unwanted { .. } => INTENT_FILE.to_owned(),
            VerifyProblem::Missing { name }
            | VerifyProblem::Conflicted { name }
            | VerifyProblem::Capabilities { name, .. } => skill_dir(name),
        }
    }
}

/// `skill verify`: every way the tree is not what the intent and the lock say, offline. An
/// imported skill missing, invalid or conflicted; the intent and the lock disagreeing; a
/// projection missing, edited or stale; a skill under `skills/` that breaks the Agent Skills
/// rules. Local edits to an imported skill are not a problem.
///
/// An entry of the lock or the intent that a writer refuses (a name, hash or path it could
/// not have written, a key given twice) is a problem too ([`VerifyProblem::LockEntry`],
/// [`VerifyProblem::IntentEntry`]), and the only one reported: nothing is judged against a file that
/// could be crafted to name paths outside what the tool writes (issue 27 §3).
///
/// # Errors
/// [`Error::Intent`] or [`Error::Lock`] for a file that is not of its format at all (not
/// JSON or YAML of its shape, another version); a guarded-read failure.
pub fn verify(root: &Root) -> Result<Vec<VerifyProblem>, Error> {
    verify_as(root, false).map(|(problems, _)| problems)
}

/// [`verify`], and every skill under `skills/` audited as it is read (issue 32 §2): the
/// problems, and each skill's audit by directory (none when the lock or intent cannot be
/// judged). Which findings fail the run is the caller's to say, with the allow file.
///
/// # Errors
/// As [`verify`].
pub fn verify_audited(root: &Root) -> Result<(Vec<VerifyProblem>, Vec<Audited>), Error> {
    verify_as(root, true)
}

/// [`verify`], auditing each skill read when `audit`.
fn verify_as(root: &Root, audit: bool) -> Result<(Vec<VerifyProblem>, Vec<Audited>), Error> {
    let (lock, intent) = match SkillLock::load(root).and_then(|l| Ok((l, Intent::load(root)?))) {
        Ok(both) => both,
        Err(e) => return state_problem(e).map(|p| (vec![p], Vec::new())),
    };
    let mut out = Vec::new();
    for (name, wanted) in &intent.skills {
        match lock.skills.get(name) {
            None => out.push(VerifyProblem::Untaken { name: name.clone() }),
            Some(entry) => {
                out.extend(
                    differs(name, wanted, entry)
                        .into_iter()
                        .map(VerifyProblem::Differs),
                );
                if let Some(file) = &wanted.signed_by
                    && let Some(error) = crate::signed::recheck(root, name, file, entry)
                {
                    out.push(VerifyProblem::Signature {
                        path: file.clone(),
                        error,
                    });
                }
            }
        }
    }
    if intent.written {
        for name in lock
            .skills
            .keys()
            .filter(|n| !intent.skills.contains_key(*n))
        {
            out.push(VerifyProblem::Unwanted { name: name.clone() });
        }
    }
    for (name, entry) in &lock.skills {
        let dir = skill_dir(name);
        if root.kind(&dir)?.is_none() {
            out.push(VerifyProblem::Missing { name: name.clone() });
        } else if entry.pending.is_some() {
            out.push(VerifyProblem::Conflicted { name: name.clone() });
        }
    }
    // Each skill's hash, not its tree: a repository of 100,000 skills is judged with one tree
    // in memory at a time (a tree is read again only to say which file of an edited copy
    // differs).
    let mut skills: BTreeMap<String, Option<String>> = BTreeMap::new();
    // A link is reported among the skills, in name order, as every command says it.
    let linked: BTreeSet<String> = crate::paths::linked_skills(root)?.into_iter().collect();
    let mut names: Vec<String> = skill_names(root)?;
    names.extend(linked.iter().cloned());
    names.sort();
    // Each skill read, judged (and audited) on every core, one tree in memory a core; the
    // outcomes are taken in name order, so the report is the same whatever the scheduling.
    let judged: Vec<Result<Judged, Error>> = {
        use rayon::prelude::*;
        names
            .par_iter()
            .filter(|name| !linked.contains(*name))
            .map(|name| judge(root, name, lock.skills.get(name), audit))
            .collect()
    };
    let mut judged = judged.into_iter();
    let mut audited = Vec::new();
    for name in names {
        let dir = skill_dir(&name);
        if linked.contains(&name) {
            out.push(VerifyProblem::Unreadable {
                error: Error::LinkedSkill { path: dir.clone() },
                path: dir,
            });
            continue;
        }
        let Some(outcome) = judged.next() else { break };
        match outcome? {
            Judged::Read {
                invalid,
                hash,
                report,
                capabilities,
            } => {
                if let Some(finding) = invalid {
                    out.push(VerifyProblem::Invalid {
                        path: dir.clone(),
                        finding,
                    });
                }
                if let Some(report) = report {
                    audited.push(Audited {
                        dir: dir.clone(),
                        report: *report,
                    });
                }
                // A copy that is its base must audit to the digest the lock records of that
                // base, as it hashes to the recorded hash (issue 32 §3); the digest comes from
                // the one audit of the skill.
                if let (Some(entry), Some(found)) = (lock.skills.get(&name), capabilities)
                    && let Some(recorded) = &entry.capabilities
                    && found != *recorded
                {
                    out.push(VerifyProblem::Capabilities {
                        name: name.clone(),
                        recorded: recorded.clone(),
                        found,
                    });
                }
                skills.insert(name, Some(hash));
            }
            Judged::Unreadable(e) => {
                out.push(VerifyProblem::Unreadable {
                    path: dir,
                    error: e.into(),
                });
                skills.insert(name, None);
            }
        }
    }
    for dir in target_dirs(&intent.targets) {
        let recorded = lock.projections.get(dir).cloned().unwrap_or_default();
        for (name, hash) in &skills {
            let Some(hash) = hash else { continue };
            let dest = format!("{dir}/{name}");
            let state = match root.kind(&dest)? {
                None => Some(ProjectionState::Missing),
                Some(EntryKind::Directory) => match SkillTree::read(root, &dest) {
                    Ok(now) if now.hash() == *hash => (recorded.get(name) != Some(&now.hash()))
                        .then_some(ProjectionState::Unrecorded),
                    Ok(now) if recorded.get(name) == Some(&now.hash()) => {
                        Some(ProjectionState::Stale)
                    }
                    Ok(now) => Some(ProjectionState::Edited {
                        file: SkillTree::read(root, &skill_dir(name))
                            .ok()
                            .and_then(|tree| first_difference(&now, &tree)),
                    }),
                    Err(e) => Some(ProjectionState::Unreadable(e)),
                },
                Some(kind) => Some(ProjectionState::OtherKind(kind)),
            };
            if let Some(state) = state {
                out.push(VerifyProblem::Projection {
                    path: dest,
                    skill: name.clone(),
                    state,
                });
            }
        }
        // Copies recorded of skills no longer under skills/: sync removes them.
        // (A linked skill directory is reported as such, not as gone.)
        for name in recorded
            .keys()
            .filter(|n| !skills.contains_key(*n) && !linked.contains(*n))
        {
            let dest = format!("{dir}/{name}");
            let state = if root.kind(&dest)?.is_some() {
                ProjectionState::Orphaned
            } else {
                ProjectionState::Gone
            };
            out.push(VerifyProblem::Projection {
                path: dest,
                skill: name.clone(),
                state,
            });
        }
    }
    Ok((out, audited))
}

/// One skill directory as verify judges it.
enum Judged {
    /// Read: its first error by the rules, its tree hash, its audit when asked for, and its
    /// capability digest when the lock records one of a base the copy still is.
    Read {
        invalid: Option<Finding>,
        hash: String,
        report: Option<Box<asv_audit::Report>>,
        capabilities: Option<String>,
    },
    /// Not readable as a skill tree.
    Unreadable(asv_skilltree::Error),
}

/// Reads and judges the skill `name`: an import by the consumer's rules it was taken by, the
/// user's own skills by every rule; audited when `audit`.
fn judge(
    root: &Root,
    name: &str,
    entry: Option<&crate::lock::Entry>,
    audit: bool,
) -> Result<Judged, Error> {
    let imported = entry.is_some();
    let dir = skill_dir(name);
    let tree = match SkillTree::read(root, &dir) {
        Ok(tree) => tree,
        Err(e) => return Ok(Judged::Unreadable(e)),
    };
    let profile = if imported {
        Profile::Consumer
    } else {
        Profile::Author
    };
    let invalid = validate_tree_as(&tree, &dir, profile)?
        .into_iter()
        .find(|f| f.severity == Severity::Error);
    let hash = tree.hash();
    let digest_wanted = entry
        .is_some_and(|e| e.pending.is_none() && e.capabilities.is_some() && e.base_hash == hash);
    // One audit serves both the gate and the digest check.
    let report = if audit || digest_wanted {
        Some(Box::new(crate::audit::audit_tree(&tree)?))
    } else {
        None
    };
    let capabilities = report
        .as_ref()
        .filter(|_| digest_wanted)
        .map(|r| r.capabilities.digest());
    Ok(Judged::Read {
        invalid,
        hash,
        report: report.filter(|_| audit),
        capabilities,
    })
}
