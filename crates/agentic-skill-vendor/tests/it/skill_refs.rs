//! Issue 29 §2, "move an import to another ref and keep local edits": `skill pull` follows a
//! `ref:` changed in vendor-skills.yaml (or given with `--ref`) with the three-way merge of any
//! pull; short commit ids; semver ranges over tags; a moved tag refused. The upstream is a real
//! git repository on this machine, read through the git transport (`--ref`).
#![allow(clippy::disallowed_methods, clippy::unwrap_used)]

use crate::common::{Repo, assert_run_snapshot, short_ids};
use crate::git_server::git;

const SKILL: &str = "---\nname: pdf\ndescription: Reads PDF files.\n---\n# PDF\n\none\ntwo\nthree\nfour\nfive\nsix\n";

/// An upstream git repository with a work tree: commits and tags made between the binary's
/// runs.
struct Upstream {
    dir: tempfile::TempDir,
}

impl Upstream {
    fn new() -> Upstream {
        let dir = tempfile::tempdir().unwrap();
        git(dir.path(), &["init", "-q", "-b", "main", "up"]);
        Upstream { dir }
    }

    /// The source as `skill add` takes it: an absolute path.
    fn source(&self) -> String {
        self.dir.path().join("up").display().to_string()
    }

    fn write(&self, rel: &str, text: &str) {
        let p = self.dir.path().join("up").join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }

    /// Commits everything; the new commit id.
    fn commit(&self, message: &str) -> String {
        let work = self.dir.path().join("up");
        git(&work, &["add", "-A"]);
        git(&work, &["commit", "-q", "--allow-empty", "-m", message]);
        git(&work, &["rev-parse", "HEAD"])
    }

    /// Commits SKILL.md with `line` added at its end; the new commit id.
    fn release(&self, line: &str) -> String {
        self.write("skills/pdf/SKILL.md", &format!("{SKILL}{line}\n"));
        self.commit(line)
    }

    /// Tags `commit` as `name` (annotated, as releases usually are; `-f` moves it).
    fn tag(&self, name: &str, commit: &str) {
        let work = self.dir.path().join("up");
        git(&work, &["tag", "-f", "-a", "-m", name, name, commit]);
    }
}

fn lock_of(me: &Repo) -> serde_json::Value {
    serde_json::from_str(&me.read_string("vendor-skills-lock.json")).unwrap()
}

/// Replaces the `ref:` line of the intent file's only row, as a user edits it.
fn set_intent_ref(me: &Repo, from: &str, to: &str) {
    let text = me.read_string("vendor-skills.yaml");
    let edited = text.replace(&format!("    ref: {from}\n"), &format!("    ref: {to}\n"));
    assert_ne!(text, edited, "{text}");
    me.write("vendor-skills.yaml", edited);
}

/// From a commit to `main` by editing vendor-skills.yaml: outdated says why, verify says to
/// pull, and the pull merges upstream into the local edit (the old pin is the base).
#[test]
fn a_pin_moved_from_a_commit_to_main_keeps_the_local_edit() {
    let up = Upstream::new();
    up.write("skills/pdf/SKILL.md", SKILL);
    let first = up.commit("first");
    up.write(
        "skills/pdf/SKILL.md",
        &SKILL.replace("six\n", "six (theirs)\n"),
    );
    let second = up.commit("upstream edit");

    let me = Repo::empty();
    let source = up.source();
    let added = me.run(&["skill", "add", &source, "skills/pdf", "--ref", &first]);
    assert_eq!(added.code, 0, "{added:?}");
    me.write(
        "skills/pdf/SKILL.md",
        SKILL.replace("one\n", "one (ours)\n"),
    );
    // Pinned to a commit: nothing to pull, nothing outdated.
    let pulled = me.run(&["skill", "pull"]);
    assert_eq!(
        pulled.stdout,
        short_ids(&format!("pdf: up to date at {first}\n"))
    );
    let outdated = me.run(&["skill", "outdated"]);
    assert_eq!((outdated.code, outdated.stdout.as_str()), (0, ""));

    set_intent_ref(&me, &first, "main");
    let verify = me.run(&["skill", "verify"]);
    // The way out is the pull that moves the pin, not a remove and add.
    assert_run_snapshot!("verify_of_a_ref_moved_in_the_intent", verify, me);
    // sync never moves a pin, and names the pull that does.
    let synced = me.run(&["skill", "sync"]);
    assert_run_snapshot!("sync_of_a_ref_moved_in_the_intent", synced, me);
    // A dry run says what the pull would do and writes nothing.
    let before = me.snapshot();
    let dry = me.run(&["skill", "pull", "--dry-run"]);
    assert_eq!(
        dry.stdout,
        short_ids(&format!(
            "pdf: updated {first} -> {second} (local edits kept)\n"
        )),
        "{dry:?}"
    );
    assert_eq!(me.snapshot(), before, "a dry run writes nothing");
    let outdated = me.run(&["skill", "outdated"]);
    assert_eq!(
        (outdated.code, outdated.stdout.clone()),
        (
            1,
            short_ids(&format!(
                "pdf: {first} -> {second} (main; vendor-skills.yaml asks for it, the lock follows {first}: skill pull pdf moves the pin)\n"
            ))
        ),
        "{outdated:?}"
    );
    let json = me.run(&["skill", "outdated", "--format", "json"]);
    let record: serde_json::Value = serde_json::from_str(json.stdout.trim()).unwrap();
    assert_eq!(record["ref"], "main");
    assert_eq!(record["lockedRef"], first.as_str());

    let pulled = me.run(&["skill", "pull"]);
    assert_eq!(
        (pulled.code, pulled.stdout.clone()),
        (
            0,
            short_ids(&format!(
                "pdf: updated {first} -> {second} (local edits kept)\n"
            ))
        ),
        "{pulled:?}"
    );
    assert_eq!(
        me.read_string("skills/pdf/SKILL.md"),
        SKILL
            .replace("one\n", "one (ours)\n")
            .replace("six\n", "six (theirs)\n")
    );
    let lock = lock_of(&me);
    assert_eq!(lock["skills"]["pdf"]["ref"], "main");
    assert_eq!(lock["skills"]["pdf"]["revision"], second.as_str());
    let verify = me.run(&["skill", "verify"]);
    assert_eq!(verify.code, 0, "{verify:?}");
    let outdated = me.run(&["skill", "outdated"]);
    assert_eq!((outdated.code, outdated.stdout.as_str()), (0, ""));
}

