//! Inputs past a size limit, and files larger than one chunk (issue 15 §3): every limit is
//! judged before the file is read (the large files here are sparse, so a test that read one
//! whole would be slow and fat, never wrong), and raw files of any size are hashed and copied
//! in chunks with the same bytes and digests as before.
#![allow(clippy::disallowed_methods)]

use std::fs::OpenOptions;

use crate::common::{Repo, skill_md};

/// Makes `rel` a sparse file of `len` bytes (zeros that take no room on disk).
fn sparse(repo: &Repo, rel: &str, len: u64) {
    repo.write(rel, "");
    OpenOptions::new()
        .write(true)
        .open(repo.join(rel))
        .and_then(|f| f.set_len(len))
        .expect("sparse file");
}

const MIB: u64 = 1024 * 1024;

/// Every path under the repository, with its size (the files here are too large to compare).
fn names(repo: &Repo) -> Vec<(String, u64)> {
    fn walk(dir: &std::path::Path, rel: &str, out: &mut Vec<(String, u64)>) {
        for entry in std::fs::read_dir(dir).expect("read_dir") {
            let entry = entry.expect("entry");
            let name = format!("{rel}{}", entry.file_name().to_string_lossy());
            let meta = entry.metadata().expect("metadata");
            out.push((name.clone(), if meta.is_dir() { 0 } else { meta.len() }));
            if meta.is_dir() {
                walk(&entry.path(), &format!("{name}/"), out);
            }
        }
    }
    let mut out = Vec::new();
    walk(repo.path(), "", &mut out);
    out.sort();
    out
}

#[test]
fn a_document_contract_past_64_mib_is_refused_naming_it_and_nothing_is_written() {
    let repo = Repo::empty();
    repo.write("skills/a/SKILL.md", skill_md("a", &["big"]));
    sparse(&repo, "contracts/big.md", 64 * MIB + 1);
    let before = names(&repo);
    for command in ["gen", "verify"] {
        let run = repo.run(&[command]);
        assert_eq!(run.code, 2, "{command}: {run:?}");
        assert_eq!(run.stdout, "", "{command}");
        assert_eq!(
            run.stderr,
            "error: contracts/big.md: 67108865 bytes, over the 67108864 bytes a document contract may hold (it is read whole); make it smaller\n",
            "{command}"
        );
    }
    assert_eq!(names(&repo), before, "nothing written");
}

/// The tool's settings files and locks are refused past their limits before they are read,
/// by every command that reads them, and nothing is written.
#[test]
fn settings_files_and_locks_past_their_limits_are_refused_unread() {
    let cases: [(&str, u64, &str, &[&[&str]]); 4] = [
        (
            "vendor-lock.json",
            256 * MIB + 1,
            "a lock may hold",
            &[&["verify"], &["gen"]],
        ),
        (
            "vendor-manifest.yaml",
            16 * MIB + 1,
            "a settings file may hold",
            &[&["verify"], &["gen"]],
        ),
        (
            "vendor-skills-lock.json",
            256 * MIB + 1,
            "a lock may hold",
            &[&["skill", "status"], &["skill", "verify"]],
        ),
        (
            "vendor-skills.yaml",
            16 * MIB + 1,
            "a settings file may hold",
            &[&["skill", "verify"], &["skill", "sync"]],
        ),
    ];
    for (file, len, what, commands) in cases {
        let repo = Repo::empty();
        repo.write("skills/a/SKILL.md", skill_md("a", &[]));
        sparse(&repo, file, len);
        let before = names(&repo);
        for args in commands {
            let run = repo.run(args);
            assert_eq!(run.code, 2, "{file} {args:?}: {run:?}");
            assert_eq!(
                run.stderr,
                format!(
                    "error: {file}: {len} bytes, over the {} bytes {what}; make it smaller\n",
                    len - 1
                ),
                "{file} {args:?}"
            );
        }
        assert_eq!(names(&repo), before, "{file}: nothing written");
    }
}

#[test]
fn a_skill_md_past_1_mib_is_refused_by_gen_verify_and_validate() {
    let repo = Repo::empty();
    repo.write("skills/a/SKILL.md", skill_md("a", &[]));
    sparse(&repo, "skills/b/SKILL.md", MIB + 1);
    let want = "error: skills/b/SKILL.md: 1048577 bytes, over the 1048576 bytes a SKILL.md may hold (agents load it whole); make it smaller\n";
    for args in [&["gen"][..], &["verify"], &["skill", "validate"]] {
        let run = repo.run(args);
        assert_eq!(
            (run.code, run.stderr.as_str()),
            (2, want),
            "{args:?}: {run:?}"
        );
    }
}

