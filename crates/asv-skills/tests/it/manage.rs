//! `skill remove`, `skill outdated` and `skill list` through the library, with local
//! directories and a local git repository as upstreams.

use asv_error::Failure as _;
use asv_remote::Options;
use asv_skills::Error;
use asv_skills::add::{self, AddRequest};
use asv_skills::bases::{base_digests, base_dir};
use asv_skills::edits::EditKind;
use asv_skills::lock::SkillLock;
use asv_skills::manage::{self, Listed, OwnState, Removed, SkillOrigin};
use asv_skills::pull;
use asv_skills::status::State;

use crate::support::{Dir, GitRepo, skill_md};

const MD: &str = "skills/pdf/SKILL.md";

fn add(me: &Dir, up: &Dir, path: &str, name: Option<&str>, reference: Option<&str>) {
    let request = AddRequest {
        repository: up.source(),
        path: path.to_owned(),
        name: name.map(str::to_owned),
        reference: reference.map(str::to_owned),
        working_tree: false,
        signed_by: None,
    };
    add::add(&me.lock(), &request, &Options::default()).unwrap();
}

/// An upstream directory holding `skills/pdf` and `skills/doc`, and a repository that took
/// both.
fn imported() -> (Dir, Dir) {
    let up = Dir::new();
    up.write(MD, &skill_md("pdf"));
    up.write("skills/pdf/scripts/run.sh", "#!/bin/sh\n");
    up.write("skills/doc/SKILL.md", &skill_md("doc"));
    let me = Dir::new();
    add(&me, &up, "skills/pdf", None, None);
    add(&me, &up, "skills/doc", None, None);
    (up, me)
}

fn names(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| (*s).to_owned()).collect()
}

fn lock(me: &Dir) -> SkillLock {
    SkillLock::load(&me.root).unwrap()
}

#[test]
fn remove_takes_the_directory_the_entry_and_the_base() {
    let (_up, me) = imported();
    let pdf_base = base_dir(&lock(&me).skills["pdf"].base_hash);
    let pdf_list = base_digests(&lock(&me).skills["pdf"].base_hash);
    let doc_base = base_dir(&lock(&me).skills["doc"].base_hash);
    assert!(me.exists(&pdf_base) && me.exists(&pdf_list));
    let removed = manage::remove(&me.lock(), &names(&["pdf", "pdf"]), false).unwrap();
    assert_eq!(
        removed,
        [Removed {
            name: "pdf".to_owned(),
            path: "skills/pdf".to_owned(),
            present: true,
            discarded: false,
        }]
    );
    assert!(!me.exists("skills/pdf"));
    assert!(!me.exists(&pdf_base) && !me.exists(&pdf_list));
    assert_eq!(lock(&me).skills.keys().collect::<Vec<_>>(), ["doc"]);
    // the other skill and its base are untouched
    assert!(me.exists("skills/doc/SKILL.md") && me.exists(&doc_base));
}

#[test]
fn local_edits_refuse_naming_what_would_be_lost_and_change_nothing() {
    let (_up, me) = imported();
    me.edit(MD, "one", "ONE");
    me.write("skills/pdf/notes.md", "mine\n");
    std::fs::remove_file(me.path().join("skills/pdf/scripts/run.sh")).unwrap();
    let before = me.snapshot();
    // several names: the clean one is not removed either
    let refused = manage::remove(&me.lock(), &names(&["doc", "pdf"]), false).unwrap_err();
    let Error::WouldLose {
        name,
        path,
        edits: Some(edits),
        conflicted: false,
    } = &refused
    else {
        panic!("{refused:?}");
    };
    assert_eq!((name.as_str(), path.as_str()), ("pdf", "skills/pdf"));
    let found: Vec<(&str, EditKind)> = edits.iter().map(|e| (e.path.as_str(), e.kind)).collect();
    assert_eq!(
        found,
        [
            ("SKILL.md", EditKind::Edited),
            ("notes.md", EditKind::Added),
            ("scripts/run.sh", EditKind::Deleted),
        ]
    );
    assert_eq!(
        refused.to_string(),
        "skills/pdf: has local edits, and removing it would lose SKILL.md (edited), notes.md (added), scripts/run.sh (deleted); see them with skill diff pdf, or pass --force to remove it anyway"
    );
    assert_eq!(refused.side(), asv_error::Side::Input);
    assert_eq!(me.snapshot(), before);

    // --force removes both, saying the edits were discarded
    let removed = manage::remove(&me.lock(), &names(&["doc", "pdf"]), true).unwrap();
    assert_eq!(
        removed.iter().map(|r| r.discarded).collect::<Vec<_>>(),
        [false, true]
    );
    assert!(!me.exists("skills/pdf") && !me.exists("skills/doc"));
    assert!(lock(&me).skills.is_empty());
}

