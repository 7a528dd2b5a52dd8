//! asv-sign against the real programs: keys made by ssh-keygen, signatures made by ssh-keygen
//! checked here and ours checked by ssh-keygen, and commits and tags signed by git.

// Fixtures are written and read directly: these are files of the test, not a user's tree.
#![allow(clippy::disallowed_methods, clippy::unwrap_used)]

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use asv_sign::{AllowedSigners, PACK_NAMESPACE, SignatureProblem, git, sign, verify};

fn run(cmd: &mut Command) -> Vec<u8> {
    let out = cmd.stderr(Stdio::inherit()).output().unwrap();
    assert!(out.status.success(), "{cmd:?} failed");
    out.stdout
}

/// A key pair made by ssh-keygen: (private key path, public key line).
fn keygen(dir: &Path, name: &str, kind: &[&str]) -> (PathBuf, String) {
    let path = dir.join(name);
    run(Command::new("ssh-keygen")
        .args(["-q", "-N", "", "-C", name, "-f"])
        .arg(&path)
        .args(kind));
    let public = std::fs::read_to_string(path.with_extension("pub")).unwrap();
    (path, public.trim().to_string())
}

fn ssh_fingerprint(public_path: &Path) -> String {
    let out =
        String::from_utf8(run(Command::new("ssh-keygen").arg("-lf").arg(public_path))).unwrap();
    out.split_whitespace().nth(1).unwrap().to_string()
}

#[test]
fn signatures_cross_between_ssh_keygen_and_this_crate_for_every_key_type() {
    let dir = tempfile::tempdir().unwrap();
    for (name, kind) in [
        ("ed", &["-t", "ed25519"][..]),
        ("ec", &["-t", "ecdsa", "-b", "256"]),
        ("ec384", &["-t", "ecdsa", "-b", "384"]),
        ("rsa", &["-t", "rsa", "-b", "2048"]),
    ] {
        let (key, public) = keygen(dir.path(), name, kind);
        let allowed_path = dir.path().join(format!("{name}.allowed"));
        std::fs::write(&allowed_path, format!("{name}@example.com {public}\n")).unwrap();
        let allowed =
            AllowedSigners::parse(&std::fs::read_to_string(&allowed_path).unwrap()).unwrap();
        let message = dir.path().join(format!("{name}.zip"));
        std::fs::write(&message, format!("the bytes of {name}")).unwrap();

        // ssh-keygen signs, this crate checks.
        run(Command::new("ssh-keygen")
            .args(["-q", "-Y", "sign", "-n", PACK_NAMESPACE, "-f"])
            .arg(&key)
            .arg(&message));
        let theirs = std::fs::read(message.with_extension("zip.sig")).unwrap();
        let body = std::fs::read(&message).unwrap();
        let signer = verify(&allowed, PACK_NAMESPACE, &body, &theirs, None).unwrap();
        assert_eq!(signer.principal, format!("{name}@example.com"));
        assert_eq!(
            signer.fingerprint,
            ssh_fingerprint(&key.with_extension("pub")),
            "{name}"
        );
        let changed = [&body[..], b"!"].concat();
        assert!(
            matches!(
                verify(&allowed, PACK_NAMESPACE, &changed, &theirs, None),
                Err(SignatureProblem::BadSignature { .. })
            ),
            "{name}"
        );

        // This crate signs, ssh-keygen checks (RSA keys are refused for signing here).
        if name == "rsa" {
            assert_eq!(
                sign(&std::fs::read(&key).unwrap(), PACK_NAMESPACE, &body),
                Err(asv_sign::Error::SigningKeyType {
                    algorithm: "ssh-rsa".into()
                })
            );
            continue;
        }
        let ours = sign(&std::fs::read(&key).unwrap(), PACK_NAMESPACE, &body)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        let ours_path = dir.path().join(format!("{name}.ours.sig"));
        std::fs::write(&ours_path, &ours).unwrap();
        let status = Command::new("ssh-keygen")
            .args(["-q", "-Y", "verify", "-n", PACK_NAMESPACE, "-I"])
            .arg(format!("{name}@example.com"))
            .arg("-f")
            .arg(&allowed_path)
            .arg("-s")
            .arg(&ours_path)
            .stdin(std::fs::File::open(&message).unwrap())
            .stdout(Stdio::null())
            .status()
            .unwrap();
        assert!(status.success(), "ssh-keygen refused our {name} signature");
        assert!(verify(&allowed, PACK_NAMESPACE, &body, ours.as_bytes(), None).is_ok());
    }
}

#[test]
fn the_policy_of_the_file_decides_after_the_signature_verifies() {
    let dir = tempfile::tempdir().unwrap();
    let (key, public) = keygen(dir.path(), "k", &["-t", "ed25519"]);
    let (_, other) = keygen(dir.path(), "o", &["-t", "ed25519"]);
    let body = b"pack bytes";
    let sig = sign(&std::fs::read(&key).unwrap(), PACK_NAMESPACE, body).unwrap();

    let not_held = AllowedSigners::parse(&format!("o {other}\n")).unwrap();
    assert!(matches!(
        verify(&not_held, PACK_NAMESPACE, body, sig.as_bytes(), None),
        Err(SignatureProblem::KeyNotAllowed { .. })
    ));
    let git_only = AllowedSigners::parse(&format!("k namespaces=\"git\" {public}\n")).unwrap();
    assert!(matches!(
        verify(&git_only, PACK_NAMESPACE, body, sig.as_bytes(), None),
        Err(SignatureProblem::NamespaceNotAllowed { .. })
    ));
    let expired =
        AllowedSigners::parse(&format!("k valid-before=\"20200101Z\" {public}\n")).unwrap();
    assert!(verify(&expired, PACK_NAMESPACE, body, sig.as_bytes(), None).is_ok());
    assert!(matches!(
        verify(
            &expired,
            PACK_NAMESPACE,
            body,
            sig.as_bytes(),
            Some(1_600_000_000)
        ),
        Err(SignatureProblem::OutsideValidity { .. })
    ));
    let held = AllowedSigners::parse(&format!("k {public}\n")).unwrap();
    assert!(matches!(
        verify(&held, "git", body, sig.as_bytes(), None),
        Err(SignatureProblem::WrongNamespace { .. })
    ));
    // A second line for the same key that does allow the namespace accepts it.
    let two = AllowedSigners::parse(&format!(
        "old namespaces=\"git\" {public}\nnew namespaces=\"agentic-*\" {public}\n"
    ))
    .unwrap();
    let signer = verify(&two, PACK_NAMESPACE, body, sig.as_bytes(), None).unwrap();
    assert_eq!(signer.principal, "new");
}

