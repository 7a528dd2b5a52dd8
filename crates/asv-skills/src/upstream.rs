//! Where a whole skill comes from, and taking it: a repository read through `asv-remote`'s
//! transports at a commit, or a local directory read where it stands.
//!
//! What is taken is always a [`SkillTree`]: only regular files (each with its executable bit),
//! the three skipped names left out as a directory read leaves them out, and any link or
//! submodule refused by name, so the tree hashed is exactly the tree written.

use asv_fs::{Root, join};
use asv_model::source::{ObjectFormat, RepositorySpec, Revision};
use asv_remote::{Commit, EntryMode};
use asv_skilltree::{
    FileNode, SkillTree, is_ignored_name, validate_relative_path, validate_stored_path,
};
use std::collections::BTreeMap;
use std::path::Path;

use crate::bases::base_dir;
use crate::error::{AddAgain, Error, SourceProblem};
use crate::lock::Entry;
use crate::paths::skill_dir;
use crate::sources::{Reach, Sources, is_git_repository};

/// A skill's source.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// A repository: `owner/repo` (GitHub API) or a git URL.
    Remote(RepositorySpec),
    /// A directory on this machine, relative to the repository root (or absolute).
    Local(String),
}

impl Source {
    /// Reads a source as typed: a local directory starts with `/`, `./` or `../` (or is `.`
    /// or `..`); anything else is a repository.
    ///
    /// # Errors
    /// [`Error::Repository`] for a repository that is not usable.
    pub fn parse(given: &str) -> Result<Source, Error> {
        let local = given == "."
            || given == ".."
            || given.starts_with('/')
            || given.starts_with("./")
            || given.starts_with("../");
        if local {
            return Ok(Source::Local(given.to_owned()));
        }
        RepositorySpec::parse(given)
            .map(Source::Remote)
            .map_err(|problem| Error::Repository {
                given: given.to_owned(),
                problem: SourceProblem::Unaccepted(problem),
            })
    }

    /// The source as written to the lock.
    pub fn as_str(&self) -> &str {
        match self {
            Source::Remote(spec) => spec.as_str(),
            Source::Local(dir) => dir,
        }
    }
}

/// Which version of a source to take.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum At<'a> {
    /// The commit a branch, tag or commit id names now.
    Ref(&'a str),
    /// The repository's default branch.
    DefaultBranch,
    /// Exactly this commit.
    Revision(&'a str),
    /// A local directory as it stands.
    Now,
}

/// A skill taken from its source.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Taken {
    /// The commit read (for a local directory, the tree hash).
    pub revision: String,
    /// The ref followed: the branch found for [`At::DefaultBranch`], the ref given for
    /// [`At::Ref`]; `None` otherwise.
    pub reference: Option<String>,
    /// The tag a semver range picked ([`crate::refs`]); `None` for any other ref.
    pub tag: Option<String>,
    /// The skill's files, relative to the skill directory.
    pub tree: SkillTree,
}

/// Checks a path in a source: `.` for the root, else a plain relative path with no `.git`
/// segment (the path is kept in the lock and the intent, which are read as hostile: see
/// [`asv_skilltree::validate_stored_path`]).
///
/// # Errors
/// [`Error::PathEscapes`].
pub fn check_source_path(path: &str) -> Result<&str, Error> {
    let path = path.trim_end_matches('/');
    if path == "." || path.is_empty() {
        return Ok(".");
    }
    validate_stored_path(path).map_err(|problem| Error::PathEscapes {
        path: path.to_owned(),
        problem,
    })?;
    Ok(path)
}

/// Takes the skill at `path` of `source`, at `at`. `root` is the repository the skill is taken
/// into (a local source's relative path is read from its root).
///
/// # Errors
/// [`Error::PathEscapes`] for a path that leaves the source; [`Error::Repository`] for a local
/// directory that is not there; [`Error::RefWithoutRepository`] for a commit asked of a local
/// directory that is no git repository; [`Error::NotACommit`] for a source that answers
/// something else for a commit id; [`Error::NotInSource`] when nothing is there;
/// [`Error::UnsupportedEntry`] for a link or submodule under the path; [`Error::Remote`] for
/// a transport refusal; a guarded-read refusal of a local directory.
pub fn take(
    root: &Root,
    source: &Source,
    path: &str,
    at: At<'_>,
    options: &asv_remote::Options,
) -> Result<Taken, Error> {
    take_in(root, source, path, at, &Sources::new(options))
}

