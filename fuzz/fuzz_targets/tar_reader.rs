//! Arbitrary bytes as a tar archive: open, judge and read every entry. Any panic is a bug;
//! every refusal is fine. Run with `cargo +nightly fuzz run tar_reader` from the repository root.
#![no_main]

use asv_archive::{Archive, Format, Limits, ReadOptions, Source};
use libfuzzer_sys::fuzz_target;

/// Small bounds, so a run spends its time on structure rather than on inflating.
const LIMITS: Limits = Limits {
    max_entries: 1_000,
    max_expanded: 16 * 1024 * 1024,
    max_archive: 1024 * 1024,
};

fuzz_target!(|data: &[u8]| {
    let options = ReadOptions {
        format: Format::TarGz,
        limits: LIMITS,
    };
    let Ok(archive) = Archive::open(Source::bytes(data.to_vec(), "fuzz"), &options) else {
        return;
    };
    let _ = archive.judge();
    for entry in archive.entries() {
        let _ = archive.read(entry);
    }
    if archive.judge().is_ok() {
        let _ = archive.to_zip(&|_| false);
    }
});
