//! Raw-byte placements: where each copy lands, who owns it, and how `gen` and `verify` judge it.
//!
//! A raw dest can be anywhere in a skill, so the tool must never overwrite something it cannot
//! show it wrote. The lock's `placements` record each dest and the digest written there; `gen`
//! writes an empty dest, replaces a recorded dest that still holds what was recorded, claims a
//! dest that already holds exactly what it would write, and refuses anything else. A recorded
//! dest no declaration places any more is cleared only while it still holds what was recorded.
//! Inside a directory dest, files the repository's `.gitignore` excludes are neither checked nor
//! protected. `verify` judges every recorded dest against its recorded digest without needing
//! the canonical files.
//!
//! [`plan`] reads what stands at each dest (`observe`), weighs it with the pure
//! [`decide`], handles dests moving between nested places first (`migrate`) and clears what
//! nothing declares any more last (`sweep`); [`verify`] is `verify`'s side.

mod decide;
mod migrate;
mod observe;
mod sweep;
mod verify;

use std::collections::BTreeMap;

use asv_fs::Root;
use asv_model::id::ContractId;
use asv_model::ignore::IgnoreRules;
use asv_model::layout::SKILLS_DIR;

use crate::digest::{Digest, cmp_utf16};
use crate::document::header;
use crate::error::{PlacementProblem, Result};
use crate::lock::{Placement, Placements};
use crate::manifest::{Mapping, paths_overlap};
use crate::raw::{Blob, BlobAt, Files, MARKER, MappingFiles, RawState};
use crate::report::Event;
use crate::repository::Repository;
use crate::snapshot::Snapshot;

pub use decide::{Decision, DestKind, Planned, Recorded, decide};
pub use observe::Standing;
pub use verify::verify;

use observe::{dest_rules, observe, refuse_ignored};

/// One dest the declarations and the table place.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Expected {
    /// The skill.
    pub skill: String,
    /// The raw-byte contract.
    pub id: ContractId,
    /// The mapping of the table.
    pub mapping: Mapping,
}

impl Expected {
    /// `skills/<skill>/<dest>` without a trailing `/`.
    pub fn site(&self) -> String {
        format!("{SKILLS_DIR}/{}/{}", self.skill, self.mapping.dest)
    }
}

/// Sorts names as the TypeScript tool does, by UTF-16 code units, so lines come in its order.
fn sort_utf16(v: &mut [String]) {
    v.sort_by(|a, b| cmp_utf16(a, b));
}

/// Every dest the declarations and the table place: skills in order, their raw ids sorted,
/// mappings in table order.
///
/// # Errors
/// Two dests of one skill that are the same or nest.
pub fn expected(repo: &Repository<'_>) -> Result<Vec<Expected>> {
    let mut out = Vec::new();
    for skill in &repo.skills {
        let mut ids = skill.declared.clone();
        ids.sort();
        let mut taken: Vec<(String, ContractId)> = Vec::new();
        for id in ids {
            let Some(row) = repo.manifest.raw(&id) else {
                continue;
            };
            for mapping in &row.mappings {
                if let Some((other, other_id)) =
                    taken.iter().find(|(d, _)| paths_overlap(d, &mapping.dest))
                {
                    return Err(PlacementProblem::DestsOverlap {
                        skill: skill.name.clone(),
                        id: id.clone(),
                        dest: mapping.dest.clone(),
                        other: other.clone(),
                        other_id: other_id.clone(),
                    }
                    .into());
                }
                taken.push((mapping.dest.clone(), id.clone()));
                out.push(Expected {
                    skill: skill.name.clone(),
                    id: id.clone(),
                    mapping: mapping.clone(),
                });
            }
        }
    }
    Ok(out)
}

/// The files a dest receives: the mapping's files, plus the marker for a directory.
fn planned_files(m: &MappingFiles, id: &ContractId, contract: &Digest) -> Files {
    let mut files = m.files.clone();
    if m.mapping.dir {
        files.push((MARKER.to_owned(), Blob::of(header(id, contract).as_bytes())));
    }
    files
}

