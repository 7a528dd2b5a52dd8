//! `skill add <source>` with no path (issue 31 §1), on the real binary: the skills a source
//! holds found wherever they are (a Claude Code plugin marketplace, nested layouts, a root
//! `SKILL.md`), listed in text and JSON, chosen by `--skill` globs, `--all` or a prompt on a
//! real pseudo-terminal, refused with the list off a terminal; read from a local git
//! repository, a plain directory, `git http-backend` over TLS and the fake GitHub API (web
//! addresses); taken in a fresh `git init` work tree without `init`; and `skill install` of a
//! directory of such a layout.
#![allow(clippy::disallowed_methods, clippy::unwrap_used)]

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use crate::common::{Repo, Run, assert_run_snapshot, git, run_bin_env};
use crate::git_server::{Behaviour, Https, Tls};
use crate::support::{self, File, Server};

/// A SKILL.md named `name` with `description`.
fn skill(name: &str, description: &str) -> String {
    format!("---\nname: {name}\ndescription: {description}\n---\n# {name}\n")
}

/// The files of an upstream of plugin-marketplace shape (as trailofbits/skills is): two
/// plugins listed by `.claude-plugin/marketplace.json`, one of which names a skill outside its
/// `skills/`; a nested `.claude/skills/` skill; a skill holding an example `SKILL.md` of its
/// own; a `node_modules` skill, a skill deeper than the bound, and a directory without a
/// `SKILL.md`, none of which are skills.
fn marketplace_files() -> Vec<(&'static str, String)> {
    let market = r#"{
  "name": "fixture-market",
  "owner": {"name": "Fixture"},
  "plugins": [
    {"name": "alpha-tools", "source": "./plugins/alpha"},
    {"name": "beta-tools", "source": "./plugins/beta", "skills": ["./extra/deep/er/still/beta-extra"]},
    {"name": "elsewhere", "source": {"source": "github", "repo": "other/repo"}}
  ]
}
"#;
    vec![
        (".claude-plugin/marketplace.json", market.to_owned()),
        ("README.md", "a marketplace\n".to_owned()),
        (
            "plugins/alpha/skills/audit-one/SKILL.md",
            skill("audit-one", "Audits one thing."),
        ),
        (
            "plugins/alpha/skills/audit-one/scripts/run.sh",
            "#!/bin/sh\necho one\n".to_owned(),
        ),
        (
            "plugins/alpha/skills/audit-two/SKILL.md",
            skill("audit-two", "Audits another thing."),
        ),
        (
            "plugins/alpha/skills/audit-two/examples/SKILL.md",
            skill("not-a-skill", "An example inside a skill."),
        ),
        (
            "plugins/beta/skills/beta-main/SKILL.md",
            skill("beta-main", "The beta plugin's skill."),
        ),
        (
            "plugins/beta/extra/deep/er/still/beta-extra/SKILL.md",
            skill(
                "beta-extra",
                "Named by the marketplace, deeper than the bound.",
            ),
        ),
        (
            ".claude/skills/review/SKILL.md",
            skill("review", "Reviews a change."),
        ),
        (
            "node_modules/pkg/skill/SKILL.md",
            skill("vendored", "Someone else's."),
        ),
        (
            "a/b/c/d/e/too-deep/SKILL.md",
            skill("too-deep", "Six levels down."),
        ),
        (
            "plugins/alpha/skills/notes/README.md",
            "no skill\n".to_owned(),
        ),
    ]
}

/// The names the marketplace fixture holds, in path order.
const FOUND: [&str; 5] = [
    "review",
    "audit-one",
    "audit-two",
    "beta-extra",
    "beta-main",
];

/// A git work tree holding the marketplace fixture, committed on `main`.
fn marketplace_repo() -> Repo {
    let up = Repo::empty();
    git(up.path(), &["init", "-q", "-b", "main"]);
    for (path, text) in marketplace_files() {
        up.write(path, text);
    }
    git(up.path(), &["add", "-A"]);
    git(up.path(), &["commit", "-q", "-m", "marketplace"]);
    up
}

