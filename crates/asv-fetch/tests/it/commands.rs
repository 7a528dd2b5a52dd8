//! `add`, `fetch` and `update` end to end against a real HTTP server on 127.0.0.1 playing the
//! GitHub API, then `gen` and `verify` on what they wrote. The endpoints are asv-remote's
//! `test-hooks`, which this crate's dev-dependency enables.

use crate::support;

use std::sync::{Arc, Mutex};

use asv_contracts::{GenOutcome, Repository};
use asv_fetch::commands;
use asv_fs::Root;
use asv_remote::Options;
use support::{COMMIT, GithubRepo, Server};

fn serve(repo: Arc<Mutex<GithubRepo>>) -> Server {
    Server::start(move |request| repo.lock().expect("repo").answer(request))
}

fn options(server: &Server) -> Options {
    Options {
        github_endpoints: Some((server.api(), server.raw())),
        ..Options::default()
    }
}

fn lines(events: &[asv_contracts::Event]) -> Vec<String> {
    events.iter().map(|e| e.line_text()).collect()
}

fn skill(root: &Root, name: &str, ids: &[&str]) {
    root.write_file(
        &format!("skills/{name}/SKILL.md"),
        format!("---\nmetadata:\n  contracts: [{}]\n---\n", ids.join(", ")).as_bytes(),
    )
    .expect("write");
}

fn gen_and_verify(root: &Root) -> (Vec<String>, Vec<String>) {
    let repo = Repository::load(root).expect("load");
    let GenOutcome::Done { events, .. } = crate::generate(&repo).expect("gen") else {
        panic!("closure")
    };
    let repo = Repository::load(root).expect("load");
    let found = asv_contracts::verify(&repo).expect("verify");
    (
        lines(&events),
        found.iter().map(|v| v.line_text()).collect(),
    )
}

#[test]
fn add_then_gen_then_a_fresh_checkout_fetches() {
    let remote = Arc::new(Mutex::new(GithubRepo::fixture()));
    let server = serve(remote.clone());
    let dir = tempfile::tempdir().expect("tempdir");
    let root = Root::open(dir.path()).expect("open");
    root.write_file(".gitignore", b"/.agentic-skill-vendor/\n")
        .expect("write");
    root.write_file("contracts/local-one.md", b"Ours\n")
        .expect("write");
    skill(&root, "writer", &["tdd-contract", "local-one", "nowhere"]);

    let events = commands::add(&root, "acme/contracts", None, &options(&server)).expect("add");
    assert_eq!(
        lines(&events),
        [
            format!("resolved: contracts {COMMIT} (initial resolution)"),
            "mapped: tdd-contract <- contracts".to_owned(),
            "unlocated: nowhere (no canonical text at any conventional location)".to_owned(),
        ]
    );
    assert_eq!(
        root.read_file("vendor-manifest.yaml").expect("read").expect("manifest"),
        b"sources:\n  contracts:\n    repository: acme/contracts\n    ref: main\n\ncontracts:\n  tdd-contract:\n    source: contracts\n"
    );
    let cached =
        format!(".agentic-skill-vendor/cache/contracts/{COMMIT}/contracts/tdd-contract.md");
    assert_eq!(
        root.read_file(&cached).expect("read").expect("cached"),
        b"# TDD Contract\n\nWrite the test first.\n"
    );

    // Withdraw the id nothing holds, then gen distributes and verify agrees.
    skill(&root, "writer", &["tdd-contract", "local-one"]);
    let (gen_lines, violations) = gen_and_verify(&root);
    assert_eq!(gen_lines[0], "mapped: local-one <- local");
    assert!(
        gen_lines
            .iter()
            .any(|l| l.starts_with("adopted: tdd-contract sha256:"))
    );
    assert!(violations.is_empty(), "{violations:?}");
    assert!(
        String::from_utf8(
            root.read_file("vendor-lock.json")
                .expect("r")
                .expect("lock")
        )
        .expect("utf-8")
        .contains(&format!("\"revision\": \"{COMMIT}\""))
    );

    // A clean checkout has no cache: verify still passes, gen asks for a fetch, fetch restores.
    root.remove_all(".agentic-skill-vendor").expect("rm");
    let repo = Repository::load(&root).expect("load");
    assert!(asv_contracts::verify(&repo).expect("verify").is_empty());
    let refusal = crate::generate(&repo).expect_err("gen needs the cache");
    assert!(refusal.to_string().contains("run fetch"), "{refusal}");
    let events = commands::fetch(&root, &options(&server)).expect("fetch");
    assert!(events.is_empty());
    assert_eq!(gen_and_verify(&root), (vec![], vec![]));

    // Nothing moved upstream: update records nothing.
    assert!(
        commands::update(&root, &options(&server))
            .expect("update")
            .is_empty()
    );
}

