//! Paths as a user types them: every path on the command line is read from the current
//! directory (or is absolute); `--root` only names the repository. And a local git
//! repository taken at a ref (`skill add <dir> <path> --ref R`).
#![allow(clippy::disallowed_methods)]

use std::process::Command;

use crate::common::{self, Repo, assert_run_snapshot, git};

const PDF: &str = "---\nname: pdf\ndescription: Reads PDF files.\n---\n# PDF\n\none\ntwo\nthree\n";

fn skill_md(name: &str) -> String {
    format!("---\nname: {name}\ndescription: Does {name} things.\n---\n# {name}\n")
}

#[test]
fn skill_validate_reads_directories_from_the_current_directory() {
    let repo = Repo::empty();
    repo.write("skills/good/SKILL.md", skill_md("good"));
    repo.write(
        "skills/bad/SKILL.md",
        "---\nname: other\ndescription: d\n---\n",
    );
    let bad = "error: skills/bad/SKILL.md: name \"other\" differs from the directory name \"bad\"; make them the same\n";
    // From the root, from skills/ and from inside the skill: the same finding, shown from the
    // root as verify shows paths.
    for (cwd, typed) in [
        ("", "skills/bad"),
        ("skills", "bad"),
        ("skills", "bad/"),
        ("skills/good", "../bad"),
        ("skills/bad", "."),
    ] {
        let run = repo.run_from(cwd, &["skill", "validate", typed]);
        assert_eq!(
            (run.code, run.stdout.as_str()),
            (1, bad),
            "{cwd} {typed}: {run:?}"
        );
    }
    let abs = repo.join("skills/bad").display().to_string();
    assert_eq!(
        repo.run_from("skills/good", &["skill", "validate", &abs])
            .stdout,
        bad
    );
    let good = repo.run_from("skills", &["skill", "validate", "good"]);
    assert_eq!((good.code, good.stdout.as_str()), (0, ""));
    // A name that is not there from the current directory is not looked up from the root.
    let missing = repo.run_from("skills/good", &["skill", "validate", "skills/bad"]);
    assert_ne!(missing.code, 0, "{missing:?}");
    // A skill outside the repository is shown by the path as typed.
    let outside = Repo::empty();
    outside.write(
        "elsewhere/bad/SKILL.md",
        "---\nname: x\ndescription: d\n---\n",
    );
    let typed = outside.join("elsewhere/bad").display().to_string();
    let run = repo.run(&["skill", "validate", &typed]);
    assert_eq!(
        run.stdout,
        format!(
            "error: {typed}/SKILL.md: name \"x\" differs from the directory name \"bad\"; make them the same\n"
        )
    );
}

#[test]
fn skill_pack_reads_its_directory_from_the_current_directory() {
    let repo = Repo::empty();
    repo.write("skills/pdf/SKILL.md", PDF);
    let from_root = repo.run(&["skill", "pack", "skills/pdf", "-o", "a.zip"]);
    assert_eq!(from_root.code, 0, "{from_root:?}");
    let from_skills = repo.run_from("skills", &["skill", "pack", "pdf", "-o", "b.zip"]);
    assert_eq!(from_skills.code, 0, "{from_skills:?}");
    // -o is read from the current directory too.
    assert_eq!(repo.read("a.zip"), repo.read("skills/b.zip"));
    // A skill outside the repository packs as well.
    let other = Repo::empty();
    other.write("pdf/SKILL.md", PDF);
    let typed = other.join("pdf").display().to_string();
    let run = repo.run(&["skill", "pack", &typed, "-o", "c.zip"]);
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(repo.read("a.zip"), repo.read("c.zip"));
}

#[test]
fn skill_install_into_any_directory() {
    let src = Repo::empty();
    src.write("pdf/SKILL.md", PDF);
    let input = src.join("pdf").display().to_string();
    let repo = Repo::empty();
    // Absolute, outside the repository, not there yet: made, all or nothing.
    let elsewhere = Repo::empty();
    let into = elsewhere.join("agents/skills").display().to_string();
    let run = repo.run(&["skill", "install", &input, "--into", &into]);
    assert_run_snapshot!("install_into_an_absolute_directory", run, repo);
    assert_eq!(elsewhere.read_string("agents/skills/pdf/SKILL.md"), PDF);
    // Relative to the current directory, inside the repository.
    repo.write("docs/.keep", "");
    let run = repo.run_from(
        "docs",
        &["skill", "install", &input, "--into", "../agent-skills"],
    );
    assert_run_snapshot!("install_into_a_relative_directory", run, repo);
    assert_eq!(repo.read_string("agent-skills/pdf/SKILL.md"), PDF);
    // The same install again is refused and changes nothing.
    let before = elsewhere.snapshot();
    let again = repo.run(&["skill", "install", &input, "--into", &into]);
    assert_eq!(again.code, 2, "{again:?}");
    assert_eq!(elsewhere.snapshot(), before);
}

