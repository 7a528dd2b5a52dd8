//! The bodies of the `manifest` and `contract_lock` fuzz targets (`fuzz/` at the repository
//! root), kept here so the cargo-fuzz targets and the stable replay of their committed corpora
//! run the same code. Not part of the crate's interface.

use crate::lock::Lock;
use crate::manifest::Manifest;

/// Arbitrary bytes as `vendor-manifest.yaml`, read as `gen` and `verify` read it. A refusal
/// is fine, a panic is a bug.
pub fn manifest(data: &[u8]) {
    let _ = Manifest::from_bytes(data);
}

/// Arbitrary bytes as `vendor-lock.json`.
///
/// # Panics
/// When an accepted lock, written out as `gen` writes it, does not read back as the same lock
/// (less the skills with no ids, which the text leaves out) or does not write the same text
/// again: a lock the tool wrote must never be one it refuses or reads differently.
pub fn contract_lock(data: &[u8]) {
    let Ok(mut lock) = Lock::parse(data) else {
        return;
    };
    let text = lock.render();
    let again = match Lock::parse(text.as_bytes()) {
        Ok(again) => again,
        Err(e) => panic!("the written lock is refused: {e}\n{text}"),
    };
    assert_eq!(again.render(), text, "the written lock writes differently");
    lock.dependencies.retain(|_, ids| !ids.is_empty());
    assert_eq!(again, lock, "the written lock reads back differently");
}

#[cfg(test)]
mod tests {
    #![allow(clippy::disallowed_methods)]

    /// Every committed corpus file of both targets, replayed: none may panic (fuzz/README.md).
    #[test]
    fn fuzz_corpora_replay_without_panic() {
        for (target, body) in [
            ("manifest", super::manifest as fn(&[u8])),
            ("contract_lock", super::contract_lock),
        ] {
            let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../../fuzz/corpus")
                .join(target);
            let mut files: Vec<_> = std::fs::read_dir(&dir)
                .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
                .map(|e| e.unwrap().path())
                .collect();
            files.sort();
            assert!(!files.is_empty(), "{} holds no corpus", dir.display());
            for file in files {
                let data = std::fs::read(&file).unwrap();
                let outcome = std::panic::catch_unwind(|| body(&data));
                assert!(outcome.is_ok(), "{} panics", file.display());
            }
        }
    }
}
