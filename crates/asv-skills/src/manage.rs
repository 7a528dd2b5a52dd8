//! Keeping the set of skills in order: `skill remove` (an imported skill, its lock entry and
//! its kept base, all or nothing), `skill outdated` (which imports' refs have moved, read
//! only) and `skill list` (every skill under `skills/`, own and imported, offline).
//!
//! `skill remove` changes the tree through one plan of `asv-fs`'s tree-change layer, as a pull
//! does: every named skill is judged first (a refusal of any writes nothing), then the
//! directories, the kept bases and the lock change in one transaction that a failed write
//! rolls back whole. [`removal_changes`] builds the changes of one skill, so whatever else a
//! skill comes to own in the tree joins the same transaction.

use std::collections::{BTreeMap, BTreeSet};

use asv_fs::{Change, Disowned, During, EntryKind, Ownership, Plan, Root, Verdict, WriterLock};
use asv_remote::Options;
use asv_skilltree::SkillTree;

use asv_model::layout::SKILLS_DIR;

use crate::bases::{BASES_DIR, base_digests, base_dir, kept_base};
use crate::error::Error;
use crate::lock::{Entry, SkillLock, imported_names, lock_change, referenced_bases};
use crate::paths::skill_dir;
use crate::sources::Sources;
use crate::status::{Invalid, State, status};
use crate::upstream::{At, Source, hint_pins, resolve, same_tree};
use crate::{Severity, validate_tree};

/// A skill `skill remove` removed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Removed {
    /// The skill.
    pub name: String,
    /// Its directory, from the root.
    pub path: String,
    /// Whether the directory was there (an imported skill whose directory is gone loses only
    /// its lock entry and kept base).
    pub present: bool,
    /// Whether local edits or conflicts were discarded (`--force`).
    pub discarded: bool,
}

/// `skill remove`: removes each named imported skill — its directory under `skills/`, its
/// lock entry and its kept bases (those no remaining entry uses) — in one transaction. A name
/// given twice counts once.
///
/// Without `force`, a skill whose local copy differs from its base, or that waits for
/// `skill resolve`, is refused, naming what would be lost.
///
/// # Errors
/// [`Error::Lock`] for a lock that cannot be read; [`Error::OwnSkill`] for a skill of the
/// repository's own; [`Error::NotImportedAmong`] for a name that is no skill;
/// [`Error::WouldLose`] for local edits or pending conflicts without `force`;
/// [`Error::LinkedSkill`] for a skill directory that is a symbolic link (with `force` too); a
/// refusal of what stands at the skill's directory (a file) or of its content (without `force`);
/// a tree-change refusal or failure. Every refusal comes before anything is written.
pub fn remove(root: &WriterLock<'_>, names: &[String], force: bool) -> Result<Vec<Removed>, Error> {
    let loaded = SkillLock::load(root)?;
    let names = imported_names(root, &loaded, names)?;
    if names.is_empty() {
        return Ok(Vec::new());
    }
    let mut after = loaded.clone();
    for name in &names {
        after.skills.remove(name);
    }
    let mut changes = Vec::new();
    let mut out = Vec::with_capacity(names.len());
    let mut bases = BTreeSet::new();
    for name in names {
        let entry = loaded.entry(&name)?;
        let (removed, skill_changes) = removal_changes(root, &name, entry, &after, force)?;
        for change in skill_changes {
            // Two skills taken from one upstream version share a kept base: removed once.
            if change.dest().starts_with(BASES_DIR) && !bases.insert(change.dest().to_owned()) {
                continue;
            }
            changes.push(change);
        }
        changes.extend(crate::projection::projections_removed(
            root, &name, &loaded, &mut after, force,
        )?);
        out.push(removed);
    }
    // The intent loses the rows too, or the next sync would take the skills up again.
    changes.extend(crate::intent::rows_removed(
        root,
        &out.iter().map(|r| r.name.clone()).collect::<Vec<_>>(),
    )?);
    changes.push(lock_change(&loaded, &after));
    root.apply(Plan::new(root, changes)?)?;
    Ok(out)
}

