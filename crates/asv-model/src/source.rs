//! Sources: other repositories contracts are taken from, and the values that name them.
//!
//! Four values reach places a loose value must not: a source name becomes a directory under
//! the cache and a key in the lock; a repository and a ref go into the request the fetching
//! commands make (a URL, or an argument of `git`); a revision names a directory of the cache.
//! Each is checked here against an allowlist, so a shape nobody thought of is refused rather
//! than passed through, and every command asks the same question the same way.
//!
//! The repository forms follow the TypeScript tool: `owner/repo` (the GitHub API), and for
//! generic git `ssh://…`, scp-style `user@host:path` and `https://…` only. The URL forms are
//! judged by a small parser of our own rather than a URL crate: what is accepted is a narrow
//! subset of WHATWG URLs, and the policy (which parts may be there at all) is the point, not the
//! parsing. Where an exotic spelling would need the full WHATWG machinery to judge (a host
//! needing IDNA, `https:` followed by more than two slashes, a numeric host that is not a plain
//! dotted quad) it is refused, never accepted: this side is at most stricter than the
//! TypeScript tool, never looser.
//!
//! ```
//! use asv_model::source::{RepositoryKind, RepositorySpec, SourceName};
//!
//! let spec = RepositorySpec::parse("ba0918/agentic-workflow").unwrap();
//! assert!(matches!(spec.kind(), RepositoryKind::GitHub { owner, .. } if owner == "ba0918"));
//! assert_eq!(spec.default_source_name().unwrap().as_str(), "agentic-workflow");
//!
//! let spec = RepositorySpec::parse("git@example.com:team/contracts.git").unwrap();
//! assert_eq!(spec.as_str(), "git@example.com:team/contracts.git");
//! assert_eq!(spec.default_source_name().unwrap().as_str(), "contracts");
//!
//! assert!(RepositorySpec::parse("https://user:secret@example.com/team/x.git").is_err());
//! assert!(SourceName::parse("local").is_err());
//! ```

use std::borrow::Borrow;
use std::fmt;

use crate::declaration::is_js_whitespace;

/// The source name that stands for this repository itself, reserved.
pub const LOCAL_SOURCE: &str = "local";

/// The longest source name accepted.
pub const MAX_SOURCE_NAME_LEN: usize = 64;

/// A registered source's name: `^[a-z0-9][a-z0-9._-]*$`, at most 64 characters, no `..`, and
/// not `local` (which names this repository).
///
/// The name is a directory under the cache and a key of the lock, so it is held to the shape a
/// contract id is held to, for the same reason.
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SourceName(String);

/// Why a text is not a usable source name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SourceNameProblem {
    /// Empty text.
    Empty,
    /// Longer than [`MAX_SOURCE_NAME_LEN`].
    TooLong,
    /// A character outside `a-z0-9._-`, or a first character outside `a-z0-9`.
    BadCharacter,
    /// Contains `..`.
    DotDot,
    /// `local`, which names this repository's own contracts.
    Reserved,
}

impl fmt::Display for SourceNameProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            SourceNameProblem::Empty => "it is empty",
            SourceNameProblem::TooLong => "it is longer than 64 characters",
            SourceNameProblem::BadCharacter => {
                "a source name starts with a-z or 0-9 and holds only a-z, 0-9, '.', '_' and '-'"
            }
            SourceNameProblem::DotDot => "it contains \"..\"",
            SourceNameProblem::Reserved => "local is reserved for this repository's own contracts",
        })
    }
}

impl SourceName {
    /// Checks `text` against the source-name rule.
    ///
    /// # Errors
    /// The [`SourceNameProblem`] that rules it out.
    ///
    /// # Example
    /// ```
    /// use asv_model::source::SourceName;
    /// assert_eq!(SourceName::parse("workflow").unwrap().as_str(), "workflow");
    /// assert!(SourceName::parse("Workflow").is_err());
    /// ```
    pub fn parse(text: &str) -> Result<Self, SourceNameProblem> {
        let bytes = text.as_bytes();
        let Some(&first) = bytes.first() else {
            return Err(SourceNameProblem::Empty);
        };
        if text == LOCAL_SOURCE {
            return Err(SourceNameProblem::Reserved);
        }
        if text.len() > MAX_SOURCE_NAME_LEN {
            return Err(SourceNameProblem::TooLong);
        }
        if !(first.is_ascii_lowercase() || first.is_ascii_digit())
            || !bytes.iter().all(|&b| {
                b.is_ascii_lowercase() || b.is_ascii_digit() || matches!(b, b'.' | b'_' | b'-')
            })
        {
            return Err(SourceNameProblem::BadCharacter);
        }
        if text.contains("..") {
            return Err(SourceNameProblem::DotDot);
        }
        Ok(SourceName(text.to_owned()))
    }

