//! Counting every file system call of an apply, so a test can fail exactly the Nth.

use std::collections::BTreeMap;
use std::io;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Failures to inject into an apply, by the index of the file system call (counted from 0
/// across staging, swapping, rollback and clean-up). For tests of interrupted runs only.
#[doc(hidden)]
#[derive(Debug, Clone, Default)]
pub struct FaultPlan {
    faults: BTreeMap<usize, i32>,
    pub(crate) no_exchange: bool,
}

impl FaultPlan {
    /// No failures.
    pub fn new() -> Self {
        FaultPlan::default()
    }

    /// Makes call number `n` (from 0) fail with the raw OS error `errno`.
    #[must_use]
    pub fn fail_call(mut self, n: usize, errno: i32) -> Self {
        self.faults.insert(n, errno);
        self
    }

    /// Behaves as on a file system with no atomic exchange: park, then move in.
    #[must_use]
    pub fn without_exchange(mut self) -> Self {
        self.no_exchange = true;
        self
    }
}

/// The counter every file system call of an apply steps through.
#[derive(Debug)]
pub(crate) struct Calls<'f> {
    pub(crate) faults: Option<&'f FaultPlan>,
    count: AtomicUsize,
}

impl<'f> Calls<'f> {
    /// A counter that injects nothing.
    pub(crate) fn none() -> Self {
        Calls {
            faults: None,
            count: AtomicUsize::new(0),
        }
    }

    pub(crate) fn new(faults: Option<&'f FaultPlan>) -> Self {
        Calls {
            faults,
            count: AtomicUsize::new(0),
        }
    }

    /// Counts one call; the injected failure when this is the one to fail.
    pub(crate) fn step(&self) -> io::Result<()> {
        #[cfg(feature = "test-hooks")]
        kill_hook::step();
        let n = self.count.fetch_add(1, Ordering::Relaxed);
        match self.faults.and_then(|f| f.faults.get(&n)) {
            Some(&errno) => Err(io::Error::from_raw_os_error(errno)),
            None => Ok(()),
        }
    }

    /// Where a test may hold the apply between staging and swapping, to change the tree
    /// meanwhile (`ASV_TEST_PAUSE_BEFORE_SWAP=<path>`, `test-hooks` builds only: the apply
    /// creates `<path>` and waits, at most 30 s, until it is gone).
    pub(crate) fn pause_before_swap(&self) {
        #[cfg(feature = "test-hooks")]
        if let Some(path) = std::env::var_os("ASV_TEST_PAUSE_BEFORE_SWAP") {
            let path = std::path::PathBuf::from(path);
            if std::fs::write(&path, b"paused\n").is_ok() {
                let started = std::time::Instant::now();
                while path.exists() && started.elapsed() < std::time::Duration::from_secs(30) {
                    std::thread::sleep(std::time::Duration::from_millis(5));
                }
            }
        }
    }

    pub(crate) fn count(&self) -> usize {
        self.count.load(Ordering::Relaxed)
    }
}

/// Killing or stalling the process at a chosen file system call of its applies and
/// recoveries, to test what a crash leaves and what a second writer meets (built only with
/// the `test-hooks` feature: a shipped binary has no such switch). `ASV_TEST_KILL_AT_CALL=N`
/// sends SIGKILL to this process just before its call number `N` (from 0, counted across
/// every apply and recovery of the run); `ASV_TEST_STALL_AT_CALL=N` sleeps a second there,
/// in the middle of its change.
#[cfg(feature = "test-hooks")]
mod kill_hook {
    use std::sync::OnceLock;
    use std::sync::atomic::{AtomicUsize, Ordering};

    static KILL_AT: OnceLock<Option<usize>> = OnceLock::new();
    static STALL_AT: OnceLock<Option<usize>> = OnceLock::new();
    static CALLS: AtomicUsize = AtomicUsize::new(0);

    fn setting(cell: &'static OnceLock<Option<usize>>, name: &str) -> Option<usize> {
        *cell.get_or_init(|| std::env::var(name).ok().and_then(|n| n.parse().ok()))
    }

    pub(super) fn step() {
        let n = CALLS.fetch_add(1, Ordering::SeqCst);
        if setting(&STALL_AT, "ASV_TEST_STALL_AT_CALL") == Some(n) {
            std::thread::sleep(std::time::Duration::from_secs(1));
        }
        if setting(&KILL_AT, "ASV_TEST_KILL_AT_CALL") == Some(n) {
            crate::platform::kill_this_process();
        }
    }
}
