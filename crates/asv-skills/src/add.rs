//! `skill add` and `skill add --all`: whole skills taken from another repository, judged
//! against the Agent Skills rules as agents load them, placed under `skills/`, their base kept
//! and their pin recorded in the skill lock, all in one transaction.

use std::collections::BTreeMap;

use asv_fs::{Change, Ownership, Plan, Root, WriterLock};
use asv_remote::Options;
use asv_skilltree::{SKILL_MANIFEST, SkillTree};

use crate::bases::base_change;
use crate::error::{Error, Remedy};
use crate::gate::Gate;
use crate::lock::{Entry, SignerRecord, SkillLock, lock_changes};
use crate::naming::{NamedBy, local_name};
use crate::paths::{portable_tree, skill_dir};
use crate::placing::fill_of;
use crate::projection::projections_placed;
use crate::signed::SignedRow;
use crate::sources::Sources;
use crate::upstream::{At, Listed, Source, at_for, check_source_path, default_name, take_in};
use crate::validate::refuse_errors;
use crate::{Finding, Profile, manifest_name, name_problem, validate_tree_as};

/// What `skill add` is asked to take.
#[derive(Debug, Clone, Default)]
pub struct AddRequest {
    /// `owner/repo`, a git URL, or a local directory (`./…`, `../…`, `/…`).
    pub repository: String,
    /// The skill's directory in the source (`.` for its root).
    pub path: String,
    /// The local name; by default the last segment of `path` (or of the source for `.`).
    pub name: Option<String>,
    /// The branch, tag or commit to follow; by default the source's default branch.
    pub reference: Option<String>,
    /// For a local git repository, read its working tree as it stands rather than its
    /// default branch's commit ([`crate::upstream::at_for`]).
    pub working_tree: bool,
    /// `--signed-by FILE`: the allowed-signers file (from the repository root) whose keys
    /// must sign the commit taken, or its tag when the ref is a tag or a range (issue 33 §1);
    /// recorded as the row's `signed-by`.
    pub signed_by: Option<String>,
}

/// A skill `skill add` placed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Added {
    /// The local name.
    pub name: String,
    /// Where the local name came from ([`crate::naming::local_name`]).
    pub named_by: NamedBy,
    /// The name of the directory the skill came from (the source's name for its root).
    pub upstream: String,
    /// The source as recorded.
    pub source: String,
    /// What the import is pinned to, as the lock records it.
    pub pin: Pin,
    /// The tree hash of what was placed.
    pub hash: String,
    /// Warnings of the Agent Skills rules (errors refuse the add).
    pub warnings: Vec<Finding>,
}

/// What an import is pinned to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Pin {
    /// A commit of the source (a repository, or a local git repository at a ref).
    Commit(String),
    /// The tree hash of a local directory read as it stands (it has no commit).
    Tree(String),
}

impl Pin {
    /// The commit id or the tree hash, as the lock's `revision` holds it.
    pub fn as_str(&self) -> &str {
        match self {
            Pin::Commit(s) | Pin::Tree(s) => s,
        }
    }
}

/// `skill add`: takes a whole skill from a source, checks it against the Agent Skills rules as
/// `skills/<name>`, places it, keeps its base, and records it in the skill lock.
///
/// # Errors
/// [`Error::Lock`] for a lock that cannot be read; [`Error::Repository`],
/// [`Error::PathEscapes`] or [`Error::RefWithoutRepository`] for a source or path that is not
/// usable; [`Error::BadName`], [`Error::AlreadyImported`] or [`Error::Occupied`] for a name
/// that is not a skill name or is taken; as [`take`] for what the source holds;
/// [`Error::Rename`] for a `--name` the SKILL.md cannot take; [`Error::Invalid`] for a skill
/// that breaks the rules; [`Error::Unwritable`] for a path some host cannot write; a
/// guarded-write failure. Every refusal comes before anything is written.
pub fn add(root: &WriterLock<'_>, request: &AddRequest, options: &Options) -> Result<Added, Error> {
    add_with(root, request, options, None)
}

