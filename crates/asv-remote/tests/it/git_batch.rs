//! Issue 30 §2: a batched read takes each blob from the repository when the commit's fetch
//! brought it, and fetches exactly the blobs that are not there, in one fetch, whether the
//! server honours `--filter=blob:none` (`uploadpack.allowFilter`) or ignores it (git's
//! default). Every git process is logged by a `git` on `PATH` that runs the real one, with
//! what a `fetch --stdin` was asked for.

// The tests write their own wrapper and read its log, outside any user's tree.
#![allow(clippy::disallowed_methods)]

use crate::support::git_server;

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use asv_model::source::ObjectFormat;
use asv_remote::error::{Error, GitProblem};
use asv_remote::git::{FILE_LIMIT, Git};
use asv_remote::{Commit, Transport, TreeEntry, blob_id};
use git_server::{Behaviour, Fixture, Https, Tls};

/// A fixture served over HTTPS with the filter allowed or not, and a logging `git`.
struct Logged {
    fixture: Fixture,
    tls: Tls,
    server: Https,
    bin: tempfile::TempDir,
}

impl Logged {
    fn new(allow_filter: bool) -> Logged {
        let fixture = Fixture::new(ObjectFormat::Sha1);
        let allow = if allow_filter { "true" } else { "false" };
        let status = std::process::Command::new("git")
            .arg("-C")
            .arg(fixture.bare())
            .args(["config", "uploadpack.allowFilter", allow])
            .status()
            .expect("git config");
        assert!(status.success());
        let tls = Tls::new();
        let server = Https::start(&tls, &fixture.served(), Behaviour::Serve);
        let bin = tempfile::tempdir().expect("a bin directory");
        let real = std::process::Command::new("sh")
            .args(["-c", "command -v git"])
            .output()
            .expect("sh");
        let real = String::from_utf8_lossy(&real.stdout).trim().to_owned();
        let log = bin.path().join("log");
        let wrapper = format!(
            "#!/bin/sh\nprintf '%s\\n' \"$*\" >> '{log}'\n\
             case \" $* \" in *' --stdin '*) input=$(cat); printf 'asked %s\\n' $input >> '{log}'; \
             printf '%s\\n' \"$input\" | exec '{real}' \"$@\";; esac\nexec '{real}' \"$@\"\n",
            log = log.display()
        );
        let path = bin.path().join("git");
        std::fs::write(&path, wrapper).expect("write the wrapper");
        use std::os::unix::fs::PermissionsExt as _;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
        Logged {
            fixture,
            tls,
            server,
            bin,
        }
    }

    fn source(&self) -> Git {
        let mut env = self.tls.env();
        let path = format!(
            "{}:{}",
            self.bin.path().display(),
            std::env::var("PATH").unwrap_or_default()
        );
        env.push((OsString::from("PATH"), OsString::from(path)));
        Git::new(&self.server.url("contracts.git"))
            .expect("a source")
            .with_env(env)
    }

    fn log_path(&self) -> PathBuf {
        self.bin.path().join("log")
    }

    /// The lines logged since the last call, the log emptied.
    fn take_log(&self) -> Vec<String> {
        let text = std::fs::read_to_string(self.log_path()).unwrap_or_default();
        std::fs::write(self.log_path(), "").expect("empty the log");
        text.lines().map(str::to_owned).collect()
    }
}

/// The blob fetches of a log: the ids each was asked for.
fn blob_fetches(log: &[String]) -> Vec<Vec<String>> {
    let mut fetches = Vec::new();
    for line in log {
        if line.contains(" fetch ") && line.contains(" --stdin ") {
            fetches.push(Vec::new());
        } else if let Some(id) = line.strip_prefix("asked ")
            && let Some(last) = fetches.last_mut()
        {
            last.push(id.to_owned());
        }
    }
    fetches
}

fn reads(log: &[String]) -> usize {
    log.iter()
        .filter(|l| l.contains(" cat-file --batch") && !l.contains("--batch-check"))
        .count()
}

