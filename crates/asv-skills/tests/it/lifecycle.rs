//! `skill add`, `status`, `pull`, `resolve` and `diff` through the library, with a local
//! directory or a local git repository as the upstream.

use asv_error::Failure as _;
use asv_remote::Options;
use asv_skills::Error;
use asv_skills::add::{self, AddRequest, Added, Pin};
use asv_skills::bases::{base_digests, base_dir, kept_base};
use asv_skills::diff::{self, Version};
use asv_skills::lock::SkillLock;
use asv_skills::pull::{self, Pulled};
use asv_skills::resolve::{self, has_conflict_markers};
use asv_skills::status::{self, State};
use asv_skilltree::SkillTree;

use crate::support::{Dir, GitRepo, skill_md};

const MD: &str = "skills/pdf/SKILL.md";

fn request(up: &Dir, path: &str) -> AddRequest {
    AddRequest {
        repository: up.source(),
        path: path.to_owned(),
        name: None,
        reference: None,
        working_tree: false,
        signed_by: None,
    }
}

/// An upstream directory holding `skills/pdf`, and a repository that took it.
fn imported() -> (Dir, Dir, Added) {
    let up = Dir::new();
    up.write(MD, &skill_md("pdf"));
    up.write("skills/pdf/scripts/run.sh", "#!/bin/sh\necho run\n");
    let me = Dir::new();
    let added = add::add(&me.lock(), &request(&up, "skills/pdf"), &Options::default()).unwrap();
    (up, me, added)
}

fn status_of(me: &Dir) -> Vec<(String, State)> {
    status::status(&me.root)
        .unwrap()
        .into_iter()
        .map(|s| (s.name, s.state))
        .collect()
}

fn state(me: &Dir) -> State {
    let mut all = status_of(me);
    assert_eq!(all.len(), 1, "{all:?}");
    all.remove(0).1
}

fn pull(me: &Dir, write_conflicts: bool) -> Result<Vec<Pulled>, Error> {
    let writer = me.lock();
    let request = pull::PullOptions {
        write_conflicts,
        writer: Some(&writer),
        ..Default::default()
    };
    pull::pull(&writer, &request, &Options::default())
}

fn lock(me: &Dir) -> SkillLock {
    SkillLock::load(&me.root).unwrap()
}

#[test]
fn add_from_a_local_directory_places_records_and_keeps_the_base() {
    let (up, me, added) = imported();
    let placed = SkillTree::read(&me.root, "skills/pdf").unwrap();
    assert_eq!(placed, SkillTree::read(&up.root, "skills/pdf").unwrap());
    assert_eq!(added.name, "pdf");
    assert_eq!(added.source, up.source());
    assert_eq!(added.hash, placed.hash());
    // A directory read as it stands has no commit: it is pinned to its tree hash.
    assert_eq!(added.pin, Pin::Tree(placed.hash()));
    assert!(added.warnings.is_empty(), "{:?}", added.warnings);
    let entry = lock(&me).entry("pdf").unwrap().clone();
    assert_eq!(entry.source, up.source());
    assert_eq!(entry.path, "skills/pdf");
    assert_eq!(entry.reference, None);
    assert_eq!(entry.revision, placed.hash());
    assert_eq!(entry.base_hash, placed.hash());
    assert_eq!(entry.pending, None);
    assert_eq!(kept_base(&me.root, &placed.hash()).unwrap(), Some(placed));
    assert_eq!(state(&me), State::Clean);
}

#[test]
fn add_names_the_skill_by_its_path_or_for_the_root_by_the_source() {
    let up = Dir::new();
    up.write("deep/nested/tool/SKILL.md", &skill_md("tool"));
    up.write("pdf/SKILL.md", &skill_md("pdf"));
    let me = Dir::new();
    let added = add::add(
        &me.lock(),
        &request(&up, "deep/nested/tool/"),
        &Options::default(),
    )
    .unwrap();
    assert_eq!(added.name, "tool");
    assert_eq!(lock(&me).entry("tool").unwrap().path, "deep/nested/tool");
    // `.` takes the source's root, named by the source's last segment.
    let root = AddRequest {
        repository: format!("{}/pdf/", up.source()),
        path: ".".to_owned(),
        ..AddRequest::default()
    };
    let added = add::add(&me.lock(), &root, &Options::default()).unwrap();
    assert_eq!(added.name, "pdf");
    assert_eq!(me.read(MD), skill_md("pdf"));
}

#[test]
fn add_refusals_write_nothing() {
    let up = Dir::new();
    up.write(MD, &skill_md("pdf"));
    up.write("skills/odd/SKILL.md", "---\nname: odd\n---\nBody\n");
    up.write("skills/empty/.DS_Store", "junk");
    let me = Dir::new();
    me.write("skills/taken/keep.md", "mine\n");
    let named = |path: &str, name: &str| AddRequest {
        name: Some(name.to_owned()),
        ..request(&up, path)
    };
    type Want = fn(&Error) -> bool;
    let rows: Vec<(&str, AddRequest, Want)> = vec![
        (
            "bad name",
            named("skills/pdf", "PDF"),
            |e| matches!(e, Error::BadName { name, .. } if name == "PDF"),
        ),
        ("escaping path", request(&up, "../x"), |e| {
            matches!(e, Error::PathEscapes { .. })
        }),
        (
            "nothing there",
            request(&up, "skills/none"),
            |e| matches!(e, Error::NotInSource { path, .. } if path == "skills/none"),
        ),
        ("only skipped files", request(&up, "skills/empty"), |e| {
            matches!(e, Error::NotInSource { .. })
        }),
        ("breaks the rules", request(&up, "skills/odd"), |e| {
            matches!(e, Error::Invalid { first, more: 0, remedy: asv_skills::error::Remedy::FixUpstream }
                if first.rule == asv_skills::Rule::DescriptionMissing
                    && first.path == "skills/odd/SKILL.md")
        }),
        (
            "occupied",
            named("skills/pdf", "taken"),
            |e| matches!(e, Error::Occupied { path } if path == "skills/taken"),
        ),
        (
            "a ref of a plain directory",
            AddRequest {
                reference: Some("main".to_owned()),
                ..request(&up, "skills/pdf")
            },
            |e| matches!(e, Error::RefWithoutRepository { .. }),
        ),
        (
            "no such source",
            AddRequest {
                repository: format!("{}/gone", up.source()),
                ..request(&up, "skills/pdf")
            },
            |e| matches!(e, Error::Repository { .. }),
        ),
    ];
    let before = me.snapshot();
    for (what, req, want) in rows {
        let e = add::add(&me.lock(), &req, &Options::default()).unwrap_err();
        assert!(want(&e), "{what}: {e:?}");
        assert_eq!(me.snapshot(), before, "{what}: wrote something");
    }
    // A second add of an imported name is refused, and writes nothing.
    add::add(&me.lock(), &request(&up, "skills/pdf"), &Options::default()).unwrap();
    let before = me.snapshot();
    let e = add::add(&me.lock(), &request(&up, "skills/pdf"), &Options::default()).unwrap_err();
    assert!(
        matches!(&e, Error::AlreadyImported { name } if name == "pdf"),
        "{e:?}"
    );
    assert_eq!(me.snapshot(), before);
}

