//! What stands at a dest, read through the guarded tree, and the `.gitignore` rules that apply
//! there.
//!
//! Observation is kept apart from judgement so that [`super::decide`] sees plain values: the
//! kind, the digest of what counts and every file, never the tree.

use std::collections::{BTreeMap, BTreeSet};

use asv_fs::{EntryKind, Root};

use crate::digest::{Digest, Framed};
use crate::error::{PlacementProblem, Result};
use crate::ignore::IgnoreRules;
use crate::raw::{Files, MARKER};

use super::{DestKind, sort_utf16};

/// What stands at a dest, when something does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Standing {
    /// A file or a directory.
    pub kind: DestKind,
    /// The placement digest of the files that count: the top-level marker and files the
    /// repository's `.gitignore` excludes are left out, as they are from the lock's record.
    pub digest: Digest,
    /// Every file, marker and ignored files included, in UTF-16 order (a file dest is one entry
    /// named by its basename): a dest is only left as it is, or claimed, when all of it matches.
    pub files: Files,
}

/// Reads what stands at `site`, judging its files by `rules` (from [`dest_rules`]).
///
/// `expected` only words the refusal of an entry that is neither a file nor a directory.
///
/// # Errors
/// A link or special file at `site`; a guarded-read refusal below it.
pub(super) fn observe(
    root: &Root,
    site: &str,
    expected: DestKind,
    rules: &IgnoreRules,
) -> Result<Option<Standing>> {
    let (kind, files) = match root.kind(site)? {
        None => return Ok(None),
        Some(EntryKind::File) => {
            let bytes = root.read_file(site)?.unwrap_or_default();
            (
                DestKind::File,
                vec![(crate::raw::basename(site).to_owned(), bytes)],
            )
        }
        Some(EntryKind::Directory) => {
            let mut paths = root
                .walk_files(site, &mut |_, _| false)?
                .unwrap_or_default();
            sort_utf16(&mut paths);
            let mut files = Vec::with_capacity(paths.len());
            for rel in paths {
                let bytes = root
                    .read_file(&format!("{site}/{rel}"))?
                    .unwrap_or_default();
                files.push((rel, bytes));
            }
            (DestKind::Directory, files)
        }
        Some(EntryKind::Symlink) => {
            return Err(asv_fs::Error::Symlink {
                path: site.to_owned(),
            }
            .into());
        }
        Some(found) => {
            return Err(asv_fs::Error::WrongKind {
                path: site.to_owned(),
                expected: match expected {
                    DestKind::Directory => EntryKind::Directory,
                    DestKind::File => EntryKind::File,
                },
                found,
            }
            .into());
        }
    };
    let digest = digest_of(&counted(kind, &files, site, rules));
    Ok(Some(Standing {
        kind,
        digest,
        files,
    }))
}

/// The `.gitignore` rules that apply at a dest (read from the root down to its parent; a
/// `.gitignore` inside a dest is content, not rules).
///
/// # Errors
/// The rules exclude the dest itself: `verify` could not see it, so `gen` may not write it.
pub(super) fn dest_rules(root: &Root, site: &str, kind: DestKind) -> Result<IgnoreRules> {
    let parent = site.rsplit_once('/').map_or("", |(p, _)| p);
    match IgnoreRules::for_dir(root, parent)? {
        Some(rules) if !rules.is_excluded(site, kind.is_dir()) => Ok(rules),
        _ => Err(PlacementProblem::DestIgnored {
            site: site.to_owned(),
        }
        .into()),
    }
}

/// Refuses planned files of a directory dest that `rules` would exclude once placed: a file
/// `verify` cannot see is not one `gen` may write.
///
/// # Errors
/// The first such file, in the order given.
pub(super) fn refuse_ignored(
    rules: &IgnoreRules,
    site: &str,
    files: &[(String, Vec<u8>)],
) -> Result<()> {
    match files
        .iter()
        .find(|(rel, _)| rules.excludes_below(site, rel, false))
    {
        Some((rel, _)) => Err(PlacementProblem::FileIgnored {
            site: site.to_owned(),
            file: rel.clone(),
        }
        .into()),
        None => Ok(()),
    }
}

/// The files of a dest that count: the top-level marker and `.gitignore`-excluded files left
/// out (a file dest counts whole).
pub(super) fn counted<'f>(
    kind: DestKind,
    files: &'f [(String, Vec<u8>)],
    site: &str,
    rules: &IgnoreRules,
) -> Vec<(&'f str, &'f [u8])> {
    files
        .iter()
        .filter(|(rel, _)| {
            kind == DestKind::File || (rel != MARKER && !rules.excludes_below(site, rel, false))
        })
        .map(|(rel, bytes)| (rel.as_str(), bytes.as_slice()))
        .collect()
}

/// The placement digest of `files` (the digest of nothing when there are none).
fn digest_of(files: &[(&str, &[u8])]) -> Digest {
    let mut framed = Framed::default();
    for (path, bytes) in files {
        framed.add((*path).to_owned(), bytes.to_vec());
    }
    framed.finish().unwrap_or_else(|| Digest::of(b""))
}

/// The first file where `observed` and `planned` disagree: an observed file not planned or
/// with other bytes (in order), else a planned file that is missing (skipping `optional`).
pub(super) fn first_disagreement<P: AsRef<str>, B: AsRef<[u8]>>(
    observed: &[(P, B)],
    planned: &[(String, Vec<u8>)],
    optional: Option<&str>,
) -> Option<String> {
    let plan: BTreeMap<&str, &[u8]> = planned
        .iter()
        .map(|(p, b)| (p.as_str(), b.as_slice()))
        .collect();
    for (path, bytes) in observed {
        if plan.get(path.as_ref()) != Some(&bytes.as_ref()) {
            return Some(path.as_ref().to_owned());
        }
    }
    let seen: BTreeSet<&str> = observed.iter().map(|(p, _)| p.as_ref()).collect();
    planned
        .iter()
        .map(|(p, _)| p.as_str())
        .find(|p| !seen.contains(p) && Some(*p) != optional)
        .map(str::to_owned)
}
