//! `skill sync` and `skill verify` on the real binary: the intent file `skill add` writes,
//! skills mirrored into three agents' directories (two sharing one), changes carried over,
//! edited copies refused, missing skills restored offline, dropped rows dropped, and every
//! problem `skill verify` names.
#![allow(clippy::disallowed_methods, clippy::unwrap_used)]

use std::os::unix::fs::PermissionsExt;

use crate::common::{Repo, assert_run_snapshot, ok};

const PDF: &str = "---\nname: pdf\ndescription: Reads PDF files.\n---\n# PDF\n";
const OWN: &str = "---\nname: own\ndescription: Our own skill.\n---\nmine\n";

/// An upstream directory holding `skills/pdf` (with an executable script) and a repository
/// with its own skill that took pdf, wanting it mirrored for claude, codex and agents.
fn synced_repo() -> (Repo, Repo) {
    let up = Repo::empty();
    up.write("skills/pdf/SKILL.md", PDF);
    up.write("skills/pdf/scripts/run.sh", "#!/bin/sh\necho run\n");
    let script = up.join("skills/pdf/scripts/run.sh");
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    let me = Repo::empty();
    me.write("skills/own/SKILL.md", OWN);
    let source = up.path().display().to_string();
    let added = me.run(&["skill", "add", &source, "skills/pdf"]);
    assert_eq!(added.code, 0, "{added:?}");
    (up, me)
}

fn want_targets(me: &Repo, targets: &str) {
    let intent = me.read_string("vendor-skills.yaml");
    me.write(
        "vendor-skills.yaml",
        format!("targets: [{targets}]\n{intent}"),
    );
}

#[test]
fn skill_add_writes_the_intent_and_keeps_what_the_user_wrote() {
    let (up, me) = synced_repo();
    let source = up.path().display().to_string();
    assert_eq!(
        me.read_string("vendor-skills.yaml"),
        format!("skills:\n  pdf:\n    source: {source}\n    path: skills/pdf\n")
    );
    // A second add goes at the end of the block; comments and other lines stay.
    up.write(
        "skills/doc/SKILL.md",
        "---\nname: doc\ndescription: Docs.\n---\n",
    );
    let intent = format!("# wanted\n{}# end\n", me.read_string("vendor-skills.yaml"));
    me.write("vendor-skills.yaml", &intent);
    assert_eq!(me.run(&["skill", "add", &source, "skills/doc"]).code, 0);
    assert_eq!(
        me.read_string("vendor-skills.yaml"),
        format!(
            "# wanted\nskills:\n  pdf:\n    source: {source}\n    path: skills/pdf\n  doc:\n    source: {source}\n    path: skills/doc\n# end\n"
        )
    );
}

#[test]
fn sync_mirrors_every_skill_into_each_target_directory_once() {
    let (_up, me) = synced_repo();
    want_targets(&me, "claude, codex, agents");
    let before = me.snapshot();
    let dry = me.run(&["skill", "sync", "--dry-run"]);
    assert_eq!(dry.code, 0, "{dry:?}");
    assert_eq!(me.snapshot(), before, "a dry run writes nothing");
    let run = me.run(&["skill", "sync"]);
    assert_eq!(run.stdout, dry.stdout, "the dry run says what the run does");
    // codex and agents share .agents/skills: one copy there.
    let lines: Vec<&str> = run.stdout.lines().collect();
    assert_eq!(lines.len(), 4, "{run:?}");
    for dir in [".claude/skills", ".agents/skills"] {
        for skill in ["own", "pdf"] {
            assert_eq!(
                me.run(&["skill", "hash", &format!("{dir}/{skill}")]).stdout,
                me.run(&["skill", "hash", &format!("skills/{skill}")])
                    .stdout,
            );
        }
        let mode = std::fs::metadata(me.join(&format!("{dir}/pdf/scripts/run.sh")))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o111, 0o111, "the executable bit is kept");
    }
    let lock: serde_json::Value =
        serde_json::from_str(&me.read_string("vendor-skills-lock.json")).unwrap();
    assert_eq!(
        lock["projections"]
            .as_object()
            .unwrap()
            .keys()
            .collect::<Vec<_>>(),
        [".agents/skills", ".claude/skills"]
    );
    // Nothing to do writes nothing, the lock included.
    let settled = me.snapshot();
    assert_eq!(me.run(&["skill", "sync"]), ok(""));
    assert_eq!(me.snapshot(), settled);
    assert_eq!(me.run(&["skill", "verify"]), ok(""));
}

