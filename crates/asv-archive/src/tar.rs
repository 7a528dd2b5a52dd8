//! A strict reader of a tar archive inside one gzip layer, written here in 512-byte blocks.
//!
//! Why our own rather than the `tar` crate: the crate is lenient where we must be strict (it
//! takes a stream cut short as the end, and sniffs nothing about what the stream is), and all
//! that is needed is the header layout. What it reads:
//!
//! - exactly one gzip member, inflated to at most `max_expanded` bytes; data after the member,
//!   or an inflated stream that is itself gzip, zstd or xz, is refused;
//! - ustar, GNU and v7 headers with their checksum; GNU long names (`L`, and long link names
//!   `K`, read and dropped), pax extended headers (`x`: `path` and `size` are taken) and pax
//!   global headers (`g`: parsed and ignored);
//! - regular files (`0`, NUL), directories (`5`); everything else is listed, never dropped:
//!   hard links (`1`), symbolic links (`2`), devices and FIFOs (`3`, `4`, `6`) and every other
//!   type byte as special;
//! - an entry whose data runs past the stream, or a link or directory that declares data, is
//!   refused; after the end marker only zero bytes may follow.
//!
//! A gzip stream cannot be read at an offset, so it is inflated once, in pieces, into a
//! [`Spool`] (memory up to a few MiB, then an unnamed temporary file) and the tar stream is
//! parsed from there by offset; a member's bytes are copied from it when they are read. The
//! data of a long-name or pax header is read into memory and so is held to
//! [`META_HEADER_LIMIT`] (1 MiB; GNU tar and libarchive write a few hundred bytes), refused as
//! [`Detail::MetaHeaderTooLarge`] past it.

use std::cell::Cell;
use std::io::{self, BufRead, BufReader, Read, Write};

use flate2::bufread::GzDecoder;

use crate::entry::{ArchiveEntry, ArchiveEntryKind, Limits, Special, name_of};
use crate::error::{Detail, Measure, Refusal};
use crate::random_access::{CHUNK, Data, Fail, Region, Spool, Window};

const BLOCK: usize = 512;

/// The most bytes of data a long-name (`L`) or pax (`x`, `g`) header may carry: they are read
/// into memory. A long link name (`K`) is skipped unread, so it has no such bound.
pub(crate) const META_HEADER_LIMIT: u64 = 1024 * 1024;

/// Where one entry's bytes lie in the inflated stream.
#[derive(Debug, Clone)]
pub(crate) struct Member {
    pub(crate) start: u64,
}

