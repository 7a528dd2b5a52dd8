//! The one error type of `asv-remote`, and the problem types its refusals carry.
//!
//! A refusal keeps the values it is about (the source, the step, the ref, the file, the limit,
//! git's exit status), never preformatted text; each problem's `Display` words it exactly as
//! earlier releases did, so the printed lines do not change. Text that came from elsewhere (a
//! URL, a ref, a path, a server's answer) is quoted and escaped onto one line when shown.

use std::fmt;
use std::io::ErrorKind;

use asv_error::quote::json_string;
use asv_error::{Failure, Location, Side};

use crate::EntryMode;

mod git;
mod github;

pub use git::{GitFailure, GitProblem, Reached, Step};
pub use github::{GitHubProblem, Host, ListingFault, RedirectTarget, Request, Unreached};

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

impl Failure for Error {
    /// Which side the failure lies with.
    ///
    /// A refusal whose remedy is to change what the user wrote (a URL, an owner or repository
    /// name, a ref, the token, a recorded revision) lies with the input; what a server answered
    /// or holds, a limit reached and a failure of this machine (git missing, a temporary
    /// directory, a process group) lie with the environment. A stopped source answers with the
    /// side of the refusal that stopped it; guarded tree access answers for itself.
    fn side(&self) -> Side {
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
    fn location(&self) -> Option<Location> {
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
    /// A short commit id (issue 29 §2) that starts more than one commit of the repository.
    ShortAmbiguous {
        /// The short id, as given.
        prefix: String,
        /// The commits it starts, sorted (at most a few are named).
        commits: Vec<String>,
    },
    /// A short commit id (issue 29 §2) that starts no commit the repository's branches and
    /// tags reach, and names no branch or tag.
    ShortUnknown {
        /// The short id, as given.
        prefix: String,
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
            | RefProblem::Unknown { .. }
            | RefProblem::ShortAmbiguous { .. }
            | RefProblem::ShortUnknown { .. } => Side::Input,
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
            RefProblem::ShortAmbiguous { prefix, commits } => write!(
                f,
                "the short commit id {prefix} starts more than one commit ({}); give more digits",
                commits.join(", ")
            ),
            RefProblem::ShortUnknown { prefix } => write!(
                f,
                "the short commit id {prefix} starts no commit the repository's branches and tags reach, and names no branch or tag; check the id or give it whole"
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

/// Text from elsewhere, quoted and escaped onto one line, and cut short if long.
fn shown(text: &str) -> String {
    const MAX: usize = 120;
    if text.chars().count() > MAX {
        let cut: String = text.chars().take(MAX).collect();
        format!("{cut:?}…")
    } else {
        format!("{text:?}")
    }
}

/// A listed path as written when it is plain, quoted and escaped when it is not.
fn shown_path(path: &str) -> String {
    if !path.is_empty()
        && path
            .chars()
            .all(|c| c.is_ascii_graphic() || c == ' ' || (!c.is_ascii() && !c.is_control()))
    {
        path.to_owned()
    } else {
        shown(path)
    }
}

/// A byte count as a person reads it: whole MiB as such, anything else in bytes.
pub(crate) struct Size(pub(crate) u64);

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
pub(crate) struct IoKind(pub(crate) ErrorKind);

impl fmt::Display for IoKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0.to_string().to_lowercase())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The refusals that name no transport's problem: a source refused before it is reached,
    /// a listing contracts cannot be taken from, and guarded tree access.
    #[test]
    fn each_refusal_is_worded_as_before_and_says_its_side() {
        let not_usable = "is not usable (letters, digits, '.', '_', '-', starting with a letter or digit); fix the source's repository";
        let rows = [
            (
                Error::GitUrl {
                    url: "-x y".to_owned(),
                    problem: UrlProblem::Unusable,
                },
                "git source \"-x y\": the URL is empty, option-like or holds whitespace or a control character; refused before git starts".to_owned(),
                Side::Input,
            ),
            (
                Error::GitUrl {
                    url: "rel/path".to_owned(),
                    problem: UrlProblem::NotAbsolute,
                },
                "git source \"rel/path\": a repository on this machine is named by its absolute path".to_owned(),
                Side::Input,
            ),
            (
                Error::GitHubName {
                    owner: "o/x".to_owned(),
                    repo: "r".to_owned(),
                    field: NameField::Owner,
                },
                format!("github source \"o/x\"/\"r\": the owner name \"o/x\" {not_usable}"),
                Side::Input,
            ),
            (
                Error::GitHubName {
                    owner: "o".to_owned(),
                    repo: ".r".to_owned(),
                    field: NameField::Repository,
                },
                format!("github source \"o\"/\".r\": the repository name \".r\" {not_usable}"),
                Side::Input,
            ),
            (
                Error::Listing {
                    name: "upstream".to_owned(),
                    problem: ListingProblem::Outside {
                        path: "contracts/a/conformance/../x".to_owned(),
                        dir: "contracts/a/conformance".to_owned(),
                    },
                },
                "upstream lists \"contracts/a/conformance/../x\" under contracts/a/conformance/, a path that does not stay inside the repository; nothing was taken".to_owned(),
                Side::Environment,
            ),
            (
                Error::Listing {
                    name: "upstream".to_owned(),
                    problem: ListingProblem::NotOrdinary {
                        path: "contracts/b.md".to_owned(),
                        mode: EntryMode::Symlink,
                    },
                },
                "upstream holds \"contracts/b.md\" as a symbolic link, where a contract or its tests would be; nothing was taken — ask the source to store ordinary files there".to_owned(),
                Side::Environment,
            ),
            (
                Error::Listing {
                    name: "upstream".to_owned(),
                    problem: ListingProblem::NotOrdinary {
                        path: "contracts/c/conformance".to_owned(),
                        mode: EntryMode::Submodule,
                    },
                },
                "upstream holds \"contracts/c/conformance\" as a submodule, where a contract or its tests would be; nothing was taken — ask the source to store ordinary files there".to_owned(),
                Side::Environment,
            ),
        ];
        for (error, text, side) in rows {
            assert_eq!(error.to_string(), text);
            assert_eq!(error.side(), side, "{text}");
            assert_eq!(error.location(), None, "{text}");
        }
    }

    #[test]
    fn guarded_tree_access_answers_for_itself() {
        let error = Error::from(asv_fs::Error::Symlink {
            path: "skills/a".to_owned(),
        });
        assert_eq!(error.side(), Side::Input);
        assert_eq!(error.location(), Some(Location::file("skills/a")));
    }

    #[test]
    fn sizes_and_shown_text() {
        assert_eq!(Size(1024 * 1024).to_string(), "1 MiB");
        assert_eq!(Size(100).to_string(), "100 bytes");
        assert_eq!(Size(0).to_string(), "0 bytes");
        assert_eq!(shown_path("docs/a b.md"), "docs/a b.md");
        assert_eq!(shown_path(""), "\"\"");
        assert_eq!(shown(&"é".repeat(121)), format!("\"{}\"…", "é".repeat(120)));
    }
}
