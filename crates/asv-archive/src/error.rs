//! The one error type of `asv-archive`, and the refusal reasons with their stable codes.

use std::fmt;
use std::io;

/// Which side a failure lies with: the one definition of `asv-fs`.
use asv_error::{Failure, Location, Side};

/// Why a whole archive is refused; each has one stable kebab-case code ([`Reason::code`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Reason {
    /// Bytes that are no archive of the format at all.
    Unreadable,
    /// An archive that parsed but that this crate will not take (ZIP64, a directory two readers
    /// would read differently, a tar entry cut short, a second compression layer, …).
    Unsupported,
    /// A symbolic link.
    Link,
    /// A hard link.
    Hardlink,
    /// A device, a FIFO, or an entry of a type the reader does not model.
    Special,
    /// A name that escapes the archive or that some host cannot write as named.
    UnsafeName,
    /// Two entries that are one name somewhere, or a file with an entry beneath it.
    NameClash,
    /// More entries than the limits allow.
    TooManyEntries,
    /// More bytes (archive or expanded) than the limits allow.
    TooLarge,
}

impl Reason {
    /// Every reason, in declaration order (for tables and tests).
    pub const ALL: [Reason; 9] = [
        Reason::Unreadable,
        Reason::Unsupported,
        Reason::Link,
        Reason::Hardlink,
        Reason::Special,
        Reason::UnsafeName,
        Reason::NameClash,
        Reason::TooManyEntries,
        Reason::TooLarge,
    ];

    /// The stable code (`unsafe-name`, `too-large`, …) machines and messages use.
    pub fn code(self) -> &'static str {
        match self {
            Reason::Unreadable => "unreadable",
            Reason::Unsupported => "unsupported",
            Reason::Link => "link",
            Reason::Hardlink => "hardlink",
            Reason::Special => "special",
            Reason::UnsafeName => "unsafe-name",
            Reason::NameClash => "name-clash",
            Reason::TooManyEntries => "too-many-entries",
            Reason::TooLarge => "too-large",
        }
    }

    /// What the person holding the archive can do about it (ends every refusal message).
    fn advice(self) -> &'static str {
        match self {
            Reason::Unreadable => {
                "check that the file is the archive you meant and of the format named"
            }
            Reason::Unsupported => "rebuild the archive with a plain zip or tar.gz writer",
            Reason::Link | Reason::Hardlink | Reason::Special => {
                "rebuild the archive with regular files and directories only"
            }
            Reason::UnsafeName => "rename the entry and rebuild the archive",
            Reason::NameClash => "keep one of the entries and rebuild the archive",
            Reason::TooManyEntries | Reason::TooLarge => {
                "split the archive or leave out what is not needed"
            }
        }
    }
}

impl fmt::Display for Reason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.code())
    }
}

/// What a size limit was counting.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Measure {
    /// The archive's own bytes.
    Archive,
    /// The bytes its entries expand to (declared sizes, or a tarball's inflated stream).
    Expanded,
}

