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
/// When the lock's direct rendering is not its JSON value's rendering, or an accepted lock,
/// written out as `gen` writes it, does not read back as the same lock
/// (less the skills with no ids, which the text leaves out) or does not write the same text
/// again: a lock the tool wrote must never be one it refuses or reads differently.
pub fn contract_lock(data: &[u8]) {
    let Ok(mut lock) = Lock::parse(data) else {
        return;
    };
    let text = lock.render();
    // The direct rendering is the JSON value's rendering, and the comparing sink agrees.
    assert_eq!(
        text,
        crate::json::render(&lock.to_value()),
        "the direct rendering differs from the value's"
    );
    let mut compare = crate::json::Compare::new(text.as_bytes());
    lock.view(&lock.dependencies_list()).write(&mut compare);
    assert!(
        compare.matched(),
        "the comparing sink refuses the lock's own text"
    );
    let again = match Lock::parse(text.as_bytes()) {
        Ok(again) => again,
        Err(e) => panic!("the written lock is refused: {e}\n{text}"),
    };
    assert_eq!(again.render(), text, "the written lock writes differently");
    // A skill with no ids, or with no placements, is left out of the written lock: it says
    // nothing that the skill's absence does not.
    lock.dependencies.retain(|_, ids| !ids.is_empty());
    lock.placements.retain(|_, dests| !dests.is_empty());
    assert_eq!(again, lock, "the written lock reads back differently");
}

#[cfg(test)]
mod tests {
    /// Every committed corpus file of the `manifest` and `contract_lock` targets, replayed: none may panic (fuzz/README.md).
    #[test]
    fn fuzz_corpora_replay_without_panic() {
        asv_fs::corpus::replay_fuzz_corpus("manifest", &super::manifest);
        asv_fs::corpus::replay_fuzz_corpus("contract_lock", &super::contract_lock);
    }
}
