//! The generic git transport against the real installed git, over HTTPS on 127.0.0.1:
//! `git http-backend` behind a TLS server whose certificate a CA made here signs.
//!
//! `Git::with_env` and `Git::with_limits` exist only with the `test-hooks` feature, which this
//! crate's dev-dependency on itself enables for its tests. They need git (with
//! `git http-backend`, part of every git install) and nothing else.

use crate::support::git_server;

use std::path::PathBuf;
use std::time::{Duration, Instant};

use asv_model::source::ObjectFormat;
use asv_remote::error::{EntryProblem, GitFailure, GitProblem, Reached};
use asv_remote::git::{FILE_LIMIT, Git, GitLimits, TEMP_PREFIX};
use asv_remote::{Commit, EntryMode, Error, Transport, TreeEntry, blob_id};
use git_server::{
    BIG, Behaviour, Fixture, Https, NOISE, PASSWORD, README, SCRIPT, Silent, TEXT, Tls, USER, noise,
};

/// A fixture served over HTTPS, and a source reading it.
struct Served {
    fixture: Fixture,
    tls: Tls,
    server: Https,
}

impl Served {
    fn new(format: ObjectFormat) -> Served {
        let fixture = Fixture::new(format);
        let tls = Tls::new();
        let server = Https::start(&tls, &fixture.served(), Behaviour::Serve);
        Served {
            fixture,
            tls,
            server,
        }
    }

    fn source(&self) -> Git {
        self.source_with(GitLimits::default())
    }

    fn source_with(&self, limits: GitLimits) -> Git {
        Git::new(&self.server.url("contracts.git"))
            .expect("a source")
            .with_env(self.tls.env())
            .with_limits(limits)
    }

    fn commit(&self, revision: &str) -> Commit {
        Commit {
            revision: revision.to_owned(),
            format: self.fixture.format,
        }
    }

    /// What the second commit's tree lists, from the fixture's own git.
    fn expected(&self) -> Vec<TreeEntry> {
        let format = self.fixture.format;
        let second = &self.fixture.second;
        let file = |path: &str, mode: EntryMode, bytes: &[u8]| TreeEntry {
            path: path.to_owned(),
            mode,
            oid: blob_id(format, bytes),
        };
        let object = |path: &str, mode: EntryMode| TreeEntry {
            path: path.to_owned(),
            mode,
            oid: self.fixture.object(second, path),
        };
        let mut entries = vec![
            file("README.md", EntryMode::File, README),
            file("big.bin", EntryMode::File, &vec![b'x'; BIG]),
            file("noise.bin", EntryMode::File, &noise(NOISE)),
            file("contracts/tdd-contract.md", EntryMode::File, TEXT),
            file(
                "contracts/tdd-contract/conformance/check.sh",
                EntryMode::Executable,
                SCRIPT,
            ),
            file("link.md", EntryMode::Symlink, b"contracts/tdd-contract.md"),
            TreeEntry {
                path: "vendor/sub".to_owned(),
                mode: EntryMode::Submodule,
                oid: self.fixture.first.clone(),
            },
            object("contracts", EntryMode::Tree),
            object("contracts/tdd-contract", EntryMode::Tree),
            object("contracts/tdd-contract/conformance", EntryMode::Tree),
            object("vendor", EntryMode::Tree),
        ];
        entries.sort_by(|a, b| a.path.cmp(&b.path));
        entries
    }
}

fn entry<'a>(entries: &'a [TreeEntry], path: &str) -> &'a TreeEntry {
    entries
        .iter()
        .find(|e| e.path == path)
        .unwrap_or_else(|| panic!("{path} listed"))
}

/// Every refusal: one line, opening lowercase, naming the source, never git's own words.
/// The problem of a git source's refusal (for a stopped source, the one that stopped it).
fn problem(error: &Error) -> &GitProblem {
    match error {
        Error::Git { problem, .. }
        | Error::GitStopped {
            earlier: problem, ..
        } => problem,
        other => panic!("not a git source's refusal: {other:?}"),
    }
}

