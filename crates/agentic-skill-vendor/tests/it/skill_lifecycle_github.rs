//! `skill add` and `skill pull` through the GitHub API transport: a real HTTP server on
//! 127.0.0.1 plays the API and the raw host (debug-build-only test endpoints).
#![allow(clippy::disallowed_methods, clippy::unwrap_used)]

use std::sync::{Arc, Mutex};

use crate::common::{Repo, Run, assert_run_snapshot, short_ids};
use crate::support::{self, File, Server};

const SKILL: &str =
    "---\nname: pdf\ndescription: Reads PDF files.\n---\n# PDF\n\none\ntwo\nthree\nfour\nfive\n";

fn file(path: &str, mode: &'static str, bytes: &str) -> File {
    File {
        path: path.to_owned(),
        mode,
        bytes: bytes.as_bytes().to_vec(),
    }
}

fn run(repo: &Repo, server: &Server, args: &[&str]) -> Run {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_agentic-skill-vendor"))
        .args(args)
        .arg("--root")
        .arg(repo.path())
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("ASV_TEST_GITHUB_API", server.api())
        .env("ASV_TEST_GITHUB_RAW", server.raw())
        .output()
        .unwrap();
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

#[test]
fn add_and_pull_through_the_github_api() {
    let mut upstream = support::GithubRepo::fixture();
    upstream
        .files
        .push(file("skills/pdf/SKILL.md", "100644", SKILL));
    upstream
        .files
        .push(file("skills/pdf/scripts/run.sh", "100755", "#!/bin/sh\n"));
    upstream
        .files
        .push(file("skills/pdf/.DS_Store", "100644", "litter"));
    upstream
        .files
        .push(file("skills/linked/SKILL.md", "100644", SKILL));
    upstream
        .files
        .push(file("skills/linked/x.md", "120000", "../pdf/SKILL.md"));
    let first = upstream.commit.clone();
    let remote = Arc::new(Mutex::new(upstream));
    let served = Arc::clone(&remote);
    let server = Server::start(move |request| served.lock().unwrap().answer(request));

    let me = Repo::empty();
    let added = run(
        &me,
        &server,
        &["skill", "add", "acme/contracts", "skills/pdf"],
    );
    assert_eq!(added.code, 0, "{added:?}");
    assert!(
        added.stdout.starts_with(&short_ids(&format!(
            "added: pdf <- acme/contracts at {first} (sha256:"
        ))),
        "{}",
        added.stdout
    );
    assert!(
        !me.exists("skills/pdf/.DS_Store"),
        "litter is left out as a directory read leaves it"
    );
    let mode = std::os::unix::fs::PermissionsExt::mode(
        &std::fs::metadata(me.join("skills/pdf/scripts/run.sh"))
            .unwrap()
            .permissions(),
    );
    assert_ne!(
        mode & 0o100,
        0,
        "the executable bit comes from the listing's mode"
    );

    // a link in the source refuses the add
    let refused = run(
        &me,
        &server,
        &["skill", "add", "acme/contracts", "skills/linked"],
    );
    assert_run_snapshot!("add_of_a_skill_holding_a_link", refused, me);
    assert!(!me.exists("skills/linked"));

    // upstream moves on; the local copy has its own edit; the pull keeps both
    me.write(
        "skills/pdf/SKILL.md",
        SKILL.replace("one\n", "one (ours)\n"),
    );
    let second = "2".repeat(40);
    {
        let mut up = remote.lock().unwrap();
        let skill = up
            .files
            .iter_mut()
            .find(|f| f.path == "skills/pdf/SKILL.md")
            .unwrap();
        skill.bytes = SKILL.replace("five\n", "five (theirs)\n").into_bytes();
        up.commit = second.clone();
        up.refs.insert("main".to_owned(), second.clone());
    }
    let pulled = run(&me, &server, &["skill", "pull"]);
    assert_eq!(
        pulled.stdout,
        short_ids(&format!(
            "pdf: updated {first} -> {second} (local edits kept)\n"
        )),
        "{pulled:?}"
    );
    assert_eq!(
        me.read_string("skills/pdf/SKILL.md"),
        SKILL
            .replace("one\n", "one (ours)\n")
            .replace("five\n", "five (theirs)\n")
    );
    let lock: serde_json::Value =
        serde_json::from_str(&me.read_string("vendor-skills-lock.json")).unwrap();
    assert_eq!(lock["skills"]["pdf"]["revision"], second.as_str());
    assert_eq!(lock["skills"]["pdf"]["ref"], "main");

    // upstream drops the skill: the local copy stays, and the pull says at which commit
    let third = "3".repeat(40);
    {
        let mut up = remote.lock().unwrap();
        up.files.retain(|f| !f.path.starts_with("skills/pdf/"));
        up.commit = third.clone();
        up.refs.insert("main".to_owned(), third.clone());
    }
    let before = me.read_string("skills/pdf/SKILL.md");
    let pulled = run(&me, &server, &["skill", "pull"]);
    assert_eq!(pulled.code, 0, "{pulled:?}");
    assert_eq!(
        pulled.stdout,
        short_ids(&format!(
            "pdf: removed upstream at {third}; kept skills/pdf with its local edits — remove it yourself if it should go\n"
        ))
    );
    assert_eq!(me.read_string("skills/pdf/SKILL.md"), before);
}

/// Issue 29 §2: a semver range on a GitHub source is picked from the API's tag list; the lock
/// records the range, the tag and its commit, and outdated shows both newest tags.
#[test]
fn a_range_is_picked_from_the_github_tags() {
    let mut upstream = support::GithubRepo::fixture();
    upstream
        .files
        .push(file("skills/pdf/SKILL.md", "100644", SKILL));
    let commit = upstream.commit.clone();
    let other = "1234567890abcdef1234567890abcdef12345678".to_owned();
    for (tag, at) in [
        ("v1.0.0", &commit),
        ("v1.1.0", &commit),
        ("1.2.0-rc.1", &other),
        ("v2.0.0", &other),
        ("nightly", &other),
    ] {
        upstream.tags.insert(tag.to_owned(), at.clone());
    }
    let remote = Arc::new(Mutex::new(upstream));
    let served = Arc::clone(&remote);
    let server = Server::start(move |request| served.lock().unwrap().answer(request));

    let me = Repo::empty();
    let added = run(
        &me,
        &server,
        &[
            "skill",
            "add",
            "acme/contracts",
            "skills/pdf",
            "--ref",
            "^1",
        ],
    );
    assert_eq!(added.code, 0, "{added:?}");
    let lock: serde_json::Value =
        serde_json::from_str(&me.read_string("vendor-skills-lock.json")).unwrap();
    assert_eq!(lock["skills"]["pdf"]["ref"], "^1");
    assert_eq!(lock["skills"]["pdf"]["tag"], "v1.1.0");
    assert_eq!(lock["skills"]["pdf"]["revision"], commit.as_str());
    assert!(
        me.read_string("vendor-skills.yaml")
            .contains("    ref: \"^1\"\n")
    );
    let outdated = run(&me, &server, &["skill", "outdated"]);
    assert_eq!(
        (outdated.code, outdated.stdout.as_str()),
        (0, ""),
        "{outdated:?}"
    );
    let pulled = run(&me, &server, &["skill", "pull"]);
    assert_eq!(
        pulled.stdout,
        short_ids(&format!("pdf: up to date at {commit}\n"))
    );
    // A bare version that names no branch or tag is that exact version.
    let pulled = run(&me, &server, &["skill", "pull", "pdf", "--ref", "1.0.0"]);
    assert_eq!(
        pulled.stdout,
        short_ids(&format!("pdf: up to date at {commit}\n")),
        "{pulled:?}"
    );
    let lock: serde_json::Value =
        serde_json::from_str(&me.read_string("vendor-skills-lock.json")).unwrap();
    assert_eq!(lock["skills"]["pdf"]["ref"], "1.0.0");
    assert_eq!(lock["skills"]["pdf"]["tag"], "v1.0.0");
    let refused = run(&me, &server, &["skill", "pull", "pdf", "--ref", "^3"]);
    assert_run_snapshot!("pull_to_a_range_no_tag_answers", refused, me);
}

/// Issue 29 §2: a short commit id is taken wherever a commit is, on a GitHub source too; the
/// lock records the full id the API resolved it to.
#[test]
fn a_short_commit_id_is_pinned_in_full() {
    let mut upstream = support::GithubRepo::fixture();
    upstream
        .files
        .push(file("skills/pdf/SKILL.md", "100644", SKILL));
    let full = upstream.commit.clone();
    let server = Server::start(move |request| upstream.answer(request));
    let me = Repo::empty();
    let added = run(
        &me,
        &server,
        &[
            "skill",
            "add",
            "acme/contracts",
            "skills/pdf",
            "--ref",
            &full[..9],
        ],
    );
    assert_eq!(added.code, 0, "{added:?}");
    let lock = me.read_string("vendor-skills-lock.json");
    assert!(
        lock.contains(&format!("\"revision\": \"{full}\"")),
        "{lock}"
    );
}

/// Issue 30 §3 through the GitHub API: a commit elsewhere in the source leaves a skill up to
/// date (the tree ids of its path at both commits, from the API's trees, are the same); a
/// change inside its path makes it outdated.
#[test]
fn only_a_change_inside_a_skill_makes_it_outdated_through_the_github_api() {
    let mut upstream = support::GithubRepo::fixture();
    upstream
        .files
        .push(file("skills/pdf/SKILL.md", "100644", SKILL));
    let first = upstream.commit.clone();
    // Every commit stays served, as GitHub serves them; `main` names the last.
    let commits = Arc::new(Mutex::new(vec![upstream]));
    let served = Arc::clone(&commits);
    let server = Server::start(move |request| {
        let commits = served.lock().unwrap();
        commits
            .iter()
            .find(|repo| {
                request.url.contains(&format!("/git/trees/{}", repo.commit))
                    || request.url.contains(&format!("/{}/", repo.commit))
            })
            .unwrap_or_else(|| commits.last().unwrap())
            .answer(request)
    });
    let publish = |commit: &str, change: &dyn Fn(&mut support::GithubRepo)| {
        let mut commits = commits.lock().unwrap();
        let mut next = commits.last().unwrap().clone();
        change(&mut next);
        next.commit = commit.to_owned();
        next.refs.insert("main".to_owned(), commit.to_owned());
        commits.push(next);
    };

    let me = Repo::empty();
    let added = run(
        &me,
        &server,
        &["skill", "add", "acme/contracts", "skills/pdf"],
    );
    assert_eq!(added.code, 0, "{added:?}");

    let second = "2".repeat(40);
    publish(&second, &|repo| {
        repo.files
            .iter_mut()
            .find(|f| f.path == "README.md")
            .unwrap()
            .bytes = b"# Contracts, again\n".to_vec();
    });
    let outdated = run(&me, &server, &["skill", "outdated"]);
    assert_eq!(
        (outdated.code, outdated.stdout.as_str()),
        (0, ""),
        "{outdated:?}"
    );
    let pulled = run(&me, &server, &["skill", "pull"]);
    assert_eq!(
        pulled.stdout,
        short_ids(&format!("pdf: up to date at {second}\n")),
        "{pulled:?}"
    );

    let third = "3".repeat(40);
    publish(&third, &|repo| {
        repo.files
            .iter_mut()
            .find(|f| f.path == "skills/pdf/SKILL.md")
            .unwrap()
            .bytes = SKILL.replace("five\n", "five (theirs)\n").into_bytes();
    });
    let outdated = run(&me, &server, &["skill", "outdated"]);
    assert_eq!(
        (outdated.code, outdated.stdout.as_str()),
        (
            1,
            short_ids(&format!("pdf: {second} -> {third} (main)\n")).as_str()
        ),
        "{outdated:?}"
    );
    assert_ne!(first, second);
}

/// Issue 30 §3: whether a tag of the followed branch's name moved is answered, for a GitHub
/// source, from one listing of its tags in the run, however many skills follow the branch.
#[test]
fn a_pull_of_several_skills_lists_the_github_tags_once() {
    let mut upstream = support::GithubRepo::fixture();
    for name in ["pdf", "docs"] {
        upstream.files.push(file(
            &format!("skills/{name}/SKILL.md"),
            "100644",
            &SKILL.replace("name: pdf", &format!("name: {name}")),
        ));
    }
    let remote = Arc::new(Mutex::new(upstream));
    let served = Arc::clone(&remote);
    let server = Server::start(move |request| served.lock().unwrap().answer(request));
    let me = Repo::empty();
    for name in ["pdf", "docs"] {
        let added = run(
            &me,
            &server,
            &["skill", "add", "acme/contracts", &format!("skills/{name}")],
        );
        assert_eq!(added.code, 0, "{added:?}");
    }
    let second = "2".repeat(40);
    {
        let mut up = remote.lock().unwrap();
        for skill in up
            .files
            .iter_mut()
            .filter(|f| f.path.starts_with("skills/") && f.path.ends_with("/SKILL.md"))
        {
            skill.bytes.extend_from_slice(b"six\n");
        }
        up.commit = second.clone();
        up.refs.insert("main".to_owned(), second.clone());
    }
    let before = server.requests().len();
    let pulled = run(&me, &server, &["skill", "pull"]);
    assert_eq!(pulled.code, 0, "{pulled:?}");
    let requests = server.requests();
    let listings = requests[before..]
        .iter()
        .filter(|r| r.url.contains("/tags?") && r.url.ends_with("&page=1"))
        .count();
    assert_eq!(listings, 1, "{:#?}", &requests[before..]);
    let lock: serde_json::Value =
        serde_json::from_str(&me.read_string("vendor-skills-lock.json")).unwrap();
    for name in ["pdf", "docs"] {
        assert_eq!(lock["skills"][name]["revision"], second.as_str());
    }
}
