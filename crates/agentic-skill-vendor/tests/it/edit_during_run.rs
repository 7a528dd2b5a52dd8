//! An edit saved while a writer runs is never lost (issue 27 §4). The test build holds the
//! apply between staging and swapping (`ASV_TEST_PAUSE_BEFORE_SWAP`); the test edits the
//! tree there and lets it go on. The writer must refuse, roll back and name what changed;
//! the edit must be on disk afterwards and nothing else changed.
#![allow(clippy::disallowed_methods, clippy::unwrap_used)]

use std::collections::BTreeMap;
use std::fs;
use std::path::Path;
use std::time::{Duration, Instant};

use crate::common::{Repo, Run, run_bin_env};

const PDF: &str =
    "---\nname: pdf\ndescription: Reads PDF files.\n---\n# PDF\n\nline one\nline two\nline three\n";

/// Runs `args` on `repo`, edits the tree with `edit` while the apply waits before its first
/// swap, and returns the run.
fn run_editing(repo: &Repo, args: &[&str], edit: impl FnOnce(&Path)) -> Run {
    let gate = tempfile::tempdir().unwrap();
    let pause = gate.path().join("pause");
    let mut all: Vec<String> = args.iter().map(|s| (*s).to_owned()).collect();
    all.extend(["--root".to_owned(), repo.path().display().to_string()]);
    let root = repo.path().to_owned();
    let at = pause.display().to_string();
    let run = std::thread::spawn(move || {
        run_bin_env(
            &all,
            None,
            Some(&root),
            &[("ASV_TEST_PAUSE_BEFORE_SWAP", at.as_str())],
        )
    });
    let started = Instant::now();
    while !pause.exists() {
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "{args:?} never reached its swap"
        );
        assert!(!run.is_finished(), "{args:?} ended before its swap");
        std::thread::sleep(Duration::from_millis(5));
    }
    // The file system's clock moves in ticks of a few milliseconds: an edit in the same tick
    // as the read could keep its time stamp, which a person's never does.
    std::thread::sleep(Duration::from_millis(30));
    edit(repo.path());
    fs::remove_file(&pause).unwrap();
    run.join().unwrap()
}

/// The tree without `skip` (the edited paths), for comparing before and after.
fn without(snapshot: BTreeMap<String, String>, skip: &[&str]) -> BTreeMap<String, String> {
    snapshot
        .into_iter()
        .filter(|(k, _)| {
            !skip
                .iter()
                .any(|s| k == s || k.starts_with(&format!("{s}/")))
        })
        .collect()
}

fn refused(run: &Run, path: &str) {
    assert_eq!(run.code, 2, "{run:?}");
    assert_eq!(
        run.stderr,
        format!(
            "error: {path}: changed while agentic-skill-vendor ran; nothing was changed, and the edit is kept; run it again\n"
        ),
        "{run:?}"
    );
}

/// A repository that took `pdf` from `up`, edited on both sides since.
fn diverged() -> (Repo, Repo) {
    let up = Repo::empty();
    up.write("skills/pdf/SKILL.md", PDF);
    let me = Repo::empty();
    let added = me.run(&[
        "skill",
        "add",
        &up.path().display().to_string(),
        "skills/pdf",
    ]);
    assert_eq!(added.code, 0, "{added:?}");
    up.write(
        "skills/pdf/SKILL.md",
        PDF.replace("line one", "line one, up"),
    );
    me.write(
        "skills/pdf/SKILL.md",
        PDF.replace("line three", "line three, me"),
    );
    (up, me)
}

#[test]
fn an_edit_saved_while_pull_stages_is_kept() {
    let (_up, me) = diverged();
    let before = me.snapshot();
    let edited = PDF.replace("line three", "line three, me, and more");
    let run = run_editing(&me, &["skill", "pull", "pdf"], |root| {
        // Written in place, as most editors save: same file, new bytes.
        fs::write(root.join("skills/pdf/SKILL.md"), &edited).unwrap();
    });
    refused(&run, "skills/pdf/SKILL.md");
    assert_eq!(me.read_string("skills/pdf/SKILL.md"), edited);
    assert_eq!(
        without(me.snapshot(), &["skills/pdf/SKILL.md"]),
        without(before, &["skills/pdf/SKILL.md"])
    );
    // Run again, it merges the edit.
    let again = me.run(&["skill", "pull", "pdf"]);
    assert_eq!(again.code, 0, "{again:?}");
    assert!(
        me.read_string("skills/pdf/SKILL.md")
            .contains("line one, up")
    );
    assert!(me.read_string("skills/pdf/SKILL.md").contains("and more"));
}

#[test]
fn a_file_appearing_while_remove_force_runs_is_kept() {
    let (_up, me) = diverged();
    let before = me.snapshot();
    let run = run_editing(&me, &["skill", "remove", "pdf", "--force"], |root| {
        fs::write(root.join("skills/pdf/notes.md"), "mine\n").unwrap();
    });
    refused(&run, "skills/pdf");
    assert_eq!(me.read_string("skills/pdf/notes.md"), "mine\n");
    assert_eq!(without(me.snapshot(), &["skills/pdf/notes.md"]), before);
}

#[test]
fn a_file_appearing_in_an_agents_copy_while_sync_runs_is_kept() {
    let me = Repo::empty();
    me.write(
        "skills/own/SKILL.md",
        "---\nname: own\ndescription: Ours.\n---\nfirst\n",
    );
    me.write("vendor-skills.yaml", "targets: [claude]\n");
    let first = me.run(&["skill", "sync"]);
    assert_eq!(first.code, 0, "{first:?}");
    assert!(me.exists(".claude/skills/own/SKILL.md"), "{first:?}");
    me.write(
        "skills/own/SKILL.md",
        "---\nname: own\ndescription: Ours.\n---\nsecond\n",
    );
    let before = me.snapshot();
    let run = run_editing(&me, &["skill", "sync", "--force"], |root| {
        fs::write(root.join(".claude/skills/own/mine.md"), "mine\n").unwrap();
    });
    refused(&run, ".claude/skills/own");
    assert_eq!(me.read_string(".claude/skills/own/mine.md"), "mine\n");
    assert_eq!(
        without(me.snapshot(), &[".claude/skills/own/mine.md"]),
        before
    );
}

#[test]
fn a_file_touched_while_pull_stages_lets_it_finish() {
    let (_up, me) = diverged();
    let run = run_editing(&me, &["skill", "pull", "pdf"], |root| {
        // Its marks move, its bytes do not: the pull looks at the bytes and goes on.
        let path = root.join("skills/pdf/SKILL.md");
        let bytes = fs::read(&path).unwrap();
        fs::write(&path, bytes).unwrap();
    });
    assert_eq!(run.code, 0, "{run:?}");
    let merged = me.read_string("skills/pdf/SKILL.md");
    assert!(
        merged.contains("line one, up") && merged.contains("line three, me"),
        "{merged}"
    );
}
