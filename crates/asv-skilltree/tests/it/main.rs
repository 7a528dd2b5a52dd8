//! Integration tests of asv-skilltree: the text merge against git merge-file.
//!
//! One test binary for the crate, a module per area: linked once, not once per file.
#![allow(clippy::disallowed_methods)]

mod merge_vs_git;
