//! Every call of this crate that depends on the operating system, in one place
//! (docs/PORTABILITY.md lists them with their fallbacks).
//!
//! Three families live here:
//!
//! - **Linux-only calls**: `renameat2` with `RENAME_EXCHANGE` (two entries swapped in one
//!   step) and with `RENAME_NOREPLACE` (a rename that never replaces). Elsewhere, and on Linux
//!   with the cargo feature `portable`, `exchange` says "cannot" and the callers replace an
//!   entry by rename-aside (park the old entry, then move the new one in), and
//!   `rename_noreplace` looks before it renames. The feature exists so that the code a macOS
//!   user runs is the code the test suite runs here.
//! - **Unix calls** (Linux and macOS alike): opening without following a link or blocking on a
//!   FIFO, permission bits and the owner's executable bit, device and inode numbers, symbolic
//!   links, FIFOs, sockets and devices, the table of locks.
//! - **Their Windows versions** (`cfg(not(unix))`), which cannot be compiled on the machine
//!   this project is built on: kept small, and listed as unverified in docs/PORTABILITY.md.
//!
//! [`windows_name_problem`] is plain logic, compiled and tested everywhere; only its use as a
//! guard on every path is Windows-only.

use std::fs::{self, File, Metadata, OpenOptions};
use std::io;
use std::path::Path;

use crate::error::EntryKind;

/// The clock the kernel stamps file changes with (`CLOCK_REALTIME_COARSE`, advanced once a
/// tick), read now: a change made from now on gets a change time no earlier than this.
#[cfg(target_os = "linux")]
pub(crate) fn stamp_clock() -> Option<std::time::SystemTime> {
    let now = rustix::time::clock_gettime(rustix::time::ClockId::RealtimeCoarse);
    let secs = u64::try_from(now.tv_sec).ok()?;
    let nanos = u32::try_from(now.tv_nsec).ok()?;
    Some(std::time::UNIX_EPOCH + std::time::Duration::new(secs, nanos))
}

/// Not known here: the caller allows for the longest lag a tick can give.
#[cfg(not(target_os = "linux"))]
pub(crate) fn stamp_clock() -> Option<std::time::SystemTime> {
    None
}

// ---------------------------------------------------------------------------------------
// Linux-only calls, and their fallbacks for any other system (or `portable`).

/// Exchanges the entries at `a` and `b` in one step. `Ok(false)`, with nothing done, where the
/// system or file system cannot: the caller then replaces by rename-aside.
#[cfg(all(
    any(target_os = "linux", target_os = "android"),
    not(feature = "portable")
))]
pub(crate) fn exchange(a: &Path, b: &Path) -> io::Result<bool> {
    use rustix::io::Errno;
    match rustix::fs::renameat_with(
        rustix::fs::CWD,
        a,
        rustix::fs::CWD,
        b,
        rustix::fs::RenameFlags::EXCHANGE,
    ) {
        Ok(()) => Ok(true),
        Err(errno) if errno == Errno::INVAL || errno == Errno::NOSYS => Ok(false),
        Err(errno) => Err(io::Error::from_raw_os_error(errno.raw_os_error())),
    }
}

/// No exchange in one step here: the caller replaces by rename-aside.
#[cfg(not(all(
    any(target_os = "linux", target_os = "android"),
    not(feature = "portable")
)))]
pub(crate) fn exchange(_a: &Path, _b: &Path) -> io::Result<bool> {
    Ok(false)
}

/// Whether [`exchange`] is a real system call here (a call the fault tests count).
pub(crate) const HAS_EXCHANGE: bool = cfg!(all(
    any(target_os = "linux", target_os = "android"),
    not(feature = "portable")
));

/// Renames `from` to `to`, failing with `AlreadyExists` when an entry stands at `to`.
#[cfg(all(
    any(target_os = "linux", target_os = "android"),
    not(feature = "portable")
))]
pub(crate) fn rename_noreplace(from: &Path, to: &Path) -> io::Result<()> {
    use rustix::io::Errno;
    match rustix::fs::renameat_with(
        rustix::fs::CWD,
        from,
        rustix::fs::CWD,
        to,
        rustix::fs::RenameFlags::NOREPLACE,
    ) {
        Ok(()) => Ok(()),
        // A file system without RENAME_NOREPLACE: look, then rename, as elsewhere.
        Err(errno) if errno == Errno::INVAL || errno == Errno::NOSYS => look_then_rename(from, to),
        Err(errno) => Err(io::Error::from_raw_os_error(errno.raw_os_error())),
    }
}

