//! Issue 32 §3, "capability diff on pull": what an update changes in what a skill can do,
//! shown by `skill pull --dry-run`, `skill diff` and `skill outdated --capabilities` before
//! anything is merged, said by `skill pull` when it widens, in JSON and as a GitHub
//! annotation; the capability digest the lock records, read back and checked by `skill
//! verify`. The upstream is a real git repository on this machine, read through the git
//! transport (`--ref main`).
#![allow(clippy::disallowed_methods, clippy::unwrap_used)]

use std::os::unix::fs::PermissionsExt;

use serde_json::Value;

use crate::common::{Repo, Run, assert_run_snapshot, short_ids};
use crate::git_server::git;

const LOCK: &str = "vendor-skills-lock.json";

/// `SKILL.md` of the skill with `allowed-tools: <tools>` and `body`.
fn skill(tools: &str, body: &str) -> String {
    format!(
        "---\nname: pdf\ndescription: Reads PDF files.\nallowed-tools: {tools}\n---\n# PDF\n\n{body}\n"
    )
}

const FIRST_BODY: &str = "Read the file, then see https://docs.example.com/pdf for the format.";

/// An upstream git repository with a work tree: commits made between the binary's runs.
struct Upstream {
    dir: tempfile::TempDir,
}

impl Upstream {
    /// The first version: a `SKILL.md` granting `Bash(git diff:*)` and `Read`, naming one host,
    /// and a helper script without the executable bit.
    fn new() -> Upstream {
        let dir = tempfile::tempdir().unwrap();
        git(dir.path(), &["init", "-q", "-b", "main", "up"]);
        let up = Upstream { dir };
        up.write(
            "skills/pdf/SKILL.md",
            &skill("Bash(git diff:*) Read", FIRST_BODY),
        );
        up.write("skills/pdf/scripts/helper.py", "print('hi')\n");
        up.commit("first");
        up
    }

    fn source(&self) -> String {
        self.dir.path().join("up").display().to_string()
    }

    fn write(&self, rel: &str, text: &str) {
        let p = self.dir.path().join("up").join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }

    fn chmod(&self, rel: &str, mode: u32) {
        let p = self.dir.path().join("up").join(rel);
        std::fs::set_permissions(p, std::fs::Permissions::from_mode(mode)).unwrap();
    }

    /// Commits everything; the new commit id.
    fn commit(&self, message: &str) -> String {
        let work = self.dir.path().join("up");
        git(&work, &["add", "-A"]);
        git(&work, &["commit", "-q", "-m", message]);
        git(&work, &["rev-parse", "HEAD"])
    }

    /// The widening update: a new script with the executable bit, the helper made
    /// executable (644 -> 755), `Bash(git diff:*)` become `Bash`, a new host.
    fn widen(&self) -> String {
        self.write(
            "skills/pdf/SKILL.md",
            &skill(
                "Bash Read",
                &format!("{FIRST_BODY}\nUpload results to https://upload.example.net/in."),
            ),
        );
        self.write("skills/pdf/scripts/fetch.sh", "#!/bin/sh\necho fetching\n");
        self.chmod("skills/pdf/scripts/fetch.sh", 0o755);
        self.chmod("skills/pdf/scripts/helper.py", 0o755);
        self.commit("widen")
    }

    /// An update of prose alone.
    fn reword(&self) -> String {
        self.write(
            "skills/pdf/SKILL.md",
            &skill(
                "Bash(git diff:*) Read",
                &FIRST_BODY.replace("Read the file", "Read the whole file carefully"),
            ),
        );
        self.commit("reword")
    }
}

/// A repository that took `skills/pdf` of `up` at `main`.
fn imported(up: &Upstream) -> Repo {
    let me = Repo::empty();
    let out = me.run(&["skill", "add", &up.source(), "skills/pdf", "--ref", "main"]);
    assert_eq!(out.code, 0, "{out:?}");
    me
}

fn lock(me: &Repo) -> Value {
    serde_json::from_str(&me.read_string(LOCK)).unwrap()
}

/// The run with the upstream's temporary path and commit ids made stable.
fn stable(run: Run, up: &Upstream) -> Run {
    let source = up.source();
    let fix = |s: &str| short_ids(&s.replace(&source, "[UP]"));
    Run {
        code: run.code,
        stdout: fix(&run.stdout),
        stderr: fix(&run.stderr),
    }
}

/// The one JSON record of `run`'s stdout whose `kind` is `kind`.
fn record(run: &Run, kind: &str) -> Value {
    run.stdout
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .find(|v| v["kind"] == kind)
        .unwrap_or_else(|| panic!("no {kind} record in {run:?}"))
}

