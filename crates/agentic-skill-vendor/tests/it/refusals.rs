//! Refusals: every way a tree can be broken so that `gen` and `verify` must stop with exit 2.
//!
//! Each case breaks a fresh copy of `examples/demo` (on which `verify` exits 0), runs the real
//! binary for both `gen` and `verify`, and holds the run to the refusal contract of FORMATS.md:
//! exit 2, nothing on stdout, exactly one line on stderr that opens with `error: ` and names the
//! offending repository-relative path, and nothing written: the tree's snapshot is the same
//! before and after. Where the message is the tool's own text it is compared in full; where
//! part of it comes from a parser (YAML, JSON) only its fixed frame and a telling fragment are.
//! Every table runs all its rows, then fails once listing each row that missed (`harness.rs`).
//!
//! Cases the binary gets wrong are kept here with the correct expectation and
//! `#[ignore = "…"]`, so they turn green the day the bug is fixed.
#![allow(clippy::disallowed_methods)]

use std::time::Instant;

use crate::common::{Repo, Run, assert_run_snapshot, run_bin};
use crate::harness::{
    HANG_LIMIT, Runner, Says, Table, both_refuse, bounded, ensure, exactly, plain, run_bounded,
    same, shaped,
};

// ---------------------------------------------------------------------------------------------
// Tables of broken demos
// ---------------------------------------------------------------------------------------------

/// One row of a table: a label, how to break a fresh demo, what the refusal must say.
struct Row {
    label: &'static str,
    breaks: Box<dyn Fn(&Repo)>,
    path: String,
    says: Says,
}

fn row(label: &'static str, path: &str, says: Says, breaks: impl Fn(&Repo) + 'static) -> Row {
    Row {
        label,
        breaks: Box::new(breaks),
        path: path.to_owned(),
        says,
    }
}

/// Runs every row on a fresh demo, then fails listing every row that missed.
fn run_table(rows: &[Row], runner: Runner) {
    let mut table = Table::default();
    for r in rows {
        table.row(r.label, || {
            let repo = Repo::demo();
            assert_eq!(repo.run(&["verify"]).code, 0, "the demo must verify clean");
            (r.breaks)(&repo);
            both_refuse(&repo, &r.path, &r.says, runner)
        });
    }
    table.finish();
}

/// Runs `gen` and then `verify` on `repo`: each must write nothing, and both must print the
/// same; returns what they printed, for a snapshot.
fn both_alike(repo: &Repo) -> Run {
    let before = repo.snapshot();
    let generated = repo.run(&["gen"]);
    assert_eq!(repo.snapshot(), before, "gen wrote to the tree");
    let verified = repo.run(&["verify"]);
    assert_eq!(repo.snapshot(), before, "verify wrote to the tree");
    assert_eq!(generated, verified, "gen and verify must refuse alike");
    generated
}

/// The message the guarded tree gives for any link it meets.
fn symlink_message(path: &str) -> Says {
    exactly(format!("symlink is not allowed inside the tree: {path}"))
}

/// The message the guarded tree gives for an entry of the wrong kind.
fn wrong_kind(path: &str, found: &str, expected: &str) -> Says {
    exactly(format!(
        "{path} is {found} where {expected} belongs; move it aside or replace it"
    ))
}

// ---------------------------------------------------------------------------------------------
// Symbolic links: refused wherever the tool reads, even when they lead to identical bytes
// ---------------------------------------------------------------------------------------------

/// Where a link in the symlink table points.
enum Target {
    /// The same path in a second, untouched copy of the demo outside the tree: the bytes the
    /// tool would read through the link are exactly the ones it expects.
    Elsewhere,
    /// A target written as it is (relative to the link's directory, possibly dangling).
    Relative(&'static str),
}

#[test]
fn symlinks_are_refused_wherever_the_tool_reads() {
    // (label, path replaced by a link, where it points, the path the message names)
    let rows: &[(&str, &str, Target, &str)] = &[
        ("skills/ itself", "skills", Target::Elsewhere, "skills"),
        (
            "a skill directory",
            "skills/style-editor",
            Target::Elsewhere,
            "skills/style-editor",
        ),
        (
            "a SKILL.md",
            "skills/release-notes/SKILL.md",
            Target::Elsewhere,
            "skills/release-notes/SKILL.md",
        ),
        (
            "a skill's references/ directory",
            "skills/release-notes/references",
            Target::Elsewhere,
            "skills/release-notes/references",
        ),
        (
            "a skill's references/vendor directory",
            "skills/style-editor/references/vendor",
            Target::Elsewhere,
            "skills/style-editor/references/vendor",
        ),
        (
            "a vendored copy, to an identical copy inside the tree",
            "skills/style-editor/references/vendor/writing-style.md",
            Target::Relative("../../../release-notes/references/vendor/writing-style.md"),
            "skills/style-editor/references/vendor/writing-style.md",
        ),
        (
            "a contract file",
            "contracts/verdict-format.md",
            Target::Elsewhere,
            "contracts/verdict-format.md",
        ),
        (
            "a dangling link as a contract file (not read as absent)",
            "contracts/verdict-format.md",
            Target::Relative("no-such-file.md"),
            "contracts/verdict-format.md",
        ),
        (
            "contracts/ itself",
            "contracts",
            Target::Elsewhere,
            "contracts",
        ),
        (
            "a contract at the manifest's path",
            "docs/style/writing-style.md",
            Target::Elsewhere,
            "docs/style/writing-style.md",
        ),
        (
            "a conformance file",
            "contracts/changelog-entry/conformance/cases/minimal.md",
            Target::Elsewhere,
            "contracts/changelog-entry/conformance/cases/minimal.md",
        ),
        (
            "a conformance directory",
            "contracts/changelog-entry/conformance",
            Target::Elsewhere,
            "contracts/changelog-entry/conformance",
        ),
        (
            "vendor-lock.json",
            "vendor-lock.json",
            Target::Elsewhere,
            "vendor-lock.json",
        ),
        (
            "vendor-manifest.yaml",
            "vendor-manifest.yaml",
            Target::Elsewhere,
            "vendor-manifest.yaml",
        ),
        (
            "the root .gitignore (read for conformance trees)",
            ".gitignore",
            Target::Relative("README.md"),
            ".gitignore",
        ),
        (
            "an undeclared entry in a vendor directory",
            "skills/style-editor/references/vendor/other.md",
            Target::Relative("writing-style.md"),
            "skills/style-editor/references/vendor/other.md",
        ),
    ];
    let mut table = Table::default();
    for (label, rel, target, path) in rows {
        table.row(label, || {
            let repo = Repo::demo();
            let elsewhere = Repo::demo();
            let elsewhere_before = elsewhere.snapshot();
            if repo.exists(rel) {
                repo.remove(rel);
            }
            match target {
                Target::Elsewhere => {
                    let to = elsewhere.join(rel);
                    repo.symlink(to.to_str().expect("utf-8 temp path"), rel);
                }
                Target::Relative(to) => repo.symlink(to, rel),
            }
            let refused = both_refuse(&repo, path, &symlink_message(path), plain);
            // Nothing was written through the link either.
            let untouched = ensure(elsewhere.snapshot() == elsewhere_before, || {
                "wrote through the link to the copy elsewhere".to_owned()
            });
            refused.and(untouched)
        });
    }
    table.finish();
}

#[test]
fn a_symlink_with_a_control_character_in_its_name_is_named_json_quoted() {
    // A line break in the name must not split the one stderr line.
    let repo = Repo::demo();
    repo.symlink("style-editor", "skills/bad\nname");
    assert_run_snapshot!("symlink_named_json_quoted", both_alike(&repo));
}

// ---------------------------------------------------------------------------------------------
// Named pipes: refused without being waited on
// ---------------------------------------------------------------------------------------------

#[test]
fn named_pipes_are_refused_without_hanging() {
    // Every run goes through `bounded`: opening a FIFO for reading without O_NONBLOCK would
    // block forever, and the test must fail quickly instead of hanging.
    let fifo = |rel: &'static str| {
        row(
            rel,
            rel,
            wrong_kind(rel, "a named pipe", "a regular file"),
            move |repo: &Repo| {
                if repo.exists(rel) {
                    repo.remove(rel);
                }
                repo.fifo(rel);
            },
        )
    };
    let rows = [
        fifo("contracts/verdict-format.md"),
        fifo("skills/release-notes/SKILL.md"),
        fifo("docs/style/writing-style.md"),
        fifo("contracts/changelog-entry/conformance/cases/minimal.md"),
        fifo("skills/review-writer/references/vendor/verdict-format.md"),
        fifo("vendor-lock.json"),
        fifo("vendor-manifest.yaml"),
        fifo(".gitignore"),
    ];
    let started = Instant::now();
    run_table(&rows, bounded);
    assert!(
        started.elapsed() < HANG_LIMIT,
        "the FIFO refusals took {:?}",
        started.elapsed()
    );
}