#[test]
fn update_moves_the_pin_and_gen_adopts_the_new_text() {
    let remote = Arc::new(Mutex::new(GithubRepo::fixture()));
    let server = serve(remote.clone());
    let dir = tempfile::tempdir().expect("tempdir");
    let root = Root::open(dir.path()).expect("open");
    root.write_file(".gitignore", b"/.agentic-skill-vendor/\n")
        .expect("write");
    skill(&root, "writer", &["tdd-contract"]);
    commands::add(&root, "acme/contracts", Some("workflow"), &options(&server)).expect("add");
    gen_and_verify(&root);

    let next = "2".repeat(40);
    {
        let mut r = remote.lock().expect("repo");
        r.commit = next.clone();
        for target in r.refs.values_mut() {
            *target = next.clone();
        }
        for f in &mut r.files {
            if f.path == "contracts/tdd-contract.md" {
                f.bytes = b"# TDD Contract\n\nWrite the failing test first.\n".to_vec();
            }
        }
    }
    let events = commands::update(&root, &options(&server)).expect("update");
    assert_eq!(
        lines(&events),
        [format!("resolved: workflow {COMMIT} -> {next}")]
    );
    let (gen_lines, violations) = gen_and_verify(&root);
    assert!(
        gen_lines[0].starts_with("adopted: tdd-contract sha256:"),
        "{gen_lines:?}"
    );
    assert!(violations.is_empty(), "{violations:?}");
}

#[test]
fn a_refused_add_changes_nothing() {
    let mut fixture = GithubRepo::fixture();
    // The served bytes do not match the blob id the listing gives.
    fixture.served.insert(
        "contracts/tdd-contract.md".to_owned(),
        b"tampered\n".to_vec(),
    );
    let server = serve(Arc::new(Mutex::new(fixture)));
    let dir = tempfile::tempdir().expect("tempdir");
    let root = Root::open(dir.path()).expect("open");
    skill(&root, "writer", &["tdd-contract"]);
    let err = commands::add(&root, "acme/contracts", None, &options(&server)).expect_err("refused");
    assert!(
        err.to_string().contains("contracts/tdd-contract.md"),
        "{err}"
    );
    assert_eq!(root.kind("vendor-manifest.yaml").expect("kind"), None);
    assert_eq!(root.kind("vendor-lock.json").expect("kind"), None);
    assert_eq!(
        root.kind(".agentic-skill-vendor/cache").expect("kind"),
        None
    );
}

#[test]
fn raw_files_from_a_source_end_to_end() {
    let remote = Arc::new(Mutex::new(GithubRepo::fixture()));
    let server = serve(remote.clone());
    let dir = tempfile::tempdir().expect("tempdir");
    let root = Root::open(dir.path()).expect("open");
    root.write_file(".gitignore", b"/.agentic-skill-vendor/\n")
        .expect("write");
    root.write_file("skills/writer/SKILL.md", b"---\nname: writer\n---\n")
        .expect("write");
    commands::add(&root, "acme/contracts", None, &options(&server)).expect("add");
    // A raw row from the source: its bin/ directory, as it is.
    let mut manifest = String::from_utf8(
        root.read_file("vendor-manifest.yaml")
            .expect("read")
            .expect("manifest"),
    )
    .expect("utf-8");
    manifest.push_str(
        "contracts:\n  runner:\n    source: contracts\n    files:\n      bin/: scripts/bin/\n",
    );
    root.write_file("vendor-manifest.yaml", manifest.as_bytes())
        .expect("write");
    skill(&root, "writer", &["runner"]);

    // Declared but not fetched yet: gen asks for a fetch of the files.
    let repo = Repository::load(&root).expect("load");
    let refusal = crate::generate(&repo).expect_err("no files cached yet");
    assert_eq!(
        refusal.to_string(),
        "the cache holds no files for runner (from contracts); run fetch to put them back"
    );
    commands::update(&root, &options(&server)).expect("update");
    let (gen_lines, violations) = gen_and_verify(&root);
    assert!(
        gen_lines[0].starts_with("adopted: runner sha256:"),
        "{gen_lines:?}"
    );
    assert!(violations.is_empty(), "{violations:?}");
    assert_eq!(
        root.read_file("skills/writer/scripts/bin/run.sh")
            .expect("read")
            .expect("placed"),
        b"#!/bin/sh\necho run\n"
    );
    assert!(
        root.kind("skills/writer/scripts/bin/.vendored")
            .expect("kind")
            .is_some()
    );

    // A clean checkout: verify still passes without the cache; fetch puts the files back.
    root.remove_all(".agentic-skill-vendor").expect("rm");
    let repo = Repository::load(&root).expect("load");
    assert!(asv_contracts::verify(&repo).expect("verify").is_empty());
    commands::fetch(&root, &options(&server)).expect("fetch");
    assert_eq!(gen_and_verify(&root), (vec![], vec![]));

    // A directory src holding a link is refused before anything is taken.
    let manifest = String::from_utf8(
        root.read_file("vendor-manifest.yaml")
            .expect("r")
            .expect("m"),
    )
    .expect("utf-8")
    .replace("bin/: scripts/bin/", "docs/: scripts/docs/");
    root.write_file("vendor-manifest.yaml", manifest.as_bytes())
        .expect("write");
    let err = commands::update(&root, &options(&server)).expect_err("a link in docs/");
    assert!(err.to_string().contains("docs/link.md"), "{err}");
}
