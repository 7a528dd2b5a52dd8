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

use std::collections::{BTreeMap, BTreeSet};

use asv_fs::{EntryKind, Tree};

use crate::digest::{Digest, Framed, cmp_utf16};
use crate::document::header;
use crate::error::{Error, Result};
use crate::id::ContractId;
use crate::ignore::IgnoreRules;
use crate::lock::{Placement, Placements};
use crate::manifest::{Mapping, paths_overlap};
use crate::raw::{MARKER, MappingFiles, RawState};
use crate::report::{DriftProblem, Event, PlacementProblem, Violation};
use crate::repository::{Repository, SKILLS_DIR};
use crate::snapshot::Snapshot;

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
                    return Err(Error::Placement {
                        message: format!(
                            "skill {} places contract {id} at {}, which is the same as or nests with {} of contract {other_id}; two distributions cannot share a place in one skill, so change one dest in vendor-manifest.yaml",
                            asv_fs::quote::json_string(&skill.name),
                            asv_fs::quote::json_string(&mapping.dest),
                            asv_fs::quote::json_string(other)
                        ),
                    });
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

/// What stands at a dest.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Observed {
    /// Nothing.
    Absent,
    /// A regular file and its bytes.
    File(Vec<u8>),
    /// A directory: every file below it (marker and ignored files included), UTF-16 order.
    Dir(Vec<(String, Vec<u8>)>),
}

impl Observed {
    fn kind_word(&self) -> &'static str {
        match self {
            Observed::Absent => "nothing",
            Observed::File(_) => "file",
            Observed::Dir(_) => "directory",
        }
    }
}

fn observe(tree: &Tree, site: &str, dir: bool) -> Result<Observed> {
    match tree.kind(site)? {
        None => Ok(Observed::Absent),
        Some(EntryKind::File) => Ok(Observed::File(tree.read_file(site)?.unwrap_or_default())),
        Some(EntryKind::Directory) => {
            let mut files = Vec::new();
            let mut paths = tree
                .walk_files(site, &mut |_, _| false)?
                .unwrap_or_default();
            sort_utf16(&mut paths);
            for rel in paths {
                let bytes = tree
                    .read_file(&format!("{site}/{rel}"))?
                    .unwrap_or_default();
                files.push((rel, bytes));
            }
            Ok(Observed::Dir(files))
        }
        Some(EntryKind::Symlink) => Err(asv_fs::Error::Symlink {
            path: site.to_owned(),
        }
        .into()),
        Some(found) => Err(asv_fs::Error::WrongKind {
            path: site.to_owned(),
            expected: if dir {
                EntryKind::Directory
            } else {
                EntryKind::File
            },
            found,
        }
        .into()),
    }
}

/// The `.gitignore` rules that apply at a dest (read from the root down to its parent; a
/// `.gitignore` inside a dest is content, not rules). Refuses a dest those rules exclude.
fn dest_rules(tree: &Tree, site: &str, dir: bool) -> Result<IgnoreRules> {
    let parent = site.rsplit_once('/').map_or("", |(p, _)| p);
    let refuse = || Error::Placement {
        message: format!(
            "{} is excluded by the repository's .gitignore rules; a dest verify cannot see is not one gen may write, so change the rule or the dest",
            asv_fs::quote::DisplayPath(site)
        ),
    };
    match IgnoreRules::for_dir(tree, parent)? {
        Some(rules) if !rules.is_excluded(site, dir) => Ok(rules),
        _ => Err(refuse()),
    }
}

/// The files of an observed dest that count: the top-level marker and `.gitignore`-excluded
/// files left out.
fn counted<'o>(
    observed: &'o Observed,
    site: &str,
    rules: &IgnoreRules,
    dest_name: &str,
) -> Vec<(String, &'o [u8])> {
    match observed {
        Observed::Absent => Vec::new(),
        Observed::File(bytes) => vec![(dest_name.to_owned(), bytes.as_slice())],
        Observed::Dir(files) => files
            .iter()
            .filter(|(rel, _)| rel != MARKER && !rules.excludes_below(site, rel, false))
            .map(|(rel, bytes)| (rel.clone(), bytes.as_slice()))
            .collect(),
    }
}

/// Every file of an observed dest, marker and ignored files included (a file dest by `name`).
fn all_entries<'o>(observed: &'o Observed, name: &str) -> Vec<(String, &'o [u8])> {
    match observed {
        Observed::Absent => Vec::new(),
        Observed::File(b) => vec![(name.to_owned(), b.as_slice())],
        Observed::Dir(fs) => fs.iter().map(|(p, b)| (p.clone(), b.as_slice())).collect(),
    }
}