// ---------------------------------------------------------------------------------------------
// Entries of the wrong kind: a directory is not "no file", a file is not "no directory"
// ---------------------------------------------------------------------------------------------

#[test]
fn entries_of_the_wrong_kind_are_refused_not_read_as_absent() {
    let dir_at = |rel: &'static str| {
        move |repo: &Repo| {
            repo.remove(rel);
            repo.write(&format!("{rel}/inside.md"), "not a contract\n");
        }
    };
    let file_at = |rel: &'static str| {
        move |repo: &Repo| {
            if repo.exists(rel) {
                repo.remove(rel);
            }
            repo.write(rel, "a file\n");
        }
    };
    let rows = [
        row(
            "a directory where a contract file belongs",
            "contracts/verdict-format.md",
            wrong_kind(
                "contracts/verdict-format.md",
                "a directory",
                "a regular file",
            ),
            dir_at("contracts/verdict-format.md"),
        ),
        row(
            "a directory where SKILL.md belongs",
            "skills/style-editor/SKILL.md",
            wrong_kind(
                "skills/style-editor/SKILL.md",
                "a directory",
                "a regular file",
            ),
            dir_at("skills/style-editor/SKILL.md"),
        ),
        row(
            "a directory where vendor-lock.json belongs",
            "vendor-lock.json",
            wrong_kind("vendor-lock.json", "a directory", "a regular file"),
            dir_at("vendor-lock.json"),
        ),
        row(
            "a directory where a vendored copy belongs",
            "skills/review-writer/references/vendor/verdict-format.md",
            wrong_kind(
                "skills/review-writer/references/vendor/verdict-format.md",
                "a directory",
                "a regular file",
            ),
            dir_at("skills/review-writer/references/vendor/verdict-format.md"),
        ),
        row(
            "a file where skills/x/references/vendor belongs",
            "skills/review-writer/references/vendor",
            wrong_kind(
                "skills/review-writer/references/vendor",
                "a regular file",
                "a directory",
            ),
            file_at("skills/review-writer/references/vendor"),
        ),
        row(
            "a file where skills/ belongs",
            "skills",
            wrong_kind("skills", "a regular file", "a directory"),
            file_at("skills"),
        ),
        row(
            "a file where contracts/ belongs",
            "contracts",
            wrong_kind("contracts", "a regular file", "a directory"),
            file_at("contracts"),
        ),
        row(
            "a file where a conformance directory belongs",
            "contracts/changelog-entry/conformance",
            wrong_kind(
                "contracts/changelog-entry/conformance",
                "a regular file",
                "a directory",
            ),
            file_at("contracts/changelog-entry/conformance"),
        ),
        row(
            "a file where a skill the lock records belongs",
            "skills/style-editor",
            exactly(
                "skills/style-editor is recorded in the lock but is not a directory; restore the \
                 skill directory or run gen after removing it from the lock",
            ),
            file_at("skills/style-editor"),
        ),
    ];
    run_table(&rows, plain);
}

// ---------------------------------------------------------------------------------------------
// Text that is not UTF-8
// ---------------------------------------------------------------------------------------------

#[test]
fn invalid_utf8_is_refused() {
    let spoil = |rel: &'static str| {
        move |repo: &Repo| {
            let mut bytes = repo.read(rel);
            bytes.extend_from_slice(b"\n\xff\xfe caf\xe9\n");
            repo.write(rel, bytes);
        }
    };
    let not_utf8 = |rel: &str| exactly(format!("{rel}: is not valid UTF-8; save it as UTF-8"));
    let rows = [
        row(
            "a contract",
            "contracts/verdict-format.md",
            not_utf8("contracts/verdict-format.md"),
            spoil("contracts/verdict-format.md"),
        ),
        row(
            "a contract at the manifest's path",
            "docs/style/writing-style.md",
            not_utf8("docs/style/writing-style.md"),
            spoil("docs/style/writing-style.md"),
        ),
        row(
            "a SKILL.md",
            "skills/release-notes/SKILL.md",
            not_utf8("skills/release-notes/SKILL.md"),
            spoil("skills/release-notes/SKILL.md"),
        ),
        row(
            "vendor-manifest.yaml",
            "vendor-manifest.yaml",
            not_utf8("vendor-manifest.yaml"),
            spoil("vendor-manifest.yaml"),
        ),
        row(
            "vendor-lock.json",
            "vendor-lock.json",
            exactly(
                "vendor-lock.json: is not valid UTF-8; fix it by hand or delete it and run gen \
                 to write it again",
            ),
            spoil("vendor-lock.json"),
        ),
        row(
            "a skill directory whose name is not UTF-8",
            "skills/\u{fffd}",
            exactly("skills/\u{fffd}: file name is not valid UTF-8; rename it"),
            |repo: &Repo| {
                use std::os::unix::ffi::OsStrExt;
                let name = std::ffi::OsStr::from_bytes(b"\xff");
                std::fs::create_dir(repo.join("skills").join(name)).expect("mkdir");
            },
        ),
    ];
    run_table(&rows, plain);
}

// ---------------------------------------------------------------------------------------------
// Declarations: every frontmatter refusal FORMATS.md lists under "Declarations"
// ---------------------------------------------------------------------------------------------

/// The SKILL.md every declaration case replaces; style-editor declares only writing-style.
const P: &str = "skills/style-editor/SKILL.md";

/// A style-editor SKILL.md whose frontmatter ends with `yaml` (which starts on line 4).
fn with_yaml(yaml: &str) -> String {
    format!(
        "---\nname: style-editor\ndescription: Edits prose to the house writing style.\n{yaml}---\n\n# Style editor\n"
    )
}

/// A refusal of P without a line number.
fn decl(message: &str) -> Says {
    exactly(format!("{P}: {message}"))
}

/// A refusal of P at `line`.
fn decl_at(line: usize, message: &str) -> Says {
    exactly(format!("{P}:{line}: {message}"))
}

fn opening(line: &str) -> Says {
    decl_at(
        1,
        &format!(
            "the line opening the frontmatter is {line}, not exactly ---; write --- alone on line 1"
        ),
    )
}