/// As [`take`], through the sources of a run: a source reached before in the run is not
/// reached again (issue 30 §2).
///
/// # Errors
/// As [`take`].
pub fn take_in(
    root: &Root,
    source: &Source,
    path: &str,
    at: At<'_>,
    sources: &Sources<'_>,
) -> Result<Taken, Error> {
    let path = check_source_path(path)?;
    let options = sources.options();
    match (source, at) {
        (Source::Local(dir), At::Now) => take_local(root, dir, path),
        (Source::Local(dir), at) => sources.with(root, &Reach::LocalGit(dir.clone()), |t| {
            take_remote(t, dir, path, at, options)
        }),
        (Source::Remote(spec), at) => sources.with(root, &Reach::Remote(spec.clone()), |t| {
            take_remote(t, spec.as_str(), path, at, options)
        }),
    }
}

/// What a new import of `source` reads when asked for `reference`: that ref; else, for a
/// local directory that is the top of a git repository, its default branch's commit (tracked
/// files only, as any other git source; `working_tree` asks for the working tree as it stands
/// instead); else a local directory as it stands; else the source's default branch.
///
/// # Errors
/// [`Error::WorkingTreeRemote`] for `working_tree` with a source that is not local; a
/// guarded-read failure looking for the local directory's `.git`.
pub fn at_for<'a>(
    root: &Root,
    source: &Source,
    reference: Option<&'a str>,
    working_tree: bool,
) -> Result<At<'a>, Error> {
    Ok(match (source, reference) {
        (_, Some(r)) => At::Ref(r),
        (Source::Local(dir), None) => {
            let is_git = !working_tree
                && Root::open(root.root().join(Path::new(dir)))
                    .ok()
                    .map(|local| is_git_repository(&local))
                    .transpose()?
                    .unwrap_or(false);
            if is_git { At::DefaultBranch } else { At::Now }
        }
        (Source::Remote(spec), None) if working_tree => {
            return Err(Error::WorkingTreeRemote {
                given: spec.as_str().to_owned(),
            });
        }
        (Source::Remote(_), None) => At::DefaultBranch,
    })
}

/// What `at` names in `source` now, without reading the skill's files where the transport
/// allows: the commit a ref (or the default branch) names, through the transport's ref
/// resolution; for a local directory read as it stands ([`At::Now`]), the tree hash of the
/// skill at `path` (which has to be read). Also the ref followed (the branch found for
/// [`At::DefaultBranch`], the ref given for [`At::Ref`]).
///
/// # Errors
/// As [`take`].
pub fn resolve(
    root: &Root,
    source: &Source,
    path: &str,
    at: At<'_>,
    sources: &Sources<'_>,
) -> Result<(String, Option<String>), Error> {
    let reach = match (source, at) {
        (Source::Local(dir), At::Now) => {
            let taken = take_local(root, dir, check_source_path(path)?)?;
            return Ok((taken.revision, None));
        }
        (_, At::Revision(revision)) => return Ok((revision.to_owned(), None)),
        (Source::Local(dir), _) => Reach::LocalGit(dir.clone()),
        (Source::Remote(spec), _) => Reach::Remote(spec.clone()),
    };
    let (commit, reference) = sources.with(root, &reach, |transport| {
        Ok(match at {
            At::Ref(reference) => (
                commit_at(transport, source.as_str(), reference)?.0,
                reference.to_owned(),
            ),
            _ => {
                let branch = transport.default_branch()?;
                (transport.resolve(&branch)?, branch)
            }
        })
    })?;
    if Revision::parse(&commit.revision, commit.format).is_none() {
        return Err(Error::NotACommit {
            repository: source.as_str().to_owned(),
            answered: commit.revision,
        });
    }
    Ok((commit.revision, Some(reference)))
}

fn take_local(root: &Root, dir: &str, path: &str) -> Result<Taken, Error> {
    take_local_skipping(root, dir, path, &[])
}

/// A local directory as it stands below `path`, as discovery reads it: as [`take_local`],
/// with [`crate::discover::SKIPPED_DIRS`] never walked into.
fn take_local_pruned(root: &Root, dir: &str, path: &str) -> Result<Taken, Error> {
    take_local_skipping(root, dir, path, &crate::discover::SKIPPED_DIRS)
}

