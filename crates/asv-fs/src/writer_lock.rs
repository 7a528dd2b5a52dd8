//! One writer at a time: an advisory lock on the repository, held by every command that
//! changes it (issue 15 §2).
//!
//! Two runs that write the same tree at once (`gen` beside `skill pull`, two `gen`s) can each
//! succeed and still leave a tree `verify` rejects, or fail with a message that blames the
//! user. Each writer therefore takes an exclusive `flock` before it reads the tree; the kernel
//! drops it when the process ends, however it ends, so a killed run never leaves a stale lock.
//!
//! What is locked is the root directory itself, not a lock file: a file (say
//! `.agentic-skill-vendor/lock`) would appear in a tree where `gen` writes nothing else, and
//! the contract commands must leave exactly the files the TypeScript tool leaves; a file in
//! the temporary directory keyed by the root's path would be shared between users (who may not
//! open each other's files) and would miss a repository reached by two paths. The directory's
//! inode is one object whatever path reaches it, and locking it leaves no trace. The holder's
//! process id, which the refusal names, is read from the kernel's table of locks
//! (`/proc/locks`) where there is one.
//!
//! Readers (`verify`, `status`, dry runs) take no lock, so a check is never held up by a long
//! fetch; one run beside a writer may report the tree as it stood part-way through the change.

use std::fs::File;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::apply::{Applied, ApplyWarning, Interrupted};
use crate::error::{Error, Result};
use crate::platform;
use crate::root::Root;

/// How often a waiting writer tries the lock again.
const POLL: Duration = Duration::from_millis(50);

/// The lock on a repository held by the one run allowed to change it; dropping it (or the
/// process ending) releases it.
///
/// Applying a [`crate::Plan`] takes one ([`crate::Plan::apply`]): code that changes a tree
/// without holding its lock, and so without having recovered what a killed run left, does not
/// compile.
///
/// It derefs to the tree it is held on, so a function that changes a tree takes the lock in
/// place of the tree and reads through it as through the tree.
#[derive(Debug)]
pub struct WriterLock<'r> {
    /// The tree the lock is held on.
    root: &'r Root,
    /// The open root directory the lock is held on; `None` where the file system cannot lock.
    _held: Option<File>,
    /// The device and inode of the locked directory: a plan checks it changes this tree.
    root_id: (u64, u64),
    /// The interrupted runs put right once the lock was taken.
    recovered: Vec<Interrupted>,
    /// The command this writer runs, for the journal of every change applied under the lock
    /// (`None`: it named none).
    command: Option<String>,
    /// The warnings of every change applied through [`WriterLock::apply`]: a library that
    /// writes returns its own report, and the binary still tells each of these.
    warnings: Mutex<Vec<ApplyWarning>>,
}

impl std::ops::Deref for WriterLock<'_> {
    type Target = Root;

    fn deref(&self) -> &Root {
        self.root
    }
}

impl WriterLock<'_> {
    /// Whether this lock is held on the tree at `root` (the same directory, by identity,
    /// whatever path reaches it).
    pub(crate) fn holds(&self, root: &Root) -> bool {
        std::ptr::eq(root, self.root)
            || std::fs::metadata(root.root())
                .is_ok_and(|m| platform::identity_of(&m) == self.root_id)
    }

    /// Names the command this writer runs, as a person would type it again: the journal of
    /// every change applied under the lock records it, so the writer after a kill can say what
    /// it put right and a command run again can tell that it is the one interrupted. A lock
    /// that names none records `-`.
    ///
    /// # Example
    /// ```
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let dir = tempfile::tempdir()?;
    /// let root = asv_fs::Root::open(dir.path())?;
    /// let lock = root
    ///     .lock_for_writing(std::time::Duration::from_secs(2))?
    ///     .with_command("agentic-skill-vendor gen");
    /// # drop(lock);
    /// # Ok(())
    /// # }
    /// ```
    #[must_use]
    pub fn with_command(mut self, command: impl Into<String>) -> Self {
        self.command = Some(command.into());
        self
    }

    /// The command named by [`WriterLock::with_command`], if any.
    pub(crate) fn command(&self) -> Option<&str> {
        self.command.as_deref()
    }

    /// The runs of this tool that had been killed while changing the tree, and that taking
    /// the lock recovered from (see [`Root::recover_interrupted`]): the command can say so.
    pub fn recovered(&self) -> &[Interrupted] {
        &self.recovered
    }

    /// Applies `plan` under this lock ([`crate::Plan::apply`]) and moves the warnings of the
    /// completed change ([`Applied::warnings`]: a parked entry left behind) into the lock, for
    /// [`WriterLock::take_warnings`], so a writer whose report has no room for them cannot lose
    /// them (issue 27 §6). The [`Applied`] returned holds none.
    ///
    /// # Errors
    /// As [`crate::Plan::apply`].
    ///
    /// # Example
    /// ```
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// use asv_fs::{Change, Ownership, Plan};
    /// let dir = tempfile::tempdir()?;
    /// let root = asv_fs::Root::open(dir.path())?;
    /// let lock = root.lock_for_writing(std::time::Duration::from_secs(2))?;
    /// let plan = Plan::new(&lock, vec![Change::replace_file("a.md", b"a\n", Ownership::Force)])?;
    /// lock.apply(plan)?;
    /// assert_eq!(root.read_file("a.md")?.as_deref(), Some(&b"a\n"[..]));
    /// assert!(lock.take_warnings().is_empty());
    /// # Ok(())
    /// # }
    /// ```
    pub fn apply(&self, plan: crate::Plan<'_>) -> Result<Applied> {
        let mut applied = plan.apply(self)?;
        let left = applied.take_warnings();
        if !left.is_empty() {
            let mut kept = self.warnings.lock().unwrap_or_else(|e| e.into_inner());
            kept.extend(left);
        }
        Ok(applied)
    }

    /// Takes out the warnings of every change applied through [`WriterLock::apply`] so far, in
    /// order; a second call returns only those of changes applied since.
    pub fn take_warnings(&self) -> Vec<ApplyWarning> {
        std::mem::take(&mut *self.warnings.lock().unwrap_or_else(|e| e.into_inner()))
    }
}