/// Renames `from` to `to`, failing with `AlreadyExists` when an entry stands at `to`.
#[cfg(not(all(
    any(target_os = "linux", target_os = "android"),
    not(feature = "portable")
)))]
pub(crate) fn rename_noreplace(from: &Path, to: &Path) -> io::Result<()> {
    look_then_rename(from, to)
}

/// A rename that does not replace, where the system has no such call: look, then rename. The
/// names are fresh random siblings or a destination this run just emptied, under the writer
/// lock, so nothing else is expected to appear between the two.
fn look_then_rename(from: &Path, to: &Path) -> io::Result<()> {
    match fs::symlink_metadata(to) {
        Ok(_) => Err(io::Error::from(io::ErrorKind::AlreadyExists)),
        Err(e) if e.kind() == io::ErrorKind::NotFound => fs::rename(from, to),
        Err(e) => Err(e),
    }
}

// ---------------------------------------------------------------------------------------
// A directory held open, so that the entries made in it are named by their file name alone.

/// A directory of the tree held open while an apply makes and moves entries in it: each call
/// names one entry of it, so the kernel resolves the path from the root to it once, not once
/// per call (`openat`/`renameat` on Unix; on Windows it keeps the path and joins it).
#[cfg(unix)]
pub(crate) struct Dir(std::os::fd::OwnedFd);

#[cfg(unix)]
impl Dir {
    /// Opens the directory at `path`, refusing a link there (`O_NOFOLLOW`).
    pub(crate) fn open(path: &Path) -> io::Result<Dir> {
        use rustix::fs::{Mode, OFlags};
        rustix::fs::open(
            path,
            OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC,
            Mode::empty(),
        )
        .map(Dir)
        .map_err(io::Error::from)
    }

    /// A new directory `name` in this directory (`mkdirat`; an entry already there is an
    /// error).
    pub(crate) fn create_dir(&self, name: &str) -> io::Result<()> {
        rustix::fs::mkdirat(&self.0, name, rustix::fs::Mode::from_raw_mode(0o777))
            .map_err(io::Error::from)
    }

    /// [`create_new_nofollow`] of the entry `name` of this directory.
    pub(crate) fn create_new(&self, name: &str, mode: u32) -> io::Result<File> {
        use rustix::fs::{Mode, OFlags};
        rustix::fs::openat(
            &self.0,
            name,
            OFlags::WRONLY
                | OFlags::CREATE
                | OFlags::EXCL
                | OFlags::NOFOLLOW
                | OFlags::NOCTTY
                | OFlags::CLOEXEC,
            Mode::from_raw_mode(mode as rustix::fs::RawMode),
        )
        .map(File::from)
        .map_err(io::Error::from)
    }

    /// [`rename_noreplace`] of the entry `from` of this directory to `to`, beside it.
    #[cfg(all(
        any(target_os = "linux", target_os = "android"),
        not(feature = "portable")
    ))]
    pub(crate) fn rename_noreplace(&self, from: &str, to: &str) -> io::Result<()> {
        use rustix::io::Errno;
        match rustix::fs::renameat_with(
            &self.0,
            from,
            &self.0,
            to,
            rustix::fs::RenameFlags::NOREPLACE,
        ) {
            Ok(()) => Ok(()),
            Err(errno) if errno == Errno::INVAL || errno == Errno::NOSYS => {
                self.look_then_rename(from, to)
            }
            Err(errno) => Err(io::Error::from(errno)),
        }
    }

    /// [`rename_noreplace`] of the entry `from` of this directory to `to`, beside it.
    #[cfg(not(all(
        any(target_os = "linux", target_os = "android"),
        not(feature = "portable")
    )))]
    pub(crate) fn rename_noreplace(&self, from: &str, to: &str) -> io::Result<()> {
        self.look_then_rename(from, to)
    }

    /// [`look_then_rename`] within this directory.
    fn look_then_rename(&self, from: &str, to: &str) -> io::Result<()> {
        match rustix::fs::statat(&self.0, to, rustix::fs::AtFlags::SYMLINK_NOFOLLOW) {
            Ok(_) => Err(io::Error::from(io::ErrorKind::AlreadyExists)),
            Err(rustix::io::Errno::NOENT) => {
                rustix::fs::renameat(&self.0, from, &self.0, to).map_err(io::Error::from)
            }
            Err(errno) => Err(io::Error::from(errno)),
        }
    }
}

/// A directory of the tree, named by its path (Windows has no calls relative to an open
/// directory that stable std reaches).
#[cfg(not(unix))]
pub(crate) struct Dir(std::path::PathBuf);

