//! Signed rows (issue 33 §1) through the binary: keys made by `ssh-keygen` at test time, an
//! upstream repository with signed and unsigned commits and tags, served by `git http-backend`
//! behind TLS on 127.0.0.1, and `skill add --signed-by`, `pull`, `sync`, `outdated` and
//! `verify` judging what they pin against an allowed-signers file of the consumer's.
#![allow(clippy::disallowed_methods, clippy::unwrap_used)]

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common::{Repo, Run, git};
use crate::git_server::{Behaviour, Https, Tls};

const SKILL: &str = "---\nname: pdf\ndescription: Reads PDF files.\n---\n# PDF\n\none\n";
const ALLOWED: &str = ".github/allowed_signers";

/// Whether `ssh-keygen` can be run here; a test that needs it says so and passes otherwise.
#[allow(clippy::print_stderr)]
fn have_ssh_keygen() -> bool {
    let found = Command::new("ssh-keygen").arg("-?").output().is_ok();
    if !found {
        eprintln!("ssh-keygen is not installed: the signed-source tests need it, skipped");
    }
    found
}

/// An Ed25519 key made by `ssh-keygen`, without a passphrase.
struct Key {
    private: PathBuf,
    public: String,
    fingerprint: String,
}

impl Key {
    fn new(dir: &Path, name: &str) -> Key {
        let private = dir.join(name);
        let out = Command::new("ssh-keygen")
            .args(["-q", "-t", "ed25519", "-N", "", "-C", name, "-f"])
            .arg(&private)
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
        let public = std::fs::read_to_string(private.with_extension("pub")).unwrap();
        let public = public
            .split_whitespace()
            .take(2)
            .collect::<Vec<_>>()
            .join(" ");
        let listed = Command::new("ssh-keygen")
            .arg("-lf")
            .arg(private.with_extension("pub"))
            .output()
            .unwrap();
        let fingerprint = String::from_utf8(listed.stdout)
            .unwrap()
            .split_whitespace()
            .nth(1)
            .unwrap()
            .to_owned();
        Key {
            private,
            public,
            fingerprint,
        }
    }

    /// The `-c` settings git signs with this key through.
    fn signing(&self) -> [String; 4] {
        [
            "-c".to_owned(),
            "gpg.format=ssh".to_owned(),
            "-c".to_owned(),
            format!("user.signingkey={}", self.private.display()),
        ]
    }
}

/// The keys of a test: three the allowed-signers file holds (one only before 2023), one it
/// does not.
struct Keys {
    _dir: tempfile::TempDir,
    alice: Key,
    bob: Key,
    old: Key,
    mallory: Key,
}

impl Keys {
    fn new() -> Keys {
        let dir = tempfile::tempdir().unwrap();
        Keys {
            alice: Key::new(dir.path(), "alice"),
            bob: Key::new(dir.path(), "bob"),
            old: Key::new(dir.path(), "old"),
            mallory: Key::new(dir.path(), "mallory"),
            _dir: dir,
        }
    }

    /// The consumer's allowed-signers file: alice (for git only), bob, and old until 2023
    /// (the fixtures' commits are dated 2024).
    fn allowed(&self) -> String {
        format!(
            "# who may sign the skills we take\nalice@example.com namespaces=\"git\" {}\nbob@example.com {}\nold@example.com valid-before=\"20230101\" {}\n",
            self.alice.public, self.bob.public, self.old.public
        )
    }
}

/// An upstream repository: a work tree whose commits and tags are pushed to the bare copy
/// served over HTTPS.
struct Upstream {
    dir: tempfile::TempDir,
    tls: Tls,
    server: Https,
}

impl Upstream {
    fn new() -> Upstream {
        let dir = tempfile::tempdir().unwrap();
        git(dir.path(), &["init", "-q", "-b", "main", "work"]);
        std::fs::create_dir(dir.path().join("served")).unwrap();
        let tls = Tls::new();
        let server = Https::start(&tls, &dir.path().join("served"), Behaviour::Serve);
        Upstream { dir, tls, server }
    }

    fn work(&self) -> PathBuf {
        self.dir.path().join("work")
    }

    fn bare(&self) -> PathBuf {
        self.dir.path().join("served/skills.git")
    }

    fn write(&self, rel: &str, text: &str) {
        let p = self.work().join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }

    fn git(&self, args: &[&str]) -> String {
        git(&self.work(), args)
    }

