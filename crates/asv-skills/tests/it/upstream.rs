//! Where a skill comes from: sources as typed, paths in them, taking a skill from a local
//! directory or a local git repository, and the kept bases.

use asv_remote::Options;
use asv_skills::Error;
use asv_skills::bases::{base_dir, keep_base, kept_base};
use asv_skills::error::SourceProblem;
use asv_skills::upstream::{At, Source, check_source_path, take};
use asv_skilltree::{FileNode, PathProblem, SkillTree};

use crate::support::{Dir, GitRepo, skill_md};

#[test]
fn sources_as_typed() {
    for local in [".", "..", "/abs/dir", "./rel", "../up"] {
        assert_eq!(
            Source::parse(local).unwrap(),
            Source::Local(local.to_owned()),
            "{local}"
        );
    }
    for remote in ["owner/repo", "https://example.com/skills.git"] {
        let source = Source::parse(remote).unwrap();
        assert!(matches!(source, Source::Remote(_)), "{remote}");
        assert_eq!(source.as_str(), remote);
    }
    // A bare relative directory is not taken for one: it must start with ./ to be local.
    for bad in ["http://example.com/x.git", "rel/dir/x", "file:///tmp/x"] {
        let e = Source::parse(bad).unwrap_err();
        assert!(
            matches!(&e, Error::Repository { given, problem: SourceProblem::Unaccepted(_) } if given == bad),
            "{bad}: {e:?}"
        );
    }
}

#[test]
fn paths_in_a_source() {
    let ok: &[(&str, &str)] = &[
        (".", "."),
        ("", "."),
        ("./", "."),
        ("skills/pdf", "skills/pdf"),
        ("skills/pdf/", "skills/pdf"),
    ];
    for (given, want) in ok {
        assert_eq!(check_source_path(given).unwrap(), *want, "{given:?}");
    }
    let bad: &[(&str, PathProblem)] = &[
        ("../x", PathProblem::DotSegment),
        ("skills/../../x", PathProblem::DotSegment),
        ("/etc", PathProblem::Absolute),
        ("a//b", PathProblem::EmptySegment),
        ("a\\b", PathProblem::Backslash),
    ];
    for (given, want) in bad {
        let e = check_source_path(given).unwrap_err();
        assert!(
            matches!(&e, Error::PathEscapes { problem, .. } if problem == want),
            "{given:?}: {e:?}"
        );
    }
}

#[test]
fn a_local_directory_is_taken_as_it_stands() {
    let up = Dir::new();
    up.write("skills/pdf/SKILL.md", &skill_md("pdf"));
    up.write("skills/pdf/.DS_Store", "junk");
    up.write("skills/pdf/sub/Thumbs.db", "junk");
    up.write("skills/pdf/ref/guide.md", "guide\n");
    up.chmod("skills/pdf/ref/guide.md", 0o755);
    up.write("skills/file", "not a directory\n");
    let me = Dir::new();
    let source = Source::Local(up.source());
    let taken = take(
        &me.root,
        &source,
        "skills/pdf",
        At::Now,
        &Options::default(),
    )
    .unwrap();
    let paths: Vec<(&str, bool)> = taken
        .tree
        .files()
        .iter()
        .map(|f| (f.path.as_str(), f.executable))
        .collect();
    assert_eq!(paths, [("SKILL.md", false), ("ref/guide.md", true)]);
    assert_eq!(taken.revision, taken.tree.hash());
    assert_eq!(taken.reference, None);
    // Nothing was written into the repository taking it.
    assert!(me.snapshot().is_empty());

    let refused =
        |path: &str| take(&me.root, &source, path, At::Now, &Options::default()).unwrap_err();
    assert!(matches!(refused("skills/none"), Error::NotInSource { .. }));
    assert!(matches!(
        refused("skills/file"),
        Error::Fs(asv_fs::Error::WrongKind { .. })
    ));
    std::os::unix::fs::symlink("SKILL.md", up.path().join("skills/pdf/link.md")).unwrap();
    assert!(matches!(
        refused("skills/pdf"),
        Error::SkillTree(asv_skilltree::Error::Unsupported { .. })
    ));
    std::os::unix::fs::symlink("pdf", up.path().join("skills/alias")).unwrap();
    assert!(matches!(
        refused("skills/alias"),
        Error::Fs(asv_fs::Error::Symlink { .. })
    ));
    let gone = Source::Local(format!("{}/gone", up.source()));
    let e = take(&me.root, &gone, ".", At::Now, &Options::default()).unwrap_err();
    assert!(
        matches!(
            e,
            Error::Repository {
                problem: SourceProblem::NoSuchDirectory,
                ..
            }
        ),
        "{e:?}"
    );
}

#[test]
fn a_relative_local_directory_is_read_from_the_repository_root() {
    let top = Dir::new();
    top.write("upstream/skills/pdf/SKILL.md", &skill_md("pdf"));
    top.root.create_dir_all("me").unwrap();
    let me = asv_fs::Root::open(top.path().join("me")).unwrap();
    let taken = take(
        &me,
        &Source::parse("../upstream").unwrap(),
        "skills/pdf",
        At::Now,
        &Options::default(),
    )
    .unwrap();
    assert_eq!(taken.tree.files().len(), 1);
}

