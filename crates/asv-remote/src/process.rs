//! Supervising one git process and its process group.
//!
//! Every git process starts in a process group of its own (the caller sets that up). While it
//! runs, its standard output is taken up to a cap, the time left to its source is counted and
//! the source's temporary repository is measured; at a limit, or when it ends, the whole group
//! is killed and what is left of it reaped. Only a group seen to be gone is reported stopped:
//! the caller keeps the temporary repository of one that is not, since something may still
//! write in it.
//!
//! On Linux the calling process marks itself a child subreaper before it first starts git, so
//! that git's own children, orphaned when a group is killed, are handed back to it and reaped
//! here. Without that, a machine whose PID 1 does not reap orphans (many containers) would
//! keep them as zombies and no group could ever be confirmed stopped. The calls themselves are
//! in `platform`, with what other systems do instead.

use std::io::Read;
use std::path::Path;
use std::process::{Child, ExitStatus};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use crate::platform;

/// The most bytes of git's standard error kept (to be summarized, never shown).
const STDERR_LIMIT: usize = 64 * 1024;
/// How long a killed process group is given to go before it is reported as not stopped.
pub(crate) const GRACE: Duration = Duration::from_secs(5);
/// The longest the watch sleeps between two looks when nothing wakes it.
pub(crate) const NAP: Duration = Duration::from_millis(25);
/// How often the temporary repository is measured while git runs.
pub(crate) const SIZE_EVERY: Duration = Duration::from_millis(200);

/// Why a git process was stopped before it ended by itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Cut {
    /// The time left to the source ran out.
    Time,
    /// The temporary repository grew past its limit.
    Repository,
    /// Standard output grew past what is taken.
    Output,
}

/// What one git process left.
pub(crate) struct Finished {
    /// How it exited.
    pub(crate) status: ExitStatus,
    /// Its standard output, up to the cap.
    pub(crate) stdout: Vec<u8>,
    /// Its standard error, up to a fixed cap (to be summarized, never shown).
    pub(crate) stderr: Vec<u8>,
}

/// How one git process ended.
pub(crate) enum Outcome {
    /// It ended by itself (successfully or not) and its group is gone.
    Ended(Finished),
    /// It was killed at a limit and its group is gone.
    Cut(Cut),
}

/// Marks this process a child subreaper where the platform has one (see `platform`).
pub(crate) fn become_subreaper() {
    platform::become_subreaper();
}

