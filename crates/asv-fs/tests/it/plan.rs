//! Planning tree changes: every action and every refusal as a table, the dry run, keep-if-same,
//! recognised ownership, read-only trees, and hostile copy sources — each refusal writing
//! nothing.
// Tests build and inspect fixtures with std::fs directly; the tree under test is only
// changed through asv_fs.
// A broken fixture is a failed test: helpers panic rather than return errors.

use crate::common;
use common::ApplyLocked as _;

use std::fs;
use std::path::{Path, PathBuf};

use asv_error::{Failure as _, Side};
use asv_fs::{
    Action, Change, Content, Disowned, During, EntryKind, Error, Fill, NewFile, Ownership, Plan,
    Root, Verdict,
};
use common::{Node, chmod, link, put, snapshot};

fn tempdir() -> tempfile::TempDir {
    tempfile::tempdir().unwrap()
}

/// The recogniser of the tests: an entry is the tool's when it holds a `.vendored` marker.
fn marked() -> Ownership {
    Ownership::tool_made(|root, dest, kind| {
        if kind != EntryKind::Directory {
            return Ok(Verdict::NotOurs(Disowned::Kind(kind)));
        }
        Ok(match root.kind(&format!("{dest}/.vendored"))? {
            Some(_) => Verdict::Ours,
            None => Verdict::NotOurs(Disowned::Changed(During::Command)),
        })
    })
}

fn files(list: &[(&str, &str)]) -> Fill {
    Fill::files(list.iter().map(|(p, b)| NewFile::new(*p, *b)).collect())
}

#[test]
fn every_action_as_a_dry_run_then_applied() {
    let dir = tempdir();
    let root_dir = dir.path();
    put(root_dir, "forced/SKILL.md", b"old\n");
    put(root_dir, "forced/sub/x.md", b"x\n");
    fs::create_dir_all(root_dir.join("empty")).unwrap();
    put(root_dir, "ours/.vendored", b"");
    put(root_dir, "ours/a.md", b"a\n");
    put(root_dir, "state/cache.json", b"{}\n");
    put(root_dir, "gone-soon.md", b"bye\n");
    put(root_dir, "same/k.md", b"k\n");
    put(root_dir, "holder/same/k.md", b"k\n");
    put(root_dir, "holder/other.md", b"o\n");
    put(root_dir, "twice.md", b"2\n");
    let root = Root::open(root_dir).unwrap();
    let same = || Content::Files(vec![("k.md".into(), b"k\n".to_vec())]);
    let changes = vec![
        Change::replace(
            "new/skill",
            files(&[("SKILL.md", "new\n")]),
            Ownership::MustBeFree,
        ),
        Change::replace("empty", files(&[("e.md", "e\n")]), Ownership::MustBeFree),
        Change::replace(
            "forced",
            files(&[("SKILL.md", "forced\n")]),
            Ownership::Force,
        ),
        Change::replace(
            "ours",
            files(&[(".vendored", ""), ("b.md", "b\n")]),
            marked(),
        ),
        Change::replace(
            "state",
            files(&[("cache.json", "[]\n")]),
            Ownership::ToolState,
        ),
        Change::remove("gone-soon.md", Ownership::Force),
        Change::remove("never-there", Ownership::Force),
        Change::remove_keep_if_same("same", same(), Ownership::Force),
        Change::remove("holder", Ownership::Force),
        Change::remove_keep_if_same("holder/same", same(), Ownership::Force),
        Change::remove("forced/sub", Ownership::Force),
        Change::remove("twice.md", Ownership::Force),
        Change::remove("twice.md", Ownership::Force),
    ];
    let plan = Plan::new(&root, changes).unwrap();
    let want = "\
replace empty (empty directory)
replace forced (forced)
subsumed forced/sub (inside forced)
remove gone-soon.md (forced)
keep holder (holds the kept holder/same)
keep holder/same (holds the content to keep)
keep never-there (already absent)
create new/skill
replace ours (made by this tool)
keep same (holds the content to keep)
replace state (tool state)
remove twice.md (forced)
subsumed twice.md (also changed by an earlier change)
";
    assert_eq!(plan.describe(), want);
    let actions: Vec<(String, Action, Option<EntryKind>)> = plan
        .changes()
        .map(|c| (c.dest().to_owned(), c.action(), c.existing()))
        .collect();
    assert_eq!(
        actions[0],
        ("empty".into(), Action::Replace, Some(EntryKind::Directory))
    );
    assert_eq!(actions[7], ("new/skill".into(), Action::Create, None));
    assert!(!plan.is_noop());

    let applied = plan.apply_locked().unwrap();
    assert!(applied.warnings().is_empty());
    let after = snapshot(root_dir);
    let bytes = |p: &str| match after.get(p) {
        Some(Node::File { bytes, .. }) => String::from_utf8(bytes.clone()).unwrap(),
        other => panic!("{p}: {other:?}"),
    };
    assert_eq!(bytes("new/skill/SKILL.md"), "new\n");
    assert_eq!(bytes("empty/e.md"), "e\n");
    assert_eq!(bytes("forced/SKILL.md"), "forced\n");
    assert!(!after.contains_key("forced/sub"));
    assert_eq!(bytes("ours/b.md"), "b\n");
    assert!(!after.contains_key("ours/a.md"));
    assert_eq!(bytes("state/cache.json"), "[]\n");
    assert!(!after.contains_key("gone-soon.md") && !after.contains_key("twice.md"));
    assert_eq!(bytes("same/k.md"), "k\n");
    assert_eq!(bytes("holder/other.md"), "o\n");
    assert_eq!(bytes("holder/same/k.md"), "k\n");
}

