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

use crate::error::{
    FileAt, GitHubProblem, Host, ListingFault, NameField, RedirectTarget, RefProblem, Request,
    Unreached,
};
use crate::ids::{check_readable, is_hex_id, mode_of};
use std::fmt;
use std::time::Duration;

use asv_model::source::ObjectFormat;
use serde_json::Value;

use crate::{Commit, Error, Result, Tag, Transport, TreeEntry, blob_id};

/// The API host.
pub const API_HOST: &str = "https://api.github.com";
/// The host serving one file's bytes at a commit.
pub const RAW_HOST: &str = "https://raw.githubusercontent.com";
/// The most bytes read for one file.
pub const FILE_LIMIT: u64 = 1024 * 1024;
/// The most bytes read for one API answer (a tree listing above all).
pub const LISTING_LIMIT: u64 = 8 * 1024 * 1024;
/// The tags asked for per page, and the most pages read (10,000 tags: a range is picked from
/// all of them, so a repository with more is refused rather than judged on part of its tags).
const TAGS_PER_PAGE: usize = 100;
const TAG_PAGES: u32 = 100;
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
    /// Each commit's listing and root tree id, asked for once per run (issue 30 §2).
    listings: std::collections::BTreeMap<String, (Option<String>, Vec<TreeEntry>)>,
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
    /// only with the `test-hooks` feature: a build without it has no way to point this
    /// transport anywhere but the two fixed hosts.
    ///
    /// # Errors
    /// As [`GitHub::new`].
    #[doc(hidden)]
    #[cfg(feature = "test-hooks")]
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
        for (field, name) in [(NameField::Owner, owner), (NameField::Repository, repo)] {
            if !is_name(name) {
                return Err(Error::GitHubName {
                    owner: owner.to_owned(),
                    repo: repo.to_owned(),
                    field,
                });
            }
        }
        if let Some(token) = &token
            && let Some(at) = token.bytes().position(|b| !(0x21..=0x7e).contains(&b))
        {
            return Err(Error::GitHub {
                owner: owner.to_owned(),
                repo: repo.to_owned(),
                problem: Box::new(GitHubProblem::TokenCharacter { position: at + 1 }),
            });
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
            listings: std::collections::BTreeMap::new(),
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

    /// The refusal `problem` of this source.
    fn error(&self, problem: GitHubProblem) -> Error {
        Error::GitHub {
            owner: self.owner.clone(),
            repo: self.repo.clone(),
            problem: Box::new(problem),
        }
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
        what: &Request,
    ) -> Result<Vec<u8>> {
        let base = match host {
            Host::Api => &self.api,
            Host::Raw => &self.raw,
        };
        let url = format!("{base}{path}");
        let mut request = self.agent.get(&url);
        if let Some(accept) = accept {
            request = request
                .header("Accept", accept)
                .header("X-GitHub-Api-Version", API_VERSION);
        }
        if let Some(Secret(token)) = &self.token {
            let mut value = ureq::http::HeaderValue::from_str(&format!("Bearer {token}"))
                .map_err(|_| self.error(GitHubProblem::TokenHeader))?;
            value.set_sensitive(true);
            request = request.header(ureq::http::header::AUTHORIZATION, value);
        }
        let response = request
            .call()
            .map_err(|e| self.transport_failure(&e, what, &url))?;
        let status = response.status().as_u16();
        if (300..400).contains(&status) {
            // The location of an answer to an authenticated request is never kept: it may
            // repeat the token.
            let to = if self.token.is_some() {
                RedirectTarget::Withheld
            } else {
                response
                    .headers()
                    .get(ureq::http::header::LOCATION)
                    .map_or(RedirectTarget::Missing, |l| {
                        RedirectTarget::At(String::from_utf8_lossy(l.as_bytes()).into_owned())
                    })
            };
            return Err(self.error(GitHubProblem::Redirect {
                request: what.clone(),
                status,
                to,
            }));
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
                ureq::Error::BodyExceedsLimit(_) => self.error(GitHubProblem::TooLarge {
                    request: what.clone(),
                    host,
                    limit,
                }),
                other => self.transport_failure(&other, what, &url),
            })
    }

    /// A failed request to `url`, named without anything that could repeat the token: what
    /// failed (the name's lookup, the connection, TLS, the time) and the URL asked (issue 31
    /// §3: "uncategorized error" said neither).
    fn transport_failure(&self, error: &ureq::Error, what: &Request, url: &str) -> Error {
        if let ureq::Error::Timeout(_) = error {
            return self.error(GitHubProblem::Timeout {
                request: what.clone(),
                url: url.to_owned(),
                limit: REQUEST_TIMEOUT,
            });
        }
        let detail = match error {
            ureq::Error::HostNotFound => Unreached::HostNotFound,
            ureq::Error::Io(e) if is_lookup_failure(e) => Unreached::HostNotFound,
            ureq::Error::ConnectionFailed => Unreached::ConnectionFailed,
            ureq::Error::Tls(why) => Unreached::Tls((*why).to_owned()),
            // The TLS library's refusal reaches the HTTP client as an I/O error of invalid
            // data, holding the TLS error; nothing else of an https connection is invalid data
            // before an answer is read.
            ureq::Error::Io(e)
                if e.kind() == std::io::ErrorKind::InvalidData && url.starts_with("https://") =>
            {
                Unreached::Tls(
                    e.get_ref()
                        .map_or_else(|| e.to_string(), ToString::to_string),
                )
            }
            ureq::Error::Io(e) => Unreached::Io(e.kind()),
            ureq::Error::BodyStalled => Unreached::Stalled,
            _ if self.token.is_some() => Unreached::Withheld,
            other => Unreached::Other(other.to_string()),
        };
        self.error(GitHubProblem::Unreachable {
            request: what.clone(),
            url: url.to_owned(),
            detail,
        })
    }

    /// A non-2xx, non-3xx answer (its `Display` gives the likeliest causes for its status).
    fn refused(&self, status: u16, what: &Request) -> Error {
        self.error(GitHubProblem::Refused {
            request: what.clone(),
            status,
            authenticated: self.token.is_some(),
        })
    }

    /// An API answer read as a JSON object.
    fn get_object(&self, path: &str, what: &Request) -> Result<serde_json::Map<String, Value>> {
        let bytes = self.get(Host::Api, path, Some(API_ACCEPT), LISTING_LIMIT, what)?;
        match serde_json::from_slice::<Value>(&bytes) {
            Ok(Value::Object(map)) => Ok(map),
            Ok(_) => Err(self.error(GitHubProblem::NotAnObject {
                request: what.clone(),
            })),
            Err(_) => Err(self.error(GitHubProblem::NotJson {
                request: what.clone(),
            })),
        }
    }

    /// The revision of `commit`, checked to be an object id before it becomes part of a URL.
    fn revision_of<'c>(&self, commit: &'c Commit) -> Result<&'c str> {
        if is_hex_id(&commit.revision, commit.format.hex_len()) {
            Ok(&commit.revision)
        } else {
            Err(self.error(GitHubProblem::BadRevision {
                revision: commit.revision.clone(),
                format: commit.format,
            }))
        }
    }
}

