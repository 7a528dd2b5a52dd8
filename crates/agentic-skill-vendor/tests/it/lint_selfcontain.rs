//! `lint-selfcontain` on the real binary: text findings, links, order and refusals.
#![allow(clippy::disallowed_methods)]

use crate::common::{Repo, Run};

#[test]
fn the_demo_is_self_contained() {
    let repo = Repo::demo();
    assert_eq!(
        repo.run(&["lint-selfcontain"]),
        Run {
            code: 0,
            stdout: String::new(),
            stderr: String::new()
        }
    );
}

#[test]
fn findings_in_walk_order() {
    let repo = Repo::demo();
    repo.write(
        "skills/style-editor/notes.md",
        "See ../../shared.md and /etc/hosts.\nVisit https://example.com/a/b or ~/x\n",
    );
    repo.write(
        "skills/style-editor/scripts/run.sh",
        "#!/usr/bin/env bash\nexec C:\\tools\\x.exe\n",
    );
    repo.symlink(
        "../../release-notes/SKILL.md",
        "skills/style-editor/scripts/out",
    );
    repo.symlink("../SKILL.md", "skills/style-editor/scripts/in");
    repo.symlink(
        "../nowhere/at/all",
        "skills/style-editor/scripts/dangling-in",
    );
    repo.symlink("/etc/passwd", "skills/release-notes/abs");
    assert_eq!(
        repo.run(&["lint-selfcontain"]),
        Run {
            code: 1,
            stdout: "symlink-escape: skills/release-notes/abs: symlink resolves outside the skill directory\n\
                     parent-escape: skills/style-editor/notes.md:1: reference above the skill directory\n\
                     absolute-path: skills/style-editor/notes.md:1: absolute reference \"/etc/hosts.\"\n\
                     absolute-path: skills/style-editor/notes.md:2: absolute reference \"~/x\"\n\
                     symlink-escape: skills/style-editor/scripts/out: symlink resolves outside the skill directory\n\
                     absolute-path: skills/style-editor/scripts/run.sh:2: absolute reference \"C:\\\\tools\\\\x.exe\"\n"
                .to_owned(),
            stderr: String::new(),
        }
    );
}

#[test]
fn a_linked_skill_directory_is_judged_not_followed() {
    let repo = Repo::demo();
    repo.write("elsewhere/SKILL.md", "/etc/passwd/x\n");
    repo.symlink("../elsewhere", "skills/linked");
    assert_eq!(
        repo.run(&["lint-selfcontain"]).stdout,
        "symlink-escape: skills/linked: symlink resolves outside the skill directory\n"
    );
}

#[test]
fn refusals() {
    let repo = Repo::empty();
    let run = repo.run(&["lint-selfcontain"]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr.starts_with("error: skills/ does not exist"),
        "{run:?}"
    );

    let repo = Repo::demo();
    repo.fifo("skills/style-editor/pipe");
    let run = repo.run(&["lint-selfcontain"]);
    assert_eq!(run.code, 2);
    assert_eq!(run.stdout, "");
    assert!(run.stderr.contains("skills/style-editor/pipe"), "{run:?}");
}