#[test]
fn an_edit_without_a_kept_base_is_refused_without_naming_files() {
    let (_up, me) = imported();
    me.edit(MD, "one", "ONE");
    std::fs::remove_dir_all(me.path().join(".agentic-skill-vendor")).unwrap();
    let before = me.snapshot();
    let refused = manage::remove(&me.lock(), &names(&["pdf"]), false).unwrap_err();
    assert!(
        matches!(&refused, Error::WouldLose { edits: None, .. }),
        "{refused:?}"
    );
    assert!(
        refused.to_string().contains("so the files cannot be named"),
        "{refused}"
    );
    assert_eq!(me.snapshot(), before);
}

#[test]
fn a_skill_waiting_for_resolve_is_refused_unless_forced() {
    let (up, me) = imported();
    me.edit(MD, "four", "FOUR (ours)");
    up.edit(MD, "four", "FOUR (theirs)");
    let writer = me.lock();
    let pdf = names(&["pdf"]);
    let request = pull::PullOptions {
        names: &pdf,
        write_conflicts: true,
        writer: Some(&writer),
        ..Default::default()
    };
    pull::pull(&writer, &request, &Options::default()).unwrap();
    drop(writer);
    let pending = lock(&me).skills["pdf"].pending.clone().unwrap();
    let before = me.snapshot();
    let refused = manage::remove(&me.lock(), &names(&["pdf"]), false).unwrap_err();
    assert!(
        matches!(
            &refused,
            Error::WouldLose {
                conflicted: true,
                ..
            }
        ),
        "{refused:?}"
    );
    assert!(
        refused.to_string().starts_with(
            "skills/pdf: waits for skill resolve (a pull wrote its conflicts here), and removing it would lose SKILL.md (edited)"
        ),
        "{refused}"
    );
    assert_eq!(me.snapshot(), before);
    manage::remove(&me.lock(), &names(&["pdf"]), true).unwrap();
    // the upstream version the pull kept goes too
    assert!(!me.exists(&base_dir(&pending.base_hash)));
    assert!(!me.exists("skills/pdf"));
}

#[test]
fn names_that_are_not_imported_are_refused_saying_what_they_are() {
    let (_up, me) = imported();
    me.write("skills/mine/SKILL.md", &skill_md("mine"));
    let before = me.snapshot();
    let own = manage::remove(&me.lock(), &names(&["pdf", "mine"]), true).unwrap_err();
    assert_eq!(
        own.to_string(),
        "skills/mine: is not an imported skill (vendor-skills-lock.json does not list it) but one of this repository's own (skill list shows its state; to remove it, delete the directory)"
    );
    let unknown = manage::remove(&me.lock(), &names(&["nope"]), false).unwrap_err();
    assert_eq!(
        unknown.to_string(),
        "the skill \"nope\" is not imported; the imported skills are doc, pdf (skill status shows each one's state)"
    );
    let odd = manage::remove(&me.lock(), &names(&["../x"]), false).unwrap_err();
    assert!(
        matches!(&odd, Error::NotImportedAmong { name, .. } if name == "../x"),
        "{odd:?}"
    );
    assert_eq!(me.snapshot(), before);
    let empty = Dir::new();
    let none = manage::remove(&empty.lock(), &names(&["pdf"]), false).unwrap_err();
    assert_eq!(
        none.to_string(),
        "the skill \"pdf\" is not imported, and no skill is; skill add imports one"
    );
    assert!(empty.snapshot().is_empty());
}

