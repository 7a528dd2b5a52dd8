//! Kept bases under `.agentic-skill-vendor/skill-bases/` go when the lock no longer refers to
//! them: every writer that drops a base's last reference (pull, resolve, remove, sync dropping
//! a skill, add replacing an entry) removes its directory and digest list in the same
//! transaction as the lock change (issue 27 §6). Run on the real binary with a local
//! directory as upstream.
#![allow(clippy::disallowed_methods, clippy::unwrap_used)]

use std::collections::BTreeSet;

use crate::common::{Repo, assert_run_snapshot};
use asv_test_support::snapshot::labelled;

const BASES: &str = ".agentic-skill-vendor/skill-bases";

fn skill(name: &str) -> String {
    format!(
        "---\nname: {name}\ndescription: Reads {name} files.\n---\n# {name}\n\none\ntwo\nthree\nfour\nfive\nsix\n"
    )
}

fn source(up: &Repo) -> String {
    up.path().display().to_string()
}

fn edit(repo: &Repo, rel: &str, from: &str, to: &str) {
    let text = repo.read_string(rel);
    assert!(text.contains(from), "{rel} lacks {from:?}");
    repo.write(rel, text.replacen(from, to, 1));
}

/// An upstream holding `skills/pdf`, and a repository that took it.
fn imported() -> (Repo, Repo) {
    let up = Repo::empty();
    up.write("skills/pdf/SKILL.md", skill("pdf"));
    let me = Repo::empty();
    let out = me.run(&["skill", "add", &source(&up), "skills/pdf"]);
    assert_eq!(out.code, 0, "{out:?}");
    (up, me)
}

/// Every entry of the kept bases' directory (base directories and `<hex>.json` lists).
fn kept(me: &Repo) -> BTreeSet<String> {
    match std::fs::read_dir(me.join(BASES)) {
        Ok(dir) => dir
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect(),
        Err(_) => BTreeSet::new(),
    }
}

/// The base directory and digest list of every hash the lock refers to (base and pending).
fn referenced(me: &Repo) -> BTreeSet<String> {
    let lock: serde_json::Value =
        serde_json::from_str(&me.read_string("vendor-skills-lock.json")).unwrap();
    let mut out = BTreeSet::new();
    for entry in lock["skills"].as_object().unwrap().values() {
        let hashes = [&entry["baseHash"], &entry["pending"]["baseHash"]];
        for hash in hashes.into_iter().filter_map(|h| h.as_str()) {
            let hex = hash.trim_start_matches("sha256:");
            out.insert(hex.to_owned());
            out.insert(format!("{hex}.json"));
        }
    }
    out
}

#[test]
fn two_pulls_keep_only_the_current_base() {
    let (up, me) = imported();
    let first = kept(&me);
    assert_eq!(first.len(), 2, "{first:?}");
    assert_eq!(first, referenced(&me));
    // A local edit, so the merge reads (and links from) the old base while removing it.
    edit(&me, "skills/pdf/SKILL.md", "one\n", "ONE (ours)\n");
    let mut pulls = String::new();
    for (from, to) in [("six\n", "SIX\n"), ("five\n", "FIVE\n")] {
        edit(&up, "skills/pdf/SKILL.md", from, to);
        let out = me.run(&["skill", "pull", "pdf"]);
        pulls.push_str(&labelled(
            &format!("skill pull pdf ({})", to.trim_end()),
            &out,
            me.path(),
        ));
        assert_eq!(kept(&me), referenced(&me));
        assert_eq!(kept(&me).len(), 2);
        assert!(kept(&me).is_disjoint(&first), "the first base is gone");
    }
    // The base left is the one the lock names: the status judges against it, and a pull
    // without upstream changes needs nothing else.
    assert_run_snapshot!(text: "two_pulls", pulls);
    assert_eq!(me.run(&["skill", "status"]).stdout, "pdf: modified\n");
    let again = me.run(&["skill", "pull", "pdf"]);
    assert_run_snapshot!("pull_with_the_base_left", again, me);
    // A dry run removes nothing.
    edit(&up, "skills/pdf/SKILL.md", "four\n", "FOUR\n");
    let before = me.snapshot();
    assert_eq!(me.run(&["skill", "pull", "--dry-run", "pdf"]).code, 0);
    assert_eq!(me.snapshot(), before);
    // Remove: no base is left.
    let removed = me.run(&["skill", "remove", "pdf", "--force"]);
    assert_eq!(removed.code, 0, "{removed:?}");
    assert_eq!(kept(&me), BTreeSet::new());
}

