//! Whole skills taken from another repository and kept up to date: `skill add`, `status`,
//! `pull`, `resolve` and `diff`.
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

use std::collections::{BTreeMap, BTreeSet};
use std::sync::atomic::{AtomicBool, Ordering};

use asv_fs::{Change, EntryKind, Ownership, Plan, Root, Verdict, WriterLock};
use asv_remote::Options;
use asv_skilltree::merge::{Conflict, merge, merge_text, merge_without_base};
use asv_skilltree::{SKILL_MANIFEST, SkillTree, Stamps};

use crate::error::{AddAgain, Error, Remedy};
use crate::lock::{Entry, Pending, SKILL_LOCK_FILE, SkillLock};
use crate::naming::{NamedBy, local_name};
use crate::placing::{fill_linking, fill_of};
use crate::projection::projections_placed;
use crate::upstream::{
    At, Source, Taken, at_for, base_changes, base_digests, base_dir, check_source_path, keep_base,
    kept_base, listed_base_unless, take,
};
use crate::validate::refuse_errors;
use crate::{Finding, Profile, Severity, manifest_name, name_problem, validate_tree_as};

pub use asv_model::layout::SKILLS_DIR;

/// The labels of a conflicted file's hunks.
pub const LABELS: [&str; 3] = ["local", "base", "upstream"];

/// The directory of the skill `name`.
pub fn skill_dir(name: &str) -> String {
    format!("{SKILLS_DIR}/{name}")
}

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

/// The state of one imported skill, judged offline.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum State {
    /// The local copy is its base, unchanged.
    Clean,
    /// The local copy has edits.
    Modified,
    /// `skills/<name>` is gone.
    Missing,
    /// The local copy cannot be read as a skill or breaks the rules: why.
    Invalid(String),
    /// A pull wrote conflicts that wait for `skill resolve`.
    Conflicted,
}

impl State {
    /// The state as printed: `clean`, `modified`, `missing`, `invalid`, `conflicted`.
    pub fn as_str(&self) -> &'static str {
        match self {
            State::Clean => "clean",
            State::Modified => "modified",
            State::Missing => "missing",
            State::Invalid(_) => "invalid",
            State::Conflicted => "conflicted",
        }
    }
}

/// One line of `skill status`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Status {
    /// The local name.
    pub name: String,
    /// Its state.
    pub state: State,
    /// The source as recorded.
    pub source: String,
    /// The locked revision.
    pub revision: String,
    /// The revision a pull found the skill gone upstream at, when it did (empty for a local
    /// directory): the copy is kept as it is.
    pub removed_upstream: Option<String>,
}

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

/// `1 conflict`, `2 conflicts`.
fn conflict_count(n: usize) -> String {
    if n == 1 {
        "1 conflict".to_owned()
    } else {
        format!("{n} conflicts")
    }
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

    /// Where the base belonged, when it was lost and the merge was made without one.
    pub fn lost_base(&self) -> Option<&str> {
        match self {
            Pulled::Updated { lost_base, .. } | Pulled::Conflicts { lost_base, .. } => {
                lost_base.as_deref()
            }
            _ => None,
        }
    }

    /// The warning this outcome carries: a merge made without its base.
    pub fn warning(&self) -> Option<String> {
        self.lost_base().map(|path| {
            format!(
                "{}: the base is not in {path} and its local directory source cannot give it again, so the merge was made without one: a file that differs, or that only one side holds, is a conflict",
                self.name()
            )
        })
    }

    /// The outcome as text lines.
    pub fn lines(&self) -> Vec<String> {
        match self {
            Pulled::UpToDate { name, revision } => {
                vec![format!("{name}: up to date at {revision}")]
            }
            Pulled::Updated {
                name,
                from,
                to,
                kept_local,
                ..
            } => vec![format!(
                "{name}: updated {from} -> {to}{}",
                if *kept_local {
                    " (local edits kept)"
                } else {
                    ""
                }
            )],
            Pulled::Conflicts {
                name,
                revision,
                conflicts,
                written,
                ..
            } => {
                let mut lines = vec![if *written {
                    format!(
                        "{name}: {} with upstream {revision}; written with markers: edit them, then run skill resolve {name}",
                        conflict_count(conflicts.len())
                    )
                } else {
                    format!(
                        "{name}: {} with upstream {revision}; nothing was changed (--write-conflicts writes them with markers)",
                        conflict_count(conflicts.len())
                    )
                }];
                lines.extend(
                    conflicts
                        .iter()
                        .map(|c| format!("{}/{} ({})", skill_dir(name), c.path, c.kind.as_str())),
                );
                lines
            }
            Pulled::Waiting { name, revision } => vec![format!(
                "{name}: not pulled; the conflicts with upstream {revision} wait: edit them, then run skill resolve {name}"
            )],
            Pulled::RemovedUpstream {
                name,
                revision,
                modified,
            } => vec![format!(
                "{name}: removed upstream at {revision}; kept {}{} — remove it yourself if it should go",
                skill_dir(name),
                if *modified {
                    " with its local edits"
                } else {
                    ""
                }
            )],
        }
    }
}

