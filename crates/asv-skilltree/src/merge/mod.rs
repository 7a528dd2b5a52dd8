//! Three-way merges: of a whole skill tree ([`merge`]) and of one text file ([`merge_text`], as
//! git's `merge-file`; [`merge_text_into`] writes the result as it goes).
//!
//! gix-merge's built-in text driver does the diff3 work; `text.rs` fixes its options (Myers
//! diff, diff3 conflict style with git's labels) so a conflicted file reads as
//! `git merge-file --diff3` would write it, and hands it only the parts of a file both sides
//! changed.

mod text;

use std::collections::{BTreeMap, BTreeSet};
use std::io::{self, Write};

pub use text::{Outcome, merge_text_into};

use crate::{Error, FileData, FileNode, SkillTree};

/// The outcome of merging one text file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TextMerge {
    /// Both sides merged without conflict: the merged bytes.
    Clean(Vec<u8>),
    /// The sides conflict: the bytes with diff3 conflict markers.
    Conflict(Vec<u8>),
}

/// Merges `local` and `remote`, two descendants of `base`, labelling conflict hunks with
/// `labels` (local, base, remote): [`merge_text_into`] collected in memory.
///
/// # Example
/// ```
/// use asv_skilltree::merge::{merge_text, TextMerge};
/// let merged = merge_text(b"a\nb\nc\n", b"A\nb\nc\n", b"a\nb\nC\n", ["local", "base", "remote"]);
/// assert_eq!(merged, TextMerge::Clean(b"A\nb\nC\n".to_vec()));
/// ```
pub fn merge_text(base: &[u8], local: &[u8], remote: &[u8], labels: [&str; 3]) -> TextMerge {
    let mut out = Vec::with_capacity(local.len().max(remote.len()).saturating_add(4096));
    // A Vec takes every write, so the merge cannot fail.
    match merge_text_into(base, local, remote, labels, &mut out) {
        Ok(Outcome::Conflict) => TextMerge::Conflict(out),
        Ok(Outcome::Clean) | Err(_) => TextMerge::Clean(out),
    }
}

/// Why a path could not be merged.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ConflictKind {
    /// Both sides changed the same text file and the changes overlap.
    Content,
    /// One side deleted a file the other side changed.
    DeleteModify {
        /// The side that deleted it (the other side's version is what a written conflict
        /// leaves in place, without markers).
        deleted_by: MergeSide,
    },
    /// Both sides changed a file that is not text, differently.
    Binary,
    /// Both sides added the same path with different executable bits (with a base, the bit
    /// merges on its own and never conflicts).
    Mode,
    /// One side has a file where the other has files beneath a directory of that name.
    FileDirectory,
    /// A merge without a base ([`merge_without_base`]) found a path on one side only: an add
    /// on that side cannot be told from a delete on the other, so neither is chosen.
    AddDelete,
}

impl ConflictKind {
    /// The kind as printed: `content`, `delete/modify`, `binary`, `mode`, `file/directory`,
    /// `add/delete`.
    pub fn as_str(self) -> &'static str {
        match self {
            ConflictKind::Content => "content",
            ConflictKind::DeleteModify { .. } => "delete/modify",
            ConflictKind::Binary => "binary",
            ConflictKind::Mode => "mode",
            ConflictKind::FileDirectory => "file/directory",
            ConflictKind::AddDelete => "add/delete",
        }
    }
}

impl std::fmt::Display for ConflictKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One side of a three-way merge.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum MergeSide {
    /// The local copy.
    Local,
    /// The upstream version.
    Upstream,
}

/// One path the merge could not reconcile.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Conflict {
    /// The path, relative to the skill root.
    pub path: String,
    /// Why.
    pub kind: ConflictKind,
}

/// The outcome of a tree merge.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TreeMerge {
    /// With no conflicts, the merged tree. With conflicts, the tree a user would resolve by
    /// hand: conflicting text files hold diff3 markers, and every other conflict keeps the
    /// local side (for a delete/modify, the side that still has the file). Never the result of
    /// the merge when [`TreeMerge::conflicts`] is not empty.
    pub tree: SkillTree,
    /// The conflicts, sorted by path; empty for a clean merge.
    pub conflicts: Vec<Conflict>,
}

