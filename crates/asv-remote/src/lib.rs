//! Transports: reading another repository at a commit.
//!
//! Two transports read a repository at a commit: the GitHub API ([`github`], HTTPS to the two
//! fixed hosts only) and generic git ([`git`], the installed `git`, locked down). Both answer
//! the same three questions through [`Transport`]: which branch the repository hands out,
//! which commit a ref names, and what a commit's tree holds — every file checked against the
//! blob id its own tree listing gives.
//!
//! # Features
//!
//! - `test-hooks` (off by default): lets tests point the transports at servers of their own —
//!   `Git::with_limits` and `Git::with_env`, `GitHub::with_endpoints`, the `github_endpoints`
//!   and `git_env` fields of [`Options`], and [`Options::read_test_endpoints`] reading
//!   `ASV_TEST_GITHUB_API` / `ASV_TEST_GITHUB_RAW` (a no-op without the feature). The crates
//!   whose tests need it enable it through a dev-dependency, which cargo activates exactly
//!   when their tests are built, in debug and release alike; a binary built or installed on
//!   its own never has it, so it talks only to the hosts and with the limits documented here.
#![deny(missing_docs)]

pub mod error;
pub mod git;
pub mod github;
mod ids;
mod interrupt;
mod options;
mod platform;
mod process;
mod session;
pub mod take;
pub mod token;

use asv_model::source::ObjectFormat;

pub use error::{Error, Result};
pub use options::{Options, Progress, transport};

/// The mode of a tree entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EntryMode {
    /// A regular file (100644).
    File,
    /// An executable file (100755).
    Executable,
    /// A symbolic link (120000).
    Symlink,
    /// A submodule (160000).
    Submodule,
    /// A directory (040000) — listed by some transports, never taken.
    Tree,
}

/// One entry of a commit's recursive tree listing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TreeEntry {
    /// The path inside the repository, `/`-separated, exactly as the listing gives it.
    pub path: String,
    /// The entry's mode.
    pub mode: EntryMode,
    /// The object id (lowercase hex) the listing gives.
    pub oid: String,
}

/// A resolved commit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Commit {
    /// The commit id (lowercase hex, 40 or 64 digits).
    pub revision: String,
    /// The repository's object format.
    pub format: ObjectFormat,
}

/// A tag of a repository and the commit it names (an annotated tag peeled to its commit).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Tag {
    /// The tag's name, without `refs/tags/`.
    pub name: String,
    /// The commit id it names (lowercase hex).
    pub commit: String,
}

/// The raw objects that say who made a commit (issue 33 §1): the commit object exactly as git
/// stores it (the bytes `git cat-file commit <id>` prints, its `gpgsig` header included), and,
/// when the ref asked about is a tag, the tag. Each object's bytes were checked to hash to its
/// id, so a signature checked over them is a signature over the pinned commit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Provenance {
    /// The raw commit object.
    pub commit: Vec<u8>,
    /// The tag the ref named, when it names one.
    pub tag: Option<TagObject>,
}

/// A tag as [`Provenance`] hands it out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TagObject {
    /// An annotated tag: an object of its own, which can carry a signature.
    Annotated {
        /// The tag's name, without `refs/tags/`.
        name: String,
        /// The tag object's id.
        id: String,
        /// The commit the tag object names (its `object` header).
        target: String,
        /// The raw tag object (the bytes `git cat-file tag <id>` prints).
        raw: Vec<u8>,
    },
    /// A lightweight tag: a ref straight to a commit, with nothing to sign.
    Lightweight {
        /// The tag's name, without `refs/tags/`.
        name: String,
        /// The commit it names.
        target: String,
    },
}

