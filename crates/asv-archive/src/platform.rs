//! The calls of this crate that depend on the operating system: opening an archive file
//! without blocking on it, and reading it at an offset (docs/PORTABILITY.md). It has no
//! Linux-only call; its cargo feature `portable` only passes asv-fs's on.

use std::fs::File;
use std::io;
use std::path::Path;

/// An archive file opened to be read, and what the handle says it is.
pub(crate) struct Opened {
    /// The open file.
    pub(crate) file: File,
    /// Whether it is a regular file.
    pub(crate) is_regular: bool,
    /// Its length in bytes.
    pub(crate) len: u64,
}

/// Opens `path` without blocking (a FIFO is opened and refused by its kind, never waited on),
/// and judges it by `fstat` on that handle.
#[cfg(unix)]
pub(crate) fn open_without_blocking(path: &Path) -> io::Result<Opened> {
    use rustix::fs::{Mode, OFlags};
    let fd = rustix::fs::open(
        path,
        OFlags::RDONLY | OFlags::NONBLOCK | OFlags::NOCTTY | OFlags::CLOEXEC,
        Mode::empty(),
    )?;
    let stat = rustix::fs::fstat(&fd)?;
    Ok(Opened {
        is_regular: rustix::fs::FileType::from_raw_mode(stat.st_mode)
            == rustix::fs::FileType::RegularFile,
        len: u64::try_from(stat.st_size).unwrap_or(u64::MAX),
        file: File::from(fd),
    })
}

/// Opens `path` and judges it by the metadata of that handle (Windows has no FIFOs to block
/// on in a file system path; not compiled on this project's machines).
#[cfg(not(unix))]
pub(crate) fn open_without_blocking(path: &Path) -> io::Result<Opened> {
    let file = File::open(path)?;
    let meta = file.metadata()?;
    Ok(Opened {
        is_regular: meta.is_file(),
        len: meta.len(),
        file,
    })
}

/// Fills `buf` from `file` at `offset` without moving a shared cursor, so one handle serves
/// every reader of an archive at once.
#[cfg(unix)]
pub(crate) fn read_exact_at(file: &File, buf: &mut [u8], offset: u64) -> io::Result<()> {
    std::os::unix::fs::FileExt::read_exact_at(file, buf, offset)
}

/// Fills `buf` from `file` at `offset` (Windows' positioned read; not compiled on this
/// project's machines).
#[cfg(windows)]
pub(crate) fn read_exact_at(file: &File, mut buf: &mut [u8], mut offset: u64) -> io::Result<()> {
    while !buf.is_empty() {
        match std::os::windows::fs::FileExt::seek_read(file, buf, offset) {
            Ok(0) => return Err(io::ErrorKind::UnexpectedEof.into()),
            Ok(n) => {
                buf = &mut buf[n..];
                offset += n as u64;
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}