    /// Publishes `main` and every tag.
    fn publish(&self) {
        if !self.bare().exists() {
            git(
                &self.dir.path().join("served"),
                &["clone", "-q", "--bare", "../work", "skills.git"],
            );
        }
        let bare = self.bare();
        let bare = bare.to_str().unwrap();
        self.git(&["push", "-q", "-f", bare, "main"]);
        self.git(&["push", "-q", "-f", "--tags", bare]);
    }

    /// Commits `text` as the skill, signed by `key` when given, and publishes it; the new
    /// commit id.
    fn commit(&self, text: &str, key: Option<&Key>) -> String {
        self.write("skills/pdf/SKILL.md", text);
        self.git(&["add", "-A"]);
        let mut args: Vec<String> = Vec::new();
        if let Some(key) = key {
            args.extend(key.signing());
        }
        args.extend(["commit", "-q", "-m", "change"].map(str::to_owned));
        if key.is_some() {
            args.push("-S".to_owned());
        }
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        self.git(&args);
        self.publish();
        self.git(&["rev-parse", "HEAD"])
    }

    /// Tags HEAD `name`: signed by `key`, annotated and unsigned with `None`, or lightweight.
    fn tag(&self, name: &str, kind: TagKind<'_>) {
        match kind {
            TagKind::Lightweight => {
                self.git(&["tag", name]);
            }
            TagKind::Annotated => {
                self.git(&["tag", "-a", name, "-m", name]);
            }
            TagKind::Signed(key) => {
                let mut args: Vec<String> = key.signing().to_vec();
                args.extend(["tag", "-s", name, "-m", name].map(str::to_owned));
                let args: Vec<&str> = args.iter().map(String::as_str).collect();
                self.git(&args);
            }
        }
        self.publish();
    }

    /// Replaces HEAD with a copy whose message was changed after it was signed (its signature
    /// kept), and publishes it; the new commit id.
    fn tamper(&self) -> String {
        let raw = self.git(&["cat-file", "commit", "HEAD"]);
        let changed = format!("{}\n", raw.replace("\nchange", "\nchanged after signing"));
        let path = self.dir.path().join("tampered");
        std::fs::write(&path, changed).unwrap();
        let id = self.git(&["hash-object", "-t", "commit", "-w", path.to_str().unwrap()]);
        self.git(&["update-ref", "refs/heads/main", &id]);
        self.publish();
        id
    }

    fn url(&self) -> String {
        self.server.url("skills.git")
    }

    fn run(&self, repo: &Repo, args: &[&str]) -> Run {
        let out = Command::new(env!("CARGO_BIN_EXE_agentic-skill-vendor"))
            .args(args)
            .arg("--root")
            .arg(repo.path())
            .env_clear()
            .env("PATH", std::env::var("PATH").unwrap_or_default())
            .envs(self.tls.env())
            .output()
            .unwrap();
        Run {
            code: out.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        }
    }
}

enum TagKind<'k> {
    Lightweight,
    Annotated,
    Signed(&'k Key),
}

fn short(id: &str) -> &str {
    &id[..12]
}

/// Asserts `run` was refused (exit 2) with every one of `words` on stderr.
fn refused(run: &Run, words: &[&str]) {
    assert_eq!(run.code, 2, "{run:?}");
    for w in words {
        assert!(run.stderr.contains(w), "{w:?} not in {run:?}");
    }
}

fn lock(me: &Repo) -> serde_json::Value {
    serde_json::from_str(&me.read_string("vendor-skills-lock.json")).unwrap()
}

/// A consumer repository holding the allowed-signers file and nothing else.
fn consumer(keys: &Keys) -> Repo {
    let me = Repo::empty();
    me.write(ALLOWED, keys.allowed());
    me
}

