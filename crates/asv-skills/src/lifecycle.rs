//! Whole skills taken from another repository and kept up to date: `skill add`, `status`,
//! `pull`, `resolve` and `diff`.
//!
//! An imported skill has three versions: its base (the upstream version it was taken at, held
//! by the lock as a commit and a tree hash), the local copy under `skills/<name>` that the
//! team may edit, and the upstream version now. A pull merges base, local and upstream with
//! [`asv_skilltree::merge::merge`], so local edits survive upstream updates; it writes nothing
//! until the merge is clean and the result is a valid skill, then swaps the whole directory
//! in one step through `asv-root`'s tree-change layer (staged, swapped, rolled back on failure). Every command acquires first and publishes last: the tree before the lock.

use asv_fs::{Change, EntryKind, Ownership, Plan, Root, Verdict};
use asv_remote::Options;
use asv_skilltree::merge::{Conflict, merge, merge_text};
use asv_skilltree::{SKILL_MANIFEST, SkillTree};

use crate::error::Error;
use crate::error::Remedy;
use crate::lock::{Entry, Pending, SkillLock};
use crate::placing::fill_of;
use crate::upstream::{At, Source, Taken, check_source_path, keep_base, kept_base, take};
use crate::validate::refuse_errors;
use crate::{Finding, Severity, manifest_name, name_problem, validate_tree};

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
}

/// A skill `skill add` placed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Added {
    /// The local name.
    pub name: String,
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
        matches!(self, Pulled::Conflicts { .. })
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

/// Writes `tree` as the whole of `dest` through the tree-change layer: staged beside `dest`,
/// swapped in one step, rolled back to what stood there on any failure. `ownership` says what
/// may stand there.
fn place(root: &Root, tree: &SkillTree, dest: &str, ownership: Ownership) -> Result<(), Error> {
    tree.check_paths()?;
    Plan::new(root, vec![Change::replace(dest, fill_of(tree), ownership)])?.apply()?;
    Ok(())
}

/// Ownership of an imported skill's directory during a pull: it must still hold exactly the
/// local version the merge read (hash `expected`), so an edit made while the pull ran is never
/// overwritten.
fn still_local(expected: String) -> Ownership {
    Ownership::tool_made(move |root, dest, kind| {
        if kind != EntryKind::Directory {
            return Ok(Verdict::NotOurs(format!("it is {kind} now")));
        }
        Ok(match SkillTree::read(root, dest) {
            Ok(tree) if tree.hash() == expected => Verdict::Ours,
            Ok(_) => Verdict::NotOurs("it changed while the pull ran; pull again".to_owned()),
            Err(e) => Verdict::NotOurs(e.to_string()),
        })
    })
}

/// The skill's paths answer to the archive entry policy, so what lands in the repository
/// can be checked out on every host.
fn portable_tree(label: &str, tree: &SkillTree) -> Result<(), Error> {
    let paths: Vec<String> = tree.files().iter().map(|f| f.path.clone()).collect();
    crate::paths::portable(label, &paths)
}

