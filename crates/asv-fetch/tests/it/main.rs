//! Integration tests of `add`, `fetch` and `update` end to end: against a real HTTP server on
//! 127.0.0.1 playing the GitHub API, and against `git http-backend` behind TLS, then `gen` and
//! `verify` on what they wrote. One test binary; the servers are the workspace's shared test
//! support (asv-test-support).
#![allow(clippy::disallowed_methods)]

mod commands;
mod commands_git;
use asv_test_support::github as support;

/// `gen` as the command runs it: under the tree's writer lock.
fn generate(
    repo: &asv_contracts::Repository<'_>,
) -> Result<asv_contracts::GenOutcome, asv_contracts::Error> {
    let lock = repo
        .root
        .lock_for_writing(std::time::Duration::from_secs(5))
        .map_err(asv_contracts::Error::from)?;
    asv_contracts::generate(repo, &lock)
}
