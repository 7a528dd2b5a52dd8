//! Skill trees whose files are left on disk rather than held (issue 15 §3): a read keeps a few
//! MiB of a tree in memory and leaves the rest where it stands, known by its length and
//! SHA-256, read again when it is copied, merged or shown. The test switch
//! `ASV_TEST_HELD_BYTES=0` makes every file but `SKILL.md` one left on disk, so each skill
//! command here runs twice, on two copies of one repository (once holding everything, once
//! holding nothing), and must print the same and leave the same tree byte for byte.
#![allow(clippy::disallowed_methods, clippy::unwrap_used)]

use std::collections::BTreeMap;
use std::os::unix::fs::PermissionsExt;

use crate::common::{Repo, Run, run_bin_env};
use crate::git_server::git;

/// One command's exit code, stdout and stderr.
type Output = (i32, String, String);

/// Every command's output, and the repository's files after the last.
type Outcome = (Vec<Output>, BTreeMap<String, String>);

fn skill(name: &str) -> String {
    format!(
        "---\nname: {name}\ndescription: Reads {name} files.\n---\n# {name}\n\none\ntwo\nthree\nfour\nfive\nsix\nseven\neight\n"
    )
}

/// Runs `args` in `repo` (as `Repo::run` does; `skill hash` takes no root), with nothing held
/// when `on_disk`.
fn run(repo: &Repo, args: &[&str], on_disk: bool) -> Run {
    let mut all: Vec<String> = args.iter().map(|s| s.to_string()).collect();
    if args.get(1) != Some(&"hash") {
        all.push("--root".into());
        all.push(repo.path().display().to_string());
    }
    let env: &[(&str, &str)] = if on_disk {
        &[("ASV_TEST_HELD_BYTES", "0")]
    } else {
        &[]
    };
    run_bin_env(&all, None, Some(repo.path()), env)
}

/// `run` output with the repository's own path made neutral, for comparing two repositories.
fn neutral(run: &Run, repo: &Repo) -> Output {
    let here = repo.path().display().to_string();
    (
        run.code,
        run.stdout.replace(&here, "<repo>"),
        run.stderr.replace(&here, "<repo>"),
    )
}

fn edit(repo: &Repo, rel: &str, from: &str, to: &str) {
    let text = repo.read_string(rel);
    assert!(text.contains(from), "{rel} lacks {from:?}");
    repo.write(rel, text.replacen(from, to, 1));
}

/// An upstream with two skills: text, an executable script and binary data.
fn upstream() -> Repo {
    let up = Repo::empty();
    for name in ["pdf", "doc"] {
        up.write(&format!("skills/{name}/SKILL.md"), skill(name));
        up.write(
            &format!("skills/{name}/references/guide.md"),
            "alpha\nbeta\ngamma\ndelta\nepsilon\nzeta\neta\ntheta\n",
        );
        up.write(
            &format!("skills/{name}/data/blob.bin"),
            [0u8, 1, 2, 255, 0, 7],
        );
        up.write(
            &format!("skills/{name}/scripts/run.sh"),
            "#!/bin/sh\necho run\n",
        );
        std::fs::set_permissions(
            up.join(&format!("skills/{name}/scripts/run.sh")),
            std::fs::Permissions::from_mode(0o755),
        )
        .unwrap();
    }
    up
}

