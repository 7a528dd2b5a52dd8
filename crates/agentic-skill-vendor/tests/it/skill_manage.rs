//! `skill remove`, `skill outdated` and `skill list` on the real binary, with a local
//! directory and a real local git repository as upstreams.
#![allow(clippy::disallowed_methods)]

use std::process::Command;

use crate::common::{Repo, assert_run_snapshot, git, short_ids, skill_md};

const PDF: &str = "---\nname: pdf\ndescription: Reads PDF files.\n---\n# PDF\n\none\ntwo\nthree\n";

/// An upstream directory holding `skills/pdf` and `skills/doc`, and a repository that took
/// both, with a skill of its own beside them.
fn imported() -> (Repo, Repo) {
    let up = Repo::empty();
    up.write("skills/pdf/SKILL.md", PDF);
    up.write("skills/doc/SKILL.md", skill_md("doc", &[]));
    let me = Repo::empty();
    let source = up.path().display().to_string();
    for path in ["skills/pdf", "skills/doc"] {
        let out = me.run(&["skill", "add", &source, path]);
        assert_eq!(out.code, 0, "{out:?}");
    }
    me.write("skills/mine/SKILL.md", skill_md("mine", &[]));
    (up, me)
}

#[test]
fn remove_refusals_leave_the_tree_byte_identical() {
    let (_up, me) = imported();
    me.write("skills/pdf/SKILL.md", PDF.replace("one\n", "one (ours)\n"));
    me.write("skills/pdf/notes.md", "mine\n");
    let before = me.snapshot();
    let edited = me.run(&["skill", "remove", "doc", "pdf"]);
    assert_run_snapshot!("remove_local_edits", edited, me);
    assert_eq!(me.snapshot(), before);
    let own = me.run(&["skill", "remove", "mine"]);
    assert_run_snapshot!("remove_own_skill", own, me);
    assert_eq!(me.snapshot(), before);
    let unknown = me.run(&["skill", "remove", "nope", "--format", "json"]);
    assert_run_snapshot!("remove_unknown_name", unknown, me);
    assert_eq!(me.snapshot(), before);
    let none = me.run(&["skill", "remove"]);
    assert_eq!(none.code, 2, "{none:?}");
    assert_eq!(me.snapshot(), before);

    // --force removes both in one run; the skill of the repository's own stays
    let forced = me.run(&["skill", "remove", "doc", "pdf", "--force"]);
    assert_run_snapshot!("remove_forced", forced, me);
    assert!(!me.exists("skills/pdf") && !me.exists("skills/doc"));
    assert!(me.exists("skills/mine/SKILL.md"));
    assert_eq!(
        me.read_string("vendor-skills-lock.json"),
        "{\n  \"version\": 1,\n  \"skills\": {}\n}\n"
    );
    let bases = me.join(".agentic-skill-vendor/skill-bases");
    assert_eq!(std::fs::read_dir(bases).map(|d| d.count()).unwrap_or(0), 0);
}

#[test]
fn remove_of_a_clean_skill_needs_no_force() {
    let (_up, me) = imported();
    let out = me.run(&["skill", "remove", "pdf"]);
    assert_eq!(
        (out.code, out.stdout.as_str(), out.stderr.as_str()),
        (0, "removed: pdf (skills/pdf)\n", "")
    );
    assert!(!me.exists("skills/pdf") && me.exists("skills/doc/SKILL.md"));
    let status = me.run(&["skill", "status"]);
    assert_eq!(status.stdout, "doc: clean\n");
}

#[test]
fn outdated_says_which_refs_moved_and_exits_1() {
    // A local git repository followed at main, and a local directory read as it stands.
    let git_up = Repo::empty();
    git(git_up.path(), &["init", "-q", "-b", "main"]);
    git_up.write("skills/pdf/SKILL.md", PDF);
    git(git_up.path(), &["add", "-A"]);
    git(git_up.path(), &["commit", "-qm", "one"]);
    let first = git(git_up.path(), &["rev-parse", "HEAD"]);
    let dir_up = Repo::empty();
    dir_up.write("skills/doc/SKILL.md", skill_md("doc", &[]));
    let me = Repo::empty();
    let git_source = git_up.path().display().to_string();
    let dir_source = dir_up.path().display().to_string();
    let added = me.run(&["skill", "add", &git_source, "skills/pdf", "--ref", "main"]);
    assert_eq!(added.code, 0, "{added:?}");
    assert_eq!(me.run(&["skill", "add", &dir_source, "skills/doc"]).code, 0);
    let before = me.snapshot();

    let none = me.run(&["skill", "outdated"]);
    assert_eq!(
        (none.code, none.stdout.as_str(), none.stderr.as_str()),
        (0, "", "")
    );

    // an edit not committed is not what main names
    git_up.write("skills/pdf/SKILL.md", PDF.replace("two", "TWO"));
    assert_eq!(me.run(&["skill", "outdated"]).code, 0);
    git(git_up.path(), &["commit", "-qam", "two"]);
    let second = git(git_up.path(), &["rev-parse", "HEAD"]);
    let moved = me.run(&["skill", "outdated"]);
    assert_eq!(
        (moved.code, moved.stdout.as_str(), moved.stderr.as_str()),
        (
            1,
            short_ids(&format!("pdf: {first} -> {second} (main)\n")).as_str(),
            ""
        )
    );
    let json = me.run(&["skill", "outdated", "--format", "json"]);
    assert_eq!(json.code, 1);
    assert_eq!(
        json.stdout,
        format!(
            "{{\"kind\":\"outdated\",\"path\":\"skills/pdf\",\"id\":null,\"line\":null,\"message\":\"{first} -> {second} (main)\",\"name\":\"pdf\",\"locked\":\"{first}\",\"now\":\"{second}\",\"ref\":\"main\"}}\n"
        )
    );

    // the local directory moves when its files do; names narrow the check
    dir_up.write("skills/doc/more.md", "more\n");
    let both = me.run(&["skill", "outdated"]);
    assert_run_snapshot!("outdated_of_a_directory_and_a_git_source", both, me);
    let only = me.run(&["skill", "outdated", "pdf"]);
    assert_eq!(only.stdout.lines().count(), 1, "{only:?}");
    let mine = me.run(&["skill", "outdated", "nope"]);
    assert_run_snapshot!("outdated_of_an_unknown_name", mine, me);

    // outdated writes nothing, whatever it finds
    assert_eq!(me.snapshot(), before);
    // and a pull brings the pin to what outdated named
    assert_eq!(me.run(&["skill", "pull", "pdf"]).code, 0);
    assert_eq!(me.run(&["skill", "outdated", "pdf"]).code, 0);
}