fn digest_of(files: &[(String, &[u8])]) -> Digest {
    let mut framed = Framed::default();
    for (path, bytes) in files {
        framed.add(path.clone(), bytes.to_vec());
    }
    framed.finish().unwrap_or_else(|| Digest::of(b""))
}

/// The first file where `observed` and `planned` disagree: an observed file not planned or
/// with other bytes (in order), else a planned file that is missing (skipping `optional`).
fn first_disagreement(
    observed: &[(String, &[u8])],
    planned: &[(String, Vec<u8>)],
    optional: Option<&str>,
) -> Option<String> {
    let plan: BTreeMap<&str, &[u8]> = planned
        .iter()
        .map(|(p, b)| (p.as_str(), b.as_slice()))
        .collect();
    for (path, bytes) in observed {
        if plan.get(path.as_str()) != Some(bytes) {
            return Some(path.clone());
        }
    }
    let seen: BTreeSet<&str> = observed.iter().map(|(p, _)| p.as_str()).collect();
    planned
        .iter()
        .map(|(p, _)| p.as_str())
        .find(|p| !seen.contains(p) && Some(*p) != optional)
        .map(str::to_owned)
}

/// The files a dest receives: the mapping's files, plus the marker for a directory.
fn planned_files(m: &MappingFiles, id: &ContractId, contract: &Digest) -> Vec<(String, Vec<u8>)> {
    let mut files = m.files.clone();
    if m.mapping.dir {
        files.push((MARKER.to_owned(), header(id, contract).into_bytes()));
    }
    files
}

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
    /// Paths relative to the dest (for a file dest, one entry whose bytes are the file).
    pub files: Vec<(String, Vec<u8>)>,
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
/// # Errors
/// Something stands at a dest that the lock does not record and that is not what this run
/// writes; a recorded dest to clear that was edited; a dest `.gitignore` excludes; overlapping
/// old and new dests (a migration this build does not perform).
pub fn plan(repo: &Repository<'_>, snap: &Snapshot) -> Result<RawPlan> {
    let tree = repo.tree;
    let old = &snap.lock.placements;
    let mut out = RawPlan::default();
    let expected = expected(repo)?;
    let migration = migrations(tree, snap, &expected)?;
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
        let site = e.site();
        let dir = e.mapping.dir;
        if migration
            .handled_new
            .contains(&(e.skill.clone(), e.mapping.dest.clone()))
        {
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
            continue;
        }
        let rules = dest_rules(tree, &site, dir)?;
        let files = planned_files(m, &e.id, &contract);
        if dir {
            for (rel, _) in &files {
                if rules.excludes_below(&site, rel, false) {
                    return Err(Error::Placement {
                        message: format!(
                            "{}/{rel} would be excluded by the repository's .gitignore rules once placed; a distributed file verify cannot see is not one gen may write, so change the rule or the dest",
                            asv_fs::quote::DisplayPath(&site)
                        ),
                    });
                }
            }
        }
        let name = crate::raw::basename(&e.mapping.dest);
        let observed = observe(tree, &site, dir)?;
        let all_observed = all_entries(&observed, name);
        let identical = observed != Observed::Absent
            && matches!(observed, Observed::Dir(_)) == dir
            && first_disagreement(&all_observed, &files, None).is_none();
        let recorded = old.get(&e.skill).and_then(|d| {
            d.get(&e.mapping.dest_key())
                .or_else(|| d.get(&e.mapping.dest))
                .or_else(|| d.get(&format!("{}/", e.mapping.dest)))
        });
        let decision = match &observed {
            Observed::Absent => true,
            _ => {
                let observed_dir = matches!(observed, Observed::Dir(_));
                let recorded_intact = recorded.is_some_and(|p| {
                    p.src.ends_with('/') == observed_dir
                        && digest_of(&counted(&observed, &site, &rules, name)) == p.digest
                });
                if recorded_intact {
                    true
                } else if observed_dir != dir {
                    return Err(Error::Placement {
                        message: format!(
                            "refusing to write {}: a {} stands there that the lock does not record as this tool's, and this run writes a {}; move it aside or delete it by hand",
                            asv_fs::quote::DisplayPath(&site),
                            observed.kind_word(),
                            if dir { "directory" } else { "file" }
                        ),
                    });
                } else if let Some(first) =
                    first_disagreement(&all_observed, &files, dir.then_some(MARKER))
                {
                    let named = if dir {
                        format!("{site}/{first}")
                    } else {
                        site.clone()
                    };
                    return Err(Error::Placement {
                        message: format!(
                            "refusing to write {}: something stands there that the lock does not record as this tool's, and it is not what this run would write — {} differs or is not this run's to write; move it aside or delete it by hand",
                            asv_fs::quote::DisplayPath(&site),
                            asv_fs::quote::DisplayPath(&named)
                        ),
                    });
                } else {
                    claimed.push(Event::Claimed {
                        site: if dir {
                            format!("{site}/")
                        } else {
                            site.clone()
                        },
                        id: e.id.clone(),
                    });
                    true
                }
            }
        };
        if decision && !identical {
            out.writes.push(DestWrite {
                site: site.clone(),
                dir,
                files,
            });
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

    // The sweep: recorded dests no declaration places any more.
    for (skill, dests) in old {
        for (key, recorded) in dests {
            let bare = key.strip_suffix('/').unwrap_or(key);
            let dir = key.ends_with('/');
            let planned = planned_sites.get(skill);
            if planned.is_some_and(|p| p.iter().any(|d| d == bare))
                || migration
                    .handled_old
                    .contains(&(skill.clone(), key.clone()))
            {
                continue;
            }
            let site = format!("{SKILLS_DIR}/{skill}/{bare}");
            if let Some(other) = planned.and_then(|p| p.iter().find(|d| paths_overlap(d, bare))) {
                return Err(Error::Placement {
                    message: format!(
                        "{} is recorded in the lock and nests with {}, which this run writes; this build does not move ownership between nested dests: withdraw the declaration from every skill, run gen, then place the new dest",
                        asv_fs::quote::DisplayPath(&site),
                        asv_fs::quote::DisplayPath(&format!("{SKILLS_DIR}/{skill}/{other}"))
                    ),
                });
            }
            out.touches_dests = true;
            let rules = dest_rules(tree, &site, dir)?;
            let observed = observe(tree, &site, dir)?;
            let shown = if dir {
                format!("{site}/")
            } else {
                site.clone()
            };
            match &observed {
                Observed::Absent => out.events.push(Event::Cleared {
                    site: shown,
                    id: recorded.contract.clone(),
                    already_absent: true,
                }),
                Observed::File(_) | Observed::Dir(_) => {
                    if matches!(observed, Observed::Dir(_)) != dir {
                        return Err(Error::Placement {
                            message: format!(
                                "{}: the lock records a {} there, found a {}; it is not this tool's to clear, so move it aside by hand",
                                asv_fs::quote::DisplayPath(&site),
                                if dir { "directory" } else { "file" },
                                observed.kind_word()
                            ),
                        });
                    }
                    let name = crate::raw::basename(bare);
                    if digest_of(&counted(&observed, &site, &rules, name)) != recorded.digest {
                        return Err(Error::Placement {
                            message: format!(
                                "refusing to clear {}: it no longer holds what the lock recorded this tool wrote there; delete it by hand if it is not yours",
                                asv_fs::quote::DisplayPath(&site)
                            ),
                        });
                    }
                    out.removals.push(site.clone());
                    out.events.push(Event::Cleared {
                        site: shown,
                        id: recorded.contract.clone(),
                        already_absent: false,
                    });
                }
            }
        }
    }
    Ok(out)
}

/// What the migrations of one `gen` decided.
#[derive(Default)]
struct Migrations {
    events: Vec<Event>,
    writes: Vec<DestWrite>,
    /// New dests written as part of a migration: (skill, dest without `/`).
    handled_new: BTreeSet<(String, String)>,
    /// Old lock keys given up by a migration: (skill, key with its `/`).
    handled_old: BTreeSet<(String, String)>,
}

/// A dest taking part in a migration: old (from the lock) or new (from the table).
struct Member<'a> {
    bare: String,
    dir: bool,
    old: Option<(&'a String, &'a Placement)>,
    new: Option<(&'a Expected, &'a MappingFiles, Digest)>,
}