fn take_local_skipping(
    root: &Root,
    dir: &str,
    path: &str,
    skipped: &[&str],
) -> Result<Taken, Error> {
    let base = root.root().join(Path::new(dir));
    let source = Root::open(&base).map_err(|_| Error::Repository {
        given: dir.to_owned(),
        problem: SourceProblem::NoSuchDirectory,
    })?;
    let rel = if path == "." { "" } else { path };
    if rel.is_empty() {
        // The root itself: Root::open has checked it is a directory.
    } else if source.kind(rel)?.is_some() {
        crate::paths::require_dir(&source, rel)?;
    } else {
        return Err(Error::NotInSource {
            repository: dir.to_owned(),
            path: path.to_owned(),
            revision: "the directory as it stands".to_owned(),
        });
    }
    // A plain directory is read as git would commit it: what its `.gitignore` files (from the
    // source's top down) exclude is never walked into, let alone taken (`.env`,
    // `node_modules/`, `__pycache__/`).
    let tree = read_unignored(&source, rel, skipped)?;
    if tree.is_empty() {
        return Err(Error::NotInSource {
            repository: dir.to_owned(),
            path: path.to_owned(),
            revision: "the directory as it stands".to_owned(),
        });
    }
    Ok(Taken {
        revision: tree.hash(),
        reference: None,
        tag: None,
        tree,
    })
}

/// The skill at `rel` of the plain directory `source`, without what its `.gitignore` files
/// exclude (each directory's rules read as the walk enters it, deeper ones winning as in git).
/// A skill directory that is itself excluded reads as empty.
///
/// # Errors
/// A `.gitignore` that cannot be read or used; as [`SkillTree::read`].
fn read_unignored(source: &Root, rel: &str, skipped: &[&str]) -> Result<SkillTree, Error> {
    use asv_model::ignore::IgnoreRules;
    let Some(top) = IgnoreRules::for_dir(source, rel)? else {
        return Ok(SkillTree::default());
    };
    // The rules in force in each directory met, from the skill's own down; a directory's
    // entries are always met after the directory itself.
    let mut rules: BTreeMap<String, IgnoreRules> = BTreeMap::new();
    let mut failure: Option<asv_model::Error> = None;
    // `for_dir` has read every `.gitignore` from the source's top down to `rel` itself.
    rules.insert(String::new(), top);
    let tree = SkillTree::read_filtered(source, rel, &mut |path, is_dir| {
        let (parent, leaf) = path.rsplit_once('/').unwrap_or(("", path));
        if is_dir && skipped.contains(&leaf) {
            return false;
        }
        let Some(here) = rules.get(parent) else {
            return false;
        };
        let full = join(rel, path);
        if here.is_excluded(&full, is_dir) {
            return false;
        }
        if is_dir {
            let mut below = here.clone();
            if let Err(e) = below.add_dir(source, &full) {
                failure.get_or_insert(e);
                return false;
            }
            rules.insert(path.to_owned(), below);
        }
        true
    })?;
    match failure {
        Some(e) => Err(e.into()),
        None => Ok(tree),
    }
}

