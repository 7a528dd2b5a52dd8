//! `skill pull`: imported skills kept up to date with their source, local edits kept.
//!
//! An imported skill has three versions: its base (the upstream version it was taken at, held
//! by the lock as a commit and a tree hash), the local copy under `skills/<name>` that the
//! team may edit, and the upstream version now. A pull merges base, local and upstream with
//! [`asv_skilltree::merge::merge`], so local edits survive upstream updates; it writes nothing
//! until the merge is clean and the result is a valid skill. A pull of several skills judges
//! every one of them first; then every skill directory, kept base and the lock change in one
//! transaction of `asv-fs`'s tree-change layer (staged, swapped, rolled back on failure), so a
//! refusal of any skill, or a failed write, leaves the tree as it was.
//!
//! When a base is lost for good (a local directory's kept base is gone, as on a fresh clone,
//! where `.agentic-skill-vendor/` is not checked in), a pull merges without it:
//! [`merge_without_base`] takes what both sides hold alike and makes every other difference
//! a conflict, resolved as any other.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};

use asv_audit::CapabilityDiff;
use asv_fs::{Change, Plan, Root, WriterLock};
use asv_remote::Options;
use asv_skilltree::merge::{Conflict, merge, merge_text_into, merge_without_base};
use asv_skilltree::{SkillTree, Stamps};

use crate::bases::{base_change_linking, base_dir, kept_base, listed_base_unless};
use crate::error::{Error, Remedy};
use crate::gate::Gate;
use crate::lock::{Pending, SkillLock, lock_changes, referenced_bases};
use crate::paths::{portable_tree, skill_dir};
use crate::placing::{fill_linking, still_read};
use crate::projection::projections_placed;
use crate::signed::{SignedRow, refuse_change};
use crate::sources::Sources;
use crate::upstream::{
    Taken, Unchanged, base_of, hint_pins, require_imported, unchanged_upstream, upstream_of,
};
use crate::validate::refuse_errors;
use crate::{Finding, Profile, manifest_name, validate_tree_as};

/// The labels of a conflicted file's hunks.
pub const LABELS: [&str; 3] = ["local", "base", "upstream"];

/// What a pull did to one skill.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Pulled {
    /// Upstream is still the base: nothing changed (the pin moves when only other files of
    /// the source changed).
    UpToDate {
        /// The skill.
        name: String,
        /// The revision now pinned.
        revision: String,
    },
    /// The merged tree was placed and the pin moved.
    Updated {
        /// The skill.
        name: String,
        /// The revision pinned before.
        from: String,
        /// The revision pinned now.
        to: String,
        /// Whether local edits were kept in the merge.
        kept_local: bool,
        /// Where the base belonged when it was lost and the merge was made without one.
        lost_base: Option<String>,
        /// What the consumer's rules warn of in the merged skill ([`Profile::Consumer`]).
        warnings: Vec<Finding>,
        /// What the update changes in what the skill can do: the base against upstream's new
        /// version (the local copy's own edits are not in it); `None` when the base was lost.
        capabilities: Option<CapabilityDiff>,
    },
    /// The merge conflicts: nothing was placed (or, with `--write-conflicts`, the files with
    /// markers were placed and the skill waits for `skill resolve`).
    Conflicts {
        /// The skill.
        name: String,
        /// The upstream revision merged.
        revision: String,
        /// Each conflict, sorted by path.
        conflicts: Vec<Conflict>,
        /// Whether the conflict files were written.
        written: bool,
        /// Where the base belonged when it was lost and the merge was made without one.
        lost_base: Option<String>,
        /// What the update changes in what the skill can do, as for [`Pulled::Updated`].
        capabilities: Option<CapabilityDiff>,
    },
    /// In a pull of several skills, one whose earlier pull's conflicts still wait for `skill
    /// resolve`: left as it is while the others are pulled.
    Waiting {
        /// The skill.
        name: String,
        /// The upstream revision its conflicts came from.
        revision: String,
    },
    /// Upstream no longer holds the skill; the local copy is kept as it is.
    RemovedUpstream {
        /// The skill.
        name: String,
        /// The upstream revision read (empty for a local directory).
        revision: String,
        /// Whether the kept copy has local edits.
        modified: bool,
    },
}

