//! Replaying the committed fuzz corpora as ordinary tests (built only with the `test-hooks`
//! feature). Each crate owning a parser keeps the body its fuzz target runs; this reads the
//! target's corpus, which only this crate may, and feeds it every file.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::Path;

/// Feeds every file of `fuzz/corpus/<target>` (from the repository root) to `body`, in name
/// order, and panics naming the first file `body` panics on, or when the corpus is missing or
/// empty (so a replay can never pass by reading nothing).
#[allow(clippy::panic)]
pub fn replay_fuzz_corpus(target: &str, body: &dyn Fn(&[u8])) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fuzz/corpus")
        .join(target);
    let mut files: Vec<_> = match std::fs::read_dir(&dir) {
        Ok(entries) => entries.filter_map(|e| e.ok()).map(|e| e.path()).collect(),
        Err(e) => panic!("{}: {e}", dir.display()),
    };
    files.sort();
    assert!(!files.is_empty(), "{} holds no corpus", dir.display());
    for file in files {
        let data = match std::fs::read(&file) {
            Ok(data) => data,
            Err(e) => panic!("{}: {e}", file.display()),
        };
        let outcome = catch_unwind(AssertUnwindSafe(|| body(&data)));
        assert!(outcome.is_ok(), "{} panics", file.display());
    }
}