/// The skill at `path` of a repository read through `transport`, at `at`; `label` names the
/// source in refusals.
fn take_remote(
    transport: &mut dyn asv_remote::Transport,
    label: &str,
    path: &str,
    at: At<'_>,
    options: &asv_remote::Options,
) -> Result<Taken, Error> {
    let (commit, reference) = match at {
        At::Revision(revision) => (pinned_commit(revision), None),
        At::Ref(reference) => {
            let (commit, tag) = commit_at(transport, label, reference)?;
            (commit, Some((reference.to_owned(), tag)))
        }
        At::DefaultBranch | At::Now => {
            let branch = transport.default_branch()?;
            (transport.resolve(&branch)?, Some((branch, None)))
        }
    };
    let (reference, tag) = match reference {
        Some((reference, tag)) => (Some(reference), tag),
        None => (None, None),
    };
    // A commit id the transport answered is checked like the contract pins are.
    if Revision::parse(&commit.revision, commit.format).is_none() {
        return Err(Error::NotACommit {
            repository: label.to_owned(),
            answered: commit.revision,
        });
    }
    // Only what is below the skill's path (issue 30 §3): `pick` keeps no other entry.
    let listing = transport.list_under(&commit, path)?;
    let wanted = pick(label, &listing, path, &commit.revision)?;
    // A bar as long as the files, advanced as each arrives: a source of hundreds of files
    // read through the GitHub API takes long enough that silence reads as a hang.
    let step = options.progress.step(
        &format!(
            "{label}: reading {} files at {}",
            wanted.len(),
            asv_model::source::short(&commit.revision)
        ),
        Some(wanted.len() as u64),
    );
    let mut files = Vec::with_capacity(wanted.len());
    let entries: Vec<asv_remote::TreeEntry> = wanted.iter().map(|(_, e)| e.clone()).collect();
    let mut failure = None;
    // One batched read of every file (issue 30 §2), each handed over as it arrives: kept in
    // memory while the allowance lasts, else written aside, so a large upstream costs about
    // one file of memory at a time.
    transport.read_each(
        &commit,
        &entries,
        &mut |i, bytes| match asv_skilltree::FileData::arrived(bytes) {
            Ok(data) => {
                let (rel, entry) = &wanted[i];
                files.push(FileNode {
                    path: rel.clone(),
                    data,
                    executable: entry.mode == EntryMode::Executable,
                });
                step.advance(1);
                true
            }
            Err(e) => {
                failure = Some(e);
                false
            }
        },
    )?;
    drop(step);
    if let Some(e) = failure {
        return Err(e.into());
    }
    Ok(Taken {
        revision: commit.revision,
        reference,
        tag,
        tree: SkillTree::from_files(files)?,
    })
}

/// The files of `listing` at `path` (`.` for the root), each with its path relative to it;
/// `label` names the source and `revision` the commit in refusals.
///
/// # Errors
/// [`Error::UnsupportedEntry`] for a link, a submodule or a path that is not plain;
/// [`Error::NotInSource`] when no file is there.
fn pick(
    label: &str,
    listing: &[asv_remote::TreeEntry],
    path: &str,
    revision: &str,
) -> Result<Vec<(String, asv_remote::TreeEntry)>, Error> {
    let prefix = if path == "." {
        String::new()
    } else {
        format!("{path}/")
    };
    let mut wanted = Vec::new();
    for entry in listing {
        let Some(rel) = entry.path.strip_prefix(&prefix) else {
            continue;
        };
        if rel.is_empty() || rel.split('/').any(is_ignored_name) {
            continue;
        }
        let what = match entry.mode {
            EntryMode::File | EntryMode::Executable => None,
            EntryMode::Tree => continue,
            EntryMode::Symlink => Some("a symbolic link"),
            EntryMode::Submodule => Some("a submodule"),
        };
        if let Some(what) = what {
            return Err(Error::UnsupportedEntry {
                repository: label.to_owned(),
                path: entry.path.clone(),
                what,
            });
        }
        if validate_relative_path(rel).is_err() {
            return Err(Error::UnsupportedEntry {
                repository: label.to_owned(),
                path: entry.path.clone(),
                what: "a path that is not a plain relative path",
            });
        }
        wanted.push((rel.to_owned(), entry.clone()));
    }
    if wanted.is_empty() {
        return Err(Error::NotInSource {
            repository: label.to_owned(),
            path: path.to_owned(),
            revision: revision.to_owned(),
        });
    }
    Ok(wanted)
}

/// The commit `reference` names through `transport` (`label` names the source in refusals),
/// and the tag it was found at when `reference` is a semver range (issue 29 §2): a range is
/// resolved from the source's tag list ([`crate::refs::pick`]); a branch, tag or full or
/// short commit id is asked of the transport; a bare version (`1.2.3`) that names no branch
/// or tag is the exact range `=1.2.3`.
///
/// # Errors
/// [`Error::RangeUnsupported`] for a range on a transport that lists no tags;
/// [`Error::NoTagInRange`] when no tag is a version in it; [`Error::Remote`] for a transport
/// refusal (an unknown ref, an ambiguous or unknown short id).
pub(crate) fn commit_at(
    transport: &mut dyn asv_remote::Transport,
    label: &str,
    reference: &str,
) -> Result<(Commit, Option<String>), Error> {
    if let Some(range) = crate::refs::range(reference) {
        return by_range(transport, label, reference, &range);
    }
    match transport.resolve(reference) {
        Ok(commit) => Ok((commit, None)),
        Err(e) if is_unknown_ref(&e) => match crate::refs::bare_version(reference) {
            Some(range) => by_range(transport, label, reference, &range),
            None => Err(e.into()),
        },
        Err(e) => Err(e.into()),
    }
}

