//! Arbitrary bytes as three texts (base, local, remote, split at 0xff bytes) merged three ways;
//! merges with nothing to reconcile must give the obvious answer (`asv_skilltree::fuzz`).
//! Run with `cargo +nightly fuzz run merge` from the repository root.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| asv_skilltree::fuzz::merge(data));
