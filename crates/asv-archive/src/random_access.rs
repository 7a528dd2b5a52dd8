//! The bytes a reader parses, wherever they are: in memory (bytes handed in, a small inflated
//! tar stream) or in a file read by offset (an archive file, a large inflated tar stream spooled
//! to an unnamed temporary file). Nothing here reads a file whole, so the memory an archive
//! costs does not follow its size.
//!
//! - [`Data`] is the bytes, read by offset;
//! - [`Window`] serves the parser's many small reads (directory records, headers) from one
//!   cached stretch of the file, so they are not one system call each;
//! - [`Region`] reads one stretch in order (a member's bytes, the gzip stream);
//! - [`Spool`] collects a stream written once: in memory up to [`SPOOL_IN_MEMORY`], then in
//!   an unnamed temporary file.

use std::cell::Cell;
use std::fs::File;
use std::io::{self, Read, Write};
use std::sync::Arc;

use crate::error::Refusal;
use crate::platform;

/// How much of a spooled stream stays in memory before it moves to a temporary file.
pub(crate) const SPOOL_IN_MEMORY: usize = 4 * 1024 * 1024;

/// The size of the pieces a member or a stream is copied in.
pub(crate) const CHUNK: usize = 64 * 1024;

/// Why parsing stopped: the bytes are refused, or they could not be read.
#[derive(Debug)]
pub(crate) enum Fail {
    /// The archive is refused.
    Refused(Refusal),
    /// Reading (or spooling) its bytes failed.
    Io(io::Error),
}

impl From<Refusal> for Fail {
    fn from(refusal: Refusal) -> Self {
        Fail::Refused(refusal)
    }
}

impl From<io::Error> for Fail {
    fn from(e: io::Error) -> Self {
        Fail::Io(e)
    }
}

/// Bytes read by offset.
#[derive(Debug)]
pub(crate) enum Data {
    /// Bytes in memory.
    Memory(Vec<u8>),
    /// The first `len` bytes of a file (its length when it was opened or written).
    File {
        /// The open file, shared with the input it came from.
        file: Arc<File>,
        /// How many of its bytes are the data.
        len: u64,
    },
}

impl Data {
    /// The number of bytes.
    pub(crate) fn len(&self) -> u64 {
        match self {
            Data::Memory(bytes) => bytes.len() as u64,
            Data::File { len, .. } => *len,
        }
    }

    /// Fills `buf` with the bytes at `at`; an error when they run past the end.
    pub(crate) fn read_exact_at(&self, at: u64, buf: &mut [u8]) -> io::Result<()> {
        let end = at.checked_add(buf.len() as u64);
        if end.is_none_or(|end| end > self.len()) {
            return Err(io::ErrorKind::UnexpectedEof.into());
        }
        match self {
            Data::Memory(bytes) => {
                // In range: checked against the length above.
                let at = at as usize;
                buf.copy_from_slice(&bytes[at..at + buf.len()]);
                Ok(())
            }
            Data::File { file, .. } => platform::read_exact_at(file, buf, at),
        }
    }

    /// The `len` bytes at `at`, copied out; an error when they run past the end.
    pub(crate) fn read_vec(&self, at: u64, len: usize) -> io::Result<Vec<u8>> {
        let mut out = vec![0; len];
        self.read_exact_at(at, &mut out)?;
        Ok(out)
    }
}

/// A cached stretch of [`Data`] for many small reads near each other.
pub(crate) struct Window<'a> {
    data: &'a Data,
    /// Where the cached bytes start.
    start: u64,
    buf: Vec<u8>,
    /// How much a miss reads at least.
    ahead: usize,
}

impl<'a> Window<'a> {
    /// A window over `data` whose misses read `ahead` bytes (or what is asked, when more).
    pub(crate) fn new(data: &'a Data, ahead: usize) -> Self {
        Window {
            data,
            start: 0,
            buf: Vec::new(),
            ahead,
        }
    }

    /// The `len` bytes at `at`, or `None` when they run past the end of the data.
    pub(crate) fn get(&mut self, at: u64, len: usize) -> io::Result<Option<&[u8]>> {
        let total = self.data.len();
        let Some(end) = at.checked_add(len as u64).filter(|end| *end <= total) else {
            return Ok(None);
        };
        if let Data::Memory(bytes) = self.data {
            // In range: checked against the length above.
            return Ok(Some(&bytes[at as usize..end as usize]));
        }
        let cached_end = self.start + self.buf.len() as u64;
        if at < self.start || end > cached_end {
            let want = (len.max(self.ahead) as u64).min(total - at);
            self.buf.resize(want as usize, 0);
            self.start = at;
            if let Err(e) = self.data.read_exact_at(at, &mut self.buf) {
                self.buf.clear();
                return Err(e);
            }
        }
        let from = (at - self.start) as usize;
        Ok(Some(&self.buf[from..from + len]))
    }

    /// The `len` bytes at `at`, which the caller has checked lie inside the data.
    pub(crate) fn must(&mut self, at: u64, len: usize) -> io::Result<&[u8]> {
        self.get(at, len)?
            .ok_or_else(|| io::ErrorKind::UnexpectedEof.into())
    }
}

