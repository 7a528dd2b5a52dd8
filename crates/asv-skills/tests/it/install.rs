//! `skill install`: finding the skills of a directory, a ZIP or a tarball, and placing them
//! all or none.

use std::path::Path;
use std::process::Command;

use asv_archive::{FileEntry, Reason, zip_files};
use asv_error::Failure as _;
use asv_skills::Error;
use asv_skills::install::{InstallOptions, Installed, Scope, Target, find, install};
use asv_skilltree::SkillTree;

use crate::support::{Dir, skill_md};

const INTO: &str = ".claude/skills";

fn names(found: &[asv_skills::install::Found]) -> Vec<&str> {
    found.iter().map(|f| f.name.as_str()).collect()
}

fn install_from(dest: &Dir, input: &Path, force: bool, dry_run: bool) -> Result<Installed, Error> {
    let lock = (!dry_run).then(|| dest.lock());
    let request = InstallOptions {
        into: &[INTO],
        input,
        label: "input",
        force,
        writer: lock.as_ref(),
        signature: None,
        gate: None,
    };
    install(&dest.root, &request)
}

/// An input directory holding the skills `pdf` and `csv` and a sibling that is no skill.
fn two_skills() -> Dir {
    let input = Dir::new();
    input.write("pdf/SKILL.md", &skill_md("pdf"));
    input.write("pdf/scripts/run.sh", "#!/bin/sh\n");
    input.chmod("pdf/scripts/run.sh", 0o755);
    input.write("csv/SKILL.md", &skill_md("csv"));
    input.write("README.md", "two skills\n");
    input
}

