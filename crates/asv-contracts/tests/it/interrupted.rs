//! A `gen` that fails at its Nth write leaves a tree `verify` reports, never a clean one.
//!
//! Every write goes through `asv_fs::Root`, whose fault injection fails the (N+1)th write or
//! removal. For each N short of a complete run, the tree left behind must carry at least one
//! violation; the complete run must verify clean. The rollback itself is not failed here, so
//! every stopped run must say it changed nothing ([`Error::RolledBack`]) and leave every file
//! as it was (issue 15: it used to say it stopped part-way).

use asv_contracts::{Error, GenOutcome, Repository, generate, verify};
use asv_fs::Root;

fn write(root: &Root, path: &str, text: &str) {
    root.write_file(path, text.as_bytes()).expect("write");
}

fn skill(ids: &[&str]) -> String {
    format!("---\nmetadata:\n  contracts: [{}]\n---\n", ids.join(", "))
}

/// Every file of the tree with its bytes.
fn files(dir: &std::path::Path) -> Vec<(String, Vec<u8>)> {
    let root = Root::open(dir).expect("open");
    root.walk_files("", &mut |_, _| false)
        .expect("walk")
        .unwrap_or_default()
        .into_iter()
        .map(|path| {
            let bytes = root.read_file(&path).expect("read").expect("listed");
            (path, bytes)
        })
        .collect()
}

/// Runs `gen` in `dir` failing after `n` writes. Returns whether that run completed; a run
/// that stopped must have rolled back to the very files it started from.
fn gen_failing_after(dir: &std::path::Path, n: usize) -> bool {
    let before = files(dir);
    let root = Root::open(dir).expect("open").fail_writes_after(n);
    let repo = Repository::load(&root).expect("load");
    match generate(&repo, &locked(&root)) {
        Ok(GenOutcome::Done { .. }) => true,
        Ok(GenOutcome::Closure(c)) => panic!("unexpected closure {c:?}"),
        Err(e @ Error::RolledBack { .. }) => {
            assert!(
                e.to_string().starts_with("gen changed nothing: "),
                "a complete rollback says so: {e}"
            );
            assert!(
                files(dir) == before,
                "gen stopped after {n} writes changed files"
            );
            false
        }
        Err(other) => panic!("unexpected error {other}"),
    }
}

fn violations(dir: &std::path::Path) -> Vec<String> {
    let root = Root::open(dir).expect("open");
    let repo = Repository::load(&root).expect("load");
    verify(&repo)
        .expect("verify")
        .iter()
        .map(|v| v.line_text())
        .collect()
}

fn check_every_interruption(setup: impl Fn(&Root)) {
    let mut completed_at = None;
    for n in 0..64 {
        let dir = tempfile::tempdir().expect("tempdir");
        setup(&Root::open(dir.path()).expect("open"));
        if gen_failing_after(dir.path(), n) {
            completed_at = Some(n);
            assert!(
                violations(dir.path()).is_empty(),
                "a complete run verifies clean"
            );
            break;
        }
        let found = violations(dir.path());
        assert!(
            !found.is_empty(),
            "gen interrupted after {n} writes left a root that verifies clean"
        );
        // The next gen carries on from what the stopped one left, and finishes clean.
        assert!(
            gen_failing_after(dir.path(), usize::MAX),
            "gen after a stop at write {n} completes"
        );
        assert!(
            violations(dir.path()).is_empty(),
            "gen after a stop at write {n} leaves a clean root"
        );
    }
    assert!(
        completed_at.is_some_and(|n| n >= 2),
        "the scenario needs several writes to be meaningful: {completed_at:?}"
    );
}

#[test]
fn fresh_tree() {
    check_every_interruption(|root| {
        write(root, "contracts/a.md", "A\n");
        write(root, "contracts/b.md", "B\n");
        write(root, "skills/one/SKILL.md", &skill(&["a", "b"]));
        write(root, "skills/two/SKILL.md", &skill(&["b"]));
    });
}

#[test]
fn edited_texts_and_a_withdrawn_declaration() {
    check_every_interruption(|root| {
        write(root, "contracts/a.md", "A\n");
        write(root, "contracts/b.md", "B\n");
        write(root, "skills/one/SKILL.md", &skill(&["a", "b"]));
        write(root, "skills/two/SKILL.md", &skill(&["a", "b"]));
        let repo = Repository::load(root).expect("load");
        generate(&repo, &locked(root)).expect("first gen");
        write(root, "contracts/a.md", "A, edited\n");
        write(root, "contracts/b.md", "B, edited\n");
        write(root, "skills/two/SKILL.md", &skill(&["a"]));
    });
}

#[test]
fn raw_dests_replaced_cleared_and_placed() {
    check_every_interruption(|root| {
        write(root, ".gitignore", "/.agentic-skill-vendor/\n");
        write(root, "tools/rt/a.py", "a = 1\n");
        write(root, "tools/rt/lib/b.py", "b = 2\n");
        write(root, "tools/c.sh", "echo c\n");
        write(root, "contracts/doc.md", "Doc\n");
        write(
            root,
            "vendor-manifest.yaml",
            "contracts:\n  rt:\n    source: local\n    files:\n      tools/rt/: scripts/rt/\n  c:\n    source: local\n    files:\n      tools/c.sh: scripts/c.sh\n",
        );
        write(root, "skills/one/SKILL.md", &skill(&["rt", "c", "doc"]));
        write(root, "skills/two/SKILL.md", &skill(&["rt", "c"]));
        let repo = Repository::load(root).expect("load");
        generate(&repo, &locked(root)).expect("first gen");
        // Change the files, withdraw c from skill two, add a new skill.
        write(root, "tools/rt/a.py", "a = 10\n");
        write(root, "contracts/doc.md", "Doc, edited\n");
        write(root, "skills/two/SKILL.md", &skill(&["rt"]));
        write(root, "skills/three/SKILL.md", &skill(&["c"]));
    });
}

fn raw_runtime(root: &Root, files_line: &str) {
    write(root, ".gitignore", "/.agentic-skill-vendor/\n");
    write(root, "tools/rt/a.py", "a = 1\n");
    write(root, "tools/rt/lib/b.py", "b = 2\n");
    write(
        root,
        "vendor-manifest.yaml",
        &format!("contracts:\n  rt:\n    source: local\n    files:\n{files_line}"),
    );
    write(root, "skills/one/SKILL.md", &skill(&["rt"]));
    write(root, "skills/two/SKILL.md", &skill(&["rt"]));
}

#[test]
fn migration_splitting_a_directory_into_its_parts() {
    check_every_interruption(|root| {
        raw_runtime(root, "      tools/rt/: scripts/rt/\n");
        generate(&Repository::load(root).expect("load"), &locked(root)).expect("first gen");
        raw_runtime(
            root,
            "      tools/rt/a.py: scripts/rt/a.py\n      tools/rt/lib/: scripts/rt/lib/\n",
        );
    });
}

#[test]
fn migration_gathering_parts_into_a_directory() {
    check_every_interruption(|root| {
        raw_runtime(
            root,
            "      tools/rt/a.py: scripts/rt/a.py\n      tools/rt/lib/: scripts/rt/lib/\n",
        );
        generate(&Repository::load(root).expect("load"), &locked(root)).expect("first gen");
        raw_runtime(root, "      tools/rt/: scripts/rt/\n");
    });
}

/// The tree's writer lock, as `gen` takes it before it changes the tree.
fn locked(root: &Root) -> asv_fs::WriterLock<'_> {
    root.lock_for_writing(std::time::Duration::from_secs(5))
        .expect("lock")
}
