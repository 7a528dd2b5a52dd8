//! Differential test: the table's `ignore` rules (what a raw directory mapping leaves out)
//! against git.
//!
//! The README says the `ignore` arrays use `.gitignore` pattern syntax and that each directory
//! mapping is matched independently against paths relative to its own source directory, so
//! `/build.ts` means the `build.ts` immediately inside every mapped directory. That is exactly
//! what git does with a `.gitignore` placed in the mapped directory itself. So each case writes
//! the same files below `m/` in a fresh repository, writes its patterns as `m/.gitignore`, and
//! compares the files `IgnoreRules::from_patterns(..).excludes_below("", rel, false)` keeps
//! with what `git ls-files --others --exclude-per-directory=.gitignore` lists (without the
//! `.gitignore` itself). Global and system git configuration are shut out.
//!
//! Every pattern list here is one the table accepts (no unescaped leading `!`: the table refuses
//! those).

use std::collections::BTreeSet;

use asv_model::ignore::IgnoreRules;
use asv_test_support::git::git;

/// The files of the mapped directory, relative to it.
const FILES: &[&str] = &[
    ".config/settings.json",
    ".hidden",
    "!bang.md",
    "#hash.md",
    "a.md",
    "a.md.bak",
    "ab.md",
    "b.md",
    "build.ts",
    "build/out.js",
    "c.md",
    "docs/readme.md",
    "docs/x/readme.md",
    "fixtures/data.json",
    "lib/__pycache__/helpers.cpython-312.pyc",
    "lib/fixtures/nested.json",
    "lib/helpers.py",
    "sp ace.md",
    "src/app.test.ts",
    "src/app.ts",
    "src/build.ts",
    "src/deep/more/y.ts",
    "src/deep/x.test.ts",
    "src/x",
    "trailing.md",
    "x/inner.txt",
    "ü.md",
    "star*.md",
    "README.md",
];

/// Pattern lists on which the table's rules and git agree.
const CASES: &[&[&str]] = &[
    // a CR ending the last pattern is dropped, as git drops it at the end of every line
    &["a.md\r"],
    &["a.md\r", "*.json"],
    // nothing, and nothing but comments and blank lines
    &[],
    &["# a comment", "", "   "],
    // `*`, `**`, `?`, `[...]`
    &["*"],
    &["*.ts"],
    &["**"],
    &["?.md"],
    &["[abc].md"],
    &["[a-b]?.md"],
    &["[!a].md"],
    &["a.md.*"],
    &[".*"],
    // `**/x`, `x/**`, `a/**/b`
    &["**/*.test.ts"],
    &["**/x"],
    &["x/**"],
    &["src/**"],
    &["src/**/*.ts"],
    &["docs/**/readme.md"],
    &["**/deep/**"],
    &["src/**/more"],
    // a slash in the middle or at the start anchors; `/build.ts` is the one at the top only
    &["/build.ts"],
    &["build.ts"],
    &["docs/*/readme.md"],
    &["src/*"],
    &["src/deep/"],
    // trailing slash: directories only
    &["build/"],
    &["build"],
    &["fixtures/"],
    &["/fixtures/"],
    &["__pycache__/"],
    &["deep/"],
    &["*/"],
    &["**/"],
    &["x/"],
    // comments and escapes
    &["# comment", "*.md"],
    &["#hash.md"],
    &["\\#hash.md"],
    &["\\!bang.md"],
    &["sp\\ ace.md"],
    // trailing spaces are dropped unless escaped
    &["a.md   "],
    &["trailing.md\\ "],
    &["*.py \t"],
    // several rules together, nested directories
    &["**/*.test.ts", "fixtures/", "/build.ts"],
    &["*.json", "**/more/", "# done"],
    &["lib/", "src/deep/more/y.ts"],
    // edge cases of the syntax
    &["a.md\r", "b.md"],
    &["b.md", "a.md\r "],
    &[" a.md"],
    &["\\ a.md"],
    &["[abc"],
    &["[]a].md"],
    &["[a-]*.md"],
    &["[\\]]*"],
    &["[[:alpha:]].md"],
    &["?.md", "??.md"],
    &["ü.md"],
    &["\\*.md"],
    &["star\\*.md"],
    &["*\\.md"],
    &["\\a.md"],
    &["\\\\#hash.md"],
    &["a.md\\"],
    &["\\"],
    &["\\\\"],
    &["/"],
    &["./a.md"],
    &["src//app.ts"],
    &["a!b", "b!.md"],
    &["readme.md"],
    &["**foo", "*.t**"],
    &["**.md"],
    &["***"],
    &["**/**"],
    &["src/**/"],
    &["src/**/deep"],
    &["src/**/**/y.ts"],
    &["src/deep/**/"],
    &["*/readme.md"],
    &["**/docs/**/readme.md"],
    &["lib/**/nested.json"],
    &["lib/**nested.json"],
    &["x"],
    &["/x"],
    &["/x/"],
    &["docs/x"],
];