    /// The name as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for SourceName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl fmt::Debug for SourceName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.0, f)
    }
}

impl AsRef<str> for SourceName {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

impl Borrow<str> for SourceName {
    fn borrow(&self) -> &str {
        &self.0
    }
}

/// Which transport a repository is reached through, with the parts each needs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RepositoryKind {
    /// `owner/repo`: the GitHub API and raw-content hosts, over HTTPS.
    GitHub {
        /// The owner (user or organisation).
        owner: String,
        /// The repository name.
        repo: String,
    },
    /// `ssh://…`, handed to git as written.
    Ssh {
        /// The URL exactly as written.
        url: String,
    },
    /// `user@host:path`, handed to git as written.
    Scp {
        /// The user before `@`.
        user: String,
        /// The host between `@` and `:`.
        host: String,
        /// The path after the first `:`.
        path: String,
    },
    /// `https://…` without credentials, handed to git as written.
    Https {
        /// The URL exactly as written.
        url: String,
    },
}

/// A repository a source is registered at: one of the allowlisted forms, with its text kept
/// exactly as written (it is never normalised).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RepositorySpec {
    text: String,
    kind: RepositoryKind,
}

/// Why a repository text is refused. The text itself is never repeated, since it may carry a
/// credential.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RepositoryProblem {
    /// A C0 control character or DEL.
    ControlCharacter,
    /// Whitespace.
    Whitespace,
    /// A backslash.
    Backslash,
    /// A `%` (percent-encoding) in a URL.
    Percent,
    /// `http://`.
    PlainHttp,
    /// `file:` or a local path.
    LocalPath,
    /// `git://`.
    GitProtocol,
    /// A remote helper such as `ext::`.
    RemoteHelper,
    /// Text starting with `-`, or a URL whose host or user starts with `-`.
    OptionLike,
    /// A user name, password or token in an `https://` URL.
    Credentials,
    /// A password in an `ssh://` URL.
    Password,
    /// A query or fragment in a URL.
    QueryOrFragment,
    /// A URL with no repository path (nothing, or `/` only).
    NoPath,
    /// A URL whose host is missing or not a plain host name or address.
    BadHost,
    /// A URL whose port is not a number up to 65535.
    BadPort,
    /// None of the accepted forms.
    Unrecognized,
}

impl fmt::Display for RepositoryProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            RepositoryProblem::ControlCharacter => "it holds a control character",
            RepositoryProblem::Whitespace => "it holds whitespace",
            RepositoryProblem::Backslash => "it holds a backslash",
            RepositoryProblem::Percent => "it holds a %, and percent-encoded URLs are not accepted",
            RepositoryProblem::PlainHttp => "plain http:// is not accepted",
            RepositoryProblem::LocalPath => "local paths and file: URLs are not accepted",
            RepositoryProblem::GitProtocol => "git:// is not accepted",
            RepositoryProblem::RemoteHelper => "remote helpers such as ext:: are not accepted",
            RepositoryProblem::OptionLike => {
                "it, its user or its host starts with -, which git would read as an option"
            }
            RepositoryProblem::Credentials => {
                "an https:// URL may not carry a user name, password or token; leave credentials to a credential helper"
            }
            RepositoryProblem::Password => {
                "an ssh:// URL may not carry a password; leave authentication to ssh keys or an agent"
            }
            RepositoryProblem::QueryOrFragment => "a URL may not carry a query or a fragment",
            RepositoryProblem::NoPath => "the URL names no repository path",
            RepositoryProblem::BadHost => "the URL's host is missing or not a plain host name",
            RepositoryProblem::BadPort => "the URL's port is not a number up to 65535",
            RepositoryProblem::Unrecognized => {
                "it is none of owner/repo, ssh://…, user@host:path and https://…"
            }
        })
    }
}

