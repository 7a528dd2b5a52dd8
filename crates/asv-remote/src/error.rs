//! The one error type of `asv-remote`, and the problem types its refusals carry.
//!
//! A refusal keeps the values it is about (the source, the step, the ref, the file, the limit,
//! git's exit status), never preformatted text; each problem's `Display` words it exactly as
//! earlier releases did, so the printed lines do not change. Text that came from elsewhere (a
//! URL, a ref, a path, a server's answer) is quoted and escaped onto one line when shown.

use std::fmt;
use std::io::ErrorKind;
use std::path::PathBuf;
use std::time::Duration;

use asv_fs::quote::json_string;
use asv_fs::{Location, Side};

use crate::ids::{shown, shown_path};
use crate::{EntryMode, ObjectFormat};

/// Everything a source transport refuses or fails at.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A generic git source refused or failed.
    #[error("git source {url}: {problem}")]
    Git {
        /// The source's URL, as given.
        url: String,
        /// What went wrong (boxed: the error stays small on the `Ok` path).
        problem: Box<GitProblem>,
    },
    /// A generic git source an earlier refusal stopped: it reads nothing more.
    #[error(
        "git source {url}: stopped by an earlier refusal, nothing more is read from it (git source {url}: {earlier})"
    )]
    GitStopped {
        /// The source's URL, as given.
        url: String,
        /// The refusal that stopped it.
        earlier: Box<GitProblem>,
    },
    /// A generic git source whose URL or path is refused before git starts.
    #[error("git source {}: {problem}", shown(url))]
    GitUrl {
        /// The URL or path, as given.
        url: String,
        /// What rules it out.
        problem: UrlProblem,
    },
    /// A GitHub source refused or failed.
    #[error("github source {owner}/{repo}: {problem}")]
    GitHub {
        /// The owner, as given.
        owner: String,
        /// The repository name, as given.
        repo: String,
        /// What went wrong (boxed: the error stays small on the `Ok` path).
        problem: Box<GitHubProblem>,
    },
    /// A GitHub source whose owner or repository name is not one.
    #[error(
        "github source {}/{}: the {field} name {} is not usable (letters, digits, '.', '_', '-', starting with a letter or digit); fix the source's repository",
        shown(owner),
        shown(repo),
        shown(match field {
            NameField::Owner => owner,
            NameField::Repository => repo,
        })
    )]
    GitHubName {
        /// The owner, as given.
        owner: String,
        /// The repository name, as given.
        repo: String,
        /// Which of the two is not usable.
        field: NameField,
    },
    /// A commit's listing holds something a contract cannot be taken from.
    #[error("{name} {problem}")]
    Listing {
        /// The source, as the caller names it.
        name: String,
        /// What stands in the way.
        problem: ListingProblem,
    },
    /// Guarded tree access refused or failed.
    #[error(transparent)]
    Fs(#[from] asv_fs::Error),
}

impl Error {
    /// Which side the failure lies with.
    ///
    /// A refusal whose remedy is to change what the user wrote (a URL, an owner or repository
    /// name, a ref, the token, a recorded revision) lies with the input; what a server answered
    /// or holds, a limit reached and a failure of this machine (git missing, a temporary
    /// directory, a process group) lie with the environment. A stopped source answers with the
    /// side of the refusal that stopped it; guarded tree access answers for itself.
    pub fn side(&self) -> Side {
        match self {
            Error::Git { problem, .. } => problem.side(),
            Error::GitStopped { earlier, .. } => earlier.side(),
            Error::GitUrl { .. } | Error::GitHubName { .. } => Side::Input,
            Error::GitHub { problem, .. } => problem.side(),
            Error::Listing { .. } => Side::Environment,
            Error::Fs(e) => e.side(),
        }
    }

    /// The file (from the root) the failure is about: only guarded tree access has one; a
    /// transport's refusal is about another repository, never a file of the tree.
    pub fn location(&self) -> Option<Location> {
        match self {
            Error::Fs(e) => e.location(),
            Error::Git { .. }
            | Error::GitStopped { .. }
            | Error::GitUrl { .. }
            | Error::GitHub { .. }
            | Error::GitHubName { .. }
            | Error::Listing { .. } => None,
        }
    }
}

/// The result type of `asv-remote`.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Why the URL or path of a generic git source is refused before git starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UrlProblem {
    /// Empty, starting with `-`, or holding whitespace or a control character.
    Unusable,
    /// A repository on this machine named by a path that is not absolute.
    NotAbsolute,
}