/// [`add`] under the audit `gate` (issue 32 §2): the skill as it would be placed is audited
/// before anything is written.
///
/// # Errors
/// As [`add`]; [`Error::AuditRefused`] for an error finding the gate does not let through.
pub fn add_with(
    root: &WriterLock<'_>,
    request: &AddRequest,
    options: &Options,
    gate: Option<&Gate>,
) -> Result<Added, Error> {
    let mut lock = SkillLock::load(root)?;
    let source = Source::parse(&request.repository)?;
    let path = check_source_path(&request.path)?.to_owned();
    if let Some(name) = &request.name
        && let Some(problem) = name_problem(name)
    {
        return Err(Error::BadName {
            name: name.clone(),
            problem,
        });
    }
    let at = at_for(
        root,
        &source,
        request.reference.as_deref(),
        request.working_tree,
    )?;
    // A signed row whose source cannot show signatures, or whose file cannot be read, is
    // refused before the source is reached.
    let mut signed = match &request.signed_by {
        Some(file) => {
            let named = (request.name.clone()).unwrap_or_else(|| default_name(&source, &path));
            Some(SignedRow::open(root, &named, file, &source)?)
        }
        None => None,
    };
    let sources = Sources::new(options);
    // The source is read before the name is judged: the skill's own `name:` names it, and a
    // path that holds no skill is the first thing to say.
    let taken = take_in(root, &source, &path, at, &sources)?;
    // A directory of skills (the `--all` forgotten) is said as such, not as a skill whose
    // SKILL.md is missing (issue 31 §3).
    if !taken.tree.has_manifest() {
        let skills = skills_below(&taken.tree);
        if !skills.is_empty() {
            return Err(Error::HoldsSkills { path, skills });
        }
    }
    let own_name = manifest_name(&taken.tree);
    let upstream_dir = default_name(&source, &path);
    let (name, named_by) = local_name(request.name.as_deref(), own_name.as_deref(), &upstream_dir)?;
    // A row of the intent that names an allowed-signers file keeps it: taking the skill again
    // without `--signed-by` does not drop the check.
    let intent = crate::intent::Intent::load(root)?;
    let signed_by = match &request.signed_by {
        Some(file) => Some(file.clone()),
        None => intent.skills.get(&name).and_then(|w| w.signed_by.clone()),
    };
    if let (None, Some(file)) = (&signed, &signed_by) {
        signed = Some(SignedRow::open(root, &name, file, &source)?);
    }
    // The commit taken (or its tag) is signed by a key of the row's file, or nothing is
    // written.
    let signer = match &mut signed {
        Some(row) => {
            row.name.clone_from(&name);
            Some(row.check(
                root,
                &source,
                request.reference.as_deref(),
                taken.tag.as_deref(),
                &taken.revision,
                &sources,
            )?)
        }
        None => None,
    };
    let dir = skill_dir(&name);
    let standing = root.kind(&dir)?;
    // An imported skill whose directory is gone holds no local edits: it is taken again and
    // its lock entry replaced (the step a pull of a missing skill names).
    if lock.skills.contains_key(&name) && standing.is_some() {
        return Err(Error::AlreadyImported { name });
    }
    if standing.is_some() {
        return Err(Error::Occupied { path: dir });
    }
    // `--name` other than the skill's own name renames it: the `name:` line is the one local
    // edit, made to a copy of upstream, so the base stays upstream's and every pull keeps the
    // rename through the merge.
    let placed = match named_by {
        NamedBy::Option if own_name.as_deref() != Some(name.as_str()) => {
            crate::rename::renamed(&taken.tree, &name)?
        }
        _ => taken.tree.clone(),
    };
    let findings = refuse_errors(
        validate_tree_as(&placed, &dir, Profile::Consumer)?,
        Remedy::FixUpstream,
    )?;
    taken.tree.check_paths()?;
    placed.check_paths()?;
    portable_tree(source.as_str(), &taken.tree)?;
    if let Some(gate) = gate {
        gate.check(&[(name.as_str(), dir.clone(), &placed)])?;
    }
    let loaded = lock.clone();
    let hash = taken.tree.hash();
    lock.skills.insert(
        name.clone(),
        Entry {
            source: source.as_str().to_owned(),
            path,
            reference: taken.reference,
            tag: taken.tag.clone(),
            revision: taken.revision.clone(),
            base_hash: hash.clone(),
            capabilities: Some(crate::audit::capabilities::digest_of(&taken.tree)?),
            pending: None,
            removed_upstream: None,
            signer,
        },
    );
    // The skill, its base and the lock in one transaction: a failed write leaves none of them.
    let mut changes = vec![Change::replace(
        dir,
        fill_of(root, &placed),
        Ownership::MustBeFree,
    )];
    changes.extend(base_change(root, &taken.tree)?);
    // The agents' directories the intent names get their copy in the same transaction.
    let targets = intent.targets;
    changes.extend(projections_placed(
        root, &name, &placed, &targets, &mut lock,
    )?);
    // An entry replaced (its directory was gone) may leave its old base unreferenced.
    changes.extend(lock_changes(root, &loaded, &lock)?);
    // The intent records what was asked for, beside the lock's record of what was resolved.
    let wanted = crate::intent::Wanted {
        source: source.as_str().to_owned(),
        path: lock.skills[&name].path.clone(),
        reference: request.reference.clone(),
        signed_by,
    };
    changes.push(crate::intent::row_change(root, &loaded, &name, &wanted)?);
    root.apply(Plan::new(root, changes)?)?;
    let pin = match at {
        At::Now => Pin::Tree(taken.revision),
        _ => Pin::Commit(taken.revision),
    };
    Ok(Added {
        name,
        named_by,
        upstream: upstream_dir,
        source: source.as_str().to_owned(),
        pin,
        hash,
        warnings: findings,
    })
}

