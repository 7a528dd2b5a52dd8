//! Signed packs on the real binary (issue 33 §2): `skill pack --sign` writes a `.sig`
//! ssh-keygen accepts, `skill install --signed-by` takes one ssh-keygen made, and every
//! archive without an accepted signature is refused before anything is installed. Keys are
//! made by ssh-keygen at test time.
#![allow(clippy::disallowed_methods, clippy::unwrap_used)]

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::common::Repo;

struct Keys {
    _dir: tempfile::TempDir,
    dev: PathBuf,
    stranger: PathBuf,
    allowed: PathBuf,
}

fn keygen(path: &Path, passphrase: &str) {
    let status = Command::new("ssh-keygen")
        .args(["-q", "-t", "ed25519", "-N", passphrase, "-C", "test", "-f"])
        .arg(path)
        .status()
        .expect("ssh-keygen runs");
    assert!(status.success());
}

/// Two keys, and an allowed-signers file holding only `dev`'s.
fn keys() -> Keys {
    let dir = tempfile::tempdir().unwrap();
    let (dev, stranger) = (dir.path().join("dev"), dir.path().join("stranger"));
    keygen(&dev, "");
    keygen(&stranger, "");
    let public = std::fs::read_to_string(dev.with_extension("pub")).unwrap();
    let allowed = dir.path().join("allowed_signers");
    std::fs::write(&allowed, format!("dev@example.com {public}")).unwrap();
    Keys {
        _dir: dir,
        dev,
        stranger,
        allowed,
    }
}

fn fingerprint(key: &Path) -> String {
    let out = Command::new("ssh-keygen")
        .arg("-lf")
        .arg(key.with_extension("pub"))
        .output()
        .unwrap();
    String::from_utf8(out.stdout)
        .unwrap()
        .split_whitespace()
        .nth(1)
        .unwrap()
        .to_string()
}

fn ssh_keygen_sign(key: &Path, namespace: &str, file: &Path) {
    let status = Command::new("ssh-keygen")
        .args(["-q", "-Y", "sign", "-n", namespace, "-f"])
        .arg(key)
        .arg(file)
        .status()
        .unwrap();
    assert!(status.success());
}

fn with_sig(path: &Path) -> PathBuf {
    PathBuf::from(format!("{}.sig", path.display()))
}

/// A repository with one skill, packed (unsigned) to `pdf.zip` in it.
fn packed() -> (Repo, PathBuf) {
    let repo = Repo::empty();
    repo.write(
        "skills/pdf/SKILL.md",
        "---\nname: pdf\ndescription: Reads PDFs.\n---\n# pdf\n",
    );
    repo.write("skills/pdf/scripts/run.sh", "#!/bin/sh\necho pdf\n");
    let zip = repo.join("pdf.zip");
    let run = repo.run(&["skill", "pack", "skills/pdf", "-o", zip.to_str().unwrap()]);
    assert_eq!(run.code, 0, "{run:?}");
    (repo, zip)
}

