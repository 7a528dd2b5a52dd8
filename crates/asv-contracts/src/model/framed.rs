//! The framed digest of a set of files read through the guarded root, shared by the cache's
//! conformance trees and the repository's.

use asv_fs::{Root, join};

use crate::digest::{Digest, Framed};
use crate::error::Result;

/// The framed digest of `files` (paths below `dir`, `/` separators), each read through `root`;
/// `None` when there is none. Which files count is the caller's rule.
pub(crate) fn framed_digest(root: &Root, dir: &str, files: Vec<String>) -> Result<Option<Digest>> {
    let mut framed = Framed::default();
    for rel in files {
        let bytes = root.read_file(&join(dir, &rel))?.unwrap_or_default();
        framed.add(rel, bytes);
    }
    Ok(framed.finish())
}