/// Which version of an imported skill `skill diff` shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Version {
    /// The base the lock records.
    Base,
    /// The local copy.
    Local,
    /// Upstream now (reaches the source).
    Upstream,
}

/// Ownership of an imported skill's directory during a pull: it must still hold exactly the
/// local version the merge read (hash `expected`), so an edit made while the pull ran is never
/// overwritten.
pub(crate) fn still_local(expected: String) -> Ownership {
    Ownership::tool_made(move |root, dest, kind| {
        if kind != EntryKind::Directory {
            return Ok(Verdict::NotOurs(format!("it is {kind} now")));
        }
        Ok(match SkillTree::read_hash(root, dest) {
            Ok(hash) if hash == expected => Verdict::Ours,
            Ok(_) => Verdict::NotOurs("it changed while the pull ran; pull again".to_owned()),
            Err(e) => Verdict::NotOurs(e.to_string()),
        })
    })
}

/// Ownership of an imported skill's directory during a pull: it must still hold exactly the
/// local tree the merge read (`local`, read with `stamps`), so an edit made while the pull ran
/// is never overwritten. Files whose stamps say they are untouched are not read again
/// ([`Stamps::still_hold`]).
pub(crate) fn still_read(local: SkillTree, stamps: Stamps) -> Ownership {
    Ownership::tool_made(move |root, dest, kind| {
        if kind != EntryKind::Directory {
            return Ok(Verdict::NotOurs(format!("it is {kind} now")));
        }
        Ok(match stamps.still_hold(root, dest, &local) {
            Ok(true) => Verdict::Ours,
            Ok(false) => Verdict::NotOurs("it changed while the pull ran; pull again".to_owned()),
            Err(e) => Verdict::NotOurs(e.to_string()),
        })
    })
}

/// The skill's paths answer to the archive entry policy, so what lands in the repository
/// can be checked out on every host.
pub(crate) fn portable_tree(label: &str, tree: &SkillTree) -> Result<(), Error> {
    let paths: Vec<String> = tree.files().iter().map(|f| f.path.clone()).collect();
    crate::paths::portable(label, &paths)
}