/// What `skill add --all` is asked to take.
#[derive(Debug, Clone, Default)]
pub struct AddAllRequest {
    /// `owner/repo`, a git URL, or a local directory (`./…`, `../…`, `/…`).
    pub repository: String,
    /// The directory in the source whose subdirectories are the skills (`.` for its root).
    pub dir: String,
    /// The branch, tag or commit to follow; by default the source's default branch.
    pub reference: Option<String>,
    /// As [`AddRequest::working_tree`].
    pub working_tree: bool,
    /// As [`AddRequest::signed_by`], for every skill taken.
    pub signed_by: Option<String>,
}

/// The skills of `tree` (a directory of a source): each directory directly under it that holds
/// a `SKILL.md`, by name, with its files relative to it. Files at the top of `tree`, and
/// directories without a `SKILL.md`, are not skills and are left out.
fn skills_under(tree: &SkillTree) -> Result<BTreeMap<String, SkillTree>, Error> {
    let mut groups: BTreeMap<String, Vec<asv_skilltree::FileNode>> = BTreeMap::new();
    for file in tree.files() {
        if let Some((top, rel)) = file.path.split_once('/') {
            groups
                .entry(top.to_owned())
                .or_default()
                .push(asv_skilltree::FileNode {
                    path: rel.to_owned(),
                    data: file.data.clone(),
                    executable: file.executable,
                });
        }
    }
    groups
        .into_iter()
        .filter(|(_, files)| files.iter().any(|f| f.path == SKILL_MANIFEST))
        .map(|(name, files)| Ok((name, SkillTree::from_files(files)?)))
        .collect()
}

/// `skill add --all`: takes every skill under a directory of a source (each directory directly
/// under it that holds a `SKILL.md`) as [`add`] takes one, reading the source once. Every skill
/// is judged first; then every skill directory, kept base, the lock and the intent rows are
/// written in one transaction, so one refusal leaves the tree as it was. The result is sorted
/// by name.
///
/// # Errors
/// As [`add`] (with [`Error::OccupiedForAll`] for a skill's directory taken);
/// [`Error::NoSkillsUnder`] when no directory under `dir` holds a `SKILL.md`.
pub fn add_all(
    root: &WriterLock<'_>,
    request: &AddAllRequest,
    options: &Options,
) -> Result<Vec<Added>, Error> {
    add_all_with(root, request, options, None)
}

