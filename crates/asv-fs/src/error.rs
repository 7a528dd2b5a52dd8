//! The one error type of `asv-fs`.

use std::fmt;
use std::io;
use std::sync::Arc;

use asv_error::quote::DisplayPath;
use asv_error::{Failure, Location, Side};

/// What kind of file system entry stands at a path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EntryKind {
    /// A regular file.
    File,
    /// A directory.
    Directory,
    /// A symbolic link (never followed).
    Symlink,
    /// A named pipe (FIFO).
    Fifo,
    /// A Unix domain socket.
    Socket,
    /// A block device.
    BlockDevice,
    /// A character device.
    CharDevice,
    /// Anything the platform reports that none of the above describes.
    Unknown,
}

impl EntryKind {
    /// The words used for this kind in messages ("a regular file", "a named pipe", …).
    pub fn describe(self) -> &'static str {
        match self {
            EntryKind::File => "a regular file",
            EntryKind::Directory => "a directory",
            EntryKind::Symlink => "a symbolic link",
            EntryKind::Fifo => "a named pipe",
            EntryKind::Socket => "a socket",
            EntryKind::BlockDevice => "a block device",
            EntryKind::CharDevice => "a character device",
            EntryKind::Unknown => "an entry of unknown kind",
        }
    }
}

impl fmt::Display for EntryKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.describe())
    }
}