#[test]
fn changes_are_carried_over_and_hand_edits_are_refused() {
    let (_up, me) = synced_repo();
    want_targets(&me, "claude");
    assert_eq!(me.run(&["skill", "sync"]).code, 0);
    me.write("skills/own/SKILL.md", format!("{OWN}more\n"));
    let verify = me.run(&["skill", "verify"]);
    assert_eq!(
        (verify.code, verify.stdout.as_str()),
        (
            1,
            "projection: .claude/skills/own is stale: skills/own changed since it was placed; run skill sync\n"
        )
    );
    let run = me.run(&["skill", "sync"]);
    assert!(
        run.stdout
            .starts_with("projected: .claude/skills/own (replaced, sha256:"),
        "{run:?}"
    );
    assert_eq!(
        me.read_string(".claude/skills/own/SKILL.md"),
        format!("{OWN}more\n")
    );

    me.write(".claude/skills/pdf/SKILL.md", format!("{PDF}by hand\n"));
    let verify = me.run(&["skill", "verify"]);
    assert_eq!(
        verify.stdout,
        "projection: .claude/skills/pdf was edited (SKILL.md differs); edit skills/pdf instead, then run skill sync --force\n"
    );
    let before = me.snapshot();
    let refused = me.run(&["skill", "sync"]);
    assert_eq!(refused.code, 2);
    assert_eq!(
        refused.stderr,
        "error: .claude/skills/pdf: .claude/skills/pdf/SKILL.md differs from what skill sync placed there; make the change in skills/ instead, or run skill sync --force to replace it\n"
    );
    assert_eq!(me.snapshot(), before, "a refusal writes nothing");
    assert_eq!(me.run(&["skill", "sync", "--force"]).code, 0);
    assert_eq!(me.read_string(".claude/skills/pdf/SKILL.md"), PDF);
    assert_eq!(me.run(&["skill", "verify"]), ok(""));
}

#[test]
fn foreign_skills_in_a_target_are_left_alone_and_identical_ones_claimed() {
    let (_up, me) = synced_repo();
    want_targets(&me, "claude");
    me.write(".claude/skills/theirs/SKILL.md", "not ours\n");
    me.write(".claude/skills/own/SKILL.md", OWN);
    let run = me.run(&["skill", "sync"]);
    assert_run_snapshot!("sync_claims_an_identical_copy", run, me);
    assert_eq!(
        me.read_string(".claude/skills/theirs/SKILL.md"),
        "not ours\n"
    );
    // A foreign skill under the name of one of ours is refused, naming the file.
    let (_up2, other) = synced_repo();
    want_targets(&other, "claude");
    other.write(".claude/skills/pdf/SKILL.md", "someone else's pdf\n");
    let refused = other.run(&["skill", "sync"]);
    assert_run_snapshot!("sync_over_a_foreign_copy", refused, other);
}

#[test]
fn a_missing_skill_is_restored_without_its_source() {
    let (up, me) = synced_repo();
    want_targets(&me, "claude");
    assert_eq!(me.run(&["skill", "sync"]).code, 0);
    let settled = me.snapshot();
    me.remove("skills/pdf");
    let verify = me.run(&["skill", "verify"]);
    assert_eq!(verify.code, 1);
    assert!(
        verify.stdout.starts_with(
            "missing: pdf is imported but its directory is gone; run skill sync to restore it\n"
        ),
        "{verify:?}"
    );
    // The kept base is enough: the source may be gone.
    up.remove("skills");
    let run = me.run(&["skill", "sync"]);
    assert_eq!(run.code, 0, "{run:?}");
    assert!(
        run.stdout.starts_with("restored: skills/pdf at sha256:"),
        "{run:?}"
    );
    assert_eq!(me.snapshot(), settled);
}

#[test]
fn a_row_taken_out_drops_the_skill_and_its_copies() {
    let (_up, me) = synced_repo();
    want_targets(&me, "claude");
    assert_eq!(me.run(&["skill", "sync"]).code, 0);
    let intent = me.read_string("vendor-skills.yaml");
    let without = intent.split("  pdf:").next().unwrap().to_owned();
    me.write("vendor-skills.yaml", &without);
    // Local edits are not dropped silently.
    me.write("skills/pdf/SKILL.md", format!("{PDF}ours\n"));
    let before = me.snapshot();
    let refused = me.run(&["skill", "sync"]);
    assert_eq!(refused.code, 2);
    assert_eq!(
        refused.stderr,
        "error: skills/pdf is no longer in vendor-skills.yaml but holds local edits (SKILL.md differs from its base); put its row back, or run skill sync --force to drop it with them\n"
    );
    assert_eq!(me.snapshot(), before);
    let run = me.run(&["skill", "sync", "--force"]);
    assert_eq!(
        run.stdout,
        "dropped: skills/pdf\nunprojected: .claude/skills/pdf\n"
    );
    assert!(!me.exists("skills/pdf") && !me.exists(".claude/skills/pdf"));
    assert!(me.exists(".claude/skills/own"));
    assert_eq!(me.run(&["skill", "verify"]), ok(""));
}

