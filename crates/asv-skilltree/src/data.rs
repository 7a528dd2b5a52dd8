//! A file's bytes as a skill tree holds them: in memory, or left where they were read with
//! their length and SHA-256, to be read again when they are needed.
//!
//! A skill of hundreds of megabytes would otherwise be held whole by every command that reads
//! it, several times over when a pull holds base, local, upstream and merged trees at once.
//! Files read from disk past a small per-tree allowance keep only their digest; comparing two
//! files compares digests, and copying one streams it from where it stands, checked against
//! the digest on the way, so a file edited after it was read is refused rather than mixed in.

use std::borrow::Cow;
use std::io::{self, Write};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};

use asv_fs::SharedBytes;
use sha2::{Digest, Sha256};

use crate::Error;

/// The bytes of one file of a skill tree; cheap to clone (the bytes are shared).
///
/// Two values are equal when they hold the same bytes, wherever those bytes are.
///
/// ```
/// use asv_skilltree::FileData;
/// let a = FileData::from("text\n");
/// assert_eq!(a.len(), 5);
/// assert_eq!(a, FileData::from(b"text\n".to_vec()));
/// assert_eq!(a.read()?.as_ref(), b"text\n");
/// # Ok::<(), asv_skilltree::Error>(())
/// ```
#[derive(Clone)]
pub struct FileData(Repr);

#[derive(Clone)]
enum Repr {
    Held(Arc<Held>),
    Stored(Arc<Stored>),
}

/// Bytes in memory, with their digest worked out the first time it is asked for.
struct Held {
    bytes: Vec<u8>,
    sha256: OnceLock<[u8; 32]>,
    /// The bytes taken from the process's allowance ([`allowance`]), given back on drop.
    pooled: u64,
}

impl Drop for Held {
    fn drop(&mut self) {
        give_back_allowance(self.pooled);
    }
}

/// Gives `len` bytes back to the process's allowance.
pub(crate) fn give_back_allowance(len: u64) {
    if len > 0 {
        allowance().fetch_add(len, Ordering::Relaxed);
    }
}

/// How many bytes of files reads may still keep in memory, across every tree the process
/// holds at once: [`crate::HELD_BYTES`], or with the `test-hooks` feature what
/// `ASV_TEST_HELD_BYTES` says.
fn allowance() -> &'static AtomicU64 {
    static LEFT: OnceLock<AtomicU64> = OnceLock::new();
    LEFT.get_or_init(|| {
        #[cfg(feature = "test-hooks")]
        if let Some(n) = std::env::var("ASV_TEST_HELD_BYTES")
            .ok()
            .and_then(|v| v.parse().ok())
        {
            return AtomicU64::new(n);
        }
        AtomicU64::new(crate::HELD_BYTES)
    })
}

/// Takes `len` bytes from the process's allowance; false (nothing taken) when fewer are left.
pub(crate) fn take_allowance(len: u64) -> bool {
    allowance()
        .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |left| {
            left.checked_sub(len)
        })
        .is_ok()
}

impl AsRef<[u8]> for Held {
    fn as_ref(&self) -> &[u8] {
        &self.bytes
    }
}

/// A regular file left where it was read: the directory it was read under, its path there,
/// and what it held then.
#[derive(Debug)]
pub struct Stored {
    /// The guarded root it was read under, shared by the files of one read so that the
    /// directories on the way are checked once, not once per read again.
    root: Arc<asv_fs::Root>,
    path: String,
    len: u64,
    sha256: [u8; 32],
    /// For bytes that came from elsewhere (a fetch, an archive) and were written out past the
    /// allowance: the private temporary directory they were written to, removed once the last
    /// file in it is dropped.
    _spill: Option<Arc<tempfile::TempDir>>,
}

/// Two places are the same when they name the same file with the same content.
impl PartialEq for Stored {
    fn eq(&self, other: &Self) -> bool {
        (self.root.root(), &self.path, self.len, self.sha256)
            == (other.root.root(), &other.path, other.len, other.sha256)
    }
}