impl Transport for GitHub {
    fn default_branch(&mut self) -> Result<String> {
        let document = self.get_object(&self.repos_path(), &Request::Repository)?;
        match document.get("default_branch") {
            Some(Value::String(branch)) if asv_model::source::is_usable_ref(branch) => {
                Ok(branch.clone())
            }
            found => Err(self.error(GitHubProblem::Ref(RefProblem::NoDefaultBranch {
                found: found.map(|found| match found {
                    Value::String(text) => text.clone(),
                    other => other.to_string(),
                }),
            }))),
        }
    }

    fn resolve(&mut self, reference: &str) -> Result<Commit> {
        if !asv_model::source::is_usable_ref(reference) {
            return Err(self.error(GitHubProblem::Ref(RefProblem::Unusable {
                reference: reference.to_owned(),
            })));
        }
        let what = Request::Ref {
            reference: reference.to_owned(),
        };
        let path = format!("{}/commits/{}", self.repos_path(), encode_path(reference));
        let bytes = self.get(Host::Api, &path, Some(SHA_ACCEPT), SHA_LIMIT, &what)?;
        let text = String::from_utf8_lossy(&bytes);
        let sha = text.trim_end_matches(['\n', '\r']);
        let format = if is_hex_id(sha, 40) {
            ObjectFormat::Sha1
        } else if is_hex_id(sha, 64) {
            ObjectFormat::Sha256
        } else {
            return Err(self.error(GitHubProblem::NotACommitId {
                request: what,
                found: sha.to_owned(),
            }));
        };
        if (is_hex_id(reference, 40) || is_hex_id(reference, 64)) && sha != reference {
            return Err(self.error(GitHubProblem::OtherCommit {
                request: what,
                answered: sha.to_owned(),
            }));
        }
        Ok(Commit {
            revision: sha.to_owned(),
            format,
        })
    }

    fn tags(&mut self) -> Result<Option<Vec<Tag>>> {
        let mut tags = Vec::new();
        for page in 1..=TAG_PAGES {
            let what = Request::Tags { page };
            let path = format!(
                "{}/tags?per_page={TAGS_PER_PAGE}&page={page}",
                self.repos_path()
            );
            let bytes = self.get(Host::Api, &path, Some(API_ACCEPT), LISTING_LIMIT, &what)?;
            let items = match serde_json::from_slice::<Value>(&bytes) {
                Ok(Value::Array(items)) => items,
                Ok(_) => return Err(self.error(GitHubProblem::NotAnObject { request: what })),
                Err(_) => return Err(self.error(GitHubProblem::NotJson { request: what })),
            };
            let full = items.len() == TAGS_PER_PAGE;
            for item in items {
                // The API gives each tag peeled to its commit.
                let name = item.get("name").and_then(Value::as_str);
                let sha = item
                    .get("commit")
                    .and_then(|c| c.get("sha"))
                    .and_then(Value::as_str);
                match (name, sha) {
                    (Some(name), Some(sha)) if is_hex_id(sha, 40) || is_hex_id(sha, 64) => {
                        tags.push(Tag {
                            name: name.to_owned(),
                            commit: sha.to_owned(),
                        });
                    }
                    _ => {
                        return Err(self.error(GitHubProblem::NotAnObject {
                            request: what.clone(),
                        }));
                    }
                }
            }
            if !full {
                tags.sort();
                return Ok(Some(tags));
            }
        }
        Err(self.error(GitHubProblem::TooManyTags {
            limit: TAGS_PER_PAGE * TAG_PAGES as usize,
        }))
    }

