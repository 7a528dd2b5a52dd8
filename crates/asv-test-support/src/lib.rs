//! What the integration tests of the workspace share, in one place (issue 28 §5): a test that
//! needs a repository, a run of the binary, git, a local GitHub or git server, or a snapshot
//! of a run takes it from here rather than keeping a copy of its own.
//!
//! - [`repo`]: temporary repositories ([`repo::Repo`]), runs of the real binary
//!   ([`repo::Run`], [`repo::bin`]), tree snapshots, skill manifests;
//! - [`snapshot`]: a run as one snapshot text and the filter for temporary paths, with
//!   [`assert_run_snapshot!`];
//! - [`git`]: the one way tests run git;
//! - [`github`]: a real HTTP server on 127.0.0.1 playing GitHub's API and raw host;
//! - [`git_server`]: `git http-backend` behind TLS with a test CA, and a server that never
//!   answers.
//!
//! Not published: it exists for the tests only.
// Fixtures are built in the tests' own temporary directories, never in a user's tree; and a
// test that panics on a failed step is the point.
#![allow(clippy::disallowed_methods, clippy::unwrap_used, missing_docs)]

pub mod git;
pub mod git_server;
pub mod github;
pub mod repo;
pub mod snapshot;

/// insta, for [`assert_run_snapshot!`] to name from the crates that expand it.
pub use insta;