impl Root {
    /// Takes the repository's writer lock, waiting up to `wait` for another run to release it,
    /// then recovers from any run that was killed while it changed the tree
    /// ([`Root::recover_interrupted`]), so every writer starts from a tree an uninterrupted
    /// run could have left.
    ///
    /// On a file system that does not support locking (some network file systems), the run
    /// goes on without a lock rather than refusing every write there; it then recovers from
    /// nothing, since it cannot prove a journal's run is over.
    ///
    /// # Errors
    /// [`Error::Busy`] when another process still holds the lock after `wait`;
    /// [`Error::Io`] when the root cannot be opened or locked, or an interrupted run's entries
    /// cannot be put back.
    ///
    /// # Example
    /// ```
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let dir = tempfile::tempdir()?;
    /// let root = asv_fs::Root::open(dir.path())?;
    /// let lock = root.lock_for_writing(std::time::Duration::from_secs(2))?;
    /// // While it is held, no other writer gets it.
    /// let other = asv_fs::Root::open(dir.path())?;
    /// assert!(other.lock_for_writing(std::time::Duration::ZERO).is_err());
    /// drop(lock);
    /// other.lock_for_writing(std::time::Duration::ZERO)?;
    /// # Ok(())
    /// # }
    /// ```
    pub fn lock_for_writing(&self, wait: Duration) -> Result<WriterLock<'_>> {
        let dir = platform::open_lock_target(self.root())
            .map_err(|e| Error::io("", "open the directory", e))?;
        let root_id =
            platform::identity_of(&dir.metadata().map_err(|e| Error::io("", "inspect", e))?);
        let deadline = Instant::now() + wait;
        loop {
            match dir.try_lock() {
                Ok(()) => {
                    let recovered = self.recover_interrupted()?;
                    return Ok(WriterLock {
                        root: self,
                        _held: Some(dir),
                        root_id,
                        recovered,
                        command: None,
                        warnings: Mutex::default(),
                    });
                }
                Err(std::fs::TryLockError::WouldBlock) => {}
                Err(std::fs::TryLockError::Error(e)) if platform::cannot_lock_here(&e) => {
                    return Ok(WriterLock {
                        root: self,
                        _held: None,
                        root_id,
                        recovered: Vec::new(),
                        command: None,
                        warnings: Mutex::default(),
                    });
                }
                Err(std::fs::TryLockError::Error(e)) => {
                    return Err(Error::io("", "lock the directory", e));
                }
            }
            if Instant::now() >= deadline {
                return Err(Error::Busy {
                    holder: platform::lock_holder(&dir),
                });
            }
            std::thread::sleep(POLL);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_plan_is_applied_only_under_its_own_trees_lock() {
        let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let (ta, tb) = (Root::open(a.path()).unwrap(), Root::open(b.path()).unwrap());
        let lock = ta.lock_for_writing(Duration::ZERO).unwrap();
        let change = || {
            vec![crate::Change::replace_file(
                "x",
                b"x\n",
                crate::Ownership::Force,
            )]
        };
        let err = crate::Plan::new(&tb, change())
            .unwrap()
            .apply(&lock)
            .unwrap_err();
        assert!(matches!(err, Error::NotLocked { .. }), "{err:?}");
        assert_eq!(tb.kind("x").unwrap(), None);
        // Another `Root` of the same directory is the same tree.
        let again = Root::open(a.path()).unwrap();
        crate::Plan::new(&again, change())
            .unwrap()
            .apply(&lock)
            .unwrap();
        assert!(ta.kind("x").unwrap().is_some());
    }

    #[test]
    fn a_second_writer_is_refused_and_named() {
        let dir = tempfile::tempdir().unwrap();
        let root = Root::open(dir.path()).unwrap();
        let held = root.lock_for_writing(Duration::ZERO).unwrap();
        let started = Instant::now();
        let err = root
            .lock_for_writing(Duration::from_millis(200))
            .unwrap_err();
        assert!(started.elapsed() >= Duration::from_millis(200));
        let Error::Busy { holder } = err else {
            panic!("{err:?}")
        };
        if std::path::Path::new("/proc/locks").exists() {
            assert_eq!(holder, Some(std::process::id()));
        }
        drop(held);
        root.lock_for_writing(Duration::ZERO).unwrap();
    }
}