fn closing(line_no: usize, line: &str) -> Says {
    decl_at(
        line_no,
        &format!(
            "the line closing the frontmatter is {line}, not exactly ---; write --- alone on the line"
        ),
    )
}

const TOO_DEEP: &str = "frontmatter is too deep to read: lists and mappings nest more than 64 levels, the limit; nest it less deeply";
const TOO_LARGE: &str = "frontmatter is too large to read: more than 250000 YAML nodes (scalars, lists and mappings), the limit; make it smaller";

/// A frontmatter YAML failure: the parser's words in the middle.
fn not_yaml(line: Option<usize>, fragment: &'static str) -> Says {
    let at = line.map(|l| format!(":{l}")).unwrap_or_default();
    shaped(
        format!("{P}{at}: frontmatter is not valid YAML ("),
        fragment,
        "); fix the syntax",
    )
}

const DIGEST: &str = "sha256:17f99ce24157f2824815f5ab1b8bda6f297e28e2f6edf187ce18fe0bb4274a51";

fn declaration_rows() -> Vec<(&'static str, String, Says)> {
    let body = "name: style-editor\nmetadata:\n  contracts: [writing-style]\n";
    let after_blank = "the frontmatter's --- comes only after a blank line; move it to line 1";
    let never_closed =
        "the frontmatter opened on line 1 is never closed; add a line holding exactly ---";
    let tab = "indented with a tab; YAML indentation uses spaces";
    let digest_entry =
        "an entry names a contract id and nothing else, digests live in vendor-lock.json";
    vec![
        // --- the fences ---
        (
            "no closing ---",
            format!("---\n{body}\n# Style editor\n"),
            decl_at(1, never_closed),
        ),
        (
            "opening ' ---'",
            format!(" ---\n{body}---\n"),
            opening("\" ---\""),
        ),
        (
            "opening '--- '",
            format!("--- \n{body}---\n"),
            opening("\"--- \""),
        ),
        (
            "opening ZERO WIDTH SPACE + ---",
            format!("\u{200b}---\n{body}---\n"),
            opening("\"\u{200b}---\""),
        ),
        (
            "opening BOM BOM --- (one BOM is dropped, the second stays)",
            format!("\u{feff}\u{feff}---\n{body}---\n"),
            opening("\"\u{feff}---\""),
        ),
        (
            "opening BRAILLE PATTERN BLANK + ---",
            format!("\u{2800}---\n{body}---\n"),
            opening("\"\u{2800}---\""),
        ),
        (
            "closing '---' + ZERO WIDTH SPACE",
            format!("---\n{body}---\u{200b}\n"),
            closing(5, "\"---\u{200b}\""),
        ),
        (
            "closing ' ---' before a real ---",
            format!("---\n{body} ---\n---\n"),
            closing(5, "\" ---\""),
        ),
        (
            "closing '--- '",
            format!("---\n{body}--- \n"),
            closing(5, "\"--- \""),
        ),
        (
            "--- only after blank lines",
            format!("\n\n---\n{body}---\n"),
            decl(after_blank),
        ),
        (
            "--- only after a whitespace-only line",
            format!("   \n---\n{body}---\n"),
            decl(after_blank),
        ),
        (
            "--- only after an invisible line",
            format!("\u{200b}\n---\n{body}---\n"),
            decl(after_blank),
        ),
        // --- the YAML ---
        (
            "tab indentation",
            with_yaml("metadata:\n\tcontracts: [writing-style]\n"),
            decl_at(5, tab),
        ),
        (
            "tab after spaces in the indentation",
            with_yaml("metadata:\n  \tcontracts: [writing-style]\n"),
            decl_at(5, tab),
        ),
        (
            "invalid YAML (unclosed flow list)",
            with_yaml("metadata:\n  contracts: [writing-style\n"),
            not_yaml(Some(5), "unclosed bracket"),
        ),
        (
            "invalid YAML (mapping value in a plain scalar)",
            with_yaml("metadata: contracts: [writing-style]\n"),
            not_yaml(Some(4), "mapping values are not allowed"),
        ),
        (
            "two YAML documents (a: 1 ... b: 2)",
            "---\na: 1\n...\nb: 2\n---\n".to_owned(),
            decl(
                "frontmatter is not valid YAML (holds 2 YAML documents, expected one); fix the syntax",
            ),
        ),
        // Issue 15: valid YAML over a reading limit names the limit, not a debug dump, and
        // does not ask to fix a syntax that is right.
        (
            "frontmatter nested 100 lists deep",
            with_yaml(&format!("x: {}{}\n", "[".repeat(100), "]".repeat(100))),
            decl_at(4, TOO_DEEP),
        ),
        (
            "frontmatter holding 250001 nodes",
            with_yaml(&format!("x: [{}]\n", vec!["a"; 250_000].join(", "))),
            decl_at(4, TOO_LARGE),
        ),
        (
            "root is a list",
            "---\n- writing-style\n---\n".to_owned(),
            decl("frontmatter is a list, expected a mapping"),
        ),
        (
            "root is a string",
            "---\nstyle-editor\n---\n".to_owned(),
            decl("frontmatter is a string, expected a mapping"),
        ),
        (
            "metadata is a list",
            with_yaml("metadata: [writing-style]\n"),
            decl("metadata is a list, expected a mapping"),
        ),
        (
            "metadata is a string",
            with_yaml("metadata: writing-style\n"),
            decl("metadata is a string, expected a mapping"),
        ),
        (
            "metadata: (null)",
            with_yaml("metadata:\n"),
            decl("metadata is null, expected a mapping"),
        ),
        (
            "metadata: ~",
            with_yaml("metadata: ~\n"),
            decl("metadata is null, expected a mapping"),
        ),
        (
            "duplicate top-level key",
            with_yaml("name: style-editor\nmetadata:\n  contracts: [writing-style]\n"),
            not_yaml(Some(4), "duplicate mapping key: name"),
        ),
        (
            "duplicate contracts key",
            with_yaml("metadata:\n  contracts: [writing-style]\n  contracts: [writing-style]\n"),
            not_yaml(Some(6), "duplicate mapping key: contracts"),
        ),
        // --- metadata.contracts ---
        (
            "contracts is a string",
            with_yaml("metadata:\n  contracts: writing-style\n"),
            decl("metadata.contracts is a string, expected a list of contract ids"),
        ),
        (
            "contracts is a mapping",
            with_yaml("metadata:\n  contracts: {writing-style: true}\n"),
            decl("metadata.contracts is a mapping, expected a list of contract ids"),
        ),
        (
            "contracts is an empty list",
            with_yaml("metadata:\n  contracts: []\n"),
            decl("metadata.contracts is an empty list; list the contract ids or remove the key"),
        ),
        (
            "bare contracts:",
            with_yaml("metadata:\n  contracts:\n"),
            decl("metadata.contracts has no value; list the contract ids or remove the key"),
        ),
        (
            "contracts: null",
            with_yaml("metadata:\n  contracts: null\n"),
            decl("metadata.contracts has no value; list the contract ids or remove the key"),
        ),
        (
            "entry is a number",
            with_yaml("metadata:\n  contracts: [1]\n"),
            decl("metadata.contracts[0] is a number, expected a contract id"),
        ),
        // A float too large for a double is a number to YAML 1.2, not a YAML error.
        (
            "entry is a number too large for a double",
            with_yaml("metadata:\n  contracts: [1e400]\n"),
            decl("metadata.contracts[0] is a number, expected a contract id"),
        ),
        (
            "entry is null (second entry)",
            with_yaml("metadata:\n  contracts: [writing-style, null]\n"),
            decl("metadata.contracts[1] is null, expected a contract id"),
        ),
        (
            "entry is an empty block item",
            with_yaml("metadata:\n  contracts:\n    -\n"),
            decl("metadata.contracts[0] is null, expected a contract id"),
        ),
        (
            "entry is a boolean",
            with_yaml("metadata:\n  contracts: [true]\n"),
            decl("metadata.contracts[0] is a boolean, expected a contract id"),
        ),
        (
            "entry is a digest-carrying mapping",
            with_yaml(&format!(
                "metadata:\n  contracts: [{{id: writing-style, digest: \"{DIGEST}\"}}]\n"
            )),
            decl(&format!(
                "metadata.contracts[0] is a mapping; {digest_entry}"
            )),
        ),
        (
            "entry is a block mapping id: digest",
            with_yaml(&format!(
                "metadata:\n  contracts:\n    - writing-style: \"{DIGEST}\"\n"
            )),
            decl(&format!(
                "metadata.contracts[0] is a mapping; {digest_entry}"
            )),
        ),
        (
            "entry is a nested list",
            with_yaml("metadata:\n  contracts: [[writing-style]]\n"),
            decl(&format!("metadata.contracts[0] is a list; {digest_entry}")),
        ),
        (
            "entry is id@digest",
            with_yaml(&format!(
                "metadata:\n  contracts: [\"writing-style@{DIGEST}\"]\n"
            )),
            decl(&format!(
                "metadata.contracts[0] \"writing-style@{DIGEST}\" is not a usable contract id: \
                 an id starts with a-z or 0-9 and holds only a-z, 0-9, '.', '_' and '-'"
            )),
        ),
        (
            "duplicate id",
            with_yaml("metadata:\n  contracts: [writing-style, writing-style]\n"),
            decl("metadata.contracts declares writing-style twice; keep one of them"),
        ),
        (
            "duplicate id spelled two ways",
            with_yaml("metadata:\n  contracts:\n    - writing-style\n    - 'writing-style'\n"),
            decl("metadata.contracts declares writing-style twice; keep one of them"),
        ),
    ]
}

