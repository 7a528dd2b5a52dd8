//! git, run for fixtures: one invocation every test shares.

use std::path::Path;
use std::process::{Command, Stdio};

/// Fixed author, committer and dates: the same fixture gives the same commit ids every run.
pub const IDENTITY: &[(&str, &str)] = &[
    ("GIT_AUTHOR_NAME", "Fixture"),
    ("GIT_AUTHOR_EMAIL", "fixture@example.com"),
    ("GIT_AUTHOR_DATE", "2024-01-01T00:00:00Z"),
    ("GIT_COMMITTER_NAME", "Fixture"),
    ("GIT_COMMITTER_EMAIL", "fixture@example.com"),
    ("GIT_COMMITTER_DATE", "2024-01-01T00:00:00Z"),
];

/// Runs the installed git in `dir` with no user or system configuration, the fixed
/// [`IDENTITY`], no signing, `main` as the first branch and no stdin; its stdout with the
/// trailing line end taken off. Panics, with git's stderr, when git fails.
pub fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .args(["-c", "commit.gpgsign=false", "-c", "tag.gpgsign=false"])
        .args(["-c", "init.defaultBranch=main"])
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .envs(IDENTITY.iter().copied())
        .stdin(Stdio::null())
        .output()
        .expect("git runs");
    assert!(
        out.status.success(),
        "git {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .expect("utf-8")
        .trim_end()
        .to_owned()
}
