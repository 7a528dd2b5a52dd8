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
//! [`Plan::apply`] then stages every new entry beside its destination, parks every previous
//! entry under a sibling name, moves the staged entries in, and only after every one of them is
//! in place (the commit point) deletes what it parked. A failure before the commit point rolls
//! everything back in reverse, so every destination holds again exactly what it held before;
//! a parked entry is never deleted on a failure path. [`Plan::describe`] is the dry run.
//!
//! # Example
//! ```
//! use asv_fs::plan::{Change, Fill, NewFile, Ownership, Plan};
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let dir = tempfile::tempdir()?;
//! let tree = asv_fs::Tree::open(dir.path())?;
//! tree.write_file("skills/old/SKILL.md", b"old\n")?;
//! tree.write_file("notes.md", b"v1\n")?;
//!
//! let plan = Plan::new(
//!     &tree,
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
//! let applied = plan.apply()?;
//! assert!(applied.warnings().is_empty());
//! assert_eq!(tree.read_file("skills/new/SKILL.md")?.as_deref(), Some(&b"new\n"[..]));
//! assert_eq!(tree.kind("skills/old")?, None);
//! assert_eq!(tree.read_file("notes.md")?.as_deref(), Some(&b"v2\n"[..]));
//! # Ok(())
//! # }
//! ```

use std::collections::{BTreeSet, HashMap};
use std::fmt;
use std::fs::{self, File, OpenOptions};
use std::io;
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use rustix::fs::OFlags;

use crate::apply::{Applied, Calls, FaultPlan};
use crate::error::{EntryKind, Error, Result};
use crate::tree::{Tree, join, kind_of};

/// One file of a [`Fill::files`] fill.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewFile {
    /// The file's path inside the new entry (relative, `/` separators).
    pub path: String,
    /// The file's bytes.
    pub bytes: Vec<u8>,
    /// Whether the file is made executable (mode 0777 rather than 0666, narrowed by the umask).
    pub executable: bool,
}

impl NewFile {
    /// A non-executable file at `path` holding `bytes`.
    pub fn new(path: impl Into<String>, bytes: impl Into<Vec<u8>>) -> Self {
        NewFile {
            path: path.into(),
            bytes: bytes.into(),
            executable: false,
        }
    }

    /// The same file, made executable.
    #[must_use]
    pub fn executable(mut self) -> Self {
        self.executable = true;
        self
    }
}

/// A callback that fills an empty staged directory; it gets a [`Tree`] rooted there.
pub type WriteFn = Box<dyn FnOnce(&Tree) -> Result<()> + Send>;

/// What a `replace` change fills its destination with.
pub enum Fill {
    /// A copy of the directory or regular file at this path, read without following any link:
    /// a link (the source itself included) or a special file anywhere in it refuses the plan.
    /// Each file keeps its permission bits; each directory gets its source's `| 0o700`, so a
    /// read-only source never becomes a copy that cannot be filled or removed.
    Copy(PathBuf),
    /// A directory holding exactly these files (and the directories on their way).
    Files(Vec<NewFile>),
    /// A directory the callback fills, called while the plan is applied.
    With(WriteFn),
    /// A symbolic link whose text is this target, written as given and never followed (a
    /// development install pointing at a working copy). The tool's reads still refuse what
    /// it makes: only a caller that asked for a link gets one.
    Link(PathBuf),
}

impl Fill {
    /// A copy of `source` (a directory or a regular file).
    pub fn copy(source: impl Into<PathBuf>) -> Self {
        Fill::Copy(source.into())
    }

    /// A directory holding exactly `files`.
    pub fn files(files: Vec<NewFile>) -> Self {
        Fill::Files(files)
    }

    /// A symbolic link to `target` (its text exactly as given).
    pub fn link(target: impl Into<PathBuf>) -> Self {
        Fill::Link(target.into())
    }

    /// A directory `write` fills through a [`Tree`] rooted at the staged directory.
    pub fn with(write: impl FnOnce(&Tree) -> Result<()> + Send + 'static) -> Self {
        Fill::With(Box::new(write))
    }
}

