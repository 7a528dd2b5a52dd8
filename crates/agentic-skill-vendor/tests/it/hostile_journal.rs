//! Journals are input (issue 27 §1): a journal is a file in the repository, so it can be
//! committed, checked out, copied or written by hand. Before this, a `.asv-journal-<hex>` at
//! the root naming `../victim/data` made the next writer delete that path. For a table of
//! crafted journals, every writer is run on the real binary and must refuse with the exact
//! text naming the journal, and every reader must report it; a canary directory outside the
//! repository, the repository's `.git`, its skills and the journal itself must be exactly as
//! they were.
#![allow(clippy::disallowed_methods, clippy::unwrap_used)]

use std::collections::BTreeMap;
use std::fs;
use std::os::unix::fs::MetadataExt;
use std::path::PathBuf;

use crate::common::{Run, git, run_bin_in, tree_bytes};

const PDF: &str = "---\nname: pdf\ndescription: Reads PDF files.\n---\n# PDF\n\nBody.\n";
const JOURNAL: &str = ".agentic-skill-vendor/journal-0123456789ab";

/// A temporary directory holding the repository (`repo/`, a real git work tree that took
/// `skills/pdf` from `up/`), a canary beside it (`outside/`) and the upstream.
struct World {
    dir: tempfile::TempDir,
}

impl World {
    fn new() -> World {
        let world = World {
            dir: tempfile::tempdir().unwrap(),
        };
        world.write("outside/victim/data", "canary\n");
        world.write("up/skills/pdf/SKILL.md", PDF);
        world.write("up/skills/csv/SKILL.md", PDF.replace("pdf", "csv"));
        world.write(
            "repo/skills/own/SKILL.md",
            "---\nname: own\ndescription: Ours.\n---\n",
        );
        git(&world.path("repo"), &["init", "-q"]);
        let up = world.path("up").display().to_string();
        let added = world.run(&["skill", "add", &up, "skills/pdf"]);
        assert_eq!(added.code, 0, "{added:?}");
        world
    }

    fn path(&self, rel: &str) -> PathBuf {
        self.dir.path().join(rel)
    }

    fn write(&self, rel: &str, text: impl AsRef<[u8]>) {
        let p = self.path(rel);
        fs::create_dir_all(p.parent().unwrap()).unwrap();
        fs::write(p, text).unwrap();
    }

    fn run(&self, args: &[&str]) -> Run {
        let root = self.path("repo");
        let mut all: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        all.push("--root".into());
        all.push(root.display().to_string());
        run_bin_in(&all, None, Some(&root))
    }

    /// Everything a crafted journal must not reach: the canary, the repository's `.git` and
    /// skills, its locks, and the journals themselves.
    fn guarded(&self) -> BTreeMap<String, Vec<u8>> {
        let mut out = BTreeMap::new();
        for rel in ["outside", "repo"] {
            tree_bytes(&self.path(rel), rel, &mut out);
        }
        out
    }

    /// `dev:ino` of the entry at `rel`, as a journal records it.
    fn identity(&self, rel: &str) -> String {
        let meta = fs::symlink_metadata(self.path(rel)).unwrap();
        format!("{}:{}", meta.dev(), meta.ino())
    }
}

/// A journal of this version's format: its opening (run id, root and own identity, command)
/// then `records`, each field NUL-terminated.
fn journal(root: &str, own: &str, records: &[&str]) -> Vec<u8> {
    let mut bytes = b"asv-journal 2\n".to_vec();
    let opening = [
        "run",
        "0123456789ab",
        "root",
        root,
        "self",
        own,
        "command",
        "agentic-skill-vendor gen",
    ];
    for field in opening.iter().chain(records) {
        bytes.extend_from_slice(field.as_bytes());
        bytes.push(0);
    }
    bytes
}

/// Writes a journal at [`JOURNAL`] that records its own identity truly (as a run on this
/// machine would) and the repository's, with `records`.
fn own_journal(world: &World, records: &[&str]) {
    // Made first so the inode is known, then filled in place (the inode stays).
    world.write(&format!("repo/{JOURNAL}"), "");
    let own = world.identity(&format!("repo/{JOURNAL}"));
    let root = world.identity("repo");
    fs::write(
        world.path(&format!("repo/{JOURNAL}")),
        journal(&root, &own, records),
    )
    .unwrap();
}