/// Judges the removal of the imported skill `name` (lock entry `entry`) and builds its
/// changes, writing nothing: the skill's directory, and each kept base of the entry (its base
/// and a pending pull's upstream version) that no entry of `after` — the lock once the removal
/// is made — still uses. The lock itself is left to the caller, which writes it once for every
/// skill of the run.
///
/// Without `force`, a local copy that differs from its base, or a skill waiting for
/// `skill resolve`, is [`Error::WouldLose`], naming the files that differ. The directory's
/// change requires it to still hold what was judged when the plan is made (with `force`,
/// whatever stands there goes).
///
/// # Errors
/// [`Error::WouldLose`]; [`Error::LinkedSkill`] for a link where the directory belongs, a
/// refusal of another kind there; without `force`,
/// a local copy that cannot be read as a skill tree (a link or special file inside); a
/// guarded-read failure.
pub fn removal_changes(
    root: &Root,
    name: &str,
    entry: &Entry,
    after: &SkillLock,
    force: bool,
) -> Result<(Removed, Vec<Change>), Error> {
    let dir = skill_dir(name);
    let mut changes = Vec::new();
    let present = match crate::paths::require_skill_dir(root, &dir) {
        Ok(()) => true,
        Err(Error::Missing { .. }) => false,
        Err(e) => return Err(e),
    };
    let mut discarded = false;
    if present {
        let local = if force {
            SkillTree::read(root, &dir).ok()
        } else {
            Some(SkillTree::read(root, &dir)?)
        };
        // The rename `--name` made is the tool's edit, not the user's.
        let modified = match &local {
            Some(local) => !crate::rename::is_clean(root, name, &entry.base_hash, local)?,
            None => true,
        };
        let conflicted = entry.pending.is_some();
        if (modified || conflicted) && !force {
            let edits = match (&local, kept_base(root, &entry.base_hash)?) {
                (Some(local), Some(base)) => Some(crate::edits::edits(&base, local)),
                _ => None,
            };
            return Err(Error::WouldLose {
                name: name.to_owned(),
                path: dir,
                edits,
                conflicted,
            });
        }
        discarded = modified || conflicted;
        let ownership = match local {
            Some(local) if !force => still_holds(local.hash()),
            _ => Ownership::Force,
        };
        changes.push(Change::remove(dir.clone(), ownership));
    }
    let in_use = referenced_bases(after);
    let hashes =
        std::iter::once(&entry.base_hash).chain(entry.pending.as_ref().map(|p| &p.base_hash));
    for hash in hashes {
        if in_use.contains(hash.as_str()) {
            continue;
        }
        for kept in [base_dir(hash), base_digests(hash)] {
            if root.kind(&kept)?.is_some() {
                changes.push(Change::remove(kept, Ownership::ToolState));
            }
        }
    }
    let removed = Removed {
        name: name.to_owned(),
        path: dir,
        present,
        discarded,
    };
    Ok((removed, changes))
}

/// Ownership of a skill directory being removed: it must still hash to `expected`, what was
/// judged, so an edit made while the command ran is never lost.
fn still_holds(expected: String) -> Ownership {
    Ownership::tool_made(move |root, dest, kind| {
        if kind != EntryKind::Directory {
            return Ok(Verdict::NotOurs(Disowned::Kind(kind)));
        }
        Ok(match SkillTree::read_hash(root, dest) {
            Ok(hash) if hash == expected => Verdict::Ours,
            Ok(_) => Verdict::NotOurs(Disowned::Changed(During::Command)),
            Err(e) => Verdict::NotOurs(Disowned::unreadable(e)),
        })
    })
}