#[test]
fn a_row_added_by_hand_is_taken_up() {
    let (up, me) = synced_repo();
    up.write(
        "skills/doc/SKILL.md",
        "---\nname: doc\ndescription: Docs.\n---\n",
    );
    let source = up.path().display().to_string();
    let intent = me.read_string("vendor-skills.yaml");
    me.write(
        "vendor-skills.yaml",
        format!("{intent}  doc:\n    source: {source}\n    path: skills/doc\n"),
    );
    let verify = me.run(&["skill", "verify"]);
    assert_eq!(
        verify.stdout,
        "intent: doc is wanted but the lock does not hold it; run skill sync to take it up\n"
    );
    let run = me.run(&["skill", "sync"]);
    assert!(run.stdout.starts_with("taken: doc <- "), "{run:?}");
    assert_eq!(
        me.run(&["skill", "status"]).stdout,
        "doc: clean\npdf: clean\n"
    );
    assert_eq!(me.run(&["skill", "verify"]), ok(""));
}

#[test]
fn a_bad_intent_is_refused_or_warned_with_its_line() {
    let (_up, me) = synced_repo();
    let intent = me.read_string("vendor-skills.yaml");
    me.write("vendor-skills.yaml", format!("targets: [claud]\n{intent}"));
    let refused = me.run(&["skill", "sync"]);
    assert_eq!(refused.code, 2);
    assert!(
        refused.stderr.starts_with(
            "error: vendor-skills.yaml:1: the target \"claud\" names no agent; did you mean claude?"
        ),
        "{refused:?}"
    );
    me.write("vendor-skills.yaml", format!("{intent}    pth: x\n"));
    let warned = me.run(&["skill", "verify"]);
    assert_eq!(
        warned.stderr,
        "warning: vendor-skills.yaml:5: unknown key \"pth\" in skill \"pdf\"; did you mean \"path\"?\n"
    );
    me.write("vendor-skills.yaml", "skills:\n  pdf: [\n");
    let bad = me.run(&["skill", "verify"]);
    assert_eq!(bad.code, 2);
    assert!(
        bad.stderr.starts_with("error: vendor-skills.yaml"),
        "{bad:?}"
    );
}

#[test]
fn verify_names_intent_and_lock_disagreeing() {
    let (up, me) = synced_repo();
    let intent = me.read_string("vendor-skills.yaml");
    me.write(
        "vendor-skills.yaml",
        intent.replace("path: skills/pdf", "path: skills/pdf2"),
    );
    let verify = me.run(&["skill", "verify"]);
    assert_run_snapshot!("verify_of_an_intent_the_lock_does_not_pin", verify, me);
    // sync never moves a pin: it refuses, naming the way, which works.
    let refused = me.run(&["skill", "sync"]);
    assert_run_snapshot!("sync_never_moves_a_pin", refused, me);
    let source = up.path().display().to_string();
    up.write("skills/pdf2/SKILL.md", PDF);
    assert_eq!(me.run(&["skill", "remove", "pdf"]).code, 0);
    let added = me.run(&["skill", "add", &source, "skills/pdf2", "--name", "pdf"]);
    assert_eq!(added.code, 0, "{added:?}");
    assert_eq!(me.run(&["skill", "verify"]), ok(""));
}

#[test]
fn remove_takes_the_row_and_the_copies_too() {
    let (_up, me) = synced_repo();
    want_targets(&me, "claude, copilot");
    assert_eq!(me.run(&["skill", "sync"]).code, 0);
    let removed = me.run(&["skill", "remove", "pdf"]);
    assert_eq!(removed.code, 0, "{removed:?}");
    assert!(!me.exists("skills/pdf"));
    assert!(!me.read_string("vendor-skills.yaml").contains("pdf"));
    let lock = me.read_string("vendor-skills-lock.json");
    assert!(!lock.contains("\"pdf\""), "{lock}");
    for dir in [".claude/skills", ".github/skills"] {
        assert!(!me.exists(&format!("{dir}/pdf")), "{dir}");
        assert!(me.exists(&format!("{dir}/own")), "{dir}");
    }
    assert_eq!(me.run(&["skill", "verify"]), ok(""));
    assert_eq!(me.run(&["skill", "sync"]), ok(""));
}

