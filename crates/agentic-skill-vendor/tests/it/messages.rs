//! Messages that lead somewhere, the short name and the manual (issue 31 §3, §4), each through
//! the real binary: what a newcomer types wrong is answered with the command that works.
#![allow(clippy::disallowed_methods)]

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use asv_test_support::snapshot::labelled;

use crate::common::{self, Repo, Run, assert_run_snapshot, bin, run_bin, skill_md};
use crate::git_server;

fn args(a: &[&str]) -> Vec<String> {
    a.iter().map(|s| (*s).to_owned()).collect()
}

/// The short name, built beside the long one.
fn short_bin() -> PathBuf {
    bin().with_file_name(format!("asv{}", std::env::consts::EXE_SUFFIX))
}

/// Runs `program` with `a`, in `cwd`, with a cleared environment (PATH kept).
fn run_program(program: &Path, a: &[&str], cwd: &Path) -> Run {
    let mut command = Command::new(program);
    command.args(a).current_dir(cwd).env_clear();
    if let Ok(path) = std::env::var("PATH") {
        command.env("PATH", path);
    }
    let out = command.output().expect("the binary runs");
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// A skill command typed at the top (as `npx skills sync` or `gh skill list` have it) is
/// pointed at `skill <same>`, and so are `verify-skill` and `skill-pull`; a near miss of a
/// top-level command keeps its own tip.
#[test]
fn a_skill_command_typed_at_the_top_is_pointed_at_skill() {
    let repo = Repo::empty();
    let mut table = String::new();
    for typed in [
        "sync",
        "list",
        "install",
        "pull",
        "remove",
        "status",
        "outdated",
        "diff",
        "verify-skill",
        "skill-pull",
        "gne",
    ] {
        let run = repo.run(&[typed]);
        table.push_str(&labelled(typed, &run, repo.path()));
    }
    assert_run_snapshot!(text: "skill_command_at_the_top", table);
}

/// The top-level `add` (contracts) given a skill's words is refused before any repository is
/// looked for or any request made, naming the `skill add` that takes them; a repository it
/// takes is judged as before.
#[test]
fn the_top_level_add_given_a_skill_points_at_skill_add() {
    let repo = Repo::empty();
    repo.run(&["init"]);
    let mut table = String::new();
    for typed in [
        &["add", "./vendor/pdf"][..],
        &["add", "/srv/skills"],
        &["add", "."],
        &["add", "anthropics/skills/skills/pdf"],
        &["add", "anthropics/skills", "skills/pdf"],
        // A URL is a repository: add's own rules judge it.
        &["add", "file:///tmp/x"],
    ] {
        let run = repo.run(typed);
        table.push_str(&labelled(&typed.join(" "), &run, repo.path()));
    }
    assert_run_snapshot!(text: "add_of_a_skill", table);
    // Nothing was registered.
    assert!(!repo.exists("vendor-manifest.yaml"));
    // Outside any repository the way on is the same.
    let nowhere = tempfile::tempdir().unwrap();
    let run = common::run_bin_in(&args(&["add", "./pdf"]), None, Some(nowhere.path()));
    assert_eq!(run.code, 2, "{run:?}");
    assert!(
        run.stderr
            .starts_with("error: ./pdf: add registers a repository of contracts"),
        "{run:?}"
    );
}

/// An upstream directory holding two skills, and a repository that took both, with a skill of
/// its own beside them.
fn imported() -> (Repo, Repo) {
    let up = Repo::empty();
    up.write("skills/pdf/SKILL.md", skill_md("pdf", &[]));
    up.write("skills/doc/SKILL.md", skill_md("doc", &[]));
    let me = Repo::empty();
    let source = up.path().display().to_string();
    for path in ["skills/pdf", "skills/doc"] {
        let out = me.run(&["skill", "add", &source, path]);
        assert_eq!(out.code, 0, "{out:?}");
    }
    me.write("skills/mine/SKILL.md", skill_md("mine", &[]));
    (up, me)
}

/// `skill status NAME…` and `skill list NAME…` take names as pull, outdated and remove do:
/// only the named skills, each once, and a name that is none refused naming the ones there
/// are.
#[test]
fn status_and_list_take_names() {
    let (_up, me) = imported();
    me.write(
        "skills/doc/SKILL.md",
        skill_md("doc", &[]).replace("Body", "Ours"),
    );
    let all = me.run(&["skill", "status"]);
    assert_eq!(all.code, 0, "{all:?}");
    assert_eq!(all.stdout.lines().count(), 2, "{all:?}");
    let mut table = String::new();
    for typed in [
        &["skill", "status", "doc"][..],
        &["skill", "status", "pdf", "doc", "pdf"],
        &["skill", "status", "mine"],
        &["skill", "status", "nosuch"],
        &["skill", "list", "mine"],
        &["skill", "list", "doc", "mine"],
        &["skill", "list", "nosuch"],
        &["skill", "list", "mine", "--target", "claude"],
    ] {
        let run = me.run(typed);
        table.push_str(&labelled(&typed.join(" "), &run, me.path()));
    }
    assert_run_snapshot!(text: "status_and_list_by_name", table);
    // The JSON of one skill is its record from the whole list.
    let one = me.run(&["skill", "list", "doc", "--format", "json"]);
    let every = me.run(&["skill", "list", "--format", "json"]);
    assert_eq!(one.code, 0, "{one:?}");
    assert!(
        every.stdout.lines().any(|l| l == one.stdout.trim_end()),
        "{one:?} {every:?}"
    );
}

/// The commands listed under "Commands:" in a `--help` text.
fn listed_commands(help: &str) -> Vec<String> {
    help.lines()
        .skip_while(|l| l.trim_end() != "Commands:")
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|name| *name != "help")
        .map(str::to_owned)
        .collect()
}

