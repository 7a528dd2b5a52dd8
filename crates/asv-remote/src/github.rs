//! The GitHub API transport.
//!
//! An `owner/repo` source is read over HTTPS from two fixed hosts and nowhere else: the API
//! ([`API_HOST`]) answers which branch the repository hands out, which commit a ref names and
//! what a commit's tree lists; the raw-content host ([`RAW_HOST`]) serves one file at a
//! commit. No redirect is followed — a followed chain would leave "two fixed hosts" true of
//! its first request only — so a 3xx refuses the run. Every body is read against a cap
//! ([`FILE_LIMIT`], [`LISTING_LIMIT`]) counted in bytes actually taken off the wire, and every
//! file is checked against the blob id its own commit's listing gives.
//!
//! A token, when given, goes into the `Authorization` header of every request to the two
//! fixed hosts (a private repository answers neither host without it) and nowhere else: no
//! message, no `Debug` output, no file. A refused authenticated request says to look at the
//! token, since a wrong or expired one makes even public files answer 404.

use crate::ids::{check_readable, is_hex_id, mode_of, shown, shown_path};
use std::fmt;
use std::time::Duration;

use serde_json::Value;

use crate::{Commit, Error, ObjectFormat, Result, Transport, TreeEntry, blob_id};

/// The API host.
pub const API_HOST: &str = "https://api.github.com";
/// The host serving one file's bytes at a commit.
pub const RAW_HOST: &str = "https://raw.githubusercontent.com";
/// The most bytes read for one file.
pub const FILE_LIMIT: u64 = 1024 * 1024;
/// The most bytes read for one API answer (a tree listing above all).
pub const LISTING_LIMIT: u64 = 8 * 1024 * 1024;
/// The most bytes read for the commit id a ref names (a bare 40- or 64-digit answer).
const SHA_LIMIT: u64 = 1024;
/// The longest one request may take, connection and body included.
pub const REQUEST_TIMEOUT: Duration = Duration::from_secs(30);
/// The `User-Agent` of every request.
pub const USER_AGENT: &str = "agentic-skill-vendor";

const API_ACCEPT: &str = "application/vnd.github+json";
const SHA_ACCEPT: &str = "application/vnd.github.sha";
const API_VERSION: &str = "2022-11-28";

/// The token, held for one run: never shown, never written.
#[derive(Clone)]
struct Secret(String);

/// An `owner/repo` source read through the GitHub API and the raw-content host.
pub struct GitHub {
    owner: String,
    repo: String,
    token: Option<Secret>,
    api: String,
    raw: String,
    agent: ureq::Agent,
}

impl fmt::Debug for GitHub {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("GitHub")
            .field("owner", &self.owner)
            .field("repo", &self.repo)
            .field("token", &self.token.as_ref().map(|_| "<redacted>"))
            .field("api", &self.api)
            .field("raw", &self.raw)
            .finish_non_exhaustive()
    }
}

/// Which of the two hosts a request goes to.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Host {
    Api,
    Raw,
}

impl GitHub {
    /// The source `owner/repo` on github.com, with an optional token (already judged by
    /// [`crate::token::Token`]; it is checked again here to be printable ASCII, since it
    /// becomes a header value).
    ///
    /// # Errors
    /// An owner or repository name outside `[A-Za-z0-9][A-Za-z0-9._-]*`; a token that cannot
    /// be a header value.
    pub fn new(owner: &str, repo: &str, token: Option<String>) -> Result<GitHub> {
        GitHub::build(owner, repo, token, API_HOST, RAW_HOST, true)
    }

    /// The same source served from other base URLs (`http://127.0.0.1:…` in tests). Built
    /// only with debug assertions: a release build has no way to point this transport
    /// anywhere but the two fixed hosts.
    ///
    /// # Errors
    /// As [`GitHub::new`].
    #[doc(hidden)]
    #[cfg(debug_assertions)]
    pub fn with_endpoints(
        api: &str,
        raw: &str,
        owner: &str,
        repo: &str,
        token: Option<String>,
    ) -> Result<GitHub> {
        GitHub::build(
            owner,
            repo,
            token,
            api.trim_end_matches('/'),
            raw.trim_end_matches('/'),
            false,
        )
    }