#[test]
fn declaration_refusals() {
    let mut table = Table::default();
    for (label, text, says) in declaration_rows() {
        table.row(label, || {
            let repo = Repo::demo();
            repo.write(P, &text);
            both_refuse(&repo, P, &says, plain)
        });
    }
    table.finish();
}

/// `skill validate` reads a SKILL.md with the reader gen and verify use: every frontmatter
/// verify refuses is an error of `skill validate`, worded and placed (`SKILL.md:<line>:`) as
/// verify's refusal is.
#[test]
fn skill_validate_agrees_with_verify_on_every_declaration_refusal() {
    let mut rows: Vec<(String, String)> = declaration_rows()
        .into_iter()
        .map(|(label, text, _)| (label.to_owned(), text))
        .collect();
    rows.push((
        "contracts not a list inside a flow mapping".into(),
        "---\nname: style-editor\ndescription: d\nmetadata: {contracts: x}\n---\n".into(),
    ));
    let mut table = Table::default();
    for (label, text) in rows {
        table.row(label, || {
            let repo = Repo::demo();
            repo.write(P, &text);
            let verify = repo.run(&["verify"]);
            ensure(verify.code == 2, || {
                format!("verify: exit (want 2) {verify:?}")
            })?;
            let validate = repo.run(&["skill", "validate"]);
            ensure(validate.code == 1, || {
                format!("skill validate: exit (want 1) {validate:?}")
            })?;
            same(
                "skill validate's stdout against verify's stderr",
                &validate.stdout,
                &verify.stderr,
            )?;
            let only = repo.run(&[
                "skill",
                "validate",
                &repo.join("skills/style-editor").display().to_string(),
            ]);
            same(
                "skill validate <one directory>'s stdout against verify's stderr",
                &only.stdout,
                &verify.stderr,
            )
        });
    }
    table.finish();
}

#[test]
fn ids_breaking_the_id_rule_are_refused() {
    let bad_char = "an id starts with a-z or 0-9 and holds only a-z, 0-9, '.', '_' and '-'";
    let long = "a".repeat(65);
    // (label, the entry as written in YAML, the id as the message quotes it, the problem)
    let rows: Vec<(&str, String, String, &str)> = vec![
        ("Upper", "Upper".into(), "\"Upper\"".into(), bad_char),
        (
            "a..b",
            "a..b".into(),
            "\"a..b\"".into(),
            "it contains \"..\"",
        ),
        ("-a", "\"-a\"".into(), "\"-a\"".into(), bad_char),
        (".a", "\".a\"".into(), "\".a\"".into(), bad_char),
        (
            "65 characters",
            long.clone(),
            format!("\"{long}\""),
            "it is longer than 64 characters",
        ),
        ("a/b", "a/b".into(), "\"a/b\"".into(), bad_char),
        (
            "../escape",
            "\"../escape\"".into(),
            "\"../escape\"".into(),
            bad_char,
        ),
        ("empty string", "\"\"".into(), "\"\"".into(), "it is empty"),
        ("non-ASCII", "é".into(), "\"é\"".into(), bad_char),
        ("space inside", "\"a b\"".into(), "\"a b\"".into(), bad_char),
        // A control character is JSON-escaped, so the message stays one line.
        (
            "line break inside",
            "\"a\\nb\"".into(),
            "\"a\\nb\"".into(),
            bad_char,
        ),
        (
            "ESC inside",
            "\"a\\eb\"".into(),
            "\"a\\u001bb\"".into(),
            bad_char,
        ),
    ];
    let mut table = Table::default();
    for (label, written, quoted, problem) in rows {
        table.row(label, || {
            let repo = Repo::demo();
            repo.write(
                P,
                with_yaml(&format!("metadata:\n  contracts: [{written}]\n")),
            );
            let says = decl(&format!(
                "metadata.contracts[0] {quoted} is not a usable contract id: {problem}"
            ));
            both_refuse(&repo, P, &says, plain)
        });
    }
    table.finish();
}

/// A lone CR is a line break when judging the opening fence, so `---\r…` is refused. The
/// message quotes the line up to the CR, which prints as `is "---", not exactly ---`: it
/// contradicts itself and hides the CR that is the actual problem.
#[test]
fn opening_fence_with_a_lone_cr_is_refused() {
    let repo = Repo::demo();
    repo.write(P, "---\rname: style-editor\n---\n");
    let says = shaped(
        format!("{P}:1: the line opening the frontmatter is "),
        "",
        ", not exactly ---; write --- alone on line 1",
    );
    let mut table = Table::default();
    table.row("---\\r", || both_refuse(&repo, P, &says, plain));
    table.finish();
}

#[test]
fn opening_fence_with_a_lone_cr_shows_the_cr() {
    let repo = Repo::demo();
    repo.write(P, "---\rname: style-editor\n---\n");
    let run = repo.run(&["verify"]);
    assert_eq!(run.code, 2, "{run:?}");
    assert!(
        run.stderr.contains("\\r"),
        "the quoted line should show the CR: {run:?}"
    );
}

// ---------------------------------------------------------------------------------------------
// vendor-lock.json
// ---------------------------------------------------------------------------------------------

const LOCK: &str = "vendor-lock.json";
const LOCK_ADVICE: &str = "; fix it by hand or delete it and run gen to write it again";

fn lock_says(problem: &str) -> Says {
    exactly(format!("{LOCK}: {problem}{LOCK_ADVICE}"))
}