/// An imported skill whose ref names another commit now than the lock records.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outdated {
    /// The skill.
    pub name: String,
    /// The revision the lock records (a commit, or for a local directory read as it stands,
    /// the tree hash).
    pub locked: String,
    /// What the ref names now (the same kind of value).
    pub now: String,
    /// The ref followed; `None` for a local directory read as it stands.
    pub reference: Option<String>,
    /// Whether `reference` is the ref `vendor-skills.yaml` asks for and not the one the lock
    /// follows, [`Outdated::locked_ref`]: the skill is then outdated for that alone, and
    /// `skill pull` moves it (issue 29 §2).
    pub ref_changed: bool,
    /// The ref the lock follows, when [`Outdated::ref_changed`] (`None`: it names none).
    pub locked_ref: Option<String>,
    /// For a semver range: the newest tag in the range, whose commit `now` is.
    pub in_range: Option<String>,
    /// For a semver range: the newest release tag of the source, in the range or not.
    pub newest: Option<String>,
    /// Upstream no longer holds the skill, as a pull found at `now` (empty for a local
    /// directory): said once, not counted as outdated.
    pub removed_upstream: bool,
    /// With `--capabilities` ([`outdated_with`]): what taking `now` would change in what the
    /// skill can do, its base against upstream at `now`; `None` otherwise, for a skill gone
    /// upstream, and for one whose base can no longer be had.
    pub capabilities: Option<asv_audit::CapabilityDiff>,
}

/// `skill outdated`: each named imported skill (every one when `names` is empty; a name given
/// twice counts once) whose source has moved since the lock was written, or whose row in
/// `vendor-skills.yaml` asks for another ref than the lock follows, in name order. Writes
/// nothing. A semver range is judged from the source's tag list: the newest tag in the range
/// and the newest release overall are given.
///
/// A repository or local git repository is asked which commit its ref names (the
/// transport's ref resolution: no file of the skill is read); a local directory read as it
/// stands has no ref, so its skill is read and hashed. A skill whose ref names another commit
/// is outdated only when the tree at its path changed (issue 30 §3): the tree ids of its path
/// at both commits, from the listings of one fetch of both (git) or the API's trees (GitHub),
/// are compared, so a commit elsewhere in the source is no news (`skill pull` then moves
/// the pin without reading the skill). When the ids cannot be had (the pin is gone from the
/// source), the skill counts as outdated, as any moved ref did before. Each source is reached
/// once per run.
///
/// # Errors
/// [`Error::Lock`]; [`Error::OwnSkill`] or [`Error::NotImportedAmong`] for a name given that
/// is not imported; [`Error::Intent`] for an intent file that cannot be read; a source that
/// cannot be read (as [`crate::upstream::take`]), including a local directory that no longer
/// holds the skill; [`Error::RangeUnsupported`] or [`Error::NoTagInRange`] for a range.
pub fn outdated(root: &Root, names: &[String], options: &Options) -> Result<Vec<Outdated>, Error> {
    outdated_with(root, names, options, false)
}