#[test]
fn add_with_a_name_edits_only_the_name_line_and_pulls_keep_it() {
    let up = Dir::new();
    up.write(MD, &skill_md("pdf").replace('\n', "\r\n"));
    let me = Dir::new();
    let req = AddRequest {
        name: Some("reader".to_owned()),
        ..request(&up, "skills/pdf")
    };
    let added = add::add(&me.lock(), &req, &Options::default()).unwrap();
    assert_eq!(added.name, "reader");
    // The line ending of the file is kept; nothing else changes.
    assert_eq!(
        me.read("skills/reader/SKILL.md"),
        skill_md("pdf")
            .replacen("name: pdf", "name: reader", 1)
            .replace('\n', "\r\n")
    );
    // The base is upstream's; the rename is the tool's own edit, not the user's: the copy is
    // clean, and every pull puts the rename back over what it merged.
    assert_eq!(
        lock(&me).entry("reader").unwrap().base_hash,
        SkillTree::read(&up.root, "skills/pdf").unwrap().hash()
    );
    assert_eq!(state(&me), State::Clean);
    up.edit(MD, "eight", "EIGHT");
    let pulled = pull(&me, false).unwrap();
    assert!(
        matches!(
            &pulled[..],
            [Pulled::Updated {
                kept_local: false,
                ..
            }]
        ),
        "{pulled:?}"
    );
    assert_eq!(state(&me), State::Clean);
    let text = me.read("skills/reader/SKILL.md");
    assert!(
        text.contains("name: reader\r\n") && text.contains("EIGHT\r\n"),
        "{text:?}"
    );
}

#[test]
fn a_name_the_skill_md_cannot_take_is_refused() {
    let up = Dir::new();
    up.write(
        MD,
        "---\nname: >-\n  pdf\ndescription: Reads PDF files.\n---\n",
    );
    let me = Dir::new();
    let req = AddRequest {
        name: Some("reader".to_owned()),
        ..request(&up, "skills/pdf")
    };
    let e = add::add(&me.lock(), &req, &Options::default()).unwrap_err();
    assert!(
        matches!(&e, Error::Rename { name } if name == "reader"),
        "{e:?}"
    );
    assert!(me.snapshot().is_empty());
}

#[test]
fn status_follows_the_local_copy() {
    let (_up, me, _) = imported();
    assert_eq!(state(&me), State::Clean);
    me.edit(MD, "one", "ONE");
    assert_eq!(state(&me), State::Modified);
    // Editing it back is clean again: state is by content, not by time.
    me.edit(MD, "ONE", "one");
    assert_eq!(state(&me), State::Clean);
    // An import is judged by the consumer's rules: a name that differs from its directory is
    // a warning, a name that is no text an error.
    me.edit(MD, "name: pdf", "name: other");
    assert_eq!(state(&me), State::Modified);
    me.edit(MD, "name: other", "name: 7");
    match state(&me) {
        State::Invalid(why) => {
            assert_eq!(
                why.to_string(),
                "skills/pdf/SKILL.md: name is a number, expected text"
            );
            assert!(
                matches!(&why, asv_skills::status::Invalid::Breaks(f) if f.rule == asv_skills::Rule::NameType),
                "{why:?}"
            );
        }
        other => panic!("{other:?}"),
    }
    std::os::unix::fs::symlink("SKILL.md", me.path().join("skills/pdf/link.md")).unwrap();
    assert!(matches!(
        state(&me),
        State::Invalid(asv_skills::status::Invalid::Unreadable(_))
    ));
    me.root.remove_all("skills/pdf").unwrap();
    assert_eq!(state(&me), State::Missing);
}

#[test]
fn a_pull_with_nothing_new_upstream_is_up_to_date_and_writes_nothing() {
    let (up, me, added) = imported();
    // A file beside the skill changes the source, not the skill.
    up.write("README.md", "elsewhere\n");
    me.edit(MD, "two", "TWO");
    let before = me.snapshot();
    let pulled = pull(&me, false).unwrap();
    assert_eq!(
        pulled,
        [Pulled::UpToDate {
            name: "pdf".to_owned(),
            revision: added.hash
        }]
    );
    assert_eq!(me.snapshot(), before);
}

