//! The skill content model: what a skill directory holds, read without following links, and
//! its tree hash.
//!
//! A skill is a set of regular files, each with its bytes and its owner-execute bit; nothing
//! else (no directories, no links, no other kinds). Reading skips only `.git`, `.DS_Store` and
//! `Thumbs.db` and refuses every other kind of entry by name, so what is hashed is exactly what
//! would be copied. The tree hash frames each file as three length-prefixed chunks (path,
//! executable flag, data), so no two different trees hash alike by shifting bytes between
//! fields.
//!
//! ```
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let dir = tempfile::tempdir()?;
//! let fs = asv_fs::Tree::open(dir.path())?;
//! fs.write_file("skills/a/ab", b"c")?;
//! let tree = asv_skilltree::SkillTree::read(&fs, "skills/a")?;
//! assert_eq!(
//!     tree.hash(),
//!     "sha256:e62a88afc01888d3def7147fa03bdf1c89322e88b5441c1e5794b68089efc83b"
//! );
//! # Ok(())
//! # }
//! ```
#![deny(missing_docs)]

pub mod merge;

use std::io::Read;
use std::os::unix::fs::PermissionsExt;

use asv_fs::{EntryKind, Tree, join};
use sha2::{Digest, Sha256};

/// Names skipped wherever they appear.
pub const SKIPPED_NAMES: &[&str] = &[".git", ".DS_Store", "Thumbs.db"];

/// The one error type of `asv-skilltree`.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Guarded tree access refused or failed.
    #[error(transparent)]
    Fs(#[from] asv_fs::Error),
    /// An entry of a kind a skill cannot hold (input side).
    #[error(
        "{}: a skill holds only regular files and directories, found {kind}; remove it",
        asv_fs::quote::DisplayPath(path)
    )]
    Unsupported {
        /// The entry.
        path: String,
        /// What it is ("a symbolic link", "a named pipe", …).
        kind: EntryKind,
    },
}

/// One file of a skill.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileNode {
    /// Path relative to the skill directory, `/`-separated.
    pub path: String,
    /// The exact bytes.
    pub data: Vec<u8>,
    /// Whether the owner-execute bit is set.
    pub executable: bool,
}

/// A skill's files, sorted bytewise by path.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SkillTree {
    files: Vec<FileNode>,
}

impl SkillTree {
    /// Builds a tree from files in any order (sorted here).
    pub fn from_files(mut files: Vec<FileNode>) -> Self {
        files.sort_by(|a, b| a.path.as_bytes().cmp(b.path.as_bytes()));
        SkillTree { files }
    }

    /// Reads the directory `dir` of `fs`; a missing directory is an empty tree.
    ///
    /// # Errors
    /// [`Error::Unsupported`] for a link, FIFO, socket or device anywhere below `dir`; a
    /// guarded-read refusal.
    pub fn read(fs: &Tree, dir: &str) -> Result<Self, Error> {
        let mut files = Vec::new();
        read_into(fs, dir, "", &mut files)?;
        Ok(Self::from_files(files))
    }

    /// The files, sorted by path.
    pub fn files(&self) -> &[FileNode] {
        &self.files
    }

    /// The tree hash: SHA-256 over, per file, the path, one byte `1`/`0` for executable, and
    /// the data, each prefixed by its length as a big-endian u64; printed `sha256:<hex>`.
    pub fn hash(&self) -> String {
        let mut h = Sha256::new();
        for f in &self.files {
            for chunk in [
                f.path.as_bytes(),
                &[u8::from(f.executable)][..],
                f.data.as_slice(),
            ] {
                h.update((chunk.len() as u64).to_be_bytes());
                h.update(chunk);
            }
        }
        let digest = h.finalize();
        let mut out = String::from("sha256:");
        for b in digest {
            out.push_str(&format!("{b:02x}"));
        }
        out
    }
}

fn read_into(fs: &Tree, top: &str, sub: &str, files: &mut Vec<FileNode>) -> Result<(), Error> {
    let here = join(top, sub);
    let Some(entries) = fs.read_dir(&here)? else {
        return Ok(());
    };
    for entry in entries {
        if SKIPPED_NAMES.contains(&entry.name.as_str()) {
            continue;
        }
        let rel = join(sub, &entry.name);
        let full = join(top, &rel);
        match entry.kind {
            EntryKind::Directory => read_into(fs, top, &rel, files)?,
            EntryKind::File => {
                let Some(mut file) = fs.open_file(&full)? else {
                    continue;
                };
                let executable = file
                    .metadata()
                    .map(|m| m.permissions().mode() & 0o100 != 0)
                    .unwrap_or(false);
                let mut data = Vec::new();
                file.read_to_end(&mut data).map_err(|e| asv_fs::Error::Io {
                    path: full.clone(),
                    op: "read",
                    source: e,
                })?;
                files.push(FileNode {
                    path: rel,
                    data,
                    executable,
                });
            }
            kind => return Err(Error::Unsupported { path: full, kind }),
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spec_tree_vectors() {
        let all: serde_json::Value =
            serde_json::from_str(include_str!("../../asv-contracts/tests/vectors.json"))
                .expect("vectors");
        for t in all["trees"].as_array().expect("trees") {
            let files = t["files"]
                .as_object()
                .expect("files")
                .iter()
                .map(|(path, f)| FileNode {
                    path: path.clone(),
                    data: f["data"].as_str().expect("data").as_bytes().to_vec(),
                    executable: f["executable"].as_bool().expect("exec"),
                })
                .collect();
            assert_eq!(
                SkillTree::from_files(files).hash(),
                t["hash"].as_str().expect("hash"),
                "{}",
                t["name"]
            );
        }
    }

    #[test]
    fn reads_exec_bits_skips_metadata_and_refuses_links() {
        let dir = tempfile::tempdir().unwrap();
        let fs = Tree::open(dir.path()).unwrap();
        fs.write_file("s/run.sh", b"#!/bin/sh\n").unwrap();
        fs.write_file("s/.DS_Store", b"junk").unwrap();
        fs.write_file("s/.git/HEAD", b"ref").unwrap();
        std::fs::set_permissions(
            dir.path().join("s/run.sh"),
            std::fs::Permissions::from_mode(0o755),
        )
        .unwrap();
        let tree = SkillTree::read(&fs, "s").unwrap();
        assert_eq!(tree.files().len(), 1);
        assert!(tree.files()[0].executable);
        assert_eq!(
            tree.hash(),
            "sha256:7c6c667390678e9d67e1b08a9d3e53818cd9bfec97589bee2b8e45dc624c2b16"
        );
        std::os::unix::fs::symlink("run.sh", dir.path().join("s/link")).unwrap();
        assert!(matches!(
            SkillTree::read(&fs, "s"),
            Err(Error::Unsupported {
                kind: EntryKind::Symlink,
                ..
            })
        ));
        assert_eq!(
            SkillTree::read(&fs, "missing").unwrap(),
            SkillTree::default()
        );
    }
}
