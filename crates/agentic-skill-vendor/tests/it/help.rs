//! The command line's own texts: `--help` of the top command and of `skill`, the usage refusal
//! pointing at `--help`, and the refusal of a `--root` that is no directory. Snapshots, so a
//! changed line shows as a reviewed diff.

use crate::common::{Repo, assert_run_snapshot, run_bin};

fn run(args: &[&str]) -> crate::common::Run {
    run_bin(
        &args.iter().map(|s| s.to_string()).collect::<Vec<_>>(),
        None,
    )
}

#[test]
fn top_level_help() {
    assert_run_snapshot!("top_level_help", run(&["--help"]));
}

#[test]
fn top_level_short_help() {
    assert_run_snapshot!("top_level_short_help", run(&["-h"]));
}

#[test]
fn skill_help() {
    assert_run_snapshot!("skill_help", run(&["skill", "--help"]));
}

#[test]
fn no_command_is_a_usage_refusal() {
    assert_run_snapshot!("no_command", run(&[]));
}

#[test]
fn a_root_that_is_not_a_directory_is_refused() {
    let repo = Repo::empty();
    let missing = repo.join("no-such-dir").display().to_string();
    assert_run_snapshot!("missing_root", run(&["verify", "--root", &missing]), repo);
}

#[test]
fn gen_help() {
    assert_run_snapshot!("gen_help", run(&["gen", "--help"]));
}

#[test]
fn self_test_help() {
    assert_run_snapshot!("self_test_help", run(&["self-test", "-h"]));
}

/// Each command's help lists the options given anywhere on the line only where the command
/// uses them, while every command still accepts all of them as before.
#[test]
fn each_command_lists_only_the_options_it_uses() {
    const ALL: [&str; 6] = [
        "--root",
        "--format",
        "--quiet",
        "--verbose",
        "--token-stdin",
        "--color",
    ];
    // The network commands that print no run over many skills.
    const NETWORK: [&str; 5] = ["--root", "--format", "--quiet", "--token-stdin", "--color"];
    let repo = Repo::demo();
    let root = repo.path().display().to_string();
    // (command, the shared options its help lists)
    let rows: [(&[&str], &[&str]); 21] = [
        (&["gen"], &["--root", "--format", "--quiet", "--color"]),
        (&["verify"], &["--root", "--format", "--quiet", "--color"]),
        (&["lint-selfcontain"], &["--root", "--format", "--color"]),
        (&["self-test"], &["--format", "--color"]),
        (&["add"], &NETWORK),
        (&["update"], &NETWORK),
        (&["fetch"], &NETWORK),
        (&["init"], &["--root", "--format", "--color"]),
        (&["completions"], &["--color"]),
        (&["man"], &["--color"]),
        (&["skill"], &ALL),
        (
            &["skill", "validate"],
            &["--root", "--format", "--quiet", "--color"],
        ),
        (&["skill", "hash"], &["--format", "--color"]),
        (&["skill", "add"], &ALL),
        (&["skill", "status"], &["--root", "--format", "--color"]),
        (&["skill", "pull"], &ALL),
        (&["skill", "resolve"], &["--root", "--format", "--color"]),
        (&["skill", "diff"], &NETWORK),
        // Their warnings (and a pack's progress) are said on stderr, which -q silences.
        (
            &["skill", "pack"],
            &["--root", "--format", "--quiet", "--color"],
        ),
        (
            &["skill", "install"],
            &["--root", "--format", "--quiet", "--verbose", "--color"],
        ),
        (&[], &ALL),
    ];
    for (command, listed) in rows {
        for flag in ["--help", "-h"] {
            let help = run(&[command, &[flag]].concat());
            assert_eq!(help.code, 0, "{command:?}: {help:?}");
            let shown: Vec<&str> = ALL
                .into_iter()
                .filter(|option| {
                    help.stdout
                        .lines()
                        .any(|l| l.trim_start().split([' ', ',']).any(|w| w == *option))
                })
                .collect();
            assert_eq!(shown, listed, "{command:?} {flag}");
        }
    }
    // What is not listed is still accepted where it always was.
    for argv in [
        &["self-test", "--root", &root, "--quiet"][..],
        &["--root", &root, "self-test"],
        &["init", "--format", "json", "--root", &root, "-q"],
        &[
            "skill",
            "hash",
            "--root",
            &root,
            "--format",
            "github",
            "skills/release-notes",
        ],
        &["man", "--quiet", "--format", "json"],
    ] {
        let accepted = crate::common::run_bin_in(
            &argv.iter().map(|s| s.to_string()).collect::<Vec<_>>(),
            None,
            Some(repo.path()),
        );
        assert_eq!(accepted.code, 0, "{argv:?}: {accepted:?}");
    }
}