/// `man --out DIR` writes a page for the program and for every command its help lists, and
/// every page a page names (`agentic-skill-vendor-skill-pull(1)`) is one of them; each page
/// renders with `man -l` where man is installed.
#[test]
fn every_command_has_a_manual_page_and_every_page_named_exists() {
    let dir = tempfile::tempdir().unwrap();
    let run = run_bin(
        &args(&["man", "--out", &dir.path().display().to_string()]),
        None,
    );
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(run.stderr, "");
    let written: BTreeSet<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(run.stdout.lines().count(), written.len(), "{run:?}");
    // Every command the help lists, at every level, has its page.
    let mut wanted = vec!["agentic-skill-vendor.1".to_owned()];
    let mut todo = vec![Vec::<String>::new()];
    while let Some(path) = todo.pop() {
        let mut a = path.clone();
        a.push("--help".to_owned());
        let help = run_bin(&a, None);
        assert_eq!(help.code, 0, "{a:?}: {help:?}");
        for name in listed_commands(&help.stdout) {
            let mut sub = path.clone();
            sub.push(name);
            wanted.push(format!("agentic-skill-vendor-{}.1", sub.join("-")));
            todo.push(sub);
        }
    }
    assert!(wanted.contains(&"agentic-skill-vendor-skill-pull.1".to_owned()));
    let wanted: BTreeSet<String> = wanted.into_iter().collect();
    assert_eq!(written, wanted);
    // Every page named in a page is there.
    let mut named = BTreeSet::new();
    for page in &written {
        let text = std::fs::read_to_string(dir.path().join(page)).unwrap();
        let text = text.replace("\\-", "-");
        for (at, _) in text.match_indices("(1)") {
            let start = text[..at]
                .rfind(|c: char| !(c.is_ascii_alphanumeric() || c == '-'))
                .map_or(0, |i| i + 1);
            named.insert(format!("{}.1", &text[start..at]));
        }
    }
    assert!(named.len() > 20, "{named:?}");
    let missing: Vec<&String> = named.difference(&written).collect();
    assert!(missing.is_empty(), "named but not written: {missing:?}");
    // A command's page names the program and its version, as the top page does.
    let page = dir.path().join("agentic-skill-vendor-skill-pull.1");
    let roff = std::fs::read_to_string(&page).unwrap().replace("\\-", "-");
    let title = format!(
        ".TH agentic-skill-vendor-skill-pull 1  \"agentic-skill-vendor {}\"",
        env!("CARGO_PKG_VERSION")
    );
    assert!(roff.contains(&title), "{roff}");
    // A page renders and shows its command's usage line.
    match Command::new("man")
        .arg("-l")
        .arg(&page)
        .env("MANPAGER", "cat")
        .env("PAGER", "cat")
        .output()
    {
        Ok(out) => {
            assert!(out.status.success(), "{out:?}");
            // man justifies lines and may print a hyphen as U+2010.
            let text = String::from_utf8_lossy(&out.stdout).replace('\u{2010}', "-");
            let words = text.split_whitespace().collect::<Vec<_>>().join(" ");
            assert!(
                words.contains("SYNOPSIS agentic-skill-vendor skill pull [--root]"),
                "{text}"
            );
        }
        Err(e) => eprintln!(
            "SKIPPED part of every_command_has_a_manual_page: `man -l` could not run here ({e}); the pages were checked as roff only"
        ),
    }
    // Written again, the same pages; a directory that is not there is refused.
    let again = run_bin(
        &args(&["man", "--out", &dir.path().display().to_string()]),
        None,
    );
    assert_eq!(again, run);
    let missing = dir.path().join("nosuch");
    let refused = run_bin(
        &args(&["man", "--out", &missing.display().to_string()]),
        None,
    );
    assert_eq!(refused.code, 2, "{refused:?}");
    assert_eq!(
        refused.stderr,
        format!(
            "error: {}: no such directory; create it or give another --out\n",
            missing.display()
        )
    );
}

