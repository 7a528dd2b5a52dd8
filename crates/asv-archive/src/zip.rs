//! A strict ZIP reader, written here rather than taken from a ZIP library.
//!
//! Why our own: the policy needs to know exactly which bytes are the archive, and a library's
//! leniency (searching for the end record, skipping a stub, reading local headers the directory
//! does not list, quietly taking ZIP64) is what lets two readers see two different archives in
//! one file. So the archive is accepted only when every byte is accounted for once:
//!
//! - the end record is the end of the file (it and exactly the comment it declares), and no
//!   other place could be an end record;
//! - its two counts agree, it spans one disk, and nothing in it is a ZIP64 marker;
//! - the central directory runs exactly from its declared start to the end record;
//! - each record's offset holds that entry's own local header (same name, method, flags and,
//!   without a data descriptor, the same CRC and sizes);
//! - the local entries tile the bytes before the directory exactly: no stub before the first,
//!   no gap between two, no overlap.
//!
//! The bytes are read by offset ([`Data`]), never whole: the end record from the last
//! 22 + 65,535 bytes, the central directory and the local headers through a cached window.
//! A member's bytes are inflated only when read, in pieces, bounded by the size its record
//! declares, and checked against its CRC-32.

use std::cell::Cell;
use std::io::{self, Read, Write};

use flate2::read::DeflateDecoder;

use crate::entry::{ArchiveEntry, ArchiveEntryKind, Limits, Special, name_of};
use crate::error::{Detail, Measure, ReadProblem, Refusal};
use crate::random_access::{CHUNK, Data, Fail, Region, Window};

const END_SIG: u32 = 0x0605_4b50;
const CENTRAL_SIG: u32 = 0x0201_4b50;
const LOCAL_SIG: u32 = 0x0403_4b50;
const DESCRIPTOR_SIG: u32 = 0x0807_4b50;
const ZIP64_END_SIG: u32 = 0x0606_4b50;
const ZIP64_LOCATOR_SIG: u32 = 0x0706_4b50;
const END_LEN: usize = 22;
const CENTRAL_LEN: usize = 30 + 16;
const LOCAL_LEN: usize = 30;

/// Where one member's bytes are and how to read them.
#[derive(Debug, Clone)]
pub(crate) struct Member {
    method: u16,
    crc: u32,
    compressed: u64,
    data_start: u64,
}

fn u16_at(b: &[u8], at: usize) -> Option<u16> {
    let s = b.get(at..at.checked_add(2)?)?;
    Some(u16::from_le_bytes([s[0], s[1]]))
}

fn u32_at(b: &[u8], at: usize) -> Option<u32> {
    let s = b.get(at..at.checked_add(4)?)?;
    Some(u32::from_le_bytes([s[0], s[1], s[2], s[3]]))
}

fn has_sig(b: &[u8], at: usize, sig: u32) -> bool {
    u32_at(b, at) == Some(sig)
}

/// Finds the one end record: the signature whose declared comment reaches exactly the end.
fn find_end(bytes: &[u8]) -> Result<usize, Refusal> {
    if bytes.len() < END_LEN {
        return Err(Refusal::of(Detail::NoEndRecord));
    }
    let lowest = bytes.len().saturating_sub(END_LEN + usize::from(u16::MAX));
    let mut fitting = Vec::new();
    let mut any = false;
    for at in (lowest..=bytes.len() - END_LEN).rev() {
        if has_sig(bytes, at, END_SIG) {
            any = true;
            let comment = usize::from(u16_at(bytes, at + 20).unwrap_or(0));
            if at + END_LEN + comment == bytes.len() {
                fitting.push(at);
            }
        }
    }
    match fitting.as_slice() {
        [] if any => Err(Refusal::of(Detail::TrailingData)),
        [] => Err(Refusal::of(Detail::NoEndRecord)),
        [at] => {
            // Nothing that another reader could take for an end or ZIP64 record in the comment.
            let comment = &bytes[at + END_LEN..];
            let marker = comment.windows(4).any(|w| {
                let v = u32::from_le_bytes([w[0], w[1], w[2], w[3]]);
                v == END_SIG || v == ZIP64_END_SIG || v == ZIP64_LOCATOR_SIG
            });
            if marker {
                return Err(Refusal::of(Detail::AmbiguousEndRecord));
            }
            Ok(*at)
        }
        _ => Err(Refusal::of(Detail::AmbiguousEndRecord)),
    }
}