impl Pulled {
    /// Whether this outcome leaves work for the user (a conflict).
    pub fn is_conflict(&self) -> bool {
        matches!(self, Pulled::Conflicts { .. } | Pulled::Waiting { .. })
    }

    /// The skill.
    pub fn name(&self) -> &str {
        match self {
            Pulled::UpToDate { name, .. }
            | Pulled::Updated { name, .. }
            | Pulled::Conflicts { name, .. }
            | Pulled::Waiting { name, .. }
            | Pulled::RemovedUpstream { name, .. } => name,
        }
    }

    /// What the update changes in what the skill can do, for an update or a conflicted one
    /// whose base was had.
    pub fn capabilities(&self) -> Option<&CapabilityDiff> {
        match self {
            Pulled::Updated { capabilities, .. } | Pulled::Conflicts { capabilities, .. } => {
                capabilities.as_ref()
            }
            _ => None,
        }
    }

    /// Whether the update grants the skill more than its base could do
    /// ([`CapabilityDiff::widens`]).
    pub fn widens(&self) -> bool {
        self.capabilities().is_some_and(CapabilityDiff::widens)
    }

    /// Where the base belonged, when it was lost and the merge was made without one.
    pub fn lost_base(&self) -> Option<&str> {
        match self {
            Pulled::Updated { lost_base, .. } | Pulled::Conflicts { lost_base, .. } => {
                lost_base.as_deref()
            }
            _ => None,
        }
    }
}

/// What `skill pull` is asked to do, and whether it writes.
#[derive(Debug, Clone, Copy, Default)]
pub struct PullOptions<'a> {
    /// The skills to pull; every imported skill when empty (a name given twice counts once).
    pub names: &'a [String],
    /// `--write-conflicts`: a conflicted merge places its files with markers and the skill
    /// waits for `skill resolve`; without it a conflicted merge changes nothing.
    pub write_conflicts: bool,
    /// `--ref R`, with exactly one name in [`PullOptions::names`] (it is not used otherwise):
    /// that skill's `ref` in `vendor-skills.yaml` becomes `R` and the skill is pulled there,
    /// as a changed row is followed (issue 29 §2): the old pin is the base, `R`'s commit is
    /// upstream. The row is edited in the same transaction as the pull, and only when the lock
    /// then records `R` (a pull ending in conflicts it does not write changes neither).
    pub reference: Option<&'a str>,
    /// The writer lock of the tree pulled, the proof that this run may write; `None` is a dry
    /// run.
    pub writer: Option<&'a WriterLock<'a>>,
    /// The audit gate the merged skills pass before anything is written (a dry run is
    /// gated as the real run would be); `None` audits nothing.
    pub gate: Option<&'a Gate>,
    /// `--accept-signer-change`: for this run, a signed row's new commit may be signed by
    /// another key of its allowed-signers file than the pin before it (issue 33 §1).
    pub accept_signer_change: bool,
}

/// How a pull of one skill checks signatures: its signed row, if it has one.
struct Signing {
    row: Option<SignedRow>,
    accept: bool,
}

/// What a pull of one skill writes, decided before anything is.
#[derive(Default)]
struct Writes {
    /// The tree for `skills/<name>`, and the local copy it replaces (its files unchanged in
    /// the new tree are linked, not written again) with the stamps it was read with.
    place: Option<(SkillTree, SkillTree, Stamps)>,
    /// Trees to keep as bases, each with the kept base directory and tree it may link the
    /// files it shares with from.
    bases: Vec<(SkillTree, Option<(String, SkillTree)>)>,
}

