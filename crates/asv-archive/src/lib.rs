//! Strict reading of ZIP and tar.gz archives, and reproducible ZIP writing.
//!
//! Skills arrive as archives (a ZIP someone uploaded, an npm-style tarball) and leave as them
//! (`skill pack`). An archive is hostile input: a member named `../../.bashrc`, a symbolic link
//! that a later member writes through, two names one volume folds into one, a 42 KiB file that
//! inflates to gigabytes, or a ZIP whose bytes two readers read as two different archives. This
//! crate is the one way the tool reads or writes either format, so every lane gets the same
//! answer to the same archive:
//!
//! - An archive is bounded by [`Limits`] the caller must pass, and is never read whole into
//!   memory: a ZIP file is read by offset (its end record, its central directory and each
//!   local header through a small cached window, each member in 64 KiB pieces), and a
//!   tarball's gzip layer is inflated once into a spool (memory up to 4 MiB, then an unnamed
//!   temporary file) that is read the same way. A long-name or pax header's data, which is
//!   read into memory, is held to 1 MiB ([`Detail::MetaHeaderTooLarge`]). So the memory an
//!   archive costs does not follow its size nor its members' ([`Archive::copy_to`] hands a
//!   member on in pieces).
//! - The ZIP and tar readers are our own and strict (see the `zip` and `tar` module docs): every
//!   byte must be accounted for once, ZIP64 and second compression layers are refused.
//! - Whether an archive may be written is decided from its whole entry list before a byte is
//!   written ([`entry_refusal`]): only regular files and directories, each named safely on
//!   every host (Windows' rules too), no two of them one name.
//! - Nothing is extracted here: a caller takes each accepted file's bytes ([`Archive::copy_to`],
//!   [`Archive::read`])
//!   and its executable bit, and writes them through `asv-fs` (`skill install` stages every
//!   skill and swaps it in, all or none), so no link, special file or setuid bit an archive
//!   declares ever reaches the disk.
//! - A member that does not inflate to its declared size, or fails its CRC, is its own error
//!   ([`Error::EntryRead`]), met when that member is read, not when the archive is opened.
//!
//! ```
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! use asv_archive::{Archive, ArchiveInput, FileEntry, ArchiveFormat, Limits, ReadOptions, zip_files};
//!
//! let zip = zip_files(&[FileEntry {
//!     path: "skill/SKILL.md".into(),
//!     bytes: b"---\nname: skill\n---\n".to_vec(),
//!     executable: false,
//! }])?;
//! let options = ReadOptions { format: ArchiveFormat::Zip, limits: Limits::DEFAULT };
//! let archive = Archive::open(ArchiveInput::bytes(zip, "skill.zip"), &options)?;
//! let names: Vec<&str> = archive.entries().iter().map(|e| e.name.as_str()).collect();
//! assert_eq!(names, ["skill/", "skill/SKILL.md"]);
//!
//! archive.judge()?;
//! assert_eq!(archive.read(&archive.entries()[1])?, b"---\nname: skill\n---\n");
//! # Ok(())
//! # }
//! ```
//!
//! # Fuzzing
//!
//! The readers have cargo-fuzz targets in the repository's `fuzz/` directory (kept out of the
//! workspace): `cargo +nightly fuzz run zip_reader` and `cargo +nightly fuzz run tar_reader`
//! open, judge and read every entry of arbitrary bytes; any panic is a bug. Their bodies live
//! in this crate (a hidden `fuzz` module) so the committed corpora replay on stable with the
//! crate's unit tests.
#![deny(missing_docs)]

mod entry;
pub mod error;
#[doc(hidden)]
pub mod fuzz;
mod platform;
mod policy;
mod random_access;
mod tar;
mod write;
mod zip;

use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use random_access::{Data, Fail};

pub use entry::{ArchiveEntry, ArchiveEntryKind, ArchiveFormat, Limits, Special};
pub use error::{Detail, Error, Measure, ReadProblem, Reason, Refusal, Result};
pub use policy::{entry_refusal, folded_segment, path_refusal, place_of};
pub use write::{FileEntry, zip_dir, zip_files, zip_files_owned};