/// Whether `e` says the ref names no branch or tag (and so a bare version may be a range):
/// git's lookup found none; the GitHub API answers an unknown ref 404 or 422.
fn is_unknown_ref(e: &asv_remote::Error) -> bool {
    use asv_remote::error::{GitHubProblem, GitProblem, RefProblem};
    match e {
        asv_remote::Error::Git { problem, .. } => {
            matches!(**problem, GitProblem::Ref(RefProblem::Unknown { .. }))
        }
        asv_remote::Error::GitHub { problem, .. } => matches!(
            **problem,
            GitHubProblem::Refused {
                request: asv_remote::error::Request::Ref { .. },
                status: 404 | 422,
                ..
            }
        ),
        _ => false,
    }
}

/// The commit of the tag `range` picks among the source's tags, read through `transport`.
fn by_range(
    transport: &mut dyn asv_remote::Transport,
    label: &str,
    given: &str,
    range: &semver::VersionReq,
) -> Result<(Commit, Option<String>), Error> {
    let Some(tags) = transport.tags()? else {
        return Err(Error::RangeUnsupported {
            repository: label.to_owned(),
            range: given.to_owned(),
        });
    };
    let Some(tag) = crate::refs::pick(&tags, range) else {
        return Err(Error::NoTagInRange {
            repository: label.to_owned(),
            range: given.to_owned(),
            newest: crate::refs::newest(&tags).map(|t| t.name.clone()),
        });
    };
    let commit = transport.resolve(&tag.commit)?;
    Ok((commit, Some(tag.name.clone())))
}

/// The tags of `source`, each with its commit, through its transport; `None` for a local
/// directory read as it stands or a transport that lists no tags.
///
/// # Errors
/// As [`take`] for a source that cannot be reached.
pub fn tags_of(
    root: &Root,
    source: &Source,
    reference: Option<&str>,
    sources: &Sources<'_>,
) -> Result<Option<Vec<asv_remote::Tag>>, Error> {
    let reach = match (source, reference) {
        (Source::Local(_), None) => return Ok(None),
        (Source::Local(dir), Some(_)) => Reach::LocalGit(dir.clone()),
        (Source::Remote(spec), _) => Reach::Remote(spec.clone()),
    };
    sources.with(root, &reach, |transport| Ok(transport.tags()?))
}

/// How `source` is reached through a transport at a ref (`reference`; `None`: the default
/// branch, or for a local directory, as it stands); `None` for a local directory read as it
/// stands, which has no transport.
pub(crate) fn reach_of(source: &Source, reference: Option<&str>) -> Option<Reach> {
    match (source, reference) {
        (Source::Local(_), None) => None,
        (Source::Local(dir), Some(_)) => Some(Reach::LocalGit(dir.clone())),
        (Source::Remote(spec), _) => Some(Reach::Remote(spec.clone())),
    }
}

/// Whether the tree at `path` of `source` is the same at the commits `old` and `now`, read
/// through its transport (issue 30 §3): `false` whenever it cannot be told (a local directory
/// read as it stands, a transport that lists no tree ids, a pin the source no longer has, a
/// path that is no tree at either commit).
///
/// # Errors
/// As [`take`] for a source that cannot be reached.
pub(crate) fn same_tree(
    root: &Root,
    source: &Source,
    reference: Option<&str>,
    path: &str,
    old: &str,
    now: &str,
    sources: &Sources<'_>,
) -> Result<bool, Error> {
    if old == now {
        return Ok(true);
    }
    let Some(reach) = reach_of(source, reference) else {
        return Ok(false);
    };
    let commit = |revision: &str| {
        let pinned = pinned_commit(revision);
        Revision::parse(revision, pinned.format).map(|_| pinned)
    };
    let (Some(old), Some(now)) = (commit(old), commit(now)) else {
        return Ok(false);
    };
    let path = check_source_path(path)?.to_owned();
    sources.with(root, &reach, |transport| {
        // `now` first: it is the commit the run has fetched; the pin may be gone.
        let Ok(Some(Some(at_now))) = transport.tree_id(&now, &path) else {
            return Ok(false);
        };
        Ok(matches!(transport.tree_id(&old, &path), Ok(Some(Some(at_old))) if at_old == at_now))
    })
}

