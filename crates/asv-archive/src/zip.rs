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
//! A member's bytes are inflated only when read, bounded by the size its record declares, and
//! checked against its CRC-32.

use std::io::Read;

use flate2::read::DeflateDecoder;

use crate::entry::{Entry, EntryKind, Limits, Special, name_of};
use crate::error::{Detail, Measure, ReadProblem, Refusal};

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
    data_start: usize,
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
fn kind_of(made_by: u16, external: u32, name: &[u8]) -> (EntryKind, bool) {
    let trailing_slash = name.ends_with(b"/") || name.ends_with(b"\\");
    let unix = made_by >> 8 == 3;
    let mode = external >> 16;
    if unix && mode != 0 {
        let executable = mode & 0o100 != 0;
        let kind = match mode & 0o170_000 {
            0o100_000 | 0 if trailing_slash => EntryKind::Directory,
            0o100_000 | 0 => EntryKind::File,
            0o040_000 => EntryKind::Directory,
            0o120_000 => EntryKind::Link,
            0o020_000 => EntryKind::Special(Special::CharDevice),
            0o060_000 => EntryKind::Special(Special::BlockDevice),
            0o010_000 => EntryKind::Special(Special::Fifo),
            0o140_000 => EntryKind::Special(Special::Socket),
            _ => EntryKind::Special(Special::UnixMode(mode)),
        };
        let executable = executable && kind == EntryKind::File;
        return (kind, executable);
    }
    let kind = if trailing_slash {
        EntryKind::Directory
    } else {
        EntryKind::File
    };
    (kind, false)
}

/// One central record as read, before its local header is checked.
struct Record {
    entry: Entry,
    flags: u16,
    method: u16,
    crc: u32,
    compressed: u64,
    offset: usize,
    raw_name: Vec<u8>,
}