#[test]
fn the_dry_run_does_not_depend_on_the_order_of_the_changes() {
    let dir = tempdir();
    put(dir.path(), "a-b/x", b"x");
    put(dir.path(), "a/y", b"y");
    let root = Root::open(dir.path()).unwrap();
    let make = || {
        vec![
            Change::remove("a-b", Ownership::Force),
            Change::remove("a/y", Ownership::Force),
            Change::remove("a", Ownership::Force),
            Change::replace("b", files(&[("f", "f")]), Ownership::MustBeFree),
        ]
    };
    let forward = Plan::new(&root, make()).unwrap().describe();
    let mut reversed = make();
    reversed.reverse();
    assert_eq!(Plan::new(&root, reversed).unwrap().describe(), forward);
    // Segment order: `a/y` right after `a`, before `a-b`.
    assert_eq!(
        forward,
        "remove a (forced)\nsubsumed a/y (inside a)\nremove a-b (forced)\ncreate b\n"
    );
    assert_eq!(snapshot(dir.path()).len(), 4, "planning writes nothing");
}

/// A refusal: the plan's changes, the error it must give (checked by the closure) and its
/// message.
struct Refusal {
    name: &'static str,
    changes: Vec<Change>,
    check: fn(&Error) -> bool,
    message: String,
    side: Side,
}