/// Everything that can go wrong while reading or writing inside a guarded tree.
///
/// Paths are relative to the tree's root with `/` separators, so a message never leaks where
/// the tree lives on disk.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A symbolic link stands where the tool reads or writes (input side).
    #[error("symlink is not allowed inside the tree: {}", DisplayPath(path))]
    Symlink {
        /// The link's path.
        path: String,
    },
    /// A path holds a name this system cannot give a file (Windows: a device name such as
    /// `NUL`, a backslash or colon, a trailing dot or space), so reading or writing it would
    /// reach another entry than the one named (input side). Never raised on Unix.
    #[error(
        "{}: {reason} ({}) cannot be used on this system; rename it",
        DisplayPath(path),
        DisplayPath(name)
    )]
    UnusableName {
        /// The whole path.
        path: String,
        /// The name within it that cannot be used.
        name: String,
        /// What is wrong with it.
        reason: &'static str,
    },
    /// An entry of another kind stands where a file or directory belongs (input side).
    #[error(
        "{} is {found} where {expected} belongs; move it aside or replace it",
        DisplayPath(path)
    )]
    WrongKind {
        /// The entry's path.
        path: String,
        /// The kind the tool needed there.
        expected: EntryKind,
        /// The kind that stands there.
        found: EntryKind,
    },
    /// A file name that is not valid UTF-8 (input side).
    #[error("{}: file name is not valid UTF-8; rename it", DisplayPath(path))]
    NonUtf8Name {
        /// The lossy rendering of the name's path.
        path: String,
    },
    /// The root given to the tool is not a directory (input side).
    #[error("{path}: root is not a directory; pass --root <path> naming the repository")]
    RootNotDirectory {
        /// The root as given.
        path: String,
    },
    /// Nothing stands at the root given to the tool (input side).
    #[error("{path}: no such directory")]
    RootMissing {
        /// The root as given.
        path: String,
    },
    /// A system call failed (environment side).
    #[error("{}: cannot {op}: {error}", DisplayPath(path))]
    Io {
        /// The path the call was about.
        path: String,
        /// What the tool was doing ("read", "write", "rename into place", …).
        op: &'static str,
        /// The underlying failure.
        // The system's words end this message, where they are said: not also a source, or a
        // chain joined with ": " would say them twice (issue 28 §1).
        error: io::Error,
    },
    /// A directory the tool must make an entry in refuses it: its permissions, an immutable
    /// attribute or a read-only file system (environment side). Said of the directory, not of
    /// the staged name the entry was to have (issue 31 §3).
    #[error(
        "{}: this directory is not writable ({error}); make it writable and run again",
        DisplayPath(if dir.is_empty() { "." } else { dir })
    )]
    NotWritable {
        /// The directory, from the root (empty: the root itself).
        dir: String,
        /// The system's refusal.
        error: io::Error,
    },
    /// A file is larger than the tool reads of its kind; refused before a byte past the limit
    /// is read (input side).
    #[error(
        "{}: {size} bytes, over the {limit} bytes {what}; make it smaller",
        DisplayPath(path)
    )]
    TooLarge {
        /// The file.
        path: String,
        /// Its size as far as it was looked at: what `fstat` said, or the bytes read once they
        /// passed the limit.
        size: u64,
        /// The limit, in bytes.
        limit: u64,
        /// What the limit is for, worded to follow "over the N bytes" (`a document contract
        /// may hold`).
        what: &'static str,
    },
    /// A file changed while it was read or copied: its length or bytes are no longer what
    /// the run saw first (environment side: another process is writing it).
    #[error(
        "{}: changed while it was read; run again once nothing else is writing it",
        DisplayPath(path)
    )]
    ChangedWhileRead {
        /// The file.
        path: String,
    },
    /// A staged entry and its destination are on different file systems (environment side).
    #[error(
        "{} and {} are on different file systems, so the dest cannot be replaced in one step; keep .agentic-skill-vendor on the file system the skills are on",
        DisplayPath(dest),
        DisplayPath(staged)
    )]
    CrossDevice {
        /// The staged entry.
        staged: String,
        /// The destination.
        dest: String,
    },
    /// Another process holds the repository's writer lock and kept it for as long as this run
    /// waited (environment side).
    #[error(
        "another run of agentic-skill-vendor{} is changing this repository; wait for it to finish, or stop it",
        Holder(*holder)
    )]
    Busy {
        /// The process holding the lock, when the system says.
        holder: Option<u32>,
    },
    /// A run of this tool was killed while it changed the tree, and what it changed could not
    /// be put back before this run (environment side): the journal stays for the next try.
    #[error(
        "{}: could not put back what an interrupted `{command}` changed: {cause}; fix that and run the command again",
        DisplayPath(journal)
    )]
    Recovery {
        /// The interrupted run's journal, relative to the root.
        journal: String,
        /// The interrupted command.
        command: String,
        /// What failed. Said inside this message, before what to do, so not also a source.
        cause: Box<Error>,
    },
    /// A journal in the tree is not one a writer may act on (input side): it was not written
    /// by this machine's run in this tree, or it names a path outside the tree, through a
    /// link or in `.git`, or what it names changed since. Nothing was moved or removed.
    #[error(
        "{}: not acted on: {problem}; nothing was moved or removed. If no run of agentic-skill-vendor is changing this repository, delete this file and run the command again",
        DisplayPath(journal)
    )]
    JournalRefused {
        /// The journal, relative to the root.
        journal: String,
        /// What is wrong with it.
        problem: JournalProblem,
    },
    /// Something at a destination changed between the moment the change was decided and its
    /// swap (destination side): an edit saved while the tool ran. The change is rolled back;
    /// the edit is kept.
    #[error(
        "{}: changed while agentic-skill-vendor ran; nothing was changed, and the edit is kept; run it again",
        DisplayPath(path)
    )]
    ChangedDuringRun {
        /// The entry that changed, relative to the root.
        path: String,
    },
    /// A plan was applied under the writer lock of another tree (a defect of the caller,
    /// environment side): nothing was changed.
    #[error(
        "{}: a change was about to be made without this repository's writer lock; nothing was changed (report this as a bug)",
        DisplayPath(path)
    )]
    NotLocked {
        /// The tree the plan changes.
        path: String,
    },
    /// A write failed because a fault was injected (tests of interrupted runs only).
    #[error("{}: injected write failure", DisplayPath(path))]
    InjectedFault {
        /// The path whose write was failed.
        path: String,
    },
    /// A destination of a tree change is not a plain path below the root (input side).
    #[error(
        "{}: a destination must be a relative path below the root with no empty, `.` or `..` segment; name it from the root with `/` separators",
        DisplayPath(dest)
    )]
    InvalidDest {
        /// The destination as given.
        dest: String,
    },
    /// A file of a `write` fill has a path that is not a plain relative path, or clashes with
    /// another file of the same fill (input side).
    #[error(
        "{}: file {} of the new content is not a plain relative path or clashes with another file of it; give each file its own path below the destination",
        DisplayPath(dest),
        DisplayPath(path)
    )]
    InvalidFillPath {
        /// The destination the fill is for.
        dest: String,
        /// The offending path inside the fill.
        path: String,
    },
    /// A change that needs its destination free found something there (destination side).
    #[error(
        "{}: {found} is already there and this change only writes where nothing is; move it aside or remove it",
        DisplayPath(dest)
    )]
    DestOccupied {
        /// The destination.
        dest: String,
        /// What stands there.
        found: EntryKind,
    },
    /// The entry at a destination is not one the tool made, so it is not the tool's to
    /// replace or remove (destination side).
    #[error(
        "{}: not written by this tool ({reason}); move it aside or remove it if it may go",
        DisplayPath(dest)
    )]
    NotOwned {
        /// The destination.
        dest: String,
        /// Why the recogniser disowned it.
        reason: Disowned,
    },
    /// Two changes of one plan reach the same entry (input side).
    #[error("{}", Overlap(outer, inner))]
    DestsOverlap {
        /// The outer (or equal) destination.
        outer: String,
        /// The destination inside it.
        inner: String,
    },
    /// A copy's source is its destination or lies inside it, so replacing the destination
    /// would destroy what is being copied (input side).
    #[error(
        "{}: the destination holds its own copy source {}; copy from outside the destination",
        DisplayPath(dest),
        DisplayPath(copy_source)
    )]
    DestHoldsCopySource {
        /// The destination.
        dest: String,
        /// The copy source, as given.
        copy_source: String,
    },
    /// A copy's destination lies inside its source, so the copy would read what it writes
    /// (input side).
    #[error(
        "{}: the destination lies inside its copy source {}; copy from a directory that does not hold the destination",
        DisplayPath(dest),
        DisplayPath(copy_source)
    )]
    CopySourceHoldsDest {
        /// The destination.
        dest: String,
        /// The copy source, as given.
        copy_source: String,
    },
    /// A symbolic link in (or as) a copy source; links are never copied or followed (input side).
    #[error(
        "copy source {}: {} is a symbolic link; replace it with the file or directory it points to",
        DisplayPath(copy_source),
        CopySourceMember(path)
    )]
    CopySourceLink {
        /// The copy source, as given.
        copy_source: String,
        /// The link's path relative to the source (empty: the source itself).
        path: String,
    },
    /// A named pipe, socket, device or other special file in (or as) a copy source (input side).
    #[error(
        "copy source {}: {} is {found}, which cannot be copied; remove it from the source",
        DisplayPath(copy_source),
        CopySourceMember(path)
    )]
    CopySourceWrongKind {
        /// The copy source, as given.
        copy_source: String,
        /// The entry's path relative to the source (empty: the source itself).
        path: String,
        /// What stands there.
        found: EntryKind,
    },
    /// A copy source, or an entry below it, cannot be read (input side).
    #[error(
        "copy source {}: cannot read {}; make it readable by the user running the tool",
        DisplayPath(copy_source),
        CopySourceMember(path)
    )]
    CopySourceUnreadable {
        /// The copy source, as given.
        copy_source: String,
        /// The entry's path relative to the source (empty: the source itself).
        path: String,
        /// The underlying failure.
        #[source]
        error: io::Error,
    },
    /// A destination no longer holds what the plan saw when it was made (destination side).
    #[error(
        "{}: changed since the change was planned (expected {}, found {}); run again",
        DisplayPath(dest),
        KindOrNothing(*expected),
        KindOrNothing(*found)
    )]
    DestChanged {
        /// The destination.
        dest: String,
        /// What the plan saw there.
        expected: Option<EntryKind>,
        /// What stands there now.
        found: Option<EntryKind>,
    },
    /// A tree change failed and undoing it failed too: some destinations do not hold what they
    /// held before (destination side). `cause` is the failure that started the rollback.
    #[error(
        "could not undo an interrupted change: {}",
        Stranded(stranded, leftovers)
    )]
    RollbackIncomplete {
        /// Each destination whose previous entry is not back in place, with where it is.
        stranded: Vec<StrandedEntry>,
        /// Entries the change made that could not be removed again.
        leftovers: Vec<String>,
        /// The failure that started the rollback.
        #[source]
        cause: Box<Error>,
    },
}