    fn build(
        owner: &str,
        repo: &str,
        token: Option<String>,
        api: &str,
        raw: &str,
        fixed_hosts: bool,
    ) -> Result<GitHub> {
        for (what, name) in [("owner", owner), ("repository", repo)] {
            if !is_name(name) {
                return Err(Error::Remote(format!(
                    "github source {}/{}: the {what} name {} is not usable (letters, digits, '.', '_', '-', starting with a letter or digit); fix the source's repository",
                    shown(owner),
                    shown(repo),
                    shown(name)
                )));
            }
        }
        if let Some(token) = &token
            && let Some(at) = token.bytes().position(|b| !(0x21..=0x7e).contains(&b))
        {
            return Err(Error::Environment(format!(
                "github source {owner}/{repo}: the token has a character that cannot go into a request header at position {}; check what is piped to --token-stdin",
                at + 1
            )));
        }
        let mut config = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .max_redirects(0)
            .https_only(fixed_hosts)
            .user_agent(USER_AGENT)
            .timeout_global(Some(REQUEST_TIMEOUT));
        if !fixed_hosts {
            // Test endpoints are local: no proxy from the environment stands in between.
            config = config.proxy(None);
        }
        Ok(GitHub {
            owner: owner.to_owned(),
            repo: repo.to_owned(),
            token: token.map(Secret),
            api: api.to_owned(),
            raw: raw.to_owned(),
            agent: config.build().into(),
        })
    }

    /// The source as it is written, `owner/repo`.
    pub fn repository(&self) -> String {
        format!("{}/{}", self.owner, self.repo)
    }

    /// Whether requests carry a token.
    pub fn authenticated(&self) -> bool {
        self.token.is_some()
    }

    /// Every message opens with the source it is about.
    fn prefix(&self) -> String {
        format!("github source {}/{}", self.owner, self.repo)
    }

    /// `/repos/{owner}/{repo}`, encoded.
    fn repos_path(&self) -> String {
        format!(
            "/repos/{}/{}",
            encode_segment(&self.owner),
            encode_segment(&self.repo)
        )
    }

    /// One GET to one of the two hosts, its body read up to `limit` bytes.
    fn get(
        &self,
        host: Host,
        path: &str,
        accept: Option<&str>,
        limit: u64,
        what: &str,
    ) -> Result<Vec<u8>> {
        let base = match host {
            Host::Api => &self.api,
            Host::Raw => &self.raw,
        };
        let mut request = self.agent.get(format!("{base}{path}"));
        if let Some(accept) = accept {
            request = request
                .header("Accept", accept)
                .header("X-GitHub-Api-Version", API_VERSION);
        }
        if let Some(Secret(token)) = &self.token {
            let mut value = ureq::http::HeaderValue::from_str(&format!("Bearer {token}"))
                .map_err(|_| {
                    Error::Environment(format!(
                        "{}: the token cannot go into a request header; check what is piped to --token-stdin",
                        self.prefix()
                    ))
                })?;
            value.set_sensitive(true);
            request = request.header(ureq::http::header::AUTHORIZATION, value);
        }
        let response = request
            .call()
            .map_err(|e| self.transport_failure(&e, what))?;
        let status = response.status().as_u16();
        if (300..400).contains(&status) {
            let to = if self.token.is_some() {
                "a location not shown, since an answer to an authenticated request may repeat the token".to_owned()
            } else {
                response
                    .headers()
                    .get(ureq::http::header::LOCATION)
                    .map_or_else(
                        || "no location".to_owned(),
                        |l| shown(&String::from_utf8_lossy(l.as_bytes())),
                    )
            };
            return Err(Error::Remote(format!(
                "{}: {what}: answered {status}, redirecting to {to}; the redirect was refused, since this tool talks only to api.github.com and raw.githubusercontent.com and follows no redirect; a renamed or transferred repository redirects, so register it under its current owner/repo",
                self.prefix()
            )));
        }
        if !(200..300).contains(&status) {
            return Err(self.refused(status, what));
        }
        response
            .into_body()
            .into_with_config()
            .limit(limit)
            .read_to_vec()
            .map_err(|e| match e {
                ureq::Error::BodyExceedsLimit(_) => Error::Limit(format!(
                    "{}: {what}: the answer is larger than {limit} bytes, over the limit of {}; {}",
                    self.prefix(),
                    size(limit),
                    match host {
                        Host::Raw => "a contract source holds small text files, so keep each file taken under the limit",
                        Host::Api => "the repository is too large to list in one answer; keep contracts in a smaller repository",
                    }
                )),
                other => self.transport_failure(&other, what),
            })
    }