#[test]
fn every_refusal_writes_nothing() {
    let dir = tempdir();
    let root_dir = dir.path().join("root");
    put(&root_dir, "file.md", b"f\n");
    put(&root_dir, "full/x.md", b"x\n");
    put(&root_dir, "foreign/x.md", b"x\n");
    put(&root_dir, "src/inside/a.md", b"a\n");
    link(&root_dir, "link", root_dir.join("full"));
    link(&root_dir, "dir-link", "full");
    let outside = dir.path().join("outside");
    put(&outside, "a.md", b"a\n");
    let root = Root::open(&root_dir).unwrap();
    let src = |p: &str| Fill::copy(root_dir.join(p));
    let rows = vec![
        Refusal {
            name: "a `..` segment",
            changes: vec![Change::remove("full/../file.md", Ownership::Force)],
            check: |e| matches!(e, Error::InvalidDest { .. }),
            message: "full/../file.md: a destination must be a relative path below the root with no empty, `.` or `..` segment; name it from the root with `/` separators".into(),
            side: Side::Input,
        },
        Refusal {
            name: "dest is ..",
            changes: vec![Change::remove("..", Ownership::Force)],
            check: |e| matches!(e, Error::InvalidDest { .. }),
            message: "..: a destination must be a relative path below the root with no empty, `.` or `..` segment; name it from the root with `/` separators".into(),
            side: Side::Input,
        },
        Refusal {
            name: "an absolute dest",
            changes: vec![Change::replace("/etc/x", files(&[("a", "")]), Ownership::Force)],
            check: |e| matches!(e, Error::InvalidDest { .. }),
            message: "/etc/x: a destination must be a relative path below the root with no empty, `.` or `..` segment; name it from the root with `/` separators".into(),
            side: Side::Input,
        },
        Refusal {
            name: "the root itself",
            changes: vec![Change::remove("", Ownership::Force)],
            check: |e| matches!(e, Error::InvalidDest { .. }),
            message: ": a destination must be a relative path below the root with no empty, `.` or `..` segment; name it from the root with `/` separators".into(),
            side: Side::Input,
        },
        Refusal {
            name: "a fill path climbing out",
            changes: vec![Change::replace("new", files(&[("../x", "")]), Ownership::Force)],
            check: |e| matches!(e, Error::InvalidFillPath { .. }),
            message: "new: file ../x of the new content is not a plain relative path or clashes with another file of it; give each file its own path below the destination".into(),
            side: Side::Input,
        },
        Refusal {
            name: "must be free over a file",
            changes: vec![Change::replace("file.md", files(&[("a", "")]), Ownership::MustBeFree)],
            check: |e| matches!(e, Error::DestOccupied { found: EntryKind::File, .. }),
            message: "file.md: a regular file is already there and this change only writes where nothing is; move it aside or remove it".into(),
            side: Side::Destination,
        },
        Refusal {
            name: "must be free over a non-empty directory",
            changes: vec![Change::replace_file("full", "x", Ownership::MustBeFree)],
            check: |e| matches!(e, Error::DestOccupied { found: EntryKind::Directory, .. }),
            message: "full: a directory is already there and this change only writes where nothing is; move it aside or remove it".into(),
            side: Side::Destination,
        },
        Refusal {
            name: "must be free over a link",
            changes: vec![Change::replace("link", files(&[("a", "")]), Ownership::MustBeFree)],
            check: |e| matches!(e, Error::DestOccupied { found: EntryKind::Symlink, .. }),
            message: "link: a symbolic link is already there and this change only writes where nothing is; move it aside or remove it".into(),
            side: Side::Destination,
        },
        Refusal {
            name: "not the tool's",
            changes: vec![Change::replace("foreign", files(&[("a", "")]), marked())],
            check: |e| matches!(e, Error::NotOwned { .. }),
            message: "foreign: not written by this tool (it changed while the command ran; run it again); move it aside or remove it if it may go".into(),
            side: Side::Destination,
        },
        Refusal {
            name: "a remove not the tool's",
            changes: vec![Change::remove("file.md", marked())],
            check: |e| matches!(e, Error::NotOwned { .. }),
            message: "file.md: not written by this tool (it is a regular file now); move it aside or remove it if it may go".into(),
            side: Side::Destination,
        },
        Refusal {
            name: "two replaces of one dest",
            changes: vec![
                Change::replace("new", files(&[("a", "")]), Ownership::Force),
                Change::replace("new", files(&[("b", "")]), Ownership::Force),
            ],
            check: |e| matches!(e, Error::DestsOverlap { .. }),
            message: "new is changed twice by one run; keep one of the two changes".into(),
            side: Side::Input,
        },
        Refusal {
            name: "a replace inside a replace",
            changes: vec![
                Change::replace("full/inner", files(&[("a", "")]), Ownership::Force),
                Change::replace("full", files(&[("b", "")]), Ownership::Force),
            ],
            check: |e| matches!(e, Error::DestsOverlap { .. }),
            message: "full/inner lies inside full and both are changed by one run; give each change its own destination".into(),
            side: Side::Input,
        },
        Refusal {
            name: "a replace inside a remove",
            changes: vec![
                Change::remove("full", Ownership::Force),
                Change::replace_file("full/x.md", "y", Ownership::Force),
            ],
            check: |e| matches!(e, Error::DestsOverlap { .. }),
            message: "full/x.md lies inside full and both are changed by one run; give each change its own destination".into(),
            side: Side::Input,
        },
        Refusal {
            name: "a replace inside a kept remove",
            changes: vec![
                Change::remove_keep_if_same(
                    "full",
                    Content::Files(vec![("x.md".into(), b"x\n".to_vec())]),
                    Ownership::Force,
                ),
                Change::replace_file("full/y.md", "y", Ownership::Force),
            ],
            check: |e| matches!(e, Error::DestsOverlap { .. }),
            message: "full/y.md lies inside full and both are changed by one run; give each change its own destination".into(),
            side: Side::Input,
        },
        Refusal {
            name: "the dest holds the source",
            changes: vec![Change::replace("src", src("src/inside"), Ownership::Force)],
            check: |e| matches!(e, Error::DestHoldsCopySource { .. }),
            message: format!(
                "src: the destination holds its own copy source {}; copy from outside the destination",
                root_dir.join("src/inside").display()
            ),
            side: Side::Input,
        },
        Refusal {
            name: "the dest is the source",
            changes: vec![Change::replace("src", src("src"), Ownership::Force)],
            check: |e| matches!(e, Error::DestHoldsCopySource { .. }),
            message: format!(
                "src: the destination holds its own copy source {}; copy from outside the destination",
                root_dir.join("src").display()
            ),
            side: Side::Input,
        },
        Refusal {
            name: "the source holds the dest",
            changes: vec![Change::replace("src/inside/deeper", src("src"), Ownership::Force)],
            check: |e| matches!(e, Error::CopySourceHoldsDest { .. }),
            message: format!(
                "src/inside/deeper: the destination lies inside its copy source {}; copy from a directory that does not hold the destination",
                root_dir.join("src").display()
            ),
            side: Side::Input,
        },
        Refusal {
            name: "the source is the root",
            changes: vec![Change::replace("new", Fill::copy(&root_dir), Ownership::Force)],
            check: |e| matches!(e, Error::CopySourceLink { .. } | Error::CopySourceHoldsDest { .. }),
            // The root holds links, refused first.
            message: format!(
                "copy source {}: dir-link is a symbolic link; replace it with the file or directory it points to",
                root_dir.display()
            ),
            side: Side::Input,
        },
        Refusal {
            name: "a link on the way to the dest",
            changes: vec![Change::replace("dir-link/new", files(&[("a", "")]), Ownership::Force)],
            check: |e| matches!(e, Error::Symlink { .. }),
            message: "symlink is not allowed inside the tree: dir-link".into(),
            side: Side::Input,
        },
        Refusal {
            name: "a file on the way to the dest",
            changes: vec![Change::replace("file.md/new", files(&[("a", "")]), Ownership::Force)],
            check: |e| matches!(e, Error::WrongKind { .. }),
            message: "file.md is a regular file where a directory belongs; move it aside or replace it".into(),
            side: Side::Input,
        },
        Refusal {
            name: "a refusal after an acceptable change",
            changes: vec![
                Change::replace("aaa", Fill::copy(&outside), Ownership::MustBeFree),
                Change::replace("file.md", files(&[("a", "")]), Ownership::MustBeFree),
            ],
            check: |e| matches!(e, Error::DestOccupied { .. }),
            message: "file.md: a regular file is already there and this change only writes where nothing is; move it aside or remove it".into(),
            side: Side::Destination,
        },
    ];
    let before = snapshot(dir.path());
    for row in rows {
        let error = Plan::new(&root, row.changes).unwrap_err();
        assert!((row.check)(&error), "{}: {error:?}", row.name);
        assert_eq!(error.to_string(), row.message, "{}", row.name);
        assert_eq!(error.side(), row.side, "{}", row.name);
        assert_eq!(error.is_input(), row.side == Side::Input, "{}", row.name);
        assert_eq!(
            snapshot(dir.path()),
            before,
            "{}: nothing written",
            row.name
        );
    }
}

