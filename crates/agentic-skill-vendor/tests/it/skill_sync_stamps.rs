//! `skill sync` judging copies by the stamps an earlier run recorded (issue 30 §5), on the real
//! binary: a run with nothing changed reads no skill directory again and writes nothing, not
//! even its cache; an edit that keeps the size and puts the modification time back, or a file
//! added inside a copy, is still caught; a cache file that is garbage, oversized, a link, or
//! another root's is ignored (the run reads everything, as with no cache). The cache lives
//! outside the repository, in a directory each test names.
#![allow(clippy::disallowed_methods, clippy::unwrap_used)]

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::common::{Repo, Run, run_bin_env};

const GUIDE: &str = "references/guide.md";

/// A repository with two skills of three files each, mirrored for claude and codex (two
/// directories: four copies), and a cache directory of its own outside it.
struct Stamped {
    me: Repo,
    cache: tempfile::TempDir,
}

impl Stamped {
    fn new() -> Stamped {
        let me = Repo::empty();
        for name in ["a", "b"] {
            me.write(
                &format!("skills/{name}/SKILL.md"),
                format!("---\nname: {name}\ndescription: Skill {name}.\n---\n# {name}\n"),
            );
            me.write(&format!("skills/{name}/{GUIDE}"), "g".repeat(4096));
            me.write(&format!("skills/{name}/scripts/run.sh"), "#!/bin/sh\n");
        }
        me.write("vendor-skills.yaml", "targets: [claude, codex]\n");
        Stamped {
            me,
            cache: tempfile::tempdir().unwrap(),
        }
    }

    /// `skill sync` with this cache, and what the run counted: directories taken from the
    /// cache, directories read whole.
    fn sync(&self) -> (Run, (usize, usize)) {
        self.sync_of(&self.me)
    }

    fn sync_of(&self, repo: &Repo) -> (Run, (usize, usize)) {
        let counts = self.cache.path().join("counts");
        let _ = std::fs::remove_file(&counts);
        let args: Vec<String> = ["skill", "sync", "--root"]
            .iter()
            .map(|s| s.to_string())
            .chain([repo.path().display().to_string()])
            .collect();
        let cache = self.cache.path().join("dir");
        let run = run_bin_env(
            &args,
            None,
            None,
            &[
                ("ASV_CACHE_DIR", cache.to_str().unwrap()),
                ("ASV_TEST_STAMP_COUNTS", counts.to_str().unwrap()),
            ],
        );
        let text = std::fs::read_to_string(&counts).unwrap_or_default();
        let mut fields = text.split_whitespace().map(|n| n.parse().unwrap());
        let seen = (fields.next().unwrap_or(0), fields.next().unwrap_or(0));
        (run, seen)
    }

    /// The cache files, by name.
    fn files(&self) -> Vec<PathBuf> {
        let mut out: Vec<PathBuf> = std::fs::read_dir(self.cache.path().join("dir/stamps"))
            .map(|d| d.map(|e| e.unwrap().path()).collect())
            .unwrap_or_default();
        out.sort();
        out
    }

    /// Synced twice, so sources and copies are all recorded, with time for the records to
    /// settle before the next run.
    fn settled(self) -> Stamped {
        let (first, seen) = self.sync();
        assert_eq!(first.code, 0, "{first:?}");
        assert_eq!(
            seen,
            (0, 2),
            "the first run reads the two skills: {first:?}"
        );
        settle();
        let (second, seen) = self.sync();
        assert_eq!(second.code, 0, "{second:?}");
        assert_eq!(seen, (2, 4), "the second reads the four copies placed");
        settle();
        self
    }
}

/// Longer than the coarsest tick of the clock the kernel stamps files with, so what was
/// written before counts as settled (git's racily-clean rule): a wait for correctness, not a
/// timing.
fn settle() {
    std::thread::sleep(Duration::from_millis(50));
}

