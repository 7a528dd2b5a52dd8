//! `skill add <repository> <dir> --all` on the real binary: every skill under a directory of a
//! local directory or a real local git repository taken in one transaction, or none of them.
#![allow(clippy::disallowed_methods)]

use crate::common::{Repo, assert_run_snapshot, git, short_ids, skill_md};

const NAMES: [&str; 3] = ["alpha", "beta", "gamma"];

/// An upstream directory with three skills under `skills/`, a file beside them and a directory
/// without a SKILL.md (neither is a skill).
fn upstream() -> Repo {
    let up = Repo::empty();
    for name in NAMES {
        up.write(&format!("skills/{name}/SKILL.md"), skill_md(name, &[]));
    }
    up.write("skills/alpha/scripts/run.sh", "#!/bin/sh\necho run\n");
    up.write("skills/README.md", "the team's skills\n");
    up.write("skills/shared/notes.md", "not a skill\n");
    up
}

fn source(up: &Repo) -> String {
    up.path().display().to_string()
}

fn lock(me: &Repo) -> serde_json::Value {
    serde_json::from_str(&me.read_string("vendor-skills-lock.json")).expect("lock")
}

#[test]
fn add_all_takes_every_skill_with_its_lock_entry_intent_row_and_base() {
    let up = upstream();
    let me = Repo::empty();
    let out = me.run(&["skill", "add", &source(&up), "skills", "--all"]);
    assert_eq!((out.code, out.stderr.as_str()), (0, ""), "{out:?}");
    let lines: Vec<&str> = out.stdout.lines().collect();
    assert_eq!(lines.len(), 3, "{}", out.stdout);
    let lock = lock(&me);
    for (line, name) in lines.iter().zip(NAMES) {
        let entry = &lock["skills"][name];
        let hash = entry["baseHash"].as_str().expect("baseHash");
        // A directory read as it stands is pinned to each skill's own tree hash.
        assert_eq!(entry["revision"].as_str(), Some(hash));
        assert_eq!(entry["path"], format!("skills/{name}"));
        assert_eq!(entry["source"], source(&up));
        assert_eq!(
            *line,
            short_ids(&format!("added: {name} <- {} at {hash}", source(&up))),
            "{}",
            out.stdout
        );
        assert_eq!(
            me.read_string(&format!("skills/{name}/SKILL.md")),
            skill_md(name, &[])
        );
        let base = format!(
            ".agentic-skill-vendor/skill-bases/{}/SKILL.md",
            hash.trim_start_matches("sha256:")
        );
        assert!(me.exists(&base), "no kept base {base}");
    }
    assert_eq!(lock["skills"].as_object().map(|o| o.len()), Some(3));
    assert!(!me.exists("skills/shared") && !me.exists("skills/README.md"));
    assert!(me.exists("skills/alpha/scripts/run.sh"));
    let s = source(&up);
    assert_eq!(
        me.read_string("vendor-skills.yaml"),
        format!(
            "skills:\n  alpha:\n    source: {s}\n    path: skills/alpha\n  beta:\n    source: {s}\n    path: skills/beta\n  gamma:\n    source: {s}\n    path: skills/gamma\n"
        )
    );
    let status = me.run(&["skill", "status"]);
    assert_eq!(
        status.stdout, "alpha: clean\nbeta: clean\ngamma: clean\n",
        "{status:?}"
    );
    // The same record per skill as a single add, in JSON.
    let again = Repo::empty();
    let json = again.run(&[
        "skill",
        "add",
        &source(&up),
        "skills",
        "--all",
        "--format",
        "json",
    ]);
    assert_eq!(json.code, 0, "{json:?}");
    let kinds: Vec<serde_json::Value> = json
        .stdout
        .lines()
        .map(|l| serde_json::from_str(l).expect("json line"))
        .collect();
    assert_eq!(kinds.len(), 3);
    assert!(kinds.iter().zip(NAMES).all(|(k, n)| k["kind"] == "added"
        && k["name"] == n
        && k["path"] == format!("skills/{n}")));
}

