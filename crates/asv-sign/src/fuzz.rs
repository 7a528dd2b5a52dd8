//! The body of the `signatures` fuzz target (fuzz/), kept here so its corpus replays on stable
//! with this crate's tests.

use crate::{AllowedSigners, Detached, git};

/// Reads `data` as each untrusted thing this crate parses — an allowed-signers file (which
/// comes with the repository), a raw commit and tag (which come from upstream) and a detached
/// signature (which comes with an archive) — checking what must hold for any input: no panic,
/// no signature accepted when no key is allowed, a tag split that loses no byte, a signer's
/// line inside the file.
pub fn signatures(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    if let Ok(allowed) = AllowedSigners::parse(&text) {
        let lines = text.lines().count();
        for signer in &allowed.signers {
            assert!(signer.line >= 1 && signer.line <= lines);
            assert!(signer.fingerprint.starts_with("SHA256:"));
            if let (Some(after), Some(before)) = (signer.valid_after, signer.valid_before) {
                assert!(after <= before);
            }
        }
    }
    let nobody = AllowedSigners::default();
    let (payload, signature) = git::split_commit(data);
    assert!(payload.len() + signature.map_or(0, |s| s.len()) <= data.len());
    assert!(git::verify_commit(data, &nobody).is_err());
    if let Some((payload, signature)) = git::split_tag(data) {
        assert_eq!(payload.len() + signature.len(), data.len());
    }
    assert!(git::verify_tag(data, &nobody).is_err());
    if let Ok(detached) = Detached::parse(data) {
        let hasher = detached.hasher();
        assert!(detached.verify(&nobody, "file", hasher, None).is_err());
    }
}

#[cfg(test)]
mod tests {
    /// Every committed input of the `signatures` target's corpus replays (fuzz/README.md).
    #[test]
    fn the_fuzz_corpus_replays() {
        asv_fs::corpus::replay_fuzz_corpus("signatures", &super::signatures);
    }
}
