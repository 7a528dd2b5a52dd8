//! Integration tests of asv-remote against real servers on 127.0.0.1: the GitHub transport
//! against an HTTP server playing the API and raw-content hosts, the generic git transport
//! against `git http-backend` behind TLS. One test binary, a module per transport.
//!
//! The hooks these tests use (`GitHub::with_endpoints`, `Git::with_env`, `Git::with_limits`)
//! exist only with the `test-hooks` feature, which this crate's dev-dependency on itself
//! enables, so a build that leaves the feature out fails to compile these tests instead of
//! skipping them.

mod git;
mod git_batch;
mod github;
// The local GitHub and git servers, shared with the binary's tests.
use asv_test_support::github as support;