#[test]
fn an_encrypted_key_is_refused_for_signing() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("locked");
    run(Command::new("ssh-keygen")
        .args(["-q", "-t", "ed25519", "-N", "secret", "-f"])
        .arg(&path));
    assert_eq!(
        sign(&std::fs::read(&path).unwrap(), PACK_NAMESPACE, b"x"),
        Err(asv_sign::Error::EncryptedKey)
    );
    assert!(asv_sign::private_key_fingerprint(&std::fs::read(&path).unwrap()).is_ok());
}

fn git(repo: &Path, args: &[&str], date: &str) -> Vec<u8> {
    run(Command::new("git")
        .current_dir(repo)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_AUTHOR_DATE", date)
        .env("GIT_COMMITTER_DATE", date)
        .args([
            "-c",
            "user.name=T",
            "-c",
            "user.email=t@example.com",
            "-c",
            "gpg.format=ssh",
        ])
        .args(args))
}

fn signed_repo(dir: &Path, format: &str, key: &Path) -> PathBuf {
    let repo = dir.join(format!("repo-{format}"));
    std::fs::create_dir(&repo).unwrap();
    let key = key.to_str().unwrap().to_string();
    let signing = format!("user.signingkey={key}");
    git(
        &repo,
        &["init", "-q", &format!("--object-format={format}")],
        "1700000000 +0000",
    );
    std::fs::write(repo.join("f"), "one").unwrap();
    git(&repo, &["add", "f"], "1700000000 +0000");
    git(
        &repo,
        &["-c", &signing, "commit", "-q", "-S", "-m", "signed\n\nbody"],
        "1700000000 +0100",
    );
    git(
        &repo,
        &["-c", &signing, "tag", "-s", "-m", "release", "v1"],
        "1700000100 +0000",
    );
    git(
        &repo,
        &["tag", "-a", "-m", "plain", "v1-plain"],
        "1700000100 +0000",
    );
    std::fs::write(repo.join("f"), "two").unwrap();
    git(
        &repo,
        &["commit", "-q", "-am", "unsigned"],
        "1700000200 +0000",
    );
    repo
}

#[test]
fn commits_and_tags_signed_by_git_verify_in_both_object_formats() {
    let dir = tempfile::tempdir().unwrap();
    let (key, public) = keygen(dir.path(), "dev", &["-t", "ed25519"]);
    let (_, other) = keygen(dir.path(), "other", &["-t", "ed25519"]);
    let allowed =
        AllowedSigners::parse(&format!("dev@example.com namespaces=\"git\" {public}\n")).unwrap();
    for format in ["sha1", "sha256"] {
        let repo = signed_repo(dir.path(), format, &key);
        let cat = |kind: &str, rev: &str| git(&repo, &["cat-file", kind, rev], "1700000000 +0000");
        let signer = git::verify_commit(&cat("commit", "HEAD~1"), &allowed).unwrap();
        assert_eq!(signer.principal, "dev@example.com");
        assert_eq!(
            signer.fingerprint,
            ssh_fingerprint(&key.with_extension("pub"))
        );
        assert_eq!(
            git::verify_commit(&cat("commit", "HEAD"), &allowed),
            Err(SignatureProblem::Unsigned),
            "{format}"
        );
        assert!(
            git::verify_tag(&cat("tag", "v1"), &allowed).is_ok(),
            "{format}"
        );
        assert_eq!(
            git::verify_tag(&cat("tag", "v1-plain"), &allowed),
            Err(SignatureProblem::Unsigned)
        );

        // The same key in another's file: not allowed; a validity that ends before the
        // committer time: outside it (the commit is dated 1700000000, 2023-11-14).
        let others = AllowedSigners::parse(&format!("x {other}\n")).unwrap();
        assert!(matches!(
            git::verify_commit(&cat("commit", "HEAD~1"), &others),
            Err(SignatureProblem::KeyNotAllowed { .. })
        ));
        let ended =
            AllowedSigners::parse(&format!("dev valid-before=\"20231101Z\" {public}\n")).unwrap();
        assert!(matches!(
            git::verify_commit(&cat("commit", "HEAD~1"), &ended),
            Err(SignatureProblem::OutsideValidity {
                at: 1_700_000_000,
                ..
            })
        ));

        // A commit object changed after signing (its message) no longer verifies.
        let mut raw = cat("commit", "HEAD~1");
        let at = raw.windows(6).position(|w| w == b"signed").unwrap();
        raw[at] = b'S';
        assert!(matches!(
            git::verify_commit(&raw, &allowed),
            Err(SignatureProblem::BadSignature { .. })
        ));
    }
}