impl fmt::Display for UrlProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            UrlProblem::Unusable => {
                "the URL is empty, option-like or holds whitespace or a control character; refused before git starts"
            }
            UrlProblem::NotAbsolute => {
                "a repository on this machine is named by its absolute path"
            }
        })
    }
}

/// Which half of `owner/repo` a refusal is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NameField {
    /// The owner.
    Owner,
    /// The repository name.
    Repository,
}

impl fmt::Display for NameField {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            NameField::Owner => "owner",
            NameField::Repository => "repository",
        })
    }
}

/// One file of a commit: a listed path at a revision.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileAt {
    /// The path, exactly as the listing gives it.
    pub path: String,
    /// The commit id.
    pub revision: String,
}

impl fmt::Display for FileAt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} at commit {}", shown_path(&self.path), self.revision)
    }
}

/// What was wrong with a ref, for either transport.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RefProblem {
    /// The ref is not a usable branch, tag or commit name.
    Unusable {
        /// The ref, as given.
        reference: String,
    },
    /// The repository hands out a default branch this tool cannot record.
    NoDefaultBranch {
        /// What it named, if anything (a ref, or the JSON the API answered).
        found: Option<String>,
    },
    /// The ref names both a branch and a tag, at different commits.
    Ambiguous {
        /// The ref.
        reference: String,
        /// The branch's commit.
        branch: String,
        /// The tag's commit.
        tag: String,
    },
    /// The ref names no branch or tag of the repository.
    Unknown {
        /// The ref.
        reference: String,
    },
}

impl RefProblem {
    /// A ref that is not usable, unknown to the repository or ambiguous in it is the input's
    /// to change; a default branch the repository hands out that cannot be recorded is the
    /// server's.
    pub fn side(&self) -> Side {
        match self {
            RefProblem::Unusable { .. }
            | RefProblem::Ambiguous { .. }
            | RefProblem::Unknown { .. } => Side::Input,
            RefProblem::NoDefaultBranch { .. } => Side::Environment,
        }
    }
}

impl fmt::Display for RefProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RefProblem::Unusable { reference } => write!(
                f,
                "ref {} is not usable (letters, digits, '.', '_', '/', '-', starting and ending with a letter or digit, no '..' or '//'); name a branch, tag or commit",
                shown(reference)
            ),
            RefProblem::NoDefaultBranch { found } => write!(
                f,
                "the repository names a default branch this tool cannot record, found {}; name the ref explicitly",
                found.as_deref().map_or_else(|| "none".to_owned(), shown)
            ),
            RefProblem::Ambiguous {
                reference,
                branch,
                tag,
            } => write!(
                f,
                "ref {reference} names both a branch (commit {branch}) and a tag (commit {tag}); name the commit id instead"
            ),
            RefProblem::Unknown { reference } => write!(
                f,
                "ref {reference} names no branch or tag of the repository; check the ref"
            ),
        }
    }
}

/// What a listed entry that is not read is, instead of an ordinary file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ListedKind {
    /// A symbolic link (120000).
    Symlink,
    /// A submodule (160000).
    Submodule,
    /// A directory (040000).
    Directory,
}

impl ListedKind {
    /// What `mode` is when it is not an ordinary file; `None` for one.
    pub fn of(mode: EntryMode) -> Option<ListedKind> {
        match mode {
            EntryMode::File | EntryMode::Executable => None,
            EntryMode::Symlink => Some(ListedKind::Symlink),
            EntryMode::Submodule => Some(ListedKind::Submodule),
            EntryMode::Tree => Some(ListedKind::Directory),
        }
    }
}

impl fmt::Display for ListedKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ListedKind::Symlink => "a symlink",
            ListedKind::Submodule => "a submodule",
            ListedKind::Directory => "a directory",
        })
    }
}

/// Why a listed entry is not read, for either transport.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EntryProblem {
    /// It is not an ordinary file.
    NotAFile {
        /// The file asked for.
        file: FileAt,
        /// What it is listed as.
        kind: ListedKind,
    },
    /// Its path does not stay inside the repository.
    Outside {
        /// The file asked for.
        file: FileAt,
    },
}

