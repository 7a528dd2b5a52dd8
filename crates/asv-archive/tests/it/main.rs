//! Integration tests of asv-archive: hostile archives, archives read from files, member modes, the
//! writer, archives real tools write.
//!
//! One test binary for the crate, a module per area: linked once, not once per file.
#![allow(clippy::unwrap_used, clippy::vec_init_then_push)]

mod file_input;
mod hostile;
mod modes;
mod real_tools;
mod support;
mod write;