#[test]
fn keep_if_same_compares_bytes_and_file_sets() {
    let dir = tempdir();
    let root_dir = dir.path();
    put(root_dir, "file.md", b"same\n");
    put(root_dir, "dir/a.md", b"a\n");
    put(root_dir, "dir/sub/b.md", b"b\n");
    put(root_dir, "linked/a.md", b"a\n");
    link(root_dir, "linked/b.md", "a.md");
    let root = Root::open(root_dir).unwrap();
    let dir_content = |extra: Option<(&str, &str)>| {
        let mut list = vec![
            ("sub/b.md".to_owned(), b"b\n".to_vec()),
            ("a.md".to_owned(), b"a\n".to_vec()),
        ];
        if let Some((p, b)) = extra {
            list.push((p.to_owned(), b.as_bytes().to_vec()));
        }
        Content::Files(list)
    };
    let rows: Vec<(&str, &str, Content, Action)> = vec![
        (
            "same bytes",
            "file.md",
            Content::File(b"same\n".to_vec()),
            Action::Keep,
        ),
        (
            "other bytes",
            "file.md",
            Content::File(b"other\n".to_vec()),
            Action::Remove,
        ),
        (
            "a file compared with a tree",
            "file.md",
            dir_content(None),
            Action::Remove,
        ),
        ("same tree", "dir", dir_content(None), Action::Keep),
        (
            "a missing file",
            "dir",
            dir_content(Some(("c.md", "c"))),
            Action::Remove,
        ),
        (
            "an extra file",
            "dir",
            Content::Files(vec![("a.md".into(), b"a\n".to_vec())]),
            Action::Remove,
        ),
        (
            "a changed file",
            "dir",
            Content::Files(vec![
                ("a.md".into(), b"A\n".to_vec()),
                ("sub/b.md".into(), b"b\n".to_vec()),
            ]),
            Action::Remove,
        ),
        (
            "a link inside",
            "linked",
            Content::Files(vec![
                ("a.md".into(), b"a\n".to_vec()),
                ("b.md".into(), b"a\n".to_vec()),
            ]),
            Action::Remove,
        ),
        (
            "a tree compared with a file",
            "dir",
            Content::File(b"a\n".to_vec()),
            Action::Remove,
        ),
    ];
    for (name, dest, content, want) in rows {
        let plan = Plan::new(
            &root,
            vec![Change::remove_keep_if_same(dest, content, Ownership::Force)],
        )
        .unwrap();
        let got = plan.changes().next().unwrap().action();
        assert_eq!(got, want, "{name}");
        assert_eq!(plan.is_noop(), want == Action::Keep, "{name}");
    }
}

#[test]
fn the_recogniser_sees_the_entry_and_decides() {
    let dir = tempdir();
    let root_dir = dir.path();
    put(root_dir, "ours/.vendored", b"");
    put(root_dir, "ours/a.md", b"a\n");
    put(root_dir, "theirs/a.md", b"a\n");
    let root = Root::open(root_dir).unwrap();
    let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let seen_by = seen.clone();
    let ownership = Ownership::tool_made(move |root, dest, kind| {
        seen_by.lock().unwrap().push((dest.to_owned(), kind));
        Ok(match root.read_file(&format!("{dest}/.vendored"))? {
            Some(_) => Verdict::Ours,
            None => Verdict::NotOurs(Disowned::Changed(During::Command)),
        })
    });
    // Nothing there: created without asking.
    let plan = Plan::new(
        &root,
        vec![Change::replace(
            "fresh",
            files(&[("a", "")]),
            ownership.clone(),
        )],
    )
    .unwrap();
    assert_eq!(plan.describe(), "create fresh\n");
    assert!(seen.lock().unwrap().is_empty());
    // Ours: replaced.
    let plan = Plan::new(
        &root,
        vec![Change::replace(
            "ours",
            files(&[(".vendored", ""), ("b", "")]),
            ownership.clone(),
        )],
    )
    .unwrap();
    assert_eq!(plan.describe(), "replace ours (made by this tool)\n");
    assert_eq!(
        seen.lock().unwrap().as_slice(),
        &[("ours".to_owned(), EntryKind::Directory)]
    );
    plan.apply_locked().unwrap();
    assert_eq!(root.read_file("ours/a.md").unwrap(), None);
    assert_eq!(root.read_file("ours/b").unwrap().as_deref(), Some(&b""[..]));
    // Theirs: refused, with the recogniser's reason.
    let error = Plan::new(&root, vec![Change::remove("theirs", ownership.clone())]).unwrap_err();
    assert_eq!(
        error.to_string(),
        "theirs: not written by this tool (it changed while the command ran; run it again); move it aside or remove it if it may go"
    );
    // A recogniser's own failure is the plan's failure.
    let failing =
        Ownership::tool_made(|root, _, _| root.read_dir("ours/.vendored").map(|_| Verdict::Ours));
    let error = Plan::new(&root, vec![Change::remove("theirs", failing)]).unwrap_err();
    assert!(matches!(error, Error::WrongKind { .. }), "{error}");
    assert_eq!(
        root.read_file("theirs/a.md").unwrap().as_deref(),
        Some(&b"a\n"[..])
    );
}