/// [`add_all`] under the audit `gate`: every skill is audited, with the other checks, before
/// anything is written.
///
/// # Errors
/// As [`add_all`]; [`Error::AuditRefused`] for an error finding the gate does not let
/// through.
pub fn add_all_with(
    root: &WriterLock<'_>,
    request: &AddAllRequest,
    options: &Options,
    gate: Option<&Gate>,
) -> Result<Vec<Added>, Error> {
    let mut lock = SkillLock::load(root)?;
    let loaded = lock.clone();
    let source = Source::parse(&request.repository)?;
    let dir = check_source_path(&request.dir)?.to_owned();
    let at = at_for(
        root,
        &source,
        request.reference.as_deref(),
        request.working_tree,
    )?;
    let signed = match &request.signed_by {
        Some(file) => Some(SignedRow::open(
            root,
            &default_name(&source, &dir),
            file,
            &source,
        )?),
        None => None,
    };
    let sources = Sources::new(options);
    let taken = take_in(root, &source, &dir, at, &sources)?;
    // One commit (or tag) for every skill taken: checked once.
    let signer = match &signed {
        Some(row) => Some(row.check(
            root,
            &source,
            request.reference.as_deref(),
            taken.tag.as_deref(),
            &taken.revision,
            &sources,
        )?),
        None => None,
    };
    let skills = skills_under(&taken.tree)?;
    if skills.is_empty() {
        return Err(Error::NoSkillsUnder {
            repository: source.as_str().to_owned(),
            path: dir,
        });
    }
    let items = skills
        .into_iter()
        .map(|(upstream, tree)| {
            let path = if dir == "." {
                upstream.clone()
            } else {
                format!("{dir}/{upstream}")
            };
            (upstream, path, tree)
        })
        .collect();
    let many = Many {
        source: &source,
        asked: request.reference.as_deref(),
        revision: &taken.revision,
        reference: taken.reference.as_ref(),
        tag: taken.tag.as_ref(),
        now: matches!(at, At::Now),
        signed_by: request.signed_by.as_deref(),
        signer,
        dir: &dir,
        full_paths: false,
        progress: &options.progress,
        gate,
    };
    place_many(root, &mut lock, &loaded, &many, items)
}

/// What the skills of one multiple add share: where they come from, as asked and as resolved.
struct Many<'a> {
    source: &'a Source,
    /// The ref asked for (the intent's row).
    asked: Option<&'a str>,
    /// The commit read (for a directory read as it stands, unused: each skill is pinned to
    /// its own tree hash).
    revision: &'a str,
    reference: Option<&'a String>,
    tag: Option<&'a String>,
    /// A local directory read as it stands.
    now: bool,
    /// The row's allowed-signers file, when signed.
    signed_by: Option<&'a str>,
    /// Who signed the commit (or tag) taken, for a signed row.
    signer: Option<SignerRecord>,
    /// The directory of the source named in a refusal of several skills.
    dir: &'a str,
    /// Whether a refusal of two skills of one name shows their whole paths (skills found
    /// anywhere) rather than their directories' names (skills side by side).
    full_paths: bool,
    /// Where the judging of each skill is reported.
    progress: &'a asv_model::progress::Progress,
    /// The audit gate every skill passes before anything is written.
    gate: Option<&'a Gate>,
}