/// Ownership moving between nested dests of one skill (a directory split into files, files
/// gathered into a directory): each connected set of overlapping old and new dests is built
/// as one artifact at its outermost dest and swapped in once.
///
/// From the intact old state every old placement must still hold what the lock recorded and
/// nothing else may stand under the outermost dest; an absent outermost dest, or one already
/// holding exactly the new artifact (a run stopped right after the swap), is taken as it is.
fn migrations(tree: &Tree, snap: &Snapshot, expected: &[Expected]) -> Result<Migrations> {
    let mut out = Migrations::default();
    let mut skills: BTreeSet<&String> = snap.lock.placements.keys().collect();
    skills.extend(expected.iter().map(|e| &e.skill));
    for skill in skills {
        let mut members: Vec<Member<'_>> = Vec::new();
        if let Some(dests) = snap.lock.placements.get(skill) {
            for (key, p) in dests {
                members.push(Member {
                    bare: key.strip_suffix('/').unwrap_or(key).to_owned(),
                    dir: key.ends_with('/'),
                    old: Some((key, p)),
                    new: None,
                });
            }
        }
        for e in expected.iter().filter(|e| &e.skill == skill) {
            if let Some((m, d)) = material(snap, &e.id, &e.mapping) {
                members.push(Member {
                    bare: e.mapping.dest.clone(),
                    dir: e.mapping.dir,
                    old: None,
                    new: Some((e, m, d)),
                });
            }
        }
        // Union-find over "overlaps without being the same path", old against new.
        let n = members.len();
        let mut parent: Vec<usize> = (0..n).collect();
        fn find(parent: &mut [usize], i: usize) -> usize {
            let mut r = i;
            while parent[r] != r {
                r = parent[r];
            }
            parent[i] = r;
            r
        }
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
        for (_, group) in components {
            migrate(tree, skill, &members, &group, &mut out)?;
        }
    }
    Ok(out)
}

