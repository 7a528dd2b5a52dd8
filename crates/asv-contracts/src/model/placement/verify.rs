//! `verify`'s checks of raw placements: the lock's record against the declarations and the
//! table, then each undisputed recorded dest against its recorded digest and marker — without
//! needing the canonical files, so a tree verifies where the srcs are not at hand.

use std::collections::{BTreeMap, BTreeSet};

use asv_model::ignore::IgnoreRules;
use asv_model::layout::SKILLS_DIR;

use crate::digest::cmp_utf16;
use crate::document::header;
use crate::error::{PlacementProblem, Result};
use crate::lock::{Placement, Placements};
use crate::raw::{Blob, MARKER};
use crate::report::{self, DriftProblem, Violation};
use crate::repository::Repository;
use crate::snapshot::Snapshot;

use super::decide::DestKind;
use super::observe::{Standing, counted, dest_rules, first_disagreement, observe};
use super::{Expected, expected, material, sort_utf16};

/// Declared dests by skill, then by lock key.
type BySkill<'e> = BTreeMap<String, BTreeMap<String, &'e Expected>>;

/// `verify`'s checks of raw placements: the record against the declarations and the table,
/// then each undisputed recorded dest against its recorded digest and marker.
///
/// # Errors
/// A dest `.gitignore` excludes; a recorded dest of the wrong kind; a guarded-read refusal.
pub fn verify(repo: &Repository<'_>, snap: &Snapshot, out: &mut Vec<Violation>) -> Result<()> {
    let lock = &snap.lock.placements;
    let expected = expected(repo)?;
    let mut by_skill: BySkill<'_> = BTreeMap::new();
    for e in &expected {
        by_skill
            .entry(e.skill.clone())
            .or_default()
            .insert(e.mapping.dest_key(), e);
    }
    let disputed = check_records(repo, &by_skill, lock, out);
    let mut recorded: Vec<(&String, &String, &Placement)> = lock
        .iter()
        .flat_map(|(s, d)| d.iter().map(move |(k, p)| (s, k, p)))
        .collect();
    recorded.sort_by(|a, b| cmp_utf16(a.0, b.0).then_with(|| cmp_utf16(a.1, b.1)));
    for (skill, key, placement) in recorded {
        // A disputed record already has its `placement` line; judging its files against a
        // record the table contradicts would only repeat it.
        if disputed.contains(&(skill.clone(), key.clone())) {
            continue;
        }
        let declared = by_skill.get(skill).and_then(|m| m.get(key)).copied();
        check_dest(repo, snap, skill, key, placement, declared, out)?;
    }
    Ok(())
}

/// Pushes a `placement` line for each dest where the record and the declarations disagree,
/// by skill and dest in UTF-16 order, and returns the disputed records (skill, lock key).
fn check_records(
    repo: &Repository<'_>,
    by_skill: &BySkill<'_>,
    lock: &Placements,
    out: &mut Vec<Violation>,
) -> BTreeSet<(String, String)> {
    let mut skills: Vec<String> = by_skill.keys().chain(lock.keys()).cloned().collect();
    sort_utf16(&mut skills);
    skills.dedup();
    let mut disputed: BTreeSet<(String, String)> = BTreeSet::new();
    for skill in &skills {
        let placed = by_skill.get(skill);
        let recorded = lock.get(skill);
        let mut keys: Vec<String> = placed
            .into_iter()
            .flat_map(|m| m.keys())
            .chain(recorded.into_iter().flat_map(|m| m.keys()))
            .cloned()
            .collect();
        sort_utf16(&mut keys);
        keys.dedup();
        for key in keys {
            let site = format!("{SKILLS_DIR}/{skill}/{key}");
            let problem = match (
                placed.and_then(|m| m.get(&key)),
                recorded.and_then(|m| m.get(&key)),
            ) {
                (None, Some(r)) => {
                    // The skill still declares the contract and only its row is gone: the
                    // declaration was not withdrawn, so the record is not disputed here.
                    let declared_without_row = repo
                        .skills
                        .iter()
                        .any(|s| &s.name == skill && s.declared.contains(&r.contract))
                        && repo.manifest.raw(&r.contract).is_none();
                    if declared_without_row {
                        continue;
                    }
                    report::PlacementMismatch::Gone {
                        id: r.contract.clone(),
                    }
                }
                (Some(e), None) => {
                    // Not disputed: there is no record whose files could be judged.
                    out.push(Violation::Placement {
                        site,
                        problem: report::PlacementMismatch::Unrecorded { id: e.id.clone() },
                    });
                    continue;
                }
                (Some(e), Some(r)) if r.contract != e.id || r.src != e.mapping.src_key() => {
                    report::PlacementMismatch::Differs {
                        recorded: (r.contract.clone(), r.src.clone()),
                        placed: (e.id.clone(), e.mapping.src_key()),
                    }
                }
                (Some(_), Some(_)) | (None, None) => continue,
            };
            out.push(Violation::Placement { site, problem });
            disputed.insert((skill.clone(), key));
        }
    }
    disputed
}