/// Judges and places `items` (the name of the directory each came from, its path in the
/// source, its files) as [`add_all`] does: every refusal first, then one transaction.
fn place_many(
    root: &WriterLock<'_>,
    lock: &mut SkillLock,
    loaded: &SkillLock,
    many: &Many<'_>,
    items: Vec<(String, String, SkillTree)>,
) -> Result<Vec<Added>, Error> {
    let source = many.source;
    // Every skill is named and judged before anything is written, and every refusal is
    // collected, so one run says all that stands in the way.
    let mut refused = Vec::new();
    // Each skill taken: where it came from, how it was named, its files, its warnings, and
    // (worked out with its judgement) its capability digest and kept-base changes.
    let mut named: BTreeMap<String, Taken> = BTreeMap::new();
    let step = many.progress.step(
        &format!("checking {} skills", items.len()),
        Some(items.len() as u64),
    );
    // What each skill is judged by on its own (its name, its content, what it can do) is
    // worked out on every core; the outcomes are then taken in the order of the items, so
    // the refusals, and which of two skills of one name is refused, are as one by one.
    let judged: Vec<Judged> = {
        use rayon::prelude::*;
        items
            .par_iter()
            .map(|(upstream, _, tree)| {
                let judged = judge_one(root, lock, source, upstream, tree);
                step.advance(1);
                judged
            })
            .collect()
    };
    drop(step);
    for ((upstream, path, tree), judged) in items.into_iter().zip(judged) {
        let (name, named_by, findings, worked) = match judged {
            Judged::Named(one) => {
                let Named {
                    name,
                    named_by,
                    findings,
                    capabilities,
                    base,
                } = *one;
                (name, named_by, findings, (capabilities, base))
            }
            Judged::Unnamed(e) => {
                refused.push(e);
                continue;
            }
        };
        if let Some((other, other_path, ..)) = named.get(&name) {
            let dirs = if many.full_paths {
                [other_path.clone(), path]
            } else {
                [other.clone(), upstream]
            };
            refused.push(Error::SameName {
                repository: source.as_str().to_owned(),
                name,
                dirs,
            });
            continue;
        }
        match findings {
            Ok(findings) => {
                let (digest, base) = worked;
                named.insert(
                    name,
                    (upstream, path, named_by, tree, findings, digest, base),
                );
            }
            Err(e) => refused.push(e),
        }
    }
    match refused.len() {
        0 => {}
        1 => return Err(refused.remove(0)),
        _ => {
            return Err(Error::Refused {
                repository: source.as_str().to_owned(),
                dir: many.dir.to_owned(),
                refused,
            });
        }
    }
    if let Some(gate) = many.gate {
        let incoming: Vec<_> = named
            .iter()
            .map(|(name, (.., tree, _, _, _))| (name.as_str(), skill_dir(name), tree))
            .collect();
        gate.check(&incoming)?;
    }
    let targets = crate::intent::Intent::load(root)?.targets;
    let mut changes = Vec::with_capacity(named.len() * (2 + targets.len()) + 2);
    let mut bases = std::collections::BTreeSet::new();
    let mut rows = Vec::with_capacity(named.len());
    let mut added = Vec::with_capacity(named.len());
    for (name, (upstream, path, named_by, tree, warnings, digest, base)) in named {
        let hash = tree.hash();
        // A directory read as it stands is pinned to each skill's own tree, as a single add of
        // it would be; a commit pins every skill alike.
        let revision = if many.now {
            hash.clone()
        } else {
            many.revision.to_owned()
        };
        lock.skills.insert(
            name.clone(),
            Entry {
                source: source.as_str().to_owned(),
                path: path.clone(),
                reference: many.reference.cloned(),
                tag: many.tag.cloned(),
                revision: revision.clone(),
                base_hash: hash.clone(),
                capabilities: Some(digest?),
                pending: None,
                removed_upstream: None,
                signer: many.signer.clone(),
            },
        );
        changes.push(Change::replace(
            skill_dir(&name),
            fill_of(root, &tree),
            Ownership::MustBeFree,
        ));
        // Two skills alike share one kept base.
        if bases.insert(hash.clone()) {
            changes.extend(base?);
        }
        changes.extend(projections_placed(root, &name, &tree, &targets, lock)?);
        rows.push((
            name.clone(),
            crate::intent::Wanted {
                source: source.as_str().to_owned(),
                path,
                reference: many.asked.map(str::to_owned),
                signed_by: many.signed_by.map(str::to_owned),
            },
        ));
        added.push(Added {
            name,
            named_by,
            upstream,
            source: source.as_str().to_owned(),
            pin: if many.now {
                Pin::Tree(revision)
            } else {
                Pin::Commit(revision)
            },
            hash,
            warnings,
        });
    }
    changes.extend(lock_changes(root, loaded, lock)?);
    changes.push(crate::intent::rows_change(root, loaded, &rows)?);
    root.apply(Plan::new(root, changes)?)?;
    Ok(added)
}