impl fmt::Display for EntryProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EntryProblem::NotAFile { file, kind } => write!(
                f,
                "{file} is listed as {kind}, and only an ordinary file (100644 or 100755) is read; refused rather than left out"
            ),
            EntryProblem::Outside { file } => write!(
                f,
                "{file}: the path does not stay inside the repository (an empty segment, a . or .. step, or a backslash); refused"
            ),
        }
    }
}

/// What a generic git source was doing when it failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    /// `git ls-remote --symref` for `HEAD`.
    DefaultBranch,
    /// `git ls-remote` for a branch or tag.
    LookUp {
        /// The ref.
        reference: String,
    },
    /// Creating the temporary bare repository.
    CreateRepository,
    /// Fetching one commit (depth 1, no blobs).
    Fetch {
        /// The commit id.
        revision: String,
    },
    /// Listing one commit's tree.
    Listing {
        /// The commit id.
        revision: String,
    },
    /// Reading one file.
    File(FileAt),
}

impl fmt::Display for Step {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Step::DefaultBranch => f.write_str("asking which branch the repository hands out"),
            Step::LookUp { reference } => write!(f, "looking up ref {reference}"),
            Step::CreateRepository => f.write_str("creating the temporary repository"),
            Step::Fetch { revision } => write!(f, "fetching commit {revision}"),
            Step::Listing { revision } => write!(f, "the tree listing of commit {revision}"),
            Step::File(file) => file.fmt(f),
        }
    }
}

/// Which limit of a generic git source was reached while git ran.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reached {
    /// The time all git processes of the source may take together.
    Time {
        /// The limit.
        limit: Duration,
    },
    /// The bytes the temporary repository may hold.
    Repository {
        /// The limit, in bytes.
        limit: u64,
    },
    /// The bytes taken from one git answer.
    Output,
}

impl fmt::Display for Reached {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Reached::Time { limit } => write!(
                f,
                "the time limit of {} s for one git source was reached",
                limit.as_secs_f64()
            ),
            Reached::Repository { limit } => write!(
                f,
                "the temporary repository grew past the limit of {} for one git source",
                Size(*limit)
            ),
            Reached::Output => f.write_str("git's answer was larger than this tool reads"),
        }
    }
}

/// Why a git process failed, read from its standard error and said in this tool's words
/// (git's own are never shown).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GitFailure {
    /// The URL led to a transport other than https or ssh.
    TransportNotAllowed,
    /// The server asked for credentials that cannot be had without a prompt.
    Credentials,
    /// The SSH host key could not be verified without a prompt.
    HostKey,
    /// The SSH server refused the credentials.
    SshRefused,
    /// The SSH connection failed or was refused.
    SshFailed,
    /// The host name did not resolve.
    HostNotFound,
    /// The TLS connection failed.
    Tls,
    /// The connection failed or broke off.
    Connection,
    /// The repository's object format is not the one recorded.
    ObjectFormat,
    /// The server would not hand out the commit.
    CommitWithheld,
    /// The server has no such repository (or hides it).
    NoRepository,
    /// The file is not in the commit's tree.
    NotInTree,
    /// Nothing recognized; git exited with this status.
    Exited {
        /// The exit status.
        code: i32,
    },
    /// Nothing recognized; git was ended by a signal.
    Signalled,
}

impl fmt::Display for GitFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            GitFailure::TransportNotAllowed => {
                "the URL leads to a transport this tool does not allow (only https and ssh are; a redirect or a url.insteadOf rewrite may have changed it)"
            }
            GitFailure::Credentials => {
                "the server asked for credentials that are not available without a prompt; set up a credential helper or key, confirm that plain git reaches this URL without a prompt, and retry"
            }
            GitFailure::HostKey => {
                "the SSH host key could not be verified without a prompt; connect once with plain ssh or git to confirm it, then retry"
            }
            GitFailure::SshRefused => {
                "the SSH server refused the credentials; check the SSH key or agent with plain ssh, then retry"
            }
            GitFailure::SshFailed => {
                "the SSH connection failed or was refused; confirm that plain ssh and git reach this URL without a prompt, then retry"
            }
            GitFailure::HostNotFound => "the host name did not resolve",
            GitFailure::Tls => {
                "the TLS connection failed (the server's certificate was not accepted, or the handshake broke off)"
            }
            GitFailure::Connection => "the connection failed or broke off",
            GitFailure::ObjectFormat => {
                "the repository's object format (sha1 or sha256) is not the one recorded"
            }
            GitFailure::CommitWithheld => {
                "the server would not hand out that commit (unknown to it, or not reachable from its refs)"
            }
            GitFailure::NoRepository => {
                "the server has no such repository, or does not show it without credentials"
            }
            GitFailure::NotInTree => "the file is not in that commit's tree",
            GitFailure::Exited { code } => return write!(f, "git exited with status {code}"),
            GitFailure::Signalled => "git was ended by a signal",
        })
    }
}

