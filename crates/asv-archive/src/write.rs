//! The reproducible ZIP writer: the same entries give the same bytes on every run and host.
//!
//! Every entry is made on Unix (`version made by` = `3 << 8 | 20`) with its mode in the upper
//! 16 bits of the external attributes (`0o100644` / `0o100755` for a file, `0o040755` for a
//! directory), dated 1980-01-01 00:00 (the DOS epoch), with no extra field and no comment. A
//! file is deflated by libdeflate at level 8 ([`LEVEL`]), or stored when deflating does not
//! make it smaller. Names are flagged UTF-8 (bit 11) exactly when they are not ASCII.
//!
//! Files are deflated on every core (rayon), a bounded window at a time, and the ZIP is
//! assembled in entry order: each entry's bytes depend only on its own data, so the archive is
//! the same byte for byte as deflating them one after another (issue 16).
//!
//! Why libdeflate (issue 30 §4): at level 8 it deflates a skill smaller than Info-ZIP's
//! `zip -9` in about half the CPU time of miniz_oxide at level 9, which wrote these ZIPs
//! before (docs/PERFORMANCE.md). Its output is a function of its input, its version and its
//! level alone: the CPU features it detects only make its tables fill faster, and nothing
//! depends on the thread or on the size of the output buffer beyond whether the result fits.
//! (It reads its hash keys in the machine's byte order, so a big-endian host might choose
//! other matches; every host we build for is little-endian.) So the version is pinned exactly
//! (`libdeflater` and its `libdeflate-sys`, `=` in Cargo.toml) and the tests pin the bytes of
//! two ZIPs: a new version of this tool may write another ZIP for the same skill, whose tree
//! hash stays the same.

use libdeflater::{CompressionLvl, Compressor};
use rayon::prelude::*;

use crate::error::{Detail, Error, Measure, Result};

/// 1980-01-01 in DOS date form: `(year - 1980) << 9 | month << 5 | day`.
const DOS_DATE: u16 = 1 << 5 | 1;
const MADE_BY_UNIX: u16 = 3 << 8 | 20;
const NEEDED: u16 = 20;
const FILE_MODE: u32 = 0o100_644;
const EXECUTABLE_MODE: u32 = 0o100_755;
const DIR_MODE: u32 = 0o040_755;
/// The MS-DOS directory attribute, set beside the Unix mode for readers that look only there.
const DOS_DIR: u32 = 0x10;

/// One file to put in a ZIP: its path inside the archive (`/`-separated), bytes and executable bit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileEntry {
    /// The path inside the archive, `/`-separated, relative.
    pub path: String,
    /// The file's bytes.
    pub bytes: Vec<u8>,
    /// Whether the file is written `0755` rather than `0644`.
    pub executable: bool,
}

/// One record to write: a directory (`data` is `None`, the name ends with `/`) or a file.
pub(crate) struct Record<'a> {
    pub(crate) name: String,
    pub(crate) data: Option<&'a [u8]>,
    pub(crate) executable: bool,
}

fn too_large(what: &str) -> Error {
    Error::ZipTooLarge {
        what: what.to_owned(),
        detail: Detail::TooLarge {
            measure: Measure::Archive,
            limit: u64::from(u32::MAX - 1),
        },
    }
}

/// How many bytes of files one window of [`zip_records`] deflates at once, on every core, before
/// appending the window's entries to the ZIP in order. It bounds what is held beside the ZIP
/// being written: the deflated entries of one window (each kept only when smaller than its
/// file), so at most this many bytes, or one file's size when a single file is larger.
const WINDOW_BYTES: usize = 8 << 20;