/// The directories of `tree` that hold a `SKILL.md`, relative to its top, sorted (the tree's
/// paths are), each once.
fn skills_below(tree: &SkillTree) -> Vec<String> {
    let mut dirs: Vec<String> = tree
        .files()
        .iter()
        .filter_map(|f| f.path.strip_suffix("/SKILL.md"))
        .map(str::to_owned)
        .collect();
    dirs.sort();
    dirs.dedup();
    dirs
}

/// A skill a multiple add takes: the directory it came from, its path in the source, how it
/// was named, its files, its warnings, its capability digest and its kept-base changes.
type Taken = (
    String,
    String,
    NamedBy,
    SkillTree,
    Vec<Finding>,
    Result<String, Error>,
    Result<Vec<Change>, Error>,
);

/// One skill of a multiple add as judged on its own, before it is set beside the others.
enum Judged {
    /// Its name could not be had (the refusal).
    Unnamed(Error),
    /// Named, and judged as that name.
    Named(Box<Named>),
}

/// One named skill of a multiple add: whether it can be taken as that name
/// ([`judge_for_all`]), and, worked out ahead of knowing whether it will be taken, the digest
/// of what it can do and the changes that keep it as a base ([`base_change`]).
struct Named {
    name: String,
    named_by: NamedBy,
    findings: Result<Vec<Finding>, Error>,
    capabilities: Result<String, Error>,
    base: Result<Vec<Change>, Error>,
}

/// Judges the skill found in `upstream` (a directory of the source) holding `tree`: its name,
/// whether it can be taken as that name, the digest of what it can do and the changes that
/// would keep it as a base (its tree hash and digest list are worked out on the way).
fn judge_one(
    root: &Root,
    lock: &SkillLock,
    source: &Source,
    upstream: &str,
    tree: &SkillTree,
) -> Judged {
    let (name, named_by) = match local_name(None, manifest_name(tree).as_deref(), upstream) {
        Ok(n) => n,
        Err(e) => return Judged::Unnamed(e),
    };
    let findings = judge_for_all(root, lock, source, &name, tree);
    let (capabilities, base) = match &findings {
        Ok(_) => (
            crate::audit::capabilities::digest_of(tree),
            base_change(root, tree),
        ),
        // Never taken: neither is asked for.
        Err(_) => (Ok(String::new()), Ok(Vec::new())),
    };
    Judged::Named(Box::new(Named {
        name,
        named_by,
        findings,
        capabilities,
        base,
    }))
}

/// Whether one skill of `skill add --all` can be taken as `name`: its directory free, and
/// its content within the consumer's rules ([`Profile::Consumer`]) and writable on every host.
/// The warnings back when it can.
fn judge_for_all(
    root: &Root,
    lock: &SkillLock,
    source: &Source,
    name: &str,
    tree: &SkillTree,
) -> Result<Vec<Finding>, Error> {
    let dir = skill_dir(name);
    let standing = root.kind(&dir)?;
    if lock.skills.contains_key(name) && standing.is_some() {
        return Err(Error::AlreadyImported {
            name: name.to_owned(),
        });
    }
    if standing.is_some() {
        return Err(Error::OccupiedForAll { path: dir });
    }
    let findings = refuse_errors(
        validate_tree_as(tree, &dir, Profile::Consumer)?,
        Remedy::FixUpstream,
    )?;
    tree.check_paths()?;
    portable_tree(source.as_str(), tree)?;
    Ok(findings)
}

/// What `skill add` with no path is asked to look through (issue 31 §1).
#[derive(Debug, Clone, Default)]
pub struct FindRequest {
    /// `owner/repo`, a git URL, or a local directory (`./…`, `../…`, `/…`).
    pub repository: String,
    /// The directory of the source to look under (`.` for its root).
    pub start: String,
    /// The branch, tag or commit to follow; by default the source's default branch.
    pub reference: Option<String>,
    /// As [`AddRequest::working_tree`].
    pub working_tree: bool,
    /// As [`AddRequest::signed_by`], for every skill taken of those found.
    pub signed_by: Option<String>,
}