#[test]
fn a_base_another_skill_uses_is_kept() {
    let (up, me) = imported();
    add(&me, &up, "skills/pdf", Some("pdf-copy"), None);
    let base = base_dir(&lock(&me).skills["pdf"].base_hash);
    assert_eq!(
        lock(&me).skills["pdf-copy"].base_hash,
        lock(&me).skills["pdf"].base_hash
    );
    // the renamed copy is a local edit of the same base: forced
    manage::remove(&me.lock(), &names(&["pdf-copy"]), true).unwrap();
    assert!(me.exists(&base), "pdf still uses it");
    manage::remove(&me.lock(), &names(&["pdf"]), false).unwrap();
    assert!(!me.exists(&base));
}

#[test]
fn a_missing_directory_loses_only_its_entry_and_base() {
    let (_up, me) = imported();
    std::fs::remove_dir_all(me.path().join("skills/pdf")).unwrap();
    let removed = manage::remove(&me.lock(), &names(&["pdf"]), false).unwrap();
    assert!(!removed[0].present && !removed[0].discarded);
    assert!(!lock(&me).skills.contains_key("pdf"));
}

#[test]
fn a_link_where_the_skill_belongs_is_refused_even_when_forced() {
    let (_up, me) = imported();
    std::fs::remove_dir_all(me.path().join("skills/pdf")).unwrap();
    std::os::unix::fs::symlink("doc", me.path().join("skills/pdf")).unwrap();
    let before = me.snapshot();
    let refused = manage::remove(&me.lock(), &names(&["pdf"]), true).unwrap_err();
    assert!(
        matches!(&refused, Error::LinkedSkill { path } if path == "skills/pdf"),
        "{refused:?}"
    );
    assert_eq!(me.snapshot(), before);
}

/// A removal that fails at any write leaves the tree exactly as it was; given enough writes
/// it completes.
#[test]
fn a_remove_failing_at_any_write_leaves_the_tree_as_it_was() {
    let mut failed = 0;
    for n in 0..32 {
        let (_up, me) = imported();
        let before = me.snapshot();
        let faulty = asv_fs::Root::open(me.path()).unwrap().fail_writes_after(n);
        let faulty_lock = faulty
            .lock_for_writing(std::time::Duration::from_secs(5))
            .unwrap();
        match manage::remove(&faulty_lock, &names(&["pdf", "doc"]), false) {
            Err(e) => {
                failed += 1;
                assert!(
                    matches!(&e, Error::Fs(asv_fs::Error::InjectedFault { .. })),
                    "{n}: {e:?}"
                );
                assert_eq!(me.snapshot(), before, "after {n} writes");
            }
            Ok(removed) => {
                assert_eq!(removed.len(), 2);
                assert!(!me.exists("skills/pdf") && !me.exists("skills/doc"));
                assert!(failed >= 3, "completed after {failed} failures");
                return;
            }
        }
    }
    panic!("the removal never completed");
}