/// The libdeflate compression level every file is deflated at.
///
/// The lowest level that made both a generated skill and real text (this repository's sources
/// and documentation, and the Rust crates in a cargo registry) smaller than `zip -9`: levels 5
/// to 7 already beat it on the benchmark's skill, but 5 and 6 lose to it on real source and
/// Markdown, and 7 ties it there (docs/PERFORMANCE.md, issue 30 §4). Checked when compiled.
const LEVEL: CompressionLvl = match CompressionLvl::new(8) {
    Ok(level) => level,
    Err(_) => panic!("libdeflate's levels are 0 to 12"),
};

/// One record's data as it goes into the ZIP: its CRC-32 and, when deflating made it smaller,
/// the deflated bytes (otherwise the data is stored as it is).
struct Deflated {
    crc: u32,
    bytes: Option<Vec<u8>>,
}

/// What one rayon job deflates with: a libdeflate compressor (653 KiB at level 8, mostly its
/// match finder's tables; allocated once per job rather than per file) and the buffer it
/// deflates into, as large as the largest file it has deflated (a file that does not shrink
/// fills it before libdeflate gives up, as miniz_oxide's output grew to its size before).
struct Deflater {
    compressor: Compressor,
    out: Vec<u8>,
}

impl Deflater {
    fn new() -> Self {
        Deflater {
            compressor: Compressor::new(LEVEL),
            out: Vec::new(),
        }
    }

    /// Deflates `data` at [`LEVEL`], keeping the result only when it is smaller than `data`.
    ///
    /// libdeflate is given room for one byte less than `data`, so it gives up (and the file is
    /// stored) as soon as the deflated stream could not be smaller; the stream it returns
    /// otherwise does not depend on the room it was given.
    fn deflate(&mut self, data: &[u8]) -> Deflated {
        let crc = crc32fast::hash(data);
        let bytes = match data.len().checked_sub(1) {
            None | Some(0) => None,
            Some(room) => {
                if self.out.len() < room {
                    self.out.resize(room, 0);
                }
                let out = &mut self.out[..room];
                self.compressor
                    .deflate_compress(data, out)
                    .ok()
                    .map(|len| out[..len].to_vec())
            }
        };
        Deflated { crc, bytes }
    }
}