impl TreeMerge {
    /// Whether the merge reconciled every path.
    pub fn is_clean(&self) -> bool {
        self.conflicts.is_empty()
    }
}

/// Whether `data` is text for merging: valid UTF-8 with no NUL byte.
pub fn is_text(data: &[u8]) -> bool {
    !data.contains(&0) && std::str::from_utf8(data).is_ok()
}

type Side<'a> = Option<&'a FileNode>;

/// What one path merges to: the file kept (none for a path both sides deleted), and the
/// conflict there, if any.
type PathMerge = (Option<FileNode>, Option<ConflictKind>);

/// A three-way text merger: (base, local, remote) merged into the writer, and whether they
/// conflicted. [`merge_text_into`] with fixed labels is the usual one.
pub type TextMerger<'a> =
    dyn Fn(&[u8], &[u8], &[u8], &mut dyn Write) -> io::Result<Outcome> + Sync + 'a;

fn same(a: Side<'_>, b: Side<'_>) -> bool {
    match (a, b) {
        (None, None) => true,
        (Some(a), Some(b)) => a.data == b.data && a.executable == b.executable,
        _ => false,
    }
}

/// Merges `local` and `remote`, two descendants of `base`, path by path.
///
/// A path changed on one side only takes that side; a path changed alike on both sides takes
/// the change once; content and the executable bit merge independently, so a content change
/// on one side combines with a mode change on the other. Text files changed on both sides go
/// through `merge_text` (base, local, remote); every other divergence is a [`Conflict`]. A
/// rename is the deletion and addition it is recorded as.
///
/// Files are compared by content wherever their bytes are; only a file both sides changed is
/// read (its three versions), so a merge of trees left on disk holds one file at a time on
/// each core it runs on (paths are merged on every core, the result kept in path order).
/// The first error in path order is the one returned.
///
/// # Errors
/// A file left on disk that cannot be read again or changed since it was read
/// ([`crate::Stored::for_each_chunk`]).
///
/// # Example
/// ```
/// use asv_skilltree::{FileNode, SkillTree};
/// use asv_skilltree::merge::{merge, merge_text_into};
/// let file = |data: &str, executable| {
///     SkillTree::from_files(vec![FileNode { path: "run.sh".into(), data: data.into(), executable }])
///         .expect("held bytes")
/// };
/// let base = file("a\nb\n", false);
/// let local = file("a\nb\n", true); // local makes it executable
/// let remote = file("a\nB\n", false); // upstream edits it
/// let merged = merge(&base, &local, &remote, &|b, l, r, out| {
///     merge_text_into(b, l, r, ["local", "base", "upstream"], out)
/// })?;
/// assert!(merged.is_clean());
/// assert_eq!(merged.tree, file("a\nB\n", true));
/// # Ok::<(), asv_skilltree::Error>(())
/// ```
pub fn merge(
    base: &SkillTree,
    local: &SkillTree,
    remote: &SkillTree,
    merge_text: &TextMerger<'_>,
) -> Result<TreeMerge, Error> {
    let (b, l, r) = (index(base), index(local), index(remote));
    let paths: BTreeSet<&str> = b.keys().chain(l.keys()).chain(r.keys()).copied().collect();
    let paths: Vec<&str> = paths.into_iter().collect();
    // Each path on its own: comparing by digests, and merging the texts both sides changed,
    // on every core.
    let merged: Vec<Result<PathMerge, Error>> = {
        use rayon::prelude::*;
        paths
            .par_iter()
            .map(|&path| {
                let (bs, ls, rs) = (
                    b.get(path).copied(),
                    l.get(path).copied(),
                    r.get(path).copied(),
                );
                if same(ls, rs) || same(bs, rs) {
                    return Ok((ls.cloned(), None));
                }
                if same(bs, ls) {
                    return Ok((rs.cloned(), None));
                }
                match (ls, rs) {
                    (Some(lf), Some(rf)) => {
                        let (node, kind) = merge_file(path, bs, lf, rf, merge_text)?;
                        Ok((Some(node), kind))
                    }
                    // One side deleted what the other changed: keep the changed file for a
                    // user resolving by hand.
                    (kept, other) => {
                        let deleted_by = if kept.is_none() {
                            MergeSide::Local
                        } else {
                            MergeSide::Upstream
                        };
                        Ok((
                            kept.or(other).cloned(),
                            Some(ConflictKind::DeleteModify { deleted_by }),
                        ))
                    }
                }
            })
            .collect()
    };
    let mut out = Vec::with_capacity(paths.len());
    let mut conflicts = Vec::new();
    for (path, result) in paths.into_iter().zip(merged) {
        let (taken, kind) = result?;
        if let Some(kind) = kind {
            conflicts.push(Conflict {
                path: path.to_owned(),
                kind,
            });
        }
        out.extend(taken);
    }
    finish(out, conflicts, &l)
}

