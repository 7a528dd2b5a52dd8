//! `verify`: every violation kind for local document contracts, exact lines and order.
#![allow(clippy::disallowed_methods)]

use crate::common::{self, Repo, Run, assert_run_snapshot, skill_md, violations};

const VERDICT: &str = "sha256:17f99ce24157f2824815f5ab1b8bda6f297e28e2f6edf187ce18fe0bb4274a51";
const STYLE: &str = "sha256:cea8f25f4e97d627c55eec0cf20e165fc1758df301a78fff67458c1c27b74af1";
const CHANGELOG: &str = "sha256:1275923cb5f22fc6d1f481bd673666102eee696719f9cbc333702327c907552a";
const CHANGELOG_CONFORMANCE: &str =
    "sha256:103849c809f5b15cb017bdbe23cbe6b210a94002fa2d33cdd3be9dcec5e492cb";

#[test]
fn the_demo_verifies_clean_and_quietly() {
    let repo = Repo::demo();
    assert_eq!(
        repo.run(&["verify"]),
        Run {
            code: 0,
            stdout: String::new(),
            stderr: String::new()
        }
    );
}

#[test]
fn closure_and_the_lock_it_no_longer_renders_to() {
    let repo = Repo::demo();
    repo.remove("contracts/verdict-format.md");
    assert_eq!(
        repo.run(&["verify"]),
        violations(
            "closure: verdict-format is declared by review-writer but contracts/verdict-format.md does not exist\n\
             lock: vendor-lock.json differs from what the declarations and the lock render to\n"
        )
    );
}

#[test]
fn closure_names_a_custom_path() {
    let repo = Repo::demo();
    repo.remove("docs/style/writing-style.md");
    let run = repo.run(&["verify"]);
    assert!(
        run.stdout.starts_with(
            "closure: writing-style is declared by release-notes, style-editor but docs/style/writing-style.md does not exist\n"
        ),
        "{run:?}"
    );
}

#[test]
fn every_kind_at_once_in_the_fixed_order() {
    let repo = Repo::demo();
    // stale-lock: the canonical text moved on (appending "more\n").
    let mut text = repo.read_string("contracts/verdict-format.md");
    text.push_str("more\n");
    repo.write("contracts/verdict-format.md", text);
    // conformance-mismatch: a new case.
    repo.write("contracts/changelog-entry/conformance/cases/new.md", "x\n");
    // drift (body), drift (header), drift (missing).
    let style = "skills/style-editor/references/vendor/writing-style.md";
    repo.write(style, repo.read_string(style).replace("Short", "Brief"));
    let changelog = "skills/release-notes/references/vendor/changelog-entry.md";
    repo.write(
        changelog,
        repo.read_string(changelog).replacen("DO NOT", "DONT", 1),
    );
    repo.remove("skills/review-writer/references/vendor/verdict-format.md");
    // extra: a file and a directory.
    repo.write("skills/review-writer/references/vendor/notes.txt", "");
    repo.write("skills/review-writer/references/vendor/sub/x.md", "");
    // lock: dependencies no longer what the declarations say.
    let lock = repo.read_string("vendor-lock.json");
    repo.write(
        "vendor-lock.json",
        lock.replacen("\"style-editor\"", "\"style-editor2\"", 1),
    );

    let run = repo.run(&["verify"]);
    assert_run_snapshot!("every_kind_at_once", run);
    // The digests the lock pins are the demo's.
    for pinned in [VERDICT, CHANGELOG, STYLE, CHANGELOG_CONFORMANCE] {
        assert!(run.stdout.contains(pinned), "{pinned} {run:?}");
    }
    // gen repairs all of it.
    assert_eq!(repo.run(&["gen"]).code, 0);
    assert_eq!(repo.run(&["verify"]).code, 0);
}

#[test]
fn unresolved_and_lock_missing() {
    let repo = Repo::demo();
    repo.remove("vendor-lock.json");
    assert_eq!(
        repo.run(&["verify"]),
        violations(
            "unresolved: changelog-entry has no entry in vendor-lock.json; run gen to record one\n\
             unresolved: verdict-format has no entry in vendor-lock.json; run gen to record one\n\
             unresolved: writing-style has no entry in vendor-lock.json; run gen to record one\n\
             unresolved: review-runtime has no entry in vendor-lock.json; run gen to record one\n\
             unresolved: word-count has no entry in vendor-lock.json; run gen to record one\n\
             placement: skills/review-writer/scripts/runtime/ is declared for review-runtime but vendor-lock.json records nothing there; run gen to place it\n\
             placement: skills/style-editor/scripts/word-count.sh is declared for word-count but vendor-lock.json records nothing there; run gen to place it\n\
             lock: vendor-lock.json is missing\n"
        )
    );
}