/// One stretch of [`Data`] read in order. A read failure is kept in `failed` as well as
/// returned, so that a caller whose decoder turns every error into "does not inflate" can
/// still tell a failing disk from a damaged archive.
pub(crate) struct Region<'a> {
    data: &'a Data,
    at: u64,
    end: u64,
    failed: &'a Cell<Option<io::Error>>,
}

impl<'a> Region<'a> {
    /// The `len` bytes of `data` from `at`, failures kept in `failed`.
    pub(crate) fn new(
        data: &'a Data,
        at: u64,
        len: u64,
        failed: &'a Cell<Option<io::Error>>,
    ) -> Self {
        Region {
            data,
            at,
            end: at.saturating_add(len),
            failed,
        }
    }
}

impl Read for Region<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = buf
            .len()
            .min(usize::try_from(self.end - self.at).unwrap_or(usize::MAX));
        if n == 0 {
            return Ok(0);
        }
        if let Err(e) = self.data.read_exact_at(self.at, &mut buf[..n]) {
            let kind = e.kind();
            self.failed.set(Some(e));
            return Err(io::Error::new(kind, "the archive could not be read"));
        }
        self.at += n as u64;
        Ok(n)
    }
}

/// A stream written once and then read by offset: in memory up to [`SPOOL_IN_MEMORY`] bytes,
/// then in an unnamed temporary file (gone when the last handle closes, even on a crash).
pub(crate) struct Spool {
    memory: Vec<u8>,
    file: Option<File>,
    len: u64,
}

impl Spool {
    /// An empty spool.
    pub(crate) fn new() -> Self {
        Spool {
            memory: Vec::new(),
            file: None,
            len: 0,
        }
    }

    /// How many bytes have been written.
    pub(crate) fn len(&self) -> u64 {
        self.len
    }

    /// The bytes written, to be read by offset.
    pub(crate) fn into_data(self) -> Data {
        match self.file {
            Some(file) => Data::File {
                file: Arc::new(file),
                len: self.len,
            },
            None => Data::Memory(self.memory),
        }
    }
}

impl Write for Spool {
    fn write(&mut self, chunk: &[u8]) -> io::Result<usize> {
        if self.file.is_none() && self.memory.len() + chunk.len() > SPOOL_IN_MEMORY {
            let mut file = tempfile::tempfile()?;
            file.write_all(&self.memory)?;
            self.memory = Vec::new();
            self.file = Some(file);
        }
        match &mut self.file {
            Some(file) => file.write_all(chunk)?,
            None => self.memory.extend_from_slice(chunk),
        }
        self.len += chunk.len() as u64;
        Ok(chunk.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file_of(bytes: &[u8]) -> Data {
        let mut file = tempfile::tempfile().unwrap();
        file.write_all(bytes).unwrap();
        Data::File {
            file: Arc::new(file),
            len: bytes.len() as u64,
        }
    }

    #[test]
    fn a_window_reads_the_same_bytes_from_memory_and_from_a_file() {
        let bytes: Vec<u8> = (0..10_000u32).map(|i| (i % 251) as u8).collect();
        let memory = Data::Memory(bytes.clone());
        let file = file_of(&bytes);
        let mut a = Window::new(&memory, 100);
        let mut b = Window::new(&file, 100);
        for (at, len) in [
            (0, 4),
            (2, 8),
            (96, 10),
            (50, 500),
            (9_990, 10),
            (9_995, 10),
            (3, 0),
        ] {
            let want = bytes.get(at..at + len);
            assert_eq!(a.get(at as u64, len).unwrap(), want, "{at} {len}");
            assert_eq!(b.get(at as u64, len).unwrap(), want, "{at} {len}");
        }
        assert_eq!(b.get(u64::MAX, 2).unwrap(), None);
    }

    #[test]
    fn a_region_of_a_shortened_file_reports_the_failure() {
        let mut data = file_of(b"0123456789");
        if let Data::File { len, .. } = &mut data {
            *len = 20;
        }
        let failed = Cell::new(None);
        let mut out = Vec::new();
        let got = Region::new(&data, 0, 20, &failed).read_to_end(&mut out);
        assert!(got.is_err());
        assert!(failed.take().is_some());
    }

    #[test]
    fn a_spool_moves_to_a_file_past_its_memory_and_reads_back() {
        let mut spool = Spool::new();
        let piece: Vec<u8> = (0..=255u8).cycle().take(CHUNK).collect();
        let pieces = SPOOL_IN_MEMORY / CHUNK + 2;
        for _ in 0..pieces {
            spool.write_all(&piece).unwrap();
        }
        assert!(spool.file.is_some());
        assert_eq!(spool.len(), (pieces * CHUNK) as u64);
        let data = spool.into_data();
        let at = (SPOOL_IN_MEMORY - 10) as u64;
        assert_eq!(
            data.read_vec(at, 20).unwrap(),
            piece
                .iter()
                .cycle()
                .skip(at as usize % CHUNK)
                .take(20)
                .copied()
                .collect::<Vec<_>>()
        );
    }
}
