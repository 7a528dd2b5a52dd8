//! An apply interrupted at every one of its file system calls leaves the tree as it was
//! (before the commit point) or finished with a warning (after it); a rollback that itself
//! fails names every parked entry and never loses one.
// Tests build and inspect fixtures with std::fs directly; the tree under test is only
// changed through asv_fs.
// A broken fixture is a failed test: helpers panic rather than return errors.

use crate::common;
use common::ApplyLocked as _;

use std::collections::BTreeMap;
use std::path::Path;

use asv_error::Failure as _;
use asv_fs::apply::FaultPlan;
use asv_fs::{
    Change, Content, Disowned, During, Error, Fill, NewFile, Ownership, Plan, Root, Verdict,
};
use common::{Node, chmod, put, recovered, snapshot, subtree, without_residue};
use rustix::io::Errno;

const ERRNOS: [(Errno, &str); 3] = [
    (Errno::NOSPC, "ENOSPC"),
    (Errno::ACCESS, "EACCES"),
    (Errno::BUSY, "EBUSY"),
];

/// The destinations the multi-destination plan changes.
const DESTS: [&str; 9] = [
    "skills/a",
    "skills/b",
    "skills/c/run.sh",
    "skills/d",
    "skills/e.txt",
    "skills/n/deep/made",
    "skills/k",
    "skills/0/vendor/one.md",
    "skills/0/vendor/two.md",
];

struct Fixture {
    _dir: tempfile::TempDir,
    root: std::path::PathBuf,
    source: std::path::PathBuf,
    source_file: std::path::PathBuf,
}

impl Drop for Fixture {
    fn drop(&mut self) {
        common::make_writable(&self.root);
    }
}

/// A tree with something at every destination kind, and copy sources beside it.
fn fixture() -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("root");
    let source = dir.path().join("source");
    let source_file = dir.path().join("one-file.txt");
    put(&root, "keep.txt", b"untouched\n");
    // Replaced by a copy (forced).
    put(&root, "skills/a/SKILL.md", b"a old\n");
    put(&root, "skills/a/ref/x.md", b"x old\n");
    // Removed (tool state), read-only inside.
    put(&root, "skills/b/old.txt", b"b old\n");
    put(&root, "skills/b/ro/locked.txt", b"locked\n");
    chmod(&root, "skills/b/ro/locked.txt", 0o444);
    chmod(&root, "skills/b/ro", 0o555);
    // One file's bytes replaced (keeps its mode).
    put(&root, "skills/c/run.sh", b"echo old\n");
    chmod(&root, "skills/c/run.sh", 0o750);
    // Replaced by written files (recognised as the tool's by its marker).
    put(&root, "skills/d/.vendored", b"");
    put(&root, "skills/d/old.md", b"d old\n");
    // Kept: a remove whose content is the same.
    put(&root, "skills/k/same.md", b"same\n");
    // Copy sources, outside the tree.
    put(&source, "SKILL.md", b"a new\n");
    put(&source, "ref/y.md", b"y new\n");
    put(&source, "bin/tool", b"#!/bin/sh\n");
    chmod(&source, "bin/tool", 0o755);
    chmod(&source, "bin", 0o555);
    put(dir.path(), "one-file.txt", b"one\n");
    Fixture {
        _dir: dir,
        root,
        source,
        source_file,
    }
}