#[test]
fn a_pull_merges_upstream_and_keeps_local_edits() {
    let (up, me, added) = imported();
    me.edit(MD, "one\n", "ONE (ours)\n");
    up.edit(MD, "seven\n", "SEVEN (theirs)\n");
    up.write("skills/pdf/references/new.md", "added upstream\n");
    up.root.remove_file("skills/pdf/scripts/run.sh").unwrap();
    let upstream = SkillTree::read(&up.root, "skills/pdf").unwrap();
    let pulled = pull(&me, false).unwrap();
    assert_eq!(
        pulled,
        [Pulled::Updated {
            name: "pdf".to_owned(),
            from: added.hash.clone(),
            to: upstream.hash(),
            kept_local: true,
            lost_base: None,
            warnings: vec![],
            capabilities: pulled[0].capabilities().cloned(),
        }]
    );
    // The update removed a script and added a page: what the skill can do only shrank.
    let caps = pulled[0].capabilities().unwrap();
    assert_eq!(caps.files.added, ["references/new.md"]);
    assert_eq!(caps.files.removed, ["scripts/run.sh"]);
    assert!(!pulled[0].widens(), "{caps:?}");
    assert_eq!(
        me.read(MD),
        skill_md("pdf")
            .replace("one\n", "ONE (ours)\n")
            .replace("seven\n", "SEVEN (theirs)\n")
    );
    assert_eq!(me.read("skills/pdf/references/new.md"), "added upstream\n");
    assert!(!me.exists("skills/pdf/scripts/run.sh"));
    let entry = lock(&me).entry("pdf").unwrap().clone();
    assert_eq!(entry.base_hash, upstream.hash());
    assert_eq!(entry.revision, upstream.hash());
    assert_eq!(
        kept_base(&me.root, &upstream.hash()).unwrap(),
        Some(upstream)
    );
    assert_eq!(state(&me), State::Modified);
    // What is left against the new base is exactly the local edit.
    let diff = diff::diff(
        &me.lock(),
        "pdf",
        Version::Base,
        Version::Local,
        &Options::default(),
    )
    .unwrap()
    .to_string();
    let changed: Vec<&str> = diff
        .lines()
        .filter(|l| l.starts_with(['+', '-']) && !l.starts_with("+++") && !l.starts_with("---"))
        .collect();
    assert_eq!(changed, ["-one", "+ONE (ours)"], "{diff}");
}

/// The inode of the file at `rel` under `dir`.
#[cfg(unix)]
fn inode(dir: &Dir, rel: &str) -> u64 {
    use std::os::unix::fs::MetadataExt;
    std::fs::symlink_metadata(dir.path().join(rel))
        .unwrap()
        .ino()
}

/// A pull writes what changed: a file neither side changed is left as it is (its inode
/// stays), and the new base shares the files it has in common with the old one; what
/// changed is written, and every tree still reads as the merge says.
#[cfg(unix)]
#[test]
fn a_pull_links_what_did_not_change_and_writes_what_did() {
    let (up, me, added) = imported();
    me.write("skills/pdf/references/keep.md", "neither side edits this\n");
    up.write("skills/pdf/references/keep.md", "neither side edits this\n");
    // Re-imported so both sides and the base hold keep.md.
    let me = {
        drop(me);
        let me = Dir::new();
        add::add(&me.lock(), &request(&up, "skills/pdf"), &Options::default()).unwrap();
        me
    };
    let _ = added;
    let old_base = lock(&me).entry("pdf").unwrap().base_hash.clone();
    let keep_before = inode(&me, "skills/pdf/references/keep.md");
    let script_before = inode(&me, "skills/pdf/scripts/run.sh");
    let md_before = inode(&me, MD);
    let old_base = base_dir(&old_base);
    let old_keep = inode(&me, &format!("{old_base}/references/keep.md"));
    let old_md = inode(&me, &format!("{old_base}/SKILL.md"));
    // A mode the tree does not record (not executable either way) stays with the file.
    me.chmod("skills/pdf/scripts/run.sh", 0o600);
    up.edit(MD, "seven\n", "SEVEN (theirs)\n");
    let upstream = SkillTree::read(&up.root, "skills/pdf").unwrap();
    pull(&me, false).unwrap();

    // Unchanged on both sides: the same file, its own mode kept.
    assert_eq!(inode(&me, "skills/pdf/references/keep.md"), keep_before);
    assert_eq!(inode(&me, "skills/pdf/scripts/run.sh"), script_before);
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(me.path().join("skills/pdf/scripts/run.sh"))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
    }
    // Changed upstream: written anew.
    assert_ne!(inode(&me, MD), md_before);
    assert!(me.read(MD).contains("SEVEN (theirs)"));
    // The new base shares keep.md with the old one and holds upstream's SKILL.md; the old
    // base, no longer referenced, is gone (issue 27 §6).
    let new_base = base_dir(&upstream.hash());
    assert_eq!(
        inode(&me, &format!("{new_base}/references/keep.md")),
        old_keep
    );
    assert_ne!(inode(&me, &format!("{new_base}/SKILL.md")), old_md);
    assert!(!me.exists(&old_base) && !me.exists(&format!("{old_base}.json")));
    assert_eq!(
        kept_base(&me.root, &upstream.hash()).unwrap(),
        Some(upstream)
    );
    assert_eq!(state(&me), State::Clean);
}

#[test]
fn a_pull_of_an_unedited_skill_takes_upstream_exactly() {
    let (up, me, _) = imported();
    up.edit(MD, "three", "THREE");
    up.chmod("skills/pdf/scripts/run.sh", 0o755);
    let pulled = pull(&me, false).unwrap();
    assert!(
        matches!(
            &pulled[..],
            [Pulled::Updated {
                kept_local: false,
                ..
            }]
        ),
        "{pulled:?}"
    );
    assert_eq!(
        SkillTree::read(&me.root, "skills/pdf").unwrap(),
        SkillTree::read(&up.root, "skills/pdf").unwrap()
    );
    assert_eq!(state(&me), State::Clean);
}