/// Whether an extra field block holds a ZIP64 extended-information field (header id 1).
fn has_zip64_extra(mut extra: &[u8]) -> bool {
    while extra.len() >= 4 {
        let id = u16::from_le_bytes([extra[0], extra[1]]);
        let len = usize::from(u16::from_le_bytes([extra[2], extra[3]]));
        if id == 0x0001 {
            return true;
        }
        extra = extra.get(4 + len..).unwrap_or(&[]);
    }
    false
}

/// The kind and executable bit a central record declares.
fn kind_of(made_by: u16, external: u32, name: &[u8]) -> (ArchiveEntryKind, bool) {
    let trailing_slash = name.ends_with(b"/") || name.ends_with(b"\\");
    let unix = made_by >> 8 == 3;
    let mode = external >> 16;
    if unix && mode != 0 {
        let executable = mode & 0o100 != 0;
        let kind = match mode & 0o170_000 {
            0o100_000 | 0 if trailing_slash => ArchiveEntryKind::Directory,
            0o100_000 | 0 => ArchiveEntryKind::File,
            0o040_000 => ArchiveEntryKind::Directory,
            0o120_000 => ArchiveEntryKind::Link,
            0o020_000 => ArchiveEntryKind::Special(Special::CharDevice),
            0o060_000 => ArchiveEntryKind::Special(Special::BlockDevice),
            0o010_000 => ArchiveEntryKind::Special(Special::Fifo),
            0o140_000 => ArchiveEntryKind::Special(Special::Socket),
            _ => ArchiveEntryKind::Special(Special::UnixMode(mode)),
        };
        let executable = executable && kind == ArchiveEntryKind::File;
        return (kind, executable);
    }
    let kind = if trailing_slash {
        ArchiveEntryKind::Directory
    } else {
        ArchiveEntryKind::File
    };
    (kind, false)
}

/// One central record as read, before its local header is checked.
struct Record {
    entry: ArchiveEntry,
    flags: u16,
    method: u16,
    crc: u32,
    compressed: u64,
    offset: u64,
    raw_name: Vec<u8>,
}

/// How much a miss of the central directory's window reads: the records follow each other.
const DIRECTORY_AHEAD: usize = 64 * 1024;
/// How much a miss of the local headers' window reads: a header, its name and usually its
/// extra field, and the next headers when the members are small.
const LOCAL_AHEAD: usize = 4 * 1024;