fn entries(git: &mut Git, head: &Commit, paths: &[&str]) -> Vec<TreeEntry> {
    let listed = git.list(head).expect("list");
    paths
        .iter()
        .map(|p| {
            listed
                .iter()
                .find(|e| e.path == *p)
                .unwrap_or_else(|| panic!("{p} listed"))
                .clone()
        })
        .collect()
}

fn read_all(git: &mut Git, head: &Commit, entries: &[TreeEntry]) -> Vec<usize> {
    let mut got = Vec::new();
    git.read_each(head, entries, &mut |i, bytes| {
        assert_eq!(blob_id(head.format, &bytes), entries[i].oid, "{i}");
        got.push(i);
        true
    })
    .expect("a batch");
    got
}

const FILES: [&str; 4] = [
    "README.md",
    "contracts/tdd-contract.md",
    "contracts/tdd-contract/conformance/check.sh",
    "noise.bin",
];

#[test]
fn blobs_the_commits_fetch_brought_are_read_without_a_fetch() {
    let logged = Logged::new(false);
    let mut git = logged.source();
    let head = git.resolve("trunk").expect("resolve");
    let wanted = entries(&mut git, &head, &FILES);
    logged.take_log();
    assert_eq!(read_all(&mut git, &head, &wanted), [0, 1, 2, 3]);
    let log = logged.take_log();
    assert!(blob_fetches(&log).is_empty(), "{log:#?}");
    // Issue 30 §2, fourth step: the files are read by the `git cat-file --batch` that read
    // the commit and its trees for the listing, so the read starts no git process at all.
    assert!(
        log.is_empty(),
        "no git process for the whole read: {log:#?}"
    );
}

#[test]
fn a_server_that_filters_blobs_has_them_fetched_once_before_the_read() {
    let logged = Logged::new(true);
    let mut git = logged.source();
    let head = git.resolve("trunk").expect("resolve");
    let wanted = entries(&mut git, &head, &FILES);
    logged.take_log();
    assert_eq!(read_all(&mut git, &head, &wanted), [0, 1, 2, 3]);
    let log = logged.take_log();
    let fetches = blob_fetches(&log);
    let mut asked: Vec<String> = wanted.iter().map(|e| e.oid.clone()).collect();
    asked.sort();
    assert_eq!(fetches, [asked], "{log:#?}");
    // Read by the listing's own `git cat-file --batch` (issue 30 §2, fourth step).
    assert_eq!(reads(&log), 0, "{log:#?}");
    // Read again: nothing fetched twice.
    assert_eq!(read_all(&mut git, &head, &wanted[1..]), [0, 1, 2]);
    let log = logged.take_log();
    assert!(blob_fetches(&log).is_empty(), "{log:#?}");
}

#[test]
fn blobs_found_missing_are_fetched_exactly_and_read_in_their_turn() {
    let logged = Logged::new(true);
    let mut git = logged.source();
    // A short id is resolved by a fetch of every branch, which teaches the source nothing of
    // the filter: the read finds the blobs missing itself.
    let short = &logged.fixture.second[..9];
    let head = git.resolve(short).expect("resolve a short id");
    let wanted = entries(&mut git, &head, &FILES);
    logged.take_log();
    assert_eq!(read_all(&mut git, &head, &wanted[..2]), [0, 1]);
    let log = logged.take_log();
    let mut first_two: Vec<String> = wanted[..2].iter().map(|e| e.oid.clone()).collect();
    first_two.sort();
    assert_eq!(blob_fetches(&log), [first_two], "{log:#?}");
    // Found missing, fetched, read again from the first missing one: all in the listing's
    // own `git cat-file --batch`, which finds what the fetch brought (issue 30 §2, fourth
    // step).
    assert_eq!(reads(&log), 0, "{log:#?}");

    // Two of four there: only the other two are asked for, and all four handed over in order.
    assert_eq!(read_all(&mut git, &head, &wanted), [0, 1, 2, 3]);
    let log = logged.take_log();
    let mut last_two: Vec<String> = wanted[2..].iter().map(|e| e.oid.clone()).collect();
    last_two.sort();
    assert_eq!(blob_fetches(&log), [last_two], "{log:#?}");
    // The first read ended its process; this one asks a new one, before and after the fetch.
    assert_eq!(reads(&log), 1, "{log:#?}");
}