/// As [`outdated`]; with `capabilities` (`skill outdated --capabilities`), each outdated skill
/// also says what the update would change in what it can do ([`Outdated::capabilities`]):
/// its base (the kept copy, or the source read again at the pinned revision) and upstream at
/// the commit its ref names now are read whole and audited. Without it no tree is read that
/// [`outdated`] would not read. Writes nothing either way.
///
/// # Errors
/// As [`outdated`]; with `capabilities`, as [`crate::upstream::take`] for either read and
/// [`Error::BaseMismatch`] for a pinned revision that no longer hashes as recorded.
pub fn outdated_with(
    root: &Root,
    names: &[String],
    options: &Options,
    capabilities: bool,
) -> Result<Vec<Outdated>, Error> {
    let lock = SkillLock::load(root)?;
    let mut names = if names.is_empty() {
        lock.skills.keys().cloned().collect()
    } else {
        imported_names(root, &lock, names)?
    };
    names.sort();
    // The intent is the source of truth: a row asking for another ref than the lock follows
    // makes its skill outdated, whatever that ref names.
    let intent = crate::intent::Intent::load(root)?;
    let sources = &Sources::new(options);
    // Each source is reached once for every skill of it (issue 30 §2), and told the pins it
    // will be asked to compare, so it may fetch them with the commit its ref names now.
    let mut pins = Vec::with_capacity(names.len());
    for name in &names {
        pins.push(lock.entry(name)?);
    }
    hint_pins(root, pins, sources);
    let mut out = Vec::new();
    for name in names {
        let entry = lock.entry(&name)?;
        let source = Source::parse(&entry.source)?;
        let wanted = intent
            .skills
            .get(&name)
            .and_then(|w| w.reference.clone())
            .filter(|r| entry.reference.as_ref() != Some(r));
        let follows = wanted.as_ref().or(entry.reference.as_ref());
        let (mut in_range, mut newest) = (None, None);
        let resolved = match follows {
            // A range is judged from the tag list alone: no commit is fetched.
            Some(r) if crate::refs::range(r).is_some() => {
                let range = crate::refs::range(r).unwrap_or_default();
                let Some(tags) = crate::upstream::tags_of(root, &source, Some(r), sources)? else {
                    return Err(Error::RangeUnsupported {
                        repository: entry.source.clone(),
                        range: r.clone(),
                    });
                };
                newest = crate::refs::newest(&tags).map(|t| t.name.clone());
                let Some(tag) = crate::refs::pick(&tags, &range) else {
                    return Err(Error::NoTagInRange {
                        repository: entry.source.clone(),
                        range: r.clone(),
                        newest,
                    });
                };
                in_range = Some(tag.name.clone());
                Ok((tag.commit.clone(), Some(r.clone())))
            }
            follows => {
                let at = match (&source, follows) {
                    (_, Some(r)) => At::Ref(r),
                    (Source::Local(_), None) => At::Now,
                    (_, None) => At::DefaultBranch,
                };
                resolve(root, &source, &entry.path, at, sources)
            }
        };
        // A skill a pull found gone upstream is said once as such while upstream stays where
        // the pull saw it (a local directory: while it still lacks the skill); a move since
        // is news again, since the skill may be back.
        if let Some(gone) = &entry.removed_upstream {
            let still_gone = match &resolved {
                Ok((now, _)) => now == gone,
                Err(Error::NotInSource { .. }) => gone.is_empty(),
                Err(_) => false,
            };
            if still_gone {
                out.push(Outdated {
                    name,
                    locked: entry.revision.clone(),
                    now: gone.clone(),
                    reference: entry.reference.clone(),
                    ref_changed: false,
                    locked_ref: None,
                    in_range: None,
                    newest: None,
                    removed_upstream: true,
                    capabilities: None,
                });
                continue;
            }
        }
        let (now, reference) = resolved?;
        // A commit elsewhere in the source is no news for this skill: outdated only when
        // the tree at its path changed (issue 30 §3).
        let moved = wanted.is_some()
            || now != entry.revision
                && !same_tree(
                    root,
                    &source,
                    follows.map(String::as_str),
                    &entry.path,
                    &entry.revision,
                    &now,
                    sources,
                )?;
        // A signed row's new commit (or its tag) is checked as a pull would check it
        // (issue 33 §1): what a pull would refuse is said now.
        if moved
            && now != entry.revision
            && let Some(file) = intent.skills.get(&name).and_then(|w| w.signed_by.as_ref())
        {
            let row = crate::signed::SignedRow::open(root, &name, file, &source)?;
            row.check(
                root,
                &source,
                follows.map(String::as_str),
                in_range.as_deref(),
                &now,
                sources,
            )?;
        }
        if moved {
            let capabilities = if capabilities {
                crate::audit::capabilities::update_of(root, &name, entry, &now, sources)?
            } else {
                None
            };
            out.push(Outdated {
                name,
                locked: entry.revision.clone(),
                now,
                reference,
                ref_changed: wanted.is_some(),
                locked_ref: wanted.and(entry.reference.clone()),
                in_range,
                newest,
                removed_upstream: false,
                capabilities,
            });
        }
    }
    Ok(out)
}

/// Where a skill under `skills/` came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SkillOrigin {
    /// The repository's own: the skill lock does not list it.
    Own,
    /// Imported: the source and revision the lock records.
    Imported {
        /// The source as recorded.
        source: String,
        /// The locked revision.
        revision: String,
    },
}

/// The state of a skill of the repository's own.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OwnState {
    /// It follows the Agent Skills rules (warnings aside).
    Valid,
    /// It cannot be read as a skill or breaks the rules: why.
    Invalid(Invalid),
}

