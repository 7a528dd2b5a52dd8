//! The fetching commands on the real binary: `add` against a real HTTP server on 127.0.0.1
//! playing the GitHub API (reached through debug-build-only test endpoints), and the
//! `--token-stdin` rules.
#![allow(clippy::disallowed_methods)]

use std::sync::{Arc, Mutex};

use crate::common::{Repo, Run};
use crate::git_server;
use crate::support::{self, COMMIT, Server};

fn serve() -> Server {
    let remote = Arc::new(Mutex::new(support::GithubRepo::fixture()));
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

/// `add` refuses a text of the source whose frontmatter never closes before it caches or
/// records anything, naming the text where the cache would hold it.
#[test]
fn add_refuses_a_text_with_broken_frontmatter_and_writes_nothing() {
    let mut remote = support::GithubRepo::fixture();
    let text = remote
        .files
        .iter_mut()
        .find(|f| f.path == "contracts/tdd-contract.md")
        .expect("fixture text");
    text.bytes = b"---\ntitle: TDD\n# TDD Contract\n".to_vec();
    let remote = Arc::new(Mutex::new(remote));
    let server = Server::start(move |request| remote.lock().expect("repo").answer(request));
    let repo = declaring_repo();
    let before = repo.snapshot();
    assert_eq!(
        run(&repo, &server, &["add", "acme/contracts", "workflow"], None),
        Run {
            code: 2,
            stdout: String::new(),
            stderr: format!(
                "error: .agentic-skill-vendor/cache/workflow/{COMMIT}/contracts/tdd-contract.md: frontmatter opens with '---' but the closing '---' line is missing\n"
            ),
        }
    );
    assert_eq!(repo.snapshot(), before);
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

/// Runs the binary with exactly `env` (plus PATH and HOME-free defaults) and `stdin`.
fn run_with_env(repo: &Repo, args: &[&str], env: &[(String, String)], stdin: Option<&str>) -> Run {
    use std::io::Write;
    use std::process::{Command, Stdio};
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_agentic-skill-vendor"));
    cmd.args(args)
        .arg("--root")
        .arg(repo.path())
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .envs(env.iter().map(|(k, v)| (k.as_str(), v.as_str())))
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

#[test]
fn a_git_source_end_to_end_from_the_binary() {
    let fixture = git_server::Fixture::new(asv_model::source::ObjectFormat::Sha256);
    let tls = git_server::Tls::new();
    let server = git_server::Https::start(&tls, &fixture.served(), git_server::Behaviour::Serve);
    let env: Vec<(String, String)> = tls
        .env()
        .into_iter()
        .map(|(k, v)| {
            (
                k.to_string_lossy().into_owned(),
                v.to_string_lossy().into_owned(),
            )
        })
        .collect();
    let url = server.url("contracts.git");
    let repo = declaring_repo();
    assert_eq!(
        run_with_env(&repo, &["add", &url, "upstream"], &env, None),
        Run {
            code: 0,
            stdout: format!(
                "resolved: upstream {} (initial resolution)\nmapped: tdd-contract <- upstream\n",
                fixture.second
            ),
            stderr: String::new(),
        }
    );
    assert_eq!(run_with_env(&repo, &["gen"], &[], None).code, 0);
    assert_eq!(
        run_with_env(&repo, &["verify"], &[], None),
        Run {
            code: 0,
            stdout: String::new(),
            stderr: String::new()
        }
    );
    repo.remove(".agentic-skill-vendor");
    assert_eq!(run_with_env(&repo, &["fetch"], &env, None).code, 0);
    assert_eq!(
        run_with_env(&repo, &["update"], &env, None),
        Run {
            code: 0,
            stdout: String::new(),
            stderr: String::new()
        }
    );
    assert_eq!(
        run_with_env(&repo, &["gen"], &[], None),
        Run {
            code: 0,
            stdout: String::new(),
            stderr: String::new()
        }
    );
}

#[test]
fn the_token_is_nowhere_in_any_output_or_file() {
    let server = serve();
    let repo = declaring_repo();
    let token = "ghp_Zx9SecretTokenValue42";
    let mut outputs = Vec::new();
    outputs.push(run(
        &repo,
        &server,
        &["add", "acme/contracts", "--token-stdin"],
        Some(token),
    ));
    outputs.push(run(
        &repo,
        &server,
        &["update", "--token-stdin"],
        Some(token),
    ));
    outputs.push(run(
        &repo,
        &server,
        &["fetch", "--token-stdin"],
        Some(&format!("{token}\n")),
    ));
    outputs.push(repo.run(&["gen"]));
    outputs.push(repo.run(&["verify"]));
    // A refused run too: a token with a space in it.
    outputs.push(run(
        &repo,
        &server,
        &["update", "--token-stdin"],
        Some(&format!("{token} x")),
    ));
    for out in &outputs {
        assert!(
            !out.stdout.contains(token) && !out.stderr.contains(token),
            "{out:?}"
        );
    }
    assert!(outputs[..5].iter().all(|o| o.code == 0), "{outputs:?}");
    for (path, content) in repo.snapshot() {
        assert!(!content.contains(token), "{path} holds the token");
        assert!(
            !content.contains("Zx9Secret"),
            "{path} holds part of the token"
        );
    }
}

#[test]
fn table_refusals_change_nothing() {
    let server = serve();
    // A source name that is reserved, one already registered, a bad ref, two sources holding
    // the same id with no row saying which.
    let repo = declaring_repo();
    let run1 = run(&repo, &server, &["add", "acme/contracts", "local"], None);
    assert_eq!(run1.code, 2, "{run1:?}");
    assert!(run1.stderr.contains("local"), "{run1:?}");
    assert!(!repo.exists("vendor-manifest.yaml"));

    assert_eq!(
        run(&repo, &server, &["add", "acme/contracts", "first"], None).code,
        0
    );
    let before = repo.snapshot();
    let again = run(&repo, &server, &["add", "acme/contracts", "first"], None);
    assert_eq!(again.code, 2, "{again:?}");
    assert_eq!(
        again.stderr,
        "error: first is already registered in vendor-manifest.yaml; run update to move its pin\n"
    );
    assert_eq!(repo.snapshot(), before);

    // Two sources hold tdd-contract and no row says which.
    let manifest = repo.read_string("vendor-manifest.yaml");
    let manifest = manifest
        .replace("  tdd-contract:\n    source: first\n", "")
        .replace(
            "sources:\n",
            "sources:\n  second:\n    repository: acme/contracts\n    ref: main\n",
        );
    repo.write("vendor-manifest.yaml", &manifest);
    let before = repo.snapshot();
    let both = run(&repo, &server, &["update"], None);
    assert_eq!(both.code, 2, "{both:?}");
    assert_eq!(
        both.stderr,
        "error: first and second both hold contracts/tdd-contract.md; write the contracts.tdd-contract line in vendor-manifest.yaml to say which one tdd-contract comes from\n"
    );
    assert_eq!(repo.snapshot(), before);

    // A ref the table may not carry.
    repo.write(
        "vendor-manifest.yaml",
        manifest.replace("ref: main", "ref: ../main"),
    );
    let before = repo.snapshot();
    let bad_ref = run(&repo, &server, &["update"], None);
    assert_eq!(bad_ref.code, 2, "{bad_ref:?}");
    assert!(
        bad_ref.stderr.starts_with("error: vendor-manifest.yaml"),
        "{bad_ref:?}"
    );
    assert_eq!(repo.snapshot(), before);
}

#[test]
fn a_token_is_never_read_from_a_terminal() {
    // `script` gives the binary a pseudo-terminal as standard input, as a person typing would.
    let Ok(script) = which("script") else {
        eprintln!("skipped: util-linux script is not installed");
        return;
    };
    let repo = declaring_repo();
    let command = format!(
        "{} update --token-stdin --root {}",
        env!("CARGO_BIN_EXE_agentic-skill-vendor"),
        repo.path().display()
    );
    let out = std::process::Command::new(script)
        .args(["-qec", &command, "/dev/null"])
        .stdin(std::process::Stdio::null())
        .output()
        .expect("script runs");
    // On a terminal the label is coloured; the words are what this test reads.
    let text = crate::common::strip_colour(&String::from_utf8_lossy(&out.stdout));
    assert_eq!(out.status.code(), Some(2), "{text}");
    assert!(
        text.contains(
            "error: --token-stdin reads the token from a pipe, and standard input is a terminal"
        ),
        "{text}"
    );
    assert!(!repo.exists("vendor-manifest.yaml"));
}

fn which(name: &str) -> Result<std::path::PathBuf, ()> {
    std::env::var("PATH")
        .unwrap_or_default()
        .split(':')
        .map(|dir| std::path::Path::new(dir).join(name))
        .find(|p| p.is_file())
        .ok_or(())
}
