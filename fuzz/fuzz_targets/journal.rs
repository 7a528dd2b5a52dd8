//! Arbitrary bytes as a journal of an interrupted run (`.agentic-skill-vendor/journal-*`): a
//! journal that parses names only paths a recovery may act on (`asv_fs::apply::fuzz_journal`).
//! Run with `cargo +nightly fuzz run journal` from the repository root.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| asv_fs::apply::fuzz_journal(data));