/// Exactly what is wrong with a refused archive. Each detail belongs to one [`Reason`]
/// ([`Detail::reason`]); the entry it concerns, when there is one, is carried beside it.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Detail {
    // --- unreadable
    /// A ZIP without an end-of-central-directory record.
    NoEndRecord,
    /// A ZIP central directory record that does not parse.
    DamagedDirectory {
        /// The record's index in the directory.
        index: usize,
    },
    /// Bytes that do not start with the gzip magic.
    NotGzip,
    /// A gzip stream that does not inflate.
    BadGzip,
    /// An inflated stream whose first block is no tar header.
    NotTar,

    // --- unsupported
    /// A ZIP64 marker: a `0xFFFF…` count, size or offset, or a ZIP64 record or extra field.
    Zip64,
    /// A ZIP spanning several disks.
    MultiDisk,
    /// The end record's two entry counts disagree.
    CountMismatch {
        /// Entries on this disk.
        on_disk: u16,
        /// Entries in all.
        total: u16,
    },
    /// The central directory does not run exactly from its start to the end record.
    DirectoryBounds,
    /// More than one place could be the end record (one stands in another's comment).
    AmbiguousEndRecord,
    /// Bytes after the end record and the comment it declares.
    TrailingData,
    /// Bytes before the first local header (a self-extracting stub).
    StubBeforeFirstHeader {
        /// How many bytes.
        bytes: u64,
    },
    /// Bytes between entries that no directory record lists.
    UnlistedBytes {
        /// Where they start.
        offset: u64,
    },
    /// Two entries whose bytes overlap.
    OverlappingEntries,
    /// A directory record whose offset does not hold that entry's own local header.
    LocalHeaderMismatch,
    /// A local header whose fields disagree with the directory record.
    LocalFieldsDisagree,
    /// An encrypted entry.
    Encrypted,
    /// A compression method other than store (0) or deflate (8).
    Method {
        /// The method number.
        method: u16,
    },
    /// A directory entry that declares data.
    DirectoryWithData,
    /// A tar entry whose data runs past the end of the stream.
    CutShort,
    /// A tar header whose checksum does not match.
    BadTarHeader,
    /// A tar size in base-256.
    Base256Size,
    /// A pax extended header that does not parse.
    BadPax,
    /// A long-name or pax header with no entry after it.
    DanglingMetaHeader,
    /// A long-name or pax header whose data is past what the reader holds in memory (1 MiB).
    MetaHeaderTooLarge {
        /// The most bytes of data such a header may carry.
        limit: u64,
    },
    /// A tar link, device or directory that declares data.
    NonFileData,
    /// Non-zero bytes after the tar end marker.
    DataAfterEnd,
    /// Bytes after the one gzip member.
    DataAfterGzip,
    /// The inflated stream is itself compressed.
    SecondCompressionLayer {
        /// The format its magic names (`gzip`, `zstd`, `xz`).
        format: &'static str,
    },

    // --- link, hardlink, special
    /// A symbolic link.
    SymbolicLink,
    /// A hard link.
    HardLink,
    /// A device, FIFO, socket or unmodelled entry type.
    SpecialEntry {
        /// What it is (a named pipe, a tar entry of type `S`, …).
        what: crate::entry::Special,
    },

    // --- unsafe-name
    /// An empty name.
    EmptyName,
    /// A name that is not UTF-8.
    NotUtf8,
    /// An absolute name.
    Absolute,
    /// A drive-rooted name (`C:`).
    DriveRooted,
    /// A UNC name (`\\host\share`).
    Unc,
    /// A `..` segment.
    ParentSegment,
    /// A NUL byte.
    Nul,
    /// A character Windows cannot write in a name.
    ForbiddenChar {
        /// The character.
        found: char,
    },
    /// A control character.
    ControlChar,
    /// A segment ending in a dot or a space.
    TrailingDotOrSpace {
        /// The segment.
        segment: String,
    },
    /// A segment that is a Windows device name.
    ReservedName {
        /// The segment.
        segment: String,
    },

    // --- name-clash
    /// The same name listed twice.
    Duplicate,
    /// An entry beneath an earlier file.
    UnderFile {
        /// The file's name.
        file: String,
    },
    /// A file where an earlier entry made a directory.
    FileOverDirectory {
        /// The earlier entry that lies beneath it.
        other: String,
    },
    /// Two names that are one under case and Unicode folding.
    Folded {
        /// The earlier name.
        other: String,
    },

    // --- limits
    /// More entries than allowed.
    TooManyEntries {
        /// The limit.
        limit: usize,
    },
    /// More bytes than allowed.
    TooLarge {
        /// What was counted.
        measure: Measure,
        /// The limit in bytes.
        limit: u64,
    },
}