/// Tells the transport of each entry's source the pins of `entries` it is about to be asked
/// about, so it may fetch them with the commit a ref names now (issue 30 §3). A source that
/// cannot be reached is passed over: the read that needs it says so in its turn.
pub(crate) fn hint_pins<'e>(
    root: &Root,
    entries: impl IntoIterator<Item = &'e Entry>,
    sources: &Sources<'_>,
) {
    let mut by_source: BTreeMap<(bool, String), (Reach, Vec<String>)> = BTreeMap::new();
    for entry in entries {
        let Ok(source) = Source::parse(&entry.source) else {
            continue;
        };
        if let Some(reach) = reach_of(&source, entry.reference.as_deref()) {
            by_source
                .entry(reach.key())
                .or_insert_with(|| (reach, Vec::new()))
                .1
                .push(entry.revision.clone());
        }
    }
    for (reach, pins) in by_source.into_values() {
        let _ = sources.with(root, &reach, |transport| {
            transport.hint(&pins);
            Ok(())
        });
    }
}

/// The name of the directory `path` of `source` (the source's own name for its root): an
/// import's local name unless another was given.
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

/// Where upstream stands for an import whose skill did not change there (issue 30 §3).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Unchanged {
    /// The commit the ref names now.
    pub revision: String,
    /// The tag a semver range picked; `None` for any other ref.
    pub tag: Option<String>,
}

/// The commit `entry`'s ref names now, when the tree at the skill's path there is the very
/// tree of the lock's pin (so upstream still holds exactly the base, and nothing of it need
/// be read); `None` when it may differ or cannot be told (as [`same_tree`]).
///
/// # Errors
/// As [`take`] for the ref's resolution.
pub(crate) fn unchanged_upstream(
    root: &Root,
    entry: &Entry,
    sources: &Sources<'_>,
) -> Result<Option<Unchanged>, Error> {
    let source = Source::parse(&entry.source)?;
    let Some(reach) = reach_of(&source, entry.reference.as_deref()) else {
        return Ok(None);
    };
    let (commit, tag) = sources.with(root, &reach, |transport| match &entry.reference {
        Some(reference) => commit_at(transport, source.as_str(), reference),
        None => {
            let branch = transport.default_branch()?;
            Ok((transport.resolve(&branch)?, None))
        }
    })?;
    if Revision::parse(&commit.revision, commit.format).is_none() {
        // Said by the read that follows, as it always was.
        return Ok(None);
    }
    let same = same_tree(
        root,
        &source,
        entry.reference.as_deref(),
        &entry.path,
        &entry.revision,
        &commit.revision,
        sources,
    )?;
    Ok(same.then_some(Unchanged {
        revision: commit.revision,
        tag,
    }))
}

