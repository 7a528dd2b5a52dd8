//! Arbitrary bytes as `vendor-manifest.yaml` (`asv_contracts::fuzz`).
//! Run with `cargo +nightly fuzz run manifest` from the repository root.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| asv_contracts::fuzz::manifest(data));
