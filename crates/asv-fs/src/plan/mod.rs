//! Tree changes: plan, then apply.
//!
//! A command that replaces or removes whole entries of a user's tree (a placed directory, a
//! copy, the tool's own state) must never leave the tree half-changed, and must never touch an
//! entry it cannot show is its to touch. Doing that check while writing would mean discovering
//! a refusal after half the writes are done. So every such command first describes what it
//! wants as a list of [`Change`]s and hands it to [`Plan::new`], which looks at the tree
//! without writing anything and decides, for each destination, one [`Action`] — `create`,
//! `replace`, `remove`, `keep` or `subsumed` — or refuses the whole plan with a reason that
//! names the path and says what to do. Only a plan that was accepted in full can be applied.
//!
//! [`Plan::apply`] then stages every new entry beside its destination (a new file in a
//! directory the apply makes is written in place), parks every previous entry under a sibling
//! name, moves the staged entries in, and only after every one of them is in place (the commit point) deletes what it parked. A failure before the commit point rolls
//! everything back in reverse, so every destination holds again exactly what it held before;
//! a parked entry is never deleted on a failure path. [`Plan::describe`] is the dry run.
//!
//! # Example
//! ```
//! use asv_fs::plan::{Change, Fill, NewFile, Ownership, Plan};
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let dir = tempfile::tempdir()?;
//! let root = asv_fs::Root::open(dir.path())?;
//! root.write_file("skills/old/SKILL.md", b"old\n")?;
//! root.write_file("notes.md", b"v1\n")?;
//!
//! let plan = Plan::new(
//!     &root,
//!     vec![
//!         Change::replace(
//!             "skills/new",
//!             Fill::files(vec![NewFile::new("SKILL.md", b"new\n")]),
//!             Ownership::MustBeFree,
//!         ),
//!         Change::remove("skills/old", Ownership::Force),
//!         Change::replace_file("notes.md", b"v2\n", Ownership::Force),
//!     ],
//! )?;
//! assert_eq!(
//!     plan.describe(),
//!     "replace notes.md (forced)\ncreate skills/new\nremove skills/old (forced)\n"
//! );
//! let lock = root.lock_for_writing(std::time::Duration::from_secs(2))?;
//! let applied = plan.apply(&lock)?;
//! assert!(applied.warnings().is_empty());
//! assert_eq!(root.read_file("skills/new/SKILL.md")?.as_deref(), Some(&b"new\n"[..]));
//! assert_eq!(root.kind("skills/old")?, None);
//! assert_eq!(root.read_file("notes.md")?.as_deref(), Some(&b"v2\n"[..]));
//! # Ok(())
//! # }
//! ```

use std::collections::{BTreeSet, HashMap, HashSet};
use std::fmt;
use std::fs;
use std::path::Path;

use crate::error::{EntryKind, Error, Result};
use crate::faults::{Calls, FaultPlan};
use crate::root::{Root, join, parent_of};
mod change;
mod copy;
pub(crate) mod seen;

pub use change::{
    Action, Body, Change, Content, Disowned, During, FileSink, FileWriteFn, Fill, NewFile,
    Ownership, PlannedChange, Recogniser, SharedBytes, TreeFile, Verdict, WriteFn,
};
pub(crate) use change::{FileContents, Operation};
pub(crate) use copy::{CopyEntry, real_copy_source, walk_copy_source};

/// One change and what was decided for it.
pub(crate) struct Entry {
    pub(crate) change: Change,
    pub(crate) planned: PlannedChange,
    /// For a copy: whether the source is a directory (else a regular file).
    pub(crate) copy_source_is_dir: bool,
    /// What stood at the destination when the change was decided (`None`: nothing did, or
    /// the tool's own state): compared again just before the swap.
    pub(crate) seen: Option<seen::Seen>,
}

/// A list of tree changes, each decided with no side effect, ready to apply.
///
/// Made by [`Plan::new`]; shown by [`Plan::describe`]; carried out by [`Plan::apply`].
pub struct Plan<'t> {
    pub(crate) root: &'t Root,
    pub(crate) entries: Vec<Entry>,
    pub(crate) faults: Option<FaultPlan>,
}

