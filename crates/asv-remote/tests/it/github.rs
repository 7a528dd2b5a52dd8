//! The GitHub transport against a real HTTP server on 127.0.0.1 playing the API and the
//! raw-content host for a small repository built here.
//!
//! `GitHub::with_endpoints` exists only with the `test-hooks` feature, which this crate's
//! dev-dependency on itself enables for its tests.

use crate::support;

use std::sync::Arc;

use asv_model::source::ObjectFormat;
use asv_remote::error::{GitHubProblem, Host};
use asv_remote::github::{FILE_LIMIT, GitHub, LISTING_LIMIT, USER_AGENT};
use asv_remote::{Commit, EntryMode, Error, Transport, TreeEntry, blob_id};
use support::{Answer, COMMIT, GithubRepo, OWNER, REPO, RecordedRequest, Server};

const TOKEN: &str = "ghp_test0nly0credential0value0000000000";

/// A server answering as `repo` does.
fn serve(repo: GithubRepo) -> Server {
    let repo = Arc::new(repo);
    Server::start(move |request| repo.answer(request))
}

fn client(server: &Server, token: Option<&str>) -> GitHub {
    GitHub::with_endpoints(
        &server.api(),
        &server.raw(),
        OWNER,
        REPO,
        token.map(str::to_owned),
    )
    .expect("a usable source")
}

fn commit() -> Commit {
    Commit {
        revision: COMMIT.to_owned(),
        format: ObjectFormat::Sha1,
    }
}

/// Every refusal: one line, opening lowercase, naming the repository, never the token.
/// The problem of a GitHub source's refusal.
fn problem(error: &Error) -> &GitHubProblem {
    match error {
        Error::GitHub { problem, .. } => problem,
        other => panic!("not a github source's refusal: {other:?}"),
    }
}

fn message(error: &Error) -> String {
    let text = error.to_string();
    assert!(
        !text.contains('\n') && !text.contains('\r'),
        "one line: {text}"
    );
    assert!(
        text.starts_with(|c: char| c.is_ascii_lowercase()),
        "lowercase: {text}"
    );
    assert!(
        text.contains(&format!("{OWNER}/{REPO}")),
        "names the repository: {text}"
    );
    assert!(!text.contains(TOKEN), "never the token: {text}");
    assert!(!text.contains("Bearer"), "never the header: {text}");
    text
}

fn api_path(rest: &str) -> String {
    format!("/api/repos/{OWNER}/{REPO}{rest}")
}

#[test]
fn reads_a_repository_through_the_api_and_the_raw_host() {
    let repo = GithubRepo::fixture();
    let server = serve(repo.clone());
    let mut github = client(&server, None);

    assert_eq!(github.default_branch().expect("default branch"), "main");
    assert_eq!(github.resolve("main").expect("resolve"), commit());
    let listed = github.list(&commit()).expect("list");
    assert_eq!(listed, repo.expected_entries());
    assert!(listed.contains(&TreeEntry {
        path: "contracts/tdd-contract.md".to_owned(),
        mode: EntryMode::File,
        oid: blob_id(
            ObjectFormat::Sha1,
            b"# TDD Contract\n\nWrite the test first.\n"
        ),
    }));
    assert!(
        listed
            .iter()
            .any(|e| e.path == "contracts" && e.mode == EntryMode::Tree)
    );
    assert!(
        listed
            .iter()
            .any(|e| e.path == "bin/run.sh" && e.mode == EntryMode::Executable)
    );

    for entry in listed
        .iter()
        .filter(|e| matches!(e.mode, EntryMode::File | EntryMode::Executable))
    {
        let file = repo
            .files
            .iter()
            .find(|f| f.path == entry.path)
            .expect("a file");
        assert_eq!(github.read(&commit(), entry).expect("read"), file.bytes);
    }

    let urls: Vec<String> = server.requests().into_iter().map(|r| r.url).collect();
    assert_eq!(
        urls[..4],
        [
            api_path(""),
            api_path("/commits/main"),
            api_path(&format!("/git/trees/{COMMIT}?recursive=1")),
            format!("/raw/{OWNER}/{REPO}/{COMMIT}/README.md"),
        ]
    );
    assert!(
        urls.contains(&format!("/raw/{OWNER}/{REPO}/{COMMIT}/docs/a%20b%231.md")),
        "a path is percent-encoded segment by segment: {urls:?}"
    );
}