fn install(dest: &Repo, zip: &Path, allowed: &Path, extra: &[&str]) -> crate::common::Run {
    let mut args = vec![
        "skill",
        "install",
        zip.to_str().unwrap(),
        "--signed-by",
        allowed.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    dest.run(&args)
}

#[test]
fn a_pack_signed_here_verifies_with_ssh_keygen_and_installs_with_signed_by() {
    let keys = keys();
    let repo = Repo::empty();
    repo.write(
        "skills/pdf/SKILL.md",
        "---\nname: pdf\ndescription: Reads PDFs.\n---\n# pdf\n",
    );
    let zip = repo.join("pdf.zip");
    let run = repo.run(&[
        "skill",
        "pack",
        "skills/pdf",
        "-o",
        zip.to_str().unwrap(),
        "--sign",
        keys.dev.to_str().unwrap(),
    ]);
    assert_eq!(run.code, 0, "{run:?}");
    let want = format!(
        "signed: {} (key {}, namespace agentic-skill-vendor)",
        with_sig(&zip).display(),
        fingerprint(&keys.dev)
    );
    assert!(run.stdout.contains(&want), "{}", run.stdout);

    // Anyone can check it without this tool.
    let status = Command::new("ssh-keygen")
        .args([
            "-q",
            "-Y",
            "verify",
            "-n",
            "agentic-skill-vendor",
            "-I",
            "dev@example.com",
            "-f",
        ])
        .arg(&keys.allowed)
        .arg("-s")
        .arg(with_sig(&zip))
        .stdin(std::fs::File::open(&zip).unwrap())
        .stdout(Stdio::null())
        .status()
        .unwrap();
    assert!(
        status.success(),
        "ssh-keygen -Y verify refused the pack's signature"
    );

    let dest = Repo::empty();
    let run = install(&dest, &zip, &keys.allowed, &[]);
    assert_eq!(run.code, 0, "{run:?}");
    assert!(
        run.stdout.contains(&format!(
            "signature: {}: signed by dev@example.com (key {})",
            zip.display(),
            fingerprint(&keys.dev)
        )),
        "{}",
        run.stdout
    );
    assert!(dest.join("skills/pdf/SKILL.md").is_file());
}

#[test]
fn a_signature_made_by_ssh_keygen_installs_and_json_names_the_signer() {
    let keys = keys();
    let (_repo, zip) = packed();
    ssh_keygen_sign(&keys.dev, "agentic-skill-vendor", &zip);
    let dest = Repo::empty();
    let run = install(&dest, &zip, &keys.allowed, &["--format", "json"]);
    assert_eq!(run.code, 0, "{run:?}");
    let signer = run
        .stdout
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .find(|v| v["kind"] == "signature")
        .unwrap_or_else(|| panic!("no signature record in {}", run.stdout));
    assert_eq!(signer["principal"], "dev@example.com");
    assert_eq!(signer["fingerprint"], fingerprint(&keys.dev).as_str());
}

#[test]
fn every_archive_without_an_accepted_signature_is_refused_with_nothing_installed() {
    let keys = keys();
    let (repo, zip) = packed();
    let dest = Repo::empty();
    let before = dest.snapshot();
    // Each is the input's fault: exit 2, as every refusal of an install input is.
    let refused = |run: crate::common::Run, says: &str| {
        assert_eq!(run.code, 2, "{run:?}");
        assert!(run.stderr.contains(says), "{says:?} not in {}", run.stderr);
        assert_eq!(dest.snapshot(), before, "something was installed");
    };

    // No signature at all.
    refused(install(&dest, &zip, &keys.allowed, &[]), "no signature at");

    // Signed by a key the file does not hold: its fingerprint is named.
    ssh_keygen_sign(&keys.stranger, "agentic-skill-vendor", &zip);
    refused(
        install(&dest, &zip, &keys.allowed, &[]),
        &format!(
            "signed by key {}, which the allowed-signers file does not hold",
            fingerprint(&keys.stranger)
        ),
    );

    // Signed for another purpose (git's namespace) by the right key.
    std::fs::remove_file(with_sig(&zip)).unwrap();
    ssh_keygen_sign(&keys.dev, "git", &zip);
    refused(
        install(&dest, &zip, &keys.allowed, &[]),
        "made for namespace \"git\", not \"agentic-skill-vendor\"",
    );

    // Signed right, then one byte of the archive changed.
    std::fs::remove_file(with_sig(&zip)).unwrap();
    ssh_keygen_sign(&keys.dev, "agentic-skill-vendor", &zip);
    assert_eq!(
        install(&Repo::empty(), &zip, &keys.allowed, &["--dry-run"]).code,
        0
    );
    let mut bytes = std::fs::read(&zip).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 1;
    std::fs::write(&zip, &bytes).unwrap();
    refused(
        install(&dest, &zip, &keys.allowed, &[]),
        "does not match the content (changed after signing)",
    );

    // Signed right by a key whose validity has ended: checked at the current time.
    let public = std::fs::read_to_string(keys.dev.with_extension("pub")).unwrap();
    let ended = keys.allowed.with_file_name("ended_signers");
    std::fs::write(
        &ended,
        format!("dev@example.com valid-before=\"20200101Z\" {public}"),
    )
    .unwrap();
    bytes[last] ^= 1;
    std::fs::write(&zip, &bytes).unwrap();
    refused(
        install(&dest, &zip, &ended, &[]),
        "outside the key's validity in the allowed-signers file",
    );

    // A signature file that is no signature; a directory, which has none.
    std::fs::write(with_sig(&zip), "hello\n").unwrap();
    refused(
        install(&dest, &zip, &keys.allowed, &[]),
        "its signature cannot be read",
    );
    refused(
        install(&dest, &repo.join("skills/pdf"), &keys.allowed, &[]),
        "a directory carries no signature",
    );
}

#[test]
fn the_signature_may_be_named_and_the_allowed_signers_file_is_checked() {
    let keys = keys();
    let (repo, zip) = packed();
    ssh_keygen_sign(&keys.dev, "agentic-skill-vendor", &zip);
    let elsewhere = repo.join("elsewhere.sig");
    std::fs::rename(with_sig(&zip), &elsewhere).unwrap();
    let dest = Repo::empty();
    let run = install(
        &dest,
        &zip,
        &keys.allowed,
        &["--signature", elsewhere.to_str().unwrap()],
    );
    assert_eq!(run.code, 0, "{run:?}");

    let broken = repo.join("broken_signers");
    std::fs::write(&broken, "# team\ndev@example.com ssh-ed25519 notakey\n").unwrap();
    let run = install(
        &Repo::empty(),
        &zip,
        &broken,
        &["--signature", elsewhere.to_str().unwrap()],
    );
    assert_eq!(run.code, 2, "{run:?}");
    assert!(
        run.stderr.contains("line 2 is not an allowed signer"),
        "{}",
        run.stderr
    );
    let run = install(&Repo::empty(), &zip, &repo.join("absent"), &[]);
    assert_eq!(run.code, 2, "{run:?}");
    assert!(
        run.stderr.contains("absent: no such file; --signed-by"),
        "{}",
        run.stderr
    );
}

#[test]
fn a_key_that_cannot_sign_here_leaves_no_zip_and_says_how_to_sign() {
    let repo = Repo::empty();
    repo.write(
        "skills/pdf/SKILL.md",
        "---\nname: pdf\ndescription: Reads PDFs.\n---\n# pdf\n",
    );
    let key = repo.join("locked");
    keygen(&key, "a passphrase");
    let zip = repo.join("pdf.zip");
    let run = repo.run(&[
        "skill",
        "pack",
        "skills/pdf",
        "-o",
        zip.to_str().unwrap(),
        "--sign",
        key.to_str().unwrap(),
    ]);
    assert_eq!(run.code, 2, "{run:?}");
    assert!(
        run.stderr.contains("protected by a passphrase")
            && run
                .stderr
                .contains("ssh-keygen -Y sign -n agentic-skill-vendor -f KEY <zip>"),
        "{}",
        run.stderr
    );
    assert!(!zip.exists() && !with_sig(&zip).exists());
}
