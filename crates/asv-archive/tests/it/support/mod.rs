//! Archives written byte by byte, with no archive library, so a test can make what no library
//! would write: links, devices, `../x`, a name listed twice, a size that lies, a stub, ZIP64
//! markers. (flate2 is used for the compression layer only.)
#![allow(dead_code, clippy::unwrap_used)]

use std::io::Write;

use flate2::Compression;
use flate2::write::{DeflateEncoder, GzEncoder};

pub fn deflate(data: &[u8]) -> Vec<u8> {
    let mut e = DeflateEncoder::new(Vec::new(), Compression::default());
    e.write_all(data).unwrap();
    e.finish().unwrap()
}

pub fn gzip(data: &[u8]) -> Vec<u8> {
    let mut e = GzEncoder::new(Vec::new(), Compression::default());
    e.write_all(data).unwrap();
    e.finish().unwrap()
}

// ---------------------------------------------------------------- ZIP

/// One ZIP member as it will be written; every field may lie.
#[derive(Clone, Debug)]
pub struct ZipMember {
    pub name: Vec<u8>,
    /// The name in the local header, when it differs.
    pub local_name: Option<Vec<u8>>,
    /// The bytes stored (already compressed for method 8).
    pub stored: Vec<u8>,
    pub method: u16,
    pub flags: u16,
    pub crc: u32,
    pub size: u32,
    pub compressed: u32,
    pub made_by: u16,
    pub external: u32,
    pub central_extra: Vec<u8>,
    /// Replaces the offset the central record gives.
    pub offset: Option<u32>,
    /// Written as a local entry but left out of the central directory.
    pub unlisted: bool,
    /// The size the local header declares, when it differs from the directory's.
    pub local_size: Option<u32>,
}

impl ZipMember {
    /// A stored regular file made on Unix with mode 0644.
    pub fn file(name: &str, data: &[u8]) -> Self {
        ZipMember {
            name: name.as_bytes().to_vec(),
            local_name: None,
            stored: data.to_vec(),
            method: 0,
            flags: 0,
            crc: crc32fast::hash(data),
            size: data.len() as u32,
            compressed: data.len() as u32,
            made_by: 3 << 8 | 20,
            external: 0o100_644 << 16,
            central_extra: Vec::new(),
            offset: None,
            unlisted: false,
            local_size: None,
        }
    }

    /// A deflated regular file.
    pub fn deflated(name: &str, data: &[u8]) -> Self {
        let stored = deflate(data);
        ZipMember {
            method: 8,
            compressed: stored.len() as u32,
            stored,
            ..Self::file(name, data)
        }
    }

    pub fn dir(name: &str) -> Self {
        ZipMember {
            external: 0o040_755 << 16 | 0x10,
            ..Self::file(name, b"")
        }
    }

    pub fn mode(mut self, mode: u32) -> Self {
        self.external = mode << 16;
        self
    }

    pub fn raw_name(mut self, name: &[u8]) -> Self {
        self.name = name.to_vec();
        self
    }
}

/// A ZIP and the ways its frame may lie.
#[derive(Clone, Debug, Default)]
pub struct Zip {
    pub members: Vec<ZipMember>,
    /// Bytes before the first local header (offsets are adjusted to include them).
    pub stub: Vec<u8>,
    /// Offsets NOT adjusted for the stub (an unadjusted self-extractor).
    pub unadjusted: bool,
    pub comment: Vec<u8>,
    /// The comment length the end record declares, when it lies.
    pub comment_len: Option<u16>,
    pub trailing: Vec<u8>,
    /// Entries on this disk / in all, when they lie.
    pub counts: Option<(u16, u16)>,
    /// Added to the directory size the end record declares.
    pub cd_size_delta: i64,
    /// Bytes between the central directory and the end record.
    pub before_end: Vec<u8>,
}

impl Zip {
    pub fn of(members: Vec<ZipMember>) -> Self {
        Zip {
            members,
            ..Zip::default()
        }
    }