/// Where an archive is: a file, or bytes already in hand with the label a refusal names them by.
#[derive(Debug, Clone)]
pub enum ArchiveInput {
    /// An archive file ([`open_archive_file`]), read by offset, never whole; messages name it
    /// by its path.
    File(PathBuf),
    /// An archive file already opened ([`open_archive_file`]), named `label` in messages.
    Opened {
        /// The open file.
        file: ArchiveFile,
        /// What messages call it.
        label: String,
    },
    /// Bytes in hand.
    Bytes {
        /// The archive's bytes.
        bytes: Vec<u8>,
        /// What messages call it (`skill.zip`, a URL).
        label: String,
    },
}

impl ArchiveInput {
    /// An archive file.
    pub fn file(path: impl Into<PathBuf>) -> Self {
        ArchiveInput::File(path.into())
    }

    /// Bytes in hand, named `label` in messages.
    pub fn bytes(bytes: impl Into<Vec<u8>>, label: impl Into<String>) -> Self {
        ArchiveInput::Bytes {
            bytes: bytes.into(),
            label: label.into(),
        }
    }
}

/// How an archive is read: its format and the limits it is held to. Both are required (there is
/// no `Default`), so an omitted bound is a compile error, not an unbounded read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReadOptions {
    /// The archive's format.
    pub format: ArchiveFormat,
    /// The bounds it is read under.
    pub limits: Limits,
}

/// The members' locations, per format.
#[derive(Debug)]
enum Members {
    Zip(Vec<zip::Member>),
    Tar(Vec<tar::Member>),
}

/// An archive opened and parsed: what it lists, and each file's bytes on request, read from
/// where they are (the archive file, the bytes handed in, a tarball's spooled stream).
/// Opening judges only the structure and the limits; the entry policy is applied by
/// [`Archive::judge`] and [`Archive::to_zip`].
#[derive(Debug)]
pub struct Archive {
    label: String,
    /// A ZIP's own bytes, or a tarball's inflated tar stream.
    data: Data,
    entries: Vec<ArchiveEntry>,
    members: Members,
}

/// An archive file opened to be read by offset, judged a regular file within the limits;
/// cheap to clone (the handle is shared).
#[derive(Debug, Clone)]
pub struct ArchiveFile {
    file: Arc<File>,
    len: u64,
    path: String,
}

impl ArchiveFile {
    /// Its length in bytes, as `fstat` gave it when it was opened.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Whether it is empty.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Its path, as messages show it.
    pub fn path(&self) -> &str {
        &self.path
    }

    /// Its first `max` bytes (fewer when it is shorter): enough to tell a format by its magic
    /// without reading the rest.
    ///
    /// # Errors
    /// [`Error::ReadArchive`] when the file cannot be read.
    pub fn head(&self, max: usize) -> Result<Vec<u8>> {
        let len = usize::try_from(self.len).unwrap_or(usize::MAX).min(max);
        self.data()
            .read_vec(0, len)
            .map_err(|source| Error::ReadArchive {
                path: self.path.clone(),
                error: source,
            })
    }

    /// The file's bytes, to be read by offset.
    fn data(&self) -> Data {
        Data::File {
            file: Arc::clone(&self.file),
            len: self.len,
        }
    }
}

/// Opens an archive file: without blocking (a FIFO is refused, never waited on), sized by
/// `fstat` on that handle before a byte is read. Nothing is read.
///
/// # Errors
/// [`Error::ReadArchive`] when the file cannot be opened; [`Error::NotAFile`] for anything but
/// a regular file; [`Error::Refused`] `too-large` for a file over `limits.max_archive`.
pub fn open_archive_file(path: &Path, limits: &Limits) -> Result<ArchiveFile> {
    let shown = path.display().to_string();
    let opened = platform::open_without_blocking(path).map_err(|source| Error::ReadArchive {
        path: shown.clone(),
        error: source,
    })?;
    if !opened.is_regular {
        return Err(Error::NotAFile { path: shown });
    }
    if opened.len > limits.max_archive {
        return Err(Error::refused(
            &shown,
            Refusal::of(Detail::TooLarge {
                measure: Measure::Archive,
                limit: limits.max_archive,
            }),
        ));
    }
    Ok(ArchiveFile {
        file: Arc::new(opened.file),
        len: opened.len,
        path: shown,
    })
}