/// What the srcs of `mapping` hold now and the contract digest, when they are all at hand.
fn material<'s>(
    snap: &'s Snapshot,
    id: &ContractId,
    mapping: &Mapping,
) -> Option<(&'s MappingFiles, Digest)> {
    match snap.raw.get(id)? {
        RawState::Present { mappings, digest } => mappings
            .iter()
            .find(|m| &m.mapping == mapping)
            .map(|m| (m, *digest)),
        RawState::Absent { .. } | RawState::NotHeld { .. } => None,
    }
}

/// One dest `gen` writes: where, and the files to put there.
#[derive(Debug)]
pub struct DestWrite {
    /// `skills/<skill>/<dest>`.
    pub site: String,
    /// Whether it is a directory.
    pub dir: bool,
    /// Paths relative to the dest (for a file dest, one entry that is the file).
    pub files: Files,
}

/// What `gen` will do with raw dests.
#[derive(Debug, Default)]
pub struct RawPlan {
    /// `claimed`/`cleared` lines, in the order they are printed.
    pub events: Vec<Event>,
    /// Dests to write (only those whose content changes).
    pub writes: Vec<DestWrite>,
    /// Recorded dests to remove.
    pub removals: Vec<String>,
    /// The placements the new lock records.
    pub placements: Placements,
    /// Whether any raw dest is planned or cleared (the working directory is then used).
    pub touches_dests: bool,
}

/// Plans every raw dest: write, replace, claim or refuse; clear or refuse. Nothing is written.
///
/// Migrations are decided first, then each declared dest (see [`decide`]), then the sweep of
/// recorded dests nothing declares any more; the lines follow that order, `claimed` lines of
/// declared dests in table order.
///
/// # Errors
/// Something stands at a dest that the lock does not record and that is not what this run
/// writes; a recorded dest to clear that was edited; a dest `.gitignore` excludes; overlapping
/// old and new dests that are not in a state a migration may start from or carry on.
pub fn plan(repo: &Repository<'_>, snap: &Snapshot) -> Result<RawPlan> {
    let root = repo.root;
    let mut out = RawPlan::default();
    let expected = expected(repo)?;
    let migration = migrate::migrations(root, snap, &expected)?;
    out.events.extend(migration.events);
    out.writes.extend(migration.writes);
    if !migration.handled_new.is_empty() {
        out.touches_dests = true;
    }
    let mut claimed = Vec::new();
    let mut planned_sites: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for e in &expected {
        let Some((m, contract)) = material(snap, &e.id, &e.mapping) else {
            continue;
        };
        out.touches_dests = true;
        // A dest a migration writes is part of its artifact; it is recorded all the same.
        if !migration
            .handled_new
            .contains(&(e.skill.clone(), e.mapping.dest.clone()))
        {
            let decision = place(root, &snap.lock.placements, e, m, &contract, &mut out)?;
            claimed
                .extend(decision.event(DestKind::of(e.mapping.dir).shown(&e.site()), e.id.clone()));
        }
        planned_sites
            .entry(e.skill.clone())
            .or_default()
            .push(e.mapping.dest.clone());
        out.placements.entry(e.skill.clone()).or_default().insert(
            e.mapping.dest_key(),
            Placement {
                contract: e.id.clone(),
                digest: m.placement_digest(),
                src: e.mapping.src_key(),
            },
        );
    }
    out.events.extend(claimed);
    sweep::sweep(
        root,
        &snap.lock.placements,
        &planned_sites,
        &migration.handled_old,
        &mut out,
    )?;
    Ok(out)
}

/// Decides one declared dest outside any migration and adds its write to `out` when it has
/// one; returns the decision for its line.
///
/// # Errors
/// A dest `.gitignore` excludes, or would exclude a planned file of; a refusal of [`decide`].
fn place(
    root: &Root,
    old: &Placements,
    e: &Expected,
    m: &MappingFiles,
    contract: &Digest,
    out: &mut RawPlan,
) -> Result<Decision> {
    let site = e.site();
    let kind = DestKind::of(e.mapping.dir);
    let rules = dest_rules(root, &site, kind)?;
    let planned = Planned {
        kind,
        files: planned_files(m, &e.id, contract),
    };
    if kind.is_dir() {
        refuse_ignored(&rules, &site, &planned.files)?;
    }
    let standing = observe(root, &site, kind, &rules)?;
    let recorded = recorded_at(old, e);
    let decision = decide(&site, standing.as_ref(), recorded.as_ref(), Some(&planned))?;
    if decision.writes() {
        out.writes.push(DestWrite {
            site,
            dir: kind.is_dir(),
            files: planned.files,
        });
    }
    Ok(decision)
}

