//! Local sources read as remote ones are (issue 29 §4): a local git repository at its default
//! branch's commit, tracked files only, unless `--working-tree` asks for the working tree; a
//! plain directory without what its `.gitignore` files exclude.
#![allow(clippy::disallowed_methods)]

use crate::common::{Repo, assert_run_snapshot, git};

const SKILL: &str = "---\nname: pdf\ndescription: Reads PDF files.\n---\n# PDF\n\none\n";

/// A skill directory holding, beside its committed files, what a working tree gathers: an
/// uncommitted edit, an untracked `.env`, and ignored `__pycache__/` and `node_modules/` (the
/// latter with a link inside, as npm makes them).
fn littered(up: &Repo) {
    up.write(".gitignore", "__pycache__/\nnode_modules/\n");
    up.write("skills/pdf/SKILL.md", SKILL);
    up.write("skills/pdf/scripts/run.py", "print('run')\n");
}

fn litter(up: &Repo) {
    up.write("skills/pdf/SKILL.md", SKILL.replace("one", "uncommitted"));
    up.write("skills/pdf/.env", "TOKEN=secret\n");
    up.write(
        "skills/pdf/scripts/__pycache__/run.cpython-312.pyc",
        "\0bytecode",
    );
    up.write(
        "skills/pdf/node_modules/dep/index.js",
        "module.exports = 1;\n",
    );
    up.symlink("dep", "skills/pdf/node_modules/.bin");
}

fn files(me: &Repo, dir: &str) -> Vec<String> {
    me.snapshot()
        .into_keys()
        .filter_map(|k| k.strip_prefix(&format!("{dir}/")).map(str::to_owned))
        .collect()
}

#[test]
fn a_local_git_repository_is_read_at_its_commit_tracked_files_only() {
    let up = Repo::empty();
    littered(&up);
    git(up.path(), &["init", "-q", "-b", "main"]);
    git(up.path(), &["add", "-A"]);
    git(up.path(), &["commit", "-q", "-m", "one"]);
    let commit = git(up.path(), &["rev-parse", "HEAD"]);
    litter(&up);
    let me = Repo::empty();
    let src = up.path().display().to_string();
    let out = me.run(&["skill", "add", &src, "skills/pdf"]);
    assert_run_snapshot!("add_from_a_local_git_repository", out, me);
    assert_eq!(files(&me, "skills/pdf"), ["SKILL.md", "scripts/run.py"]);
    assert_eq!(me.read_string("skills/pdf/SKILL.md"), SKILL);
    let lock = me.read_string("vendor-skills-lock.json");
    assert!(
        lock.contains("\"ref\": \"main\"") && lock.contains(&commit),
        "{lock}"
    );
    // A commit upstream is what a pull takes; the working tree's litter never is.
    up.write("skills/pdf/SKILL.md", SKILL.replace("one", "committed"));
    git(up.path(), &["commit", "-q", "-am", "two"]);
    let out = me.run(&["skill", "pull"]);
    assert_run_snapshot!("pull_from_a_local_git_repository", out, me);
    assert_eq!(files(&me, "skills/pdf"), ["SKILL.md", "scripts/run.py"]);
    assert!(me.read_string("skills/pdf/SKILL.md").contains("committed"));
}

#[test]
fn working_tree_reads_the_directory_as_it_stands_honouring_gitignore() {
    let up = Repo::empty();
    littered(&up);
    git(up.path(), &["init", "-q", "-b", "main"]);
    git(up.path(), &["add", "-A"]);
    git(up.path(), &["commit", "-q", "-m", "one"]);
    litter(&up);
    let me = Repo::empty();
    let src = up.path().display().to_string();
    let out = me.run(&["skill", "add", &src, "skills/pdf", "--working-tree"]);
    assert_run_snapshot!("add_from_a_working_tree", out, me);
    // The uncommitted edit and the untracked file are the working tree's; what .gitignore
    // excludes is not, and its link inside is never met.
    assert_eq!(
        files(&me, "skills/pdf"),
        [".env", "SKILL.md", "scripts/run.py"]
    );
    assert!(
        me.read_string("skills/pdf/SKILL.md")
            .contains("uncommitted")
    );
    assert!(
        !me.read_string("vendor-skills-lock.json")
            .contains("\"ref\"")
    );
}

#[test]
fn a_plain_directory_honours_its_gitignore_files_at_every_level() {
    let up = Repo::empty();
    littered(&up);
    litter(&up);
    // A deeper file adds a rule, and takes one back.
    up.write(
        "skills/pdf/.gitignore",
        ".env\n!keep.log\n*.log\n!keep.log\n",
    );
    up.write("skills/pdf/debug.log", "noise\n");
    up.write("skills/pdf/keep.log", "kept\n");
    let me = Repo::empty();
    let src = up.path().display().to_string();
    let out = me.run(&["skill", "add", &src, "skills/pdf"]);
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(
        files(&me, "skills/pdf"),
        [".gitignore", "SKILL.md", "keep.log", "scripts/run.py"]
    );
    // A link that no rule excludes is still refused, naming it.
    up.symlink("SKILL.md", "skills/pdf/leak.md");
    let other = Repo::empty();
    let out = other.run(&["skill", "add", &src, "skills/pdf"]);
    assert_run_snapshot!("add_of_a_link_no_rule_excludes", out, other);
}

#[test]
fn working_tree_is_for_local_sources_only() {
    let me = Repo::empty();
    let out = me.run(&[
        "skill",
        "add",
        "acme/skills",
        "skills/pdf",
        "--working-tree",
    ]);
    assert_run_snapshot!("working_tree_from_github", out, me);
}
