//! The bodies of the `zip_reader` and `tar_reader` fuzz targets (`fuzz/` at the repository
//! root), kept here so the cargo-fuzz targets and the stable replay of their committed corpora
//! run the same code. Not part of the crate's interface.

use crate::{Archive, ArchiveFormat, ArchiveInput, Limits, ReadOptions};

/// Small bounds, so a run spends its time on structure rather than on inflating.
const LIMITS: Limits = Limits {
    max_entries: 1_000,
    max_expanded: 16 * 1024 * 1024,
    max_archive: 1024 * 1024,
};

/// Arbitrary bytes as a ZIP: see [`archive`].
pub fn zip_reader(data: &[u8]) {
    archive(data, ArchiveFormat::Zip);
}

/// Arbitrary bytes as a tar.gz: see [`archive`].
pub fn tar_reader(data: &[u8]) {
    archive(data, ArchiveFormat::TarGz);
}

/// Opens `data` as `format`, judges the entry list and reads every entry; a refusal is fine,
/// a panic is a bug. An accepted archive is re-zipped, and that ZIP (our own writer's output)
/// must open, pass the same judgement and read back whole: the writer and the reader agree.
/// One input in eight is also read from a temporary file, and must get the same answer there.
///
/// # Panics
/// When the re-zipped archive does not read back, or a file and its bytes are read apart.
pub fn archive(data: &[u8], format: ArchiveFormat) {
    let options = ReadOptions {
        format,
        limits: LIMITS,
    };
    if data.len().is_multiple_of(8) {
        same_from_a_file(data, &options);
    }
    let Ok(archive) = Archive::open(ArchiveInput::bytes(data.to_vec(), "fuzz"), &options) else {
        return;
    };
    let judged = archive.judge();
    for entry in archive.entries() {
        let _ = archive.read(entry);
    }
    if judged.is_err() {
        return;
    }
    let Ok(zip) = archive.to_zip(&|_| false) else {
        return;
    };
    let options = ReadOptions {
        format: ArchiveFormat::Zip,
        limits: Limits::DEFAULT,
    };
    let again = match Archive::open(ArchiveInput::bytes(zip, "rezipped"), &options) {
        Ok(again) => again,
        Err(e) => panic!("our own ZIP of an accepted archive does not open: {e}"),
    };
    if let Err(e) = again.judge() {
        panic!("our own ZIP of an accepted archive is refused: {e}");
    }
    for entry in again.entries() {
        if let Err(e) = again.read(entry) {
            panic!("an entry of our own ZIP does not read: {e}");
        }
    }
}

/// What opening, judging and reading every entry of an archive gives, as text.
fn outcome(input: ArchiveInput, options: &ReadOptions) -> String {
    let opened = Archive::open(input, options);
    let Ok(archive) = opened else {
        return format!("{opened:?}");
    };
    let read: Vec<String> = archive
        .entries()
        .iter()
        .map(|e| format!("{:?}", archive.read(e)))
        .collect();
    format!("{:?} {:?} {read:?}", archive.entries(), archive.judge())
}

/// `data` read from a temporary file gets the answer its bytes get.
fn same_from_a_file(data: &[u8], options: &ReadOptions) {
    use std::io::Write;
    // A fuzz run has no use for a file it cannot write; the bytes are still read.
    let Ok(mut file) = tempfile::NamedTempFile::new() else {
        return;
    };
    if file.write_all(data).is_err() {
        return;
    }
    let path = file.path().to_owned();
    let from_file =
        outcome(ArchiveInput::file(&path), options).replace(&path.display().to_string(), "fuzz");
    let from_bytes = outcome(ArchiveInput::bytes(data.to_vec(), "fuzz"), options);
    assert_eq!(from_file, from_bytes, "a file and its bytes are read apart");
}

#[cfg(test)]
mod tests {
    /// Every committed corpus file of the `zip_reader` and `tar_reader` targets, replayed: none may panic (fuzz/README.md).
    #[test]
    fn fuzz_corpora_replay_without_panic() {
        asv_fs::corpus::replay_fuzz_corpus("zip_reader", &super::zip_reader);
        asv_fs::corpus::replay_fuzz_corpus("tar_reader", &super::tar_reader);
    }
}