#[test]
fn outdated_compares_a_local_directory_by_its_tree_hash() {
    let (up, me) = imported();
    let before = me.snapshot();
    assert!(
        manage::outdated(&me.root, &[], &Options::default())
            .unwrap()
            .is_empty()
    );
    up.edit(MD, "two", "TWO");
    let moved = manage::outdated(&me.root, &[], &Options::default()).unwrap();
    assert_eq!(moved.len(), 1, "{moved:?}");
    assert_eq!(moved[0].name, "pdf");
    assert_eq!(moved[0].locked, lock(&me).skills["pdf"].revision);
    assert_eq!(
        moved[0].now,
        asv_skilltree::SkillTree::read(&up.root, "skills/pdf")
            .unwrap()
            .hash()
    );
    assert_eq!(moved[0].reference, None);
    // only the names asked for
    assert!(
        manage::outdated(&me.root, &names(&["doc"]), &Options::default())
            .unwrap()
            .is_empty()
    );
    let unknown = manage::outdated(&me.root, &names(&["nope"]), &Options::default()).unwrap_err();
    assert!(
        matches!(unknown, Error::NotImportedAmong { .. }),
        "{unknown:?}"
    );
    assert_eq!(me.snapshot(), before, "outdated writes nothing");
}

#[test]
fn outdated_follows_a_local_git_repository_by_commit() {
    let up = GitRepo::new();
    up.dir.write(MD, &skill_md("pdf"));
    let first = up.commit("first");
    let me = Dir::new();
    add(&me, &up.dir, "skills/pdf", None, Some("main"));
    let before = me.snapshot();
    // an edit left in the work tree is not what the ref names
    up.dir.edit(MD, "two", "TWO");
    assert!(
        manage::outdated(&me.root, &[], &Options::default())
            .unwrap()
            .is_empty()
    );
    // a commit elsewhere in the repository moves the ref but not the skill: no news (issue
    // 30 §3: only a change of the tree at the skill's path makes it outdated)
    crate::support::git(up.dir.path(), &["checkout", "--", MD]);
    up.dir.write("README.md", "skills\n");
    up.commit("readme");
    assert!(
        manage::outdated(&me.root, &[], &Options::default())
            .unwrap()
            .is_empty()
    );
    // a commit inside the skill's path does
    up.dir.edit(MD, "two", "TWO");
    let second = up.commit("inside");
    let moved = manage::outdated(&me.root, &[], &Options::default()).unwrap();
    assert_eq!(
        moved,
        [manage::Outdated {
            name: "pdf".to_owned(),
            locked: first,
            now: second,
            reference: Some("main".to_owned()),
            ref_changed: false,
            locked_ref: None,
            in_range: None,
            newest: None,
            removed_upstream: false,
            capabilities: None,
        }]
    );
    assert_eq!(me.snapshot(), before, "outdated writes nothing");
}

#[test]
fn list_shows_own_and_imported_skills_with_their_states() {
    let (up, me) = imported();
    me.write("skills/mine/SKILL.md", &skill_md("mine"));
    me.write("skills/broken/SKILL.md", "---\nname: other\n---\n");
    me.edit("skills/doc/SKILL.md", "one", "ONE");
    std::fs::remove_dir_all(me.path().join("skills/pdf")).unwrap();
    let before = me.snapshot();
    let listed = manage::list(&me.root).unwrap();
    let shown: Vec<(&str, bool, &str)> = listed
        .iter()
        .map(|s| {
            (
                s.name.as_str(),
                matches!(s.origin, SkillOrigin::Own),
                s.state.as_str(),
            )
        })
        .collect();
    assert_eq!(
        shown,
        [
            ("broken", true, "invalid"),
            ("doc", false, "modified"),
            ("mine", true, "valid"),
            ("pdf", false, "missing"),
        ]
    );
    assert!(
        matches!(&listed[0].state, Listed::Own(OwnState::Invalid(why)) if matches!(why, asv_skills::status::Invalid::Breaks(f) if f.path == "skills/broken/SKILL.md")),
        "{:?}",
        listed[0]
    );
    assert!(matches!(
        &listed[1].origin,
        SkillOrigin::Imported { source, .. } if *source == up.source()
    ));
    assert!(matches!(&listed[3].state, Listed::Imported(State::Missing)));
    assert_eq!(me.snapshot(), before, "list writes nothing");
}
