//! Migrations: ownership moving between nested dests of one skill (a directory split into
//! files, files gathered into a directory).
//!
//! Old (locked) and new (planned) dests that overlap without being the same path form a
//! component; it is built as one artifact at its outermost dest and swapped in once, so no
//! state between the old layout and the new one is ever left on disk. It proceeds only from
//! the intact old state (every old placement as recorded, nothing foreign beneath), an absent
//! outermost dest, or one already holding exactly the artifact (a run stopped right after the
//! swap), so that a run carried on from either side of the swap finishes it.

use std::collections::{BTreeMap, BTreeSet};

use asv_fs::Root;
use asv_model::layout::SKILLS_DIR;

use crate::digest::{Digest, cmp_utf16};
use crate::error::{PlacementProblem, Result};
use crate::lock::Placement;
use crate::manifest::paths_overlap;
use crate::raw::{Files, MappingFiles};
use crate::report::Event;
use crate::snapshot::Snapshot;

use super::decide::DestKind;
use super::observe::{Standing, dest_rules, first_disagreement, observe, refuse_ignored};
use super::{DestWrite, Expected, material, planned_files};

/// What the migrations of one `gen` decided.
#[derive(Default)]
pub(super) struct Migrations {
    /// `cleared` and `claimed` lines, printed before every other raw line.
    pub(super) events: Vec<Event>,
    /// One artifact per component not already in place.
    pub(super) writes: Vec<DestWrite>,
    /// New dests written as part of a migration: (skill, dest without `/`).
    pub(super) handled_new: BTreeSet<(String, String)>,
    /// Old lock keys given up by a migration: (skill, key with its `/`).
    pub(super) handled_old: BTreeSet<(String, String)>,
}

/// A dest taking part in a migration: old (from the lock) or new (from the table).
struct Member<'a> {
    bare: String,
    kind: DestKind,
    old: Option<(&'a String, &'a Placement)>,
    new: Option<(&'a Expected, &'a MappingFiles, Digest)>,
}

impl Member<'_> {
    /// Its path below the outermost dest `outer` (empty for the outermost itself).
    fn below<'m>(&'m self, outer: &str) -> &'m str {
        self.bare
            .strip_prefix(outer)
            .unwrap_or("")
            .trim_start_matches('/')
    }
}

/// Finds every component of overlapping old and new dests and decides each.
///
/// # Errors
/// A component with no single outermost dest; one not in a state a migration may start from
/// or carry on; a dest `.gitignore` excludes, or would exclude a file of once written.
pub(super) fn migrations(
    root: &Root,
    snap: &Snapshot,
    expected: &[Expected],
) -> Result<Migrations> {
    let mut out = Migrations::default();
    let mut skills: BTreeSet<&String> = snap.lock.placements.keys().collect();
    skills.extend(expected.iter().map(|e| &e.skill));
    for skill in skills {
        let members = members(snap, expected, skill);
        for group in components(&members) {
            migrate(root, skill, &members, &group, &mut out)?;
        }
    }
    Ok(out)
}

/// The old dests of `skill` (lock order), then its new ones (table order).
fn members<'a>(snap: &'a Snapshot, expected: &'a [Expected], skill: &str) -> Vec<Member<'a>> {
    let mut members: Vec<Member<'_>> = Vec::new();
    if let Some(dests) = snap.lock.placements.get(skill) {
        for (key, p) in dests {
            members.push(Member {
                bare: key.strip_suffix('/').unwrap_or(key).to_owned(),
                kind: DestKind::of(key.ends_with('/')),
                old: Some((key, p)),
                new: None,
            });
        }
    }
    for e in expected.iter().filter(|e| e.skill == skill) {
        if let Some((m, d)) = material(snap, &e.id, &e.mapping) {
            members.push(Member {
                bare: e.mapping.dest.clone(),
                kind: DestKind::of(e.mapping.dir),
                old: None,
                new: Some((e, m, d)),
            });
        }
    }
    members
}

