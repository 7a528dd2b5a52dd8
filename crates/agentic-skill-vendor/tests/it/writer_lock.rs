//! One writer at a time (issue 15 §2): a command that changes the repository waits for another
//! run changing it, then refuses naming that run's process; readers and dry runs are never held.
//!
//! The other run is played by util-linux `flock` holding the same lock the binary takes (an
//! exclusive `flock` on the repository's root directory), so the test decides exactly when it
//! is held and released.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::common::{Repo, Run, assert_run_snapshot};

/// Another process holding the repository's writer lock until dropped.
struct Held {
    child: Child,
}

impl Held {
    /// Holds the lock on `repo`'s root; returns once it is held.
    fn on(repo: &Repo) -> Self {
        // `--close` keeps the lock in `flock` itself (not in `sh` and `cat`), so `cat` ending
        // when its stdin closes ends `flock` and releases the lock.
        let mut child = Command::new("flock")
            .args(["--exclusive", "--close"])
            .arg(repo.path())
            .args(["sh", "-c", "echo held; exec cat"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("util-linux flock on PATH");
        let mut line = String::new();
        BufReader::new(child.stdout.as_mut().expect("stdout"))
            .read_line(&mut line)
            .expect("read");
        assert_eq!(line, "held\n");
        Held { child }
    }

    fn pid(&self) -> u32 {
        self.child.id()
    }
}

impl Drop for Held {
    fn drop(&mut self) {
        drop(self.child.stdin.take());
        let _ = self.child.wait();
    }
}

/// The refusal of a writer that found the lock held by `pid`.
fn busy(pid: u32) -> Run {
    Run {
        code: 2,
        stdout: String::new(),
        stderr: format!(
            "error: another run of agentic-skill-vendor (process {pid}) is changing this repository; wait for it to finish, or stop it\n"
        ),
    }
}

#[test]
fn a_writer_waits_for_another_run_then_refuses_naming_it_and_changes_nothing() {
    let repo = Repo::demo();
    // Something for gen to write, so a gen that ran would show.
    repo.write("contracts/verdict-format.md", "Changed text\n");
    let before = repo.snapshot();
    let held = Held::on(&repo);

    let started = Instant::now();
    assert_eq!(repo.run(&["gen"]), busy(held.pid()));
    assert!(
        started.elapsed() >= Duration::from_secs(2),
        "a writer waits a while before refusing"
    );
    assert_eq!(repo.run(&["skill", "pull"]), busy(held.pid()));
    assert_eq!(repo.snapshot(), before, "a refused writer writes nothing");

    // Readers and dry runs change nothing, so they go on at once.
    let started = Instant::now();
    assert_eq!(repo.run(&["verify"]).code, 1, "verify reports the drift");
    assert_eq!(repo.run(&["gen", "--dry-run"]).code, 0);
    assert_eq!(repo.run(&["lint-selfcontain"]).code, 0);
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "readers never wait"
    );

    drop(held);
    assert_eq!(repo.run(&["gen"]).code, 0);
    assert_eq!(repo.run(&["verify"]).code, 0);
}

#[test]
fn a_writer_takes_the_lock_released_while_it_waits() {
    let repo = Repo::demo();
    repo.write("contracts/verdict-format.md", "Changed text\n");
    let held = Held::on(&repo);
    let release = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(500));
        drop(held);
    });
    let run = repo.run(&["gen"]);
    release.join().expect("release");
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(repo.run(&["verify"]).code, 0);
}

#[test]
fn gen_leaves_no_lock_file_in_the_tree() {
    // The contract commands leave exactly the files the TypeScript tool leaves: the lock is on
    // the root directory, so no `.agentic-skill-vendor/` appears where gen made none before.
    let repo = Repo::demo();
    repo.write("contracts/verdict-format.md", "Changed text\n");
    assert!(!repo.exists(".agentic-skill-vendor"));
    assert_eq!(repo.run(&["gen"]).code, 0);
    assert!(!repo.exists(".agentic-skill-vendor"));
}

/// Two real writers: `gen` stalls for a second in the middle of its change (staged entries
/// and its journal on disk, some destinations swapped), and `skill pull` is started then —
/// the pair the adversarial runs found leaving drift and a staged file inside a skill. The
/// pull waits for the lock instead of acting on (or putting back) a change in flight; both
/// finish, and the tree is one both checks accept. Without the lock the pull would find the
/// gen's journal and undo its change under it.
#[test]
fn a_second_writer_waits_for_a_change_in_flight_and_both_finish() {
    let up = Repo::empty();
    up.write(
        "skills/pdf/SKILL.md",
        "---\nname: pdf\ndescription: Reads PDF files.\n---\n# PDF\n",
    );
    let repo = Repo::demo();
    let added = repo.run(&[
        "skill",
        "add",
        &up.path().display().to_string(),
        "skills/pdf",
    ]);
    assert_eq!(added.code, 0, "{added:?}");
    for (stall, second) in [(6, &["skill", "pull"][..]), (10, &["gen"][..])] {
        // Something for gen and for the pull to do.
        repo.write("contracts/verdict-format.md", format!("Text {stall}\n"));
        up.write("skills/pdf/notes.md", format!("Upstream {stall}\n"));
        let first = Command::new(env!("CARGO_BIN_EXE_agentic-skill-vendor"))
            .args(["gen", "--root"])
            .arg(repo.path())
            .env("ASV_TEST_STALL_AT_CALL", stall.to_string())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn");
        // Until the gen is in its stall.
        repo.wait_for_journal(Duration::from_secs(10), "gen");
        let run = repo.run(second);
        let out = first.wait_with_output().expect("wait");
        assert!(out.status.success(), "{second:?}: gen: {out:?}");
        assert_eq!(run.code, 0, "{second:?}: {run:?}");
        // A fragment, not a snapshot: what the second command prints depends on how far the
        // first had got when it took the lock; only a recovery ("put back") must never show.
        assert!(!run.stderr.contains("put back"), "{second:?}: {run:?}");
        assert_eq!(repo.run(&["verify"]).code, 0, "{second:?}");
        assert_eq!(repo.run(&["skill", "verify"]).code, 0, "{second:?}");
        let status = repo.run(&["skill", "status"]);
        assert_run_snapshot!("status_after_waiting_for_the_lock", status, repo);
    }
}