fn changes(f: &Fixture) -> Vec<Change> {
    vec![
        Change::replace("skills/a", Fill::copy(&f.source), Ownership::Force),
        Change::remove("skills/b", Ownership::ToolState),
        Change::replace_file("skills/c/run.sh", b"echo new\n", Ownership::Force),
        Change::replace(
            "skills/d",
            Fill::files(vec![
                NewFile::new(".vendored", ""),
                NewFile::new("SKILL.md", "d new\n"),
                NewFile::new("scripts/x.sh", "#!/bin/sh\n").executable(),
            ]),
            Ownership::tool_made(|root, dest, _| {
                Ok(if root.kind(&format!("{dest}/.vendored"))?.is_some() {
                    Verdict::Ours
                } else {
                    Verdict::NotOurs(Disowned::Changed(During::Command))
                })
            }),
        ),
        Change::replace(
            "skills/e.txt",
            Fill::copy(&f.source_file),
            Ownership::MustBeFree,
        ),
        Change::replace(
            "skills/n/deep/made",
            Fill::files(vec![NewFile::new("SKILL.md", "made\n")]),
            Ownership::MustBeFree,
        ),
        // New files in a directory the apply makes: written in place, not staged. They sort
        // first, so their rollback comes last and the sampled rollback failures still reach
        // the parked entries.
        Change::replace_file("skills/0/vendor/one.md", b"one\n", Ownership::Force),
        Change::replace_file_parts(
            "skills/0/vendor/two.md",
            vec![
                std::sync::Arc::new("head\n") as asv_fs::plan::SharedBytes,
                std::sync::Arc::new("body\n"),
            ],
            Ownership::Force,
        ),
        Change::remove_keep_if_same(
            "skills/k",
            Content::Files(vec![("same.md".into(), b"same\n".to_vec())]),
            Ownership::ToolState,
        ),
    ]
}

fn plan<'t>(root: &'t Root, f: &Fixture) -> Plan<'t> {
    Plan::new(root, changes(f)).unwrap()
}

const DESCRIBED: &str = "\
create skills/0/vendor/one.md
create skills/0/vendor/two.md
replace skills/a (forced)
remove skills/b (tool state)
replace skills/c/run.sh (forced)
replace skills/d (made by this tool)
create skills/e.txt
keep skills/k (holds the content to keep)
create skills/n/deep/made
";

/// The calls an unfaulted apply makes, the index of the first after its commit point, and
/// the tree it leaves.
fn baseline(no_exchange: bool) -> (usize, usize, BTreeMap<String, Node>) {
    let f = fixture();
    let root = Root::open(&f.root).unwrap();
    let plan = plan(&root, &f);
    assert_eq!(plan.describe(), DESCRIBED);
    let faults = if no_exchange {
        FaultPlan::new().without_exchange()
    } else {
        FaultPlan::new()
    };
    let applied = plan.with_faults(faults).apply_locked().unwrap();
    assert!(applied.warnings().is_empty());
    let after = snapshot(&f.root);
    check_after(&after);
    (applied.fs_calls(), applied.commit_call(), after)
}

/// The after-state, spelled out.
fn check_after(after: &BTreeMap<String, Node>) {
    let file = |path: &str| match after.get(path) {
        Some(Node::File { bytes, mode }) => (bytes.clone(), *mode),
        other => panic!("{path}: {other:?}"),
    };
    let dir_mode = |path: &str| match after.get(path) {
        Some(Node::Dir { mode }) => *mode,
        other => panic!("{path}: {other:?}"),
    };
    assert_eq!(file("keep.txt").0, b"untouched\n");
    assert_eq!(file("skills/a/SKILL.md").0, b"a new\n");
    assert_eq!(file("skills/a/ref/y.md").0, b"y new\n");
    assert_eq!(file("skills/a/bin/tool"), (b"#!/bin/sh\n".to_vec(), 0o755));
    assert_eq!(dir_mode("skills/a/bin"), 0o755, "source mode | 0o700");
    assert!(!after.contains_key("skills/a/ref/x.md"));
    assert!(!after.contains_key("skills/b"));
    assert_eq!(file("skills/c/run.sh"), (b"echo new\n".to_vec(), 0o750));
    assert_eq!(file("skills/d/SKILL.md").0, b"d new\n");
    assert_eq!(file("skills/d/scripts/x.sh").1 & 0o100, 0o100);
    assert!(!after.contains_key("skills/d/old.md"));
    assert_eq!(file("skills/e.txt").0, b"one\n");
    assert_eq!(file("skills/n/deep/made/SKILL.md").0, b"made\n");
    assert_eq!(file("skills/k/same.md").0, b"same\n");
    assert_eq!(file("skills/0/vendor/one.md").0, b"one\n");
    assert_eq!(file("skills/0/vendor/two.md").0, b"head\nbody\n");
    assert!(
        after
            .keys()
            .all(|p| !p.split('/').any(asv_fs::is_tree_change_residue)),
        "no residue after a clean apply"
    );
}