/// Tags v1.0.0 … v2.1.0 (with a prerelease): `--ref ^1` picks the highest 1.x and edits the
/// row in place; a tag edited in the file is followed; `^2` leaves the prerelease out, a range
/// naming one takes it; outdated shows the newest tag in range and the newest overall.
#[test]
fn tags_and_ranges_move_the_pin() {
    let up = Upstream::new();
    let mut commits = std::collections::BTreeMap::new();
    for tag in ["v1.0.0", "v1.1.0", "v1.2.0", "v2.0.0", "v2.1.0-rc.1"] {
        let commit = up.release(&format!("release {tag}"));
        up.tag(tag, &commit);
        commits.insert(tag, commit);
    }
    // A tag that is no version, and a commit past every tag on main.
    up.tag("latest", &commits["v2.0.0"]);
    up.release("unreleased");

    let me = Repo::empty();
    let source = up.source();
    let added = me.run(&["skill", "add", &source, "skills/pdf", "--ref", "v1.0.0"]);
    assert_eq!(added.code, 0, "{added:?}");
    me.write(
        "vendor-skills.yaml",
        me.read_string("vendor-skills.yaml")
            .replace("    ref: v1.0.0\n", "    ref: v1.0.0 # the first release\n"),
    );
    // A local edit rides along every move.
    me.write(
        "skills/pdf/SKILL.md",
        format!("{SKILL}release v1.0.0\n").replace("one\n", "one (ours)\n"),
    );

    let pulled = me.run(&["skill", "pull", "pdf", "--ref", "^1"]);
    assert_eq!(
        (pulled.code, pulled.stdout.clone()),
        (
            0,
            short_ids(&format!(
                "pdf: updated {} -> {} (local edits kept)\n",
                commits["v1.0.0"], commits["v1.2.0"]
            ))
        ),
        "{pulled:?}"
    );
    let lock = lock_of(&me);
    assert_eq!(lock["skills"]["pdf"]["ref"], "^1");
    assert_eq!(lock["skills"]["pdf"]["tag"], "v1.2.0");
    assert_eq!(
        lock["skills"]["pdf"]["revision"],
        commits["v1.2.0"].as_str()
    );
    assert!(
        me.read_string("vendor-skills.yaml")
            .contains("    ref: \"^1\" # the first release\n"),
        "{}",
        me.read_string("vendor-skills.yaml")
    );
    assert_eq!(
        me.read_string("skills/pdf/SKILL.md"),
        format!("{SKILL}release v1.2.0\n").replace("one\n", "one (ours)\n")
    );
    // The highest 1.x is pinned: not outdated, though 2.0.0 is out.
    let outdated = me.run(&["skill", "outdated"]);
    assert_eq!((outdated.code, outdated.stdout.as_str()), (0, ""));
    let verify = me.run(&["skill", "verify"]);
    assert_eq!(verify.code, 0, "{verify:?}");

    // A new 1.x release is outdated, with the newest tag overall beside it.
    git(
        &up.dir.path().join("up"),
        &["checkout", "-q", "-b", "one", &commits["v1.2.0"]],
    );
    let patch = up.release("release v1.3.0");
    up.tag("v1.3.0", &patch);
    let outdated = me.run(&["skill", "outdated"]);
    assert_eq!(
        (outdated.code, outdated.stdout.clone()),
        (
            1,
            short_ids(&format!(
                "pdf: {} -> {patch} (^1: newest in range v1.3.0, newest v2.0.0)\n",
                commits["v1.2.0"]
            ))
        ),
        "{outdated:?}"
    );

    let json = me.run(&["skill", "outdated", "--format", "json"]);
    let record: serde_json::Value = serde_json::from_str(json.stdout.trim()).unwrap();
    assert_eq!(
        (&record["ref"], &record["inRange"], &record["newest"]),
        (
            &serde_json::json!("^1"),
            &serde_json::json!("v1.3.0"),
            &serde_json::json!("v2.0.0")
        )
    );
    assert!(record.get("lockedRef").is_none(), "{record}");

    // A tag edited in vendor-skills.yaml is followed.
    set_intent_ref(&me, "\"^1\" # the first release", "v2.0.0");
    let pulled = me.run(&["skill", "pull"]);
    assert_eq!(
        pulled.stdout,
        short_ids(&format!(
            "pdf: updated {} -> {} (local edits kept)\n",
            commits["v1.2.0"], commits["v2.0.0"]
        )),
        "{pulled:?}"
    );
    let lock = lock_of(&me);
    assert_eq!(lock["skills"]["pdf"]["ref"], "v2.0.0");
    assert!(lock["skills"]["pdf"].get("tag").is_none(), "{lock}");

    // `^2` leaves the prerelease out: the pin stays, the ref and tag are recorded.
    let pulled = me.run(&["skill", "pull", "pdf", "--ref", "^2"]);
    assert_eq!(
        pulled.stdout,
        short_ids(&format!("pdf: up to date at {}\n", commits["v2.0.0"])),
        "{pulled:?}"
    );
    let lock = lock_of(&me);
    assert_eq!(lock["skills"]["pdf"]["ref"], "^2");
    assert_eq!(lock["skills"]["pdf"]["tag"], "v2.0.0");

    // A range naming a prerelease takes it; outdated says so before the pull.
    set_intent_ref(&me, "\"^2\"", "\">=2.1.0-rc.1\"");
    let outdated = me.run(&["skill", "outdated"]);
    assert_eq!(
        outdated.stdout,
        short_ids(&format!(
            "pdf: {} -> {} (>=2.1.0-rc.1: newest in range v2.1.0-rc.1, newest v2.0.0; vendor-skills.yaml asks for it, the lock follows ^2: skill pull pdf moves the pin)\n",
            commits["v2.0.0"], commits["v2.1.0-rc.1"]
        )),
        "{outdated:?}"
    );
    let pulled = me.run(&["skill", "pull"]);
    assert_eq!(pulled.code, 0, "{pulled:?}");
    assert_eq!(lock_of(&me)["skills"]["pdf"]["tag"], "v2.1.0-rc.1");

    // A range no tag answers is refused naming it and the newest release.
    let refused = me.run(&["skill", "pull", "pdf", "--ref", "^3"]);
    assert_run_snapshot!("pull_to_a_range_no_tag_answers", refused, me);
    assert!(
        me.read_string("vendor-skills.yaml")
            .contains("ref: \">=2.1.0-rc.1\""),
        "a refused pull leaves the row"
    );
}