    /// A failed request, named without anything that could repeat the token.
    fn transport_failure(&self, error: &ureq::Error, what: &str) -> Error {
        if let ureq::Error::Timeout(_) = error {
            return Error::Limit(format!(
                "{}: {what}: no complete answer within {} s; check the network and try again",
                self.prefix(),
                REQUEST_TIMEOUT.as_secs()
            ));
        }
        let detail = match error {
            ureq::Error::HostNotFound => "the host name did not resolve".to_owned(),
            ureq::Error::ConnectionFailed => "the connection failed".to_owned(),
            ureq::Error::Io(e) => format!("{}", e.kind()).to_lowercase(),
            ureq::Error::BodyStalled => "the answer stalled".to_owned(),
            _ if self.token.is_some() => {
                "the authenticated request failed (details left out so they cannot repeat the token)"
                    .to_owned()
            }
            other => shown(&other.to_string()),
        };
        Error::Remote(format!(
            "{}: {what}: cannot reach github: {detail}; check the network and try again",
            self.prefix()
        ))
    }

    /// A non-2xx, non-3xx answer, with the likeliest causes for its status.
    fn refused(&self, status: u16, what: &str) -> Error {
        let prefix = self.prefix();
        let authenticated = self.token.is_some();
        let message = match (status, authenticated) {
            (404, true) => format!(
                "{prefix}: {what} was not found (404); check the token piped to --token-stdin: a wrong or expired token makes a repository and even its public files look absent, and so does a token without access to a private repository"
            ),
            (404, false) => format!(
                "{prefix}: {what} was not found (404); check the repository name and the ref, and pipe a token to --token-stdin if the repository is private"
            ),
            (401, true) => format!(
                "{prefix}: {what} was refused (401); the token piped to --token-stdin was not accepted, so check that it is valid and has not expired"
            ),
            (401, false) => format!(
                "{prefix}: {what} was refused (401); pipe a token with access to the repository to --token-stdin"
            ),
            (403 | 429, true) => format!(
                "{prefix}: {what} was refused ({status}); the token piped to --token-stdin may not reach this repository or its rate limit may be exhausted, and a proxy or egress filter answers the same way; check the token, or wait for the limit to reset"
            ),
            (403 | 429, false) => format!(
                "{prefix}: {what} was refused ({status}); unauthenticated requests are rate limited by the hour, and a proxy or egress filter answers the same way; wait for the limit to reset, or pipe a token to --token-stdin"
            ),
            (422, _) => {
                format!("{prefix}: {what} names no commit in the repository (422); check the ref")
            }
            _ => format!("{prefix}: {what}: answered {status}; try again later"),
        };
        Error::Remote(message)
    }

    /// An API answer read as a JSON object.
    fn get_object(&self, path: &str, what: &str) -> Result<serde_json::Map<String, Value>> {
        let bytes = self.get(Host::Api, path, Some(API_ACCEPT), LISTING_LIMIT, what)?;
        match serde_json::from_slice::<Value>(&bytes) {
            Ok(Value::Object(map)) => Ok(map),
            Ok(_) => Err(Error::Remote(format!(
                "{}: {what}: the answer is not a json object; try again later",
                self.prefix()
            ))),
            Err(_) => Err(Error::Remote(format!(
                "{}: {what}: the answer is not readable json; try again later",
                self.prefix()
            ))),
        }
    }

    /// The revision of `commit`, checked to be an object id before it becomes part of a URL.
    fn revision_of<'c>(&self, commit: &'c Commit) -> Result<&'c str> {
        let len = match commit.format {
            ObjectFormat::Sha1 => 40,
            ObjectFormat::Sha256 => 64,
        };
        if is_hex_id(&commit.revision, len) {
            Ok(&commit.revision)
        } else {
            Err(Error::Remote(format!(
                "{}: commit {} is not a {len}-digit lowercase hex id; fix the pin in the lock",
                self.prefix(),
                shown(&commit.revision)
            )))
        }
    }
}