/// Whether `text` reads as a short commit id (issue 29 §2): 7 to 63 lowercase hex digits
/// that are not a whole id of either object format (40 or 64 digits).
pub fn is_short_id(text: &str) -> bool {
    (7..64).contains(&text.len())
        && text.len() != 40
        && text.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

/// What a source transport can do. Every method is one bounded, non-interactive exchange.
///
/// A transport is `Send`, so a run can keep one per source and read it from the thread that
/// needs it (issue 30 §2).
pub trait Transport: Send {
    /// The branch the repository hands out by default (e.g. `main`).
    ///
    /// # Errors
    /// A refusal or failure of the transport.
    fn default_branch(&mut self) -> Result<String>;

    /// The commit `reference` (a branch, tag or commit id) names now.
    ///
    /// # Errors
    /// A refusal or failure of the transport; an unknown ref.
    fn resolve(&mut self, reference: &str) -> Result<Commit>;

    /// Every tag of the repository with the commit it names, sorted by name; `None` when this
    /// transport cannot list tags (a semver range on its tags is then refused by the caller).
    ///
    /// # Errors
    /// A refusal or failure of the transport.
    fn tags(&mut self) -> Result<Option<Vec<Tag>>> {
        Ok(None)
    }

    /// What this transport already knows of the tag `name` without asking the server again:
    /// the commit it names (an annotated tag peeled to its commit), `Some(None)` when it knows
    /// there is no such tag, and `None` when only [`Transport::tags`] can tell. The default
    /// knows nothing; generic git knows each name it looked up in the run, whose lookup asked
    /// for the tag and its peeled form, which is what the tag list says of it (issue 30 §3: a
    /// pull following a branch asks whether a tag of that name moved, which the branch's own
    /// lookup answered).
    ///
    /// # Errors
    /// A source that can no longer be asked (a git source stopped by a limit or a failure).
    fn known_tag(&mut self, name: &str) -> Result<Option<Option<String>>> {
        let _ = name;
        Ok(None)
    }

    /// The recursive listing of `commit`'s tree.
    ///
    /// # Errors
    /// A refusal or failure; a truncated listing.
    fn list(&mut self, commit: &Commit) -> Result<Vec<TreeEntry>>;

    /// The entries of [`Transport::list`]'s listing of `commit` below `path` (those whose path
    /// starts with `path/`; `.` is the whole listing), exactly as the listing holds them: paths
    /// from the root, in its order. Taking one skill needs only these (issue 30 §3); generic
    /// git reads only the trees along `path` and under it. The default lists the whole commit.
    ///
    /// # Errors
    /// As [`Transport::list`].
    fn list_under(&mut self, commit: &Commit, path: &str) -> Result<Vec<TreeEntry>> {
        let listing = self.list(commit)?;
        if path == "." {
            return Ok(listing);
        }
        let prefix = format!("{path}/");
        Ok(listing
            .into_iter()
            .filter(|e| e.path.starts_with(&prefix))
            .collect())
    }

    /// The bytes of `entry` at `commit`, checked against `entry.oid` (`git hash-object`:
    /// the SHA-1 or SHA-256 of `blob <len>\0<bytes>`).
    ///
    /// # Errors
    /// A refusal or failure; bytes that do not match the blob id; a file over the size limit.
    fn read(&mut self, commit: &Commit, entry: &TreeEntry) -> Result<Vec<u8>>;

    /// The bytes of every one of `entries` at `commit`, handed to `each` in order with the
    /// entry's index, each checked and limited exactly as [`Transport::read`] checks and limits
    /// one: the first refusal ends the reading, after the entries before it were handed over.
    /// `each` answers `false` to stop early (the caller keeps its own reason). The default
    /// reads one entry at a time; generic git reads them in one batched conversation (issue 30
    /// §2).
    ///
    /// # Errors
    /// As [`Transport::read`], for the first entry refused.
    fn read_each(
        &mut self,
        commit: &Commit,
        entries: &[TreeEntry],
        each: &mut dyn FnMut(usize, Vec<u8>) -> bool,
    ) -> Result<()> {
        for (i, entry) in entries.iter().enumerate() {
            if !each(i, self.read(commit, entry)?) {
                break;
            }
        }
        Ok(())
    }

    /// The object id of the tree at `path` of `commit` (`.` is the commit's root tree):
    /// `Some(None)` when `commit` holds no tree there, `None` when this transport cannot tell.
    /// Two commits whose tree at a path has one id hold the same files there, so a skill whose
    /// tree id did not change has not changed (issue 30 §3).
    ///
    /// # Errors
    /// A refusal or failure of the transport.
    fn tree_id(&mut self, commit: &Commit, path: &str) -> Result<Option<Option<String>>> {
        let _ = (commit, path);
        Ok(None)
    }

    /// Commits the caller is about to ask about (a lock's pins, say): a transport may take
    /// them in the same exchange as the next commit it fetches, rather than one exchange each.
    /// A commit it cannot take that way is taken on its own when asked for, as without the
    /// hint. The default ignores it.
    fn hint(&mut self, revisions: &[String]) {
        let _ = revisions;
    }

    /// The raw objects of `commit`, and of the tag `reference` when it names a tag (a branch
    /// or a commit id gives no tag), for a signature check (issue 33 §1); `None` when this
    /// transport cannot hand out raw objects. The GitHub API cannot: it reports whether
    /// GitHub found a signature good, but not the bytes that were signed, so nothing it says
    /// can be checked here against an allowed-signers file.
    ///
    /// # Errors
    /// A refusal or failure of the transport; an object whose bytes do not hash to its id.
    fn provenance(
        &mut self,
        commit: &Commit,
        reference: Option<&str>,
    ) -> Result<Option<Provenance>> {
        let _ = (commit, reference);
        Ok(None)
    }
}

/// The git blob id of `bytes` in `format`, lowercase hex.
pub fn blob_id(format: ObjectFormat, bytes: &[u8]) -> String {
    object_id(format, "blob", bytes)
}

/// The git object id of an object of type `kind` (`blob`, `commit`, `tag`, `tree`) holding
/// `bytes`, in `format`, lowercase hex: the hash of `<kind> <len>\0<bytes>`.
pub fn object_id(format: ObjectFormat, kind: &str, bytes: &[u8]) -> String {
    use sha2::Digest as _;
    let head = format!("{kind} {}\0", bytes.len());
    let digest: Vec<u8> = match format {
        ObjectFormat::Sha1 => {
            let mut h = sha1::Sha1::new();
            h.update(head.as_bytes());
            h.update(bytes);
            h.finalize().to_vec()
        }
        ObjectFormat::Sha256 => {
            let mut h = sha2::Sha256::new();
            h.update(head.as_bytes());
            h.update(bytes);
            h.finalize().to_vec()
        }
    };
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_ids_are_7_to_63_hex_digits_but_not_a_whole_id() {
        let cases: &[(&str, bool)] = &[
            ("c0ffee1", true),
            ("c0ffee", false),
            ("C0FFEE1", false),
            ("c0ffee1g", false),
            (&"a".repeat(39), true),
            (&"a".repeat(40), false),
            (&"a".repeat(41), true),
            (&"a".repeat(64), false),
            ("v1.2.3", false),
        ];
        for (text, short) in cases {
            assert_eq!(is_short_id(text), *short, "{text}");
        }
    }

    #[test]
    fn blob_ids_match_git_hash_object() {
        // printf 'hello\n' | git hash-object --stdin
        assert_eq!(
            blob_id(ObjectFormat::Sha1, b"hello\n"),
            "ce013625030ba8dba906f756967f9e9ca394464a"
        );
        // printf '' | git hash-object --stdin
        assert_eq!(
            blob_id(ObjectFormat::Sha1, b""),
            "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391"
        );
    }
}
