//! Arbitrary bytes as `vendor-skills-lock.json`; an accepted lock must read back as itself once
//! written (`asv_skills::fuzz`).
//! Run with `cargo +nightly fuzz run skill_lock` from the repository root.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| asv_skills::fuzz::skill_lock(data));
