//! The reproducible ZIP writer: the same entries give the same bytes on every run and host.
//!
//! Every entry is made on Unix (`version made by` = `3 << 8 | 20`) with its mode in the upper
//! 16 bits of the external attributes (`0o100644` / `0o100755` for a file, `0o040755` for a
//! directory), dated 1980-01-01 00:00 (the DOS epoch), with no extra field and no comment. A
//! file is deflated at level 9, or stored when deflating does not make it smaller. Names are
//! flagged UTF-8 (bit 11) exactly when they are not ASCII.

use std::io::Write;

use flate2::Compression;
use flate2::write::DeflateEncoder;

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

/// Writes the records in the order given. `what` names the result in an error.
pub(crate) fn zip_records(records: &[Record<'_>], what: &str) -> Result<Vec<u8>> {
    let Ok(count) = u16::try_from(records.len()) else {
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
    let mut out = Vec::new();
    let mut central = Vec::new();
    for record in records {
        let data = record.data.unwrap_or(&[]);
        let crc = crc32fast::hash(data);
        let deflated = if data.is_empty() {
            None
        } else {
            let mut encoder = DeflateEncoder::new(Vec::new(), Compression::best());
            // Writing into a Vec cannot fail.
            let done = encoder.write_all(data).and_then(|()| encoder.finish());
            done.ok().filter(|d| d.len() < data.len())
        };
        let (method, stored): (u16, &[u8]) = match &deflated {
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
        common(&mut out);
        out.extend_from_slice(name);
        out.extend_from_slice(stored);

        central.extend_from_slice(&0x0201_4b50u32.to_le_bytes());
        central.extend_from_slice(&MADE_BY_UNIX.to_le_bytes());
        common(&mut central);
        central.extend_from_slice(&0u16.to_le_bytes()); // comment length
        central.extend_from_slice(&0u16.to_le_bytes()); // disk number start
        central.extend_from_slice(&0u16.to_le_bytes()); // internal attributes
        central.extend_from_slice(&external.to_le_bytes());
        central.extend_from_slice(&offset.to_le_bytes());
        central.extend_from_slice(name);
    }
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
    zip_files_named(files, "files")
}

fn zip_files_named(files: &[FileEntry], what: &str) -> Result<Vec<u8>> {
    use std::collections::BTreeMap;

    use crate::entry::{Entry, EntryKind};
    use crate::policy::{entry_refusal, place_of};

    let mut entries = Vec::with_capacity(files.len());
    let mut records: BTreeMap<String, Record<'_>> = BTreeMap::new();
    for (index, file) in files.iter().enumerate() {
        let place = place_of(&file.path);
        for depth in 1..place.len() {
            let dir = format!("{}/", place[..depth].join("/"));
            records.entry(dir.clone()).or_insert(Record {
                name: dir,
                data: None,
                executable: false,
            });
        }
        let name = place.join("/");
        entries.push(Entry {
            name: file.path.clone(),
            kind: EntryKind::File,
            size: file.bytes.len() as u64,
            executable: file.executable,
            index,
            utf8: true,
        });
        records.insert(
            name.clone(),
            Record {
                name,
                data: Some(&file.bytes),
                executable: file.executable,
            },
        );
    }
    if let Some(refusal) = entry_refusal(&entries) {
        return Err(Error::Unzippable {
            entry: refusal.entry.unwrap_or_default(),
            detail: refusal.detail,
        });
    }
    let records: Vec<Record<'_>> = records.into_values().collect();
    zip_records(&records, what)
}

/// The bytes of a reproducible ZIP of the directory `dir` of `tree` ([`zip_files`] of every
/// regular file below it, read without following links, executable by the owner-execute bit).
/// An empty directory leaves no entry.
///
/// # Errors
/// [`Error::Tree`] when `dir` is no directory, a link, FIFO, device or socket stands below it,
/// or a read fails;
/// [`Error::ZipTooLarge`] when the files are more than `limits.max_entries` or hold more than
/// `limits.max_expanded` bytes; as [`zip_files`].
///
/// # Example
/// ```
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let dir = tempfile::tempdir()?;
/// let tree = asv_fs::Root::open(dir.path())?;
/// tree.write_file("skill/SKILL.md", b"---\nname: skill\n---\n")?;
/// let zip = asv_archive::zip_dir(&tree, "skill", &asv_archive::Limits::DEFAULT)?;
/// assert_eq!(&zip[..4], b"PK\x03\x04");
/// # Ok(())
/// # }
/// ```
pub fn zip_dir(tree: &asv_fs::Root, dir: &str, limits: &crate::Limits) -> Result<Vec<u8>> {
    use std::io::Read;

    let what = if dir.is_empty() { "." } else { dir };
    let over = |detail| Error::ZipTooLarge {
        what: what.to_owned(),
        detail,
    };
    let paths =
        tree.walk_files(dir, &mut |_, _| false)?
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
        let Some(file) = tree.open_file(&full)? else {
            return Err(asv_fs::Error::Io {
                path: full,
                op: "read",
                source: std::io::ErrorKind::NotFound.into(),
            }
            .into());
        };
        let meta = file.metadata().map_err(|source| asv_fs::Error::Io {
            path: full.clone(),
            op: "inspect",
            source,
        })?;
        let mut bytes = Vec::new();
        let left = limits.max_expanded - total;
        file.take(left.saturating_add(1))
            .read_to_end(&mut bytes)
            .map_err(|source| asv_fs::Error::Io {
                path: full.clone(),
                op: "read",
                source,
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
    zip_files_named(&files, what)
}