fn source(up: &Repo) -> String {
    up.path().display().to_string()
}

fn lock(me: &Repo) -> serde_json::Value {
    serde_json::from_str(&me.read_string("vendor-skills-lock.json")).unwrap()
}

/// The lock's skills with their paths in the source.
fn taken(me: &Repo) -> Vec<(String, String)> {
    lock(me)["skills"]
        .as_object()
        .unwrap()
        .iter()
        .map(|(k, v)| (k.clone(), v["path"].as_str().unwrap().to_owned()))
        .collect()
}

#[test]
fn list_shows_every_skill_of_a_marketplace_and_nested_layouts() {
    let up = marketplace_repo();
    let me = Repo::empty();
    let listed = me.run(&["skill", "add", &source(&up), "--list"]);
    assert_eq!(listed.code, 0, "{listed:?}");
    let names: Vec<&str> = listed
        .stdout
        .lines()
        .map(|l| l.split(':').next().unwrap())
        .collect();
    assert_eq!(names, FOUND, "{}", listed.stdout);
    assert_run_snapshot!("discover_list_text", listed, up);
    // Listing writes nothing, not even the lock.
    assert!(!me.exists("vendor-skills-lock.json") && !me.exists("skills"));

    let json = me.run(&["skill", "add", &source(&up), "--list", "--format", "json"]);
    assert_eq!(json.code, 0, "{json:?}");
    let head = git(up.path(), &["rev-parse", "HEAD"]);
    let records: Vec<serde_json::Value> = json
        .stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(records.len(), FOUND.len());
    let beta = records.iter().find(|r| r["name"] == "beta-extra").unwrap();
    assert_eq!(beta["kind"], "found");
    assert_eq!(beta["path"], "plugins/beta/extra/deep/er/still/beta-extra");
    assert_eq!(beta["plugin"], "beta-tools");
    assert_eq!(beta["revision"], head.as_str());
    assert_eq!(
        beta["description"],
        "Named by the marketplace, deeper than the bound."
    );
    let review = records.iter().find(|r| r["name"] == "review").unwrap();
    assert_eq!(review["plugin"], serde_json::Value::Null);
}

#[test]
fn skill_globs_choose_and_take_at_the_listed_commit() {
    let up = marketplace_repo();
    let me = Repo::empty();
    let out = me.run(&["skill", "add", &source(&up), "--skill", "AUDIT-*,review"]);
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(
        taken(&me),
        [
            (
                "audit-one".to_owned(),
                "plugins/alpha/skills/audit-one".to_owned()
            ),
            (
                "audit-two".to_owned(),
                "plugins/alpha/skills/audit-two".to_owned()
            ),
            ("review".to_owned(), ".claude/skills/review".to_owned()),
        ]
    );
    let head = git(up.path(), &["rev-parse", "HEAD"]);
    for entry in lock(&me)["skills"].as_object().unwrap().values() {
        assert_eq!(entry["revision"], head.as_str());
        assert_eq!(entry["ref"], "main");
    }
    // The skill's own files came with it, the example SKILL.md inside it too.
    assert!(me.exists("skills/audit-one/scripts/run.sh"));
    assert!(me.exists("skills/audit-two/examples/SKILL.md"));
    // What was taken is tracked like any import.
    let status = me.run(&["skill", "status"]);
    assert_eq!(
        status.stdout, "audit-one: clean\naudit-two: clean\nreview: clean\n",
        "{status:?}"
    );

    // --skill narrows --list to what it would take.
    let narrowed = me.run(&["skill", "add", &source(&up), "--list", "--skill", "beta-*"]);
    let names: Vec<&str> = narrowed
        .stdout
        .lines()
        .map(|l| l.split(':').next().unwrap())
        .collect();
    assert_eq!(names, ["beta-extra", "beta-main"], "{narrowed:?}");

    // A pattern that matches nothing refuses the run, naming it and what there is.
    let other = Repo::empty();
    let none = other.run(&["skill", "add", &source(&up), "--skill", "audit-*,nope*"]);
    assert_run_snapshot!("discover_skill_matches_nothing", none, up);
    assert!(!other.exists("skills"));
}