/// Parses and checks the whole ZIP; its entries in directory order and where each one's bytes are.
pub(crate) fn read(data: &Data, limits: &Limits) -> Result<(Vec<ArchiveEntry>, Vec<Member>), Fail> {
    // The end record lies in the last 22 + 65,535 bytes; `find_end` looks at nothing else.
    let len = data.len();
    let tail_start = len.saturating_sub((END_LEN + usize::from(u16::MAX)) as u64);
    let tail = data.read_vec(tail_start, (len - tail_start) as usize)?;
    let end_in_tail = find_end(&tail)?;
    let end = tail_start + end_in_tail as u64;
    let field = |at| u16_at(&tail, end_in_tail + at).unwrap_or(0);
    let (disk, cd_disk, on_disk, total) = (field(4), field(6), field(8), field(10));
    let cd_size = u32_at(&tail, end_in_tail + 12).unwrap_or(0);
    let cd_offset = u32_at(&tail, end_in_tail + 16).unwrap_or(0);
    let mut directory = Window::new(data, DIRECTORY_AHEAD);
    if end >= 20 && has_sig(directory.must(end - 20, 4)?, 0, ZIP64_LOCATOR_SIG) {
        return Err(Refusal::of(Detail::Zip64).into());
    }
    if on_disk == u16::MAX || total == u16::MAX || cd_size == u32::MAX || cd_offset == u32::MAX {
        return Err(Refusal::of(Detail::Zip64).into());
    }
    if disk != 0 || cd_disk != 0 {
        return Err(Refusal::of(Detail::MultiDisk).into());
    }
    if on_disk != total {
        return Err(Refusal::of(Detail::CountMismatch { on_disk, total }).into());
    }
    if usize::from(total) > limits.max_entries {
        return Err(Refusal::of(Detail::TooManyEntries {
            limit: limits.max_entries,
        })
        .into());
    }
    let cd_start = u64::from(cd_offset);
    if cd_start + u64::from(cd_size) != end {
        return Err(Refusal::of(Detail::DirectoryBounds).into());
    }

    let mut records = Vec::with_capacity(usize::from(total));
    let mut at = cd_start;
    let mut expanded: u64 = 0;
    for index in 0..usize::from(total) {
        let damaged = || Refusal::of(Detail::DamagedDirectory { index });
        if at + CENTRAL_LEN as u64 > end {
            return Err(damaged().into());
        }
        let header = directory.must(at, CENTRAL_LEN)?;
        if !has_sig(header, 0, CENTRAL_SIG) {
            return Err(damaged().into());
        }
        let r16 = |o| u16_at(header, o).unwrap_or(0);
        let r32 = |o| u32_at(header, o).unwrap_or(0);
        let (made_by, flags, method) = (r16(4), r16(8), r16(10));
        let (crc, compressed, size) = (r32(16), r32(20), r32(24));
        let (name_len, extra_len, comment_len) = (
            usize::from(r16(28)),
            usize::from(r16(30)),
            usize::from(r16(32)),
        );
        let (start_disk, external, offset) = (r16(34), r32(38), r32(42));
        let name_at = at + CENTRAL_LEN as u64;
        let next = name_at + (name_len + extra_len + comment_len) as u64;
        if next > end {
            return Err(damaged().into());
        }
        let name_and_extra = directory.must(name_at, name_len + extra_len)?;
        let raw_name = name_and_extra[..name_len].to_vec();
        let extra = &name_and_extra[name_len..];
        let (name, utf8) = name_of(&raw_name);
        let refuse = |detail| Err(Fail::Refused(Refusal::at(&name, detail)));
        if compressed == u32::MAX || size == u32::MAX || offset == u32::MAX {
            return refuse(Detail::Zip64);
        }
        if has_zip64_extra(extra) {
            return refuse(Detail::Zip64);
        }
        if start_disk != 0 {
            return refuse(Detail::MultiDisk);
        }
        if flags & 0x0041 != 0 {
            return refuse(Detail::Encrypted);
        }
        if method != 0 && method != 8 {
            return refuse(Detail::Method { method });
        }
        let (kind, executable) = kind_of(made_by, external, &raw_name);
        if kind == ArchiveEntryKind::Directory && size != 0 {
            return refuse(Detail::DirectoryWithData);
        }
        expanded = expanded.saturating_add(u64::from(size));
        if expanded > limits.max_expanded {
            return refuse(Detail::TooLarge {
                measure: Measure::Expanded,
                limit: limits.max_expanded,
            });
        }
        records.push(Record {
            entry: ArchiveEntry {
                name,
                kind,
                size: u64::from(size),
                executable,
                index,
                utf8,
            },
            flags,
            method,
            crc,
            compressed: u64::from(compressed),
            offset: u64::from(offset),
            raw_name,
        });
        at = next;
    }
    if at != end {
        return Err(Refusal::of(Detail::DirectoryBounds).into());
    }
    drop(directory);

    // Each record's local header, and the span of bytes its entry takes.
    let mut local = Window::new(data, LOCAL_AHEAD);
    let mut spans = Vec::with_capacity(records.len());
    let mut members = Vec::with_capacity(records.len());
    for record in &records {
        let refuse = |detail| Fail::Refused(Refusal::at(&record.entry.name, detail));
        let at = record.offset;
        if at + LOCAL_LEN as u64 > cd_start {
            return Err(refuse(Detail::LocalHeaderMismatch));
        }
        let header = local.must(at, LOCAL_LEN)?;
        if !has_sig(header, 0, LOCAL_SIG) {
            return Err(refuse(Detail::LocalHeaderMismatch));
        }
        let l16 = |o| u16_at(header, o).unwrap_or(0);
        let l32 = |o| u32_at(header, o).unwrap_or(0);
        let (flags, method) = (l16(6), l16(8));
        let (crc, compressed, size) = (l32(14), l32(18), l32(22));
        let (name_len, extra_len) = (usize::from(l16(26)), usize::from(l16(28)));
        let name_at = at + LOCAL_LEN as u64;
        if name_at + name_len as u64 > cd_start
            || local.must(name_at, name_len)? != &record.raw_name[..]
        {
            return Err(refuse(Detail::LocalHeaderMismatch));
        }
        let extra_end = name_at + (name_len + extra_len) as u64;
        if extra_end > cd_start {
            return Err(refuse(Detail::LocalHeaderMismatch));
        }
        if has_zip64_extra(local.must(name_at + name_len as u64, extra_len)?) {
            return Err(refuse(Detail::Zip64));
        }
        let descriptor = record.flags & 0x0008 != 0;
        if flags != record.flags || method != record.method {
            return Err(refuse(Detail::LocalFieldsDisagree));
        }
        if !descriptor
            && (crc != record.crc
                || u64::from(compressed) != record.compressed
                || u64::from(size) != record.entry.size)
        {
            return Err(refuse(Detail::LocalFieldsDisagree));
        }
        let data_end = extra_end + record.compressed;
        if data_end > cd_start {
            return Err(refuse(Detail::OverlappingEntries));
        }
        let mut span_end = data_end;
        if descriptor {
            // The optional signature, then CRC and the two sizes, which must agree too.
            let mut d = span_end;
            if local
                .get(d, 4)?
                .is_some_and(|sig| has_sig(sig, 0, DESCRIPTOR_SIG))
            {
                d += 4;
            }
            if d + 12 > cd_start {
                return Err(refuse(Detail::LocalFieldsDisagree));
            }
            let fields = local.must(d, 12)?;
            let agrees = u32_at(fields, 0) == Some(record.crc)
                && u32_at(fields, 4).map(u64::from) == Some(record.compressed)
                && u32_at(fields, 8).map(u64::from) == Some(record.entry.size);
            if !agrees {
                return Err(refuse(Detail::LocalFieldsDisagree));
            }
            span_end = d + 12;
        }
        spans.push((at, span_end, record.entry.name.clone()));
        members.push(Member {
            method: record.method,
            crc: record.crc,
            compressed: record.compressed,
            data_start: extra_end,
        });
    }
    spans.sort();
    let mut covered = 0u64;
    for (start, stop, name) in &spans {
        if *start > covered {
            return Err(if covered == 0 {
                Refusal::of(Detail::StubBeforeFirstHeader { bytes: *start })
            } else {
                Refusal::of(Detail::UnlistedBytes { offset: covered })
            }
            .into());
        }
        if *start < covered {
            return Err(Refusal::at(name, Detail::OverlappingEntries).into());
        }
        covered = *stop;
    }
    if covered != cd_start {
        return Err(if covered == 0 {
            Refusal::of(Detail::StubBeforeFirstHeader { bytes: cd_start })
        } else {
            Refusal::of(Detail::UnlistedBytes { offset: covered })
        }
        .into());
    }
    Ok((records.into_iter().map(|r| r.entry).collect(), members))
}