/// The whole sequence of skill commands on `me` (taking from `up`), each run's output kept.
fn every_skill_command(up: &Repo, me: &Repo, on_disk: bool) -> Vec<Output> {
    let source = up.path().display().to_string();
    let mut out = Vec::new();
    let mut step = |args: &[&str]| {
        let done = run(me, args, on_disk);
        out.push(neutral(&done, me));
        done
    };
    assert_eq!(step(&["skill", "add", &source, "skills/pdf"]).code, 0);
    assert_eq!(step(&["skill", "add", &source, "skills/doc"]).code, 0);
    step(&["skill", "hash", "skills/pdf"]);
    // Local edits, then upstream moves: a clean merge of one file changed on both sides, a
    // conflict in another, and an upstream-only change to a file left on disk.
    edit(
        me,
        "skills/pdf/references/guide.md",
        "alpha\n",
        "ALPHA (ours)\n",
    );
    edit(
        me,
        "skills/doc/references/guide.md",
        "beta\n",
        "BETA (ours)\n",
    );
    edit(
        up,
        "skills/pdf/references/guide.md",
        "theta\n",
        "THETA (theirs)\n",
    );
    edit(
        up,
        "skills/doc/references/guide.md",
        "beta\n",
        "BETA (theirs)\n",
    );
    up.write("skills/pdf/data/blob.bin", [9u8, 9, 9, 0, 1]);
    step(&["skill", "status"]);
    step(&["skill", "diff", "pdf"]);
    step(&["skill", "pull", "pdf"]);
    step(&["skill", "pull", "doc", "--write-conflicts"]);
    step(&["skill", "diff", "doc", "--from", "base", "--to", "upstream"]);
    me.write("skills/doc/references/guide.md", "resolved by hand\n");
    step(&["skill", "resolve", "doc"]);
    // Mirrored into other agents' directories, installed from a directory, packed.
    let intent = me.read_string("vendor-skills.yaml");
    me.write(
        "vendor-skills.yaml",
        format!("targets: [claude, codex]\n{intent}"),
    );
    step(&["skill", "sync"]);
    step(&["skill", "verify"]);
    step(&["skill", "install", "skills/pdf", "--into", "installed"]);
    step(&["skill", "pack", "skills/doc", "-o", "doc.zip"]);
    step(&["skill", "validate", "skills/pdf"]);
    out
}

/// Runs `sequence` on a fresh upstream (made by `upstream`) and repository twice, holding
/// everything and then with files left on disk, and checks that every output and the final
/// tree agree (the upstream's own path made neutral); the held run's outcome.
fn both_ways(upstream: fn() -> Repo, sequence: fn(&Repo, &Repo, bool) -> Vec<Output>) -> Outcome {
    let mut runs: Vec<Outcome> = [false, true]
        .into_iter()
        .map(|on_disk| {
            let up = upstream();
            let me = Repo::empty();
            let outputs = sequence(&up, &me, on_disk);
            let up_path = up.path().display().to_string();
            let neutral = |text: &str| text.replace(&up_path, "<up>");
            let tree = me
                .snapshot()
                .into_iter()
                .map(|(path, bytes)| (path, neutral(&bytes)))
                .collect();
            let outputs = outputs
                .into_iter()
                .map(|(code, o, e)| (code, neutral(&o), neutral(&e)))
                .collect();
            (outputs, tree)
        })
        .collect();
    let on_disk = runs.pop().unwrap();
    let held = runs.pop().unwrap();
    for (i, (a, b)) in held.0.iter().zip(&on_disk.0).enumerate() {
        assert_eq!(a, b, "step {i}: the same output");
    }
    assert_eq!(held.1, on_disk.1, "the same tree");
    held
}

#[test]
fn every_skill_command_writes_the_same_bytes_with_files_left_on_disk() {
    let held = both_ways(upstream, every_skill_command);
    // The sequence did what it says: the merge kept both edits, the conflict was resolved,
    // every copy stands and the pack was written.
    let tree = &held.1;
    assert!(
        tree["skills/pdf/references/guide.md"].contains("ALPHA (ours)")
            && tree["skills/pdf/references/guide.md"].contains("THETA (theirs)"),
        "{tree:?}"
    );
    assert_eq!(tree["skills/doc/references/guide.md"], "resolved by hand\n");
    for dir in [".claude/skills/pdf", ".agents/skills/pdf", "installed/pdf"] {
        assert_eq!(
            tree[&format!("{dir}/data/blob.bin")],
            tree["skills/pdf/data/blob.bin"],
            "{dir}"
        );
    }
    assert!(tree.contains_key("doc.zip"), "{:?}", tree.keys());
    assert!(
        held.0.iter().all(|(code, ..)| *code == 0 || *code == 1),
        "{:?}",
        held.0
    );
}