/// Writes the records in the order given. `what` names the result in an error.
///
/// The entries are deflated on every core, a window of [`WINDOW_BYTES`] at a time, and
/// appended in order, so the bytes are those of deflating them one after another.
pub(crate) fn zip_records(records: &[Record<'_>], what: &str) -> Result<Vec<u8>> {
    zip_records_in_windows(records, what, WINDOW_BYTES)
}

/// [`zip_records`] with the window's size given, so tests can show it changes no byte.
fn zip_records_in_windows(records: &[Record<'_>], what: &str, window: usize) -> Result<Vec<u8>> {
    let mut zip = ZipWriter::new(records.len(), what)?;
    for range in windows(
        records.len(),
        |i| records[i].data.map_or(0, <[u8]>::len),
        window,
    ) {
        zip.window(&records[range], what)?;
    }
    zip.finish(what)
}

/// The records split into windows: consecutive runs holding at most `window` bytes of data
/// together (a single larger record is a window of its own).
fn windows(
    count: usize,
    len_of: impl Fn(usize) -> usize,
    window: usize,
) -> Vec<std::ops::Range<usize>> {
    let mut out = Vec::new();
    let mut next = 0;
    while next < count {
        let mut taken = 0;
        let mut end = next;
        while end < count {
            let len = len_of(end);
            if end > next && taken + len > window {
                break;
            }
            taken += len;
            end += 1;
        }
        out.push(next..end);
        next = end;
    }
    out
}

/// A ZIP being written, a window of records at a time: the local entries so far and the
/// central directory to follow them.
struct ZipWriter {
    out: Vec<u8>,
    central: Vec<u8>,
    count: u16,
}

impl ZipWriter {
    /// A ZIP of `records` records, refused up front when a ZIP without ZIP64 cannot count them.
    fn new(records: usize, what: &str) -> Result<Self> {
        let Ok(count) = u16::try_from(records) else {
            return Err(Error::ZipTooLarge {
                what: what.to_owned(),
                detail: Detail::TooManyEntries {
                    limit: usize::from(u16::MAX - 1),
                },
            });
        };
        if count == u16::MAX {
            return Err(too_large(what));
        }
        Ok(ZipWriter {
            out: Vec::new(),
            central: Vec::new(),
            count,
        })
    }

    /// Deflates one window of records on every core and appends them in order.
    fn window(&mut self, window: &[Record<'_>], what: &str) -> Result<()> {
        let deflated: Vec<Deflated> = window
            .par_iter()
            .map_init(Deflater::new, |deflater, record| {
                deflater.deflate(record.data.unwrap_or(&[]))
            })
            .collect();
        for (record, deflated) in window.iter().zip(deflated) {
            append(record, &deflated, &mut self.out, &mut self.central, what)?;
        }
        Ok(())
    }

    /// The central directory and the end record after the entries: the whole ZIP.
    fn finish(self, what: &str) -> Result<Vec<u8>> {
        let ZipWriter {
            mut out,
            central,
            count,
        } = self;
        let (Ok(cd_offset), Ok(cd_size)) = (u32::try_from(out.len()), u32::try_from(central.len()))
        else {
            return Err(too_large(what));
        };
        if cd_offset == u32::MAX || cd_size == u32::MAX {
            return Err(too_large(what));
        }
        out.extend_from_slice(&central);
        out.extend_from_slice(&0x0605_4b50u32.to_le_bytes());
        out.extend_from_slice(&0u16.to_le_bytes()); // this disk
        out.extend_from_slice(&0u16.to_le_bytes()); // disk with the directory
        out.extend_from_slice(&count.to_le_bytes());
        out.extend_from_slice(&count.to_le_bytes());
        out.extend_from_slice(&cd_size.to_le_bytes());
        out.extend_from_slice(&cd_offset.to_le_bytes());
        out.extend_from_slice(&0u16.to_le_bytes()); // comment length
        Ok(out)
    }
}

/// Appends one record to the ZIP: its local header and data to `out`, its central directory
/// record to `central`. `what` names the ZIP in an error.
fn append(
    record: &Record<'_>,
    deflated: &Deflated,
    out: &mut Vec<u8>,
    central: &mut Vec<u8>,
    what: &str,
) -> Result<()> {
    let data = record.data.unwrap_or(&[]);
    let crc = deflated.crc;
    let (method, stored): (u16, &[u8]) = match &deflated.bytes {
        Some(d) => (8, d),
        None => (0, data),
    };
    let name = record.name.as_bytes();
    let (Ok(size), Ok(compressed), Ok(offset), Ok(name_len)) = (
        u32::try_from(data.len()),
        u32::try_from(stored.len()),
        u32::try_from(out.len()),
        u16::try_from(name.len()),
    ) else {
        return Err(too_large(what));
    };
    if size == u32::MAX || compressed == u32::MAX || offset == u32::MAX {
        return Err(too_large(what));
    }
    let flags: u16 = if record.name.is_ascii() { 0 } else { 1 << 11 };
    let mode = match (record.data.is_some(), record.executable) {
        (false, _) => DIR_MODE,
        (true, true) => EXECUTABLE_MODE,
        (true, false) => FILE_MODE,
    };
    let external = mode << 16 | if record.data.is_none() { DOS_DIR } else { 0 };

    let common = |buf: &mut Vec<u8>| {
        buf.extend_from_slice(&NEEDED.to_le_bytes());
        buf.extend_from_slice(&flags.to_le_bytes());
        buf.extend_from_slice(&method.to_le_bytes());
        buf.extend_from_slice(&0u16.to_le_bytes()); // time 00:00:00
        buf.extend_from_slice(&DOS_DATE.to_le_bytes());
        buf.extend_from_slice(&crc.to_le_bytes());
        buf.extend_from_slice(&compressed.to_le_bytes());
        buf.extend_from_slice(&size.to_le_bytes());
        buf.extend_from_slice(&name_len.to_le_bytes());
        buf.extend_from_slice(&0u16.to_le_bytes()); // extra length
    };
    out.extend_from_slice(&0x0403_4b50u32.to_le_bytes());
    common(out);
    out.extend_from_slice(name);
    out.extend_from_slice(stored);

    central.extend_from_slice(&0x0201_4b50u32.to_le_bytes());
    central.extend_from_slice(&MADE_BY_UNIX.to_le_bytes());
    common(central);
    central.extend_from_slice(&0u16.to_le_bytes()); // comment length
    central.extend_from_slice(&0u16.to_le_bytes()); // disk number start
    central.extend_from_slice(&0u16.to_le_bytes()); // internal attributes
    central.extend_from_slice(&external.to_le_bytes());
    central.extend_from_slice(&offset.to_le_bytes());
    central.extend_from_slice(name);
    Ok(())
}

/// The bytes of a reproducible ZIP of `files`: each file under its path, a directory entry for
/// every directory above one, all sorted bytewise by entry name (so a directory comes before
/// what it holds). The order `files` come in does not matter.
///
/// Paths are normalised as [`crate::place_of`] places an archive's entries (a backslash is a
/// separator, empty and `.` segments dropped) and judged by the same entry policy as an
/// archive being read.
///
/// # Errors
/// [`Error::Unzippable`] for a path the entry policy refuses (unsafe, listed twice, beneath
/// another file, folding onto another); [`Error::ZipTooLarge`] past what a ZIP without ZIP64
/// holds.
///
/// # Example
/// ```
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// use asv_archive::{FileEntry, zip_files};
/// let files = vec![
///     FileEntry { path: "scripts/run.sh".into(), bytes: b"#!/bin/sh\n".to_vec(), executable: true },
///     FileEntry { path: "SKILL.md".into(), bytes: b"---\nname: a\n---\n".to_vec(), executable: false },
/// ];
/// assert_eq!(zip_files(&files)?, zip_files(&files)?);
/// # Ok(())
/// # }
/// ```
pub fn zip_files(files: &[FileEntry]) -> Result<Vec<u8>> {
    zip_files_as(files, "files")
}

/// [`zip_files`], naming the ZIP `what` in an error.
fn zip_files_as(files: &[FileEntry], what: &str) -> Result<Vec<u8>> {
    let plan = plan_files(files, |f| f.bytes.len())?;
    let records: Vec<Record<'_>> = plan
        .into_iter()
        .map(|(name, file, executable)| Record {
            name,
            data: file.map(|i| files[i].bytes.as_slice()),
            executable,
        })
        .collect();
    zip_records(&records, what)
}

/// [`zip_files`] of files it takes: each file's bytes are let go once its entry is in the ZIP,
/// so the files and the ZIP are not held whole side by side (a `skill pack` of 30 MiB that
/// does not compress held 60 MiB). The bytes are the same as [`zip_files`] gives.
///
/// # Errors
/// As [`zip_files`].
///
/// # Example
/// ```
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// use asv_archive::{FileEntry, zip_files, zip_files_owned};
/// let files = vec![FileEntry { path: "a/b.txt".into(), bytes: b"hi\n".to_vec(), executable: false }];
/// assert_eq!(zip_files_owned(files.clone())?, zip_files(&files)?);
/// # Ok(())
/// # }
/// ```
pub fn zip_files_owned(mut files: Vec<FileEntry>) -> Result<Vec<u8>> {
    zip_files_owned_in_windows(&mut files, WINDOW_BYTES)
}

/// [`zip_files_owned`] with the window's size given, so tests can show it changes no byte.
fn zip_files_owned_in_windows(files: &mut [FileEntry], window: usize) -> Result<Vec<u8>> {
    let what = "files";
    let plan = plan_files(files, |f| f.bytes.len())?;
    let len_of = |i: usize| plan[i].1.map_or(0, |f| files[f].bytes.len());
    let ranges = windows(plan.len(), len_of, window);
    let mut zip = ZipWriter::new(plan.len(), what)?;
    for range in ranges {
        // This window's bytes, taken from the files and dropped once written.
        let held: Vec<Option<Vec<u8>>> = plan[range.clone()]
            .iter()
            .map(|(_, file, _)| file.map(|i| std::mem::take(&mut files[i].bytes)))
            .collect();
        let records: Vec<Record<'_>> = plan[range]
            .iter()
            .zip(&held)
            .map(|((name, _, executable), data)| Record {
                name: name.clone(),
                data: data.as_deref(),
                executable: *executable,
            })
            .collect();
        zip.window(&records, what)?;
    }
    zip.finish(what)
}

/// The entries a ZIP of `files` holds, sorted by name: each directory above a file (no index)
/// and each file (its index in `files`), judged by the entry policy first. `len` gives a
/// file's size.
fn plan_files(
    files: &[FileEntry],
    len: impl Fn(&FileEntry) -> usize,
) -> Result<Vec<(String, Option<usize>, bool)>> {
    use std::collections::BTreeMap;

    use crate::entry::{ArchiveEntry, ArchiveEntryKind};
    use crate::policy::{entry_refusal, place_of};

    let mut entries = Vec::with_capacity(files.len());
    let mut records: BTreeMap<String, (Option<usize>, bool)> = BTreeMap::new();
    for (index, file) in files.iter().enumerate() {
        let place = place_of(&file.path);
        for depth in 1..place.len() {
            let dir = format!("{}/", place[..depth].join("/"));
            records.entry(dir).or_insert((None, false));
        }
        let name = place.join("/");
        entries.push(ArchiveEntry {
            name: file.path.clone(),
            kind: ArchiveEntryKind::File,
            size: len(file) as u64,
            executable: file.executable,
            index,
            utf8: true,
        });
        records.insert(name, (Some(index), file.executable));
    }
    if let Some(refusal) = entry_refusal(&entries) {
        return Err(Error::Unzippable {
            entry: refusal.entry.unwrap_or_default(),
            detail: refusal.detail,
        });
    }
    Ok(records
        .into_iter()
        .map(|(name, (file, executable))| (name, file, executable))
        .collect())
}

/// The bytes of a reproducible ZIP of the directory `dir` of `root` ([`zip_files`] of every
/// regular file below it, read without following links, executable by the owner-execute bit).
/// An empty directory leaves no entry.
///
/// # Errors
/// [`Error::Fs`] when `dir` is no directory, a link, FIFO, device or socket stands below it,
/// or a read fails;
/// [`Error::ZipTooLarge`] when the files are more than `limits.max_entries` or hold more than
/// `limits.max_expanded` bytes; as [`zip_files`].
///
/// # Example
/// ```
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let dir = tempfile::tempdir()?;
/// let root = asv_fs::Root::open(dir.path())?;
/// root.write_file("skill/SKILL.md", b"---\nname: skill\n---\n")?;
/// let zip = asv_archive::zip_dir(&root, "skill", &asv_archive::Limits::DEFAULT)?;
/// assert_eq!(&zip[..4], b"PK\x03\x04");
/// # Ok(())
/// # }
/// ```
pub fn zip_dir(root: &asv_fs::Root, dir: &str, limits: &crate::Limits) -> Result<Vec<u8>> {
    use std::io::Read;

    let what = if dir.is_empty() { "." } else { dir };
    let over = |detail| Error::ZipTooLarge {
        what: what.to_owned(),
        detail,
    };
    let paths =
        root.walk_files(dir, &mut |_, _| false)?
            .ok_or_else(|| asv_fs::Error::WrongKind {
                path: what.to_owned(),
                expected: asv_fs::EntryKind::Directory,
                found: asv_fs::EntryKind::Unknown,
            })?;
    if paths.len() > limits.max_entries {
        return Err(over(Detail::TooManyEntries {
            limit: limits.max_entries,
        }));
    }
    let mut files = Vec::with_capacity(paths.len());
    let mut total: u64 = 0;
    for path in paths {
        let full = asv_fs::join(dir, &path);
        let Some(file) = root.open_file(&full)? else {
            return Err(asv_fs::Error::Io {
                path: full,
                op: "read",
                error: std::io::ErrorKind::NotFound.into(),
            }
            .into());
        };
        let meta = file.metadata().map_err(|source| asv_fs::Error::Io {
            path: full.clone(),
            op: "inspect",
            error: source,
        })?;
        let mut bytes = Vec::new();
        let left = limits.max_expanded - total;
        file.take(left.saturating_add(1))
            .read_to_end(&mut bytes)
            .map_err(|source| asv_fs::Error::Io {
                path: full.clone(),
                op: "read",
                error: source,
            })?;
        total += bytes.len() as u64;
        if total > limits.max_expanded {
            return Err(over(Detail::TooLarge {
                measure: Measure::Expanded,
                limit: limits.max_expanded,
            }));
        }
        files.push(FileEntry {
            path,
            bytes,
            executable: asv_fs::platform::is_executable(&meta),
        });
    }
    zip_files_as(&files, what)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Text that deflates, bytes that do not (stored), and empty entries.
    fn data() -> Vec<Vec<u8>> {
        let mut x: u64 = 7;
        let mut noise = |len: usize| -> Vec<u8> {
            (0..len)
                .map(|_| {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    x as u8
                })
                .collect()
        };
        (0..40)
            .map(|i| match i % 3 {
                0 => b"line of text to deflate\n".repeat(i * 40),
                1 => noise(i * 300),
                _ => Vec::new(),
            })
            .collect()
    }

    #[test]
    fn the_window_size_changes_no_byte() {
        let data = data();
        let records: Vec<Record<'_>> = data
            .iter()
            .enumerate()
            .map(|(i, d)| Record {
                name: format!("f{i:02}"),
                data: Some(d),
                executable: i % 2 == 0,
            })
            .collect();
        let whole = zip_records_in_windows(&records, "t", usize::MAX).unwrap();
        // One entry per window, a few per window, and the default.
        for window in [0, 1, 5_000, WINDOW_BYTES] {
            assert_eq!(
                zip_records_in_windows(&records, "t", window).unwrap(),
                whole,
                "window of {window} bytes"
            );
        }
        // And the same as deflating the entries one after another, in a pool of one thread.
        let one = rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .build()
            .unwrap()
            .install(|| zip_records_in_windows(&records, "t", usize::MAX).unwrap());
        assert_eq!(one, whole);
    }

    #[test]
    fn files_taken_zip_to_the_same_bytes_and_are_let_go() {
        let files: Vec<FileEntry> = data()
            .into_iter()
            .enumerate()
            .map(|(i, bytes)| FileEntry {
                path: format!("s/d{}/f{i:02}", i % 4),
                bytes,
                executable: i % 2 == 0,
            })
            .collect();
        let whole = zip_files(&files).unwrap();
        for window in [0, 1, 5_000, WINDOW_BYTES] {
            let mut taken = files.clone();
            assert_eq!(
                zip_files_owned_in_windows(&mut taken, window).unwrap(),
                whole,
                "window of {window} bytes"
            );
            assert!(taken.iter().all(|f| f.bytes.is_empty()));
        }
        assert_eq!(zip_files_owned(files.clone()).unwrap(), whole);
        // The same refusal as from borrowed files.
        let mut twice = files[..2].to_vec();
        twice[1].path = twice[0].path.clone();
        assert_eq!(
            zip_files_owned(twice.clone()).unwrap_err().to_string(),
            zip_files(&twice).unwrap_err().to_string()
        );
    }
}
