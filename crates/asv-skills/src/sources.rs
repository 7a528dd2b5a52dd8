//! The sources one run reaches, each reached once (issue 30 §2).
//!
//! A run that reads many skills of one source (`skill add --all`, `skill outdated`, `skill
//! pull` of every import) used to open a transport per skill: a temporary repository, a ref
//! looked up and a commit fetched each time. [`Sources`] keeps one transport per source for
//! the whole run, and within it the answers that do not change while a run lasts: the default
//! branch, the commit each ref named when first asked, the tag list. A commit is so fetched
//! and listed once per run however many skills are read at it, and every skill that follows
//! one ref sees the same commit.
//!
//! Refusals are never kept: a transport that refused goes on refusing as it does on its own
//! (a git source stopped by a limit refuses everything after).

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::{Arc, Mutex, PoisonError};

use asv_fs::Root;
use asv_remote::{Commit, Options, Tag, Transport, TreeEntry};

use crate::error::{Error, SourceProblem};

/// A transport and what it answered this run.
struct Reached {
    transport: Box<dyn Transport>,
    branch: Option<String>,
    refs: BTreeMap<String, Commit>,
    tags: Option<Option<Vec<Tag>>>,
}

impl Transport for Reached {
    fn default_branch(&mut self) -> asv_remote::Result<String> {
        if let Some(branch) = &self.branch {
            return Ok(branch.clone());
        }
        let branch = self.transport.default_branch()?;
        self.branch = Some(branch.clone());
        Ok(branch)
    }

    fn resolve(&mut self, reference: &str) -> asv_remote::Result<Commit> {
        if let Some(commit) = self.refs.get(reference) {
            return Ok(commit.clone());
        }
        let commit = self.transport.resolve(reference)?;
        self.refs.insert(reference.to_owned(), commit.clone());
        Ok(commit)
    }

    fn tags(&mut self) -> asv_remote::Result<Option<Vec<Tag>>> {
        if let Some(tags) = &self.tags {
            return Ok(tags.clone());
        }
        let tags = self.transport.tags()?;
        self.tags = Some(tags.clone());
        Ok(tags)
    }

    fn known_tag(&mut self, name: &str) -> asv_remote::Result<Option<Option<String>>> {
        self.transport.known_tag(name)
    }

    fn list(&mut self, commit: &Commit) -> asv_remote::Result<Vec<TreeEntry>> {
        self.transport.list(commit)
    }

    fn list_under(&mut self, commit: &Commit, path: &str) -> asv_remote::Result<Vec<TreeEntry>> {
        self.transport.list_under(commit, path)
    }

    fn read(&mut self, commit: &Commit, entry: &TreeEntry) -> asv_remote::Result<Vec<u8>> {
        self.transport.read(commit, entry)
    }

    fn read_each(
        &mut self,
        commit: &Commit,
        entries: &[TreeEntry],
        each: &mut dyn FnMut(usize, Vec<u8>) -> bool,
    ) -> asv_remote::Result<()> {
        self.transport.read_each(commit, entries, each)
    }

    fn tree_id(
        &mut self,
        commit: &Commit,
        path: &str,
    ) -> asv_remote::Result<Option<Option<String>>> {
        self.transport.tree_id(commit, path)
    }

    fn hint(&mut self, revisions: &[String]) {
        self.transport.hint(revisions);
    }

    fn provenance(
        &mut self,
        commit: &Commit,
        reference: Option<&str>,
    ) -> asv_remote::Result<Option<asv_remote::Provenance>> {
        self.transport.provenance(commit, reference)
    }
}

/// Which transport a source needs: a repository (`owner/repo` or a git URL), or a local git
/// repository at the path given (from the root, or absolute).
#[derive(Debug, Clone)]
pub(crate) enum Reach {
    /// `owner/repo` or a git URL, as written.
    Remote(asv_model::source::RepositorySpec),
    /// A local git repository, as written.
    LocalGit(String),
}