#[test]
fn lock_refusals() {
    let demo = Repo::demo().read_string(LOCK);
    let verdict =
        "\"digest\": \"sha256:17f99ce24157f2824815f5ab1b8bda6f297e28e2f6edf187ce18fe0bb4274a51\"";
    let conformance = "\"conformance\": \"sha256:103849c809f5b15cb017bdbe23cbe6b210a94002fa2d33cdd3be9dcec5e492cb\"";
    let edit = |from: &str, to: &str| {
        assert!(demo.contains(from), "the demo lock holds {from}");
        demo.replacen(from, to, 1)
    };
    let bad_digest = |id: &str, field: &str| {
        lock_says(&format!(
            "resolutions.{id}.{field} is not a digest of the form sha256:<64 lowercase hex digits>"
        ))
    };
    let not_json = |line: usize, fragment: &'static str| {
        shaped(
            format!("{LOCK}: line {line}: is not valid JSON ("),
            fragment,
            LOCK_ADVICE,
        )
    };
    let rows: Vec<(&str, String, Says)> = vec![
        (
            "not JSON",
            "not json\n".into(),
            not_json(1, "expected ident"),
        ),
        ("empty file", String::new(), not_json(1, "EOF")),
        (
            "truncated",
            demo[..demo.len() - 4].to_owned(),
            // The parser stops at the last line of what is left.
            not_json(demo[..demo.len() - 4].lines().count(), "EOF"),
        ),
        ("a list", "[]\n".into(), lock_says("is not a JSON object")),
        (
            "a string",
            "\"lock\"\n".into(),
            lock_says("is not a JSON object"),
        ),
        ("null", "null\n".into(), lock_says("is not a JSON object")),
        (
            "lacks dependencies",
            "{\"resolutions\": {}}\n".into(),
            lock_says("has no \"dependencies\" object"),
        ),
        (
            "lacks resolutions",
            "{\"dependencies\": {}}\n".into(),
            lock_says("has no \"resolutions\" object"),
        ),
        (
            "dependencies is a list",
            "{\"dependencies\": [], \"resolutions\": {}}\n".into(),
            lock_says("\"dependencies\" is not an object"),
        ),
        (
            "digest sha256:abc",
            edit(verdict, "\"digest\": \"sha256:abc\""),
            bad_digest("verdict-format", "digest"),
        ),
        (
            "digest in uppercase hex",
            edit(
                verdict,
                &verdict
                    .to_uppercase()
                    .replace("\"DIGEST\": \"SHA256:", "\"digest\": \"sha256:"),
            ),
            bad_digest("verdict-format", "digest"),
        ),
        (
            "digest without the sha256: prefix",
            edit(verdict, &verdict.replace("sha256:", "")),
            bad_digest("verdict-format", "digest"),
        ),
        (
            "digest missing",
            edit(verdict, "\"note\": \"no digest\""),
            bad_digest("verdict-format", "digest"),
        ),
        (
            "conformance in uppercase hex",
            edit(conformance, &conformance.replace("103849c8", "103849C8")),
            bad_digest("changelog-entry", "conformance"),
        ),
        (
            "resolution key not an id (Upper)",
            edit("\"verdict-format\": {", "\"Verdict-Format\": {"),
            lock_says("resolutions has the key \"Verdict-Format\", which is not a contract id"),
        ),
        (
            "resolution key not an id (../x)",
            edit("\"verdict-format\": {", "\"../x\": {"),
            lock_says("resolutions has the key \"../x\", which is not a contract id"),
        ),
        (
            "resolution key with a line break (JSON-quoted)",
            edit("\"verdict-format\": {", "\"a\\nb\": {"),
            lock_says("resolutions has the key \"a\\nb\", which is not a contract id"),
        ),
        // Issue 15: a dependencies key is a skill directory; one that leaves skills/ made verify
        // look at a path outside the repository.
        (
            "dependencies key that leaves the repository",
            edit(
                "\"dependencies\": {",
                "\"dependencies\": {\"../../../../etc/passwd\": [],",
            ),
            lock_says(
                "dependencies has the key \"../../../../etc/passwd\", which does not name one skill directory",
            ),
        ),
        (
            "dependencies key ..",
            edit("\"dependencies\": {", "\"dependencies\": {\"..\": [],"),
            lock_says("dependencies has the key \"..\", which does not name one skill directory"),
        ),
        (
            "empty dependencies key",
            edit("\"dependencies\": {", "\"dependencies\": {\"\": [],"),
            lock_says("dependencies has the key \"\", which does not name one skill directory"),
        ),
        (
            "resolution is not an object",
            edit(
                "\"verdict-format\": {",
                "\"verdict-format\": 1, \"x-unused\": {",
            ),
            lock_says("resolutions.verdict-format is not an object"),
        ),
        (
            "kind \"document\"",
            edit(verdict, &format!("{verdict}, \"kind\": \"document\"")),
            lock_says("resolutions.verdict-format.kind is not \"raw\""),
        ),
        (
            "kind true",
            edit(verdict, &format!("{verdict}, \"kind\": true")),
            lock_says("resolutions.verdict-format.kind is not \"raw\""),
        ),
    ];
    let mut table = Table::default();
    for (label, text, says) in rows {
        table.row(label, || {
            let repo = Repo::demo();
            repo.write(LOCK, &text);
            both_refuse(&repo, LOCK, &says, plain)
        });
    }
    table.finish();
}

#[test]
fn only_the_legacy_lock_name_is_refused() {
    let repo = Repo::demo();
    let bytes = repo.read(LOCK);
    repo.remove(LOCK);
    repo.write("vendor-manifest.json", bytes);
    assert_run_snapshot!("legacy_lock_name", both_alike(&repo));
}

// ---------------------------------------------------------------------------------------------
// vendor-manifest.yaml
// ---------------------------------------------------------------------------------------------

const MANIFEST: &str = "vendor-manifest.yaml";

fn manifest_says(message: &str) -> Says {
    exactly(format!("{MANIFEST}: {message}"))
}

fn no_document() -> Says {
    manifest_says(
        "holds no YAML document (it is empty, blank or only comments); write the table in it, or delete the file",
    )
}

fn row_with_path(path: &str) -> String {
    format!("contracts:\n  writing-style:\n    source: local\n    path: {path}\n")
}

fn not_inside(path: &str) -> Says {
    manifest_says(&format!(
        "contracts.writing-style.path \"{path}\" is not a relative path inside the repository; \
         write it with / separators and no . or .. segments"
    ))
}