/// The state `skill list` shows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Listed {
    /// A skill of the repository's own.
    Own(OwnState),
    /// An imported skill, as `skill status` judges it.
    Imported(State),
}

impl Listed {
    /// The state's word: `valid`, `invalid`, or an imported state (`clean`, `modified`, …).
    pub fn as_str(&self) -> &'static str {
        match self {
            Listed::Own(OwnState::Valid) => "valid",
            Listed::Own(OwnState::Invalid(_)) => "invalid",
            Listed::Imported(state) => state.as_str(),
        }
    }

    /// Why the skill is invalid, when it is.
    pub fn reason(&self) -> Option<&Invalid> {
        match self {
            Listed::Own(OwnState::Invalid(why)) | Listed::Imported(State::Invalid(why)) => {
                Some(why)
            }
            _ => None,
        }
    }
}

/// One skill of `skill list`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListedSkill {
    /// The skill's name (its directory under `skills/`).
    pub name: String,
    /// Where it came from.
    pub origin: SkillOrigin,
    /// Its state.
    pub state: Listed,
}

/// `skill list`: every directory under `skills/` and every imported skill (one whose directory
/// is gone is listed as missing), by name, offline.
///
/// # Errors
/// [`Error::Lock`]; a guarded-read failure of `skills/` (a link there, say) other than a
/// refusal of a skill's own content (which is its state).
pub fn list(root: &Root) -> Result<Vec<ListedSkill>, Error> {
    list_of(root, &[])
}

/// `skill list <name>…`: the skills of [`list`] named (every one when `names` is empty; a
/// name given twice counts once), by name, so one skill's origin and state can be asked as
/// `skill status <name>` asks an import's.
///
/// # Errors
/// As [`list`]; [`Error::NoSuchSkill`] for a name that is neither under `skills/` nor
/// imported.
pub fn list_of(root: &Root, names: &[String]) -> Result<Vec<ListedSkill>, Error> {
    let mut skills = all_listed(root)?;
    if names.is_empty() {
        return Ok(skills);
    }
    let wanted: BTreeSet<&str> = names.iter().map(String::as_str).collect();
    if let Some(unknown) = names.iter().find(|n| !skills.iter().any(|s| &s.name == *n)) {
        return Err(Error::NoSuchSkill {
            name: unknown.clone(),
            skills: skills.into_iter().map(|s| s.name).collect(),
        });
    }
    skills.retain(|s| wanted.contains(s.name.as_str()));
    Ok(skills)
}

/// Every skill of `skill list`, by name.
fn all_listed(root: &Root) -> Result<Vec<ListedSkill>, Error> {
    let lock = SkillLock::load(root)?;
    let mut skills: BTreeMap<String, ListedSkill> = BTreeMap::new();
    for s in status(root)? {
        skills.insert(
            s.name.clone(),
            ListedSkill {
                name: s.name,
                origin: SkillOrigin::Imported {
                    source: s.source,
                    revision: s.revision,
                },
                state: Listed::Imported(s.state),
            },
        );
    }
    let own = root
        .read_dir(SKILLS_DIR)?
        .unwrap_or_default()
        .into_iter()
        .filter(|e| {
            e.kind == EntryKind::Directory
                && !asv_fs::is_tree_change_residue(&e.name)
                && !lock.skills.contains_key(&e.name)
        });
    for e in own {
        let dir = skill_dir(&e.name);
        let state = match SkillTree::read(root, &dir).and_then(|t| validate_tree(&t, &dir)) {
            Err(err) => OwnState::Invalid(Invalid::unreadable(err)),
            Ok(findings) => match findings.into_iter().find(|f| f.severity == Severity::Error) {
                Some(f) => OwnState::Invalid(Invalid::Breaks(Box::new(f))),
                None => OwnState::Valid,
            },
        };
        skills.insert(
            e.name.clone(),
            ListedSkill {
                name: e.name,
                origin: SkillOrigin::Own,
                state: Listed::Own(state),
            },
        );
    }
    Ok(skills.into_values().collect())
}