fn migrate(
    tree: &Tree,
    skill: &str,
    members: &[Member<'_>],
    group: &[usize],
    out: &mut Migrations,
) -> Result<()> {
    // The outermost dest: the shortest path, olds first on a tie.
    let outer_idx = *group
        .iter()
        .min_by_key(|i| (members[**i].bare.len(), members[**i].old.is_none()))
        .unwrap_or(&group[0]);
    let outer = &members[outer_idx].bare;
    if !group.iter().all(|i| {
        let b = &members[*i].bare;
        b == outer || b.starts_with(&format!("{outer}/"))
    }) {
        return Err(Error::Placement {
            message: format!(
                "placements in skill {} overlap but have no single owned outermost dest; withdraw the declarations, run gen, then place the new dests",
                asv_fs::quote::json_string(skill)
            ),
        });
    }
    let outer_site = format!("{SKILLS_DIR}/{skill}/{outer}");
    // The artifact: every new dest at its place under the outermost one.
    let mut composite: Vec<(String, Vec<u8>)> = Vec::new();
    let mut composite_is_dir = true;
    for i in group {
        let Some((e, m, contract)) = &members[*i].new else {
            continue;
        };
        let rel = members[*i]
            .bare
            .strip_prefix(outer.as_str())
            .unwrap_or("")
            .trim_start_matches('/');
        let files = planned_files(m, &e.id, contract);
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
            composite_is_dir = false;
            composite = files;
        } else if let Some((_, b)) = files.into_iter().next() {
            composite.push((rel.to_owned(), b));
        }
    }
    composite.sort_by(|a, b| cmp_utf16(&a.0, &b.0));
    let rules = dest_rules(tree, &outer_site, composite_is_dir)?;
    if composite_is_dir {
        for (rel, _) in &composite {
            if rules.excludes_below(&outer_site, rel, false) {
                return Err(Error::Placement {
                    message: format!(
                        "{}/{rel} would be excluded by the repository's .gitignore rules once placed; a distributed file verify cannot see is not one gen may write, so change the rule or the dest",
                        asv_fs::quote::DisplayPath(&outer_site)
                    ),
                });
            }
        }
    }
    let shown = |m: &Member<'_>| {
        let site = format!("{SKILLS_DIR}/{skill}/{}", m.bare);
        if m.dir { format!("{site}/") } else { site }
    };
    let observed = observe(tree, &outer_site, composite_is_dir)?;
    let name = crate::raw::basename(outer);
    let all_observed = all_entries(&observed, name);
    let finished = observed != Observed::Absent
        && matches!(observed, Observed::Dir(_)) == composite_is_dir
        && all_observed.len() == composite.len()
        && first_disagreement(&all_observed, &composite, None).is_none();
    let olds = group
        .iter()
        .filter_map(|i| members[*i].old.map(|o| (&members[*i], o)));
    if observed == Observed::Absent {
        for (m, (_, p)) in olds {
            out.events.push(Event::Cleared {
                site: shown(m),
                id: p.contract.clone(),
                already_absent: true,
            });
        }
    } else if finished {
        for (m, (_, p)) in olds {
            out.events.push(Event::Cleared {
                site: shown(m),
                id: p.contract.clone(),
                already_absent: false,
            });
        }
        for i in group {
            if let Some((e, _, _)) = &members[*i].new {
                out.events.push(Event::Claimed {
                    site: shown(&members[*i]),
                    id: e.id.clone(),
                });
            }
        }
    } else {
        // From the intact old state only: every old placement as recorded, nothing foreign.
        let mut owned: BTreeSet<String> = BTreeSet::new();
        for (m, (_, p)) in olds.clone() {
            let site = format!("{SKILLS_DIR}/{skill}/{}", m.bare);
            let old_rules = dest_rules(tree, &site, m.dir)?;
            let seen = observe(tree, &site, m.dir)?;
            if seen == Observed::Absent || matches!(seen, Observed::Dir(_)) != m.dir {
                return Err(Error::Placement {
                    message: format!(
                        "{} no longer has the {} placement recorded by the lock; restore it or delete the lock's record by hand before moving the dest",
                        asv_fs::quote::DisplayPath(&site),
                        if m.dir { "directory" } else { "file" }
                    ),
                });
            }
            let oname = crate::raw::basename(&m.bare);
            if digest_of(&counted(&seen, &site, &old_rules, oname)) != p.digest {
                return Err(Error::Placement {
                    message: format!(
                        "refusing to migrate {}: it no longer holds the placement recorded by the lock; restore it or move it aside by hand",
                        asv_fs::quote::DisplayPath(&site)
                    ),
                });
            }
            let rel = m
                .bare
                .strip_prefix(outer.as_str())
                .unwrap_or("")
                .trim_start_matches('/')
                .to_owned();
            match &seen {
                Observed::Dir(files) => {
                    for (f, _) in files {
                        owned.insert(if rel.is_empty() {
                            f.clone()
                        } else {
                            format!("{rel}/{f}")
                        });
                    }
                }
                _ => {
                    owned.insert(if rel.is_empty() { name.to_owned() } else { rel });
                }
            }
        }
        if let Some((foreign, _)) = all_observed.iter().find(|(p, _)| !owned.contains(p)) {
            let named = if matches!(observed, Observed::Dir(_)) {
                format!("{outer_site}/{foreign}")
            } else {
                outer_site.clone()
            };
            return Err(Error::Placement {
                message: format!(
                    "refusing to write {}: {} is not owned by an old placement or written by this run; move it aside or delete it by hand",
                    asv_fs::quote::DisplayPath(&outer_site),
                    asv_fs::quote::DisplayPath(&named)
                ),
            });
        }
        for (m, (_, p)) in olds {
            out.events.push(Event::Cleared {
                site: shown(m),
                id: p.contract.clone(),
                already_absent: false,
            });
        }
    }
    for i in group {
        let m = &members[*i];
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
            dir: composite_is_dir,
            files: composite,
        });
    }
    Ok(())
}

