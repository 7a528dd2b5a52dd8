//! The generic git transport.
//!
//! A source written as `ssh://…`, `user@host:path` or `https://…` is read through the
//! installed `git`, locked down: no shell, standard input closed, no prompt of any kind
//! (`GIT_TERMINAL_PROMPT=0`, no askpass program, OpenSSH in batch mode), hooks, LFS smudge
//! and submodules off, and only the `https` and `ssh` transports allowed — so a redirect or a
//! `url.<base>.insteadOf` rewrite cannot lead git to a local path, `file://`, `git://` or a
//! remote helper. The user's own git and OpenSSH configuration is otherwise kept: an SSH agent,
//! keys, `known_hosts` and credential helpers work as they do for plain git.
//!
//! Everything happens in one temporary bare repository per source, in a directory under the
//! OS temporary directory named with the prefix [`TEMP_PREFIX`] and this process's id
//! (`agentic-skill-git-<pid>-<random>`): depth 1, blob filter, each file's blob fetched when
//! it is read — the blobs of many files at once, in one batched conversation (`batch`, issue
//! 30 §2), and a commit's type, trees and files all read through one kept
//! `git cat-file --batch` (`conversation`, `trees`). A repository on this machine laid out plainly
//! is not fetched from at all: its objects are read where they lie (`borrow`). A source kept
//! for a whole run fetches and lists each commit once. A run ended by
//! SIGINT or SIGTERM removes its directory before it ends (`interrupt`); a killed run cannot,
//! so a new source first removes those of the current user whose process is gone. Git's
//! standard error is captured and never shown; a failure is said in this tool's own words.
//!
//! Every git process starts in a process group of its own. The limits of one source
//! ([`GitLimits`]: [`TIME_LIMIT`] in all, [`REPOSITORY_LIMIT`] for the temporary repository,
//! [`FILE_LIMIT`] for one file, [`TOTAL_LIMIT`] for all files read) are watched while git
//! runs; at a limit, or when git fails, the whole process group is killed and the temporary
//! repository removed, and the source refuses everything after. If the group cannot be
//! confirmed stopped, the temporary repository is kept (something may still write in it) and
//! the refusal names that exact directory and the process group id. Watching and stopping a
//! process group is the `process` module's.

use crate::error::{FileAt, GitFailure, GitProblem, Reached, RefProblem, Step, UrlProblem};
use crate::ids::{check_readable, is_hex_id, parse_entry};
use crate::process::{Cut, Outcome, become_subreaper, dir_size, supervise};
use crate::{interrupt, platform};
use std::ffi::{OsStr, OsString};
use std::fmt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use asv_model::source::ObjectFormat;

use crate::{Commit, Error, Result, Tag, Transport, TreeEntry, blob_id};

mod ahead;
mod batch;
mod borrow;
mod conversation;
mod objects;
mod sweep;
mod transport;
mod trees;

#[cfg(test)]
use sweep::creator_of;
pub(crate) use sweep::sweep_stale;

/// The most time all git processes of one source may take together.
pub const TIME_LIMIT: Duration = Duration::from_secs(120);
/// The most bytes the temporary repository of one source may hold.
pub const REPOSITORY_LIMIT: u64 = 256 * 1024 * 1024;
/// The most bytes read for one file.
pub const FILE_LIMIT: u64 = 1024 * 1024;
/// The most bytes read for all files of one source together.
pub const TOTAL_LIMIT: u64 = 256 * 1024 * 1024;
/// The prefix of the temporary directory holding a source's bare repository.
pub const TEMP_PREFIX: &str = "agentic-skill-git-";
/// The name of the empty file a kept temporary directory holds (followed by the id of the
/// process group that may still write in it): [`sweep_stale`] leaves it while that group lives.
const GROUP_MARK: &str = "process-group-";
/// The SSH command git runs: OpenSSH, never asking anything.
pub const SSH_COMMAND: &str = "ssh -o BatchMode=yes";

/// The most bytes taken from one `git ls-remote` answer (a few refs are asked for).
const REFS_LIMIT: u64 = 1024 * 1024;
/// The most bytes taken from one tree listing.
const LISTING_LIMIT: u64 = 64 * 1024 * 1024;
/// The most bytes taken from any other git answer.
const SMALL_LIMIT: u64 = 64 * 1024;
/// The bare repository's name inside the temporary directory.
const REPOSITORY: &str = "repository.git";
/// The name of the source's remote in it (not `origin`: a user's global `remote.origin.*`
/// settings stay out of it). Blobs are fetched from it lazily, as from a partial clone's.
const REMOTE: &str = "agentic-skill-vendor-source";

/// Writes the bare repository `repository` (a path not yet there) in `format`: what
/// `git init --quiet --bare --template=` writes, with the configuration of the source's remote
/// at `url` (fetched from as a partial clone's promisor remote, blobs left out). The URL is
/// written as a quoted value, `"` and `\` escaped; it holds no line break or control
/// character ([`Git::new`] refuses those).
// The source's own temporary directory, never a user's tree: `asv_fs::Root` does not apply.
#[allow(clippy::disallowed_methods)]
fn write_repository(
    repository: &Path,
    format: ObjectFormat,
    url: &str,
) -> std::result::Result<(), std::io::ErrorKind> {
    let io = |e: std::io::Error| e.kind();
    for sub in ["objects/info", "objects/pack", "refs/heads", "refs/tags"] {
        std::fs::create_dir_all(repository.join(sub)).map_err(io)?;
    }
    std::fs::write(repository.join("HEAD"), "ref: refs/heads/main\n").map_err(io)?;
    let (version, extensions) = match format {
        ObjectFormat::Sha1 => ("0", ""),
        ObjectFormat::Sha256 => ("1", "[extensions]\n\tobjectformat = sha256\n"),
    };
    let quoted = url.replace('\\', "\\\\").replace('"', "\\\"");
    let config = format!(
        "[core]\n\trepositoryformatversion = {version}\n\tfilemode = true\n\tbare = true\n\
         {extensions}[remote \"{REMOTE}\"]\n\turl = \"{quoted}\"\n\tpromisor = true\n\
         \tpartialclonefilter = blob:none\n"
    );
    std::fs::write(repository.join("config"), config).map_err(io)
}