impl fmt::Debug for Plan<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Plan")
            .field("root", &self.root.root())
            .field("changes", &self.changes().collect::<Vec<_>>())
            .finish()
    }
}

/// Whether `path` is a plain relative path: non-empty segments, none `.` or `..`, no NUL (so
/// it names an entry below the directory it is taken from, never one beside or above it).
pub fn is_plain_relative(path: &str) -> bool {
    !path.is_empty()
        && !path.contains('\0')
        && path
            .split('/')
            .all(|seg| !seg.is_empty() && seg != "." && seg != "..")
}

/// Whether `inner` is `outer` or lies below it (both plain relative paths).
pub(crate) fn is_within(outer: &str, inner: &str) -> bool {
    inner == outer
        || (inner.len() > outer.len()
            && inner.starts_with(outer)
            && inner.as_bytes()[outer.len()] == b'/')
}

/// Whether a directory on the way to `dest` is among the `missing` ones.
fn under_missing(missing: &HashSet<String>, dest: &str) -> bool {
    let mut dir = parent_of(dest);
    while !dir.is_empty() {
        if missing.contains(dir) {
            return true;
        }
        dir = parent_of(dir);
    }
    false
}

/// Whether the entry at `dest` holds exactly `content`.
fn holds_same(root: &Root, dest: &str, existing: EntryKind, content: &Content) -> Result<bool> {
    match (content, existing) {
        (Content::File(bytes), EntryKind::File) => {
            Ok(root.read_file(dest)?.as_deref() == Some(bytes.as_slice()))
        }
        (Content::Files(files), EntryKind::Directory) => {
            let found = match root.walk_files(dest, &mut |_, _| false) {
                Ok(found) => found.unwrap_or_default(),
                // A link or special file inside is something the content does not hold.
                Err(Error::Symlink { .. } | Error::WrongKind { .. }) => return Ok(false),
                Err(e) => return Err(e),
            };
            let mut wanted: Vec<&(String, Vec<u8>)> = files.iter().collect();
            wanted.sort_by(|a, b| a.0.cmp(&b.0));
            if found.len() != wanted.len()
                || found
                    .iter()
                    .zip(&wanted)
                    .any(|(have, want)| *have != want.0)
            {
                return Ok(false);
            }
            for (path, bytes) in wanted {
                if root.read_file(&join(dest, path))?.as_deref() != Some(bytes.as_slice()) {
                    return Ok(false);
                }
            }
            Ok(true)
        }
        _ => Ok(false),
    }
}

/// Refuses the entry standing at `dest` unless `ownership` lets the change touch it; the
/// reason to show when it does.
fn check_owned(
    root: &Root,
    dest: &str,
    existing: EntryKind,
    ownership: &Ownership,
) -> Result<&'static str> {
    match ownership {
        Ownership::MustBeFree => {
            let empty = existing == EntryKind::Directory
                && root
                    .read_dir(dest)?
                    .is_none_or(|listing| listing.is_empty());
            if empty {
                Ok(ownership.reason())
            } else {
                Err(Error::DestOccupied {
                    dest: dest.to_owned(),
                    found: existing,
                })
            }
        }
        Ownership::Force | Ownership::ToolState => Ok(ownership.reason()),
        Ownership::ToolMade(recogniser) => match (recogniser.0)(root, dest, existing)? {
            Verdict::Ours => Ok(ownership.reason()),
            Verdict::NotOurs(reason) => Err(Error::NotOwned {
                dest: dest.to_owned(),
                reason,
            }),
        },
    }
}

/// Checks the files of a `write` fill: plain relative paths, none twice, none inside another.
fn check_fill_files(dest: &str, files: &[NewFile]) -> Result<()> {
    let mut seen = BTreeSet::new();
    for file in files {
        if !is_plain_relative(&file.path) || !seen.insert(file.path.as_str()) {
            return Err(Error::InvalidFillPath {
                dest: dest.to_owned(),
                path: file.path.clone(),
            });
        }
    }
    // In sorted order a path with a file below it is followed by one of them, or by a
    // sibling sorting between (`a-b` between `a` and `a/c`); look at every later path that
    // shares the prefix.
    let sorted: Vec<&str> = seen.into_iter().collect();
    for (i, outer) in sorted.iter().enumerate() {
        for inner in &sorted[i + 1..] {
            if !inner.starts_with(outer) {
                break;
            }
            if is_within(outer, inner) {
                return Err(Error::InvalidFillPath {
                    dest: dest.to_owned(),
                    path: (*inner).to_owned(),
                });
            }
        }
    }
    Ok(())
}