fn message(error: &Error, url: &str) -> String {
    let text = error.to_string();
    assert!(
        !text.contains('\n') && !text.contains('\r'),
        "one line: {text}"
    );
    assert!(
        text.starts_with(|c: char| c.is_ascii_lowercase()),
        "lowercase: {text}"
    );
    assert!(text.contains(url), "names the source: {text}");
    for git_words in ["fatal:", "error:", "warning:", "remote:"] {
        assert!(!text.contains(git_words), "never git's stderr: {text}");
    }
    text
}

fn temporary_directory(git: &Git) -> PathBuf {
    let dir = git
        .temporary_directory()
        .expect("a temporary directory")
        .to_owned();
    let name = dir.file_name().and_then(|n| n.to_str()).unwrap_or_default();
    assert!(name.starts_with(TEMP_PREFIX), "{}", dir.display());
    dir
}

/// How a test reaches the fixture's repository.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Reach {
    /// Over HTTPS: fetched.
    Https,
    /// As a path on this machine laid out plainly: its objects read in place.
    InPlace,
    /// As a path holding a `.git` file that names the repository: fetched, as before.
    GitFile,
}

/// Whether the source's temporary repository holds a fetched pack.
// The source's own temporary directory, looked into.
#[allow(clippy::disallowed_methods)]
fn fetched_a_pack(dir: &std::path::Path) -> bool {
    std::fs::read_dir(dir.join("repository.git/objects/pack"))
        .map(|mut entries| {
            entries.any(|e| e.is_ok_and(|e| e.path().extension().is_some_and(|x| x == "pack")))
        })
        .unwrap_or(false)
}