/// The arguments of a `git fetch` of `what` (a commit, an object or a ref) from the source's
/// remote into the temporary repository: depth 1, blobs left out, no tags, no submodules.
fn shallow_fetch(what: &str) -> [&str; 9] {
    [
        "fetch",
        "--quiet",
        "--no-tags",
        "--no-recurse-submodules",
        "--depth=1",
        "--filter=blob:none",
        "--",
        REMOTE,
        what,
    ]
}

/// The configuration every git process runs with (`-c name=value`), after the user's own.
const CONFIG: &[&str] = &[
    // Only https and ssh, whatever a redirect or an insteadOf rewrite says.
    "protocol.allow=never",
    "protocol.https.allow=always",
    "protocol.ssh.allow=always",
    "protocol.file.allow=never",
    // No prompt from git, an askpass program or a credential helper that honours this.
    "core.askPass=",
    "credential.interactive=false",
    // `GIT_SSH_COMMAND` is set too; this covers a git that reads only the configuration.
    "core.sshCommand=ssh -o BatchMode=yes",
    // Nothing the repository or a filter could run, no submodules.
    "core.hooksPath=/dev/null",
    "core.fsmonitor=false",
    "filter.lfs.smudge=",
    "filter.lfs.process=",
    "filter.lfs.required=false",
    "submodule.recurse=false",
    "fetch.recurseSubmodules=false",
    // No background work, least of all a detached `gc` leaving the process group.
    "gc.auto=0",
    "gc.autoDetach=false",
    "maintenance.auto=false",
    "fetch.writeCommitGraph=false",
    // A SHA-1 repository is created as one whatever the user's default.
    "init.defaultObjectFormat=sha1",
];

/// Environment variables removed from every git process: they would point git at another
/// repository, turn lazy fetching off, or bring back a prompt. (A batched read turns lazy
/// fetching off itself for its one `git cat-file --batch`, to learn which blobs are missing.)
const ENV_REMOVED: &[&str] = &[
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_COMMON_DIR",
    "GIT_INDEX_FILE",
    "GIT_OBJECT_DIRECTORY",
    "GIT_ALTERNATE_OBJECT_DIRECTORIES",
    "GIT_NAMESPACE",
    "GIT_SHALLOW_FILE",
    "GIT_QUARANTINE_PATH",
    "GIT_REPLACE_REF_BASE",
    "GIT_NO_LAZY_FETCH",
    "GIT_DEFAULT_HASH",
    "GIT_DISCOVERY_ACROSS_FILESYSTEM",
    "GIT_ASKPASS",
    "SSH_ASKPASS",
    "SSH_ASKPASS_REQUIRE",
    "GIT_SSH",
    "LANGUAGE",
];

/// The limits of one source.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GitLimits {
    /// The most time all git processes may take together.
    pub time: Duration,
    /// The most bytes the temporary repository may hold.
    pub repository: u64,
    /// The most bytes of one file.
    pub file: u64,
    /// The most bytes of all files read.
    pub total: u64,
}

impl Default for GitLimits {
    fn default() -> GitLimits {
        GitLimits {
            time: TIME_LIMIT,
            repository: REPOSITORY_LIMIT,
            file: FILE_LIMIT,
            total: TOTAL_LIMIT,
        }
    }
}

/// Where a source is.
#[derive(Debug)]
enum State {
    /// The temporary directory exists; `format` is set once the bare repository in it does.
    Ready {
        dir: tempfile::TempDir,
        format: Option<ObjectFormat>,
    },
    /// A limit or a failure stopped the source; everything after answers with this.
    Stopped { problem: GitProblem },
}