/// `asv` is the same program under the short name: its help and its usage refusals name the
/// name it was run by, its completion script completes `asv` in a real bash, and the long
/// name's still completes the long name.
#[test]
fn the_short_name_is_the_same_program_and_speaks_its_name() {
    let short = short_bin();
    assert!(short.is_file(), "{} is built", short.display());
    let here = tempfile::tempdir().unwrap();
    let long_version = run_program(&bin(), &["--version"], here.path());
    let short_version = run_program(&short, &["--version"], here.path());
    assert_eq!(short_version, long_version);
    let help = run_program(&short, &["skill", "pull", "--help"], here.path());
    assert_eq!(help.code, 0, "{help:?}");
    assert!(
        help.stdout.contains("Usage: asv skill pull [OPTIONS]"),
        "{help:?}"
    );
    let mut table = String::new();
    for typed in [
        &["gne"][..],
        &["sync"],
        &["skill", "pul"],
        &["add", "./pdf"],
    ] {
        let run = run_program(&short, typed, here.path());
        table.push_str(&labelled(
            &format!("asv {}", typed.join(" ")),
            &run,
            here.path(),
        ));
    }
    assert_run_snapshot!(text: "short_name_refusals", table);

    for (program, name) in [(&short, "asv"), (&bin(), "agentic-skill-vendor")] {
        let script = run_program(program, &["completions", "bash"], here.path());
        assert_eq!(script.code, 0, "{script:?}");
        let file = here.path().join(format!("{name}.bash"));
        std::fs::write(&file, &script.stdout).unwrap();
        let program = format!(
            r#"source "$1"
fn=$(complete -p {name} | sed -n 's/.*-F \([^ ]*\) .*/\1/p')
COMP_WORDS=({name} skill pu)
COMP_CWORD=2
COMP_LINE="{name} skill pu"
COMP_POINT=${{#COMP_LINE}}
"$fn" {name} pu skill
printf '%s\n' "${{COMPREPLY[@]}}""#
        );
        let out = Command::new("bash")
            .args(["-c", &program, "bash"])
            .arg(&file)
            .output()
            .expect("bash runs");
        assert!(out.status.success(), "{name}: {out:?}");
        assert_eq!(String::from_utf8_lossy(&out.stdout), "pull\n", "{name}");
    }
}

/// `init` makes nothing git cannot track: each directory it makes holds an empty `.gitkeep`,
/// so a commit and a clone keep the layout, and every command reads the laid-out repository
/// as empty.
#[test]
fn init_leaves_nothing_git_cannot_track() {
    let repo = Repo::empty();
    common::git(repo.path(), &["init", "-q"]);
    assert_eq!(repo.run(&["init"]).code, 0);
    assert_eq!(repo.read_string("contracts/.gitkeep"), "");
    assert_eq!(repo.read_string("skills/.gitkeep"), "");
    common::git(repo.path(), &["add", "-A"]);
    let tracked = common::git(repo.path(), &["ls-files"]);
    assert_eq!(tracked, ".gitignore\ncontracts/.gitkeep\nskills/.gitkeep");
    // A clone has the layout, and every command finds nothing to say of it.
    common::git(repo.path(), &["commit", "-qm", "init"]);
    let clone = tempfile::tempdir().unwrap();
    let dest = clone.path().join("c");
    common::git(
        clone.path(),
        &["clone", "-q", &repo.path().display().to_string(), "c"],
    );
    assert!(dest.join("contracts").is_dir() && dest.join("skills").is_dir());
    for command in [
        &["gen"][..],
        &["verify"],
        &["lint-selfcontain"],
        &["skill", "validate"],
        &["skill", "list"],
        &["skill", "status"],
        &["skill", "verify"],
        &["init"],
    ] {
        let run = common::run_bin_in(&args(command), None, Some(&dest));
        assert_eq!(
            (run.code, run.stdout.as_str(), run.stderr.as_str()),
            (0, "", ""),
            "{command:?}"
        );
    }
}

/// `skill add` judges its source before its name: a typo'd source or path is said as such,
/// even when a skill of the same name is imported; a path that holds skills but is none (the
/// `--all` forgotten) says so and names the options that take them.
#[test]
fn skill_add_says_what_is_wrong_with_the_source_first() {
    let up = Repo::empty();
    up.write("skills/pdf/SKILL.md", skill_md("pdf", &[]));
    up.write("skills/docx/SKILL.md", skill_md("docx", &[]));
    common::git(up.path(), &["init", "-q"]);
    common::git(up.path(), &["add", "-A"]);
    common::git(up.path(), &["commit", "-qm", "skills"]);
    let me = Repo::empty();
    let source = up.path().display().to_string();
    let typo = format!("{source}x");
    assert_eq!(me.run(&["skill", "add", &source, "skills/pdf"]).code, 0);
    let before = me.snapshot();
    let mut table = String::new();
    for typed in [
        &["skill", "add", &typo, "skills/pdf"][..],
        &["skill", "add", &source, "skils/pdf"],
        &["skill", "add", &source, "skills", "--ref", "main"],
        &["skill", "add", &source, "."],
        &["skill", "add", &source, "skills/pdf"],
    ] {
        let run = me.run(typed);
        table.push_str(&labelled(&typed.join(" "), &run, me.path()));
    }
    assert_run_snapshot!(text: "skill_add_source_first", table);
    assert_eq!(me.snapshot(), before);
}

/// A port on 127.0.0.1 nothing listens on: bound, then let go.
fn closed_port() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("a port to bind");
    listener.local_addr().expect("its address").port()
}

/// A source that cannot be reached says what failed (the name's lookup, the connection, the
/// TLS handshake) and the URL asked, through the GitHub API and through git alike: a closed
/// port on 127.0.0.1, a `.invalid` host (which never resolves), and the test TLS server, whose
/// CA neither is told to trust.
#[test]
fn an_unreachable_source_says_what_failed_and_where() {
    let tls = git_server::Tls::new();
    let served = tempfile::tempdir().unwrap();
    let https = git_server::Https::start(&tls, served.path(), git_server::Behaviour::Serve);
    let closed = format!("127.0.0.1:{}", closed_port());
    let repo = Repo::empty();
    repo.run(&["init"]);
    let mut table = String::new();
    let github = |api: &str| {
        vec![
            ("ASV_TEST_GITHUB_API", api.to_owned()),
            ("ASV_TEST_GITHUB_RAW", api.to_owned()),
        ]
    };
    let tls_api = https.url("api");
    // Each row: the command line, and the GitHub endpoints it is given (none for git).
    type Row<'a> = (Vec<String>, Vec<(&'a str, String)>);
    let rows: Vec<Row> = vec![
        (
            args(&["add", "acme/contracts"]),
            github(&format!("http://{closed}")),
        ),
        (
            args(&["add", "acme/contracts"]),
            github("http://api.nosuch.invalid"),
        ),
        (
            args(&["add", "acme/contracts"]),
            github(tls_api.trim_end_matches("/api")),
        ),
        (
            args(&[
                "skill",
                "add",
                &format!("https://{closed}/x.git"),
                "skills/pdf",
            ]),
            Vec::new(),
        ),
        (
            args(&[
                "skill",
                "add",
                "https://git.nosuch.invalid/x.git",
                "skills/pdf",
            ]),
            Vec::new(),
        ),
        (
            args(&["skill", "add", &https.url("x.git"), "skills/pdf"]),
            Vec::new(),
        ),
    ];
    for (typed, env) in rows {
        let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
        let run = common::run_bin_env(&typed, None, Some(repo.path()), &env);
        let label = match env.first() {
            Some((_, api)) => format!("{} (GitHub API at {api})", typed.join(" ")),
            None => typed.join(" "),
        };
        table.push_str(&labelled(&label, &run, repo.path()));
    }
    assert_run_snapshot!(text: "unreachable_sources", table);
}

