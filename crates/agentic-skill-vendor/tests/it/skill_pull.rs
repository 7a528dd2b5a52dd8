//! `skill pull` of several skills as one transaction, and the steps its refusals and warnings
//! name, run on the real binary with a local directory as the upstream repository
//! (issue 13, "Every message, every mistake").
#![allow(clippy::disallowed_methods)]

use crate::common::{Repo, assert_run_snapshot};

fn skill(name: &str) -> String {
    format!(
        "---\nname: {name}\ndescription: Reads {name} files.\n---\n# {name}\n\none\ntwo\nthree\nfour\nfive\nsix\nseven\neight\n"
    )
}

/// An upstream holding `skills/pdf` and `skills/doc`, and a repository that took both.
fn imported_two() -> (Repo, Repo) {
    let up = Repo::empty();
    up.write("skills/pdf/SKILL.md", skill("pdf"));
    up.write("skills/doc/SKILL.md", skill("doc"));
    let me = Repo::empty();
    for path in ["skills/pdf", "skills/doc"] {
        let out = me.run(&["skill", "add", &source(&up), path]);
        assert_eq!(out.code, 0, "{out:?}");
    }
    (up, me)
}

fn source(up: &Repo) -> String {
    up.path().display().to_string()
}

fn edit(repo: &Repo, rel: &str, from: &str, to: &str) {
    let text = repo.read_string(rel);
    assert!(text.contains(from), "{rel} lacks {from:?}");
    repo.write(rel, text.replacen(from, to, 1));
}

/// The words after `marker` in `text`'s first line holding it: the command a message names.
fn named_step<'a>(text: &'a str, marker: &str) -> Vec<&'a str> {
    let line = text
        .lines()
        .find(|l| l.contains(marker))
        .unwrap_or_else(|| panic!("no {marker:?} in {text}"));
    let at = line.find(marker).map(|i| i + marker.len()).unwrap_or(0);
    line[at..].split_whitespace().collect()
}

/// Upstream moved both skills; pdf also has a local edit.
fn both_moved(up: &Repo, me: &Repo) {
    edit(me, "skills/pdf/SKILL.md", "one\n", "ONE (ours)\n");
    edit(up, "skills/pdf/SKILL.md", "eight\n", "EIGHT (theirs)\n");
    edit(up, "skills/doc/SKILL.md", "two\n", "TWO (theirs)\n");
}

#[test]
fn a_pull_of_two_skills_writes_both_and_prints_both_lines() {
    let (up, me) = imported_two();
    both_moved(&up, &me);
    let planned = me.run(&["skill", "pull", "--dry-run", "pdf", "doc"]);
    let out = me.run(&["skill", "pull", "pdf", "doc"]);
    assert_run_snapshot!("pull_of_two_skills", out, me);
    assert_eq!(planned.stdout, out.stdout, "the dry run decides as the run");
    assert_eq!(
        me.read_string("skills/doc/SKILL.md"),
        up.read_string("skills/doc/SKILL.md")
    );
    let pdf = me.read_string("skills/pdf/SKILL.md");
    assert!(
        pdf.contains("ONE (ours)") && pdf.contains("EIGHT (theirs)"),
        "{pdf}"
    );
    let status = me.run(&["skill", "status"]);
    assert_eq!(status.stdout, "doc: clean\npdf: modified\n");
}

/// One skill of the run refused: nothing of the others is written (every byte of the tree,
/// the tool's own state included, is as it was), the refusal names the skill and its step,
/// and the step works.
#[test]
fn a_refused_skill_writes_nothing_of_the_others() {
    let (up, me) = imported_two();
    both_moved(&up, &me);
    me.remove("skills/doc");
    let before = me.snapshot();
    for args in [
        &["skill", "pull", "pdf", "doc"][..],
        &["skill", "pull"],
        &["skill", "pull", "--dry-run", "pdf", "doc"],
        &["skill", "pull", "--write-conflicts", "pdf", "doc"],
    ] {
        let out = me.run(args);
        assert_eq!(
            (out.code, out.stdout.as_str(), out.stderr.as_str()),
            (
                2,
                "",
                format!(
                    "error: the pull of \"doc\" was refused, so no skill was written: skills/doc: is missing; restore it from version control, or take it again: skill add {} skills/doc\n",
                    source(&up)
                )
                .as_str()
            ),
            "{args:?}"
        );
        assert_eq!(me.snapshot(), before, "{args:?}");
    }
    // The step named takes doc again; then the pull of both goes through.
    let again = me.run(&named_step(
        &me.run(&["skill", "pull"]).stderr,
        "take it again: ",
    ));
    assert_eq!(again.code, 0, "{again:?}");
    assert_eq!(
        me.read_string("skills/doc/SKILL.md"),
        up.read_string("skills/doc/SKILL.md")
    );
    let out = me.run(&["skill", "pull"]);
    assert_run_snapshot!("pull_after_taking_a_skill_again", out, me);
}