/// Inflates the one gzip layer, bounded, into a spool, and refuses a second layer.
pub(crate) fn inflate(gz: &Data, limits: &Limits) -> Result<Data, Fail> {
    let magic = gz.read_vec(0, gz.len().min(2) as usize)?;
    if magic != [0x1f, 0x8b] {
        return Err(Refusal::of(Detail::NotGzip).into());
    }
    let failed = Cell::new(None);
    let mut spool = Spool::new();
    let mut source = BufReader::with_capacity(CHUNK, Region::new(gz, 0, gz.len(), &failed));
    let inflated: Result<(), Fail> = {
        let mut decoder = GzDecoder::new(&mut source).take(limits.max_expanded.saturating_add(1));
        let mut buf = vec![0; CHUNK];
        loop {
            match decoder.read(&mut buf) {
                Ok(0) => break Ok(()),
                // A spool that cannot be written ends the open (`Fail::Io`), not the archive.
                Ok(n) => spool.write_all(&buf[..n])?,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(_) => break Err(Refusal::of(Detail::BadGzip).into()),
            }
        }
    };
    if let Some(e) = failed.take() {
        return Err(Fail::Io(e));
    }
    inflated?;
    if spool.len() > limits.max_expanded {
        return Err(Refusal::of(Detail::TooLarge {
            measure: Measure::Expanded,
            limit: limits.max_expanded,
        })
        .into());
    }
    // What the decoder left unread, in its buffer or after it.
    let rest = source.fill_buf().map(|rest| !rest.is_empty());
    if let Some(e) = failed.take() {
        return Err(Fail::Io(e));
    }
    if rest? {
        return Err(Refusal::of(Detail::DataAfterGzip).into());
    }
    let out = spool.into_data();
    let head = out.read_vec(0, out.len().min(6) as usize)?;
    let layers: [(&[u8], &'static str); 3] = [
        (&[0x1f, 0x8b], "gzip"),
        (&[0x28, 0xb5, 0x2f, 0xfd], "zstd"),
        (&[0xfd, b'7', b'z', b'X', b'Z', 0], "xz"),
    ];
    for (magic, format) in layers {
        if head.starts_with(magic) {
            return Err(Refusal::of(Detail::SecondCompressionLayer { format }).into());
        }
    }
    Ok(out)
}

/// Whether every byte of `data` from `at` on is zero, read in pieces.
fn only_zeros_from(data: &Data, at: u64) -> io::Result<bool> {
    let failed = Cell::new(None);
    let mut region = Region::new(data, at, data.len().saturating_sub(at), &failed);
    let mut buf = vec![0; CHUNK];
    loop {
        match region.read(&mut buf) {
            Ok(0) => return Ok(true),
            Ok(n) if buf[..n].iter().any(|b| *b != 0) => return Ok(false),
            Ok(_) => {}
            Err(e) => return Err(failed.take().unwrap_or(e)),
        }
    }
}

/// Copies the `size` bytes of data at `start` to `out`, in pieces.
pub(crate) fn copy_member(
    data: &Data,
    start: u64,
    size: u64,
    out: &mut dyn Write,
) -> Result<u64, crate::zip::CopyFail> {
    use crate::zip::CopyFail;
    let failed = Cell::new(None);
    let mut region = Region::new(data, start, size, &failed);
    let mut buf = vec![0; CHUNK];
    let mut count = 0;
    loop {
        match region.read(&mut buf) {
            Ok(0) => return Ok(count),
            Ok(n) => {
                out.write_all(&buf[..n]).map_err(CopyFail::Write)?;
                count += n as u64;
            }
            Err(e) => return Err(CopyFail::Read(failed.take().unwrap_or(e))),
        }
    }
}

/// A header's checksum, as stored and as computed (unsigned and signed sums are both taken).
fn checksum_ok(header: &[u8]) -> bool {
    let Some(stored) = octal(&header[148..156]) else {
        return false;
    };
    let mut unsigned: u64 = 0;
    let mut signed: i64 = 0;
    for (i, b) in header.iter().enumerate() {
        let b = if (148..156).contains(&i) { b' ' } else { *b };
        unsigned += u64::from(b);
        signed += i64::from(b as i8);
    }
    stored == unsigned || i64::try_from(stored).is_ok_and(|s| s == signed)
}

/// An octal field: optional leading spaces, digits, then NUL or space padding.
fn octal(field: &[u8]) -> Option<u64> {
    let text = field
        .iter()
        .skip_while(|b| **b == b' ')
        .take_while(|b| **b != 0 && **b != b' ');
    let mut value: u64 = 0;
    for b in text {
        if !(b'0'..=b'7').contains(b) {
            return None;
        }
        value = value.checked_mul(8)?.checked_add(u64::from(b - b'0'))?;
    }
    Some(value)
}

/// A NUL-terminated field's bytes.
fn cstr(field: &[u8]) -> &[u8] {
    let end = field.iter().position(|b| *b == 0).unwrap_or(field.len());
    &field[..end]
}

/// The records of a pax extended header: `"<len> <key>=<value>\n"` each.
fn pax_records(mut data: &[u8]) -> Option<Vec<(&[u8], &[u8])>> {
    let mut out = Vec::new();
    // A trailing run of NULs is padding some writers leave.
    while !data.is_empty() && data.iter().any(|b| *b != 0) {
        let space = data.iter().position(|b| *b == b' ')?;
        let len: usize = std::str::from_utf8(&data[..space]).ok()?.parse().ok()?;
        if len <= space + 1 || len > data.len() || data[len - 1] != b'\n' {
            return None;
        }
        let record = &data[space + 1..len - 1];
        let eq = record.iter().position(|b| *b == b'=')?;
        out.push((&record[..eq], &record[eq + 1..]));
        data = &data[len..];
    }
    Some(out)
}

/// Parses the inflated tar stream; its entries in archive order and where each one's data is.
pub(crate) fn read(tar: &Data, limits: &Limits) -> Result<(Vec<ArchiveEntry>, Vec<Member>), Fail> {
    let mut window = Window::new(tar, CHUNK);
    let mut entries = Vec::new();
    let mut members = Vec::new();
    let mut at = 0u64;
    let mut long_name: Option<Vec<u8>> = None;
    let mut pax_path: Option<Vec<u8>> = None;
    let mut pax_size: Option<u64> = None;
    let mut pending_meta = false;
    let mut first = true;
    let mut expanded: u64 = 0;
    loop {
        if at == tar.len() {
            // The stream ends without the end marker: accepted as GNU tar does, unless a
            // long-name or pax header is still waiting for its entry.
            if pending_meta {
                return Err(Refusal::of(Detail::DanglingMetaHeader).into());
            }
            if first {
                return Err(Refusal::of(Detail::NotTar).into());
            }
            break;
        }
        let Some(block) = window.get(at, BLOCK)? else {
            return Err(Refusal::of(if first {
                Detail::NotTar
            } else {
                Detail::CutShort
            })
            .into());
        };
        let mut header = [0u8; BLOCK];
        header.copy_from_slice(block);
        let header = &header[..];
        if header.iter().all(|b| *b == 0) {
            if pending_meta {
                return Err(Refusal::of(Detail::DanglingMetaHeader).into());
            }
            if !only_zeros_from(tar, at)? {
                return Err(Refusal::of(Detail::DataAfterEnd).into());
            }
            break;
        }
        if !checksum_ok(header) {
            return Err(Refusal::of(if first {
                Detail::NotTar
            } else {
                Detail::BadTarHeader
            })
            .into());
        }
        first = false;
        let type_byte = header[156];
        let stored_name = {
            let name = cstr(&header[0..100]);
            let posix = &header[257..263] == b"ustar\0";
            let prefix = cstr(&header[345..500]);
            if posix && !prefix.is_empty() {
                let mut full = prefix.to_vec();
                full.push(b'/');
                full.extend_from_slice(name);
                full
            } else {
                name.to_vec()
            }
        };
        let raw_name = pax_path
            .take()
            .or_else(|| long_name.take())
            .unwrap_or(stored_name);
        let (name, utf8) = name_of(&raw_name);
        let size_field = &header[124..136];
        let header_size = if size_field[0] & 0x80 != 0 {
            return Err(Refusal::at(&name, Detail::Base256Size).into());
        } else {
            octal(size_field).ok_or_else(|| Refusal::at(&name, Detail::BadTarHeader))?
        };
        let size = pax_size.take().unwrap_or(header_size);
        let data_start = at + BLOCK as u64;
        let padded = size.div_ceil(BLOCK as u64).saturating_mul(BLOCK as u64);
        let next = data_start.saturating_add(padded);
        if next > tar.len() {
            return Err(Refusal::at(&name, Detail::CutShort).into());
        }
        // The data of a long-name or pax header, read into memory, so held to a bound.
        let meta_data = |window: &mut Window<'_>| -> Result<Vec<u8>, Fail> {
            if size > META_HEADER_LIMIT {
                return Err(Refusal::of(Detail::MetaHeaderTooLarge {
                    limit: META_HEADER_LIMIT,
                })
                .into());
            }
            // In range: `next` is checked above and `size` is at most 1 MiB.
            Ok(window.must(data_start, size as usize)?.to_vec())
        };
        match type_byte {
            b'L' => {
                long_name = Some(cstr(&meta_data(&mut window)?).to_vec());
                pending_meta = true;
            }
            b'K' => {
                pending_meta = true;
            }
            b'x' => {
                let data = meta_data(&mut window)?;
                let records = pax_records(&data).ok_or_else(|| Refusal::of(Detail::BadPax))?;
                for (key, value) in records {
                    match key {
                        b"path" => pax_path = Some(value.to_vec()),
                        b"size" => {
                            let text = std::str::from_utf8(value).ok();
                            let parsed = text.and_then(|t| t.parse::<u64>().ok());
                            pax_size = Some(parsed.ok_or_else(|| Refusal::of(Detail::BadPax))?);
                        }
                        _ => {}
                    }
                }
                pending_meta = true;
            }
            b'g' => {
                // Global attributes are parsed (a malformed one is refused) and otherwise ignored:
                // nothing this reader takes from a header is global in practice.
                pax_records(&meta_data(&mut window)?).ok_or_else(|| Refusal::of(Detail::BadPax))?;
            }
            _ => {
                pending_meta = false;
                let trailing_slash = raw_name.ends_with(b"/");
                let kind = match type_byte {
                    b'0' => ArchiveEntryKind::File,
                    0 if trailing_slash => ArchiveEntryKind::Directory,
                    0 => ArchiveEntryKind::File,
                    b'5' => ArchiveEntryKind::Directory,
                    b'1' => ArchiveEntryKind::Hardlink,
                    b'2' => ArchiveEntryKind::Link,
                    b'3' => ArchiveEntryKind::Special(Special::CharDevice),
                    b'4' => ArchiveEntryKind::Special(Special::BlockDevice),
                    b'6' => ArchiveEntryKind::Special(Special::Fifo),
                    other => ArchiveEntryKind::Special(Special::TarType(other)),
                };
                let modelled = !matches!(kind, ArchiveEntryKind::Special(Special::TarType(_)));
                if kind != ArchiveEntryKind::File && modelled && size != 0 {
                    return Err(Refusal::at(&name, Detail::NonFileData).into());
                }
                if entries.len() == limits.max_entries {
                    return Err(Refusal::of(Detail::TooManyEntries {
                        limit: limits.max_entries,
                    })
                    .into());
                }
                let mode = octal(&header[100..108]).unwrap_or(0);
                let is_file = kind == ArchiveEntryKind::File;
                if is_file {
                    expanded = expanded.saturating_add(size);
                    if expanded > limits.max_expanded {
                        return Err(Refusal::at(
                            &name,
                            Detail::TooLarge {
                                measure: Measure::Expanded,
                                limit: limits.max_expanded,
                            },
                        )
                        .into());
                    }
                }
                entries.push(ArchiveEntry {
                    name,
                    size: if is_file { size } else { 0 },
                    executable: is_file && mode & 0o100 != 0,
                    kind,
                    index: entries.len(),
                    utf8,
                });
                members.push(Member { start: data_start });
            }
        }
        at = next;
    }
    Ok((entries, members))
}
