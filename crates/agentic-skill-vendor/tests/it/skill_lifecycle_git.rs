//! `skill add` and `skill pull` against a real git server: `git http-backend` behind TLS on
//! 127.0.0.1 with a test CA, upstream commits pushed between the binary's runs.
#![allow(clippy::disallowed_methods, clippy::unwrap_used)]

use std::path::PathBuf;

use crate::common::{Repo, Run, assert_run_snapshot, short_ids};
use crate::git_server::{Behaviour, Https, Tls, git};
use asv_test_support::snapshot::labelled;

const SKILL: &str = "---\nname: pdf\ndescription: Reads PDF files.\n---\n# PDF\n\none\ntwo\nthree\nfour\nfive\nsix\n";

/// An upstream repository: a work tree whose commits are pushed to the bare copy served.
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

    fn write(&self, rel: &str, text: &str) {
        let p = self.work().join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }

    /// Commits everything and publishes it; the new commit id.
    fn commit(&self, message: &str) -> String {
        git(&self.work(), &["add", "-A"]);
        git(&self.work(), &["commit", "-q", "-m", message]);
        let bare = self.dir.path().join("served/skills.git");
        if !bare.exists() {
            git(
                &self.dir.path().join("served"),
                &["clone", "-q", "--bare", "../work", "skills.git"],
            );
        } else {
            git(
                &self.work(),
                &["push", "-q", bare.to_str().unwrap(), "main"],
            );
        }
        git(&self.work(), &["rev-parse", "HEAD"])
    }

    fn url(&self) -> String {
        self.server.url("skills.git")
    }

    fn run(&self, repo: &Repo, args: &[&str]) -> Run {
        let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_agentic-skill-vendor"));
        cmd.args(args)
            .arg("--root")
            .arg(repo.path())
            .env_clear()
            .env("PATH", std::env::var("PATH").unwrap_or_default())
            .envs(self.tls.env());
        let out = cmd.output().unwrap();
        Run {
            code: out.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        }
    }
}

#[test]
fn add_edit_upstream_edit_pull_keeps_both() {
    let up = Upstream::new();
    up.write("skills/pdf/SKILL.md", SKILL);
    up.write("skills/pdf/scripts/run.sh", "#!/bin/sh\n");
    up.write("README.md", "skills\n");
    let first = up.commit("first");

    let me = Repo::empty();
    let added = up.run(&me, &["skill", "add", &up.url(), "skills/pdf"]);
    assert_run_snapshot!("add_from_a_git_server", added, me);
    let lock: serde_json::Value =
        serde_json::from_str(&me.read_string("vendor-skills-lock.json")).unwrap();
    assert_eq!(lock["skills"]["pdf"]["ref"], "main");
    assert_eq!(lock["skills"]["pdf"]["revision"], first.as_str());

    // a commit elsewhere in the source moves the pin and changes nothing
    up.write("README.md", "skills, again\n");
    let second = up.commit("readme");
    let pulled = up.run(&me, &["skill", "pull"]);
    assert_eq!(
        pulled.stdout,
        short_ids(&format!("pdf: up to date at {second}\n")),
        "{pulled:?}"
    );

    me.write(
        "skills/pdf/SKILL.md",
        SKILL.replace("one\n", "one (ours)\n"),
    );
    up.write(
        "skills/pdf/SKILL.md",
        &SKILL.replace("six\n", "six (theirs)\n"),
    );
    let third = up.commit("upstream edit");
    let pulled = up.run(&me, &["skill", "pull", "pdf"]);
    assert_eq!(
        pulled.stdout,
        short_ids(&format!(
            "pdf: updated {second} -> {third} (local edits kept)\n"
        )),
        "{pulled:?}"
    );
    assert_eq!(
        me.read_string("skills/pdf/SKILL.md"),
        SKILL
            .replace("one\n", "one (ours)\n")
            .replace("six\n", "six (theirs)\n")
    );
    assert_eq!(up.run(&me, &["skill", "status"]).stdout, "pdf: modified\n");

    // the diff to upstream shows only the local edit
    let diff = up.run(
        &me,
        &[
            "skill", "diff", "pdf", "--from", "upstream", "--to", "local",
        ],
    );
    // Only the local edit: upstream's "six (theirs)" is in both sides.
    assert_run_snapshot!("diff_from_upstream_to_local", diff, me);

    // a lock whose base no longer matches the locked revision is refused, with what to do
    let text = me.read_string("vendor-skills-lock.json");
    let base =
        serde_json::from_str::<serde_json::Value>(&text).unwrap()["skills"]["pdf"]["baseHash"]
            .as_str()
            .unwrap()
            .to_owned();
    me.write(
        "vendor-skills-lock.json",
        text.replace(&base, &format!("sha256:{}", "0".repeat(64))),
    );
    up.write(
        "skills/pdf/SKILL.md",
        &SKILL.replace("two\n", "two (theirs)\n"),
    );
    up.commit("another");
    let before = me.read_string("skills/pdf/SKILL.md");
    let refused = up.run(&me, &["skill", "pull"]);
    assert_run_snapshot!("pull_over_a_base_the_revision_does_not_match", refused, me);
    assert_eq!(me.read_string("skills/pdf/SKILL.md"), before);
}

