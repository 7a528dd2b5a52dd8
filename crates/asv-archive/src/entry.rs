//! What an archive lists: its format, the limits it is read under, and its entries.

use std::fmt;

/// The two archive formats this crate reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ArchiveFormat {
    /// A ZIP (store and deflate members, no ZIP64).
    Zip,
    /// A tar archive inside exactly one gzip layer (`.tar.gz`, `.tgz`).
    TarGz,
}

/// The bounds an archive is read under. There is no `Default`: every caller names its bounds,
/// usually [`Limits::DEFAULT`], so an omitted bound cannot be the hole.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// The most entries an archive may list (a tar's long-name and pax headers are not entries).
    pub max_entries: usize,
    /// The most bytes its entries may expand to in all: the sum of a ZIP's declared sizes, or a
    /// tarball's whole inflated stream (headers included).
    pub max_expanded: u64,
    /// The most bytes the archive itself may hold.
    pub max_archive: u64,
}

impl Limits {
    /// The bounds every lane of the tool passes: 50,000 entries, 256 MiB expanded, a 100 MiB archive.
    pub const DEFAULT: Limits = Limits {
        max_entries: 50_000,
        max_expanded: 256 * 1024 * 1024,
        max_archive: 100 * 1024 * 1024,
    };
}

/// What kind of thing an entry is, as its archive declares it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ArchiveEntryKind {
    /// A regular file.
    File,
    /// A directory.
    Directory,
    /// A symbolic link.
    Link,
    /// A hard link.
    Hardlink,
    /// Anything else: a device, a FIFO, a socket or an entry type the reader does not model.
    Special(Special),
}

/// The kinds of [`ArchiveEntryKind::Special`], kept so a refusal can say what it met.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Special {
    /// A character device.
    CharDevice,
    /// A block device.
    BlockDevice,
    /// A named pipe.
    Fifo,
    /// A socket (ZIP Unix mode only).
    Socket,
    /// A tar entry type byte this reader does not model (sparse `S`, continuation `M`, …).
    TarType(u8),
    /// A ZIP Unix mode whose file type is none of the known ones.
    UnixMode(u32),
}

impl fmt::Display for Special {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Special::CharDevice => write!(f, "a character device"),
            Special::BlockDevice => write!(f, "a block device"),
            Special::Fifo => write!(f, "a named pipe"),
            Special::Socket => write!(f, "a socket"),
            Special::TarType(t) if t.is_ascii_graphic() => {
                write!(f, "a tar entry of type '{}'", char::from(*t))
            }
            Special::TarType(t) => write!(f, "a tar entry of type byte {t}"),
            Special::UnixMode(m) => write!(f, "an entry of Unix file type {:o}", m & 0o170_000),
        }
    }
}

/// One entry as its archive lists it. Nothing about it has been judged.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArchiveEntry {
    /// The name as the archive spells it (a name that is not UTF-8 is shown lossily and refused).
    pub name: String,
    /// What it is.
    pub kind: ArchiveEntryKind,
    /// Its declared size in bytes (0 for anything but a file).
    pub size: u64,
    /// Whether the owner-execute bit of its mode is set.
    pub executable: bool,
    /// Where it stands in the archive's listing.
    pub(crate) index: usize,
    /// Whether the name was valid UTF-8 as stored.
    pub(crate) utf8: bool,
}

impl ArchiveEntry {
    /// The entry's position in its archive's listing (archive order).
    pub fn index(&self) -> usize {
        self.index
    }

    /// Whether the entry is a regular file.
    pub fn is_file(&self) -> bool {
        self.kind == ArchiveEntryKind::File
    }

    /// Whether the entry is a directory.
    pub fn is_dir(&self) -> bool {
        self.kind == ArchiveEntryKind::Directory
    }
}

/// Turns stored name bytes into a name, remembering whether they were UTF-8.
pub(crate) fn name_of(bytes: &[u8]) -> (String, bool) {
    match std::str::from_utf8(bytes) {
        Ok(s) => (s.to_owned(), true),
        Err(_) => (String::from_utf8_lossy(bytes).into_owned(), false),
    }
}