#[test]
fn conformance_tests_removed_or_added() {
    let repo = Repo::demo();
    repo.remove("contracts/changelog-entry/conformance");
    repo.write("contracts/verdict-format/conformance/a.md", "XY");
    let run = repo.run(&["verify"]);
    let lines: Vec<&str> = run.stdout.lines().collect();
    assert_eq!(run.code, 1);
    assert_eq!(
        lines[0],
        format!(
            "conformance-mismatch: changelog-entry now has no conformance tests, the lock records {CHANGELOG_CONFORMANCE}"
        )
    );
    assert!(
        lines[1].starts_with("conformance-mismatch: verdict-format now has sha256:")
            && lines[1].ends_with(", the lock records none"),
        "{run:?}"
    );
}

#[test]
fn gitignored_conformance_files_do_not_count() {
    let repo = Repo::demo();
    repo.write(
        "contracts/changelog-entry/conformance/cases/scratch.log",
        "noise\n",
    );
    repo.write(
        "contracts/changelog-entry/conformance/tmp/out.md",
        "noise\n",
    );
    repo.write(
        ".gitignore",
        "*.log\ncontracts/changelog-entry/conformance/tmp/\n",
    );
    assert_eq!(repo.run(&["verify"]).code, 0);
    // An excluded directory cannot be re-included from below.
    repo.write(
        "contracts/changelog-entry/conformance/tmp/.gitignore",
        "!out.md\n",
    );
    assert_eq!(repo.run(&["verify"]).code, 0);
    // A negation in a deeper file re-includes a file whose directory is not excluded.
    repo.write(
        "contracts/changelog-entry/conformance/cases/.gitignore",
        "!scratch.log\n",
    );
    let run = repo.run(&["verify"]);
    assert_eq!(run.code, 1);
    assert!(
        run.stdout
            .starts_with("conformance-mismatch: changelog-entry"),
        "{run:?}"
    );
}

#[test]
fn undeclared_contract_with_moved_text_is_stale() {
    let repo = Repo::demo();
    repo.write(
        "skills/review-writer/SKILL.md",
        skill_md("review-writer", &["changelog-entry"]),
    );
    repo.write("contracts/verdict-format.md", "New\n");
    let run = repo.run(&["verify"]);
    assert!(
        run.stdout.starts_with(&format!("stale-lock: verdict-format is recorded as {VERDICT} but contracts/verdict-format.md is sha256:")),
        "{run:?}"
    );
    assert!(run.stdout.contains("extra: skills/review-writer/references/vendor/verdict-format.md answers to no declaration\n"));
    assert!(run.stdout.ends_with(
        "lock: vendor-lock.json differs from what the declarations and the lock render to\n"
    ));
}

#[test]
fn a_lock_with_a_bom_is_tolerated() {
    let repo = Repo::demo();
    let lock = repo.read("vendor-lock.json");
    repo.write(
        "vendor-lock.json",
        [b"\xef\xbb\xbf".as_slice(), &lock].concat(),
    );
    assert_eq!(repo.run(&["verify"]).code, 0);
}

#[test]
fn a_non_utf8_copy_is_drift_not_an_error() {
    let repo = Repo::demo();
    repo.write(
        "skills/style-editor/references/vendor/writing-style.md",
        b"\xff\xfe",
    );
    assert_eq!(
        repo.run(&["verify"]),
        violations(&format!(
            "drift: skills/style-editor/references/vendor/writing-style.md does not carry the header generated for {STYLE}\n"
        ))
    );
}

#[test]
fn json_and_github_formats() {
    let repo = Repo::demo();
    repo.remove("skills/review-writer/references/vendor/verdict-format.md");
    assert_run_snapshot!("format_json", repo.run(&["verify", "--format", "json"]));
    assert_run_snapshot!("format_github", repo.run(&["--format", "github", "verify"]));
}

#[test]
fn verify_writes_nothing() {
    let repo = Repo::demo();
    repo.remove("vendor-lock.json");
    repo.write("contracts/verdict-format.md", "x\n");
    let before = repo.snapshot();
    assert_eq!(repo.run(&["verify"]).code, 1);
    assert_eq!(repo.snapshot(), before);
}