/// Upstream now, or — when the source no longer holds the skill — the revision read (empty
/// for a local directory, which has none).
pub(crate) fn upstream_of(
    root: &Root,
    entry: &Entry,
    sources: &Sources<'_>,
) -> Result<std::result::Result<Taken, String>, Error> {
    let source = Source::parse(&entry.source)?;
    let at = match (&source, &entry.reference) {
        (_, Some(r)) => At::Ref(r),
        (Source::Local(_), None) => At::Now,
        (_, None) => At::DefaultBranch,
    };
    match take_in(root, &source, &entry.path, at, sources) {
        Ok(taken) => Ok(Ok(taken)),
        Err(Error::NotInSource { revision, .. }) => Ok(Err(match (&source, &entry.reference) {
            (Source::Local(_), None) => String::new(),
            _ => revision,
        })),
        Err(e) => Err(e),
    }
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
    sources: &Sources<'_>,
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
    let taken = take_in(
        root,
        &source,
        &entry.path,
        At::Revision(&entry.revision),
        sources,
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
pub(crate) fn require_imported(root: &Root, name: &str, entry: &Entry) -> Result<String, Error> {
    let dir = skill_dir(name);
    match crate::paths::require_skill_dir(root, &dir) {
        Err(Error::Missing { .. }) => Err(missing(name, entry)),
        Err(e) => Err(e),
        Ok(()) => Ok(dir),
    }
}

/// A source's files at one version, listed but not yet read (issue 31 §1): what discovery
/// looks through, and what the skills chosen from it are then taken from, so every skill of
/// one run is read at the same commit and the listing is asked for once.
pub struct Listed {
    /// The commit listed (for a local directory read as it stands, the tree hash of the
    /// start directory).
    pub revision: String,
    /// The ref followed, as [`Taken::reference`].
    pub reference: Option<String>,
    /// The tag a semver range picked, as [`Taken::tag`].
    pub tag: Option<String>,
    /// The directory of the source the listing starts at (`.` for its root).
    pub start: String,
    held: Held,
}

/// What a [`Listed`] holds to read files by.
enum Held {
    /// A repository's commit and its tree's entries below the start (paths from the root).
    Remote {
        reach: Reach,
        commit: Commit,
        entries: Vec<asv_remote::TreeEntry>,
    },
    /// A local directory as it stands, already read (paths below the start).
    Local(SkillTree),
}

impl Listed {
    /// The file paths below the start (links and submodules included: taking a skill that
    /// holds one refuses it by name).
    pub fn files(&self) -> std::collections::BTreeSet<&str> {
        match &self.held {
            Held::Remote { entries, .. } => entries
                .iter()
                .filter(|e| e.mode != EntryMode::Tree)
                .filter_map(|e| below_start(&self.start, &e.path))
                .collect(),
            Held::Local(tree) => tree.files().iter().map(|f| f.path.as_str()).collect(),
        }
    }

    /// The bytes of each of `paths` (below the start), in one batched read; a path the
    /// listing does not hold as a file reads as `None`.
    ///
    /// # Errors
    /// As [`take`], for the read.
    pub fn read(
        &self,
        root: &Root,
        sources: &Sources<'_>,
        paths: &[String],
    ) -> Result<Vec<Option<Vec<u8>>>, Error> {
        let mut out: Vec<Option<Vec<u8>>> = vec![None; paths.len()];
        match &self.held {
            Held::Local(tree) => {
                for (slot, path) in out.iter_mut().zip(paths) {
                    if let Some(file) = tree.get(path) {
                        *slot = Some(file.data.read()?.into_owned());
                    }
                }
            }
            Held::Remote {
                reach,
                commit,
                entries,
            } => {
                let mut wanted = Vec::new();
                let mut slots = Vec::new();
                for (i, path) in paths.iter().enumerate() {
                    let full = join(self.start_prefix(), path);
                    if let Some(entry) = entries.iter().find(|e| {
                        e.path == full && matches!(e.mode, EntryMode::File | EntryMode::Executable)
                    }) {
                        wanted.push(entry.clone());
                        slots.push(i);
                    }
                }
                if !wanted.is_empty() {
                    sources.with(root, reach, |t| {
                        t.read_each(commit, &wanted, &mut |i, bytes| {
                            out[slots[i]] = Some(bytes);
                            true
                        })?;
                        Ok(())
                    })?;
                }
            }
        }
        Ok(out)
    }

    /// The skills at `dirs` (each below the start, `.` for the start itself), read at the
    /// listed version in one batched read, in the order given. `label` names the source.
    ///
    /// # Errors
    /// As [`take`].
    pub fn take(
        &self,
        root: &Root,
        label: &str,
        sources: &Sources<'_>,
        dirs: &[String],
    ) -> Result<Vec<SkillTree>, Error> {
        match &self.held {
            Held::Local(tree) => dirs
                .iter()
                .map(|dir| {
                    let prefix = if dir == "." {
                        String::new()
                    } else {
                        format!("{dir}/")
                    };
                    let files = tree
                        .files()
                        .iter()
                        .filter_map(|f| {
                            f.path.strip_prefix(&prefix).map(|rel| FileNode {
                                path: rel.to_owned(),
                                data: f.data.clone(),
                                executable: f.executable,
                            })
                        })
                        .collect();
                    Ok(SkillTree::from_files(files)?)
                })
                .collect(),
            Held::Remote {
                reach,
                commit,
                entries,
            } => {
                let mut wanted = Vec::new();
                let mut owner = Vec::new();
                for (k, dir) in dirs.iter().enumerate() {
                    // The skill's directory from the source's root (`.` for the root).
                    let full = match (self.start.as_str(), dir.as_str()) {
                        (start, ".") => start.to_owned(),
                        (".", dir) => dir.to_owned(),
                        (start, dir) => format!("{start}/{dir}"),
                    };
                    for (rel, entry) in pick(label, entries, &full, &commit.revision)? {
                        wanted.push((rel, entry));
                        owner.push(k);
                    }
                }
                let mut files: Vec<Vec<FileNode>> = vec![Vec::new(); dirs.len()];
                let picked: Vec<asv_remote::TreeEntry> =
                    wanted.iter().map(|(_, e)| e.clone()).collect();
                let mut failure = None;
                sources.with(root, reach, |t| {
                    t.read_each(commit, &picked, &mut |i, bytes| {
                        match asv_skilltree::FileData::arrived(bytes) {
                            Ok(data) => {
                                let (rel, entry) = &wanted[i];
                                files[owner[i]].push(FileNode {
                                    path: rel.clone(),
                                    data,
                                    executable: entry.mode == EntryMode::Executable,
                                });
                                true
                            }
                            Err(e) => {
                                failure = Some(e);
                                false
                            }
                        }
                    })?;
                    Ok(())
                })?;
                if let Some(e) = failure {
                    return Err(e.into());
                }
                files
                    .into_iter()
                    .map(|f| Ok(SkillTree::from_files(f)?))
                    .collect()
            }
        }
    }

    /// The start as a prefix of paths from the root (`""` for the root).
    fn start_prefix(&self) -> &str {
        if self.start == "." { "" } else { &self.start }
    }
}

/// `path` (from the source's root) below `start`; `None` when it is not below it.
fn below_start<'p>(start: &str, path: &'p str) -> Option<&'p str> {
    if start == "." {
        return Some(path);
    }
    path.strip_prefix(start)?.strip_prefix('/')
}