#[test]
fn links_and_escaping_paths_in_the_source_are_refused() {
    let up = Upstream::new();
    up.write("skills/pdf/SKILL.md", SKILL);
    std::os::unix::fs::symlink("../../README.md", up.work().join("skills/pdf/readme.md")).unwrap();
    up.write("README.md", "skills\n");
    up.commit("first");
    let me = Repo::empty();
    // Every refusal in one snapshot, a row each: each must still be refused, and say why.
    let mut refusals = String::new();
    for path in ["skills/pdf", "../elsewhere", "skills/none"] {
        let out = up.run(&me, &["skill", "add", &up.url(), path]);
        refusals.push_str(&labelled(path, &out, me.path()));
        assert!(!me.exists("skills"), "{path}");
        assert!(!me.exists("vendor-skills-lock.json"), "{path}");
    }
    assert_run_snapshot!(text: "add_refusals_from_a_git_server", refusals);
}

/// The agents walk against a real git server: add, sync into two agents, a fresh clone (no
/// skill directory, no kept base) restored at the locked commit over the network, outdated
/// after an upstream commit, pull, sync, remove.
#[test]
fn sync_restores_from_the_server_and_outdated_pull_remove_follow_it() {
    let up = Upstream::new();
    up.write("skills/pdf/SKILL.md", SKILL);
    let first = up.commit("first");
    let me = Repo::empty();
    let added = up.run(&me, &["skill", "add", &up.url(), "skills/pdf"]);
    assert_eq!(added.code, 0, "{added:?}");
    let intent = me.read_string("vendor-skills.yaml");
    me.write(
        "vendor-skills.yaml",
        format!("targets: [claude, gemini]\n{intent}"),
    );
    let synced = up.run(&me, &["skill", "sync"]);
    assert_eq!(synced.code, 0, "{synced:?}");
    assert_eq!(me.read_string(".gemini/skills/pdf/SKILL.md"), SKILL);
    let settled = me.snapshot();

    // A clone that keeps neither the skill directory nor the tool's state.
    me.remove("skills/pdf");
    me.remove(".agentic-skill-vendor");
    assert_eq!(up.run(&me, &["skill", "verify"]).code, 1);
    let restored = up.run(&me, &["skill", "sync"]);
    assert_eq!(restored.code, 0, "{restored:?}");
    assert_eq!(
        restored.stdout,
        short_ids(&format!("restored: skills/pdf at {first}\n"))
    );
    assert_eq!(me.snapshot(), settled);

    // Upstream moves: outdated says so and writes nothing; pull and sync carry it over.
    up.write("skills/pdf/SKILL.md", &format!("{SKILL}seven\n"));
    let second = up.commit("second");
    let outdated = up.run(&me, &["skill", "outdated"]);
    assert_eq!(outdated.code, 1, "{outdated:?}");
    assert_eq!(
        outdated.stdout,
        short_ids(&format!("pdf: {first} -> {second} (main)\n"))
    );
    assert_eq!(me.snapshot(), settled);
    assert_eq!(up.run(&me, &["skill", "pull"]).code, 0);
    assert_eq!(up.run(&me, &["skill", "sync"]).code, 0);
    assert_eq!(
        me.read_string(".claude/skills/pdf/SKILL.md"),
        format!("{SKILL}seven\n")
    );
    assert_eq!(up.run(&me, &["skill", "verify"]).stdout, "");

    let removed = up.run(&me, &["skill", "remove", "pdf"]);
    assert_eq!(removed.code, 0, "{removed:?}");
    assert!(!me.exists(".claude/skills/pdf") && !me.exists(".gemini/skills/pdf"));
    assert_eq!(up.run(&me, &["skill", "verify"]), crate::common::ok(""));
}