#[test]
fn resolve_keeps_separators_and_checks_full_ids() {
    let server = serve(GithubRepo::fixture());
    let mut github = client(&server, None);
    assert_eq!(github.resolve("release/2.x").expect("resolve"), commit());
    assert_eq!(github.resolve("v1.0.0").expect("resolve"), commit());
    assert_eq!(github.resolve(COMMIT).expect("resolve"), commit());
    let urls: Vec<String> = server.requests().into_iter().map(|r| r.url).collect();
    assert_eq!(urls[0], api_path("/commits/release/2.x"));

    // An unknown ref: GitHub answers 422 for a name it cannot find a commit for.
    let error = github.resolve("nope").expect_err("an unknown ref");
    let text = message(&error);
    assert!(
        text.contains("ref nope") && text.contains("check the ref"),
        "{text}"
    );
}

#[test]
fn a_full_id_answered_with_another_commit_is_refused() {
    let asked = "a".repeat(40);
    let server = Server::start(|_| Answer::new(200, COMMIT));
    let mut github = client(&server, None);
    let error = github.resolve(&asked).expect_err("a different commit");
    assert!(message(&error).contains("different commit"), "{error}");
}

#[test]
fn a_sha256_repository_resolves_lists_and_reads() {
    let repo = GithubRepo::sha256();
    let server = serve(repo.clone());
    let mut github = client(&server, None);
    let resolved = github.resolve("main").expect("resolve");
    assert_eq!(
        resolved,
        Commit {
            revision: repo.commit.clone(),
            format: ObjectFormat::Sha256
        }
    );
    let listed = github.list(&resolved).expect("list");
    assert_eq!(listed, repo.expected_entries());
    let entry = repo.entry("contracts/tdd-contract.md");
    assert_eq!(entry.oid.len(), 64);
    assert_eq!(
        github.read(&resolved, &entry).expect("read"),
        b"# TDD Contract\n\nWrite the test first.\n"
    );
}

#[test]
fn requests_carry_the_fixed_headers_and_no_authorization_without_a_token() {
    let repo = GithubRepo::fixture();
    let server = serve(repo.clone());
    let mut github = client(&server, None);
    github.default_branch().expect("default branch");
    github.resolve("main").expect("resolve");
    github.list(&commit()).expect("list");
    github
        .read(&commit(), &repo.entry("README.md"))
        .expect("read");

    let requests = server.requests();
    assert_eq!(requests.len(), 4);
    for request in &requests {
        assert_eq!(
            request.header("user-agent"),
            Some(USER_AGENT),
            "{request:?}"
        );
        assert_eq!(request.header("authorization"), None, "{request:?}");
    }
    let accept = |r: &RecordedRequest| r.header("accept").map(str::to_owned);
    assert_eq!(
        accept(&requests[0]).as_deref(),
        Some("application/vnd.github+json")
    );
    assert_eq!(
        accept(&requests[1]).as_deref(),
        Some("application/vnd.github.sha")
    );
    assert_eq!(
        accept(&requests[2]).as_deref(),
        Some("application/vnd.github+json")
    );
    assert_ne!(
        accept(&requests[3]).as_deref(),
        Some("application/vnd.github+json"),
        "the raw host is not asked for API JSON"
    );
}

#[test]
fn a_token_goes_into_the_authorization_header_of_every_request_and_nowhere_else() {
    let repo = GithubRepo::fixture();
    let server = serve(repo.clone());
    let mut github = client(&server, Some(TOKEN));
    assert!(github.authenticated());
    assert!(
        !format!("{github:?}").contains(TOKEN),
        "debug output never shows it"
    );

    github.default_branch().expect("default branch");
    github.resolve("main").expect("resolve");
    github.list(&commit()).expect("list");
    github
        .read(&commit(), &repo.entry("README.md"))
        .expect("read");

    let requests = server.requests();
    assert_eq!(requests.len(), 4, "both hosts were asked");
    assert!(requests.iter().any(|r| r.url.starts_with("/raw/")));
    for request in &requests {
        let expected = format!("Bearer {TOKEN}");
        assert_eq!(
            request.header("authorization"),
            Some(expected.as_str()),
            "{}",
            request.url
        );
        assert!(!request.url.contains(TOKEN));
        let elsewhere = request
            .headers
            .iter()
            .filter(|(name, value)| name != "authorization" && value.contains(TOKEN))
            .count();
        assert_eq!(
            elsewhere, 0,
            "the token is in the Authorization header only"
        );
    }
}

