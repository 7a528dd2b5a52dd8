//! Integration tests of the agentic-skill-vendor binary: every command run for real on trees
//! copied from `tests/fixtures/` (or `examples/demo`), and the differential test against
//! `tests/model/differential.py`.
//!
//! One test binary for the crate, a module per area: linked once, not once per file.
#![allow(clippy::disallowed_methods)]

mod harness;
mod json_schema;
// What every crate's tests share lives in asv-test-support; these names keep its parts where
// the modules here look for them.
mod common {
    pub use asv_test_support::assert_run_snapshot;
    pub use asv_test_support::git::git;
    pub use asv_test_support::repo::*;
}
use asv_test_support::git_server;
use asv_test_support::github as support;

mod cli_surface;
mod crash;
mod differential;
mod edit_during_run;
// `gen` is a reserved keyword in Rust 2024.
mod gen_command;
mod help;
mod hostile_journal;
mod hostile_state;
mod limits;
mod lint_selfcontain;
mod local_sources;
mod messages;
mod output;
mod raw;
mod raw_refusals;
mod real_shapes;
mod refusals;
mod remote;
mod remote_offline;
mod self_test;
mod skill;
mod skill_add_all;
mod skill_audit;
mod skill_bases;
mod skill_capabilities;
mod skill_discover;
mod skill_files_on_disk;
mod skill_gates;
mod skill_install_user;
mod skill_lifecycle;
mod skill_lifecycle_git;
mod skill_lifecycle_github;
mod skill_manage;
mod skill_package;
mod skill_pull;
mod skill_refs;
mod skill_sign;
mod skill_signed;
mod skill_sync;
mod skill_sync_stamps;
mod skill_sync_user;
mod skill_targets;
mod terminal;
mod typed_paths;
mod verify;
mod writer_lock;
