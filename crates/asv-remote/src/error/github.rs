//! The problems of a GitHub source: what it asked for, where a refused redirect led, why a
//! host could not be reached, and what it refused.

use std::fmt;
use std::io::ErrorKind;
use std::time::Duration;

use asv_fs::Side;

use super::{EntryProblem, FileAt, IoKind, RefProblem, Size, shown};
use crate::ObjectFormat;

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