impl GitProblem {
    /// Which side the failure lies with: a revision or ref the user recorded or named is the
    /// input's; everything else (the machine, git, the server, a limit) is the environment's.
    pub fn side(&self) -> Side {
        match self {
            GitProblem::FormatMismatch { .. }
            | GitProblem::NotACommit { .. }
            | GitProblem::BadRevision { .. } => Side::Input,
            GitProblem::Ref(problem) => problem.side(),
            GitProblem::TempDir { .. }
            | GitProblem::GitMissing
            | GitProblem::Spawn { .. }
            | GitProblem::Unwatched { .. }
            | GitProblem::NotStopped { .. }
            | GitProblem::Failed { .. }
            | GitProblem::ReadFailed { .. }
            | GitProblem::Limit { .. }
            | GitProblem::FileTooLarge { .. }
            | GitProblem::TotalReached { .. }
            | GitProblem::Malformed { .. }
            | GitProblem::Entry(_)
            | GitProblem::BadBlobId { .. }
            | GitProblem::BlobMismatch { .. }
            | GitProblem::NotRemoved { .. } => Side::Environment,
        }
    }
}

/// What a generic git source refused or failed at (after `git source <url>: `).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GitProblem {
    /// The temporary directory could not be created.
    TempDir {
        /// The OS temporary directory it was to be created under.
        parent: PathBuf,
        /// What the system said.
        error: ErrorKind,
    },
    /// `git` is not on `PATH`.
    GitMissing,
    /// `git` could not be started.
    Spawn {
        /// What the system said.
        error: ErrorKind,
    },
    /// A git process could not be watched.
    Unwatched {
        /// What it was doing.
        step: Step,
    },
    /// A git process group could not be confirmed stopped; its temporary repository is kept.
    NotStopped {
        /// What it was doing.
        step: Step,
        /// The limit it was stopped at; `None` when it did not end cleanly.
        reached: Option<Reached>,
        /// The process group id.
        group: u32,
        /// The temporary directory kept; `None` if it was already gone.
        kept: Option<PathBuf>,
    },
    /// A git command failed.
    Failed {
        /// What it was doing.
        step: Step,
        /// Why, in this tool's words.
        failure: GitFailure,
    },
    /// Reading a file failed.
    ReadFailed {
        /// The file.
        file: FileAt,
        /// Why, in this tool's words.
        failure: GitFailure,
    },
    /// A limit stopped git.
    Limit {
        /// What it was doing.
        step: Step,
        /// The limit reached.
        reached: Reached,
    },
    /// A file is larger than the limit for one file.
    FileTooLarge {
        /// The file.
        file: FileAt,
        /// The limit, in bytes.
        limit: u64,
    },
    /// A file would take the bytes read from the source past the limit for all files.
    TotalReached {
        /// The file.
        file: FileAt,
        /// The limit, in bytes.
        limit: u64,
    },
    /// Git answered a line this tool does not read.
    Malformed {
        /// What it was doing.
        step: Step,
        /// The line (or `ls-tree` record), as git wrote it.
        line: String,
    },
    /// A commit was asked for in an object format other than the repository's.
    FormatMismatch {
        /// The format of the commit asked for.
        asked: ObjectFormat,
        /// The format of the temporary repository.
        have: ObjectFormat,
    },
    /// A revision names an object that is not a commit.
    NotACommit {
        /// The revision.
        revision: String,
        /// The object type git answered.
        kind: String,
    },
    /// A revision is not a commit id of its object format.
    BadRevision {
        /// The revision.
        revision: String,
        /// Its object format.
        format: ObjectFormat,
    },
    /// A ref is unusable, unknown or ambiguous.
    Ref(RefProblem),
    /// A listed entry is not one to read.
    Entry(EntryProblem),
    /// A listed blob id is not an object id of the commit's format.
    BadBlobId {
        /// The file.
        file: FileAt,
        /// The id listed.
        oid: String,
        /// The commit's object format.
        format: ObjectFormat,
    },
    /// A file's bytes do not hash to its listed blob id.
    BlobMismatch {
        /// The file.
        file: FileAt,
        /// The id listed.
        listed: String,
        /// The id of the bytes read.
        got: String,
    },
    /// A refusal after which the temporary repository could not be removed.
    NotRemoved {
        /// The refusal.
        cause: Box<GitProblem>,
        /// The temporary directory left behind.
        dir: PathBuf,
        /// What the system said.
        error: ErrorKind,
    },
}