/// Merges `local` and `remote` when their common ancestor is lost: a two-way merge that
/// decides only what needs no base and leaves every other path to the user.
///
/// - A path both sides hold with the same bytes and the same executable bit is taken.
/// - A path both sides hold differently is a conflict: two text files go through
///   [`merge_text`] with an empty base and `labels`, so the conflicted file holds markers
///   with an empty base section ([`ConflictKind::Content`]; a file that is not text
///   is [`ConflictKind::Binary`]); the same bytes with different bits is
///   [`ConflictKind::Mode`]. The text merger is trusted only for its markers: two texts that
///   differ are never merged silently, even where it would call them clean.
/// - A path only one side holds is [`ConflictKind::AddDelete`]: without a base, an add on
///   one side looks exactly like a delete on the other, and taking either could undo the
///   other side's work. The side that holds it keeps it in the conflict view, so nothing is
///   lost; the user deletes it if the delete was meant.
///
/// The conflict view is built as [`merge`] builds it (local's side of a file/directory
/// clash, local's bit and bytes where they differ).
///
/// # Errors
/// As [`merge`].
///
/// # Example
/// ```
/// use asv_skilltree::{FileNode, SkillTree};
/// use asv_skilltree::merge::{ConflictKind, merge_without_base};
/// let tree = |files: &[(&str, &str)]| {
///     SkillTree::from_files(files.iter().map(|(p, d)| FileNode {
///         path: (*p).into(), data: (*d).into(), executable: false,
///     }).collect()).expect("held bytes")
/// };
/// let local = tree(&[("SKILL.md", "same\n"), ("mine.md", "mine\n")]);
/// let remote = tree(&[("SKILL.md", "same\n")]);
/// let merged = merge_without_base(&local, &remote, ["local", "base", "upstream"])?;
/// assert_eq!(merged.conflicts.len(), 1);
/// assert_eq!(merged.conflicts[0].kind, ConflictKind::AddDelete);
/// assert_eq!(merged.tree, local);
/// # Ok::<(), asv_skilltree::Error>(())
/// ```
pub fn merge_without_base(
    local: &SkillTree,
    remote: &SkillTree,
    labels: [&str; 3],
) -> Result<TreeMerge, Error> {
    let merger =
        |b: &[u8], l: &[u8], r: &[u8], out: &mut dyn Write| merge_text_into(b, l, r, labels, out);
    let (l, r) = (index(local), index(remote));
    let paths: BTreeSet<&str> = l.keys().chain(r.keys()).copied().collect();
    let mut out = Vec::with_capacity(paths.len());
    let mut conflicts = Vec::new();
    for path in paths {
        let (ls, rs) = (l.get(path).copied(), r.get(path).copied());
        let (node, kind) = match (ls, rs) {
            (Some(lf), Some(_)) if same(ls, rs) => (lf.clone(), None),
            (Some(lf), Some(rf)) => {
                let (mut node, kind) = merge_file(path, None, lf, rf, &merger)?;
                // Both sides hold the file and it differs: whatever the text merger made of
                // it, that is a conflict without a base to say which side changed it.
                let kind = match kind {
                    Some(kind) => Some(kind),
                    None if lf.data != rf.data => {
                        node.data =
                            whole_file_markers(&lf.data.read()?, &rf.data.read()?, labels).into();
                        Some(ConflictKind::Content)
                    }
                    None => None,
                };
                (node, kind)
            }
            (Some(only), None) | (None, Some(only)) => {
                (only.clone(), Some(ConflictKind::AddDelete))
            }
            (None, None) => continue,
        };
        if let Some(kind) = kind {
            conflicts.push(Conflict {
                path: path.to_owned(),
                kind,
            });
        }
        out.push(node);
    }
    finish(out, conflicts, &l)
}