#[cfg(not(unix))]
impl Dir {
    /// Checks that a directory stands at `path` and keeps the path.
    pub(crate) fn open(path: &Path) -> io::Result<Dir> {
        if fs::symlink_metadata(path)?.is_dir() {
            Ok(Dir(path.to_path_buf()))
        } else {
            Err(io::Error::from(io::ErrorKind::NotADirectory))
        }
    }

    /// A new directory `name` in this directory (an entry already there is an error).
    pub(crate) fn create_dir(&self, name: &str) -> io::Result<()> {
        fs::create_dir(self.0.join(name))
    }

    /// [`create_new_nofollow`] of the entry `name` of this directory.
    pub(crate) fn create_new(&self, name: &str, mode: u32) -> io::Result<File> {
        create_new_nofollow(&self.0.join(name), mode)
    }

    /// [`rename_noreplace`] of the entry `from` of this directory to `to`, beside it.
    pub(crate) fn rename_noreplace(&self, from: &str, to: &str) -> io::Result<()> {
        rename_noreplace(&self.0.join(from), &self.0.join(to))
    }
}

/// A directory held open to take `lstat` stamps of what lies below it, each path resolved
/// from it rather than from `/` (see [`crate::StampDir`]).
#[cfg(unix)]
pub(crate) struct StampBase(std::os::fd::OwnedFd);

#[cfg(unix)]
impl StampBase {
    /// Opens the directory at `path`, refusing a link there (`O_NOFOLLOW`); on Linux only
    /// as a place (`O_PATH`): it is never read, only named in the calls below.
    pub(crate) fn open(path: &Path) -> io::Result<StampBase> {
        use rustix::fs::{Mode, OFlags};
        #[cfg(any(target_os = "linux", target_os = "android"))]
        let how = OFlags::PATH;
        #[cfg(not(any(target_os = "linux", target_os = "android")))]
        let how = OFlags::RDONLY;
        rustix::fs::open(
            path,
            how | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC,
            Mode::empty(),
        )
        .map(StampBase)
        .map_err(io::Error::from)
    }

    /// What `lstat` says of `rel` below this directory (the directory itself for an empty
    /// `rel`). A link at `rel` is not followed; directories on the way to it are resolved by
    /// the kernel.
    #[cfg(any(target_os = "linux", target_os = "android"))]
    pub(crate) fn lstat(&self, rel: &str) -> io::Result<Lstat> {
        use rustix::fs::{AtFlags, StatxFlags};
        let flags = if rel.is_empty() {
            AtFlags::EMPTY_PATH | AtFlags::SYMLINK_NOFOLLOW
        } else {
            AtFlags::SYMLINK_NOFOLLOW
        };
        let st = rustix::fs::statx(&self.0, rel, flags, StatxFlags::BASIC_STATS)?;
        let mode = u32::from(st.stx_mode);
        Ok(Lstat {
            kind: kind_of_mode(mode),
            // The device as std's metadata gives it (`makedev` of the two numbers), so a
            // stamp taken here equals one taken by path.
            device: rustix::fs::makedev(st.stx_dev_major, st.stx_dev_minor),
            inode: st.stx_ino,
            size: st.stx_size,
            mode,
            modified: (st.stx_mtime.tv_sec, i64::from(st.stx_mtime.tv_nsec)),
            changed: (st.stx_ctime.tv_sec, i64::from(st.stx_ctime.tv_nsec)),
        })
    }

    /// What `lstat` says of `rel` below this directory (see the Linux version).
    #[cfg(not(any(target_os = "linux", target_os = "android")))]
    pub(crate) fn lstat(&self, rel: &str) -> io::Result<Lstat> {
        // No `AT_EMPTY_PATH` here: the directory itself by its descriptor.
        let st = if rel.is_empty() {
            rustix::fs::fstat(&self.0)?
        } else {
            rustix::fs::statat(&self.0, rel, rustix::fs::AtFlags::SYMLINK_NOFOLLOW)?
        };
        #[allow(clippy::unnecessary_cast, clippy::useless_conversion)]
        Ok(Lstat {
            kind: kind_of_mode(st.st_mode as u32),
            device: st.st_dev as u64,
            inode: st.st_ino as u64,
            size: st.st_size as u64,
            mode: st.st_mode as u32,
            modified: (st.st_mtime as i64, st.st_mtime_nsec as i64),
            changed: (st.st_ctime as i64, st.st_ctime_nsec as i64),
        })
    }
}