/// Judges one undisputed recorded dest: `drift` missing, files or no longer selected, then
/// its marker. `declared` is the dest the table places at the same key, if any.
///
/// # Errors
/// A dest `.gitignore` excludes; the other kind of entry than the lock records.
fn check_dest(
    repo: &Repository<'_>,
    snap: &Snapshot,
    skill: &str,
    key: &str,
    placement: &Placement,
    declared: Option<&Expected>,
    out: &mut Vec<Violation>,
) -> Result<()> {
    let bare = key.strip_suffix('/').unwrap_or(key);
    let kind = DestKind::of(key.ends_with('/'));
    let site = format!("{SKILLS_DIR}/{skill}/{bare}");
    let rules = dest_rules(repo.root, &site, kind)?;
    let drift = |problem| Violation::Drift {
        path: site.clone(),
        id: placement.contract.clone(),
        problem,
    };
    let Some(standing) = observe(repo.root, &site, kind, &rules)? else {
        out.push(drift(DriftProblem::Missing));
        return Ok(());
    };
    if standing.kind != kind {
        return Err(PlacementProblem::RecordedWrongKind {
            site,
            recorded: kind,
            found: standing.kind,
        }
        .into());
    }
    if standing.digest != placement.digest {
        // Name the first differing file when the srcs are at hand to compare with.
        let differs = declared
            .and_then(|e| material(snap, &e.id, &e.mapping))
            .and_then(|(m, _)| {
                first_disagreement(
                    &counted(kind, &standing.files, &site, &rules),
                    &m.files,
                    None,
                )
            })
            .map(|f| kind.file_at(&site, &f));
        out.push(drift(DriftProblem::Files {
            found: standing.digest,
            locked: placement.digest,
            differs,
        }));
    } else if let Some(file) = no_longer_selected(repo, placement, &standing, &site, &rules) {
        out.push(drift(DriftProblem::NoLongerSelected { file }));
    }
    if let (DestKind::Directory, Some(resolution)) =
        (kind, snap.lock.resolutions.get(&placement.contract))
    {
        let marker = header(&placement.contract, &resolution.digest);
        let holds = standing
            .files
            .iter()
            .any(|(p, b)| p == MARKER && *b == Blob::of(marker.as_bytes()));
        if !holds {
            out.push(drift(DriftProblem::Marker {
                locked: resolution.digest,
            }));
        }
    }
    Ok(())
}

/// The first counted file of an intact directory dest that the table's `ignore` patterns now
/// exclude, from the root: the record still matches, but `gen` would no longer place it.
fn no_longer_selected(
    repo: &Repository<'_>,
    placement: &Placement,
    standing: &Standing,
    site: &str,
    rules: &IgnoreRules,
) -> Option<String> {
    let row = repo.manifest.raw(&placement.contract)?;
    if standing.kind != DestKind::Directory {
        return None;
    }
    let mut patterns = repo.manifest.ignore.clone();
    patterns.extend(row.ignore.iter().cloned());
    let selection = IgnoreRules::from_patterns(&patterns);
    standing
        .files
        .iter()
        .find(|(rel, _)| {
            rel != MARKER
                && !rules.excludes_below(site, rel, false)
                && selection.excludes_below("", rel, false)
        })
        .map(|(rel, _)| format!("{site}/{rel}"))
}
