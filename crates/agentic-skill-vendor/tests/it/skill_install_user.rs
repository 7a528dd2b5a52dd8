//! `skill install --target … --scope user` on the real binary, with `HOME` and
//! `XDG_CONFIG_HOME` pointed at temporary directories: what it places is recorded in the user
//! state directory, `skill list --scope user` shows it as placed by skill install, a second
//! install is refused without `--force`, a user sync leaves it alone (and refuses to mirror
//! over it unless forced), a copy deleted by hand can be installed again, and a record that
//! cannot be read refuses every user command, naming the file, with nothing written.
#![allow(clippy::disallowed_methods, clippy::unwrap_used)]

use crate::common::{Repo, Run, run_bin_env};

const PDF: &str = "---\nname: pdf\ndescription: Reads PDF files.\n---\n# PDF\n";
const CSV: &str = "---\nname: csv\ndescription: Reads CSV files.\n---\n# CSV\n";
const OWN: &str = "---\nname: own\ndescription: My own skill.\n---\nmine\n";

/// The user state directory, relative to the home directory (`XDG_CONFIG_HOME` is
/// `<home>/.cfg`).
const STATE: &str = ".cfg/agentic-skill-vendor";
/// The install record, relative to the home directory.
const RECORD: &str = ".cfg/agentic-skill-vendor/vendor-skills-installed.json";

/// A home directory, and an input directory `input/skills` holding pdf and csv.
struct User {
    home: Repo,
    input: Repo,
}

impl User {
    fn new() -> Self {
        let input = Repo::empty();
        input.write("skills/pdf/SKILL.md", PDF);
        input.write("skills/csv/SKILL.md", CSV);
        User {
            home: Repo::empty(),
            input,
        }
    }

    /// Runs the binary from the home directory with `HOME` and `XDG_CONFIG_HOME` set.
    fn run(&self, args: &[&str]) -> Run {
        self.run_with(args, &[])
    }

    /// [`User::run`] with `env` set as well.
    fn run_with(&self, args: &[&str], env: &[(&str, &str)]) -> Run {
        let home = self.home.path().display().to_string();
        let xdg = self.home.join(".cfg").display().to_string();
        let argv: Vec<String> = args.iter().map(|a| (*a).to_owned()).collect();
        let mut all: Vec<(&str, &str)> = vec![("HOME", &home), ("XDG_CONFIG_HOME", &xdg)];
        all.extend(env.iter().copied());
        run_bin_env(&argv, None, Some(self.home.path()), &all)
    }

    /// `skill install <input> --target <targets> --scope user <more…>`.
    fn install(&self, input: &str, targets: &str, more: &[&str]) -> Run {
        let mut args = vec![
            "skill", "install", input, "--target", targets, "--scope", "user",
        ];
        args.extend(more);
        self.run(&args)
    }

    fn input_dir(&self) -> String {
        self.input.join("skills").display().to_string()
    }

    fn list(&self, target: &str) -> Run {
        self.run(&["skill", "list", "--target", target, "--scope", "user"])
    }

    fn record(&self) -> serde_json::Value {
        serde_json::from_str(&self.home.read_string(RECORD)).unwrap()
    }

    /// Every file under the home directory but the tool's own working directories, with its
    /// bytes.
    fn files(&self) -> Vec<(String, String)> {
        let mut out = Vec::new();
        walk(self.home.path(), "", &mut out);
        out.retain(|(p, _)| !p.split('/').any(|s| s == ".agentic-skill-vendor"));
        out
    }

    /// A user intent mirroring the state directory's own skills into `targets`.
    fn want(&self, targets: &str) {
        self.home.write(
            &format!("{STATE}/vendor-skills.yaml"),
            format!("targets: [{targets}]\nskills: {{}}\n"),
        );
    }
}