impl<'t> Plan<'t> {
    /// Decides every change against what stands in `root` now, writing nothing.
    ///
    /// Changes are taken in destination order (segment by segment, so a directory comes
    /// just before what lies inside it); two changes of one destination keep their order.
    /// For each, what stands there is read without following links, and:
    ///
    /// - a `replace` (or `replace-file`) is `create` where nothing stands, else `replace`
    ///   when its [`Ownership`] allows;
    /// - a `remove` is `keep` where nothing stands or where the entry holds its
    ///   keep-if-same content (and so is every remove holding such a kept entry), else
    ///   `remove` when its ownership allows;
    /// - a remove at or inside the destination of another active change is `subsumed`.
    ///
    /// Every copy source is walked in full, proving it holds only directories and regular
    /// files that can be read.
    ///
    /// # Errors
    /// The first refusal in destination order:
    /// [`Error::InvalidDest`] (an empty, absolute, `.` or `..` segment),
    /// [`Error::InvalidFillPath`], [`Error::DestOccupied`] (`must-be-free` over anything but
    /// an empty directory), [`Error::NotOwned`] (the recogniser disowned it),
    /// [`Error::DestHoldsCopySource`] / [`Error::CopySourceHoldsDest`] (a copy source that is, lies
    /// in or holds its destination), [`Error::CopySourceLink`] / [`Error::CopySourceWrongKind`] /
    /// [`Error::CopySourceUnreadable`] (the copy source), then [`Error::DestsOverlap`] (two
    /// active changes at one place). A link or non-directory on the way to a destination is
    /// [`Error::Symlink`] / [`Error::WrongKind`]; a failing read is [`Error::Io`] or the
    /// recogniser's own error.
    pub fn new(root: &'t Root, changes: Vec<Change>) -> Result<Self> {
        for change in &changes {
            if !is_plain_relative(&change.dest) {
                return Err(Error::InvalidDest {
                    dest: change.dest.clone(),
                });
            }
        }
        let mut changes = changes;
        changes.sort_by(|a, b| a.dest.split('/').cmp(b.dest.split('/')));

        let real_root =
            fs::canonicalize(root.root()).map_err(|e| Error::io("", "resolve the root", e))?;
        let mut entries = Vec::with_capacity(changes.len());
        // Directories found missing on the way to a destination: nothing stands below them
        // either, so the destinations that share one (the copies of a skill whose vendor
        // directory does not exist yet) are not looked up one by one. Planning writes nothing,
        // so what was missing for one change is missing for the next.
        let mut missing: HashSet<String> = HashSet::new();
        for change in changes {
            let dest = change.dest.as_str();
            let existing = if under_missing(&missing, dest) {
                None
            } else {
                match root.kind_or_missing_parent(dest)? {
                    Ok(kind) => kind,
                    Err(()) => {
                        missing.insert(parent_of(dest).to_owned());
                        None
                    }
                }
            };
            entries.push(Self::decide(root, &real_root, change, existing)?);
        }
        Self::relate(&mut entries)?;
        Ok(Plan {
            root,
            entries,
            faults: None,
        })
    }