#[test]
fn the_exec_bit_and_the_content_merge_independently() {
    let (up, me, _) = imported();
    let script = "skills/pdf/scripts/run.sh";
    up.chmod(script, 0o755);
    me.edit(script, "echo run\n", "echo run locally\n");
    pull(&me, false).unwrap();
    let merged = SkillTree::read(&me.root, "skills/pdf").unwrap();
    let file = merged.get("scripts/run.sh").unwrap();
    assert_eq!(file.data, b"#!/bin/sh\necho run locally\n".into());
    assert!(file.executable);
}

#[test]
fn a_conflicting_pull_changes_nothing_and_lists_the_conflict() {
    let (up, me, added) = imported();
    me.edit(MD, "four\n", "FOUR (ours)\n");
    up.edit(MD, "four\n", "FOUR (theirs)\n");
    let before = me.snapshot();
    let pulled = pull(&me, false).unwrap();
    match &pulled[..] {
        [
            Pulled::Conflicts {
                name,
                conflicts,
                written: false,
                ..
            },
        ] => {
            assert_eq!(name, "pdf");
            let paths: Vec<&str> = conflicts.iter().map(|c| c.path.as_str()).collect();
            assert_eq!(paths, ["SKILL.md"]);
        }
        other => panic!("{other:?}"),
    }
    assert!(pulled[0].is_conflict());
    assert_eq!(me.snapshot(), before);
    assert_eq!(lock(&me).entry("pdf").unwrap().revision, added.hash);
}

#[test]
fn written_conflicts_wait_for_resolve() {
    let (up, me, added) = imported();
    me.edit(MD, "four\n", "FOUR (ours)\n");
    up.edit(MD, "four\n", "FOUR (theirs)\n");
    let upstream = SkillTree::read(&up.root, "skills/pdf").unwrap().hash();
    let pulled = pull(&me, true).unwrap();
    assert!(
        matches!(&pulled[..], [Pulled::Conflicts { written: true, revision, .. }] if *revision == upstream),
        "{pulled:?}"
    );
    let text = me.read(MD);
    assert!(has_conflict_markers(text.as_bytes()), "{text}");
    assert!(
        text.contains("<<<<<<< local\n") && text.contains(">>>>>>> upstream\n"),
        "{text}"
    );
    let entry = lock(&me).entry("pdf").unwrap().clone();
    assert_eq!(
        entry.base_hash, added.hash,
        "the base moves only on resolve"
    );
    assert_eq!(entry.pending.as_ref().unwrap().base_hash, upstream);
    assert_eq!(state(&me), State::Conflicted);
    // Nothing more is pulled into a skill that waits.
    let e = pull(&me, false).unwrap_err();
    assert!(
        matches!(&e, Error::Conflicted { name } if name == "pdf"),
        "{e:?}"
    );
    // Markers left in are refused by name.
    let e = resolve::resolve(&me.lock(), "pdf").unwrap_err();
    assert!(
        matches!(&e, Error::MarkersRemain { path } if path == MD),
        "{e:?}"
    );
    me.write(MD, &skill_md("pdf").replace("four\n", "FOUR (both)\n"));
    assert_eq!(
        resolve::resolve(&me.lock(), "pdf").unwrap().revision,
        upstream
    );
    let entry = lock(&me).entry("pdf").unwrap().clone();
    assert_eq!(
        (
            entry.base_hash.as_str(),
            entry.revision.as_str(),
            entry.pending
        ),
        (upstream.as_str(), upstream.as_str(), None)
    );
    assert_eq!(state(&me), State::Modified);
    let e = resolve::resolve(&me.lock(), "pdf").unwrap_err();
    assert!(matches!(e, Error::NotConflicted { .. }), "{e:?}");
}

#[test]
fn a_resolve_that_breaks_the_rules_is_refused() {
    let (up, me, _) = imported();
    me.edit(MD, "four\n", "FOUR (ours)\n");
    up.edit(MD, "four\n", "FOUR (theirs)\n");
    pull(&me, true).unwrap();
    me.write(MD, "---\nname: pdf\n---\nno description\n");
    let before = lock(&me);
    let e = resolve::resolve(&me.lock(), "pdf").unwrap_err();
    assert!(
        matches!(&e, Error::Invalid { first, .. } if first.rule == asv_skills::Rule::DescriptionMissing),
        "{e:?}"
    );
    assert_eq!(lock(&me), before);
}

#[test]
fn a_skill_removed_upstream_is_kept_and_reported() {
    let (up, me, _) = imported();
    up.root.remove_all("skills/pdf").unwrap();
    let before = me.snapshot();
    assert_eq!(
        pull(&me, false).unwrap(),
        [Pulled::RemovedUpstream {
            name: "pdf".to_owned(),
            revision: String::new(),
            modified: false,
        }]
    );
    me.edit(MD, "one", "ONE");
    assert!(matches!(
        &pull(&me, false).unwrap()[..],
        [Pulled::RemovedUpstream { modified: true, .. }]
    ));
    assert_eq!(me.snapshot().len(), before.len());
    assert!(me.exists(MD));
}

#[test]
fn a_merge_that_breaks_the_rules_is_refused_and_changes_nothing() {
    let (up, me, _) = imported();
    me.edit(MD, "one", "ONE");
    up.edit(MD, "description: Reads pdf files.\n", "");
    let before = me.snapshot();
    let e = pull(&me, false).unwrap_err();
    assert!(
        matches!(&e, Error::Invalid { first, .. }
            if first.rule == asv_skills::Rule::DescriptionMissing && first.path == MD),
        "{e:?}"
    );
    assert_eq!(me.snapshot(), before);
}