impl fmt::Debug for Fill {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Fill::Copy(source) => f.debug_tuple("Copy").field(source).finish(),
            Fill::Files(files) => f.debug_tuple("Files").field(files).finish(),
            Fill::With(_) => f.write_str("With(..)"),
            Fill::Link(target) => f.debug_tuple("Link").field(target).finish(),
        }
    }
}

/// What a `remove` compares the existing entry with before removing it (see
/// [`Change::remove_keep_if_same`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Content {
    /// A regular file with these bytes.
    File(Vec<u8>),
    /// A directory holding exactly these regular files (path, bytes), and no link or special
    /// file; empty directories and permission bits are not compared.
    Files(Vec<(String, Vec<u8>)>),
}

/// A recogniser's answer about an existing entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// The entry is the tool's to replace or remove.
    Ours,
    /// The entry is not the tool's; the text says why (it goes into the refusal).
    NotOurs(String),
}

type RecogniseFn = dyn Fn(&Tree, &str, EntryKind) -> Result<Verdict> + Send + Sync;

/// A predicate over an existing entry deciding whether the tool made it (see
/// [`Ownership::ToolMade`]). It is given the tree, the destination and what stands there.
#[derive(Clone)]
pub struct Recogniser(Arc<RecogniseFn>);

impl Recogniser {
    /// Wraps `recognise`.
    pub fn new(
        recognise: impl Fn(&Tree, &str, EntryKind) -> Result<Verdict> + Send + Sync + 'static,
    ) -> Self {
        Recogniser(Arc::new(recognise))
    }
}

impl fmt::Debug for Recogniser {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Recogniser(..)")
    }
}

/// Whose the entry at a destination is, and so whether a change may touch it.
#[derive(Debug, Clone)]
pub enum Ownership {
    /// Nothing may stand there (an empty directory counts as nothing): anything else is
    /// [`Error::DestOccupied`].
    MustBeFree,
    /// Whatever stands there goes (the user asked for it).
    Force,
    /// What stands there goes only when the recogniser says the tool made it; otherwise
    /// [`Error::NotOwned`].
    ToolMade(Recogniser),
    /// The tool's own state (under `.agentic-skill-vendor/`): replaced or removed freely.
    ToolState,
}

impl Ownership {
    /// [`Ownership::ToolMade`] with `recognise` as its recogniser.
    pub fn tool_made(
        recognise: impl Fn(&Tree, &str, EntryKind) -> Result<Verdict> + Send + Sync + 'static,
    ) -> Self {
        Ownership::ToolMade(Recogniser::new(recognise))
    }

    fn reason(&self) -> &'static str {
        match self {
            Ownership::MustBeFree => "empty directory",
            Ownership::Force => "forced",
            Ownership::ToolMade(_) => "made by this tool",
            Ownership::ToolState => "tool state",
        }
    }
}

/// The bytes of a `replace-file` change: given, or made when the file is staged.
pub(crate) enum FileContents {
    /// The bytes.
    Bytes(Vec<u8>),
    /// Called once, when the file is staged.
    Later(Box<dyn FnOnce() -> Vec<u8> + Send>),
    /// Bytes shared with other changes (one text written to many places).
    Shared(std::sync::Arc<[u8]>),
}

/// What a change does to its destination.
pub(crate) enum Operation {
    Replace(Fill),
    ReplaceFile(FileContents),
    Remove(Option<Content>),
}

/// One wanted change of a tree: a destination (relative to the [`Tree`]'s root, `/`
/// separators), what to do there, and whose the entry there is.
pub struct Change {
    pub(crate) dest: String,
    pub(crate) operation: Operation,
    pub(crate) ownership: Ownership,
}

impl Change {
    /// Fill `dest` with a new entry made by `fill`, in place of whatever `ownership` allows
    /// to stand there.
    pub fn replace(dest: impl Into<String>, fill: Fill, ownership: Ownership) -> Self {
        Change {
            dest: dest.into(),
            operation: Operation::Replace(fill),
            ownership,
        }
    }

