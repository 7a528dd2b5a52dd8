//! Crash safety (issue 15 §1), through the real binary: every writer is killed part-way, at
//! instant after instant, and the same command run again must leave exactly the tree one
//! uninterrupted run leaves — every path, every byte, every mode.
//!
//! The kill is a real SIGKILL the process sends itself before its Nth file system call of a
//! tree change (`ASV_TEST_KILL_AT_CALL`, honoured only by test builds), for N from the first
//! call to past the last, so every step of staging, swapping, committing and cleaning up is
//! cut once. Nothing in the assertions names a temporary entry: what must hold is the tree
//! afterwards, and that a reader run on the killed tree says it is part-way whenever it is
//! neither the tree before nor the tree after.
//!
//! Beside the kill at each call, every writer is also killed by a real SIGKILL sent from
//! outside at random instants of its run (its reads, its planning, the network-free
//! transports), so what no call counter sees is cut too.
#![allow(clippy::disallowed_methods, clippy::unwrap_used)]

use std::collections::BTreeMap;
use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::common::{Repo, assert_run_snapshot, bin, run_bin_env};

/// Every entry below `root`: files with their mode and bytes, links with their target,
/// directories with their mode.
fn tree(root: &Path) -> BTreeMap<String, String> {
    fn walk(dir: &Path, rel: &str, out: &mut BTreeMap<String, String>) {
        for e in fs::read_dir(dir).unwrap() {
            let e = e.unwrap();
            let name = e.file_name().to_string_lossy().into_owned();
            let r = if rel.is_empty() {
                name
            } else {
                format!("{rel}/{name}")
            };
            let meta = fs::symlink_metadata(e.path()).unwrap();
            let mode = meta.permissions().mode() & 0o7777;
            if meta.file_type().is_symlink() {
                out.insert(r, format!("link {:?}", fs::read_link(e.path()).unwrap()));
            } else if meta.is_dir() {
                out.insert(format!("{r}/"), format!("dir {mode:o}"));
                walk(&e.path(), &r, out);
            } else {
                let bytes = fs::read(e.path()).unwrap();
                out.insert(
                    r,
                    format!("file {mode:o} {}", String::from_utf8_lossy(&bytes)),
                );
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(root, "", &mut out);
    out
}

/// Copies `from` into the empty directory `to`, keeping modes (no links in these fixtures).
fn copy_tree(from: &Path, to: &Path) {
    for e in fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let dest = to.join(e.file_name());
        let meta = fs::symlink_metadata(e.path()).unwrap();
        if meta.is_dir() {
            fs::create_dir(&dest).unwrap();
            copy_tree(&e.path(), &dest);
            fs::set_permissions(&dest, meta.permissions()).unwrap();
        } else {
            fs::copy(e.path(), &dest).unwrap();
        }
    }
}

/// One writer to kill: a repository to start from, the command, and the read-only command
/// that must notice a tree left part-way.
struct Scenario {
    name: &'static str,
    start: Repo,
    args: Vec<String>,
    reader: Vec<&'static str>,
}

impl Scenario {
    /// A fresh copy of the starting tree.
    fn copy(&self) -> Repo {
        let repo = Repo::empty();
        copy_tree(self.start.path(), repo.path());
        repo
    }

    /// Runs the command on `repo`, killed before call `kill_at` when given; whether the kill
    /// landed, and the run.
    fn run(&self, repo: &Repo, kill_at: Option<usize>) -> (bool, crate::common::Run) {
        let mut args = self.args.clone();
        args.extend(["--root".to_owned(), repo.path().display().to_string()]);
        let at = kill_at.map(|n| n.to_string());
        let env: Vec<(&str, &str)> = at
            .iter()
            .map(|n| ("ASV_TEST_KILL_AT_CALL", n.as_str()))
            .collect();
        let run = run_bin_env(&args, None, Some(repo.path()), &env);
        // A signal shows as no exit code (-1 here).
        (run.code == -1, run)
    }

    /// Kills the command at instant after instant, reruns it, and compares the whole tree
    /// with the uninterrupted run's. Returns how many instants were tried.
    fn check(&self) -> usize {
        let clean = self.copy();
        let before = tree(clean.path());
        let (killed, run) = self.run(&clean, None);
        assert!(!killed && run.code == 0, "{}: {run:?}", self.name);
        let after = tree(clean.path());
        assert_ne!(
            before, after,
            "{}: the command must change something",
            self.name
        );

        let mut instants = 0;
        let mut reported = 0;
        for n in 0.. {
            let repo = self.copy();
            let (killed, first) = self.run(&repo, Some(n));
            if !killed {
                assert_eq!(first.code, 0, "{} at {n}: {first:?}", self.name);
                assert_eq!(tree(repo.path()), after, "{} at {n}", self.name);
                break;
            }
            instants += 1;
            let left = tree(repo.path());
            // Killed after making the state directory but before its journal: an empty
            // directory, no change of the tree's content (the next writer removes it).
            let empty_state = left.contains_key(".agentic-skill-vendor/")
                && !left.keys().any(|k| {
                    k.starts_with(".agentic-skill-vendor/") && k != ".agentic-skill-vendor/"
                })
                && !before.contains_key(".agentic-skill-vendor/");
            if left != before && left != after && !empty_state {
                // A reader must say the tree is part-way, not judge it.
                let out = repo.run(&self.reader);
                assert_eq!(out.code, 1, "{} at {n}: {out:?}", self.name);
                assert!(
                    out.stdout.starts_with("interrupted: "),
                    "{} at {n}: {out:?}",
                    self.name
                );
                reported += 1;
            }
            let (killed, again) = self.run(&repo, None);
            assert!(
                !killed && again.code == 0,
                "{} at {n}: {again:?}",
                self.name
            );
            assert_eq!(
                tree(repo.path()),
                after,
                "{} killed at {n}, then run again",
                self.name
            );
            assert!(n < 2_000, "{}: the run never ends", self.name);
        }
        assert!(
            instants > 5 && reported > 0,
            "{}: {instants} {reported}",
            self.name
        );
        instants
    }
}

impl Scenario {
    /// Kills the command with a real SIGKILL, sent from outside after a random delay within
    /// the time one uninterrupted run takes, `trials` times; reruns it each time and compares
    /// the whole tree with the uninterrupted run's. The delays come from a seed printed in
    /// every failure (`ASV_TEST_SEED` replays one). Returns how many runs the kill cut.
    fn check_at_random_instants(&self, trials: usize) -> usize {
        let clean = self.copy();
        let started = Instant::now();
        let (_, run) = self.run(&clean, None);
        let took = started.elapsed();
        assert_eq!(run.code, 0, "{}: {run:?}", self.name);
        let after = tree(clean.path());
        let seed = std::env::var("ASV_TEST_SEED")
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or_else(|| {
                std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .unwrap()
                    .as_nanos() as u64
                    | 1
            });
        let mut state = seed;
        let mut cut = 0;
        for trial in 0..trials {
            // xorshift64: enough spread for delays, and replayable from the seed.
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let delay = Duration::from_micros(state % (took.as_micros() as u64).max(1));
            let repo = self.copy();
            let mut args = self.args.clone();
            args.extend(["--root".to_owned(), repo.path().display().to_string()]);
            let mut cmd = Command::new(bin());
            cmd.args(&args)
                .env_clear()
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::null());
            if let Ok(path) = std::env::var("PATH") {
                cmd.env("PATH", path);
            }
            let mut child = cmd.spawn().unwrap();
            std::thread::sleep(delay);
            // `kill` is SIGKILL on Unix; a run that ended first is simply reaped.
            if child.try_wait().unwrap().is_none() {
                child.kill().unwrap();
            }
            let status = child.wait().unwrap();
            if status.code().is_none() {
                cut += 1;
            }
            let at = format!(
                "{} killed after {delay:?} (trial {trial}, seed {seed})",
                self.name
            );
            // A run that ended, or was cut after its last change and clean-up (while it
            // printed), is done: running `skill add --all` again would rightly refuse.
            if tree(repo.path()) == after {
                continue;
            }
            let (killed, again) = self.run(&repo, None);
            assert!(!killed && again.code == 0, "{at}: {again:?}");
            assert_eq!(tree(repo.path()), after, "{at}, then run again");
        }
        assert!(cut > 0, "{}: no run was cut (seed {seed})", self.name);
        cut
    }
}

/// Every writer of the trials above, killed from outside at random instants (issue 27).
#[test]
fn writers_killed_at_random_instants_then_run_again_end_as_one_run() {
    let (_up, pull) = pull_both_ways();
    let (_up2, sync) = sync_three_agents();
    let up = Repo::empty();
    for i in 0..20 {
        let name = format!("s{i:02}");
        up.write(
            &format!("skills/{name}/SKILL.md"),
            PDF.replace("pdf", &name),
        );
        up.write(&format!("skills/{name}/notes/more.md"), format!("{name}\n"));
    }
    let scenarios = [
        gen_on_the_demo("gen"),
        pull,
        sync,
        add_all(Repo::empty(), &up),
    ];
    for scenario in &scenarios {
        let cut = scenario.check_at_random_instants(12);
        eprintln!("{}: {cut} of 12 runs cut", scenario.name);
    }
}

fn owned(args: &[&str]) -> Vec<String> {
    args.iter().map(|s| (*s).to_owned()).collect()
}

const PDF: &str =
    "---\nname: pdf\ndescription: Reads PDF files.\n---\n# PDF\n\nline one\nline two\nline three\n";

/// `gen` on the demo with one contract's text changed, so it has copies to write.
fn gen_on_the_demo(name: &'static str) -> Scenario {
    let start = Repo::demo();
    let text = start.read_string("contracts/verdict-format.md");
    start.write(
        "contracts/verdict-format.md",
        format!("{text}\nOne more rule.\n"),
    );
    Scenario {
        name,
        start,
        args: owned(&["gen"]),
        reader: vec!["verify"],
    }
}

/// `gen` on the demo with a changed contract and a skill whose copies are gone.
#[test]
fn gen_killed_anywhere_then_run_again_ends_as_one_run() {
    let scenario = gen_on_the_demo("gen");
    fs::remove_dir_all(scenario.start.join("skills/review-writer/references")).ok();
    scenario.check();
}

/// `skill install` of a directory of skills into the repository.
#[test]
fn skill_install_killed_anywhere_then_run_again_ends_as_one_run() {
    let input = Repo::empty();
    for i in 0..6 {
        let name = format!("s{i}");
        input.write(
            &format!("{name}/SKILL.md"),
            format!("---\nname: {name}\ndescription: Skill {i}.\n---\nbody {i}\n"),
        );
        input.write(&format!("{name}/scripts/run.sh"), "#!/bin/sh\necho run\n");
        fs::set_permissions(
            input.join(&format!("{name}/scripts/run.sh")),
            fs::Permissions::from_mode(0o755),
        )
        .unwrap();
    }
    let start = Repo::empty();
    start.write(
        "skills/own/SKILL.md",
        "---\nname: own\ndescription: Ours.\n---\n",
    );
    Scenario {
        name: "skill install",
        start,
        args: owned(&["skill", "install", &input.path().display().to_string()]),
        reader: vec!["skill", "validate"],
    }
    .check();
}

/// A repository that took `pdf` from `up`, edited on both sides since.
fn pulled_both_ways() -> (Repo, Repo) {
    let up = Repo::empty();
    up.write("skills/pdf/SKILL.md", PDF);
    up.write("skills/pdf/scripts/run.sh", "#!/bin/sh\necho run\n");
    let start = Repo::empty();
    let added = start.run(&[
        "skill",
        "add",
        &up.path().display().to_string(),
        "skills/pdf",
    ]);
    assert_eq!(added.code, 0, "{added:?}");
    up.write(
        "skills/pdf/SKILL.md",
        PDF.replace("line one", "line one, upstream"),
    );
    up.write("skills/pdf/docs/new.md", "new upstream file\n");
    start.write(
        "skills/pdf/SKILL.md",
        PDF.replace("line three", "line three, local"),
    );
    (up, start)
}

/// `skill pull` merging upstream changes into local edits.
#[test]
fn skill_pull_killed_anywhere_then_run_again_ends_as_one_run() {
    pull_both_ways().1.check();
}

/// `skill pull` of [`pulled_both_ways`], with its upstream (kept for as long as it runs).
fn pull_both_ways() -> (Repo, Scenario) {
    let (up, start) = pulled_both_ways();
    let scenario = Scenario {
        name: "skill pull",
        start,
        args: owned(&["skill", "pull", "pdf"]),
        reader: vec!["skill", "validate"],
    };
    (up, scenario)
}

/// `skill sync` mirroring skills into three agents' directories.
#[test]
fn skill_sync_killed_anywhere_then_run_again_ends_as_one_run() {
    sync_three_agents().1.check();
}

/// `skill sync` of a taken skill and an own one into three agents, with the upstream.
fn sync_three_agents() -> (Repo, Scenario) {
    let (up, start) = pulled_both_ways();
    start.write(
        "skills/own/SKILL.md",
        "---\nname: own\ndescription: Ours.\n---\n",
    );
    let intent = start.read_string("vendor-skills.yaml");
    start.write(
        "vendor-skills.yaml",
        format!("targets: [claude, codex, gemini]\n{intent}"),
    );
    let scenario = Scenario {
        name: "skill sync",
        start,
        args: owned(&["skill", "sync"]),
        reader: vec!["skill", "verify"],
    };
    (up, scenario)
}

/// `skill remove` of a taken skill.
#[test]
fn skill_remove_killed_anywhere_then_run_again_ends_as_one_run() {
    let (_up, start) = pulled_both_ways();
    Scenario {
        name: "skill remove",
        start,
        args: owned(&["skill", "remove", "pdf", "--force"]),
        reader: vec!["skill", "validate"],
    }
    .check();
}

/// A run killed while it puts right what an earlier killed run left is itself put right by
/// the next: `gen` killed, then killed again early in the rerun, then run to the end.
#[test]
fn a_recovery_killed_in_turn_is_recovered_by_the_next_run() {
    let scenario = gen_on_the_demo("gen twice killed");
    let clean = scenario.copy();
    assert_eq!(scenario.run(&clean, None).1.code, 0);
    let after = tree(clean.path());
    let mut twice = 0;
    for first in [3, 8, 15, 25] {
        for second in [0, 1, 2, 4, 7] {
            let repo = scenario.copy();
            if !scenario.run(&repo, Some(first)).0 {
                continue;
            }
            if scenario.run(&repo, Some(second)).0 {
                twice += 1;
            }
            let (killed, last) = scenario.run(&repo, None);
            assert!(!killed && last.code == 0, "{first}/{second}: {last:?}");
            assert_eq!(
                tree(repo.path()),
                after,
                "killed at {first}, then at {second}"
            );
        }
    }
    assert!(twice > 5, "only {twice} recoveries were cut");
}

/// The first instant at which a killed `gen` leaves the tree neither as it was nor done.
fn killed_part_way(scenario: &Scenario) -> Repo {
    let before = tree(scenario.start.path());
    for n in 0..200 {
        let repo = scenario.copy();
        let (killed, _) = scenario.run(&repo, Some(n));
        assert!(killed, "no instant leaves the tree part-way");
        // Past the journal and a few staged entries.
        if tree(repo.path()).len() > before.len() + 2 {
            return repo;
        }
    }
    panic!("no instant leaves the tree part-way");
}

#[test]
fn readers_name_the_interrupted_run_and_the_next_writer_says_what_it_put_back() {
    let scenario = gen_on_the_demo("gen");
    let repo = killed_part_way(&scenario);
    let root = repo.path().display().to_string();
    let command = format!("agentic-skill-vendor gen --root {root}");

    // Every reader, in every format, says so first, with the journal's path.
    for reader in [
        &["verify"][..],
        &["lint-selfcontain"],
        &["skill", "verify"],
        &["skill", "validate"],
    ] {
        let text = repo.run(reader);
        assert_eq!(text.code, 1, "{reader:?}: {text:?}");
        // Fragments, not a snapshot: the journal's name is made afresh by each killed run.
        let first = text.stdout.lines().next().unwrap();
        assert!(
            first.starts_with("interrupted: .agentic-skill-vendor/journal-")
                && first.contains(&format!("`{command}` was killed while it changed the tree"))
                && first.ends_with(
                    "run it again (a command that writes first puts back what it changed)"
                ),
            "{reader:?}: {first}"
        );
        let mut json_args = reader.to_vec();
        json_args.extend(["--format", "json"]);
        let json = repo.run(&json_args);
        let record: serde_json::Value =
            serde_json::from_str(json.stdout.lines().next().unwrap()).unwrap();
        assert_eq!(record["kind"], "interrupted", "{reader:?}");
        let journal = record["path"].as_str().unwrap();
        assert!(repo.exists(journal), "{reader:?}: {journal}");
        let mut github_args = reader.to_vec();
        github_args.extend(["--format", "github"]);
        let github = repo.run(&github_args);
        assert!(
            github
                .stdout
                .starts_with(&format!("::error file={journal},title=interrupted::")),
            "{reader:?}: {github:?}"
        );
    }

    // The next writer (another command) puts the tree back first and says so; a rerun of gen
    // then finishes as one run would.
    let sync = repo.run(&["skill", "sync"]);
    // The journal's name again, so fragments.
    assert!(
        sync.stderr.starts_with("warning: .agentic-skill-vendor/journal-") && sync.stderr.contains(&format!(
            ": put back what was changed by `{command}`, which was killed part-way; rerun it if it is not this command\n"
        )),
        "{sync:?}"
    );
    assert_eq!(
        repo.run(&["verify"]).code,
        1,
        "the tree is as before gen: stale"
    );
    assert_eq!(repo.run(&["gen"]).code, 0);
    assert_eq!(repo.run(&["verify"]).code, 0);
}

/// A staged or parked entry inside a skill (what a killed run of an older build, or a copy
/// taken mid-change, can hold) is never packed or installed.
#[test]
fn pack_and_install_refuse_a_skill_holding_residue() {
    let repo = Repo::empty();
    repo.write("skills/pdf/SKILL.md", PDF);
    repo.write(
        "skills/pdf/scripts/.run.sh.asv-staged-0123456789ab",
        "half\n",
    );
    let out = repo.path().join("pdf.zip").display().to_string();
    let pack = repo.run(&["skill", "pack", "skills/pdf", "-o", &out]);
    assert_eq!(
        (pack.code, pack.stderr.as_str()),
        (
            2,
            "error: skills/pdf/scripts/.run.sh.asv-staged-0123456789ab: a staged or parked copy left by a killed run of agentic-skill-vendor; run a command that writes in that repository (gen, skill sync) to clear it, or remove it\n"
        ),
        "{pack:?}"
    );
    assert!(!repo.exists("pdf.zip"));

    let into = Repo::empty();
    let before = tree(into.path());
    let input = repo.join("skills/pdf").display().to_string();
    let install = into.run(&["skill", "install", &input]);
    assert_run_snapshot!("install_of_a_skill_holding_residue", install, into);
    assert_eq!(tree(into.path()), before);
}

/// `skill add --all` of every skill of an upstream: before issue 27 it took no writer lock,
/// so a rerun after a kill left the journal for the next writer to "put back" over it.
#[test]
fn skill_add_all_killed_anywhere_then_run_again_ends_as_one_run() {
    let up = Repo::empty();
    for name in ["csv", "doc", "pdf"] {
        up.write(&format!("skills/{name}/SKILL.md"), PDF.replace("pdf", name));
        up.write(&format!("skills/{name}/notes/more.md"), format!("{name}\n"));
    }
    let start = Repo::empty();
    start.write(
        "skills/own/SKILL.md",
        "---\nname: own\ndescription: Ours.\n---\n",
    );
    add_all(start, &up).check();
}

/// `skill add --all` of every skill under `skills/` of `up` into `start`.
fn add_all(start: Repo, up: &Repo) -> Scenario {
    Scenario {
        name: "skill add --all",
        start,
        args: owned(&[
            "skill",
            "add",
            &up.path().display().to_string(),
            "skills",
            "--all",
        ]),
        reader: vec!["skill", "validate"],
    }
}

/// `init` on a repository with a `.gitignore` of its own: before issue 27 it wrote each part
/// on its own, so a kill left it part-done.
#[test]
fn init_killed_anywhere_then_run_again_ends_as_one_run() {
    let start = Repo::empty();
    start.write(".gitignore", "target/\n");
    Scenario {
        name: "init",
        start,
        args: owned(&["init"]),
        reader: vec!["verify"],
    }
    .check();
}

/// `skill add --all` with agents named in the intent: the skills and every agent's copy land
/// in one transaction, so a kill anywhere and a rerun end as one run (issue 29 §5).
#[test]
fn skill_add_all_with_targets_killed_anywhere_then_run_again_ends_as_one_run() {
    let up = Repo::empty();
    for name in ["doc", "pdf"] {
        up.write(&format!("skills/{name}/SKILL.md"), PDF.replace("pdf", name));
    }
    let start = Repo::empty();
    start.write("vendor-skills.yaml", "targets: [claude, codex]\n");
    Scenario {
        name: "skill add --all with targets",
        start,
        args: owned(&[
            "skill",
            "add",
            &up.path().display().to_string(),
            "skills",
            "--all",
        ]),
        reader: vec!["skill", "verify"],
    }
    .check();
}

/// `skill pull` with agents named in the intent and their copies in place: the merged skill
/// and its copies change in one transaction (issue 29 §5).
#[test]
fn skill_pull_with_targets_killed_anywhere_then_run_again_ends_as_one_run() {
    let (_up, start) = pulled_both_ways();
    let intent = start.read_string("vendor-skills.yaml");
    start.write(
        "vendor-skills.yaml",
        format!("targets: [claude, codex]\n{intent}"),
    );
    let synced = start.run(&["skill", "sync"]);
    assert_eq!(synced.code, 0, "{synced:?}");
    Scenario {
        name: "skill pull with targets",
        start,
        args: owned(&["skill", "pull", "pdf"]),
        reader: vec!["skill", "verify"],
    }
    .check();
}