/// `skill pull`: merges upstream into each skill of [`PullOptions::names`]. A clean merge that
/// is a valid skill is placed and the pin moves; a conflicted one changes nothing unless
/// [`PullOptions::write_conflicts`], which places the files with markers and marks the skill
/// conflicted until [`crate::resolve::resolve`]. With [`PullOptions::reference`], the skill's
/// row in `vendor-skills.yaml` is moved to that ref and the skill pulled there.
///
/// Under [`PullOptions::writer`] (the writer lock of `root`) the pull is written; without one
/// it is a dry run, decided exactly as a pull decides (upstream read, bases checked, merges
/// made and validated, the transaction planned), with nothing written: no skill, kept base,
/// lock or intent changes. The outcomes are reported as a pull would report them.
///
/// Every skill is judged before anything is written; then every skill directory, every new
/// kept base and the lock change in one transaction. A refusal of any skill writes nothing,
/// and a failed write rolls every change back.
///
/// A base that cannot be had again (a local directory taken as it stood, whose kept base is
/// gone) is not a refusal: when the local copy still hashes to the recorded base it is the
/// base; otherwise the merge is made without one ([`merge_without_base`]) and the outcome
/// says so (see [`Pulled::lost_base`]).
///
/// # Errors
/// [`Error::Lock`] for a lock that cannot be read; [`Error::NotImported`] for a name the lock
/// does not hold; [`Error::Conflicted`] for a skill waiting for `skill resolve`;
/// [`Error::MissingImported`] for a skill whose directory is gone; [`Error::LinkedSkill`] for
/// one that is a symbolic link; [`Error::SkillTree`] for a local copy holding a link or special file; as [`crate::upstream::take`] for upstream; [`Error::BaseMismatch`] for
/// a base that no longer hashes as recorded; [`Error::Invalid`] for a merged result that
/// breaks the rules; [`Error::Unwritable`] for a merged path some host cannot write; a
/// tree-change refusal or failure. In a run of several skills, a refusal of one skill comes as
/// [`Error::PullRefused`] naming it. With a reference, as [`crate::intent::ref_change`] for an
/// intent file that cannot be edited. Under [`PullOptions::gate`], [`Error::AuditRefused`] for
/// an error finding in a merged skill that the gate does not let through.
pub fn pull(root: &Root, opts: &PullOptions<'_>, options: &Options) -> Result<Vec<Pulled>, Error> {
    let PullOptions {
        names,
        write_conflicts,
        reference,
        writer,
        gate,
        accept_signer_change,
    } = *opts;
    let forced = match (reference, names) {
        (Some(reference), [name]) => Some((name.as_str(), reference)),
        _ => None,
    };
    let loaded = SkillLock::load(root)?;
    // The refs the intent (or `--ref`) asks for where the lock follows another (issue 29 §2).
    let moves = crate::follow::moves(root, &loaded, forced)?;
    let mut lock = loaded.clone();
    let mut names: Vec<String> = if names.is_empty() {
        lock.skills.keys().cloned().collect()
    } else {
        names.to_vec()
    };
    let mut seen = std::collections::BTreeSet::new();
    names.retain(|name| seen.insert(name.clone()));
    let several = names.len() > 1;
    // Each source is reached once for the whole pull (issue 30 §2), told the pins it will be
    // asked to compare with (issue 30 §3).
    let sources = &Sources::new(options);
    hint_pins(
        root,
        names.iter().filter_map(|name| loaded.skills.get(name)),
        sources,
    );

    // Judge every skill first: a refusal here has written nothing.
    let mut out = Vec::with_capacity(names.len());
    let mut places = Vec::new();
    let mut mirrored: Vec<(String, SkillTree)> = Vec::new();
    let mut bases: BTreeMap<String, (SkillTree, Option<(String, SkillTree)>)> = BTreeMap::new();
    let step = options.progress.step(
        &format!("pulling {} skills", names.len()),
        Some(names.len() as u64),
    );
    let intent = crate::intent::Intent::load(root)?;
    for name in names {
        step.advance(1);
        let to = moves.get(&name);
        // A signed row whose file or source cannot be used is refused before its pull.
        let row = match (intent.skills.get(&name), lock.skills.get(&name)) {
            (Some(wanted), Some(entry)) => match &wanted.signed_by {
                Some(file) => {
                    let source = crate::upstream::Source::parse(&entry.source)?;
                    match SignedRow::open(root, &name, file, &source) {
                        Ok(row) => Some(row),
                        Err(e) if several => {
                            return Err(Error::PullRefused {
                                name,
                                source: Box::new(e),
                            });
                        }
                        Err(e) => return Err(e),
                    }
                }
                None => None,
            },
            _ => None,
        };
        let signing = Signing {
            row,
            accept: accept_signer_change,
        };
        let decided = pull_one(
            root,
            &name,
            &mut lock,
            to,
            write_conflicts,
            sources,
            &signing,
        );
        let (pulled, writes) = match decided {
            Ok(decided) => decided,
            // One skill waiting for `skill resolve` does not hold up the others: it is said
            // (and the run exits 1), they are pulled.
            Err(Error::Conflicted { .. }) if several => {
                let revision = lock
                    .skills
                    .get(&name)
                    .and_then(|e| e.pending.as_ref())
                    .map(|p| p.revision.clone())
                    .unwrap_or_default();
                out.push(Pulled::Waiting { name, revision });
                continue;
            }
            Err(e) if several => {
                return Err(Error::PullRefused {
                    name,
                    source: Box::new(e),
                });
            }
            Err(e) => return Err(e),
        };
        if let Some((tree, local, stamps)) = writes.place {
            // A merged skill goes to the agents' directories too; conflict markers never do.
            if matches!(pulled, Pulled::Updated { .. }) {
                mirrored.push((name.clone(), tree.clone()));
            }
            places.push((skill_dir(&name), tree, local, stamps));
        }
        for (tree, from) in writes.bases {
            bases.entry(tree.hash()).or_insert((tree, from));
        }
        out.push(pulled);
    }

    // What the pull places is audited as merged (conflict markers and all), before anything
    // is written (issue 32 §2).
    if let Some(gate) = gate {
        let incoming: Vec<_> = places
            .iter()
            .map(|(dir, tree, ..)| {
                let name = dir.rsplit('/').next().unwrap_or(dir);
                (name, dir.clone(), tree)
            })
            .collect();
        gate.check(&incoming)?;
    }
    // Then write every change in one transaction (planned in a dry run too, so it refuses
    // exactly what the real run would).
    let mut changes = Vec::with_capacity(places.len() + bases.len() + 1);
    for (dir, tree, local, stamps) in places {
        // The files the merge left as they were are linked, not written: a pull writes what
        // changed, as `git merge` does. The ownership check looks again at the directory they
        // are linked from, so an edit made meanwhile is still refused, never mixed in.
        let fill = fill_linking(root, &tree, &local, &dir);
        changes.push(Change::replace(dir, fill, still_read(local, stamps)));
    }
    // A base fetched again only to merge from is not kept once the lock no longer refers to
    // it; the kept bases it no longer refers to go in the same transaction.
    let referenced = referenced_bases(&lock);
    for (hash, (tree, from)) in &bases {
        if referenced.contains(hash.as_str()) {
            changes.extend(base_change_linking(root, tree, from.as_ref())?);
        }
    }
    if !mirrored.is_empty() {
        let targets = crate::intent::Intent::load(root)?.targets;
        for (name, tree) in &mirrored {
            changes.extend(projections_placed(root, name, tree, &targets, &mut lock)?);
        }
    }
    if lock != loaded {
        changes.extend(lock_changes(root, &loaded, &lock)?);
    }
    if let Some((name, reference)) = forced
        && lock.skills.get(name).and_then(|e| e.reference.as_deref()) == Some(reference)
    {
        changes.extend(crate::intent::ref_change(root, &loaded, name, reference)?);
    }
    if !changes.is_empty() {
        let plan = Plan::new(root, changes)?;
        if let Some(writer) = writer {
            writer.apply(plan)?;
        }
    }
    Ok(out)
}