impl Eq for Stored {}

/// The temporary directory bytes are spilled to while any spilled file is alive (one per
/// process at a time), and how many files it has been given.
static SPILL: std::sync::Mutex<(std::sync::Weak<tempfile::TempDir>, u64)> =
    std::sync::Mutex::new((std::sync::Weak::new(), 0));

impl Stored {
    /// The directory the file was read under (the root of the [`asv_fs::Root`] read).
    pub fn root(&self) -> &Path {
        self.root.root()
    }

    /// The file's path under [`Stored::root`].
    pub fn path(&self) -> &str {
        &self.path
    }

    /// Its length when it was read.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Whether it was empty (never: an empty file is always held).
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The SHA-256 of its bytes when it was read.
    pub fn sha256(&self) -> [u8; 32] {
        self.sha256
    }

    /// What keeps [`Stored::root`] in place, for a writer that copies the file later than the
    /// tree lives: the temporary directory of bytes written aside ([`FileData::arrived`]),
    /// removed once its last holder goes. `None` for a file of a directory that was read.
    pub fn hold(&self) -> Option<Arc<dyn std::any::Any + Send + Sync>> {
        self._spill
            .clone()
            .map(|dir| dir as Arc<dyn std::any::Any + Send + Sync>)
    }

    /// Hands `visit` the file's bytes in chunks, read again from disk without following a
    /// link.
    ///
    /// # Errors
    /// [`asv_fs::Error::ChangedWhileRead`] when the file is gone or no longer holds what it
    /// held when it was read; a guarded-read failure.
    pub fn for_each_chunk(&self, visit: &mut dyn FnMut(&[u8])) -> Result<(), Error> {
        let changed = || {
            Error::Fs(asv_fs::Error::ChangedWhileRead {
                path: self.path.clone(),
            })
        };
        let Some(reader) = self.root.open_reader(&self.path)? else {
            return Err(changed());
        };
        if reader.len() != self.len {
            return Err(changed());
        }
        let mut hasher = Sha256::new();
        reader.for_each_chunk(&mut |chunk| {
            hasher.update(chunk);
            visit(chunk);
        })?;
        if <[u8; 32]>::from(hasher.finalize()) != self.sha256 {
            return Err(changed());
        }
        Ok(())
    }
}

/// Where a file's bytes are ([`FileData::place`]).
pub enum Place<'a> {
    /// In memory, shared with the tree.
    Memory(SharedBytes),
    /// Left on disk where they were read.
    Disk(&'a Stored),
}