/// A destination whose previous entry a failed rollback left parked (see
/// [`Error::RollbackIncomplete`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StrandedEntry {
    /// The destination, relative to the root.
    pub dest: String,
    /// Where its previous entry is now, relative to the root.
    pub parked: String,
}

/// "the source itself" for the empty path, else the path.
struct CopySourceMember<'a>(&'a str);

impl fmt::Display for CopySourceMember<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.is_empty() {
            f.write_str("the source itself")
        } else {
            DisplayPath(self.0).fmt(f)
        }
    }
}

/// The message of [`Error::DestsOverlap`]: one destination twice, or one inside another.
struct Overlap<'a>(&'a str, &'a str);

impl fmt::Display for Overlap<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let Overlap(outer, inner) = *self;
        if outer == inner {
            write!(
                f,
                "{} is changed twice by one run; keep one of the two changes",
                DisplayPath(inner)
            )
        } else {
            write!(
                f,
                "{} lies inside {} and both are changed by one run; give each change its own destination",
                DisplayPath(inner),
                DisplayPath(outer)
            )
        }
    }
}

/// A kind, or "nothing" for an absent entry.
struct KindOrNothing(Option<EntryKind>);

impl fmt::Display for KindOrNothing {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Some(kind) => kind.fmt(f),
            None => f.write_str("nothing"),
        }
    }
}