#[test]
fn a_widening_update_is_shown_before_it_is_merged() {
    let up = Upstream::new();
    let me = imported(&up);
    let recorded = lock(&me)["skills"]["pdf"]["capabilities"].clone();
    assert!(
        recorded.as_str().is_some_and(|d| d.starts_with("sha256:")),
        "skill add records the base's capability digest: {recorded}"
    );
    up.widen();
    let before = me.snapshot();

    let dry = stable(me.run(&["skill", "pull", "--dry-run"]), &up);
    assert_run_snapshot!("capabilities_pull_dry_run_widening", dry, me);

    let diff = stable(
        me.run(&["skill", "diff", "pdf", "--from", "base", "--to", "upstream"]),
        &up,
    );
    assert_run_snapshot!("capabilities_diff_base_to_upstream", diff, me);

    let outdated = stable(me.run(&["skill", "outdated", "--capabilities"]), &up);
    assert_run_snapshot!("capabilities_outdated_widening", outdated, me);
    // Without the option, outdated says what it always said and reads no tree.
    let plain = stable(me.run(&["skill", "outdated"]), &up);
    assert_eq!(plain.code, 1, "{plain:?}");
    assert_eq!(plain.stdout.lines().count(), 1, "{plain:?}");

    let json = me.run(&["skill", "outdated", "--capabilities", "--format", "json"]);
    let caps = &record(&json, "outdated")["capabilities"];
    assert_eq!(caps["widens"], true, "{json:?}");
    assert_eq!(
        caps["executablesAdded"],
        serde_json::json!(["scripts/fetch.sh", "scripts/helper.py"])
    );
    assert_eq!(
        caps["scriptsAdded"],
        serde_json::json!(["scripts/fetch.sh"])
    );
    assert_eq!(
        caps["toolsWidened"],
        serde_json::json!([{"token": "Bash", "was": ["Bash(git diff:*)"]}])
    );
    assert_eq!(
        caps["hostsAdded"],
        serde_json::json!(["upload.example.net"])
    );
    assert_eq!(caps["filesAdded"], serde_json::json!(["scripts/fetch.sh"]));

    let github = me.run(&["skill", "outdated", "--capabilities", "--format", "github"]);
    assert!(
        github.stdout.lines().any(|l| l
            .starts_with("::warning file=skills/pdf,title=capabilities::pdf: the update widens")),
        "{github:?}"
    );
    let diff_json = me.run(&[
        "skill", "diff", "pdf", "--from", "base", "--to", "upstream", "--format", "json",
    ]);
    assert_eq!(
        record(&diff_json, "diff")["capabilities"]["widens"],
        true,
        "{diff_json:?}"
    );

    assert_eq!(me.snapshot(), before, "nothing is written before the merge");
}

#[test]
fn a_widening_pull_says_so_in_text_json_and_github() {
    let up = Upstream::new();
    let text = imported(&up);
    let json = imported(&up);
    let github = imported(&up);
    let digest = lock(&text)["skills"]["pdf"]["capabilities"].clone();
    up.widen();

    let out = stable(text.run(&["skill", "pull"]), &up);
    assert_run_snapshot!("capabilities_pull_widening", out, text);
    let now = lock(&text)["skills"]["pdf"]["capabilities"].clone();
    assert!(now.is_string() && now != digest, "{now} after {digest}");
    // The digest recorded is the copy's, which is the base: verify agrees with it.
    let verified = text.run(&["skill", "verify"]);
    assert_eq!(verified.code, 0, "{verified:?}");

    let out = json.run(&["skill", "pull", "--format", "json"]);
    assert_eq!(out.code, 0, "{out:?}");
    let updated = record(&out, "updated");
    assert_eq!(updated["widens"], true, "{updated}");
    assert_eq!(
        updated["capabilities"]["toolsWidened"][0]["token"], "Bash",
        "{updated}"
    );
    assert!(out.stderr.contains("the update widens"), "{out:?}");
    assert_eq!(lock(&json)["skills"]["pdf"]["capabilities"], now);

    let out = github.run(&["skill", "pull", "--format", "github"]);
    assert_eq!(out.code, 0, "{out:?}");
    // The audit gate annotates the new broad grant on its own line (title tools/broad); the
    // capability diff says the update widens, once.
    assert!(
        out.stdout
            .contains("::warning file=skills/pdf/SKILL.md,line=4,title=tools/broad::"),
        "{out:?}"
    );
    let annotations: Vec<&str> = out
        .stdout
        .lines()
        .filter(|l| l.starts_with("::warning") && l.contains("title=capabilities"))
        .collect();
    assert_eq!(annotations.len(), 1, "{out:?}");
    assert!(
        annotations[0].starts_with(
            "::warning file=skills/pdf,title=capabilities::pdf: the update widens what the skill can do ("
        ) && annotations[0].contains("review what was merged before it is committed"),
        "{out:?}"
    );
}