#[test]
fn manifest_refusals() {
    let rows: Vec<(&str, String, Says)> = vec![
        (
            "invalid YAML",
            "contracts:\n  writing-style: {source: local\n".into(),
            shaped(
                format!("{MANIFEST}:2: is not valid YAML ("),
                "unclosed bracket",
                "); fix the syntax",
            ),
        ),
        (
            "duplicate row",
            "contracts:\n  writing-style: {source: local, path: docs/style/writing-style.md}\n  writing-style: {source: local}\n".into(),
            shaped(
                format!("{MANIFEST}:3: is not valid YAML ("),
                "duplicate mapping key",
                "); fix the syntax",
            ),
        ),
        // Issue 15: valid YAML over a reading limit names the limit.
        (
            "nested 100 lists deep",
            format!("contracts: {{}}\nx: {}{}\n", "[".repeat(100), "]".repeat(100)),
            exactly(format!(
                "{MANIFEST}:2: is too deep to read: lists and mappings nest more than 64 levels, the limit; nest it less deeply"
            )),
        ),
        (
            "holding 250001 nodes",
            format!("contracts: {{}}\nx: [{}]\n", vec!["a"; 250_000].join(", ")),
            exactly(format!(
                "{MANIFEST}:2: is too large to read: more than 250000 YAML nodes (scalars, lists and mappings), the limit; make it smaller"
            )),
        ),
        (
            "path with ..",
            row_with_path("../outside/writing-style.md"),
            not_inside("../outside/writing-style.md"),
        ),
        (
            "path with .. in the middle",
            row_with_path("docs/../docs/style/writing-style.md"),
            not_inside("docs/../docs/style/writing-style.md"),
        ),
        ("absolute path", row_with_path("/etc/passwd"), not_inside("/etc/passwd")),
        (
            "path with backslashes",
            row_with_path("'docs\\style\\writing-style.md'"),
            not_inside("docs\\\\style\\\\writing-style.md"),
        ),
        (
            "path into skills/",
            row_with_path("skills/style-editor/references/vendor/writing-style.md"),
            manifest_says(
                "contracts.writing-style.path \"skills/style-editor/references/vendor/writing-style.md\" \
                 points into skills/, which holds copies, not canonical text; keep the text elsewhere",
            ),
        ),
        (
            "path into .agentic-skill-vendor/",
            row_with_path(".agentic-skill-vendor/cache/writing-style.md"),
            manifest_says(
                "contracts.writing-style.path \".agentic-skill-vendor/cache/writing-style.md\" \
                 points into .agentic-skill-vendor/, which holds copies, not canonical text; keep the text elsewhere",
            ),
        ),
        (
            "unregistered source",
            "contracts:\n  writing-style:\n    source: elsewhere\n".into(),
            manifest_says(
                "contracts.writing-style names the source \"elsewhere\", which no sources entry \
                 registers; register it with add or write source: local",
            ),
        ),
        (
            "row without a source",
            "contracts:\n  writing-style:\n    path: docs/style/writing-style.md\n".into(),
            manifest_says(
                "contracts.writing-style has no source; write source: local or a source name",
            ),
        ),
        (
            "row id breaking the id rule",
            "contracts:\n  Writing-Style: {source: local}\n".into(),
            manifest_says(
                "contracts.\"Writing-Style\" is not a usable contract id: an id starts with a-z or \
                 0-9 and holds only a-z, 0-9, '.', '_' and '-'",
            ),
        ),
        (
            "top level a list",
            "- writing-style\n".into(),
            manifest_says("the top level is a list, expected a mapping"),
        ),
        // Issue 29 §6: a table with no document is refused, as the TypeScript tool refuses it.
        ("empty", String::new(), no_document()),
        ("blank lines", "\n\n".into(), no_document()),
        ("spaces and tabs", "  \t\n \r\n".into(), no_document()),
        (
            "only comments",
            "# the table of origins\n\n  # nothing yet\n".into(),
            no_document(),
        ),
        ("a byte order mark alone", "\u{feff}".into(), no_document()),
        ("a document end marker alone", "...\n".into(), no_document()),
        // Issue 29 §6: a key YAML types is the id it spells, judged as any id.
        (
            "row key ~",
            "contracts:\n  ~: {source: local}\n".into(),
            manifest_says(
                "contracts.\"~\" is not a usable contract id: an id starts with a-z or \
                 0-9 and holds only a-z, 0-9, '.', '_' and '-'",
            ),
        ),
        (
            "row key .inf",
            "contracts:\n  .inf: {source: local}\n".into(),
            manifest_says(
                "contracts.\".inf\" is not a usable contract id: an id starts with a-z or \
                 0-9 and holds only a-z, 0-9, '.', '_' and '-'",
            ),
        ),
        (
            "row key a list",
            "contracts:\n  ? [a]\n  : {source: local}\n".into(),
            manifest_says("a contracts key is a list, expected an id"),
        ),
        (
            "one id plain and quoted",
            "contracts:\n  9: {source: local}\n  \"9\": {source: local}\n".into(),
            manifest_says(
                "contracts holds two keys naming 9 (a plain and a quoted spelling of one id); keep one of them",
            ),
        ),
    ];
    let mut table = Table::default();
    for (label, text, says) in rows {
        table.row(label, || {
            let repo = Repo::demo();
            repo.write(MANIFEST, &text);
            both_refuse(&repo, MANIFEST, &says, plain)
        });
    }
    table.finish();
}

// ---------------------------------------------------------------------------------------------
// The command line
// ---------------------------------------------------------------------------------------------

const USAGE_HINT: &str = "run agentic-skill-vendor --help for the commands and options";

/// A usage refusal: the `error:` line, then the hint line pointing at --help.
fn usage(message: &str) -> String {
    format!("error: {message}\n{USAGE_HINT}\n")
}

/// A usage refusal with clap's details: extra lines (a tip, missing arguments), the usage line
/// of the command being parsed, and that command's `--help` (the top level's for `None`).
fn usage_of(message: &str, details: &[&str], usage: &str, command: Option<&str>) -> String {
    let mut out = format!("error: {message}\n");
    for line in details {
        out.push_str(line);
        out.push('\n');
    }
    out.push_str(&format!("Usage: agentic-skill-vendor {usage}\n"));
    match command {
        None => out.push_str(&format!("{USAGE_HINT}\n")),
        Some(c) => out.push_str(&format!(
            "run agentic-skill-vendor {c} --help for its arguments and options\n"
        )),
    }
    out
}