impl RepositorySpec {
    /// Judges `text` against the allowlisted repository forms.
    ///
    /// # Errors
    /// The [`RepositoryProblem`] that rules it out; its message never repeats the text.
    ///
    /// # Example
    /// ```
    /// use asv_model::source::{RepositoryProblem, RepositorySpec};
    /// assert!(RepositorySpec::parse("https://example.com/team/contracts.git").is_ok());
    /// assert_eq!(
    ///     RepositorySpec::parse("http://example.com/team/contracts.git"),
    ///     Err(RepositoryProblem::PlainHttp)
    /// );
    /// ```
    pub fn parse(text: &str) -> Result<Self, RepositoryProblem> {
        if text.chars().any(|c| c <= '\u{1f}' || c == '\u{7f}') {
            return Err(RepositoryProblem::ControlCharacter);
        }
        if let Some((owner, repo)) = github_form(text) {
            return Ok(RepositorySpec {
                text: text.to_owned(),
                kind: RepositoryKind::GitHub {
                    owner: owner.to_owned(),
                    repo: repo.to_owned(),
                },
            });
        }
        if let Some((user, host, path)) = scp_form(text) {
            return Ok(RepositorySpec {
                text: text.to_owned(),
                kind: RepositoryKind::Scp {
                    user: user.to_owned(),
                    host: host.to_owned(),
                    path: path.to_owned(),
                },
            });
        }
        if let Some(rest) = text.strip_prefix("https://") {
            let url = judge_url(text, rest, true)?;
            if !url.username.is_empty() || !url.password.is_empty() {
                return Err(RepositoryProblem::Credentials);
            }
            return Ok(RepositorySpec {
                text: text.to_owned(),
                kind: RepositoryKind::Https {
                    url: text.to_owned(),
                },
            });
        }
        if let Some(rest) = text.strip_prefix("ssh://") {
            let url = judge_url(text, rest, false)?;
            if !url.password.is_empty() {
                return Err(RepositoryProblem::Password);
            }
            return Ok(RepositorySpec {
                text: text.to_owned(),
                kind: RepositoryKind::Ssh {
                    url: text.to_owned(),
                },
            });
        }
        Err(unrecognized(text))
    }

    /// The repository exactly as written.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// The form it was written in, with its parts.
    pub fn kind(&self) -> &RepositoryKind {
        &self.kind
    }

    /// Whether it is the `owner/repo` form (the GitHub API), rather than generic git.
    pub fn is_github(&self) -> bool {
        matches!(self.kind, RepositoryKind::GitHub { .. })
    }

    /// The source name `add` uses when none is given: the last path component with a
    /// trailing `.git` removed; `None` when that is not a usable source name.
    pub fn default_source_name(&self) -> Option<SourceName> {
        default_source_name(self)
    }
}

impl fmt::Display for RepositorySpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

impl std::str::FromStr for RepositorySpec {
    type Err = RepositoryProblem;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        RepositorySpec::parse(s)
    }
}

/// The source name `add` uses when none is given: the repository's last path component with a
/// trailing `.git` removed; `None` when that is not a usable source name (the caller then asks
/// for an explicit one).
///
/// # Example
/// ```
/// use asv_model::source::{RepositorySpec, default_source_name};
/// let spec = RepositorySpec::parse("ssh://git@example.com/team/contracts.git").unwrap();
/// assert_eq!(default_source_name(&spec).unwrap().as_str(), "contracts");
/// let spec = RepositorySpec::parse("https://example.com/team/Contracts.git").unwrap();
/// assert_eq!(default_source_name(&spec), None);
/// ```
pub fn default_source_name(spec: &RepositorySpec) -> Option<SourceName> {
    let last = match &spec.kind {
        RepositoryKind::GitHub { repo, .. } => repo.clone(),
        RepositoryKind::Scp { path, .. } => path.rsplit('/').next().unwrap_or_default().to_owned(),
        RepositoryKind::Ssh { url } | RepositoryKind::Https { url } => {
            let rest = url.split_once("://").map_or("", |(_, r)| r);
            let pathname = pathname_of(rest);
            pathname.rsplit('/').next().unwrap_or_default().to_owned()
        }
    };
    let name = last.strip_suffix(".git").unwrap_or(&last);
    SourceName::parse(name).ok()
}

fn is_name_char(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-')
}

/// `^[A-Za-z0-9][A-Za-z0-9._-]*$`
fn is_github_part(s: &str) -> bool {
    s.as_bytes()
        .first()
        .is_some_and(|b| b.is_ascii_alphanumeric())
        && s.bytes().all(is_name_char)
}

/// `^[A-Za-z0-9][A-Za-z0-9._-]*/[A-Za-z0-9][A-Za-z0-9._-]*$`
fn github_form(text: &str) -> Option<(&str, &str)> {
    let (owner, repo) = text.split_once('/')?;
    (is_github_part(owner) && is_github_part(repo)).then_some((owner, repo))
}