/// A killed run of the git transport cannot remove its temporary repository: the next run
/// removes each `agentic-skill-git-<pid>-…` directory whose process is gone, and keeps one
/// whose process still runs (issue 27 §6).
#[test]
fn the_next_git_run_sweeps_what_a_killed_run_left() {
    use std::os::unix::process::CommandExt as _;
    let up = tempfile::tempdir().unwrap();
    git(up.path(), &["init", "-q", "-b", "main"]);
    std::fs::create_dir_all(up.path().join("skills/pdf")).unwrap();
    std::fs::write(up.path().join("skills/pdf/SKILL.md"), SKILL).unwrap();
    git(up.path(), &["add", "-A"]);
    git(up.path(), &["commit", "-q", "-m", "one"]);

    let tmp = tempfile::tempdir().unwrap();
    let mut ended = std::process::Command::new("true").spawn().unwrap();
    let dead = ended.id();
    ended.wait().unwrap();
    let mut running = std::process::Command::new("sleep")
        .arg("60")
        .process_group(0)
        .spawn()
        .unwrap();
    let plant = |pid: u32, tail: &str| {
        let dir = tmp.path().join(format!("agentic-skill-git-{pid}-{tail}"));
        std::fs::create_dir_all(dir.join("repository.git/objects")).unwrap();
        std::fs::write(dir.join("repository.git/HEAD"), "ref: refs/heads/main\n").unwrap();
        dir
    };
    let stale = plant(dead, "Xk3a9Q");
    let live = plant(running.id(), "Pq81zz");

    let me = Repo::empty();
    let source = up.path().display().to_string();
    let mut args: Vec<String> = ["skill", "add", &source, "skills/pdf", "--ref", "main"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    args.extend(["--root".to_owned(), me.path().display().to_string()]);
    let tmpdir = tmp.path().display().to_string();
    let out = crate::common::run_bin_env(&args, None, None, &[("TMPDIR", &tmpdir)]);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(me.exists("skills/pdf/SKILL.md"));
    assert!(!stale.exists(), "the dead run's directory is swept");
    assert!(live.is_dir(), "a running process's directory is kept");
    // The run removed its own directory too: only the live one is left.
    let left: Vec<_> = std::fs::read_dir(tmp.path())
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(left, std::slice::from_ref(&live));
    running.kill().unwrap();
    running.wait().unwrap();
}

/// A skill removed from a git upstream: the pull records the commit it found it gone at;
/// `skill outdated` says so once and exits 0 while upstream stays there; a later commit is
/// news again, and the pull that sees the skill still gone records that one (issue 29 §3).
#[test]
fn a_skill_removed_upstream_is_recorded_at_its_commit() {
    let up = Upstream::new();
    up.write("skills/pdf/SKILL.md", SKILL);
    up.write("README.md", "skills\n");
    up.commit("add pdf");
    let me = Repo::empty();
    let out = up.run(
        &me,
        &["skill", "add", &up.url(), "skills/pdf", "--ref", "main"],
    );
    assert_eq!(out.code, 0, "{out:?}");
    std::fs::remove_dir_all(up.work().join("skills")).unwrap();
    let gone = up.commit("drop pdf");
    let out = up.run(&me, &["skill", "pull"]);
    assert_run_snapshot!("pull_finds_a_skill_removed_at_a_commit", out, me);
    let out = up.run(&me, &["skill", "outdated"]);
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(
        out.stdout,
        short_ids(&format!(
            "pdf: removed upstream at {gone}; skills/pdf is kept as it is (skill remove pdf drops it)\n"
        ))
    );
    up.write("README.md", "skills, none left\n");
    up.commit("readme");
    let out = up.run(&me, &["skill", "outdated"]);
    assert_eq!(out.code, 1, "{out:?}");
    let out = up.run(&me, &["skill", "pull"]);
    assert_eq!(out.code, 0, "{out:?}");
    let out = up.run(&me, &["skill", "outdated"]);
    assert_run_snapshot!("outdated_after_pulling_past_the_removal", out, me);
}

/// Issue 30 §3: a commit elsewhere in the source is no news for a skill (outdated says
/// nothing, a pull moves the pin without reading it); a change inside its path is.
#[test]
fn only_a_change_inside_a_skill_makes_it_outdated() {
    let up = Upstream::new();
    up.write("skills/pdf/SKILL.md", SKILL);
    up.write(
        "skills/doc/SKILL.md",
        &SKILL.replace("name: pdf", "name: doc"),
    );
    up.write("README.md", "skills\n");
    let first = up.commit("first");
    let me = Repo::empty();
    let added = up.run(&me, &["skill", "add", "--all", &up.url(), "skills"]);
    assert_eq!(added.code, 0, "{added:?}");

    up.write("README.md", "skills, again\n");
    let second = up.commit("elsewhere");
    let outdated = up.run(&me, &["skill", "outdated"]);
    assert_eq!(
        (outdated.code, outdated.stdout.as_str()),
        (0, ""),
        "{outdated:?}"
    );

    up.write("skills/pdf/references/more.md", "more\n");
    let third = up.commit("inside pdf");
    let outdated = up.run(&me, &["skill", "outdated"]);
    assert_eq!(
        (outdated.code, outdated.stdout.as_str()),
        (
            1,
            short_ids(&format!("pdf: {first} -> {third} (main)\n")).as_str()
        ),
        "{outdated:?}"
    );
    let pulled = up.run(&me, &["skill", "pull"]);
    assert_eq!(
        pulled.stdout,
        short_ids(&format!(
            "doc: up to date at {third}\npdf: updated {first} -> {third}\n"
        )),
        "{pulled:?}"
    );
    let lock: serde_json::Value =
        serde_json::from_str(&me.read_string("vendor-skills-lock.json")).unwrap();
    assert_eq!(lock["skills"]["doc"]["revision"], third.as_str());
    assert_eq!(lock["skills"]["pdf"]["revision"], third.as_str());
    assert_ne!(second, third);
    let outdated = up.run(&me, &["skill", "outdated"]);
    assert_eq!(
        (outdated.code, outdated.stdout.as_str()),
        (0, ""),
        "{outdated:?}"
    );
}

/// Issue 30 §2: reading many skills of one source over git starts a bounded number of git
/// processes, not one (or two) per file or per skill: counted through a `git` on `PATH` that
/// logs each run, git's own children included.
#[test]
fn many_skills_over_git_start_a_bounded_number_of_git_processes() {
    const SKILLS: usize = 24;
    let up = Upstream::new();
    for i in 0..SKILLS {
        let name = format!("s{i:02}");
        up.write(
            &format!("skills/{name}/SKILL.md"),
            &SKILL.replace("name: pdf", &format!("name: {name}")),
        );
        up.write(
            &format!("skills/{name}/references/a.md"),
            &format!("a {i}\n"),
        );
        up.write(
            &format!("skills/{name}/references/b.md"),
            &format!("b {i}\n"),
        );
    }
    let first = up.commit("first");
    let bin = tempfile::tempdir().unwrap();
    let log = bin.path().join("git.log");
    let path = asv_test_support::git::wrapped_git(bin.path(), |real| {
        format!(
            "#!/bin/sh\necho \"$*\" >> '{}'\nexec '{}' \"$@\"\n",
            log.display(),
            real
        )
    });
    let counted = |args: &[&str], me: &Repo| {
        std::fs::write(&log, "").unwrap();
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_agentic-skill-vendor"))
            .args(args)
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
    let me = Repo::empty();
    let add = counted(
        &[
            "skill",
            "add",
            "--all",
            &up.url(),
            "skills",
            "--ref",
            "main",
        ],
        &me,
    );
    // 72 files: one file at a time started two git processes each.
    assert!(add <= 16, "skill add --all started {add} git processes");
    assert_eq!(
        lock_revisions(&me),
        vec![first.clone(); SKILLS],
        "every skill pinned at the commit read"
    );
    let outdated = counted(&["skill", "outdated"], &me);
    assert!(
        outdated <= 8,
        "skill outdated started {outdated} git processes"
    );
    up.write("skills/s03/references/a.md", "a changed\n");
    up.commit("one file");
    let pulled = counted(&["skill", "pull"], &me);
    assert!(pulled <= 20, "skill pull started {pulled} git processes");
}

#[test]
fn a_pull_reads_only_the_trees_and_files_of_the_skill_that_moved() {
    // Issue 30 §3: after a change to one file of one skill, a pull compares each skill's tree
    // id along its path and then reads the trees and files of that skill alone, at the new
    // commit and, when its kept base is gone, at the pin; never the whole commit, and never a
    // skill whose name only starts like it (`s1` beside `s10`). Every object asked of
    // `git cat-file --batch` is logged by a `git` on `PATH` that copies its input aside, and
    // every git command: the lookup, one fetch and a `cat-file` per commit read, nothing else
    // (the branch's lookup already said no tag of its name moved).
    let up = Upstream::new();
    for name in ["s0", "s1", "s10"] {
        up.write(
            &format!("skills/{name}/SKILL.md"),
            &SKILL.replace("name: pdf", &format!("name: {name}")),
        );
        up.write(
            &format!("skills/{name}/references/a.md"),
            &format!("a of {name}\n"),
        );
    }
    up.write("README.md", "skills\n");
    let first = up.commit("first");
    let bin = tempfile::tempdir().unwrap();
    let asked = bin.path().join("asked.log");
    let commands = bin.path().join("commands.log");
    let path = asv_test_support::git::wrapped_git(bin.path(), |real| {
        format!(
            "#!/bin/sh\nprintf '%s\\n' \"$*\" >> '{}'\ncase \" $* \" in *' cat-file --batch '*) tee -a '{}' | '{real}' \"$@\"; exit $?;; esac\nexec '{real}' \"$@\"\n",
            commands.display(),
            asked.display(),
        )
    });
    let pull = |me: &Repo, expected: &[&str]| -> Vec<String> {
        std::fs::write(&asked, "").unwrap();
        std::fs::write(&commands, "").unwrap();
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_agentic-skill-vendor"))
            .args(["skill", "pull", "--root"])
            .arg(me.path())
            .env_clear()
            .env("PATH", &path)
            .envs(up.tls.env())
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{out:?}");
        let log = std::fs::read_to_string(&commands).unwrap();
        let run: Vec<&str> = log
            .lines()
            .map(|line| {
                // Each git command as a word of its own (`-c fetch.…` is no fetch).
                ["ls-remote", "fetch", "cat-file", "ls-tree", "rev-parse"]
                    .into_iter()
                    .find(|c| line.contains(&format!(" {c} ")))
                    .unwrap_or(line)
            })
            .collect();
        assert_eq!(run, expected, "{log}");
        std::fs::read_to_string(&asked)
            .unwrap()
            .lines()
            .map(str::to_owned)
            .collect()
    };
    let me = Repo::empty();
    let added = up.run(&me, &["skill", "add", "--all", &up.url(), "skills"]);
    assert_eq!(added.code, 0, "{added:?}");
    let pristine = tempfile::tempdir().unwrap();
    let copy = |from: &std::path::Path, to: &std::path::Path| {
        let status = std::process::Command::new("cp")
            .arg("-a")
            .arg(format!("{}/.", from.display()))
            .arg(to)
            .status()
            .unwrap();
        assert!(status.success());
    };
    copy(me.path(), pristine.path());
    up.write("skills/s1/references/a.md", "a of s1, changed\n");
    let second = up.commit("one file of s1");
    let work = up.work();
    let id = |rev: &str, path: &str| git(&work, &["rev-parse", &format!("{rev}:{path}")]);
    // What no pull may ask for: the other skills' trees and files (the same at both commits).
    let mut others = Vec::new();
    for name in ["s0", "s10"] {
        for rel in ["", "/references", "/SKILL.md", "/references/a.md"] {
            others.push(id(&second, &format!("skills/{name}{rel}")));
        }
    }
    let judged = |asked: &[String], at: &[&str]| {
        for line in asked {
            assert!(
                !others.iter().any(|o| line.contains(o.as_str()))
                    && !line.contains(":skills/s0")
                    && !line.contains(":skills/s10"),
                "asked for another skill's object: {line}\n{asked:#?}"
            );
        }
        // The moved skill's own tree was listed, at each commit its files were read at.
        for rev in at {
            let tree = id(rev, "skills/s1");
            assert!(asked.contains(&tree), "{rev}: {asked:#?}");
        }
    };

    // The kept base stands: upstream's new version alone is read.
    let asked = pull(&me, &["ls-remote", "fetch", "cat-file"]);
    judged(&asked, &[&second]);
    assert_eq!(
        me.read_string("skills/s1/references/a.md"),
        "a of s1, changed\n"
    );
    assert_eq!(me.read_string("skills/s10/references/a.md"), "a of s10\n");

    // The kept bases gone: the base is read again at the pin, as narrowly.
    let me = Repo::empty();
    copy(pristine.path(), me.path());
    std::fs::remove_dir_all(me.join(".agentic-skill-vendor/skill-bases")).unwrap();
    // The kept `cat-file` ends with the read of upstream's files, so the base's read at the
    // pin (fetched beside the new commit) starts another.
    let asked = pull(&me, &["ls-remote", "fetch", "cat-file", "cat-file"]);
    judged(&asked, &[&second, &first]);
    assert_eq!(
        me.read_string("skills/s1/references/a.md"),
        "a of s1, changed\n"
    );
    assert_eq!(lock_revisions(&me), vec![second.clone(); 3]);
}

fn lock_revisions(me: &Repo) -> Vec<String> {
    let lock: serde_json::Value =
        serde_json::from_str(&me.read_string("vendor-skills-lock.json")).unwrap();
    lock["skills"]
        .as_object()
        .unwrap()
        .values()
        .map(|e| e["revision"].as_str().unwrap().to_owned())
        .collect()
}

/// The processes (not zombies) of the process group `group`, from `/proc`.
fn group_members(group: u32) -> Vec<u32> {
    let mut members = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|n| n.parse::<u32>().ok())
        else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
            continue;
        };
        // `pid (comm) state ppid pgrp …`; comm may hold spaces and parentheses.
        let Some((_, rest)) = stat.rsplit_once(')') else {
            continue;
        };
        let fields: Vec<&str> = rest.split_whitespace().collect();
        if fields.len() > 2 && fields[0] != "Z" && fields[2] == group.to_string() {
            members.push(pid);
        }
    }
    members
}