impl FileData {
    /// Where the bytes are: for a writer that copies held bytes without copying them again
    /// and streams the rest from disk.
    pub fn place(&self) -> Place<'_> {
        match &self.0 {
            Repr::Held(h) => Place::Memory(h.clone()),
            Repr::Stored(s) => Place::Disk(s),
        }
    }

    /// Bytes a read keeps, counted against the process's allowance (taken by the caller with
    /// [`take_allowance`]) until they are dropped.
    pub(crate) fn kept(bytes: Vec<u8>) -> Self {
        let pooled = bytes.len() as u64;
        FileData(Repr::Held(Arc::new(Held {
            bytes,
            sha256: OnceLock::new(),
            pooled,
        })))
    }

    /// A file left where it was read, known by its length and SHA-256.
    pub(crate) fn stored(
        root: &Arc<asv_fs::Root>,
        path: String,
        len: u64,
        sha256: [u8; 32],
    ) -> Self {
        FileData(Repr::Stored(Arc::new(Stored {
            root: Arc::clone(root),
            path,
            len,
            sha256,
            _spill: None,
        })))
    }

    /// Bytes that arrived in memory (a file of a fetched tree, an archive's entry): kept while
    /// the process's allowance lasts ([`crate::HELD_BYTES`]), else written to a private
    /// temporary directory and left there, as a read leaves a large file on disk, so a large
    /// fetched skill costs one file of memory at a time.
    ///
    /// # Errors
    /// The temporary directory cannot be made or written ([`asv_fs::Error`]).
    pub fn arrived(bytes: Vec<u8>) -> Result<Self, Error> {
        if take_allowance(bytes.len() as u64) {
            return Ok(FileData::kept(bytes));
        }
        Self::spill(&bytes)
    }

    /// The streaming counterpart of [`FileData::arrived`], for bytes that arrive in pieces (an
    /// archive's member as it inflates): a [`Receiver`] of exactly `len` bytes that collects
    /// them in memory when the process's allowance covers `len`, and otherwise writes them
    /// straight into a new file of the private temporary directory, taking their SHA-256 on
    /// the way, so the file is never held whole. [`Receiver::finish`] gives the file.
    ///
    /// ```
    /// use std::io::Write;
    /// use asv_skilltree::FileData;
    /// let mut receiver = FileData::receiver(10)?;
    /// receiver.write_all(b"piece ")?;
    /// receiver.write_all(b"two\n")?;
    /// assert_eq!(receiver.finish()?, FileData::from("piece two\n"));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// The temporary directory or its new file cannot be made ([`asv_fs::Error`]).
    pub fn receiver(len: u64) -> Result<Receiver, Error> {
        Self::receiver_held_if(len, take_allowance(len))
    }

    /// A [`Receiver`] of a length not known in advance (a merge as it is written), about
    /// `estimate` bytes: collected in memory when the process's allowance covers the estimate,
    /// else written into a new file of the private temporary directory. What it is given is
    /// the file, however long.
    ///
    /// ```
    /// use std::io::Write;
    /// use asv_skilltree::FileData;
    /// let mut writer = FileData::writer(4)?;
    /// writer.write_all(b"longer than announced\n")?;
    /// assert_eq!(writer.finish()?, FileData::from("longer than announced\n"));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// The temporary directory or its new file cannot be made ([`asv_fs::Error`]).
    pub fn writer(estimate: u64) -> Result<Receiver, Error> {
        let mut receiver = Self::receiver_held_if(estimate, take_allowance(estimate))?;
        receiver.sized = false;
        Ok(receiver)
    }

    /// A receiver that collects in memory (`len` bytes already taken from the allowance) when
    /// `held`, else writes into the spill directory.
    fn receiver_held_if(len: u64, held: bool) -> Result<Receiver, Error> {
        let into = if held {
            Sink::Memory {
                bytes: Vec::with_capacity(usize::try_from(len).unwrap_or(0)),
                pooled: len,
            }
        } else {
            Sink::Spill(SpillFile::new()?)
        };
        Ok(Receiver {
            len,
            sized: true,
            received: 0,
            into,
            failed: None,
        })
    }

    /// `bytes` written to the process's spill directory and left there.
    fn spill(bytes: &[u8]) -> Result<Self, Error> {
        let mut file = SpillFile::new()?;
        file.write(bytes)?;
        file.finish(bytes.len() as u64)
    }

    /// The number of bytes.
    pub fn len(&self) -> u64 {
        match &self.0 {
            Repr::Held(h) => h.bytes.len() as u64,
            Repr::Stored(s) => s.len,
        }
    }

    /// Whether the file is empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The SHA-256 of the bytes.
    pub fn sha256(&self) -> [u8; 32] {
        match &self.0 {
            Repr::Held(h) => *h.sha256.get_or_init(|| Sha256::digest(&h.bytes).into()),
            Repr::Stored(s) => s.sha256,
        }
    }

    /// The bytes when they are in memory.
    pub fn held(&self) -> Option<&[u8]> {
        match &self.0 {
            Repr::Held(h) => Some(&h.bytes),
            Repr::Stored(_) => None,
        }
    }

    /// Where the bytes are when they were left on disk.
    pub fn stored_at(&self) -> Option<&Stored> {
        match &self.0 {
            Repr::Held(_) => None,
            Repr::Stored(s) => Some(s),
        }
    }

    /// The bytes: borrowed when held, read again (and checked) when stored.
    ///
    /// # Errors
    /// As [`Stored::for_each_chunk`].
    pub fn read(&self) -> Result<Cow<'_, [u8]>, Error> {
        match &self.0 {
            Repr::Held(h) => Ok(Cow::Borrowed(&h.bytes)),
            Repr::Stored(s) => {
                let mut out = Vec::with_capacity(usize::try_from(s.len).unwrap_or(0));
                s.for_each_chunk(&mut |chunk| out.extend_from_slice(chunk))?;
                Ok(Cow::Owned(out))
            }
        }
    }

    /// The bytes, owned: moved out when this is their only holder, else copied or read.
    ///
    /// # Errors
    /// As [`FileData::read`].
    pub fn into_bytes(self) -> Result<Vec<u8>, Error> {
        match self.0 {
            Repr::Held(h) => Ok(match Arc::try_unwrap(h) {
                Ok(mut held) => std::mem::take(&mut held.bytes),
                Err(shared) => shared.bytes.clone(),
            }),
            Repr::Stored(_) => Ok(self.read()?.into_owned()),
        }
    }

    /// Hands `visit` the bytes in chunks (one chunk when held).
    ///
    /// # Errors
    /// As [`Stored::for_each_chunk`].
    pub fn for_each_chunk(&self, visit: &mut dyn FnMut(&[u8])) -> Result<(), Error> {
        match &self.0 {
            Repr::Held(h) => {
                visit(&h.bytes);
                Ok(())
            }
            Repr::Stored(s) => s.for_each_chunk(visit),
        }
    }
}