/// Every writer refuses with exactly `says` about `at` (stderr, exit 2); every reader reports
/// it (stdout, exit 1); nothing guarded changes.
fn all_refuse(world: &World, at: &str, says: &str) -> Result<(), String> {
    let before = world.guarded();
    let up = world.path("up").display().to_string();
    let error = format!(
        "error: {at}: not acted on: {says}; nothing was moved or removed. If no run of agentic-skill-vendor is changing this repository, delete this file and run the command again\n"
    );
    let writers: Vec<Vec<&str>> = vec![
        vec!["init"],
        vec!["gen"],
        vec!["fetch"],
        vec!["update"],
        vec!["skill", "sync"],
        vec!["skill", "sync", "--force"],
        vec!["skill", "pull"],
        vec!["skill", "diff", "nosuch"],
        vec!["skill", "remove", "pdf", "--force"],
        vec!["skill", "resolve", "pdf"],
        vec!["skill", "add", &up, "skills/csv"],
        vec!["skill", "add", &up, "skills", "--all"],
    ];
    for args in &writers {
        let out = world.run(args);
        if out.code != 2 || out.stderr != error {
            return Err(format!("{args:?}: {out:?}\nwanted: {error}"));
        }
        if world.guarded() != before {
            return Err(format!("{args:?} changed the tree"));
        }
    }
    let finding = format!(
        "journal-refused: {at}: a journal no command acts on: {says}; if no run of agentic-skill-vendor is changing this repository, delete this file"
    );
    for args in [&["verify"][..], &["skill", "verify"], &["lint-selfcontain"]] {
        let out = world.run(args);
        if out.code != 1 || out.stdout.lines().next() != Some(finding.as_str()) {
            return Err(format!("{args:?}: {out:?}\nwanted: {finding}"));
        }
    }
    if world.guarded() != before {
        return Err("a reader changed the tree".to_owned());
    }
    Ok(())
}

#[test]
fn a_journal_at_the_root_is_never_acted_on() {
    let world = World::new();
    // The shape the adversarial run used: an earlier version's journal naming a path
    // outside the repository and one inside.
    let mut bytes = b"asv-journal 1\n".to_vec();
    for f in [
        "command",
        "gen",
        "P",
        "../outside/victim/data",
        "-",
        "P",
        "skills/pdf",
        "-",
    ] {
        bytes.extend_from_slice(f.as_bytes());
        bytes.push(0);
    }
    world.write("repo/.asv-journal-0123456789ab", &bytes);
    all_refuse(
        &world,
        ".asv-journal-0123456789ab",
        "a journal at the root of the tree was kept by an earlier version or put there by hand (journals live in .agentic-skill-vendor/)",
    )
    .unwrap();
}