/// What git was stopped for and what is left to remove.
const STOPPED: &str = "git was stopped and its temporary repository removed";

impl fmt::Display for GitProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GitProblem::TempDir { parent, error } => write!(
                f,
                "could not create a temporary directory under {}: {}; check the OS temporary directory (TMPDIR)",
                parent.display(),
                IoKind(*error)
            ),
            GitProblem::GitMissing => f.write_str(
                "git was not found; a generic git source needs git installed and on PATH",
            ),
            GitProblem::Spawn { error } => {
                write!(f, "git could not be started: {}", IoKind(*error))
            }
            GitProblem::Unwatched { step } => write!(f, "{step}: git could not be watched"),
            GitProblem::NotStopped {
                step,
                reached,
                group,
                kept,
            } => {
                match reached {
                    Some(reached) => write!(f, "{step}: {reached}")?,
                    None => write!(f, "{step}: git did not end cleanly")?,
                }
                write!(
                    f,
                    ", and the git process group {group} could not be confirmed stopped, so its temporary repository {} was kept rather than deleted; confirm that process group {group} has stopped, then delete only that exact directory",
                    kept.as_deref()
                        .map_or_else(|| "(already removed)".into(), |p| p.display().to_string())
                )
            }
            GitProblem::Failed { step, failure } => write!(f, "{step} failed: {failure}"),
            GitProblem::ReadFailed { file, failure } => {
                write!(f, "reading {file} failed: {failure}")
            }
            GitProblem::Limit { step, reached } => write!(f, "{step}: {reached}; {STOPPED}"),
            GitProblem::FileTooLarge { file, limit } => write!(
                f,
                "{file} is larger than the limit of {} for one file; {STOPPED}",
                Size(*limit)
            ),
            GitProblem::TotalReached { file, limit } => write!(
                f,
                "reading {file} would take the files read from this source past the limit of {} in all; {STOPPED}",
                Size(*limit)
            ),
            GitProblem::Malformed { step, line } => write!(
                f,
                "{step}: git answered a line this tool does not read, {}; refused",
                shown(line)
            ),
            GitProblem::FormatMismatch { asked, have } => write!(
                f,
                "a {} commit was asked for from a {} repository; check the recorded revision",
                asked.name(),
                have.name()
            ),
            GitProblem::NotACommit { revision, kind } => write!(
                f,
                "{revision} names a {}, not a commit; name a branch, tag or commit",
                shown(kind)
            ),
            GitProblem::BadRevision { revision, format } => write!(
                f,
                "{} is not a {}-digit {} commit id; check the recorded revision",
                shown(revision),
                format.hex_len(),
                format.name()
            ),
            GitProblem::Ref(problem) => problem.fmt(f),
            GitProblem::Entry(problem) => problem.fmt(f),
            GitProblem::BadBlobId { file, oid, format } => write!(
                f,
                "{file} is listed with blob id {}, not a {}-digit {} id; refused",
                shown(oid),
                format.hex_len(),
                format.name()
            ),
            GitProblem::BlobMismatch { file, listed, got } => write!(
                f,
                "{file} does not match its blob id: the listing gives {listed}, the bytes read hash to {got}; refused"
            ),
            GitProblem::NotRemoved { cause, dir, error } => write!(
                f,
                "{cause}; the temporary repository {} could not be removed ({}), delete that exact directory",
                dir.display(),
                IoKind(*error)
            ),
        }
    }
}

/// Which of the two GitHub hosts a request goes to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Host {
    /// The API host ([`crate::github::API_HOST`]).
    Api,
    /// The raw-content host ([`crate::github::RAW_HOST`]).
    Raw,
}

/// What a GitHub source asked for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Request {
    /// The repository (its default branch).
    Repository,
    /// The commit a ref names.
    Ref {
        /// The ref.
        reference: String,
    },
    /// One commit's tree listing.
    Listing {
        /// The commit id.
        revision: String,
    },
    /// One file's bytes.
    File(FileAt),
}