#[test]
fn a_redirect_is_refused_and_not_followed() {
    for token in [None, Some(TOKEN)] {
        let holder: Arc<std::sync::OnceLock<String>> = Arc::new(std::sync::OnceLock::new());
        let base = Arc::clone(&holder);
        let server = Server::start(move |request| {
            if request.url.starts_with("/elsewhere") {
                return Answer::json(&serde_json::json!({"default_branch": "main"}));
            }
            // An authenticated answer may echo the token in its Location.
            let echoed = if token.is_some() { TOKEN } else { "path" };
            let location = format!("{}/elsewhere/{echoed}", base.get().expect("base"));
            Answer::new(302, "").with_header("Location", &location)
        });
        holder.set(server.base().to_owned()).expect("set once");
        let mut github = client(&server, token);

        let error = github.default_branch().expect_err("a redirect");
        let text = message(&error);
        assert!(
            text.contains("302") && text.contains("redirect was refused"),
            "{text}"
        );
        if token.is_some() {
            assert!(text.contains("not shown"), "{text}");
        } else {
            assert!(text.contains("/elsewhere/"), "names the location: {text}");
        }
        let error = github
            .read(&commit(), &GithubRepo::fixture().entry("README.md"))
            .expect_err("a redirect from the raw host");
        assert!(message(&error).contains("redirect was refused"));

        assert!(
            server
                .requests()
                .iter()
                .all(|r| !r.url.starts_with("/elsewhere")),
            "the location was never asked"
        );
    }
}

#[test]
fn not_found_says_what_to_check_with_and_without_a_token() {
    let server = Server::start(|_| Answer::not_found());
    let without = client(&server, None)
        .default_branch()
        .expect_err("not found");
    let with = client(&server, Some(TOKEN))
        .default_branch()
        .expect_err("not found");
    let (without, with) = (message(&without), message(&with));
    assert_ne!(without, with);
    assert!(without.contains("not found (404)"), "{without}");
    assert!(!without.contains("check the token"), "{without}");
    assert!(with.contains("not found (404)"), "{with}");
    assert!(with.contains("check the token"), "{with}");
    assert!(with.contains("expired"), "{with}");

    // The same from the raw host: a wrong token makes a public file look absent.
    let error = client(&server, Some(TOKEN))
        .read(&commit(), &GithubRepo::fixture().entry("README.md"))
        .expect_err("not found");
    let text = message(&error);
    assert!(
        text.contains("README.md") && text.contains("check the token"),
        "{text}"
    );
}

#[test]
fn other_refusals_name_their_likely_causes() {
    for status in [401, 403, 429, 500, 502] {
        let server = Server::start(move |_| Answer::new(status, "{}"));
        let without = message(&client(&server, None).resolve("main").expect_err("refused"));
        let with = message(
            &client(&server, Some(TOKEN))
                .resolve("main")
                .expect_err("refused"),
        );
        assert!(without.contains(&status.to_string()), "{without}");
        assert!(with.contains(&status.to_string()), "{with}");
        match status {
            403 | 429 => {
                assert!(without.contains("rate limited by the hour"), "{without}");
                assert!(
                    with.contains("token") && with.contains("rate limit"),
                    "{with}"
                );
            }
            401 => {
                assert!(with.contains("token") && with.contains("expired"), "{with}");
                assert!(without.contains("--token-stdin"), "{without}");
            }
            _ => assert!(with.contains("try again later"), "{with}"),
        }
    }
}

#[test]
fn a_truncated_listing_is_refused() {
    let mut repo = GithubRepo::fixture();
    repo.truncated = true;
    let server = serve(repo);
    let error = client(&server, None)
        .list(&commit())
        .expect_err("truncated");
    assert!(
        matches!(problem(&error), GitHubProblem::Truncated { .. }),
        "{error:?}"
    );
    assert!(message(&error).contains("truncated"));
}

#[test]
fn a_file_over_one_mib_is_refused_and_one_at_the_limit_is_read() {
    let limit = usize::try_from(FILE_LIMIT).expect("fits");
    let mut repo = GithubRepo::fixture();
    repo.files.push(support::File {
        path: "big/at-limit.md".to_owned(),
        mode: "100644",
        bytes: vec![b'x'; limit],
    });
    repo.files.push(support::File {
        path: "big/over-limit.md".to_owned(),
        mode: "100644",
        bytes: vec![b'x'; limit + 1],
    });
    let server = serve(repo.clone());
    let mut github = client(&server, None);

    let read = github
        .read(&commit(), &repo.entry("big/at-limit.md"))
        .expect("exactly the limit is read");
    assert_eq!(read.len(), limit);

    let error = github
        .read(&commit(), &repo.entry("big/over-limit.md"))
        .expect_err("over the limit");
    assert!(
        matches!(
            problem(&error),
            GitHubProblem::TooLarge {
                host: Host::Raw,
                limit: FILE_LIMIT,
                ..
            }
        ),
        "{error:?}"
    );
    let text = message(&error);
    assert!(
        text.contains("big/over-limit.md") && text.contains("1 MiB"),
        "{text}"
    );
}

