//! `skill add`, `status`, `pull`, `resolve` and `diff` on the real binary, with a local
//! directory as the upstream repository (the git transport is exercised in
//! `skill_lifecycle_git.rs`).
#![allow(clippy::disallowed_methods)]

use std::collections::BTreeMap;
use std::os::unix::fs::PermissionsExt;

use crate::common::{Repo, assert_run_snapshot};
use asv_test_support::snapshot::labelled;

const SKILL: &str = "---\nname: pdf\ndescription: Reads PDF files.\n---\n# PDF\n\none\ntwo\nthree\nfour\nfive\nsix\nseven\n";

/// An upstream repository holding `skills/pdf`, and a repository that took it.
fn imported() -> (Repo, Repo) {
    let up = Repo::empty();
    up.write("skills/pdf/SKILL.md", SKILL);
    up.write("skills/pdf/scripts/run.sh", "#!/bin/sh\necho run\n");
    let me = Repo::empty();
    let out = me.run(&["skill", "add", &source(&up), "skills/pdf"]);
    assert_eq!(out.code, 0, "{out:?}");
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

/// The tree without the tool's own state directory.
fn user_files(repo: &Repo) -> BTreeMap<String, String> {
    repo.snapshot()
        .into_iter()
        .filter(|(k, _)| !k.starts_with(".agentic-skill-vendor/"))
        .collect()
}

#[test]
fn add_places_the_skill_and_records_it() {
    let (up, me) = imported();
    assert_eq!(me.read_string("skills/pdf/SKILL.md"), SKILL);
    let lock: serde_json::Value =
        serde_json::from_str(&me.read_string("vendor-skills-lock.json")).unwrap();
    let entry = &lock["skills"]["pdf"];
    assert_eq!(entry["source"], source(&up));
    assert_eq!(entry["path"], "skills/pdf");
    let hash = me.run(&[
        "skill",
        "hash",
        &me.join("skills/pdf").display().to_string(),
    ]);
    assert_eq!(entry["baseHash"].as_str().unwrap(), hash.stdout.trim());
    assert!(
        !me.exists("vendor-lock.json"),
        "the contract lock stays untouched"
    );
    let status = me.run(&["skill", "status"]);
    assert_eq!((status.code, status.stdout.as_str()), (0, "pdf: clean\n"));
    // a second add of the same name is refused, and so is a taken directory
    let again = me.run(&["skill", "add", &source(&up), "skills/pdf"]);
    assert_run_snapshot!("add_already_imported", again, me);
}

#[test]
fn a_clean_pull_keeps_local_edits_and_takes_upstream_ones() {
    let (up, me) = imported();
    edit(&me, "skills/pdf/SKILL.md", "one\n", "ONE (ours)\n");
    edit(&up, "skills/pdf/SKILL.md", "seven\n", "SEVEN (theirs)\n");
    up.write("skills/pdf/references/new.md", "added upstream\n");
    let status = me.run(&["skill", "status"]);
    assert_eq!(status.stdout, "pdf: modified\n");
    let out = me.run(&["skill", "pull"]);
    assert_run_snapshot!("clean_pull_keeps_local_edits", out, me);
    let merged = me.read_string("skills/pdf/SKILL.md");
    assert!(
        merged.contains("ONE (ours)\n") && merged.contains("SEVEN (theirs)\n"),
        "{merged}"
    );
    assert_eq!(
        me.read_string("skills/pdf/references/new.md"),
        "added upstream\n"
    );
    // the base moved to upstream: what is left is exactly the local edit
    let diff = me.run(&["skill", "diff", "pdf"]);
    assert_eq!(
        diff.stdout,
        "diff --git a/skills/pdf/SKILL.md b/skills/pdf/SKILL.md\n\
         --- a/skills/pdf/SKILL.md\n\
         +++ b/skills/pdf/SKILL.md\n\
         @@ -4,7 +4,7 @@ description: Reads PDF files.\n \
         ---\n \
         # PDF\n \n\
         -one\n\
         +ONE (ours)\n \
         two\n \
         three\n \
         four\n"
    );
    // pulling again changes nothing
    let again = me.run(&["skill", "pull", "pdf"]);
    assert_run_snapshot!("pull_again_up_to_date", again, me);
}

/// A file with CRLF line ends diffs with its CRs kept, byte for byte as `git diff` shows it,
/// and `git apply` takes the diff back to the base.
#[test]
fn a_diff_of_a_crlf_file_keeps_its_carriage_returns() {
    let up = Repo::empty();
    up.write("skills/pdf/SKILL.md", SKILL);
    up.write("skills/pdf/notes.md", "one\r\ntwo\r\nthree\r\n");
    let me = Repo::empty();
    let out = me.run(&["skill", "add", &source(&up), "skills/pdf"]);
    assert_eq!(out.code, 0, "{out:?}");
    edit(&me, "skills/pdf/notes.md", "two\r\n", "TWO\r\n");
    let diff = me.run(&["skill", "diff", "pdf"]);
    assert_eq!(diff.code, 0, "{diff:?}");
    assert_eq!(
        diff.stdout,
        "diff --git a/skills/pdf/notes.md b/skills/pdf/notes.md\n\
         --- a/skills/pdf/notes.md\n\
         +++ b/skills/pdf/notes.md\n\
         @@ -1,3 +1,3 @@\n \
         one\r\n\
         -two\r\n\
         +TWO\r\n \
         three\r\n"
    );
    let patch = me.path().join("crlf.patch");
    std::fs::write(&patch, &diff.stdout).unwrap();
    let applied = std::process::Command::new("git")
        .args(["apply", "--reverse"])
        .arg(&patch)
        .current_dir(me.path())
        .output()
        .unwrap();
    assert!(applied.status.success(), "{applied:?}");
    assert_eq!(
        me.read_string("skills/pdf/notes.md"),
        "one\r\ntwo\r\nthree\r\n"
    );
}

#[test]
fn the_exec_bit_and_content_merge_independently() {
    let (up, me) = imported();
    let script = "skills/pdf/scripts/run.sh";
    std::fs::set_permissions(up.join(script), std::fs::Permissions::from_mode(0o755)).unwrap();
    edit(&me, script, "echo run\n", "echo run locally\n");
    let out = me.run(&["skill", "pull"]);
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(me.read_string(script), "#!/bin/sh\necho run locally\n");
    let mode = std::fs::metadata(me.join(script))
        .unwrap()
        .permissions()
        .mode();
    assert_ne!(mode & 0o100, 0, "upstream's exec bit is taken: {mode:o}");
}

#[test]
fn a_conflicting_pull_changes_nothing_and_lists_each_conflict() {
    let (up, me) = imported();
    edit(&me, "skills/pdf/SKILL.md", "four\n", "FOUR (ours)\n");
    edit(&up, "skills/pdf/SKILL.md", "four\n", "FOUR (theirs)\n");
    std::fs::remove_file(me.join("skills/pdf/scripts/run.sh")).unwrap();
    edit(
        &up,
        "skills/pdf/scripts/run.sh",
        "echo run\n",
        "echo run v2\n",
    );
    let before = user_files(&me);
    let lock_before = me.read_string("vendor-skills-lock.json");
    let out = me.run(&["skill", "pull"]);
    assert_run_snapshot!("pull_lists_each_conflict", out, me);
    assert_eq!(user_files(&me), before);
    assert_eq!(me.read_string("vendor-skills-lock.json"), lock_before);
    // JSON says the same, one object per skill
    let json = me.run(&["--format", "json", "skill", "pull"]);
    assert_run_snapshot!("pull_lists_each_conflict_json", json, me);
}

#[test]
fn write_conflicts_then_resolve() {
    let (up, me) = imported();
    edit(&me, "skills/pdf/SKILL.md", "four\n", "FOUR (ours)\n");
    edit(&up, "skills/pdf/SKILL.md", "four\n", "FOUR (theirs)\n");
    edit(
        &up,
        "skills/pdf/scripts/run.sh",
        "echo run\n",
        "echo run v2\n",
    );
    let out = me.run(&["skill", "pull", "--write-conflicts"]);
    assert_run_snapshot!("write_conflicts", out, me);
    let text = me.read_string("skills/pdf/SKILL.md");
    assert!(text.contains("<<<<<<< local\nFOUR (ours)\n||||||| base\nfour\n=======\nFOUR (theirs)\n>>>>>>> upstream\n"), "{text}");
    // the clean part of the merge is there too
    assert_eq!(
        me.read_string("skills/pdf/scripts/run.sh"),
        "#!/bin/sh\necho run v2\n"
    );
    assert_eq!(me.run(&["skill", "status"]).stdout, "pdf: conflicted\n");
    // no second pull over unresolved conflicts
    let pull = me.run(&["skill", "pull"]);
    assert_run_snapshot!("pull_over_written_conflicts", pull, me);
    // resolve refuses while markers remain
    let refused = me.run(&["skill", "resolve", "pdf"]);
    assert_run_snapshot!("resolve_while_markers_remain", refused, me);
    // fix by hand, then resolve records upstream as the new base
    me.write(
        "skills/pdf/SKILL.md",
        SKILL.replace("four\n", "FOUR (both)\n"),
    );
    let resolved = me.run(&["skill", "resolve", "pdf"]);
    assert_run_snapshot!("resolved", resolved, me);
    assert_eq!(me.run(&["skill", "status"]).stdout, "pdf: modified\n");
    let diff = me.run(&["skill", "diff", "pdf"]);
    assert_run_snapshot!("diff_after_resolve", diff, me);
    assert_eq!(
        me.run(&["skill", "resolve", "pdf"]).code,
        2,
        "nothing left to resolve"
    );
}

#[test]
fn local_edits_to_a_skill_removed_upstream_are_kept() {
    let (up, me) = imported();
    edit(&me, "skills/pdf/SKILL.md", "one\n", "mine\n");
    up.remove("skills/pdf");
    let before = user_files(&me);
    let out = me.run(&["skill", "pull"]);
    assert_run_snapshot!("removed_upstream_with_local_edits", out, me);
    // The copy is kept byte for byte; only the lock records that upstream dropped it.
    let lock = "vendor-skills-lock.json";
    let (mut after, mut before) = (user_files(&me), before);
    let (now, then) = (after.remove(lock), before.remove(lock));
    assert_eq!(after, before);
    assert_eq!(
        now.map(|t| t.replace(",\n      \"removedUpstream\": \"\"", "")),
        then
    );
}

#[test]
fn status_reports_missing_and_invalid() {
    let (_up, me) = imported();
    // A name that differs from the directory is what agents load (a warning of the consumer's
    // rules); a name that is no text is not.
    edit(&me, "skills/pdf/SKILL.md", "name: pdf", "name: other");
    let out = me.run(&["skill", "status"]);
    assert_run_snapshot!("status_name_differs_from_directory", out, me);
    edit(&me, "skills/pdf/SKILL.md", "name: other", "name: [a]");
    let out = me.run(&["skill", "status"]);
    assert_run_snapshot!("status_name_is_a_list", out, me);
    me.remove("skills/pdf");
    assert_eq!(me.run(&["skill", "status"]).stdout, "pdf: missing\n");
    let pull = me.run(&["skill", "pull"]);
    assert_run_snapshot!("pull_of_a_missing_skill", pull, me);
}

/// Each refused add leaves the repository as it was.
#[test]
fn bad_input_is_refused_and_nothing_is_written() {
    let up = Repo::empty();
    up.write("skills/pdf/SKILL.md", SKILL);
    up.write(
        "skills/linked/SKILL.md",
        SKILL.replace("name: pdf", "name: linked"),
    );
    up.symlink("../../secret", "skills/linked/leak.md");
    up.write(
        "skills/piped/SKILL.md",
        SKILL.replace("name: pdf", "name: piped"),
    );
    up.fifo("skills/piped/pipe");
    up.write(
        "skills/undescribed/SKILL.md",
        "---\nname: undescribed\n---\nBody\n",
    );
    up.write(
        "skills/lower/skill.md",
        SKILL.replace("name: pdf", "name: lower"),
    );
    up.write("secret", "do not take\n");
    let src = source(&up);
    let rows: &[&[&str]] = &[
        &["skills/linked"],
        &["skills/piped"],
        &["../outside"],
        &["skills/../secret"],
        &["/etc"],
        &["skills/undescribed"],
        &["skills/lower"],
        &["skills/none"],
        &["skills/pdf", "--name", "Bad_Name"],
    ];
    // Every refusal in one snapshot, a row each: each must still be refused, and say why.
    let mut refusals = String::new();
    for args in rows {
        let me = Repo::empty();
        me.write("README.md", "mine\n");
        let before = me.snapshot();
        let mut all = vec!["skill", "add", src.as_str()];
        all.extend_from_slice(args);
        let out = me.run(&all);
        refusals.push_str(&labelled(&all.join(" "), &out, me.path()));
        let after: BTreeMap<String, String> = me
            .snapshot()
            .into_iter()
            .filter(|(k, _)| !k.starts_with(".agentic-skill-vendor/"))
            .collect();
        assert_eq!(after, before, "{args:?}");
    }
    assert_run_snapshot!(text: "add_refusals", refusals);
    // a taken directory is not overwritten
    let me = Repo::empty();
    me.write("skills/pdf/SKILL.md", "mine\n");
    let out = me.run(&["skill", "add", &src, "skills/pdf"]);
    assert_run_snapshot!("add_over_a_taken_directory", out, me);
    assert_eq!(me.read_string("skills/pdf/SKILL.md"), "mine\n");
    // --name places under another directory, judged by that name
    let me = Repo::empty();
    let out = me.run(&["skill", "add", &src, "skills/pdf", "--name", "pdf-tools"]);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(me.exists("skills/pdf-tools/SKILL.md"));
}

#[test]
fn local_symlinks_are_invalid_and_never_followed() {
    let (_up, me) = imported();
    me.write("outside.md", "secret\n");
    me.symlink("../../outside.md", "skills/pdf/leak.md");
    let out = me.run(&["skill", "status"]);
    assert_run_snapshot!("status_of_a_local_symlink", out, me);
    let pull = me.run(&["skill", "pull"]);
    assert_run_snapshot!("pull_over_a_local_symlink", pull, me);
}

/// `--name` renames an imported skill: it lands at `skills/<name>` with its `name:` line set,
/// the rename is a local edit over upstream's base, and every pull keeps it.
#[test]
fn add_with_a_name_renames_the_skill_and_pulls_keep_the_rename() {
    let up = Repo::empty();
    up.write("skills/pdf/SKILL.md", SKILL.replace('\n', "\r\n"));
    let me = Repo::empty();
    let run = me.run(&[
        "skill",
        "add",
        &source(&up),
        "skills/pdf",
        "--name",
        "pdf-reader",
    ]);
    assert_eq!(run.code, 0, "{run:?}");
    assert!(!me.exists("skills/pdf"));
    let renamed = SKILL
        .replace("name: pdf\n", "name: pdf-reader\n")
        .replace('\n', "\r\n");
    assert_eq!(me.read_string("skills/pdf-reader/SKILL.md"), renamed);
    assert_eq!(me.run(&["skill", "validate"]).code, 0);
    // The rename is the tool's edit, not the user's: the copy is clean.
    let status = me.run(&["skill", "status"]);
    assert_eq!(status.stdout, "pdf-reader: clean\n", "{status:?}");
    // The base is upstream's, so the diff from it is the one line (its CRLF kept).
    let diff = me.run(&["skill", "diff", "pdf-reader"]);
    assert_run_snapshot!("diff_of_a_renamed_skill", diff, me);

    edit(&up, "skills/pdf/SKILL.md", "seven", "SEVEN (theirs)");
    let pull = me.run(&["skill", "pull"]);
    assert_eq!(pull.code, 0, "{pull:?}");
    let merged = me.read_string("skills/pdf-reader/SKILL.md");
    assert_eq!(merged, renamed.replace("seven", "SEVEN (theirs)"));
    assert_eq!(me.run(&["skill", "validate"]).code, 0);

    // Upstream changes the description, the line beside `name:`: no conflict, the rename put
    // back over upstream's text, and still no local edit.
    edit(
        &up,
        "skills/pdf/SKILL.md",
        "description: Reads PDF files.",
        "description: Reads and fills PDF forms.",
    );
    let pull = me.run(&["skill", "pull"]);
    // Not "(local edits kept)": the rename is no local edit.
    assert_run_snapshot!("pull_over_a_rename", pull, me);
    let merged = me.read_string("skills/pdf-reader/SKILL.md");
    assert!(
        merged
            .starts_with("---\r\nname: pdf-reader\r\ndescription: Reads and fills PDF forms.\r\n"),
        "{merged:?}"
    );
    let status = me.run(&["skill", "status"]);
    assert_eq!(status.stdout, "pdf-reader: clean\n", "{status:?}");
    // A real edit beside the rename is one.
    edit(&me, "skills/pdf-reader/SKILL.md", "one", "mine");
    let status = me.run(&["skill", "status"]);
    assert_eq!(status.stdout, "pdf-reader: modified\n", "{status:?}");
}

#[test]
fn a_skill_added_with_a_name_is_removed_without_force() {
    let up = Repo::empty();
    up.write("skills/pdf/SKILL.md", SKILL);
    let me = Repo::empty();
    let run = me.run(&[
        "skill",
        "add",
        &source(&up),
        "skills/pdf",
        "--name",
        "reader",
    ]);
    assert_eq!(run.code, 0, "{run:?}");
    let run = me.run(&["skill", "remove", "reader"]);
    // Nothing "discarded": the rename is no local edit.
    assert_run_snapshot!("remove_a_renamed_skill", run, me);
    assert!(!me.exists("skills/reader"));
}

#[test]
fn a_rename_the_skill_md_cannot_take_is_refused() {
    let up = Repo::empty();
    up.write(
        "skills/pdf/SKILL.md",
        "---\nname: >-\n  pdf\ndescription: Reads PDF files.\n---\n",
    );
    let me = Repo::empty();
    let run = me.run(&[
        "skill",
        "add",
        &source(&up),
        "skills/pdf",
        "--name",
        "pdf-reader",
    ]);
    assert_eq!(
        (run.code, run.stderr.as_str()),
        (
            2,
            "error: cannot rename the skill to \"pdf-reader\": its SKILL.md has no one-line name: in its frontmatter to set; leave out --name, or fix the name upstream\n"
        )
    );
    assert!(me.snapshot().is_empty(), "{:?}", me.snapshot());
    // A bad name is refused as a name before anything is read.
    let run = me.run(&["skill", "add", &source(&up), "skills/pdf", "--name", "PDF"]);
    assert_eq!(run.code, 2, "{run:?}");
}

/// Issue 31 §3: a delete/modify conflict written with `--write-conflicts` has no markers to
/// edit; the pull says what each side did and what is left in place, and `skill resolve`
/// says what it keeps that upstream deleted.
#[test]
fn a_delete_modify_conflict_says_what_each_side_did_and_what_resolve_keeps() {
    let (up, me) = imported();
    let script = "skills/pdf/scripts/run.sh";
    edit(&me, script, "echo run\n", "echo run locally\n");
    std::fs::remove_file(up.join(script)).unwrap();
    let out = me.run(&["skill", "pull", "--write-conflicts"]);
    assert_eq!(out.code, 1, "{out:?}");
    let lines: Vec<&str> = out.stdout.lines().collect();
    assert!(
        lines[0].contains("written for you to settle, markers only in text both sides edited"),
        "{}",
        out.stdout
    );
    assert_eq!(
        lines[1],
        "skills/pdf/scripts/run.sh (delete/modify: upstream deleted it, you changed it; your version is left in place without markers: delete it to take upstream's delete, or keep it)"
    );
    assert_eq!(me.read_string(script), "#!/bin/sh\necho run locally\n");
    let out = me.run(&["skill", "resolve", "pdf"]);
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(
        out.stderr,
        "skills/pdf/scripts/run.sh: kept, though upstream deleted it; delete it if upstream's delete should stand\n"
    );
}