/// A generic git source, read through the installed `git` in a temporary bare repository.
pub struct Git {
    url: String,
    limits: GitLimits,
    env: Vec<(OsString, OsString)>,
    state: State,
    /// Time taken by git processes so far.
    spent: Duration,
    /// Bytes of files read so far.
    read: u64,
    /// Commits fetched into the repository and checked to be commits.
    fetched: Vec<String>,
    /// Commits fetched into the repository, not yet checked (taken beside another on a hint).
    present: Vec<String>,
    /// Commits a caller said it is about to ask about ([`Transport::hint`]).
    hinted: Vec<String>,
    /// The object type of fetched commits checked beside another, until each is asked for.
    kinds: std::collections::BTreeMap<String, String>,
    /// The listing of each commit listed so far (issue 30 §2: listed once per run).
    listings: std::collections::BTreeMap<String, Vec<TreeEntry>>,
    /// The listing below one path of a commit not listed whole, by commit and path (§3).
    subtrees: std::collections::BTreeMap<(String, String), Vec<TreeEntry>>,
    /// The root tree id of each commit asked for.
    roots: std::collections::BTreeMap<String, String>,
    /// Blob ids fetched into the repository by a batched read.
    blobs: std::collections::BTreeSet<String>,
    /// Whether a commit's fetch was seen to leave the blobs out (the server honoured
    /// `--filter=blob:none`): a batched read then fetches them before it reads, rather than
    /// finding them missing first (`batch`). A hint only: what is read is judged either way.
    filtered: bool,
    /// The raw bytes of the commit and tag objects read so far, checked against their ids
    /// (`objects`, issue 33 §1).
    objects: std::collections::BTreeMap<String, Vec<u8>>,
    /// What the server listed for each tag looked up: its own id and, for an annotated tag,
    /// the commit it peels to; `None` for a name looked up that is no tag.
    tag_refs: std::collections::BTreeMap<String, Option<(String, Option<String>)>>,
    /// Whether every tag was listed ([`Transport::tags`]): a name not among them is no tag.
    tags_listed: bool,
    /// The process group of the last git process started.
    last_group: Option<u32>,
    /// Whether git's `file` protocol is allowed (a repository on this machine, [`Git::local`]).
    file_protocol: bool,
    /// The object directory of a repository on this machine, read in place (`borrow`).
    borrow: Option<OsString>,
    /// A branch being fetched while its name is looked up (`ahead`).
    ahead: Option<ahead::Ahead>,
    /// Told when a `git fetch` starts and ends: the one wait whose length nobody can tell.
    progress: crate::Progress,
    /// The `git cat-file --batch` kept for reading a commit, its trees and its files
    /// (`conversation`, issue 30 §2).
    conversation: Option<crate::session::Session<conversation::Reply>>,
    /// The tree objects read by a walk along one path ([`Transport::tree_id`]), by id.
    trees: std::collections::BTreeMap<String, trees::Walk>,
}

impl fmt::Debug for Git {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Git")
            .field("url", &self.url)
            .field("limits", &self.limits)
            .field("directory", &self.temporary_directory())
            .field("spent", &self.spent)
            .field("read", &self.read)
            .finish_non_exhaustive()
    }
}

impl Drop for Git {
    /// Removes the temporary directory, then takes it out of what a signal would remove.
    fn drop(&mut self) {
        // Git is stopped before its directory goes; a group not confirmed gone keeps it.
        if let Some((group, step)) = self.drop_ahead() {
            let _ = self.retain(group, &step, None);
        }
        self.drop_conversation();
        let state = std::mem::replace(
            &mut self.state,
            State::Stopped {
                problem: GitProblem::GitMissing,
            },
        );
        if let State::Ready { dir, .. } = state {
            let path = dir.path().to_owned();
            let _ = dir.close();
            interrupt::forget_dir(&path);
        }
    }
}

impl Git {
    /// The source at `url` (`ssh://…`, `user@host:path` or `https://…`, already judged by the
    /// caller), with a new temporary directory under the OS temporary directory.
    ///
    /// # Errors
    /// A URL that is empty, option-like or holds whitespace or a control character (the
    /// caller refuses those first; this is a second guard, since the URL becomes an argument);
    /// a temporary directory that cannot be created.
    pub fn new(url: &str) -> Result<Git> {
        if url.is_empty()
            || url.starts_with('-')
            || url.chars().any(|c| c.is_whitespace() || c.is_control())
        {
            return Err(Error::GitUrl {
                url: url.to_owned(),
                problem: UrlProblem::Unusable,
            });
        }
        let parent = std::env::temp_dir();
        // What killed runs left is swept before a new directory is made (issue 27 §6).
        sweep_stale(&parent);
        let dir = tempfile::Builder::new()
            .prefix(&format!("{TEMP_PREFIX}{}-", platform::this_process()))
            .tempdir_in(&parent)
            .map_err(|e| Error::Git {
                url: url.to_owned(),
                problem: Box::new(GitProblem::TempDir {
                    parent: std::env::temp_dir(),
                    error: e.kind(),
                }),
            })?;
        // Removed on SIGINT/SIGTERM too, not only when dropped (issue 31 §3).
        interrupt::register_dir(dir.path());
        Ok(Git {
            url: url.to_owned(),
            limits: GitLimits::default(),
            env: Vec::new(),
            state: State::Ready { dir, format: None },
            spent: Duration::ZERO,
            read: 0,
            fetched: Vec::new(),
            present: Vec::new(),
            hinted: Vec::new(),
            kinds: std::collections::BTreeMap::new(),
            listings: std::collections::BTreeMap::new(),
            subtrees: std::collections::BTreeMap::new(),
            roots: std::collections::BTreeMap::new(),
            blobs: std::collections::BTreeSet::new(),
            filtered: false,
            objects: std::collections::BTreeMap::new(),
            tag_refs: std::collections::BTreeMap::new(),
            tags_listed: false,
            last_group: None,
            file_protocol: false,
            borrow: None,
            ahead: None,
            progress: crate::Progress::none(),
            conversation: None,
            trees: std::collections::BTreeMap::new(),
        })
    }

    /// A git repository on this machine at the absolute path `path`, looked up exactly as a
    /// remote one is, with git's `file` protocol allowed for it alone; its objects are read in
    /// place when its layout is plain (`borrow`), else fetched into the temporary bare
    /// repository. Its working tree is never read.
    ///
    /// # Errors
    /// As [`Git::new`]; a path that is not absolute.
    pub fn local(path: &str) -> Result<Git> {
        if !path.starts_with('/') {
            return Err(Error::GitUrl {
                url: path.to_owned(),
                problem: UrlProblem::NotAbsolute,
            });
        }
        let mut git = Git::new(path)?;
        git.file_protocol = true;
        git.borrow = borrow::object_directory(path);
        Ok(git)
    }