/// What `lstat` says of an entry: its kind and the fields a stamp is made of.
#[cfg(unix)]
#[derive(Debug, Clone, Copy)]
pub(crate) struct Lstat {
    pub(crate) kind: EntryKind,
    pub(crate) device: u64,
    pub(crate) inode: u64,
    pub(crate) size: u64,
    pub(crate) mode: u32,
    pub(crate) modified: (i64, i64),
    pub(crate) changed: (i64, i64),
}

/// The kind a `st_mode` names.
#[cfg(unix)]
fn kind_of_mode(mode: u32) -> EntryKind {
    use rustix::fs::FileType;
    match FileType::from_raw_mode(mode as rustix::fs::RawMode) {
        FileType::RegularFile => EntryKind::File,
        FileType::Directory => EntryKind::Directory,
        FileType::Symlink => EntryKind::Symlink,
        FileType::Fifo => EntryKind::Fifo,
        FileType::Socket => EntryKind::Socket,
        FileType::BlockDevice => EntryKind::BlockDevice,
        FileType::CharacterDevice => EntryKind::CharDevice,
        FileType::Unknown => EntryKind::Unknown,
    }
}

/// A directory named by its path, to take stamps below it (no calls relative to an open
/// directory here).
#[cfg(not(unix))]
pub(crate) struct StampBase(std::path::PathBuf);

#[cfg(not(unix))]
impl StampBase {
    /// Checks that a directory stands at `path` and keeps the path.
    pub(crate) fn open(path: &Path) -> io::Result<StampBase> {
        if fs::symlink_metadata(path)?.is_dir() {
            Ok(StampBase(path.to_path_buf()))
        } else {
            Err(io::Error::from(io::ErrorKind::NotADirectory))
        }
    }

    /// What `lstat` says of `rel` below this directory.
    pub(crate) fn lstat(&self, rel: &str) -> io::Result<Metadata> {
        if rel.is_empty() {
            fs::symlink_metadata(&self.0)
        } else {
            fs::symlink_metadata(self.0.join(rel))
        }
    }
}

// ---------------------------------------------------------------------------------------
// Unix calls (Linux and macOS).

/// Opens the regular file at `path` for reading without following a link at `path` (a link
/// fails: see [`is_link_refused`]) and without blocking on a FIFO.
#[cfg(unix)]
pub(crate) fn open_read_nofollow(path: &Path) -> io::Result<File> {
    use rustix::fs::OFlags;
    use std::os::unix::fs::OpenOptionsExt;
    OpenOptions::new()
        .read(true)
        .custom_flags((OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::NOCTTY).bits() as i32)
        .open(path)
}

/// Creates a new file at `path` (never through a link) with `mode` narrowed by the umask.
#[cfg(unix)]
pub(crate) fn create_new_nofollow(path: &Path, mode: u32) -> io::Result<File> {
    use rustix::fs::OFlags;
    use std::os::unix::fs::OpenOptionsExt;
    OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(mode)
        .custom_flags((OFlags::NOFOLLOW | OFlags::NOCTTY).bits() as i32)
        .open(path)
}

/// Creates a new file at `path` to append to, readable by the owner alone (the journal).
#[cfg(unix)]
pub(crate) fn create_private_appending(path: &Path) -> io::Result<File> {
    use std::os::unix::fs::OpenOptionsExt;
    OpenOptions::new()
        .append(true)
        .create_new(true)
        .mode(0o600)
        .custom_flags(rustix::fs::OFlags::NOFOLLOW.bits() as i32)
        .open(path)
}

/// Creates the directory `path`, open to its owner alone until its bits are set.
#[cfg(unix)]
pub(crate) fn create_private_dir(path: &Path) -> io::Result<()> {
    use std::os::unix::fs::DirBuilderExt;
    fs::DirBuilder::new().mode(0o700).create(path)
}

/// The permission bits of an entry (`0o7777` at most).
#[cfg(unix)]
pub(crate) fn mode_of(meta: &Metadata) -> u32 {
    use std::os::unix::fs::MetadataExt;
    meta.mode() & 0o7777
}

/// Whether the owner's executable bit is set on the entry `meta` describes.
///
/// # Example
/// ```
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let dir = tempfile::tempdir()?;
/// let path = dir.path().join("notes.md");
/// std::fs::write(&path, "x")?;
/// assert!(!asv_fs::platform::is_executable(&std::fs::metadata(&path)?));
/// # Ok(())
/// # }
/// ```
#[cfg(unix)]
pub fn is_executable(meta: &Metadata) -> bool {
    use std::os::unix::fs::PermissionsExt;
    meta.permissions().mode() & 0o100 != 0
}

