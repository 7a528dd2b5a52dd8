//! Arbitrary bytes read as an allowed-signers file, a raw commit and tag, and a detached
//! signature (`asv_sign::fuzz::signatures`): no panic, and nothing verifies when no key is
//! allowed. Run with `cargo +nightly fuzz run signatures` from the repository root.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| asv_sign::fuzz::signatures(data));