/// The skills a source holds, found by [`crate::discover`] and not yet taken: what `skill
/// add` lists or offers, then takes the chosen ones of with [`add_found`], at the very
/// version listed.
pub struct Found {
    /// The source as recorded.
    pub source: String,
    /// The commit listed (for a directory read as it stands, the tree hash of the start).
    pub revision: String,
    /// Each skill found, by path.
    pub skills: Vec<crate::discover::Discovered>,
    parsed: Source,
    asked: Option<String>,
    /// The allowed-signers file asked for.
    signed_by: Option<String>,
    now: bool,
    listed: Listed,
    /// Each skill's directory below the start, as `skills`.
    dirs: Vec<String>,
}

/// Finds the skills `request` names, wherever they lie in the source ([`crate::discover`]):
/// the source is listed once, and only plugin manifests and each skill's `SKILL.md` are read.
///
/// # Errors
/// [`Error::Repository`] or [`Error::PathEscapes`] for a source or start that is not usable;
/// as [`take`](crate::upstream::take) for the reading; [`Error::NoSkillFound`] when the
/// source holds no skill there.
pub fn find(root: &Root, request: &FindRequest, sources: &Sources<'_>) -> Result<Found, Error> {
    use crate::discover::{Discovered, candidates, manifests_wanted, name_and_description};
    let source = Source::parse(&request.repository)?;
    let start = check_source_path(&request.start)?.to_owned();
    let at = at_for(
        root,
        &source,
        request.reference.as_deref(),
        request.working_tree,
    )?;
    // A signed row whose source cannot show signatures is refused before it is listed.
    if let Some(file) = &request.signed_by {
        SignedRow::open(root, &default_name(&source, &start), file, &source)?;
    }
    let listed = crate::upstream::list(root, &source, &start, at, sources)?;
    let files = listed.files();
    // The marketplace first: the plugins it lists name manifests of their own.
    let mut manifests = BTreeMap::new();
    let read_into = |paths: Vec<String>, manifests: &mut BTreeMap<String, Vec<u8>>| {
        let paths: Vec<String> = paths
            .into_iter()
            .filter(|p| !manifests.contains_key(p))
            .collect();
        let bytes = listed.read(root, sources, &paths)?;
        for (path, bytes) in paths.into_iter().zip(bytes) {
            if let Some(bytes) = bytes {
                manifests.insert(path, bytes);
            }
        }
        Ok::<(), Error>(())
    };
    read_into(manifests_wanted(&files, None), &mut manifests)?;
    let marketplace = manifests.get(crate::discover::MARKETPLACE).cloned();
    read_into(
        manifests_wanted(&files, marketplace.as_deref()),
        &mut manifests,
    )?;
    let found = candidates(&files, &manifests);
    if found.is_empty() {
        return Err(Error::NoSkillFound {
            repository: source.as_str().to_owned(),
            path: start,
            depth: crate::discover::MAX_DEPTH,
        });
    }
    let manifest_paths: Vec<String> = found
        .iter()
        .map(|c| join_below(&c.dir, SKILL_MANIFEST))
        .collect();
    let texts = listed.read(root, sources, &manifest_paths)?;
    let fallback = default_name(&source, &start);
    let mut skills = Vec::with_capacity(found.len());
    let mut dirs = Vec::with_capacity(found.len());
    for (candidate, text) in found.into_iter().zip(texts) {
        let (own, description) = text
            .as_deref()
            .map(name_and_description)
            .unwrap_or_default();
        skills.push(Discovered {
            path: join_below(&start, &candidate.dir),
            name: crate::discover::name_of(&candidate.dir, own.as_deref(), &fallback),
            description,
            plugin: candidate.plugin,
        });
        dirs.push(candidate.dir);
    }
    Ok(Found {
        source: source.as_str().to_owned(),
        revision: listed.revision.clone(),
        skills,
        parsed: source,
        asked: request.reference.clone(),
        signed_by: request.signed_by.clone(),
        now: matches!(at, At::Now),
        listed,
        dirs,
    })
}