// A test's own directory, where the `.git` file is written.
#[allow(clippy::disallowed_methods)]
fn reads_a_repository(format: ObjectFormat, reach: Reach) {
    let served = Served::new(format);
    let fixture = &served.fixture;
    let linked = tempfile::tempdir().expect("a directory");
    let mut git = match reach {
        Reach::Https => served.source(),
        Reach::InPlace => {
            Git::local(fixture.bare().to_str().expect("a UTF-8 path")).expect("a local source")
        }
        Reach::GitFile => {
            std::fs::write(
                linked.path().join(".git"),
                format!("gitdir: {}\n", fixture.bare().display()),
            )
            .expect("a .git file");
            Git::local(linked.path().to_str().expect("a UTF-8 path")).expect("a local source")
        }
    };
    let id_len = match format {
        ObjectFormat::Sha1 => 40,
        ObjectFormat::Sha256 => 64,
    };
    assert_eq!(fixture.second.len(), id_len);
    let dir = temporary_directory(&git);

    assert_eq!(git.default_branch().expect("default branch"), "trunk");
    let head = git.resolve("trunk").expect("a branch");
    assert_eq!(head, served.commit(&fixture.second));
    // A lightweight tag, an annotated one (peeled to its commit), a commit id as is.
    assert_eq!(
        git.resolve("v1").expect("a lightweight tag"),
        served.commit(&fixture.first)
    );
    let v2 = git.resolve("v2").expect("an annotated tag");
    assert_eq!(v2, served.commit(&fixture.second));
    assert_ne!(v2.revision, fixture.tag_object);
    assert_eq!(
        git.resolve(&fixture.first).expect("a commit id"),
        served.commit(&fixture.first)
    );

    let mut listed = git.list(&head).expect("the listing");
    listed.sort_by(|a, b| a.path.cmp(&b.path));
    assert_eq!(listed, served.expected());

    // Every ordinary file small enough is read and matches its blob id.
    for (path, bytes) in [
        ("contracts/tdd-contract.md", TEXT),
        ("contracts/tdd-contract/conformance/check.sh", SCRIPT),
        ("README.md", README),
    ] {
        let read = git.read(&head, entry(&listed, path)).expect(path);
        assert_eq!(read, bytes, "{path}");
        assert_eq!(blob_id(format, &read), entry(&listed, path).oid);
    }
    assert_eq!(
        git.read(&head, entry(&listed, "noise.bin")).expect("noise"),
        noise(NOISE)
    );
    // A repository on this machine laid out plainly is read where it lies: nothing was
    // fetched into the temporary repository (issue 30 §2). Any other is fetched.
    assert_eq!(
        fetched_a_pack(&dir),
        reach != Reach::InPlace,
        "a pack was fetched: {}",
        reach != Reach::InPlace
    );
    // The first commit's README, through its own listing.
    let first = served.commit(&fixture.first);
    let old = git.list(&first).expect("the first listing");
    assert_eq!(
        git.read(&first, entry(&old, "README.md"))
            .expect("old README"),
        b"contracts\n"
    );

    // A link or a submodule is never read.
    for path in ["link.md", "vendor/sub", "contracts"] {
        let error = git.read(&head, entry(&listed, path)).expect_err(path);
        assert!(
            matches!(
                problem(&error),
                GitProblem::Entry(EntryProblem::NotAFile { .. })
            ),
            "{error}"
        );
        assert!(message(&error, git.url()).contains("only an ordinary file"));
    }
    // Bytes that do not hash to the listed id are refused.
    let mut forged = entry(&listed, "README.md").clone();
    forged.oid = blob_id(format, b"something else\n");
    let error = git.read(&head, &forged).expect_err("a forged id");
    assert!(
        message(&error, git.url()).contains("does not match its blob id"),
        "{error}"
    );
    // A branch and a tag of one name at different commits: neither is guessed.
    let error = git.resolve("both").expect_err("ambiguous");
    assert!(
        message(&error, git.url()).contains("names both a branch"),
        "{error}"
    );
    // An unknown ref is said so, and leaves the source usable.
    let error = git.resolve("no-such-branch").expect_err("unknown");
    assert!(message(&error, git.url()).contains("names no branch or tag"));
    assert_eq!(git.resolve("trunk").expect("still usable"), head);

    // Issue 29 §2: every tag with its commit, an annotated one peeled.
    let tags = git.tags().expect("tags").expect("a tag list");
    let tags: Vec<(&str, &str)> = tags
        .iter()
        .map(|t| (t.name.as_str(), t.commit.as_str()))
        .collect();
    assert_eq!(
        tags,
        [
            ("both", fixture.first.as_str()),
            ("v1", fixture.first.as_str()),
            ("v2", fixture.second.as_str()),
        ]
    );
    // A short id: the one commit it starts, in a repository fetched shallow so far.
    assert_eq!(
        git.resolve(&fixture.first[..9]).expect("a short id"),
        served.commit(&fixture.first)
    );
    let error = git.resolve("0000000").expect_err("no such commit");
    assert!(
        message(&error, git.url()).contains("the short commit id 0000000 starts no commit"),
        "{error}"
    );

    assert!(dir.is_dir());
    drop(git);
    assert!(
        !dir.exists(),
        "the temporary repository goes with the source"
    );
}

#[test]
fn reads_a_sha1_repository_over_https() {
    reads_a_repository(ObjectFormat::Sha1, Reach::Https);
}

#[test]
fn reads_a_sha256_repository_over_https() {
    reads_a_repository(ObjectFormat::Sha256, Reach::Https);
}

#[test]
fn reads_a_local_sha1_repository_in_place() {
    reads_a_repository(ObjectFormat::Sha1, Reach::InPlace);
}

#[test]
fn reads_a_local_sha256_repository_in_place() {
    reads_a_repository(ObjectFormat::Sha256, Reach::InPlace);
}

#[test]
fn a_local_repository_named_by_a_git_file_is_fetched() {
    reads_a_repository(ObjectFormat::Sha1, Reach::GitFile);
}