/// A conflicted file holding the whole of both sides, with an empty base section (for the
/// texts the diff3 driver calls clean against an empty base: one side empty).
fn whole_file_markers(local: &[u8], remote: &[u8], labels: [&str; 3]) -> Vec<u8> {
    let mut out = Vec::with_capacity(local.len() + remote.len() + 64);
    let section = |out: &mut Vec<u8>, data: &[u8]| {
        out.extend_from_slice(data);
        if !data.is_empty() && !data.ends_with(b"\n") {
            out.push(b'\n');
        }
    };
    let [ours, base, theirs] = labels;
    out.extend_from_slice(format!("<<<<<<< {ours}\n").as_bytes());
    section(&mut out, local);
    out.extend_from_slice(format!("||||||| {base}\n=======\n").as_bytes());
    section(&mut out, remote);
    out.extend_from_slice(format!(">>>>>>> {theirs}\n").as_bytes());
    out
}

/// Drops the non-local side of each file/directory clash from the merged files and sorts the
/// conflicts: the end every tree merge shares.
fn finish(
    mut out: Vec<FileNode>,
    mut conflicts: Vec<Conflict>,
    l: &BTreeMap<&str, &FileNode>,
) -> Result<TreeMerge, Error> {
    let clashes = file_directory_clashes(&out, l);
    if !clashes.is_empty() {
        out.retain(|f| !clashes.dropped.contains(f.path.as_str()));
        conflicts.extend(clashes.files.into_iter().map(|path| Conflict {
            path,
            kind: ConflictKind::FileDirectory,
        }));
    }
    conflicts.sort();
    conflicts.dedup_by(|a, b| a.path == b.path);
    Ok(TreeMerge {
        tree: SkillTree::from_files_unhashed(out),
        conflicts,
    })
}

fn index(tree: &SkillTree) -> BTreeMap<&str, &FileNode> {
    tree.files().iter().map(|f| (f.path.as_str(), f)).collect()
}

/// Merges one file both sides changed differently; the conflict kind, if any.
fn merge_file(
    path: &str,
    base: Side<'_>,
    local: &FileNode,
    remote: &FileNode,
    merge_text: &TextMerger<'_>,
) -> Result<(FileNode, Option<ConflictKind>), Error> {
    let mut conflict = None;
    let executable = match base {
        // With a base the bit merges alone: whichever side moved it wins, and both moving it
        // means both moved it the same way.
        Some(b) if local.executable == b.executable => remote.executable,
        Some(_) => local.executable,
        None if local.executable == remote.executable => local.executable,
        None => {
            conflict = Some(ConflictKind::Mode);
            local.executable
        }
    };
    let empty = FileData::from(Vec::new());
    let base_data = base.map_or(&empty, |b| &b.data);
    let data = if local.data == remote.data {
        local.data.clone()
    } else if base.is_some() && local.data == *base_data {
        remote.data.clone()
    } else if base.is_some() && remote.data == *base_data {
        local.data.clone()
    } else {
        // Only here are bytes needed: one file's three versions, read from wherever they are.
        let (b, l, r) = (base_data.read()?, local.data.read()?, remote.data.read()?);
        if is_text(&b) && is_text(&l) && is_text(&r) {
            // Written as it is merged: held while the allowance lasts, else straight into the
            // spill directory, so a large merge is never built whole in memory.
            let mut merged = FileData::writer(l.len().max(r.len()) as u64)?;
            match merge_text(&b, &l, &r, &mut merged) {
                Ok(Outcome::Clean) => merged.finish()?,
                Ok(Outcome::Conflict) => {
                    conflict = Some(ConflictKind::Content);
                    merged.finish()?
                }
                Err(e) => {
                    return Err(merged.failure().unwrap_or(Error::Fs(asv_fs::Error::Io {
                        path: path.to_owned(),
                        op: "write the merge of",
                        error: e,
                    })));
                }
            }
        } else {
            conflict = Some(ConflictKind::Binary);
            local.data.clone()
        }
    };
    Ok((
        FileNode {
            path: path.to_owned(),
            data,
            executable,
        },
        conflict,
    ))
}