/// Makes `dir` refuse new entries: immutable (`chattr +i`, which stops root too), else
/// read-only by its mode; `false` when neither stops a write here (root on a file system
/// without the attribute). Undone by [`writable`].
fn unwritable(dir: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    let immutable = Command::new("chattr")
        .arg("+i")
        .arg(dir)
        .output()
        .is_ok_and(|out| out.status.success());
    if !immutable {
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o555))
            .expect("the directory's mode can be set");
    }
    let probe = dir.join("probe");
    if std::fs::write(&probe, "").is_ok() {
        let _ = std::fs::remove_file(probe);
        writable(dir);
        return false;
    }
    true
}

fn writable(dir: &Path) {
    use std::os::unix::fs::PermissionsExt;
    let _ = Command::new("chattr").arg("-i").arg(dir).output();
    let _ = std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o755));
}

/// An agent's directory that cannot be written is named as such, with what to do, and not by
/// the staged name its entry was to have; the run changes nothing.
#[test]
fn a_directory_that_is_not_writable_is_named() {
    let (_up, me) = imported();
    me.write(
        "vendor-skills.yaml",
        format!(
            "targets: [claude]\n{}",
            me.read_string("vendor-skills.yaml")
        ),
    );
    std::fs::create_dir_all(me.join(".claude/skills")).unwrap();
    let mut table = String::new();
    for dir in [".claude/skills", ".claude"] {
        if dir == ".claude" {
            std::fs::remove_dir(me.join(".claude/skills")).unwrap();
        }
        if !unwritable(&me.join(dir)) {
            eprintln!(
                "SKIPPED a_directory_that_is_not_writable_is_named: nothing stops a write to a directory here"
            );
            return;
        }
        let before = me.snapshot();
        let run = me.run(&["skill", "sync"]);
        writable(&me.join(dir));
        assert_eq!(me.snapshot(), before);
        // The system's words differ between an immutable directory and a read-only mode.
        let run = Run {
            stderr: run
                .stderr
                .replace("(Operation not permitted (os error 1))", "(<refused>)")
                .replace("(Permission denied (os error 13))", "(<refused>)"),
            ..run
        };
        table.push_str(&labelled(
            &format!("skill sync (with {dir} not writable)"),
            &run,
            me.path(),
        ));
    }
    assert_run_snapshot!(text: "not_writable", table);
}