    /// Decides one change on its own, `existing` being what stands at its destination.
    fn decide(
        root: &Root,
        real_root: &Path,
        change: Change,
        existing: Option<EntryKind>,
    ) -> Result<Entry> {
        let dest = change.dest.as_str();
        let mut copy_source_is_dir = false;
        match &change.operation {
            Operation::Replace(Fill::Copy(source)) => {
                let shown = source.display().to_string();
                walk_copy_source(source, &shown, &Calls::none(), &mut |entry| {
                    if let CopyEntry::Dir { rel: "", .. } = entry {
                        copy_source_is_dir = true;
                    }
                    Ok(())
                })?;
                let source_real = real_copy_source(source, &shown)?;
                let dest_real = real_root.join(dest);
                if source_real.starts_with(&dest_real) {
                    return Err(Error::DestHoldsCopySource {
                        dest: dest.to_owned(),
                        copy_source: shown,
                    });
                }
                if dest_real.starts_with(&source_real) {
                    return Err(Error::CopySourceHoldsDest {
                        dest: dest.to_owned(),
                        copy_source: shown,
                    });
                }
            }
            Operation::Replace(Fill::Files(files)) => check_fill_files(dest, files)?,
            Operation::Replace(Fill::Link(target)) => {
                if target.as_os_str().is_empty() {
                    return Err(Error::InvalidFillPath {
                        dest: dest.to_owned(),
                        path: String::new(),
                    });
                }
            }
            Operation::Replace(Fill::With(_)) | Operation::ReplaceFile(_) => {}
            Operation::Remove(_) => {}
        }
        // Taken before the recogniser reads the entry: whatever it judged is no older.
        let seen = match (existing, &change.ownership) {
            (None, _) | (_, Ownership::ToolState) => None,
            _ => seen::Seen::take(root, dest)?,
        };
        let (action, reason) = match (&change.operation, existing) {
            (Operation::Remove(_), None) => (Action::Keep, Some("already absent")),
            (Operation::Remove(Some(content)), Some(kind))
                if holds_same(root, dest, kind, content)? =>
            {
                (Action::Keep, Some("holds the content to keep"))
            }
            (Operation::Remove(_), Some(kind)) => (
                Action::Remove,
                Some(check_owned(root, dest, kind, &change.ownership)?),
            ),
            (_, None) => (Action::Create, None),
            (_, Some(kind)) => (
                Action::Replace,
                Some(check_owned(root, dest, kind, &change.ownership)?),
            ),
        };
        // The destination moves to the planned change: a plan of many changes holds each path
        // once.
        let mut change = change;
        Ok(Entry {
            planned: PlannedChange {
                dest: std::mem::take(&mut change.dest),
                existing,
                action,
                reason: reason.map(std::borrow::Cow::Borrowed),
            },
            change,
            copy_source_is_dir,
            seen: seen.filter(|_| action.is_active()),
        })
    }

    /// Decides the changes against each other: keeps spread up to the removes holding a kept
    /// entry; a remove at or inside another active destination is subsumed; any other two
    /// active changes at one place are refused.
    fn relate(entries: &mut [Entry]) -> Result<()> {
        let kept: Vec<usize> = (0..entries.len())
            .filter(|&i| {
                entries[i].planned.action == Action::Keep && entries[i].planned.existing.is_some()
            })
            .collect();
        if !kept.is_empty() {
            let mut removes: HashMap<String, Vec<usize>> = HashMap::new();
            for (i, entry) in entries.iter().enumerate() {
                if entry.planned.action == Action::Remove {
                    removes
                        .entry(entry.planned.dest.clone())
                        .or_default()
                        .push(i);
                }
            }
            for k in kept {
                let inner = entries[k].planned.dest.clone();
                let mut prefix = String::new();
                for seg in inner.split('/') {
                    if !prefix.is_empty() {
                        prefix.push('/');
                    }
                    prefix.push_str(seg);
                    for &i in removes.get(&prefix).map(Vec::as_slice).unwrap_or_default() {
                        let planned = &mut entries[i].planned;
                        planned.action = Action::Keep;
                        planned.reason = Some(
                            format!("holds the kept {}", asv_error::quote::DisplayPath(&inner))
                                .into(),
                        );
                    }
                }
            }
        }

        // In segment order every destination comes after the ones holding it, so the active
        // ones holding the current one are a stack.
        let mut stack: Vec<usize> = Vec::new();
        for i in 0..entries.len() {
            let dest = entries[i].planned.dest.clone();
            while let Some(&top) = stack.last() {
                if is_within(&entries[top].planned.dest, &dest) {
                    break;
                }
                stack.pop();
            }
            let is_remove = matches!(entries[i].change.operation, Operation::Remove(_));
            if let Some(&outer) = stack.last() {
                let outer_dest = entries[outer].planned.dest.clone();
                if is_remove {
                    let planned = &mut entries[i].planned;
                    planned.action = Action::Subsumed;
                    planned.reason = Some(if outer_dest == dest {
                        "also changed by an earlier change".into()
                    } else {
                        format!("inside {}", asv_error::quote::DisplayPath(&outer_dest)).into()
                    });
                    continue;
                }
                return Err(Error::DestsOverlap {
                    outer: outer_dest,
                    inner: dest,
                });
            }
            if entries[i].planned.action.is_active() {
                stack.push(i);
            }
        }
        // A kept remove holding an active change is not subsumed by it but must not be
        // changed under it either.
        let mut holders: Vec<usize> = Vec::new();
        for i in 0..entries.len() {
            let dest = entries[i].planned.dest.clone();
            while let Some(&top) = holders.last() {
                if is_within(&entries[top].planned.dest, &dest) {
                    break;
                }
                holders.pop();
            }
            let planned = &entries[i].planned;
            if planned.action.is_active() {
                if let Some(&outer) = holders.last() {
                    return Err(Error::DestsOverlap {
                        outer: entries[outer].planned.dest.clone(),
                        inner: dest,
                    });
                }
            } else if planned.action == Action::Keep && planned.existing.is_some() {
                holders.push(i);
            }
        }
        Ok(())
    }

