//! Integration tests of asv-fs: tree changes planned and applied, faults injected at every call, link fills.
//!
//! One test binary for the crate, a module per area: linked once, not once per file.
#![allow(clippy::disallowed_methods, clippy::unwrap_used)]

mod apply_faults;
mod common;
mod link_fill;
mod open;
mod plan;