#[test]
fn skill_pack_refuses_past_30_mib_before_reading_the_file() {
    let repo = Repo::empty();
    repo.write("skills/p/SKILL.md", skill_md("p", &[]));
    // Far past the limit: read whole, this would take 8 GiB.
    sparse(&repo, "skills/p/data.bin", 8 * 1024 * MIB);
    let out = repo.join("p.zip");
    let run = repo.run(&["skill", "pack", "skills/p", "-o", out.to_str().unwrap()]);
    assert_eq!(run.code, 2, "{run:?}");
    assert_eq!(
        run.stderr,
        "error: skills/p: packs to 8589934640 bytes, over the 31457280 bytes the Skills API accepts; move large files out of the skill\n"
    );
    assert!(!out.exists());
}

#[test]
fn skill_install_from_a_directory_refuses_past_the_archive_bound() {
    let from = Repo::empty();
    from.write("p/SKILL.md", skill_md("p", &[]));
    sparse(&from, "p/data.bin", 256 * MIB + 1);
    let dest = Repo::empty();
    dest.write("skills/.keep", "");
    let input = from.join("p");
    let run = dest.run(&["skill", "install", input.to_str().unwrap()]);
    assert_eq!(run.code, 2, "{run:?}");
    assert_eq!(
        run.stderr,
        format!(
            "error: {}: its files hold at least 268435505 bytes, over the 268435456 bytes an install takes (as from an archive); move large files out of it\n",
            input.display()
        )
    );
    // A directory of skills counts them together, as an archive's entries are.
    let many = Repo::empty();
    many.write("one/SKILL.md", skill_md("one", &[]));
    sparse(&many, "one/data.bin", 200 * MIB);
    many.write("two/SKILL.md", skill_md("two", &[]));
    sparse(&many, "two/data.bin", 100 * MIB);
    let run = dest.run(&["skill", "install", many.path().to_str().unwrap()]);
    assert_eq!(run.code, 2, "{run:?}");
    assert!(
        run.stderr.starts_with(&format!(
            "error: {}: its files hold at least ",
            many.path().display()
        )),
        "{run:?}"
    );
    assert!(!dest.exists("skills/p"));
}

#[test]
fn raw_files_larger_than_a_chunk_are_copied_byte_for_byte_and_verify() {
    let repo = Repo::empty();
    repo.write(".gitignore", "/.agentic-skill-vendor/\n");
    // Over two chunks of 64 KiB, with bytes that differ along the way.
    let bytes: Vec<u8> = (0..200_000u32).map(|i| (i * 7 % 251) as u8).collect();
    repo.write("tools/blob.bin", &bytes);
    repo.write("tools/dir/a.bin", &bytes[..70_000]);
    repo.write("tools/dir/b.txt", "small\n");
    repo.write(
        "vendor-manifest.yaml",
        "contracts:\n  blob:\n    source: local\n    files:\n      tools/blob.bin: scripts/blob.bin\n      tools/dir/: data/\n",
    );
    repo.write("skills/a/SKILL.md", skill_md("a", &["blob"]));
    repo.write("skills/b/SKILL.md", skill_md("b", &["blob"]));
    let run = repo.run(&["gen"]);
    assert_eq!(run.code, 0, "{run:?}");
    for skill in ["a", "b"] {
        assert_eq!(
            repo.read(&format!("skills/{skill}/scripts/blob.bin")),
            bytes
        );
        assert_eq!(
            repo.read(&format!("skills/{skill}/data/a.bin")),
            &bytes[..70_000]
        );
    }
    assert_eq!(repo.run(&["verify"]).code, 0);
    // One byte changed deep in a copy is drift.
    let mut edited = bytes.clone();
    edited[150_000] ^= 1;
    repo.write("skills/b/scripts/blob.bin", &edited);
    let run = repo.run(&["verify"]);
    assert_eq!(run.code, 1, "{run:?}");
    assert!(
        run.stdout.starts_with("drift: skills/b/scripts/blob.bin"),
        "{run:?}"
    );
}

#[test]
fn lint_selfcontain_skips_binary_files_and_finds_matches_past_the_first_chunk() {
    let repo = Repo::empty();
    repo.write("skills/a/SKILL.md", skill_md("a", &[]));
    repo.write(
        "skills/a/image.bin",
        b"\x89PNG\r\n\x1a\n\x00\x00 ../x /a/b\n",
    );
    // Lines across many chunks, one reference far in, and one line longer than a piece.
    let mut text = "plain words on a line\n".repeat(10_000);
    text.push_str("then ../up and /usr/bin/env\n");
    text.push_str(&"word ".repeat(300_000));
    text.push_str("/opt/tool/bin\n");
    repo.write("skills/a/notes.md", &text);
    let run = repo.run(&["lint-selfcontain"]);
    assert_eq!(run.code, 1, "{run:?}");
    assert_eq!(
        run.stdout,
        "parent-escape: skills/a/notes.md:10001: reference above the skill directory\n\
         absolute-path: skills/a/notes.md:10001: absolute reference \"/usr/bin/env\"\n\
         absolute-path: skills/a/notes.md:10002: absolute reference \"/opt/tool/bin\"\n"
    );
}