/// Sets the permission bits of the open file `file` to `mode`.
#[cfg(unix)]
pub(crate) fn set_file_mode(file: &File, mode: u32) -> io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    file.set_permissions(fs::Permissions::from_mode(mode))
}

/// Sets the permission bits of the entry at `path` to `mode` (following a link: callers have
/// just seen a directory there).
#[cfg(unix)]
pub(crate) fn set_path_mode(path: &Path, mode: u32) -> io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    fs::set_permissions(path, fs::Permissions::from_mode(mode))
}

/// Gives a temporary file the bits any other tool's new file gets: `0o666` (`0o777` when
/// executable) narrowed by the umask, rather than tempfile's `0o600`, which would leave copies
/// unreadable to the rest of the team.
#[cfg(unix)]
pub(crate) fn new_file_bits(builder: &mut tempfile::Builder<'_, '_>, executable: bool) {
    use std::os::unix::fs::PermissionsExt;
    builder.permissions(fs::Permissions::from_mode(if executable {
        0o777
    } else {
        0o666
    }));
}

/// Where an entry lives on disk, `(device, inode)`: it travels with the entry through every
/// rename, so a journal can find a parked entry whatever name it was given.
#[cfg(unix)]
pub(crate) fn identity_of(meta: &Metadata) -> (u64, u64) {
    use std::os::unix::fs::MetadataExt;
    (meta.dev(), meta.ino())
}

/// A hard link `to` of the entry `from`; a link at `from` is linked itself, never followed.
#[cfg(unix)]
pub(crate) fn hard_link(from: &Path, to: &Path) -> io::Result<()> {
    rustix::fs::linkat(
        rustix::fs::CWD,
        from,
        rustix::fs::CWD,
        to,
        rustix::fs::AtFlags::empty(),
    )
    .map_err(io::Error::from)
}

/// The file system an entry is on, to refuse a rename across two of them up front.
#[cfg(unix)]
pub(crate) fn device_of(meta: &Metadata) -> u64 {
    use std::os::unix::fs::MetadataExt;
    meta.dev()
}

/// What a file type is beyond file, directory and link.
#[cfg(unix)]
pub(crate) fn special_kind(ft: fs::FileType) -> EntryKind {
    use std::os::unix::fs::FileTypeExt;
    if ft.is_fifo() {
        EntryKind::Fifo
    } else if ft.is_socket() {
        EntryKind::Socket
    } else if ft.is_block_device() {
        EntryKind::BlockDevice
    } else if ft.is_char_device() {
        EntryKind::CharDevice
    } else {
        EntryKind::Unknown
    }
}

/// Makes a symbolic link at `link` pointing to `target`.
#[cfg(unix)]
pub(crate) fn symlink(target: &Path, link: &Path) -> io::Result<()> {
    std::os::unix::fs::symlink(target, link)
}

/// Whether an open of [`open_read_nofollow`] failed because a link stands at the path.
#[cfg(unix)]
pub(crate) fn is_link_refused(e: &io::Error) -> bool {
    e.raw_os_error() == Some(rustix::io::Errno::LOOP.raw_os_error())
}

/// Whether a failure says an ancestor of the path is not a directory.
#[cfg(unix)]
pub(crate) fn is_not_a_directory(e: &io::Error) -> bool {
    e.raw_os_error() == Some(rustix::io::Errno::NOTDIR.raw_os_error())
}

/// Whether removing a directory failed because it is not empty.
#[cfg(unix)]
pub(crate) fn is_not_empty(e: &io::Error) -> bool {
    e.kind() == io::ErrorKind::DirectoryNotEmpty
        || e.raw_os_error() == Some(rustix::io::Errno::NOTEMPTY.raw_os_error())
}

/// Opens what the writer lock is held on: the root directory itself, whose inode is one
/// object whatever path reaches it, and which locking leaves no trace in.
#[cfg(unix)]
pub(crate) fn open_lock_target(root: &Path) -> io::Result<File> {
    File::open(root)
}

/// Whether a lock failure says this file system has no locks (as opposed to a real failure).
#[cfg(unix)]
pub(crate) fn cannot_lock_here(e: &io::Error) -> bool {
    use rustix::io::Errno;
    e.kind() == io::ErrorKind::Unsupported
        || e.raw_os_error().is_some_and(|code| {
            let errno = Errno::from_raw_os_error(code);
            // NFS emulates flock with POSIX locks, which refuse a directory opened for reading.
            errno == Errno::NOLCK
                || errno == Errno::OPNOTSUPP
                || errno == Errno::NOTSUP
                || errno == Errno::BADF
                || errno == Errno::INVAL
        })
}