#[derive(Default)]
struct Clashes {
    /// The file paths in conflict.
    files: Vec<String>,
    /// Paths dropped from the merged view (the non-local side of each clash).
    dropped: BTreeSet<String>,
}

impl Clashes {
    fn is_empty(&self) -> bool {
        self.files.is_empty()
    }
}

/// Files of the merged result that stand where another merged file needs a directory.
fn file_directory_clashes(merged: &[FileNode], local: &BTreeMap<&str, &FileNode>) -> Clashes {
    let mut dirs: BTreeSet<&str> = BTreeSet::new();
    for f in merged {
        let mut p = f.path.as_str();
        while let Some(cut) = p.rfind('/') {
            p = &p[..cut];
            if !dirs.insert(p) {
                break;
            }
        }
    }
    let mut clashes = Clashes::default();
    for f in merged {
        if !dirs.contains(f.path.as_str()) {
            continue;
        }
        clashes.files.push(f.path.clone());
        if local.contains_key(f.path.as_str()) {
            // Local has the file: the other side's files beneath it leave the view.
            let prefix = format!("{}/", f.path);
            for g in merged {
                if g.path.starts_with(&prefix) && !local.contains_key(g.path.as_str()) {
                    clashes.dropped.insert(g.path.clone());
                }
            }
        } else {
            clashes.dropped.insert(f.path.clone());
        }
    }
    clashes
}

#[cfg(test)]
mod tests {
    use super::*;

    type Files<'a> = &'a [(&'a str, &'a str, bool)];

    fn tree(files: Files<'_>) -> SkillTree {
        SkillTree::from_files(
            files
                .iter()
                .map(|(path, data, executable)| FileNode {
                    path: (*path).to_owned(),
                    data: data.as_bytes().to_vec().into(),
                    executable: *executable,
                })
                .collect(),
        )
        .unwrap()
    }

    fn run(base: Files<'_>, local: Files<'_>, remote: Files<'_>) -> TreeMerge {
        merge(&tree(base), &tree(local), &tree(remote), &|b, l, r, out| {
            merge_text_into(b, l, r, ["local", "base", "upstream"], out)
        })
        .unwrap()
    }

    const TEXT: &str = "one\ntwo\nthree\nfour\nfive\n";
    const LOCAL_EDIT: &str = "ONE\ntwo\nthree\nfour\nfive\n";
    const REMOTE_EDIT: &str = "one\ntwo\nthree\nfour\nFIVE\n";
    const BOTH_EDITS: &str = "ONE\ntwo\nthree\nfour\nFIVE\n";
    const OTHER_EDIT: &str = "uno\ntwo\nthree\nfour\nfive\n";
    const BIN: &str = "a\0b";
    const BIN_L: &str = "a\0l";
    const BIN_R: &str = "a\0r";