#[test]
fn add_takes_only_a_commit_signed_by_an_allowed_key_in_its_validity() {
    if !have_ssh_keygen() {
        return;
    }
    let keys = Keys::new();
    let up = Upstream::new();
    let me = consumer(&keys);
    let add = [
        "skill",
        "add",
        &up.url(),
        "skills/pdf",
        "--signed-by",
        ALLOWED,
    ];
    let before = me.snapshot();

    let unsigned = up.commit(SKILL, None);
    refused(
        &up.run(&me, &add),
        &["pdf: commit", short(&unsigned), "it is not signed", ALLOWED],
    );
    assert_eq!(me.snapshot(), before, "a refused add writes nothing");

    let by_mallory = up.commit(&format!("{SKILL}two\n"), Some(&keys.mallory));
    refused(
        &up.run(&me, &add),
        &[
            short(&by_mallory),
            &keys.mallory.fingerprint,
            "which the allowed-signers file does not hold",
        ],
    );

    let by_old = up.commit(&format!("{SKILL}three\n"), Some(&keys.old));
    refused(
        &up.run(&me, &add),
        &[
            short(&by_old),
            "old@example.com",
            &keys.old.fingerprint,
            "outside the key's validity",
        ],
    );

    up.commit(&format!("{SKILL}four\n"), Some(&keys.alice));
    let tampered = up.tamper();
    refused(
        &up.run(&me, &add),
        &[
            short(&tampered),
            &keys.alice.fingerprint,
            "does not match the content",
        ],
    );
    assert_eq!(me.snapshot(), before, "no refusal wrote anything");

    let by_alice = up.commit(&format!("{SKILL}five\n"), Some(&keys.alice));
    let added = up.run(&me, &add);
    assert_eq!(added.code, 0, "{added:?}");
    let entry = &lock(&me)["skills"]["pdf"];
    assert_eq!(entry["revision"], by_alice.as_str());
    assert_eq!(entry["signer"]["principal"], "alice@example.com");
    assert_eq!(entry["signer"]["key"], keys.alice.fingerprint.as_str());
    assert!(
        me.read_string("vendor-skills.yaml")
            .contains("    signed-by: .github/allowed_signers\n"),
        "{}",
        me.read_string("vendor-skills.yaml")
    );
    let verified = up.run(&me, &["skill", "verify"]);
    assert_eq!(verified.code, 0, "{verified:?}");

    // Taken again without --signed-by, the row keeps its file, and its check.
    let unsigned = up.commit(&format!("{SKILL}six\n"), None);
    me.remove("skills/pdf");
    refused(
        &up.run(&me, &["skill", "add", &up.url(), "skills/pdf"]),
        &[short(&unsigned), "it is not signed"],
    );
    assert!(me.read_string("vendor-skills.yaml").contains("signed-by:"));
}

#[test]
fn a_new_signer_is_refused_once_then_accepted_and_verify_rechecks_the_file() {
    if !have_ssh_keygen() {
        return;
    }
    let keys = Keys::new();
    let up = Upstream::new();
    let me = consumer(&keys);
    let first = up.commit(SKILL, Some(&keys.alice));
    let added = up.run(
        &me,
        &[
            "skill",
            "add",
            &up.url(),
            "skills/pdf",
            "--signed-by",
            ALLOWED,
        ],
    );
    assert_eq!(added.code, 0, "{added:?}");

    // Bob is allowed too, but he did not sign the pin before: said, and refused.
    let by_bob = up.commit(&format!("{SKILL}two\n"), Some(&keys.bob));
    let outdated = up.run(&me, &["skill", "outdated"]);
    assert_eq!(outdated.code, 1, "outdated lists it: {outdated:?}");
    let before = me.snapshot();
    let pulled = up.run(&me, &["skill", "pull"]);
    refused(
        &pulled,
        &[
            short(&by_bob),
            "bob@example.com",
            &keys.bob.fingerprint,
            "alice@example.com",
            &keys.alice.fingerprint,
            "--accept-signer-change",
        ],
    );
    assert_eq!(me.snapshot(), before, "a refused pull writes nothing");
    assert_eq!(lock(&me)["skills"]["pdf"]["revision"], first.as_str());

    let accepted = up.run(&me, &["skill", "pull", "--accept-signer-change"]);
    assert_eq!(accepted.code, 0, "{accepted:?}");
    let entry = &lock(&me)["skills"]["pdf"];
    assert_eq!(entry["revision"], by_bob.as_str());
    assert_eq!(entry["signer"]["principal"], "bob@example.com");
    assert_eq!(entry["signer"]["key"], keys.bob.fingerprint.as_str());

    // An unsigned commit upstream: outdated and pull both refuse it, naming it.
    let unsigned = up.commit(&format!("{SKILL}three\n"), None);
    refused(
        &up.run(&me, &["skill", "outdated"]),
        &[short(&unsigned), "it is not signed"],
    );
    refused(
        &up.run(&me, &["skill", "pull", "pdf"]),
        &[short(&unsigned), "it is not signed"],
    );

    // Offline: the recorded signer must still be in the file.
    let verified = up.run(&me, &["skill", "verify"]);
    assert_eq!(verified.code, 0, "{verified:?}");
    me.write(
        ALLOWED,
        keys.allowed()
            .lines()
            .filter(|l| !l.starts_with("bob@"))
            .map(|l| format!("{l}\n"))
            .collect::<String>(),
    );
    let verified = up.run(&me, &["skill", "verify"]);
    assert_eq!(verified.code, 1, "{verified:?}");
    assert!(
        verified.stdout.contains("bob@example.com")
            && verified.stdout.contains(&keys.bob.fingerprint)
            && verified.stdout.contains("no longer holds"),
        "{verified:?}"
    );
    me.write(ALLOWED, "not a signer line\n");
    let verified = up.run(&me, &["skill", "verify"]);
    assert_eq!(verified.code, 1, "{verified:?}");
    assert!(
        verified.stdout.contains("line 1 is not an allowed signer"),
        "{verified:?}"
    );
}

