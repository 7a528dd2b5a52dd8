//! A real HTTP server on 127.0.0.1 playing GitHub's API and raw-content host for one small
//! repository built in the test.
//!
//! One server answers both: `{base}/api/…` is the API, `{base}/raw/…` the raw-content host.
//! Every request is recorded (URL and headers) so a test can say what went on the wire.

pub use crate::git_server;

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

use asv_model::source::ObjectFormat;
use asv_remote::{EntryMode, TreeEntry, blob_id};

/// One request as it arrived.
#[derive(Debug, Clone)]
pub struct RecordedRequest {
    /// The request target, exactly as sent (path and query).
    pub url: String,
    /// Every header, name lowercased.
    pub headers: Vec<(String, String)>,
}

impl RecordedRequest {
    /// The value of header `name` (lowercase), if sent.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// What the server answers.
#[derive(Debug, Clone)]
pub struct Answer {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Answer {
    pub fn new(status: u16, body: impl Into<Vec<u8>>) -> Answer {
        Answer {
            status,
            headers: Vec::new(),
            body: body.into(),
        }
    }

    pub fn json(value: &serde_json::Value) -> Answer {
        Answer::new(200, value.to_string()).with_header("Content-Type", "application/json")
    }

    pub fn with_header(mut self, name: &str, value: &str) -> Answer {
        self.headers.push((name.to_owned(), value.to_owned()));
        self
    }

    pub fn not_found() -> Answer {
        Answer::new(404, r#"{"message":"Not Found"}"#)
    }
}

type Handler = dyn Fn(&RecordedRequest) -> Answer + Send + Sync;

/// The running server; stopped when dropped.
pub struct Server {
    base: String,
    server: Arc<tiny_http::Server>,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
    requests: Arc<Mutex<Vec<RecordedRequest>>>,
}

impl Server {
    /// Starts a server answering every request with `handler`.
    pub fn start(handler: impl Fn(&RecordedRequest) -> Answer + Send + Sync + 'static) -> Server {
        let server = Arc::new(tiny_http::Server::http("127.0.0.1:0").expect("bind 127.0.0.1"));
        let port = server.server_addr().to_ip().expect("an ip listener").port();
        let stop = Arc::new(AtomicBool::new(false));
        let requests = Arc::new(Mutex::new(Vec::new()));
        let handler: Arc<Handler> = Arc::new(handler);
        let thread = {
            let server = Arc::clone(&server);
            let stop = Arc::clone(&stop);
            let requests = Arc::clone(&requests);
            std::thread::spawn(move || {
                loop {
                    let request = match server.recv() {
                        Ok(request) => request,
                        Err(_) if stop.load(Ordering::SeqCst) => break,
                        Err(_) => continue,
                    };
                    let recorded = RecordedRequest {
                        url: request.url().to_owned(),
                        headers: request
                            .headers()
                            .iter()
                            .map(|h| {
                                (
                                    h.field.as_str().as_str().to_ascii_lowercase(),
                                    h.value.as_str().to_owned(),
                                )
                            })
                            .collect(),
                    };
                    requests.lock().expect("lock").push(recorded.clone());
                    let answer = handler(&recorded);
                    let mut response =
                        tiny_http::Response::from_data(answer.body).with_status_code(answer.status);
                    for (name, value) in &answer.headers {
                        response = response.with_header(
                            tiny_http::Header::from_bytes(name.as_bytes(), value.as_bytes())
                                .expect("header"),
                        );
                    }
                    // The client may stop reading at its limit; a failed write is expected then.
                    let _ = request.respond(response);
                }
            })
        };
        Server {
            base: format!("http://127.0.0.1:{port}"),
            server,
            stop,
            thread: Some(thread),
            requests,
        }
    }

    /// The server's own base URL.
    pub fn base(&self) -> &str {
        &self.base
    }

    /// The base URL standing in for `https://api.github.com`.
    pub fn api(&self) -> String {
        format!("{}/api", self.base)
    }

    /// The base URL standing in for `https://raw.githubusercontent.com`.
    pub fn raw(&self) -> String {
        format!("{}/raw", self.base)
    }