#[test]
fn command_line_refusals() {
    let repo = Repo::demo();
    let root = repo.path().display().to_string();
    let missing = repo.join("no-such-dir").display().to_string();
    let a_file = repo.join("README.md").display().to_string();
    let token = |cmd: &str| {
        usage(&format!(
            "--token-stdin is not an option {cmd} takes: it reaches no network; only add, update, \
             fetch and skill add, pull, diff and outdated do"
        ))
    };
    let args = |list: &[&str]| list.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    // (label, arguments, stdin, the whole of stderr)
    let rows: Vec<(&str, Vec<String>, Option<&str>, String)> = vec![
        (
            "gen --token-stdin",
            args(&["gen", "--token-stdin", "--root", &root]),
            None,
            token("gen"),
        ),
        (
            "verify --token-stdin",
            args(&["verify", "--token-stdin", "--root", &root]),
            None,
            token("verify"),
        ),
        (
            "lint-selfcontain --token-stdin",
            args(&["lint-selfcontain", "--token-stdin", "--root", &root]),
            None,
            token("lint-selfcontain"),
        ),
        (
            "self-test --token-stdin",
            args(&["self-test", "--token-stdin"]),
            None,
            token("self-test"),
        ),
        (
            "--token-stdin before the command",
            args(&["--token-stdin", "verify", "--root", &root]),
            None,
            token("verify"),
        ),
        (
            "gen --token-stdin with a token on stdin",
            args(&["gen", "--token-stdin", "--root", &root]),
            Some("ghp_0123456789abcdef\n"),
            token("gen"),
        ),
        (
            "unknown option --bogus",
            args(&["verify", "--bogus", "--root", &root]),
            None,
            usage_of(
                "unknown option: --bogus",
                &[],
                "verify [OPTIONS]",
                Some("verify"),
            ),
        ),
        (
            "unknown option before the command",
            args(&["--bogus", "gen", "--root", &root]),
            None,
            usage_of("unknown option: --bogus", &[], "[OPTIONS] <COMMAND>", None),
        ),
        (
            "unknown short option",
            args(&["gen", "-x", "--root", &root]),
            None,
            usage_of("unknown option: -x", &[], "gen [OPTIONS]", Some("gen")),
        ),
        (
            "gen extra",
            args(&["gen", "extra", "--root", &root]),
            None,
            usage_of(
                "unexpected argument: extra",
                &[],
                "gen [OPTIONS]",
                Some("gen"),
            ),
        ),
        (
            "verify a b",
            args(&["verify", "a", "b", "--root", &root]),
            None,
            usage_of(
                "unexpected argument: a",
                &[],
                "verify [OPTIONS]",
                Some("verify"),
            ),
        ),
        (
            "unknown command",
            args(&["frobnicate", "--root", &root]),
            None,
            usage_of(
                "unknown command: frobnicate",
                &[],
                "[OPTIONS] <COMMAND>",
                None,
            ),
        ),
        (
            "misspelt command",
            args(&["verfiy", "--root", &root]),
            None,
            usage_of(
                "unknown command: verfiy",
                &["  tip: a similar subcommand exists: 'verify'"],
                "[OPTIONS] <COMMAND>",
                None,
            ),
        ),
        (
            "no command",
            args(&["--root", &root]),
            None,
            usage("no command given"),
        ),
        (
            "no arguments at all",
            args(&[]),
            None,
            usage("no command given"),
        ),
        (
            "--root without a value",
            args(&["verify", "--root"]),
            None,
            usage("--root needs a path"),
        ),
        (
            "--root= empty",
            args(&["gen", "--root="]),
            None,
            usage("--root needs a path"),
        ),
        (
            "--root ''",
            args(&["verify", "--root", ""]),
            None,
            usage("--root needs a path"),
        ),
        (
            "--root naming a missing directory",
            args(&["verify", "--root", &missing]),
            None,
            format!(
                "error: {missing}: no such directory; pass --root <path> naming the repository\n"
            ),
        ),
        (
            "gen --root naming a missing directory",
            args(&["gen", "--root", &missing]),
            None,
            format!(
                "error: {missing}: no such directory; pass --root <path> naming the repository\n"
            ),
        ),
        (
            "--root naming a file",
            args(&["verify", "--root", &a_file]),
            None,
            format!("error: {a_file}: not a directory; pass --root <path> naming the repository\n"),
        ),
    ];
    let mut table = Table::default();
    for (label, argv, stdin, want) in rows {
        table.row(label, || {
            let before = repo.snapshot();
            // `run_bounded` when a token is fed: the binary refuses without reading stdin, and
            // `run_bin` would panic on the broken pipe if the binary exits first.
            let run = match stdin {
                None => run_bin(&argv, None),
                Some(_) => run_bounded(&argv, stdin)?,
            };
            ensure(run.code == 2, || format!("exit (want 2) {run:?}"))?;
            ensure(run.stdout.is_empty(), || {
                format!("stdout (want none) {run:?}")
            })?;
            same("stderr", run.stderr.as_str(), want.as_str())?;
            ensure(repo.snapshot() == before, || "wrote to the tree".to_owned())?;
            ensure(!repo.exists("no-such-dir"), || {
                "created the missing root".to_owned()
            })
        });
    }
    table.finish();
}

// ---------------------------------------------------------------------------------------------
// Names with control characters are printed JSON-quoted
// ---------------------------------------------------------------------------------------------

#[test]
fn an_extra_file_under_a_name_with_a_line_break_is_reported_json_quoted() {
    // A skill directory named "bad\nname" declaring nothing, with a stray file in its vendor
    // directory: one `extra` line, the path spelled as JSON.stringify spells it.
    let repo = Repo::demo();
    repo.write("skills/bad\nname/references/vendor/x.md", "stray\n");
    let before = repo.snapshot();
    let run = repo.run(&["verify"]);
    assert_run_snapshot!("extra_named_json_quoted", run);
    assert_eq!(repo.snapshot(), before, "verify never writes");
}

// ---------------------------------------------------------------------------------------------
// Refusals met late: gen must meet every refusal before its first write
// ---------------------------------------------------------------------------------------------

/// A contract was edited (so copies and the lock need rewriting) and the last skill,
/// style-editor, carries a problem met only when that skill's copies are looked at. Before
/// commit 8add030 ("gen plans every change … before its first write") gen wrote the earlier
/// skills' copies, and for a link among vendored files the lock too, before refusing; these rows
/// guard that fix.
fn late_refusal_rows() -> Vec<Row> {
    let edit_contract = |repo: &Repo| {
        let mut text = repo.read_string("contracts/changelog-entry.md");
        text.push_str("\nOne more rule.\n");
        repo.write("contracts/changelog-entry.md", text);
    };
    let vendor = "skills/style-editor/references/vendor";
    let copy = "skills/style-editor/references/vendor/writing-style.md";
    vec![
        row(
            "symlinked vendor dir of a later skill",
            vendor,
            symlink_message(vendor),
            move |repo: &Repo| {
                edit_contract(repo);
                repo.remove(vendor);
                repo.symlink("../../release-notes/references/vendor", vendor);
            },
        ),
        row(
            "symlink among a later skill's vendored files (met after the lock is rendered)",
            "skills/style-editor/references/vendor/other.md",
            symlink_message("skills/style-editor/references/vendor/other.md"),
            move |repo: &Repo| {
                edit_contract(repo);
                repo.symlink("writing-style.md", &format!("{vendor}/other.md"));
            },
        ),
        row(
            "file where a later skill's vendor dir belongs",
            vendor,
            wrong_kind(vendor, "a regular file", "a directory"),
            move |repo: &Repo| {
                edit_contract(repo);
                repo.remove(vendor);
                repo.write(vendor, "a file\n");
            },
        ),
        row(
            "directory where a later skill's vendored copy belongs",
            copy,
            wrong_kind(copy, "a directory", "a regular file"),
            move |repo: &Repo| {
                edit_contract(repo);
                repo.remove(copy);
                repo.write(&format!("{copy}/inside.md"), "x\n");
            },
        ),
        row(
            "FIFO where a later skill's vendored copy belongs",
            copy,
            wrong_kind(copy, "a named pipe", "a regular file"),
            move |repo: &Repo| {
                edit_contract(repo);
                repo.remove(copy);
                repo.fifo(copy);
            },
        ),
    ]
}

#[test]
fn late_refusals_write_nothing() {
    // `bounded`: one row puts a FIFO in the tree.
    run_table(&late_refusal_rows(), bounded);
}

// ---------------------------------------------------------------------------------------------
// Several problems at once: the same refusal every run
// ---------------------------------------------------------------------------------------------

/// Skills are loaded and checked in parallel; the refusal reported must still be the first in
/// skill order, whichever thread meets its problem first.
#[test]
fn with_several_broken_skills_the_first_in_name_order_is_reported_every_run() {
    let rows = [
        row(
            "three broken SKILL.md files",
            "skills/release-notes/SKILL.md",
            exactly(
                "skills/release-notes/SKILL.md: metadata.contracts is an empty list; list the \
                 contract ids or remove the key",
            ),
            |repo: &Repo| {
                repo.write(
                    "skills/release-notes/SKILL.md",
                    "---\nmetadata:\n  contracts: []\n---\n",
                );
                repo.write(
                    "skills/review-writer/SKILL.md",
                    "---\nname: a\nname: b\n---\n",
                );
                repo.write(P, "---\nmetadata: [x]\n---\n");
            },
        ),
        row(
            "three symlinked vendor dirs",
            "skills/release-notes/references/vendor",
            symlink_message("skills/release-notes/references/vendor"),
            |repo: &Repo| {
                for skill in ["release-notes", "review-writer", "style-editor"] {
                    let vendor = format!("skills/{skill}/references/vendor");
                    repo.remove(&vendor);
                    repo.write(&format!("skills/{skill}/references/real/keep.md"), "x\n");
                    repo.symlink("real", &vendor);
                }
            },
        ),
    ];
    for _ in 0..5 {
        run_table(&rows, plain);
    }
}