/// Judges the pull of one skill, writing nothing: its outcome, what it writes, and its lock
/// entry changed in `lock`.
fn pull_one(
    root: &Root,
    name: &str,
    lock: &mut SkillLock,
    to: Option<&String>,
    write_conflicts: bool,
    sources: &Sources<'_>,
    signing: &Signing,
) -> Result<(Pulled, Writes), Error> {
    let entry = lock.entry(name)?.clone();
    if entry.pending.is_some() {
        return Err(Error::Conflicted {
            name: name.to_owned(),
        });
    }
    let dir = require_imported(root, name, &entry)?;
    // Upstream is read at the ref asked for; the base stays the old pin's.
    let followed = crate::follow::following(&entry, to);
    // The local tree, upstream's and the kept base are read side by side: independent passes
    // over files (and, for a remote, a fetch). Whether the skill's tree moved upstream is
    // asked first, beside the local read: after the first skill of a source it is a lookup in
    // what the run has read, and a skill that did not move (all but one after a one-file
    // change, issue 30 §3) needs neither upstream's files nor its kept base, so neither is
    // started for it (reading its kept base for nothing was a tenth of the tool's time in
    // such a pull). The base is read ahead of knowing it is wanted, and given up as soon as
    // it is not: when upstream still hashes to it, or a read fails. Errors come in the order
    // of reads in turn: local, upstream, then the base.
    let stop = AtomicBool::new(false);
    let (local, upstream, kept) = std::thread::scope(|scope| {
        let local = scope.spawn(|| {
            let local = SkillTree::read_stamped(root, &dir);
            if local.is_err() {
                stop.store(true, Ordering::Relaxed);
            }
            local
        });
        // A skill whose tree at its path is its pin's is not read at all (issue 30 §3).
        let settled = match unchanged_upstream(root, &followed, sources) {
            Ok(Some(unchanged)) => Some(Ok(Ok(Found::Unchanged(unchanged)))),
            Ok(None) => None,
            Err(e) => Some(Err(e)),
        };
        let (upstream, kept) = match settled {
            // Nothing more is read upstream, and the base is not wanted.
            Some(upstream) => (upstream, Ok(None)),
            None => {
                let kept = scope.spawn(|| listed_base_unless(root, &entry.base_hash, &stop));
                let upstream = upstream_of(root, &followed, sources).map(|u| u.map(Found::Read));
                if !matches!(&upstream, Ok(Ok(Found::Read(u))) if u.tree.hash() != entry.base_hash)
                {
                    stop.store(true, Ordering::Relaxed);
                }
                (upstream, joined(kept))
            }
        };
        (joined(local), upstream, kept)
    });
    let (local, stamps) = local?;
    let name = name.to_owned();
    let mut writes = Writes::default();
    // Who signed the commit a pull pins (issue 33 §1): checked before the pin moves, and
    // refused when another key signed it than the pin before, unless accepted for this run.
    let signer_at = |revision: &str, tag: Option<&String>| -> Result<_, Error> {
        let Some(row) = &signing.row else {
            return Ok(None);
        };
        let source = crate::upstream::Source::parse(&followed.source)?;
        let now = row.check(
            root,
            &source,
            followed.reference.as_deref(),
            tag.map(String::as_str),
            revision,
            sources,
        )?;
        refuse_change(row, revision, entry.signer.as_ref(), &now, signing.accept)?;
        Ok(Some(now))
    };
    let upstream = match upstream? {
        Ok(Found::Read(upstream)) => upstream,
        Ok(Found::Unchanged(Unchanged { revision, tag })) => {
            crate::follow::refuse_moved_tag(
                root,
                &name,
                &entry,
                &followed,
                (&revision, tag.as_ref()),
                sources,
            )?;
            let signer = signer_at(&revision, tag.as_ref())?;
            if let Some(e) = lock.skills.get_mut(&name) {
                e.removed_upstream = None;
                e.signer = signer;
                e.revision = revision.clone();
                crate::follow::record(e, &followed, tag.as_ref());
            }
            return Ok((Pulled::UpToDate { name, revision }, writes));
        }
        Err(revision) => {
            // Recorded, so `skill outdated` says it once instead of at every run; the copy,
            // its base and its pin stay as they are.
            if let Some(e) = lock.skills.get_mut(&name) {
                e.removed_upstream = Some(revision.clone());
            }
            let pulled = Pulled::RemovedUpstream {
                modified: !crate::rename::is_clean(root, &name, &entry.base_hash, &local)?,
                revision,
                name,
            };
            return Ok((pulled, writes));
        }
    };
    crate::follow::refuse_moved_tag(
        root,
        &name,
        &entry,
        &followed,
        (&upstream.revision, upstream.tag.as_ref()),
        sources,
    )?;
    let signer = signer_at(&upstream.revision, upstream.tag.as_ref())?;
    // Upstream holds the skill (again).
    if let Some(e) = lock.skills.get_mut(&name) {
        e.removed_upstream = None;
    }
    let upstream_hash = upstream.tree.hash();
    if upstream_hash == entry.base_hash {
        if let Some(e) = lock.skills.get_mut(&name) {
            e.signer = signer;
            e.revision = upstream.revision.clone();
            crate::follow::record(e, &followed, upstream.tag.as_ref());
        }
        let pulled = Pulled::UpToDate {
            name,
            revision: upstream.revision,
        };
        return Ok((pulled, writes));
    }
    // Upstream's file digests (to compare with the base, and for its own list), worked out on
    // every core now that the reads are done rather than on upstream's reading thread.
    {
        use rayon::prelude::*;
        upstream.tree.files().par_iter().for_each(|f| {
            f.data.sha256();
        });
    }
    // A base taken from its digest list has had no byte read: the files the merge reads
    // (changed on both sides) are checked first, and should one not hold what the list says,
    // the base is read whole, which judges it.
    let kept = match kept? {
        Some((base, true)) if !reads_back(&base, &local, &upstream.tree) => {
            kept_base(root, &entry.base_hash)?
        }
        kept => kept.map(|(base, _)| base),
    };
    // `kept`: the base was read from its kept directory, which a new base may link from.
    let (base, fetched, kept, lost_base) = match base_of(root, &name, &entry, kept, sources) {
        Ok((base, fetched)) => (Some(base), fetched, !fetched, None),
        // A local copy that still hashes to the lost base is that base.
        Err(Error::BaseUnavailable { .. }) if local.hash() == entry.base_hash => {
            (Some(local.clone()), false, false, None)
        }
        Err(Error::BaseUnavailable { path, .. }) => (None, false, false, Some(path)),
        Err(e) => return Err(e),
    };
    // What the update changes in what the skill can do: upstream's new version against the
    // base it replaces (issue 32 §3), and the digest the lock records of the new base.
    let audited = crate::audit::audit_tree(&upstream.tree)?;
    let digest = audited.capabilities.digest();
    // A base taken from its digest list has had no byte read, and the merge reads only the
    // files both sides changed: one of its other files edited in place is no reason to refuse
    // the pull, only to leave the update's capabilities uncompared.
    let capabilities = base
        .as_ref()
        .and_then(|base| crate::audit::audit_tree(base).ok())
        .map(|old| CapabilityDiff::between(&old, &audited));
    // The tool's own rename (`skill add --name`) is taken out of the local copy before the
    // merge and put back after it, so the `name:` line never conflicts with an upstream
    // change beside it and is never counted as the user's edit.
    let unrenamed = base
        .as_ref()
        .and_then(|base| crate::rename::unrenamed(&local, &name, manifest_name(base).as_deref()));
    let ours = unrenamed.as_ref().unwrap_or(&local);
    let mut merged = match &base {
        Some(base) => merge(base, ours, &upstream.tree, &|b, l, r, out| {
            merge_text_into(b, l, r, LABELS, out)
        })?,
        None => merge_without_base(ours, &upstream.tree, LABELS)?,
    };
    // Compared by files before the rename is put back: the merged tree's hash would read
    // again every file it left on disk.
    let kept_local = merged.tree != upstream.tree;
    if unrenamed.is_some()
        && let Ok(tree) = crate::rename::renamed(&merged.tree, &name)
    {
        merged.tree = tree;
    }
    if !merged.is_clean() {
        if write_conflicts {
            merged.tree.check_paths()?;
            portable_tree(&entry.source, &merged.tree)?;
            upstream.tree.check_paths()?;
            if let Some(e) = lock.skills.get_mut(&name) {
                e.pending = Some(Pending {
                    revision: upstream.revision.clone(),
                    base_hash: upstream_hash,
                    capabilities: Some(digest),
                    signer: signer.clone(),
                });
                crate::follow::record(e, &followed, upstream.tag.as_ref());
            }
            let (link_from, fetched_base) = base_writes(base, fetched, kept, &entry.base_hash);
            writes.place = Some((merged.tree, local, stamps));
            writes.bases.push((upstream.tree, link_from));
            writes.bases.extend(fetched_base.map(|b| (b, None)));
        }
        let pulled = Pulled::Conflicts {
            name,
            revision: upstream.revision,
            conflicts: merged.conflicts,
            written: write_conflicts,
            lost_base,
            capabilities,
        };
        return Ok((pulled, writes));
    }
    // Upstream's content is taken as agents would load it: what the specification forbids
    // but agents accept is a warning, so an upstream commit that breaks a rule never leaves
    // the skill stuck.
    let warnings = refuse_errors(
        validate_tree_as(&merged.tree, &dir, Profile::Consumer)?,
        Remedy::FixUpstream,
    )?;
    portable_tree(&entry.source, &merged.tree)?;
    merged.tree.check_paths()?;
    upstream.tree.check_paths()?;
    if let Some(e) = lock.skills.get_mut(&name) {
        e.signer = signer;
        e.revision = upstream.revision.clone();
        e.base_hash = upstream_hash.clone();
        e.capabilities = Some(digest);
        crate::follow::record(e, &followed, upstream.tag.as_ref());
    }
    if merged.tree != local {
        writes.place = Some((merged.tree, local, stamps));
    }
    let (link_from, fetched_base) = base_writes(base, fetched, kept, &entry.base_hash);
    writes.bases.push((upstream.tree, link_from));
    writes.bases.extend(fetched_base.map(|b| (b, None)));
    let pulled = Pulled::Updated {
        kept_local,
        name,
        from: entry.revision,
        to: upstream.revision,
        lost_base,
        warnings,
        capabilities,
    };
    Ok((pulled, writes))
}