fn sweep(no_exchange: bool) {
    let (calls, commit, after) = baseline(no_exchange);
    assert!(commit > 20 && calls > commit, "{commit} of {calls}");
    for (errno, name) in ERRNOS {
        for n in 0..=calls {
            let f = fixture();
            let before = snapshot(&f.root);
            let root = Root::open(&f.root).unwrap();
            let mut faults = FaultPlan::new().fail_call(n, errno.raw_os_error());
            if no_exchange {
                faults = faults.without_exchange();
            }
            let outcome = plan(&root, &f).with_faults(faults).apply_locked();
            let now = snapshot(&f.root);
            if n < commit {
                let error = outcome.expect_err(&format!("{name} at call {n} must fail"));
                assert!(
                    !matches!(error, Error::RollbackIncomplete { .. }),
                    "{name} at {n}: {error}"
                );
                assert_eq!(
                    common::errno_of(&error),
                    Some(errno.raw_os_error()),
                    "{name} at {n}: {error}"
                );
                assert_eq!(
                    now, before,
                    "{name} at call {n}: the tree must be as before"
                );
            } else if n + 1 == calls {
                // The last call removes the journal: the change is complete all the same, and
                // the next writer only removes the journal.
                let applied = outcome.unwrap_or_else(|e| panic!("{name} at {n}: {e}"));
                assert!(applied.warnings().is_empty());
                assert_ne!(now, after, "the journal is left");
                assert_eq!(without_residue(&now), after, "{name} at {n}");
                assert_eq!(recovered(&f.root), after, "{name} at {n}");
            } else if n < calls {
                let applied = outcome.unwrap_or_else(|e| panic!("{name} at {n}: {e}"));
                assert_eq!(applied.warnings().len(), 1, "{name} at {n}");
                let warning = &applied.warnings()[0];
                assert_eq!(warning.code(), "cleanup-incomplete");
                let asv_fs::ApplyWarning::CleanupIncomplete { dest, parked, .. } = warning;
                assert!(now.contains_key(parked.as_str()), "{parked} is left");
                assert_ne!(parked, dest, "{name} at {n}");
                assert_eq!(without_residue(&now), after, "{name} at {n}");
                // The next writer finishes the clean-up the journal still describes.
                assert_eq!(recovered(&f.root), after, "{name} at {n}");
            } else {
                let applied = outcome.unwrap();
                assert!(applied.warnings().is_empty());
                assert_eq!(now, after);
            }
        }
    }
}

#[test]
fn every_interrupted_call_leaves_the_tree_as_it_was() {
    sweep(false);
}

#[test]
fn every_interrupted_call_leaves_the_tree_as_it_was_without_exchange() {
    sweep(true);
}

/// Checks what a failed apply with a failed rollback left, against the tree before.
fn check_rollback_outcome(
    root: &Path,
    before: &BTreeMap<String, Node>,
    error: &Error,
    stranded_seen: &mut usize,
) {
    let now = snapshot(root);
    let Error::RollbackIncomplete {
        stranded,
        leftovers,
        cause,
    } = error
    else {
        // The second fault fell after the rollback finished (at most the journal is left).
        assert_eq!(&without_residue(&now), before, "{error}");
        assert_eq!(&recovered(root), before, "{error}");
        return;
    };
    assert!(!stranded.is_empty() || !leftovers.is_empty());
    assert_eq!(common::errno_of(cause), Some(Errno::NOSPC.raw_os_error()));
    let message = error.to_string();
    assert!(
        message.starts_with("could not undo an interrupted change: "),
        "{message}"
    );
    assert!(message.ends_with("by hand"), "{message}");
    assert!(!message.contains('\n'));
    for entry in stranded {
        *stranded_seen += 1;
        assert!(message.contains(&entry.parked), "{message}");
        assert!(message.contains(&entry.dest), "{message}");
        // The parked entry is intact: exactly what the destination held.
        assert_eq!(
            subtree(&now, &entry.parked),
            subtree(before, &entry.dest),
            "{} parked at {}",
            entry.dest,
            entry.parked
        );
    }
    for dest in DESTS {
        if stranded.iter().any(|s| s.dest == dest) || leftovers.iter().any(|l| l == dest) {
            continue;
        }
        assert_eq!(
            subtree(&now, dest),
            subtree(before, dest),
            "{dest} must be restored: {message}"
        );
    }
    assert_eq!(now.get("keep.txt"), before.get("keep.txt"));
    // The journal stays, and the next writer finishes the rollback: every destination holds
    // what it held, and nothing of the run is left.
    assert_eq!(&recovered(root), before, "{message}");
}