#[test]
fn add_all_keeps_the_rows_already_in_the_intent_file() {
    let up = upstream();
    let other = Repo::empty();
    other.write("skills/pdf/SKILL.md", skill_md("pdf", &[]));
    let me = Repo::empty();
    let first = me.run(&["skill", "add", &source(&other), "skills/pdf"]);
    assert_eq!(first.code, 0, "{first:?}");
    let out = me.run(&["skill", "add", &source(&up), "skills", "--all"]);
    assert_eq!(out.code, 0, "{out:?}");
    let intent = me.read_string("vendor-skills.yaml");
    let rows: Vec<&str> = intent
        .lines()
        .filter(|l| l.starts_with("  ") && !l.starts_with("    "))
        .collect();
    assert_eq!(
        rows,
        ["  pdf:", "  alpha:", "  beta:", "  gamma:"],
        "{intent}"
    );
    assert_eq!(lock(&me)["skills"].as_object().map(|o| o.len()), Some(4));
}

#[test]
fn every_invalid_skill_is_named_and_nothing_is_written() {
    let up = upstream();
    up.write("skills/beta/SKILL.md", "---\nname: beta\n---\nBody\n");
    up.write(
        "skills/gamma/SKILL.md",
        "---\nname: gamma\ndescription: \"\"\n---\n",
    );
    let me = Repo::empty();
    let before = me.snapshot();
    let out = me.run(&["skill", "add", &source(&up), "skills", "--all"]);
    assert_eq!(me.snapshot(), before, "a refused add all wrote something");
    assert_run_snapshot!("add_all_invalid", out, me);
}

#[test]
fn a_taken_name_writes_nothing() {
    let up = upstream();
    let me = Repo::empty();
    me.write("skills/gamma/SKILL.md", skill_md("gamma", &[]));
    let before = me.snapshot();
    let out = me.run(&["skill", "add", &source(&up), "skills", "--all"]);
    assert_eq!(me.snapshot(), before);
    assert_run_snapshot!("add_all_occupied", out, me);
    // Once imported, a second add all names the skill already imported.
    me.remove("skills/gamma");
    assert_eq!(
        me.run(&["skill", "add", &source(&up), "skills", "--all"])
            .code,
        0
    );
    let before = me.snapshot();
    let again = me.run(&["skill", "add", &source(&up), "skills", "--all"]);
    assert_eq!(me.snapshot(), before);
    assert_run_snapshot!("add_all_already_imported", again, me);
}

#[test]
fn no_skill_under_the_dir_is_refused_by_name() {
    let up = upstream();
    let me = Repo::empty();
    // `skills/alpha` is itself a skill: its subdirectories hold none.
    let out = me.run(&["skill", "add", &source(&up), "skills/alpha", "--all"]);
    assert_eq!(me.snapshot(), Repo::empty().snapshot());
    assert_run_snapshot!("add_all_none", out, me);
}

#[test]
fn name_with_all_is_a_usage_error() {
    let up = upstream();
    let me = Repo::empty();
    let out = me.run(&[
        "skill",
        "add",
        &source(&up),
        "skills",
        "--all",
        "--name",
        "x",
    ]);
    assert_run_snapshot!("add_all_with_a_name", out, me);
    assert!(!me.exists("vendor-skills-lock.json"));
}

#[test]
fn add_all_from_a_local_git_repository_at_a_ref_pins_every_skill_to_its_commit() {
    let up = upstream();
    git(up.path(), &["init", "-q", "-b", "main"]);
    git(up.path(), &["add", "-A"]);
    git(up.path(), &["commit", "-qm", "one"]);
    let commit = git(up.path(), &["rev-parse", "HEAD"]);
    // Not committed: what main names does not hold it.
    up.write("skills/delta/SKILL.md", skill_md("delta", &[]));
    let me = Repo::empty();
    let out = me.run(&[
        "skill",
        "add",
        &source(&up),
        "skills",
        "--all",
        "--ref",
        "main",
    ]);
    assert_run_snapshot!("add_all_at_a_ref", out, me);
    let lock = lock(&me);
    for name in NAMES {
        let entry = &lock["skills"][name];
        assert_eq!(entry["revision"], commit.as_str());
        assert_eq!(entry["ref"], "main");
    }
    assert!(!me.exists("skills/delta"));
    assert!(
        me.read_string("vendor-skills.yaml")
            .contains("  beta:\n    source: ")
    );
    assert!(
        me.read_string("vendor-skills.yaml")
            .contains("    ref: main\n")
    );
    let status = me.run(&["skill", "status"]);
    assert_eq!(status.stdout, "alpha: clean\nbeta: clean\ngamma: clean\n");
    let outdated = me.run(&["skill", "outdated"]);
    assert_eq!(
        (outdated.code, outdated.stdout.as_str()),
        (0, ""),
        "{outdated:?}"
    );
}
