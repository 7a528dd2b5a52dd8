//! The body of the `merge` fuzz target (`fuzz/` at the repository root), kept here so the
//! cargo-fuzz target and the stable replay of its committed corpus run the same code. Not part
//! of the crate's interface.

use crate::merge::{TextMerge, merge_text};

/// The byte that splits a fuzz input into base, local and remote: never part of UTF-8 text, so
/// the texts themselves can hold anything a SKILL.md holds.
pub const SEPARATOR: u8 = 0xff;

const LABELS: [&str; 3] = ["local", "base", "remote"];

/// Arbitrary bytes as three texts (base, local, remote, split at the first two
/// [`SEPARATOR`]s; missing ones are empty), merged three ways as `skill pull` merges a file.
///
/// # Panics
/// When a merge with nothing to reconcile does not give the one obvious answer: every text
/// merged with itself is itself, and a change made on one side only (the other side still the
/// base) is taken whole.
pub fn merge(data: &[u8]) {
    let mut parts = data.splitn(3, |&b| b == SEPARATOR);
    let base = parts.next().unwrap_or_default();
    let local = parts.next().unwrap_or_default();
    let remote = parts.next().unwrap_or_default();

    let _ = merge_text(base, local, remote, LABELS);
    for text in [base, local, remote] {
        assert_eq!(
            merge_text(text, text, text, LABELS),
            TextMerge::Clean(text.to_vec()),
            "a text merged with itself is not itself"
        );
    }
    assert_eq!(
        merge_text(base, local, base, LABELS),
        TextMerge::Clean(local.to_vec()),
        "a change made locally only is not taken whole"
    );
    assert_eq!(
        merge_text(base, base, remote, LABELS),
        TextMerge::Clean(remote.to_vec()),
        "a change made upstream only is not taken whole"
    );
}

#[cfg(test)]
mod tests {
    /// Every committed corpus file of the `merge` target, replayed: none may panic (fuzz/README.md).
    #[test]
    fn fuzz_corpus_replays_without_panic() {
        asv_fs::corpus::replay_fuzz_corpus("merge", &super::merge);
    }
}
