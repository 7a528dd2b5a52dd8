//! `verify`: does the tree still agree with the lock?

use std::collections::BTreeMap;

use asv_model::id::ContractId;

use crate::document::{CopyState, judge_file};
use crate::error::Result;
use crate::lock::{LockView, Resolution};
use crate::report::{DriftProblem, Violation};
use crate::repository::{LockFile, Repository, Skill};
use crate::snapshot::Snapshot;

/// Checks the whole tree against the lock and returns every violation, in the order the
/// compatibility contract fixes: closure, lock entries, copies (skill by skill, drift then
/// extra), placements, the lock file (or one `source-mismatch` per source pinned to another
/// repository than the table registers), conformance.
///
/// A contract from another repository is read from the cache at the pinned commit. Without
/// the cache its text is unknown, and the two comparisons that need it (`stale-lock`,
/// `conformance-mismatch`) are left out; it is never a `closure` gap.
///
/// # Errors
/// A refusal while reading (declarations, manifest, lock, guarded reads).
///
/// # Example
/// ```
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let dir = tempfile::tempdir()?;
/// let root = asv_fs::Root::open(dir.path())?;
/// let repo = asv_contracts::Repository::load(&root)?;
/// let lines: Vec<String> = asv_contracts::verify(&repo)?.iter().map(|v| v.line_text()).collect();
/// assert_eq!(lines, ["lock: vendor-lock.json is missing"]);
/// # Ok(())
/// # }
/// ```
pub fn verify(repo: &Repository<'_>) -> Result<Vec<Violation>> {
    let snap = Snapshot::take(repo)?;
    let mut out = snap.closure(repo);

    for (id, canonical) in &snap.canonical {
        // A remote contract's text may be unknown here (no cache); what the lock records for a
        // declared one is still decidable, so `unresolved` is reported with or without it.
        let remote = canonical.remote.is_some();
        if canonical.body.is_none() && !remote {
            continue;
        }
        if snap.lock.resolutions.get(id).map(|r| r.kind) == Some(crate::lock::ContractKind::Raw) {
            continue;
        }
        match (snap.lock.resolutions.get(id), &canonical.body) {
            (None, _) if snap.declared.contains(id) => {
                out.push(Violation::Unresolved { id: id.clone() });
            }
            (Some(r), Some(body)) if r.digest != body.digest() => {
                out.push(Violation::StaleLock {
                    id: id.clone(),
                    recorded: r.digest,
                    path: canonical.path.clone(),
                    current: body.digest(),
                    remote,
                });
            }
            _ => {}
        }
    }

    for (id, state) in &snap.raw {
        match (snap.lock.resolutions.get(id), state) {
            (None, _) if snap.declared.contains(id) => {
                out.push(Violation::Unresolved { id: id.clone() });
            }
            (Some(r), crate::raw::RawState::Present { digest, .. }) if r.digest != *digest => {
                out.push(Violation::RawStaleLock {
                    id: id.clone(),
                    recorded: r.digest,
                    current: *digest,
                });
            }
            _ => {}
        }
    }

    // Skills are checked in parallel and their findings joined in skill order.
    let per_skill: Vec<Result<Vec<Violation>>> = {
        use rayon::prelude::*;
        repo.skills
            .par_iter()
            .map(|skill| {
                let mut found = Vec::new();
                check_copies(repo, &snap, skill, &mut found)?;
                Ok(found)
            })
            .collect()
    };
    for found in per_skill {
        out.extend(found?);
    }

    crate::placement::verify(repo, &snap, &mut out)?;

    // A pin naming another repository than the table registers differs from the rendering by
    // construction (the rendering takes the repository from the table); that one cause is
    // reported once per source, in place of the whole-file comparison.
    let divergent = snap.lock.divergent_sources(&repo.manifest);
    match &repo.lock_file {
        LockFile::Missing => out.push(Violation::Lock { missing: true }),
        LockFile::Present { .. } if !divergent.is_empty() => {
            out.extend(divergent.into_iter().map(|d| Violation::SourceMismatch {
                name: d.name,
                pinned: d.pinned.as_str().to_owned(),
                registered: d.registered.as_str().to_owned(),
            }));
        }
        LockFile::Present { bytes, .. } => {
            // Compared as it is rendered, straight from the skills' declarations: the
            // expected lock is never built whole beside the one read (issue 16, scale).
            let text = bytes.strip_prefix(b"\xef\xbb\xbf").unwrap_or(bytes);
            let mut compare = crate::json::Compare::new(text);
            let dependencies = repo.dependencies_list();
            let resolutions = kept_resolutions(&snap);
            let sources = snap.lock.registered_sources(&repo.manifest);
            LockView {
                dependencies: &dependencies,
                resolutions: &resolutions,
                sources: &sources,
                placements: &snap.lock.placements,
            }
            .write(&mut compare);
            if !compare.matched() {
                out.push(Violation::Lock { missing: false });
            }
        }
    }

    for (id, recorded) in &snap.lock.resolutions {
        let Some(canonical) = snap.canonical.get(id) else {
            continue;
        };
        if canonical.body.is_none() || recorded.kind == crate::lock::ContractKind::Raw {
            continue;
        }
        if canonical.conformance != recorded.conformance {
            out.push(Violation::ConformanceMismatch {
                id: id.clone(),
                now: canonical.conformance,
                recorded: recorded.conformance,
            });
        }
    }
    Ok(out)
}

/// The recorded resolutions the lock the declarations give keeps: those of contracts whose
/// text is still there, or that come from another repository (with or without a cache). With
/// the current dependencies, the pins of the sources the table still registers and
/// `placements` kept, they are the lock `verify` expects.
fn kept_resolutions(snap: &Snapshot) -> BTreeMap<ContractId, Resolution> {
    snap.lock
        .resolutions
        .iter()
        .filter(|(id, _)| snap.keeps_resolution(id))
        .map(|(id, r)| (id.clone(), r.clone()))
        .collect()
}

fn check_copies(
    repo: &Repository<'_>,
    snap: &Snapshot,
    skill: &Skill,
    out: &mut Vec<Violation>,
) -> Result<()> {
    let mut ids = skill.declared.clone();
    ids.sort();
    for id in &ids {
        if repo.manifest.raw(id).is_some() {
            continue;
        }
        let Some(resolution) = snap.lock.resolutions.get(id) else {
            continue;
        };
        let path = skill.copy_path(id);
        let problem = match judge_file(repo.root, &path, id, &resolution.digest)? {
            None => Some(DriftProblem::Missing),
            Some((state, _)) => match state {
                CopyState::Intact => None,
                CopyState::Header => Some(DriftProblem::Header {
                    locked: resolution.digest,
                }),
                CopyState::Body(found) => Some(DriftProblem::Body {
                    found,
                    locked: resolution.digest,
                }),
            },
        };
        if let Some(problem) = problem {
            out.push(Violation::Drift {
                path,
                id: id.clone(),
                problem,
            });
        }
    }
    for name in crate::generate::extra_entries(repo, skill)? {
        out.push(Violation::Extra {
            path: format!("{}/{name}", skill.vendor_dir()),
        });
    }
    Ok(())
}