/// What the lock records at a declared dest: under its key, or under the key of the other
/// kind, so that a dest that changed kind is still judged against its record.
fn recorded_at(old: &Placements, e: &Expected) -> Option<Recorded> {
    let dests = old.get(&e.skill)?;
    let p = dests
        .get(&e.mapping.dest_key())
        .or_else(|| dests.get(&e.mapping.dest))
        .or_else(|| dests.get(&format!("{}/", e.mapping.dest)))?;
    Some(Recorded {
        // The src's trailing `/` says what was written, whichever key holds the record.
        kind: DestKind::of(p.src.ends_with('/')),
        digest: p.digest,
    })
}

/// Whether the repository's `.gitignore` keeps the working directory out of git.
///
/// # Errors
/// A guarded-read refusal of a `.gitignore`.
pub fn workdir_ignored(root: &Root) -> Result<bool> {
    Ok(match IgnoreRules::for_dir(root, "")? {
        Some(rules) => rules.is_excluded(asv_model::layout::TOOL_DIR, true),
        None => true,
    })
}

/// The tree changes that write the planned dests and clear the swept ones, for `gen`'s one
/// plan of `asv-fs`'s tree-change layer.
///
/// Ownership was decided by [`plan`] (a dest is replaced or removed only when the lock shows
/// the tool wrote it, or it already holds the artifact), so the changes are forced.
pub fn changes(plan: &RawPlan) -> Vec<asv_fs::Change> {
    use asv_fs::{Change, Fill, NewFile, Ownership};
    let mut changes = Vec::with_capacity(plan.writes.len() + plan.removals.len());
    for write in &plan.writes {
        if write.dir {
            let files = write
                .files
                .iter()
                .map(|(rel, blob)| match &blob.at {
                    BlobAt::Bytes(bytes) => NewFile::new(rel.clone(), bytes.clone()),
                    BlobAt::Tree(_) => NewFile::copy_of(rel.clone(), tree_file(blob)),
                })
                .collect();
            changes.push(Change::replace(
                write.site.clone(),
                Fill::files(files),
                Ownership::Force,
            ));
        } else if let Some((_, blob)) = write.files.first() {
            changes.push(match &blob.at {
                BlobAt::Bytes(bytes) => {
                    Change::replace_file(write.site.clone(), bytes.clone(), Ownership::Force)
                }
                BlobAt::Tree(_) => {
                    Change::replace_file_copy(write.site.clone(), tree_file(blob), Ownership::Force)
                }
            });
        }
    }
    for site in &plan.removals {
        changes.push(Change::remove(site.clone(), Ownership::Force));
    }
    changes
}

/// The file a blob read from the tree is copied from, with what it held when it was read: a
/// src edited since is refused by the copy, so the lock never records bytes it did not place.
fn tree_file(blob: &Blob) -> asv_fs::TreeFile {
    asv_fs::TreeFile {
        path: match &blob.at {
            BlobAt::Tree(path) => path.clone(),
            BlobAt::Bytes(_) => String::new(),
        },
        len: blob.len,
        sha256: blob.sha256.to_bytes(),
    }
}

#[cfg(test)]
mod tests {
    use asv_model::id::ContractId;

    use crate::error::{Error, PlacementProblem};

    use super::DestKind::{Directory as D, File as F};

    fn id(s: &str) -> ContractId {
        ContractId::parse(s).unwrap()
    }