    /// The same source with other limits. Built only with the `test-hooks` feature: a build
    /// without it keeps the documented ones.
    #[doc(hidden)]
    #[cfg(feature = "test-hooks")]
    #[must_use]
    pub fn with_limits(mut self, limits: GitLimits) -> Git {
        self.limits = limits;
        self
    }

    /// The same source with environment variables added to every git process (a test's CA
    /// bundle, a test's configuration files). Built only with the `test-hooks` feature: a
    /// build without it has no way to change what git runs with.
    #[doc(hidden)]
    #[cfg(feature = "test-hooks")]
    #[must_use]
    pub fn with_env(mut self, env: Vec<(OsString, OsString)>) -> Git {
        self.env = env;
        self
    }

    /// The same source, its fetches reported to `progress`.
    #[must_use]
    pub fn with_progress(mut self, progress: crate::Progress) -> Git {
        self.progress = progress;
        self
    }

    /// The source's URL, as given.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// The limits in force.
    pub fn limits(&self) -> GitLimits {
        self.limits
    }

    /// The temporary directory holding the bare repository, while it exists.
    pub fn temporary_directory(&self) -> Option<&Path> {
        match &self.state {
            State::Ready { dir, .. } => Some(dir.path()),
            State::Stopped { .. } => None,
        }
    }

    /// The process group id of the last git process started (its pid), if any.
    pub fn last_process_group(&self) -> Option<u32> {
        self.last_group
    }

    /// The refusal `problem` of this source.
    fn error(&self, problem: GitProblem) -> Error {
        Error::Git {
            url: self.url.clone(),
            problem: Box::new(problem),
        }
    }

    /// The temporary directory, or the refusal of a stopped source.
    fn dir(&self) -> Result<PathBuf> {
        match &self.state {
            State::Ready { dir, .. } => Ok(dir.path().to_owned()),
            State::Stopped { problem } => Err(Error::GitStopped {
                url: self.url.clone(),
                earlier: Box::new(problem.clone()),
            }),
        }
    }

    /// Why `file` was cut at `cap` bytes: the per-file limit when that was the cap, else what
    /// was left of the total (a single read and a batch say it alike).
    fn over_cap(&self, file: FileAt, cap: u64) -> GitProblem {
        if cap == self.limits.file {
            GitProblem::FileTooLarge {
                file,
                limit: self.limits.file,
            }
        } else {
            GitProblem::TotalReached {
                file,
                limit: self.limits.total,
            }
        }
    }

    /// Stops the source: removes the temporary directory and answers with `problem` from now
    /// on.
    fn stop(&mut self, problem: GitProblem) -> Error {
        if let Some((group, step)) = self.drop_ahead() {
            return self.retain(group, &step, None);
        }
        self.drop_conversation();
        let previous = std::mem::replace(
            &mut self.state,
            State::Stopped {
                problem: problem.clone(),
            },
        );
        if let State::Ready { dir, .. } = previous {
            let path = dir.path().to_owned();
            let closed = dir.close();
            interrupt::forget_dir(&path);
            if let Err(e) = closed {
                let problem = GitProblem::NotRemoved {
                    cause: Box::new(problem),
                    dir: path,
                    error: e.kind(),
                };
                self.state = State::Stopped {
                    problem: problem.clone(),
                };
                return self.error(problem);
            }
        }
        self.error(problem)
    }

    /// Stops the source keeping the temporary directory: process group `group`, stopped at
    /// `step` (at the limit `reached`, or because it did not end cleanly), may still run.
    fn retain(&mut self, group: u32, step: &Step, reached: Option<Reached>) -> Error {
        // A fetch started ahead may write in the directory kept too: stopped with the rest.
        let _ = self.drop_ahead();
        self.drop_conversation();
        // A placeholder, replaced below once the kept directory is known.
        let previous = std::mem::replace(
            &mut self.state,
            State::Stopped {
                problem: GitProblem::GitMissing,
            },
        );
        let kept = match previous {
            State::Ready { dir, .. } => {
                let dir = dir.keep();
                interrupt::forget_dir(&dir);
                // Marked with the group that may still write in it: a later sweep leaves it
                // while that group lives, though this process is gone by then. Best effort:
                // without the mark a sweep takes it for a killed run's once this process ends.
                let _ = std::fs::File::create(dir.join(format!("{GROUP_MARK}{group}")));
                Some(dir)
            }
            State::Stopped { .. } => None,
        };
        let problem = GitProblem::NotStopped {
            step: step.clone(),
            reached,
            group,
            kept,
        };
        self.state = State::Stopped {
            problem: problem.clone(),
        };
        self.error(problem)
    }