#[test]
fn a_local_git_repository_is_read_at_a_commit_never_from_its_work_tree() {
    let up = GitRepo::new();
    up.dir.write("skills/pdf/SKILL.md", &skill_md("pdf"));
    up.dir.write("skills/pdf/run.sh", "#!/bin/sh\n");
    up.dir.chmod("skills/pdf/run.sh", 0o755);
    up.dir.write("skills/pdf/.DS_Store", "junk");
    let first = up.commit("first");
    up.dir
        .edit("skills/pdf/SKILL.md", "one", "ONE (uncommitted)");
    up.dir.write("skills/pdf/new.md", "uncommitted\n");
    let me = Dir::new();
    let source = Source::Local(up.dir.source());
    let taken = take(
        &me.root,
        &source,
        "skills/pdf",
        At::Ref("main"),
        &Options::default(),
    )
    .unwrap();
    assert_eq!(taken.revision, first);
    assert_eq!(taken.reference.as_deref(), Some("main"));
    let expected = SkillTree::from_files(vec![
        FileNode {
            path: "SKILL.md".to_owned(),
            data: skill_md("pdf").into(),
            executable: false,
        },
        FileNode {
            path: "run.sh".to_owned(),
            data: b"#!/bin/sh\n".into(),
            executable: true,
        },
    ])
    .unwrap();
    assert_eq!(taken.tree, expected);
    // The same commit named by its id reads the same tree.
    let again = take(
        &me.root,
        &source,
        "skills/pdf",
        At::Revision(&first),
        &Options::default(),
    )
    .unwrap();
    assert_eq!((again.tree, again.reference), (expected, None));
    let e = take(
        &me.root,
        &source,
        "skills/none",
        At::Ref("main"),
        &Options::default(),
    )
    .unwrap_err();
    assert!(
        matches!(&e, Error::NotInSource { revision, .. } if *revision == first),
        "{e:?}"
    );
}

#[test]
fn a_link_committed_in_a_git_source_is_refused_by_name() {
    let up = GitRepo::new();
    up.dir.write("skills/pdf/SKILL.md", &skill_md("pdf"));
    std::os::unix::fs::symlink("/etc/passwd", up.dir.path().join("skills/pdf/secret")).unwrap();
    up.commit("link");
    let me = Dir::new();
    let e = take(
        &me.root,
        &Source::Local(up.dir.source()),
        "skills/pdf",
        At::Ref("main"),
        &Options::default(),
    )
    .unwrap_err();
    assert!(
        matches!(&e, Error::UnsupportedEntry { path, what: "a symbolic link", .. } if path == "skills/pdf/secret"),
        "{e:?}"
    );
}

#[test]
fn a_ref_of_a_plain_directory_is_refused() {
    let up = Dir::new();
    up.write("skills/pdf/SKILL.md", &skill_md("pdf"));
    let me = Dir::new();
    let e = take(
        &me.root,
        &Source::Local(up.source()),
        "skills/pdf",
        At::Ref("main"),
        &Options::default(),
    )
    .unwrap_err();
    assert!(
        matches!(&e, Error::RefWithoutRepository { given } if *given == up.source()),
        "{e:?}"
    );
}

#[test]
fn kept_bases_are_trusted_only_while_they_hash_as_named() {
    let me = Dir::new();
    let tree = SkillTree::from_files(vec![
        FileNode {
            path: "SKILL.md".to_owned(),
            data: skill_md("pdf").into(),
            executable: false,
        },
        FileNode {
            path: "bin/run".to_owned(),
            data: b"#!/bin/sh\n".into(),
            executable: true,
        },
    ])
    .unwrap();
    let hash = tree.hash();
    assert_eq!(kept_base(&me.root, &hash).unwrap(), None);
    keep_base(&me.lock(), &tree).unwrap();
    let dir = base_dir(&hash);
    assert_eq!(
        dir,
        format!(
            ".agentic-skill-vendor/skill-bases/{}",
            hash.trim_start_matches("sha256:")
        )
    );
    assert_eq!(kept_base(&me.root, &hash).unwrap(), Some(tree.clone()));
    // Keeping it again changes nothing.
    let before = me.snapshot();
    keep_base(&me.lock(), &tree).unwrap();
    assert_eq!(me.snapshot(), before);
    // An edit, or an entry a read would skip, and it is no longer that base.
    me.write(&format!("{dir}/.DS_Store"), "junk");
    assert_eq!(kept_base(&me.root, &hash).unwrap(), None);
    me.root.remove_file(&format!("{dir}/.DS_Store")).unwrap();
    assert!(kept_base(&me.root, &hash).unwrap().is_some());
    me.chmod(&format!("{dir}/bin/run"), 0o644);
    assert_eq!(kept_base(&me.root, &hash).unwrap(), None);
    // Keeping it again restores it whole.
    keep_base(&me.lock(), &tree).unwrap();
    assert_eq!(kept_base(&me.root, &hash).unwrap(), Some(tree));
}
