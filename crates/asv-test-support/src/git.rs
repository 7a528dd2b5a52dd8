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

/// Puts a `git` in `dir` that runs the shell script `script` makes of the installed git's path
/// (a wrapper that logs what it is asked, then `exec`s the real one), and gives the `PATH`
/// that finds it first.
pub fn wrapped_git(dir: &Path, script: impl FnOnce(&str) -> String) -> String {
    let real = Command::new("sh")
        .args(["-c", "command -v git"])
        .output()
        .expect("sh runs");
    let real = String::from_utf8(real.stdout).expect("utf-8");
    let wrapper = dir.join("git");
    std::fs::write(&wrapper, script(real.trim())).expect("the wrapper is written");
    #[cfg(unix)]
    std::fs::set_permissions(
        &wrapper,
        std::os::unix::fs::PermissionsExt::from_mode(0o755),
    )
    .expect("the wrapper is made executable");
    format!(
        "{}:{}",
        dir.display(),
        std::env::var("PATH").unwrap_or_default()
    )
}