    /// A git command: no shell, no stdin, its own process group, locked down.
    fn command(&self, dir: &Path, repository: bool) -> Command {
        let mut command = Command::new("git");
        if repository {
            command.arg(format!("--git-dir={}", dir.join(REPOSITORY).display()));
            command.current_dir(dir.join(REPOSITORY));
        } else {
            command.current_dir(dir);
        }
        for setting in CONFIG {
            command.arg("-c").arg(setting);
        }
        if self.file_protocol {
            // Later settings win: this one source is a path on this machine.
            command.arg("-c").arg("protocol.file.allow=always");
        }
        for name in ENV_REMOVED {
            command.env_remove(name);
        }
        // No repository is looked for above the temporary directory.
        let ceiling = dir.parent().unwrap_or(dir);
        command
            .env("GIT_CEILING_DIRECTORIES", ceiling)
            .env("GIT_TERMINAL_PROMPT", "0")
            .env("GIT_SSH_COMMAND", SSH_COMMAND)
            .env("GIT_SSH_VARIANT", "ssh")
            .env("GCM_INTERACTIVE", "never")
            .env("GIT_NO_REPLACE_OBJECTS", "1")
            .env("LC_ALL", "C");
        for (name, value) in &self.env {
            command.env(name, value);
        }
        command
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        crate::platform::in_own_group(&mut command);
        command
    }

    /// Runs git with `args` (in the bare repository when `repository`), its standard output
    /// taken up to `cap` bytes, the temporary repository measured while it runs when `watch`.
    /// A failure to start git stops the source, and so does a group that cannot be confirmed
    /// stopped; a cut is handed back for the caller to stop the source with its own words.
    fn run<S: AsRef<OsStr>>(
        &mut self,
        args: &[S],
        repository: bool,
        cap: u64,
        watch: bool,
        what: &Step,
    ) -> Result<Outcome> {
        self.run_with(args, None, repository, cap, watch, what)
    }

    /// As [`Git::run`], with `input` written to git's standard input (closed after it) when
    /// given: the object names of a batched read (issue 30 §2).
    fn run_with<S: AsRef<OsStr>>(
        &mut self,
        args: &[S],
        input: Option<Vec<u8>>,
        repository: bool,
        cap: u64,
        watch: bool,
        what: &Step,
    ) -> Result<Outcome> {
        let (mut child, dir, remaining) = self.start(args, input, repository, &[], what)?;
        let started = Instant::now();
        let (outcome, confirmed) = supervise(
            &mut child,
            &dir,
            remaining,
            cap,
            watch,
            self.limits.repository,
        );
        self.settle(
            child.id(),
            &dir,
            outcome,
            confirmed,
            watch,
            started.elapsed(),
            what,
        )
    }

    /// Starts git with `args` (in the bare repository when `repository`), `input` written to
    /// its standard input when given, `env` added to its environment: the child, the
    /// temporary directory and the time left to the source. A failure to start git stops the
    /// source.
    fn start<S: AsRef<OsStr>>(
        &mut self,
        args: &[S],
        input: Option<Vec<u8>>,
        repository: bool,
        env: &[(&str, &str)],
        what: &Step,
    ) -> Result<(std::process::Child, PathBuf, Duration)> {
        let (mut child, dir, remaining) =
            self.spawn(args, input.is_some(), repository, env, what)?;
        if let (Some(input), Some(mut stdin)) = (input, child.stdin.take()) {
            // Written from a thread of its own: git answers while it reads, and a pipe full
            // both ways would stall. A write to a group killed at a limit fails and ends it.
            std::thread::spawn(move || {
                use std::io::Write as _;
                let _ = stdin.write_all(&input);
            });
        }
        Ok((child, dir, remaining))
    }

    /// Starts git with `args` as [`Git::start`] does, its standard input a pipe left to the
    /// caller when `stdin`, else closed.
    fn spawn<S: AsRef<OsStr>>(
        &mut self,
        args: &[S],
        stdin: bool,
        repository: bool,
        env: &[(&str, &str)],
        what: &Step,
    ) -> Result<(std::process::Child, PathBuf, Duration)> {
        let dir = self.dir()?;
        let remaining = self.limits.time.saturating_sub(self.spent);
        if remaining.is_zero() {
            return Err(self.limit_error(Cut::Time, what));
        }
        let mut command = self.command(&dir, repository);
        command.args(args);
        if let Some(objects) = &self.borrow
            && repository
            && borrow::reads_by_name(args)
        {
            command.env(borrow::ALTERNATES, objects);
        }
        for (name, value) in env {
            command.env(name, value);
        }
        if stdin {
            command.stdin(Stdio::piped());
        }
        become_subreaper();
        let child = match interrupt::spawn(&mut command) {
            Ok(child) => child,
            Err(e) => {
                let problem = if e.kind() == std::io::ErrorKind::NotFound {
                    GitProblem::GitMissing
                } else {
                    GitProblem::Spawn { error: e.kind() }
                };
                return Err(self.stop(problem));
            }
        };
        self.last_group = Some(child.id());
        Ok((child, dir, remaining))
    }

    /// What a supervised git process leaves: its time counted (`spent`, git's own), its group
    /// forgotten, the source stopped when the group could not be confirmed gone, or when it
    /// could not be watched; a cut is handed back for the caller to stop the source with its
    /// own words.
    #[allow(clippy::too_many_arguments)]
    fn settle(
        &mut self,
        group: u32,
        dir: &Path,
        outcome: Option<Outcome>,
        confirmed: bool,
        watch: bool,
        spent: Duration,
        what: &Step,
    ) -> Result<Outcome> {
        self.spent += spent;
        interrupt::forget_group(group);
        if !confirmed {
            let reached = match &outcome {
                Some(Outcome::Cut(cut)) => Some(self.reached(*cut)),
                _ => None,
            };
            return Err(self.retain(group, what, reached));
        }
        match outcome {
            Some(cut @ Outcome::Cut(_)) => Ok(cut),
            Some(ended @ Outcome::Ended(_)) => {
                // A last measure, for what was written between two looks.
                if watch && dir_size(dir) > self.limits.repository {
                    return Err(self.limit_error(Cut::Repository, what));
                }
                Ok(ended)
            }
            None => Err(self.stop(GitProblem::Unwatched { step: what.clone() })),
        }
    }