/// A tag that moved under a pin is refused naming the tag and both commits: for a range's
/// pick and for a plain tag.
#[test]
fn a_moved_tag_is_refused() {
    let up = Upstream::new();
    let one = up.release("release v1.0.0");
    up.tag("v1.0.0", &one);
    let two = up.release("release v1.1.0");
    up.tag("v1.1.0", &two);
    let source = up.source();

    let ranged = Repo::empty();
    let added = ranged.run(&["skill", "add", &source, "skills/pdf", "--ref", "^1"]);
    assert_eq!(added.code, 0, "{added:?}");
    assert_eq!(lock_of(&ranged)["skills"]["pdf"]["tag"], "v1.1.0");
    let plain = Repo::empty();
    let added = plain.run(&["skill", "add", &source, "skills/pdf", "--ref", "v1.0.0"]);
    assert_eq!(added.code, 0, "{added:?}");

    let other = up.release("retagged");
    up.tag("v1.1.0", &other);
    up.tag("v1.0.0", &other);
    for (me, tag, pinned) in [(&ranged, "v1.1.0", &two), (&plain, "v1.0.0", &one)] {
        let lock = me.read_string("vendor-skills-lock.json");
        let refused = me.run(&["skill", "pull"]);
        assert_eq!(
            (refused.code, refused.stderr.clone()),
            (
                2,
                format!(
                    "error: pdf: the tag {tag} named {pinned} when vendor-skills-lock.json pinned it and names {other} now; check the source, then pin the commit you trust with skill pull pdf --ref <commit>\n"
                )
            ),
            "{refused:?}"
        );
        assert_eq!(me.read_string("vendor-skills-lock.json"), lock);
    }
}