impl fmt::Display for Request {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Request::Repository => f.write_str("the repository"),
            Request::Ref { reference } => write!(f, "ref {reference}"),
            Request::Listing { revision } => write!(f, "the tree listing of commit {revision}"),
            Request::File(file) => file.fmt(f),
        }
    }
}

/// Where a refused redirect led.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RedirectTarget {
    /// Not kept: an answer to an authenticated request may repeat the token.
    Withheld,
    /// The answer named no location.
    Missing,
    /// The location, as answered.
    At(String),
}

impl fmt::Display for RedirectTarget {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RedirectTarget::Withheld => f.write_str(
                "a location not shown, since an answer to an authenticated request may repeat the token",
            ),
            RedirectTarget::Missing => f.write_str("no location"),
            RedirectTarget::At(location) => f.write_str(&shown(location)),
        }
    }
}

/// Why a GitHub host could not be reached.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unreached {
    /// The host name did not resolve.
    HostNotFound,
    /// The connection failed.
    ConnectionFailed,
    /// An I/O failure of this kind.
    Io(ErrorKind),
    /// The answer stalled.
    Stalled,
    /// An authenticated request failed (details not kept, so they cannot repeat the token).
    Withheld,
    /// Another failure, as the HTTP client words it.
    Other(String),
}

impl fmt::Display for Unreached {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Unreached::HostNotFound => f.write_str("the host name did not resolve"),
            Unreached::ConnectionFailed => f.write_str("the connection failed"),
            Unreached::Io(kind) => IoKind(*kind).fmt(f),
            Unreached::Stalled => f.write_str("the answer stalled"),
            Unreached::Withheld => f.write_str(
                "the authenticated request failed (details left out so they cannot repeat the token)",
            ),
            Unreached::Other(text) => f.write_str(&shown(text)),
        }
    }
}

/// What is wrong with one entry of a GitHub tree listing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ListingFault {
    /// An entry is not a JSON object.
    NotObject,
    /// An entry has no path.
    NoPath,
    /// An entry's mode is not a mode.
    BadMode {
        /// The entry's path.
        path: String,
        /// The mode, as answered.
        mode: String,
    },
    /// An entry has no mode.
    NoMode {
        /// The entry's path.
        path: String,
    },
    /// An entry has no object id of the commit's format.
    NoId {
        /// The entry's path.
        path: String,
        /// The number of hex digits expected.
        len: usize,
    },
}

impl fmt::Display for ListingFault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ListingFault::NotObject => f.write_str("an entry is not an object"),
            ListingFault::NoPath => f.write_str("an entry has no path"),
            ListingFault::BadMode { path, mode } => {
                write!(f, "{} is listed with mode {}", shown(path), shown(mode))
            }
            ListingFault::NoMode { path } => write!(f, "{} is listed with no mode", shown(path)),
            ListingFault::NoId { path, len } => {
                write!(f, "{} is listed with no {len}-digit object id", shown(path))
            }
        }
    }
}

impl GitHubProblem {
    /// Which side the failure lies with: the token piped in, a recorded revision, a ref that
    /// is not usable or names no commit (422) are the input's; every other answer, a limit and
    /// the network are the environment's.
    pub fn side(&self) -> Side {
        match self {
            GitHubProblem::TokenCharacter { .. }
            | GitHubProblem::TokenHeader
            | GitHubProblem::BadRevision { .. }
            | GitHubProblem::Refused { status: 422, .. } => Side::Input,
            GitHubProblem::Ref(problem) => problem.side(),
            GitHubProblem::Redirect { .. }
            | GitHubProblem::TooLarge { .. }
            | GitHubProblem::Timeout { .. }
            | GitHubProblem::Unreachable { .. }
            | GitHubProblem::Refused { .. }
            | GitHubProblem::NotAnObject { .. }
            | GitHubProblem::NotJson { .. }
            | GitHubProblem::NotACommitId { .. }
            | GitHubProblem::OtherCommit { .. }
            | GitHubProblem::Truncated { .. }
            | GitHubProblem::NoTree { .. }
            | GitHubProblem::BadListing { .. }
            | GitHubProblem::Entry(_)
            | GitHubProblem::BlobMismatch { .. } => Side::Environment,
        }
    }
}