    /// Runs git and insists on success: a failure stops the source, said in this tool's words.
    fn git<S: AsRef<OsStr>>(
        &mut self,
        args: &[S],
        repository: bool,
        cap: u64,
        watch: bool,
        what: &Step,
    ) -> Result<Vec<u8>> {
        match self.run(args, repository, cap, watch, what)? {
            Outcome::Ended(finished) if finished.status.success() => Ok(finished.stdout),
            Outcome::Ended(finished) => Err(self.stop(GitProblem::Failed {
                step: what.clone(),
                failure: GitFailure::from_stderr(&finished.stderr, finished.status),
            })),
            Outcome::Cut(cut) => Err(self.limit_error(cut, what)),
        }
    }

    /// The limit a cut stopped git at.
    fn reached(&self, cut: Cut) -> Reached {
        match cut {
            Cut::Time => Reached::Time {
                limit: self.limits.time,
            },
            Cut::Repository => Reached::Repository {
                limit: self.limits.repository,
            },
            Cut::Output => Reached::Output,
        }
    }

    fn limit_error(&mut self, cut: Cut, what: &Step) -> Error {
        let reached = self.reached(cut);
        self.stop(GitProblem::Limit {
            step: what.clone(),
            reached,
        })
    }

    /// `git ls-remote [<flag>] -- <url> <patterns…>` (`flag` `--symref` or `--tags`): (object
    /// id, ref name) pairs, and the targets of symbolic refs as (target, name).
    #[allow(clippy::type_complexity)]
    fn ls_remote(
        &mut self,
        flag: Option<&str>,
        patterns: &[String],
        what: &Step,
    ) -> Result<(Vec<(String, String)>, Vec<(String, String)>)> {
        let mut args: Vec<String> = vec!["ls-remote".to_owned()];
        if let Some(flag) = flag {
            args.push(flag.to_owned());
        }
        args.push("--".to_owned());
        args.push(self.url.clone());
        args.extend(patterns.iter().cloned());
        let out = self.git(&args, false, REFS_LIMIT, false, what)?;
        let text = String::from_utf8_lossy(&out);
        let mut refs = Vec::new();
        let mut symrefs = Vec::new();
        for line in text.lines() {
            let Some((left, name)) = line.split_once('\t') else {
                return Err(self.malformed(what, line));
            };
            if let Some(target) = left.strip_prefix("ref: ") {
                symrefs.push((target.to_owned(), name.to_owned()));
            } else if is_hex_id(left, 40) || is_hex_id(left, 64) {
                refs.push((left.to_owned(), name.to_owned()));
            } else {
                return Err(self.malformed(what, line));
            }
        }
        Ok((refs, symrefs))
    }

    fn malformed(&mut self, what: &Step, line: &str) -> Error {
        self.stop(GitProblem::Malformed {
            step: what.clone(),
            line: line.to_owned(),
        })
    }

    /// The bare repository in `format`, created the first time.
    fn repository(&mut self, format: ObjectFormat) -> Result<()> {
        // A fetch still running ahead (its lookup never came) is not waited for: nothing else
        // works in the repository while it may write there.
        self.finish_ahead(None)?;
        let State::Ready { format: have, .. } = &self.state else {
            self.dir()?;
            return Ok(());
        };
        match *have {
            Some(have) if have == format => return Ok(()),
            Some(have) => {
                return Err(self.error(GitProblem::FormatMismatch {
                    asked: format,
                    have,
                }));
            }
            None => {}
        }
        // Written here rather than by `git init` and three `git config`: four git processes
        // fewer on every run (issue 30 §2), and the same files `git init --bare --template=`
        // writes, plus the source's remote.
        let dir = self.dir()?;
        if let Err(error) = write_repository(&dir.join(REPOSITORY), format, &self.url) {
            return Err(self.stop(GitProblem::Repository { dir, error }));
        }
        if let State::Ready { format: have, .. } = &mut self.state {
            *have = Some(format);
        }
        Ok(())
    }

    /// `revision` fetched into the repository (depth 1, no blobs) and checked to be a commit.
    /// The commits hinted at ([`Transport::hint`]) of the same format are asked for in the
    /// same fetch; should that fetch fail, `revision` is fetched again on its own, so a hinted
    /// commit the server no longer has changes nothing.
    fn fetch(&mut self, revision: &str, format: ObjectFormat) -> Result<()> {
        self.fetch_or_not(revision, format, false).map(|_| ())
    }

