//! Removing the temporary repositories of git sources when the run is interrupted (issue 31 §3).
//!
//! A run stopped by SIGINT (Ctrl-C) or SIGTERM would otherwise end without the `Drop` that
//! removes a source's `agentic-skill-git-*` directory: the next run's sweep finds it, but until
//! then it holds up to a whole repository. So the first git source of a process starts one
//! thread that waits for those two signals (signal-hook's self-pipe: nothing runs inside the
//! signal handler itself). On a signal it kills the process group of every git process still
//! running, removes every temporary directory still registered, and then ends the process as
//! the signal would have (the default action, so a shell sees it killed by that signal).
//!
//! While the thread works it holds the registry's lock, so no new git process is started and no
//! new directory is made in the meantime. A directory kept on purpose (its git process group
//! could not be confirmed stopped, see `GitProblem::NotStopped`) is taken out of the registry
//! and left, as it is without a signal.
//!
//! SIGHUP is not taken: `nohup` ignores it for a run meant to outlive its terminal, and a
//! handler would undo that.

use std::path::{Path, PathBuf};
use std::process::{Child, Command};
use std::sync::{Mutex, MutexGuard};

/// What a signal has to clean up: directories and running process groups.
struct Live {
    dirs: Vec<PathBuf>,
    groups: Vec<u32>,
}

static LIVE: Mutex<Live> = Mutex::new(Live {
    dirs: Vec::new(),
    groups: Vec::new(),
});

/// The registry; a thread that panicked while holding it left nothing half-written that
/// matters here (two lists of names), so a poisoned lock is taken as it is.
fn live() -> MutexGuard<'static, Live> {
    LIVE.lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Registers `dir` (a source's temporary directory, just made) to be removed on a signal, and
/// starts the thread that waits for one the first time.
pub(crate) fn register_dir(dir: &Path) {
    watch();
    live().dirs.push(dir.to_owned());
}

/// Takes `dir` out of the registry: removed by its owner, or kept on purpose.
pub(crate) fn forget_dir(dir: &Path) {
    live().dirs.retain(|d| d != dir);
}

/// Starts `command` (one git process, in a group of its own) while no signal is being
/// handled, and registers its group to be killed on a signal.
pub(crate) fn spawn(command: &mut Command) -> std::io::Result<Child> {
    let mut live = live();
    let child = command.spawn()?;
    live.groups.push(child.id());
    Ok(child)
}

/// Takes the process group `group` out of the registry once it is confirmed gone (or kept).
pub(crate) fn forget_group(group: u32) {
    live().groups.retain(|g| *g != group);
}

/// Starts the signal thread, once per process.
#[cfg(unix)]
fn watch() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        use signal_hook::consts::{SIGINT, SIGTERM};
        // Without the thread (the handler could not be installed) a signal ends the run as it
        // always did, and the next run's sweep removes what it left.
        let Ok(mut signals) = signal_hook::iterator::Signals::new([SIGINT, SIGTERM]) else {
            return;
        };
        let _ = std::thread::Builder::new()
            .name("asv-interrupt".to_owned())
            .spawn(move || {
                if let Some(signal) = signals.forever().next() {
                    clean_up_and_end(signal);
                }
            });
    });
}

/// No signals to wait for: a stopped run leaves its directory to the next run's sweep.
#[cfg(not(unix))]
fn watch() {}

/// Kills every registered process group, removes every registered directory, then ends the
/// process with `signal`'s default action. The registry stays locked until the end, so the
/// rest of the program starts nothing new meanwhile.
#[cfg(unix)]
// The source's own temporary directories, never a user's tree: `asv_fs::Root` does not apply.
#[allow(clippy::disallowed_methods)]
fn clean_up_and_end(signal: i32) {
    let live = live();
    for group in &live.groups {
        crate::platform::kill_group_id(*group);
    }
    for dir in &live.dirs {
        // A git process just killed may still be on its way out for a moment; what is left
        // after a few tries is the next run's sweep's.
        for _ in 0..50 {
            match std::fs::remove_dir_all(dir) {
                Ok(()) => break,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => break,
                Err(_) => std::thread::sleep(std::time::Duration::from_millis(10)),
            }
        }
    }
    let _ = signal_hook::low_level::emulate_default_handler(signal);
    // Should the default action not end the process, end it as a shell reports a signal.
    signal_hook::low_level::exit(128 + signal);
}