impl Reach {
    /// The source as a key: whether it is remote, and as written.
    pub(crate) fn key(&self) -> (bool, String) {
        match self {
            Reach::Remote(spec) => (true, spec.as_str().to_owned()),
            Reach::LocalGit(dir) => (false, dir.clone()),
        }
    }
}

/// The sources of one run: one transport each, opened when first needed and kept until the
/// run ends (its temporary repository goes with it).
pub struct Sources<'o> {
    options: &'o Options,
    open: Mutex<BTreeMap<(bool, String), Shared>>,
}

/// One source's transport, shared by the threads of a run.
type Shared = Arc<Mutex<Reached>>;

impl std::fmt::Debug for Sources<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Sources").finish_non_exhaustive()
    }
}

impl<'o> Sources<'o> {
    /// No source reached yet; each is reached with `options`.
    pub fn new(options: &'o Options) -> Sources<'o> {
        Sources {
            options,
            open: Mutex::new(BTreeMap::new()),
        }
    }

    /// How the transports are reached.
    pub(crate) fn options(&self) -> &'o Options {
        self.options
    }

    /// Runs `f` with the transport of `reach` (opened the first time), holding it for the
    /// time `f` runs: two threads of a run take turns on one source.
    ///
    /// # Errors
    /// A source whose transport cannot be opened (as [`asv_remote::transport`], or a local
    /// directory that is no git repository); what `f` returns.
    pub(crate) fn with<R>(
        &self,
        root: &Root,
        reach: &Reach,
        f: impl FnOnce(&mut dyn Transport) -> Result<R, Error>,
    ) -> Result<R, Error> {
        let key = reach.key();
        let found = self
            .open
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(&key)
            .cloned();
        let reached = match found {
            Some(reached) => reached,
            None => {
                let transport: Box<dyn Transport> = match reach {
                    Reach::Remote(spec) => asv_remote::transport(spec, self.options)?,
                    Reach::LocalGit(dir) => Box::new(local_git(root, dir)?),
                };
                let reached = Arc::new(Mutex::new(Reached {
                    transport,
                    branch: None,
                    refs: BTreeMap::new(),
                    tags: None,
                }));
                self.open
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .entry(key)
                    .or_insert(reached)
                    .clone()
            }
        };
        let mut reached = reached.lock().unwrap_or_else(PoisonError::into_inner);
        f(&mut *reached)
    }
}

/// Whether `source` (a local directory's tree) is a git repository: a work tree with its
/// `.git`, or a bare repository.
pub(crate) fn is_git_repository(source: &Root) -> Result<bool, Error> {
    Ok(source.kind(".git")?.is_some()
        || (source.kind("HEAD")? == Some(asv_fs::EntryKind::File)
            && source.kind("objects")? == Some(asv_fs::EntryKind::Directory)))
}

/// The git transport over the local git repository `dir` (from the root of `root`, or
/// absolute).
fn local_git(root: &Root, dir: &str) -> Result<asv_remote::git::Git, Error> {
    let base = root.root().join(Path::new(dir));
    let source = Root::open(&base).map_err(|_| Error::Repository {
        given: dir.to_owned(),
        problem: SourceProblem::NoSuchDirectory,
    })?;
    if !is_git_repository(&source)? {
        return Err(Error::RefWithoutRepository {
            given: dir.to_owned(),
        });
    }
    let url = std::path::absolute(&base).map_err(|e| Error::Repository {
        given: dir.to_owned(),
        problem: SourceProblem::Unresolvable(e),
    })?;
    // `..` taken out lexically, so the path git is given (and a refusal shows) reads plainly.
    let mut plain = std::path::PathBuf::new();
    for part in url.components() {
        match part {
            std::path::Component::CurDir => {}
            std::path::Component::ParentDir => {
                plain.pop();
            }
            other => plain.push(other),
        }
    }
    let url = plain;
    let url = url.to_str().ok_or_else(|| Error::Repository {
        given: dir.to_owned(),
        problem: SourceProblem::NotUtf8,
    })?;
    Ok(asv_remote::git::Git::local(url)?)
}