#[test]
fn a_file_over_the_limit_stops_the_source_and_removes_its_repository() {
    let served = Served::new(ObjectFormat::Sha1);
    let mut git = served.source();
    let dir = temporary_directory(&git);
    let head = git.resolve("trunk").expect("resolve");
    let listed = git.list(&head).expect("list");
    let error = git
        .read(&head, entry(&listed, "big.bin"))
        .expect_err("over the limit");
    assert!(
        matches!(
            problem(&error),
            GitProblem::FileTooLarge {
                limit: FILE_LIMIT,
                ..
            }
        ),
        "{error}"
    );
    let text = message(&error, git.url());
    assert!(text.contains("1 MiB for one file"), "{text}");
    assert!(!dir.exists(), "removed");
    assert!(git.temporary_directory().is_none());
    // Nothing more is read from a stopped source.
    let error = git
        .read(&head, entry(&listed, "README.md"))
        .expect_err("stopped");
    assert!(message(&error, git.url()).contains("stopped"), "{error}");
    assert_eq!(FILE_LIMIT, 1024 * 1024);
}

#[test]
fn the_total_limit_counts_every_file_read() {
    let served = Served::new(ObjectFormat::Sha1);
    let limits = GitLimits {
        total: (TEXT.len() + README.len() - 1) as u64,
        ..GitLimits::default()
    };
    let mut git = served.source_with(limits);
    let dir = temporary_directory(&git);
    let head = git.resolve("trunk").expect("resolve");
    let listed = git.list(&head).expect("list");
    git.read(&head, entry(&listed, "contracts/tdd-contract.md"))
        .expect("the first file fits");
    let error = git
        .read(&head, entry(&listed, "README.md"))
        .expect_err("the second does not");
    assert!(
        matches!(problem(&error), GitProblem::TotalReached { .. }),
        "{error}"
    );
    assert!(message(&error, git.url()).contains("in all"), "{error}");
    assert!(!dir.exists());
}

#[test]
fn the_repository_limit_stops_git_and_removes_its_repository() {
    let served = Served::new(ObjectFormat::Sha1);
    let limits = GitLimits {
        repository: 200 * 1024,
        ..GitLimits::default()
    };
    let mut git = served.source_with(limits);
    let dir = temporary_directory(&git);
    // Commits and trees fit; 300 KiB of noise fetched for one read does not.
    let head = git.resolve("trunk").expect("resolve");
    let listed = git.list(&head).expect("list");
    let error = git
        .read(&head, entry(&listed, "noise.bin"))
        .expect_err("over the repository limit");
    assert!(
        matches!(
            problem(&error),
            GitProblem::Limit {
                reached: Reached::Repository { .. },
                ..
            }
        ),
        "{error}"
    );
    assert!(
        message(&error, git.url()).contains("temporary repository grew past"),
        "{error}"
    );
    assert!(!dir.exists());
}

#[test]
fn a_server_that_never_answers_hits_the_time_limit() {
    let silent = Silent::start();
    let tls = Tls::new();
    let limits = GitLimits {
        time: Duration::from_millis(1500),
        ..GitLimits::default()
    };
    let url = silent.url("contracts.git");
    let mut git = Git::new(&url)
        .expect("a source")
        .with_env(tls.env())
        .with_limits(limits);
    let dir = temporary_directory(&git);
    let started = Instant::now();
    let error = git.default_branch().expect_err("the time limit");
    let took = started.elapsed();
    let time_limit = |error: &Error| {
        matches!(
            problem(error),
            GitProblem::Limit {
                reached: Reached::Time { .. },
                ..
            }
        )
    };
    assert!(
        matches!(error, Error::Git { .. }) && time_limit(&error),
        "{error}"
    );
    assert!(message(&error, &url).contains("time limit"), "{error}");
    assert!(took >= Duration::from_millis(1500), "{took:?}");
    assert!(took < Duration::from_secs(15), "{took:?}");
    assert!(silent.connections() >= 1, "git did connect");

    // The whole process group is gone, and the temporary repository with it.
    let group = git.last_process_group().expect("a process group");
    let pid = rustix::process::Pid::from_raw(i32::try_from(group).expect("a pid")).expect("a pid");
    assert_eq!(
        rustix::process::test_kill_process_group(pid),
        Err(rustix::io::Errno::SRCH),
        "process group {group} is gone"
    );
    assert!(!dir.exists(), "{} removed", dir.display());

    // Cumulative: a stopped source starts nothing more.
    let error = git.resolve("trunk").expect_err("stopped");
    assert!(
        matches!(error, Error::GitStopped { .. }) && time_limit(&error),
        "{error}"
    );
    assert_eq!(git.last_process_group(), Some(group));
}