/// The process holding the lock on `dir`, from the kernel's table of locks (`/proc/locks`,
/// Linux); `None` where that table is missing (macOS) or names no process this one can see.
#[cfg(unix)]
pub(crate) fn lock_holder(dir: &File) -> Option<u32> {
    use std::os::unix::fs::MetadataExt;
    let meta = dir.metadata().ok()?;
    let table = fs::read_to_string("/proc/locks").ok()?;
    let dev = meta.dev();
    let device = format!(
        "{:02x}:{:02x}:{}",
        rustix::fs::major(dev),
        rustix::fs::minor(dev),
        meta.ino()
    );
    holder_in(&table, &device, meta.ino())
}

#[cfg(any(unix, test))]
/// The holder of the granted `FLOCK` on the inode `device` (`maj:min:ino`, as the kernel
/// prints it) in a `/proc/locks` table. Some file systems (btrfs subvolumes, overlays) report
/// another device to `stat` than to the table, so an inode number held once is taken too.
fn holder_in(table: &str, device: &str, ino: u64) -> Option<u32> {
    // A granted lock: `1: FLOCK  ADVISORY  WRITE 4242 08:01:1234 0 EOF`; a waiter has `->`
    // after the number, and pid 0 is a holder in a namespace this process cannot see.
    let granted: Vec<(u32, &str)> = table
        .lines()
        .filter_map(|line| {
            let fields: Vec<&str> = line.split_whitespace().collect();
            match fields.as_slice() {
                [_, "FLOCK", _, _, pid, inode, ..] => Some((pid.parse().ok()?, *inode)),
                _ => None,
            }
        })
        .filter(|(pid, _)| *pid != 0)
        .collect();
    if let Some((pid, _)) = granted.iter().find(|(_, inode)| *inode == device) {
        return Some(*pid);
    }
    let suffix = format!(":{ino}");
    let mut same_ino = granted.iter().filter(|(_, inode)| inode.ends_with(&suffix));
    match (same_ino.next(), same_ino.next()) {
        (Some((pid, _)), None) => Some(*pid),
        _ => None,
    }
}

/// Ends this process at once, as a crash would (the `test-hooks` kill switch).
#[cfg(all(unix, feature = "test-hooks"))]
pub(crate) fn kill_this_process() {
    let _ = rustix::process::kill_process(rustix::process::getpid(), rustix::process::Signal::KILL);
}

// ---------------------------------------------------------------------------------------
// Windows (not compiled on this project's machines: see docs/PORTABILITY.md).

/// Opens the file at `path` for reading without following a link: a link opens as itself,
/// and the caller refuses it by its kind.
#[cfg(not(unix))]
pub(crate) fn open_read_nofollow(path: &Path) -> io::Result<File> {
    use std::os::windows::fs::OpenOptionsExt;
    // FILE_FLAG_OPEN_REPARSE_POINT: open a link (a reparse point) itself, never its target.
    OpenOptions::new()
        .read(true)
        .custom_flags(0x0020_0000)
        .open(path)
}

/// Creates a new file at `path` (an existing entry, link or not, makes it fail).
#[cfg(not(unix))]
pub(crate) fn create_new_nofollow(path: &Path, _mode: u32) -> io::Result<File> {
    OpenOptions::new().write(true).create_new(true).open(path)
}

/// Creates a new file at `path` to append to (the journal).
#[cfg(not(unix))]
pub(crate) fn create_private_appending(path: &Path) -> io::Result<File> {
    OpenOptions::new().append(true).create_new(true).open(path)
}

/// Creates the directory `path`.
#[cfg(not(unix))]
pub(crate) fn create_private_dir(path: &Path) -> io::Result<()> {
    fs::create_dir(path)
}

/// Windows has no permission bits: a read-only entry reads as `0o555`/`0o444`, any other as
/// `0o777`/`0o666`.
#[cfg(not(unix))]
pub(crate) fn mode_of(meta: &Metadata) -> u32 {
    match (meta.is_dir(), meta.permissions().readonly()) {
        (true, true) => 0o555,
        (true, false) => 0o777,
        (false, true) => 0o444,
        (false, false) => 0o666,
    }
}

/// Windows has no executable bit: nothing is executable.
#[cfg(not(unix))]
pub fn is_executable(_meta: &Metadata) -> bool {
    false
}

/// Sets or clears the read-only attribute of `file` by the owner's write bit of `mode`.
#[cfg(not(unix))]
pub(crate) fn set_file_mode(file: &File, mode: u32) -> io::Result<()> {
    let mut perms = file.metadata()?.permissions();
    perms.set_readonly(mode & 0o200 == 0);
    file.set_permissions(perms)
}