    /// As [`Git::fetch`]; with `tolerate`, a fetch git fails (the server no longer has that
    /// commit, say) is `Ok(false)` and leaves the source usable, for a caller to whom the
    /// commit is a nicety (comparing a skill's tree with its pin's, issue 30 §3).
    fn fetch_or_not(
        &mut self,
        revision: &str,
        format: ObjectFormat,
        tolerate: bool,
    ) -> Result<bool> {
        self.repository(format)?;
        if self.fetched.iter().any(|r| r == revision) {
            return Ok(true);
        }
        let what = Step::Fetch {
            revision: revision.to_owned(),
        };
        let borrowed =
            !self.present.iter().any(|r| r == revision) && self.borrowed(revision, &what)?;
        if !borrowed && !self.present.iter().any(|r| r == revision) {
            // A clone of the handle, so the step can stay open across the calls on `self`.
            let progress = self.progress.clone();
            let _step = progress.step(
                &format!(
                    "{}: fetching {}",
                    self.url,
                    asv_model::source::short(revision)
                ),
                None,
            );
            let args = shallow_fetch(revision);
            let hinted: Vec<String> = std::mem::take(&mut self.hinted)
                .into_iter()
                .filter(|h| {
                    h != revision
                        && h.len() == format.hex_len()
                        && !self.fetched.contains(h)
                        && !self.present.contains(h)
                })
                .collect();
            let mut together = false;
            if !hinted.is_empty() {
                let mut with: Vec<&str> = args.to_vec();
                with.extend(hinted.iter().map(String::as_str));
                match self.run(&with, true, SMALL_LIMIT, true, &what)? {
                    Outcome::Ended(finished) if finished.status.success() => {
                        self.note_filter(&finished.stderr);
                        together = true;
                        self.present.extend(hinted);
                    }
                    // Asked again on its own below.
                    Outcome::Ended(_) => {}
                    Outcome::Cut(cut) => return Err(self.limit_error(cut, &what)),
                }
            }
            if !together {
                match self.run(&args, true, SMALL_LIMIT, true, &what)? {
                    Outcome::Ended(finished) if finished.status.success() => {
                        self.note_filter(&finished.stderr);
                    }
                    Outcome::Ended(_) if tolerate => return Ok(false),
                    Outcome::Ended(finished) => {
                        return Err(self.stop(GitProblem::Failed {
                            step: what.clone(),
                            failure: GitFailure::from_stderr(&finished.stderr, finished.status),
                        }));
                    }
                    Outcome::Cut(cut) => return Err(self.limit_error(cut, &what)),
                }
            }
        }
        let kind = match self.kinds.remove(revision) {
            Some(kind) => kind,
            None => self.kind_of(revision, &what)?,
        };
        if kind != "commit" {
            return Err(self.error(GitProblem::NotACommit {
                revision: revision.to_owned(),
                kind,
            }));
        }
        self.present.retain(|r| r != revision);
        self.fetched.push(revision.to_owned());
        Ok(true)
    }

    /// Learns from a commit fetch's standard error whether the server honoured the blob
    /// filter: git warns when the server does not know filtering and ignores it (the default
    /// of `git upload-pack`, whose `uploadpack.allowFilter` is off), and then the blobs came
    /// with the commit. A server that filtered once is taken to filter from then on.
    fn note_filter(&mut self, stderr: &[u8]) {
        const IGNORED: &[u8] = b"filtering not recognized by server";
        if !stderr.windows(IGNORED.len()).any(|w| w == IGNORED) {
            self.filtered = true;
        }
    }

    /// The object type of `revision`, just fetched. The commits fetched beside it and not yet
    /// checked (`present`) are asked about in the same `git cat-file --batch` and their
    /// answers kept for when each is asked for, so a pin and the commit its ref names now cost
    /// one process, not two (issue 30 §2); the same answer holds each commit's and tag's raw
    /// bytes, for a signature check (issue 33 §1). Any answer for `revision` other than a
    /// plain type is asked again with `git cat-file -t` alone, so it fails exactly as before.
    fn kind_of(&mut self, revision: &str, what: &Step) -> Result<String> {
        let mut asked: Vec<String> = vec![revision.to_owned()];
        asked.extend(
            self.present
                .iter()
                .filter(|r| *r != revision && !self.objects.contains_key(*r))
                .cloned(),
        );
        let answered = self.read_objects(&asked, what)?;
        let mut mine = None;
        for (name, kind) in asked.iter().zip(answered) {
            match kind {
                Some(kind) if name == revision => mine = Some(kind),
                Some(kind) => {
                    self.kinds.insert(name.clone(), kind);
                }
                None => {}
            }
        }
        if let Some(kind) = mine {
            return Ok(kind);
        }
        let kind = self.git(&["cat-file", "-t", revision], true, SMALL_LIMIT, true, what)?;
        Ok(String::from_utf8_lossy(&kind).trim_end().to_owned())
    }

    /// The commit's revision, checked against its object format.
    fn revision_of<'c>(&self, commit: &'c Commit) -> Result<&'c str> {
        if is_hex_id(&commit.revision, commit.format.hex_len()) {
            Ok(&commit.revision)
        } else {
            Err(self.error(GitProblem::BadRevision {
                revision: commit.revision.clone(),
                format: commit.format,
            }))
        }
    }
}

#[cfg(test)]
// The tests plant and clean up directories of their own under a temporary directory.
#[allow(clippy::disallowed_methods)]
mod tests {
    use super::*;

    #[test]
    fn refs_and_ids() {
        assert!(
            asv_model::source::is_usable_ref("main")
                && asv_model::source::is_usable_ref("release/v1.2")
                && !asv_model::source::is_usable_ref("-x")
                && !asv_model::source::is_usable_ref("a..b")
        );
        assert!(is_hex_id(&"a".repeat(64), 64) && !is_hex_id(&"A".repeat(40), 40));
    }

    #[test]
    fn option_like_and_odd_urls_are_refused_before_git() {
        for url in ["", "-uploadpack=x", "https://h/a b", "https://h/\n"] {
            assert!(
                matches!(
                    Git::new(url),
                    Err(Error::GitUrl {
                        problem: UrlProblem::Unusable,
                        ..
                    })
                ),
                "{url:?}"
            );
        }
    }