impl Detail {
    /// The reason this detail refuses an archive for.
    pub fn reason(&self) -> Reason {
        use Detail as D;
        match self {
            D::NoEndRecord | D::DamagedDirectory { .. } | D::NotGzip | D::BadGzip | D::NotTar => {
                Reason::Unreadable
            }
            D::Zip64
            | D::MultiDisk
            | D::CountMismatch { .. }
            | D::DirectoryBounds
            | D::AmbiguousEndRecord
            | D::TrailingData
            | D::StubBeforeFirstHeader { .. }
            | D::UnlistedBytes { .. }
            | D::OverlappingEntries
            | D::LocalHeaderMismatch
            | D::LocalFieldsDisagree
            | D::Encrypted
            | D::Method { .. }
            | D::DirectoryWithData
            | D::CutShort
            | D::BadTarHeader
            | D::Base256Size
            | D::BadPax
            | D::DanglingMetaHeader
            | D::MetaHeaderTooLarge { .. }
            | D::NonFileData
            | D::DataAfterEnd
            | D::DataAfterGzip
            | D::SecondCompressionLayer { .. } => Reason::Unsupported,
            D::SymbolicLink => Reason::Link,
            D::HardLink => Reason::Hardlink,
            D::SpecialEntry { .. } => Reason::Special,
            D::EmptyName
            | D::NotUtf8
            | D::Absolute
            | D::DriveRooted
            | D::Unc
            | D::ParentSegment
            | D::Nul
            | D::ForbiddenChar { .. }
            | D::ControlChar
            | D::TrailingDotOrSpace { .. }
            | D::ReservedName { .. } => Reason::UnsafeName,
            D::Duplicate | D::UnderFile { .. } | D::FileOverDirectory { .. } | D::Folded { .. } => {
                Reason::NameClash
            }
            D::TooManyEntries { .. } => Reason::TooManyEntries,
            D::TooLarge { .. } => Reason::TooLarge,
        }
    }
}

impl fmt::Display for Detail {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use Detail as D;
        match self {
            D::NoEndRecord => write!(f, "no end-of-central-directory record"),
            D::DamagedDirectory { index } => {
                write!(f, "central directory record {index} is damaged")
            }
            D::NotGzip => write!(f, "not a gzip stream"),
            D::BadGzip => write!(f, "the gzip stream does not inflate"),
            D::NotTar => write!(f, "the inflated stream is not a tar archive"),
            D::Zip64 => write!(f, "is a ZIP64 archive"),
            D::MultiDisk => write!(f, "spans several disks"),
            D::CountMismatch { on_disk, total } => write!(
                f,
                "the end record counts {on_disk} entries on this disk and {total} in all"
            ),
            D::DirectoryBounds => write!(
                f,
                "the central directory does not run exactly from its start to the end record"
            ),
            D::AmbiguousEndRecord => write!(f, "more than one place could be the end record"),
            D::TrailingData => write!(f, "bytes follow the end record and its comment"),
            D::StubBeforeFirstHeader { bytes } => {
                write!(f, "{bytes} bytes stand before the first local header")
            }
            D::UnlistedBytes { offset } => write!(
                f,
                "bytes at offset {offset} belong to no entry the directory lists"
            ),
            D::OverlappingEntries => write!(f, "two entries share bytes"),
            D::LocalHeaderMismatch => write!(
                f,
                "its directory record does not point at its own local header"
            ),
            D::LocalFieldsDisagree => {
                write!(f, "its local header and its directory record disagree")
            }
            D::Encrypted => write!(f, "is encrypted"),
            D::Method { method } => write!(f, "uses compression method {method}"),
            D::DirectoryWithData => write!(f, "is a directory that declares data"),
            D::CutShort => write!(f, "is cut short"),
            D::BadTarHeader => write!(f, "a tar header's checksum does not match"),
            D::Base256Size => write!(f, "declares its size in base-256"),
            D::BadPax => write!(f, "a pax extended header does not parse"),
            D::DanglingMetaHeader => {
                write!(f, "a long-name or pax header has no entry after it")
            }
            D::MetaHeaderTooLarge { limit } => {
                write!(f, "a long-name or pax header holds more than {limit} bytes")
            }
            D::NonFileData => write!(f, "declares data though it is no regular file"),
            D::DataAfterEnd => write!(f, "data follows the tar end marker"),
            D::DataAfterGzip => write!(f, "data follows the gzip stream"),
            D::SecondCompressionLayer { format } => {
                write!(f, "the inflated stream is itself {format}-compressed")
            }
            D::SymbolicLink => write!(f, "is a symbolic link"),
            D::HardLink => write!(f, "is a hard link"),
            D::SpecialEntry { what } => write!(f, "is {what}"),
            D::EmptyName => write!(f, "has an empty name"),
            D::NotUtf8 => write!(f, "has a name that is not UTF-8"),
            D::Absolute => write!(f, "is absolute and escapes the archive"),
            D::DriveRooted => write!(f, "is drive-rooted and escapes the archive"),
            D::Unc => write!(f, "is a UNC path and escapes the archive"),
            D::ParentSegment => write!(f, "escapes the archive through a \"..\" segment"),
            D::Nul => write!(f, "holds a NUL byte"),
            D::ForbiddenChar { found } => {
                write!(f, "holds {found:?}, which Windows cannot write in a name")
            }
            D::ControlChar => write!(f, "holds a control character"),
            D::TrailingDotOrSpace { segment } => write!(
                f,
                "has a segment {segment:?} ending in a dot or space, which Windows cannot write"
            ),
            D::ReservedName { segment } => {
                write!(f, "has a segment {segment:?} that is a Windows device name")
            }
            D::Duplicate => write!(f, "is listed twice"),
            D::UnderFile { file } => write!(f, "lies beneath the file {file:?}"),
            D::FileOverDirectory { other } => {
                write!(f, "is a file where {other:?} needs a directory")
            }
            D::Folded { other } => write!(
                f,
                "is the same name as {other:?} where a volume folds case or Unicode"
            ),
            D::TooManyEntries { limit } => write!(f, "holds more than {limit} entries"),
            D::TooLarge { measure, limit } => match measure {
                Measure::Archive => write!(f, "is larger than {limit} bytes"),
                Measure::Expanded => write!(f, "expands to more than {limit} bytes"),
            },
        }
    }
}