/// `^[A-Za-z0-9._][A-Za-z0-9._-]*@[A-Za-z0-9][A-Za-z0-9._-]*:[^\s\\:]+(?:/[^\s\\:]+)*$`, the
/// TypeScript tool's scp-style pattern (`\s` in JavaScript's sense).
fn scp_form(text: &str) -> Option<(&str, &str, &str)> {
    let (user, rest) = text.split_once('@')?;
    let (host, path) = rest.split_once(':')?;
    let user_ok = user
        .as_bytes()
        .first()
        .is_some_and(|&b| b.is_ascii_alphanumeric() || b == b'.' || b == b'_')
        && user.bytes().all(is_name_char);
    let path_ok = !path.is_empty()
        && !path
            .chars()
            .any(|c| is_js_whitespace(c) || c == '\\' || c == ':');
    (user_ok && is_github_part(host) && path_ok).then_some((user, host, path))
}

fn unrecognized(text: &str) -> RepositoryProblem {
    let lower = text.to_ascii_lowercase();
    if text.starts_with('-') {
        RepositoryProblem::OptionLike
    } else if lower.starts_with("http://") {
        RepositoryProblem::PlainHttp
    } else if lower.starts_with("git://") {
        RepositoryProblem::GitProtocol
    } else if lower.starts_with("file:")
        || text.starts_with('/')
        || text.starts_with('.')
        || text.starts_with('~')
    {
        RepositoryProblem::LocalPath
    } else if text.contains("::") {
        RepositoryProblem::RemoteHelper
    } else if text.chars().any(is_js_whitespace) {
        RepositoryProblem::Whitespace
    } else {
        RepositoryProblem::Unrecognized
    }
}

/// The parts of an accepted URL the policy asks about.
struct UrlParts<'a> {
    username: &'a str,
    password: &'a str,
}

/// The WHATWG `pathname` of `rest` (a URL after `scheme://`), dot segments resolved.
fn pathname_of(rest: &str) -> String {
    let path_start = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let after = &rest[path_start..];
    let path_end = after.find(['?', '#']).unwrap_or(after.len());
    normalize_path(&after[..path_end])
}

/// Resolves `.` and `..` segments as the WHATWG path parser does; `""` stays `""`.
fn normalize_path(path: &str) -> String {
    let Some(body) = path.strip_prefix('/') else {
        return path.to_owned();
    };
    let segments: Vec<&str> = body.split('/').collect();
    let mut out: Vec<&str> = Vec::new();
    for (i, seg) in segments.iter().enumerate() {
        let last = i + 1 == segments.len();
        match *seg {
            ".." => {
                out.pop();
                if last {
                    out.push("");
                }
            }
            "." => {
                if last {
                    out.push("");
                }
            }
            s => out.push(s),
        }
    }
    format!("/{}", out.join("/"))
}

/// Judges an `ssh://` or `https://` URL (`rest` is what follows `scheme://`).
fn judge_url<'a>(
    text: &str,
    rest: &'a str,
    special: bool,
) -> Result<UrlParts<'a>, RepositoryProblem> {
    if text.contains('\\') {
        return Err(RepositoryProblem::Backslash);
    }
    if text.chars().any(is_js_whitespace) {
        return Err(RepositoryProblem::Whitespace);
    }
    if text.contains('%') {
        return Err(RepositoryProblem::Percent);
    }
    // WHATWG skips any further slashes after `https://`; judging what that means for the host
    // is not worth it, so the spelling is refused.
    if special && rest.starts_with('/') {
        return Err(RepositoryProblem::BadHost);
    }
    let authority_end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let authority = &rest[..authority_end];
    let after = &rest[authority_end..];
    let (userinfo, hostport) = match authority.rfind('@') {
        Some(i) => (&authority[..i], &authority[i + 1..]),
        None => ("", authority),
    };
    let (username, password) = userinfo.split_once(':').unwrap_or((userinfo, ""));
    let (host, port) = split_host_port(hostport)?;
    judge_host(host, special)?;
    if !port.bytes().all(|b| b.is_ascii_digit()) || port.parse::<u64>().is_ok_and(|p| p > 65535) {
        return Err(RepositoryProblem::BadPort);
    }
    if host.starts_with('-') || username.starts_with('-') {
        return Err(RepositoryProblem::OptionLike);
    }
    let path_end = after.find(['?', '#']).unwrap_or(after.len());
    let (path, tail) = after.split_at(path_end);
    let (query, fragment) = match tail.strip_prefix('?') {
        Some(q) => q.split_once('#').unwrap_or((q, "")),
        None => ("", tail.strip_prefix('#').unwrap_or("")),
    };
    if !query.is_empty() || !fragment.is_empty() {
        return Err(RepositoryProblem::QueryOrFragment);
    }
    let pathname = if special && path.is_empty() {
        "/".to_owned()
    } else {
        normalize_path(path)
    };
    if pathname.is_empty() || pathname == "/" {
        return Err(RepositoryProblem::NoPath);
    }
    Ok(UrlParts { username, password })
}