#[test]
fn read_only_trees_are_replaced_and_removed() {
    let dir = tempdir();
    let root_dir = dir.path();
    for top in ["ro-remove", "ro-replace"] {
        put(root_dir, &format!("{top}/a.md"), b"a\n");
        put(root_dir, &format!("{top}/deep/er/b.md"), b"b\n");
        chmod(root_dir, &format!("{top}/a.md"), 0o444);
        chmod(root_dir, &format!("{top}/deep/er/b.md"), 0o400);
        chmod(root_dir, &format!("{top}/deep/er"), 0o500);
        chmod(root_dir, &format!("{top}/deep"), 0o555);
        chmod(root_dir, top, 0o555);
    }
    let root = Root::open(root_dir).unwrap();
    let plan = Plan::new(
        &root,
        vec![
            Change::remove("ro-remove", Ownership::Force),
            Change::replace("ro-replace", files(&[("new.md", "n\n")]), Ownership::Force),
        ],
    )
    .unwrap();
    let applied = plan.apply_locked().unwrap();
    assert!(applied.warnings().is_empty(), "{:?}", applied.warnings());
    let after = snapshot(root_dir);
    assert_eq!(
        after.keys().cloned().collect::<Vec<_>>(),
        ["ro-replace", "ro-replace/new.md"]
    );
}

#[test]
fn a_write_callback_fills_the_staged_directory_and_its_failure_rolls_back() {
    let dir = tempdir();
    let root_dir = dir.path();
    put(root_dir, "skill/old.md", b"old\n");
    put(root_dir, "other.md", b"o\n");
    let root = Root::open(root_dir).unwrap();
    let before = snapshot(root_dir);
    let plan = Plan::new(
        &root,
        vec![
            Change::replace_file("other.md", "changed\n", Ownership::Force),
            Change::replace(
                "skill",
                Fill::with(|staged| {
                    staged.write_file("new.md", b"new\n")?;
                    Err(Error::Symlink {
                        path: "pretend".into(),
                    })
                }),
                Ownership::Force,
            ),
        ],
    )
    .unwrap();
    let error = plan.apply_locked().unwrap_err();
    assert!(
        matches!(error, Error::Symlink { ref path } if path == "pretend"),
        "{error}"
    );
    assert_eq!(snapshot(root_dir), before);

    let plan = Plan::new(
        &root,
        vec![Change::replace(
            "skill",
            Fill::with(|staged| staged.write_file("deep/new.md", b"new\n")),
            Ownership::Force,
        )],
    )
    .unwrap();
    plan.apply_locked().unwrap();
    assert_eq!(
        root.read_file("skill/deep/new.md").unwrap().as_deref(),
        Some(&b"new\n"[..])
    );
    assert_eq!(root.kind("skill/old.md").unwrap(), None);
}

#[test]
fn a_destination_changed_since_planning_stops_the_apply() {
    let dir = tempdir();
    let root_dir = dir.path();
    put(root_dir, "a.md", b"a\n");
    let root = Root::open(root_dir).unwrap();
    let plan = Plan::new(
        &root,
        vec![
            Change::replace_file("a.md", "A\n", Ownership::Force),
            Change::replace("b", files(&[("x", "x")]), Ownership::MustBeFree),
        ],
    )
    .unwrap();
    put(root_dir, "b/foreign.md", b"mine\n");
    let before = snapshot(root_dir);
    let error = plan.apply_locked().unwrap_err();
    assert_eq!(
        error.to_string(),
        "b: changed since the change was planned (expected nothing, found a directory); run again"
    );
    assert_eq!(error.side(), Side::Destination);
    assert_eq!(snapshot(root_dir), before);

    // An empty directory a must-be-free change was to replace filled up in the meantime.
    fs::create_dir(root_dir.join("empty")).unwrap();
    let plan = Plan::new(
        &root,
        vec![Change::replace(
            "empty",
            files(&[("x", "x")]),
            Ownership::MustBeFree,
        )],
    )
    .unwrap();
    assert_eq!(plan.describe(), "replace empty (empty directory)\n");
    put(root_dir, "empty/foreign.md", b"mine\n");
    let before = snapshot(root_dir);
    let error = plan.apply_locked().unwrap_err();
    assert!(matches!(error, Error::DestOccupied { .. }), "{error}");
    assert_eq!(snapshot(root_dir), before);
}

#[test]
fn copies_keep_file_modes_and_open_directories_to_their_owner() {
    let dir = tempdir();
    let source = dir.path().join("source");
    put(&source, "run.sh", b"#!/bin/sh\n");
    chmod(&source, "run.sh", 0o750);
    put(&source, "ro/a.md", b"a\n");
    chmod(&source, "ro/a.md", 0o440);
    chmod(&source, "ro", 0o555);
    let root_dir = dir.path().join("root");
    fs::create_dir(&root_dir).unwrap();
    let root = Root::open(&root_dir).unwrap();
    Plan::new(
        &root,
        vec![Change::replace(
            "copy",
            Fill::copy(&source),
            Ownership::MustBeFree,
        )],
    )
    .unwrap()
    .apply_locked()
    .unwrap();
    let after = snapshot(&root_dir);
    let mode = |p: &str| match &after[p] {
        Node::File { mode, .. } | Node::Dir { mode } => *mode,
        other => panic!("{other:?}"),
    };
    assert_eq!(mode("copy/run.sh"), 0o750);
    assert_eq!(mode("copy/ro/a.md"), 0o440);
    assert_eq!(mode("copy/ro"), 0o755);
    common::make_writable(&source);
}

