//! `skill sync` and `skill verify`: the tree made, and checked to be, what the intent
//! (`vendor-skills.yaml`) and the skill lock say — skills taken up, restored or dropped, and
//! every skill of `skills/` mirrored into each target agent's project directory.
//!
//! Sync never moves a pin (that is `skill pull`). A mirrored copy (a projection) is owned as a
//! raw dest of the contract side is: the lock records the tree hash placed, and only an entry
//! that still holds it is replaced or removed; an identical unrecorded copy is claimed;
//! anything else is refused, naming what differs, unless forced. Every change of one run is
//! one transaction.

use std::collections::{BTreeMap, BTreeSet};

use asv_fs::{Change, EntryKind, Ownership, Plan, Root, WriterLock};
use asv_remote::Options;
use asv_skilltree::{FileData, SkillTree, StampCache};

use crate::bases::{base_change, kept_base};
use crate::error::{CopyEdited, Error, Remedy};
use crate::installed::InstalledRecord;
use crate::intent::Intent;
use crate::lock::{Entry, SkillLock, lock_changes};
use crate::paths::{portable_tree, skill_dir};
use crate::placing::{fill_of, still_local};
use crate::projection::{still_projected, target_dirs};
use crate::signed::SignedRow;
use crate::upstream::{At, Source, base_of, check_source_path, default_name, take_in};
use crate::validate::{Finding, Profile, Severity, refuse_errors, validate_tree_as};

/// What one sync did, or would do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Synced {
    /// A skill the intent names and the lock did not was taken up.
    Taken {
        /// The skill.
        name: String,
        /// Its source.
        source: String,
        /// The revision taken.
        revision: String,
    },
    /// An imported skill whose directory was missing was put back at its locked revision.
    Restored {
        /// The skill.
        name: String,
        /// The locked revision.
        revision: String,
    },
    /// An imported skill the intent no longer names was dropped.
    Dropped {
        /// The skill.
        name: String,
    },
    /// A skill was mirrored into an agent's directory (placed, replaced or claimed).
    Projected {
        /// The copy, from the root (`.claude/skills/pdf`).
        path: String,
        /// The tree hash it holds.
        hash: String,
        /// How: `placed`, `replaced` or `claimed`.
        how: &'static str,
    },
    /// A mirrored copy of a skill no longer under `skills/` was removed.
    Unprojected {
        /// The copy, from the root.
        path: String,
    },
    /// A skill under `skills/` that agents cannot load (it breaks the consumer's rules, or has
    /// no `SKILL.md`): not mirrored, and a copy placed before is left as it was.
    NotProjected {
        /// The skill.
        name: String,
        /// The first rule it breaks: the file, the line, the rule and what is wrong.
        finding: Finding,
    },
}

impl Synced {
    /// The line's kind: `taken`, `restored`, `dropped`, `projected`, `unprojected` or
    /// `not-projected`.
    pub fn kind(&self) -> &'static str {
        match self {
            Synced::Taken { .. } => "taken",
            Synced::Restored { .. } => "restored",
            Synced::Dropped { .. } => "dropped",
            Synced::Projected { .. } => "projected",
            Synced::Unprojected { .. } => "unprojected",
            Synced::NotProjected { .. } => "not-projected",
        }
    }

    /// The path the line is about.
    pub fn path(&self) -> String {
        match self {
            Synced::Taken { name, .. }
            | Synced::Restored { name, .. }
            | Synced::Dropped { name }
            | Synced::NotProjected { name, .. } => skill_dir(name),
            Synced::Projected { path, .. } | Synced::Unprojected { path } => path.clone(),
        }
    }

    /// Whether the line leaves the tree short of what it should be (a skill not mirrored).
    pub fn is_shortfall(&self) -> bool {
        matches!(self, Synced::NotProjected { .. })
    }
}