/// The spill directory, made when the first spilled file of a process needs it and shared
/// with every file spilled while any of them is alive.
fn spill_dir() -> Result<(Arc<tempfile::TempDir>, String), Error> {
    let mut spill = SPILL
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let dir = match spill.0.upgrade() {
        Some(dir) => dir,
        None => {
            let dir = Arc::new(
                tempfile::Builder::new()
                    .prefix("asv-spill-")
                    .tempdir()
                    .map_err(|e| asv_fs::Error::Io {
                        path: std::env::temp_dir().display().to_string(),
                        op: "create directory",
                        error: e,
                    })?,
            );
            spill.0 = Arc::downgrade(&dir);
            dir
        }
    };
    spill.1 += 1;
    Ok((dir, spill.1.to_string()))
}

/// A new file of the spill directory being written, with the SHA-256 of what it was given.
/// Removed if it is dropped before [`SpillFile::finish`].
struct SpillFile {
    dir: Arc<tempfile::TempDir>,
    name: String,
    file: tempfile::NamedTempFile,
    hasher: Sha256,
}

impl SpillFile {
    /// A new, empty file of the spill directory.
    fn new() -> Result<Self, Error> {
        let (dir, name) = spill_dir()?;
        // Named by the directory's count (no random part): the directory is the process's own.
        let file = tempfile::Builder::new()
            .prefix(&name)
            .rand_bytes(0)
            .tempfile_in(dir.path())
            .map_err(|e| Self::failed(&dir, &name, "create", e))?;
        Ok(SpillFile {
            dir,
            name,
            file,
            hasher: Sha256::new(),
        })
    }

    fn failed(dir: &tempfile::TempDir, name: &str, op: &'static str, e: io::Error) -> Error {
        Error::Fs(asv_fs::Error::Io {
            path: dir.path().join(name).display().to_string(),
            op,
            error: e,
        })
    }

    /// Appends `bytes`.
    fn write(&mut self, bytes: &[u8]) -> Result<(), Error> {
        self.hasher.update(bytes);
        self.file
            .write_all(bytes)
            .map_err(|e| Self::failed(&self.dir, &self.name, "write", e))
    }