/// One hostile copy source: how to build it under `dir` (the tree is at `dir/root`), and the
/// error expected (or `None`: accepted, with the relative paths the copy must hold).
struct Hostile {
    name: &'static str,
    build: fn(&Path) -> PathBuf,
    refused: Option<fn(&Error) -> bool>,
    holds: &'static [&'static str],
    needs_non_root: bool,
}

fn hostile_rows() -> Vec<Hostile> {
    fn base(dir: &Path) -> PathBuf {
        let source = dir.join("source");
        put(&source, "SKILL.md", b"skill\n");
        put(&source, "sub/a.md", b"a\n");
        source
    }
    vec![
        Hostile {
            name: "a link out of the tree",
            build: |dir| {
                let source = base(dir);
                put(dir, "secret.txt", b"secret\n");
                link(&source, "sub/out", dir.join("secret.txt"));
                source
            },
            refused: Some(|e| matches!(e, Error::CopySourceLink { path, .. } if path == "sub/out")),
            holds: &[],
            needs_non_root: false,
        },
        Hostile {
            name: "a link into the tree",
            build: |dir| {
                let source = base(dir);
                link(&source, "in", dir.join("root"));
                source
            },
            refused: Some(|e| matches!(e, Error::CopySourceLink { path, .. } if path == "in")),
            holds: &[],
            needs_non_root: false,
        },
        Hostile {
            name: "a dangling link",
            build: |dir| {
                let source = base(dir);
                link(&source, "dangling", "nowhere/at/all");
                source
            },
            refused: Some(
                |e| matches!(e, Error::CopySourceLink { path, .. } if path == "dangling"),
            ),
            holds: &[],
            needs_non_root: false,
        },
        Hostile {
            name: "a link loop",
            build: |dir| {
                let source = base(dir);
                link(&source, "loop1", "loop2");
                link(&source, "loop2", "loop1");
                source
            },
            refused: Some(|e| matches!(e, Error::CopySourceLink { path, .. } if path == "loop1")),
            holds: &[],
            needs_non_root: false,
        },
        Hostile {
            name: "the root an alias (a link to a directory)",
            build: |dir| {
                let source = base(dir);
                link(dir, "alias", &source);
                dir.join("alias")
            },
            refused: Some(|e| matches!(e, Error::CopySourceLink { path, .. } if path.is_empty())),
            holds: &[],
            needs_non_root: false,
        },
        Hostile {
            name: "a named pipe",
            build: |dir| {
                let source = base(dir);
                rustix::fs::mknodat(
                    rustix::fs::CWD,
                    source.join("sub/pipe"),
                    rustix::fs::FileType::Fifo,
                    rustix::fs::Mode::from_raw_mode(0o644),
                    0,
                )
                .unwrap();
                source
            },
            refused: Some(
                |e| matches!(e, Error::CopySourceWrongKind { path, found: EntryKind::Fifo, .. } if path == "sub/pipe"),
            ),
            holds: &[],
            needs_non_root: false,
        },
        Hostile {
            name: "a socket",
            build: |dir| {
                let source = base(dir);
                let listener = std::os::unix::net::UnixListener::bind(source.join("sock")).unwrap();
                drop(listener);
                source
            },
            refused: Some(|e| {
                matches!(
                    e,
                    Error::CopySourceWrongKind {
                        found: EntryKind::Socket,
                        ..
                    }
                )
            }),
            holds: &[],
            needs_non_root: false,
        },
        Hostile {
            name: "a missing source",
            build: |dir| dir.join("no-such-source"),
            refused: Some(|e| {
                matches!(e, Error::CopySourceUnreadable { path, error, .. }
                    if path.is_empty() && error.kind() == std::io::ErrorKind::NotFound)
            }),
            holds: &[],
            needs_non_root: false,
        },
        Hostile {
            name: "an unreadable directory",
            build: |dir| {
                let source = base(dir);
                put(&source, "locked/x.md", b"x\n");
                chmod(&source, "locked", 0o000);
                source
            },
            refused: Some(
                |e| matches!(e, Error::CopySourceUnreadable { path, .. } if path == "locked"),
            ),
            holds: &[],
            needs_non_root: true,
        },
        Hostile {
            name: "an unreadable file",
            build: |dir| {
                let source = base(dir);
                put(&source, "sub/secret.md", b"x\n");
                chmod(&source, "sub/secret.md", 0o000);
                source
            },
            refused: Some(
                |e| matches!(e, Error::CopySourceUnreadable { path, .. } if path == "sub/secret.md"),
            ),
            holds: &[],
            needs_non_root: true,
        },
        Hostile {
            name: "a 200-character name",
            build: |dir| {
                let source = base(dir);
                put(&source, &"n".repeat(200), b"long\n");
                source
            },
            refused: None,
            holds: &["SKILL.md", LONG_NAME, "sub/a.md"],
            needs_non_root: false,
        },
        Hostile {
            name: "names made of dots",
            build: |dir| {
                let source = base(dir);
                put(&source, "..foo", b"1\n");
                put(&source, ".../x", b"2\n");
                source
            },
            refused: None,
            holds: &["...", ".../x", "..foo", "SKILL.md", "sub/a.md"],
            needs_non_root: false,
        },
    ]
}

const LONG_NAME: &str = "nnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnn";