/// The components of "an old dest overlaps a new one without being the same path", each as
/// member indices in increasing order; members linked to nothing are in none.
fn components(members: &[Member<'_>]) -> Vec<Vec<usize>> {
    // Union-find: the sets are small (the dests of one skill), so no ranks are kept.
    fn find(parent: &mut [usize], i: usize) -> usize {
        let mut r = i;
        while parent[r] != r {
            r = parent[r];
        }
        parent[i] = r;
        r
    }
    let n = members.len();
    let mut parent: Vec<usize> = (0..n).collect();
    let mut linked = vec![false; n];
    for i in 0..n {
        for j in 0..n {
            let (a, b) = (&members[i], &members[j]);
            if a.old.is_some()
                && b.new.is_some()
                && a.bare != b.bare
                && paths_overlap(&a.bare, &b.bare)
            {
                let (ri, rj) = (find(&mut parent, i), find(&mut parent, j));
                parent[ri] = rj;
                linked[i] = true;
                linked[j] = true;
            }
        }
    }
    let mut components: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    for i in (0..n).filter(|i| linked[*i]) {
        let root = find(&mut parent, i);
        components.entry(root).or_default().push(i);
    }
    components.into_values().collect()
}

/// Decides one component: the events, the handled dests and, unless it is already in place,
/// the artifact to write at its outermost dest.
fn migrate(
    root: &Root,
    skill: &str,
    members: &[Member<'_>],
    group: &[usize],
    out: &mut Migrations,
) -> Result<()> {
    let outer = outermost(skill, members, group)?;
    let outer_site = format!("{SKILLS_DIR}/{skill}/{outer}");
    let (composite, kind) = composite(members, group, outer);
    let rules = dest_rules(root, &outer_site, kind)?;
    if kind.is_dir() {
        refuse_ignored(&rules, &outer_site, &composite)?;
    }
    let shown = |m: &Member<'_>| m.kind.shown(&format!("{SKILLS_DIR}/{skill}/{}", m.bare));
    let observed = observe(root, &outer_site, kind, &rules)?;
    let finished = observed.as_ref().is_some_and(|s| {
        s.kind == kind
            && s.files.len() == composite.len()
            && first_disagreement(&s.files, &composite, None).is_none()
    });
    if let Some(standing) = observed.as_ref().filter(|_| !finished) {
        check_intact(root, skill, members, group, outer, standing)?;
    }
    let olds = group.iter().filter_map(|i| {
        let m = &members[*i];
        m.old.map(|(_, p)| (m, p))
    });
    for (m, p) in olds {
        out.events.push(Event::Cleared {
            site: shown(m),
            id: p.contract.clone(),
            already_absent: observed.is_none(),
        });
    }
    if finished {
        for m in group.iter().map(|i| &members[*i]) {
            if let Some((e, _, _)) = &m.new {
                out.events.push(Event::Claimed {
                    site: shown(m),
                    id: e.id.clone(),
                });
            }
        }
    }
    for m in group.iter().map(|i| &members[*i]) {
        if let Some((key, _)) = m.old {
            out.handled_old.insert((skill.to_owned(), key.clone()));
        }
        if let Some((e, _, _)) = &m.new {
            out.handled_new
                .insert((skill.to_owned(), e.mapping.dest.clone()));
        }
    }
    if !finished {
        out.writes.push(DestWrite {
            site: outer_site,
            dir: kind.is_dir(),
            files: composite,
        });
    }
    Ok(())
}

/// The outermost dest of a component (the shortest path, olds first on a tie), skill-relative.
///
/// # Errors
/// Some member of the component is not at or under it.
fn outermost<'m>(skill: &str, members: &'m [Member<'_>], group: &[usize]) -> Result<&'m str> {
    let outer_idx = *group
        .iter()
        .min_by_key(|i| (members[**i].bare.len(), members[**i].old.is_none()))
        .unwrap_or(&group[0]);
    let outer = members[outer_idx].bare.as_str();
    if group.iter().all(|i| {
        let b = &members[*i].bare;
        b == outer || b.starts_with(&format!("{outer}/"))
    }) {
        Ok(outer)
    } else {
        Err(PlacementProblem::NoOutermost {
            skill: skill.to_owned(),
        }
        .into())
    }
}

/// The artifact: every new dest at its place under the outermost one (each new directory with
/// its marker), in UTF-16 order, and whether it is a directory or the one new file at `outer`.
fn composite(members: &[Member<'_>], group: &[usize], outer: &str) -> (Files, DestKind) {
    let mut composite: Files = Vec::new();
    let mut kind = DestKind::Directory;
    for m in group.iter().map(|i| &members[*i]) {
        let Some((e, files, contract)) = &m.new else {
            continue;
        };
        let rel = m.below(outer);
        let files = planned_files(files, &e.id, contract);
        if e.mapping.dir {
            for (p, b) in files {
                composite.push((
                    if rel.is_empty() {
                        p
                    } else {
                        format!("{rel}/{p}")
                    },
                    b,
                ));
            }
        } else if rel.is_empty() {
            kind = DestKind::File;
            composite = files;
        } else if let Some((_, b)) = files.into_iter().next() {
            composite.push((rel.to_owned(), b));
        }
    }
    composite.sort_by(|a, b| cmp_utf16(&a.0, &b.0));
    (composite, kind)
}

/// Checks the intact old state a migration may start from: every old dest of the component
/// still holds what the lock records, and nothing else stands under the outermost dest
/// (`standing`, what stands there now).
///
/// # Errors
/// An old dest gone, of the other kind or edited; a file under the outermost dest that no old
/// placement owns.
fn check_intact(
    root: &Root,
    skill: &str,
    members: &[Member<'_>],
    group: &[usize],
    outer: &str,
    standing: &Standing,
) -> Result<()> {
    let outer_site = format!("{SKILLS_DIR}/{skill}/{outer}");
    let mut owned: BTreeSet<String> = BTreeSet::new();
    for m in group.iter().map(|i| &members[*i]) {
        let Some((_, p)) = m.old else {
            continue;
        };
        let site = format!("{SKILLS_DIR}/{skill}/{}", m.bare);
        let rules = dest_rules(root, &site, m.kind)?;
        let seen = match observe(root, &site, m.kind, &rules)? {
            Some(seen) if seen.kind == m.kind => seen,
            _ => {
                return Err(PlacementProblem::MigrateMissing {
                    site,
                    recorded: m.kind,
                }
                .into());
            }
        };
        if seen.digest != p.digest {
            return Err(PlacementProblem::MigrateEdited { site }.into());
        }
        let rel = m.below(outer);
        match seen.kind {
            // Everything below an intact old directory is its, ignored files included: they
            // go with the replacement.
            DestKind::Directory => owned.extend(seen.files.iter().map(|(f, _)| {
                if rel.is_empty() {
                    f.clone()
                } else {
                    format!("{rel}/{f}")
                }
            })),
            DestKind::File => {
                owned.insert(if rel.is_empty() {
                    crate::raw::basename(outer).to_owned()
                } else {
                    rel.to_owned()
                });
            }
        }
    }
    match standing.files.iter().find(|(p, _)| !owned.contains(p)) {
        Some((foreign, _)) => Err(PlacementProblem::MigrateForeign {
            foreign: standing.kind.file_at(&outer_site, foreign),
            site: outer_site,
        }
        .into()),
        None => Ok(()),
    }
}