#[test]
fn a_base_two_skills_share_stays_until_the_last_goes() {
    let (up, me) = imported();
    // The renamed copy's base is upstream's, the very tree pdf's base is.
    let out = me.run(&["skill", "add", &source(&up), "skills/pdf", "--name", "pdf2"]);
    assert_eq!(out.code, 0, "{out:?}");
    let shared = kept(&me);
    assert_eq!(shared.len(), 2, "{shared:?}");
    let out = me.run(&["skill", "remove", "pdf"]);
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(kept(&me), shared, "pdf2 still refers to it");
    // A pull of pdf2 moves it off the shared base: the old one goes, the new one stays.
    edit(&up, "skills/pdf/SKILL.md", "six\n", "SIX\n");
    let out = me.run(&["skill", "pull", "pdf2"]);
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(kept(&me), referenced(&me));
    assert!(kept(&me).is_disjoint(&shared));
    let out = me.run(&["skill", "remove", "pdf2", "--force"]);
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(kept(&me), BTreeSet::new());
}

#[test]
fn a_base_shared_by_two_pulled_skills_is_kept_once() {
    // Two skills pulled together onto one base (the renamed copy and its original): the old
    // base goes once, the new one is kept once.
    let (up, me) = imported();
    let out = me.run(&["skill", "add", &source(&up), "skills/pdf", "--name", "pdf2"]);
    assert_eq!(out.code, 0, "{out:?}");
    let old = kept(&me);
    edit(&up, "skills/pdf/SKILL.md", "six\n", "SIX\n");
    let out = me.run(&["skill", "pull"]);
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(kept(&me), referenced(&me));
    assert_eq!(kept(&me).len(), 2);
    assert!(kept(&me).is_disjoint(&old));
}

#[test]
fn resolve_removes_the_base_the_conflict_was_merged_from() {
    let (up, me) = imported();
    edit(&me, "skills/pdf/SKILL.md", "three\n", "THREE (ours)\n");
    edit(&up, "skills/pdf/SKILL.md", "three\n", "THREE (theirs)\n");
    let old = kept(&me);
    let out = me.run(&["skill", "pull", "pdf", "--write-conflicts"]);
    assert_eq!(out.code, 1, "{out:?}");
    // Waiting for resolve: the lock refers to both the old base and upstream's version.
    assert_eq!(kept(&me), referenced(&me));
    assert_eq!(kept(&me).len(), 4);
    me.write(
        "skills/pdf/SKILL.md",
        skill("pdf").replace("three\n", "THREE (both)\n"),
    );
    let out = me.run(&["skill", "resolve", "pdf"]);
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(kept(&me), referenced(&me));
    assert_eq!(kept(&me).len(), 2);
    assert!(kept(&me).is_disjoint(&old));
}

#[test]
fn sync_dropping_a_skill_removes_its_base() {
    let (_up, me) = imported();
    assert_eq!(kept(&me).len(), 2);
    let intent = me.read_string("vendor-skills.yaml");
    me.write("vendor-skills.yaml", intent.split("  pdf:").next().unwrap());
    let out = me.run(&["skill", "sync"]);
    assert_eq!(out.stdout, "dropped: skills/pdf\n", "{out:?}");
    assert_eq!(kept(&me), BTreeSet::new());
}

#[test]
fn add_replacing_an_entry_removes_the_base_it_replaced() {
    let (up, me) = imported();
    let old = kept(&me);
    // The directory gone, `skill add` takes the skill again and replaces its entry.
    me.remove("skills/pdf");
    edit(&up, "skills/pdf/SKILL.md", "six\n", "SIX\n");
    let out = me.run(&["skill", "add", &source(&up), "skills/pdf"]);
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(kept(&me), referenced(&me));
    assert_eq!(kept(&me).len(), 2);
    assert!(kept(&me).is_disjoint(&old));
}

#[test]
fn a_base_no_entry_named_is_left_alone() {
    // A base the lock did not refer to before the command (another branch's, say) is not
    // this command's to remove.
    let (up, me) = imported();
    let stray = format!("{BASES}/{}", "0".repeat(64));
    me.write(&format!("{stray}/SKILL.md"), skill("pdf"));
    me.write(&format!("{stray}.json"), "{}\n");
    edit(&up, "skills/pdf/SKILL.md", "six\n", "SIX\n");
    let out = me.run(&["skill", "pull", "pdf"]);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(me.exists(&stray) && me.exists(&format!("{stray}.json")));
    let out = me.run(&["skill", "remove", "pdf", "--force"]);
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(
        kept(&me),
        BTreeSet::from(["0".repeat(64), format!("{}.json", "0".repeat(64))])
    );
}
