//! The problems of a generic git source: what it was doing, which limit it reached, why git
//! failed, and what it refused.

use std::fmt;
use std::io::ErrorKind;
use std::path::PathBuf;
use std::process::ExitStatus;
use std::time::Duration;

use asv_error::Side;
use asv_model::source::ObjectFormat;

use super::{EntryProblem, FileAt, IoKind, RefProblem, Size, shown};

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
    /// `git ls-remote --tags`: every tag.
    Tags,
    /// Fetching every branch and tag (no blobs), to find the commit a short id starts.
    FetchAll {
        /// The short id.
        prefix: String,
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
    /// Reading the raw commit and tag objects a signature check needs (issue 33 §1).
    Objects {
        /// The commit id.
        revision: String,
    },
    /// Fetching a branch while its name is looked up, ahead of knowing its commit (issue 30
    /// §2): said only of a git process that could not be confirmed stopped.
    FetchAhead {
        /// The branch's name.
        branch: String,
    },
    /// Reading several files of one commit in one batch (issue 30 §2).
    Files {
        /// The commit id.
        revision: String,
        /// How many files.
        count: usize,
    },
}

impl fmt::Display for Step {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Step::DefaultBranch => f.write_str("asking which branch the repository hands out"),
            Step::LookUp { reference } => write!(f, "looking up ref {reference}"),
            Step::Tags => f.write_str("listing the repository's tags"),
            Step::FetchAll { prefix } => {
                write!(f, "fetching every branch and tag to find commit {prefix}")
            }
            Step::CreateRepository => f.write_str("creating the temporary repository"),
            Step::Fetch { revision } => write!(f, "fetching commit {revision}"),
            Step::FetchAhead { branch } => {
                write!(f, "fetching branch {branch} while it was looked up")
            }
            Step::Listing { revision } => write!(f, "the tree listing of commit {revision}"),
            Step::File(file) => file.fmt(f),
            Step::Files { revision, count } => {
                write!(f, "reading {count} files at commit {revision}")
            }
            Step::Objects { revision } => {
                write!(f, "reading the commit and tag objects of commit {revision}")
            }
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
            | GitProblem::Repository { .. }
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
            | GitProblem::ObjectMismatch { .. }
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
    /// The temporary bare repository could not be written in its directory.
    Repository {
        /// The temporary directory.
        dir: PathBuf,
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
    /// A commit or tag object's bytes do not hash to its id (issue 33 §1).
    ObjectMismatch {
        /// The object's id.
        id: String,
        /// Its type (`commit` or `tag`).
        kind: String,
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
            GitProblem::Repository { dir, error } => write!(
                f,
                "could not write the temporary repository in {}: {}; check that the OS temporary directory (TMPDIR) is writable and has room",
                dir.display(),
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
            GitProblem::ObjectMismatch { id, kind, got } => write!(
                f,
                "the {kind} object {id} does not match its id: the bytes read hash to {got}; refused"
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

impl GitFailure {
    /// What git's standard error says went wrong, in this tool's words (never git's own);
    /// its exit status when nothing in it is recognized.
    pub(crate) fn from_stderr(stderr: &[u8], status: ExitStatus) -> GitFailure {
        let text = String::from_utf8_lossy(stderr).to_lowercase();
        let has = |needles: &[&str]| needles.iter().any(|n| text.contains(n));
        if has(&["transport '", "not allowed"]) && has(&["not allowed"]) {
            GitFailure::TransportNotAllowed
        } else if has(&[
            "terminal prompts disabled",
            "could not read username",
            "could not read password",
            "unable to get password",
            "unable to get username",
            "authentication failed",
            "access denied",
            "http basic",
            // As git words an HTTP status ("The requested URL returned error: 403"): a bare
            // "401" would also match a port or a path (`https://h:40135/`), and a refused
            // certificate there was taken for a password prompt.
            "returned error: 401",
            "returned error: 403",
        ]) {
            GitFailure::Credentials
        } else if has(&[
            "host key verification failed",
            "no matching host key",
            "remote host identification has changed",
        ]) {
            GitFailure::HostKey
        } else if has(&[
            "permission denied (publickey",
            "permission denied, please try again",
        ]) {
            GitFailure::SshRefused
        } else if has(&["could not read from remote repository"]) {
            GitFailure::SshFailed
        } else if has(&[
            "could not resolve host",
            "could not resolve hostname",
            "name or service not known",
            "temporary failure in name resolution",
        ]) {
            GitFailure::HostNotFound
        } else if has(&[
            "ssl certificate",
            "certificate verify",
            "server certificate verification failed",
            "ssl_connect",
            "tls",
            "ssl",
        ]) {
            GitFailure::Tls
        } else if has(&[
            "connection refused",
            "failed to connect",
            "couldn't connect",
            "connection timed out",
            "network is unreachable",
            "connection reset",
            "connection closed",
            "broken pipe",
            "early eof",
            "unexpected disconnect",
        ]) {
            GitFailure::Connection
        } else if has(&["mismatched algorithms", "object-format", "object format"]) {
            GitFailure::ObjectFormat
        } else if has(&[
            "not our ref",
            "unadvertised object",
            "couldn't find remote ref",
            "no such remote ref",
            "not a valid object",
            "bad object",
            "invalid object",
        ]) {
            GitFailure::CommitWithheld
        } else if has(&[
            "not found",
            "does not appear to be a git repository",
            "404",
            "repository not exported",
            "no such repository",
        ]) {
            GitFailure::NoRepository
        } else if has(&["does not exist in", "exists on disk, but not in", "path '"]) {
            GitFailure::NotInTree
        } else {
            match status.code() {
                Some(code) => GitFailure::Exited { code },
                None => GitFailure::Signalled,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ListedKind;
    use asv_error::Failure as _;
    use std::os::unix::process::ExitStatusExt as _;

    #[test]
    fn failures_are_said_in_our_words() {
        let failed = ExitStatus::from_raw(128 << 8);
        let cases = [
            (
                "fatal: could not read Username for 'https://h': terminal prompts disabled",
                "credentials",
            ),
            ("fatal: unable to get password from user", "credentials"),
            (
                "fatal: transport 'file' not allowed",
                "transport this tool does not allow",
            ),
            (
                "Host key verification failed.\nfatal: Could not read from remote repository.",
                "host key",
            ),
            (
                "fatal: unable to access 'https://h/': Could not resolve host: h",
                "did not resolve",
            ),
            (
                "fatal: unable to access 'https://h/': SSL certificate problem: unable to get local issuer certificate",
                "TLS",
            ),
            (
                "fatal: unable to access 'https://127.0.0.1:40395/c.git/': SSL certificate problem: unable to get local issuer certificate",
                "TLS",
            ),
            (
                "fatal: unable to access 'https://h/401/': server certificate verification failed",
                "TLS",
            ),
            (
                "fatal: unable to access 'https://h/': The requested URL returned error: 403",
                "credentials",
            ),
            (
                "fatal: unable to access 'https://h/': The requested URL returned error: 401",
                "credentials",
            ),
            (
                "fatal: repository 'https://h/x.git/' not found",
                "no such repository",
            ),
            (
                "fatal: remote error: upload-pack: not our ref 0123",
                "would not hand out",
            ),
            (
                "fatal: Could not read from remote repository.\n\nPlease make sure",
                "SSH connection failed",
            ),
        ];
        for (stderr, expected) in cases {
            let said = GitFailure::from_stderr(stderr.as_bytes(), failed).to_string();
            assert!(said.contains(expected), "{stderr:?} → {said}");
            assert!(!said.contains("fatal"), "never git's own words: {said}");
        }
        assert_eq!(
            GitFailure::from_stderr(b"something new", failed),
            GitFailure::Exited { code: 128 }
        );
        assert_eq!(
            GitFailure::from_stderr(b"", ExitStatus::from_raw(9)),
            GitFailure::Signalled
        );
    }

    const URL: &str = "https://git.example.com/team/c.git";
    const STOPPED: &str = "git was stopped and its temporary repository removed";

    fn file() -> FileAt {
        FileAt {
            path: "docs/a b.md".to_owned(),
            revision: "c0ffee".to_owned(),
        }
    }

    fn odd_file() -> FileAt {
        FileAt {
            path: "x\ty".to_owned(),
            revision: "c0ffee".to_owned(),
        }
    }

    fn step(reference: &str) -> Step {
        Step::LookUp {
            reference: reference.to_owned(),
        }
    }

    /// Every problem of a git source, as the binary prints it after `error: `, and its side.
    fn rows() -> Vec<(GitProblem, String, Side)> {
        use Side::{Environment, Input};
        vec![
            (
                GitProblem::TempDir {
                    parent: PathBuf::from("/tmp"),
                    error: ErrorKind::PermissionDenied,
                },
                "could not create a temporary directory under /tmp: permission denied; check the OS temporary directory (TMPDIR)".to_owned(),
                Environment,
            ),
            (
                GitProblem::Repository {
                    dir: PathBuf::from("/tmp/agentic-skill-git-1-x"),
                    error: ErrorKind::PermissionDenied,
                },
                "could not write the temporary repository in /tmp/agentic-skill-git-1-x: permission denied; check that the OS temporary directory (TMPDIR) is writable and has room".to_owned(),
                Environment,
            ),
            (
                GitProblem::GitMissing,
                "git was not found; a generic git source needs git installed and on PATH".to_owned(),
                Environment,
            ),
            (
                GitProblem::Spawn {
                    error: ErrorKind::OutOfMemory,
                },
                "git could not be started: out of memory".to_owned(),
                Environment,
            ),
            (
                GitProblem::Unwatched {
                    step: Step::Fetch {
                        revision: "c0ffee".to_owned(),
                    },
                },
                "fetching commit c0ffee: git could not be watched".to_owned(),
                Environment,
            ),
            (
                GitProblem::NotStopped {
                    step: Step::DefaultBranch,
                    reached: Some(Reached::Time {
                        limit: Duration::from_secs(120),
                    }),
                    group: 4242,
                    kept: Some(PathBuf::from("/tmp/agentic-skill-git-x")),
                },
                "asking which branch the repository hands out: the time limit of 120 s for one git source was reached, and the git process group 4242 could not be confirmed stopped, so its temporary repository /tmp/agentic-skill-git-x was kept rather than deleted; confirm that process group 4242 has stopped, then delete only that exact directory".to_owned(),
                Environment,
            ),
            (
                GitProblem::NotStopped {
                    step: step("main"),
                    reached: None,
                    group: 7,
                    kept: None,
                },
                "looking up ref main: git did not end cleanly, and the git process group 7 could not be confirmed stopped, so its temporary repository (already removed) was kept rather than deleted; confirm that process group 7 has stopped, then delete only that exact directory".to_owned(),
                Environment,
            ),
            (
                GitProblem::Failed {
                    step: Step::CreateRepository,
                    failure: GitFailure::Exited { code: 128 },
                },
                "creating the temporary repository failed: git exited with status 128".to_owned(),
                Environment,
            ),
            (
                GitProblem::ReadFailed {
                    file: file(),
                    failure: GitFailure::NotInTree,
                },
                "reading docs/a b.md at commit c0ffee failed: the file is not in that commit's tree".to_owned(),
                Environment,
            ),
            (
                GitProblem::Limit {
                    step: Step::Listing {
                        revision: "c0ffee".to_owned(),
                    },
                    reached: Reached::Repository {
                        limit: 256 * 1024 * 1024,
                    },
                },
                format!("the tree listing of commit c0ffee: the temporary repository grew past the limit of 256 MiB for one git source; {STOPPED}"),
                Environment,
            ),
            (
                GitProblem::Limit {
                    step: Step::File(odd_file()),
                    reached: Reached::Time {
                        limit: Duration::from_millis(1500),
                    },
                },
                format!("\"x\\ty\" at commit c0ffee: the time limit of 1.5 s for one git source was reached; {STOPPED}"),
                Environment,
            ),
            (
                GitProblem::Limit {
                    step: step("v1"),
                    reached: Reached::Output,
                },
                format!("looking up ref v1: git's answer was larger than this tool reads; {STOPPED}"),
                Environment,
            ),
            (
                GitProblem::FileTooLarge {
                    file: file(),
                    limit: 1024 * 1024,
                },
                format!("docs/a b.md at commit c0ffee is larger than the limit of 1 MiB for one file; {STOPPED}"),
                Environment,
            ),
            (
                GitProblem::TotalReached {
                    file: file(),
                    limit: 1000,
                },
                format!("reading docs/a b.md at commit c0ffee would take the files read from this source past the limit of 1000 bytes in all; {STOPPED}"),
                Environment,
            ),
            (
                GitProblem::Malformed {
                    step: Step::DefaultBranch,
                    line: "junk\tline".to_owned(),
                },
                "asking which branch the repository hands out: git answered a line this tool does not read, \"junk\\tline\"; refused".to_owned(),
                Environment,
            ),
            (
                GitProblem::FormatMismatch {
                    asked: ObjectFormat::Sha256,
                    have: ObjectFormat::Sha1,
                },
                "a sha256 commit was asked for from a sha1 repository; check the recorded revision".to_owned(),
                Input,
            ),
            (
                GitProblem::NotACommit {
                    revision: "c0ffee".to_owned(),
                    kind: "tree".to_owned(),
                },
                "c0ffee names a \"tree\", not a commit; name a branch, tag or commit".to_owned(),
                Input,
            ),
            (
                GitProblem::BadRevision {
                    revision: "xyz".to_owned(),
                    format: ObjectFormat::Sha1,
                },
                "\"xyz\" is not a 40-digit sha1 commit id; check the recorded revision".to_owned(),
                Input,
            ),
            (
                GitProblem::Ref(RefProblem::Unusable {
                    reference: "a..b".to_owned(),
                }),
                "ref \"a..b\" is not usable (letters, digits, '.', '_', '/', '-', starting and ending with a letter or digit, no '..' or '//'); name a branch, tag or commit".to_owned(),
                Input,
            ),
            (
                GitProblem::Ref(RefProblem::NoDefaultBranch { found: None }),
                "the repository names a default branch this tool cannot record, found none; name the ref explicitly".to_owned(),
                Environment,
            ),
            (
                GitProblem::Ref(RefProblem::NoDefaultBranch {
                    found: Some("refs/tags/v1".to_owned()),
                }),
                "the repository names a default branch this tool cannot record, found \"refs/tags/v1\"; name the ref explicitly".to_owned(),
                Environment,
            ),
            (
                GitProblem::Ref(RefProblem::Ambiguous {
                    reference: "main".to_owned(),
                    branch: "b1".to_owned(),
                    tag: "t1".to_owned(),
                }),
                "ref main names both a branch (commit b1) and a tag (commit t1); name the commit id instead".to_owned(),
                Input,
            ),
            (
                GitProblem::Ref(RefProblem::Unknown {
                    reference: "main".to_owned(),
                }),
                "ref main names no branch or tag of the repository; check the ref".to_owned(),
                Input,
            ),
            (
                GitProblem::Ref(RefProblem::ShortAmbiguous {
                    prefix: "c0ffee1".to_owned(),
                    commits: vec!["c0ffee1a".to_owned(), "c0ffee1b".to_owned()],
                }),
                "the short commit id c0ffee1 starts more than one commit (c0ffee1a, c0ffee1b); give more digits".to_owned(),
                Input,
            ),
            (
                GitProblem::Ref(RefProblem::ShortUnknown {
                    prefix: "c0ffee1".to_owned(),
                }),
                "the short commit id c0ffee1 starts no commit the repository's branches and tags reach, and names no branch or tag; check the id or give it whole".to_owned(),
                Input,
            ),
            (
                GitProblem::Entry(EntryProblem::NotAFile {
                    file: file(),
                    kind: ListedKind::Symlink,
                }),
                "docs/a b.md at commit c0ffee is listed as a symlink, and only an ordinary file (100644 or 100755) is read; refused rather than left out".to_owned(),
                Environment,
            ),
            (
                GitProblem::Entry(EntryProblem::Outside { file: odd_file() }),
                "\"x\\ty\" at commit c0ffee: the path does not stay inside the repository (an empty segment, a . or .. step, or a backslash); refused".to_owned(),
                Environment,
            ),
            (
                GitProblem::BadBlobId {
                    file: file(),
                    oid: "zz".to_owned(),
                    format: ObjectFormat::Sha256,
                },
                "docs/a b.md at commit c0ffee is listed with blob id \"zz\", not a 64-digit sha256 id; refused".to_owned(),
                Environment,
            ),
            (
                GitProblem::BlobMismatch {
                    file: file(),
                    listed: "aa".to_owned(),
                    got: "bb".to_owned(),
                },
                "docs/a b.md at commit c0ffee does not match its blob id: the listing gives aa, the bytes read hash to bb; refused".to_owned(),
                Environment,
            ),
            (
                GitProblem::ObjectMismatch {
                    id: "aa".to_owned(),
                    kind: "tag".to_owned(),
                    got: "bb".to_owned(),
                },
                "the tag object aa does not match its id: the bytes read hash to bb; refused"
                    .to_owned(),
                Environment,
            ),
            (
                GitProblem::NotRemoved {
                    cause: Box::new(GitProblem::GitMissing),
                    dir: PathBuf::from("/tmp/agentic-skill-git-y"),
                    error: ErrorKind::PermissionDenied,
                },
                "git was not found; a generic git source needs git installed and on PATH; the temporary repository /tmp/agentic-skill-git-y could not be removed (permission denied), delete that exact directory".to_owned(),
                Environment,
            ),
        ]
    }

    #[test]
    fn each_problem_is_worded_as_before_and_says_its_side() {
        for (problem, text, side) in rows() {
            let error = crate::Error::Git {
                url: URL.to_owned(),
                problem: Box::new(problem.clone()),
            };
            assert_eq!(error.to_string(), format!("git source {URL}: {text}"));
            assert_eq!(problem.side(), side, "{text}");
            assert_eq!(error.side(), side, "{text}");
            assert_eq!(error.location(), None, "{text}");
            // A stopped source repeats the refusal that stopped it, and its side.
            let stopped = crate::Error::GitStopped {
                url: URL.to_owned(),
                earlier: Box::new(problem),
            };
            assert_eq!(
                stopped.to_string(),
                format!(
                    "git source {URL}: stopped by an earlier refusal, nothing more is read from it (git source {URL}: {text})"
                )
            );
            assert_eq!(stopped.side(), side, "{text}");
        }
    }

    #[test]
    fn each_failure_is_worded_as_before() {
        let rows = [
            (
                GitFailure::TransportNotAllowed,
                "the URL leads to a transport this tool does not allow (only https and ssh are; a redirect or a url.insteadOf rewrite may have changed it)",
            ),
            (
                GitFailure::Credentials,
                "the server asked for credentials that are not available without a prompt; set up a credential helper or key, confirm that plain git reaches this URL without a prompt, and retry",
            ),
            (
                GitFailure::HostKey,
                "the SSH host key could not be verified without a prompt; connect once with plain ssh or git to confirm it, then retry",
            ),
            (
                GitFailure::SshRefused,
                "the SSH server refused the credentials; check the SSH key or agent with plain ssh, then retry",
            ),
            (
                GitFailure::SshFailed,
                "the SSH connection failed or was refused; confirm that plain ssh and git reach this URL without a prompt, then retry",
            ),
            (GitFailure::HostNotFound, "the host name did not resolve"),
            (
                GitFailure::Tls,
                "the TLS connection failed (the server's certificate was not accepted, or the handshake broke off)",
            ),
            (GitFailure::Connection, "the connection failed or broke off"),
            (
                GitFailure::ObjectFormat,
                "the repository's object format (sha1 or sha256) is not the one recorded",
            ),
            (
                GitFailure::CommitWithheld,
                "the server would not hand out that commit (unknown to it, or not reachable from its refs)",
            ),
            (
                GitFailure::NoRepository,
                "the server has no such repository, or does not show it without credentials",
            ),
            (
                GitFailure::NotInTree,
                "the file is not in that commit's tree",
            ),
            (GitFailure::Exited { code: 1 }, "git exited with status 1"),
            (GitFailure::Signalled, "git was ended by a signal"),
        ];
        for (failure, text) in rows {
            assert_eq!(failure.to_string(), text);
        }
    }
}