#[test]
fn a_listing_over_eight_mib_is_refused() {
    let limit = usize::try_from(LISTING_LIMIT).expect("fits");
    let padding = "x".repeat(limit);
    let body =
        serde_json::json!({"sha": COMMIT, "tree": [], "truncated": false, "padding": padding});
    let server = Server::start(move |_| Answer::json(&body));
    let error = client(&server, None)
        .list(&commit())
        .expect_err("over the limit");
    assert!(
        matches!(
            problem(&error),
            GitHubProblem::TooLarge {
                host: Host::Api,
                limit: LISTING_LIMIT,
                ..
            }
        ),
        "{error:?}"
    );
    let text = message(&error);
    assert!(
        text.contains("tree listing") && text.contains("8 MiB"),
        "{text}"
    );
}

#[test]
fn bytes_that_do_not_match_their_blob_id_are_refused() {
    let mut repo = GithubRepo::fixture();
    repo.served.insert(
        "contracts/tdd-contract.md".to_owned(),
        b"# TDD Contract\n\nWrite the code first.\n".to_vec(),
    );
    let server = serve(repo.clone());
    let entry = repo.entry("contracts/tdd-contract.md");
    let error = client(&server, None)
        .read(&commit(), &entry)
        .expect_err("a mismatch");
    let text = message(&error);
    assert!(text.contains("contracts/tdd-contract.md"), "{text}");
    assert!(text.contains("does not match its blob id"), "{text}");
    assert!(text.contains(&entry.oid), "{text}");
}

#[test]
fn links_and_submodules_are_listed_with_their_modes_and_never_read() {
    let repo = GithubRepo::fixture();
    let server = serve(repo.clone());
    let mut github = client(&server, None);
    let listed = github.list(&commit()).expect("list");
    let mode = |path: &str| {
        listed
            .iter()
            .find(|e| e.path == path)
            .map(|e| e.mode)
            .expect("listed")
    };
    assert_eq!(mode("docs/link.md"), EntryMode::Symlink);
    assert_eq!(mode("vendor/sub"), EntryMode::Submodule);
    assert_eq!(mode("vendor"), EntryMode::Tree);
    assert_eq!(mode("README.md"), EntryMode::File);

    let before = server.requests().len();
    for path in ["docs/link.md", "vendor/sub", "docs"] {
        let error = github
            .read(&commit(), &repo.entry(path))
            .expect_err("only ordinary files are read");
        assert!(message(&error).contains("only an ordinary file"), "{error}");
    }
    assert_eq!(server.requests().len(), before, "nothing was asked");
}

#[test]
fn bad_input_is_refused_before_any_request() {
    let server = serve(GithubRepo::fixture());
    let mut github = client(&server, Some(TOKEN));
    for reference in [
        "../x", "a..b", "-x", "x/", "a b", "a//b", "m\nain", "", "%2e",
    ] {
        let error = github.resolve(reference).expect_err("an unusable ref");
        assert!(message(&error).contains("not usable"), "{error}");
    }
    for path in ["../README.md", "a//b", "./a", "a\\b", ""] {
        let entry = TreeEntry {
            path: path.to_owned(),
            mode: EntryMode::File,
            oid: blob_id(ObjectFormat::Sha1, b""),
        };
        let error = github.read(&commit(), &entry).expect_err("outside");
        assert!(message(&error).contains("inside the repository"), "{error}");
    }
    let bad_commit = Commit {
        revision: "../../x".to_owned(),
        format: ObjectFormat::Sha1,
    };
    message(&github.list(&bad_commit).expect_err("not a commit id"));
    assert!(server.requests().is_empty(), "{:?}", server.requests());

    for (owner, repo) in [
        ("acme/x", "r"),
        ("acme", ""),
        ("acme", ".hidden"),
        ("a b", "r"),
    ] {
        assert!(GitHub::new(owner, repo, None).is_err(), "{owner}/{repo}");
    }
    assert!(GitHub::new(OWNER, REPO, Some("a\r\nX-Injected: 1".to_owned())).is_err());
}