impl Archive {
    /// Reads and parses an archive. Nothing is judged but its structure and the limits: a caller
    /// that only inspects sees links and unsafe names as entries.
    ///
    /// # Errors
    /// As [`open_archive_file`] for a file, and [`Error::ReadArchive`] when it cannot be read
    /// (or a tarball's temporary spool cannot be written); [`Error::Refused`] with `unreadable`
    /// for bytes that are no archive of the format, `unsupported` for one this crate will not
    /// take (ZIP64, a directory two readers would read differently, a tar entry cut short, a
    /// long-name or pax header over 1 MiB, a second compression layer), `too-many-entries` /
    /// `too-large` past `options.limits`.
    ///
    /// # Example
    /// ```
    /// use asv_archive::{Archive, ArchiveInput, ArchiveFormat, Limits, ReadOptions, Reason};
    /// let options = ReadOptions { format: ArchiveFormat::TarGz, limits: Limits::DEFAULT };
    /// let input = ArchiveInput::bytes(b"hello".to_vec(), "x.tgz");
    /// let err = Archive::open(input, &options).unwrap_err();
    /// assert_eq!(err.reason(), Some(Reason::Unreadable));
    /// ```
    pub fn open(input: ArchiveInput, options: &ReadOptions) -> Result<Self> {
        let limits = &options.limits;
        let (data, label) = match input {
            ArchiveInput::File(path) => {
                let file = open_archive_file(&path, limits)?;
                (file.data(), file.path)
            }
            ArchiveInput::Opened { file, label } => (file.data(), label),
            ArchiveInput::Bytes { bytes, label } => (Data::Memory(bytes), label),
        };
        // A file was sized when it was opened; an opened file may have come under other limits.
        if data.len() > limits.max_archive {
            return Err(Error::refused(
                &label,
                Refusal::of(Detail::TooLarge {
                    measure: Measure::Archive,
                    limit: limits.max_archive,
                }),
            ));
        }
        let parsed = match options.format {
            ArchiveFormat::Zip => zip::read(&data, limits)
                .map(|(entries, members)| (data, entries, Members::Zip(members))),
            ArchiveFormat::TarGz => tar::inflate(&data, limits).and_then(|inflated| {
                drop(data);
                let (entries, members) = tar::read(&inflated, limits)?;
                Ok((inflated, entries, Members::Tar(members)))
            }),
        };
        let (data, entries, members) = parsed.map_err(|fail| match fail {
            Fail::Refused(refusal) => Error::refused(&label, refusal),
            Fail::Io(source) => Error::ReadArchive {
                path: label.clone(),
                error: source,
            },
        })?;
        Ok(Archive {
            label,
            data,
            entries,
            members,
        })
    }

    /// What messages call the archive: its path, or the label its bytes came with.
    pub fn label(&self) -> &str {
        &self.label
    }

    /// Every entry, in archive order, as the archive spells it.
    pub fn entries(&self) -> &[ArchiveEntry] {
        &self.entries
    }

    /// The bytes of one entry (empty for anything but a file), held to its declared size
    /// ([`Archive::copy_to`] into memory).
    ///
    /// # Errors
    /// As [`Archive::copy_to`].
    pub fn read(&self, entry: &ArchiveEntry) -> Result<Vec<u8>> {
        let mut out = Vec::with_capacity(usize::try_from(entry.size).unwrap_or(0).min(1 << 20));
        self.copy_to(entry, &mut out)?;
        Ok(out)
    }