/// What a GitHub source refused or failed at (after `github source <owner>/<repo>: `).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GitHubProblem {
    /// The token has a character that cannot go into a header (1-based position).
    TokenCharacter {
        /// The position of the first such character.
        position: usize,
    },
    /// The token cannot go into a header.
    TokenHeader,
    /// A host answered with a redirect, which is never followed.
    Redirect {
        /// What was asked for.
        request: Request,
        /// The 3xx status.
        status: u16,
        /// Where it led.
        to: RedirectTarget,
    },
    /// An answer is larger than its limit.
    TooLarge {
        /// What was asked for.
        request: Request,
        /// The host asked.
        host: Host,
        /// The limit, in bytes.
        limit: u64,
    },
    /// No complete answer within the time one request may take.
    Timeout {
        /// What was asked for.
        request: Request,
        /// The time one request may take.
        limit: Duration,
    },
    /// A host could not be reached.
    Unreachable {
        /// What was asked for.
        request: Request,
        /// Why.
        detail: Unreached,
    },
    /// A host answered a status other than 2xx or 3xx.
    Refused {
        /// What was asked for.
        request: Request,
        /// The status.
        status: u16,
        /// Whether the request carried a token.
        authenticated: bool,
    },
    /// An API answer is JSON but not an object.
    NotAnObject {
        /// What was asked for.
        request: Request,
    },
    /// An API answer is not JSON.
    NotJson {
        /// What was asked for.
        request: Request,
    },
    /// A commit's revision is not an object id of its format.
    BadRevision {
        /// The revision.
        revision: String,
        /// Its object format.
        format: ObjectFormat,
    },
    /// A ref is not usable, or the default branch cannot be recorded.
    Ref(RefProblem),
    /// The answer for a ref is not a commit id.
    NotACommitId {
        /// What was asked for.
        request: Request,
        /// What was answered.
        found: String,
    },
    /// The answer for a commit id names a different commit.
    OtherCommit {
        /// What was asked for.
        request: Request,
        /// The commit answered.
        answered: String,
    },
    /// A tree listing was truncated.
    Truncated {
        /// What was asked for.
        request: Request,
    },
    /// A tree listing holds no tree.
    NoTree {
        /// What was asked for.
        request: Request,
    },
    /// An entry of a tree listing is malformed.
    BadListing {
        /// What was asked for.
        request: Request,
        /// What is wrong with the entry.
        fault: ListingFault,
    },
    /// A listed entry is not one to read.
    Entry(EntryProblem),
    /// A file's bytes do not hash to its listed blob id.
    BlobMismatch {
        /// The file.
        file: FileAt,
        /// The id listed.
        listed: String,
        /// The id of the bytes served.
        got: String,
    },
}