/// The body of a rollback-incomplete message: every parked entry and leftover, on one line.
struct Stranded<'a>(&'a [StrandedEntry], &'a [String]);

impl fmt::Display for Stranded<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut first = true;
        for entry in self.0 {
            if !first {
                f.write_str(", ")?;
            }
            first = false;
            write!(
                f,
                "the previous {} is parked at {}",
                DisplayPath(&entry.dest),
                DisplayPath(&entry.parked)
            )?;
        }
        for leftover in self.1 {
            if !first {
                f.write_str(", ")?;
            }
            first = false;
            write!(f, "{} was left behind", DisplayPath(leftover))?;
        }
        f.write_str(match (self.0.is_empty(), self.1.is_empty()) {
            (false, true) => "; move each parked entry back to its destination by hand",
            (false, false) => {
                "; move each parked entry back to its destination and remove what was left behind by hand"
            }
            _ => "; remove what was left behind by hand",
        })
    }
}

impl Error {
    /// Whether the failure lies with the tree the user gave (as opposed to the environment).
    pub fn is_input(&self) -> bool {
        self.side() == Side::Input
    }

    /// `self`, when it is the system refusing to make an entry in the directory `dir` for
    /// lack of permission, as [`Error::NotWritable`] of `dir`.
    pub(crate) fn in_directory(self, dir: &str) -> Self {
        match self {
            Error::Io { error, .. }
                if matches!(
                    error.kind(),
                    io::ErrorKind::PermissionDenied | io::ErrorKind::ReadOnlyFilesystem
                ) =>
            {
                // The system's own words, without what a wrapper added (tempfile names the
                // temporary file it could not make, which is no name of the user's).
                let error = match error.raw_os_error() {
                    Some(code) => io::Error::from_raw_os_error(code),
                    None => io::Error::from(error.kind()),
                };
                Error::NotWritable {
                    dir: dir.to_owned(),
                    error,
                }
            }
            other => other,
        }
    }