#[test]
fn credentials_are_never_prompted_for() {
    let fixture = Fixture::new(ObjectFormat::Sha1);
    let tls = Tls::new();
    let server = Https::start(&tls, &fixture.served(), Behaviour::Unauthorized);
    let url = server.url("contracts.git");
    let mut git = Git::new(&url).expect("a source").with_env(tls.env());
    let dir = temporary_directory(&git);
    let started = Instant::now();
    let error = git.resolve("trunk").expect_err("credentials needed");
    assert!(started.elapsed() < Duration::from_secs(30));
    assert!(
        matches!(
            problem(&error),
            GitProblem::Failed {
                failure: GitFailure::Credentials,
                ..
            }
        ),
        "{error}"
    );
    assert!(message(&error, &url).contains("credentials"), "{error}");
    assert!(!dir.exists(), "a failed acquisition removes the repository");
}

#[test]
fn an_untrusted_certificate_is_refused() {
    let fixture = Fixture::new(ObjectFormat::Sha1);
    let tls = Tls::new();
    let server = Https::start(&tls, &fixture.served(), Behaviour::Serve);
    let url = server.url("contracts.git");
    // This CA is not in the bundle git is given.
    let other = Tls::new();
    let mut git = Git::new(&url).expect("a source").with_env(other.env());
    let error = git.default_branch().expect_err("untrusted");
    assert!(message(&error, &url).contains("TLS"), "{error}");
}

#[test]
fn only_https_and_ssh_reach_git() {
    // The caller refuses these before git starts; git's own configuration refuses them too.
    let fixture = Fixture::new(ObjectFormat::Sha1);
    let tls = Tls::new();
    let path = fixture.bare();
    for url in [
        format!("file://{}", path.display()),
        path.display().to_string(),
        format!("ext::git-upload-pack {}", path.display()).replace(' ', "%20"),
    ] {
        let mut git = Git::new(&url).expect("a source").with_env(tls.env());
        let dir = temporary_directory(&git);
        let error = git.resolve("trunk").expect_err("refused");
        assert!(
            matches!(
                problem(&error),
                GitProblem::Failed {
                    failure: GitFailure::TransportNotAllowed,
                    ..
                }
            ),
            "{url}: {error}"
        );
        assert!(
            message(&error, &url).contains("transport this tool does not allow"),
            "{url}: {error}"
        );
        assert!(!dir.exists());
    }
}

#[test]
fn a_missing_repository_is_said_so() {
    let served = Served::new(ObjectFormat::Sha1);
    let url = served.server.url("nothing-here.git");
    let mut git = Git::new(&url).expect("a source").with_env(served.tls.env());
    let error = git.default_branch().expect_err("no repository");
    assert!(
        message(&error, &url).contains("no such repository"),
        "{error}"
    );
}

#[test]
// Stand-in programs and configuration written in the test's own temporary directory.
#[allow(clippy::disallowed_methods)]
fn credential_helpers_from_the_users_configuration_still_answer() {
    let fixture = Fixture::new(ObjectFormat::Sha1);
    let tls = Tls::new();
    let server = Https::start(&tls, &fixture.served(), Behaviour::Basic);
    let url = server.url("contracts.git");
    let home = tempfile::tempdir().expect("a directory");
    let helper = home.path().join("credential-fixture");
    std::fs::write(
        &helper,
        format!(
            "#!/bin/sh\n[ \"$1\" = get ] && printf 'username={USER}\\npassword={PASSWORD}\\n'\nexit 0\n"
        ),
    )
    .expect("write the helper");
    std::fs::set_permissions(&helper, std::os::unix::fs::PermissionsExt::from_mode(0o755))
        .expect("chmod");
    let config = home.path().join("gitconfig");
    std::fs::write(
        &config,
        format!("[credential]\n\thelper = {}\n", helper.display()),
    )
    .expect("write the configuration");

    // Without the helper: refused at once, no prompt.
    let mut git = Git::new(&url).expect("a source").with_env(tls.env());
    let error = git.default_branch().expect_err("credentials needed");
    assert!(message(&error, &url).contains("credentials"), "{error}");

    // With the user's helper in the global configuration: read.
    let mut env = tls.env();
    env.push(("GIT_CONFIG_GLOBAL".into(), config.into()));
    let mut git = Git::new(&url).expect("a source").with_env(env);
    assert_eq!(git.default_branch().expect("default branch"), "trunk");
    let head = git.resolve("trunk").expect("resolve");
    let listed = git.list(&head).expect("list");
    assert_eq!(
        git.read(&head, entry(&listed, "contracts/tdd-contract.md"))
            .expect("read"),
        TEXT
    );
}