/// Sets or clears the read-only attribute of the entry at `path` by the owner's write bit.
#[cfg(not(unix))]
pub(crate) fn set_path_mode(path: &Path, mode: u32) -> io::Result<()> {
    let mut perms = fs::metadata(path)?.permissions();
    perms.set_readonly(mode & 0o200 == 0);
    fs::set_permissions(path, perms)
}

/// A new file on Windows is writable and has no executable bit to give.
#[cfg(not(unix))]
pub(crate) fn new_file_bits(_builder: &mut tempfile::Builder<'_, '_>, _executable: bool) {}

/// What stable std tells of an entry that a rename keeps: its creation time (100 ns ticks).
/// Two entries made by one run differ in it; the volume and file index would be exact but are
/// not reachable from stable std.
#[cfg(not(unix))]
pub(crate) fn identity_of(meta: &Metadata) -> (u64, u64) {
    use std::os::windows::fs::MetadataExt;
    (0, meta.creation_time())
}

/// Not made here: a caller copies instead.
#[cfg(not(unix))]
pub(crate) fn hard_link(_from: &Path, _to: &Path) -> io::Result<()> {
    Err(io::Error::from(io::ErrorKind::Unsupported))
}

/// Not known from stable std: every entry is taken to be on one volume (a rename across two
/// then fails and is reported as it is).
#[cfg(not(unix))]
pub(crate) fn device_of(_meta: &Metadata) -> u64 {
    0
}

/// Windows has no FIFOs, sockets or devices in a directory listing.
#[cfg(not(unix))]
pub(crate) fn special_kind(_ft: fs::FileType) -> EntryKind {
    EntryKind::Unknown
}

/// Makes a symbolic link at `link` pointing to `target` (a directory link when the target,
/// taken from the link's directory, is a directory; this needs the right to make links).
#[cfg(not(unix))]
pub(crate) fn symlink(target: &Path, link: &Path) -> io::Result<()> {
    let resolved = link
        .parent()
        .map_or(target.to_path_buf(), |d| d.join(target));
    if resolved.is_dir() {
        std::os::windows::fs::symlink_dir(target, link)
    } else {
        std::os::windows::fs::symlink_file(target, link)
    }
}

/// A link opens as itself on Windows (see [`open_read_nofollow`]): never refused at the open.
#[cfg(not(unix))]
pub(crate) fn is_link_refused(_e: &io::Error) -> bool {
    false
}

/// Whether a failure says an ancestor of the path is not a directory.
#[cfg(not(unix))]
pub(crate) fn is_not_a_directory(e: &io::Error) -> bool {
    e.kind() == io::ErrorKind::NotADirectory
}

/// Whether removing a directory failed because it is not empty.
#[cfg(not(unix))]
pub(crate) fn is_not_empty(e: &io::Error) -> bool {
    e.kind() == io::ErrorKind::DirectoryNotEmpty
}

/// Windows cannot lock a directory handle, so the lock is held on a file in the user's
/// temporary directory named for the root's real path (never in the tree, which the contract
/// commands must leave exactly as the TypeScript tool does).
#[cfg(not(unix))]
pub(crate) fn open_lock_target(root: &Path) -> io::Result<File> {
    use sha2::Digest as _;
    let real = fs::canonicalize(root)?;
    let digest = sha2::Sha256::digest(real.to_string_lossy().to_lowercase().as_bytes());
    let name: String = digest[..8].iter().map(|b| format!("{b:02x}")).collect();
    let path = std::env::temp_dir().join(format!("agentic-skill-vendor-{name}.lock"));
    OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(path)
}

/// Whether a lock failure says the file system has no locks.
#[cfg(not(unix))]
pub(crate) fn cannot_lock_here(e: &io::Error) -> bool {
    e.kind() == io::ErrorKind::Unsupported
}

/// Windows keeps no table of locks to read the holder from.
#[cfg(not(unix))]
pub(crate) fn lock_holder(_lock: &File) -> Option<u32> {
    None
}

/// Ends this process at once, as a crash would (the `test-hooks` kill switch).
#[cfg(all(not(unix), feature = "test-hooks"))]
pub(crate) fn kill_this_process() {
    std::process::abort();
}

// ---------------------------------------------------------------------------------------
// Names Windows cannot hold.