/// A skill waiting for `skill resolve` refuses the run; the conflicts a run writes are part
/// of its transaction too.
#[test]
fn a_conflicted_skill_waits_while_the_others_pull_and_resolve_lets_it_go_on() {
    let (up, me) = imported_two();
    both_moved(&up, &me);
    edit(&me, "skills/doc/SKILL.md", "two\n", "TWO (ours)\n");
    // Both in one run: pdf merges, doc's conflict is written with markers, one transaction.
    let out = me.run(&["skill", "pull", "--write-conflicts"]);
    assert_run_snapshot!("pull_writes_one_conflict_and_merges_the_other", out, me);
    assert!(
        me.read_string("skills/doc/SKILL.md")
            .contains("<<<<<<< local\n")
    );

    // A skill waiting for resolve does not hold up the other: pdf is pulled, doc named.
    edit(&up, "skills/pdf/SKILL.md", "five\n", "FIVE (theirs)\n");
    let out = me.run(&["skill", "pull", "pdf", "doc"]);
    assert_run_snapshot!("pull_beside_a_skill_waiting_for_resolve", out, me);
    assert!(
        me.read_string("skills/pdf/SKILL.md")
            .contains("FIVE (theirs)")
    );
    me.write(
        "skills/doc/SKILL.md",
        skill("doc").replace("two\n", "TWO (both)\n"),
    );
    let resolved = me.run(&named_step(&out.stdout, "then run "));
    assert_eq!(resolved.code, 0, "{resolved:?}");
    let out = me.run(&["skill", "pull", "pdf", "doc"]);
    assert_run_snapshot!("pull_after_resolve_up_to_date", out, me);
}

/// A fresh clone: the kept bases under `.agentic-skill-vendor/` are not checked in. An
/// unedited skill pulls as before, with no word about it.
#[test]
fn a_fresh_clone_pulls_an_unedited_skill_exactly() {
    let (up, me) = imported_two();
    edit(&up, "skills/pdf/SKILL.md", "eight\n", "EIGHT (theirs)\n");
    me.remove(".agentic-skill-vendor");
    let out = me.run(&["skill", "pull", "pdf"]);
    assert_eq!((out.code, out.stderr.as_str()), (0, ""), "{out:?}");
    assert!(out.stdout.starts_with("pdf: updated "), "{out:?}");
    assert_eq!(
        me.read_string("skills/pdf/SKILL.md"),
        up.read_string("skills/pdf/SKILL.md")
    );
}

/// A fresh clone with local edits: the pull merges without a base, says so on stderr, and
/// every difference is a conflict written and resolved the usual way — no dead end.
#[test]
fn a_fresh_clone_with_local_edits_merges_without_a_base() {
    let (up, me) = imported_two();
    both_moved(&up, &me);
    up.write("skills/pdf/references/new.md", "from upstream\n");
    let base = me.read_string("vendor-skills-lock.json");
    let base: serde_json::Value = serde_json::from_str(&base).unwrap();
    let hash = base["skills"]["pdf"]["baseHash"]
        .as_str()
        .unwrap()
        .to_owned();
    let lost = format!(
        ".agentic-skill-vendor/skill-bases/{}",
        hash.trim_start_matches("sha256:")
    );
    me.remove(".agentic-skill-vendor");
    let before = me.snapshot();
    let warning = format!(
        "warning: pdf: the base is not in {lost} and its local directory source cannot give it again, so the merge was made without one: a file that differs, or that only one side holds, is a conflict\n"
    );
    let out = me.run(&["skill", "pull", "pdf"]);
    assert_eq!(
        (out.code, out.stderr.as_str()),
        (1, warning.as_str()),
        "{out:?}"
    );
    assert_run_snapshot!("pull_without_a_base", out, me);
    assert_eq!(
        me.snapshot(),
        before,
        "conflicts not written change nothing"
    );
    let json = me.run(&["--format", "json", "skill", "pull", "pdf"]);
    assert_run_snapshot!("pull_without_a_base_json", json, me);

    // --write-conflicts writes them (markers with an empty base section), then resolve.
    let out = me.run(&["skill", "pull", "--write-conflicts", "pdf"]);
    assert_eq!(
        (out.code, out.stderr.as_str()),
        (1, warning.as_str()),
        "{out:?}"
    );
    let text = me.read_string("skills/pdf/SKILL.md");
    assert!(text.contains("<<<<<<< local\n"), "{text}");
    assert!(text.contains("||||||| base\n=======\n"), "{text}");
    assert_eq!(
        me.read_string("skills/pdf/references/new.md"),
        "from upstream\n"
    );
    me.write(
        "skills/pdf/SKILL.md",
        skill("pdf")
            .replace("one\n", "ONE (ours)\n")
            .replace("eight\n", "EIGHT (theirs)\n"),
    );
    let resolved = me.run(&named_step(&out.stdout, "then run "));
    assert_eq!(resolved.code, 0, "{resolved:?}");
    // Upstream is the base now, kept again: the next pull merges three ways, with no warning.
    edit(&up, "skills/pdf/SKILL.md", "four\n", "FOUR (theirs)\n");
    let out = me.run(&["skill", "pull", "pdf"]);
    assert_eq!((out.code, out.stderr.as_str()), (0, ""), "{out:?}");
    assert!(out.stdout.ends_with(" (local edits kept)\n"), "{out:?}");
}