    fn list(&mut self, commit: &Commit) -> Result<Vec<TreeEntry>> {
        let revision = self.revision_of(commit)?;
        if let Some((_, entries)) = self.listings.get(revision) {
            return Ok(entries.clone());
        }
        let what = Request::Listing {
            revision: revision.to_owned(),
        };
        let path = format!(
            "{}/git/trees/{}?recursive=1",
            self.repos_path(),
            encode_segment(revision)
        );
        let document = self.get_object(&path, &what)?;
        // A listing cut short reads exactly like a repository holding fewer files.
        if document.get("truncated") == Some(&Value::Bool(true)) {
            return Err(self.error(GitHubProblem::Truncated { request: what }));
        }
        let Some(Value::Array(items)) = document.get("tree") else {
            return Err(self.error(GitHubProblem::NoTree { request: what }));
        };
        let id_len = commit.format.hex_len();
        let mut entries = Vec::with_capacity(items.len());
        for item in items {
            let malformed = |fault: ListingFault| {
                self.error(GitHubProblem::BadListing {
                    request: what.clone(),
                    fault,
                })
            };
            let Value::Object(item) = item else {
                return Err(malformed(ListingFault::NotObject));
            };
            let Some(Value::String(path)) = item.get("path") else {
                return Err(malformed(ListingFault::NoPath));
            };
            let mode = match item.get("mode") {
                Some(Value::String(mode)) => mode_of(mode).ok_or_else(|| {
                    malformed(ListingFault::BadMode {
                        path: path.clone(),
                        mode: mode.clone(),
                    })
                })?,
                _ => return Err(malformed(ListingFault::NoMode { path: path.clone() })),
            };
            let oid = match item.get("sha") {
                Some(Value::String(oid)) if is_hex_id(oid, id_len) => oid.clone(),
                _ => {
                    return Err(malformed(ListingFault::NoId {
                        path: path.clone(),
                        len: id_len,
                    }));
                }
            };
            entries.push(TreeEntry {
                path: path.clone(),
                mode,
                oid,
            });
        }
        let root = match document.get("sha") {
            Some(Value::String(sha)) if is_hex_id(sha, id_len) => Some(sha.clone()),
            _ => None,
        };
        self.listings
            .insert(revision.to_owned(), (root, entries.clone()));
        Ok(entries)
    }

    fn tree_id(&mut self, commit: &Commit, path: &str) -> Result<Option<Option<String>>> {
        let entries = self.list(commit)?;
        if path == "." {
            // The listing's own id is the root tree's; without it nothing can be told.
            return Ok(self
                .listings
                .get(&commit.revision)
                .and_then(|(root, _)| root.clone())
                .map(Some));
        }
        Ok(Some(
            entries
                .into_iter()
                .find(|e| e.path == path && e.mode == crate::EntryMode::Tree)
                .map(|e| e.oid),
        ))
    }

    fn read(&mut self, commit: &Commit, entry: &TreeEntry) -> Result<Vec<u8>> {
        let revision = self.revision_of(commit)?;
        let path = &entry.path;
        let file = FileAt {
            path: path.clone(),
            revision: revision.to_owned(),
        };
        check_readable(&file, entry).map_err(|e| self.error(GitHubProblem::Entry(e)))?;
        let url_path = format!(
            "/{}/{}/{}/{}",
            encode_segment(&self.owner),
            encode_segment(&self.repo),
            encode_segment(revision),
            encode_path(path)
        );
        let what = Request::File(file.clone());
        let bytes = self.get(Host::Raw, &url_path, None, FILE_LIMIT, &what)?;
        let got = blob_id(commit.format, &bytes);
        if got != entry.oid {
            return Err(self.error(GitHubProblem::BlobMismatch {
                file,
                listed: entry.oid.clone(),
                got,
            }));
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

/// Whether an I/O failure is the host name's lookup failing: the standard library words the
/// resolver's failure this way and gives it no kind of its own that can be matched.
fn is_lookup_failure(error: &std::io::Error) -> bool {
    error
        .to_string()
        .starts_with("failed to lookup address information")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::EntryMode;
    use crate::ids::is_inside;

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