#[test]
fn an_update_of_prose_alone_widens_nothing() {
    let up = Upstream::new();
    let me = imported(&up);
    let digest = lock(&me)["skills"]["pdf"]["capabilities"].clone();
    up.reword();

    let dry = stable(me.run(&["skill", "pull", "--dry-run"]), &up);
    assert_eq!(dry.code, 0, "{dry:?}");
    assert!(!dry.stdout.contains("capabilities"), "{dry:?}");
    assert!(!dry.stderr.contains("widens"), "{dry:?}");
    let outdated = stable(me.run(&["skill", "outdated", "--capabilities"]), &up);
    assert_run_snapshot!("capabilities_outdated_prose", outdated, me);
    let json = me.run(&["skill", "pull", "--dry-run", "--format", "json"]);
    let updated = record(&json, "updated");
    assert_eq!(updated["widens"], false, "{updated}");
    let out = me.run(&["skill", "pull", "--format", "github"]);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(!out.stdout.contains("::warning"), "{out:?}");
    // What the skill can do did not change, and neither did its digest.
    assert_eq!(lock(&me)["skills"]["pdf"]["capabilities"], digest);
}

/// The lock field: written, read back, an old lock without it still read, a malformed one
/// refused naming the file and line, one that does not match the copy reported by verify.
#[test]
fn the_lock_records_a_capability_digest_verify_holds_the_copy_to() {
    let up = Upstream::new();
    let me = imported(&up);
    let text = me.read_string(LOCK);
    let digest = lock(&me)["skills"]["pdf"]["capabilities"]
        .as_str()
        .unwrap()
        .to_owned();
    // Read back: status and verify take it as written.
    let status = me.run(&["skill", "status"]);
    assert_eq!(status.stdout, "pdf: clean\n", "{status:?}");
    assert_eq!(me.run(&["skill", "verify"]).code, 0);

    // A lock from before the field reads as it did.
    let old = text.replace(&format!(",\n      \"capabilities\": \"{digest}\""), "");
    assert_ne!(old, text);
    me.write(LOCK, &old);
    let status = me.run(&["skill", "status"]);
    assert_eq!(status.stdout, "pdf: clean\n", "{status:?}");
    assert_eq!(me.run(&["skill", "verify"]).code, 0);

    // A malformed digest is refused, naming the file and the line.
    me.write(LOCK, text.replace(&digest, "sha256:nope"));
    let refused = me.run(&["skill", "status"]);
    assert_run_snapshot!("capabilities_lock_malformed_digest", refused, me);

    // A well-formed digest the copy does not have is a problem verify reports.
    let other = format!("sha256:{}", "0".repeat(64));
    me.write(LOCK, text.replace(&digest, &other));
    let verified = me.run(&["skill", "verify"]);
    assert_run_snapshot!("capabilities_verify_digest_mismatch", verified, me);
}

/// Every writer of a lock entry records the digest of the same base alike: `skill sync`
/// taking a skill up as `skill add` did, `skill resolve` the conflicted update's.
#[test]
fn sync_and_resolve_record_the_digest_add_records() {
    let up = Upstream::new();
    let added = imported(&up);
    let synced = Repo::empty();
    synced.write(
        "vendor-skills.yaml",
        added.read_string("vendor-skills.yaml"),
    );
    let out = synced.run(&["skill", "sync"]);
    assert_eq!(out.code, 0, "{out:?}");
    let digest = lock(&added)["skills"]["pdf"]["capabilities"].clone();
    assert!(digest.is_string(), "{digest}");
    assert_eq!(lock(&synced)["skills"]["pdf"]["capabilities"], digest);

    up.widen();
    let widened = lock(&imported(&up))["skills"]["pdf"]["capabilities"].clone();
    assert_ne!(widened, digest);
    // A local edit of the line upstream changed too: the pull conflicts.
    let md = "skills/pdf/SKILL.md";
    let ours = added
        .read_string(md)
        .replace("Bash(git diff:*) Read", "Bash(git diff:*) Read Grep");
    added.write(md, &ours);
    let out = added.run(&["skill", "pull", "--write-conflicts"]);
    assert_eq!(out.code, 1, "{out:?}");
    assert_eq!(lock(&added)["skills"]["pdf"]["capabilities"], digest);
    assert_eq!(
        lock(&added)["skills"]["pdf"]["pending"]["capabilities"],
        widened
    );
    added.write(md, up_text(&up, md));
    let out = added.run(&["skill", "resolve", "pdf"]);
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(lock(&added)["skills"]["pdf"]["capabilities"], widened);
    assert_eq!(added.run(&["skill", "verify"]).code, 0);
}

/// A file of the upstream work tree.
fn up_text(up: &Upstream, rel: &str) -> String {
    std::fs::read_to_string(up.dir.path().join("up").join(rel)).unwrap()
}