    pub fn build(&self) -> Vec<u8> {
        let mut out = self.stub.clone();
        let base = if self.unadjusted { self.stub.len() } else { 0 };
        let mut offsets = Vec::new();
        for m in &self.members {
            offsets.push((out.len() - base) as u32);
            let name = m.local_name.as_ref().unwrap_or(&m.name);
            out.extend_from_slice(&0x0403_4b50u32.to_le_bytes());
            out.extend_from_slice(&20u16.to_le_bytes());
            out.extend_from_slice(&m.flags.to_le_bytes());
            out.extend_from_slice(&m.method.to_le_bytes());
            out.extend_from_slice(&0u16.to_le_bytes());
            out.extend_from_slice(&0x21u16.to_le_bytes());
            out.extend_from_slice(&m.crc.to_le_bytes());
            out.extend_from_slice(&m.compressed.to_le_bytes());
            out.extend_from_slice(&m.local_size.unwrap_or(m.size).to_le_bytes());
            out.extend_from_slice(&(name.len() as u16).to_le_bytes());
            out.extend_from_slice(&0u16.to_le_bytes());
            out.extend_from_slice(name);
            out.extend_from_slice(&m.stored);
        }
        let cd_offset = out.len() - base;
        let mut listed = 0u16;
        for (m, offset) in self.members.iter().zip(&offsets) {
            if m.unlisted {
                continue;
            }
            listed += 1;
            out.extend_from_slice(&0x0201_4b50u32.to_le_bytes());
            out.extend_from_slice(&m.made_by.to_le_bytes());
            out.extend_from_slice(&20u16.to_le_bytes());
            out.extend_from_slice(&m.flags.to_le_bytes());
            out.extend_from_slice(&m.method.to_le_bytes());
            out.extend_from_slice(&0u16.to_le_bytes());
            out.extend_from_slice(&0x21u16.to_le_bytes());
            out.extend_from_slice(&m.crc.to_le_bytes());
            out.extend_from_slice(&m.compressed.to_le_bytes());
            out.extend_from_slice(&m.size.to_le_bytes());
            out.extend_from_slice(&(m.name.len() as u16).to_le_bytes());
            out.extend_from_slice(&(m.central_extra.len() as u16).to_le_bytes());
            out.extend_from_slice(&0u16.to_le_bytes());
            out.extend_from_slice(&0u16.to_le_bytes());
            out.extend_from_slice(&0u16.to_le_bytes());
            out.extend_from_slice(&m.external.to_le_bytes());
            out.extend_from_slice(&m.offset.unwrap_or(*offset).to_le_bytes());
            out.extend_from_slice(&m.name);
            out.extend_from_slice(&m.central_extra);
        }
        let cd_size = (out.len() - base - cd_offset) as i64 + self.cd_size_delta;
        out.extend_from_slice(&self.before_end);
        let (on_disk, total) = self.counts.unwrap_or((listed, listed));
        out.extend_from_slice(&0x0605_4b50u32.to_le_bytes());
        out.extend_from_slice(&0u16.to_le_bytes());
        out.extend_from_slice(&0u16.to_le_bytes());
        out.extend_from_slice(&on_disk.to_le_bytes());
        out.extend_from_slice(&total.to_le_bytes());
        out.extend_from_slice(&(cd_size as u32).to_le_bytes());
        out.extend_from_slice(&(cd_offset as u32).to_le_bytes());
        let comment_len = self.comment_len.unwrap_or(self.comment.len() as u16);
        out.extend_from_slice(&comment_len.to_le_bytes());
        out.extend_from_slice(&self.comment);
        out.extend_from_slice(&self.trailing);
        out
    }
}

// ---------------------------------------------------------------- tar

/// One tar header and its data; every field may lie.
#[derive(Clone, Debug)]
pub struct TarMember {
    pub name: Vec<u8>,
    pub typeflag: u8,
    pub data: Vec<u8>,
    pub mode: u32,
    /// The size the header declares, when it lies.
    pub size: Option<u64>,
    /// Raw bytes for the size field (base-256 and such).
    pub size_field: Option<[u8; 12]>,
    pub prefix: Vec<u8>,
    pub linkname: Vec<u8>,
    /// Break the checksum.
    pub bad_checksum: bool,
}

impl TarMember {
    pub fn new(name: &[u8], typeflag: u8, data: &[u8]) -> Self {
        TarMember {
            name: name.to_vec(),
            typeflag,
            data: data.to_vec(),
            mode: 0o644,
            size: None,
            size_field: None,
            prefix: Vec::new(),
            linkname: Vec::new(),
            bad_checksum: false,
        }
    }