    /// Every refusal prints exactly what it printed while it was a ready-made string; the
    /// integration tests reach most of them, this table reaches all.
    #[test]
    fn refusal_wordings() {
        let s = || "skills/a/tools".to_owned();
        #[rustfmt::skip]
        let rows: Vec<(PlacementProblem, &str)> = vec![
            (PlacementProblem::DestsOverlap { skill: "a".into(), id: id("two"), dest: "x/y".into(), other: "x".into(), other_id: id("one") },
                r#"skill "a" places contract two at "x/y", which is the same as or nests with "x" of contract one; two distributions cannot share a place in one skill, so change one dest in vendor-manifest.yaml"#),
            (PlacementProblem::DestIgnored { site: s() },
                "skills/a/tools is excluded by the repository's .gitignore rules; a dest verify cannot see is not one gen may write, so change the rule or the dest"),
            (PlacementProblem::FileIgnored { site: s(), file: "x.pyc".into() },
                "skills/a/tools/x.pyc would be excluded by the repository's .gitignore rules once placed; a distributed file verify cannot see is not one gen may write, so change the rule or the dest"),
            (PlacementProblem::UnownedKind { site: s(), found: F, planned: D },
                "refusing to write skills/a/tools: a file stands there that the lock does not record as this tool's, and this run writes a directory; move it aside or delete it by hand"),
            (PlacementProblem::Unowned { site: s(), differs: "skills/a/tools/x".into() },
                "refusing to write skills/a/tools: something stands there that the lock does not record as this tool's, and it is not what this run would write — skills/a/tools/x differs or is not this run's to write; move it aside or delete it by hand"),
            (PlacementProblem::Edited { site: s(), differs: "skills/a/tools/x".into() },
                "refusing to write skills/a/tools: it was edited since gen placed it — skills/a/tools/x is not what the lock records there; keep your edit elsewhere and delete skills/a/tools (gen then places it afresh), or undo the edit"),
            (PlacementProblem::NestsWithPlanned { site: s(), planned: "skills/a/tools/x".into() },
                "skills/a/tools is recorded in the lock and nests with skills/a/tools/x, which this run writes; this build does not move ownership between nested dests: withdraw the declaration from every skill, run gen, then place the new dest"),
            (PlacementProblem::ClearWrongKind { site: s(), recorded: D, found: F },
                "skills/a/tools: the lock records a directory there, found a file; it is not this tool's to clear, so move it aside by hand"),
            (PlacementProblem::ClearEdited { site: s() },
                "refusing to clear skills/a/tools: it no longer holds what the lock recorded this tool wrote there; delete it by hand if it is not yours"),
            (PlacementProblem::NoOutermost { skill: "a".into() },
                r#"placements in skill "a" overlap but have no single owned outermost dest; withdraw the declarations, run gen, then place the new dests"#),
            (PlacementProblem::MigrateMissing { site: s(), recorded: F },
                "skills/a/tools no longer has the file placement recorded by the lock; restore it or delete the lock's record by hand before moving the dest"),
            (PlacementProblem::MigrateEdited { site: s() },
                "refusing to migrate skills/a/tools: it no longer holds the placement recorded by the lock; restore it or move it aside by hand"),
            (PlacementProblem::MigrateForeign { site: s(), foreign: "skills/a/tools/x".into() },
                "refusing to write skills/a/tools: skills/a/tools/x is not owned by an old placement or written by this run; move it aside or delete it by hand"),
            (PlacementProblem::RecordedWrongKind { site: s(), recorded: F, found: D },
                "skills/a/tools: vendor-lock.json records a file there, found a directory; move it aside and run gen"),
        ];
        for (problem, want) in rows {
            assert_eq!(problem.to_string(), want, "{problem:?}");
            // The variant adds nothing around its problem.
            assert_eq!(Error::from(problem).to_string(), want);
        }
    }

    /// A name holding a control character is spelled as JSON, as everywhere else.
    #[test]
    fn refusal_quotes_control_characters() {
        let problem = PlacementProblem::ClearEdited {
            site: "skills/a/t\u{7}ools".into(),
        };
        assert!(
            problem
                .to_string()
                .starts_with(r#"refusing to clear "skills/a/t\u0007ools": "#),
            "{problem}"
        );
    }
}