    /// Make `dest` a regular file holding `bytes`. A regular file already there keeps its
    /// permission bits; a new one gets 0666 narrowed by the umask.
    pub fn replace_file(
        dest: impl Into<String>,
        bytes: impl Into<Vec<u8>>,
        ownership: Ownership,
    ) -> Self {
        Change {
            dest: dest.into(),
            operation: Operation::ReplaceFile(FileContents::Bytes(bytes.into())),
            ownership,
        }
    }

    /// [`Change::replace_file`] with the bytes made by `contents` when the file is staged, so a
    /// plan of many files holds one file's bytes at a time rather than all of them.
    pub fn replace_file_with(
        dest: impl Into<String>,
        contents: impl FnOnce() -> Vec<u8> + Send + 'static,
        ownership: Ownership,
    ) -> Self {
        Change {
            dest: dest.into(),
            operation: Operation::ReplaceFile(FileContents::Later(Box::new(contents))),
            ownership,
        }
    }

    /// [`Change::replace_file`] with bytes shared by other changes of the plan: a text written
    /// to many destinations is held once.
    pub fn replace_file_shared(
        dest: impl Into<String>,
        bytes: std::sync::Arc<[u8]>,
        ownership: Ownership,
    ) -> Self {
        Change {
            dest: dest.into(),
            operation: Operation::ReplaceFile(FileContents::Shared(bytes)),
            ownership,
        }
    }

    /// Remove whatever stands at `dest` (a file, or a directory with everything in it). Nothing
    /// there is a `keep`.
    pub fn remove(dest: impl Into<String>, ownership: Ownership) -> Self {
        Change {
            dest: dest.into(),
            operation: Operation::Remove(None),
            ownership,
        }
    }

    /// Remove `dest` unless it holds exactly `content`, in which case it is kept (and so is
    /// every other remove of the plan that holds it).
    pub fn remove_keep_if_same(
        dest: impl Into<String>,
        content: Content,
        ownership: Ownership,
    ) -> Self {
        Change {
            dest: dest.into(),
            operation: Operation::Remove(Some(content)),
            ownership,
        }
    }

    /// The destination, as given.
    pub fn dest(&self) -> &str {
        &self.dest
    }
}

impl fmt::Debug for Change {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let operation = match &self.operation {
            Operation::Replace(fill) => format!("replace {fill:?}"),
            Operation::ReplaceFile(FileContents::Bytes(bytes)) => {
                format!("replace-file ({} bytes)", bytes.len())
            }
            Operation::ReplaceFile(FileContents::Later(_)) => {
                "replace-file (made when staged)".to_owned()
            }
            Operation::ReplaceFile(FileContents::Shared(bytes)) => {
                format!("replace-file ({} shared bytes)", bytes.len())
            }
            Operation::Remove(keep) => format!("remove (keep if same: {})", keep.is_some()),
        };
        f.debug_struct("Change")
            .field("dest", &self.dest)
            .field("operation", &operation)
            .field("ownership", &self.ownership)
            .finish()
    }
}

/// What applying a plan does at one destination.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Action {
    /// Nothing stands there; the new entry is put there.
    Create,
    /// The entry there is replaced by the new one.
    Replace,
    /// The entry there is removed.
    Remove,
    /// The destination is left as it is.
    Keep,
    /// Another change of the plan already covers this destination (a remove inside, or
    /// equal to, another destination of the plan).
    Subsumed,
}

impl Action {
    /// The action's word in a dry run (`create`, `replace`, `remove`, `keep`, `subsumed`).
    pub fn as_str(self) -> &'static str {
        match self {
            Action::Create => "create",
            Action::Replace => "replace",
            Action::Remove => "remove",
            Action::Keep => "keep",
            Action::Subsumed => "subsumed",
        }
    }

    /// Whether applying the plan touches the destination (`create`, `replace`, `remove`).
    pub fn is_active(self) -> bool {
        matches!(self, Action::Create | Action::Replace | Action::Remove)
    }
}

impl fmt::Display for Action {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What the plan decided for one destination.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlannedChange {
    dest: String,
    existing: Option<EntryKind>,
    action: Action,
    reason: Option<std::borrow::Cow<'static, str>>,
}

impl PlannedChange {
    /// The destination, relative to the root.
    pub fn dest(&self) -> &str {
        &self.dest
    }

