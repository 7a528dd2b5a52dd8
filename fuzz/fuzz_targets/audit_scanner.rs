//! Arbitrary bytes audited as a `SKILL.md`, a script and a Markdown file
//! (`asv_audit::fuzz::audit`): no panic, findings sorted, positions inside the text.
//! Run with `cargo +nightly fuzz run audit_scanner` from the repository root.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| asv_audit::fuzz::audit(data));