/// A refusal of a whole archive: the detail, and the first offending entry when there is one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    /// The entry's name as the archive spells it; `None` for a refusal of the archive as such.
    pub entry: Option<String>,
    /// What is wrong.
    pub detail: Detail,
}

impl Refusal {
    /// The reason (and so the code) of this refusal.
    pub fn reason(&self) -> Reason {
        self.detail.reason()
    }

    pub(crate) fn of(detail: Detail) -> Self {
        Refusal {
            entry: None,
            detail,
        }
    }

    pub(crate) fn at(entry: &str, detail: Detail) -> Self {
        Refusal {
            entry: Some(entry.to_owned()),
            detail,
        }
    }
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.entry {
            Some(entry) => write!(f, "entry {entry:?} {}", self.detail),
            None => write!(f, "{}", self.detail),
        }
    }
}

/// What is wrong with one member whose bytes were asked for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReadProblem {
    /// Its bytes do not inflate.
    DoesNotInflate,
    /// It inflates to another size than it declares (`found` may be `declared + 1`: reading stops
    /// one byte past the declared size).
    SizeMismatch {
        /// The size the directory declares.
        declared: u64,
        /// The size found.
        found: u64,
    },
    /// Its CRC-32 is not the one the directory declares.
    CrcMismatch {
        /// The declared CRC.
        declared: u32,
        /// The CRC of the bytes found.
        found: u32,
    },
}

impl fmt::Display for ReadProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReadProblem::DoesNotInflate => write!(f, "does not inflate"),
            ReadProblem::SizeMismatch { declared, found } => {
                write!(f, "declares {declared} bytes and holds {found}")
            }
            ReadProblem::CrcMismatch { declared, found } => {
                write!(f, "declares CRC {declared:08x} and holds {found:08x}")
            }
        }
    }
}

/// Everything that can go wrong reading or writing an archive.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The archive as a whole is refused; nothing was written (input side).
    #[error("archive {archive} refused ({}): {refusal}; {}", refusal.reason(), refusal.reason().advice())]
    Refused {
        /// The archive's path or label.
        archive: String,
        /// Why, and the first offending entry.
        refusal: Refusal,
    },
    /// One member of an archive whose entry list passed does not read as it declares; met when
    /// that member is read, never at open (input side).
    #[error("archive {archive}: entry {entry:?} {problem}; the archive is damaged, rebuild it")]
    EntryRead {
        /// The archive's path or label.
        archive: String,
        /// The member's name as the archive spells it.
        entry: String,
        /// What is wrong with it.
        problem: ReadProblem,
    },
    /// An entry handed to [`crate::Archive::read`] that is not one of that archive's (input side).
    #[error(
        "archive {archive}: {entry:?} is not one of its entries; pass an entry this archive listed"
    )]
    NotAnEntry {
        /// The archive's path or label.
        archive: String,
        /// The name of the entry passed.
        entry: String,
    },
    /// The archive file is no regular file (input side).
    #[error("archive {path} is not a regular file; name the archive file itself")]
    NotAFile {
        /// The path as given.
        path: String,
    },
    /// The bytes of an entry could not be handed on: the writer given to
    /// [`crate::Archive::copy_to`] failed (environment side: a full disk, a failing device).
    #[error("cannot write entry {entry:?} of archive {archive}: {error}")]
    WriteEntry {
        /// The archive's path or label.
        archive: String,
        /// The member's name as the archive spells it.
        entry: String,
        /// The writer's failure.
        // Said at the end of the message, so not also a source (issue 28 §1).
        error: io::Error,
    },
    /// The archive file could not be read (input side: it is the caller's input). Also a
    /// failure of the temporary file a large tarball's inflated stream is spooled to.
    #[error("cannot read archive {path}: {error}")]
    ReadArchive {
        /// The path as given.
        path: String,
        /// The failure.
        // Said at the end of the message, so not also a source (issue 28 §1).
        error: io::Error,
    },
    /// A file offered for a ZIP has a name no archive of ours may hold (input side).
    #[error("cannot zip {entry:?}: it {detail}; rename it")]
    Unzippable {
        /// The file's path.
        entry: String,
        /// What is wrong with the name.
        detail: Detail,
    },
    /// What is to be zipped is past the limits given, or past what a ZIP without ZIP64 holds
    /// (input side).
    #[error("cannot zip {what}: {detail}; leave out what is not needed")]
    ZipTooLarge {
        /// The directory or `files`.
        what: String,
        /// Which limit.
        detail: Detail,
    },
    /// Reading the directory to zip failed or was refused (side as the guarded tree says).
    #[error(transparent)]
    Fs(#[from] asv_fs::Error),
}