    pub(crate) fn io(path: &str, op: &'static str, source: io::Error) -> Self {
        Error::Io {
            path: path.to_owned(),
            op,
            error: source,
        }
    }
}

impl Failure for Error {
    /// [`Side::Input`] exactly when [`Error::is_input`].
    fn side(&self) -> Side {
        match self {
            Error::Symlink { .. }
            | Error::UnusableName { .. }
            | Error::WrongKind { .. }
            | Error::NonUtf8Name { .. }
            | Error::RootNotDirectory { .. }
            | Error::RootMissing { .. }
            | Error::InvalidDest { .. }
            | Error::InvalidFillPath { .. }
            | Error::DestsOverlap { .. }
            | Error::DestHoldsCopySource { .. }
            | Error::CopySourceHoldsDest { .. }
            | Error::CopySourceLink { .. }
            | Error::CopySourceWrongKind { .. }
            | Error::CopySourceUnreadable { .. }
            | Error::TooLarge { .. }
            | Error::JournalRefused { .. } => Side::Input,
            Error::DestOccupied { .. }
            | Error::NotOwned { .. }
            | Error::DestChanged { .. }
            | Error::ChangedDuringRun { .. }
            | Error::RollbackIncomplete { .. } => Side::Destination,
            Error::Io { .. }
            | Error::NotWritable { .. }
            | Error::CrossDevice { .. }
            | Error::InjectedFault { .. }
            | Error::ChangedWhileRead { .. }
            | Error::Busy { .. }
            | Error::NotLocked { .. }
            | Error::Recovery { .. } => Side::Environment,
        }
    }

    /// The file the failure is at.
    fn location(&self) -> Option<Location> {
        let path = match self {
            Error::Symlink { path }
            | Error::UnusableName { path, .. }
            | Error::WrongKind { path, .. }
            | Error::NonUtf8Name { path }
            | Error::TooLarge { path, .. }
            | Error::ChangedWhileRead { path }
            | Error::ChangedDuringRun { path }
            | Error::Io { path, .. }
            | Error::NotWritable { dir: path, .. }
            | Error::Recovery { journal: path, .. }
            | Error::JournalRefused { journal: path, .. } => path,
            // These name their paths in the message (a destination, a copy source, the root);
            // none of them is the one file a finding would point at.
            Error::RootNotDirectory { .. }
            | Error::RootMissing { .. }
            | Error::CrossDevice { .. }
            | Error::Busy { .. }
            | Error::NotLocked { .. }
            | Error::InjectedFault { .. }
            | Error::InvalidDest { .. }
            | Error::InvalidFillPath { .. }
            | Error::DestOccupied { .. }
            | Error::NotOwned { .. }
            | Error::DestsOverlap { .. }
            | Error::DestHoldsCopySource { .. }
            | Error::CopySourceHoldsDest { .. }
            | Error::CopySourceLink { .. }
            | Error::CopySourceWrongKind { .. }
            | Error::CopySourceUnreadable { .. }
            | Error::DestChanged { .. }
            | Error::RollbackIncomplete { .. } => return None,
        };
        Some(Location::file(path.clone()))
    }
}