    /// The file left in place, as a [`Stored`] of `len` bytes.
    fn finish(self, len: u64) -> Result<FileData, Error> {
        let SpillFile {
            dir,
            name,
            file,
            hasher,
        } = self;
        file.keep()
            .map_err(|e| Self::failed(&dir, &name, "keep", e.error))?;
        Ok(FileData(Repr::Stored(Arc::new(Stored {
            root: Arc::new(asv_fs::Root::open(dir.path())?),
            path: name,
            len,
            sha256: hasher.finalize().into(),
            _spill: Some(dir),
        }))))
    }
}

/// Where a [`Receiver`] puts the bytes.
enum Sink {
    /// In memory, `pooled` bytes taken from the allowance (given back unless they are kept).
    Memory { bytes: Vec<u8>, pooled: u64 },
    /// Into a new file of the spill directory.
    Spill(SpillFile),
}

/// A file's bytes arriving in pieces ([`FileData::receiver`]): write exactly the announced
/// length, then [`Receiver::finish`]. Dropped unfinished, it keeps nothing: the allowance it
/// took is given back and a file it began is removed.
pub struct Receiver {
    len: u64,
    /// Whether exactly `len` bytes must arrive ([`FileData::receiver`]); a
    /// [`FileData::writer`]'s length is only an estimate.
    sized: bool,
    received: u64,
    into: Sink,
    /// Why a write failed, kept whole for [`Receiver::finish`] and [`Receiver::failure`] (the
    /// writer's callers see only an `io::Error`).
    failed: Option<Error>,
}

impl Receiver {
    /// The file, once every announced byte has arrived: held, or left in the spill directory.
    ///
    /// # Errors
    /// The failure of an earlier write; [`Error::ReceivedLength`] when fewer or more bytes
    /// arrived than were announced; the spill file cannot be kept ([`asv_fs::Error`]).
    pub fn finish(mut self) -> Result<FileData, Error> {
        if let Some(e) = self.failed.take() {
            return Err(e);
        }
        if self.sized && self.received != self.len {
            return Err(Error::ReceivedLength {
                declared: self.len,
                received: self.received,
            });
        }
        match std::mem::replace(
            &mut self.into,
            Sink::Memory {
                bytes: Vec::new(),
                pooled: 0,
            },
        ) {
            Sink::Memory { bytes, pooled } => {
                let len = bytes.len() as u64;
                if pooled == len {
                    return Ok(FileData::kept(bytes));
                }
                // A writer's estimate was taken from the allowance: the bytes it received are
                // what the held file accounts for.
                give_back_allowance(pooled);
                if take_allowance(len) {
                    Ok(FileData::kept(bytes))
                } else {
                    FileData::spill(&bytes)
                }
            }
            Sink::Spill(file) => file.finish(self.received),
        }
    }

    /// Why a write failed, if one did: for a caller whose copy reported only the writer's
    /// `io::Error`.
    pub fn failure(mut self) -> Option<Error> {
        self.failed.take()
    }
}

impl Drop for Receiver {
    fn drop(&mut self) {
        if let Sink::Memory { pooled, .. } = &mut self.into {
            give_back_allowance(std::mem::take(pooled));
        }
    }
}

