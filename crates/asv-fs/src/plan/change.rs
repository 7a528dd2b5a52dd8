//! What a command asks of the tree: the changes, their fills and ownership rules, and what
//! was decided for each.

use std::fmt;
use std::path::PathBuf;
use std::sync::Arc;

pub use crate::error::{Disowned, During};
use crate::error::{EntryKind, Result};
use crate::root::Root;

/// A regular file of the tree to copy in chunks, with what it held when the command read it:
/// a copy of a large file costs one chunk of memory, and a file that changed since it was
/// judged is refused rather than copied.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TreeFile {
    /// The file, relative to the root the plan is applied to.
    pub path: String,
    /// Its length when it was read.
    pub len: u64,
    /// The SHA-256 of its bytes when it was read.
    pub sha256: [u8; 32],
}

/// What a new file holds.
#[derive(Clone)]
pub enum Body {
    /// These bytes.
    Bytes(Vec<u8>),
    /// These bytes, shared with whoever else holds them (a skill placed in several
    /// directories is held once).
    Shared(SharedBytes),
    /// The bytes of a file of the tree, copied in chunks when the file is staged and checked
    /// against its length and SHA-256 on the way ([`crate::Error::ChangedWhileRead`] when
    /// they differ).
    Copy(TreeFile),
    /// As [`Body::Copy`], for a file under another directory than the plan's root (a skill
    /// taken from a directory outside the repository): `file.path` is relative to `root`, read
    /// through a guarded root of its own.
    CopyFrom {
        /// The directory `file.path` is under.
        root: PathBuf,
        /// The file and what it held when it was read.
        file: TreeFile,
        /// Kept alive until the plan is done with the file: what keeps `root` in place (a
        /// temporary directory removed when its last holder goes), if anything does.
        hold: Option<Arc<dyn std::any::Any + Send + Sync>>,
    },
    /// A file of the tree that already holds the bytes, given its new name as a hard link
    /// rather than copied: the file is unchanged, so nothing is written but a directory entry
    /// (a pull leaves the files neither side changed as they are, as `git merge` does). The
    /// link is made only to the very file a guarded open found at `path` with `len` bytes and
    /// the wanted executable bit; where no link can be made (another file system, no hard
    /// links, another mode) `fallback` is written instead. A caller names only files no one
    /// else writes in place while the plan runs, or checks them after (a pull's ownership
    /// check hashes the directory the links were taken from).
    Link {
        /// The file to link, relative to the plan's root.
        path: String,
        /// Its length when it was read.
        len: u64,
        /// What is written when no link is made (never a link itself).
        fallback: Box<Body>,
    },
}

impl Body {
    /// The bytes, when they are in memory.
    fn in_memory(&self) -> Option<&[u8]> {
        match self {
            Body::Bytes(bytes) => Some(bytes),
            Body::Shared(bytes) => Some((**bytes).as_ref()),
            Body::Copy(_) | Body::CopyFrom { .. } => None,
            Body::Link { fallback, .. } => fallback.in_memory(),
        }
    }
}

/// Bodies are equal when they hold the same bytes, or name the same file with the same
/// digest.
impl PartialEq for Body {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (Body::Copy(a), Body::Copy(b)) => a == b,
            (Body::Link { fallback: a, .. }, b) | (b, Body::Link { fallback: a, .. }) => **a == *b,
            (
                Body::CopyFrom {
                    root: ra, file: fa, ..
                },
                Body::CopyFrom {
                    root: rb, file: fb, ..
                },
            ) => ra == rb && fa == fb,
            _ => matches!((self.in_memory(), other.in_memory()), (Some(a), Some(b)) if a == b),
        }
    }
}

impl Eq for Body {}

impl fmt::Debug for Body {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Body::Bytes(bytes) => f.debug_tuple("Bytes").field(bytes).finish(),
            Body::Shared(bytes) => f.debug_tuple("Shared").field(&(**bytes).as_ref()).finish(),
            Body::Copy(file) => f.debug_tuple("Copy").field(file).finish(),
            Body::Link {
                path,
                len,
                fallback,
            } => f
                .debug_struct("Link")
                .field("path", path)
                .field("len", len)
                .field("fallback", fallback)
                .finish(),
            Body::CopyFrom { root, file, .. } => f
                .debug_struct("CopyFrom")
                .field("root", root)
                .field("file", file)
                .finish(),
        }
    }
}

/// One file of a [`Fill::files`] fill.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewFile {
    /// The file's path inside the new entry (relative, `/` separators).
    pub path: String,
    /// What the file holds.
    pub body: Body,
    /// Whether the file is made executable (mode 0777 rather than 0666, narrowed by the umask).
    pub executable: bool,
}

impl NewFile {
    /// A non-executable file at `path` holding `bytes`.
    pub fn new(path: impl Into<String>, bytes: impl Into<Vec<u8>>) -> Self {
        NewFile {
            path: path.into(),
            body: Body::Bytes(bytes.into()),
            executable: false,
        }
    }

