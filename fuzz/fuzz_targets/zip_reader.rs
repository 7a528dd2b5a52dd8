//! Arbitrary bytes as a ZIP archive: opened, judged, every entry read, an accepted one re-zipped and
//! read back (`asv_archive::fuzz`).
//! Run with `cargo +nightly fuzz run zip_reader` from the repository root.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| asv_archive::fuzz::zip_reader(data));