fn walk(base: &std::path::Path, rel: &str, out: &mut Vec<(String, String)>) {
    let mut entries: Vec<_> = std::fs::read_dir(base.join(rel))
        .unwrap()
        .map(|e| e.unwrap())
        .collect();
    entries.sort_by_key(|e| e.file_name());
    for e in entries {
        let name = e.file_name().to_string_lossy().into_owned();
        let path = if rel.is_empty() {
            name
        } else {
            format!("{rel}/{name}")
        };
        if e.file_type().unwrap().is_dir() {
            walk(base, &path, out);
        } else {
            out.push((path, std::fs::read_to_string(e.path()).unwrap()));
        }
    }
}

/// The tree hash a JSON install line reports for `dest` (`~/.claude/skills/pdf`).
fn hash_of(run: &Run, dest: &str) -> String {
    run.stdout
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .find(|v| v["path"] == dest)
        .unwrap_or_else(|| panic!("no line for {dest}: {run:?}"))["hash"]
        .as_str()
        .unwrap()
        .to_owned()
}

#[test]
fn an_install_is_recorded_listed_refused_again_and_forced() {
    let user = User::new();
    // A dry run records nothing (and makes no state directory).
    let dry = user.install(&user.input_dir(), "claude,goose", &["--dry-run"]);
    assert_eq!(dry.code, 0, "{dry:?}");
    assert!(!user.home.exists(STATE));

    let run = user.install(&user.input_dir(), "claude,goose", &["--format", "json"]);
    assert_eq!(run.code, 0, "{run:?}");
    let record = user.record();
    assert_eq!(record["version"], 1);
    let pdf_hash = hash_of(&run, "~/.claude/skills/pdf");
    for dir in [".claude/skills", ".cfg/goose/skills"] {
        for name in ["pdf", "csv"] {
            let entry = &record["installed"][dir][name];
            assert_eq!(entry["from"], user.input_dir(), "{dir}/{name}: {record}");
            assert!(
                entry["fromDigest"].as_str().unwrap().starts_with("sha256:"),
                "{record}"
            );
            assert_eq!(
                entry["treeHash"],
                hash_of(&run, &format!("~/{dir}/{name}")),
                "{record}"
            );
        }
    }
    assert_eq!(
        record["installed"][".claude/skills"]["pdf"]["treeHash"],
        pdf_hash
    );

    // Listed as placed by this tool; a stranger beside them as not; an edit as an edit.
    user.home.write(".claude/skills/theirs/SKILL.md", OWN);
    user.home.write(".claude/skills/csv/extra.md", "more\n");
    let list = user.list("claude");
    assert_eq!(list.code, 0, "{list:?}");
    assert_eq!(
        list.stdout,
        "csv: edited since skill install placed it\npdf: placed by skill install\ntheirs: not placed by skill sync\n"
    );
    let json = user.run(&[
        "--format", "json", "skill", "list", "--target", "claude", "--scope", "user",
    ]);
    assert!(json.stdout.contains("\"placed\":\"install\""), "{json:?}");
    assert!(
        json.stdout.contains("\"placed\":\"install-edited\""),
        "{json:?}"
    );
    user.home.remove(".claude/skills/csv/extra.md");

    // Again without --force: refused as in a project, nothing written.
    let before = user.files();
    let again = user.install(&user.input_dir(), "claude,goose", &[]);
    assert_eq!(again.code, 2, "{again:?}");
    assert!(again.stderr.contains("already exists"), "{again:?}");
    assert!(again.stderr.contains("--force"), "{again:?}");
    assert_eq!(user.files(), before);

    // With --force, a changed input replaces the copies and the record follows.
    user.input
        .write("skills/pdf/SKILL.md", PDF.replace("# PDF", "# PDF v2"));
    let forced = user.install(
        &user.input_dir(),
        "claude,goose",
        &["--force", "--format", "json"],
    );
    assert_eq!(forced.code, 0, "{forced:?}");
    let new_hash = hash_of(&forced, "~/.claude/skills/pdf");
    assert_ne!(new_hash, pdf_hash);
    assert_eq!(
        user.record()["installed"][".claude/skills"]["pdf"]["treeHash"],
        new_hash
    );
    assert_eq!(
        user.list("claude").stdout,
        "csv: placed by skill install\npdf: placed by skill install\ntheirs: not placed by skill sync\n"
    );
}

