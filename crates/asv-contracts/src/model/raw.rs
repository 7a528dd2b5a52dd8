//! Raw-byte contracts: files and directories copied as they are.
//!
//! A raw row of the table maps canonical srcs (a file, or a directory with a trailing `/`) to
//! dests inside each declaring skill. This module reads what the srcs hold now — guarded, with
//! the repository's `.gitignore` rules and the table's `ignore` patterns applied to directory
//! srcs — and computes the contract digest (files named by their canonical path) and each
//! placement digest (files named relative to the dest).
//!
//! A src file may be of any size, so its bytes are never held: each is read once, in chunks,
//! feeding its own SHA-256, the contract digest and its mapping's placement digest together,
//! and is later copied from where it stands (issue 15 §3).

use asv_fs::{EntryKind, Root, join};
use asv_model::id::ContractId;
use asv_model::ignore::IgnoreRules;

use super::framed::read_blob;
use crate::digest::{Digest, FramedStream, cmp_utf16};
use crate::error::{Error, RawSourceProblem, Result};
use crate::manifest::{Mapping, RawRow};

pub use super::framed::{Blob, BlobAt};

/// Files as (relative path, what they hold).
pub type Files = Vec<(String, Blob)>;

/// The marker file a directory dest carries.
pub const MARKER: &str = ".vendored";

/// What one mapping's src holds now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MappingFiles {
    /// The mapping.
    pub mapping: Mapping,
    /// For a directory: paths relative to the src and what they hold, in UTF-16 path order.
    /// For a file: one entry named by the dest's basename.
    pub files: Files,
    /// The placement digest: files named relative to the dest (a file dest by its basename).
    pub placement: Digest,
}

impl MappingFiles {
    /// The placement digest: files named relative to the dest (a file dest by its basename).
    pub fn placement_digest(&self) -> Digest {
        self.placement
    }
}

/// A raw-byte contract's canonical side.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RawState {
    /// Every src is there.
    Present {
        /// Per mapping, in table order.
        mappings: Vec<MappingFiles>,
        /// The contract digest.
        digest: Digest,
    },
    /// A src is missing (or excluded by `.gitignore` as a whole); the first such src in UTF-16
    /// order, as the table spells it (a directory keeps its `/`).
    Absent {
        /// The src.
        src: String,
    },
    /// The files come from another repository and the cache does not hold them at the pinned
    /// commit (or nothing is pinned): unknown here, not absent.
    NotHeld {
        /// The first src in UTF-16 order the cache does not hold.
        src: String,
    },
}

pub use crate::manifest::basename;

/// Reads every src of `row` for contract `id`.
///
/// # Errors
/// A link, FIFO or wrong kind at or inside a src; a `.gitignore` inside a directory src or a
/// `.vendored` at its top; `ignore` patterns that exclude every file of a directory mapping.
/// For a row from another repository, `pin` is the revision the lock pins for its source:
/// the srcs are read from the cache at that commit, without this repository's `.gitignore`
/// rules, and a src the cache does not hold makes the contract [`RawState::NotHeld`].
pub fn read(
    root: &Root,
    id: &ContractId,
    row: &RawRow,
    shared: &[String],
    pin: Option<&str>,
) -> Result<RawState> {
    let mut patterns = shared.to_vec();
    patterns.extend(row.ignore.iter().cloned());
    let distribution = IgnoreRules::from_patterns(&patterns);
    let base = match (&row.source, pin) {
        (None, _) => None,
        (Some(source), Some(revision)) => {
            Some(crate::cache::revision_dir(source.as_str(), revision))
        }
        (Some(_), None) => {
            let first = row
                .mappings
                .iter()
                .map(Mapping::src_key)
                .min_by(|a, b| cmp_utf16(a, b))
                .unwrap_or_default();
            return Ok(RawState::NotHeld { src: first });
        }
    };
    let mut absent: Vec<String> = Vec::new();
    // Per mapping, the files it places: (path relative to the dest, where it is read).
    let mut listed: Vec<(&Mapping, Vec<(String, String)>)> = Vec::new();
    for mapping in &row.mappings {
        // Read a remote src where the cache keeps it, but name it by its canonical path.
        let located = match &base {
            None => mapping.clone(),
            Some(dir) => Mapping {
                src: format!("{dir}/{}", mapping.src),
                ..mapping.clone()
            },
        };
        let files = if mapping.dir {
            list_dir_src(root, id, &located, &distribution, base.is_none())?
        } else {
            list_file_src(root, &located, base.is_none())?
        };
        match files {
            None => absent.push(mapping.src_key()),
            Some(files) => listed.push((mapping, files)),
        }
    }
    if let Some(first) = absent.into_iter().min_by(|a, b| cmp_utf16(a, b)) {
        return Ok(if base.is_some() {
            RawState::NotHeld { src: first }
        } else {
            RawState::Absent { src: first }
        });
    }
    // Every file is read once, in the contract digest's order (canonical paths in UTF-16
    // order); a mapping's own files come in the same relative order, since they share its src
    // as a prefix, so its placement digest is built in the same pass.
    let mut order: Vec<(String, usize, usize)> = Vec::new();
    for (m, (mapping, files)) in listed.iter().enumerate() {
        for (f, (rel, _)) in files.iter().enumerate() {
            let canonical = if mapping.dir {
                format!("{}/{rel}", mapping.src)
            } else {
                mapping.src.clone()
            };
            order.push((canonical, m, f));
        }
    }
    order.sort_by(|a, b| cmp_utf16(&a.0, &b.0));
    let mut contract = FramedStream::default();
    let mut placements: Vec<FramedStream> = vec![FramedStream::default(); listed.len()];
    let mut blobs: Vec<Vec<Option<Blob>>> = listed
        .iter()
        .map(|(_, files)| vec![None; files.len()])
        .collect();
    for (canonical, m, f) in &order {
        let (rel, at) = &listed[*m].1[*f];
        let blob = read_blob(
            root,
            at,
            &mut [(&mut contract, canonical), (&mut placements[*m], rel)],
        )?
        .ok_or_else(|| asv_fs::Error::ChangedWhileRead { path: at.clone() })?;
        blobs[*m][*f] = Some(blob);
    }
    let mut mappings = Vec::with_capacity(listed.len());
    for (((mapping, files), blobs), placement) in listed.into_iter().zip(blobs).zip(placements) {
        let files = files
            .into_iter()
            .zip(blobs)
            .filter_map(|((rel, _), blob)| Some((rel, blob?)))
            .collect();
        mappings.push(MappingFiles {
            mapping: mapping.clone(),
            files,
            placement: placement.finish().unwrap_or_else(|| Digest::of(b"")),
        });
    }
    let digest = contract.finish().unwrap_or_else(|| Digest::of(b""));
    Ok(RawState::Present { mappings, digest })
}