#[test]
fn off_a_terminal_several_skills_are_listed_and_the_run_exits_2() {
    let up = marketplace_repo();
    let me = Repo::empty();
    let out = me.run(&["skill", "add", &source(&up)]);
    assert_eq!(out.code, 2, "{out:?}");
    assert_run_snapshot!("discover_choose_off_a_terminal", out, up);
    assert!(!me.exists("skills") && !me.exists("vendor-skills-lock.json"));
    // In JSON the refusal is the stream's last line, as every refusal is.
    let json = me.run(&["skill", "add", &source(&up), "--format", "json"]);
    assert_eq!(json.code, 2);
    let last: serde_json::Value =
        serde_json::from_str(json.stdout.lines().last().unwrap()).unwrap();
    assert_eq!(last["kind"], "error", "{json:?}");
}

#[test]
fn all_takes_every_skill_found_and_one_skill_found_is_taken() {
    let up = marketplace_repo();
    let me = Repo::empty();
    let out = me.run(&["skill", "add", &source(&up), "--all"]);
    assert_eq!(out.code, 0, "{out:?}");
    let mut names: Vec<String> = taken(&me).into_iter().map(|(n, _)| n).collect();
    names.sort();
    let mut want: Vec<String> = FOUND.iter().map(|s| (*s).to_owned()).collect();
    want.sort();
    assert_eq!(names, want);
    assert!(!me.exists("skills/vendored") && !me.exists("skills/too-deep"));

    // A source holding one skill (a root SKILL.md) needs no choice.
    let single = Repo::empty();
    single.write("SKILL.md", skill("solo", "The only one."));
    single.write("skills/inner/SKILL.md", skill("inner", "Part of solo."));
    let me = Repo::empty();
    let out = me.run(&["skill", "add", &source(&single)]);
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(taken(&me), [("solo".to_owned(), ".".to_owned())]);
    assert!(me.exists("skills/solo/skills/inner/SKILL.md"));
}

#[test]
fn skills_agents_accept_are_taken_with_warnings() {
    let up = Repo::empty();
    let long = "x".repeat(1100);
    up.write(
        "skills/dir-name/SKILL.md",
        format!("---\nname: other-name\ndescription: {long}\nallowed-tools: Read\nuser-invocable: true\n---\n# x\n"),
    );
    up.write("skills/plain/SKILL.md", skill("plain", "Plain."));
    let me = Repo::empty();
    let out = me.run(&["skill", "add", &source(&up), "--all"]);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(me.exists("skills/other-name/SKILL.md") && me.exists("skills/plain/SKILL.md"));
    assert_run_snapshot!("discover_taken_with_warnings", out, up);
}

#[test]
fn a_working_tree_leaves_out_what_gitignore_excludes() {
    let up = Repo::empty();
    up.write(".gitignore", "build/\n");
    up.write("skills/kept/SKILL.md", skill("kept", "Kept."));
    up.write(
        "build/skills/generated/SKILL.md",
        skill("generated", "Built."),
    );
    up.write("node_modules/dep/SKILL.md", skill("dep", "A dependency's."));
    let me = Repo::empty();
    let out = me.run(&["skill", "add", &source(&up), "--list"]);
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(out.stdout, "kept: skills/kept — Kept.\n");
}