impl Error {
    /// The reason of a whole-archive refusal; `None` for every other error.
    pub fn reason(&self) -> Option<Reason> {
        match self {
            Error::Refused { refusal, .. } => Some(refusal.reason()),
            _ => None,
        }
    }

    /// The entry the error names, as the archive spells it.
    pub fn entry(&self) -> Option<&str> {
        match self {
            Error::Refused { refusal, .. } => refusal.entry.as_deref(),
            Error::EntryRead { entry, .. }
            | Error::NotAnEntry { entry, .. }
            | Error::WriteEntry { entry, .. } => Some(entry),
            _ => None,
        }
    }

    pub(crate) fn refused(archive: &str, refusal: Refusal) -> Self {
        Error::Refused {
            archive: archive.to_owned(),
            refusal,
        }
    }
}

impl Failure for Error {
    /// Which side the failure lies with.
    fn side(&self) -> Side {
        match self {
            Error::Fs(e) => e.side(),
            Error::WriteEntry { .. } => Side::Environment,
            Error::Refused { .. }
            | Error::EntryRead { .. }
            | Error::NotAnEntry { .. }
            | Error::NotAFile { .. }
            | Error::ReadArchive { .. }
            | Error::Unzippable { .. }
            | Error::ZipTooLarge { .. } => Side::Input,
        }
    }

    /// The file the failure is at: only a guarded read of the directory to zip has one. An
    /// archive is named by the path or label the caller gave, which need not lie in the tree.
    fn location(&self) -> Option<Location> {
        match self {
            Error::Fs(e) => e.location(),
            Error::Refused { .. }
            | Error::EntryRead { .. }
            | Error::NotAnEntry { .. }
            | Error::NotAFile { .. }
            | Error::WriteEntry { .. }
            | Error::ReadArchive { .. }
            | Error::Unzippable { .. }
            | Error::ZipTooLarge { .. } => None,
        }
    }
}

/// The result type of `asv-archive`.
pub type Result<T, E = Error> = std::result::Result<T, E>;

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn codes_are_unique_and_kebab_case() {
        let codes: HashSet<_> = Reason::ALL.iter().map(|r| r.code()).collect();
        assert_eq!(codes.len(), Reason::ALL.len());
        for code in codes {
            assert!(
                code.chars().all(|c| c.is_ascii_lowercase() || c == '-'),
                "{code}"
            );
        }
    }

    #[test]
    fn refusal_message_is_one_lowercase_line_ending_with_advice() {
        let e = Error::refused("skill.zip", Refusal::at("../x", Detail::ParentSegment));
        assert_eq!(
            e.to_string(),
            "archive skill.zip refused (unsafe-name): entry \"../x\" escapes the archive through a \"..\" segment; rename the entry and rebuild the archive"
        );
        assert_eq!(e.side(), Side::Input);
        assert_eq!(e.reason(), Some(Reason::UnsafeName));
        assert_eq!(e.entry(), Some("../x"));
    }
}
