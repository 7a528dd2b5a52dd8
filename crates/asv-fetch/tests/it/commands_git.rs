//! `add`, `fetch` and `update` with a generic git source: real `git` over HTTPS on 127.0.0.1
//! (`git http-backend` behind a TLS bridge with a test CA), then `gen` and `verify`. The extra
//! environment for git is asv-remote's `test-hooks`, which this crate's dev-dependency enables.

use crate::support::git_server;

use asv_contracts::{GenOutcome, Repository};
use asv_fetch::commands;
use asv_fs::Root;
use asv_model::source::ObjectFormat;
use asv_remote::Options;
use git_server::{Behaviour, Fixture, Https, Tls};

fn options(tls: &Tls) -> Options {
    Options {
        git_env: tls
            .env()
            .into_iter()
            .map(|(k, v)| {
                (
                    k.to_string_lossy().into_owned(),
                    v.to_string_lossy().into_owned(),
                )
            })
            .collect(),
        ..Options::default()
    }
}

fn end_to_end(format: ObjectFormat) {
    let fixture = Fixture::new(format);
    let tls = Tls::new();
    let server = Https::start(&tls, &fixture.served(), Behaviour::Serve);
    let url = server.url("contracts.git");

    let dir = tempfile::tempdir().expect("tempdir");
    let root = Root::open(dir.path()).expect("open");
    root.write_file(".gitignore", b"/.agentic-skill-vendor/\n")
        .expect("write");
    root.write_file(
        "skills/writer/SKILL.md",
        b"---\nmetadata:\n  contracts: [tdd-contract]\n---\n",
    )
    .expect("write");

    let events = commands::add(&root, &url, None, &options(&tls)).expect("add");
    let lines: Vec<String> = events.iter().map(|e| e.line_text()).collect();
    assert_eq!(
        lines,
        [
            format!(
                "resolved: contracts {} (initial resolution)",
                fixture.second
            ),
            "mapped: tdd-contract <- contracts".to_owned(),
        ]
    );
    let manifest = String::from_utf8(
        root.read_file("vendor-manifest.yaml")
            .expect("read")
            .expect("manifest"),
    )
    .expect("utf-8");
    assert!(
        manifest.contains(&format!("    repository: {url}\n    ref: trunk\n")),
        "{manifest}"
    );
    let lock = String::from_utf8(
        root.read_file("vendor-lock.json")
            .expect("r")
            .expect("lock"),
    )
    .expect("utf-8");
    if format == ObjectFormat::Sha256 {
        assert!(lock.contains("\"objectFormat\": \"sha256\""), "{lock}");
    } else {
        assert!(!lock.contains("objectFormat"), "{lock}");
    }

    let repo = Repository::load(&root).expect("load");
    let GenOutcome::Done { events, .. } = crate::generate(&repo).expect("gen") else {
        panic!("closure");
    };
    let gen_lines: Vec<String> = events.iter().map(|e| e.line_text()).collect();
    assert!(
        gen_lines[0].starts_with("adopted: tdd-contract sha256:"),
        "{gen_lines:?}"
    );
    assert!(
        gen_lines[1].starts_with("adopted: tdd-contract conformance sha256:"),
        "the executable conformance file is taken too: {gen_lines:?}"
    );
    assert!(
        root.read_file("skills/writer/references/vendor/tdd-contract.md")
            .expect("read")
            .expect("copy")
            .ends_with(git_server::TEXT)
    );
    let repo = Repository::load(&root).expect("load");
    assert!(asv_contracts::verify(&repo).expect("verify").is_empty());

    // A clean checkout: fetch restores exactly the pinned commit.
    root.remove_all(".agentic-skill-vendor").expect("rm");
    commands::fetch(&root, &options(&tls)).expect("fetch");
    let repo = Repository::load(&root).expect("load");
    let GenOutcome::Done { events, writes, .. } = crate::generate(&repo).expect("gen") else {
        panic!("closure");
    };
    assert!(events.is_empty() && writes == 0);
    assert!(
        commands::update(&root, &options(&tls))
            .expect("update")
            .is_empty()
    );
}

#[test]
fn a_sha1_repository_end_to_end() {
    end_to_end(ObjectFormat::Sha1);
}

#[test]
fn a_sha256_repository_end_to_end() {
    end_to_end(ObjectFormat::Sha256);
}

#[test]
fn a_server_asking_for_a_password_changes_nothing() {
    let fixture = Fixture::new(ObjectFormat::Sha1);
    let tls = Tls::new();
    let server = Https::start(&tls, &fixture.served(), Behaviour::Unauthorized);
    let dir = tempfile::tempdir().expect("tempdir");
    let root = Root::open(dir.path()).expect("open");
    root.write_file(
        "skills/writer/SKILL.md",
        b"---\nmetadata:\n  contracts: [tdd-contract]\n---\n",
    )
    .expect("write");
    let err = commands::add(&root, &server.url("contracts.git"), None, &options(&tls))
        .expect_err("refused");
    assert!(!err.to_string().is_empty());
    for path in [
        "vendor-manifest.yaml",
        "vendor-lock.json",
        ".agentic-skill-vendor",
    ] {
        assert_eq!(root.kind(path).expect("kind"), None, "{path}");
    }
}