/// Why a journal found in the tree is not acted on ([`Error::JournalRefused`]).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum JournalProblem {
    /// It stands at the root, where only an earlier version kept journals.
    AtRoot,
    /// It is a journal of another format (an earlier version's).
    OtherFormat,
    /// It does not parse as a journal.
    NotAJournal,
    /// Something other than a regular file stands there.
    NotAFile {
        /// What stands there.
        found: EntryKind,
    },
    /// It is larger than any journal this version writes.
    TooLarge {
        /// Its size in bytes.
        size: u64,
        /// The limit.
        limit: u64,
    },
    /// The run id it records is not the one in its name.
    OtherRun,
    /// It is not the file its run wrote (a copy, a checkout, a file written by hand).
    NotItself,
    /// It was written in another tree.
    OtherTree,
    /// Git tracks it: it came with the repository.
    Tracked,
    /// It names a path that is not a plain relative path below the root, or one in `.git`.
    OutsidePath {
        /// The path as recorded.
        path: String,
    },
    /// A path it names is reached through a symbolic link.
    LinkOnTheWay {
        /// The link.
        path: String,
    },
    /// A destination it names holds an entry its run did not make, while the entry it
    /// replaced waits to go back.
    ChangedSince {
        /// The destination.
        path: String,
    },
}

impl fmt::Display for JournalProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            JournalProblem::AtRoot => f.write_str("a journal at the root of the tree was kept by an earlier version or put there by hand (journals live in .agentic-skill-vendor/)"),
            JournalProblem::OtherFormat => f.write_str("it is a journal of an earlier version"),
            JournalProblem::NotAJournal => f.write_str("it is not a journal this version writes"),
            JournalProblem::NotAFile { found } => write!(f, "{found} stands where a journal would"),
            JournalProblem::TooLarge { size, limit } => {
                write!(f, "it is {size} bytes, over the {limit}-byte limit of a journal")
            }
            JournalProblem::OtherRun => f.write_str("the run it records is not the one its name gives"),
            JournalProblem::NotItself => f.write_str("it is not the file a run on this machine wrote (it was copied, checked out or written by hand)"),
            JournalProblem::OtherTree => f.write_str("it was written in another tree"),
            JournalProblem::Tracked => f.write_str("git tracks it, so it came with the repository"),
            JournalProblem::OutsidePath { path } => write!(
                f,
                "it names {}, which is not a plain path below the root outside .git",
                DisplayPath(path)
            ),
            JournalProblem::LinkOnTheWay { path } => {
                write!(f, "a path it names is reached through the link {}", DisplayPath(path))
            }
            JournalProblem::ChangedSince { path } => write!(
                f,
                "{} holds an entry the interrupted run did not make",
                DisplayPath(path)
            ),
        }
    }
}

/// ` (process <pid>)` when the holder of a lock is known, nothing otherwise.
struct Holder(Option<u32>);

impl fmt::Display for Holder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Some(pid) => write!(f, " (process {pid})"),
            None => Ok(()),
        }
    }
}

/// The result type of `asv-fs`.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Why a recogniser disowned an entry: the reason [`Error::NotOwned`] gives.
#[derive(Debug, Clone)]
pub enum Disowned {
    /// It is another kind of entry than the tool made there.
    Kind(EntryKind),
    /// It no longer holds what the command judged: it changed while the command ran.
    Changed(During),
    /// Reading it to recognise it failed (the failure, which the reason shows in its words).
    Unreadable(Arc<dyn std::error::Error + Send + Sync>),
}

impl Disowned {
    /// [`Disowned::Unreadable`] of `error`.
    pub fn unreadable(error: impl std::error::Error + Send + Sync + 'static) -> Self {
        Disowned::Unreadable(Arc::new(error))
    }
}

impl fmt::Display for Disowned {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Disowned::Kind(kind) => write!(f, "it is {kind} now"),
            Disowned::Changed(During::Command) => {
                f.write_str("it changed while the command ran; run it again")
            }
            Disowned::Changed(During::Sync) => {
                f.write_str("it changed while sync ran; run it again")
            }
            Disowned::Changed(During::Pull) => {
                f.write_str("it changed while the pull ran; pull again")
            }
            Disowned::Unreadable(error) => write!(f, "{error}"),
        }
    }
}

/// Which run an entry changed during (the rerun a [`Disowned::Changed`] refusal suggests).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum During {
    /// A command that is simply run again.
    Command,
    /// `skill sync`.
    Sync,
    /// `skill pull`.
    Pull,
}