#[test]
fn pull_refuses_a_missing_copy_and_an_unknown_name() {
    let (up, me, _) = imported();
    let writer = me.lock();
    let names = ["nope".to_owned()];
    let request = pull::PullOptions {
        names: &names,
        writer: Some(&writer),
        ..Default::default()
    };
    let e = pull::pull(&writer, &request, &Options::default()).unwrap_err();
    assert!(
        matches!(&e, Error::NotImported { name } if name == "nope"),
        "{e:?}"
    );
    drop(writer);
    me.root.remove_all("skills/pdf").unwrap();
    let e = pull(&me, false).unwrap_err();
    let Error::MissingImported { path, again } = &e else {
        panic!("{e:?}");
    };
    assert_eq!(path, "skills/pdf");
    assert_eq!(
        e.to_string(),
        format!(
            "skills/pdf: is missing; restore it from version control, or take it again: skill add {} skills/pdf",
            up.source()
        )
    );
    // The step it names works: the skill is taken again and pulls as before.
    up.edit(MD, "eight", "EIGHT");
    let again = AddRequest {
        repository: again.source.clone(),
        path: again.path.clone(),
        name: again.name.clone(),
        reference: again.reference.clone(),
        working_tree: false,
        signed_by: None,
    };
    let added = add::add(&me.lock(), &again, &Options::default()).unwrap();
    assert_eq!(me.read(MD), up.read(MD));
    assert_eq!(lock(&me).entry("pdf").unwrap().base_hash, added.hash);
    assert_eq!(state(&me), State::Clean);
    assert!(matches!(
        &pull(&me, false).unwrap()[..],
        [Pulled::UpToDate { .. }]
    ));
    // With the directory there, a second add is still refused.
    let e = add::add(&me.lock(), &again, &Options::default()).unwrap_err();
    assert!(matches!(e, Error::AlreadyImported { .. }), "{e:?}");
}

#[test]
fn a_renamed_skill_gone_missing_names_its_name_in_the_add() {
    let up = Dir::new();
    up.write(MD, &skill_md("pdf"));
    let me = Dir::new();
    let req = AddRequest {
        name: Some("reader".to_owned()),
        ..request(&up, "skills/pdf")
    };
    add::add(&me.lock(), &req, &Options::default()).unwrap();
    me.root.remove_all("skills/reader").unwrap();
    let e = resolve::resolve(&me.lock(), "reader").unwrap_err();
    assert!(matches!(e, Error::NotConflicted { .. }), "{e:?}");
    let e = pull(&me, false).unwrap_err();
    assert!(
        e.to_string().ends_with(&format!(
            "skill add {} skills/pdf --name reader",
            up.source()
        )),
        "{e}"
    );
    let Error::MissingImported { again, .. } = e else {
        panic!("{e:?}")
    };
    let req = AddRequest {
        repository: again.source,
        path: again.path,
        name: again.name,
        reference: again.reference,
        working_tree: false,
        signed_by: None,
    };
    add::add(&me.lock(), &req, &Options::default()).unwrap();
    assert!(me.read("skills/reader/SKILL.md").contains("name: reader\n"));
}

/// A kept base lost (as on a fresh clone, where `.agentic-skill-vendor/` is not checked in)
/// while the local copy is unedited: the copy is the base, and the pull is exact.
#[test]
fn a_lost_base_of_an_unedited_copy_is_the_copy() {
    let (up, me, added) = imported();
    up.edit(MD, "eight", "EIGHT");
    me.root.remove_all(&base_dir(&added.hash)).unwrap();
    let pulled = pull(&me, false).unwrap();
    assert!(
        matches!(
            &pulled[..],
            [Pulled::Updated {
                kept_local: false,
                lost_base: None,
                ..
            }]
        ),
        "{pulled:?}"
    );
    assert_eq!(pulled[0].lost_base(), None);
    assert_eq!(
        SkillTree::read(&me.root, "skills/pdf").unwrap(),
        SkillTree::read(&up.root, "skills/pdf").unwrap()
    );
    assert_eq!(state(&me), State::Clean);
}

/// A kept base lost while both sides changed: the pull merges without a base, says so, and
/// leaves every difference to the user; written conflicts resolve as any other, and the base
/// is then upstream's, kept again.
#[test]
fn a_lost_base_of_an_edited_copy_is_merged_without_one() {
    let (up, me, added) = imported();
    me.edit(MD, "one", "ONE");
    up.edit(MD, "eight", "EIGHT");
    up.write("skills/pdf/references/new.md", "new\n");
    me.root.remove_all(&base_dir(&added.hash)).unwrap();
    let before = me.snapshot();
    let pulled = pull(&me, false).unwrap();
    let [
        Pulled::Conflicts {
            conflicts,
            written: false,
            lost_base: Some(path),
            ..
        },
    ] = &pulled[..]
    else {
        panic!("{pulled:?}")
    };
    assert_eq!(*path, base_dir(&added.hash));
    let kinds: Vec<(&str, &str)> = conflicts
        .iter()
        .map(|c| (c.path.as_str(), c.kind.as_str()))
        .collect();
    assert_eq!(
        kinds,
        [("SKILL.md", "content"), ("references/new.md", "add/delete")]
    );
    assert_eq!(pulled[0].lost_base(), Some(path.as_str()));
    assert_eq!(
        me.snapshot(),
        before,
        "conflicts not written change nothing"
    );

    let pulled = pull(&me, true).unwrap();
    assert!(
        matches!(
            &pulled[..],
            [Pulled::Conflicts {
                written: true,
                lost_base: Some(_),
                ..
            }]
        ),
        "{pulled:?}"
    );
    let text = me.read(MD);
    assert!(text.contains("<<<<<<< local\n"), "{text}");
    assert!(text.contains("||||||| base\n=======\n"), "{text}");
    assert_eq!(me.read("skills/pdf/references/new.md"), "new\n");
    assert_eq!(state(&me), State::Conflicted);
    me.write(
        MD,
        &skill_md("pdf")
            .replace("one", "ONE")
            .replace("eight", "EIGHT"),
    );
    let upstream = SkillTree::read(&up.root, "skills/pdf").unwrap();
    assert_eq!(
        resolve::resolve(&me.lock(), "pdf").unwrap().revision,
        upstream.hash()
    );
    assert_eq!(
        kept_base(&me.root, &upstream.hash()).unwrap(),
        Some(upstream)
    );
    // From here on the pull has its base again: a further upstream edit merges cleanly.
    up.edit(MD, "four", "FOUR");
    let pulled = pull(&me, false).unwrap();
    assert!(
        matches!(
            &pulled[..],
            [Pulled::Updated {
                kept_local: true,
                lost_base: None,
                ..
            }]
        ),
        "{pulled:?}"
    );
    assert_eq!(
        me.read(MD),
        skill_md("pdf")
            .replace("one", "ONE")
            .replace("four", "FOUR")
            .replace("eight", "EIGHT")
    );
}

