//! Differential test: which files the conformance walk keeps, against `git ls-files --others
//! --exclude-per-directory=.gitignore` in a fresh repository (no global excludes).
//!
//! Each case writes the same tree of files and `.gitignore` files, then asks both for the
//! files under `c/t` that are not excluded.

use std::process::Command;

use asv_fs::Root;

const FILES: &[&str] = &[
    "c/t/a.md",
    "c/t/b.log",
    "c/t/build/out.md",
    "c/t/build/keep.md",
    "c/t/sub/x.md",
    "c/t/sub/deep/y.log",
    "c/t/sub/deep/z.md",
    "c/t/.hidden",
    "c/t/sp ace.md",
    "c/t/#hash.md",
    "c/t/!bang.md",
    "c/t/a.md.bak",
    "other/a.md",
];

/// (root .gitignore, c/.gitignore, c/t/.gitignore, c/t/sub/.gitignore)
const CASES: &[[&str; 4]] = &[
    ["", "", "", ""],
    ["*.log\n", "", "", ""],
    ["*.log\n", "", "!b.log\n", ""],
    ["", "", "build/\n!build/keep.md\n", ""],
    ["", "", "build\n", ""],
    ["", "", "/a.md\n", ""],
    ["", "/t/a.md\n", "", ""],
    ["", "", "**/deep\n", ""],
    ["", "", "sub/**/*.log\n", ""],
    ["", "", "*\n!*.md\n", ""],
    ["", "", "*\n!*/\n!*.md\n", ""],
    ["", "", "\\#hash.md\n", ""],
    ["", "", "\\!bang.md\n", ""],
    ["", "", "sp\\ ace.md\n", ""],
    ["", "", "a.md.*\n", ""],
    ["", "", ".*\n", ""],
    ["", "", "# comment\n\n*.md\n", "!x.md\n"],
    ["", "", "sub/\n", "!x.md\n"],
    ["", "", "", "*\n!deep/\n"],
    ["/c/t/sub/\n", "", "", ""],
    ["c/t/\n", "", "", ""],
    ["t/\n", "", "", ""],
    ["", "t\n", "", ""],
    ["", "", "a.md   \n", ""],
    ["", "", "[ab].md\n", ""],
    ["", "", "?.md\n", ""],
    ["", "", "**/*.md\n!sub/**\n", ""],
    ["*.md\n", "", "!*.md\n", "*.md\n"],
];

fn git_kept(dir: &std::path::Path) -> Vec<String> {
    let run = |args: &[&str]| {
        let out = Command::new("git")
            .args(args)
            .current_dir(dir)
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .output()
            .expect("git runs");
        assert!(out.status.success(), "git {args:?}: {:?}", out);
        String::from_utf8(out.stdout).expect("utf-8")
    };
    run(&["init", "-q"]);
    let listed = run(&[
        "-c",
        "core.quotePath=false",
        "ls-files",
        "--others",
        "--exclude-per-directory=.gitignore",
        "-z",
        "--",
        "c/t",
    ]);
    let mut kept: Vec<String> = listed
        .split('\0')
        .filter(|s| !s.is_empty())
        .map(|s| s.strip_prefix("c/t/").expect("under c/t").to_owned())
        .collect();
    kept.sort();
    kept
}

#[test]
fn conformance_walk_agrees_with_git() {
    for (n, case) in CASES.iter().enumerate() {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = Root::open(dir.path()).expect("open");
        for f in FILES {
            root.write_file(f, b"x").expect("write");
        }
        for (file, text) in [
            ".gitignore",
            "c/.gitignore",
            "c/t/.gitignore",
            "c/t/sub/.gitignore",
        ]
        .iter()
        .zip(case)
        {
            if !text.is_empty() {
                root.write_file(file, text.as_bytes()).expect("write");
            }
        }
        let ours = asv_model::ignore::unignored_files(&root, "c/t")
            .expect("walk")
            .unwrap_or_default();
        let git = git_kept(dir.path());
        assert_eq!(ours, git, "case {n}: {case:?}");
    }
}