    /// A non-executable file at `path` holding a copy of `source`.
    pub fn copy_of(path: impl Into<String>, source: TreeFile) -> Self {
        NewFile {
            path: path.into(),
            body: Body::Copy(source),
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

/// A callback that fills an empty staged directory; it gets a [`Root`] rooted there.
pub type WriteFn = Box<dyn FnOnce(&Root) -> Result<()> + Send>;

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

    /// A directory `write` fills through a [`Root`] rooted at the staged directory.
    pub fn with(write: impl FnOnce(&Root) -> Result<()> + Send + 'static) -> Self {
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
#[derive(Debug, Clone)]
pub enum Verdict {
    /// The entry is the tool's to replace or remove.
    Ours,
    /// The entry is not the tool's, for this reason (it goes into the refusal).
    NotOurs(Disowned),
}

type RecogniseFn = dyn Fn(&Root, &str, EntryKind) -> Result<Verdict> + Send + Sync;

/// A predicate over an existing entry deciding whether the tool made it (see
/// [`Ownership::ToolMade`]). It is given the tree, the destination and what stands there.
#[derive(Clone)]
pub struct Recogniser(pub(crate) Arc<RecogniseFn>);

impl Recogniser {
    /// Wraps `recognise`.
    pub fn new(
        recognise: impl Fn(&Root, &str, EntryKind) -> Result<Verdict> + Send + Sync + 'static,
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
    /// [`crate::Error::DestOccupied`].
    MustBeFree,
    /// Whatever stands there goes (the user asked for it).
    Force,
    /// What stands there goes only when the recogniser says the tool made it; otherwise
    /// [`crate::Error::NotOwned`].
    ToolMade(Recogniser),
    /// The tool's own state (under `.agentic-skill-vendor/`): replaced or removed freely.
    ToolState,
}

impl Ownership {
    /// [`Ownership::ToolMade`] with `recognise` as its recogniser.
    pub fn tool_made(
        recognise: impl Fn(&Root, &str, EntryKind) -> Result<Verdict> + Send + Sync + 'static,
    ) -> Self {
        Ownership::ToolMade(Recogniser::new(recognise))
    }

    pub(super) fn reason(&self) -> &'static str {
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
    /// A copy of a file of the tree, made in chunks.
    Copy(TreeFile),
    /// Pieces written one after another, each perhaps shared with other changes.
    Parts(Vec<SharedBytes>),
    /// Written by the caller when the file is staged.
    Written(FileWriteFn),
}

/// Writes a file's bytes into a [`FileSink`] when the file is staged, reading what it needs
/// from the tree then; an `Err` stops the plan and rolls it back like any other failure.
pub type FileWriteFn = Box<dyn FnOnce(&Root, &mut FileSink<'_>) -> Result<()> + Send>;

/// Where a [`Change::replace_file_written`] writes its file. A write that fails is kept, the
/// writes after it are dropped, and the apply reports it with the staged path once the writer
/// returns.
pub struct FileSink<'a> {
    pub(crate) out: &'a mut dyn std::io::Write,
    pub(crate) failed: Option<std::io::Error>,
}

impl FileSink<'_> {
    /// Appends `bytes` to the file.
    pub fn write(&mut self, bytes: &[u8]) {
        if self.failed.is_none() {
            self.failed = self.out.write_all(bytes).err();
        }
    }
}

/// Bytes that many changes of a plan may hold at once without a copy each: a `String`,
/// `Vec<u8>` or anything else that lends its bytes, behind an [`std::sync::Arc`].
pub type SharedBytes = std::sync::Arc<dyn AsRef<[u8]> + Send + Sync>;

/// What a change does to its destination.
pub(crate) enum Operation {
    Replace(Fill),
    ReplaceFile(FileContents),
    Remove(Option<Content>),
}

/// One wanted change of a tree: a destination (relative to the [`Root`]'s root, `/`
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

    /// [`Change::replace_file`] with the file made of `parts` in order, each of them perhaps
    /// shared with other changes: a text written to many places after a small header that
    /// differs is held once, not once per place.
    pub fn replace_file_parts(
        dest: impl Into<String>,
        parts: Vec<SharedBytes>,
        ownership: Ownership,
    ) -> Self {
        Change {
            dest: dest.into(),
            operation: Operation::ReplaceFile(FileContents::Parts(parts)),
            ownership,
        }
    }

    /// [`Change::replace_file`] with the bytes `write` puts in a [`FileSink`] when the file is
    /// staged. For a file made from one that is too large to hold for the whole plan: it is
    /// read again there, and the writer refuses it when it no longer holds what was planned.
    pub fn replace_file_written(
        dest: impl Into<String>,
        write: impl FnOnce(&Root, &mut FileSink<'_>) -> Result<()> + Send + 'static,
        ownership: Ownership,
    ) -> Self {
        Change {
            dest: dest.into(),
            operation: Operation::ReplaceFile(FileContents::Written(Box::new(write))),
            ownership,
        }
    }

    /// [`Change::replace_file`] with a copy of the tree's file `source`, made in chunks when the
    /// file is staged and checked against what `source` says it held.
    pub fn replace_file_copy(
        dest: impl Into<String>,
        source: TreeFile,
        ownership: Ownership,
    ) -> Self {
        Change {
            dest: dest.into(),
            operation: Operation::ReplaceFile(FileContents::Copy(source)),
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
            Operation::ReplaceFile(FileContents::Copy(source)) => {
                format!("replace-file (copy of {})", source.path)
            }
            Operation::ReplaceFile(FileContents::Written(_)) => {
                "replace-file (written when staged)".to_owned()
            }
            Operation::ReplaceFile(FileContents::Parts(parts)) => {
                let len: usize = parts.iter().map(|p| (**p).as_ref().len()).sum();
                format!("replace-file ({len} bytes in {} parts)", parts.len())
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
    pub(super) dest: String,
    pub(super) existing: Option<EntryKind>,
    pub(super) action: Action,
    pub(super) reason: Option<std::borrow::Cow<'static, str>>,
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
            asv_error::quote::DisplayPath(&self.dest)
        )?;
        if let Some(reason) = &self.reason {
            write!(f, " ({reason})")?;
        }
        Ok(())
    }
}
