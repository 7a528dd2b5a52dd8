//! What stands at a dest, read through the guarded tree, and the `.gitignore` rules that apply
//! there.
//!
//! Observation is kept apart from judgement so that [`super::decide`] sees plain values: the
//! kind, the digest of what counts and every file, never the tree.

use std::borrow::Borrow;
use std::collections::{BTreeMap, BTreeSet};

use asv_fs::{EntryKind, Root};
use asv_model::ignore::IgnoreRules;

use crate::digest::{Digest, FramedStream};
use crate::error::{PlacementProblem, Result};
use crate::raw::{Blob, Files, MARKER};

use super::super::framed::read_blob;

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
    let mut framed = FramedStream::default();
    let (kind, files) = match root.kind(site)? {
        None => return Ok(None),
        Some(EntryKind::File) => {
            // A file dest counts whole.
            let name = crate::raw::basename(site);
            let blob = read_whole(root, site, &mut [(&mut framed, name)])?;
            (DestKind::File, vec![(name.to_owned(), blob)])
        }
        Some(EntryKind::Directory) => {
            let mut paths = root
                .walk_files(site, &mut |_, _| false)?
                .unwrap_or_default();
            sort_utf16(&mut paths);
            let mut files = Vec::with_capacity(paths.len());
            for rel in paths {
                let full = format!("{site}/{rel}");
                let blob = if is_counted(DestKind::Directory, &rel, site, rules) {
                    read_whole(root, &full, &mut [(&mut framed, &rel)])?
                } else {
                    read_whole(root, &full, &mut [])?
                };
                files.push((rel, blob));
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
    let digest = framed.finish().unwrap_or_else(|| Digest::of(b""));
    Ok(Some(Standing {
        kind,
        digest,
        files,
    }))
}

/// [`read_blob`] of a file the walk just listed; gone since, it is another process's doing.
fn read_whole(root: &Root, path: &str, feeds: &mut [(&mut FramedStream, &str)]) -> Result<Blob> {
    read_blob(root, path, feeds)?.ok_or_else(|| {
        asv_fs::Error::ChangedWhileRead {
            path: path.to_owned(),
        }
        .into()
    })
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
pub(super) fn refuse_ignored(rules: &IgnoreRules, site: &str, files: &Files) -> Result<()> {
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

/// Whether the file `rel` of a dest counts: not the top-level marker and not excluded by the
/// `.gitignore` rules (a file dest counts whole).
fn is_counted(kind: DestKind, rel: &str, site: &str, rules: &IgnoreRules) -> bool {
    kind == DestKind::File || (rel != MARKER && !rules.excludes_below(site, rel, false))
}

/// The files of a dest that count: the top-level marker and `.gitignore`-excluded files left
/// out (a file dest counts whole).
pub(super) fn counted<'f>(
    kind: DestKind,
    files: &'f Files,
    site: &str,
    rules: &IgnoreRules,
) -> Vec<(&'f str, &'f Blob)> {
    files
        .iter()
        .filter(|(rel, _)| is_counted(kind, rel, site, rules))
        .map(|(rel, blob)| (rel.as_str(), blob))
        .collect()
}

/// The first file where `observed` and `planned` disagree: an observed file not planned or
/// holding other bytes (in order), else a planned file that is missing (skipping `optional`).
pub(super) fn first_disagreement<P: AsRef<str>, B: Borrow<Blob>>(
    observed: &[(P, B)],
    planned: &Files,
    optional: Option<&str>,
) -> Option<String> {
    let plan: BTreeMap<&str, &Blob> = planned.iter().map(|(p, b)| (p.as_str(), b)).collect();
    for (path, blob) in observed {
        if plan.get(path.as_ref()).copied() != Some(blob.borrow()) {
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