pub(crate) fn default_name(source: &Source, path: &str) -> String {
    if path != "." {
        return path.rsplit('/').next().unwrap_or(path).to_owned();
    }
    match source {
        Source::Remote(spec) => spec
            .as_str()
            .trim_end_matches('/')
            .trim_end_matches(".git")
            .rsplit(['/', ':'])
            .next()
            .unwrap_or_default()
            .to_owned(),
        Source::Local(dir) => dir
            .trim_end_matches('/')
            .rsplit('/')
            .next()
            .unwrap_or_default()
            .to_owned(),
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
    // The source is read before the name is judged: the skill's own `name:` names it, and a
    // path that holds no skill is the first thing to say.
    let taken = take(root, &source, &path, at, options)?;
    let own_name = manifest_name(&taken.tree);
    let upstream_dir = default_name(&source, &path);
    let (name, named_by) = local_name(request.name.as_deref(), own_name.as_deref(), &upstream_dir)?;
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
            pending: None,
            removed_upstream: None,
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
    let targets = crate::intent::Intent::load(root)?.targets;
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
    let taken = take(root, &source, &dir, at, options)?;
    let skills = skills_under(&taken.tree)?;
    if skills.is_empty() {
        return Err(Error::NoSkillsUnder {
            repository: source.as_str().to_owned(),
            path: dir,
        });
    }
    // Every skill is named and judged before anything is written, and every refusal is
    // collected, so one run says all that stands in the way.
    let mut refused = Vec::new();
    let mut named: BTreeMap<String, (String, NamedBy, SkillTree, Vec<Finding>)> = BTreeMap::new();
    for (upstream, tree) in skills {
        let (name, named_by) = match local_name(None, manifest_name(&tree).as_deref(), &upstream) {
            Ok(n) => n,
            Err(e) => {
                refused.push(e);
                continue;
            }
        };
        if let Some((other, ..)) = named.get(&name) {
            refused.push(Error::SameName {
                repository: source.as_str().to_owned(),
                name,
                dirs: [other.clone(), upstream],
            });
            continue;
        }
        match judge_for_all(root, &lock, &source, &name, &tree) {
            Ok(findings) => {
                named.insert(name, (upstream, named_by, tree, findings));
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
                dir: dir.clone(),
                refused,
            });
        }
    }
    let targets = crate::intent::Intent::load(root)?.targets;
    let mut changes = Vec::with_capacity(named.len() * (2 + targets.len()) + 2);
    let mut bases = std::collections::BTreeSet::new();
    let mut rows = Vec::with_capacity(named.len());
    let mut added = Vec::with_capacity(named.len());
    for (name, (upstream, named_by, tree, warnings)) in &named {
        let path = if dir == "." {
            upstream.clone()
        } else {
            format!("{dir}/{upstream}")
        };
        let hash = tree.hash();
        // A directory read as it stands is pinned to each skill's own tree, as a single add of
        // it would be; a commit pins every skill alike.
        let revision = match at {
            At::Now => hash.clone(),
            _ => taken.revision.clone(),
        };
        lock.skills.insert(
            name.clone(),
            Entry {
                source: source.as_str().to_owned(),
                path: path.clone(),
                reference: taken.reference.clone(),
                tag: taken.tag.clone(),
                revision: revision.clone(),
                base_hash: hash.clone(),
                pending: None,
                removed_upstream: None,
            },
        );
        changes.push(Change::replace(
            skill_dir(name),
            fill_of(root, tree),
            Ownership::MustBeFree,
        ));
        // Two skills alike share one kept base.
        if bases.insert(hash.clone()) {
            changes.extend(base_change(root, tree)?);
        }
        changes.extend(projections_placed(root, name, tree, &targets, &mut lock)?);
        rows.push((
            name.clone(),
            crate::intent::Wanted {
                source: source.as_str().to_owned(),
                path,
                reference: request.reference.clone(),
            },
        ));
        added.push(Added {
            name: name.clone(),
            named_by: *named_by,
            upstream: upstream.clone(),
            source: source.as_str().to_owned(),
            pin: match at {
                At::Now => Pin::Tree(revision),
                _ => Pin::Commit(revision),
            },
            hash,
            warnings: warnings.clone(),
        });
    }
    changes.extend(lock_changes(root, &loaded, &lock)?);
    changes.push(crate::intent::rows_change(root, &loaded, &rows)?);
    root.apply(Plan::new(root, changes)?)?;
    Ok(added)
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

/// `skill status`: the state of every imported skill, by name, offline.
///
/// # Errors
/// A lock that cannot be read; a guarded-read failure other than a refusal of the skill's
/// own content (which is [`State::Invalid`]).
pub fn status(root: &Root) -> Result<Vec<Status>, Error> {
    let lock = SkillLock::load(root)?;
    let mut out = Vec::with_capacity(lock.skills.len());
    for (name, entry) in &lock.skills {
        let dir = skill_dir(name);
        let kind = root.kind(&dir)?;
        let state = if kind.is_none() {
            State::Missing
        } else if kind == Some(EntryKind::Symlink) {
            // Said as every command says it, not as the read's refusal.
            State::Invalid(Error::LinkedSkill { path: dir }.to_string())
        } else if entry.pending.is_some() {
            State::Conflicted
        } else {
            match SkillTree::read(root, &dir)
                // An import is judged as it was taken: by the consumer's rules.
                .and_then(|tree| {
                    validate_tree_as(&tree, &dir, Profile::Consumer).map(|found| (tree, found))
                }) {
                Err(e) => State::Invalid(e.to_string()),
                Ok((tree, findings)) => {
                    match findings.into_iter().find(|f| f.severity == Severity::Error) {
                        Some(f) => State::Invalid(format!("{}: {}", f.path, f.message)),
                        None if crate::rename::is_clean(root, name, &entry.base_hash, &tree)? => {
                            State::Clean
                        }
                        None => State::Modified,
                    }
                }
            }
        };
        out.push(Status {
            name: name.clone(),
            state,
            source: entry.source.clone(),
            revision: entry.revision.clone(),
            removed_upstream: entry.removed_upstream.clone(),
        });
    }
    Ok(out)
}

/// The base of `name`: the kept copy when it still hashes to the lock's base hash, else the
/// source read again at the locked revision and checked against that hash. The flag says it
/// was read again (and so is worth keeping).
///
/// # Errors
/// [`Error::BaseUnavailable`] for a local directory taken as it stood whose kept base is
/// gone; [`Error::BaseMismatch`] for a source whose revision no longer hashes as recorded;
/// as [`take`].
pub(crate) fn base_of(
    root: &Root,
    name: &str,
    entry: &Entry,
    kept: Option<SkillTree>,
    options: &Options,
) -> Result<(SkillTree, bool), Error> {
    if let Some(tree) = kept {
        return Ok((tree, false));
    }
    let source = Source::parse(&entry.source)?;
    // A local directory taken as it stood has no commit to read its base at again; one taken
    // at a ref of its git repository has.
    if let (Source::Local(_), None) = (&source, &entry.reference) {
        return Err(Error::BaseUnavailable {
            name: name.to_owned(),
            path: base_dir(&entry.base_hash),
        });
    }
    let taken = take(
        root,
        &source,
        &entry.path,
        At::Revision(&entry.revision),
        options,
    )?;
    let found = taken.tree.hash();
    if found != entry.base_hash {
        return Err(Error::BaseMismatch {
            name: name.to_owned(),
            revision: entry.revision.clone(),
            expected: entry.base_hash.clone(),
            found,
        });
    }
    Ok((taken.tree, true))
}

/// The changes that keep `tree` as a base (its directory and digest list), unless it is kept
/// already.
///
/// # Errors
/// [`Error::Tree`] for a tree whose paths cannot be written; a guarded-read failure.
pub(crate) fn base_change(root: &Root, tree: &SkillTree) -> Result<Vec<Change>, Error> {
    base_change_linking(root, tree, None)
}

/// As [`base_change`]; the files `tree` shares with the kept base `from` (its directory and
/// tree) are hard links of that base's files. A kept base is never written in place, so the
/// two may share them.
fn base_change_linking(
    root: &Root,
    tree: &SkillTree,
    from: Option<&(String, SkillTree)>,
) -> Result<Vec<Change>, Error> {
    let hash = tree.hash();
    if kept_base(root, &hash)?.is_some() {
        return Ok(Vec::new());
    }
    tree.check_paths()?;
    let fill = match from {
        Some((dir, same)) => fill_linking(root, tree, same, dir),
        None => fill_of(root, tree),
    };
    Ok(base_changes(tree, fill).into())
}

/// The hashes of the kept bases `lock` refers to: each entry's base and a pending pull's
/// upstream version (the base `skill resolve` records).
pub(crate) fn referenced_bases(lock: &SkillLock) -> BTreeSet<&str> {
    lock.skills
        .values()
        .flat_map(|e| {
            std::iter::once(e.base_hash.as_str())
                .chain(e.pending.as_ref().map(|p| p.base_hash.as_str()))
        })
        .collect()
}

/// The changes that remove each kept base (directory and digest list) that `loaded` refers
/// to and `lock` no longer does: the writer that drops a base's last reference removes it in
/// the same transaction as the lock change, so kept bases do not pile up with every pull
/// (issue 27 §6). A base no entry of `loaded` named is left alone: it may belong to the lock
/// of another branch.
///
/// # Errors
/// A guarded-read failure.
pub(crate) fn dropped_bases(
    root: &Root,
    loaded: &SkillLock,
    lock: &SkillLock,
) -> Result<Vec<Change>, Error> {
    let still = referenced_bases(lock);
    let mut changes = Vec::new();
    for hash in referenced_bases(loaded).difference(&still) {
        for kept in [base_dir(hash), base_digests(hash)] {
            if root.kind(&kept)?.is_some() {
                changes.push(Change::remove(kept, Ownership::ToolState));
            }
        }
    }
    Ok(changes)
}

/// The change that writes `lock` over the lock `loaded` was read from, with the removal of
/// every kept base it no longer refers to ([`dropped_bases`]).
///
/// # Errors
/// A guarded-read failure.
pub(crate) fn lock_changes(
    root: &Root,
    loaded: &SkillLock,
    lock: &SkillLock,
) -> Result<Vec<Change>, Error> {
    let mut changes = dropped_bases(root, loaded, lock)?;
    changes.push(lock_change(loaded, lock));
    Ok(changes)
}

/// The change that writes `lock` over the lock `loaded` was read from. The file must still
/// read as `loaded` when the change is planned, so a lock another run wrote meanwhile is never
/// overwritten.
pub(crate) fn lock_change(loaded: &SkillLock, lock: &SkillLock) -> Change {
    let loaded = loaded.clone();
    Change::replace_file(
        SKILL_LOCK_FILE,
        lock.render().into_bytes(),
        Ownership::tool_made(move |root, dest, kind| {
            if kind != EntryKind::File {
                return Ok(Verdict::NotOurs(format!("it is {kind} now")));
            }
            let now = root.read_file(dest)?.unwrap_or_default();
            Ok(match serde_json::from_slice::<SkillLock>(&now) {
                Ok(now) if now == loaded => Verdict::Ours,
                _ => Verdict::NotOurs("it changed while the command ran; run it again".to_owned()),
            })
        }),
    )
}

/// The refusal of an imported skill whose directory is gone, naming the `skill add` that takes
/// it again.
fn missing(name: &str, entry: &Entry) -> Error {
    let renamed = Source::parse(&entry.source)
        .map(|source| default_name(&source, &entry.path) != name)
        .unwrap_or(true);
    Error::MissingImported {
        path: skill_dir(name),
        again: AddAgain {
            source: entry.source.clone(),
            path: entry.path.clone(),
            name: renamed.then(|| name.to_owned()),
            reference: entry.reference.clone(),
        },
    }
}

/// Requires the directory of imported skill `name`: absent is [`Error::MissingImported`], a
/// link or another kind is refused by name.
fn require_imported(root: &Root, name: &str, entry: &Entry) -> Result<String, Error> {
    let dir = skill_dir(name);
    match crate::paths::require_skill_dir(root, &dir) {
        Err(Error::Missing { .. }) => Err(missing(name, entry)),
        Err(e) => Err(e),
        Ok(()) => Ok(dir),
    }
}

/// Upstream now, or — when the source no longer holds the skill — the revision read (empty
/// for a local directory, which has none).
fn upstream_of(
    root: &Root,
    entry: &Entry,
    options: &Options,
) -> Result<std::result::Result<Taken, String>, Error> {
    let source = Source::parse(&entry.source)?;
    let at = match (&source, &entry.reference) {
        (_, Some(r)) => At::Ref(r),
        (Source::Local(_), None) => At::Now,
        (_, None) => At::DefaultBranch,
    };
    match take(root, &source, &entry.path, at, options) {
        Ok(taken) => Ok(Ok(taken)),
        Err(Error::NotInSource { revision, .. }) => Ok(Err(match (&source, &entry.reference) {
            (Source::Local(_), None) => String::new(),
            _ => revision,
        })),
        Err(e) => Err(e),
    }
}

/// `skill pull`: merges upstream into each named skill (every imported skill when `names` is
/// empty; a name given twice counts once). A clean merge that is a valid skill is placed and
/// the pin moves; a conflicted one changes nothing unless `write_conflicts`, which places the
/// files with markers and marks the skill conflicted until [`resolve`].
///
/// Every skill is judged before anything is written; then every skill directory, every new
/// kept base and the lock change in one transaction. A refusal of any skill writes nothing,
/// and a failed write rolls every change back.
///
/// A base that cannot be had again (a local directory taken as it stood, whose kept base is
/// gone) is not a refusal: when the local copy still hashes to the recorded base it is the
/// base; otherwise the merge is made without one ([`merge_without_base`]) and the outcome
/// says so ([`Pulled::warning`]).
///
/// # Errors
/// [`Error::Lock`] for a lock that cannot be read; [`Error::NotImported`] for a name the lock
/// does not hold; [`Error::Conflicted`] for a skill waiting for `skill resolve`;
/// [`Error::MissingImported`] for a skill whose directory is gone; [`Error::LinkedSkill`] for
/// one that is a symbolic link; [`Error::Tree`] for a local copy holding a link or special file; as [`take`] for upstream; [`Error::BaseMismatch`] for
/// a base that no longer hashes as recorded; [`Error::Invalid`] for a merged result that
/// breaks the rules; [`Error::Unwritable`] for a merged path some host cannot write; a
/// tree-change refusal or failure. In a run of several skills, a refusal of one skill comes as
/// [`Error::PullRefused`] naming it.
pub fn pull(
    root: &WriterLock<'_>,
    names: &[String],
    write_conflicts: bool,
    options: &Options,
) -> Result<Vec<Pulled>, Error> {
    pull_as(root, names, write_conflicts, Some(root), None, options)
}

/// `skill pull NAME --ref R`: sets the `ref` of `name`'s row in `vendor-skills.yaml` to
/// `reference` and pulls it there, as [`pull`] follows a changed row (issue 29 §2): the old
/// pin is the base, `reference`'s commit is upstream. The row is edited in the same
/// transaction as the pull, and only when the lock then records `reference` (a pull ending in
/// conflicts it does not write changes neither).
///
/// # Errors
/// As [`pull`]; as [`crate::intent::ref_change`] for an intent file that cannot be edited.
pub fn pull_to(
    root: &WriterLock<'_>,
    name: &str,
    reference: &str,
    write_conflicts: bool,
    options: &Options,
) -> Result<Vec<Pulled>, Error> {
    let names = [name.to_owned()];
    let forced = Some((name, reference));
    pull_as(root, &names, write_conflicts, Some(root), forced, options)
}

/// What [`pull_to`] would do, with nothing written.
///
/// # Errors
/// As [`pull_to`].
pub fn pull_to_dry_run(
    root: &Root,
    name: &str,
    reference: &str,
    write_conflicts: bool,
    options: &Options,
) -> Result<Vec<Pulled>, Error> {
    let names = [name.to_owned()];
    pull_as(
        root,
        &names,
        write_conflicts,
        None,
        Some((name, reference)),
        options,
    )
}

/// What [`pull`] would do, decided exactly as it decides (upstream read, bases checked,
/// merges made and validated, the transaction planned), with nothing written: no skill, kept
/// base or lock changes. The outcomes are reported as a pull would report them.
///
/// # Errors
/// As [`pull`].
pub fn pull_dry_run(
    root: &Root,
    names: &[String],
    write_conflicts: bool,
    options: &Options,
) -> Result<Vec<Pulled>, Error> {
    pull_as(root, names, write_conflicts, None, None, options)
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

/// A pull under `writer` (the writer lock of `root`), or without one a dry run.
fn pull_as(
    root: &Root,
    names: &[String],
    write_conflicts: bool,
    writer: Option<&WriterLock<'_>>,
    forced: Option<(&str, &str)>,
    options: &Options,
) -> Result<Vec<Pulled>, Error> {
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

    // Judge every skill first: a refusal here has written nothing.
    let mut out = Vec::with_capacity(names.len());
    let mut places = Vec::new();
    let mut mirrored: Vec<(String, SkillTree)> = Vec::new();
    let mut bases: BTreeMap<String, (SkillTree, Option<(String, SkillTree)>)> = BTreeMap::new();
    for name in names {
        let to = moves.get(&name);
        let (pulled, writes) = match pull_one(root, &name, &mut lock, to, write_conflicts, options)
        {
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
    options: &Options,
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
    // over files (and, for a remote, a fetch). The base is read ahead of knowing it is
    // wanted, and given up as soon as it is not: when upstream still hashes to it, or a read
    // fails. Errors come in the order of reads in turn: local, upstream, then the base.
    let stop = AtomicBool::new(false);
    let (local, upstream, kept) = std::thread::scope(|scope| {
        let upstream = scope.spawn(|| {
            let upstream = upstream_of(root, &followed, options);
            if !matches!(&upstream, Ok(Ok(u)) if u.tree.hash() != entry.base_hash) {
                stop.store(true, Ordering::Relaxed);
            }
            upstream
        });
        let kept = scope.spawn(|| listed_base_unless(root, &entry.base_hash, &stop));
        let local = SkillTree::read_stamped(root, &dir);
        if local.is_err() {
            stop.store(true, Ordering::Relaxed);
        }
        let upstream = joined(upstream);
        (local, upstream, joined(kept))
    });
    let (local, stamps) = local?;
    let name = name.to_owned();
    let mut writes = Writes::default();
    let upstream = match upstream? {
        Ok(upstream) => upstream,
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
    crate::follow::refuse_moved_tag(root, &name, &entry, &followed, &upstream, options)?;
    // Upstream holds the skill (again).
    if let Some(e) = lock.skills.get_mut(&name) {
        e.removed_upstream = None;
    }
    let upstream_hash = upstream.tree.hash();
    if upstream_hash == entry.base_hash {
        if let Some(e) = lock.skills.get_mut(&name) {
            e.revision = upstream.revision.clone();
            crate::follow::record(e, &followed, &upstream);
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
    let (base, fetched, kept, lost_base) = match base_of(root, &name, &entry, kept, options) {
        Ok((base, fetched)) => (Some(base), fetched, !fetched, None),
        // A local copy that still hashes to the lost base is that base.
        Err(Error::BaseUnavailable { .. }) if local.hash() == entry.base_hash => {
            (Some(local.clone()), false, false, None)
        }
        Err(Error::BaseUnavailable { path, .. }) => (None, false, false, Some(path)),
        Err(e) => return Err(e),
    };
    // The tool's own rename (`skill add --name`) is taken out of the local copy before the
    // merge and put back after it, so the `name:` line never conflicts with an upstream
    // change beside it and is never counted as the user's edit.
    let unrenamed = base
        .as_ref()
        .and_then(|base| crate::rename::unrenamed(&local, &name, manifest_name(base).as_deref()));
    let ours = unrenamed.as_ref().unwrap_or(&local);
    let mut merged = match &base {
        Some(base) => merge(base, ours, &upstream.tree, &|b, l, r| {
            merge_text(b, l, r, LABELS)
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
                });
                crate::follow::record(e, &followed, &upstream);
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
        e.revision = upstream.revision.clone();
        e.base_hash = upstream_hash.clone();
        crate::follow::record(e, &followed, &upstream);
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

/// Whether `data` holds a conflict marker line (`<<<<<<<`, `|||||||` or `>>>>>>>` opening a
/// line, followed by a space or the line's end).
pub fn has_conflict_markers(data: &[u8]) -> bool {
    data.split(|&b| b == b'\n').any(|line| {
        [b"<<<<<<<", b"|||||||", b">>>>>>>"].iter().any(|m| {
            line.strip_prefix(&m[..])
                .is_some_and(|rest| rest.is_empty() || rest[0] == b' ' || rest == b"\r")
        })
    })
}

/// `skill resolve`: records the upstream version a conflicted pull merged as the new base,
/// once no file holds a conflict marker and the skill is valid.
///
/// # Errors
/// [`Error::Lock`]; [`Error::NotImported`]; [`Error::LinkedSkill`] for a skill directory that
/// is a symbolic link; [`Error::NotConflicted`];
/// [`Error::MissingImported`] for a skill whose directory is gone; [`Error::MarkersRemain`] naming the first file with
/// markers; [`Error::Invalid`]; a guarded-read or write failure.
pub fn resolve(root: &WriterLock<'_>, name: &str) -> Result<String, Error> {
    let mut lock = SkillLock::load(root)?;
    let entry = lock.entry(name)?.clone();
    // A link is said first, as every other command says it.
    crate::paths::refuse_linked_skill(root, &skill_dir(name))?;
    let Some(pending) = entry.pending.clone() else {
        return Err(Error::NotConflicted {
            name: name.to_owned(),
        });
    };
    let dir = require_imported(root, name, &entry)?;
    let local = SkillTree::read(root, &dir)?;
    // One file at a time: files the read left on disk are read again to be searched.
    for f in local.files() {
        if has_conflict_markers(&f.data.read()?) {
            return Err(Error::MarkersRemain {
                path: format!("{dir}/{}", f.path),
            });
        }
    }
    // Judged as a pull judges what it takes: the result holds upstream's text, which may break
    // a rule agents do not enforce (a long description), and must not stay unresolvable.
    refuse_errors(
        validate_tree_as(&local, &dir, Profile::Consumer)?,
        Remedy::FixLocal,
    )?;
    let loaded = lock.clone();
    if let Some(e) = lock.skills.get_mut(name) {
        e.revision = pending.revision.clone();
        e.base_hash = pending.base_hash;
        e.pending = None;
    }
    // The base the conflicted pull merged from goes once nothing else refers to it.
    root.apply(Plan::new(root, lock_changes(root, &loaded, &lock)?)?)?;
    Ok(pending.revision)
}

/// `skill diff`: the unified diff of skill `name` from one version to another.
///
/// # Errors
/// [`Error::Lock`]; [`Error::NotImported`]; [`Error::LinkedSkill`] for a skill directory that
/// is a symbolic link (whichever versions are asked for); a base that cannot be had as recorded
/// ([`Error::BaseUnavailable`] when neither the local copy nor upstream is the lost base,
/// [`Error::BaseMismatch`]); a guarded-read refusal of the local copy; as [`take`] for
/// [`Version::Upstream`] (or for a base not kept here).
pub fn diff(
    root: &WriterLock<'_>,
    name: &str,
    from: Version,
    to: Version,
    options: &Options,
) -> Result<String, Error> {
    let lock = SkillLock::load(root)?;
    let entry = lock.entry(name)?.clone();
    let dir = skill_dir(name);
    // Whichever versions are asked for: a diff may keep a base, and a skill that is a link
    // is refused as every other command refuses it.
    crate::paths::refuse_linked_skill(root, &dir)?;
    let version = |v: Version| -> Result<SkillTree, Error> {
        match v {
            Version::Base => base_for_diff(root, name, &entry, options),
            Version::Local => Ok(SkillTree::read(root, &dir)?),
            Version::Upstream => Ok(upstream_of(root, &entry, options)?
                .map(|t| t.tree)
                .unwrap_or_default()),
        }
    };
    let a = version(from)?;
    let b = version(to)?;
    Ok(crate::diff::unified(&a, &b, &dir)?)
}

/// The base `skill diff` shows: as [`base_of`], kept when read again; a lost base is found
/// again when the local copy or upstream now still hashes to it.
fn base_for_diff(
    root: &WriterLock<'_>,
    name: &str,
    entry: &Entry,
    options: &Options,
) -> Result<SkillTree, Error> {
    match base_of(
        root,
        name,
        entry,
        kept_base(root, &entry.base_hash)?,
        options,
    ) {
        Ok((tree, fetched)) => {
            if fetched {
                keep_base(root, &tree)?;
            }
            Ok(tree)
        }
        Err(lost @ Error::BaseUnavailable { .. }) => {
            let dir = skill_dir(name);
            if root.kind(&dir)? == Some(EntryKind::Directory) {
                let local = SkillTree::read(root, &dir)?;
                if local.hash() == entry.base_hash {
                    return Ok(local);
                }
            }
            match upstream_of(root, entry, options)? {
                Ok(upstream) if upstream.tree.hash() == entry.base_hash => Ok(upstream.tree),
                _ => Err(lost),
            }
        }
        Err(e) => Err(e),
    }
}