#[test]
fn an_archive_is_recorded_with_its_digest() {
    let user = User::new();
    let zip = user.input.join("pdf.zip").display().to_string();
    let pdf_dir = user.input.join("skills/pdf").display().to_string();
    let pack = user.run(&["skill", "pack", &pdf_dir, "-o", &zip, "--format", "json"]);
    assert_eq!(pack.code, 0, "{pack:?}");
    let packed: serde_json::Value = serde_json::from_str(pack.stdout.trim()).unwrap();
    let zip_digest = packed["zip"].as_str().unwrap().to_owned();
    let run = user.install(&zip, "cursor", &[]);
    assert_eq!(run.code, 0, "{run:?}");
    let entry = &user.record()["installed"][".cursor/skills"]["pdf"];
    assert_eq!(entry["from"], zip.as_str());
    assert_eq!(entry["fromDigest"], zip_digest.as_str());
}

#[test]
fn a_user_sync_leaves_installed_skills_alone() {
    let user = User::new();
    user.want("claude");
    user.home
        .write(&format!("{STATE}/skills/own/SKILL.md"), OWN);
    let run = user.install(&user.input_dir(), "claude", &[]);
    assert_eq!(run.code, 0, "{run:?}");
    let sync = user.run(&["skill", "sync", "--scope", "user"]);
    assert_eq!(sync.code, 0, "{sync:?}");
    assert_eq!(user.home.read_string(".claude/skills/pdf/SKILL.md"), PDF);
    assert_eq!(user.home.read_string(".claude/skills/own/SKILL.md"), OWN);
    assert_eq!(
        user.list("claude").stdout,
        "csv: placed by skill install\nown: placed by skill sync\npdf: placed by skill install\n"
    );
    // The user's own skill goes from the state directory: sync removes its copy, and only it.
    user.home.remove(&format!("{STATE}/skills/own"));
    let sync = user.run(&["skill", "sync", "--scope", "user"]);
    assert_eq!(sync.code, 0, "{sync:?}");
    assert!(!user.home.exists(".claude/skills/own"));
    assert_eq!(user.home.read_string(".claude/skills/pdf/SKILL.md"), PDF);
    assert_eq!(user.home.read_string(".claude/skills/csv/SKILL.md"), CSV);
    // Even an identical skill of the same name in the state directory is not mirrored over
    // an installed copy (sync would then own, and one day remove, what install placed).
    user.home
        .write(&format!("{STATE}/skills/pdf/SKILL.md"), PDF);
    let before = user.files();
    let refused = user.run(&["skill", "sync", "--scope", "user"]);
    assert_eq!(refused.code, 2, "{refused:?}");
    assert!(
        refused.stderr.contains(&format!(
            "~/.claude/skills/pdf: skill install placed this skill there (from {})",
            user.input_dir()
        )),
        "{refused:?}"
    );
    assert!(refused.stderr.contains("--force"), "{refused:?}");
    assert_eq!(user.files(), before);
    // Forced, sync replaces it and the install record forgets it.
    let forced = user.run(&["skill", "sync", "--scope", "user", "--force"]);
    assert_eq!(forced.code, 0, "{forced:?}");
    assert!(user.record()["installed"][".claude/skills"]["pdf"].is_null());
    assert_eq!(
        user.list("claude").stdout,
        "csv: placed by skill install\npdf: placed by skill sync\n"
    );
}