    #[test]
    #[allow(clippy::type_complexity)]
    fn clean_merges() {
        let f = |d| [("f.md", d, false)];
        let rows: &[(&str, Files<'_>, Files<'_>, Files<'_>, Files<'_>)] = &[
            ("nothing changed", &f(TEXT), &f(TEXT), &f(TEXT), &f(TEXT)),
            (
                "local edit only",
                &f(TEXT),
                &f(LOCAL_EDIT),
                &f(TEXT),
                &f(LOCAL_EDIT),
            ),
            (
                "remote edit only",
                &f(TEXT),
                &f(TEXT),
                &f(REMOTE_EDIT),
                &f(REMOTE_EDIT),
            ),
            (
                "same edit both",
                &f(TEXT),
                &f(LOCAL_EDIT),
                &f(LOCAL_EDIT),
                &f(LOCAL_EDIT),
            ),
            (
                "disjoint text edits",
                &f(TEXT),
                &f(LOCAL_EDIT),
                &f(REMOTE_EDIT),
                &f(BOTH_EDITS),
            ),
            ("local add", &[], &f(TEXT), &[], &f(TEXT)),
            ("remote add", &[], &[], &f(TEXT), &f(TEXT)),
            ("same add both", &[], &f(TEXT), &f(TEXT), &f(TEXT)),
            ("local delete", &f(TEXT), &[], &f(TEXT), &[]),
            ("remote delete", &f(TEXT), &f(TEXT), &[], &[]),
            ("both delete", &f(TEXT), &[], &[], &[]),
            (
                "binary edited on one side",
                &f(BIN),
                &f(BIN),
                &f(BIN_R),
                &f(BIN_R),
            ),
            (
                "binary same edit both",
                &f(BIN),
                &f(BIN_L),
                &f(BIN_L),
                &f(BIN_L),
            ),
            (
                "exec bit local, content remote",
                &[("f.md", TEXT, false)],
                &[("f.md", TEXT, true)],
                &[("f.md", REMOTE_EDIT, false)],
                &[("f.md", REMOTE_EDIT, true)],
            ),
            (
                "content local, exec bit remote",
                &[("f.md", TEXT, true)],
                &[("f.md", LOCAL_EDIT, true)],
                &[("f.md", TEXT, false)],
                &[("f.md", LOCAL_EDIT, false)],
            ),
            (
                "exec bit both the same way, contents merged",
                &[("f.md", TEXT, false)],
                &[("f.md", LOCAL_EDIT, true)],
                &[("f.md", REMOTE_EDIT, true)],
                &[("f.md", BOTH_EDITS, true)],
            ),
            (
                "binary one side, exec other",
                &[("b", BIN, false)],
                &[("b", BIN, true)],
                &[("b", BIN_R, false)],
                &[("b", BIN_R, true)],
            ),
            (
                "rename on one side is a delete and an add",
                &[("a.md", TEXT, false)],
                &[("b.md", TEXT, false)],
                &[("a.md", TEXT, false), ("c.md", TEXT, false)],
                &[("b.md", TEXT, false), ("c.md", TEXT, false)],
            ),
            (
                "file replaced by a directory on one side",
                &[("x", TEXT, false)],
                &[("x/y", TEXT, false)],
                &[("x", TEXT, false)],
                &[("x/y", TEXT, false)],
            ),
        ];
        for (name, base, local, remote, want) in rows {
            let got = run(base, local, remote);
            assert!(got.is_clean(), "{name}: {:?}", got.conflicts);
            assert_eq!(got.tree, tree(want), "{name}");
        }
    }