// ---------------------------------------------------------------------------------------------
// A contract's canonical text: the frontmatter refusals (the TypeScript tool's wording)
// ---------------------------------------------------------------------------------------------

/// One body under every broken frontmatter below, so a refusal cannot come from the body.
const TEXT_BODY: &str = "# Changelog entry\n\nStart with a verb.\n\n---\n\nA rule above.\n";

fn text_refusal_rows(path: &'static str) -> Vec<(String, String, Says)> {
    let opening = |shown: &str| {
        exactly(format!(
            "{path}: the line opening the frontmatter is not exactly '---': {}",
            json(shown)
        ))
    };
    let closing = |line: &str| {
        exactly(format!(
            "{path}: the line closing the frontmatter is not exactly '---': {}",
            json(line)
        ))
    };
    let below = exactly(format!(
        "{path}: frontmatter has to open on the first line, and this document reaches '---' only below a blank one"
    ));
    let unclosed = exactly(format!(
        "{path}: frontmatter opens with '---' but the closing '---' line is missing"
    ));
    let mut rows: Vec<(String, String, Says)> = Vec::new();
    // Each class of character a reader does not see, on the opening and the closing line.
    for (class, c) in [
        ("space", " "),
        ("tab", "\t"),
        ("no-break space", "\u{a0}"),
        ("ideographic space", "\u{3000}"),
        ("zero-width space", "\u{200b}"),
        ("word joiner", "\u{2060}"),
        ("Mongolian vowel separator", "\u{180e}"),
        ("BOM inside the text", "\u{feff}"),
        ("soft hyphen", "\u{ad}"),
        ("variation selector", "\u{fe0f}"),
        ("tag character", "\u{e0041}"),
        ("braille blank", "\u{2800}"),
    ] {
        let before = format!("{c}---");
        let after = format!("---{c}");
        // A BOM before line 1 is the one leading BOM, dropped before anything is read.
        if c != "\u{feff}" {
            rows.push((
                format!("opening, {class} before"),
                format!("{before}\ntitle: x\n---\n{TEXT_BODY}"),
                opening(&before),
            ));
        }
        rows.push((
            format!("closing, {class} before"),
            format!("---\ntitle: x\n{before}\n{TEXT_BODY}"),
            closing(&before),
        ));
        rows.push((
            format!("opening, {class} after"),
            format!("{after}\ntitle: x\n---\n{TEXT_BODY}"),
            opening(&after),
        ));
        rows.push((
            format!("closing, {class}"),
            format!("---\ntitle: x\n{after}\n{TEXT_BODY}"),
            closing(&after),
        ));
    }
    rows.extend([
        (
            "opening, in the middle".into(),
            format!("-\u{200d}--\ntitle: x\n---\n{TEXT_BODY}"),
            opening("-\u{200d}--"),
        ),
        (
            "opening, a lone CR ends line 1".into(),
            format!("---\rtitle: x\n---\n{TEXT_BODY}"),
            opening("---"),
        ),
        (
            "opening, CRLF text".into(),
            "--- \r\ntitle: x\r\n---\r\nBody\r\n".into(),
            opening("--- "),
        ),
        (
            "opening, after a BOM and a second BOM".into(),
            format!("\u{feff}\u{feff}---\ntitle: x\n---\n{TEXT_BODY}"),
            opening("\u{feff}---"),
        ),
        (
            "below a blank line".into(),
            format!("\n---\ntitle: x\n---\n{TEXT_BODY}"),
            below.clone(),
        ),
        (
            "below invisible lines".into(),
            format!(" \n\u{200b}\n\t\n---\ntitle: x\n---\n{TEXT_BODY}"),
            below.clone(),
        ),
        (
            "below a lone CR".into(),
            format!("\r---\ntitle: x\n---\n{TEXT_BODY}"),
            below.clone(),
        ),
        (
            "below a blank line, CRLF".into(),
            "\r\n --- \r\ntitle: x\r\n---\r\n".into(),
            below,
        ),
        (
            "never closed".into(),
            "---\ntitle: x\n# Changelog entry\n".into(),
            unclosed.clone(),
        ),
        (
            "never closed, only line 1".into(),
            "---".into(),
            unclosed.clone(),
        ),
        (
            "closed only after a lone CR".into(),
            "---\ntitle: x\r---\rBody\n".into(),
            unclosed.clone(),
        ),
        (
            "never closed, BOM and CRLF".into(),
            "\u{feff}---\r\ntitle: x\r\n".into(),
            unclosed,
        ),
        (
            "closing, a lone CR after it".into(),
            "---\ntitle: x\n---\r\r\nBody\n".into(),
            closing("---\r"),
        ),
    ]);
    rows
}

fn json(s: &str) -> String {
    serde_json::to_string(s).expect("json")
}

/// A contract's text whose frontmatter cannot be told from its body is refused by gen and
/// verify (exit 2, the TypeScript tool's line, nothing written), at `contracts/<id>.md` and at
/// a path the table names.
#[test]
fn contract_text_refusals() {
    let mut table = Table::default();
    for path in [
        "contracts/changelog-entry.md",
        "docs/style/writing-style.md",
    ] {
        for (label, text, says) in text_refusal_rows(path) {
            table.row(format!("{path}: {label}"), || {
                let repo = Repo::demo();
                repo.write(path, text.as_bytes());
                both_refuse(&repo, path, &says, plain)
            });
        }
    }
    table.finish();
}

/// What the refusals leave alone: texts whose frontmatter is sound digest as they always did.
#[test]
fn contract_texts_the_rule_accepts() {
    let rows: &[(&str, &str, &str)] = &[
        ("no frontmatter", "# T\n\nBody\n", "# T\n\nBody\n"),
        (
            "a horizontal rule in the body",
            "---\ntitle: x\n---\n\nAbove\n\n---\n\nBelow\n",
            "Above\n\n---\n\nBelow\n",
        ),
        (
            "a rule below text, no frontmatter",
            "Intro\n---\nMore\n",
            "Intro\n---\nMore\n",
        ),
        ("CRLF", "---\r\ntitle: x\r\n---\r\n\r\nA\r\nB\r\n", "A\nB\n"),
        ("a lone CR inside the body", "A\rB\n", "A\rB\n"),
        ("a BOM", "\u{feff}---\ntitle: x\n---\nBody\n", "Body\n"),
        ("empty frontmatter", "---\n---\n", "\n"),
        (
            "a look-alike line in the body",
            "---\ntitle: x\n---\nBody\n --- \n",
            "Body\n --- \n",
        ),
        ("blank lines only", "\n \n\u{200b}\n", "\n \n\u{200b}\n"),
    ];
    let mut table = Table::default();
    for (label, text, body) in rows {
        table.row(label, || {
            let repo = Repo::demo();
            repo.write("contracts/changelog-entry.md", text.as_bytes());
            let run = repo.run(&["gen"]);
            ensure(run.code == 0, || format!("gen: exit (want 0) {run:?}"))?;
            let copy =
                repo.read_string("skills/release-notes/references/vendor/changelog-entry.md");
            let got = copy.splitn(5, '\n').nth(4).expect("header");
            same("the copy's body", got, *body)?;
            let run = repo.run(&["verify"]);
            ensure(run.code == 0, || format!("verify: exit (want 0) {run:?}"))
        });
    }
    table.finish();
}