#[test]
fn hostile_copy_sources() {
    assert_eq!(LONG_NAME.len(), 200);
    for row in hostile_rows() {
        if row.needs_non_root && common::is_root() {
            // Root reads a mode-000 entry anyway; nothing to refuse.
            continue;
        }
        let dir = tempdir();
        let root_dir = dir.path().join("root");
        put(&root_dir, "skills/keep.md", b"keep\n");
        put(&root_dir, "skills/x/old.md", b"old\n");
        let source = (row.build)(dir.path());
        let root = Root::open(&root_dir).unwrap();
        let before = snapshot(&root_dir);
        let outcome = Plan::new(
            &root,
            vec![Change::replace(
                "skills/x",
                Fill::copy(&source),
                Ownership::Force,
            )],
        );
        match row.refused {
            Some(check) => {
                let error = outcome.unwrap_err();
                assert!(check(&error), "{}: {error:?}", row.name);
                assert_eq!(error.side(), Side::Input, "{}", row.name);
                let message = error.to_string();
                assert!(
                    message.starts_with(&format!("copy source {}: ", source.display())),
                    "{}: {message}",
                    row.name
                );
                assert!(!message.contains('\n'), "{}: {message}", row.name);
                assert_eq!(snapshot(&root_dir), before, "{}: nothing written", row.name);
            }
            None => {
                outcome.unwrap().apply_locked().unwrap();
                let after = snapshot(&root_dir);
                let mut copied: Vec<&str> = after
                    .keys()
                    .filter_map(|p| p.strip_prefix("skills/x/"))
                    .collect();
                copied.retain(|p| *p != "sub");
                copied.sort();
                assert_eq!(copied, row.holds, "{}", row.name);
            }
        }
        common::make_writable(dir.path());
    }
}

#[test]
fn the_hostile_messages() {
    let dir = tempdir();
    let source = dir.path().join("source");
    put(&source, "a.md", b"a\n");
    link(&source, "out", "/etc/passwd");
    rustix::fs::mknodat(
        rustix::fs::CWD,
        source.join("pipe"),
        rustix::fs::FileType::Fifo,
        rustix::fs::Mode::from_raw_mode(0o644),
        0,
    )
    .unwrap();
    link(dir.path(), "alias", &source);
    let root_dir = dir.path().join("root");
    fs::create_dir(&root_dir).unwrap();
    let root = Root::open(&root_dir).unwrap();
    let shown = source.display();
    let error = Plan::new(
        &root,
        vec![Change::replace("x", Fill::copy(&source), Ownership::Force)],
    )
    .unwrap_err();
    // Names in order: `a.md`, `out`, `pipe`: the link is met first.
    assert_eq!(
        error.to_string(),
        format!(
            "copy source {shown}: out is a symbolic link; replace it with the file or directory it points to"
        )
    );
    fs::remove_file(source.join("out")).unwrap();
    let error = Plan::new(
        &root,
        vec![Change::replace("x", Fill::copy(&source), Ownership::Force)],
    )
    .unwrap_err();
    assert_eq!(
        error.to_string(),
        format!(
            "copy source {shown}: pipe is a named pipe, which cannot be copied; remove it from the source"
        )
    );
    let alias = dir.path().join("alias");
    let error = Plan::new(
        &root,
        vec![Change::replace("x", Fill::copy(&alias), Ownership::Force)],
    )
    .unwrap_err();
    assert_eq!(
        error.to_string(),
        format!(
            "copy source {}: the source itself is a symbolic link; replace it with the file or directory it points to",
            alias.display()
        )
    );
    let missing = dir.path().join("missing");
    let error = Plan::new(
        &root,
        vec![Change::replace("x", Fill::copy(&missing), Ownership::Force)],
    )
    .unwrap_err();
    assert_eq!(
        error.to_string(),
        format!(
            "copy source {}: cannot read the source itself; make it readable by the user running the tool",
            missing.display()
        )
    );
    assert!(std::error::Error::source(&error).is_some());
    assert_eq!(
        fs::read_dir(&root_dir).unwrap().count(),
        0,
        "nothing written"
    );
}

#[test]
fn residue_is_recognised_in_a_listing() {
    // A staged entry left by an interrupted process is skipped by a listing that asks.
    let dir = tempdir();
    let root_dir = dir.path();
    put(root_dir, "skills/a/SKILL.md", b"a\n");
    put(
        root_dir,
        "skills/.a.asv-staged-0123456789ab/SKILL.md",
        b"half\n",
    );
    put(
        root_dir,
        "skills/.a.asv-staged-ba9876543210.previous/SKILL.md",
        b"old\n",
    );
    let root = Root::open(root_dir).unwrap();
    let listing = root.read_dir("skills").unwrap().unwrap();
    let kept: Vec<&str> = listing
        .iter()
        .map(|e| e.name.as_str())
        .filter(|n| !asv_fs::is_tree_change_residue(n))
        .collect();
    assert_eq!(kept, ["a"]);
    let parked: Vec<&str> = listing
        .iter()
        .map(|e| e.name.as_str())
        .filter(|n| asv_fs::is_parked_tree_entry(n))
        .collect();
    assert_eq!(parked, [".a.asv-staged-ba9876543210.previous"]);
}