/// Why `segment` (one name of a path) cannot be a file name on Windows, or `None` when it can:
/// a separator or drive colon inside it (which would make one name reach another place), a
/// character Windows refuses, a trailing dot or space (which Windows drops, so two names would
/// meet), or a device name (`CON`, `NUL`, `COM1`, … with or without an extension).
///
/// Judged on every path of a [`crate::Root`] on Windows only; elsewhere such names are
/// ordinary, and a byte-compatible tool must keep them.
///
/// # Example
/// ```
/// use asv_fs::platform::windows_name_problem;
/// assert_eq!(windows_name_problem("notes.md"), None);
/// assert!(windows_name_problem("nul.txt").is_some());
/// assert!(windows_name_problem("a\\..").is_some());
/// ```
pub fn windows_name_problem(segment: &str) -> Option<&'static str> {
    if segment.contains(['\\', ':']) {
        return Some("a backslash or colon in a name");
    }
    if segment
        .chars()
        .any(|c| c < ' ' || matches!(c, '<' | '>' | '"' | '|' | '?' | '*'))
    {
        return Some("a control character or one of < > \" | ? * in a name");
    }
    if segment != "." && segment != ".." && segment.ends_with(['.', ' ']) {
        return Some("a name ending in a dot or space");
    }
    let stem = segment.split('.').next().unwrap_or("").trim_end();
    let upper = stem.to_ascii_uppercase();
    let device = matches!(
        upper.as_str(),
        "CON" | "PRN" | "AUX" | "NUL" | "CONIN$" | "CONOUT$"
    ) || ((upper.starts_with("COM") || upper.starts_with("LPT"))
        && upper.len() == 4
        && upper.as_bytes()[3].is_ascii_digit()
        && upper.as_bytes()[3] != b'0')
        || ((upper.starts_with("COM") || upper.starts_with("LPT"))
            && matches!(&stem[3..], "¹" | "²" | "³"));
    if device {
        return Some("a device name");
    }
    None
}

/// The first name of `rel` Windows cannot hold, and why (see [`windows_name_problem`]).
#[cfg(not(unix))]
pub(crate) fn path_problem(rel: &str) -> Option<(String, &'static str)> {
    rel.split('/')
        .find_map(|segment| windows_name_problem(segment).map(|why| (segment.to_owned(), why)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_windows_cannot_hold() {
        let rows: &[(&str, bool)] = &[
            ("notes.md", false),
            ("SKILL.md", false),
            (".asv-journal-0123456789ab", false),
            ("..", false),
            ("console", false),
            ("COM0", false),
            ("COM10", false),
            ("LPT", false),
            ("a\\b", true),
            ("c:", true),
            ("x:stream", true),
            ("what?", true),
            ("tab\there", true),
            ("trailing.", true),
            ("trailing ", true),
            ("CON", true),
            ("con.txt", true),
            ("Nul", true),
            ("aux.tar.gz", true),
            ("COM1", true),
            ("lpt9.log", true),
            ("COM¹", true),
            ("CONIN$", true),
        ];
        for (name, refused) in rows {
            assert_eq!(windows_name_problem(name).is_some(), *refused, "{name}");
        }
    }

    #[test]
    fn the_holder_is_read_from_the_table_of_locks() {
        let table = "1: POSIX  ADVISORY  WRITE 10 08:01:77 0 EOF\n\
                     2: FLOCK  ADVISORY  WRITE 4242 08:01:77 0 EOF\n\
                     2: -> FLOCK  ADVISORY  WRITE 5555 08:01:77 0 EOF\n\
                     3: FLOCK  ADVISORY  WRITE 0 00:2a:99 0 EOF\n\
                     4: FLOCK  ADVISORY  WRITE 31 00:2b:12 0 EOF\n";
        let rows: &[(&str, u64, Option<u32>)] = &[
            // Exact device and inode.
            ("08:01:77", 77, Some(4242)),
            // Another device printed, one lock on that inode number.
            ("00:30:12", 12, Some(31)),
            // A holder this process cannot see.
            ("00:2a:99", 99, None),
            // Not locked at all.
            ("08:01:78", 78, None),
        ];
        for (device, ino, want) in rows {
            assert_eq!(holder_in(table, device, *ino), *want, "{device}");
        }
    }

    /// The CI runs the suite twice and says which build it expects: this proves the feature
    /// really reached this crate in the `portable` run (`.ci/run`).
    #[test]
    fn the_build_is_the_one_ci_asked_for() {
        let expected = match std::env::var("ASV_EXPECT_PORTABLE").as_deref() {
            Ok("1") => true,
            Ok("0") => false,
            _ => return,
        };
        assert_eq!(cfg!(feature = "portable"), expected, "the portable feature");
        assert_eq!(HAS_EXCHANGE, !expected, "the exchange call");
    }
}