    /// Every request so far, in order.
    pub fn requests(&self) -> Vec<RecordedRequest> {
        self.requests.lock().expect("lock").clone()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        self.server.unblock();
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// One file of the fixture repository.
#[derive(Debug, Clone)]
pub struct File {
    pub path: String,
    pub mode: &'static str,
    pub bytes: Vec<u8>,
}

/// A small repository at one commit, answering as GitHub does.
#[derive(Debug, Clone)]
pub struct GithubRepo {
    pub owner: String,
    pub repo: String,
    pub default_branch: String,
    pub commit: String,
    pub format: ObjectFormat,
    pub refs: BTreeMap<String, String>,
    /// The tags `/tags` lists, each with its commit (issue 29 §2).
    pub tags: BTreeMap<String, String>,
    pub files: Vec<File>,
    /// Bytes served by the raw host instead of a file's own (tampering).
    pub served: BTreeMap<String, Vec<u8>>,
    pub truncated: bool,
}

pub const OWNER: &str = "acme";
pub const REPO: &str = "contracts";
pub const COMMIT: &str = "9f1b7c2d4e5a60718293a4b5c6d7e8f90a1b2c3d";
/// The commit a submodule entry points at.
pub const SUBMODULE_COMMIT: &str = "1111111111111111111111111111111111111111";

impl GithubRepo {
    /// The fixture: ordinary files, an executable, a symlink and a submodule.
    pub fn fixture() -> GithubRepo {
        let file = |path: &str, mode: &'static str, bytes: &[u8]| File {
            path: path.to_owned(),
            mode,
            bytes: bytes.to_vec(),
        };
        GithubRepo {
            owner: OWNER.to_owned(),
            repo: REPO.to_owned(),
            default_branch: "main".to_owned(),
            commit: COMMIT.to_owned(),
            format: ObjectFormat::Sha1,
            refs: [
                ("main".to_owned(), COMMIT.to_owned()),
                ("release/2.x".to_owned(), COMMIT.to_owned()),
                ("v1.0.0".to_owned(), COMMIT.to_owned()),
            ]
            .into_iter()
            .collect(),
            tags: [("v1.0.0".to_owned(), COMMIT.to_owned())]
                .into_iter()
                .collect(),
            files: vec![
                file("README.md", "100644", b"# Contracts\n"),
                file(
                    "contracts/tdd-contract.md",
                    "100644",
                    b"# TDD Contract\n\nWrite the test first.\n",
                ),
                file(
                    "contracts/tdd-contract/conformance/cases/first.md",
                    "100644",
                    b"A case.\n",
                ),
                file("docs/a b#1.md", "100644", b"a name that needs encoding\n"),
                file("bin/run.sh", "100755", b"#!/bin/sh\necho run\n"),
                file("docs/link.md", "120000", b"../README.md"),
                file("vendor/sub", "160000", b""),
            ],
            served: BTreeMap::new(),
            truncated: false,
        }
    }

    /// The same repository in the SHA-256 object format.
    pub fn sha256() -> GithubRepo {
        let mut repo = GithubRepo::fixture();
        let commit = "ab".repeat(32);
        repo.commit = commit.clone();
        repo.format = ObjectFormat::Sha256;
        for target in repo.refs.values_mut() {
            *target = commit.clone();
        }
        repo.files.retain(|f| f.mode != "160000");
        repo
    }

    /// The object id of a file as its listing gives it.
    pub fn oid(&self, file: &File) -> String {
        if file.mode == "160000" {
            match self.format {
                ObjectFormat::Sha1 => SUBMODULE_COMMIT.to_owned(),
                ObjectFormat::Sha256 => "1".repeat(64),
            }
        } else {
            blob_id(self.format, &file.bytes)
        }
    }

    /// The directories the files stand in, as a recursive listing gives them.
    fn directories(&self) -> Vec<String> {
        let mut dirs = std::collections::BTreeSet::new();
        for file in &self.files {
            let mut at = 0;
            while let Some(i) = file.path[at..].find('/') {
                dirs.insert(file.path[..at + i].to_owned());
                at += i + 1;
            }
        }
        dirs.into_iter().collect()
    }

    /// The listing's JSON entries, GitHub's shape.
    pub fn tree_items(&self) -> Vec<serde_json::Value> {
        let mut items: Vec<(String, serde_json::Value)> = Vec::new();
        for dir in self.directories() {
            // A tree id stands in, but as git's does it changes with what is under the tree
            // and only then (issue 30 §3: `skill outdated` compares them).
            let mut under = dir.clone().into_bytes();
            for file in self
                .files
                .iter()
                .filter(|f| f.path.starts_with(&format!("{dir}/")))
            {
                under.extend_from_slice(
                    format!("\0{} {} {}", file.path, file.mode, self.oid(file)).as_bytes(),
                );
            }
            let sha = blob_id(self.format, &under);
            items.push((
                dir.clone(),
                serde_json::json!({"path": dir, "mode": "040000", "type": "tree", "sha": sha}),
            ));
        }
        for file in &self.files {
            let kind = if file.mode == "160000" {
                "commit"
            } else {
                "blob"
            };
            let mut item = serde_json::json!({
                "path": file.path, "mode": file.mode, "type": kind, "sha": self.oid(file),
            });
            if kind == "blob" {
                item["size"] = serde_json::json!(file.bytes.len());
            }
            items.push((file.path.clone(), item));
        }
        items.sort_by(|a, b| a.0.cmp(&b.0));
        items.into_iter().map(|(_, v)| v).collect()
    }

    /// The entries `list` should report, in listing order.
    pub fn expected_entries(&self) -> Vec<TreeEntry> {
        self.tree_items()
            .iter()
            .map(|item| TreeEntry {
                path: item["path"].as_str().expect("path").to_owned(),
                mode: match item["mode"].as_str().expect("mode") {
                    "100644" => EntryMode::File,
                    "100755" => EntryMode::Executable,
                    "120000" => EntryMode::Symlink,
                    "160000" => EntryMode::Submodule,
                    _ => EntryMode::Tree,
                },
                oid: item["sha"].as_str().expect("sha").to_owned(),
            })
            .collect()
    }

    /// The entry for `path`.
    pub fn entry(&self, path: &str) -> TreeEntry {
        self.expected_entries()
            .into_iter()
            .find(|e| e.path == path)
            .expect("a listed path")
    }

    /// The answer to one request, as GitHub would give it.
    pub fn answer(&self, request: &RecordedRequest) -> Answer {
        let api = format!("/api/repos/{}/{}", self.owner, self.repo);
        let raw = format!("/raw/{}/{}/", self.owner, self.repo);
        let url = request.url.as_str();
        if url == api {
            return Answer::json(&serde_json::json!({
                "full_name": format!("{}/{}", self.owner, self.repo),
                "default_branch": self.default_branch,
                "private": false,
            }));
        }
        if let Some(reference) = url.strip_prefix(&format!("{api}/commits/")) {
            let reference = percent_decode(reference);
            // GitHub takes a commit id of 7 or more hex digits that starts one commit only.
            let short = reference.len() >= 7
                && reference.bytes().all(|b| b.is_ascii_hexdigit())
                && self.commit.starts_with(&reference);
            let sha = if reference == self.commit || short {
                Some(self.commit.clone())
            } else {
                self.refs.get(&reference).cloned()
            };
            return match sha {
                None => Answer::new(422, r#"{"message":"No commit found for SHA"}"#),
                Some(sha) if request.header("accept") == Some("application/vnd.github.sha") => {
                    Answer::new(200, sha)
                }
                Some(sha) => Answer::json(&serde_json::json!({"sha": sha})),
            };
        }
        if let Some(query) = url.strip_prefix(&format!("{api}/tags?")) {
            // One page holds every tag: the fixture has fewer than a page.
            let items: Vec<serde_json::Value> = if query.ends_with("&page=1") {
                self.tags
                    .iter()
                    .map(|(name, sha)| serde_json::json!({"name": name, "commit": {"sha": sha}}))
                    .collect()
            } else {
                Vec::new()
            };
            return Answer::json(&serde_json::Value::Array(items));
        }
        if let Some(rest) = url.strip_prefix(&format!("{api}/git/trees/")) {
            let Some((sha, query)) = rest.split_once('?') else {
                return Answer::not_found();
            };
            if sha != self.commit || query != "recursive=1" {
                return Answer::not_found();
            }
            return Answer::json(&serde_json::json!({
                "sha": blob_id(self.format, b"root tree"),
                "url": "unused",
                "tree": self.tree_items(),
                "truncated": self.truncated,
            }));
        }
        if let Some(rest) = url.strip_prefix(&raw) {
            let Some((sha, path)) = rest.split_once('/') else {
                return Answer::not_found();
            };
            if sha != self.commit {
                return Answer::not_found();
            }
            let path = percent_decode(path);
            if let Some(bytes) = self.served.get(&path) {
                return Answer::new(200, bytes.clone());
            }
            return match self.files.iter().find(|f| f.path == path) {
                Some(file) if file.mode != "160000" => Answer::new(200, file.bytes.clone()),
                _ => Answer::new(404, "404: Not Found"),
            };
        }
        Answer::not_found()
    }
}

/// `%XX` sequences decoded (the fixture's names are UTF-8).
pub fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && i + 3 <= bytes.len()
            && let Some(b) = std::str::from_utf8(&bytes[i + 1..i + 3])
                .ok()
                .and_then(|hex| u8::from_str_radix(hex, 16).ok())
        {
            out.push(b);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}