#[test]
fn a_skill_left_on_disk_keeps_its_exec_bit_and_hash_through_a_pull() {
    let up = upstream();
    let me = Repo::empty();
    let source = up.path().display().to_string();
    assert_eq!(
        run(&me, &["skill", "add", &source, "skills/pdf"], true).code,
        0
    );
    let before = run(&me, &["skill", "hash", "skills/pdf"], false);
    let again = run(&me, &["skill", "hash", "skills/pdf"], true);
    assert_eq!((before.code, &before.stdout), (again.code, &again.stdout));
    edit(
        &up,
        "skills/pdf/scripts/run.sh",
        "echo run\n",
        "echo run twice\n",
    );
    let pulled = run(&me, &["skill", "pull", "pdf"], true);
    assert_eq!(pulled.code, 0, "{pulled:?}");
    let script = me.join("skills/pdf/scripts/run.sh");
    assert_eq!(
        std::fs::metadata(&script).unwrap().permissions().mode() & 0o100,
        0o100
    );
    assert_eq!(
        me.read_string("skills/pdf/scripts/run.sh"),
        "#!/bin/sh\necho run twice\n"
    );
    let verified = run(&me, &["skill", "verify"], true);
    assert_eq!(verified.code, 0, "{verified:?}");
}

/// Skills that arrive as bytes (a git repository read at a reference, an archive): past the
/// allowance each file is written to a private temporary directory and left there, and the
/// commands write what they write when everything is held.
fn fetched_and_unpacked(up: &Repo, me: &Repo, on_disk: bool) -> Vec<Output> {
    let source = up.path().display().to_string();
    let mut out = Vec::new();
    let mut step = |args: &[&str]| {
        let done = run(me, args, on_disk);
        out.push(neutral(&done, me));
        done
    };
    assert_eq!(
        step(&["skill", "add", &source, "skills/pdf", "--ref", "main"]).code,
        0
    );
    edit(
        me,
        "skills/pdf/references/guide.md",
        "alpha\n",
        "ALPHA (ours)\n",
    );
    edit(
        up,
        "skills/pdf/references/guide.md",
        "theta\n",
        "THETA (theirs)\n",
    );
    up.write("skills/pdf/data/blob.bin", [7u8, 0, 7, 0]);
    git(up.path(), &["commit", "-q", "-am", "theirs"]);
    assert_eq!(step(&["skill", "pull", "pdf"]).code, 0);
    assert_eq!(
        step(&["skill", "pack", "skills/pdf", "-o", "pdf.zip"]).code,
        0
    );
    let installed = step(&["skill", "install", "pdf.zip", "--into", "unpacked"]);
    assert_eq!(installed.code, 0, "{installed:?}");
    step(&["skill", "verify"]);
    out
}

/// The upstream of [`upstream`], as a git repository with one commit.
fn git_upstream() -> Repo {
    let up = upstream();
    git(up.path(), &["init", "-q", "-b", "main"]);
    git(up.path(), &["add", "-A"]);
    git(up.path(), &["commit", "-q", "-m", "base"]);
    up
}

#[test]
fn skills_that_arrive_as_bytes_write_the_same_with_files_written_aside() {
    let held = both_ways(git_upstream, fetched_and_unpacked);
    let tree = &held.1;
    let guide = &tree["skills/pdf/references/guide.md"];
    assert!(
        guide.contains("ALPHA (ours)") && guide.contains("THETA (theirs)"),
        "{guide}"
    );
    assert_eq!(
        tree["unpacked/pdf/data/blob.bin"],
        tree["skills/pdf/data/blob.bin"]
    );
}