    #[test]
    #[allow(clippy::type_complexity)]
    fn conflicts() {
        let f = |d| [("f.md", d, false)];
        let rows: &[(
            &str,
            Files<'_>,
            Files<'_>,
            Files<'_>,
            &[(&str, ConflictKind)],
        )] = &[
            (
                "overlapping text edits",
                &f(TEXT),
                &f(LOCAL_EDIT),
                &f(OTHER_EDIT),
                &[("f.md", ConflictKind::Content)],
            ),
            (
                "both added different text",
                &[],
                &f(LOCAL_EDIT),
                &f(OTHER_EDIT),
                &[("f.md", ConflictKind::Content)],
            ),
            (
                "local deleted, remote modified",
                &f(TEXT),
                &[],
                &f(REMOTE_EDIT),
                &[(
                    "f.md",
                    ConflictKind::DeleteModify {
                        deleted_by: MergeSide::Local,
                    },
                )],
            ),
            (
                "local modified, remote deleted",
                &f(TEXT),
                &f(LOCAL_EDIT),
                &[],
                &[(
                    "f.md",
                    ConflictKind::DeleteModify {
                        deleted_by: MergeSide::Upstream,
                    },
                )],
            ),
            (
                "local deleted, remote changed only the bit",
                &[("f.md", TEXT, false)],
                &[],
                &[("f.md", TEXT, true)],
                &[(
                    "f.md",
                    ConflictKind::DeleteModify {
                        deleted_by: MergeSide::Local,
                    },
                )],
            ),
            (
                "binary changed both sides",
                &f(BIN),
                &f(BIN_L),
                &f(BIN_R),
                &[("f.md", ConflictKind::Binary)],
            ),
            (
                "text became binary on one side, text edit on the other",
                &f(TEXT),
                &f(BIN_L),
                &f(REMOTE_EDIT),
                &[("f.md", ConflictKind::Binary)],
            ),
            (
                "both added the same bytes with different bits",
                &[],
                &[("run.sh", TEXT, true)],
                &[("run.sh", TEXT, false)],
                &[("run.sh", ConflictKind::Mode)],
            ),
            (
                "file on one side, directory on the other",
                &[],
                &[("x", TEXT, false)],
                &[("x/y", TEXT, false)],
                &[("x", ConflictKind::FileDirectory)],
            ),
            (
                "directory locally, file upstream",
                &[],
                &[("x/y", TEXT, false)],
                &[("x", TEXT, false)],
                &[("x", ConflictKind::FileDirectory)],
            ),
            (
                "several, sorted by path",
                &[("b.md", TEXT, false), ("a.md", TEXT, false)],
                &[("b.md", LOCAL_EDIT, false)],
                &[("b.md", OTHER_EDIT, false), ("a.md", REMOTE_EDIT, false)],
                &[
                    (
                        "a.md",
                        ConflictKind::DeleteModify {
                            deleted_by: MergeSide::Local,
                        },
                    ),
                    ("b.md", ConflictKind::Content),
                ],
            ),
        ];
        for (name, base, local, remote, want) in rows {
            let got = run(base, local, remote);
            let got_conflicts: Vec<(&str, ConflictKind)> = got
                .conflicts
                .iter()
                .map(|c| (c.path.as_str(), c.kind))
                .collect();
            assert_eq!(got_conflicts, *want, "{name}");
        }
    }

    #[test]
    fn the_conflict_view_keeps_what_a_user_needs() {
        let got = run(
            &[("f.md", TEXT, false)],
            &[("f.md", LOCAL_EDIT, false)],
            &[("f.md", OTHER_EDIT, false)],
        );
        let text =
            String::from_utf8(got.tree.files()[0].data.clone().into_bytes().unwrap()).unwrap();
        assert!(text.contains("<<<<<<< local\n"), "{text}");
        assert!(text.contains("||||||| base\n"), "{text}");
        assert!(text.contains(">>>>>>> upstream\n"), "{text}");
        // delete/modify keeps the modified side
        let got = run(
            &[("f.md", TEXT, false)],
            &[],
            &[("f.md", REMOTE_EDIT, false)],
        );
        assert_eq!(got.tree, tree(&[("f.md", REMOTE_EDIT, false)]));
        // binary keeps local
        let got = run(
            &[("b", BIN, false)],
            &[("b", BIN_L, false)],
            &[("b", BIN_R, false)],
        );
        assert_eq!(got.tree, tree(&[("b", BIN_L, false)]));
        // file/directory keeps the local side only, so the view can be written
        let got = run(&[], &[("x", TEXT, false)], &[("x/y", TEXT, false)]);
        assert_eq!(got.tree, tree(&[("x", TEXT, false)]));
        got.tree.check_paths().unwrap();
        let got = run(&[], &[("x/y", TEXT, false)], &[("x", TEXT, false)]);
        assert_eq!(got.tree, tree(&[("x/y", TEXT, false)]));
    }

    fn run_without_base(local: Files<'_>, remote: Files<'_>) -> TreeMerge {
        merge_without_base(&tree(local), &tree(remote), ["local", "base", "upstream"]).unwrap()
    }