impl Transport for GitHub {
    fn default_branch(&mut self) -> Result<String> {
        let what = "the repository";
        let document = self.get_object(&self.repos_path(), what)?;
        match document.get("default_branch") {
            Some(Value::String(branch)) if asv_model::source::is_usable_ref(branch) => {
                Ok(branch.clone())
            }
            found => Err(Error::Remote(format!(
                "{}: the repository names a default branch this tool cannot record, found {}; name the ref explicitly",
                self.prefix(),
                match found {
                    None => "none".to_owned(),
                    Some(Value::String(text)) => shown(text),
                    Some(other) => shown(&other.to_string()),
                }
            ))),
        }
    }

    fn resolve(&mut self, reference: &str) -> Result<Commit> {
        if !asv_model::source::is_usable_ref(reference) {
            return Err(Error::Remote(format!(
                "{}: ref {} is not usable (letters, digits, '.', '_', '/', '-', starting and ending with a letter or digit, no '..' or '//'); name a branch, tag or commit",
                self.prefix(),
                shown(reference)
            )));
        }
        let what = format!("ref {reference}");
        let path = format!("{}/commits/{}", self.repos_path(), encode_path(reference));
        let bytes = self.get(Host::Api, &path, Some(SHA_ACCEPT), SHA_LIMIT, &what)?;
        let text = String::from_utf8_lossy(&bytes);
        let sha = text.trim_end_matches(['\n', '\r']);
        let format = if is_hex_id(sha, 40) {
            ObjectFormat::Sha1
        } else if is_hex_id(sha, 64) {
            ObjectFormat::Sha256
        } else {
            return Err(Error::Remote(format!(
                "{}: {what}: the answer is not a commit id, found {}; try again later",
                self.prefix(),
                shown(sha)
            )));
        };
        if (is_hex_id(reference, 40) || is_hex_id(reference, 64)) && sha != reference {
            return Err(Error::Remote(format!(
                "{}: {what}: the answer names a different commit, {sha}; check the commit id",
                self.prefix()
            )));
        }
        Ok(Commit {
            revision: sha.to_owned(),
            format,
        })
    }

    fn list(&mut self, commit: &Commit) -> Result<Vec<TreeEntry>> {
        let revision = self.revision_of(commit)?;
        let what = format!("the tree listing of commit {revision}");
        let path = format!(
            "{}/git/trees/{}?recursive=1",
            self.repos_path(),
            encode_segment(revision)
        );
        let document = self.get_object(&path, &what)?;
        // A listing cut short reads exactly like a repository holding fewer files.
        if document.get("truncated") == Some(&Value::Bool(true)) {
            return Err(Error::Limit(format!(
                "{}: {what} was truncated by github, so the repository holds more files than one listing carries and what it holds cannot be known; keep contracts in a smaller repository",
                self.prefix()
            )));
        }
        let Some(Value::Array(items)) = document.get("tree") else {
            return Err(Error::Remote(format!(
                "{}: {what}: the answer holds no tree; try again later",
                self.prefix()
            )));
        };
        let id_len = match commit.format {
            ObjectFormat::Sha1 => 40,
            ObjectFormat::Sha256 => 64,
        };
        let mut entries = Vec::with_capacity(items.len());
        for item in items {
            let malformed = |detail: String| {
                Error::Remote(format!(
                    "{}: {what}: {detail}; the answer is not a tree listing, try again later",
                    self.prefix()
                ))
            };
            let Value::Object(item) = item else {
                return Err(malformed("an entry is not an object".to_owned()));
            };
            let Some(Value::String(path)) = item.get("path") else {
                return Err(malformed("an entry has no path".to_owned()));
            };
            let mode = match item.get("mode") {
                Some(Value::String(mode)) => mode_of(mode).ok_or_else(|| {
                    malformed(format!(
                        "{} is listed with mode {}",
                        shown(path),
                        shown(mode)
                    ))
                })?,
                _ => return Err(malformed(format!("{} is listed with no mode", shown(path)))),
            };
            let oid = match item.get("sha") {
                Some(Value::String(oid)) if is_hex_id(oid, id_len) => oid.clone(),
                _ => {
                    return Err(malformed(format!(
                        "{} is listed with no {id_len}-digit object id",
                        shown(path)
                    )));
                }
            };
            entries.push(TreeEntry {
                path: path.clone(),
                mode,
                oid,
            });
        }
        Ok(entries)
    }

