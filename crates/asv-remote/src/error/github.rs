//! The problems of a GitHub source: what it asked for, where a refused redirect led, why a
//! host could not be reached, and what it refused.

use std::fmt;
use std::io::ErrorKind;
use std::time::Duration;

use asv_error::Side;
use asv_model::source::ObjectFormat;

use super::{EntryProblem, FileAt, IoKind, RefProblem, Size, shown, shown_path};

/// Which of the two GitHub hosts a request goes to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Host {
    /// The API host (`https://api.github.com` unless a test points it elsewhere).
    Api,
    /// The raw-content host (`https://raw.githubusercontent.com` unless a test points it elsewhere).
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
    /// One page of the repository's tags (issue 29 §2: a semver range is picked from them).
    Tags {
        /// The 1-based page.
        page: u32,
    },
}

impl fmt::Display for Request {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Request::Repository => f.write_str("the repository"),
            Request::Ref { reference } => write!(f, "ref {reference}"),
            Request::Listing { revision } => write!(f, "the tree listing of commit {revision}"),
            Request::File(file) => file.fmt(f),
            Request::Tags { page } => write!(f, "page {page} of the tags"),
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
    /// The TLS handshake failed: the server's certificate was not accepted, or the handshake
    /// broke off; with the TLS library's words (which name the certificate problem, never a
    /// request's headers).
    Tls(String),
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
            Unreached::Tls(why) => write!(
                f,
                "the TLS connection failed ({}): the server's certificate was not accepted, or the handshake broke off",
                shown_path(why)
            ),
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
            | GitHubProblem::TooManyTags { .. }
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
        /// The URL asked (no token: that goes in a header).
        url: String,
        /// The time one request may take.
        limit: Duration,
    },
    /// A host could not be reached.
    Unreachable {
        /// What was asked for.
        request: Request,
        /// The URL asked (no token: that goes in a header).
        url: String,
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
    /// The repository has more tags than are read: a semver range is picked from all of
    /// them, never from part (issue 29 §2).
    TooManyTags {
        /// The most tags read.
        limit: usize,
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
            GitHubProblem::Timeout {
                request,
                url,
                limit,
            } => write!(
                f,
                "{request}: no complete answer from {url} within {} s; check the network and try again",
                limit.as_secs()
            ),
            GitHubProblem::Unreachable {
                request,
                url,
                detail,
            } => write!(
                f,
                "{request}: cannot reach {url}: {detail}; check the network and try again"
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
            GitHubProblem::TooManyTags { limit } => write!(
                f,
                "the repository has more than {limit} tags, and a semver range is picked from all of them; name a tag, branch or commit instead"
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ListedKind;
    use asv_error::Failure as _;

    fn file() -> FileAt {
        FileAt {
            path: "contracts/a.md".to_owned(),
            revision: "c0ffee".to_owned(),
        }
    }

    fn main() -> Request {
        Request::Ref {
            reference: "main".to_owned(),
        }
    }

    fn listing() -> Request {
        Request::Listing {
            revision: "c0ffee".to_owned(),
        }
    }

    fn refused(status: u16, authenticated: bool) -> GitHubProblem {
        GitHubProblem::Refused {
            request: Request::Repository,
            status,
            authenticated,
        }
    }

    fn unreachable(detail: Unreached) -> GitHubProblem {
        GitHubProblem::Unreachable {
            request: Request::Repository,
            url: "https://api.github.com/repos/o/r".to_owned(),
            detail,
        }
    }

    fn bad_listing(fault: ListingFault) -> GitHubProblem {
        GitHubProblem::BadListing {
            request: listing(),
            fault,
        }
    }

    /// Every problem of a GitHub source, as the binary prints it after `error: `, and its side.
    fn rows() -> Vec<(GitHubProblem, &'static str, Side)> {
        use Side::{Environment, Input};
        let redirect = |to| GitHubProblem::Redirect {
            request: Request::Repository,
            status: 301,
            to,
        };
        vec![
            (
                GitHubProblem::TokenCharacter { position: 3 },
                "the token has a character that cannot go into a request header at position 3; check what is piped to --token-stdin",
                Input,
            ),
            (
                GitHubProblem::TokenHeader,
                "the token cannot go into a request header; check what is piped to --token-stdin",
                Input,
            ),
            (
                redirect(RedirectTarget::Withheld),
                "the repository: answered 301, redirecting to a location not shown, since an answer to an authenticated request may repeat the token; the redirect was refused, since this tool talks only to api.github.com and raw.githubusercontent.com and follows no redirect; a renamed or transferred repository redirects, so register it under its current owner/repo",
                Environment,
            ),
            (
                redirect(RedirectTarget::Missing),
                "the repository: answered 301, redirecting to no location; the redirect was refused, since this tool talks only to api.github.com and raw.githubusercontent.com and follows no redirect; a renamed or transferred repository redirects, so register it under its current owner/repo",
                Environment,
            ),
            (
                redirect(RedirectTarget::At("https://h/x y".to_owned())),
                "the repository: answered 301, redirecting to \"https://h/x y\"; the redirect was refused, since this tool talks only to api.github.com and raw.githubusercontent.com and follows no redirect; a renamed or transferred repository redirects, so register it under its current owner/repo",
                Environment,
            ),
            (
                GitHubProblem::TooLarge {
                    request: Request::File(file()),
                    host: Host::Raw,
                    limit: 1024 * 1024,
                },
                "contracts/a.md at commit c0ffee: the answer is larger than 1048576 bytes, over the limit of 1 MiB; a contract source holds small text files, so keep each file taken under the limit",
                Environment,
            ),
            (
                GitHubProblem::TooLarge {
                    request: main(),
                    host: Host::Api,
                    limit: 1024,
                },
                "ref main: the answer is larger than 1024 bytes, over the limit of 1024 bytes; the repository is too large to list in one answer; keep contracts in a smaller repository",
                Environment,
            ),
            (
                GitHubProblem::Timeout {
                    request: main(),
                    url: "https://api.github.com/repos/o/r/commits/main".to_owned(),
                    limit: Duration::from_secs(30),
                },
                "ref main: no complete answer from https://api.github.com/repos/o/r/commits/main within 30 s; check the network and try again",
                Environment,
            ),
            (
                unreachable(Unreached::HostNotFound),
                "the repository: cannot reach https://api.github.com/repos/o/r: the host name did not resolve; check the network and try again",
                Environment,
            ),
            (
                unreachable(Unreached::ConnectionFailed),
                "the repository: cannot reach https://api.github.com/repos/o/r: the connection failed; check the network and try again",
                Environment,
            ),
            (
                unreachable(Unreached::Tls(
                    "invalid peer certificate: UnknownIssuer".to_owned(),
                )),
                "the repository: cannot reach https://api.github.com/repos/o/r: the TLS connection failed (invalid peer certificate: UnknownIssuer): the server's certificate was not accepted, or the handshake broke off; check the network and try again",
                Environment,
            ),
            (
                unreachable(Unreached::Io(ErrorKind::ConnectionReset)),
                "the repository: cannot reach https://api.github.com/repos/o/r: connection reset; check the network and try again",
                Environment,
            ),
            (
                unreachable(Unreached::Stalled),
                "the repository: cannot reach https://api.github.com/repos/o/r: the answer stalled; check the network and try again",
                Environment,
            ),
            (
                unreachable(Unreached::Withheld),
                "the repository: cannot reach https://api.github.com/repos/o/r: the authenticated request failed (details left out so they cannot repeat the token); check the network and try again",
                Environment,
            ),
            (
                unreachable(Unreached::Other("odd\nfailure".to_owned())),
                "the repository: cannot reach https://api.github.com/repos/o/r: \"odd\\nfailure\"; check the network and try again",
                Environment,
            ),
            (
                refused(404, true),
                "the repository was not found (404); check the token piped to --token-stdin: a wrong or expired token makes a repository and even its public files look absent, and so does a token without access to a private repository",
                Environment,
            ),
            (
                refused(404, false),
                "the repository was not found (404); check the repository name and the ref, and pipe a token to --token-stdin if the repository is private",
                Environment,
            ),
            (
                refused(401, true),
                "the repository was refused (401); the token piped to --token-stdin was not accepted, so check that it is valid and has not expired",
                Environment,
            ),
            (
                refused(401, false),
                "the repository was refused (401); pipe a token with access to the repository to --token-stdin",
                Environment,
            ),
            (
                refused(429, true),
                "the repository was refused (429); the token piped to --token-stdin may not reach this repository or its rate limit may be exhausted, and a proxy or egress filter answers the same way; check the token, or wait for the limit to reset",
                Environment,
            ),
            (
                refused(403, false),
                "the repository was refused (403); unauthenticated requests are rate limited by the hour, and a proxy or egress filter answers the same way; wait for the limit to reset, or pipe a token to --token-stdin",
                Environment,
            ),
            (
                refused(422, true),
                "the repository names no commit in the repository (422); check the ref",
                Input,
            ),
            (
                refused(500, false),
                "the repository: answered 500; try again later",
                Environment,
            ),
            (
                GitHubProblem::NotAnObject {
                    request: Request::Repository,
                },
                "the repository: the answer is not a json object; try again later",
                Environment,
            ),
            (
                GitHubProblem::NotJson {
                    request: Request::Repository,
                },
                "the repository: the answer is not readable json; try again later",
                Environment,
            ),
            (
                GitHubProblem::BadRevision {
                    revision: "xyz".to_owned(),
                    format: ObjectFormat::Sha256,
                },
                "commit \"xyz\" is not a 64-digit lowercase hex id; fix the pin in the lock",
                Input,
            ),
            (
                GitHubProblem::Ref(RefProblem::NoDefaultBranch {
                    found: Some("a b".to_owned()),
                }),
                "the repository names a default branch this tool cannot record, found \"a b\"; name the ref explicitly",
                Environment,
            ),
            (
                GitHubProblem::Ref(RefProblem::Unusable {
                    reference: "-x".to_owned(),
                }),
                "ref \"-x\" is not usable (letters, digits, '.', '_', '/', '-', starting and ending with a letter or digit, no '..' or '//'); name a branch, tag or commit",
                Input,
            ),
            (
                GitHubProblem::NotACommitId {
                    request: main(),
                    found: "nope".to_owned(),
                },
                "ref main: the answer is not a commit id, found \"nope\"; try again later",
                Environment,
            ),
            (
                GitHubProblem::OtherCommit {
                    request: main(),
                    answered: "def".to_owned(),
                },
                "ref main: the answer names a different commit, def; check the commit id",
                Environment,
            ),
            (
                GitHubProblem::Truncated { request: listing() },
                "the tree listing of commit c0ffee was truncated by github, so the repository holds more files than one listing carries and what it holds cannot be known; keep contracts in a smaller repository",
                Environment,
            ),
            (
                GitHubProblem::TooManyTags { limit: 10_000 },
                "the repository has more than 10000 tags, and a semver range is picked from all of them; name a tag, branch or commit instead",
                Environment,
            ),
            (
                GitHubProblem::NoTree { request: listing() },
                "the tree listing of commit c0ffee: the answer holds no tree; try again later",
                Environment,
            ),
            (
                bad_listing(ListingFault::NotObject),
                "the tree listing of commit c0ffee: an entry is not an object; the answer is not a tree listing, try again later",
                Environment,
            ),
            (
                bad_listing(ListingFault::NoPath),
                "the tree listing of commit c0ffee: an entry has no path; the answer is not a tree listing, try again later",
                Environment,
            ),
            (
                bad_listing(ListingFault::BadMode {
                    path: "a".to_owned(),
                    mode: "999".to_owned(),
                }),
                "the tree listing of commit c0ffee: \"a\" is listed with mode \"999\"; the answer is not a tree listing, try again later",
                Environment,
            ),
            (
                bad_listing(ListingFault::NoMode {
                    path: "a".to_owned(),
                }),
                "the tree listing of commit c0ffee: \"a\" is listed with no mode; the answer is not a tree listing, try again later",
                Environment,
            ),
            (
                bad_listing(ListingFault::NoId {
                    path: "a".to_owned(),
                    len: 40,
                }),
                "the tree listing of commit c0ffee: \"a\" is listed with no 40-digit object id; the answer is not a tree listing, try again later",
                Environment,
            ),
            (
                GitHubProblem::Entry(EntryProblem::NotAFile {
                    file: file(),
                    kind: ListedKind::Submodule,
                }),
                "contracts/a.md at commit c0ffee is listed as a submodule, and only an ordinary file (100644 or 100755) is read; refused rather than left out",
                Environment,
            ),
            (
                GitHubProblem::Entry(EntryProblem::NotAFile {
                    file: file(),
                    kind: ListedKind::Directory,
                }),
                "contracts/a.md at commit c0ffee is listed as a directory, and only an ordinary file (100644 or 100755) is read; refused rather than left out",
                Environment,
            ),
            (
                GitHubProblem::BlobMismatch {
                    file: file(),
                    listed: "zz".to_owned(),
                    got: "bb".to_owned(),
                },
                "contracts/a.md at commit c0ffee does not match its blob id: the listing gives \"zz\", the bytes served hash to bb; refused, try again later",
                Environment,
            ),
        ]
    }

    #[test]
    fn each_problem_is_worded_as_before_and_says_its_side() {
        for (problem, text, side) in rows() {
            assert_eq!(problem.side(), side, "{text}");
            let error = crate::Error::GitHub {
                owner: "o".to_owned(),
                repo: "r".to_owned(),
                problem: Box::new(problem),
            };
            assert_eq!(error.to_string(), format!("github source o/r: {text}"));
            assert_eq!(error.side(), side, "{text}");
            assert_eq!(error.location(), None, "{text}");
        }
    }
}