/// The files the table's rules keep.
fn ours(patterns: &[&str]) -> BTreeSet<String> {
    let patterns: Vec<String> = patterns.iter().map(|p| (*p).to_owned()).collect();
    let rules = IgnoreRules::from_patterns(&patterns);
    FILES
        .iter()
        .filter(|rel| !rules.excludes_below("", rel, false))
        .map(|rel| (*rel).to_owned())
        .collect()
}

/// The files git keeps with the patterns as the mapped directory's `.gitignore`.
fn gits(patterns: &[&str]) -> BTreeSet<String> {
    let dir = tempfile::tempdir().expect("tempdir");
    for rel in FILES {
        let p = dir.path().join("m").join(rel);
        std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
        std::fs::write(&p, rel.as_bytes()).expect("write");
    }
    let mut text = patterns.join("\n");
    text.push('\n');
    std::fs::write(dir.path().join("m/.gitignore"), text).expect("write .gitignore");
    git(dir.path(), &["init", "-q"]);
    let listed = git(
        dir.path(),
        &[
            "ls-files",
            "--others",
            "--exclude-per-directory=.gitignore",
            "-z",
            "--",
            "m",
        ],
    );
    listed
        .split('\0')
        .filter(|s| !s.is_empty())
        .map(|s| s.strip_prefix("m/").expect("under m/").to_owned())
        .filter(|s| s != ".gitignore")
        .collect()
}

/// Compares one case; `Err` says which files differ.
fn compare(patterns: &[&str]) -> Result<(), String> {
    let ours = ours(patterns);
    let git = gits(patterns);
    if ours == git {
        return Ok(());
    }
    let only_ours: Vec<&String> = ours.difference(&git).collect();
    let only_git: Vec<&String> = git.difference(&ours).collect();
    Err(format!(
        "{patterns:?}: kept only by the table's rules {only_ours:?}, kept only by git {only_git:?}"
    ))
}

#[test]
fn the_cases_are_many_and_the_files_are_all_there() {
    assert!(CASES.len() >= 25);
    // With no rule both keep every file: the harness itself sees the whole tree.
    let all: BTreeSet<String> = FILES.iter().map(|f| (*f).to_owned()).collect();
    assert_eq!(ours(&[]), all);
    assert_eq!(gits(&[]), all);
    // And with `*` both keep nothing: the patterns reach both.
    assert!(ours(&["*"]).is_empty());
    assert!(gits(&["*"]).is_empty());
}

#[test]
fn distribution_ignore_rules_agree_with_git() {
    let failures: Vec<String> = CASES.iter().filter_map(|c| compare(c).err()).collect();
    assert!(
        failures.is_empty(),
        "{} of {} cases disagree with git:\n{}",
        failures.len(),
        CASES.len(),
        failures.join("\n")
    );
}