    /// Every destination and what was decided there, in destination order.
    pub fn changes(&self) -> impl Iterator<Item = &PlannedChange> {
        self.entries.iter().map(|entry| &entry.planned)
    }

    /// Whether applying the plan would touch nothing (every change is `keep` or `subsumed`).
    pub fn is_noop(&self) -> bool {
        !self.changes().any(|planned| planned.action.is_active())
    }

    /// The tree the plan changes: the one whose writer lock [`Plan::apply`] takes.
    pub fn root(&self) -> &'t Root {
        self.root
    }

    /// The dry run: one line per destination, `<action> <path>` and the reason in
    /// parentheses when there is one, in destination order, each ending in a newline.
    pub fn describe(&self) -> String {
        let mut out = String::new();
        for planned in self.changes() {
            out.push_str(&planned.to_string());
            out.push('\n');
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_relative_paths() {
        let rows: &[(&str, bool)] = &[
            ("a", true),
            ("a/b", true),
            ("..foo", true),
            ("...", true),
            ("a/..b/c", true),
            ("", false),
            ("/a", false),
            ("a/", false),
            ("a//b", false),
            (".", false),
            ("..", false),
            ("a/../b", false),
            ("a/./b", false),
            ("a/..", false),
            ("a\0b", false),
        ];
        for (path, want) in rows {
            assert_eq!(is_plain_relative(path), *want, "{path:?}");
        }
    }

    #[test]
    fn within_table() {
        let rows: &[(&str, &str, bool)] = &[
            ("a", "a", true),
            ("a", "a/b", true),
            ("a", "ab", false),
            ("a", "a-b/c", false),
            ("a/b", "a", false),
            ("a/b", "a/b/c/d", true),
        ];
        for (outer, inner, want) in rows {
            assert_eq!(is_within(outer, inner), *want, "{outer} {inner}");
        }
    }

    #[test]
    fn fill_paths_are_checked() {
        let ok = [
            NewFile::new("a", ""),
            NewFile::new("a-b/c", ""),
            NewFile::new("b/c", ""),
        ];
        assert!(check_fill_files("d", &ok).is_ok());
        for bad in [
            vec![NewFile::new("a", ""), NewFile::new("a", "")],
            vec![
                NewFile::new("a", ""),
                NewFile::new("a-b", ""),
                NewFile::new("a/c", ""),
            ],
            vec![NewFile::new("../x", "")],
            vec![NewFile::new("", "")],
        ] {
            assert!(
                matches!(
                    check_fill_files("d", &bad),
                    Err(Error::InvalidFillPath { .. })
                ),
                "{bad:?}"
            );
        }
    }
}