#[test]
// Stand-in programs and configuration written in the test's own temporary directory.
#[allow(clippy::disallowed_methods)]
fn ssh_runs_in_batch_mode_with_no_prompt() {
    // A stand-in `ssh` records how git runs it, then fails as an unreachable host would.
    let bin = tempfile::tempdir().expect("a directory");
    let record = bin.path().join("record");
    let ssh = bin.path().join("ssh");
    std::fs::write(
        &ssh,
        format!(
            "#!/bin/sh\n{{ printf 'arg %s\\n' \"$@\"; env | grep -E '^(GIT_TERMINAL_PROMPT|GIT_ASKPASS|SSH_ASKPASS)=' ; }} >> '{}'\nexit 255\n",
            record.display()
        ),
    )
    .expect("write ssh");
    std::fs::set_permissions(&ssh, std::os::unix::fs::PermissionsExt::from_mode(0o755))
        .expect("chmod");
    let path = std::env::var_os("PATH").unwrap_or_default();
    let mut search = std::ffi::OsString::from(bin.path());
    search.push(":");
    search.push(path);
    let tls = Tls::new();
    for url in [
        "fixture@127.0.0.1:team/contracts.git",
        "ssh://fixture@127.0.0.1:2222/team/contracts.git",
    ] {
        let _ = std::fs::remove_file(&record);
        let mut env = tls.env();
        env.push(("PATH".into(), search.clone()));
        let mut git = Git::new(url).expect("a source").with_env(env);
        let error = git.default_branch().expect_err("unreachable");
        assert!(
            matches!(
                problem(&error),
                GitProblem::Failed {
                    failure: GitFailure::SshFailed,
                    ..
                }
            ),
            "{error}"
        );
        assert!(
            message(&error, url).contains("SSH connection failed"),
            "{error}"
        );
        let seen = std::fs::read_to_string(&record).expect("ssh was run");
        let args: Vec<&str> = seen
            .lines()
            .filter_map(|l| l.strip_prefix("arg "))
            .collect();
        assert!(
            args.windows(2).any(|w| w == ["-o", "BatchMode=yes"]),
            "{url}: {seen}"
        );
        assert!(args.contains(&"fixture@127.0.0.1"), "{url}: {seen}");
        assert!(seen.contains("GIT_TERMINAL_PROMPT=0"), "{url}: {seen}");
        assert!(!seen.contains("ASKPASS="), "{url}: {seen}");
    }
}

/// Issue 30 §2: the files of one batch, handed over in order until the first refusal.
fn read_batch(git: &mut Git, head: &Commit, entries: &[TreeEntry]) -> (Vec<String>, Error) {
    let mut got = Vec::new();
    let error = git
        .read_each(head, entries, &mut |i, bytes| {
            assert_eq!(blob_id(head.format, &bytes), entries[i].oid);
            got.push(entries[i].path.clone());
            true
        })
        .expect_err("refused");
    (got, error)
}

