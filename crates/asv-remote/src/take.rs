//! Taking contracts out of a commit's listing: only what a run opens is judged and read.
//!
//! A contract's canonical text and its conformance tests are taken from a source at a commit.
//! Each file taken must be an ordinary file (mode 100644 or 100755) at a path that stays
//! inside the repository, and its bytes must hash to the blob id the commit's own listing
//! gives. A link or submodule standing where a contract or its tests would be refuses the run:
//! otherwise tests the source does keep would be pinned as absent. Nothing else in the source
//! is judged, so an odd file elsewhere in it never puts its contracts out of reach.

use std::collections::BTreeMap;

use crate::error::{Error, ListingProblem, Result};
pub use crate::ids::is_inside;
use crate::{Commit, EntryMode, Transport, TreeEntry};

/// What one contract's text is in a source's listing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Held {
    /// An ordinary file: the source holds the contract.
    Yes(TreeEntry),
    /// Nothing at that path (or a directory).
    No,
}

/// The listing of one commit, indexed by path.
pub struct Listing {
    entries: BTreeMap<String, TreeEntry>,
}

impl Listing {
    /// Indexes a listing.
    pub fn new(entries: Vec<TreeEntry>) -> Self {
        Listing {
            entries: entries.into_iter().map(|e| (e.path.clone(), e)).collect(),
        }
    }

    /// Whether the source holds a contract text at `path`.
    ///
    /// # Errors
    /// A link or submodule at `path`.
    pub fn text(&self, source: &str, path: &str) -> Result<Held> {
        match self.entries.get(path) {
            None => Ok(Held::No),
            Some(e) => match e.mode {
                EntryMode::File | EntryMode::Executable => Ok(Held::Yes(e.clone())),
                EntryMode::Tree => Ok(Held::No),
                EntryMode::Symlink | EntryMode::Submodule => Err(refuse_mode(source, e)),
            },
        }
    }

    /// The conformance files of the contract `id` whose text is at `text_path`: everything
    /// under `<dir of text>/<id>/conformance/`.
    ///
    /// # Errors
    /// A link or submodule at `<dir>/<id>`, at the conformance directory or anywhere under it;
    /// a path that does not stay inside the repository.
    pub fn conformance(&self, source: &str, text_path: &str, id: &str) -> Result<Vec<TreeEntry>> {
        let dir = match text_path.rfind('/') {
            Some(i) => format!("{}/{id}", &text_path[..i]),
            None => id.to_owned(),
        };
        let conformance = format!("{dir}/conformance");
        for at in [&dir, &conformance] {
            if let Some(e) = self
                .entries
                .get(at.as_str())
                .filter(|e| matches!(e.mode, EntryMode::Symlink | EntryMode::Submodule))
            {
                return Err(refuse_mode(source, e));
            }
        }
        self.files_under(source, &conformance)
    }
}

impl Listing {
    /// Every file of a raw-byte contract's src: the file itself, or everything under a
    /// directory src. The whole directory is judged before any `ignore` rule filters it.
    ///
    /// # Errors
    /// A link or submodule at or under the src; a path that does not stay inside the
    /// repository.
    pub fn raw_src(&self, source: &str, src: &str, dir: bool) -> Result<Vec<TreeEntry>> {
        if !dir {
            return Ok(match self.text(source, src)? {
                Held::Yes(e) => vec![e],
                Held::No => Vec::new(),
            });
        }
        if let Some(e) = self
            .entries
            .get(src)
            .filter(|e| matches!(e.mode, EntryMode::Symlink | EntryMode::Submodule))
        {
            return Err(refuse_mode(source, e));
        }
        self.files_under(source, src)
    }
}

impl Listing {
    /// Every ordinary file below the directory `dir`; a link or submodule below it, or a path
    /// that leaves the repository, refuses.
    fn files_under(&self, source: &str, dir: &str) -> Result<Vec<TreeEntry>> {
        let prefix = format!("{dir}/");
        let mut out = Vec::new();
        for (path, e) in self.entries.range(prefix.clone()..) {
            if !path.starts_with(&prefix) {
                break;
            }
            if !is_inside(path) {
                return Err(Error::Listing {
                    name: source.to_owned(),
                    problem: ListingProblem::Outside {
                        path: path.clone(),
                        dir: dir.to_owned(),
                    },
                });
            }
            match e.mode {
                EntryMode::File | EntryMode::Executable => out.push(e.clone()),
                EntryMode::Tree => {}
                EntryMode::Symlink | EntryMode::Submodule => return Err(refuse_mode(source, e)),
            }
        }
        Ok(out)
    }
}

/// The refusal of `e`, a link or submodule where a contract or its tests would be.
fn refuse_mode(source: &str, e: &TreeEntry) -> Error {
    Error::Listing {
        name: source.to_owned(),
        problem: ListingProblem::NotOrdinary {
            path: e.path.clone(),
            mode: e.mode,
        },
    }
}

/// Reads every entry (each checked against its blob id by the transport), advancing `step` by
/// one for each file read.
///
/// # Errors
/// What the transport refuses.
pub fn read_all(
    transport: &mut dyn Transport,
    commit: &Commit,
    entries: &[TreeEntry],
    step: &asv_model::progress::Step<'_>,
) -> Result<Vec<(String, Vec<u8>)>> {
    let mut out = Vec::with_capacity(entries.len());
    for e in entries {
        out.push((e.path.clone(), transport.read(commit, e)?));
        step.advance(1);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(path: &str, mode: EntryMode) -> TreeEntry {
        TreeEntry {
            path: path.to_owned(),
            mode,
            oid: "0".repeat(40),
        }
    }

    #[test]
    fn only_what_is_taken_is_judged() {
        let listing = Listing::new(vec![
            entry("contracts/a.md", EntryMode::File),
            entry("contracts/a/conformance/x.md", EntryMode::File),
            entry("contracts/a/conformance/sub/y.md", EntryMode::Executable),
            entry("contracts/b.md", EntryMode::Symlink),
            entry("contracts/c.md", EntryMode::File),
            entry("contracts/c/conformance", EntryMode::Submodule),
            entry("tests/fixtures/windows\\path.txt", EntryMode::File),
            entry("elsewhere/link", EntryMode::Symlink),
        ]);
        assert!(matches!(
            listing.text("w", "contracts/a.md").unwrap(),
            Held::Yes(_)
        ));
        assert_eq!(listing.text("w", "contracts/z.md").unwrap(), Held::No);
        assert!(listing.text("w", "contracts/b.md").is_err());
        assert_eq!(
            listing
                .conformance("w", "contracts/a.md", "a")
                .unwrap()
                .len(),
            2
        );
        assert!(listing.conformance("w", "contracts/c.md", "c").is_err());
        assert!(
            listing
                .conformance("w", "contracts/z.md", "z")
                .unwrap()
                .is_empty()
        );
    }
}
