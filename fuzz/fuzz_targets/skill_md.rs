//! Arbitrary bytes as a SKILL.md: its frontmatter split and declarations read, then judged by
//! every `skill validate` rule (`asv_model::fuzz`, `asv_skills::fuzz`).
//! Run with `cargo +nightly fuzz run skill_md` from the repository root.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| asv_skills::fuzz::skill_md(data));
