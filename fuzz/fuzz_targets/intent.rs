//! Arbitrary bytes as `vendor-skills.yaml`; adding and removing a row must leave a file that
//! reads as the edit meant (`asv_skills::fuzz`).
//! Run with `cargo +nightly fuzz run intent` from the repository root.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| asv_skills::fuzz::intent(data));