/// `dir` (`.` for none) joined with `rel` (`.` for none).
fn join_below(dir: &str, rel: &str) -> String {
    match (dir, rel) {
        (".", r) => r.to_owned(),
        (d, ".") => d.to_owned(),
        (d, r) => format!("{d}/{r}"),
    }
}

/// Takes the skills of `found` at the indices `chosen` (of [`Found::skills`]) as `skill add
/// --all` takes the skills of a directory: read at the version listed, every skill judged
/// first, then all of them written in one transaction. The result is sorted by name.
///
/// # Errors
/// As [`add_all`].
pub fn add_found(
    root: &WriterLock<'_>,
    found: &Found,
    chosen: &[usize],
    sources: &Sources<'_>,
) -> Result<Vec<Added>, Error> {
    add_found_with(root, found, chosen, sources, None)
}

/// [`add_found`] under the audit `gate`.
///
/// # Errors
/// As [`add_found`]; [`Error::AuditRefused`] for an error finding the gate does not let
/// through.
pub fn add_found_with(
    root: &WriterLock<'_>,
    found: &Found,
    chosen: &[usize],
    sources: &Sources<'_>,
    gate: Option<&Gate>,
) -> Result<Vec<Added>, Error> {
    let mut lock = SkillLock::load(root)?;
    let loaded = lock.clone();
    let dirs: Vec<String> = chosen.iter().map(|&i| found.dirs[i].clone()).collect();
    let trees = found
        .listed
        .take(root, found.parsed.as_str(), sources, &dirs)?;
    let fallback = default_name(&found.parsed, &found.listed.start);
    let signer = match &found.signed_by {
        Some(file) => {
            let row = SignedRow::open(root, &fallback, file, &found.parsed)?;
            Some(row.check(
                root,
                &found.parsed,
                found.asked.as_deref(),
                found.listed.tag.as_deref(),
                &found.listed.revision,
                sources,
            )?)
        }
        None => None,
    };
    let items = chosen
        .iter()
        .zip(dirs)
        .zip(trees)
        .map(|((&i, dir), tree)| {
            let upstream = if dir == "." {
                fallback.clone()
            } else {
                dir.rsplit('/').next().unwrap_or(&dir).to_owned()
            };
            (upstream, found.skills[i].path.clone(), tree)
        })
        .collect();
    let many = Many {
        source: &found.parsed,
        asked: found.asked.as_deref(),
        revision: &found.listed.revision,
        reference: found.listed.reference.as_ref(),
        tag: found.listed.tag.as_ref(),
        now: found.now,
        signed_by: found.signed_by.as_deref(),
        signer,
        dir: &found.listed.start,
        full_paths: true,
        progress: &sources.options().progress,
        gate,
    };
    place_many(root, &mut lock, &loaded, &many, items)
}

/// The indices of the skills of `found` whose name one of `patterns` matches
/// ([`crate::discover::matches`]: globs, without regard to case), in the order found.
///
/// # Errors
/// [`Error::NoSkillMatches`] naming every pattern that matched no skill, and the names found.
pub fn choose(found: &Found, patterns: &[String]) -> Result<Vec<usize>, Error> {
    let unmatched: Vec<String> = patterns
        .iter()
        .filter(|p| {
            !found
                .skills
                .iter()
                .any(|s| crate::discover::matches(p, &s.name))
        })
        .cloned()
        .collect();
    if !unmatched.is_empty() {
        return Err(Error::NoSkillMatches {
            repository: found.source.clone(),
            patterns: unmatched,
            names: found.skills.iter().map(|s| s.name.clone()).collect(),
        });
    }
    Ok((0..found.skills.len())
        .filter(|&i| {
            patterns
                .iter()
                .any(|p| crate::discover::matches(p, &found.skills[i].name))
        })
        .collect())
}