/// Parses and checks the whole ZIP; its entries in directory order and where each one's bytes are.
pub(crate) fn read(bytes: &[u8], limits: &Limits) -> Result<(Vec<Entry>, Vec<Member>), Refusal> {
    let end = find_end(bytes)?;
    let field = |at| u16_at(bytes, end + at).unwrap_or(0);
    let (disk, cd_disk, on_disk, total) = (field(4), field(6), field(8), field(10));
    let cd_size = u32_at(bytes, end + 12).unwrap_or(0);
    let cd_offset = u32_at(bytes, end + 16).unwrap_or(0);
    if end >= 20 && has_sig(bytes, end - 20, ZIP64_LOCATOR_SIG) {
        return Err(Refusal::of(Detail::Zip64));
    }
    if on_disk == u16::MAX || total == u16::MAX || cd_size == u32::MAX || cd_offset == u32::MAX {
        return Err(Refusal::of(Detail::Zip64));
    }
    if disk != 0 || cd_disk != 0 {
        return Err(Refusal::of(Detail::MultiDisk));
    }
    if on_disk != total {
        return Err(Refusal::of(Detail::CountMismatch { on_disk, total }));
    }
    if usize::from(total) > limits.max_entries {
        return Err(Refusal::of(Detail::TooManyEntries {
            limit: limits.max_entries,
        }));
    }
    let cd_start = cd_offset as usize;
    if cd_start.checked_add(cd_size as usize) != Some(end) {
        return Err(Refusal::of(Detail::DirectoryBounds));
    }

    let mut records = Vec::with_capacity(usize::from(total));
    let mut at = cd_start;
    let mut expanded: u64 = 0;
    for index in 0..usize::from(total) {
        let damaged = || Refusal::of(Detail::DamagedDirectory { index });
        if at + CENTRAL_LEN > end || !has_sig(bytes, at, CENTRAL_SIG) {
            return Err(damaged());
        }
        let r16 = |o| u16_at(bytes, at + o).unwrap_or(0);
        let r32 = |o| u32_at(bytes, at + o).unwrap_or(0);
        let (made_by, flags, method) = (r16(4), r16(8), r16(10));
        let (crc, compressed, size) = (r32(16), r32(20), r32(24));
        let (name_len, extra_len, comment_len) = (
            usize::from(r16(28)),
            usize::from(r16(30)),
            usize::from(r16(32)),
        );
        let (start_disk, external, offset) = (r16(34), r32(38), r32(42));
        let name_at = at + CENTRAL_LEN;
        let next = name_at + name_len + extra_len + comment_len;
        if next > end {
            return Err(damaged());
        }
        let raw_name = bytes[name_at..name_at + name_len].to_vec();
        let extra = &bytes[name_at + name_len..name_at + name_len + extra_len];
        let (name, utf8) = name_of(&raw_name);
        let refuse = |detail| Err(Refusal::at(&name, detail));
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
        if kind == EntryKind::Directory && size != 0 {
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
            entry: Entry {
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
            offset: offset as usize,
            raw_name,
        });
        at = next;
    }
    if at != end {
        return Err(Refusal::of(Detail::DirectoryBounds));
    }

    // Each record's local header, and the span of bytes its entry takes.
    let mut spans = Vec::with_capacity(records.len());
    let mut members = Vec::with_capacity(records.len());
    for record in &records {
        let refuse = |detail| Refusal::at(&record.entry.name, detail);
        let at = record.offset;
        if at + LOCAL_LEN > cd_start || !has_sig(bytes, at, LOCAL_SIG) {
            return Err(refuse(Detail::LocalHeaderMismatch));
        }
        let l16 = |o| u16_at(bytes, at + o).unwrap_or(0);
        let l32 = |o| u32_at(bytes, at + o).unwrap_or(0);
        let (flags, method) = (l16(6), l16(8));
        let (crc, compressed, size) = (l32(14), l32(18), l32(22));
        let (name_len, extra_len) = (usize::from(l16(26)), usize::from(l16(28)));
        let name_at = at + LOCAL_LEN;
        if name_at + name_len > cd_start
            || bytes[name_at..name_at + name_len] != record.raw_name[..]
        {
            return Err(refuse(Detail::LocalHeaderMismatch));
        }
        let extra_end = name_at + name_len + extra_len;
        if extra_end > cd_start {
            return Err(refuse(Detail::LocalHeaderMismatch));
        }
        if has_zip64_extra(&bytes[name_at + name_len..extra_end]) {
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
        let data_end = extra_end as u64 + record.compressed;
        if data_end > cd_start as u64 {
            return Err(refuse(Detail::OverlappingEntries));
        }
        let mut span_end = data_end as usize;
        if descriptor {
            // The optional signature, then CRC and the two sizes, which must agree too.
            let mut d = span_end;
            if has_sig(bytes, d, DESCRIPTOR_SIG) {
                d += 4;
            }
            if d + 12 > cd_start {
                return Err(refuse(Detail::LocalFieldsDisagree));
            }
            let agrees = u32_at(bytes, d) == Some(record.crc)
                && u32_at(bytes, d + 4).map(u64::from) == Some(record.compressed)
                && u32_at(bytes, d + 8).map(u64::from) == Some(record.entry.size);
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
    let mut covered = 0usize;
    for (start, stop, name) in &spans {
        if *start > covered {
            return Err(if covered == 0 {
                Refusal::of(Detail::StubBeforeFirstHeader {
                    bytes: *start as u64,
                })
            } else {
                Refusal::of(Detail::UnlistedBytes {
                    offset: covered as u64,
                })
            });
        }
        if *start < covered {
            return Err(Refusal::at(name, Detail::OverlappingEntries));
        }
        covered = *stop;
    }
    if covered != cd_start {
        return Err(if covered == 0 {
            Refusal::of(Detail::StubBeforeFirstHeader {
                bytes: cd_start as u64,
            })
        } else {
            Refusal::of(Detail::UnlistedBytes {
                offset: covered as u64,
            })
        });
    }
    Ok((records.into_iter().map(|r| r.entry).collect(), members))
}

/// One member's bytes: inflated (or copied) up to one byte past its declared size, then held to
/// that size and its CRC-32.
pub(crate) fn read_member(
    bytes: &[u8],
    member: &Member,
    size: u64,
) -> Result<Vec<u8>, ReadProblem> {
    let start = member.data_start;
    let stop = start + member.compressed as usize;
    let data = &bytes[start..stop];
    let out = if member.method == 0 {
        data.to_vec()
    } else {
        let mut out = Vec::with_capacity(usize::try_from(size).unwrap_or(0).min(1 << 20));
        DeflateDecoder::new(data)
            .take(size.saturating_add(1))
            .read_to_end(&mut out)
            .map_err(|_| ReadProblem::DoesNotInflate)?;
        out
    };
    if out.len() as u64 != size {
        return Err(ReadProblem::SizeMismatch {
            declared: size,
            found: out.len() as u64,
        });
    }
    let found = crc32fast::hash(&out);
    if found != member.crc {
        return Err(ReadProblem::CrcMismatch {
            declared: member.crc,
            found,
        });
    }
    Ok(out)
}
