//! How much the skill commands say and where (issue 31 §2), on the real binary: commits and
//! digests short in text and whole in JSON, a run over many skills said in one line per kind
//! unless `-v`, warnings on stderr and gone with `-q`, and progress drawn on a terminal's
//! stderr (a pseudo-terminal from python3's `pty`) and never into a pipe.
#![allow(clippy::disallowed_methods, clippy::unwrap_used)]

use std::sync::{Arc, Mutex};

use crate::common::{Repo, Run, assert_run_snapshot, run_with_stderr_on, skill_md};
use crate::support::{self, File, Server};

/// More skills than a text report lists one by one (`LISTED` is 5).
const MANY: usize = 7;

fn names() -> Vec<String> {
    (0..MANY).map(|i| format!("skill-{i}")).collect()
}

/// An upstream directory with [`MANY`] skills under `skills/`.
fn upstream() -> Repo {
    let up = Repo::empty();
    for name in names() {
        up.write(&format!("skills/{name}/SKILL.md"), skill_md(&name, &[]));
    }
    up
}

/// A repository that took every skill of `up` with `skill add --all` (its output checked
/// by the caller), wanting them mirrored for two agents whose directories differ.
fn took_all(up: &Repo, extra: &[&str]) -> (Repo, Run) {
    let me = Repo::empty();
    let source = up.path().display().to_string();
    let mut args = vec!["skill", "add", &source, "skills", "--all"];
    args.extend_from_slice(extra);
    let added = me.run(&args);
    let intent = me.read_string("vendor-skills.yaml");
    me.write(
        "vendor-skills.yaml",
        format!("targets: [claude, cursor]\n{intent}"),
    );
    (me, added)
}

fn json_records(stdout: &str) -> Vec<serde_json::Value> {
    stdout
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON record"))
        .collect()
}

#[test]
fn add_all_of_many_says_one_line_and_each_with_verbose() {
    let up = upstream();
    let (me, added) = took_all(&up, &[]);
    assert_run_snapshot!("output_add_all_summarized", added, me);
    let (me, added) = took_all(&up, &["-v"]);
    assert_run_snapshot!("output_add_all_verbose", added, me);
    // JSON keeps one record per skill, the revision and hash whole.
    let (me, added) = took_all(&up, &["--format", "json"]);
    assert_eq!(added.code, 0, "{added:?}");
    let records = json_records(&added.stdout);
    assert_eq!(records.len(), MANY, "{}", added.stdout);
    let lock: serde_json::Value =
        serde_json::from_str(&me.read_string("vendor-skills-lock.json")).unwrap();
    for (record, name) in records.iter().zip(names()) {
        assert_eq!(record["kind"], "added");
        assert_eq!(record["name"], name.as_str());
        let hash = lock["skills"][&name]["baseHash"].as_str().unwrap();
        assert_eq!(hash.len(), "sha256:".len() + 64);
        assert_eq!(record["hash"], hash);
        assert!(
            record["message"].as_str().unwrap().contains(hash),
            "{record}"
        );
    }
}

#[test]
fn sync_of_many_says_one_line_per_kind_and_each_with_verbose() {
    let up = upstream();
    let (me, _) = took_all(&up, &[]);
    let synced = me.run(&["skill", "sync"]);
    assert_run_snapshot!("output_sync_summarized", synced, me);
    let (me, _) = took_all(&up, &[]);
    let synced = me.run(&["skill", "sync", "--verbose"]);
    assert_run_snapshot!("output_sync_verbose", synced, me);
    // JSON: one record per copy, each hash whole, whatever -v says.
    let (me, _) = took_all(&up, &[]);
    let synced = me.run(&["skill", "sync", "--format", "json"]);
    assert_eq!(synced.code, 0, "{synced:?}");
    let records = json_records(&synced.stdout);
    assert_eq!(records.len(), 2 * MANY, "{}", synced.stdout);
    for record in &records {
        assert_eq!(record["kind"], "projected");
        let message = record["message"].as_str().unwrap();
        let hash = message.rsplit(", ").next().unwrap().trim_end_matches(')');
        assert_eq!(hash.len(), "sha256:".len() + 64, "{message}");
    }
}

#[test]
fn pull_and_install_of_many_say_one_line_and_each_with_verbose() {
    let up = upstream();
    let (me, _) = took_all(&up, &[]);
    let pulled = me.run(&["skill", "pull"]);
    let verbose = me.run(&["skill", "pull", "-v"]);
    assert_run_snapshot!("output_pull_summarized", pulled, me);
    assert_run_snapshot!("output_pull_verbose", verbose, me);
    let skills = up.join("skills").display().to_string();
    let into = Repo::empty();
    let installed = into.run(&["skill", "install", &skills]);
    assert_run_snapshot!("output_install_summarized", installed, into);
    let into = Repo::empty();
    let json = into.run(&["skill", "install", &skills, "--format", "json"]);
    assert_eq!(json.code, 0, "{json:?}");
    assert_eq!(json_records(&json.stdout).len(), MANY, "{}", json.stdout);
}

#[test]
fn a_few_skills_keep_a_line_each_with_ids_short() {
    let up = Repo::empty();
    for name in ["one", "two"] {
        up.write(&format!("skills/{name}/SKILL.md"), skill_md(name, &[]));
    }
    let me = Repo::empty();
    let source = up.path().display().to_string();
    let added = me.run(&["skill", "add", &source, "skills", "--all"]);
    assert_eq!(added.code, 0, "{added:?}");
    let lines: Vec<&str> = added.stdout.lines().collect();
    assert_eq!(lines.len(), 2, "{}", added.stdout);
    for line in lines {
        // `... at sha256:` and twelve hex digits, nothing after.
        let hash = line.rsplit(" at ").next().unwrap();
        assert_eq!(hash.len(), "sha256:".len() + 12, "{line}");
        assert!(hash.starts_with("sha256:"), "{line}");
    }
}