fn split_host_port(hostport: &str) -> Result<(&str, &str), RepositoryProblem> {
    if hostport.starts_with('[') {
        let close = hostport.find(']').ok_or(RepositoryProblem::BadHost)?;
        let (host, rest) = hostport.split_at(close + 1);
        if rest.is_empty() {
            return Ok((host, ""));
        }
        let port = rest.strip_prefix(':').ok_or(RepositoryProblem::BadHost)?;
        return Ok((host, port));
    }
    Ok(hostport.split_once(':').unwrap_or((hostport, "")))
}

fn judge_host(host: &str, special: bool) -> Result<(), RepositoryProblem> {
    if host.is_empty() {
        return Err(RepositoryProblem::BadHost);
    }
    if let Some(inner) = host.strip_prefix('[') {
        let inner = inner.strip_suffix(']').ok_or(RepositoryProblem::BadHost)?;
        let ok = inner.contains(':')
            && inner
                .bytes()
                .all(|b| b.is_ascii_hexdigit() || b == b':' || b == b'.');
        return if ok {
            Ok(())
        } else {
            Err(RepositoryProblem::BadHost)
        };
    }
    const FORBIDDEN: &[char] = &[
        ' ', '#', '/', ':', '<', '>', '?', '@', '[', '\\', ']', '^', '|', '%',
    ];
    if host.chars().any(|c| FORBIDDEN.contains(&c)) {
        return Err(RepositoryProblem::BadHost);
    }
    if special {
        // An https host goes through IDNA and the IPv4 parser in WHATWG; only plain ASCII
        // names and dotted quads are judged here, everything else is refused.
        if !host.is_ascii() {
            return Err(RepositoryProblem::BadHost);
        }
        let labels: Vec<&str> = host.strip_suffix('.').unwrap_or(host).split('.').collect();
        let last = labels.last().copied().unwrap_or_default();
        let numeric = |l: &str| !l.is_empty() && l.bytes().all(|b| b.is_ascii_digit());
        let hexish = last.len() >= 2 && (last.starts_with("0x") || last.starts_with("0X"));
        if numeric(last) || hexish {
            let quad = labels.len() == 4
                && labels.iter().all(|l| {
                    numeric(l) && l.len() <= 3 && l.parse::<u16>().is_ok_and(|v| v <= 255)
                });
            if !quad {
                return Err(RepositoryProblem::BadHost);
            }
        }
    }
    Ok(())
}

/// Whether `text` is a usable ref (branch, tag or commit id):
/// `^[A-Za-z0-9][A-Za-z0-9._/-]*[A-Za-z0-9]$` or one alphanumeric character, with no `..` and
/// no `//`.
///
/// # Example
/// ```
/// use asv_model::source::is_usable_ref;
/// assert!(is_usable_ref("release/2.x"));
/// assert!(!is_usable_ref("-main"));
/// ```
pub fn is_usable_ref(text: &str) -> bool {
    let b = text.as_bytes();
    let ends_ok = match b {
        [] => false,
        [one] => one.is_ascii_alphanumeric(),
        [first, .., last] => first.is_ascii_alphanumeric() && last.is_ascii_alphanumeric(),
    };
    ends_ok
        && b.iter().all(|&c| is_name_char(c) || c == b'/')
        && !text.contains("..")
        && !text.contains("//")
}

/// A ref a source is registered with: a branch, tag or commit id (see [`is_usable_ref`]).
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Ref(String);

impl Ref {
    /// Checks `text` with [`is_usable_ref`]; `None` when it is not usable.
    pub fn parse(text: &str) -> Option<Self> {
        is_usable_ref(text).then(|| Ref(text.to_owned()))
    }

    /// The ref as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for Ref {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl fmt::Debug for Ref {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.0, f)
    }
}

/// A repository's object format, which fixes the length of its commit ids.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ObjectFormat {
    /// SHA-1: 40 hex digits (the lock carries no `objectFormat`).
    Sha1,
    /// SHA-256: 64 hex digits (the lock carries `"objectFormat": "sha256"`).
    Sha256,
}

impl ObjectFormat {
    /// `sha1` or `sha256`, as git (and the lock's `objectFormat`) names it.
    pub fn name(self) -> &'static str {
        match self {
            ObjectFormat::Sha1 => "sha1",
            ObjectFormat::Sha256 => "sha256",
        }
    }

    /// The number of hex digits of a commit id in this format.
    pub fn hex_len(self) -> usize {
        match self {
            ObjectFormat::Sha1 => 40,
            ObjectFormat::Sha256 => 64,
        }
    }
}

/// A commit id a source is pinned at: lowercase hex, 40 digits (SHA-1) or 64 (SHA-256).
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Revision {
    hex: String,
    format: ObjectFormat,
}