    pub fn file(name: &str, data: &[u8]) -> Self {
        Self::new(name.as_bytes(), b'0', data)
    }

    pub fn dir(name: &str) -> Self {
        TarMember {
            mode: 0o755,
            ..Self::new(name.as_bytes(), b'5', b"")
        }
    }

    pub fn of_type(name: &str, typeflag: u8) -> Self {
        TarMember {
            linkname: b"target".to_vec(),
            ..Self::new(name.as_bytes(), typeflag, b"")
        }
    }

    pub fn mode(mut self, mode: u32) -> Self {
        self.mode = mode;
        self
    }

    /// A GNU long-name header (`L`) carrying `name`.
    pub fn long_name(name: &str) -> Self {
        let mut data = name.as_bytes().to_vec();
        data.push(0);
        Self::new(b"././@LongLink", b'L', &data)
    }

    /// A pax extended header (`x`) with the given records.
    pub fn pax(records: &[(&str, &str)]) -> Self {
        let mut data = Vec::new();
        for (k, v) in records {
            let body = format!(" {k}={v}\n");
            let mut len = body.len() + 1;
            while format!("{len}").len() + body.len() != len {
                len += 1;
            }
            data.extend_from_slice(format!("{len}{body}").as_bytes());
        }
        Self::new(b"PaxHeader", b'x', &data)
    }

    pub fn header(&self) -> [u8; 512] {
        let mut h = [0u8; 512];
        h[..self.name.len().min(100)].copy_from_slice(&self.name[..self.name.len().min(100)]);
        let octal = |h: &mut [u8], at: usize, len: usize, v: u64| {
            let s = format!("{:0width$o}\0", v, width = len - 1);
            h[at..at + len].copy_from_slice(s.as_bytes());
        };
        octal(&mut h, 100, 8, u64::from(self.mode));
        octal(&mut h, 108, 8, 0);
        octal(&mut h, 116, 8, 0);
        match self.size_field {
            Some(raw) => h[124..136].copy_from_slice(&raw),
            None => octal(&mut h, 124, 12, self.size.unwrap_or(self.data.len() as u64)),
        }
        octal(&mut h, 136, 12, 0);
        h[156] = self.typeflag;
        h[157..157 + self.linkname.len()].copy_from_slice(&self.linkname);
        h[257..263].copy_from_slice(b"ustar\0");
        h[263..265].copy_from_slice(b"00");
        h[345..345 + self.prefix.len()].copy_from_slice(&self.prefix);
        h[148..156].copy_from_slice(b"        ");
        let sum: u32 = h.iter().map(|b| u32::from(*b)).sum::<u32>() + u32::from(self.bad_checksum);
        let s = format!("{sum:06o}\0 ");
        h[148..156].copy_from_slice(s.as_bytes());
        h
    }
}

/// A tar stream of the members, padded, with the two zero blocks at the end.
pub fn tar(members: &[TarMember]) -> Vec<u8> {
    let mut out = Vec::new();
    for m in members {
        out.extend_from_slice(&m.header());
        out.extend_from_slice(&m.data);
        out.resize(out.len().div_ceil(512) * 512, 0);
    }
    out.extend_from_slice(&[0u8; 1024]);
    out
}

/// The tar stream gzipped once.
pub fn tgz(members: &[TarMember]) -> Vec<u8> {
    gzip(&tar(members))
}

// ---------------------------------------------------------------- what a caller takes

/// What an accepted archive holds as a caller that writes it takes it (`skill install` does
/// exactly this): each file at the place it lands ([`asv_archive::place_of`]), with its bytes
/// and its executable bit. Judges the whole entry list first.
pub fn contents(
    archive: &asv_archive::Archive,
) -> std::collections::BTreeMap<String, (Vec<u8>, bool)> {
    archive.judge().unwrap();
    archive
        .entries()
        .iter()
        .filter(|e| e.is_file())
        .map(|e| {
            (
                asv_archive::place_of(&e.name).join("/"),
                (archive.read(e).unwrap(), e.executable),
            )
        })
        .collect()
}
