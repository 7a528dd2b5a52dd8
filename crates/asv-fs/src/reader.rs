//! A regular file of the tree opened to be read in chunks ([`FileReader`], made by
//! [`crate::Root::open_reader`]).

use std::fs::{self, File};
use std::io::{self, Read};

use crate::error::{Error, Result};
use crate::platform;
use crate::stamp::FileStamp;

/// How many bytes a chunked read or copy holds at a time.
pub const CHUNK: usize = 64 * 1024;

/// A regular file of the tree opened to be read in chunks: its length is known before a byte
/// is read (so a caller can refuse it first), and the bytes are never held whole.
///
/// # Example
/// ```
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let dir = tempfile::tempdir()?;
/// let root = asv_fs::Root::open(dir.path())?;
/// root.write_file("notes.md", b"hello\n")?;
/// let reader = root.open_reader("notes.md")?.expect("the file is there");
/// assert_eq!(reader.len(), 6);
/// let mut seen = Vec::new();
/// reader.for_each_chunk(&mut |chunk| seen.extend_from_slice(chunk))?;
/// assert_eq!(seen, b"hello\n");
/// # Ok(())
/// # }
/// ```
#[derive(Debug)]
pub struct FileReader {
    path: String,
    file: File,
    len: u64,
    executable: bool,
    stamp: Option<FileStamp>,
}

impl FileReader {
    /// The reader of `file`, the regular file `path` of the tree, as `meta` (its `fstat`)
    /// describes it.
    pub(crate) fn new(path: String, file: File, meta: &fs::Metadata) -> Self {
        FileReader {
            path,
            file,
            len: meta.len(),
            executable: platform::is_executable(meta),
            stamp: FileStamp::of(meta),
        }
    }

    /// The length `fstat` reported when the file was opened.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Whether the file is empty.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Whether the owner's executable bit is set.
    pub fn is_executable(&self) -> bool {
        self.executable
    }

    /// The file's stamp as it was opened (`None` where the platform gives none).
    pub fn stamp(&self) -> Option<FileStamp> {
        self.stamp
    }

    /// The file's path, relative to the root.
    pub fn path(&self) -> &str {
        &self.path
    }

    /// Hands `visit` the file's bytes in order, at most [`CHUNK`] at a time, exactly
    /// [`FileReader::len`] of them.
    ///
    /// # Errors
    /// [`Error::ChangedWhileRead`] when the file ends before its length or holds more;
    /// an I/O failure.
    pub fn for_each_chunk(mut self, visit: &mut dyn FnMut(&[u8])) -> Result<()> {
        // No larger than the file (and the one byte that shows growth): zeroing a whole chunk
        // for each of thousands of small files was most of a small skill's read.
        let size = usize::try_from(self.len.saturating_add(1))
            .unwrap_or(CHUNK)
            .min(CHUNK);
        let mut buf = vec![0u8; size];
        let mut left = self.len;
        loop {
            // One byte more than is left is asked for, so growth shows without another call.
            let want = usize::try_from(left.saturating_add(1))
                .unwrap_or(CHUNK)
                .min(CHUNK);
            let n = match self.file.read(&mut buf[..want]) {
                Ok(n) => n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(Error::io(&self.path, "read", e)),
            };
            if n == 0 {
                break;
            }
            if n as u64 > left {
                return Err(Error::ChangedWhileRead { path: self.path });
            }
            left -= n as u64;
            visit(&buf[..n]);
            // A regular file reads short only at its end: having asked for one byte more
            // than was left and got exactly the rest, the file ends here, and a call to see
            // it end would cost a system call per file.
            if left == 0 && n < want {
                break;
            }
        }
        if left != 0 {
            return Err(Error::ChangedWhileRead { path: self.path });
        }
        Ok(())
    }
}