/// A skill with a frontmatter key agents ignore: a warning, no error.
fn warned_skill(repo: &Repo) {
    repo.write(
        "skills/wordy/SKILL.md",
        "---\nname: wordy\ndescription: Says a lot.\nextra: 1\n---\nbody\n",
    );
}

#[test]
fn warnings_go_to_stderr_and_quiet_silences_them() {
    let repo = Repo::empty();
    warned_skill(&repo);
    let validate = repo.run(&["skill", "validate"]);
    assert_run_snapshot!("output_validate_warns_on_stderr", validate, repo);
    let quiet = repo.run(&["skill", "validate", "-q"]);
    assert_eq!(
        (quiet.code, quiet.stdout.as_str(), quiet.stderr.as_str()),
        (0, "", ""),
        "{quiet:?}"
    );
    // --strict makes the warning a failure: then it is the report.
    let strict = repo.run(&["skill", "validate", "--strict", "-q"]);
    assert_eq!(strict.code, 1, "{strict:?}");
    assert!(
        strict.stdout.starts_with("warning: skills/wordy/SKILL.md"),
        "{strict:?}"
    );
    // In JSON the warning stays a record of the report.
    let json = repo.run(&["skill", "validate", "--format", "json", "-q"]);
    assert_eq!(json.code, 0, "{json:?}");
    let records = json_records(&json.stdout);
    assert_eq!(records.len(), 1, "{}", json.stdout);
    assert_eq!(records[0]["kind"], "warning");

    let zip = repo.join("wordy.zip").display().to_string();
    let pack = repo.run(&["skill", "pack", "skills/wordy", "-o", &zip]);
    assert_run_snapshot!("output_pack_warns_on_stderr", pack, repo);
    let quiet = repo.run(&["skill", "pack", "skills/wordy", "-o", &zip, "-q"]);
    assert_eq!((quiet.code, quiet.stderr.as_str()), (0, ""), "{quiet:?}");
    assert!(quiet.stdout.starts_with("packed: wordy -> "), "{quiet:?}");
}

/// An upstream on the fake GitHub server whose skill holds `files` files: one request each
/// through the API's raw host, long enough to draw a bar.
fn big_github_source(files: usize) -> Server {
    let mut upstream = support::GithubRepo::fixture();
    upstream.files.push(File {
        path: "skills/big/SKILL.md".to_owned(),
        mode: "100644",
        bytes: skill_md("big", &[]).into_bytes(),
    });
    for i in 1..files {
        upstream.files.push(File {
            path: format!("skills/big/references/{i:04}.md"),
            mode: "100644",
            bytes: format!("reference {i}\n").into_bytes(),
        });
    }
    let remote = Arc::new(Mutex::new(upstream));
    Server::start(move |request| remote.lock().unwrap().answer(request))
}

#[test]
fn a_github_read_draws_progress_on_a_terminal_and_never_into_a_pipe() {
    const FILES: usize = 400;
    let server = big_github_source(FILES);
    let api = server.api();
    let raw = server.raw();
    let env = [
        ("ASV_TEST_GITHUB_API", api.as_str()),
        ("ASV_TEST_GITHUB_RAW", raw.as_str()),
        ("TERM", "xterm"),
    ];
    let add = |terminal: bool, extra: &[&str]| {
        let me = Repo::empty();
        let root = me.path().display().to_string();
        let mut args = vec![
            "skill",
            "add",
            "acme/contracts",
            "skills/big",
            "--root",
            &root,
        ];
        args.extend_from_slice(extra);
        let run = run_with_stderr_on(terminal, &args, &env);
        assert_eq!(run.code, 0, "{run:?}");
        assert!(run.stdout.contains("big <- acme/contracts at "), "{run:?}");
        assert!(me.exists("skills/big/references/0399.md"));
        run
    };
    let bar = format!("/{FILES}");
    let step = format!("reading {FILES} files at 9f1b7c2d4e5a");

    let shown = add(true, &[]);
    assert!(shown.stderr.contains(&step), "{:?}", shown.stderr);
    assert!(shown.stderr.contains(&bar), "{:?}", shown.stderr);
    // The bar is drawn over itself and cleared: escape sequences, no line left behind.
    assert!(shown.stderr.contains('\u{1b}'), "{:?}", shown.stderr);
    // The report is the same whether anyone watched.
    let piped = add(false, &[]);
    assert_eq!(piped.stderr, "", "{piped:?}");
    assert_eq!(piped.stdout, shown.stdout);
    for quiet in [&["-q"][..], &["--format", "json"]] {
        let run = add(true, quiet);
        assert!(
            !run.stderr.contains("reading"),
            "{quiet:?}: {:?}",
            run.stderr
        );
        assert!(!run.stderr.contains(&bar), "{quiet:?}: {:?}", run.stderr);
    }
}

#[test]
fn an_add_all_draws_progress_on_a_terminal_and_never_into_a_pipe() {
    let up = upstream();
    let source = up.path().display().to_string();
    let add = |terminal: bool| {
        let me = Repo::empty();
        let root = me.path().display().to_string();
        let args = ["skill", "add", &source, "skills", "--all", "--root", &root];
        let run = run_with_stderr_on(terminal, &args, &[("TERM", "xterm")]);
        assert_eq!(run.code, 0, "{run:?}");
        run
    };
    let shown = add(true);
    let step = format!("checking {MANY} skills");
    assert!(shown.stderr.contains(&step), "{:?}", shown.stderr);
    let piped = add(false);
    assert_eq!(piped.stderr, "", "{piped:?}");
    assert_eq!(piped.stdout, shown.stdout);
}