/// A kept base edited in place no longer hashes as recorded: it counts as lost.
#[test]
fn an_edited_kept_base_counts_as_lost() {
    let (up, me, added) = imported();
    me.edit(MD, "one", "ONE");
    up.edit(MD, "eight", "EIGHT");
    me.edit(&format!("{}/SKILL.md", base_dir(&added.hash)), "two", "TWO");
    let pulled = pull(&me, false).unwrap();
    assert!(
        matches!(
            &pulled[..],
            [Pulled::Conflicts {
                lost_base: Some(_),
                ..
            }]
        ),
        "{pulled:?}"
    );
}

/// A kept base is taken from its digest list: a file of it edited in place that the merge
/// does not read changes nothing (the list says what the base holds), and the pull keeps the
/// new base with its own list. The edited file, linked into the new base as it stands, is
/// refused where a later merge reads it: the base then counts as lost, and its bytes are
/// never merged.
#[test]
fn a_kept_base_is_taken_from_its_digest_list() {
    let (up, me, added) = imported();
    let kept = base_dir(&added.hash);
    assert!(me.exists(&base_digests(&added.hash)));
    me.edit(MD, "one", "ONE");
    up.edit(MD, "eight", "EIGHT");
    // Neither side changed run.sh, so the merge never reads the base's copy of it.
    me.edit(&format!("{kept}/scripts/run.sh"), "run", "RUN");
    let pulled = pull(&me, false).unwrap();
    assert!(
        matches!(
            &pulled[..],
            [Pulled::Updated {
                kept_local: true,
                lost_base: None,
                ..
            }]
        ),
        "{pulled:?}"
    );
    let merged = me.read(MD);
    assert!(
        merged.contains("ONE") && merged.contains("EIGHT"),
        "{merged}"
    );
    assert_eq!(
        me.read("skills/pdf/scripts/run.sh"),
        "#!/bin/sh\necho run\n"
    );
    let now = lock(&me).skills["pdf"].base_hash.clone();
    assert!(me.exists(&base_dir(&now)) && me.exists(&base_digests(&now)));
    // Both sides now change run.sh: the merge must read the base's copy, which no longer
    // holds what the list says.
    me.edit("skills/pdf/scripts/run.sh", "echo run", "echo ours");
    up.edit("skills/pdf/scripts/run.sh", "#!/bin/sh", "#!/bin/bash");
    let pulled = pull(&me, false).unwrap();
    assert!(
        matches!(
            &pulled[..],
            [Pulled::Updated {
                lost_base: Some(_),
                ..
            } | Pulled::Conflicts {
                lost_base: Some(_),
                ..
            }]
        ),
        "{pulled:?}"
    );
    assert!(!me.read("skills/pdf/scripts/run.sh").contains("RUN"));
}

/// `skill diff` cannot show a lost base unless the local copy or upstream still is it; its
/// refusal names `skill pull`, which records a new base.
#[test]
fn diff_of_a_lost_base_names_a_pull_and_the_pull_gives_it_a_base() {
    let (up, me, added) = imported();
    let lost = base_dir(&added.hash);
    let diff = |me: &Dir| {
        diff::diff(
            &me.lock(),
            "pdf",
            Version::Base,
            Version::Local,
            &Options::default(),
        )
    };
    // The unedited copy is the base.
    me.root.remove_all(&lost).unwrap();
    assert!(diff(&me).unwrap().is_empty());
    // Upstream unchanged is the base.
    me.edit(MD, "one", "ONE");
    assert!(diff(&me).unwrap().to_string().contains("+ONE"));
    // Neither: refused, naming the pull.
    up.edit(MD, "one", "ONE");
    let e = diff(&me).unwrap_err();
    assert!(
        matches!(&e, Error::BaseUnavailable { name, path } if name == "pdf" && *path == lost),
        "{e:?}"
    );
    assert!(
        e.to_string()
            .ends_with("skill pull pdf merges without it and records a new base"),
        "{e}"
    );
    // The step named works: both sides made the same edit, so the merge without a base is
    // clean and records upstream as the base.
    let pulled = pull(&me, false).unwrap();
    assert!(
        matches!(
            &pulled[..],
            [Pulled::Updated {
                kept_local: false,
                lost_base: Some(_),
                ..
            }]
        ),
        "{pulled:?}"
    );
    assert!(diff(&me).unwrap().is_empty());
}

/// An upstream holding `skills/pdf` and `skills/doc`, and a repository that took both.
fn imported_two() -> (Dir, Dir) {
    let up = Dir::new();
    up.write(MD, &skill_md("pdf"));
    up.write("skills/doc/SKILL.md", &skill_md("doc"));
    let me = Dir::new();
    for path in ["skills/pdf", "skills/doc"] {
        add::add(&me.lock(), &request(&up, path), &Options::default()).unwrap();
    }
    (up, me)
}

fn pull_names(me: &Dir, names: &[&str], write_conflicts: bool) -> Result<Vec<Pulled>, Error> {
    let names: Vec<String> = names.iter().map(|n| (*n).to_owned()).collect();
    let writer = me.lock();
    let request = pull::PullOptions {
        names: &names,
        write_conflicts,
        writer: Some(&writer),
        ..Default::default()
    };
    pull::pull(&writer, &request, &Options::default())
}