/// The `skill add` that takes `name` as `wanted` says.
fn add_again(name: &str, wanted: &crate::intent::Wanted) -> crate::error::AddAgain {
    let renamed = Source::parse(&wanted.source)
        .map(|source| default_name(&source, &wanted.path) != name)
        .unwrap_or(true);
    crate::error::AddAgain {
        source: wanted.source.clone(),
        path: wanted.path.clone(),
        name: renamed.then(|| name.to_owned()),
        reference: wanted.reference.clone(),
    }
}

/// Where the intent's row for `name` asks for something else than the lock pins: one
/// [`Error::IntentDiffers`] per field (`source`, `path`), and [`Error::RefDiffers`] for `ref`,
/// which `skill pull` moves (issue 29 §2). A row without `ref` follows the default branch,
/// which the lock names: no difference.
pub(crate) fn differs(name: &str, wanted: &crate::intent::Wanted, entry: &Entry) -> Vec<Error> {
    let mut out: Vec<Error> = [
        ("source", Some(&wanted.source), Some(&entry.source)),
        ("path", Some(&wanted.path), Some(&entry.path)),
    ]
    .into_iter()
    .filter(|(_, asked, pinned)| asked != pinned)
    .map(|(field, asked, pinned)| Error::IntentDiffers {
        name: name.to_owned(),
        field,
        intent: asked.cloned(),
        lock: pinned.cloned(),
        again: Box::new(add_again(name, wanted)),
    })
    .collect();
    if let Some(asked) = &wanted.reference
        && entry.reference.as_ref() != Some(asked)
    {
        out.push(Error::RefDiffers {
            name: name.to_owned(),
            intent: asked.clone(),
            lock: entry.reference.clone(),
        });
    }
    out
}

pub(crate) use crate::paths::skill_names;

/// What stands where a copy goes: nothing, a directory with its tree hash (or why it could not
/// be read), or an entry of another kind (refused as edited); an error finding out.
type Standing = Result<Option<Result<String, Error>>, Error>;

fn standing(root: &Root, cache: &StampCache, dest: &str) -> Standing {
    // A copy found exactly as the cache recorded it is a real directory (its stamp is one
    // only a directory gives): the `lstat` that checks the stamp answers what stands there
    // too, so the path is not looked up a second time for its kind. Anything else is asked
    // as without a cache.
    if let Some(hash) = cache.trusted_hash(root, dest) {
        return Ok(Some(Ok(hash)));
    }
    Ok(match root.kind(dest)? {
        None => None,
        Some(EntryKind::Directory) => Some(cache.read_hash(root, dest).map_err(Error::from)),
        Some(kind) => Some(Err(Error::ProjectionEdited {
            path: dest.to_owned(),
            what: CopyEdited::OtherKind(kind),
        })),
    })
}

/// The first file in which `a` and `b` differ (in path order), for saying what was edited.
pub(crate) fn first_difference(a: &SkillTree, b: &SkillTree) -> Option<String> {
    let left: BTreeMap<&str, (&FileData, bool)> = a
        .files()
        .iter()
        .map(|f| (f.path.as_str(), (&f.data, f.executable)))
        .collect();
    let right: BTreeMap<&str, (&FileData, bool)> = b
        .files()
        .iter()
        .map(|f| (f.path.as_str(), (&f.data, f.executable)))
        .collect();
    let paths: BTreeSet<&str> = left.keys().chain(right.keys()).copied().collect();
    paths
        .into_iter()
        .find(|p| left.get(p) != right.get(p))
        .map(str::to_owned)
}

/// `skill sync --scope user`: the tree the agents' user directories are in (the home
/// directory), those directories, and its writer lock.
///
/// The synced root is then the user's state directory (its own `vendor-skills.yaml`, lock and
/// `skills/`), and the copies go to `dirs` of `tree` instead of the targets' project
/// directories. Their record is the state lock's `projections`, keyed by these directories.
#[derive(Debug, Clone, Copy)]
pub struct UserTree<'a> {
    /// The tree the directories are in (the home directory), opened guarded.
    pub tree: &'a Root,
    /// The intent's targets' user directories, relative to `tree`, each once, in the order
    /// first named.
    pub dirs: &'a [String],
    /// The writer lock of `tree`; `None` is a dry run (and so must
    /// [`SyncOptions::writer`] be).
    pub writer: Option<&'a WriterLock<'a>>,
    /// What `skill install --scope user` recorded placing, as read from the state directory:
    /// a copy it names is never claimed, replaced or removed by the sync, and refuses it unless
    /// forced (a forced sync replaces it and forgets the record).
    pub installed: &'a InstalledRecord,
}