/// A short commit id is taken wherever a commit is; the lock records the whole id, and an id
/// that starts no commit is refused naming it.
#[test]
fn short_commit_ids_are_resolved() {
    let up = Upstream::new();
    let first = up.release("first");
    let second = up.release("second");
    let source = up.source();
    let me = Repo::empty();
    let added = me.run(&["skill", "add", &source, "skills/pdf", "--ref", &first[..7]]);
    assert_eq!(added.code, 0, "{added:?}");
    let lock = lock_of(&me);
    assert_eq!(lock["skills"]["pdf"]["ref"], &first[..7]);
    assert_eq!(lock["skills"]["pdf"]["revision"], first.as_str());

    let before = me.snapshot();
    let dry = me.run(&["skill", "pull", "pdf", "--ref", &second[..10], "--dry-run"]);
    assert_eq!(dry.code, 0, "{dry:?}");
    assert_eq!(me.snapshot(), before, "--ref with --dry-run edits no row");
    let pulled = me.run(&["skill", "pull", "pdf", "--ref", &second[..10]]);
    assert_eq!(
        pulled.stdout,
        short_ids(&format!("pdf: updated {first} -> {second}\n")),
        "{pulled:?}"
    );
    assert_eq!(lock_of(&me)["skills"]["pdf"]["revision"], second.as_str());
    assert!(
        me.read_string("vendor-skills.yaml")
            .contains(&format!("    ref: {}\n", &second[..10]))
    );

    // An id no commit starts (every hex digit flipped).
    let none: String = first[..8]
        .chars()
        .map(|c| if c == '0' { '1' } else { '0' })
        .collect();
    let refused = me.run(&["skill", "pull", "pdf", "--ref", &none]);
    assert_run_snapshot!("pull_to_a_short_id_no_commit_starts", refused, me);

    // `--ref` moves one skill, which must be named.
    let refused = me.run(&["skill", "pull", "--ref", "main"]);
    assert_run_snapshot!("pull_with_a_ref_and_no_skill", refused, me);
}

/// A move that conflicts writes nothing without `--write-conflicts` (lock and row as they
/// were); with it, the lock records the new ref beside the pending pull, and resolve ends it.
#[test]
fn a_conflicted_move_changes_nothing_until_written() {
    let up = Upstream::new();
    up.write("skills/pdf/SKILL.md", SKILL);
    let first = up.commit("first");
    up.write(
        "skills/pdf/SKILL.md",
        &SKILL.replace("one\n", "one (theirs)\n"),
    );
    let second = up.commit("theirs");
    let me = Repo::empty();
    let source = up.source();
    let added = me.run(&["skill", "add", &source, "skills/pdf", "--ref", &first]);
    assert_eq!(added.code, 0, "{added:?}");
    me.write(
        "skills/pdf/SKILL.md",
        SKILL.replace("one\n", "one (ours)\n"),
    );
    let before = me.snapshot();
    let pulled = me.run(&["skill", "pull", "pdf", "--ref", "main"]);
    assert_eq!(
        (pulled.code, pulled.stdout.clone()),
        (
            1,
            short_ids(&format!(
                "pdf: 1 conflict with upstream {second}; nothing was changed (--write-conflicts writes them with markers)\nskills/pdf/SKILL.md (content)\n"
            ))
        ),
        "{pulled:?}"
    );
    assert_eq!(me.snapshot(), before, "nothing written");

    let pulled = me.run(&["skill", "pull", "pdf", "--ref", "main", "--write-conflicts"]);
    assert_eq!(pulled.code, 1, "{pulled:?}");
    let lock = lock_of(&me);
    assert_eq!(lock["skills"]["pdf"]["ref"], "main");
    assert_eq!(lock["skills"]["pdf"]["revision"], first.as_str());
    assert_eq!(
        lock["skills"]["pdf"]["pending"]["revision"],
        second.as_str()
    );
    assert!(
        me.read_string("vendor-skills.yaml")
            .contains("    ref: main\n")
    );
    me.write(
        "skills/pdf/SKILL.md",
        SKILL.replace("one\n", "one (both)\n"),
    );
    let resolved = me.run(&["skill", "resolve", "pdf"]);
    assert_eq!(resolved.code, 0, "{resolved:?}");
    let lock = lock_of(&me);
    assert_eq!(lock["skills"]["pdf"]["revision"], second.as_str());
    let verify = me.run(&["skill", "verify"]);
    assert_eq!(verify.code, 0, "{verify:?}");
}
