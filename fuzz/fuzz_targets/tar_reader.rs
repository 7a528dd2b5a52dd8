//! Arbitrary bytes as a tar.gz archive: opened, judged, every entry read, an accepted one
//! re-zipped and read back (`asv_archive::fuzz`).
//! Run with `cargo +nightly fuzz run tar_reader` from the repository root.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| asv_archive::fuzz::tar_reader(data));