#[test]
fn list_shows_every_skill_own_and_imported() {
    let (_up, me) = imported();
    me.write("skills/pdf/SKILL.md", PDF.replace("one\n", "one (ours)\n"));
    me.write("skills/broken/SKILL.md", "---\nname: other\n---\n");
    me.remove("skills/doc");
    let before = me.snapshot();
    let text = me.run(&["skill", "list"]);
    assert_run_snapshot!("list_text", text, me);
    let json = me.run(&["skill", "list", "--format", "json"]);
    assert_run_snapshot!("list_json", json, me);
    assert_eq!(me.snapshot(), before);
    // an empty repository lists nothing
    let empty = Repo::empty();
    let out = empty.run(&["skill", "list"]);
    assert_eq!((out.code, out.stdout.as_str()), (0, ""));
}

/// Clears the immutable attribute under a directory when dropped, so a failing test still
/// leaves a temporary directory that can be removed.
struct Mutable(std::path::PathBuf);

impl Drop for Mutable {
    fn drop(&mut self) {
        let _ = Command::new("chattr")
            .arg("-R")
            .arg("-i")
            .arg(&self.0)
            .status();
    }
}

/// Sets or clears the immutable attribute of `path`; false where it cannot be set (not root,
/// no `chattr`, a file system without it).
fn immutable(path: &std::path::Path, on: bool) -> bool {
    Command::new("chattr")
        .arg(if on { "+i" } else { "-i" })
        .arg(path)
        .output()
        .is_ok_and(|out| out.status.success())
}

/// A parked previous entry that cannot be removed after the change is told on stderr, naming
/// the path and saying the next command that writes removes it — and that command does
/// (issue 27 §6). An immutable file (`chattr +i`, which stops root too) inside the removed
/// skill makes the removal of the parked directory fail; where that cannot be set the test
/// says so and passes.
#[test]
fn a_parked_entry_left_behind_is_told_and_removed_by_the_next_writer() {
    let (_up, me) = imported();
    let _guard = Mutable(me.path().to_owned());
    if !immutable(&me.join("skills/pdf/SKILL.md"), true) {
        eprintln!("skipped: chattr +i is not available here");
        return;
    }
    let out = me.run(&["skill", "remove", "pdf"]);
    assert_eq!(
        (out.code, out.stdout.as_str()),
        (0, "removed: pdf (skills/pdf)\n"),
        "{out:?}"
    );
    let parked: Vec<String> = std::fs::read_dir(me.join("skills"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n != "doc" && n != "mine")
        .collect();
    assert_eq!(parked.len(), 1, "{parked:?}");
    let parked = format!("skills/{}", parked[0]);
    // Fragments, not a snapshot: the parked name carries a suffix made afresh each run, and
    // the reason in parentheses is the operating system's own words.
    let lines: Vec<&str> = out.stderr.lines().collect();
    assert_eq!(lines.len(), 1, "{out:?}");
    assert!(
        lines[0].starts_with(&format!(
            "warning: {parked}: the previous skills/pdf could not be removed after the change ("
        )) && lines[0].ends_with("; the next command that writes removes it"),
        "{out:?}"
    );
    assert!(!me.exists("skills/pdf"));
    assert_eq!(me.run(&["skill", "status"]).stdout, "doc: clean\n");
    // Once it can be removed, the next writer does, and says what it finished.
    assert!(immutable(&me.join(&format!("{parked}/SKILL.md")), false));
    let next = me.run(&["skill", "remove", "doc"]);
    assert_eq!(next.code, 0, "{next:?}");
    assert!(!me.exists(&parked), "{next:?}");
    // The same parked name again, so a fragment here too.
    assert!(next.stderr.contains("finished the clean-up of"), "{next:?}");
}