    /// What stood there when the plan was made (`None`: nothing).
    pub fn existing(&self) -> Option<EntryKind> {
        self.existing
    }

    /// What applying the plan does there.
    pub fn action(&self) -> Action {
        self.action
    }

    /// Why, when there is more to say than the action (`forced`, `already absent`, …).
    pub fn reason(&self) -> Option<&str> {
        self.reason.as_deref()
    }
}

impl fmt::Display for PlannedChange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} {}",
            self.action,
            crate::quote::DisplayPath(&self.dest)
        )?;
        if let Some(reason) = &self.reason {
            write!(f, " ({reason})")?;
        }
        Ok(())
    }
}

/// One change and what was decided for it.
pub(crate) struct Entry {
    pub(crate) change: Change,
    pub(crate) planned: PlannedChange,
    /// For a copy: whether the source is a directory (else a regular file).
    pub(crate) source_is_dir: bool,
}

/// A list of tree changes, each decided with no side effect, ready to apply.
///
/// Made by [`Plan::new`]; shown by [`Plan::describe`]; carried out by [`Plan::apply`].
pub struct Plan<'t> {
    pub(crate) tree: &'t Tree,
    pub(crate) entries: Vec<Entry>,
    pub(crate) faults: Option<FaultPlan>,
}

impl fmt::Debug for Plan<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Plan")
            .field("root", &self.tree.root())
            .field("changes", &self.changes().collect::<Vec<_>>())
            .finish()
    }
}