/// `skill diff` cannot show a lost base both sides moved from; its refusal names the pull,
/// and after the pull (here clean: both sides made the same edit) the diff works.
#[test]
fn diff_of_a_lost_base_names_the_pull_that_records_a_new_one() {
    let (up, me) = imported_two();
    edit(&me, "skills/doc/SKILL.md", "two\n", "TWO\n");
    edit(&up, "skills/doc/SKILL.md", "two\n", "TWO\n");
    me.remove(".agentic-skill-vendor");
    let out = me.run(&["skill", "diff", "doc"]);
    assert_eq!(out.code, 2, "{out:?}");
    assert!(
        out.stderr
            .ends_with("and its local directory source cannot give it again; skill pull doc merges without it and records a new base\n"),
        "{out:?}"
    );
    let step: Vec<&str> = named_step(&out.stderr, "again; ")
        .into_iter()
        .take(3)
        .collect();
    assert_eq!(step, ["skill", "pull", "doc"]);
    let pulled = me.run(&step);
    assert_eq!(pulled.code, 0, "{pulled:?}");
    assert!(
        pulled
            .stderr
            .starts_with("warning: doc: the base is not in "),
        "{pulled:?}"
    );
    let diff = me.run(&["skill", "diff", "doc"]);
    assert_eq!((diff.code, diff.stdout.as_str()), (0, ""), "{diff:?}");
}

/// A skill removed upstream is recorded as such by the pull that finds it gone: `skill
/// outdated` says so once, exits 0, and `skill status` carries it, until upstream holds the
/// skill again (issue 29 §3).
#[test]
fn a_skill_removed_upstream_is_said_once_and_keeps_ci_green() {
    let (up, me) = imported_two();
    up.remove("skills/doc");
    let out = me.run(&["skill", "pull"]);
    assert_run_snapshot!("pull_finds_a_skill_removed_upstream", out, me);
    let status = me.run(&["skill", "status"]);
    assert_run_snapshot!("status_of_a_skill_removed_upstream", status, me);
    let json = me.run(&["skill", "status", "--format", "json"]);
    assert_run_snapshot!("status_of_a_skill_removed_upstream_json", json, me);
    // Upstream takes the skill back: the next pull clears the record.
    up.write("skills/doc/SKILL.md", skill("doc").replace("two", "TWO"));
    let out = me.run(&["skill", "pull"]);
    assert_run_snapshot!("pull_of_a_skill_back_upstream", out, me);
    assert!(
        !me.read_string("vendor-skills-lock.json")
            .contains("removedUpstream")
    );
    assert_eq!(me.run(&["skill", "outdated"]).stdout, "");
}

/// One skill waiting for `skill resolve` does not hold up a pull of the others: they are
/// pulled, it is named, and the run exits 1 (issue 29 §3).
#[test]
fn a_conflicted_skill_does_not_block_the_pull_of_the_others() {
    let (up, me) = imported_two();
    edit(&me, "skills/pdf/SKILL.md", "one\n", "ONE (ours)\n");
    edit(&up, "skills/pdf/SKILL.md", "one\n", "ONE (theirs)\n");
    let out = me.run(&["skill", "pull", "pdf", "--write-conflicts"]);
    assert_eq!(out.code, 1, "{out:?}");
    edit(&up, "skills/doc/SKILL.md", "two\n", "TWO (theirs)\n");
    let out = me.run(&["skill", "pull"]);
    assert_run_snapshot!("pull_beside_a_waiting_skill", out, me);
    assert!(
        me.read_string("skills/doc/SKILL.md")
            .contains("TWO (theirs)")
    );
    // Named alone, it is still refused, saying what to do.
    let out = me.run(&["skill", "pull", "pdf"]);
    assert_eq!(out.code, 2, "{out:?}");
}
