//! Files read in chunks through the guarded root: each file's length and SHA-256 (a
//! [`Blob`]) and the framed digests it is part of, computed in one read without holding the
//! file. A raw-byte contract may distribute files of any size, so nothing here keeps a
//! canonical or placed file's bytes (issue 15 §3).

use asv_fs::{Root, join};
use sha2::Digest as _;

use crate::digest::{Digest, FramedStream, cmp_utf16};
use crate::error::Result;

/// A file's bytes as the raw model knows them: their length, their SHA-256, and where to read
/// them again. Two blobs are equal when their length and SHA-256 are, wherever they are.
#[derive(Debug, Clone)]
pub struct Blob {
    /// How many bytes.
    pub len: u64,
    /// The SHA-256 of the bytes.
    pub sha256: Digest,
    /// Where the bytes are.
    pub at: BlobAt,
}

/// Where a [`Blob`]'s bytes are.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BlobAt {
    /// In the file at this path of the tree (relative to the root).
    Tree(String),
    /// Here: a small text the tool makes itself (a directory dest's marker).
    Bytes(Vec<u8>),
}

impl Blob {
    /// The blob of `bytes`, held here.
    ///
    /// # Example
    /// ```
    /// use asv_contracts::raw::Blob;
    /// assert_eq!(Blob::of(b"echo hi\n"), Blob::of(b"echo hi\n"));
    /// assert_ne!(Blob::of(b"echo hi\n"), Blob::of(b"echo ho\n"));
    /// ```
    pub fn of(bytes: &[u8]) -> Blob {
        Blob {
            len: bytes.len() as u64,
            sha256: Digest::of(bytes),
            at: BlobAt::Bytes(bytes.to_vec()),
        }
    }
}

impl PartialEq for Blob {
    fn eq(&self, other: &Blob) -> bool {
        self.len == other.len && self.sha256 == other.sha256
    }
}

impl Eq for Blob {}

/// Reads the tree's file `rel` once, in chunks, and returns its [`Blob`]; each `(stream,
/// name)` of `feeds` gets the file as its next file, named `name`. `None` when nothing stands
/// at `rel`.
///
/// # Errors
/// A guarded-read refusal; [`asv_fs::Error::ChangedWhileRead`] for a file whose length
/// changes while it is read.
pub(crate) fn read_blob(
    root: &Root,
    rel: &str,
    feeds: &mut [(&mut FramedStream, &str)],
) -> Result<Option<Blob>> {
    let Some(reader) = root.open_reader(rel)? else {
        return Ok(None);
    };
    let len = reader.len();
    for (stream, name) in feeds.iter_mut() {
        stream.begin(name, len);
    }
    let mut hasher = sha2::Sha256::new();
    reader.for_each_chunk(&mut |chunk| {
        hasher.update(chunk);
        for (stream, _) in feeds.iter_mut() {
            stream.update(chunk);
        }
    })?;
    Ok(Some(Blob {
        len,
        sha256: Digest::from_hasher(hasher),
        at: BlobAt::Tree(rel.to_owned()),
    }))
}

/// The framed digest of `files` (paths below `dir`, `/` separators), each read through `root`
/// in chunks; `None` when there is none. Which files count is the caller's rule.
pub(crate) fn framed_digest(
    root: &Root,
    dir: &str,
    mut files: Vec<String>,
) -> Result<Option<Digest>> {
    files.sort_by(|a, b| cmp_utf16(a, b));
    let mut framed = FramedStream::default();
    for rel in files {
        let full = join(dir, &rel);
        if read_blob(root, &full, &mut [(&mut framed, &rel)])?.is_none() {
            // Gone since the walk listed it: counted as empty, as it always was.
            framed.begin(&rel, 0);
        }
    }
    Ok(framed.finish())
}