/// Whether `src` exists with the kind the mapping needs; a link on the way or at it (named as
/// the whole src) and any other kind are refusals.
fn src_exists(root: &Root, src: &str, expected: EntryKind) -> Result<bool> {
    let kind = match root.kind(src) {
        Ok(k) => k,
        Err(asv_fs::Error::Symlink { .. }) => {
            return Err(asv_fs::Error::Symlink {
                path: src.to_owned(),
            }
            .into());
        }
        Err(e) => return Err(e.into()),
    };
    match kind {
        None => Ok(false),
        Some(k) if k == expected => Ok(true),
        Some(EntryKind::Symlink) => Err(asv_fs::Error::Symlink {
            path: src.to_owned(),
        }
        .into()),
        Some(found) => Err(asv_fs::Error::WrongKind {
            path: src.to_owned(),
            expected,
            found,
        }
        .into()),
    }
}

/// The file src of `mapping` as the one file it places, named by the dest's basename and read
/// from the src; `None` when it is absent (or excluded by `.gitignore`).
fn list_file_src(
    root: &Root,
    mapping: &Mapping,
    local: bool,
) -> Result<Option<Vec<(String, String)>>> {
    if !src_exists(root, &mapping.src, EntryKind::File)? {
        return Ok(None);
    }
    if local {
        let parent = mapping.src.rsplit_once('/').map_or("", |(p, _)| p);
        match IgnoreRules::for_dir(root, parent)? {
            Some(rules) if !rules.is_excluded(&mapping.src, false) => {}
            _ => return Ok(None),
        }
    }
    Ok(Some(vec![(
        basename(&mapping.dest).to_owned(),
        mapping.src.clone(),
    )]))
}

/// The files of the directory src of `mapping` that it places, in UTF-16 order of their paths
/// relative to the src, each with where it is read; `None` when the src is absent (or holds
/// nothing `.gitignore` lets through).
fn list_dir_src(
    root: &Root,
    id: &ContractId,
    mapping: &Mapping,
    distribution: &IgnoreRules,
    local: bool,
) -> Result<Option<Vec<(String, String)>>> {
    if !src_exists(root, &mapping.src, EntryKind::Directory)? {
        return Ok(None);
    }
    // The whole directory is judged before anything is filtered: a link or a reserved name
    // refuses even where an ignore rule would have left it out.
    let all = root
        .walk_files(&mapping.src, &mut |_, _| false)?
        .unwrap_or_default();
    for rel in &all {
        if basename(rel) == ".gitignore" {
            return Err(Error::RawSource {
                path: format!("{}/{rel}", mapping.src),
                problem: RawSourceProblem::GitignoreInside { id: id.clone() },
            });
        }
        if rel == MARKER {
            return Err(Error::RawSource {
                path: format!("{}/{rel}", mapping.src),
                problem: RawSourceProblem::MarkerInside { id: id.clone() },
            });
        }
    }
    // This repository's `.gitignore` rules say nothing about another repository's files.
    let rules = if local {
        match IgnoreRules::for_dir(root, &mapping.src)? {
            Some(rules) => rules,
            None => return Ok(None),
        }
    } else {
        IgnoreRules::default()
    };
    let tracked: Vec<&String> = all
        .iter()
        .filter(|rel| !rules.excludes_below(&mapping.src, rel, false))
        .collect();
    if tracked.is_empty() {
        return Ok(None);
    }
    let mut selected: Vec<&String> = tracked
        .into_iter()
        .filter(|rel| !distribution.excludes_below("", rel, false))
        .collect();
    if selected.is_empty() {
        return Err(Error::RawSource {
            path: format!("{}/", mapping.src),
            problem: RawSourceProblem::AllExcluded { id: id.clone() },
        });
    }
    selected.sort_by(|a, b| cmp_utf16(a, b));
    Ok(Some(
        selected
            .into_iter()
            .map(|rel| (rel.clone(), join(&mapping.src, rel)))
            .collect(),
    ))
}