    #[test]
    fn a_new_source_holds_one_prefixed_temporary_directory_until_dropped() {
        let git = Git::new("https://git.example.com/team/contracts.git").expect("a source");
        let dir = git.temporary_directory().expect("a directory").to_owned();
        assert!(dir.is_dir());
        assert!(
            dir.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with(TEMP_PREFIX))
        );
        assert_eq!(dir.parent(), Some(std::env::temp_dir().as_path()));
        let name = dir.file_name().and_then(|n| n.to_str()).expect("a name");
        assert_eq!(creator_of(name), Some(std::process::id()), "{name}");
        drop(git);
        assert!(!dir.exists());
    }

    #[test]
    fn creator_ids_are_read_from_names() {
        for (name, pid) in [
            ("agentic-skill-git-42-abc", Some(42)),
            ("agentic-skill-git-42-", None),
            ("agentic-skill-git-abc", None),
            ("agentic-skill-git--abc", None),
            ("agentic-skill-git-+4-abc", None),
            ("agentic-skill-git-99999999999-abc", None),
            ("other-42-abc", None),
        ] {
            assert_eq!(creator_of(name), pid, "{name}");
        }
    }

    /// A process that has ended (reaped): its id names no process now.
    fn dead_pid() -> u32 {
        let mut child = Command::new("true").spawn().expect("true runs");
        let pid = child.id();
        child.wait().expect("true ends");
        pid
    }

    /// A process that runs until killed, in a process group of its own.
    fn live_child() -> std::process::Child {
        use std::os::unix::process::CommandExt as _;
        Command::new("sleep")
            .arg("60")
            .process_group(0)
            .spawn()
            .expect("sleep runs")
    }

    #[test]
    fn the_sweep_removes_only_what_a_gone_run_left() {
        let parent = tempfile::tempdir().expect("a parent");
        let dead = dead_pid();
        let mut live = live_child();
        let make = |name: &str| {
            let dir = parent.path().join(name);
            std::fs::create_dir(&dir).expect("mkdir");
            std::fs::File::create(dir.join("HEAD")).expect("a file in it");
            dir
        };
        let stale = make(&format!("{TEMP_PREFIX}{dead}-stale1"));
        let running = make(&format!("{TEMP_PREFIX}{}-running", live.id()));
        let mine = make(&format!("{TEMP_PREFIX}{}-mine", std::process::id()));
        let unnamed = make(&format!("{TEMP_PREFIX}oldstyle"));
        let other = make(&format!("other-{dead}-x"));
        // Kept for a process group that may still write in it, its creator gone.
        let guarded = make(&format!("{TEMP_PREFIX}{dead}-guarded"));
        std::fs::File::create(guarded.join(format!("{GROUP_MARK}{}", live.id()))).expect("mark");
        // Kept for a group that has ended since: stale too.
        let ended = make(&format!("{TEMP_PREFIX}{dead}-ended"));
        std::fs::File::create(ended.join(format!("{GROUP_MARK}{dead}"))).expect("mark");
        // A file or a link of that name is no directory of this transport's.
        let file = parent.path().join(format!("{TEMP_PREFIX}{dead}-file"));
        std::fs::File::create(&file).expect("a file");
        let outside = tempfile::tempdir().expect("a link target");
        std::fs::File::create(outside.path().join("keep")).expect("a file");
        let link = parent.path().join(format!("{TEMP_PREFIX}{dead}-link"));
        std::os::unix::fs::symlink(outside.path(), &link).expect("a link");

        let mut removed = sweep_stale(parent.path());
        removed.sort();
        let mut expected = vec![ended.clone(), stale.clone()];
        expected.sort();
        assert_eq!(removed, expected);
        assert!(!stale.exists() && !ended.exists());
        for kept in [&running, &mine, &unnamed, &other, &guarded, &file] {
            assert!(kept.exists(), "{} kept", kept.display());
        }
        assert!(link.symlink_metadata().is_ok() && outside.path().join("keep").exists());

        // Once the running process is gone, its directory and the one it guarded go too.
        live.kill().expect("kill sleep");
        live.wait().expect("reap sleep");
        let mut removed = sweep_stale(parent.path());
        removed.sort();
        let mut expected = vec![guarded, running];
        expected.sort();
        assert_eq!(removed, expected);
        assert!(mine.exists() && unnamed.exists());
    }

    #[test]
    fn a_kept_directory_is_named_with_its_process_group() {
        let mut git = Git::new("ssh://git@git.example.com/team/contracts.git").expect("a source");
        let dir = git.temporary_directory().expect("a directory").to_owned();
        let step = Step::Fetch {
            revision: "x".to_owned(),
        };
        let error = git.retain(4242, &step, None);
        let text = error.to_string();
        assert!(matches!(
            &error,
            Error::Git { problem, .. } if matches!(**problem, GitProblem::NotStopped { group: 4242, .. })
        ));
        assert!(text.contains(&dir.display().to_string()), "{text}");
        assert!(text.contains("process group 4242"), "{text}");
        assert!(dir.is_dir(), "kept");
        assert!(dir.join(format!("{GROUP_MARK}4242")).is_file(), "marked");
        assert!(git.temporary_directory().is_none());
        assert!(git.resolve("main").is_err(), "a stopped source refuses");
        std::fs::remove_file(dir.join(format!("{GROUP_MARK}4242"))).expect("remove the mark");
        std::fs::remove_dir(&dir).expect("remove the kept test directory");
    }
}