/// Why copying a member stopped.
#[derive(Debug)]
pub(crate) enum CopyFail {
    /// The member is not what its record declares.
    Problem(ReadProblem),
    /// The archive's bytes could not be read.
    Read(io::Error),
    /// The writer refused its bytes.
    Write(io::Error),
}

/// Copies what `reader` gives, in pieces, to `out`: at most `size` bytes are written and their
/// CRC-32 taken; the count is of every byte read.
fn pump(reader: &mut dyn Read, size: u64, out: &mut dyn Write) -> Result<(u64, u32), CopyFail> {
    let mut buf = vec![0; CHUNK];
    let mut count: u64 = 0;
    let mut hasher = crc32fast::Hasher::new();
    loop {
        let n = match reader.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(_) => return Err(CopyFail::Problem(ReadProblem::DoesNotInflate)),
        };
        let keep = n.min(usize::try_from(size.saturating_sub(count)).unwrap_or(usize::MAX));
        hasher.update(&buf[..keep]);
        out.write_all(&buf[..keep]).map_err(CopyFail::Write)?;
        count += n as u64;
    }
    Ok((count, hasher.finalize()))
}

/// Copies one member's bytes to `out`, inflated (or copied) in pieces up to one byte past its
/// declared size, then held to that size and its CRC-32. The checks are those of a member read
/// whole, in the same order; what was written before a failure is the caller's to discard.
pub(crate) fn copy_member(
    data: &Data,
    member: &Member,
    size: u64,
    out: &mut dyn Write,
) -> Result<u64, CopyFail> {
    // A stored member's length is its compressed length: known before a byte is copied.
    if member.method == 0 && member.compressed != size {
        return Err(CopyFail::Problem(ReadProblem::SizeMismatch {
            declared: size,
            found: member.compressed,
        }));
    }
    let failed = Cell::new(None);
    let copied = {
        let mut region = Region::new(data, member.data_start, member.compressed, &failed);
        if member.method == 0 {
            pump(&mut region, size, out)
        } else {
            let mut inflated = DeflateDecoder::new(&mut region).take(size.saturating_add(1));
            pump(&mut inflated, size, out)
        }
    };
    if let Some(e) = failed.take() {
        return Err(CopyFail::Read(e));
    }
    let (count, found) = copied?;
    if count != size {
        return Err(CopyFail::Problem(ReadProblem::SizeMismatch {
            declared: size,
            found: count,
        }));
    }
    if found != member.crc {
        return Err(CopyFail::Problem(ReadProblem::CrcMismatch {
            declared: member.crc,
            found,
        }));
    }
    Ok(count)
}