/// What `skill sync` is asked to do, and whether it writes.
#[derive(Debug, Clone, Copy, Default)]
pub struct SyncOptions<'a> {
    /// `--force`: a dropped skill with local edits is removed, and a mirrored copy that is not
    /// what was placed is replaced; without it either refuses the sync.
    pub force: bool,
    /// The writer lock of the tree synced, the proof that this run may write; `None` is a dry
    /// run.
    pub writer: Option<&'a WriterLock<'a>>,
    /// `--scope user`: mirror into the agents' user directories of another tree; `None`
    /// mirrors into the targets' project directories under the root.
    pub user: Option<UserTree<'a>>,
    /// The audit gate the skills taken up or restored pass before anything is written;
    /// `None` audits nothing.
    pub gate: Option<&'a crate::gate::Gate>,
}

/// Makes the tree what the intent and the lock say: takes up skills the intent names that the
/// lock does not, restores imported skills whose directory is missing at their locked
/// revision, drops skills the intent no longer names (refused while they hold local edits,
/// unless [`SyncOptions::force`]), then mirrors every skill of `skills/` into each target's
/// project directory (with [`SyncOptions::user`], each of the given user directories of the
/// other tree instead) and removes mirrored copies of skills no longer there, under
/// [`SyncOptions::writer`], the tree's writer lock. Without one (a dry run), decides all of it
/// and writes nothing. Nothing to do writes nothing, the lock included.
///
/// With [`SyncOptions::user`] the root is the user state directory, its lock is read as a user
/// lock ([`SkillLock::load_as`]) and the run applies three changes in turn (the root's skills
/// and lock, the copies, their record), each finished by the next sync should a run stop
/// between them.
///
/// # Errors
/// [`Error::Intent`] or [`Error::Lock`] for files that cannot be read; [`Error::LinkedSkill`]
/// for a symbolic link under `skills/`; [`Error::IntentDiffers`] for a skill the intent asks from another source, path or ref
/// than the lock pins; as `skill add` for a skill taken up; [`Error::BaseMismatch`] or
/// [`Error::BaseUnavailable`] for a missing skill that cannot be had again as locked;
/// [`Error::DropEdited`] for a dropped skill with local edits; [`Error::ProjectionEdited`]
/// for a mirrored copy that is not what was placed (without `force`); a tree-change refusal
/// or failure; under [`SyncOptions::gate`], [`Error::AuditRefused`] for an error finding in a
/// skill taken up or restored that the gate does not let through. Every refusal comes before
/// anything is written.
pub fn sync(root: &Root, opts: &SyncOptions<'_>, options: &Options) -> Result<Vec<Synced>, Error> {
    let SyncOptions {
        force,
        writer,
        user,
        gate,
    } = *opts;
    let sources = &crate::sources::Sources::new(options);
    // The stamps of what earlier write runs read (a machine-local cache outside the tree):
    // a directory found exactly as stamped is not read again. A dry run proves instead, and
    // reads everything. The stamps only ever spare a read: whatever this run then writes is
    // checked afresh where it is written (see `asv_skilltree::cache`). Loaded while the lock
    // and the intent file are parsed: neither needs the other.
    let (cache, state) = rayon::join(
        || {
            if writer.is_some() {
                StampCache::open(root)
            } else {
                StampCache::disabled()
            }
        },
        || -> Result<_, Error> {
            let loaded = match user {
                None => SkillLock::load(root)?,
                Some(_) => SkillLock::load_as(root, crate::targets::Scope::User)?,
            };
            Ok((loaded, Intent::load(root)?))
        },
    );
    let (loaded, intent) = state?;
    // A skill directory that is a link is neither a skill nor gone: refused before anything
    // is judged, or its mirrored copies would be taken for a removed skill's and deleted.
    if let Some(name) = crate::paths::linked_skills(root)?.into_iter().next() {
        return Err(Error::LinkedSkill {
            path: skill_dir(&name),
        });
    }
    let mut lock = loaded.clone();
    let mut out = Vec::new();
    let mut changes: Vec<Change> = Vec::new();
    // The tree each skill directory will hold once the plan is applied (None: gone).
    let mut after: BTreeMap<String, Option<SkillTree>> = BTreeMap::new();

    // Taking or restoring a skill may read its source: one unit a skill wanted.
    let step = options.progress.step(
        &format!(
            "checking the {} skills vendor-skills.yaml asks for",
            intent.skills.len()
        ),
        Some(intent.skills.len() as u64),
    );
    for (name, wanted) in &intent.skills {
        step.advance(1);
        let dir = skill_dir(name);
        // A signed row (issue 33 §1) whose file or source cannot be used is refused before
        // its skill is taken up or restored.
        let signed = match (&wanted.signed_by, root.kind(&dir)?) {
            (Some(file), None) => Some(SignedRow::open(
                root,
                name,
                file,
                &Source::parse(&wanted.source)?,
            )?),
            _ => None,
        };
        match loaded.skills.get(name) {
            Some(entry) => {
                if let Some(differs) = differs(name, wanted, entry).into_iter().next() {
                    return Err(differs);
                }
                if root.kind(&dir)?.is_none() {
                    let kept = kept_base(root, &entry.base_hash)?;
                    let (tree, fetched) = base_of(root, name, entry, kept, sources)?;
                    // Restored from its kept base, the pin is judged offline by the signer
                    // the lock records; fetched again, by its signature.
                    let signer = match &signed {
                        Some(row) => Some(row.check_pinned(root, entry, sources, fetched)?),
                        None => entry.signer.clone(),
                    };
                    if let Some(e) = lock.skills.get_mut(name) {
                        e.signer = signer;
                    }
                    tree.check_paths()?;
                    changes.push(Change::replace(
                        dir.clone(),
                        fill_of(root, &tree),
                        Ownership::MustBeFree,
                    ));
                    changes.extend(base_change(root, &tree)?);
                    if let Some(e) = lock.skills.get_mut(name) {
                        e.pending = None;
                    }
                    out.push(Synced::Restored {
                        name: name.clone(),
                        revision: entry.revision.clone(),
                    });
                    after.insert(name.clone(), Some(tree));
                }
            }
            None => {
                if root.kind(&dir)?.is_some() {
                    return Err(Error::Occupied { path: dir });
                }
                let source = Source::parse(&wanted.source)?;
                let path = check_source_path(&wanted.path)?.to_owned();
                let at = match (&source, &wanted.reference) {
                    (_, Some(r)) => At::Ref(r),
                    (Source::Local(_), None) => At::Now,
                    (_, None) => At::DefaultBranch,
                };
                let taken = take_in(root, &source, &path, at, sources)?;
                let signer = match &signed {
                    Some(row) => Some(row.check(
                        root,
                        &source,
                        wanted.reference.as_deref(),
                        taken.tag.as_deref(),
                        &taken.revision,
                        sources,
                    )?),
                    None => None,
                };
                if default_name(&source, &path) != *name {
                    // A row under another name than the skill's own would need the rename
                    // `skill add --name` makes; sync takes skills as they are named.
                    let own = crate::validate::manifest_name(&taken.tree);
                    if own.as_deref() != Some(name.as_str()) {
                        return Err(Error::IntentName {
                            name: name.clone(),
                            found: own,
                        });
                    }
                }
                refuse_errors(
                    validate_tree_as(&taken.tree, &dir, Profile::Consumer)?,
                    Remedy::FixUpstream,
                )?;
                taken.tree.check_paths()?;
                portable_tree(source.as_str(), &taken.tree)?;
                changes.push(Change::replace(
                    dir.clone(),
                    fill_of(root, &taken.tree),
                    Ownership::MustBeFree,
                ));
                changes.extend(base_change(root, &taken.tree)?);
                lock.skills.insert(
                    name.clone(),
                    Entry {
                        source: source.as_str().to_owned(),
                        path,
                        reference: taken.reference.clone(),
                        tag: taken.tag.clone(),
                        revision: taken.revision.clone(),
                        base_hash: taken.tree.hash(),
                        capabilities: Some(crate::audit::capabilities::digest_of(&taken.tree)?),
                        pending: None,
                        removed_upstream: None,
                        signer,
                    },
                );
                out.push(Synced::Taken {
                    name: name.clone(),
                    source: source.as_str().to_owned(),
                    revision: taken.revision.clone(),
                });
                after.insert(name.clone(), Some(taken.tree));
            }
        }
    }
    drop(step);
    // What is taken up or restored is audited as read, before anything is written (issue 32
    // §2).
    if let Some(gate) = gate {
        let incoming: Vec<_> = after
            .iter()
            .filter_map(|(name, tree)| Some((name.as_str(), skill_dir(name), tree.as_ref()?)))
            .collect();
        gate.check(&incoming)?;
    }
    if intent.written {
        for (name, entry) in &loaded.skills {
            if intent.skills.contains_key(name) {
                continue;
            }
            let dir = skill_dir(name);
            if root.kind(&dir)?.is_some() {
                let tree = SkillTree::read(root, &dir)?;
                let edited = !crate::rename::is_clean(root, name, &entry.base_hash, &tree)?;
                if !force && (edited || entry.pending.is_some()) {
                    return Err(Error::DropEdited {
                        name: name.clone(),
                        file: match kept_base(root, &entry.base_hash)? {
                            Some(base) => first_difference(&base, &tree),
                            None => None,
                        },
                    });
                }
                changes.push(Change::remove(
                    dir,
                    if force {
                        Ownership::Force
                    } else {
                        // As read: the base's hash, or the base's renamed by `--name`.
                        still_local(tree.hash())
                    },
                ));
            }
            lock.skills.remove(name);
            out.push(Synced::Dropped { name: name.clone() });
            after.insert(name.clone(), None);
        }
    }

    // The skills as they will stand: every directory now, with what the steps above change.
    // Read on every core; the first refusal in name order is the one reported.
    let mut skills: BTreeMap<String, SkillTree> = BTreeMap::new();
    let names: Vec<String> = skill_names(root)?
        .into_iter()
        .filter(|name| !after.contains_key(name))
        .collect();
    let step = options.progress.step(
        &format!("reading {} skills", names.len()),
        Some(names.len() as u64),
    );
    let read: Vec<Result<SkillTree, asv_skilltree::Error>> = {
        use rayon::prelude::*;
        names
            .par_iter()
            .map(|name| {
                let tree = cache.read(root, &skill_dir(name));
                step.advance(1);
                tree
            })
            .collect()
    };
    drop(step);
    for (name, tree) in names.into_iter().zip(read) {
        skills.insert(name, tree?);
    }
    for (name, tree) in after {
        if let Some(tree) = tree {
            skills.insert(name, tree);
        }
    }

    // Where the copies go: the project directories under the root, or the user directories
    // of the other tree, whose changes are a plan of their own.
    // The stamps are those of the root's own tree: copies in another tree (user scope) are
    // read whole every run.
    let unstamped = StampCache::disabled();
    let pcache: &StampCache = if user.is_some() { &unstamped } else { &cache };
    let (proot, dirs): (&Root, Vec<String>) = match user {
        None => (
            root,
            target_dirs(&intent.targets)
                .into_iter()
                .map(str::to_owned)
                .collect(),
        ),
        Some(u) => (u.tree, u.dirs.to_vec()),
    };
    let mut pchanges: Vec<Change> = Vec::new();
    // Only what agents can load is mirrored: a skill that breaks the consumer's rules (or a
    // directory with no SKILL.md) is said and left out, its earlier copies kept as they are.
    let mut held_back: BTreeSet<String> = BTreeSet::new();
    if !dirs.is_empty() {
        // Judged on every core (each parses its SKILL.md), then taken in name order, so the
        // first refusal is the one reported, as before.
        let judged: Vec<_> = {
            use rayon::prelude::*;
            let trees: Vec<(&String, &SkillTree)> = skills.iter().collect();
            trees
                .into_par_iter()
                .map(|(name, tree)| validate_tree_as(tree, &skill_dir(name), Profile::Consumer))
                .collect()
        };
        for ((name, _), findings) in skills.iter().zip(judged) {
            if let Some(f) = findings?
                .into_iter()
                .find(|f| f.severity == Severity::Error)
            {
                held_back.insert(name.clone());
                out.push(Synced::NotProjected {
                    name: name.clone(),
                    finding: f,
                });
            }
        }
        skills.retain(|name, _| !held_back.contains(name));
    }
    // What stands at every copy's place, hashed on every core (the bulk of a sync with nothing
    // to change); judged below one by one, in order, so the outcome is the same. Kept in the
    // order the loop below visits them (every target, then every skill by name).
    let found: Vec<(String, Standing)> = {
        use rayon::prelude::*;
        let dests: Vec<String> = dirs
            .iter()
            .flat_map(|dir| skills.keys().map(move |name| format!("{dir}/{name}")))
            .collect();
        let step = options.progress.step(
            &format!("checking {} copies in the agents' directories", dests.len()),
            Some(dests.len() as u64),
        );
        dests
            .into_par_iter()
            .map(|dest| {
                let standing = standing(proot, pcache, &dest);
                step.advance(1);
                (dest, standing)
            })
            .collect()
    };
    let mut projections: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();
    // Installed copies a forced user sync replaces: their record goes with the copies'.
    let mut forgotten: Vec<(String, String)> = Vec::new();
    let mut found = found.into_iter().peekable();
    let none_recorded = BTreeMap::new();
    for dir in &dirs {
        if let Some(kind) = proot.kind(dir)?
            && kind != EntryKind::Directory
        {
            return Err(Error::ProjectionDir {
                path: dir.clone(),
                kind,
            });
        }
        let recorded = loaded.projections.get(dir).unwrap_or(&none_recorded);
        let mut placed = BTreeMap::new();
        for (name, tree) in &skills {
            let dest = format!("{dir}/{name}");
            let hash = tree.hash();
            let was = recorded.get(name);
            let standing = match found.next_if(|(at, _)| *at == dest) {
                Some((_, standing)) => standing,
                None => standing(proot, pcache, &dest),
            }?;
            // A copy `skill install --scope user` placed, that is not sync's own unchanged copy
            // (an install may have replaced it): not a stranger to claim or replace.
            if let Some(installed) = user.and_then(|u| u.installed.get(dir, name)) {
                let syncs_own = matches!(&standing, Some(Ok(now)) if was == Some(now));
                if standing.is_some() && !syncs_own {
                    if !force {
                        return Err(Error::InstalledInTheWay {
                            path: dest,
                            name: name.clone(),
                            from: installed.from.clone(),
                        });
                    }
                    forgotten.push((dir.clone(), name.clone()));
                }
            }
            match standing {
                None => {
                    pchanges.push(Change::replace(
                        dest.clone(),
                        fill_of(proot, tree),
                        Ownership::MustBeFree,
                    ));
                    out.push(Synced::Projected {
                        path: dest,
                        hash: hash.clone(),
                        how: "placed",
                    });
                }
                Some(Ok(now)) if now == hash => {
                    if was != Some(&hash) {
                        out.push(Synced::Projected {
                            path: dest,
                            hash: hash.clone(),
                            how: "claimed",
                        });
                    }
                }
                Some(Ok(now)) if was == Some(&now) => {
                    pchanges.push(Change::replace(
                        dest.clone(),
                        fill_of(proot, tree),
                        still_projected(now),
                    ));
                    out.push(Synced::Projected {
                        path: dest,
                        hash: hash.clone(),
                        how: "replaced",
                    });
                }
                _ if force => {
                    pchanges.push(Change::replace(
                        dest.clone(),
                        fill_of(proot, tree),
                        Ownership::Force,
                    ));
                    out.push(Synced::Projected {
                        path: dest,
                        hash: hash.clone(),
                        how: "replaced",
                    });
                }
                Some(Ok(_)) => {
                    // Read again, whole, only to name the file that differs.
                    let differs = SkillTree::read(proot, &dest)
                        .ok()
                        .and_then(|now| first_difference(&now, tree));
                    let what = match differs {
                        Some(file) if was.is_some() => CopyEdited::FileChanged {
                            file: format!("{dest}/{file}"),
                        },
                        Some(file) => CopyEdited::FileNotOurs {
                            file: format!("{dest}/{file}"),
                            skill: name.clone(),
                        },
                        None => CopyEdited::Differs,
                    };
                    return Err(Error::ProjectionEdited { path: dest, what });
                }
                Some(Err(e)) => return Err(e),
            }
            placed.insert(name.clone(), hash);
        }
        // Copies this tool placed of skills no longer under skills/ (a skill held back keeps
        // its copy, and the copy its record).
        for (name, hash) in recorded {
            if held_back.contains(name) {
                placed.insert(name.clone(), hash.clone());
                continue;
            }
            if skills.contains_key(name) {
                continue;
            }
            let dest = format!("{dir}/{name}");
            match proot.kind(&dest)? {
                None => {}
                Some(EntryKind::Directory) => {
                    let now = SkillTree::read(proot, &dest)?;
                    if now.hash() != *hash && !force {
                        return Err(Error::ProjectionEdited {
                            path: dest,
                            what: CopyEdited::ChangedSkillGone,
                        });
                    }
                    pchanges.push(Change::remove(
                        dest.clone(),
                        if force {
                            Ownership::Force
                        } else {
                            still_projected(hash.clone())
                        },
                    ));
                }
                Some(kind) if force => {
                    let _ = kind;
                    pchanges.push(Change::remove(dest.clone(), Ownership::Force));
                }
                Some(kind) => {
                    return Err(Error::ProjectionEdited {
                        path: dest,
                        what: CopyEdited::OtherKind(kind),
                    });
                }
            }
            out.push(Synced::Unprojected { path: dest });
        }
        if !placed.is_empty() {
            projections.insert(dir.clone(), placed);
        }
    }
    // Directories no longer targeted: their recorded copies go as well.
    for (dir, recorded) in &loaded.projections {
        if dirs.contains(dir) {
            continue;
        }
        for (name, hash) in recorded {
            let dest = format!("{dir}/{name}");
            if proot.kind(&dest)?.is_some() {
                pchanges.push(Change::remove(
                    dest.clone(),
                    if force {
                        Ownership::Force
                    } else {
                        still_projected(hash.clone())
                    },
                ));
            }
            out.push(Synced::Unprojected { path: dest });
        }
    }
    let Some(user) = user else {
        lock.projections = projections;
        changes.extend(pchanges);
        if lock != loaded {
            // A dropped skill's base, or a restored one's pending pull, may lose its last
            // reference: removed with the lock change.
            changes.extend(lock_changes(root, &loaded, &lock)?);
        }
        if changes.is_empty() {
            cache.save();
            return Ok(out);
        }
        let plan = Plan::new(root, changes)?;
        if let Some(writer) = writer {
            writer.apply(plan)?;
        }
        cache.save();
        return Ok(out);
    };
    // Two trees are never one transaction, so a user sync is three, in an order every
    // prefix of which the next sync finishes: the state directory's skills and lock (with
    // the copies' record as it was), then the copies, then their record. Copies placed but
    // not yet recorded are identical to what sync places, so the next run claims them; a
    // record of a copy already removed is only forgotten. Both plans are made before either
    // is applied, so every refusal comes before anything is written.
    let mut imported = lock.clone();
    imported.projections = loaded.projections.clone();
    if imported != loaded {
        changes.extend(lock_changes(root, &loaded, &imported)?);
    }
    let state_plan = (!changes.is_empty())
        .then(|| Plan::new(root, changes))
        .transpose()?;
    let tree_plan = (!pchanges.is_empty())
        .then(|| Plan::new(user.tree, pchanges))
        .transpose()?;
    let (Some(writer), Some(tree_writer)) = (writer, user.writer) else {
        return Ok(out);
    };
    if let Some(plan) = state_plan {
        writer.apply(plan)?;
    }
    if let Some(plan) = tree_plan {
        tree_writer.apply(plan)?;
    }
    lock.projections = projections;
    let mut installed = user.installed.clone();
    for (dir, name) in &forgotten {
        installed.remove(dir, name);
    }
    let mut last = Vec::new();
    if lock != imported {
        last.extend(lock_changes(root, &imported, &lock)?);
    }
    if installed != *user.installed {
        last.push(installed.change(user.installed));
    }
    if !last.is_empty() {
        writer.apply(Plan::new(root, last)?)?;
    }
    cache.save();
    Ok(out)
}