fn failing_rollbacks(no_exchange: bool) {
    let (_, commit, _) = baseline(no_exchange);
    let mut stranded_seen = 0;
    let mut incomplete = 0;
    for n in 0..commit {
        // The rollback's calls follow the failed one; a sparse sample of them keeps the test
        // quick while still reaching every kind of rollback step for some `n`.
        for m in [1, 2, 3, 4, 6, 9, 13, 18, 24].map(|d| n + d) {
            let f = fixture();
            let before = snapshot(&f.root);
            let root = Root::open(&f.root).unwrap();
            let mut faults = FaultPlan::new()
                .fail_call(n, Errno::NOSPC.raw_os_error())
                .fail_call(m, Errno::BUSY.raw_os_error());
            if no_exchange {
                faults = faults.without_exchange();
            }
            let error = plan(&root, &f)
                .with_faults(faults)
                .apply_locked()
                .unwrap_err();
            if matches!(error, Error::RollbackIncomplete { .. }) {
                incomplete += 1;
            }
            check_rollback_outcome(&f.root, &before, &error, &mut stranded_seen);
        }
    }
    assert!(
        incomplete > 0 && stranded_seen > 0,
        "{incomplete} {stranded_seen}"
    );
}

#[test]
fn a_failing_rollback_names_what_is_parked_where() {
    failing_rollbacks(false);
}

#[test]
fn a_failing_rollback_names_what_is_parked_where_without_exchange() {
    failing_rollbacks(true);
}

#[test]
fn rollback_incomplete_message() {
    // Fail a swap late in the apply, then a call of its rollback, until that strands a
    // parked entry.
    let (_, commit, _) = baseline(false);
    for (n, m) in (0..commit)
        .rev()
        .flat_map(|n| (n + 1..n + 30).map(move |m| (n, m)))
    {
        let f = fixture();
        let root = Root::open(&f.root).unwrap();
        let faults = FaultPlan::new()
            .fail_call(n, Errno::NOSPC.raw_os_error())
            .fail_call(m, Errno::BUSY.raw_os_error());
        let error = plan(&root, &f)
            .with_faults(faults)
            .apply_locked()
            .unwrap_err();
        let Error::RollbackIncomplete {
            stranded,
            leftovers,
            ..
        } = &error
        else {
            continue;
        };
        if stranded.is_empty() {
            continue;
        }
        assert_eq!(stranded.len(), 1, "{error}");
        let entry = &stranded[0];
        assert!(asv_fs::is_parked_tree_entry(
            entry.parked.rsplit('/').next().unwrap()
        ));
        assert_eq!(error.side(), asv_error::Side::Destination);
        let mut want = format!(
            "could not undo an interrupted change: the previous {} is parked at {}",
            entry.dest, entry.parked
        );
        for leftover in leftovers {
            want.push_str(&format!(", {leftover} was left behind"));
        }
        want.push_str(if leftovers.is_empty() {
            "; move each parked entry back to its destination by hand"
        } else {
            "; move each parked entry back to its destination and remove what was left behind by hand"
        });
        assert_eq!(error.to_string(), want);
        let source = std::error::Error::source(&error).unwrap().to_string();
        assert!(source.contains("No space left on device"), "{source}");
        return;
    }
    panic!("no interrupted swap stranded a parked entry");
}