#[test]
fn a_tag_row_needs_a_signed_annotated_tag() {
    if !have_ssh_keygen() {
        return;
    }
    let keys = Keys::new();
    let up = Upstream::new();
    let me = consumer(&keys);
    // Commits unsigned throughout: at a tag, the tag is what is signed.
    let one = up.commit(SKILL, None);
    up.tag("v1.0.0", TagKind::Lightweight);
    let add = |reference: &str| {
        up.run(
            &me,
            &[
                "skill",
                "add",
                &up.url(),
                "skills/pdf",
                "--ref",
                reference,
                "--signed-by",
                ALLOWED,
            ],
        )
    };
    refused(
        &add("v1.0.0"),
        &[short(&one), "tag v1.0.0 is a lightweight tag"],
    );
    let two = up.commit(&format!("{SKILL}two\n"), None);
    up.tag("v2.0.0", TagKind::Annotated);
    refused(
        &add("^2"),
        &[short(&two), "its tag v2.0.0: it is not signed"],
    );
    up.tag("v2.0.1", TagKind::Signed(&keys.mallory));
    refused(&add("v2.0.1"), &[&keys.mallory.fingerprint]);

    let three = up.commit(&format!("{SKILL}three\n"), None);
    up.tag("v3.0.0", TagKind::Signed(&keys.alice));
    let added = add("^3");
    assert_eq!(added.code, 0, "{added:?}");
    let entry = &lock(&me)["skills"]["pdf"];
    assert_eq!(entry["revision"], three.as_str());
    assert_eq!(entry["tag"], "v3.0.0");
    assert_eq!(entry["signer"]["key"], keys.alice.fingerprint.as_str());

    // Restored by sync from its kept base: the recorded signer is judged offline.
    me.remove("skills/pdf");
    let synced = up.run(&me, &["skill", "sync"]);
    assert_eq!(synced.code, 0, "{synced:?}");
    assert!(me.exists("skills/pdf/SKILL.md"));
}

#[test]
fn sync_takes_up_a_signed_row_only_at_a_signed_commit() {
    if !have_ssh_keygen() {
        return;
    }
    let keys = Keys::new();
    let up = Upstream::new();
    let me = consumer(&keys);
    let unsigned = up.commit(SKILL, None);
    me.write(
        "vendor-skills.yaml",
        format!(
            "skills:\n  pdf:\n    source: {}\n    path: skills/pdf\n    signed-by: {ALLOWED}\n",
            up.url()
        ),
    );
    let before = me.snapshot();
    refused(
        &up.run(&me, &["skill", "sync"]),
        &[short(&unsigned), "it is not signed"],
    );
    assert_eq!(me.snapshot(), before);
    let signed = up.commit(&format!("{SKILL}two\n"), Some(&keys.alice));
    let synced = up.run(&me, &["skill", "sync"]);
    assert_eq!(synced.code, 0, "{synced:?}");
    let entry = &lock(&me)["skills"]["pdf"];
    assert_eq!(entry["revision"], signed.as_str());
    assert_eq!(entry["signer"]["principal"], "alice@example.com");

    // A row that names no file of the repository is refused before the source is reached.
    me.remove(ALLOWED);
    me.remove("skills/pdf");
    refused(
        &up.run(&me, &["skill", "sync"]),
        &[ALLOWED, "not found", "signed-by"],
    );
}

#[test]
fn a_github_api_source_cannot_be_a_signed_row() {
    if !have_ssh_keygen() {
        return;
    }
    let keys = Keys::new();
    let me = consumer(&keys);
    let before = me.snapshot();
    let run = me.run(&[
        "skill",
        "add",
        "acme/skills",
        "skills/pdf",
        "--signed-by",
        ALLOWED,
    ]);
    refused(
        &run,
        &[
            "needs a git URL",
            "GitHub API",
            "https://github.com/acme/skills.git",
        ],
    );
    assert_eq!(me.snapshot(), before);
}