/// Rewrites `path` with `bytes` (the same length), putting its modification time back.
fn edit_keeping_mtime(path: &Path, bytes: &[u8]) {
    let before = std::fs::metadata(path).unwrap();
    assert_eq!(before.len(), bytes.len() as u64);
    std::fs::write(path, bytes).unwrap();
    let f = std::fs::OpenOptions::new().write(true).open(path).unwrap();
    f.set_modified(before.modified().unwrap()).unwrap();
    drop(f);
    let after = std::fs::metadata(path).unwrap();
    assert_eq!(after.modified().unwrap(), before.modified().unwrap());
    assert_eq!(after.len(), before.len());
}

#[test]
fn a_sync_with_nothing_changed_reads_nothing_again_and_writes_nothing() {
    let s = Stamped::new().settled();
    let files = s.files();
    assert_eq!(files.len(), 1, "one cache file for the root: {files:?}");
    let cache_before = std::fs::read(&files[0]).unwrap();
    let cache_mtime = std::fs::metadata(&files[0]).unwrap().modified().unwrap();
    let tree = s.me.snapshot();
    let (run, seen) = s.sync();
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(seen, (6, 0), "two skills and four copies, none read again");
    assert_eq!(s.me.snapshot(), tree);
    assert_eq!(s.files(), files);
    assert_eq!(std::fs::read(&files[0]).unwrap(), cache_before);
    assert_eq!(
        std::fs::metadata(&files[0]).unwrap().modified().unwrap(),
        cache_mtime,
        "the cache is not rewritten either"
    );
    // Nothing of the cache inside the repository.
    assert!(!s.me.snapshot().keys().any(|k| k.contains("stamp")));
}

#[test]
fn an_edit_keeping_size_and_mtime_is_caught_by_its_change_time() {
    let s = Stamped::new().settled();
    let copy = s.me.join(&format!(".claude/skills/a/{GUIDE}"));
    edit_keeping_mtime(&copy, "h".repeat(4096).as_bytes());
    let (run, seen) = s.sync();
    assert_ne!(run.code, 0, "{run:?}");
    assert!(
        run.stderr.contains(&format!(".claude/skills/a/{GUIDE}")),
        "{run:?}"
    );
    assert_eq!(seen, (0, 0), "a refusal saves nothing");
    // The same edit in a skill's own file is carried to every copy.
    std::fs::write(&copy, "g".repeat(4096)).unwrap();
    settle();
    let source = s.me.join(&format!("skills/b/{GUIDE}"));
    edit_keeping_mtime(&source, "i".repeat(4096).as_bytes());
    let (run, _) = s.sync();
    assert_eq!(run.code, 0, "{run:?}");
    assert!(run.stdout.contains(".claude/skills/b"), "{run:?}");
    for dir in [".claude", ".agents"] {
        assert_eq!(
            s.me.read_string(&format!("{dir}/skills/b/{GUIDE}")),
            "i".repeat(4096)
        );
    }
}

/// A copy's recorded stamps stand for the check of what kind of entry is at its place: a link
/// put there to the very directory the sync placed (moved away, its stamps unchanged), or a
/// link in place of the agent's directory, is still refused as not a copy.
#[test]
fn a_copy_moved_away_behind_a_link_is_refused_as_before() {
    let s = Stamped::new().settled();
    let copy = s.me.join(".claude/skills/a");
    let moved = s.cache.path().join("moved-a");
    std::fs::rename(&copy, &moved).unwrap();
    std::os::unix::fs::symlink(&moved, &copy).unwrap();
    let (run, seen) = s.sync();
    assert_ne!(run.code, 0, "{run:?}");
    assert!(run.stderr.contains(".claude/skills/a"), "{run:?}");
    assert_eq!(seen, (0, 0), "a refusal saves nothing");
    std::fs::remove_file(&copy).unwrap();
    std::fs::rename(&moved, &copy).unwrap();
    let agent = s.me.join(".agents/skills");
    let moved = s.cache.path().join("moved-agents");
    std::fs::rename(&agent, &moved).unwrap();
    std::os::unix::fs::symlink(&moved, &agent).unwrap();
    let (run, _) = s.sync();
    assert_ne!(run.code, 0, "{run:?}");
    assert!(run.stderr.contains(".agents/skills"), "{run:?}");
}

