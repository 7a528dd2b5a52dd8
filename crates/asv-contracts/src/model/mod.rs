//! The repository model: what the offline commands see in a tree — skills and their
//! declarations joined with each contract's canonical side, raw-byte contracts, the cache of
//! fetched sources, and where each raw contract is placed.

pub mod cache;
pub mod placement;
pub mod raw;
pub mod repository;
pub mod snapshot;

use asv_fs::{Root, join};

use crate::digest::{Digest, Framed};
use crate::error::Result;

/// The framed digest of `files` (paths below `dir`, `/` separators), each read through `root`;
/// `None` when there is none. Which files count is the caller's rule.
fn framed_digest(root: &Root, dir: &str, files: Vec<String>) -> Result<Option<Digest>> {
    let mut framed = Framed::default();
    for rel in files {
        let bytes = root.read_file(&join(dir, &rel))?.unwrap_or_default();
        framed.add(rel, bytes);
    }
    Ok(framed.finish())
}
