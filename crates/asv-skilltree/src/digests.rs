//! Digest lists: a tree's hash and each file's path, size, executable bit and SHA-256, kept
//! beside a copy of the tree on disk so that the copy can be used later without reading and
//! hashing it whole (a kept base, which a pull needs mostly to compare files with).

use serde::{Deserialize, Serialize};

use asv_fs::Root;

use crate::{Error, FileData, FileNode, SkillTree, sorted_files};

/// The version a digest list is written with; a list of another version is not used.
pub const DIGESTS_VERSION: u32 = 1;

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct List {
    version: u32,
    hash: String,
    files: Vec<Entry>,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Entry {
    path: String,
    size: u64,
    executable: bool,
    sha256: String,
}

fn hex(digest: [u8; 32]) -> String {
    let mut out = String::with_capacity(64);
    for b in digest {
        out.push_str(&format!("{b:02x}"));
    }
    out
}

fn unhex(text: &str) -> Option<[u8; 32]> {
    let bytes = text.as_bytes();
    if bytes.len() != 64 {
        return None;
    }
    let mut out = [0u8; 32];
    for (i, pair) in bytes.chunks(2).enumerate() {
        let digit = |b: u8| match b {
            b'0'..=b'9' => Some(b - b'0'),
            b'a'..=b'f' => Some(b - b'a' + 10),
            _ => None,
        };
        out[i] = digit(pair[0])? << 4 | digit(pair[1])?;
    }
    Some(out)
}

impl SkillTree {
    /// The tree's digest list, as JSON: `version`, the tree `hash`, and per file (in path
    /// order) its `path`, `size`, `executable` bit and `sha256` in hex. Each file's digest is
    /// worked out if it is not known yet.
    ///
    /// # Example
    /// ```
    /// use asv_skilltree::{FileNode, SkillTree};
    /// let tree = SkillTree::from_files(vec![FileNode {
    ///     path: "a.md".into(),
    ///     data: "x".into(),
    ///     executable: false,
    /// }])?;
    /// let list = String::from_utf8(tree.digest_list()).unwrap();
    /// assert!(list.starts_with(r#"{"version":1,"hash":"sha256:"#));
    /// assert!(list.contains(r#"{"path":"a.md","size":1,"executable":false,"sha256":"2d711642"#));
    /// # Ok::<(), asv_skilltree::Error>(())
    /// ```
    pub fn digest_list(&self) -> Vec<u8> {
        let list = List {
            version: DIGESTS_VERSION,
            hash: self.hash(),
            files: self
                .files
                .iter()
                .map(|f| Entry {
                    path: f.path.clone(),
                    size: f.data.len(),
                    executable: f.executable,
                    sha256: hex(f.data.sha256()),
                })
                .collect(),
        };
        // Strings, numbers and booleans: serializing them cannot fail.
        let mut out = serde_json::to_vec(&list).unwrap_or_default();
        out.push(b'\n');
        out
    }

    /// The tree kept at `dir` of `root`, taken from its digest list `list` (see
    /// [`SkillTree::digest_list`]) instead of being read: `None` unless the list is one this
    /// version writes, names the tree hash `hash`, and agrees with the directory — the same
    /// files (a strict listing, as [`SkillTree::read_strict`] makes), each a regular file of
    /// the listed size and executable bit, as `lstat` says.
    ///
    /// Every file is left on disk with its listed digest, so whatever reads its bytes later
    /// checks them against the list ([`crate::Stored::for_each_chunk`]): a kept copy changed
    /// in place is refused where it is used, never taken for what the list says.
    ///
    /// # Errors
    /// A guarded-read failure other than a refusal of what stands in `dir` (which answers
    /// `None`).
    pub fn read_listed(
        root: &Root,
        dir: &str,
        list: &[u8],
        hash: &str,
    ) -> Result<Option<SkillTree>, Error> {
        let Ok(list) = serde_json::from_slice::<List>(list) else {
            return Ok(None);
        };
        if list.version != DIGESTS_VERSION || list.hash != hash {
            return Ok(None);
        }
        // The list is a state file (a crafted one can travel through a pull request): a path
        // that is not plain, or names a `.git`, makes it no list, before anything is compared
        // or opened. The files opened come from the directory's own listing in any case; this
        // keeps a hostile list from standing for a tree at all (issue 27 §3).
        if list
            .files
            .iter()
            .any(|entry| crate::path::validate_stored_path(&entry.path).is_err())
        {
            return Ok(None);
        }
        let listing = match sorted_files(root, dir, true) {
            Ok(listing) => listing,
            Err(Error::Unsupported { .. } | Error::IgnoredMetadata { .. }) => return Ok(None),
            Err(e) => return Err(e),
        };
        if listing.len() != list.files.len() {
            return Ok(None);
        }
        let mut files = Vec::with_capacity(listing.len());
        // One guarded root for every file left on disk: the directories on the way are
        // checked once.
        let shared = std::sync::Arc::new(Root::open(root.root())?);
        for ((rel, full), entry) in listing.into_iter().zip(list.files) {
            let Some(sha256) = unhex(&entry.sha256) else {
                return Ok(None);
            };
            let fits = root.stamp(&full)?.is_some_and(|stamp| {
                stamp.len() == entry.size && stamp.is_executable() == entry.executable
            });
            if rel != entry.path || !fits {
                return Ok(None);
            }
            let data = if entry.size == 0 {
                FileData::from(Vec::new())
            } else {
                FileData::stored(&shared, full, entry.size, sha256)
            };
            files.push(FileNode {
                path: rel,
                data,
                executable: entry.executable,
            });
        }
        Ok(Some(SkillTree {
            files,
            hash: list.hash.into(),
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A kept tree with text, an executable, an empty file and a nested path.
    fn kept(root: &Root) -> SkillTree {
        root.write_file("k/SKILL.md", b"---\nname: k\n---\n")
            .unwrap();
        root.write_file("k/a/b.md", b"one\ntwo\n").unwrap();
        root.write_file_mode("k/run.sh", b"#!/bin/sh\n", true)
            .unwrap();
        root.write_file("k/empty", b"").unwrap();
        SkillTree::read_strict(root, "k").unwrap()
    }

    #[test]
    fn a_tree_taken_from_its_list_equals_the_tree_read() {
        let dir = tempfile::tempdir().unwrap();
        let root = Root::open(dir.path()).unwrap();
        let read = kept(&root);
        let list = read.digest_list();
        let listed = SkillTree::read_listed(&root, "k", &list, &read.hash())
            .unwrap()
            .expect("the list fits");
        assert_eq!(listed.hash(), read.hash());
        assert_eq!(listed, read);
        // Nothing was read: every non-empty file is left on disk with its listed digest, and
        // reads back as it was.
        for (a, b) in listed.files().iter().zip(read.files()) {
            assert_eq!(a.data.stored_at().is_some(), !a.data.is_empty());
            assert_eq!(a.data.read().unwrap(), b.data.read().unwrap());
        }
        // Rendered again, the list is the same bytes.
        assert_eq!(listed.digest_list(), list);
    }

    #[test]
    fn a_list_that_does_not_fit_its_directory_is_not_used() {
        let dir = tempfile::tempdir().unwrap();
        let root = Root::open(dir.path()).unwrap();
        let read = kept(&root);
        let hash = read.hash();
        let list = read.digest_list();
        let listed = |list: &[u8], hash: &str| {
            SkillTree::read_listed(&root, "k", list, hash)
                .unwrap()
                .is_some()
        };
        assert!(listed(&list, &hash));
        let text = String::from_utf8(list.clone()).unwrap();
        assert!(!listed(&list, "sha256:0000"));
        assert!(!listed(
            text.replace(r#""version":1"#, r#""version":2"#).as_bytes(),
            &hash
        ));
        assert!(!listed(b"not json", &hash));
        assert!(!listed(
            text.replace(r#""size":8"#, r#""size":9"#).as_bytes(),
            &hash
        ));
        let digest = hex(read.get("a/b.md").unwrap().data.sha256());
        assert!(!listed(text.replace(&digest, "zz").as_bytes(), &hash));
        // The directory moves away from the list.
        root.write_file("k/a/b.md", b"one\n").unwrap();
        assert!(!listed(&list, &hash));
        root.write_file("k/a/b.md", b"one\ntwo\n").unwrap();
        assert!(listed(&list, &hash));
        root.write_file_mode("k/a/b.md", b"one\ntwo\n", true)
            .unwrap();
        assert!(!listed(&list, &hash));
        root.write_file_mode("k/a/b.md", b"one\ntwo\n", false)
            .unwrap();
        root.write_file("k/extra", b"x").unwrap();
        assert!(!listed(&list, &hash));
        root.remove_file("k/extra").unwrap();
        root.write_file("k/.DS_Store", b"x").unwrap();
        assert!(!listed(&list, &hash));
        root.remove_file("k/.DS_Store").unwrap();
        root.remove_file("k/empty").unwrap();
        assert!(!listed(&list, &hash));
    }

    #[test]
    fn a_list_naming_a_path_outside_the_base_is_not_used() {
        let dir = tempfile::tempdir().unwrap();
        let root = Root::open(dir.path()).unwrap();
        let read = kept(&root);
        let hash = read.hash();
        let text = String::from_utf8(read.digest_list()).unwrap();
        for hostile in [
            "../x",
            "/etc/passwd",
            "",
            "a//b.md",
            ".git/config",
            ".GIT/x",
            "a\\\\b",
        ] {
            let crafted = text.replace(r#""path":"a/b.md""#, &format!(r#""path":"{hostile}""#));
            assert_ne!(crafted, text);
            let listed = SkillTree::read_listed(&root, "k", crafted.as_bytes(), &hash).unwrap();
            assert!(listed.is_none(), "{hostile:?}");
        }
    }

    #[test]
    fn a_listed_file_changed_in_place_is_refused_where_it_is_read() {
        let dir = tempfile::tempdir().unwrap();
        let root = Root::open(dir.path()).unwrap();
        let read = kept(&root);
        let list = read.digest_list();
        // Same size, so the list still fits the directory.
        root.write_file("k/a/b.md", b"ONE\ntwo\n").unwrap();
        let listed = SkillTree::read_listed(&root, "k", &list, &read.hash())
            .unwrap()
            .expect("sizes and bits agree");
        // What the list says stands for the tree; the bytes on disk are refused when read.
        assert_eq!(
            listed.get("a/b.md").unwrap().data,
            read.get("a/b.md").unwrap().data
        );
        let refused = listed.get("a/b.md").unwrap().data.read().unwrap_err();
        assert!(
            matches!(&refused, Error::Fs(asv_fs::Error::ChangedWhileRead { path }) if path == "k/a/b.md"),
            "{refused:?}"
        );
    }

    #[test]
    fn hex_round_trips_and_refuses_what_is_not_a_digest() {
        let digest: [u8; 32] = std::array::from_fn(|i| (i * 37) as u8);
        assert_eq!(unhex(&hex(digest)), Some(digest));
        assert_eq!(unhex("ab"), None);
        assert_eq!(unhex(&"G".repeat(64)), None);
        assert_eq!(unhex(&"A".repeat(64)), None);
    }
}