/// A run of several skills judges every one first: one refused writes nothing of the others,
/// and the refusal names it.
#[test]
fn a_refusal_of_one_skill_writes_nothing_of_the_others() {
    type Break = fn(&Dir, &Dir);
    type Want = fn(&Error) -> bool;
    // (A skill waiting for `skill resolve` is no refusal: it is left as it is while the others
    // are pulled.)
    let rows: [(&str, Break, Want); 3] = [
        (
            "missing",
            |_, me| me.root.remove_all("skills/doc").unwrap(),
            |e| matches!(e, Error::MissingImported { .. }),
        ),
        (
            "merged result invalid",
            |up, me| {
                me.edit("skills/doc/SKILL.md", "one", "ONE");
                up.edit("skills/doc/SKILL.md", "description: Reads doc files.\n", "");
            },
            |e| matches!(e, Error::Invalid { .. }),
        ),
        (
            "upstream unreadable",
            |up, me| {
                let _ = me;
                up.root.remove_all("skills/doc").unwrap();
                up.write(
                    "skills/doc/SKILL.md",
                    &skill_md("doc").replace("one", "uno"),
                );
                std::os::unix::fs::symlink("SKILL.md", up.path().join("skills/doc/link.md"))
                    .unwrap();
            },
            |e| {
                matches!(
                    e,
                    Error::UnsupportedEntry { .. } | Error::SkillTree(_) | Error::Fs(_)
                )
            },
        ),
    ];
    for (case, break_it, want) in rows {
        let (up, me) = imported_two();
        me.edit(MD, "one", "ONE");
        up.edit(MD, "eight", "EIGHT");
        break_it(&up, &me);
        let before = me.snapshot();
        for names in [&["pdf", "doc"][..], &[]] {
            let e = pull_names(&me, names, false).unwrap_err();
            let Error::PullRefused { name, source } = &e else {
                panic!("{case}: {e:?}")
            };
            assert_eq!(name, "doc", "{case}");
            assert!(want(source), "{case}: {source:?}");
            assert!(
                e.to_string()
                    .starts_with("the pull of \"doc\" was refused, so no skill was written"),
                "{case}: {e}"
            );
            assert_eq!(me.snapshot(), before, "{case}: {names:?}");
        }
        // Alone, the good skill pulls.
        assert!(matches!(
            &pull_names(&me, &["pdf"], false).unwrap()[..],
            [Pulled::Updated { .. }]
        ));
    }
}

/// Two skills pulled in one run: both outcomes, both written, their bases kept, and the lock
/// written once with both.
#[test]
fn a_pull_of_several_skills_writes_them_all() {
    let (up, me) = imported_two();
    me.edit(MD, "one", "ONE");
    up.edit(MD, "eight", "EIGHT");
    up.edit("skills/doc/SKILL.md", "two", "TWO");
    let pulled = pull_names(&me, &["pdf", "doc", "pdf"], false).unwrap();
    let names: Vec<&str> = pulled.iter().map(Pulled::name).collect();
    assert_eq!(names, ["pdf", "doc"]);
    assert!(pulled.iter().all(|p| matches!(p, Pulled::Updated { .. })));
    for dir in ["skills/pdf", "skills/doc"] {
        let upstream = SkillTree::read(&up.root, dir).unwrap();
        assert_eq!(
            kept_base(&me.root, &upstream.hash()).unwrap(),
            Some(upstream)
        );
    }
    assert_eq!(
        me.read("skills/doc/SKILL.md"),
        up.read("skills/doc/SKILL.md")
    );
    assert!(me.read(MD).contains("ONE") && me.read(MD).contains("EIGHT"));
}

/// A run that fails at any write (of a skill, a kept base or the lock) leaves the tree exactly
/// as it was; given enough writes it completes.
#[test]
fn a_pull_failing_at_any_write_leaves_the_tree_as_it_was() {
    let mut failed = 0;
    for n in 0..32 {
        let (up, me) = imported_two();
        me.edit(MD, "one", "ONE");
        up.edit(MD, "eight", "EIGHT");
        up.edit("skills/doc/SKILL.md", "two", "TWO");
        let before = me.snapshot();
        let faulty = asv_fs::Root::open(me.path()).unwrap().fail_writes_after(n);
        let faulty_lock = faulty
            .lock_for_writing(std::time::Duration::from_secs(5))
            .unwrap();
        let request = pull::PullOptions {
            writer: Some(&faulty_lock),
            ..Default::default()
        };
        match pull::pull(&faulty_lock, &request, &Options::default()) {
            Err(e) => {
                failed += 1;
                assert!(
                    matches!(&e, Error::Fs(asv_fs::Error::InjectedFault { .. })),
                    "{n}: {e:?}"
                );
                assert_eq!(me.snapshot(), before, "after {n} writes");
            }
            Ok(pulled) => {
                assert_eq!(pulled.len(), 2);
                assert_ne!(me.snapshot(), before);
                // Two skills, two bases and the lock: every one of them was a failure point.
                assert!(failed >= 5, "completed after {failed} failures");
                return;
            }
        }
    }
    panic!("the pull never completed");
}

/// A local git repository holding `skills/pdf` at a first commit, and a repository that
/// took it at `main`.
fn imported_from_git() -> (GitRepo, Dir, String) {
    let up = GitRepo::new();
    up.dir.write(MD, &skill_md("pdf"));
    up.dir.write("README.md", "skills\n");
    let first = up.commit("first");
    let me = Dir::new();
    let req = AddRequest {
        reference: Some("main".to_owned()),
        ..request(&up.dir, "skills/pdf")
    };
    let added = add::add(&me.lock(), &req, &Options::default()).unwrap();
    assert_eq!(added.pin, Pin::Commit(first.clone()));
    (up, me, first)
}

