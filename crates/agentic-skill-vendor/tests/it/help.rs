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