/// Who placed a skill found in an agent's directory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Placed {
    /// `skill sync`, and it still holds what was placed.
    BySync,
    /// `skill sync`, but it changed since.
    EditedSinceSync,
    /// `skill install --scope user`, and it still holds what was installed.
    ByInstall,
    /// `skill install --scope user`, but it changed since.
    EditedSinceInstall,
    /// Not this tool (or not recorded: `skill install` into a project keeps no record).
    NotRecorded,
}

impl Placed {
    /// As printed: `placed by skill sync`, `edited since skill sync placed it`, `placed by
    /// skill install`, `edited since skill install placed it`, `not placed by skill sync`.
    pub fn as_str(self) -> &'static str {
        match self {
            Placed::BySync => "placed by skill sync",
            Placed::EditedSinceSync => "edited since skill sync placed it",
            Placed::ByInstall => "placed by skill install",
            Placed::EditedSinceInstall => "edited since skill install placed it",
            Placed::NotRecorded => "not placed by skill sync",
        }
    }
}

/// One skill in an agent's directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AgentSkill {
    /// The directory's name.
    pub name: String,
    /// Its tree hash; `None` when it cannot be read as a skill tree (a link in it, say).
    pub hash: Option<String>,
    /// Who placed it.
    pub placed: Placed,
}