#[test]
fn list_shows_where_skills_are_mirrored_and_what_an_agent_directory_holds() {
    let (_up, me) = synced_repo();
    want_targets(&me, "claude, codex");
    assert_eq!(me.run(&["skill", "sync"]).code, 0);
    let list = me.run(&["skill", "list"]);
    assert_run_snapshot!("list_of_mirrored_skills", list, me);
    me.write(".claude/skills/theirs/SKILL.md", "---\nname: theirs\n---\n");
    me.write(".claude/skills/pdf/extra.md", "by hand\n");
    let agent = me.run(&["skill", "list", "--target", "claude"]);
    assert_eq!(
        agent.stdout,
        "own: placed by skill sync\npdf: edited since skill sync placed it\ntheirs: not placed by skill sync\n"
    );
    let json = me.run(&["skill", "list", "--target", "claude", "--format", "json"]);
    let first: serde_json::Value =
        serde_json::from_str(json.stdout.lines().next().unwrap()).unwrap();
    assert_eq!(first["kind"], "agent-skill");
    assert_eq!(first["path"], ".claude/skills/own");
    assert_eq!(first["placed"], "sync");
}

#[test]
fn what_stands_in_the_way_of_a_target_is_refused_before_anything_is_written() {
    // An agent directory that is a file.
    let (_up, me) = synced_repo();
    want_targets(&me, "claude");
    me.write(".claude/skills", "not a directory\n");
    let before = me.snapshot();
    let refused = me.run(&["skill", "sync"]);
    assert_eq!(refused.code, 2);
    assert_eq!(
        refused.stderr,
        "error: .claude/skills: is a regular file, not a directory; move it away so skill sync can mirror skills/ there\n"
    );
    assert_eq!(me.snapshot(), before);
    // One that is a link.
    me.remove(".claude/skills");
    me.symlink("/tmp", ".claude/skills");
    let refused = me.run(&["skill", "sync"]);
    assert_run_snapshot!("sync_into_a_linked_agent_directory", refused, me);
    // A wanted skill whose source cannot be reached: named, nothing written.
    let (_up2, other) = synced_repo();
    let intent = other.read_string("vendor-skills.yaml");
    other.write(
        "vendor-skills.yaml",
        format!(
            "targets: [claude]\n{intent}  gone:\n    source: ./nowhere\n    path: skills/gone\n"
        ),
    );
    let before = other.snapshot();
    let refused = other.run(&["skill", "sync"]);
    assert_run_snapshot!("sync_of_an_unreachable_source", refused, other);
    assert_eq!(other.snapshot(), before);
}

/// An imported skill's directory that is a symbolic link gets one verdict from every command,
/// naming the path: verify fails with a finding, status says invalid, and every writer
/// refuses before changing anything — sync no longer takes the skill for gone and deletes
/// its mirrored copies (issue 27 §6).
#[test]
fn a_linked_skill_directory_gets_one_verdict_everywhere() {
    let (_up, me) = synced_repo();
    want_targets(&me, "claude");
    assert_eq!(me.run(&["skill", "sync"]).code, 0);
    // The very files, moved beside the repository's skills and linked back.
    std::fs::rename(me.join("skills/pdf"), me.join("pdf-real")).unwrap();
    me.symlink("../pdf-real", "skills/pdf");
    let said = "skills/pdf is a symbolic link; a skill's directory must be a directory of its own: put the directory itself there (for an imported skill, delete the link and run skill sync to restore it)";
    let before = me.snapshot();

    let verify = me.run(&["skill", "verify"]);
    assert_eq!(
        (verify.code, verify.stdout.as_str(), verify.stderr.as_str()),
        (1, format!("invalid: {said}\n").as_str(), ""),
        "{verify:?}"
    );
    let status = me.run(&["skill", "status"]);
    assert_run_snapshot!("status_of_a_linked_skill_directory", status, me);
    let refused = format!("error: {said}\n");
    for args in [
        &["skill", "sync"][..],
        &["skill", "sync", "--dry-run"],
        &["skill", "sync", "--force"],
        &["skill", "pull"],
        &["skill", "pull", "pdf"],
        &["skill", "pull", "--dry-run", "pdf"],
        &["skill", "remove", "pdf"],
        &["skill", "remove", "pdf", "--force"],
        &["skill", "diff", "pdf"],
        &["skill", "diff", "pdf", "--from", "base", "--to", "upstream"],
        &["skill", "resolve", "pdf"],
    ] {
        let run = me.run(args);
        assert_eq!(
            (run.code, run.stdout.as_str(), run.stderr.as_str()),
            (2, "", refused.as_str()),
            "{args:?}"
        );
        assert_eq!(me.snapshot(), before, "{args:?} changed nothing");
    }
    assert!(me.exists(".claude/skills/pdf/SKILL.md"), "the copy is kept");
    // Put back as a directory, everything is as it was.
    me.remove("skills/pdf");
    std::fs::rename(me.join("pdf-real"), me.join("skills/pdf")).unwrap();
    assert_eq!(me.run(&["skill", "verify"]), ok(""));
}