#[test]
fn a_file_added_inside_a_copy_is_caught() {
    let s = Stamped::new().settled();
    s.me.write(".agents/skills/b/references/extra.md", "more");
    let (run, _) = s.sync();
    assert_ne!(run.code, 0, "{run:?}");
    assert!(
        run.stderr.contains(".agents/skills/b/references/extra.md"),
        "{run:?}"
    );
}

#[test]
fn a_hostile_cache_file_is_ignored_and_everything_read() {
    let s = Stamped::new().settled();
    let file = s.files().pop().unwrap();
    let good = std::fs::read(&file).unwrap();
    let elsewhere = s.cache.path().join("elsewhere");
    std::fs::write(&elsewhere, &good).unwrap();
    type Spoil<'a> = Box<dyn Fn() + 'a>;
    let cases: Vec<(&str, Spoil)> = vec![
        (
            "garbage",
            Box::new(|| std::fs::write(&file, b"\x00\xffnot a cache\n").unwrap()),
        ),
        (
            "cut short",
            Box::new(|| std::fs::write(&file, &good[..good.len() / 2]).unwrap()),
        ),
        (
            "oversized",
            Box::new(|| {
                std::fs::write(&file, &good).unwrap();
                let f = std::fs::OpenOptions::new().write(true).open(&file).unwrap();
                f.set_len(asv_skilltree::cache::MAX_BYTES + 1).unwrap();
            }),
        ),
        (
            "a link to a good one",
            Box::new(|| {
                let _ = std::fs::remove_file(&file);
                std::os::unix::fs::symlink(&elsewhere, &file).unwrap();
            }),
        ),
    ];
    for (what, spoil) in cases {
        // The good cache first, so a spoiled one differs from a working one only by the spoil.
        let _ = std::fs::remove_file(&file);
        std::fs::write(&file, &good).unwrap();
        let (run, seen) = s.sync();
        assert_eq!(
            (run.code, seen),
            (0, (6, 0)),
            "{what}: the good cache works"
        );
        spoil();
        let tree = s.me.snapshot();
        let (run, seen) = s.sync();
        assert_eq!(run.code, 0, "{what}: {run:?}");
        assert_eq!(seen, (0, 6), "{what}: everything read whole");
        assert_eq!(s.me.snapshot(), tree, "{what}");
        if what.starts_with("a link") {
            assert_eq!(
                std::fs::read(&elsewhere).unwrap(),
                good,
                "not written through"
            );
        }
        settle();
    }
}

#[test]
fn a_cache_file_of_another_root_is_ignored() {
    let s = Stamped::new().settled();
    let mine = s.files().pop().unwrap();
    let other = Repo::empty();
    for f in ["skills/a/SKILL.md", "vendor-skills.yaml"] {
        other.write(f, s.me.read(f));
    }
    let (run, _) = s.sync_of(&other);
    assert_eq!(run.code, 0, "{run:?}");
    let theirs: Vec<PathBuf> = s.files().into_iter().filter(|f| *f != mine).collect();
    assert_eq!(theirs.len(), 1, "one cache file per root");
    std::fs::copy(&mine, &theirs[0]).unwrap();
    settle();
    let (run, seen) = s.sync_of(&other);
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(
        seen.0, 0,
        "nothing taken from another root's cache: {run:?}"
    );
}

#[test]
fn a_dry_run_never_uses_nor_writes_the_cache() {
    let s = Stamped::new();
    let args: Vec<String> = ["skill", "sync", "--dry-run", "--root"]
        .iter()
        .map(|x| x.to_string())
        .chain([s.me.path().display().to_string()])
        .collect();
    let cache = s.cache.path().join("dir");
    let run = run_bin_env(
        &args,
        None,
        None,
        &[("ASV_CACHE_DIR", cache.to_str().unwrap())],
    );
    assert_eq!(run.code, 0, "{run:?}");
    assert!(s.files().is_empty(), "a dry run writes no cache");
}