/// Whether every file of `base` a merge with `local` and `upstream` reads (one both changed,
/// each their own way) still holds its bytes ([`asv_skilltree::FileData::for_each_chunk`]
/// checks a file left on disk against its digest).
fn reads_back(base: &SkillTree, local: &SkillTree, upstream: &SkillTree) -> bool {
    base.files().iter().all(|b| {
        let (Some(l), Some(u)) = (local.get(&b.path), upstream.get(&b.path)) else {
            return true;
        };
        l.data == b.data
            || u.data == b.data
            || l.data == u.data
            || b.data.for_each_chunk(&mut |_| {}).is_ok()
    })
}

/// Upstream as a pull finds it.
enum Found {
    /// The skill's tree there is its pin's: nothing of it was read.
    Unchanged(Unchanged),
    /// Read whole.
    Read(Taken),
}

/// What the scoped thread `handle` returned; its panic goes on in this thread.
fn joined<T>(handle: std::thread::ScopedJoinHandle<'_, T>) -> T {
    handle
        .join()
        .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
}

/// The base a pull read, as what the new base may link from (a base kept under
/// `.agentic-skill-vendor/skill-bases/`) or as a base to keep (one fetched again from its
/// source).
fn base_writes(
    base: Option<SkillTree>,
    fetched: bool,
    kept: bool,
    hash: &str,
) -> (Option<(String, SkillTree)>, Option<SkillTree>) {
    match base {
        Some(base) if fetched => (None, Some(base)),
        // A local copy standing in for a lost base is no kept base: nothing links to it.
        Some(base) if kept => (Some((base_dir(hash), base)), None),
        _ => (None, None),
    }
}