/// A contract text of about `len` bytes with CRLF lines under a frontmatter, so
/// canonicalizing it changes it; and the copy `gen` must write of it (the canonical body under
/// its header).
fn large_contract(id: &str, len: usize) -> (String, Vec<u8>) {
    let line = format!("A line of {id}, long enough to fill a text quickly.\r\n");
    let mut text = String::from("---\r\nversion: 1\r\n---\r\n\r\n");
    while text.len() < len {
        text.push_str(&line);
    }
    let body = asv_contracts::CanonicalBody::from_text("c.md", &text).expect("canonical");
    let id = asv_model::id::ContractId::parse(id).expect("id");
    (text, asv_contracts::document::vendored_copy(&id, &body))
}

/// What a run keeps of its canonical texts, lowered for these tests (`test-hooks`): a text of
/// [`LARGE`] bytes is past it, one of a few bytes is not.
const KEPT: &str = "100000";
const LARGE: usize = 300_000;

#[test]
fn contracts_too_large_to_keep_together_are_read_again_for_their_copies() {
    // `big` alone is past what the run keeps of its canonical texts, so each copy of it is
    // made by reading it again; `small` is kept and shared.
    let repo = Repo::empty();
    let (big, big_copy) = large_contract("big", LARGE);
    repo.write("contracts/big.md", &big);
    repo.write("contracts/small.md", "Small text.\r\n");
    for skill in ["a", "b"] {
        repo.write(
            &format!("skills/{skill}/SKILL.md"),
            skill_md(skill, &["big", "small"]),
        );
    }
    let run = |args: &[&str]| {
        let mut all: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        all.extend(["--root".into(), repo.path().display().to_string()]);
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_agentic-skill-vendor"))
            .args(&all)
            .env("ASV_TEST_KEPT_TEXTS", KEPT)
            .output()
            .expect("run");
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
        )
    };
    assert_eq!(run(&["gen"]).0, Some(0));
    for skill in ["a", "b"] {
        let copy = repo.read(&format!("skills/{skill}/references/vendor/big.md"));
        assert!(copy == big_copy, "skills/{skill}: the copy differs");
        assert!(
            repo.read_string(&format!("skills/{skill}/references/vendor/small.md"))
                .ends_with("-->\n\nSmall text.\n")
        );
    }
    assert_eq!(run(&["verify"]).0, Some(0));
    // A copy edited deep in its body is drift, and gen puts it back from the text.
    let mut edited = big_copy.clone();
    let at = edited.len() - 100;
    edited[at] = b'#';
    repo.write("skills/b/references/vendor/big.md", &edited);
    let (code, stdout) = run(&["verify"]);
    assert_eq!(code, Some(1), "{stdout}");
    assert!(
        stdout.starts_with("drift: skills/b/references/vendor/big.md"),
        "{stdout}"
    );
    assert_eq!(run(&["gen"]).0, Some(0));
    assert!(repo.read("skills/b/references/vendor/big.md") == big_copy);
    assert_eq!(run(&["verify"]).0, Some(0));
}

#[test]
fn a_large_contract_changed_while_gen_writes_its_copies_is_refused_and_nothing_changes() {
    use std::process::{Command, Stdio};
    use std::time::Duration;
    let (big, _) = large_contract("big", LARGE);
    let edited = big.replacen("A line", "An edited line", 1);
    // The run is stalled at each file system call of its change in turn (one staging thread,
    // so nothing moves on meanwhile) and the text edited in the stall, until an edit lands
    // after the plan digested the text and before a copy read it again.
    for stall in 0..80 {
        let repo = Repo::empty();
        repo.write("contracts/big.md", &big);
        repo.write("skills/a/SKILL.md", skill_md("a", &["big"]));
        repo.write("skills/b/SKILL.md", skill_md("b", &["big"]));
        let before = repo.snapshot();
        let running = Command::new(env!("CARGO_BIN_EXE_agentic-skill-vendor"))
            .args(["gen", "--root"])
            .arg(repo.path())
            .env("ASV_TEST_STALL_AT_CALL", stall.to_string())
            .env("ASV_TEST_KEPT_TEXTS", KEPT)
            .env("RAYON_NUM_THREADS", "1")
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn");
        repo.wait_for_journal(Duration::from_secs(20), "gen");
        repo.write("contracts/big.md", &edited);
        let out = running.wait_with_output().expect("wait");
        if out.status.success() {
            continue;
        }
        assert_eq!(out.status.code(), Some(2), "{out:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.contains(
                "contracts/big.md: changed while it was read; run again once nothing else is writing it"
            ),
            "{stderr}"
        );
        let mut after = repo.snapshot();
        after.insert("contracts/big.md".into(), big.clone());
        assert_eq!(after, before, "the tree is as it was, but for the edit");
        // Run again, the edited text is taken whole.
        assert_eq!(repo.run(&["gen"]).code, 0);
        assert_eq!(repo.run(&["verify"]).code, 0);
        return;
    }
    panic!("no stall let the edit land between the plan and a copy");
}