#[test]
fn crafted_journals_are_refused_by_every_writer_and_reported_by_every_reader() {
    type Craft = fn(&World);
    let rows: Vec<(&str, Craft, String)> = vec![
        (
            "a path above the root",
            |w| own_journal(w, &["P", "../outside/victim/data", "-"]),
            "it names ../outside/victim/data, which is not a plain path below the root outside .git".to_owned(),
        ),
        (
            "an absolute path",
            |w| own_journal(w, &["P", "/etc/passwd", "-"]),
            "it names /etc/passwd, which is not a plain path below the root outside .git".to_owned(),
        ),
        (
            "git's objects",
            |w| own_journal(w, &["P", ".git/objects", "-"]),
            "it names .git/objects, which is not a plain path below the root outside .git".to_owned(),
        ),
        (
            "a made directory in .git",
            |w| own_journal(w, &["M", ".GIT/hooks", "1:2"]),
            "it names .GIT/hooks, which is not a plain path below the root outside .git".to_owned(),
        ),
        (
            "a path through a link",
            |w| {
                std::os::unix::fs::symlink(w.path("outside"), w.path("repo/linked")).unwrap();
                own_journal(w, &["P", "linked/victim/data", "-"]);
            },
            "a path it names is reached through the link linked".to_owned(),
        ),
        (
            "a journal that names no identity of its own (written by hand)",
            |w| {
                let root = w.identity("repo");
                w.write(
                    &format!("repo/{JOURNAL}"),
                    journal(&root, "1:1", &["P", "skills/pdf", "-"]),
                );
            },
            "it is not the file a run on this machine wrote (it was copied, checked out or written by hand)".to_owned(),
        ),
        (
            "a journal of another tree",
            |w| {
                let own_path = format!("repo/{JOURNAL}");
                w.write(&own_path, "");
                let own = w.identity(&own_path);
                fs::write(w.path(&own_path), journal("1:1", &own, &["P", "skills/pdf", "-"]))
                    .unwrap();
            },
            "it was written in another tree".to_owned(),
        ),
        (
            "a journal git tracks",
            |w| {
                own_journal(w, &["P", "skills/pdf", "-"]);
                git(&w.path("repo"), &["add", "-f", JOURNAL]);
            },
            "git tracks it, so it came with the repository".to_owned(),
        ),
        (
            "an earlier format in the state directory",
            |w| w.write(&format!("repo/{JOURNAL}"), b"asv-journal 1\ncommand\0gen\0P\0skills/pdf\0-\0"),
            "it is a journal of an earlier version".to_owned(),
        ),
        (
            "something that is no journal",
            |w| w.write(&format!("repo/{JOURNAL}"), "rm -rf /\n"),
            "it is not a journal this version writes".to_owned(),
        ),
        (
            "a link where the journal stands",
            |w| {
                fs::create_dir_all(w.path("repo/.agentic-skill-vendor")).unwrap();
                std::os::unix::fs::symlink(
                    w.path("outside/victim/data"),
                    w.path(&format!("repo/{JOURNAL}")),
                )
                .unwrap();
            },
            "a symbolic link stands where a journal would".to_owned(),
        ),
        (
            "a journal past the size limit",
            |w| {
                own_journal(w, &["P", "skills/pdf", "-"]);
                // Sparse: 90 MB on paper, nothing on disk; refused before it is read.
                let file = fs::OpenOptions::new()
                    .write(true)
                    .open(w.path(&format!("repo/{JOURNAL}")))
                    .unwrap();
                file.set_len(90_000_000).unwrap();
            },
            "it is 90000000 bytes, over the 67108864-byte limit of a journal".to_owned(),
        ),
    ];
    let mut failures = Vec::new();
    for (what, craft, says) in rows {
        let world = World::new();
        craft(&world);
        if let Err(e) = all_refuse(&world, JOURNAL, &says) {
            failures.push(format!("{what}: {e}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn a_proven_journal_acts_only_on_what_its_run_made() {
    let world = World::new();
    let before = world.guarded();
    // A run that was to replace skills/own and create skills/new, killed before staging:
    // skills/new now holds an entry the run did not make (its identity was never recorded),
    // and a look-alike staged name of another run stands beside skills/own.
    world.write(
        "repo/skills/new/SKILL.md",
        "made by the user after the kill\n",
    );
    world.write(
        "repo/skills/.own.asv-staged-ffffffffffff00000000",
        "not this run's\n",
    );
    let own = world.identity("repo/skills/own");
    own_journal(&world, &["P", "skills/new", "-", "P", "skills/own", &own]);
    let out = world.run(&["skill", "sync"]);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(
        out.stderr.starts_with(&format!(
            "warning: {JOURNAL}: put back what was changed by `agentic-skill-vendor gen`"
        )),
        "{out:?}"
    );
    // The journal and its directory are gone; everything else is as it was, the user's new
    // skill and the other run's entry included.
    let mut after = world.guarded();
    assert!(
        !after
            .keys()
            .any(|k| k.contains(".agentic-skill-vendor/journal-"))
    );
    assert_eq!(
        after.remove("repo/skills/new/SKILL.md").as_deref(),
        Some(&b"made by the user after the kill\n"[..])
    );
    assert!(after.remove("repo/skills/new/").is_some());
    assert!(
        after
            .remove("repo/skills/.own.asv-staged-ffffffffffff00000000")
            .is_some()
    );
    let mut before = before;
    // `skill sync` may rewrite nothing here: same lock, same skills.
    before.retain(|k, _| !k.starts_with("repo/.agentic-skill-vendor/journal-"));
    after.retain(|k, _| k != "repo/.agentic-skill-vendor/");
    before.retain(|k, _| k != "repo/.agentic-skill-vendor/");
    assert_eq!(after, before);
}