    /// The rule of a merge without a base, one row per case: what it takes, what it leaves to
    /// the user, and the view a user resolves.
    #[test]
    #[allow(clippy::type_complexity)]
    fn a_merge_without_a_base_takes_only_what_both_sides_agree_on() {
        let rows: &[(
            &str,
            Files<'_>,
            Files<'_>,
            &[(&str, ConflictKind)],
            Files<'_>,
        )] = &[
            ("nothing at all", &[], &[], &[], &[]),
            (
                "the same on both sides",
                &[("a.md", TEXT, false), ("run.sh", TEXT, true)],
                &[("a.md", TEXT, false), ("run.sh", TEXT, true)],
                &[],
                &[("a.md", TEXT, false), ("run.sh", TEXT, true)],
            ),
            (
                "local only: an add here or a delete there",
                &[("a.md", TEXT, false)],
                &[],
                &[("a.md", ConflictKind::AddDelete)],
                &[("a.md", TEXT, false)],
            ),
            (
                "upstream only: an add there or a delete here",
                &[],
                &[("a.md", TEXT, false)],
                &[("a.md", ConflictKind::AddDelete)],
                &[("a.md", TEXT, false)],
            ),
            (
                "same bytes, other bit",
                &[("run.sh", TEXT, true)],
                &[("run.sh", TEXT, false)],
                &[("run.sh", ConflictKind::Mode)],
                &[("run.sh", TEXT, true)],
            ),
            (
                "binary differs",
                &[("b", BIN_L, false)],
                &[("b", BIN_R, false)],
                &[("b", ConflictKind::Binary)],
                &[("b", BIN_L, false)],
            ),
            (
                "a text edit on one side is a conflict: no base says which side edited",
                &[("f.md", LOCAL_EDIT, false)],
                &[("f.md", TEXT, false)],
                &[("f.md", ConflictKind::Content)],
                &[],
            ),
            (
                "one text the start of the other",
                &[("f.md", "a\nb\n", false)],
                &[("f.md", "a\n", false)],
                &[("f.md", ConflictKind::Content)],
                &[],
            ),
            (
                "file/directory keeps the local side",
                &[("x", TEXT, false)],
                &[("x/y", TEXT, false)],
                &[
                    ("x", ConflictKind::FileDirectory),
                    ("x/y", ConflictKind::AddDelete),
                ],
                &[("x", TEXT, false)],
            ),
        ];
        for (name, local, remote, want, view) in rows {
            let got = run_without_base(local, remote);
            let kinds: Vec<(&str, ConflictKind)> = got
                .conflicts
                .iter()
                .map(|c| (c.path.as_str(), c.kind))
                .collect();
            assert_eq!(kinds, *want, "{name}");
            // A text conflict's view holds markers, checked below; the others are listed.
            if !view.is_empty() || want.is_empty() {
                assert_eq!(got.tree, tree(view), "{name}");
            }
            got.tree.check_paths().unwrap();
        }
    }

    #[test]
    fn a_text_conflict_without_a_base_has_an_empty_base_section() {
        // The last two the diff3 driver alone would call clean: one side is empty.
        for (local, remote) in [
            (LOCAL_EDIT, TEXT),
            ("a\nb\n", "a\n"),
            ("x", "y\n"),
            ("", "a\n"),
            ("a\n", ""),
        ] {
            let got = run_without_base(&[("f.md", local, false)], &[("f.md", remote, false)]);
            let text =
                String::from_utf8(got.tree.files()[0].data.clone().into_bytes().unwrap()).unwrap();
            assert!(text.contains("<<<<<<< local\n"), "{text}");
            assert!(text.contains("||||||| base\n=======\n"), "{text}");
            assert!(text.contains(">>>>>>> upstream\n"), "{text}");
        }
    }

    #[test]
    fn text_is_utf8_without_nul() {
        assert!(is_text(b"plain\n"));
        assert!(is_text("ünïcödé".as_bytes()));
        assert!(!is_text(b"a\0b"));
        assert!(!is_text(&[0xff, 0xfe]));
    }
}