/// Only what agents can load is mirrored: a skill that breaks the consumer's rules and a
/// directory without a SKILL.md are named and left out (exit 1), the others mirrored; a copy
/// recorded of a skill since deleted is what `skill verify` reports (issue 29 §5).
#[test]
fn sync_mirrors_only_loadable_skills_and_verify_names_copies_of_gone_skills() {
    let (_up, me) = synced_repo();
    want_targets(&me, "claude");
    me.write(
        "skills/broken/SKILL.md",
        "---\nname: broken\n---\nno description\n",
    );
    me.write("skills/notes/README.md", "not a skill\n");
    let out = me.run(&["skill", "sync"]);
    assert_run_snapshot!("sync_mirrors_only_loadable_skills", out, me);
    assert!(me.exists(".claude/skills/pdf/SKILL.md") && me.exists(".claude/skills/own/SKILL.md"));
    assert!(!me.exists(".claude/skills/broken") && !me.exists(".claude/skills/notes"));
    me.remove("skills/broken");
    me.remove("skills/notes");
    assert_eq!(me.run(&["skill", "sync"]).code, 0);

    // An own skill deleted: its copy stays until sync, and verify says so.
    me.remove("skills/own");
    let verify = me.run(&["skill", "verify"]);
    assert_run_snapshot!("verify_names_a_copy_of_a_gone_skill", verify, me);
    assert_eq!(me.run(&["skill", "sync"]).code, 0);
    assert!(!me.exists(".claude/skills/own"));
    assert_eq!(me.run(&["skill", "verify"]).code, 0);
}

/// With targets named, `skill add`, `skill pull` and `skill remove` change the agents'
/// directories in their own transaction: the tree is never left for a sync (issue 29 §5).
#[test]
fn add_pull_and_remove_keep_the_agents_directories_in_step() {
    let up = Repo::empty();
    up.write("skills/pdf/SKILL.md", PDF);
    let me = Repo::empty();
    me.write("vendor-skills.yaml", "targets: [claude, codex]\n");
    let source = up.path().display().to_string();
    let out = me.run(&["skill", "add", &source, "skills/pdf"]);
    assert_eq!(out.code, 0, "{out:?}");
    for dir in [".claude/skills", ".agents/skills"] {
        assert_eq!(me.read_string(&format!("{dir}/pdf/SKILL.md")), PDF);
    }
    assert_eq!(me.run(&["skill", "verify"]).code, 0);

    up.write("skills/pdf/SKILL.md", PDF.replace("# PDF", "# PDF, newer"));
    let out = me.run(&["skill", "pull"]);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(
        me.read_string(".claude/skills/pdf/SKILL.md")
            .contains("newer")
    );
    let verify = me.run(&["skill", "verify"]);
    assert_eq!(verify.code, 0, "{verify:?}");
    // A sync after them finds nothing to do.
    assert_eq!(me.run(&["skill", "sync"]).stdout, "");

    let out = me.run(&["skill", "remove", "pdf"]);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(!me.exists(".claude/skills/pdf") && !me.exists(".agents/skills/pdf"));
    assert_eq!(me.run(&["skill", "verify"]).code, 0);

    // An agent's copy that is not the tool's refuses the add, naming it, and writes nothing.
    me.write(".claude/skills/pdf/SKILL.md", "mine\n");
    let before = me.snapshot();
    let out = me.run(&["skill", "add", &source, "skills/pdf"]);
    assert_run_snapshot!("add_over_a_foreign_agent_copy", out, me);
    assert_eq!(me.snapshot(), before);
}