#[test]
fn a_local_git_repository_at_a_ref_is_followed_by_commit() {
    let (up, me, first) = imported_from_git();
    let entry = lock(&me).entry("pdf").unwrap().clone();
    assert_eq!(entry.reference.as_deref(), Some("main"));
    assert_eq!(entry.revision, first);
    // Only commits count: an edit left in the work tree is not upstream.
    up.dir.edit(MD, "five", "FIVE");
    assert!(matches!(
        &pull(&me, false).unwrap()[..],
        [Pulled::UpToDate { revision, .. }] if *revision == first
    ));
    // A commit that leaves the skill alone moves the pin and nothing else.
    git_checkout(&up, MD);
    up.dir.write("README.md", "more skills\n");
    let second = up.commit("readme");
    let before = SkillTree::read(&me.root, "skills/pdf").unwrap();
    assert!(matches!(
        &pull(&me, false).unwrap()[..],
        [Pulled::UpToDate { revision, .. }] if *revision == second
    ));
    assert_eq!(lock(&me).entry("pdf").unwrap().revision, second);
    assert_eq!(SkillTree::read(&me.root, "skills/pdf").unwrap(), before);
    // A commit that edits it is merged with the local edit.
    me.edit(MD, "one", "ONE");
    up.dir.edit(MD, "eight", "EIGHT");
    let third = up.commit("edit");
    assert_eq!(
        pull(&me, false).unwrap(),
        [Pulled::Updated {
            name: "pdf".to_owned(),
            from: second,
            to: third.clone(),
            kept_local: true,
            lost_base: None,
            warnings: vec![],
            // Prose edited upstream changes nothing the skill can do.
            capabilities: Some(Default::default()),
        }]
    );
    let text = me.read(MD);
    assert!(text.contains("ONE\n") && text.contains("EIGHT\n"), "{text}");
    assert_eq!(lock(&me).entry("pdf").unwrap().revision, third);
}

fn git_checkout(up: &GitRepo, rel: &str) {
    crate::support::git(up.dir.path(), &["checkout", "--", rel]);
}

#[test]
fn a_lost_base_of_a_git_source_is_read_again_at_the_locked_commit() {
    let (up, me, first) = imported_from_git();
    let base = lock(&me).entry("pdf").unwrap().base_hash.clone();
    me.root.remove_all(&base_dir(&base)).unwrap();
    me.edit(MD, "one", "ONE");
    up.dir.edit(MD, "eight", "EIGHT");
    up.commit("edit");
    let diff = diff::diff(
        &me.lock(),
        "pdf",
        Version::Base,
        Version::Upstream,
        &Options::default(),
    )
    .unwrap()
    .to_string();
    assert!(diff.contains("-eight\n+EIGHT\n"), "{diff}");
    // The base was read at the locked commit, checked against its hash, and kept again.
    assert!(kept_base(&me.root, &base).unwrap().is_some());
    assert!(matches!(
        &pull(&me, false).unwrap()[..],
        [Pulled::Updated { from, kept_local: true, .. }] if *from == first
    ));
}

#[test]
fn a_base_that_no_longer_hashes_as_locked_is_refused() {
    let (up, me, first) = imported_from_git();
    // The lock claims another base than the commit holds (as after upstream history was
    // rewritten under the same commit id, which a lock edit stands in for here).
    let mut edited = lock(&me);
    let real = edited.skills["pdf"].base_hash.clone();
    let claimed = format!("sha256:{}", "0".repeat(64));
    edited.skills.get_mut("pdf").unwrap().base_hash = claimed.clone();
    edited.store(&me.root).unwrap();
    up.dir.edit(MD, "eight", "EIGHT");
    up.commit("edit");
    let before = me.snapshot();
    let e = pull(&me, false).unwrap_err();
    match &e {
        Error::BaseMismatch {
            name,
            revision,
            expected,
            found,
        } => {
            assert_eq!(
                (name.as_str(), revision, expected, found),
                ("pdf", &first, &claimed, &real)
            );
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(e.side(), asv_error::Side::Environment);
    assert_eq!(me.snapshot(), before);
}

#[test]
fn diff_between_versions() {
    let (up, me, _) = imported();
    let diff = |from, to| {
        diff::diff(&me.lock(), "pdf", from, to, &Options::default())
            .unwrap()
            .to_string()
    };
    assert_eq!(diff(Version::Base, Version::Local), "");
    me.edit(MD, "two\n", "TWO\n");
    up.write("skills/pdf/extra.md", "new\n");
    let local = diff(Version::Base, Version::Local);
    assert!(
        local.starts_with("diff --git a/skills/pdf/SKILL.md b/skills/pdf/SKILL.md\n"),
        "{local}"
    );
    assert!(local.contains("-two\n+TWO\n"), "{local}");
    let upstream = diff(Version::Local, Version::Upstream);
    // From the local copy to upstream: the local edit undone, upstream's new file added.
    assert!(upstream.contains("-TWO\n+two\n"), "{upstream}");
    assert!(
        upstream.contains("+++ b/skills/pdf/extra.md\n"),
        "{upstream}"
    );
    let e = diff::diff(
        &me.lock(),
        "nope",
        Version::Base,
        Version::Local,
        &Options::default(),
    )
    .unwrap_err();
    assert!(matches!(e, Error::NotImported { .. }), "{e:?}");
}

#[test]
fn conflict_markers_are_whole_marker_lines() {
    let rows: &[(&str, bool)] = &[
        ("<<<<<<< local\n", true),
        ("a\n>>>>>>> upstream\n", true),
        ("||||||| base\n", true),
        ("<<<<<<<\n", true),
        ("<<<<<<<\r\n", true),
        ("=======\n", false),
        ("<<<<<<<< eight\n", false),
        (" <<<<<<< indented\n", false),
        ("text <<<<<<< inline\n", false),
        ("", false),
    ];
    for (text, want) in rows {
        assert_eq!(has_conflict_markers(text.as_bytes()), *want, "{text:?}");
    }
}