/// Whether the repository's `.gitignore` keeps the working directory out of git.
///
/// # Errors
/// A guarded-read refusal of a `.gitignore`.
pub fn workdir_ignored(tree: &Tree) -> Result<bool> {
    Ok(match IgnoreRules::for_dir(tree, "")? {
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
                .map(|(rel, bytes)| NewFile::new(rel.clone(), bytes.clone()))
                .collect();
            changes.push(Change::replace(
                write.site.clone(),
                Fill::files(files),
                Ownership::Force,
            ));
        } else if let Some((_, bytes)) = write.files.first() {
            changes.push(Change::replace_file(
                write.site.clone(),
                bytes.clone(),
                Ownership::Force,
            ));
        }
    }
    for site in &plan.removals {
        changes.push(Change::remove(site.clone(), Ownership::Force));
    }
    changes
}

/// `verify`'s checks of raw placements: the record against the declarations and the table,
/// then each undisputed recorded dest against its recorded digest and marker.
///
/// # Errors
/// A dest `.gitignore` excludes; a recorded dest of the wrong kind; a guarded-read refusal.
pub fn verify(repo: &Repository<'_>, snap: &Snapshot, out: &mut Vec<Violation>) -> Result<()> {
    let tree = repo.tree;
    let lock = &snap.lock.placements;
    let expected = expected(repo)?;
    let mut by_skill: BTreeMap<String, BTreeMap<String, &Expected>> = BTreeMap::new();
    for e in &expected {
        by_skill
            .entry(e.skill.clone())
            .or_default()
            .insert(e.mapping.dest_key(), e);
    }
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
            match (
                placed.and_then(|m| m.get(&key)),
                recorded.and_then(|m| m.get(&key)),
            ) {
                (None, Some(r)) => {
                    let declared_without_row = repo
                        .skills
                        .iter()
                        .any(|s| &s.name == skill && s.declared.contains(&r.contract))
                        && repo.manifest.raw(&r.contract).is_none();
                    if !declared_without_row {
                        out.push(Violation::Placement {
                            site,
                            problem: PlacementProblem::Gone {
                                id: r.contract.clone(),
                            },
                        });
                        disputed.insert((skill.clone(), key));
                    }
                }
                (Some(e), None) => out.push(Violation::Placement {
                    site,
                    problem: PlacementProblem::Unrecorded { id: e.id.clone() },
                }),
                (Some(e), Some(r)) => {
                    if r.contract != e.id || r.src != e.mapping.src_key() {
                        out.push(Violation::Placement {
                            site,
                            problem: PlacementProblem::Differs {
                                recorded: (r.contract.clone(), r.src.clone()),
                                placed: (e.id.clone(), e.mapping.src_key()),
                            },
                        });
                        disputed.insert((skill.clone(), key));
                    }
                }
                (None, None) => {}
            }
        }
    }

    let mut recorded: Vec<(&String, &String, &Placement)> = lock
        .iter()
        .flat_map(|(s, d)| d.iter().map(move |(k, p)| (s, k, p)))
        .collect();
    recorded.sort_by(|a, b| cmp_utf16(a.0, b.0).then_with(|| cmp_utf16(a.1, b.1)));
    for (skill, key, placement) in recorded {
        if disputed.contains(&(skill.clone(), key.clone())) {
            continue;
        }
        let bare = key.strip_suffix('/').unwrap_or(key);
        let dir = key.ends_with('/');
        let site = format!("{SKILLS_DIR}/{skill}/{bare}");
        let rules = dest_rules(tree, &site, dir)?;
        let observed = observe(tree, &site, dir)?;
        let drift = |problem| Violation::Drift {
            path: site.clone(),
            id: placement.contract.clone(),
            problem,
        };
        if observed == Observed::Absent {
            out.push(drift(DriftProblem::Missing));
            continue;
        }
        if matches!(observed, Observed::Dir(_)) != dir {
            return Err(Error::Placement {
                message: format!(
                    "{}: vendor-lock.json records a {} there, found a {}; move it aside and run gen",
                    asv_fs::quote::DisplayPath(&site),
                    if dir { "directory" } else { "file" },
                    observed.kind_word()
                ),
            });
        }
        let name = crate::raw::basename(bare);
        let counted = counted(&observed, &site, &rules, name);
        let found = digest_of(&counted);
        let current = by_skill
            .get(skill)
            .and_then(|m| m.get(key))
            .and_then(|e| material(snap, &e.id, &e.mapping));
        if found != placement.digest {
            let differs = current.and_then(|(m, _)| {
                first_disagreement(&counted, &m.files, None).map(|f| {
                    if dir {
                        format!("{site}/{f}")
                    } else {
                        site.clone()
                    }
                })
            });
            out.push(drift(DriftProblem::Files {
                found,
                locked: placement.digest,
                differs,
            }));
        } else if let (true, Some(row), Observed::Dir(all)) =
            (dir, repo.manifest.raw(&placement.contract), &observed)
        {
            let mut patterns = repo.manifest.ignore.clone();
            patterns.extend(row.ignore.iter().cloned());
            let selection = IgnoreRules::from_patterns(&patterns);
            if let Some((rel, _)) = all.iter().find(|(rel, _)| {
                rel != MARKER
                    && !rules.excludes_below(&site, rel, false)
                    && selection.excludes_below("", rel, false)
            }) {
                out.push(drift(DriftProblem::NoLongerSelected {
                    file: format!("{site}/{rel}"),
                }));
            }
        }
        if let (true, Some(resolution)) = (dir, snap.lock.resolutions.get(&placement.contract)) {
            let marker = header(&placement.contract, &resolution.digest);
            let holds = match &observed {
                Observed::Dir(all) => all
                    .iter()
                    .any(|(p, b)| p == MARKER && b.as_slice() == marker.as_bytes()),
                _ => false,
            };
            if !holds {
                out.push(drift(DriftProblem::Marker {
                    locked: resolution.digest,
                }));
            }
        }
    }
    Ok(())
}