#[test]
fn a_blob_over_the_limit_is_refused_from_its_header_with_or_without_the_filter() {
    for allow in [false, true] {
        let logged = Logged::new(allow);
        let mut git = logged.source();
        let head = git.resolve("trunk").expect("resolve");
        let dir = git.temporary_directory().expect("a directory").to_owned();
        let wanted = entries(&mut git, &head, &["README.md", "big.bin", "noise.bin"]);
        let mut got = Vec::new();
        let error = git
            .read_each(&head, &wanted, &mut |i, _| {
                got.push(i);
                true
            })
            .expect_err("over the limit");
        assert_eq!(got, [0], "allowFilter {allow}");
        match &error {
            Error::Git { problem, .. } => assert!(
                matches!(
                    **problem,
                    GitProblem::FileTooLarge {
                        limit: FILE_LIMIT,
                        ..
                    }
                ),
                "{error}"
            ),
            other => panic!("{other:?}"),
        }
        assert!(error.to_string().contains("big.bin"), "{error}");
        assert!(!Path::new(&dir).exists(), "removed");
    }
}

/// Each git command of a log as a word of its own (`-c fetch.…` is no fetch).
fn commands(log: &[String]) -> Vec<&str> {
    log.iter()
        .map(|line| {
            ["ls-remote", "fetch", "cat-file", "ls-tree"]
                .into_iter()
                .find(|c| line.contains(&format!(" {c} ")))
                .unwrap_or(line)
        })
        .collect()
}

#[test]
fn a_read_of_a_commit_is_three_git_processes() {
    // Issue 30 §2, fourth step: the ref's lookup, the commit's fetch, and one
    // `git cat-file --batch` for the commit's type, its trees and its files. Since the sixth
    // step the fetch runs beside the lookup (the branch of that name), so the two start in
    // either order.
    let logged = Logged::new(false);
    let mut git = logged.source();
    let head = git.resolve("trunk").expect("resolve");
    let wanted = entries(&mut git, &head, &FILES);
    assert_eq!(read_all(&mut git, &head, &wanted), [0, 1, 2, 3]);
    let log = logged.take_log();
    let mut commands = commands(&log);
    assert_eq!(commands.len(), 3, "{log:#?}");
    commands[..2].sort_unstable();
    assert_eq!(commands, ["fetch", "ls-remote", "cat-file"], "{log:#?}");
    assert!(
        log.iter()
            .any(|l| l.ends_with(" refs/heads/trunk") && l.contains(" fetch ")),
        "the branch was fetched by name, beside its lookup: {log:#?}"
    );
}

#[test]
fn a_tag_is_fetched_by_its_commit_when_the_branch_fetched_ahead_is_not_there() {
    // Issue 30 §2, sixth step: the fetch started beside the lookup asks for a branch `v1`,
    // which does not exist; the lookup finds the tag, and its commit is fetched as before.
    let logged = Logged::new(false);
    let mut git = logged.source();
    let first = git.resolve("v1").expect("a lightweight tag");
    assert_eq!(first.revision, logged.fixture.first);
    let wanted = entries(&mut git, &first, &["README.md"]);
    assert_eq!(read_all(&mut git, &first, &wanted), [0]);
    let log = logged.take_log();
    let mut commands = commands(&log);
    assert!(commands.len() >= 4, "{log:#?}");
    commands[..2].sort_unstable();
    assert_eq!(
        commands[..4],
        ["fetch", "ls-remote", "fetch", "cat-file"],
        "{log:#?}"
    );
    assert_eq!(
        commands.iter().filter(|c| **c == "fetch").count(),
        2,
        "{log:#?}"
    );
    assert!(
        log[2].ends_with(&format!(" {}", logged.fixture.first)),
        "the commit fetched by its id: {log:#?}"
    );
}