/// The staged copy of an interrupted tree change beside the skills is the tool's residue,
/// not a skill: verify and gen leave it alone.
#[test]
fn tree_change_residue_is_not_a_skill() {
    let repo = common::Repo::demo();
    repo.write(
        "skills/.release-notes.asv-staged-0123456789ab/SKILL.md",
        common::skill_md("release-notes", &["changelog-entry"]),
    );
    let verified = repo.run(&["verify"]);
    assert_eq!(
        (verified.code, verified.stdout.as_str()),
        (0, ""),
        "{verified:?}"
    );
    let generated = repo.run(&["gen"]);
    assert_eq!(
        (generated.code, generated.stdout.as_str()),
        (0, ""),
        "{generated:?}"
    );
    assert!(!repo.exists("skills/.release-notes.asv-staged-0123456789ab/references"));
}

/// Every hint after a violation names a step that works: each row breaks the demo one way,
/// checks verify prints that kind's hint, takes the step the hint names and finds verify clean.
#[test]
fn every_hint_names_a_step_that_works() {
    type Step = fn(&Repo);
    let gen_: Step = |repo| assert_eq!(repo.run(&["gen"]).code, 0, "gen");
    let rows: Vec<(&str, Step, Step)> = vec![
        (
            "drift",
            |repo| {
                let copy = "skills/style-editor/references/vendor/writing-style.md";
                repo.write(copy, repo.read_string(copy).replace("Short", "Brief"));
            },
            gen_,
        ),
        (
            "extra",
            |repo| repo.write("skills/review-writer/references/vendor/notes.md", "x\n"),
            |repo| repo.remove("skills/review-writer/references/vendor/notes.md"),
        ),
        ("lock", |repo| repo.remove("vendor-lock.json"), gen_),
        (
            "conformance-mismatch",
            |repo| repo.write("contracts/changelog-entry/conformance/cases/new.md", "x\n"),
            gen_,
        ),
        (
            "closure",
            |repo| {
                repo.write("kept.md", repo.read("contracts/verdict-format.md"));
                repo.remove("contracts/verdict-format.md");
            },
            |repo| {
                // "write each missing canonical text at the path named … then run gen"
                repo.write("contracts/verdict-format.md", repo.read("kept.md"));
                repo.remove("kept.md");
                assert_eq!(repo.run(&["gen"]).code, 0, "gen");
            },
        ),
    ];
    for (kind, break_it, fix) in rows {
        let repo = Repo::demo();
        break_it(&repo);
        let run = repo.run(&["verify"]);
        assert_eq!(run.code, 1, "{kind}: {run:?}");
        let hint = common::hints(&[kind]);
        assert!(run.stderr.contains(&hint), "{kind}: {run:?}");
        // The hint is said once however many lines of its kind there are, and only in text.
        assert_eq!(run.stderr.matches(&hint).count(), 1, "{kind}");
        assert_eq!(
            repo.run(&["verify", "--format", "json"]).stderr,
            "",
            "{kind}"
        );
        assert_eq!(repo.run(&["verify", "-q"]).stderr, "", "{kind}");
        fix(&repo);
        assert_eq!(
            repo.run(&["verify"]),
            common::ok(""),
            "{kind} after the step"
        );
    }
}

/// `--format github` puts a `closure` at the line of each SKILL.md that declares the missing
/// contract, where the fix is made.
#[test]
fn a_closure_annotation_points_at_each_declaring_line() {
    let repo = Repo::demo();
    repo.remove("contracts/changelog-entry.md");
    let run = repo.run(&["verify", "--format", "github"]);
    let message = "changelog-entry is declared by release-notes, review-writer but contracts/changelog-entry.md does not exist";
    assert_eq!(
        run.stdout,
        format!(
            "::error file=skills/release-notes/SKILL.md,line=6,title=closure::{message}\n\
             ::error file=skills/review-writer/SKILL.md,line=5,title=closure::{message}\n\
             ::error file=vendor-lock.json,title=lock::vendor-lock.json differs from what the declarations and the lock render to\n"
        )
    );
    assert_eq!(run.code, 1);
}

