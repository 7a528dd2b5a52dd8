//! Integration tests of asv-skills on real temporary directories: the lifecycle (`skill add`,
//! `status`, `pull`, `resolve`, `diff`), where skills come from, and `skill install`. Sources
//! are real directories and real git repositories (the installed `git`); nothing is mocked.
//!
//! One test binary for the crate, a module per area: linked once, not once per file.
#![allow(clippy::disallowed_methods, clippy::unwrap_used)]

mod install;
mod lifecycle;
mod manage;
mod support;
mod upstream;