#[test]
fn a_conflicted_pull_keeps_the_new_signer_until_resolved_and_a_refetched_base_is_checked() {
    if !have_ssh_keygen() {
        return;
    }
    let keys = Keys::new();
    let up = Upstream::new();
    let me = consumer(&keys);
    up.commit(SKILL, Some(&keys.alice));
    let added = up.run(
        &me,
        &[
            "skill",
            "add",
            &up.url(),
            "skills/pdf",
            "--signed-by",
            ALLOWED,
        ],
    );
    assert_eq!(added.code, 0, "{added:?}");
    me.write(
        "skills/pdf/SKILL.md",
        SKILL.replace("one\n", "one (ours)\n"),
    );
    let theirs = up.commit(&SKILL.replace("one\n", "one (theirs)\n"), Some(&keys.bob));
    let pulled = up.run(
        &me,
        &[
            "skill",
            "pull",
            "--write-conflicts",
            "--accept-signer-change",
        ],
    );
    assert_eq!(pulled.code, 1, "{pulled:?}");
    let entry = &lock(&me)["skills"]["pdf"];
    assert_eq!(entry["signer"]["principal"], "alice@example.com");
    assert_eq!(entry["pending"]["revision"], theirs.as_str());
    assert_eq!(entry["pending"]["signer"]["principal"], "bob@example.com");
    me.write(
        "skills/pdf/SKILL.md",
        SKILL.replace("one\n", "one (both)\n"),
    );
    let resolved = up.run(&me, &["skill", "resolve", "pdf"]);
    assert_eq!(resolved.code, 0, "{resolved:?}");
    let entry = &lock(&me)["skills"]["pdf"];
    assert_eq!(entry["revision"], theirs.as_str());
    assert_eq!(entry["signer"]["key"], keys.bob.fingerprint.as_str());

    // Restored with its kept base gone, the pin is fetched again and its signature checked:
    // a file that no longer holds bob refuses it.
    me.remove("skills/pdf");
    me.remove(".agentic-skill-vendor/skill-bases");
    me.write(
        ALLOWED,
        keys.allowed()
            .lines()
            .filter(|l| !l.starts_with("bob@"))
            .map(|l| format!("{l}\n"))
            .collect::<String>(),
    );
    refused(
        &up.run(&me, &["skill", "sync"]),
        &[short(&theirs), &keys.bob.fingerprint, "does not hold"],
    );
    me.write(ALLOWED, keys.allowed());
    let synced = up.run(&me, &["skill", "sync"]);
    assert_eq!(synced.code, 0, "{synced:?}");
    assert!(me.exists("skills/pdf/SKILL.md"));
}

/// The raw commit and tag objects come in the conversations that already fetch and type the
/// pin: a signed add starts exactly as many git processes as the same add unsigned, at a
/// branch and at a range's signed tag. Counted through a `git` on `PATH` that logs each run.
#[test]
fn a_signed_add_starts_no_more_git_processes_than_an_unsigned_one() {
    if !have_ssh_keygen() {
        return;
    }
    let keys = Keys::new();
    let up = Upstream::new();
    up.commit(SKILL, Some(&keys.alice));
    up.tag("v1.0.0", TagKind::Signed(&keys.alice));
    let bin = tempfile::tempdir().unwrap();
    let log = bin.path().join("git.log");
    let path = asv_test_support::git::wrapped_git(bin.path(), |real| {
        format!(
            "#!/bin/sh\necho \"$*\" >> '{}'\nexec '{}' \"$@\"\n",
            log.display(),
            real
        )
    });
    let counted = |reference: &str, signed: bool| {
        let me = consumer(&keys);
        std::fs::write(&log, "").unwrap();
        let mut args = vec!["skill", "add", "--ref", reference];
        if signed {
            args.extend(["--signed-by", ALLOWED]);
        }
        let url = up.url();
        args.extend([url.as_str(), "skills/pdf"]);
        let out = Command::new(env!("CARGO_BIN_EXE_agentic-skill-vendor"))
            .args(&args)
            .arg("--root")
            .arg(me.path())
            .env_clear()
            .env("PATH", &path)
            .envs(up.tls.env())
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{out:?}");
        std::fs::read_to_string(&log).unwrap().lines().count()
    };
    for reference in ["main", "^1"] {
        let plain = counted(reference, false);
        let signed = counted(reference, true);
        assert!(plain > 0, "the wrapper logged nothing");
        assert_eq!(
            signed, plain,
            "at {reference}: signed {signed}, unsigned {plain}"
        );
    }
}