/// A copy of a tree file is made in chunks and checked against the length and SHA-256 the
/// command read: the same bytes land, a source changed since is refused and the plan rolls
/// back (issue 15 §3).
#[test]
fn copies_of_tree_files_are_checked_against_what_was_read() {
    use sha2::Digest as _;
    let dir = tempdir();
    let root = Root::open(dir.path()).unwrap();
    // Over two chunks, so the hash and the copy span several reads.
    let bytes: Vec<u8> = (0..150_000u32).map(|i| (i % 253) as u8).collect();
    root.write_file("src/big.bin", &bytes).unwrap();
    root.write_file("out/old.bin", b"old\n").unwrap();
    root.write_file("dir/keep", b"keep\n").unwrap();
    let read = asv_fs::TreeFile {
        path: "src/big.bin".into(),
        len: bytes.len() as u64,
        sha256: sha2::Sha256::digest(&bytes).into(),
    };
    let changes = |source: asv_fs::TreeFile| {
        vec![
            Change::replace(
                "dir",
                Fill::files(vec![NewFile::copy_of("a/big.bin", source.clone())]),
                Ownership::Force,
            ),
            Change::replace_file_copy("out/old.bin", source, Ownership::Force),
        ]
    };
    // The bytes read are not the bytes there: nothing changes.
    let mut stale = read.clone();
    stale.sha256[0] ^= 1;
    let err = Plan::new(&root, changes(stale))
        .unwrap()
        .apply_locked()
        .unwrap_err();
    assert!(
        matches!(&err, Error::ChangedWhileRead { path } if path == "src/big.bin"),
        "{err}"
    );
    assert_eq!(
        err.to_string(),
        "src/big.bin: changed while it was read; run again once nothing else is writing it"
    );
    assert_eq!(root.read_file("out/old.bin").unwrap().unwrap(), b"old\n");
    assert_eq!(root.read_file("dir/keep").unwrap().unwrap(), b"keep\n");
    let mut longer = read.clone();
    longer.len += 1;
    assert!(matches!(
        Plan::new(&root, changes(longer)).unwrap().apply_locked(),
        Err(Error::ChangedWhileRead { .. })
    ));
    // As read: copied byte for byte.
    Plan::new(&root, changes(read))
        .unwrap()
        .apply_locked()
        .unwrap();
    assert_eq!(root.read_file("out/old.bin").unwrap().unwrap(), bytes);
    assert_eq!(root.read_file("dir/a/big.bin").unwrap().unwrap(), bytes);
    assert_eq!(root.kind("dir/keep").unwrap(), None);
}

/// A file given as a link of a tree file is that very file when it is still as read (same
/// length and executable bit): nothing is copied, the inode is shared. Otherwise it is copied
/// and checked as a copy is, so a file changed since it was read is refused.
#[cfg(unix)]
#[test]
fn links_of_tree_files_share_the_file_or_fall_back_to_a_checked_copy() {
    use sha2::Digest as _;
    use std::os::unix::fs::MetadataExt;
    let dir = tempdir();
    let root = Root::open(dir.path()).unwrap();
    let bytes = b"unchanged\n".to_vec();
    root.write_file("old/same.txt", &bytes).unwrap();
    let read = asv_fs::TreeFile {
        path: "old/same.txt".into(),
        len: bytes.len() as u64,
        sha256: sha2::Sha256::digest(&bytes).into(),
    };
    let ino = |rel: &str| {
        std::fs::symlink_metadata(dir.path().join(rel))
            .unwrap()
            .ino()
    };
    let fill = |source: asv_fs::TreeFile, executable: bool| {
        Fill::files(vec![NewFile {
            path: "same.txt".into(),
            body: asv_fs::Body::Link {
                path: source.path.clone(),
                len: source.len,
                fallback: Box::new(asv_fs::Body::Copy(source)),
            },
            executable,
        }])
    };
    Plan::new(
        &root,
        vec![Change::replace(
            "new",
            fill(read.clone(), false),
            Ownership::Force,
        )],
    )
    .unwrap()
    .apply_locked()
    .unwrap();
    assert_eq!(ino("new/same.txt"), ino("old/same.txt"));
    // Another executable bit: a copy, made executable.
    Plan::new(
        &root,
        vec![Change::replace(
            "exec",
            fill(read.clone(), true),
            Ownership::Force,
        )],
    )
    .unwrap()
    .apply_locked()
    .unwrap();
    assert_ne!(ino("exec/same.txt"), ino("old/same.txt"));
    assert_eq!(root.read_file("exec/same.txt").unwrap().unwrap(), bytes);
    assert!(
        std::fs::metadata(dir.path().join("exec/same.txt"))
            .unwrap()
            .mode()
            & 0o100
            != 0
    );
    // Changed since it was read: refused, nothing placed.
    root.write_file("old/same.txt", b"edited meanwhile\n")
        .unwrap();
    let err = Plan::new(
        &root,
        vec![Change::replace("late", fill(read, false), Ownership::Force)],
    )
    .unwrap()
    .apply_locked()
    .unwrap_err();
    assert!(matches!(err, Error::ChangedWhileRead { .. }), "{err}");
    assert_eq!(root.kind("late").unwrap(), None);
}

#[test]
fn a_capped_read_refuses_past_its_limit_before_reading() {
    let dir = tempdir();
    let root = Root::open(dir.path()).unwrap();
    root.write_file("small", b"12345").unwrap();
    assert_eq!(
        root.read_file_capped("small", 5, "a test takes")
            .unwrap()
            .unwrap(),
        b"12345"
    );
    let err = root
        .read_file_capped("small", 4, "a test takes")
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "small: 5 bytes, over the 4 bytes a test takes; make it smaller"
    );
    assert_eq!(err.side(), Side::Input);
    assert_eq!(
        root.read_file_capped("none", 4, "a test takes").unwrap(),
        None
    );
}