impl Write for Receiver {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if let Some(e) = &self.failed {
            return Err(io::Error::other(e.to_string()));
        }
        let received = self.received.saturating_add(buf.len() as u64);
        let wrote = if self.sized && received > self.len {
            Err(Error::ReceivedLength {
                declared: self.len,
                received,
            })
        } else {
            match &mut self.into {
                Sink::Memory { bytes, .. } => {
                    bytes.extend_from_slice(buf);
                    Ok(())
                }
                Sink::Spill(file) => file.write(buf),
            }
        };
        match wrote {
            Ok(()) => {
                self.received = received;
                Ok(buf.len())
            }
            Err(e) => {
                let shown = io::Error::other(e.to_string());
                self.failed = Some(e);
                Err(shown)
            }
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl PartialEq for FileData {
    fn eq(&self, other: &Self) -> bool {
        match (&self.0, &other.0) {
            (Repr::Held(a), Repr::Held(b)) => Arc::ptr_eq(a, b) || a.bytes == b.bytes,
            (Repr::Stored(a), Repr::Stored(b)) if a == b => true,
            _ => self.len() == other.len() && self.sha256() == other.sha256(),
        }
    }
}

impl Eq for FileData {}

impl std::fmt::Debug for FileData {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.0 {
            Repr::Held(h) => match std::str::from_utf8(&h.bytes) {
                Ok(text) if text.len() <= 200 => write!(f, "{text:?}"),
                _ => write!(f, "<{} bytes>", h.bytes.len()),
            },
            Repr::Stored(s) => write!(f, "<{} bytes at {:?}>", s.len, s.path),
        }
    }
}

impl From<Vec<u8>> for FileData {
    fn from(bytes: Vec<u8>) -> Self {
        FileData(Repr::Held(Arc::new(Held {
            bytes,
            sha256: OnceLock::new(),
            pooled: 0,
        })))
    }
}

impl From<&[u8]> for FileData {
    fn from(bytes: &[u8]) -> Self {
        bytes.to_vec().into()
    }
}

impl<const N: usize> From<&[u8; N]> for FileData {
    fn from(bytes: &[u8; N]) -> Self {
        bytes.to_vec().into()
    }
}

impl From<&str> for FileData {
    fn from(text: &str) -> Self {
        text.as_bytes().to_vec().into()
    }
}

impl From<String> for FileData {
    fn from(text: String) -> Self {
        text.into_bytes().into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use asv_error::Failure as _;

    /// The spill directory is the process's: tests that spill and look at it take turns, or
    /// one test's files keep the directory another expects gone (`cargo test` runs tests as
    /// threads of one process).
    static SPILLING: std::sync::Mutex<()> = std::sync::Mutex::new(());

    fn spilling() -> std::sync::MutexGuard<'static, ()> {
        SPILLING
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// A root over `dir` with the file `f` holding `bytes`.
    fn with_file(dir: &tempfile::TempDir, bytes: &[u8]) -> asv_fs::Root {
        let root = asv_fs::Root::open(dir.path()).unwrap();
        root.write_file("f", bytes).unwrap();
        root
    }

    #[test]
    fn held_and_stored_bytes_compare_by_content() {
        let dir = tempfile::tempdir().unwrap();
        with_file(&dir, b"same bytes");
        let digest: [u8; 32] = Sha256::digest(b"same bytes").into();
        let root = Arc::new(asv_fs::Root::open(dir.path()).unwrap());
        let stored = FileData::stored(&root, "f".into(), 10, digest);
        assert_eq!(stored, FileData::from("same bytes"));
        assert_ne!(stored, FileData::from("other byte"));
        assert_eq!(stored.read().unwrap().as_ref(), b"same bytes");
        assert_eq!(stored.clone().into_bytes().unwrap(), b"same bytes");
    }

    #[test]
    fn spilled_bytes_read_back_and_their_directory_goes_with_the_last_of_them() {
        let _turn = spilling();
        let a = FileData::spill(b"spilled bytes").unwrap();
        let b = FileData::spill(b"more").unwrap();
        let place = a.stored_at().unwrap().root().to_owned();
        assert_eq!(
            b.stored_at().unwrap().root(),
            place,
            "one directory at a time"
        );
        assert_eq!(a, FileData::from("spilled bytes"));
        assert_eq!(a.read().unwrap().as_ref(), b"spilled bytes");
        assert_eq!(b.clone().into_bytes().unwrap(), b"more");
        drop(a);
        assert!(place.is_dir(), "still holds b");
        drop(b);
        assert!(!place.exists(), "removed with the last file");
    }

    /// What a receiver given `pieces` gives, held (`true`) or spilled.
    fn received(held: bool, pieces: &[&[u8]]) -> Result<FileData, Error> {
        let len = pieces.iter().map(|p| p.len() as u64).sum();
        let mut receiver = FileData::receiver_held_if(len, held)?;
        for piece in pieces {
            receiver.write_all(piece).unwrap();
        }
        receiver.finish()
    }

    #[test]
    fn a_receiver_holds_or_spills_what_arrives_in_pieces() {
        let _turn = spilling();
        let big: Vec<u8> = (0..200_000u32).map(|i| (i % 253) as u8).collect();
        let pieces: Vec<&[u8]> = big.chunks(65_536).collect();
        let held = received(true, &pieces).unwrap();
        assert_eq!(held.held(), Some(&big[..]));
        let spilled = received(false, &pieces).unwrap();
        let stored = spilled.stored_at().expect("spilled");
        assert_eq!(stored.len(), big.len() as u64);
        assert_eq!(stored.sha256(), <[u8; 32]>::from(Sha256::digest(&big)));
        assert_eq!(spilled.read().unwrap().as_ref(), &big[..]);
        assert_eq!(held, spilled);
        // An empty file either way.
        assert_eq!(received(true, &[]).unwrap(), FileData::from(""));
        assert_eq!(received(false, &[]).unwrap().len(), 0);
    }

    #[test]
    fn a_receiver_refuses_too_few_or_too_many_bytes_and_keeps_nothing_unfinished() {
        let _turn = spilling();
        for held in [true, false] {
            let mut short = FileData::receiver_held_if(10, held).unwrap();
            short.write_all(b"nine byte").unwrap();
            let e = short.finish().unwrap_err();
            assert!(
                matches!(
                    e,
                    Error::ReceivedLength {
                        declared: 10,
                        received: 9
                    }
                ),
                "{e:?}"
            );
            assert_eq!(e.side(), asv_error::Side::Internal);
            let mut long = FileData::receiver_held_if(3, held).unwrap();
            long.write_all(b"ab").unwrap();
            assert!(long.write_all(b"cd").is_err());
            let e = long.failure().unwrap();
            assert!(
                matches!(
                    e,
                    Error::ReceivedLength {
                        declared: 3,
                        received: 4
                    }
                ),
                "{e:?}"
            );
        }
        // A spill file begun and dropped is removed; its directory goes with its last file.
        let kept = FileData::spill(b"kept").unwrap();
        let dir = kept.stored_at().unwrap().root().to_owned();
        let mut dropped = FileData::receiver_held_if(4, false).unwrap();
        dropped.write_all(b"gone").unwrap();
        let names = || {
            let mut names: Vec<_> = asv_fs::Root::open(&dir)
                .unwrap()
                .read_dir("")
                .unwrap()
                .unwrap_or_default()
                .into_iter()
                .map(|e| e.name)
                .collect();
            names.sort();
            names
        };
        assert_eq!(names().len(), 2);
        drop(dropped);
        assert_eq!(names(), [kept.stored_at().unwrap().path()]);
    }

    #[test]
    fn a_stored_file_edited_since_it_was_read_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let root = Arc::new(with_file(&dir, b"same bytes"));
        let digest: [u8; 32] = Sha256::digest(b"same bytes").into();
        let stored = FileData::stored(&root, "f".into(), 10, digest);
        root.write_file("f", b"SAME BYTES").unwrap();
        let refused = stored.read().unwrap_err();
        assert!(
            matches!(&refused, Error::Fs(asv_fs::Error::ChangedWhileRead { path }) if path == "f"),
            "{refused:?}"
        );
        root.remove_file("f").unwrap();
        assert!(stored.read().is_err());
    }
}