#[test]
fn a_name_the_tag_list_showed_is_not_fetched_as_a_branch() {
    // A version range picks from the tag list first: its pick is not guessed to be a branch.
    let logged = Logged::new(false);
    let mut git = logged.source();
    git.tags().expect("tags").expect("a tag list");
    let first = git.resolve("v1").expect("a lightweight tag");
    assert_eq!(first.revision, logged.fixture.first);
    let log = logged.take_log();
    let fetches: Vec<&String> = log.iter().filter(|l| l.contains(" fetch ")).collect();
    assert_eq!(fetches.len(), 1, "{log:#?}");
    assert!(
        fetches[0].ends_with(&format!(" {}", logged.fixture.first)),
        "{log:#?}"
    );
}

#[test]
fn the_default_branch_is_fetched_while_it_is_asked_for_and_looked_up() {
    // What `HEAD` names is fetched beside the two lookups that find the default branch and
    // its commit; the commit is then not fetched again.
    let logged = Logged::new(false);
    let mut git = logged.source();
    let branch = git.default_branch().expect("the default branch");
    assert_eq!(branch, "trunk");
    let head = git.resolve(&branch).expect("resolve");
    assert_eq!(head.revision, logged.fixture.second);
    let wanted = entries(&mut git, &head, &FILES);
    assert_eq!(read_all(&mut git, &head, &wanted), [0, 1, 2, 3]);
    let log = logged.take_log();
    let commands = commands(&log);
    assert_eq!(
        commands.iter().filter(|c| **c == "fetch").count(),
        1,
        "{log:#?}"
    );
    assert!(
        log.iter()
            .any(|l| l.ends_with(" HEAD") && l.contains(" fetch ")),
        "HEAD was fetched: {log:#?}"
    );
    assert_eq!(commands.last(), Some(&"cat-file"), "{log:#?}");
}

#[test]
fn a_refused_name_leaves_a_new_source_as_it_was() {
    // The lookup's refusal is the one said, and the fetch started beside it leaves nothing
    // behind: the source reads the branch afterwards as a new one would.
    let logged = Logged::new(false);
    for (name, said) in [
        ("no-such-branch", "names no branch or tag"),
        ("both", "names both a branch"),
    ] {
        let mut git = logged.source();
        let error = git.resolve(name).expect_err(name);
        assert!(error.to_string().contains(said), "{error}");
        let head = git.resolve("trunk").expect("still usable");
        assert_eq!(head.revision, logged.fixture.second);
        let wanted = entries(&mut git, &head, &FILES);
        assert_eq!(read_all(&mut git, &head, &wanted), [0, 1, 2, 3]);
    }
}

#[test]
fn a_kept_git_killed_between_the_listing_and_the_read_stops_the_source() {
    let logged = Logged::new(false);
    let mut git = logged.source();
    let head = git.resolve("trunk").expect("resolve");
    let wanted = entries(&mut git, &head, &FILES);
    let dir = git.temporary_directory().expect("a directory").to_owned();
    // The last git started is the kept `git cat-file --batch`, waiting for the read.
    let group = git.last_process_group().expect("a git process");
    let killed = std::process::Command::new("kill")
        .args(["-KILL", &group.to_string()])
        .status()
        .expect("kill");
    assert!(killed.success());
    let mut got = Vec::new();
    let error = git
        .read_each(&head, &wanted, &mut |i, _| {
            got.push(i);
            true
        })
        .expect_err("git is gone");
    assert!(got.is_empty(), "{got:?}");
    match &error {
        Error::Git { problem, .. } => assert!(
            matches!(
                **problem,
                GitProblem::ReadFailed { .. } | GitProblem::Malformed { .. }
            ),
            "{error}"
        ),
        other => panic!("{other:?}"),
    }
    assert!(!Path::new(&dir).exists(), "removed");
    assert!(
        git.read_each(&head, &wanted, &mut |_, _| true).is_err(),
        "stopped"
    );
}