/// Watches one git process until it ends or a limit cuts it, then makes sure its whole
/// process group is gone. Returns how it ended (`None` when it could not be watched) and
/// whether the group was confirmed stopped.
pub(crate) fn supervise(
    child: &mut Child,
    dir: &Path,
    remaining: Duration,
    cap: u64,
    watch: bool,
    repository_limit: u64,
) -> (Option<Outcome>, bool) {
    let started = Instant::now();
    let over = Arc::new(AtomicBool::new(false));
    let (out_tx, out_rx) = mpsc::channel();
    let (err_tx, err_rx) = mpsc::channel();
    // Woken when git ends or its output passes the cap, rather than by a nap running out:
    // each of the few git processes of a run is waited for as long as it runs, no longer
    // (issue 30 §2: with naps doubling up to 25 ms, each end could go unseen for that long).
    let (wake_tx, wake) = mpsc::channel::<()>();
    if let Some(stdout) = child.stdout.take() {
        let over = Arc::clone(&over);
        let wake_tx = wake_tx.clone();
        std::thread::spawn(move || {
            let mut buf = Vec::new();
            let mut limited = stdout.take(cap.saturating_add(1));
            let _ = limited.read_to_end(&mut buf);
            if buf.len() as u64 > cap {
                over.store(true, Ordering::SeqCst);
            }
            let _ = out_tx.send(buf);
            let _ = wake_tx.send(());
        });
    }
    if let Some(stderr) = child.stderr.take() {
        collect_stderr(stderr, err_tx);
    }
    // Blocks until git ends, without reaping it (see below); where that cannot be waited for,
    // it answers at once and the loop below looks every `NAP` as before.
    let pid = child.id();
    let waiter = std::thread::spawn(move || {
        platform::wait_ended(pid);
        let _ = wake_tx.send(());
    });

    // Wait without reaping: while the leader is unreaped its id cannot be reused, so the
    // group can be signalled safely.
    let mut cut = None;
    let mut broken = false;
    let mut measured = Instant::now();
    loop {
        match platform::has_ended(child) {
            Ok(true) => break,
            Ok(false) => {}
            Err(()) => {
                broken = true;
                break;
            }
        }
        if over.load(Ordering::SeqCst) {
            cut = Some(Cut::Output);
            break;
        }
        let elapsed = started.elapsed();
        if elapsed >= remaining {
            cut = Some(Cut::Time);
            break;
        }
        if watch && measured.elapsed() >= SIZE_EVERY {
            measured = Instant::now();
            if dir_size(dir) > repository_limit {
                cut = Some(Cut::Repository);
                break;
            }
        }
        let mut nap = NAP.min(remaining - elapsed);
        if watch {
            nap = nap.min(SIZE_EVERY.saturating_sub(measured.elapsed()));
        }
        // A wake-up or the nap running out: either way everything is looked at again.
        let _ = wake.recv_timeout(nap.max(Duration::from_millis(1)));
    }

    // Whatever happened, nothing of the group outlives this call: the leader is either still
    // running or an unreaped zombie, so the group id is still this group's.
    platform::kill_group(child);
    let deadline = Instant::now() + GRACE;
    let status = reap_by(child, deadline);
    let mut confirmed = status.is_some() && platform::group_gone(child, deadline);
    // The waiter ends as soon as the leader is reaped (or was already gone); joined so that
    // no thread of a finished process is left waiting on its id.
    if status.is_some() {
        let _ = waiter.join();
    }
    let stdout = out_rx.recv_timeout(deadline.saturating_duration_since(Instant::now()));
    let stderr = err_rx.recv_timeout(deadline.saturating_duration_since(Instant::now()));
    // An answer that never ends means something outside the group holds git's output.
    if stdout.is_err() || stderr.is_err() {
        confirmed = false;
    }
    if let Some(cut) = cut {
        return (Some(Outcome::Cut(cut)), confirmed);
    }
    if over.load(Ordering::SeqCst) {
        return (Some(Outcome::Cut(Cut::Output)), confirmed);
    }
    match (broken, status) {
        (false, Some(status)) => (
            Some(Outcome::Ended(Finished {
                status,
                stdout: stdout.unwrap_or_default(),
                stderr: stderr.unwrap_or_default(),
            })),
            confirmed,
        ),
        _ => (None, confirmed),
    }
}

/// The bytes under `dir`, links not followed; what vanishes while it is walked is not counted.
// The source's own temporary directory, never a user's tree, measured while git writes in it:
// an entry vanishing mid-walk is normal here, where `asv_fs::Root` would rightly refuse.
#[allow(clippy::disallowed_methods)]
pub(crate) fn dir_size(dir: &Path) -> u64 {
    let mut total = 0u64;
    let mut pending = vec![dir.to_owned()];
    while let Some(next) = pending.pop() {
        let Ok(entries) = std::fs::read_dir(&next) else {
            continue;
        };
        for entry in entries.flatten() {
            let Ok(meta) = std::fs::symlink_metadata(entry.path()) else {
                continue;
            };
            if meta.is_dir() {
                pending.push(entry.path());
            } else {
                total = total.saturating_add(meta.len());
            }
        }
    }
    total
}

/// Reaps `child` (its group already killed), looking every 5 ms until `deadline`; `None` when
/// it has not ended by then or cannot be waited for.
pub(crate) fn reap_by(child: &mut Child, deadline: Instant) -> Option<ExitStatus> {
    loop {
        match child.try_wait() {
            Ok(Some(status)) => return Some(status),
            Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(5)),
            _ => return None,
        }
    }
}

/// Reads git's standard error on its own thread to its end, keeping the first
/// [`STDERR_LIMIT`] bytes (the rest is read and dropped, so git never blocks on a full pipe),
/// and sends what it kept.
pub(crate) fn collect_stderr(mut stderr: std::process::ChildStderr, done: mpsc::Sender<Vec<u8>>) {
    std::thread::spawn(move || {
        let mut buf = Vec::new();
        let mut chunk = [0u8; 8192];
        loop {
            match stderr.read(&mut chunk) {
                Ok(0) | Err(_) => break,
                Ok(n) => {
                    let room = STDERR_LIMIT.saturating_sub(buf.len());
                    buf.extend_from_slice(&chunk[..n.min(room)]);
                }
            }
        }
        let _ = done.send(buf);
    });
}