#[test]
fn a_local_source_is_read_from_the_current_directory_and_kept_from_the_root() {
    let outer = Repo::empty();
    outer.write("up/skills/pdf/SKILL.md", PDF);
    outer.write("repo/docs/.keep", "");
    let repo_root = outer.join("repo");
    let run = common::run_bin_in(
        &[
            "skill".into(),
            "add".into(),
            "../../up".into(),
            "skills/pdf".into(),
            "--root".into(),
            "..".into(),
        ],
        None,
        Some(&repo_root.join("docs")),
    );
    assert_eq!(run.code, 0, "{run:?}");
    let lock: serde_json::Value =
        serde_json::from_str(&outer.read_string("repo/vendor-skills-lock.json")).unwrap();
    assert_eq!(lock["skills"]["pdf"]["source"], "../up");
    // A pull from the root finds the source the lock names.
    outer.write("up/skills/pdf/SKILL.md", PDF.replace("three", "THREE"));
    let pull = common::run_bin_in(&["skill".into(), "pull".into()], None, Some(&repo_root));
    assert_eq!(pull.code, 0, "{pull:?}");
    assert!(
        outer
            .read_string("repo/skills/pdf/SKILL.md")
            .contains("THREE")
    );
}

#[test]
fn a_local_git_repository_at_a_ref_is_read_at_its_commit() {
    let up = Repo::empty();
    git(up.path(), &["init", "-q", "-b", "main"]);
    up.write("skills/pdf/SKILL.md", PDF);
    git(up.path(), &["add", "-A"]);
    git(up.path(), &["commit", "-qm", "one"]);
    let first = git(up.path(), &["rev-parse", "HEAD"]);
    // An edit not committed is not what --ref main names.
    up.write("skills/pdf/SKILL.md", PDF.replace("one", "uncommitted"));
    let me = Repo::empty();
    let source = up.path().display().to_string();
    let run = me.run(&["skill", "add", &source, "skills/pdf", "--ref", "main"]);
    assert_run_snapshot!("add_from_a_local_git_repository_at_a_ref", run, me);
    assert_eq!(me.read_string("skills/pdf/SKILL.md"), PDF);
    let lock: serde_json::Value =
        serde_json::from_str(&me.read_string("vendor-skills-lock.json")).unwrap();
    assert_eq!(lock["skills"]["pdf"]["revision"], first.as_str());
    assert_eq!(lock["skills"]["pdf"]["ref"], "main");

    // A local edit, an upstream commit: the pull follows main and keeps both.
    let text = me.read_string("skills/pdf/SKILL.md");
    me.write("skills/pdf/SKILL.md", text.replace("one", "ONE (ours)"));
    up.write(
        "skills/pdf/SKILL.md",
        PDF.replace("three", "THREE (theirs)"),
    );
    git(up.path(), &["commit", "-qam", "two"]);
    let second = git(up.path(), &["rev-parse", "HEAD"]);
    // The kept base is lost; the commit the lock pins gives it back.
    me.remove(".agentic-skill-vendor");
    let pull = me.run(&["skill", "pull"]);
    assert_eq!(pull.code, 0, "{pull:?}");
    let merged = me.read_string("skills/pdf/SKILL.md");
    assert!(
        merged.contains("ONE (ours)") && merged.contains("THREE (theirs)"),
        "{merged}"
    );
    let lock: serde_json::Value =
        serde_json::from_str(&me.read_string("vendor-skills-lock.json")).unwrap();
    assert_eq!(lock["skills"]["pdf"]["revision"], second.as_str());

    // A ref that names nothing is refused, and nothing is written.
    let other = Repo::empty();
    let run = other.run(&[
        "skill",
        "add",
        &source,
        "skills/pdf",
        "--ref",
        "no-such-branch",
    ]);
    assert_run_snapshot!("add_at_a_ref_that_names_nothing", run, other);
    assert!(other.snapshot().is_empty(), "{:?}", other.snapshot());
}

#[test]
fn ref_on_a_plain_directory_is_refused_saying_why() {
    let up = Repo::empty();
    up.write("skills/pdf/SKILL.md", PDF);
    let me = Repo::empty();
    let source = up.path().display().to_string();
    let run = me.run(&["skill", "add", &source, "skills/pdf", "--ref", "main"]);
    assert_eq!(
        (run.code, run.stdout.as_str(), run.stderr.as_str()),
        (
            2,
            "",
            format!("error: {source}: --ref names a commit, and this is a plain directory, not the top of a git repository; leave out --ref to take the directory as it stands\n").as_str()
        )
    );
    assert!(me.snapshot().is_empty());
    // Without --ref the directory is taken as it stands.
    assert_eq!(me.run(&["skill", "add", &source, "skills/pdf"]).code, 0);
}

/// A dry run into the user's directory shows each destination from `~/`, and writes nothing.
#[test]
fn a_dry_run_into_the_home_directory_shows_home_relative_destinations() {
    let src = Repo::empty();
    src.write("pdf/SKILL.md", PDF);
    let home = Repo::empty();
    let repo = Repo::empty();
    let out = Command::new(env!("CARGO_BIN_EXE_agentic-skill-vendor"))
        .args(["skill", "install"])
        .arg(src.join("pdf"))
        .args([
            "--target",
            "claude",
            "--scope",
            "user",
            "--dry-run",
            "--root",
        ])
        .arg(repo.path())
        .env_clear()
        .env("HOME", home.path())
        .output()
        .expect("run");
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "plan: create ~/.claude/skills/pdf\n"
    );
    assert_eq!(out.status.code(), Some(0));
    assert!(home.snapshot().is_empty());
}