/// Runs the binary in a pseudo-terminal (python3's `pty`, as the user's shell would run it),
/// typing `keys` once the prompt shows: the exit code and what the terminal showed.
fn in_pty(cwd: &Path, args: &[&str], keys: &str) -> (i32, String) {
    let driver = r#"
import os, pty, select, sys, time
bin, cwd, keys = sys.argv[1], sys.argv[2], sys.argv[3]
args = sys.argv[4:]
pid, fd = pty.fork()
if pid == 0:
    os.chdir(cwd)
    os.execve(bin, [bin] + args, {"PATH": os.environ.get("PATH", ""), "TERM": "xterm"})
seen = b""
def read_for(seconds, until=None):
    global seen
    end = time.time() + seconds
    while time.time() < end:
        r, _, _ = select.select([fd], [], [], 0.1)
        if r:
            try:
                chunk = os.read(fd, 4096)
            except OSError:
                return False
            if not chunk:
                return False
            seen += chunk
            if until is not None and until in seen:
                return True
    return True
read_for(30, b"space chooses")
for key in keys.split(","):
    os.write(fd, {"space": b" ", "down": b"\x1b[B", "enter": b"\r"}[key])
    time.sleep(0.2)
read_for(30)
_, status = os.waitpid(pid, 0)
sys.stdout.write(seen.decode("utf-8", "replace"))
sys.exit(os.waitstatus_to_exitcode(status))
"#;
    let out = std::process::Command::new("python3")
        .arg("-c")
        .arg(driver)
        .arg(asv_test_support::repo::bin())
        .arg(cwd)
        .arg(keys)
        .args(args)
        .output()
        .expect("python3 runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

#[test]
fn a_terminal_offers_a_multi_select() {
    let up = marketplace_repo();
    let me = Repo::empty();
    let root = me.path().display().to_string();
    // The first and the third skill found (review, audit-two), then enter.
    let (code, shown) = in_pty(
        me.path(),
        &["skill", "add", &source(&up), "--root", &root],
        "space,down,down,space,enter",
    );
    assert_eq!(code, 0, "{shown}");
    assert!(shown.contains("holds 5 skills"), "{shown}");
    assert_eq!(
        taken(&me),
        [
            (
                "audit-two".to_owned(),
                "plugins/alpha/skills/audit-two".to_owned()
            ),
            ("review".to_owned(), ".claude/skills/review".to_owned()),
        ],
        "{shown}"
    );
    // Enter with nothing chosen writes nothing and says so.
    let other = Repo::empty();
    let root = other.path().display().to_string();
    let (code, shown) = in_pty(
        other.path(),
        &["skill", "add", &source(&up), "--root", &root],
        "enter",
    );
    assert_eq!(code, 2, "{shown}");
    assert!(shown.contains("no skill of"), "{shown}");
    assert!(!other.exists("skills"));
}

/// The marketplace fixture served by `git http-backend` behind TLS on 127.0.0.1.
struct Served {
    _dir: tempfile::TempDir,
    tls: Tls,
    server: Https,
    head: String,
}

impl Served {
    fn new() -> Served {
        let up = marketplace_repo();
        let dir = tempfile::tempdir().unwrap();
        let served = dir.path().join("served");
        std::fs::create_dir(&served).unwrap();
        git(
            &served,
            &["clone", "-q", "--bare", &source(&up), "market.git"],
        );
        let tls = Tls::new();
        let server = Https::start(&tls, &served, Behaviour::Serve);
        Served {
            head: git(up.path(), &["rev-parse", "HEAD"]),
            _dir: dir,
            tls,
            server,
        }
    }

    fn run(&self, me: &Repo, args: &[&str]) -> Run {
        let mut all: Vec<String> = args.iter().map(|s| (*s).to_owned()).collect();
        all.extend(["--root".to_owned(), me.path().display().to_string()]);
        let env: Vec<(String, String)> = self
            .tls
            .env()
            .into_iter()
            .map(|(k, v)| {
                (
                    k.to_string_lossy().into_owned(),
                    v.to_string_lossy().into_owned(),
                )
            })
            .collect();
        let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
        run_bin_env(&all, None, Some(me.path()), &env)
    }
}

#[test]
fn a_marketplace_over_git_http_backend_is_found_and_taken() {
    let served = Served::new();
    let url = served.server.url("market.git");
    let me = Repo::empty();
    let listed = served.run(&me, &["skill", "add", &url, "--list"]);
    assert_eq!(listed.code, 0, "{listed:?}");
    let names: Vec<&str> = listed
        .stdout
        .lines()
        .map(|l| l.split(':').next().unwrap())
        .collect();
    assert_eq!(names, FOUND);
    let out = served.run(&me, &["skill", "add", &url, "--skill", "beta-*"]);
    assert_eq!(out.code, 0, "{out:?}");
    let lock = lock(&me);
    assert_eq!(lock["skills"].as_object().unwrap().len(), 2);
    for name in ["beta-extra", "beta-main"] {
        assert_eq!(lock["skills"][name]["revision"], served.head.as_str());
        assert_eq!(lock["skills"][name]["source"], url.as_str());
    }
    assert!(me.exists("skills/beta-extra/SKILL.md"));
}

/// A fake GitHub repository `acme/contracts` holding two skills, and branch `release/2.x`.
fn github() -> (Server, Arc<Mutex<support::GithubRepo>>) {
    let mut upstream = support::GithubRepo::fixture();
    for (path, text) in [
        ("skills/pdf/SKILL.md", skill("pdf", "Reads PDF files.")),
        ("skills/xlsx/SKILL.md", skill("xlsx", "Reads spreadsheets.")),
    ] {
        upstream.files.push(File {
            path: path.to_owned(),
            mode: "100644",
            bytes: text.into_bytes(),
        });
    }
    let remote = Arc::new(Mutex::new(upstream));
    let served = Arc::clone(&remote);
    let server = Server::start(move |request| served.lock().unwrap().answer(request));
    (server, remote)
}

fn run_github(me: &Repo, server: &Server, args: &[&str]) -> Run {
    let mut all: Vec<String> = args.iter().map(|s| (*s).to_owned()).collect();
    all.extend(["--root".to_owned(), me.path().display().to_string()]);
    let (api, raw) = (server.api(), server.raw());
    run_bin_env(
        &all,
        None,
        Some(me.path()),
        &[
            ("ASV_TEST_GITHUB_API", api.as_str()),
            ("ASV_TEST_GITHUB_RAW", raw.as_str()),
        ],
    )
}

#[test]
fn github_web_addresses_are_read_as_repository_ref_and_path() {
    let (server, _remote) = github();
    let commit = support::COMMIT;
    let rows: &[(&str, &[&str], Option<&str>, &str)] = &[
        // address, the skills it finds, the ref recorded, the path of the first
        (
            "https://github.com/acme/contracts",
            &["pdf", "xlsx"],
            Some("main"),
            "skills/pdf",
        ),
        (
            "https://github.com/acme/contracts.git",
            &["pdf", "xlsx"],
            Some("main"),
            "skills/pdf",
        ),
        (
            "https://github.com/acme/contracts/tree/main/skills",
            &["pdf", "xlsx"],
            Some("main"),
            "skills/pdf",
        ),
        // A ref with a slash: the leading part the repository resolves is the ref.
        (
            "https://github.com/acme/contracts/tree/release/2.x/skills/pdf",
            &["pdf"],
            Some("release/2.x"),
            "skills/pdf",
        ),
        (
            "https://github.com/acme/contracts/blob/v1.0.0/skills/xlsx/SKILL.md",
            &["xlsx"],
            Some("v1.0.0"),
            "skills/xlsx",
        ),
    ];
    for (address, names, reference, path) in rows {
        let me = Repo::empty();
        let listed = run_github(
            &me,
            &server,
            &["skill", "add", address, "--list", "--format", "json"],
        );
        assert_eq!(listed.code, 0, "{address}: {listed:?}");
        let found: Vec<String> = listed
            .stdout
            .lines()
            .map(|l| {
                let v: serde_json::Value = serde_json::from_str(l).unwrap();
                assert_eq!(v["source"], "acme/contracts");
                assert_eq!(v["revision"], commit);
                v["name"].as_str().unwrap().to_owned()
            })
            .collect();
        assert_eq!(&found, names, "{address}");
        let added = run_github(&me, &server, &["skill", "add", address, "--all"]);
        assert_eq!(added.code, 0, "{address}: {added:?}");
        let lock = lock(&me);
        let first = &lock["skills"][names[0]];
        assert_eq!(first["source"], "acme/contracts", "{address}");
        assert_eq!(first["ref"].as_str(), *reference, "{address}");
        assert_eq!(first["path"], *path, "{address}");
        assert_eq!(first["revision"], commit);
    }
    // An address that names a path, with a path given too, is refused before any request.
    let me = Repo::empty();
    let twice = run_github(
        &me,
        &server,
        &[
            "skill",
            "add",
            "https://github.com/acme/contracts/tree/main/skills",
            "skills/pdf",
        ],
    );
    assert_run_snapshot!("discover_web_address_path_twice", twice);
    // The old form with a web address and a path reads it as owner/repo.
    let old = run_github(
        &me,
        &server,
        &[
            "skill",
            "add",
            "https://github.com/acme/contracts",
            "skills/pdf",
        ],
    );
    assert_eq!(old.code, 0, "{old:?}");
    assert_eq!(lock(&me)["skills"]["pdf"]["source"], "acme/contracts");
}

#[test]
fn a_fresh_git_init_is_a_root_without_init() {
    let up = marketplace_repo();
    let fresh = tempfile::tempdir().unwrap();
    git(fresh.path(), &["init", "-q"]);
    std::fs::create_dir(fresh.path().join("sub")).unwrap();
    // From a subdirectory, without --root: the top of the work tree is the repository.
    let out = run_bin_env(
        &[
            "skill".into(),
            "add".into(),
            source(&up),
            "--skill".into(),
            "review".into(),
        ],
        None,
        Some(&fresh.path().join("sub")),
        &[],
    );
    assert_eq!(out.code, 0, "{out:?}");
    let top: PathBuf = fresh.path().to_path_buf();
    assert!(top.join("skills/review/SKILL.md").is_file());
    assert!(top.join("vendor-skills-lock.json").is_file());
    assert!(!top.join("sub/skills").exists());
    // Outside any work tree and repository, the refusal stands as before.
    let bare = tempfile::tempdir().unwrap();
    let out = run_bin_env(
        &["skill".into(), "add".into(), source(&up), "--list".into()],
        None,
        Some(bare.path()),
        &[],
    );
    assert_eq!(out.code, 2, "{out:?}");
    assert!(out.stderr.contains("no repository found"), "{out:?}");
}

#[test]
fn install_takes_a_directory_of_the_same_layouts() {
    let up = Repo::empty();
    for (path, text) in marketplace_files() {
        up.write(path, text);
    }
    let me = Repo::empty();
    let out = me.run(&["skill", "install", &source(&up)]);
    assert_eq!(out.code, 0, "{out:?}");
    for name in FOUND {
        assert!(
            me.exists(&format!("skills/{name}/SKILL.md")),
            "{name}: {out:?}"
        );
    }
    assert!(!me.exists("skills/vendored") && !me.exists("skills/too-deep"));
    assert!(!me.exists("skills/not-a-skill"));
}

#[test]
fn a_source_without_skills_is_refused_and_the_help_says_how_skills_are_found() {
    let up = Repo::empty();
    up.write("docs/README.md", "no skills here\n");
    up.write("node_modules/dep/SKILL.md", skill("dep", "A dependency's."));
    let me = Repo::empty();
    let none = me.run(&["skill", "add", &source(&up)]);
    assert_run_snapshot!("discover_no_skill_found", none, up);
    let help = me.run(&["skill", "add", "--help"]);
    assert_run_snapshot!("discover_skill_add_help", help);
}