impl Revision {
    /// Checks `text` as a commit id of `format`; `None` when it is not exactly that many
    /// lowercase hex digits.
    ///
    /// # Example
    /// ```
    /// use asv_model::source::{ObjectFormat, Revision};
    /// let hex = "9f1b7c2d4e5a60718293a4b5c6d7e8f90a1b2c3d";
    /// assert!(Revision::parse(hex, ObjectFormat::Sha1).is_some());
    /// assert!(Revision::parse(hex, ObjectFormat::Sha256).is_none());
    /// ```
    pub fn parse(text: &str, format: ObjectFormat) -> Option<Self> {
        (text.len() == format.hex_len()
            && text
                .bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b)))
        .then(|| Revision {
            hex: text.to_owned(),
            format,
        })
    }

    /// The commit id as lowercase hex.
    pub fn as_str(&self) -> &str {
        &self.hex
    }

    /// Its object format.
    pub fn format(&self) -> ObjectFormat {
        self.format
    }
}

impl fmt::Display for Revision {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.hex)
    }
}

impl fmt::Debug for Revision {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}({:?})", self.hex, self.format)
    }
}

/// How many hex digits a commit id or a digest is shown with where a person reads it: twelve,
/// as git abbreviates on a repository of any size worth naming. A whole id stays in JSON and in
/// every file this tool writes.
pub const SHORT_HEX: usize = 12;