#[test]
fn a_copy_removed_by_hand_installs_again_and_its_record_is_dropped() {
    let user = User::new();
    assert_eq!(user.install(&user.input_dir(), "claude", &[]).code, 0);
    // Both removed by hand; only pdf installed again, from its own directory.
    user.home.remove(".claude/skills/pdf");
    user.home.remove(".claude/skills/csv");
    let pdf_only = user.input.join("skills/pdf").display().to_string();
    let run = user.install(&pdf_only, "claude", &[]);
    assert_eq!(run.code, 0, "{run:?}");
    let record = user.record();
    assert_eq!(
        record["installed"][".claude/skills"]["pdf"]["from"],
        pdf_only
    );
    assert!(
        record["installed"][".claude/skills"]["csv"].is_null(),
        "{record}"
    );
    assert_eq!(user.list("claude").stdout, "pdf: placed by skill install\n");
}

#[test]
fn a_record_that_cannot_be_read_refuses_naming_it_and_nothing_is_written() {
    let user = User::new();
    user.want("claude");
    user.home
        .write(&format!("{STATE}/skills/own/SKILL.md"), OWN);
    user.home
        .write(RECORD, "{\"version\": 1, \"installed\": {\"../x\": {}}}\n");
    let before = user.files();
    let shown = user.home.join(RECORD).display().to_string();
    for run in [
        user.install(&user.input_dir(), "claude", &[]),
        user.install(&user.input_dir(), "claude", &["--force"]),
        user.list("claude"),
        user.run(&["skill", "sync", "--scope", "user"]),
    ] {
        assert_eq!(run.code, 2, "{run:?}");
        assert!(run.stderr.contains(&format!("{shown}:1: ")), "{run:?}");
        assert!(run.stderr.contains("delete it"), "{run:?}");
        assert_eq!(user.files(), before);
    }
    // Not JSON at all: named the same way, with serde's line.
    user.home.write(RECORD, "not json\n");
    let run = user.install(&user.input_dir(), "claude", &[]);
    assert_eq!(run.code, 2, "{run:?}");
    assert!(run.stderr.contains(&shown), "{run:?}");
    assert!(!user.home.exists(".claude/skills"));
}

/// The files of a user's home directory with the input's path made `[IN]`: the same for two
/// users who installed the same skills.
fn normalized(user: &User) -> Vec<(String, String)> {
    let input = user.input.path().display().to_string();
    user.files()
        .into_iter()
        .map(|(p, bytes)| (p, bytes.replace(&input, "[IN]")))
        .collect()
}

/// A user install is two changes of two trees (the record, then the skills): killed before
/// any file system call of either (a real SIGKILL, `ASV_TEST_KILL_AT_CALL`), then run again,
/// it ends as one uninterrupted run ends, every file the same, the record included.
#[test]
fn a_user_install_killed_anywhere_then_run_again_ends_as_one_run() {
    let clean = User::new();
    let run = clean.install(&clean.input_dir(), "claude,goose", &[]);
    assert_eq!(run.code, 0, "{run:?}");
    let after = normalized(&clean);
    let mut killed_runs = 0;
    for n in 0.. {
        assert!(n < 2_000, "the run never ends");
        let user = User::new();
        let at = n.to_string();
        let input = user.input_dir();
        let args = [
            "skill",
            "install",
            &input,
            "--target",
            "claude,goose",
            "--scope",
            "user",
        ];
        let first = user.run_with(&args, &[("ASV_TEST_KILL_AT_CALL", &at)]);
        // A signal shows as no exit code (-1 here).
        if first.code != -1 {
            assert_eq!(first.code, 0, "at {n}: {first:?}");
            assert_eq!(normalized(&user), after, "at {n}");
            break;
        }
        killed_runs += 1;
        let again = user.run(&args);
        assert_eq!(again.code, 0, "killed at {n}, then: {again:?}");
        assert_eq!(normalized(&user), after, "killed at {n}, then run again");
    }
    // The kill must have cut both changes, not only the first.
    assert!(killed_runs > 10, "{killed_runs}");
}