impl fmt::Display for GitHubProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GitHubProblem::TokenCharacter { position } => write!(
                f,
                "the token has a character that cannot go into a request header at position {position}; check what is piped to --token-stdin"
            ),
            GitHubProblem::TokenHeader => f.write_str(
                "the token cannot go into a request header; check what is piped to --token-stdin",
            ),
            GitHubProblem::Redirect {
                request,
                status,
                to,
            } => write!(
                f,
                "{request}: answered {status}, redirecting to {to}; the redirect was refused, since this tool talks only to api.github.com and raw.githubusercontent.com and follows no redirect; a renamed or transferred repository redirects, so register it under its current owner/repo"
            ),
            GitHubProblem::TooLarge {
                request,
                host,
                limit,
            } => write!(
                f,
                "{request}: the answer is larger than {limit} bytes, over the limit of {}; {}",
                Size(*limit),
                match host {
                    Host::Raw => {
                        "a contract source holds small text files, so keep each file taken under the limit"
                    }
                    Host::Api => {
                        "the repository is too large to list in one answer; keep contracts in a smaller repository"
                    }
                }
            ),
            GitHubProblem::Timeout { request, limit } => write!(
                f,
                "{request}: no complete answer within {} s; check the network and try again",
                limit.as_secs()
            ),
            GitHubProblem::Unreachable { request, detail } => write!(
                f,
                "{request}: cannot reach github: {detail}; check the network and try again"
            ),
            GitHubProblem::Refused {
                request,
                status,
                authenticated,
            } => match (status, authenticated) {
                (404, true) => write!(
                    f,
                    "{request} was not found (404); check the token piped to --token-stdin: a wrong or expired token makes a repository and even its public files look absent, and so does a token without access to a private repository"
                ),
                (404, false) => write!(
                    f,
                    "{request} was not found (404); check the repository name and the ref, and pipe a token to --token-stdin if the repository is private"
                ),
                (401, true) => write!(
                    f,
                    "{request} was refused (401); the token piped to --token-stdin was not accepted, so check that it is valid and has not expired"
                ),
                (401, false) => write!(
                    f,
                    "{request} was refused (401); pipe a token with access to the repository to --token-stdin"
                ),
                (403 | 429, true) => write!(
                    f,
                    "{request} was refused ({status}); the token piped to --token-stdin may not reach this repository or its rate limit may be exhausted, and a proxy or egress filter answers the same way; check the token, or wait for the limit to reset"
                ),
                (403 | 429, false) => write!(
                    f,
                    "{request} was refused ({status}); unauthenticated requests are rate limited by the hour, and a proxy or egress filter answers the same way; wait for the limit to reset, or pipe a token to --token-stdin"
                ),
                (422, _) => write!(
                    f,
                    "{request} names no commit in the repository (422); check the ref"
                ),
                _ => write!(f, "{request}: answered {status}; try again later"),
            },
            GitHubProblem::NotAnObject { request } => write!(
                f,
                "{request}: the answer is not a json object; try again later"
            ),
            GitHubProblem::NotJson { request } => write!(
                f,
                "{request}: the answer is not readable json; try again later"
            ),
            GitHubProblem::BadRevision { revision, format } => write!(
                f,
                "commit {} is not a {}-digit lowercase hex id; fix the pin in the lock",
                shown(revision),
                format.hex_len()
            ),
            GitHubProblem::Ref(problem) => problem.fmt(f),
            GitHubProblem::NotACommitId { request, found } => write!(
                f,
                "{request}: the answer is not a commit id, found {}; try again later",
                shown(found)
            ),
            GitHubProblem::OtherCommit { request, answered } => write!(
                f,
                "{request}: the answer names a different commit, {answered}; check the commit id"
            ),
            GitHubProblem::Truncated { request } => write!(
                f,
                "{request} was truncated by github, so the repository holds more files than one listing carries and what it holds cannot be known; keep contracts in a smaller repository"
            ),
            GitHubProblem::NoTree { request } => {
                write!(f, "{request}: the answer holds no tree; try again later")
            }
            GitHubProblem::BadListing { request, fault } => write!(
                f,
                "{request}: {fault}; the answer is not a tree listing, try again later"
            ),
            GitHubProblem::Entry(problem) => problem.fmt(f),
            GitHubProblem::BlobMismatch { file, listed, got } => write!(
                f,
                "{file} does not match its blob id: the listing gives {}, the bytes served hash to {got}; refused, try again later",
                shown(listed)
            ),
        }
    }
}

/// What a commit's listing holds where a contract or its tests would be taken from (after
/// the source's name).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ListingProblem {
    /// A path under a directory taken does not stay inside the repository.
    Outside {
        /// The path, as listed.
        path: String,
        /// The directory taken.
        dir: String,
    },
    /// Something other than an ordinary file stands where a contract or its tests would be.
    NotOrdinary {
        /// The path, as listed.
        path: String,
        /// What it is listed as.
        mode: EntryMode,
    },
}

impl fmt::Display for ListingProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ListingProblem::Outside { path, dir } => write!(
                f,
                "lists {} under {dir}/, a path that does not stay inside the repository; nothing was taken",
                json_string(path)
            ),
            ListingProblem::NotOrdinary { path, mode } => write!(
                f,
                "holds {} as {}, where a contract or its tests would be; nothing was taken — ask the source to store ordinary files there",
                json_string(path),
                match mode {
                    EntryMode::Symlink => "a symbolic link",
                    EntryMode::Submodule => "a submodule",
                    _ => "not an ordinary file",
                }
            ),
        }
    }
}

/// A byte count as a person reads it: whole MiB as such, anything else in bytes.
struct Size(u64);

impl fmt::Display for Size {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const MIB: u64 = 1024 * 1024;
        if self.0 >= MIB && self.0.is_multiple_of(MIB) {
            write!(f, "{} MiB", self.0 / MIB)
        } else {
            write!(f, "{} bytes", self.0)
        }
    }
}

/// An I/O error's kind, lowercased (never a path or OS text that could hold anything else).
struct IoKind(ErrorKind);

impl fmt::Display for IoKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0.to_string().to_lowercase())
    }
}