/// A key of vendor-lock.json this tool does not read is dropped, as the TypeScript tool drops
/// it; a warning names it with its line and the nearest known key, and gen writes the lock
/// without it.
#[test]
fn an_unknown_lock_key_is_named_with_its_line() {
    let repo = Repo::demo();
    let lock = repo.read_string("vendor-lock.json");
    let at = lock.find("\"resolutions\": {").unwrap();
    let typo = format!(
        "{}{}",
        &lock[..at],
        lock[at..].replacen("\"digest\":", "\"digets\": \"x\",\n      \"digest\":", 1)
    );
    assert_ne!(typo, lock);
    repo.write("vendor-lock.json", &typo);
    let line = typo.lines().position(|l| l.contains("digets")).unwrap() + 1;
    // The first resolution of the demo's lock.
    let id = "changelog-entry";
    let run = repo.run(&["verify"]);
    assert_eq!(
        run.stderr,
        format!(
            "warning: vendor-lock.json:{line}: unknown key \"digets\" in the resolution of \"{id}\"; did you mean \"digest\"? (gen writes the lock without it)\n{}",
            common::hints(&["lock"])
        )
    );
    assert_eq!(
        run.stdout,
        "lock: vendor-lock.json differs from what the declarations and the lock render to\n"
    );
    assert_eq!(repo.run(&["gen"]).code, 0);
    assert_eq!(repo.read_string("vendor-lock.json"), lock);
    assert_eq!(repo.run(&["verify"]), common::ok(""));
}

/// Issue 29 §6: `tests/fixtures/typescript-plain-keys` is the tree the TypeScript tool's `gen`
/// wrote for ids YAML reads as numbers, booleans and null: it writes every table key plain
/// (`123:`, `007:`, `0x1f:`, `1e3:`, `true:`, `null:`). Each plain key is the id it spells, so
/// the tree verifies clean, and `gen` finds nothing to change (the table is left as written).
#[test]
fn a_table_the_typescript_tool_wrote_with_plain_number_keys_verifies() {
    let repo = Repo::fixture("typescript-plain-keys");
    let table = repo.read_string("vendor-manifest.yaml");
    for key in ["123", "007", "0x1f", "1e3", "true", "null"] {
        assert!(table.contains(&format!("\n  {key}:\n")), "{table}");
    }
    let before = repo.snapshot();
    assert_eq!(repo.run(&["verify"]), common::ok(""));
    assert_eq!(repo.run(&["gen"]), common::ok(""));
    assert_eq!(
        repo.snapshot(),
        before,
        "gen changed a tree that was up to date"
    );
    assert_eq!(repo.run(&["verify"]), common::ok(""));
}

/// Issue 29 §6: a plain key names the row of the id it spells, not of the number YAML reads:
/// `007`, `0x1f` and `1e400` (too large for a double) find their own `path`, and `7` or `31`
/// would be other ids.
#[test]
fn a_plain_number_key_names_the_id_it_spells() {
    let repo = Repo::empty();
    repo.write("docs/zero.md", "Zero-zero-seven\n");
    repo.write("docs/hex.md", "Hex\n");
    repo.write("docs/big.md", "Big\n");
    repo.write(
        "vendor-manifest.yaml",
        "contracts:\n  007:\n    source: local\n    path: docs/zero.md\n  0x1f: {source: local, path: docs/hex.md}\n  1e400: {source: local, path: docs/big.md}\n",
    );
    repo.write(
        "skills/s/SKILL.md",
        skill_md("s", &["'007'", "'0x1f'", "'1e400'"]),
    );
    let generated = repo.run(&["gen"]);
    assert_eq!(generated.code, 0, "{generated:?}");
    assert!(!generated.stdout.contains("mapped"), "{generated:?}");
    assert_eq!(
        repo.read_string("skills/s/references/vendor/007.md")
            .lines()
            .last(),
        Some("Zero-zero-seven")
    );
    assert_eq!(
        repo.read_string("skills/s/references/vendor/0x1f.md")
            .lines()
            .last(),
        Some("Hex")
    );
    assert_eq!(
        repo.read_string("skills/s/references/vendor/1e400.md")
            .lines()
            .last(),
        Some("Big")
    );
    assert_eq!(repo.run(&["verify"]), common::ok(""));
}

/// Issue 29 §6: an explicit empty document (`---`) is an empty table for both tools;
/// only a file with no document at all is refused (`refusals.rs`).
#[test]
fn a_table_of_one_empty_document_is_an_empty_table() {
    for table in ["---\n", "# nothing yet\n---\n"] {
        let repo = Repo::empty();
        repo.write("contracts/a.md", "A\n");
        repo.write("skills/s/SKILL.md", skill_md("s", &["a"]));
        repo.write("vendor-manifest.yaml", table);
        let generated = repo.run(&["gen"]);
        assert_eq!(generated.code, 0, "{table:?}: {generated:?}");
        assert!(
            generated.stdout.starts_with("mapped: a <- local\n"),
            "{table:?}: {generated:?}"
        );
        assert_eq!(repo.run(&["verify"]), common::ok(""), "{table:?}");
    }
}