/// Lists `source` at `at` from the directory `start` (issue 31 §1): a repository's tree at
/// the commit `at` names, or a local directory as git would commit it (its `.gitignore`
/// honoured, `node_modules` not walked into).
///
/// # Errors
/// As [`take`]; [`Error::NotInSource`] when nothing is below `start`.
pub fn list(
    root: &Root,
    source: &Source,
    start: &str,
    at: At<'_>,
    sources: &Sources<'_>,
) -> Result<Listed, Error> {
    let start = check_source_path(start)?.to_owned();
    let reach = match (source, at) {
        (Source::Local(dir), At::Now) => {
            let taken = take_local_pruned(root, dir, &start)?;
            return Ok(Listed {
                revision: taken.revision,
                reference: None,
                tag: None,
                start,
                held: Held::Local(taken.tree),
            });
        }
        (Source::Local(dir), _) => Reach::LocalGit(dir.clone()),
        (Source::Remote(spec), _) => Reach::Remote(spec.clone()),
    };
    let label = source.as_str();
    let (commit, reference, tag, entries) = sources.with(root, &reach, |t| {
        let (commit, reference, tag) = match at {
            At::Revision(revision) => (pinned_commit(revision), None, None),
            At::Ref(reference) => {
                let (commit, tag) = commit_at(t, label, reference)?;
                (commit, Some(reference.to_owned()), tag)
            }
            At::DefaultBranch | At::Now => {
                let branch = t.default_branch()?;
                (t.resolve(&branch)?, Some(branch), None)
            }
        };
        if Revision::parse(&commit.revision, commit.format).is_none() {
            return Err(Error::NotACommit {
                repository: label.to_owned(),
                answered: commit.revision,
            });
        }
        let entries = t.list(&commit)?;
        Ok((commit, reference, tag, entries))
    })?;
    let entries: Vec<asv_remote::TreeEntry> = entries
        .into_iter()
        .filter(|e| below_start(&start, &e.path).is_some())
        .collect();
    if entries.iter().all(|e| e.mode == EntryMode::Tree) {
        return Err(Error::NotInSource {
            repository: label.to_owned(),
            path: start,
            revision: commit.revision,
        });
    }
    Ok(Listed {
        revision: commit.revision.clone(),
        reference,
        tag,
        start,
        held: Held::Remote {
            reach,
            commit,
            entries,
        },
    })
}

/// The commit a lock pins by its id: SHA-256 when the id has 64 hex digits, else SHA-1.
pub(crate) fn pinned_commit(revision: &str) -> Commit {
    Commit {
        revision: revision.to_owned(),
        format: if revision.len() == 64 {
            ObjectFormat::Sha256
        } else {
            ObjectFormat::Sha1
        },
    }
}