    fn read(&mut self, commit: &Commit, entry: &TreeEntry) -> Result<Vec<u8>> {
        let revision = self.revision_of(commit)?;
        let path = &entry.path;
        let what = format!("{} at commit {revision}", shown_path(path));
        check_readable(&self.prefix(), &what, entry)?;
        let url_path = format!(
            "/{}/{}/{}/{}",
            encode_segment(&self.owner),
            encode_segment(&self.repo),
            encode_segment(revision),
            encode_path(path)
        );
        let bytes = self.get(Host::Raw, &url_path, None, FILE_LIMIT, &what)?;
        let got = blob_id(commit.format, &bytes);
        if got != entry.oid {
            return Err(Error::Remote(format!(
                "{}: {what} does not match its blob id: the listing gives {}, the bytes served hash to {got}; refused, try again later",
                self.prefix(),
                shown(&entry.oid)
            )));
        }
        Ok(bytes)
    }
}

/// An owner or repository name: `[A-Za-z0-9][A-Za-z0-9._-]*`.
fn is_name(name: &str) -> bool {
    let mut bytes = name.bytes();
    bytes.next().is_some_and(|b| b.is_ascii_alphanumeric())
        && bytes.all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'))
}

/// One URL path segment: every byte outside the unreserved set percent-encoded.
fn encode_segment(segment: &str) -> String {
    let mut out = String::with_capacity(segment.len());
    for b in segment.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~') {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// A `/`-separated path, each segment encoded and the separators kept.
fn encode_path(path: &str) -> String {
    path.split('/')
        .map(encode_segment)
        .collect::<Vec<_>>()
        .join("/")
}

/// A byte count as a person reads it.
fn size(bytes: u64) -> String {
    if bytes.is_multiple_of(1024 * 1024) {
        format!("{} MiB", bytes / (1024 * 1024))
    } else {
        format!("{bytes} bytes")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::EntryMode;
    use crate::take::is_inside;

    #[test]
    fn refs_and_names() {
        // The table's rule (as the TypeScript tool's): a single character is a usable ref too.
        for ok in ["main", "release/2.x", "v1.0.0", "a1", "feature/x-y_z", "a"] {
            assert!(asv_model::source::is_usable_ref(ok), "{ok}");
        }
        for bad in [
            "", "-x", "x-", "a..b", "a//b", "/a", "a/", "a b", "a\nb", "a~1", "a:b",
        ] {
            assert!(!asv_model::source::is_usable_ref(bad), "{bad:?}");
        }
        assert!(is_name("ba0918") && is_name("agentic-skill-vendor") && is_name("a.b_c"));
        assert!(!is_name("") && !is_name(".x") && !is_name("a/b") && !is_name("a b"));
    }

    #[test]
    fn modes_read_as_git_reads_them() {
        assert_eq!(mode_of("100644"), Some(EntryMode::File));
        assert_eq!(mode_of("100664"), Some(EntryMode::File));
        assert_eq!(mode_of("100755"), Some(EntryMode::Executable));
        assert_eq!(mode_of("120000"), Some(EntryMode::Symlink));
        assert_eq!(mode_of("160000"), Some(EntryMode::Submodule));
        assert_eq!(mode_of("040000"), Some(EntryMode::Tree));
        assert_eq!(mode_of("40000"), Some(EntryMode::Tree));
        for bad in ["", "abc", "100648", "000000", "1006440", "+10644"] {
            assert_eq!(mode_of(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn paths_are_encoded_by_segment() {
        assert_eq!(encode_path("release/2.x"), "release/2.x");
        assert_eq!(encode_path("docs/a b#?.md"), "docs/a%20b%23%3F.md");
        assert_eq!(encode_path("é"), "%C3%A9");
        assert!(is_inside("a/b.md") && !is_inside("a//b") && !is_inside("../a"));
        assert!(!is_inside("a/./b") && !is_inside("a\\b") && !is_inside(""));
    }

    #[test]
    fn the_token_is_never_in_debug() {
        let github =
            GitHub::new("o", "r", Some("ghp_SECRETVALUE".to_owned())).expect("constructed");
        assert!(!format!("{github:?}").contains("SECRETVALUE"));
        assert!(github.authenticated());
        assert!(GitHub::new("o", "r", Some("a\nb".to_owned())).is_err());
        assert!(GitHub::new("o/x", "r", None).is_err());
    }
}