fn run(dir: &Path, program: &str, args: &[&str]) {
    let out = Command::new(program)
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{program} {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn a_target_names_its_directory_per_scope() {
    for target in Target::all() {
        assert_eq!(Target::from_name(target.name()), Some(target));
        for scope in [Scope::Project, Scope::User] {
            assert!(target.dir(scope).ends_with("/skills"), "{target:?}");
        }
    }
    assert_eq!(Target::from_name("vim"), None);
    assert_eq!(
        Target::from_name("copilot").unwrap().dir(Scope::Project),
        ".github/skills"
    );
    assert_eq!(
        Target::from_name("copilot").unwrap().dir(Scope::User),
        ".copilot/skills"
    );
}

#[test]
fn find_takes_a_root_skill_whole_or_each_top_level_skill() {
    let input = two_skills();
    let found = find(input.path(), "input").unwrap();
    assert_eq!(names(&found), ["csv", "pdf"]);
    let pdf = &found[1].tree;
    assert_eq!(pdf, &SkillTree::read(&input.root, "pdf").unwrap());
    // A sibling that is no skill is not installed.
    input.write("build/out.txt", "built\n");
    assert_eq!(names(&find(input.path(), "input").unwrap()), ["csv", "pdf"]);
    // A skill directory is read whole, and a link in it is refused.
    std::os::unix::fs::symlink("SKILL.md", input.path().join("pdf/link")).unwrap();
    let e = find(input.path(), "input").unwrap_err();
    assert!(
        matches!(
            e,
            Error::SkillTree(asv_skilltree::Error::Unsupported { .. })
        ),
        "{e:?}"
    );
    // A root SKILL.md makes the whole input one skill, named by its name: field…
    let root = Dir::new();
    root.write("SKILL.md", &skill_md("tool"));
    root.write("sub/SKILL.md", &skill_md("sub"));
    let found = find(root.path(), "input").unwrap();
    assert_eq!(names(&found), ["tool"]);
    assert_eq!(found[0].tree.files().len(), 2);
    // …or, without one, by the input's own name.
    root.write("named/SKILL.md", "---\ndescription: d\n---\n");
    assert_eq!(
        names(&find(&root.path().join("named"), "input").unwrap()),
        ["named"]
    );
}

#[test]
fn inputs_that_hold_no_skill_are_refused_by_name() {
    let input = Dir::new();
    input.write("notes.txt", "hello\n");
    input.write("dir/README.md", "no skill\n");
    input.root.create_dir_all("empty").unwrap();
    std::os::unix::fs::symlink("dir", input.path().join("link")).unwrap();
    run(input.path(), "mkfifo", &["fifo"]);
    type Want = fn(&Error) -> bool;
    let rows: [(&str, Want); 6] = [
        (
            "gone",
            |e| matches!(e, Error::NoInput { input } if input == "label"),
        ),
        ("notes.txt", |e| matches!(e, Error::UnknownInput { .. })),
        ("fifo", |e| matches!(e, Error::UnknownInput { .. })),
        ("link", |e| matches!(e, Error::LinkInput { .. })),
        ("empty", |e| matches!(e, Error::NoSkill { .. })),
        ("dir", |e| matches!(e, Error::NoSkill { .. })),
    ];
    for (name, want) in rows {
        let e = find(&input.path().join(name), "label").unwrap_err();
        assert!(want(&e), "{name}: {e:?}");
        assert_eq!(e.side(), asv_error::Side::Input, "{name}");
    }
}

#[test]
fn a_directory_of_skills_installs_in_one_plan() {
    let input = two_skills();
    let dest = Dir::new();
    dest.write(".claude/settings.json", "{}\n");
    let installed = install_from(&dest, input.path(), false, false).unwrap();
    let skills: Vec<(&str, &str)> = installed
        .skills
        .iter()
        .map(|(n, d, _)| (n.as_str(), d.as_str()))
        .collect();
    assert_eq!(
        skills,
        [("csv", ".claude/skills/csv"), ("pdf", ".claude/skills/pdf")]
    );
    assert!(!installed.dry_run);
    assert!(installed.warnings.is_empty());
    let dests: Vec<&str> = installed.plan.iter().map(|c| c.dest()).collect();
    assert_eq!(dests, [".claude/skills/csv", ".claude/skills/pdf"]);
    for (name, dir, hash) in &installed.skills {
        let placed = SkillTree::read(&dest.root, dir).unwrap();
        assert_eq!(placed, SkillTree::read(&input.root, name).unwrap());
        assert_eq!(&placed.hash(), hash);
    }
    assert!(
        SkillTree::read(&dest.root, ".claude/skills/pdf")
            .unwrap()
            .get("scripts/run.sh")
            .unwrap()
            .executable
    );
    assert_eq!(dest.read(".claude/settings.json"), "{}\n");
    assert!(!dest.exists(".claude/skills/README.md"));
}

#[test]
fn a_zip_and_a_tarball_install_what_a_directory_would_leaving_litter_out() {
    let input = two_skills();
    let want = find(input.path(), "input").unwrap();
    // A ZIP as a Mac writes one, with its resource forks and folder metadata.
    let mut entries: Vec<FileEntry> = Vec::new();
    for skill in &want {
        for f in skill.tree.files() {
            entries.push(FileEntry {
                path: format!("{}/{}", skill.name, f.path),
                bytes: f.data.read().unwrap().into_owned(),
                executable: f.executable,
            });
        }
    }
    for litter in ["__MACOSX/pdf/._SKILL.md", "pdf/.DS_Store", "csv/Thumbs.db"] {
        entries.push(FileEntry {
            path: litter.to_owned(),
            bytes: b"litter".to_vec(),
            executable: false,
        });
    }
    let archives = Dir::new();
    archives
        .root
        .write_file("skills.zip", &zip_files(&entries).unwrap())
        .unwrap();
    // A tarball as `tar` writes one, of the same directory.
    input.write("pdf/.DS_Store", "litter");
    run(
        archives.path(),
        "tar",
        &[
            "czf",
            "skills.tar.gz",
            "-C",
            input.path().to_str().unwrap(),
            "pdf",
            "csv",
        ],
    );
    for archive in ["skills.zip", "skills.tar.gz"] {
        let found = find(&archives.path().join(archive), archive).unwrap();
        assert_eq!(found, want, "{archive}");
        let dest = Dir::new();
        let installed = install_from(&dest, &archives.path().join(archive), false, false).unwrap();
        assert_eq!(installed.skills.len(), 2, "{archive}");
        assert_eq!(
            SkillTree::read(&dest.root, ".claude/skills/pdf").unwrap(),
            want[1].tree,
            "{archive}"
        );
    }
}

#[test]
fn an_archive_the_entry_policy_refuses_installs_nothing() {
    let staging = Dir::new();
    staging.write("pdf/SKILL.md", &skill_md("pdf"));
    std::os::unix::fs::symlink("/etc/passwd", staging.path().join("pdf/secret")).unwrap();
    run(
        staging.path(),
        "zip",
        &["-q", "-r", "-y", "linked.zip", "pdf"],
    );
    let dest = Dir::new();
    let e = install_from(&dest, &staging.path().join("linked.zip"), true, false).unwrap_err();
    match &e {
        Error::Archive(a) => assert_eq!(a.reason(), Some(Reason::Link), "{e}"),
        other => panic!("{other:?}"),
    }
    assert!(dest.snapshot().is_empty());
    // Bytes that are no archive at all are refused as unknown, not guessed at.
    staging.write("fake.zip", "not a zip\n");
    let e = install_from(&dest, &staging.path().join("fake.zip"), false, false).unwrap_err();
    assert!(matches!(e, Error::UnknownInput { .. }), "{e:?}");
}

#[test]
fn one_occupied_destination_refuses_the_whole_install_and_force_replaces() {
    let input = two_skills();
    let dest = Dir::new();
    // `pdf` sorts after `csv`: the refusal must come before `csv` is written.
    dest.write(".claude/skills/pdf/mine.md", "mine\n");
    let before = dest.snapshot();
    let e = install_from(&dest, input.path(), false, false).unwrap_err();
    assert!(
        matches!(&e, Error::AlreadyInstalled { path } if path == ".claude/skills/pdf"),
        "{e:?}"
    );
    assert_eq!(e.side(), asv_error::Side::Destination);
    assert_eq!(dest.snapshot(), before);
    install_from(&dest, input.path(), true, false).unwrap();
    assert!(!dest.exists(".claude/skills/pdf/mine.md"));
    assert_eq!(
        SkillTree::read(&dest.root, ".claude/skills/pdf").unwrap(),
        SkillTree::read(&input.root, "pdf").unwrap()
    );
    assert!(dest.exists(".claude/skills/csv/SKILL.md"));
}

#[test]
fn a_dry_run_plans_and_writes_nothing() {
    let input = two_skills();
    let dest = Dir::new();
    dest.write(".claude/skills/pdf/mine.md", "mine\n");
    let before = dest.snapshot();
    let planned = install_from(&dest, input.path(), true, true).unwrap();
    assert!(planned.dry_run);
    assert_eq!(planned.plan.len(), 2);
    let existing: Vec<Option<asv_fs::EntryKind>> =
        planned.plan.iter().map(|c| c.existing()).collect();
    assert_eq!(existing, [None, Some(asv_fs::EntryKind::Directory)]);
    assert_eq!(dest.snapshot(), before);
    // A dry run refuses what the real install would.
    let e = install_from(&dest, input.path(), false, true).unwrap_err();
    assert!(matches!(e, Error::AlreadyInstalled { .. }), "{e:?}");
}

#[test]
fn a_refused_input_leaves_the_destination_untouched() {
    type Want = fn(&Error) -> bool;
    type Files = Vec<(&'static str, String)>;
    let rows: Vec<(&str, Files, Want)> = vec![
        (
            "one skill breaks the rules",
            vec![
                ("csv/SKILL.md", skill_md("csv")),
                ("pdf/SKILL.md", "---\nname: pdf\n---\n".to_owned()),
            ],
            |e| {
                matches!(e, Error::Invalid { first, .. }
                    if first.rule == asv_skills::Rule::DescriptionMissing
                        && first.path == ".claude/skills/pdf/SKILL.md")
            },
        ),
        (
            "two skills, one name",
            vec![
                ("a/SKILL.md", skill_md("pdf")),
                ("b/SKILL.md", skill_md("pdf")),
            ],
            |e| matches!(e, Error::DuplicateSkill { name, .. } if name == "pdf"),
        ),
        (
            "no usable name in the manifest or the directory",
            vec![("Bad_Dir/SKILL.md", skill_md("Bad_Name"))],
            |e| matches!(e, Error::Unnamed { manifest: Some(name), directory, .. } if name == "Bad_Name" && directory == "Bad_Dir"),
        ),
        (
            "a file Windows cannot write",
            vec![
                ("pdf/SKILL.md", skill_md("pdf")),
                ("pdf/CON", "x".to_owned()),
            ],
            |e| {
                matches!(
                    e,
                    Error::Unwritable { refusal, .. } if refusal.reason().code() == "unsafe-name"
                )
            },
        ),
        (
            "two names one volume folds together",
            vec![
                ("pdf/SKILL.md", skill_md("pdf")),
                ("pdf/Notes.md", "a".to_owned()),
                ("pdf/notes.md", "b".to_owned()),
            ],
            |e| {
                matches!(
                    e,
                    Error::Unwritable { refusal, .. } if refusal.reason().code() == "name-clash"
                )
            },
        ),
    ];
    for (what, files, want) in rows {
        let input = Dir::new();
        for (path, text) in &files {
            input.write(path, text);
        }
        let dest = Dir::new();
        dest.write(".claude/skills/other/SKILL.md", &skill_md("other"));
        let before = dest.snapshot();
        let e = install_from(&dest, input.path(), true, false).unwrap_err();
        assert!(want(&e), "{what}: {e:?}");
        assert_eq!(dest.snapshot(), before, "{what}");
    }
}

#[test]
fn warnings_of_installed_skills_are_returned() {
    let input = Dir::new();
    input.write(
        "SKILL.md",
        "---\nname: pdf\ndescription: d\nfavourite: yes\n---\n",
    );
    let dest = Dir::new();
    let writer = dest.lock();
    let request = InstallOptions {
        into: &["skills/"],
        input: input.path(),
        label: "input",
        force: false,
        writer: Some(&writer),
        signature: None,
        gate: None,
    };
    let installed = install(&dest.root, &request).unwrap();
    drop(writer);
    let rules: Vec<(asv_skills::Rule, &str)> = installed
        .warnings
        .iter()
        .map(|f| (f.rule, f.path.as_str()))
        .collect();
    // Named by its SKILL.md, not by the input directory's temporary name.
    assert_eq!(
        rules,
        [(asv_skills::Rule::UnknownKey, "skills/pdf/SKILL.md")]
    );
    assert!(dest.exists("skills/pdf/SKILL.md"));
}