#[test]
fn answers_not_shaped_like_the_apis_own_are_refused() {
    let cases: Vec<(&str, Answer)> = vec![
        (
            "default",
            Answer::json(&serde_json::json!({"default_branch": "-bad"})),
        ),
        (
            "default",
            Answer::json(&serde_json::json!({"default_branch": "a\nb"})),
        ),
        ("default", Answer::json(&serde_json::json!({"name": "x"}))),
        ("default", Answer::new(200, "<html>rate limited</html>")),
        ("default", Answer::json(&serde_json::json!([]))),
        ("resolve", Answer::new(200, "not-a-sha")),
        ("resolve", Answer::new(200, "ABCDEF".repeat(7))),
        ("list", Answer::json(&serde_json::json!({"sha": COMMIT}))),
        (
            "list",
            Answer::json(&serde_json::json!({"tree": [{"path": "a.md", "sha": COMMIT}]})),
        ),
        (
            "list",
            Answer::json(
                &serde_json::json!({"tree": [{"path": "a.md", "mode": "999999", "sha": COMMIT}]}),
            ),
        ),
        (
            "list",
            Answer::json(
                &serde_json::json!({"tree": [{"path": "a.md", "mode": "100644", "sha": "abc"}]}),
            ),
        ),
        (
            "list",
            Answer::json(&serde_json::json!({"tree": [{"mode": "100644", "sha": COMMIT}]})),
        ),
    ];
    for (ask, answer) in cases {
        let server = Server::start(move |_| answer.clone());
        let mut github = client(&server, None);
        let error = match ask {
            "default" => github.default_branch().map(|_| ()),
            "resolve" => github.resolve("main").map(|_| ()),
            _ => github.list(&commit()).map(|_| ()),
        }
        .expect_err("refused");
        message(&error);
    }
}

#[test]
fn an_unreachable_host_is_refused() {
    let port = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
        listener.local_addr().expect("addr").port()
    };
    let base = format!("http://127.0.0.1:{port}");
    for token in [None, Some(TOKEN)] {
        let mut github =
            GitHub::with_endpoints(&base, &base, OWNER, REPO, token.map(str::to_owned))
                .expect("a usable source");
        let error = github.default_branch().expect_err("unreachable");
        assert!(message(&error).contains("cannot reach"), "{error}");
    }
}

/// Issue 29 §2: a short commit id is resolved by the API to the full one it starts; one that
/// starts no commit is refused as an unknown ref.
#[test]
fn a_short_commit_id_resolves_to_the_full_one() {
    let server = serve(GithubRepo::fixture());
    let mut github = client(&server, None);
    assert_eq!(github.resolve(&COMMIT[..7]).expect("resolve"), commit());
    assert_eq!(github.resolve(&COMMIT[..12]).expect("resolve"), commit());
    let unknown = if COMMIT.starts_with("fffffff") {
        "0000000"
    } else {
        "fffffff"
    };
    assert!(github.resolve(unknown).is_err());
}

/// Issue 29 §2: the tags come from the API's tag list, peeled to their commits, sorted; a
/// full page asks for the next, and an answer that is not a list of tags is refused.
#[test]
fn tags_are_listed_page_by_page() {
    let mut repo = GithubRepo::fixture();
    repo.tags.insert("v2.0.0".to_owned(), "b".repeat(40));
    let server = serve(repo);
    let mut github = client(&server, None);
    let tags = github.tags().expect("tags").expect("a tag list");
    let names: Vec<(&str, &str)> = tags
        .iter()
        .map(|t| (t.name.as_str(), t.commit.as_str()))
        .collect();
    assert_eq!(
        names,
        [("v1.0.0", COMMIT), ("v2.0.0", "b".repeat(40).as_str())]
    );
    let urls: Vec<String> = server.requests().into_iter().map(|r| r.url).collect();
    assert_eq!(urls, [api_path("/tags?per_page=100&page=1")]);

    let full: Vec<serde_json::Value> = (0..100)
        .map(|i| serde_json::json!({"name": format!("t{i}"), "commit": {"sha": COMMIT}}))
        .collect();
    let server = Server::start(move |request: &RecordedRequest| {
        if request.url.ends_with("page=1") {
            Answer::json(&serde_json::Value::Array(full.clone()))
        } else {
            Answer::json(&serde_json::json!([{"name": "last", "commit": {}}]))
        }
    });
    let mut github = client(&server, None);
    let error = github.tags().expect_err("a tag without a commit");
    assert!(message(&error).contains("page 2 of the tags"), "{error}");
    assert_eq!(server.requests().len(), 2);
}
