//! Integration tests of asv-contracts: .gitignore rules against git, a gen interrupted at every write.
//!
//! One test binary for the crate, a module per area: linked once, not once per file.
#![allow(clippy::disallowed_methods)]

mod distribution_ignore_vs_git;
mod gitignore_vs_git;
mod interrupted;