fn default_name(source: &Source, path: &str) -> String {
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
pub fn add(root: &Root, request: &AddRequest, options: &Options) -> Result<Added, Error> {
    let mut lock = SkillLock::load(root)?;
    let source = Source::parse(&request.repository)?;
    let path = check_source_path(&request.path)?.to_owned();
    let name = match &request.name {
        Some(n) => n.clone(),
        None => default_name(&source, &path),
    };
    if let Some(problem) = name_problem(&name) {
        return Err(Error::BadName { name, problem });
    }
    if lock.skills.contains_key(&name) {
        return Err(Error::AlreadyImported { name });
    }
    let dir = skill_dir(&name);
    if root.kind(&dir)?.is_some() {
        return Err(Error::Occupied { path: dir });
    }
    let at = match (&source, &request.reference) {
        (_, Some(r)) => At::Ref(r),
        (Source::Local(_), None) => At::Now,
        (_, None) => At::DefaultBranch,
    };
    let taken = take(root, &source, &path, at, options)?;
    // `--name` other than the skill's own name renames it: the `name:` line is the one local
    // edit, made to a copy of upstream, so the base stays upstream's and every pull keeps the
    // rename through the merge.
    let placed = match &request.name {
        Some(n) if manifest_name(&taken.tree).as_deref() != Some(n.as_str()) => {
            renamed(&taken.tree, n)?
        }
        _ => taken.tree.clone(),
    };
    let findings = refuse_errors(validate_tree(&placed, &dir), Remedy::FixUpstream)?;
    taken.tree.check_paths()?;
    portable_tree(source.as_str(), &taken.tree)?;
    keep_base(root, &taken.tree)?;
    place(root, &placed, &dir, Ownership::MustBeFree)?;
    let hash = taken.tree.hash();
    lock.skills.insert(
        name.clone(),
        Entry {
            source: source.as_str().to_owned(),
            path,
            reference: taken.reference,
            revision: taken.revision.clone(),
            base_hash: hash.clone(),
            pending: None,
        },
    );
    lock.store(root)?;
    let pin = match at {
        At::Now => Pin::Tree(taken.revision),
        _ => Pin::Commit(taken.revision),
    };
    Ok(Added {
        name,
        source: source.as_str().to_owned(),
        pin,
        hash,
        warnings: findings,
    })
}

/// `tree` with the `name:` line of its SKILL.md frontmatter set to `name`, the rest of the
/// file byte for byte as it was (its line ending kept).
///
/// # Errors
/// [`Error::Rename`] when SKILL.md has no frontmatter with a one-line `name:` at its top level.
fn renamed(tree: &SkillTree, name: &str) -> Result<SkillTree, Error> {
    let refuse = || Error::Rename {
        name: name.to_owned(),
    };
    let manifest = tree.get(SKILL_MANIFEST).ok_or_else(refuse)?;
    let text = std::str::from_utf8(&manifest.data).map_err(|_| refuse())?;
    let mut out = String::with_capacity(text.len() + name.len());
    let mut replaced = false;
    let mut in_frontmatter = false;
    for (i, line) in text.split_inclusive('\n').enumerate() {
        let content = line.trim_end_matches(['\n', '\r']);
        let bare = if i == 0 {
            content.strip_prefix('\u{feff}').unwrap_or(content)
        } else {
            content
        };
        if bare == "---" {
            if i == 0 {
                in_frontmatter = true;
            } else if in_frontmatter {
                in_frontmatter = false;
            }
        } else if in_frontmatter && !replaced && content.starts_with("name:") {
            out.push_str("name: ");
            out.push_str(name);
            out.push_str(&line[content.len()..]);
            replaced = true;
            continue;
        }
        out.push_str(line);
    }
    let mut files = tree.files().to_vec();
    for f in &mut files {
        if f.path == SKILL_MANIFEST {
            f.data = out.clone().into_bytes();
        }
    }
    let result = SkillTree::from_files(files);
    // The edit must read back as exactly this name (a folded or multi-line value would not).
    if !replaced || manifest_name(&result).as_deref() != Some(name) {
        return Err(refuse());
    }
    Ok(result)
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
        let state = if root.kind(&dir)?.is_none() {
            State::Missing
        } else if entry.pending.is_some() {
            State::Conflicted
        } else {
            match SkillTree::read(root, &dir) {
                Err(e) => State::Invalid(e.to_string()),
                Ok(tree) => {
                    let findings = validate_tree(&tree, &dir);
                    match findings.into_iter().find(|f| f.severity == Severity::Error) {
                        Some(f) => State::Invalid(format!("{}: {}", f.path, f.message)),
                        None if tree.hash() == entry.base_hash => State::Clean,
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
        });
    }
    Ok(out)
}

/// The base of `name`: the kept copy when it still hashes to the lock's base hash, else the
/// source read again at the locked revision and checked against that hash.
fn base_of(
    root: &Root,
    name: &str,
    entry: &Entry,
    options: &Options,
    keep: bool,
) -> Result<SkillTree, Error> {
    if let Some(tree) = kept_base(root, &entry.base_hash)? {
        return Ok(tree);
    }
    let source = Source::parse(&entry.source)?;
    // A local directory taken as it stood has no commit to read its base at again; one taken
    // at a ref of its git repository has.
    if let (Source::Local(_), None) = (&source, &entry.reference) {
        return Err(Error::BaseUnavailable {
            name: name.to_owned(),
            path: crate::upstream::base_dir(&entry.base_hash),
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
    if keep {
        keep_base(root, &taken.tree)?;
    }
    Ok(taken.tree)
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
/// empty). A clean merge that is a valid skill is placed in one swap and the pin moves; a
/// conflicted one changes nothing unless `write_conflicts`, which places the files with
/// markers and marks the skill conflicted until [`resolve`].
///
/// # Errors
/// [`Error::Lock`] for a lock that cannot be read; [`Error::NotImported`] for a name the lock
/// does not hold; [`Error::Conflicted`] for a skill waiting for `skill resolve`;
/// [`Error::Missing`] for a skill whose directory is gone; [`Error::Tree`] for a local copy
/// holding a link or special file; as [`take`] for upstream; [`Error::BaseUnavailable`] or
/// [`Error::BaseMismatch`] for a base that cannot be had as recorded; [`Error::Invalid`] for
/// a merged result that breaks the rules; [`Error::Unwritable`] for a merged path some host
/// cannot write; a guarded-write failure. A skill refused changes nothing; skills before it
/// in the run keep their pulls.
pub fn pull(
    root: &Root,
    names: &[String],
    write_conflicts: bool,
    options: &Options,
) -> Result<Vec<Pulled>, Error> {
    pull_as(root, names, write_conflicts, false, options)
}

/// What [`pull`] would do, decided exactly as it decides (upstream read, bases checked,
/// merges made and validated), with nothing written: no skill, kept base or lock changes.
/// The outcomes are reported as a pull would report them.
///
/// # Errors
/// As [`pull`].
pub fn pull_dry_run(
    root: &Root,
    names: &[String],
    write_conflicts: bool,
    options: &Options,
) -> Result<Vec<Pulled>, Error> {
    pull_as(root, names, write_conflicts, true, options)
}

fn pull_as(
    root: &Root,
    names: &[String],
    write_conflicts: bool,
    dry_run: bool,
    options: &Options,
) -> Result<Vec<Pulled>, Error> {
    let write = !dry_run;
    let mut lock = SkillLock::load(root)?;
    let names: Vec<String> = if names.is_empty() {
        lock.skills.keys().cloned().collect()
    } else {
        names.to_vec()
    };
    let mut out = Vec::with_capacity(names.len());
    for name in names {
        let entry = lock.entry(&name)?.clone();
        if entry.pending.is_some() {
            return Err(Error::Conflicted { name });
        }
        let dir = skill_dir(&name);
        if root.kind(&dir)? != Some(EntryKind::Directory) {
            return Err(Error::Missing { path: dir });
        }
        let local = SkillTree::read(root, &dir)?;
        let upstream = match upstream_of(root, &entry, options)? {
            Ok(upstream) => upstream,
            Err(revision) => {
                out.push(Pulled::RemovedUpstream {
                    modified: local.hash() != entry.base_hash,
                    revision,
                    name,
                });
                continue;
            }
        };
        let upstream_hash = upstream.tree.hash();
        if upstream_hash == entry.base_hash {
            if write
                && upstream.revision != entry.revision
                && let Some(e) = lock.skills.get_mut(&name)
            {
                e.revision = upstream.revision.clone();
                lock.store(root)?;
            }
            out.push(Pulled::UpToDate {
                name,
                revision: upstream.revision,
            });
            continue;
        }
        let base = base_of(root, &name, &entry, options, write)?;
        let merged = merge(&base, &local, &upstream.tree, &|b, l, r| {
            merge_text(b, l, r, LABELS)
        });
        if !merged.is_clean() {
            if write_conflicts && write {
                keep_base(root, &upstream.tree)?;
                place(root, &merged.tree, &dir, still_local(local.hash()))?;
                if let Some(e) = lock.skills.get_mut(&name) {
                    e.pending = Some(Pending {
                        revision: upstream.revision.clone(),
                        base_hash: upstream_hash,
                    });
                }
                lock.store(root)?;
            }
            out.push(Pulled::Conflicts {
                name,
                revision: upstream.revision,
                conflicts: merged.conflicts,
                written: write_conflicts && write,
            });
            continue;
        }
        refuse_errors(validate_tree(&merged.tree, &dir), Remedy::FixUpstream)?;
        portable_tree(&entry.source, &merged.tree)?;
        if write {
            keep_base(root, &upstream.tree)?;
            if merged.tree != local {
                place(root, &merged.tree, &dir, still_local(local.hash()))?;
            }
            if let Some(e) = lock.skills.get_mut(&name) {
                e.revision = upstream.revision.clone();
                e.base_hash = upstream_hash.clone();
            }
            lock.store(root)?;
        }
        out.push(Pulled::Updated {
            kept_local: merged.tree.hash() != upstream_hash,
            name,
            from: entry.revision,
            to: upstream.revision,
        });
    }
    Ok(out)
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
/// [`Error::Lock`]; [`Error::NotImported`]; [`Error::NotConflicted`]; [`Error::Missing`] for
/// a skill whose directory is gone; [`Error::MarkersRemain`] naming the first file with
/// markers; [`Error::Invalid`]; a guarded-read or write failure.
pub fn resolve(root: &Root, name: &str) -> Result<String, Error> {
    let mut lock = SkillLock::load(root)?;
    let entry = lock.entry(name)?.clone();
    let Some(pending) = entry.pending else {
        return Err(Error::NotConflicted {
            name: name.to_owned(),
        });
    };
    let dir = skill_dir(name);
    if root.kind(&dir)? != Some(EntryKind::Directory) {
        return Err(Error::Missing { path: dir });
    }
    let local = SkillTree::read(root, &dir)?;
    if let Some(f) = local.files().iter().find(|f| has_conflict_markers(&f.data)) {
        return Err(Error::MarkersRemain {
            path: format!("{dir}/{}", f.path),
        });
    }
    refuse_errors(validate_tree(&local, &dir), Remedy::FixLocal)?;
    if let Some(e) = lock.skills.get_mut(name) {
        e.revision = pending.revision.clone();
        e.base_hash = pending.base_hash;
        e.pending = None;
    }
    lock.store(root)?;
    Ok(pending.revision)
}

/// `skill diff`: the unified diff of skill `name` from one version to another.
///
/// # Errors
/// [`Error::Lock`]; [`Error::NotImported`]; a base that cannot be had as recorded
/// ([`Error::BaseUnavailable`], [`Error::BaseMismatch`]); a guarded-read refusal of the local
/// copy; as [`take`] for [`Version::Upstream`] (or for a base not kept here).
pub fn diff(
    root: &Root,
    name: &str,
    from: Version,
    to: Version,
    options: &Options,
) -> Result<String, Error> {
    let lock = SkillLock::load(root)?;
    let entry = lock.entry(name)?.clone();
    let dir = skill_dir(name);
    let version = |v: Version| -> Result<SkillTree, Error> {
        match v {
            Version::Base => base_of(root, name, &entry, options, true),
            Version::Local => Ok(SkillTree::read(root, &dir)?),
            Version::Upstream => Ok(upstream_of(root, &entry, options)?
                .map(|t| t.tree)
                .unwrap_or_default()),
        }
    };
    let a = version(from)?;
    let b = version(to)?;
    Ok(crate::diff::unified(&a, &b, &dir))
}