/// Whether `path` is a plain relative path: non-empty segments, none `.` or `..`, no NUL.
pub(crate) fn is_plain_relative(path: &str) -> bool {
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

/// One entry met by [`walk_source`].
pub(crate) enum SourceEntry<'a> {
    /// A directory (the source itself when `rel` is empty) and its permission bits.
    Dir { rel: &'a str, mode: u32 },
    /// A regular file, opened for reading, and its permission bits.
    File { rel: &'a str, file: File, mode: u32 },
}

fn source_unreadable(shown: &str, rel: &str, error: io::Error) -> Error {
    Error::SourceUnreadable {
        copy_source: shown.to_owned(),
        path: rel.to_owned(),
        error,
    }
}

/// Opens the regular file `abs` of a copy source without following a link or blocking on a
/// FIFO, and judges it by `fstat` on the handle that will be read.
fn open_source_file(abs: &Path, shown: &str, rel: &str, calls: &Calls) -> Result<(File, u32)> {
    calls.step().map_err(|e| source_unreadable(shown, rel, e))?;
    let file = OpenOptions::new()
        .read(true)
        .custom_flags((OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::NOCTTY).bits() as i32)
        .open(abs)
        .map_err(|e| {
            if e.raw_os_error() == Some(rustix::io::Errno::LOOP.raw_os_error()) {
                Error::SourceLink {
                    copy_source: shown.to_owned(),
                    path: rel.to_owned(),
                }
            } else {
                source_unreadable(shown, rel, e)
            }
        })?;
    let meta = file
        .metadata()
        .map_err(|e| source_unreadable(shown, rel, e))?;
    let found = kind_of(meta.file_type());
    if found != EntryKind::File {
        return Err(Error::SourceWrongKind {
            copy_source: shown.to_owned(),
            path: rel.to_owned(),
            found,
        });
    }
    Ok((file, meta.mode() & 0o7777))
}

/// Walks the copy source `source` (shown in messages as `shown`) without following any link,
/// visiting each directory before what it holds, entries in bytewise name order. A link (the
/// source itself included) is [`Error::SourceLink`], a special file [`Error::SourceWrongKind`],
/// a directory or file that cannot be read [`Error::SourceUnreadable`]. Every listing and open
/// first takes a step of `calls`.
pub(crate) fn walk_source(
    source: &Path,
    shown: &str,
    calls: &Calls,
    visit: &mut dyn FnMut(SourceEntry<'_>) -> Result<()>,
) -> Result<()> {
    let meta = fs::symlink_metadata(source).map_err(|e| source_unreadable(shown, "", e))?;
    match kind_of(meta.file_type()) {
        EntryKind::Directory => {}
        EntryKind::File => {
            let (file, mode) = open_source_file(source, shown, "", calls)?;
            return visit(SourceEntry::File {
                rel: "",
                file,
                mode,
            });
        }
        EntryKind::Symlink => {
            return Err(Error::SourceLink {
                copy_source: shown.to_owned(),
                path: String::new(),
            });
        }
        found => {
            return Err(Error::SourceWrongKind {
                copy_source: shown.to_owned(),
                path: String::new(),
                found,
            });
        }
    }
    visit(SourceEntry::Dir {
        rel: "",
        mode: meta.mode() & 0o7777,
    })?;
    walk_source_dir(source, "", shown, calls, visit)
}

fn walk_source_dir(
    abs: &Path,
    rel: &str,
    shown: &str,
    calls: &Calls,
    visit: &mut dyn FnMut(SourceEntry<'_>) -> Result<()>,
) -> Result<()> {
    calls.step().map_err(|e| source_unreadable(shown, rel, e))?;
    let mut names = Vec::new();
    for entry in fs::read_dir(abs).map_err(|e| source_unreadable(shown, rel, e))? {
        let entry = entry.map_err(|e| source_unreadable(shown, rel, e))?;
        let name = entry
            .file_name()
            .into_string()
            .map_err(|raw| Error::NonUtf8Name {
                path: format!("{shown}/{}", join(rel, &raw.to_string_lossy())),
            })?;
        names.push(name);
    }
    names.sort();
    for name in names {
        let child_rel = join(rel, &name);
        let child_abs = abs.join(&name);
        let meta = fs::symlink_metadata(&child_abs)
            .map_err(|e| source_unreadable(shown, &child_rel, e))?;
        match kind_of(meta.file_type()) {
            EntryKind::Directory => {
                visit(SourceEntry::Dir {
                    rel: &child_rel,
                    mode: meta.mode() & 0o7777,
                })?;
                walk_source_dir(&child_abs, &child_rel, shown, calls, visit)?;
            }
            EntryKind::File => {
                let (file, mode) = open_source_file(&child_abs, shown, &child_rel, calls)?;
                visit(SourceEntry::File {
                    rel: &child_rel,
                    file,
                    mode,
                })?;
            }
            EntryKind::Symlink => {
                return Err(Error::SourceLink {
                    copy_source: shown.to_owned(),
                    path: child_rel,
                });
            }
            found => {
                return Err(Error::SourceWrongKind {
                    copy_source: shown.to_owned(),
                    path: child_rel,
                    found,
                });
            }
        }
    }
    Ok(())
}

/// Whether the entry at `dest` holds exactly `content`.
fn holds_same(tree: &Tree, dest: &str, existing: EntryKind, content: &Content) -> Result<bool> {
    match (content, existing) {
        (Content::File(bytes), EntryKind::File) => {
            Ok(tree.read_file(dest)?.as_deref() == Some(bytes.as_slice()))
        }
        (Content::Files(files), EntryKind::Directory) => {
            let found = match tree.walk_files(dest, &mut |_, _| false) {
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
                if tree.read_file(&join(dest, path))?.as_deref() != Some(bytes.as_slice()) {
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
    tree: &Tree,
    dest: &str,
    existing: EntryKind,
    ownership: &Ownership,
) -> Result<&'static str> {
    match ownership {
        Ownership::MustBeFree => {
            let empty = existing == EntryKind::Directory
                && tree
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
        Ownership::ToolMade(recogniser) => match (recogniser.0)(tree, dest, existing)? {
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

/// The real location of the copy source `source`, which is not itself a link.
fn real_source(source: &Path, shown: &str) -> Result<PathBuf> {
    fs::canonicalize(source).map_err(|e| source_unreadable(shown, "", e))
}

impl<'t> Plan<'t> {
    /// Decides every change against what stands in `tree` now, writing nothing.
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
    /// [`Error::DestHoldsSource`] / [`Error::SourceHoldsDest`] (a copy source that is, lies
    /// in or holds its destination), [`Error::SourceLink`] / [`Error::SourceWrongKind`] /
    /// [`Error::SourceUnreadable`] (the copy source), then [`Error::DestsOverlap`] (two
    /// active changes at one place). A link or non-directory on the way to a destination is
    /// [`Error::Symlink`] / [`Error::WrongKind`]; a failing read is [`Error::Io`] or the
    /// recogniser's own error.
    pub fn new(tree: &'t Tree, changes: Vec<Change>) -> Result<Self> {
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
            fs::canonicalize(tree.root()).map_err(|e| Error::io("", "resolve the root", e))?;
        let mut entries = Vec::with_capacity(changes.len());
        for change in changes {
            entries.push(Self::decide(tree, &real_root, change)?);
        }
        Self::relate(&mut entries)?;
        Ok(Plan {
            tree,
            entries,
            faults: None,
        })
    }

    /// Decides one change on its own.
    fn decide(tree: &Tree, real_root: &Path, change: Change) -> Result<Entry> {
        let dest = change.dest.as_str();
        let existing = tree.kind(dest)?;
        let mut source_is_dir = false;
        match &change.operation {
            Operation::Replace(Fill::Copy(source)) => {
                let shown = source.display().to_string();
                walk_source(source, &shown, &Calls::none(), &mut |entry| {
                    if let SourceEntry::Dir { rel: "", .. } = entry {
                        source_is_dir = true;
                    }
                    Ok(())
                })?;
                let source_real = real_source(source, &shown)?;
                let dest_real = real_root.join(dest);
                if source_real.starts_with(&dest_real) {
                    return Err(Error::DestHoldsSource {
                        dest: dest.to_owned(),
                        copy_source: shown,
                    });
                }
                if dest_real.starts_with(&source_real) {
                    return Err(Error::SourceHoldsDest {
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
        let (action, reason) = match (&change.operation, existing) {
            (Operation::Remove(_), None) => (Action::Keep, Some("already absent")),
            (Operation::Remove(Some(content)), Some(kind))
                if holds_same(tree, dest, kind, content)? =>
            {
                (Action::Keep, Some("holds the content to keep"))
            }
            (Operation::Remove(_), Some(kind)) => (
                Action::Remove,
                Some(check_owned(tree, dest, kind, &change.ownership)?),
            ),
            (_, None) => (Action::Create, None),
            (_, Some(kind)) => (
                Action::Replace,
                Some(check_owned(tree, dest, kind, &change.ownership)?),
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
            source_is_dir,
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
                            format!("holds the kept {}", crate::quote::DisplayPath(&inner)).into(),
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
                        format!("inside {}", crate::quote::DisplayPath(&outer_dest)).into()
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

    /// Injects failures into [`Plan::apply`] (tests of interrupted runs only).
    #[doc(hidden)]
    #[must_use]
    pub fn with_faults(mut self, faults: FaultPlan) -> Self {
        self.faults = Some(faults);
        self
    }

    /// Carries the plan out: stages every new entry beside its destination (a sibling named
    /// `.<name>.asv-staged-<random>`), then at each destination parks the previous entry
    /// (`.<name>.asv-staged-<random>.previous`) and moves the staged one in (exchanged in one
    /// step where the file system can), and only when every destination holds its new state
    /// removes what it parked. Parent directories a `create` needs are made.
    ///
    /// A failure before that commit point is rolled back in reverse: staged entries are
    /// removed, parked entries moved back, made directories removed, so every destination
    /// holds again what it held. A parked entry is never deleted on a failure path. After the
    /// commit point, a parked entry that cannot be removed is a [`crate::apply::Warning`] in
    /// the result. A tree that is removed is made owner-writable first.
    ///
    /// # Errors
    /// The failure that stopped the change, unchanged, once rolled back: [`Error::Io`] for a
    /// failing call, [`Error::DestChanged`] when a destination changed since planning, the
    /// copy source's errors, a callback's own error. When the rollback cannot complete,
    /// [`Error::RollbackIncomplete`] naming every destination whose previous entry is still
    /// parked (and where), with the failure as its source.
    pub fn apply(self) -> Result<Applied> {
        crate::apply::apply(self)
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
