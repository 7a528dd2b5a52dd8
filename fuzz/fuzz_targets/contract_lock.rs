//! Arbitrary bytes as `vendor-lock.json`; an accepted lock must read back as itself once written
//! (`asv_contracts::fuzz`).
//! Run with `cargo +nightly fuzz run contract_lock` from the repository root.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| asv_contracts::fuzz::contract_lock(data));