/// `skill list --target`: the skill directories in the agent directory `dir` of `root`, by
/// name, each with who placed it, judged against `recorded` (the lock's projections of that
/// directory; `None` where the lock records nothing) and `installed` (what `skill install
/// --scope user` recorded placing there; `None` in a project). A copy both name is the one
/// whose hash it still holds, an install's first.
///
/// # Errors
/// A guarded-read refusal of `dir` itself (a link, a file).
pub fn list_agent(
    root: &Root,
    dir: &str,
    recorded: Option<&BTreeMap<String, String>>,
    installed: Option<&BTreeMap<String, crate::installed::Install>>,
) -> Result<Vec<AgentSkill>, Error> {
    let mut out = Vec::new();
    for entry in root.read_dir(dir)?.unwrap_or_default() {
        if entry.kind != EntryKind::Directory || asv_fs::is_tree_change_residue(&entry.name) {
            continue;
        }
        let hash = SkillTree::read(root, &format!("{dir}/{}", entry.name))
            .ok()
            .map(|t| t.hash());
        let synced = recorded.and_then(|r| r.get(&entry.name));
        let install = installed.and_then(|r| r.get(&entry.name));
        let placed = match (install, synced) {
            (Some(i), _) if Some(&i.tree_hash) == hash.as_ref() => Placed::ByInstall,
            (_, Some(h)) if Some(h) == hash.as_ref() => Placed::BySync,
            (Some(_), _) => Placed::EditedSinceInstall,
            (None, Some(_)) => Placed::EditedSinceSync,
            (None, None) => Placed::NotRecorded,
        };
        out.push(AgentSkill {
            name: entry.name,
            hash,
            placed,
        });
    }
    out.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(out)
}