/// The process groups of the children of `parent`, from `/proc`.
fn child_groups(parent: u32) -> Vec<u32> {
    let mut groups = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
            continue;
        };
        let Some((_, rest)) = stat.rsplit_once(')') else {
            continue;
        };
        let fields: Vec<&str> = rest.split_whitespace().collect();
        if fields.len() > 2 && fields[1] == parent.to_string() {
            groups.extend(fields[2].parse::<u32>().ok());
        }
    }
    groups
}

/// An interrupted git read leaves nothing behind (issue 31 §3): SIGINT or SIGTERM to the
/// binary while git waits on a server that takes the connection and never answers. The run
/// ends by that signal (as a shell expects of an interrupted program), the git process group
/// it started is gone, and no `agentic-skill-git-*` directory is left in TMPDIR.
#[test]
fn an_interrupted_git_read_removes_its_temporary_repository() {
    use std::os::unix::process::ExitStatusExt as _;
    use std::time::{Duration, Instant};
    let silent = crate::git_server::Silent::start();
    for (name, number) in [("INT", 2), ("TERM", 15)] {
        let tmp = tempfile::tempdir().unwrap();
        let me = Repo::empty();
        let connections = silent.connections();
        let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_agentic-skill-vendor"))
            .args([
                "skill",
                "add",
                &silent.url("skills.git"),
                "skills/pdf",
                "--root",
            ])
            .arg(me.path())
            .env_clear()
            .env("PATH", std::env::var("PATH").unwrap_or_default())
            .env("TMPDIR", tmp.path())
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        let prefix = format!("agentic-skill-git-{}-", child.id());
        let ours = |tmp: &std::path::Path| -> Vec<PathBuf> {
            std::fs::read_dir(tmp)
                .unwrap()
                .flatten()
                .filter(|e| {
                    e.file_name()
                        .to_string_lossy()
                        .starts_with("agentic-skill-git-")
                })
                .map(|e| e.path())
                .collect()
        };
        // Until git runs in the temporary directory and has reached the silent server.
        let deadline = Instant::now() + Duration::from_secs(30);
        let (dir, groups) = loop {
            let dirs = ours(tmp.path());
            let groups = child_groups(child.id());
            let reached = silent.connections() > connections;
            if let (Some(dir), false, true) = (dirs.first(), groups.is_empty(), reached) {
                break (dir.clone(), groups);
            }
            assert!(
                Instant::now() < deadline,
                "SIG{name}: no git process in a temporary directory yet: {dirs:?}"
            );
            std::thread::sleep(Duration::from_millis(20));
        };
        assert!(
            dir.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with(&prefix),
            "{dir:?}"
        );
        assert!(dir.is_dir());
        let sent = std::process::Command::new("kill")
            .arg(format!("-{name}"))
            .arg(child.id().to_string())
            .status()
            .unwrap();
        assert!(sent.success());
        let status = child.wait().unwrap();
        assert_eq!(status.signal(), Some(number), "SIG{name}: {status:?}");
        assert!(!dir.exists(), "SIG{name}: {} left behind", dir.display());
        assert_eq!(ours(tmp.path()), Vec::<PathBuf>::new(), "SIG{name}");
        // The group was sent SIGKILL before our process ended; its members exit and are
        // reaped by whoever inherits them a moment later, so allow that moment (5 s at most)
        // before calling a member left running.
        for group in groups {
            let started = std::time::Instant::now();
            while !group_members(group).is_empty() && started.elapsed() < Duration::from_secs(5) {
                std::thread::sleep(Duration::from_millis(20));
            }
            assert_eq!(
                group_members(group),
                Vec::<u32>::new(),
                "SIG{name}: git's process group {group} still runs"
            );
        }
    }
}
