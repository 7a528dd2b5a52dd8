//! The fetching commands on the real binary: `add` against a real HTTP server on 127.0.0.1
//! playing the GitHub API (reached through debug-build-only test endpoints), and the
//! `--token-stdin` rules.
#![cfg(debug_assertions)]
#![allow(clippy::disallowed_methods)]

mod common;
#[path = "../../asv-remote/tests/support/mod.rs"]
mod support;

use std::sync::{Arc, Mutex};

use common::{Repo, Run};
use support::{COMMIT, Server};

fn serve() -> Server {
    let remote = Arc::new(Mutex::new(support::Repo::fixture()));
    Server::start(move |request| remote.lock().expect("repo").answer(request))
}

/// Runs the binary with the test endpoints of `server` and `stdin` piped in.
fn run(repo: &Repo, server: &Server, args: &[&str], stdin: Option<&str>) -> Run {
    use std::io::Write;
    use std::process::{Command, Stdio};
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_agentic-skill-vendor"));
    cmd.args(args)
        .arg("--root")
        .arg(repo.path())
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("ASV_TEST_GITHUB_API", server.api())
        .env("ASV_TEST_GITHUB_RAW", server.raw())
        .stdin(if stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd.spawn().expect("spawn");
    if let (Some(input), Some(mut pipe)) = (stdin, child.stdin.take()) {
        let _ = pipe.write_all(input.as_bytes());
    }
    let out = child.wait_with_output().expect("wait");
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

fn declaring_repo() -> Repo {
    let repo = Repo::empty();
    repo.write(".gitignore", "/.agentic-skill-vendor/\n");
    repo.write(
        "skills/writer/SKILL.md",
        "---\nmetadata:\n  contracts: [tdd-contract]\n---\n",
    );
    repo
}

#[test]
fn add_then_gen_then_verify() {
    let server = serve();
    let repo = declaring_repo();
    assert_eq!(
        run(&repo, &server, &["add", "acme/contracts", "workflow"], None),
        Run {
            code: 0,
            stdout: format!(
                "resolved: workflow {COMMIT} (initial resolution)\nmapped: tdd-contract <- workflow\n"
            ),
            stderr: String::new(),
        }
    );
    let generated = repo.run(&["gen"]);
    assert_eq!(generated.code, 0, "{generated:?}");
    assert!(
        generated
            .stdout
            .starts_with("adopted: tdd-contract sha256:"),
        "{generated:?}"
    );
    assert_eq!(repo.run(&["verify"]).code, 0);
    // No request carried an Authorization header: no token was given.
    assert!(
        server
            .requests()
            .iter()
            .all(|r| r.header("authorization").is_none())
    );
}

#[test]
fn a_piped_token_goes_only_into_the_authorization_header() {
    let server = serve();
    let repo = declaring_repo();
    let run = run(
        &repo,
        &server,
        &["add", "acme/contracts", "--token-stdin"],
        Some("ghp_testtoken123\n"),
    );
    assert_eq!(run.code, 0, "{run:?}");
    assert!(!run.stdout.contains("ghp_testtoken123") && !run.stderr.contains("ghp_testtoken123"));
    let requests = server.requests();
    assert!(!requests.is_empty());
    assert!(
        requests
            .iter()
            .all(|r| r.header("authorization") == Some("Bearer ghp_testtoken123"))
    );
    for file in ["vendor-manifest.yaml", "vendor-lock.json"] {
        assert!(
            !repo.read_string(file).contains("ghp_testtoken123"),
            "{file}"
        );
    }
}

#[test]
fn bad_tokens_are_refused_by_position_and_change_nothing() {
    let server = serve();
    let rows: &[(&str, &str)] = &[
        (
            "",
            "error: --token-stdin read nothing from standard input; pipe the token in, e.g. gh auth token | agentic-skill-vendor update --token-stdin\n",
        ),
        (
            "\n",
            "error: --token-stdin read nothing from standard input; pipe the token in, e.g. gh auth token | agentic-skill-vendor update --token-stdin\n",
        ),
        (
            "ghp secret\n",
            "error: the token read from standard input has a character that is not printable ASCII at position 4 (spaces and line breaks included); check what is piped in\n",
        ),
        (
            "ghp_a\r\nX-Injected: 1\n",
            "error: the token read from standard input has a character that is not printable ASCII at position 6 (spaces and line breaks included); check what is piped in\n",
        ),
    ];
    for (input, stderr) in rows {
        let repo = declaring_repo();
        let before = repo.snapshot();
        let run = run(&repo, &server, &["update", "--token-stdin"], Some(input));
        assert_eq!(
            run,
            Run {
                code: 2,
                stdout: String::new(),
                stderr: (*stderr).to_owned(),
            },
            "{input:?}"
        );
        assert_eq!(repo.snapshot(), before);
    }
    assert!(server.requests().is_empty(), "nothing was sent");
}

#[test]
fn add_refuses_unusable_repositories_before_any_request() {
    let server = serve();
    for bad in [
        "http://example.com/x.git",
        "file:///tmp/x",
        "https://user:pw@example.com/x.git",
        "ext::sh -c x",
    ] {
        let repo = declaring_repo();
        let run = run(&repo, &server, &["add", bad], None);
        assert_eq!(run.code, 2, "{bad}: {run:?}");
        assert!(
            run.stderr
                .starts_with("error: the repository is not usable: "),
            "{run:?}"
        );
        assert!(!run.stderr.contains("pw@"), "a credential is never echoed");
        assert!(!repo.exists("vendor-manifest.yaml"));
    }
    // Option-like text never reaches the repository parser: it is an unknown option.
    let repo = declaring_repo();
    let refused = run(&repo, &server, &["add", "--upload-pack=evil"], None);
    assert_eq!(refused.code, 2);
    assert!(
        refused
            .stderr
            .starts_with("error: unknown option: --upload-pack"),
        "{refused:?}"
    );
    assert!(server.requests().is_empty());
}