/// `text` as a person reads it: a whole commit id (40 or 64 hex digits) cut to its first
/// [`SHORT_HEX`] digits, a digest or tree hash (`sha256:` and 64 hex digits) to `sha256:` and
/// twelve; anything else (a branch, a tag, a short id already) as it is.
pub fn short(text: &str) -> &str {
    let hex = |s: &str| s.bytes().all(|b| b.is_ascii_hexdigit());
    match text.strip_prefix("sha256:") {
        Some(rest) if rest.len() == 64 && hex(rest) => &text[..7 + SHORT_HEX],
        None if (text.len() == 40 || text.len() == 64) && hex(text) => &text[..SHORT_HEX],
        _ => text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whole_ids_and_digests_are_shown_short() {
        let sha1 = "0123456789abcdef0123456789abcdef01234567";
        let sha256 = "ab".repeat(32);
        let digest = format!("sha256:{sha256}");
        assert_eq!(short(sha1), "0123456789ab");
        assert_eq!(short(&sha256), "abababababab");
        assert_eq!(short(&digest), "sha256:abababababab");
        // Anything that is not a whole id stays as it is.
        for kept in [
            "main",
            "v1.2.0",
            "0123456",
            "sha256:abc",
            &sha1[..39],
            "g123456789abcdef0123456789abcdef01234567",
        ] {
            assert_eq!(short(kept), kept);
        }
    }

    #[test]
    fn source_names() {
        let long = "a".repeat(64);
        let too_long = "a".repeat(65);
        for ok in ["workflow", "a", "0", "a.b_c-d", "123", long.as_str()] {
            assert!(SourceName::parse(ok).is_ok(), "{ok}");
        }
        let rows: &[(&str, SourceNameProblem)] = &[
            ("", SourceNameProblem::Empty),
            ("local", SourceNameProblem::Reserved),
            (too_long.as_str(), SourceNameProblem::TooLong),
            ("Workflow", SourceNameProblem::BadCharacter),
            ("-w", SourceNameProblem::BadCharacter),
            (".w", SourceNameProblem::BadCharacter),
            ("_w", SourceNameProblem::BadCharacter),
            ("a/b", SourceNameProblem::BadCharacter),
            ("a b", SourceNameProblem::BadCharacter),
            ("é", SourceNameProblem::BadCharacter),
            ("a..b", SourceNameProblem::DotDot),
        ];
        for (bad, problem) in rows {
            assert_eq!(SourceName::parse(bad), Err(*problem), "{bad:?}");
        }
    }

    #[test]
    fn repositories_accepted() {
        let rows: &[(&str, &str)] = &[
            ("ba0918/agentic-workflow", "github"),
            ("a/b", "github"),
            ("A.b_c-d/R.e_p-o", "github"),
            ("owner/repo.git", "github"),
            ("ssh://git@example.com/group/repository.git", "ssh"),
            ("ssh://example.com/group/repository.git", "ssh"),
            ("ssh://git@example.com:2222/group/repository.git", "ssh"),
            ("ssh://git:@example.com/group/repository.git", "ssh"),
            ("ssh://git@[::1]:22/repo.git", "ssh"),
            ("ssh://git@example.com/~user/repo.git", "ssh"),
            ("git@example.com:group/repository.git", "scp"),
            ("git@example.com:/srv/repository.git", "scp"),
            ("_u.x@host-1.example:r", "scp"),
            ("git@ex_ample.com:r%20?#", "scp"),
            ("https://example.com/group/repository.git", "https"),
            ("https://example.com:8443/group/repository.git", "https"),
            ("https://127.0.0.1/group/repository.git", "https"),
            ("https://EXAMPLE.com/a", "https"),
            ("https://example.com/a?", "https"),
            ("https://example.com/a#", "https"),
        ];
        for (text, kind) in rows {
            let spec = RepositorySpec::parse(text).unwrap_or_else(|e| panic!("{text}: {e}"));
            assert_eq!(spec.as_str(), *text);
            let found = match spec.kind() {
                RepositoryKind::GitHub { .. } => "github",
                RepositoryKind::Ssh { .. } => "ssh",
                RepositoryKind::Scp { .. } => "scp",
                RepositoryKind::Https { .. } => "https",
            };
            assert_eq!(found, *kind, "{text}");
        }
        assert_eq!(
            RepositorySpec::parse("git@example.com:group/r.git")
                .unwrap()
                .kind(),
            &RepositoryKind::Scp {
                user: "git".into(),
                host: "example.com".into(),
                path: "group/r.git".into()
            }
        );
        assert_eq!(
            RepositorySpec::parse("o/r").unwrap().kind(),
            &RepositoryKind::GitHub {
                owner: "o".into(),
                repo: "r".into()
            }
        );
    }

    #[test]
    fn repositories_refused() {
        use RepositoryProblem as P;
        let rows: &[(&str, RepositoryProblem)] = &[
            (
                "https://user@example.com/group/repository.git",
                P::Credentials,
            ),
            (
                "https://user:@example.com/group/repository.git",
                P::Credentials,
            ),
            (
                "https://:secret@example.com/group/repository.git",
                P::Credentials,
            ),
            (
                "https://example.com:secret@example.net/group/repository.git",
                P::Credentials,
            ),
            (
                "ssh://git:secret@example.com/group/repository.git",
                P::Password,
            ),
            ("http://example.com/group/repository.git", P::PlainHttp),
            ("HTTP://example.com/group/repository.git", P::PlainHttp),
            ("file:///tmp/repository.git", P::LocalPath),
            ("git://example.com/group/repository.git", P::GitProtocol),
            ("ext::command repository", P::RemoteHelper),
            ("ext::sh", P::RemoteHelper),
            ("./repository", P::LocalPath),
            ("../repository", P::LocalPath),
            ("/tmp/repository", P::LocalPath),
            ("~/repository", P::LocalPath),
            ("-option", P::OptionLike),
            ("-user@example.com:group/repository.git", P::OptionLike),
            ("--upload-pack=x", P::OptionLike),
            ("ssh://git@-host/group/repository.git", P::OptionLike),
            (
                "ssh://-user@example.com/group/repository.git",
                P::OptionLike,
            ),
            ("https://-host.example/group/repository.git", P::OptionLike),
            (
                "ssh://git@exam\nple.com/group/repository.git",
                P::ControlCharacter,
            ),
            (
                "https://example.com/group/repository.git\u{0}",
                P::ControlCharacter,
            ),
            (
                "git@example.com:group/repository.git\u{1f}",
                P::ControlCharacter,
            ),
            (
                "ssh://git@example.com/group/repository.git\u{7f}",
                P::ControlCharacter,
            ),
            ("owner/repo\t", P::ControlCharacter),
            ("https://example.com/group repository.git", P::Whitespace),
            ("https://example.com/group/repo\u{a0}", P::Whitespace),
            ("owner/ repo", P::Whitespace),
            ("https://example.com/group/repo%2e.git", P::Percent),
            ("ssh://git@example.com/%2e%2e/x", P::Percent),
            ("https://example.com\\group/repo", P::Backslash),
            ("https://example.com/group/repo?x=1", P::QueryOrFragment),
            ("https://example.com/group/repo#frag", P::QueryOrFragment),
            ("ssh://example.com/group/repo?x", P::QueryOrFragment),
            ("https://example.com", P::NoPath),
            ("https://example.com/", P::NoPath),
            ("https://example.com/repo/..", P::NoPath),
            ("ssh://example.com", P::NoPath),
            ("ssh://example.com/", P::NoPath),
            ("ssh://git@example.com:22", P::NoPath),
            ("https:///example.com/repo", P::BadHost),
            ("https://@/repo", P::BadHost),
            ("ssh:///repo", P::BadHost),
            ("https://exa<mple.com/repo", P::BadHost),
            ("https://bücher.example/repo", P::BadHost),
            ("https://1.2.3.999/repo", P::BadHost),
            ("https://example.123/repo", P::BadHost),
            ("https://[zz]/repo", P::BadHost),
            ("https://example.com:99999/repo", P::BadPort),
            ("https://example.com:8x/repo", P::BadPort),
            ("", P::Unrecognized),
            ("owner", P::Unrecognized),
            ("owner/repo/extra", P::Unrecognized),
            ("-owner/repo", P::OptionLike),
            ("owner/-repo", P::Unrecognized),
            ("git@example.com:", P::Unrecognized),
            ("git@example.com:a:b", P::Unrecognized),
            ("git@example.com:a\\b", P::Unrecognized),
            ("git@_example.com:a", P::Unrecognized),
            ("git@example.com:a b", P::Whitespace),
            ("svn+ssh://example.com/repo", P::Unrecognized),
        ];
        for (text, problem) in rows {
            assert_eq!(RepositorySpec::parse(text), Err(*problem), "{text:?}");
        }
    }

    #[test]
    fn refusals_never_repeat_the_text() {
        let marker = "obviously-fake-credential-marker";
        let problem =
            RepositorySpec::parse(&format!("https://user:{marker}@example.com/group/r.git"))
                .unwrap_err();
        assert!(!problem.to_string().contains(marker));
    }

    #[test]
    fn default_names() {
        let rows: &[(&str, Option<&str>)] = &[
            ("ba0918/repository", Some("repository")),
            ("ba0918/repository.git", Some("repository")),
            (
                "ssh://git@example.com/group/repository.git",
                Some("repository"),
            ),
            ("git@example.com:group/repository.git", Some("repository")),
            ("git@example.com:repository", Some("repository")),
            (
                "https://example.com/group/repository.git",
                Some("repository"),
            ),
            ("https://example.com/group/repository", Some("repository")),
            ("https://example.com/./repository", Some("repository")),
            ("https://example.com/group/Repository.git", None),
            ("https://example.com/group/repository.git/", None),
            ("https://example.com/group/local", None),
            ("git@example.com:group/x.git/", None),
            ("git@example.com:group/.git", None),
            ("https://example.com/group/a..b.git", None),
        ];
        for (text, name) in rows {
            let spec = RepositorySpec::parse(text).unwrap();
            assert_eq!(
                default_source_name(&spec).as_ref().map(SourceName::as_str),
                *name,
                "{text}"
            );
        }
    }

    #[test]
    fn refs() {
        for ok in [
            "main",
            "a",
            "0",
            "release/2.x",
            "v1.2.3",
            "feature_x-y",
            "9f1b7c2d4e5a60718293a4b5c6d7e8f90a1b2c3d",
        ] {
            assert!(is_usable_ref(ok), "{ok}");
            assert_eq!(Ref::parse(ok).unwrap().as_str(), ok);
        }
        for bad in [
            "", "-main", "main-", ".main", "main.", "a..b", "a//b", "/main", "main/", "ma in",
            "ma:in", "ma~in", "ma^in", "ma@{1}", "é", "_", "a_",
        ] {
            assert!(!is_usable_ref(bad), "{bad:?}");
            assert!(Ref::parse(bad).is_none());
        }
    }

    #[test]
    fn revisions() {
        let sha1 = "9f1b7c2d4e5a60718293a4b5c6d7e8f90a1b2c3d";
        let sha256 = "0db72a1f69edeaabea98e6cb01de7218947c0dc6390800d38edf9270a7c88986";
        let rows: &[(&str, ObjectFormat, bool)] = &[
            (sha1, ObjectFormat::Sha1, true),
            (sha256, ObjectFormat::Sha256, true),
            (sha256, ObjectFormat::Sha1, false),
            (sha1, ObjectFormat::Sha256, false),
            (
                "9F1B7C2D4E5A60718293A4B5C6D7E8F90A1B2C3D",
                ObjectFormat::Sha1,
                false,
            ),
            (
                "9f1b7c2d4e5a60718293a4b5c6d7e8f90a1b2c3",
                ObjectFormat::Sha1,
                false,
            ),
            (
                "9f1b7c2d4e5a60718293a4b5c6d7e8f90a1b2c3g",
                ObjectFormat::Sha1,
                false,
            ),
            ("", ObjectFormat::Sha1, false),
        ];
        for (text, format, ok) in rows {
            let parsed = Revision::parse(text, *format);
            assert_eq!(parsed.is_some(), *ok, "{text} {format:?}");
            if let Some(r) = parsed {
                assert_eq!(r.as_str(), *text);
                assert_eq!(r.format(), *format);
            }
        }
    }
}