#[test]
fn a_batch_reads_every_file_and_matches_single_reads() {
    let served = Served::new(ObjectFormat::Sha1);
    let mut git = served.source();
    let head = git.resolve("trunk").expect("resolve");
    let listed = git.list(&head).expect("list");
    let paths = [
        "README.md",
        "contracts/tdd-contract.md",
        "contracts/tdd-contract/conformance/check.sh",
        "noise.bin",
    ];
    let entries: Vec<TreeEntry> = paths.iter().map(|p| entry(&listed, p).clone()).collect();
    let mut got = Vec::new();
    git.read_each(&head, &entries, &mut |i, bytes| {
        got.push((i, bytes));
        true
    })
    .expect("a batch");
    let expected: Vec<(usize, Vec<u8>)> = vec![
        (0, README.to_vec()),
        (1, TEXT.to_vec()),
        (2, SCRIPT.to_vec()),
        (3, noise(NOISE)),
    ];
    assert_eq!(got, expected);
    // A link in the middle of a batch is refused in its turn, as a read refuses it.
    let with_link: Vec<TreeEntry> = ["README.md", "link.md", "noise.bin"]
        .iter()
        .map(|p| entry(&listed, p).clone())
        .collect();
    let (got, error) = read_batch(&mut git, &head, &with_link);
    assert_eq!(got, ["README.md"]);
    assert!(
        matches!(
            problem(&error),
            GitProblem::Entry(EntryProblem::NotAFile { .. })
        ),
        "{error}"
    );
}

#[test]
fn a_batch_refuses_a_file_over_the_limit_after_the_files_before_it() {
    let served = Served::new(ObjectFormat::Sha1);
    let mut git = served.source();
    let dir = temporary_directory(&git);
    let head = git.resolve("trunk").expect("resolve");
    let listed = git.list(&head).expect("list");
    let entries: Vec<TreeEntry> = ["README.md", "big.bin", "noise.bin"]
        .iter()
        .map(|p| entry(&listed, p).clone())
        .collect();
    let (got, error) = read_batch(&mut git, &head, &entries);
    assert_eq!(got, ["README.md"]);
    assert!(
        matches!(
            problem(&error),
            GitProblem::FileTooLarge {
                limit: FILE_LIMIT,
                ..
            }
        ),
        "{error}"
    );
    assert!(message(&error, git.url()).contains("big.bin"), "{error}");
    assert!(!dir.exists(), "removed, as after a single read");
}

#[test]
fn a_batch_counts_the_total_limit_file_by_file() {
    let served = Served::new(ObjectFormat::Sha1);
    let limits = GitLimits {
        total: (TEXT.len() + README.len() - 1) as u64,
        ..GitLimits::default()
    };
    let mut git = served.source_with(limits);
    let head = git.resolve("trunk").expect("resolve");
    let listed = git.list(&head).expect("list");
    let entries: Vec<TreeEntry> = ["contracts/tdd-contract.md", "README.md"]
        .iter()
        .map(|p| entry(&listed, p).clone())
        .collect();
    let (got, error) = read_batch(&mut git, &head, &entries);
    assert_eq!(got, ["contracts/tdd-contract.md"]);
    assert!(
        matches!(problem(&error), GitProblem::TotalReached { .. }),
        "{error}"
    );
    assert!(message(&error, git.url()).contains("in all"), "{error}");
}

#[test]
fn a_batch_refuses_bytes_that_do_not_match_the_listed_blob_id() {
    let served = Served::new(ObjectFormat::Sha1);
    let mut git = served.source();
    let head = git.resolve("trunk").expect("resolve");
    let listed = git.list(&head).expect("list");
    let mut forged = entry(&listed, "README.md").clone();
    forged.oid = blob_id(ObjectFormat::Sha1, b"something else\n");
    let entries = vec![
        entry(&listed, "contracts/tdd-contract.md").clone(),
        forged,
        entry(&listed, "noise.bin").clone(),
    ];
    let mut got = Vec::new();
    let error = git
        .read_each(&head, &entries, &mut |i, _| {
            got.push(i);
            true
        })
        .expect_err("a forged id");
    assert_eq!(got, [0]);
    assert!(
        matches!(problem(&error), GitProblem::BlobMismatch { .. }),
        "{error}"
    );
    assert!(
        message(&error, git.url()).contains("does not match its blob id"),
        "{error}"
    );
}