    /// Writes one entry's bytes to `out` in 64 KiB pieces (nothing for anything but a file)
    /// and returns how many: a ZIP member inflated (or copied) and held to its declared size
    /// and its CRC-32, a tar member copied from the inflated stream. The whole member is
    /// checked only once it has been written, so when this fails `out` may hold part of it, or
    /// all of it with a wrong CRC: discard what was written.
    ///
    /// # Errors
    /// [`Error::EntryRead`] when a ZIP member does not inflate, inflates to another size than
    /// it declares, or fails its CRC; [`Error::NotAnEntry`] for an entry this archive did not
    /// list; [`Error::WriteEntry`] when `out` fails; [`Error::ReadArchive`] when the archive
    /// file (or a tarball's spool) cannot be read.
    pub fn copy_to(&self, entry: &ArchiveEntry, out: &mut dyn Write) -> Result<u64> {
        if self.entries.get(entry.index) != Some(entry) {
            return Err(Error::NotAnEntry {
                archive: self.label.clone(),
                entry: entry.name.clone(),
            });
        }
        if entry.kind != ArchiveEntryKind::File {
            return Ok(0);
        }
        let copied = match &self.members {
            Members::Zip(members) => {
                zip::copy_member(&self.data, &members[entry.index], entry.size, out)
            }
            // The reader checked that the data lies inside the stream.
            Members::Tar(members) => {
                tar::copy_member(&self.data, members[entry.index].start, entry.size, out)
            }
        };
        copied.map_err(|fail| match fail {
            zip::CopyFail::Problem(problem) => Error::EntryRead {
                archive: self.label.clone(),
                entry: entry.name.clone(),
                problem,
            },
            zip::CopyFail::Read(source) => Error::ReadArchive {
                path: self.label.clone(),
                error: source,
            },
            zip::CopyFail::Write(source) => Error::WriteEntry {
                archive: self.label.clone(),
                entry: entry.name.clone(),
                error: source,
            },
        })
    }

    /// Applies the entry policy ([`entry_refusal`]) to the whole entry list.
    ///
    /// # Errors
    /// [`Error::Refused`] naming the first entry that may not be written, and why.
    pub fn judge(&self) -> Result<()> {
        match entry_refusal(&self.entries) {
            Some(refusal) => Err(Error::refused(&self.label, refusal)),
            None => Ok(()),
        }
    }

    /// The ZIP of exactly what was judged: the whole entry list judged ([`Archive::judge`]),
    /// then each entry `omit` does not pick, in archive order, named by the place it lands at
    /// (backslashes as `/`, empty and `.` segments dropped), written as [`zip_files`] writes
    /// (Unix modes `0644`/`0755`, fixed date, no extra field or comment). Nothing else of the
    /// archive's bytes travels on.
    ///
    /// # Errors
    /// As [`Archive::judge`]; [`Error::EntryRead`] for a member that does not read as declared;
    /// [`Error::ZipTooLarge`] past what a ZIP without ZIP64 holds.
    pub fn to_zip(&self, omit: &dyn Fn(&ArchiveEntry) -> bool) -> Result<Vec<u8>> {
        self.judge()?;
        let mut contents = Vec::new();
        for entry in self.entries.iter().filter(|e| !omit(e)) {
            let place = place_of(&entry.name).join("/");
            if place.is_empty() {
                continue;
            }
            if entry.is_dir() {
                contents.push((format!("{place}/"), None, false));
            } else {
                contents.push((place, Some(self.read(entry)?), entry.executable));
            }
        }
        let records: Vec<write::Record<'_>> = contents
            .iter()
            .map(|(name, data, executable)| write::Record {
                name: name.clone(),
                data: data.as_deref(),
                executable: *executable,
            })
            .collect();
        write::zip_records(&records, &self.label)
    }
}

/// Every entry of an archive, in archive order, without judging them ([`Archive::open`]).
///
/// # Errors
/// As [`Archive::open`].
pub fn list(input: ArchiveInput, options: &ReadOptions) -> Result<Vec<ArchiveEntry>> {
    Ok(Archive::open(input, options)?.entries)
}

/// The ZIP of an accepted archive's judged entries ([`Archive::to_zip`]).
///
/// # Errors
/// As [`Archive::open`] and [`Archive::to_zip`].
pub fn zip_of_archive(
    input: ArchiveInput,
    options: &ReadOptions,
    omit: &dyn Fn(&ArchiveEntry) -> bool,
) -> Result<Vec<u8>> {
    Archive::open(input, options)?.to_zip(omit)
}
